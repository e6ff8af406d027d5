// What one pim run works with: the store located by the rules of StoreLocation, the instant and
// time zone (PIM_NOW fixes the instant for scripts and tests), whether to color, the command line
// the undo journal records, and the printing of records as tables or JSON.
import Foundation
import ObjectGraph
import PIM

struct Session {
    let store: PIMStore
    let options: GlobalOptions
    let colored: Bool

    init(_ options: GlobalOptions) throws(PIMError) {
        let environment = ProcessInfo.processInfo.environment
        let home = StoreLocation.home(environment: environment)
        var now = Date()
        if let fixed = environment["PIM_NOW"], !fixed.isEmpty {
            do {
                now = try DateParser(now: now, timeZone: .current).date(fixed)
            } catch {
                throw PIMError.usage("PIM_NOW: \(error)")
            }
        }
        let storeURL = StoreLocation.url(option: options.store, environment: environment, home: home)
        store = try PIMStore(url: storeURL, now: now,
                             recordsDirectory: StoreLocation.recordsURL(storeURL: storeURL, environment: environment, home: home))
        self.options = options
        colored = options.color.isEnabled(isTerminal: Console.stdoutIsTerminal, environment: environment)
        if let error = store.recordsStatus?.lastError {
            Console.error("pim: warning: cannot write the record files: \(error); run `pim records sync`")
        }
    }

    /// The command line as the journal names it, each argument quoted as a shell would need it
    /// to be typed again: `tasks add Buy milk --due 'fri 17:00'`.
    var commandLine: String { CommandLine.arguments.dropFirst().map(Self.shellQuoted).joined(separator: " ") }

    /// `argument` as a POSIX shell reads it back: as it is when it holds only characters no shell
    /// treats specially, else in single quotes (a quote inside written `'\''`).
    static func shellQuoted(_ argument: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")
        if !argument.isEmpty, argument.allSatisfy(plain.contains) { return argument }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    func presenter(_ kind: RecordKind) -> RecordPresenter {
        RecordPresenter(kind: kind, now: store.now, timeZone: store.timeZone, colored: colored)
    }

    /// Saves the command's changes as one undo group.
    func commit() throws(PIMError) {
        try store.commit(command: commandLine)
        warnOfUnwrittenRecordFiles()
    }

    /// Says on stderr that the saved changes' record files could not all be written (the
    /// command still succeeded: the store has them; the files are tried again after the next
    /// change, or by `pim records sync`).
    func warnOfUnwrittenRecordFiles() {
        guard let status = store.recordsStatus, !status.pendingObjectIDs.isEmpty || status.lastError != nil else { return }
        let reason = status.lastError.map { ": \($0)" } ?? ""
        Console.error("pim: warning: \(status.pendingObjectIDs.count) record file(s) not written\(reason); run `pim records sync`")
    }

    /// Prints a list of records: JSON, or a table of the chosen fields; nothing listed exits 1.
    /// Lists the records of `query` and prints them (``printList(_:kind:fieldNames:)``), loading
    /// the relationships the printed fields read together with the records.
    func printList(_ query: RecordQuery, fieldNames: [String]?) throws {
        var query = query
        let printed = fieldNames ?? (options.json ? RecordField.all(for: query.kind, now: store.now).map(\.name)
            : RecordField.defaultColumns(for: query.kind))
        query.relationshipKeyPaths = RecordField.relationshipKeyPaths(reading: printed, for: query.kind)
        try printList(try store.list(query), kind: query.kind, fieldNames: fieldNames)
    }

    func printList(_ records: [ManagedObject], kind: RecordKind, fieldNames: [String]?) throws {
        let presenter = presenter(kind)
        let fields = try fieldNames.map { names throws(PIMError) in try RecordField.select(names, for: kind, now: store.now) }
        if options.json {
            try print(RecordPresenter.json(records.map { presenter.jsonObject($0, fields: fields) }))
        } else if !records.isEmpty {
            let columns = try fields ?? RecordField.select(RecordField.defaultColumns(for: kind), for: kind, now: store.now)
            try print(presenter.table(records, fields: columns))
        }
        if records.isEmpty { throw PIMError.noMatch("no \(kind.plural) match") }
    }

    /// Prints one record in full: JSON, or its `field  value` lines.
    func printRecord(_ record: ManagedObject, kind: RecordKind) throws(PIMError) {
        let presenter = presenter(kind)
        try print(options.json ? RecordPresenter.json(presenter.jsonObject(record)) : presenter.details(record))
    }

    /// Prints `text` on stdout, unless reading the store failed on the way (a damaged record
    /// read as empty, ``ManagedObjectContext/faultingError``): then the run fails with exit
    /// status 8 rather than print what was never read.
    func print(_ text: String) throws(PIMError) {
        if let error = store.context.faultingError { throw PIMError.wrapping(error, storePath: store.url.path) }
        Console.print(text)
    }

    /// Prints the records a write command changed: JSON (an object for one, an array for
    /// several), or one `verb kind number (uuid): name` line each, with `extra` lines under it.
    func printChanged(_ records: [ManagedObject], kind: RecordKind, verb: String, extra: (ManagedObject) -> [String] = { _ in [] }) throws(PIMError) {
        try print(changedText(records, kind: kind, verb: verb, extra: extra))
    }

    /// Prints the tasks a command added besides its own records (the next occurrences of the
    /// repeating tasks it completed), with their due dates.
    func printAdded(_ tasks: [ManagedObject]) throws(PIMError) {
        try printChanged(tasks, kind: .task, verb: "Added") { task in
            ((task as? TaskItem)?.due).map { ["due \(echo($0))"] } ?? []
        }
    }

    /// What ``printChanged(_:kind:verb:extra:)`` prints (without the final newline).
    func changedText(_ records: [ManagedObject], kind: RecordKind, verb: String, extra: (ManagedObject) -> [String] = { _ in [] }) -> String {
        let presenter = presenter(kind)
        if options.json {
            let objects = records.map { presenter.jsonObject($0) }
            return String(RecordPresenter.json(objects.count == 1 ? objects[0] : objects).dropLast())
        }
        return records.map { record in
            let uuid = (record.value(forKey: "uuid") as? UUID)?.uuidString.lowercased() ?? ""
            let number = record.value(forKey: "number") as? Int64 ?? 0
            let name = record.value(forKey: kind.nameKey) as? String ?? ""
            return ([("\(verb) \(kind.singular) \(number) (\(uuid)): \(name)")] + extra(record).map { "  " + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A date as add and edit echo it, in the store's time zone.
    func echo(_ date: Date, dateOnly: Bool = false) -> String {
        OutputFormat.echo(date, timeZone: store.timeZone, dateOnly: dateOnly)
    }

    /// Asks before deleting `count` records: on a terminal, once; without one, only `--yes` will do.
    func confirmDeletion(count: Int, kind: RecordKind, yes: Bool) throws(PIMError) {
        let records = "\(count) \(count == 1 ? kind.singular : kind.plural)"
        try confirm("Delete \(records)?", refusal: "not deleting \(records) without --yes (no terminal to ask on)",
                    declined: "nothing deleted", yes: yes)
    }

    /// Asks `question` on a terminal unless `yes`; without a terminal, throws `refusal` (exit 6),
    /// and `declined` when the answer is no.
    func confirm(_ question: String, refusal: String, declined: String = "nothing changed", yes: Bool) throws(PIMError) {
        if yes { return }
        guard Console.stdinIsTerminal else { throw PIMError.notConfirmed(refusal) }
        guard Console.confirm(question) else { throw PIMError.notConfirmed(declined) }
    }
}
