// The fields of each kind of record, by the names `--fields` and JSON use: one list per kind
// defines what `list`, `show` and `--json` can print and how each value is read from a record.
import Foundation
import ObjectGraph

/// One printable field of a kind of record.
public struct RecordField {
    /// The name in JSON and in `--fields`.
    public let name: String
    /// The table header.
    public let header: String
    /// The value of a record.
    public let value: (ManagedObject) -> OutputValue
    /// The relationships the value reads (key paths): a list loads them with its records, one
    /// request per relationship rather than one per record.
    public let relationshipKeyPaths: [String]

    init(_ name: String, _ header: String? = nil, reading relationshipKeyPaths: [String] = [],
         _ value: @escaping (ManagedObject) -> OutputValue) {
        self.name = name
        self.header = header ?? name.uppercased()
        self.relationshipKeyPaths = relationshipKeyPaths
        self.value = value
    }

    /// Every field of `kind`, JSON's order; the first is always `id`.
    public static func all(for kind: RecordKind, now: Date) -> [RecordField] {
        common + specific(for: kind, now: now) + trailing
    }

    /// The columns `list` shows when `--fields` is not given.
    public static func defaultColumns(for kind: RecordKind) -> [String] {
        switch kind {
        case .task: ["number", "title", "status", "project", "tags", "due", "priority", "urgency"]
        case .event: ["number", "start", "end", "title", "status", "location", "repeat"]
        case .contact: ["number", "name", "emails", "phones", "organization"]
        case .group: ["number", "name", "members"]
        }
    }

    /// The relationships the fields named in `names` read (unknown names read none), each once.
    public static func relationshipKeyPaths(reading names: [String], for kind: RecordKind) -> [String] {
        let fields = all(for: kind, now: Date())
        var keyPaths: [String] = []
        for name in names {
            for keyPath in fields.first(where: { $0.name == name })?.relationshipKeyPaths ?? [] where !keyPaths.contains(keyPath) {
                keyPaths.append(keyPath)
            }
        }
        return keyPaths
    }

    /// The fields named in `names` (a `--fields` list), or a usage error naming an unknown one.
    public static func select(_ names: [String], for kind: RecordKind, now: Date) throws(PIMError) -> [RecordField] {
        let fields = all(for: kind, now: now)
        return try names.map { name throws(PIMError) in
            guard let field = fields.first(where: { $0.name == name }) else {
                throw PIMError.usage("--fields: \(kind.plural) have no field \"\(name)\"; fields: \(fields.map(\.name).joined(separator: ", "))")
            }
            return field
        }
    }

    static var common: [RecordField] { [
        RecordField("id") { .from($0.value(forKey: "uuid") as? UUID) { .string($0.uuidString.lowercased()) } },
        RecordField("number", "#") { .integer($0.value(forKey: "number") as? Int64 ?? 0) },
    ] }

    static var trailing: [RecordField] { [
        RecordField("notes") { string($0, "notes") },
        RecordField("created") { date($0, "created") },
        RecordField("modified") { date($0, "modified") },
        RecordField("source") { string($0, "source") },
        RecordField("externalID", "EXTERNAL ID") { string($0, "externalID") },
    ] }

    static func specific(for kind: RecordKind, now: Date) -> [RecordField] {
        switch kind {
        case .task: taskFields(now: now)
        case .event: eventFields
        case .contact: contactFields
        case .group: groupFields
        }
    }

    static func taskFields(now: Date) -> [RecordField] {
        [
            RecordField("title") { string($0, "title") },
            RecordField("status") { string($0, "status") },
            RecordField("priority", "PRI") { record in
                let value = record.value(forKey: "priority") as? Int16 ?? 0
                return .from(TaskPriority.letter(value)) { .string($0) }
            },
            RecordField("due") { date($0, "due") },
            RecordField("scheduled") { date($0, "scheduled") },
            RecordField("wait") { date($0, "wait") },
            RecordField("repeat") { string($0, "recurrenceRule") },
            RecordField("alarms") { record in .array(Alarm.list(record.value(forKey: "alarms") as? String).map { .alarm($0, forTask: true) }) },
            RecordField("annotations") { .annotations(Annotation.list($0.value(forKey: "annotations") as? String)) },
            RecordField("started") { date($0, "started") },
            RecordField("completed") { date($0, "completed") },
            RecordField("project") { string($0, "project") },
            RecordField("tags", reading: ["tags"]) { record in .array(((record as? TaskItem)?.tags.compactMap(\.name).sorted() ?? []).map { .string($0) }) },
            RecordField("assignee", reading: ["assignee"]) { record in .from((record as? TaskItem)?.assignee) { reference($0) } },
            RecordField("event", reading: ["event"]) { record in .from((record as? TaskItem)?.event) { reference($0) } },
            RecordField("parent", reading: ["parent"]) { record in .from((record as? TaskItem)?.parent) { reference($0) } },
            RecordField("subtasks", reading: ["subtasks"]) { record in .array(references((record as? TaskItem)?.subtasks)) },
            RecordField("dependsOn", "DEPENDS", reading: ["dependencies"]) { record in .array(references((record as? TaskItem)?.dependencies)) },
            RecordField("urgency", "URG", reading: TaskItem.urgencyRelationships) { record in .double((record as? TaskItem)?.urgency(at: now) ?? 0) },
        ]
    }

