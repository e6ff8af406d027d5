// One editable field of a record as `edit` sees it, with flags or in $EDITOR: its key, how its
// value reads as text, and how text sets it (dates and references read as on `add`; an empty
// value clears an optional field).
import Foundation
import ObjectGraph

/// An editable field of a kind of record.
public struct FormField {
    /// The key in the form and the name of the `edit` flag.
    public let key: String
    /// What the value is, for the comment in the form.
    public let help: String
    /// The entity property behind the field, when only some entities of the kind have it
    /// (a person's nickname): records without it do not show the field.
    let property: String?
    /// The value as text.
    let read: (ManagedObject, PIMStore) -> String
    /// Sets the value from text.
    let write: (ManagedObject, String, PIMStore) throws(PIMError) -> Void

    init(_ key: String, _ help: String, property: String? = nil, read: @escaping (ManagedObject, PIMStore) -> String,
         write: @escaping (ManagedObject, String, PIMStore) throws(PIMError) -> Void) {
        self.key = key
        self.help = help
        self.property = property
        self.read = read
        self.write = write
    }

    /// This field, with `check` run on the record after each write: a check that throws refuses
    /// the value (the command then saves nothing).
    func checked(_ check: @escaping (ManagedObject, PIMStore) throws(PIMError) -> Void) -> FormField {
        let write = self.write
        return FormField(key, help, property: property, read: read) { record, text, store throws(PIMError) in
            try write(record, text, store)
            try check(record, store)
        }
    }

    /// A plain string attribute; `required` ones refuse to be emptied.
    static func text(_ key: String, _ help: String, attribute: String? = nil, required: Bool = false) -> FormField {
        let name = attribute ?? key
        return FormField(key, help, property: name, read: { record, _ in record.value(forKey: name) as? String ?? "" }) { record, text, _ throws(PIMError) in
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if required, value.isEmpty { throw PIMError.usage("\(key) cannot be empty") }
            record.setValue(value.isEmpty ? nil : value, forKey: name)
        }
    }

    /// A day of no time zone (a birthday, an anniversary), read as `contacts add` reads one: a
    /// day typed without a year has none.
    static func day(_ key: String, _ help: String) -> FormField {
        FormField(key, help, property: key, read: { record, _ in
            (record.value(forKey: key) as? Date).map { OutputFormat.day($0) } ?? ""
        }) { record, text, store throws(PIMError) in
            let value = text.trimmingCharacters(in: .whitespaces)
            record.setValue(value.isEmpty ? nil : try store.readDay(value, with: store.dateParser), forKey: key)
        }
    }

    /// A date attribute, read as `add` reads dates.
    static func date(_ key: String, _ help: String, dateOnly: Bool = false) -> FormField {
        FormField(key, help, property: key, read: { record, store in
            (record.value(forKey: key) as? Date).map { OutputFormat.local($0, timeZone: store.timeZone, dateOnly: dateOnly) } ?? ""
        }) { record, text, store throws(PIMError) in
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            record.setValue(value.isEmpty ? nil : try store.readDate(value, with: store.dateParser), forKey: key)
        }
    }

    /// A to-one link to a record of `kind`, named as on the command line.
    static func reference(_ key: String, _ help: String, kind: RecordKind, relationship: String? = nil) -> FormField {
        let name = relationship ?? key
        return FormField(key, help, read: { record, _ in
            guard let target = record.value(forKey: name) as? ManagedObject else { return "" }
            return "\(target.value(forKey: "number") as? Int64 ?? 0)"
        }) { record, text, store throws(PIMError) in
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            record.setValue(value.isEmpty ? nil : try RecordResolver(store: store).resolve(value, as: kind), forKey: name)
        }
    }

    /// The alarms of an event or task, comma-separated as `--alarm` reads each.
    static func alarms(forTask: Bool) -> FormField {
        let base = forTask ? "the due date" : "the start"
        return FormField("alarms", "comma-separated: 15m, 1h30m or 1d before \(base), 10m after, \(forTask ? "when due" : "at the start"), or a date and time",
                         property: "alarms", read: { record, store in
            Alarm.list(record.value(forKey: "alarms") as? String).map { $0.text(forTask: forTask, timeZone: store.timeZone) }.joined(separator: ", ")
        }) { record, text, store throws(PIMError) in
            record.setValue(Alarm.stored(try store.readAlarms(text)), forKey: "alarms")
        }
    }

    /// Whether `record` has this field.
    func applies(to record: ManagedObject) -> Bool {
        property.map { record.entity.propertiesByName[$0] != nil } ?? true
    }

    /// Comma-separated items of `text`.
    static func items(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
