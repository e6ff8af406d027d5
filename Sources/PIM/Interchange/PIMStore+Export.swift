// `pim contacts|events|tasks export`: the records a command names, as the interchange text of
// their kind (vCard for contacts, iCalendar for events and tasks).
import Foundation
import ObjectGraph

extension PIMStore {
    /// The relationships an export of `kind` reads, fetched with the records (one query each,
    /// not one per record).
    public static func exportKeyPaths(for kind: RecordKind) -> [String] {
        switch kind {
        case .contact: ["emailAddresses", "phoneNumbers", "postalAddresses", "groups"]
        case .group: ["members", "members.emailAddresses", "members.phoneNumbers", "members.postalAddresses", "members.groups"]
        case .event: ["overrides", "attendees", "attendees.emailAddresses", "organizer", "organizer.emailAddresses"]
        case .task: ["tags", "parent", "dependencies"]
        }
    }

    /// The text of `records` of `kind`: vCards for contacts, one iCalendar object for events or
    /// tasks. A changed occurrence of a repeating event brings its whole series, which carries
    /// it; each record is written once.
    ///
    /// ```swift
    /// let text = store.exportText(try store.list(RecordQuery(kind: .event)), kind: .event)
    /// ```
    /// Contacts are written as vCard `vCardVersion`.
    public func exportText(_ records: [ManagedObject], kind: RecordKind, vCardVersion: VCardVersion = .v3) -> String {
        switch kind {
        case .contact:
            return VCardWriter(version: vCardVersion).cards(for: records.compactMap { $0 as? Contact })
        case .event:
            var seen: Set<ObjectIdentifier> = []
            let series = records.compactMap { record -> Event? in
                guard let event = record as? Event else { return nil }
                let top = event.master ?? event
                return seen.insert(ObjectIdentifier(top)).inserted ? top : nil
            }
            return ICalendarWriter(timeZone: timeZone, stamp: now).calendar(events: series, tasks: [])
        case .task:
            return ICalendarWriter(timeZone: timeZone, stamp: now).calendar(events: [], tasks: records.compactMap { $0 as? TaskItem })
        case .group:
            // A group's text is its members' cards.
            return VCardWriter(version: vCardVersion).cards(for: records.flatMap { ($0 as? Group)?.members.sorted { ($0.name ?? "") < ($1.name ?? "") } ?? [] })
        }
    }
}
