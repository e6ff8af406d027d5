// The store contract, Core Data's incremental-store API: every store (in-memory, SQLite, XML,
// binary, or one a user writes) speaks rows, object IDs and requests, never managed objects or
// contexts. The coordinator is its only caller and serializes calls into it.
import Foundation

/// A kind of store, named as Core Data names them.
public struct StoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Objects kept in memory only, gone when the store is removed.
    public static let inMemory = StoreType(rawValue: "InMemory")
    /// One SQLite file, changed incrementally.
    public static let sqlite = StoreType(rawValue: "SQLite")
    /// One XML file, written atomically.
    public static let xml = StoreType(rawValue: "XML")
    /// One binary file, written atomically.
    public static let binary = StoreType(rawValue: "Binary")

    public var description: String { rawValue }
}

/// A store: where rows live. Stores are driven by a coordinator, which calls them one request at
/// a time (they need no locking of their own against it).
///
/// A store writing its own backend implements this protocol; the coordinator and contexts work
/// with it unchanged.
public protocol PersistentStore: AnyObject, Sendable {
    /// The kind of store.
    var type: StoreType { get }
    /// The store's UUID: the host part of its objects' URIs. Stable for the life of the store.
    var identifier: String { get }
    /// Where the store lives, if it has a file.
    var url: URL? { get }
    /// The model configuration whose entities the store holds; nil holds every entity.
    var configurationName: String? { get }
    /// Metadata kept with the store (its type, UUID, model version hashes, user keys).
    var metadata: [String: any Sendable] { get set }
    /// Whether the store only reads (Core Data's `NSReadOnlyPersistentStoreOption`): new objects
    /// go to another store, and saves and batch requests into it fail. False by default.
    var isReadOnly: Bool { get }

    /// Opens the store for `model` (frozen), creating it if needed, and checks that the model fits
    /// the data (version hashes). Throws naming what does not fit.
    func load(model: ManagedObjectModel) throws

    /// Runs a fetch: object IDs with their snapshots, a count, or dictionaries.
    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult

    /// The current snapshots of `objectIDs` (several at once: batch faulting). An ID with no row
    /// (deleted meanwhile) is missing from the result.
    func snapshots(for objectIDs: [ObjectID]) throws -> [ObjectID: Snapshot]

    /// ``snapshots(for:)`` in the order of `objectIDs`: the snapshot of `objectIDs[i]` at `i`,
    /// nil where there is no row. What firing a batch of faults asks for. The default looks each
    /// ID up in ``snapshots(for:)``'s answer; a store may answer without that map.
    func snapshotsInOrder(for objectIDs: [ObjectID]) throws -> [Snapshot?]

    /// The destinations of a to-many relationship of the object, in order for an ordered one.
    func objectIDs(forRelationship relationship: RelationshipDescription, of objectID: ObjectID) throws -> [ObjectID]

    /// The destinations of a to-many relationship for each of `objectIDs` (what prefetching a
    /// relationship of many objects asks for): each one's as
    /// ``objectIDs(forRelationship:of:)-(_,ObjectID)`` gives them, keyed by owner. The default
    /// asks for each object in turn; a store may answer with one request.
    func objectIDs(forRelationship relationship: RelationshipDescription, of objectIDs: [ObjectID]) throws -> [ObjectID: [ObjectID]]

    /// Writes a save's changes all together or not at all. Updated and deleted rows are checked
    /// against their expected versions; mismatches throw ``StoreError/conflicts(_:)`` and change
    /// nothing. Returns the new snapshots (with their new versions).
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult

    /// Whether the store can hold a save open: ``prepareSave(_:)`` writes without making the
    /// changes durable, and ``commitPreparedSave()`` or ``rollbackPreparedSave()`` ends it. A
    /// context saving into several stores prepares every such store and commits them only once
    /// all are written, so that one store's failure leaves every store as it was. False by
    /// default.
    var supportsPreparedSaves: Bool { get }

    /// Writes a save's changes as ``save(_:)`` does, held open until ``commitPreparedSave()`` or
    /// ``rollbackPreparedSave()``. Only called when ``supportsPreparedSaves``; the default saves.
    func prepareSave(_ request: StoreSaveRequest) throws -> StoreSaveResult

    /// Makes the prepared save durable; on failure the store is as it was before it.
    func commitPreparedSave() throws

    /// Undoes the prepared save.
    func rollbackPreparedSave()

    /// Permanent IDs for objects not saved yet, in the order of `temporaryIDs`.
    func obtainPermanentIDs(for temporaryIDs: [ObjectID]) throws -> [ObjectID]

    /// Releases the store's resources; the coordinator no longer uses it afterwards.
    func unload()
}

extension PersistentStore {
    public var isReadOnly: Bool { false }

    public var supportsPreparedSaves: Bool { false }

    public func prepareSave(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try save(request)
    }

    public func commitPreparedSave() throws {}

    public func rollbackPreparedSave() {}

    public func objectIDs(forRelationship relationship: RelationshipDescription, of objectIDs: [ObjectID]) throws -> [ObjectID: [ObjectID]] {
        var result: [ObjectID: [ObjectID]] = [:]
        for id in objectIDs { result[id] = try self.objectIDs(forRelationship: relationship, of: id) }
        return result
    }

    public func snapshotsInOrder(for objectIDs: [ObjectID]) throws -> [Snapshot?] {
        let snapshots = try self.snapshots(for: objectIDs)
        return objectIDs.map { snapshots[$0] }
    }
}
