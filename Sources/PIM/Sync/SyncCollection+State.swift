// What a sync collection remembers between runs: for each resource on the server, the entity
// tag it had, and the modification stamp and text digest its records had here when the two last
// agreed. A later
// run tells from them what changed on each side since (a tag that differs: the server; a stamp
// that differs: here) and which resources were deleted (remembered, but gone on one side).
import Foundation

/// A resource as the last sync left it on both sides.
struct SyncedResource: Codable, Equatable {
    /// Its entity tag on the server; nil when the server did not give one for what pim sent
    /// (the next run then reads the resource back).
    var etag: String?
    /// The latest `modified` of its records here (a series' changed occurrences included), as
    /// seconds since 2001.
    var stamp: Double
    /// A hash of the text its records are sent as (``PIMStore/digest(of:)``): a record whose
    /// modification time moved with no change to that text (a link to it) is not changed.
    var digest: String?
    /// The addresses of an event's attendees here: one the server's copy still has that pim's
    /// record no longer has was removed here (not kept from the server's copy).
    var attendees: [String]?
    /// The alarms of the text its records were sent as (``ResourceMerger/alarmKeys(of:)``): one
    /// the server's copy still has that pim's text no longer has was removed here. Nil for a
    /// resource last synced before pim read alarms: none of the server's is taken for removed.
    var alarms: [String]?
    /// The comments of the text its records were sent as or read into
    /// (``ResourceMerger/commentKeys(of:)``): one the server's copy still has that pim's text no
    /// longer has was removed here. Nil for a resource last synced before pim read a to-do's
    /// comments as annotations: none of the server's is taken for removed, and a to-do not
    /// changed here is read once more.
    var comments: [String]?
}

/// The kinds of collection pim syncs.
public enum SyncCollectionKind: String, Sendable {
    /// A CardDAV address book: contacts.
    case addressBook = "addressbook"
    /// A CalDAV calendar: events and tasks (as its components allow).
    case calendar
}

extension SyncCollection {
    /// The collection's kind.
    public var collectionKind: SyncCollectionKind { SyncCollectionKind(rawValue: kind ?? "") ?? .calendar }

    /// The calendar components the collection holds (all, when the server did not say).
    var componentNames: [String] { (components ?? "").split(separator: ",").map(String.init) }

    /// Whether events are synced with this collection.
    public var holdsEvents: Bool { collectionKind == .calendar && (componentNames.isEmpty || componentNames.contains("VEVENT")) }

    /// Whether tasks can be synced with this collection.
    public var holdsTasks: Bool { collectionKind == .calendar && (componentNames.isEmpty || componentNames.contains("VTODO")) }

    /// The resources of the last sync, by href.
    var syncedResources: [String: SyncedResource] {
        get { Self.decodedState(resources) }
        set { resources = Self.encodedState(newValue) }
    }

    /// Resources by href kept in a binary attribute, as JSON; none when there is nothing or it
    /// cannot be read.
    static func decodedState<Resource: Decodable>(_ data: Data?) -> [String: Resource] {
        guard let data else { return [:] }
        return (try? JSONDecoder().decode([String: Resource].self, from: data)) ?? [:]
    }

    /// Resources by href as a binary attribute keeps them: JSON with sorted keys.
    static func encodedState<Resource: Encodable>(_ resources: [String: Resource]) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try? encoder.encode(resources)
    }

    /// How many resources the last sync left in step.
    public var syncedResourceCount: Int { syncedResources.count }
}
