// A batch delete, Core Data's NSBatchDeleteRequest: every row of an entity that matches a
// predicate deleted without loading objects, with the delete rules of its relationships applied
// in SQL (cascade deletes, nullify clears the inverse, deny refuses, no action leaves it).

/// Deletes every matching row, and what the delete rules reach, in one transaction.
///
/// ```swift
/// var request = BatchDeleteRequest(entity: model.entitiesByName["Task"]!)
/// request.predicate = try Predicate(format: "done == YES")
/// try store.execute(request)
/// ```
///
/// As in Core Data, a request can also be made from a fetch request (its entity, predicate,
/// sort, limit and offset choose the rows: `fetchLimit` deletes in chunks) or from object IDs
/// of one entity:
///
/// ```swift
/// var old = FetchRequest<ManagedObject>(entityName: "Task")
/// old.predicate = try Predicate(format: "done == YES")
/// old.fetchLimit = 1000
/// try context.execute(BatchDeleteRequest(fetchRequest: old))
/// try context.execute(BatchDeleteRequest(objectIDs: selectedIDs))
/// ```
public struct BatchDeleteRequest: Sendable {
    /// The entity whose rows go. A request made from a fetch request knows only the entity's
    /// name until a context or store runs it (``entityName``).
    public var entity: EntityDescription {
        get {
            guard let resolvedEntity else {
                preconditionFailure("the batch delete of \"\(entityName)\" was made from a fetch request: a context or store resolves its entity when it runs it")
            }
            return resolvedEntity
        }
        set {
            resolvedEntity = newValue
            entityName = newValue.name
        }
    }
    /// The name of ``entity``.
    public private(set) var entityName: String
    private var resolvedEntity: EntityDescription?
    /// Which rows (nil: all of the entity).
    public var predicate: Predicate?
    public var includesSubentities: Bool
    /// The order the rows are chosen in, with ``fetchLimit`` and ``fetchOffset``.
    public var sortDescriptors: [SortDescriptor] = []
    /// At most this many matching rows go (0: all), after skipping ``fetchOffset``: through a
    /// context, of the rows of all the stores it runs in, as the context's fetch orders them;
    /// run by a store itself, of that store's rows. Delete rules then reach what they reach
    /// from those rows.
    public var fetchLimit = 0
    public var fetchOffset = 0
    /// For a request made with ``init(objectIDs:)``: the objects' IDs (which ``predicate``
    /// matches), checked to be of ``entity`` when it runs.
    public private(set) var objectIDs: [ObjectID]?
    public var resultType: BatchResultType
    /// The stores the request runs in (Core Data's `affectedStores`); nil: every store of the
    /// coordinator that holds the entity (for an insert, the one new objects go to).
    public var affectedStores: [any PersistentStore]?

    public init(entity: EntityDescription) {
        resolvedEntity = entity
        entityName = entity.name
        includesSubentities = true
        resultType = .statusOnly
    }

    /// Deletes what `fetchRequest` would fetch: its entity, predicate, sort descriptors, limit,
    /// offset, sub-entities and affected stores.
    public init<Result>(fetchRequest: FetchRequest<Result>) {
        entityName = fetchRequest.entityName
        predicate = fetchRequest.predicate
        includesSubentities = fetchRequest.includesSubentities
        sortDescriptors = fetchRequest.sortDescriptors
        fetchLimit = fetchRequest.fetchLimit
        fetchOffset = fetchRequest.fetchOffset
        affectedStores = fetchRequest.affectedStores
        resultType = .statusOnly
    }

    /// Deletes the objects of these IDs, which must all be of one entity (Core Data: "mixing
    /// entity types results in an error when you execute the request") and saved (a temporary
    /// ID has no row). An empty list deletes nothing.
    public init(objectIDs: [ObjectID]) {
        resolvedEntity = objectIDs.first?.entity
        entityName = objectIDs.first?.entity.name ?? ""
        includesSubentities = true
        // A constant format: parsing it cannot fail.
        predicate = try! Predicate(format: "SELF IN %@", objectIDs)
        self.objectIDs = objectIDs
        resultType = .statusOnly
    }

    /// The fetch request this request deletes the results of (Core Data's `fetchRequest`).
    public var fetchRequest: FetchRequest<ManagedObject> { fetchRequest(resultType: nil) }

    /// ``fetchRequest`` with results of another type (`.managedObjectID`: the IDs it deletes).
    func fetchRequest<Result>(resultType: FetchResultType?) -> FetchRequest<Result> {
        var request = FetchRequest<Result>(entityName: entityName, resultType: resultType)
        request.predicate = predicate
        request.includesSubentities = includesSubentities
        request.sortDescriptors = sortDescriptors
        request.fetchLimit = fetchLimit
        request.fetchOffset = fetchOffset
        request.affectedStores = affectedStores
        return request
    }

    /// Whether the request certainly deletes nothing: made from no object IDs.
    var deletesNothing: Bool { objectIDs?.isEmpty == true }

    /// The request with its entity taken from `model` (by name, for one made from a fetch
    /// request), its object IDs checked.
    func resolved(in model: ManagedObjectModel) throws -> BatchDeleteRequest {
        var request = self
        if resolvedEntity == nil {
            guard let entity = model.entitiesByName[entityName] else {
                throw StoreError.unsupportedRequest("batch delete: the model has no entity \"\(entityName)\"")
            }
            request.resolvedEntity = entity
        }
        if let objectIDs {
            if let other = objectIDs.first(where: { $0.entity !== request.entity }) {
                throw StoreError.unsupportedRequest(
                    "batch delete by object IDs: \(other) is a \(other.entity.name), not a \(entityName) (the IDs must all be of one entity)")
            }
            if let temporary = objectIDs.first(where: \.isTemporaryID) {
                throw StoreError.unsupportedRequest("batch delete by object IDs: \(temporary) is temporary (an unsaved object has no row to delete)")
            }
        }
        return request
    }
}
