// The in-memory store, Core Data's NSInMemoryStoreType: rows kept in a table for the life of the
// store, behind the whole store contract. This file holds its state, loading, row reads and
// permanent IDs; saving and fetching live in InMemoryStore+Saving.swift and +Fetching.swift.
import Foundation

/// A store that keeps its rows in memory; they are gone when it is removed.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .inMemory)
/// ```
///
/// Fetches are evaluated in memory with the predicate engine; saves check versions (optimistic
/// locking) and uniqueness constraints before changing anything. The coordinator serializes calls,
/// but the store also locks its own state, so it is safe to share.
public final class InMemoryStore: PersistentStore, @unchecked Sendable {
    /// Always ``StoreType/inMemory``.
    public let type = StoreType.inMemory
    /// The store's UUID, or the `"identifier"` option when one was given.
    public let identifier: String
    /// The tag of ``identifier``: what the store's object IDs carry and its saves compare.
    let storeTag: StoreTag
    /// The URL the store was added with; nothing is read or written there.
    public let url: URL?
    /// The configuration whose entities the store holds; nil holds every entity.
    public let configurationName: String?

    /// Guards every property below; held for the whole of each call into the store.
    let lock = NSLock()
    /// The rows.
    let table = RowTable()
    /// The entities the store holds (its configuration's and their descendants), set by `load`.
    var heldEntities: Set<ObjectIdentifier> = []
    /// The next primary key of each inheritance root.
    var nextPrimaryKeys: [ObjectIdentifier: Int64] = [:]
    /// A save checked by prepareSave and not committed or rolled back yet.
    var preparedSave: PendingSave?
    /// The derived attributes of the held entities, which saves compute; set by `load`.
    var derivedAttributes: [DerivedAttribute] = []
    /// The stored to-many relationships of the held concrete entities that have no stored
    /// inverse (one-way lists: a deleted row cannot find the lists that name it), by entity and
    /// slot, with their destination; set by `load`.
    var oneWayLists: [(entity: EntityDescription, slot: Int, destination: EntityDescription)] = []
    private var storedMetadata: [String: any Sendable]

    /// Whether the store was made with Core Data's `NSReadOnlyPersistentStoreOption`
    /// (``SQLiteStore/readOnlyOption``): it answers fetches, and saves into it throw.
    public let isReadOnly: Bool

    /// A store for the entities of `configurationName` (nil: all). `url` is only remembered;
    /// `options["identifier"]` (a String) fixes the store's identifier instead of a fresh UUID;
    /// ``SQLiteStore/readOnlyOption`` (true) makes it read-only.
    public init(configurationName: String? = nil, url: URL? = nil, options: [String: any Sendable] = [:]) {
        identifier = options["identifier"] as? String ?? UUID().uuidString
        isReadOnly = options[SQLiteStore.readOnlyOption] as? Bool ?? false
        storeTag = StoreTag(interning: identifier)
        self.url = url
        self.configurationName = configurationName
        storedMetadata = ["StoreType": StoreType.inMemory.rawValue, "UUID": identifier]
    }

    /// The store's metadata: `StoreType`, `UUID`, and after loading `ModelVersionHashes`.
    public var metadata: [String: any Sendable] {
        get { lock.withLock { storedMetadata } }
        set {
            // Apple, setMetadata(_:for:): "The store type and UUID ... are always added
            // automatically, however NSStoreUUIDKey is only added if it is not set manually".
            var metadata = newValue
            metadata["StoreType"] = StoreType.inMemory.rawValue
            if metadata["UUID"] == nil { metadata["UUID"] = identifier }
            lock.withLock { storedMetadata = metadata }
        }
    }

    /// Takes the entities of the store's configuration from `model` and records their version
    /// hashes; there is no stored data for the model to disagree with. Freezes `model` if a
    /// coordinator has not yet (rows are read through its frozen slot layouts).
    public func load(model: ManagedObjectModel) throws {
        model.freeze()
        guard let entities = model.entities(forConfigurationName: configurationName) else {
            throw StoreError.unknownStore("the model has no configuration \"\(configurationName ?? "")\"")
        }
        let hashes = Dictionary(entities.map { ($0.name, $0.versionHash) }, uniquingKeysWith: { first, _ in first })
        let held = Set(entities.flatMap(\.selfAndDescendants).map(ObjectIdentifier.init))
        let heldEntities = model.entities.filter { held.contains(ObjectIdentifier($0)) }
        let derived = try Self.derivedAttributes(of: heldEntities, model: model)
        var oneWay: [(entity: EntityDescription, slot: Int, destination: EntityDescription)] = []
        for entity in heldEntities where !entity.isAbstract {
            for (slot, property) in entity.layout.properties.enumerated() {
                guard let relationship = property as? RelationshipDescription, relationship.isToMany, relationship.isStored,
                      relationship.inverseRelationship?.isStored != true, let destination = relationship.destinationEntity else { continue }
                oneWay.append((entity, slot, destination))
            }
        }
        lock.withLock {
            self.heldEntities = held
            derivedAttributes = derived
            oneWayLists = oneWay
            storedMetadata["ModelVersionHashes"] = hashes
        }
    }

    /// The current rows of `objectIDs`, their to-many relationships left unloaded (as the SQLite
    /// store leaves them): a relationship is a fault until it is read, and then lists what is
    /// stored at that time (``objectIDs(forRelationship:of:)``), not when its owner was read. IDs
    /// with no row are left out.
    public func snapshots(for objectIDs: [ObjectID]) throws -> [ObjectID: Snapshot] {
        lock.withLock {
            var result: [ObjectID: Snapshot] = [:]
            for id in objectIDs {
                if let row = table.row(for: id) { result[id] = table.withToManysUnloaded(row) }
            }
            return result
        }
    }

    /// The destinations of `relationship` of the row of `objectID`: the stored list, or, when the
    /// list was never sent and the inverse is to-one, the rows whose inverse points at it. Empty
    /// when there is no such row.
    public func objectIDs(forRelationship relationship: RelationshipDescription, of objectID: ObjectID) throws -> [ObjectID] {
        lock.withLock {
            guard let row = table.row(for: objectID), let slot = row.layout.index(of: relationship.name) else { return [] }
            return table.destinations(ofSlot: slot, in: row)
        }
    }

    /// Permanent IDs of the same entities as `temporaryIDs`, keyed from 1 upwards within each
    /// inheritance root. IDs that are already permanent come back unchanged.
    public func obtainPermanentIDs(for temporaryIDs: [ObjectID]) throws -> [ObjectID] {
        lock.withLock {
            temporaryIDs.map { id in
                guard id.isTemporaryID else { return id }
                let root = table.info(for: id.entity).root
                let key = nextPrimaryKeys[root, default: 1]
                nextPrimaryKeys[root] = key + 1
                return ObjectID(entity: id.entity, storeTag: storeTag, primaryKey: key)
            }
        }
    }

    /// Drops every row. Primary keys are not reused, so IDs handed out before stay unique.
    public func unload() {
        lock.withLock { table.removeAll() }
    }
}
