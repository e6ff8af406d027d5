// What show, edit, delete and search do for every kind of record, so that each domain's
// subcommands only declare their arguments.
import Foundation
import ObjectGraph
import PIM

enum RecordCommands {
    static func show(_ id: String, kind: RecordKind, global: GlobalOptions) throws {
        let session = try Session(global)
        try session.printRecord(try RecordResolver(store: session.store).resolve(id, as: kind), kind: kind)
    }

    /// Deletes the records `ids` name, and a task's subtasks with it (its delete rule), after one
    /// confirmation counting them all; prints them once the deletion is saved.
    static func delete(_ ids: [String], kind: RecordKind, yes: Bool, global: GlobalOptions) throws {
        let session = try Session(global)
        let named = try resolve(ids, kind: kind, session: session)
        var records: [ManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        func add(_ record: ManagedObject) {
            guard seen.insert(ObjectIdentifier(record)).inserted else { return }
            records.append(record)
            for subtask in ((record as? TaskItem)?.subtasks ?? []).sorted(by: { $0.number < $1.number }) { add(subtask) }
            // A repeating event's changed occurrences go with it.
            for occurrence in ((record as? Event)?.overrides ?? []).sorted(by: { $0.number < $1.number }) { add(occurrence) }
        }
        for record in named { add(record) }
        try session.confirmDeletion(count: records.count, kind: kind, yes: yes)
        // Written before the objects go (their values are gone after the save), printed after it.
        let text = session.changedText(records, kind: kind, verb: "Deleted")
        for record in named { session.store.context.delete(record) }
        try session.commit()
        try session.print(text)
    }

    static func search(_ words: [String], kind: RecordKind, list: ListOptions, global: GlobalOptions) throws {
        let session = try Session(global)
        var query = list.query(kind)
        query.filters = [try session.store.searchPredicate(words.joined(separator: " "), kind: kind)]
        try session.printList(query, fieldNames: list.fieldNames)
    }

    /// Edits a record: with `values` (from flags) sets those fields; without, opens $VISUAL or
    /// $EDITOR on the record's form (vi only on a terminal). Echoes the dates the edit resolved.
    static func edit(_ id: String, kind: RecordKind, values: [String: String], global: GlobalOptions) throws {
        try edit(kind: kind, values: values, global: global) { session in
            try RecordResolver(store: session.store).resolve(id, as: kind)
        }
    }

    /// ``edit(_:kind:values:global:)`` of the record `target` finds (or makes) in the session
    /// (again after a form the store refused, whose changes are rolled back); `notes` are
    /// printed under the record's line, before its dates. With `requiresChange`, an edit that
    /// changes no field saves nothing (what `target` made included) and exits 1.
    static func edit(kind: RecordKind, values: [String: String], global: GlobalOptions, notes: @escaping (Session) -> [String] = { _ in [] },
                     requiresChange: Bool = false, target: @escaping (Session) throws -> ManagedObject) throws {
        let session = try Session(global)
        var record = try target(session)
        let form = RecordForm(kind: kind)
        let changed: Bool
        if values.isEmpty {
            let editor = try Editor(flagExample: "--\(kind.nameKey)")
            let remake: () throws(PIMError) -> ManagedObject = { () throws(PIMError) in
                do { return try target(session) } catch let error as PIMError { throw error } catch { throw PIMError.usage("\(error)") }
            }
            guard let result = try form.edit(record, store: session.store, remake: remake, editor: editor.edit) else {
                throw PIMError.noMatch("edit cancelled: the form was emptied")
            }
            record = result.record
            changed = result.changed
        } else {
            changed = try form.apply(values, to: record, store: session.store)
        }
        if requiresChange, !changed {
            session.store.context.rollback()
            throw PIMError.noMatch("nothing changed: the \(kind.singular) stays as it was")
        }
        // Tasks the edit added: the next occurrence of a repeating task it marked done.
        let added = session.store.context.insertedObjects.filter { $0 is TaskItem && $0 !== record }
            .sorted { $0.objectID < $1.objectID }
        try session.commit()
        try session.printChanged([record], kind: kind, verb: "Edited") { record in
            notes(session) + ["start", "end", "due", "scheduled", "wait", "birthday"].compactMap { key in
                guard record.entity.propertiesByName[key] != nil, let date = record.value(forKey: key) as? Date,
                      values.isEmpty || values[key] != nil else { return nil }
                if key == "birthday" { return "birthday \(OutputFormat.day(date, weekday: true))" }
                if let days = (record as? Event)?.days(fallback: session.store.calendar) {
                    return "\(key) \(OutputFormat.day(key == "start" ? days.first : days.last, weekday: true))"
                }
                return "\(key) \(session.echo(date))"
            }
        }
        // JSON keeps its shape (the edited record); `tasks list` shows the added ones.
        if !added.isEmpty, !global.json { try session.printAdded(added) }
    }

    /// Writes the records `options` name (when none, all those its `--where` and `narrowing`
    /// select) as vCard or iCalendar text, to the output file or stdout. Exits 1 when none match.
    static func export(_ options: ExportOptions, kind: RecordKind, global: GlobalOptions, vCardVersion: VCardVersion = .v3,
                       narrowing: (Session, inout RecordQuery) throws -> Void = { _, _ in }) throws {
        if global.json { throw PIMError.usage("--json: export writes \(kind == .contact ? "vCard" : "iCalendar") text; `\(kind.plural) list --json` prints JSON") }
        let session = try Session(global)
        var selection = RecordQuery(kind: kind)
        selection.whereClause = options.predicate
        try narrowing(session, &selection)
        selection.relationshipKeyPaths = PIMStore.exportKeyPaths(for: kind)
        let records = options.ids.isEmpty ? try session.store.list(selection) : try resolve(options.ids, kind: kind, session: session)
        if records.isEmpty { throw PIMError.noMatch("no \(kind.plural) match: nothing exported") }
        let text = session.store.exportText(records, kind: kind, vCardVersion: vCardVersion)
        let output = options.output
        if let error = session.store.context.faultingError { throw PIMError.wrapping(error, storePath: session.store.url.path) }
        guard let output, output != "-" else {
            Console.write(text)
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw PIMError.output(path: output, reason: "cannot be written: \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
        }
    }

    /// The records `ids` name, each once, in the order given.
    static func resolve(_ ids: [String], kind: RecordKind, session: Session) throws -> [ManagedObject] {
        guard !ids.isEmpty else { throw PIMError.usage("name at least one \(kind.singular)") }
        let resolver = RecordResolver(store: session.store)
        var records: [ManagedObject] = []
        for id in ids {
            let record = try resolver.resolve(id, as: kind)
            if !records.contains(record) { records.append(record) }
        }
        return records
    }
}

/// The user's editor: $VISUAL, else $EDITOR, else vi, run through the shell on a temporary file.
struct Editor {
    /// The shell command, run with the file's path after it.
    let command: String

    /// What every `edit` command's help says about the editor.
    static let help = "Without flags, with neither $VISUAL nor $EDITOR set, vi opens, but only on a terminal: "
        + "without one, edit changes nothing and exits with status 2."

    /// The editor the environment names. $VISUAL or $EDITOR runs even without a terminal
    /// (scripts set `EDITOR='sed -i ...'`), but vi needs one on stdin and stdout: without it, vi
    /// would hang or write its screen into a script's output, so this throws a usage error that
    /// suggests `flagExample` instead.
    ///
    ///     let editor = try Editor(flagExample: "--title")
    ///     let edited = try editor.edit(form)
    init(flagExample: String) throws(PIMError) {
        let environment = ProcessInfo.processInfo.environment
        if let named = [environment["VISUAL"], environment["EDITOR"]].compactMap({ $0 }).first(where: { !$0.isEmpty }) {
            command = named
        } else if Console.stdinIsTerminal && Console.stdoutIsTerminal {
            command = "vi"
        } else {
            throw PIMError.usage("no editor: $VISUAL and $EDITOR are unset, and vi needs a terminal; "
                + "give the changes as flags, such as \(flagExample), or set $EDITOR (nothing changed)")
        }
    }

    /// Runs the editor on a temporary file holding `text` and returns the file's text after it.
    func edit(_ text: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pim-edit-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(command) \"$1\"", "sh", file.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PIMError.usage("editor \"\(command)\" exited with status \(process.terminationStatus); nothing changed")
        }
        return try String(contentsOf: file, encoding: .utf8)
    }
}