    static var eventFields: [RecordField] { [
        RecordField("title") { string($0, "title") },
        RecordField("start") { record in
            if let days = allDayDays(record) { return .day(days.first) }
            return .from(record.value(forKey: "start") as? Date) { .date($0, dateOnly: false) }
        },
        RecordField("end") { record in
            if let days = allDayDays(record) { return .day(days.last) }
            return .from(record.value(forKey: "end") as? Date) { .date($0, dateOnly: false) }
        },
        RecordField("allDay", "ALL DAY") { .bool($0.value(forKey: "allDay") as? Bool ?? false) },
        RecordField("timeZone", "ZONE") { string($0, "timeZone") },
        RecordField("location") { string($0, "location") },
        RecordField("status") { string($0, "status") },
        RecordField("repeat") { string($0, "recurrenceRule") },
        RecordField("skipped") { record in
            guard let event = record as? Event else { return .array([]) }
            return .array(event.skippedOccurrences.map { event.allDay ? .day($0) : .date($0, dateOnly: false) })
        },
        RecordField("alarms") { record in .array(Alarm.list(record.value(forKey: "alarms") as? String).map { .alarm($0, forTask: false) }) },
        RecordField("calendar") { string($0, "calendar") },
        RecordField("series", reading: ["master"]) { record in .from((record as? Event)?.master) { reference($0) } },
        RecordField("replaces") { record in
            // The value type of the series' start (RFC 5545 3.8.4.4), whatever the occurrence became.
            guard let event = record as? Event, let start = event.recurrenceID else { return .null }
            return event.master?.allDay ?? event.allDay ? .day(start) : .date(start, dateOnly: false)
        },
        RecordField("organizer", reading: ["organizer"]) { record in .from((record as? Event)?.organizer) { reference($0) } },
        RecordField("attendees", reading: ["attendees"]) { record in .array(references((record as? Event)?.attendees)) },
        RecordField("tasks", reading: ["tasks"]) { record in .array(references((record as? Event)?.tasks)) },
    ] }

    static var contactFields: [RecordField] { [
        RecordField("kind") { .string($0.entity.name.lowercased()) },
        RecordField("name") { string($0, "name") },
        RecordField("givenName", "GIVEN") { string($0, "givenName") },
        RecordField("familyName", "FAMILY") { string($0, "familyName") },
        RecordField("nickname") { string($0, "nickname") },
        RecordField("organization", "ORG") { string($0, "organization") },
        RecordField("jobTitle", "JOB TITLE") { string($0, "jobTitle") },
        RecordField("birthday") { record in .from(record.value(forKey: "birthday") as? Date) { .day($0) } },
        RecordField("anniversary") { record in .from(record.value(forKey: "anniversary") as? Date) { .day($0) } },
        RecordField("emails", reading: ["emailAddresses"]) { record in
            .array(((record as? Contact)?.emailAddresses ?? []).map { labelled($0.label, $0.address) })
        },
        RecordField("phones", reading: ["phoneNumbers"]) { record in
            .array(((record as? Contact)?.phoneNumbers ?? []).map { labelled($0.label, $0.number) })
        },
        RecordField("addresses", reading: ["postalAddresses"]) { record in
            .array(((record as? Contact)?.postalAddresses ?? []).map { address in
                let parts: [(String, String?)] = [("label", address.label), ("street", address.street), ("locality", address.locality),
                                                  ("region", address.region), ("postalCode", address.postalCode), ("country", address.country)]
                let text = [address.street, address.postalCode.map { code in [code, address.locality].compactMap { $0 }.joined(separator: " ") } ?? address.locality,
                            address.region, address.country].compactMap { $0 }.joined(separator: ", ")
                return .object(Dictionary(uniqueKeysWithValues: parts.map { key, value in (key, OutputValue.from(value) { .string($0) }) }),
                               text: text + (address.label.map { " (\($0))" } ?? ""))
            })
        },
        RecordField("groups", reading: ["groups"]) { record in .array(((record as? Contact)?.groups ?? []).compactMap(\.name).sorted().map { .string($0) }) },
    ] }

    static var groupFields: [RecordField] { [
        RecordField("name") { string($0, "name") },
        RecordField("members", reading: ["members"]) { record in .array(references((record as? Group)?.members)) },
    ] }

    // MARK: Value helpers

    static func string(_ record: ManagedObject, _ key: String) -> OutputValue {
        guard record.entity.propertiesByName[key] != nil else { return .null }
        return .from(record.value(forKey: key) as? String) { .string($0) }
    }

    static func date(_ record: ManagedObject, _ key: String) -> OutputValue {
        guard record.entity.propertiesByName[key] != nil else { return .null }
        return .from(record.value(forKey: key) as? Date) { .date($0, dateOnly: false) }
    }

    /// An all-day event's days, the same in every time zone (read in the event's own).
    static func allDayDays(_ record: ManagedObject) -> EventDays? {
        (record as? Event)?.days(fallback: Calendar(identifier: .gregorian))
    }

    /// Another record as its number and name: `{"id": ..., "number": 3, "name": "Ann"}`; text `Ann`.
    static func reference(_ record: ManagedObject) -> OutputValue {
        let kind = RecordKind(entity: record.entity) ?? .task
        let name = record.value(forKey: kind.nameKey) as? String
        return .object([
            "id": .from(record.value(forKey: "uuid") as? UUID) { .string($0.uuidString.lowercased()) },
            "number": .integer(record.value(forKey: "number") as? Int64 ?? 0),
            "name": .from(name) { .string($0) },
        ], text: name ?? "")
    }

    static func references<S: Sequence>(_ records: S?) -> [OutputValue] where S.Element: ManagedObject {
        let list: [ManagedObject] = records.map { Array($0) } ?? []
        return list.sorted { ($0.value(forKey: "number") as? Int64 ?? 0) < ($1.value(forKey: "number") as? Int64 ?? 0) }
            .map(reference)
    }

    static func labelled(_ label: String?, _ value: String?) -> OutputValue {
        .object(["label": .from(label) { .string($0) }, "value": .string(value ?? "")],
                text: (value ?? "") + (label.map { " (\($0))" } ?? ""))
    }
}
