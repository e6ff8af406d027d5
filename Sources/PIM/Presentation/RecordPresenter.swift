// Printing records: a JSON array or object (every field, sorted keys, `id` the UUID, RFC 3339
// dates), an aligned table of chosen fields, or the `show` form of one record (field: value lines).
import Foundation
import ObjectGraph

/// Turns records into text or JSON for one command.
public struct RecordPresenter {
    public let kind: RecordKind
    public let now: Date
    public let timeZone: TimeZone
    public let colored: Bool

    public init(kind: RecordKind, now: Date, timeZone: TimeZone, colored: Bool) {
        self.kind = kind
        self.now = now
        self.timeZone = timeZone
        self.colored = colored
    }

    /// The JSON object of one record: all fields, or those of `fields` and always `id`.
    public func jsonObject(_ record: ManagedObject, fields: [RecordField]? = nil) -> [String: Any] {
        var object: [String: Any] = [:]
        for field in fields ?? RecordField.all(for: kind, now: now) {
            object[field.name] = field.value(record).jsonObject(timeZone: timeZone)
        }
        object["id"] = RecordField.common[0].value(record).jsonObject(timeZone: timeZone)
        return object
    }

    /// JSON text, keys sorted, with a final newline.
    public static func json(_ value: Any) -> String {
        (JSONText.write(value) ?? "null") + "\n"
    }

    /// The table of `records` with `fields` as columns.
    public func table(_ records: [ManagedObject], fields: [RecordField]) -> String {
        var table = Table(headers: fields.map(\.header))
        for record in records {
            table.append(fields.map { $0.value(record).cellText(timeZone: timeZone) }, emphasis: emphasis(of: record))
        }
        return table.render(colored: colored)
    }

    /// `show`: one `field: value` line per field with a value.
    public func details(_ record: ManagedObject) -> String {
        let fields = RecordField.all(for: kind, now: now)
        let width = fields.map(\.name.count).max() ?? 0
        return fields.compactMap { field -> String? in
            let value = field.value(record)
            let text = value.text(timeZone: timeZone)
            guard !text.isEmpty else { return nil }
            let label = Emphasis.header.apply(field.name, colored: colored)
            // A value of several lines (notes) keeps its later lines under its first.
            let margin = "\n" + String(repeating: " ", count: width + 2)
            return label + String(repeating: " ", count: width - field.name.count) + "  "
                + text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: margin)
        }.joined(separator: "\n") + "\n"
    }

    /// Overdue open tasks stand out; finished ones and cancelled events recede; started tasks are
    /// marked.
    func emphasis(of record: ManagedObject) -> Emphasis {
        if let event = record as? Event { return event.status == "cancelled" ? .muted : .plain }
        guard let task = record as? TaskItem else { return .plain }
        if !task.isOpen { return .muted }
        if let due = task.due, due < now { return .alert }
        return task.status == "started" ? .active : .plain
    }
}
