// Batch requests through a context: the context finds the stores holding the entity and runs the
// request in each (rows change without objects being loaded). As in Core Data, registered
// objects do not see the change until it is merged: turn the result into a ContextDidSave.

extension ManagedObjectContext {
    /// Runs a batch update in the stores holding its entity.
    ///
    /// ```swift
    /// var request = BatchUpdateRequest(entity: taskEntity)
    /// request.predicate = try Predicate(format: "due < %@", Date())
    /// request.propertiesToUpdate = ["status": .constant(.string("late"))]
    /// request.resultType = .objectIDs
    /// let result = try context.execute(request)
    /// context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: true))
    /// ```
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        var request = request
        request.predicate = request.predicate.map(Self.replacingObjectsWithIDs)
        return try runBatch(on: request.entity) { try $0.execute(request) }
    }

    /// Runs a batch delete in the stores holding its entity (delete rules applied in the store).
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        var request = request
        request.predicate = request.predicate.map(Self.replacingObjectsWithIDs)
        return try runBatch(on: request.entity) { try $0.execute(request) }
    }

    /// Runs a batch insert in the store that holds new objects of its entity.
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        assertOnQueue()
        guard let coordinator = persistentStoreCoordinator,
              let store = coordinator.store(forNewObjectOf: request.entity) as? any BatchExecutingStore else {
            throw StoreError.unsupportedRequest("batch inserts of \(request.entity.name) need a store that runs batch requests (SQLite)")
        }
        return try coordinator.withStores { try store.execute(request) }
    }

    private func runBatch(on entity: EntityDescription, _ body: (any BatchExecutingStore) throws -> BatchResult) throws -> BatchResult {
        assertOnQueue()
        guard let coordinator = persistentStoreCoordinator else { throw ContextError.noStore(entity: entity.name) }
        let stores = coordinator.stores(for: entity)
        let batchStores = stores.compactMap { $0 as? any BatchExecutingStore }
        guard !stores.isEmpty, batchStores.count == stores.count else {
            throw StoreError.unsupportedRequest("batch requests on \(entity.name) need stores that run them (SQLite)")
        }
        var ids: [ObjectID] = []
        var count = 0
        var lastResult = BatchResult.status(true)
        for store in batchStores {
            let result = try coordinator.withStores { try body(store) }
            switch result {
            case .objectIDs(let found): ids += found
            case .count(let found): count += found
            case .status: break
            }
            lastResult = result
        }
        coordinator.rowCache.invalidate(ids)
        switch lastResult {
        case .objectIDs: return .objectIDs(ids)
        case .count: return .count(count)
        case .status: return .status(true)
        }
    }
}

extension BatchResult {
    /// A didSave payload for the rows an object-ID result names, to merge into contexts:
    /// as updates (`updating: true`) or as deletions.
    public func contextDidSave(updating: Bool) -> ContextDidSave {
        guard case .objectIDs(let ids) = self else { return ContextDidSave() }
        return updating ? ContextDidSave(updatedObjectIDs: Set(ids)) : ContextDidSave(deletedObjectIDs: Set(ids))
    }
}
