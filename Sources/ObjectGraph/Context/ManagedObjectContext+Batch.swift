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
    ///
    /// With several stores, the request is rehearsed in every store before it runs in any: a
    /// store that refuses it leaves the others as they were.
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        var request = request
        request.predicate = request.predicate.map(Self.replacingObjectsWithIDs)
        let (coordinator, stores) = try batchStores(holding: request.entity, among: request.affectedStores)
        if stores.count > 1 { try rehearse(in: (coordinator, stores)) { try $0.rehearse(request) } }
        return try runBatch(in: (coordinator, stores), resultType: request.resultType) {
            var request = request
            request.resultType = $1
            return try $0.execute(request)
        }
    }

    /// Runs a batch delete in the stores holding its entity (delete rules applied in the store).
    ///
    /// With several stores, a fetch limit or offset chooses among the results of them all (the
    /// rows the context's fetch of ``BatchDeleteRequest/fetchRequest`` would return), and the
    /// request is rehearsed in every store before it runs in any: a store that refuses it (a
    /// deny rule, a read-only store) leaves the others as they were.
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        assertOnQueue()
        if request.deletesNothing { return BatchResult(request.resultType, []) }
        guard let model = persistentStoreCoordinator?.managedObjectModel else { throw ContextError.noStore(entity: request.entityName) }
        var request = try request.resolved(in: model)
        request.predicate = request.predicate.map(Self.replacingObjectsWithIDs)
        let (coordinator, stores) = try batchStores(holding: request.entity, among: request.affectedStores)
        if stores.count > 1 {
            if request.fetchLimit > 0 || request.fetchOffset > 0 {
                var fetch: FetchRequest<ObjectID> = request.fetchRequest(resultType: .managedObjectID)
                fetch.includesPendingChanges = false
                let chosen = try self.fetch(fetch)
                request.predicate = try Predicate(format: "SELF IN %@", chosen)
                (request.sortDescriptors, request.fetchLimit, request.fetchOffset) = ([], 0, 0)
            }
            try rehearse(in: (coordinator, stores)) { try $0.rehearse(request) }
        }
        return try runBatch(in: (coordinator, stores), resultType: request.resultType) {
            var request = request
            request.resultType = $1
            return try $0.execute(request)
        }
    }

    /// Runs a batch insert in the store that holds new objects of its entity. Rows that collide
    /// with stored ones on a uniqueness constraint are resolved by the request's merge policy,
    /// or else by the context's (``mergePolicy``), as Core Data's batch inserts are: with
    /// `.mergeByPropertyObjectTrump` the stored rows take the inserted values (an upsert).
    ///
    /// ```swift
    /// context.mergePolicy = .mergeByPropertyObjectTrump
    /// try context.execute(BatchInsertRequest(entity: productEntity, objects: [["serial": "A1", "name": "Lamp"]]))
    /// ```
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        assertOnQueue()
        let chosen: (any PersistentStore)?
        if let affected = request.affectedStores {
            for store in affected where persistentStoreCoordinator?.holds(store, entity: request.entity) != true {
                throw StoreError.unknownStore("the store \(store.identifier) is not one of the context's stores holding \(request.entity.name)")
            }
            chosen = affected.first { !$0.isReadOnly } ?? affected.first
        } else {
            chosen = persistentStoreCoordinator?.store(forNewObjectOf: request.entity)
        }
        guard let coordinator = persistentStoreCoordinator, let store = chosen as? any BatchExecutingStore else {
            throw StoreError.unsupportedRequest("batch inserts of \(request.entity.name) need a store that runs batch requests (SQLite)")
        }
        var request = request
        request.mergePolicy = request.mergePolicy ?? mergePolicy
        return try runBatch(in: (coordinator, [store]), resultType: request.resultType) {
            var request = request
            request.resultType = $1
            return try $0.execute(request)
        }
    }

    /// Runs `rehearsal` in each of `stores` that can rehearse a request (SQLite's), so that one
    /// refusing throws before the request runs in any.
    private func rehearse(in stores: (coordinator: PersistentStoreCoordinator, stores: [any BatchExecutingStore]),
                          _ rehearsal: (SQLiteStore) throws -> Void) throws {
        for case let store as SQLiteStore in stores.stores { try stores.coordinator.withStores { try rehearsal(store) } }
    }

    /// The coordinator and its stores holding `entity`, each of which must run batch requests.
    private func batchStores(holding entity: EntityDescription,
                             among affected: [any PersistentStore]?) throws -> (PersistentStoreCoordinator, [any BatchExecutingStore]) {
        assertOnQueue()
        guard let coordinator = persistentStoreCoordinator else { throw ContextError.noStore(entity: entity.name) }
        let holding = coordinator.stores(for: entity)
        for store in affected ?? [] where !holding.contains(where: { $0 === store }) {
            throw StoreError.unknownStore("the store \(store.identifier) is not one of the context's stores holding \(entity.name)")
        }
        let stores = holding.filter { store in affected?.contains { $0 === store } ?? true }
        let batchStores = stores.compactMap { $0 as? any BatchExecutingStore }
        guard !stores.isEmpty, batchStores.count == stores.count else {
            throw StoreError.unsupportedRequest("batch requests on \(entity.name) need stores that run them (SQLite)")
        }
        return (coordinator, batchStores)
    }

    /// Runs a batch request in each of the coordinator's `stores` and answers with `resultType`
    /// for them all.
    ///
    /// The coordinator's row cache must not serve the rows a request changed, whatever result
    /// the caller asked for: while the cache holds rows, each store is asked for the IDs it
    /// touched, which the cache forgets. An update or a delete with delete rules reads those IDs
    /// anyway; a delete that empties a whole table (one statement) is asked for them only when
    /// the cache holds rows that could be among them.
    private func runBatch(in stores: (coordinator: PersistentStoreCoordinator, stores: [any BatchExecutingStore]), resultType: BatchResultType,
                          _ body: (any BatchExecutingStore, BatchResultType) throws -> BatchResult) throws -> BatchResult {
        let coordinator = stores.coordinator
        var ids: [ObjectID] = []
        var count = 0
        for store in stores.stores {
            let result = try coordinator.withStores { () -> BatchResult in
                let result = try body(store, coordinator.rowCache.count > 0 ? .objectIDs : resultType)
                if case .objectIDs(let touched) = result { coordinator.rowCache.invalidate(touched) }
                return result
            }
            coordinator.resynchronizeExternalRecords(of: store)
            switch result {
            case .objectIDs(let touched):
                ids += touched
                count += touched.count
            case .count(let touched): count += touched
            case .status: break
            }
        }
        switch resultType {
        case .objectIDs: return .objectIDs(ids)
        case .count: return .count(count)
        case .statusOnly: return .status(true)
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
