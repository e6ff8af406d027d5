// The edit form of a record: its editable fields as `key: value` lines under comments, the text
// $EDITOR shows and pim reads back. Applying a form (or the values of `edit` flags) sets only the
// fields whose text changed; every value is checked before any is set.
import Foundation
import ObjectGraph

/// The editable fields of a kind and the form text of a record.
public struct RecordForm {
    public let kind: RecordKind
    public let fields: [FormField]

    public init(kind: RecordKind) {
        self.kind = kind
        switch kind {
        case .task: fields = Self.taskFields
        case .event: fields = Self.eventFields
        case .contact: fields = Self.contactFields
        case .group: fields = [.text("name", "the group's name", required: true), .text("notes", "notes")]
        }
    }

    /// The form of `record`: a comment header, then one `key: value` line per field.
    public func render(_ record: ManagedObject, store: PIMStore, problem: String? = nil) -> String {
        var lines: [String] = []
        if let problem { lines += Self.problemLines(problem) }
        let number = record.value(forKey: "number") as? Int64 ?? 0
        let uuid = (record.value(forKey: "uuid") as? UUID)?.uuidString.lowercased() ?? ""
        lines.append("# Editing \(kind.singular) \(number) (\(uuid)). Lines starting with # are ignored;")
        lines.append("# an empty value clears a field. Save and quit to apply; empty the file to cancel.")
        let shown = fields.filter { $0.applies(to: record) }
        let width = shown.map(\.key.count).max() ?? 0
        for field in shown {
            lines.append("")
            lines.append("# \(field.help)")
            // A value of several lines (notes) continues on lines indented by two spaces.
            let value = field.read(record, store).split(separator: "\n", omittingEmptySubsequences: false)
            lines.append(field.key + ":" + String(repeating: " ", count: width - field.key.count + 1) + (value.first ?? ""))
            lines += value.dropFirst().map { $0.isEmpty ? "" : Self.continuation + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The indentation of a value's later lines in the form.
    static let continuation = "  "

    /// The `key: value` pairs of a form's text; throws naming a line that is not one or a key
    /// that is not a field. Nil when the text has no fields at all (the edit is cancelled).
    ///
    /// A line indented under a value continues it (notes of several lines), as do empty lines
    /// between such lines; a comment or the next key ends it.
    public func values(of text: String, for record: ManagedObject) throws(PIMError) -> [String: String]? {
        let fields = fields.filter { $0.applies(to: record) }
        var values: [String: String] = [:]
        // The key whose value the following indented lines continue, and the empty lines seen
        // since its last line (kept only if another indented line follows).
        var open: String?
        var blanks = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let key = open, line.first == " " || line.first == "\t", !trimmed.isEmpty, !trimmed.hasPrefix("#") {
                let content = line.hasPrefix(Self.continuation) ? line.dropFirst(Self.continuation.count) : line.drop { $0 == " " || $0 == "\t" }
                let text = String(content).trimmingTrailingSpaces()
                // A value begun on the lines under its key (nothing after the colon) starts there.
                if values[key, default: ""].isEmpty {
                    values[key] = text
                } else {
                    values[key, default: ""] += String(repeating: "\n", count: blanks + 1) + text
                }
                blanks = 0
                continue
            }
            if trimmed.isEmpty {
                blanks += 1
                continue
            }
            open = nil
            blanks = 0
            if trimmed.hasPrefix("#") { continue }
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw PIMError.usage("line \(index + 1): expected \"key: value\", got \"\(trimmed)\"")
            }
            let key = String(trimmed[..<colon]).trimmingCharacters(in: .whitespaces)
            guard fields.contains(where: { $0.key == key }) else {
                throw PIMError.usage("line \(index + 1): \(kind.plural) have no field \"\(key)\"; fields: \(fields.map(\.key).joined(separator: ", "))")
            }
            values[key] = String(trimmed[trimmed.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            open = key
        }
        return values.isEmpty ? nil : values
    }

    /// Sets the fields of `values` that differ from the record's, in the form's order. A failure
    /// leaves the context's changes to the caller, which rolls them back.
    @discardableResult
    public func apply(_ values: [String: String], to record: ManagedObject, store: PIMStore) throws(PIMError) -> Bool {
        for key in values.keys where !fields.contains(where: { $0.key == key && $0.applies(to: record) }) {
            throw PIMError.usage("\(record.entity.name.lowercased())s have no field \"\(key)\"")
        }
        // Compared with the values before any is set: a field set first may move another (a new
        // start moves the end), and the other's text, unchanged in the form, must not move it back.
        let before = fields.map { values[$0.key] == nil ? nil : $0.read(record, store) }
        let task = record as? TaskItem
        let due = task?.due
        let alarms = task?.alarms
        var changed = false
        func write(_ indices: [Int]) throws(PIMError) {
            for index in indices {
                guard let text = values[fields[index].key], text != before[index] else { continue }
                try fields[index].write(record, text, store)
                changed = true
            }
        }
        // The status last: a task that becomes done adds its next occurrence from the due date
        // and rule the same edit sets. A repeating task given another due date repeats from it.
        try write(fields.indices.filter { fields[$0].key != "status" })
        if let task, task.recurrenceRule != nil {
            guard let newDue = task.due else { throw PIMError.usage(PIMStore.repeatNeedsDue) }
            if newDue != due { task.recurrenceStart = newDue }
        }
        // Alarms before or after the due date need one, as a rule does (checked when the edit
        // clears the due date or changes the alarms: an imported task may have such alarms and
        // no due date, and the form holds every field).
        if let task, task.due == nil, due != nil || task.alarms != alarms,
           let relative = Alarm.list(task.alarms).first(where: \.isRelative) {
            throw PIMError.usage(PIMStore.alarmNeedsDue(relative))
        }
        try write(fields.indices.filter { fields[$0].key == "status" })
        return changed
    }
}

extension RecordForm {
    /// The comment lines that put `problem` at the top of a form.
    static func problemLines(_ problem: String) -> [String] {
        problem.split(separator: "\n").map { "# ERROR: \($0)" } + ["#"]
    }

    /// `form` (as the user saved it) with `problem` at its top instead of the problem it had.
    static func withProblem(_ problem: String, _ form: String) -> String {
        var lines = form.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while let first = lines.first, first.hasPrefix("# ERROR: ") || (first == "#" && lines.count > 1 && lines[1].hasPrefix("# Editing")) {
            lines.removeFirst()
        }
        return (problemLines(problem) + lines).joined(separator: "\n")
    }

    /// Edits `record` through `editor` (which is shown the form text and returns the edited
    /// text): invalid input reopens the form with the problem at its top, the changes rolled back
    /// and the record made again by `remake` when given (a record the edit made, such as a
    /// changed occurrence, goes with the rollback); an emptied form cancels (nil). Returns the record
    /// edited and whether any field changed.
    public func edit(_ record: ManagedObject, store: PIMStore, remake: (() throws(PIMError) -> ManagedObject)? = nil,
                     editor: (String) throws -> String) throws(PIMError) -> (record: ManagedObject, changed: Bool)? {
        var record = record
        var form = render(record, store: store)
        var refused = false
        while true {
            let edited: String
            do {
                edited = try editor(form)
            } catch {
                throw PIMError.usage("editor: \(error)")
            }
            do {
                if refused, let remake { record = try remake() }
                guard let values = try values(of: edited, for: record) else { return nil }
                return (record, try apply(values, to: record, store: store))
            } catch {
                store.context.rollback()
                refused = true
                // The form comes back as the user left it, under the problem (the one before
                // replaced), so that nothing typed is lost.
                form = Self.withProblem(error.description, edited)
            }
        }
    }
}
