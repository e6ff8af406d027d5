// What the coordinator asks of stores and what they answer: a fetch described with the
// predicate trees and sort descriptors (managed objects in predicates already replaced by their
// IDs), and a save described with snapshots and expected versions.
import Foundation

/// What a fetch returns, as the store is asked for it.
public enum StoreFetchResultType: Sendable, Hashable {
    /// Object IDs with their snapshots (full, or partial with `propertiesToFetch`).
    case snapshots
    /// Object IDs only.
    case objectIDs
    /// The number of matching objects; for a request that makes its rows into fewer
    /// dictionaries (``StoreFetchRequest/countsDictionaries``), the number of dictionaries the
    /// same request returns as `.dictionaries`, as Core Data's `count(for:)` answers "the number
    /// of objects a given fetch request would have returned".
    case count
    /// Dictionaries of the requested properties and expressions.
    case dictionaries
}

/// A fetch, as a store receives it.
public struct StoreFetchRequest: Sendable {
    public var entity: EntityDescription
    public var predicate: Predicate?
    public var sortDescriptors: [SortDescriptor]
    public var fetchLimit: Int
    public var fetchOffset: Int
    public var includesSubentities: Bool
    public var resultType: StoreFetchResultType
    /// For snapshots: the properties to load (nil: all); for dictionaries: the columns.
    public var propertiesToFetch: [PropertyDescription]?
    /// For dictionaries: expressions computed per row or per group (aggregates).
    public var expressionsToFetch: [ExpressionDescription]
    public var returnsDistinctResults: Bool
    public var propertiesToGroupBy: [PropertyDescription]
    /// Key paths through to-one relationships (`owner.name`) the dictionaries are grouped by too:
    /// a fetch request's key-path group-by, which no one property describes (as a key path it
    /// fetches comes as one of ``expressionsToFetch``).
    public var keyPathsToGroupBy: [String]
    public var havingPredicate: Predicate?

    public init(entity: EntityDescription) {
        self.entity = entity
        sortDescriptors = []
        fetchLimit = 0
        fetchOffset = 0
        includesSubentities = true
        resultType = .snapshots
        expressionsToFetch = []
        returnsDistinctResults = false
        propertiesToGroupBy = []
        keyPathsToGroupBy = []
    }
}

extension StoreFetchRequest {
    /// The names of everything the rows are grouped by: the properties' names and the key paths.
    var groupingKeys: [String] { propertiesToGroupBy.map(\.name) + keyPathsToGroupBy }

    /// Whether the dictionaries are one per group: rows are grouped by properties or key paths,
    /// or an expression aggregates them (one group of all rows).
    var isGrouped: Bool {
        !propertiesToGroupBy.isEmpty || !keyPathsToGroupBy.isEmpty || expressionsToFetch.contains { $0.expression.aggregatesRows }
    }

    /// Whether the dictionaries can be fewer than the matching rows (distinct results, groups):
    /// a count of such a request counts its dictionaries.
    var countsDictionaries: Bool { returnsDistinctResults || isGrouped }

    /// The properties a dictionary holds: those asked for, or by default every stored attribute
    /// and to-one relationship.
    var dictionaryProperties: [PropertyDescription] {
        propertiesToFetch ?? entity.properties.filter { property in
            property.isStored && (property as? RelationshipDescription)?.isToMany != true
        }
    }

    /// The sort descriptors that order rows: all but those naming a computed expression of a
    /// dictionary fetch, which order its results (groups). A sort by the name of an expression
    /// that reads a key path (`on` for `owner.name`) sorts rows by that key path.
    var rowSortDescriptors: [SortDescriptor] {
        guard !expressionsToFetch.isEmpty else { return sortDescriptors }
        return sortDescriptors.compactMap { sort in
            guard let named = expressionsToFetch.first(where: { $0.name == sort.key }) else { return sort }
            guard case .keyPath(let path) = named.expression, !path.hasPrefix("@") else { return nil }
            var byPath = sort
            byPath.key = path
            return byPath
        }
    }
}

/// A store's answer to a fetch.
public enum StoreFetchResult: Sendable {
    case snapshots([Snapshot])
    case objectIDs([ObjectID])
    case count(Int)
    case dictionaries([[String: any Sendable]])

    /// The snapshots of a `.snapshots` result (nil for another), moved out: the result is left
    /// empty, so that the caller holds the only reference to the array and may change it in
    /// place.
    mutating func takeSnapshots() -> [Snapshot]? {
        guard case .snapshots(let snapshots) = self else { return nil }
        self = .count(0)
        return snapshots
    }
}

/// A save, as a store receives it: every change of one context save.
public struct StoreSaveRequest: Sendable {
    /// New rows (permanent IDs already obtained), with every stored slot filled.
    public var inserted: [Snapshot]
    /// Changed rows: the full new values; `version` is the version the context last saw.
    public var updated: [Snapshot]
    /// For each of `updated` (same order), which slots changed since the row was last saved or
    /// fetched, when the context knows (nil, or no entry: unknown). A store may write only those
    /// columns, as Core Data's UPDATEs do; the SQLite store does.
    public var changedSlots: [SlotSet?] = []
    /// Rows to delete, with the version the context last saw.
    public var deleted: [(objectID: ObjectID, version: Int64)]
    /// Rows whose version must still be the one given although they did not change (Core Data
    /// checks these when an object was only read in a locking fetch); usually empty.
    public var locked: [(objectID: ObjectID, version: Int64)]
    /// Who saves, for history (the context's name and transaction author).
    public var author: String?

    public init(inserted: [Snapshot] = [], updated: [Snapshot] = [], deleted: [(objectID: ObjectID, version: Int64)] = [],
                locked: [(objectID: ObjectID, version: Int64)] = [], author: String? = nil) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.locked = locked
        self.author = author
    }
}

/// What a store wrote: the saved rows at their new versions.
public struct StoreSaveResult: Sendable {
    public var snapshots: [Snapshot]
    public var deletedObjectIDs: [ObjectID]

    public init(snapshots: [Snapshot], deletedObjectIDs: [ObjectID]) {
        self.snapshots = snapshots
        self.deletedObjectIDs = deletedObjectIDs
    }
}

/// A version conflict found while saving: the row changed (or went away) since the context read it.
public struct StoreConflict: Sendable, CustomStringConvertible {
    public var objectID: ObjectID
    /// The version the context expected.
    public var expectedVersion: Int64
    /// The row as the store holds it now; nil when it was deleted.
    public var currentSnapshot: Snapshot?

    public init(objectID: ObjectID, expectedVersion: Int64, currentSnapshot: Snapshot?) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.currentSnapshot = currentSnapshot
    }

    public var description: String {
        if let current = currentSnapshot {
            return "\(objectID): expected version \(expectedVersion), the store has version \(current.version)"
        }
        return "\(objectID): expected version \(expectedVersion), the store has deleted it"
    }
}

/// The errors of stores.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// Rows changed since they were read; nothing was written.
    case conflicts([StoreConflict])
    /// A uniqueness constraint would be broken; nothing was written.
    case uniquenessViolation(entity: String, properties: [String], objectIDs: [ObjectID])
    /// The store was written with a model whose version hashes differ.
    case incompatibleModel(path: String, differences: [String])
    /// The request cannot be answered by this store (a predicate it cannot translate, say).
    case unsupportedRequest(String)
    /// The store's file could not be read or written.
    case io(path: String, reason: String)
    /// No store of that type is registered, or none is at that URL.
    case unknownStore(String)
    /// The object ID does not belong to this store.
    case foreignObjectID(ObjectID)

    public var description: String {
        switch self {
        case .conflicts(let conflicts):
            return "optimistic locking failure: " + conflicts.map(\.description).joined(separator: "; ")
        case let .uniquenessViolation(entity, properties, ids):
            return "uniqueness constraint (\(properties.joined(separator: ", "))) of \(entity) broken by "
                + ids.map(\.description).joined(separator: " and ")
        case let .incompatibleModel(path, differences):
            return "\(path): the store was written with a different model: " + differences.joined(separator: "; ")
        case .unsupportedRequest(let reason):
            return "unsupported request: \(reason)"
        case let .io(path, reason):
            return "\(path): \(reason)"
        case .unknownStore(let what):
            return "unknown store: \(what)"
        case .foreignObjectID(let id):
            return "\(id) does not belong to this store"
        }
    }
}
