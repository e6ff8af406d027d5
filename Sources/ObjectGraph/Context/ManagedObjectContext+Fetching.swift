// Fetching: a request becomes one store request per store holding the entity; rows come back as
// snapshots and become registered objects (or faults, filled from the row cache on access).
// Unsaved changes are reflected (includesPendingChanges), prefetching loads relationship
// destinations in one request per key path, and fetched properties evaluate lazily, once until
// their object is refreshed.
import Foundation

extension ManagedObjectContext {
    /// The results of `request`: managed objects, object IDs, dictionaries or a count, as its
    /// result type says.
    ///
    /// ```swift
    /// var request = FetchRequest<ManagedObject>(entityName: "Task")
    /// request.predicate = try Predicate(format: "done == NO")
    /// let open = try context.fetch(request)
    /// ```
    public func fetch<Result>(_ request: FetchRequest<Result>) throws -> [Result] {
        assertOnQueue()
        if request.resultType == .managedObject {
            // Objects come back typed. When every object is of exactly the requested class (or
            // the request asks for `ManagedObject`), the array is handed over as it is: arrays of
            // class references share one representation. Otherwise each takes a class cast.
            let objects = try fetchManagedObjects(request)
            if objects.isEmpty { return [] }
            let requested = ObjectIdentifier(Result.self)
            if requested == ObjectIdentifier(ManagedObject.self) || objects.allSatisfy({ ObjectIdentifier(type(of: $0)) == requested }) {
                return unsafeBitCast(objects, to: [Result].self)
            }
            return objects.map { object in
                guard let typed = object as? Result else {
                    preconditionFailure("a \(request.resultType) fetch cannot return \(Result.self)")
                }
                return typed
            }
        }
        if request.resultType == .managedObjectID, Result.self == ObjectID.self {
            // The same type: the array is handed over as it is, with no cast per ID.
            return unsafeBitCast(try fetchObjectIDs(request), to: [Result].self)
        }
        let results = try fetchAny(request)
        return results.map { value in
            guard let typed = value as? Result else {
                preconditionFailure("a \(request.resultType) fetch cannot return \(Result.self)")
            }
            return typed
        }
    }

    /// How many results `fetch(request)` returns, as Core Data's count(for:) answers "the number
    /// of objects a given fetch request would have returned": the objects (or IDs) it matches,
    /// unsaved changes included when it says so; for a dictionary request, the dictionaries
    /// (distinct ones, one per group the having predicate keeps), which show the stores only, as
    /// the fetch's dictionaries do.
    public func count<Result>(for request: FetchRequest<Result>) throws -> Int {
        assertOnQueue()
        let entity = try entity(named: request.entityName)
        if request.includesPendingChanges { processPendingChanges() }
        let dictionaries = request.resultType == .dictionary
        if dictionaries, try stores(for: entity, request).count > 1 {
            // Several stores' dictionaries are made distinct and windowed together: counted after.
            return try fetchDictionaries(request, entity: entity).count
        }
        // A child context counts what its parent holds, unsaved changes there included: through IDs.
        if dictionaries || (parentContext == nil && (!request.includesPendingChanges
                                                     || !hasPendingChanges(for: entity, includingSubentities: request.includesSubentities))) {
            var total = 0
            for store in try stores(for: entity, request) {
                var storeRequest = try makeStoreRequest(request, entity: entity, resultType: .count)
                storeRequest.fetchLimit = 0
                storeRequest.fetchOffset = 0
                if case .count(let count) = try persistentStoreCoordinator!.withStores({ try store.execute(storeRequest) }) { total += count }
            }
            return applyWindow(total, request)
        }
        var idRequest = FetchRequest<ObjectID>(entityName: request.entityName)
        idRequest.predicate = request.predicate
        idRequest.includesSubentities = request.includesSubentities
        idRequest.affectedStores = request.affectedStores
        idRequest.fetchLimit = request.fetchLimit
        idRequest.fetchOffset = request.fetchOffset
        idRequest.includesPendingChanges = request.includesPendingChanges
        return try fetchAny(idRequest).count
    }

    private func applyWindow(_ total: Int, _ request: FetchRequest<some Any>) -> Int {
        let afterOffset = max(0, total - request.fetchOffset)
        return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
    }

    func entity(named name: String) throws -> EntityDescription {
        guard let coordinator = persistentStoreCoordinator else { throw ContextError.noStore(entity: name) }
        guard let entity = coordinator.managedObjectModel.entitiesByName[name] else { throw ContextError.unknownEntity(name) }
        return entity
    }

    /// The stores `request` reads objects of `entity` from: those holding it, among its
    /// ``FetchRequest/affectedStores`` when it names some.
    private func stores<Result>(for entity: EntityDescription, _ request: FetchRequest<Result>) throws -> [any PersistentStore] {
        guard let coordinator = persistentStoreCoordinator else { throw ContextError.noStore(entity: entity.name) }
        let holding = coordinator.stores(for: entity)
        guard let affected = request.affectedStores else { return holding }
        return holding.filter { store in affected.contains { $0 === store } }
    }

    /// Whether `object`, a pending change, is in one of `request`'s affected stores (a new
    /// object: in the store it will be saved to).
    private func isInAffectedStores<Result>(_ object: ManagedObject, _ request: FetchRequest<Result>) -> Bool {
        guard let affected = request.affectedStores else { return true }
        if object.objectID.isTemporaryID {
            guard let store = destinationStore(of: object) else { return false }
            return affected.contains { $0 === store }
        }
        guard let store = persistentStoreCoordinator?.store(for: object.objectID) else { return false }
        return affected.contains { $0 === store }
    }

    /// Whether the context has unsaved changes to objects the entity's fetch could return.
    /// The order the SQLite store gives objects equal on every sort key: by primary key (its
    /// ORDER BY ends with it), stores by identifier; new objects last, as they were inserted
    /// (saved, they take the next keys).
    static func inStoreOrder(_ a: ObjectID, _ b: ObjectID) -> Bool {
        switch (a.key, b.key) {
        case let (.permanent(x), .permanent(y)):
            if a.storeTag != b.storeTag { return (a.storeIdentifier ?? "") < (b.storeIdentifier ?? "") }
            return x < y
        case (.permanent, .temporary): return true
        case (.temporary, .permanent): return false
        case let (.temporary(x), .temporary(y)): return x < y
        }
    }

    /// Whether the context must merge its unsaved changes into a fetch of `entity`: objects of
    /// the entity are inserted, deleted or changed, or a sort key runs through a relationship
    /// (`owner.name`) while any object has unsaved changes, which the stores' order cannot see.
    func hasPendingChanges(for request: FetchRequest<some Any>, entity: EntityDescription) -> Bool {
        guard request.includesPendingChanges else { return false }
        if hasPendingChanges(for: entity, includingSubentities: request.includesSubentities) { return true }
        guard request.sortDescriptors.contains(where: { $0.key.contains(".") }) else { return false }
        return !updatedByID.isEmpty || !insertedByID.isEmpty || !deletedByID.isEmpty
    }

    func hasPendingChanges(for entity: EntityDescription, includingSubentities: Bool) -> Bool {
        func matches(_ object: ManagedObject) -> Bool {
            includingSubentities ? object.entity.isKind(of: entity) : object.entity === entity
        }
        return insertedByID.values.contains(where: matches) || deletedByID.values.contains(where: matches)
            || updatedByID.values.contains(where: matches)
    }

    /// The request as a store sees it: managed objects in the predicate replaced by their IDs.
    ///
    /// The dictionary options (expressions, distinct results, grouping, the having predicate)
    /// go only with a dictionary request, which alone uses them (as in Core Data): a store counts
    /// dictionaries for a count that has them (``StoreFetchRequest/countsDictionaries``).
    func makeStoreRequest(_ request: FetchRequest<some Any>, entity: EntityDescription,
                          resultType: StoreFetchResultType) throws -> StoreFetchRequest {
        var storeRequest = StoreFetchRequest(entity: entity)
        storeRequest.predicate = request.predicate.map(Self.replacingObjectsWithIDs)
        storeRequest.sortDescriptors = request.sortDescriptors
        storeRequest.fetchLimit = request.fetchLimit
        storeRequest.fetchOffset = request.fetchOffset
        storeRequest.includesSubentities = request.includesSubentities
        storeRequest.resultType = resultType
        let forDictionaries = request.resultType == .dictionary
        let layout = entity.layout
        if let properties = request.propertiesToFetch {
            var fetched: [PropertyDescription] = []
            for item in properties {
                switch item {
                case .property(let name):
                    if let index = layout.index(of: name) {
                        fetched.append(layout.properties[index])
                    } else if name.contains(".") {
                        // A key path through to-one relationships is computed like an expression.
                        if forDictionaries {
                            storeRequest.expressionsToFetch.append(
                                ExpressionDescription(name: name, expression: .keyPath(name), resultType: .undefined))
                        }
                    } else {
                        throw StoreError.unsupportedRequest("\(entity.name) has no property \"\(name)\" to fetch")
                    }
                case .expression(let description):
                    if forDictionaries { storeRequest.expressionsToFetch.append(description) }
                }
            }
            storeRequest.propertiesToFetch = fetched
        }
        guard forDictionaries else { return storeRequest }
        storeRequest.returnsDistinctResults = request.returnsDistinctResults
        storeRequest.havingPredicate = request.havingPredicate
        for name in request.propertiesToGroupBy {
            if let index = layout.index(of: name) {
                storeRequest.propertiesToGroupBy.append(layout.properties[index])
            } else if Self.isToOneKeyPath(name, of: entity) {
                // NSFetchRequest.propertiesToGroupBy takes key paths, as propertiesToFetch does.
                storeRequest.keyPathsToGroupBy.append(name)
            } else {
                throw StoreError.unsupportedRequest("\(entity.name) has no property \"\(name)\" to group by")
            }
        }
        if let having = request.havingPredicate, !storeRequest.isGrouped {
            // "Specifying a havingPredicate requires that propertiesToGroupBy also be specified";
            // (aggregates without one group every row, and the predicate applies to that group).
            throw StoreError.unsupportedRequest("the having predicate \(having) needs propertiesToGroupBy (or aggregates): the rows are not grouped")
        }
        if !storeRequest.isGrouped {
            // A sort by an expression's name orders rows by the key path the expression reads; a
            // computed value orders only groups.
            for descriptor in request.sortDescriptors {
                guard let named = storeRequest.expressionsToFetch.first(where: { $0.name == descriptor.key }) else { continue }
                if case .keyPath(let path) = named.expression, !path.hasPrefix("@") { continue }
                throw StoreError.unsupportedRequest(
                    "cannot sort rows by \(descriptor.key) (\(named.expression.expressionFormat)): only grouped results sort by computed values")
            }
        }
        return storeRequest
    }

    /// Whether `keyPath` goes through to-one relationships of `entity` to an attribute or a
    /// to-one relationship: a key path a dictionary fetch can group by.
    private static func isToOneKeyPath(_ keyPath: String, of entity: EntityDescription) -> Bool {
        guard let walked = entity.properties(alongKeyPath: keyPath),
              walked.count == keyPath.split(separator: ".", omittingEmptySubsequences: false).count else { return false }
        return (walked.last as? RelationshipDescription)?.isToMany != true
    }

    /// The fetch, untyped.
    func fetchAny<Result>(_ request: FetchRequest<Result>) throws -> [Any] {
        let entity = try entity(named: request.entityName)
        if request.includesPendingChanges { processPendingChanges() }
        switch request.resultType {
        case .count:
            return [try count(for: request)]
        case .dictionary:
            return try fetchDictionaries(request, entity: entity)
        case .managedObjectID:
            return try fetchObjectIDs(request)
        case .managedObject:
            return try fetchManagedObjects(request)
        }
    }

    /// The dictionaries a `.dictionary` request returns, as the stores hold the rows (pending
    /// changes do not show, as in Core Data).
    ///
    /// Over several stores the stores' dictionaries are merged, then sorted, made distinct and
    /// windowed as a whole, as object fetches are: each store is asked for all of its own, with
    /// the sort keys the dictionaries do not hold fetched too (and dropped after sorting). Groups
    /// are each store's own: aggregates of two stores' rows cannot be combined in general.
    func fetchDictionaries<Result>(_ request: FetchRequest<Result>, entity: EntityDescription) throws -> [[String: Any]] {
        let entityStores = try stores(for: entity, request)
        var storeRequest = try makeStoreRequest(request, entity: entity, resultType: .dictionaries)
        var hiddenKeys: [String] = []
        if entityStores.count > 1 {
            storeRequest.fetchLimit = 0
            storeRequest.fetchOffset = 0
            if !storeRequest.isGrouped {
                let held = Set(storeRequest.dictionaryProperties.map(\.name) + storeRequest.expressionsToFetch.map(\.name))
                for descriptor in request.sortDescriptors where !held.contains(descriptor.key) && !hiddenKeys.contains(descriptor.key) {
                    hiddenKeys.append(descriptor.key)
                    storeRequest.expressionsToFetch.append(
                        ExpressionDescription(name: descriptor.key, expression: .keyPath(descriptor.key), resultType: .undefined))
                }
            }
        }
        var rows: [[String: Any]] = []
        for store in entityStores {
            if case .dictionaries(let dictionaries) = try persistentStoreCoordinator!.withStores({ try store.execute(storeRequest) }) {
                rows += dictionaries.map { $0.mapValues { $0 as Any } as [String: Any] }
            }
        }
        Self.convertToResultTypes(&rows, storeRequest.expressionsToFetch)
        guard entityStores.count > 1 else { return rows }
        // Sorted by entries, as the stores sort groups: a key may be a dotted key path.
        let descriptors = request.sortDescriptors.filter { descriptor in rows.contains { $0[descriptor.key] != nil } }
        rows = rows.sorted(using: descriptors) { dictionary, key in dictionary[key] }
        if !hiddenKeys.isEmpty {
            for index in rows.indices {
                for key in hiddenKeys { rows[index][key] = nil }
            }
        }
        if request.returnsDistinctResults {
            // The first of equal dictionaries stays, in the sorted order (as SQLite's DISTINCT
            // keeps each dictionary's first row).
            var seen: Set<[String: AnyHashableValue]> = []
            rows = rows.filter { seen.insert($0.mapValues { AnyHashableValue($0) }).inserted }
        }
        if request.fetchOffset > 0 { rows = Array(rows.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { rows = Array(rows.prefix(request.fetchLimit)) }
        return rows
    }

    /// Gives the values of expressions declared `.double`, `.float` or `.decimal` that type
    /// (NSExpressionDescription's `expressionResultType`: "the attribute type of the
    /// expression's result"): a sum of integers declared `.double` is a `Double`. Integer
    /// results stay as the stores give them (`Int` for computed numbers, the attribute's type for
    /// its values).
    private static func convertToResultTypes(_ rows: inout [[String: Any]], _ expressions: [ExpressionDescription]) {
        let converted = expressions.filter { [.double, .float, .decimal].contains($0.resultType) }
        guard !converted.isEmpty, !rows.isEmpty else { return }
        for index in rows.indices {
            for description in converted {
                guard let value = rows[index][description.name], !(value is Bool), let number = Number(value) else { continue }
                switch description.resultType {
                case .double: rows[index][description.name] = number.doubleValue
                case .float: rows[index][description.name] = Float(number.doubleValue)
                default: rows[index][description.name] = number.decimalValue
                }
            }
        }
    }

    /// The IDs a `.managedObjectID` request returns: straight from the store when no unsaved
    /// change can alter the result, else through the objects.
    func fetchObjectIDs<Result>(_ request: FetchRequest<Result>) throws -> [ObjectID] {
        let entity = try entity(named: request.entityName)
        if request.includesPendingChanges { processPendingChanges() }
        let pending = hasPendingChanges(for: request, entity: entity)
        let entityStores = try stores(for: entity, request)
        guard !pending && entityStores.count == 1 && parentContext == nil else {
            return try fetchObjects(request, entity: entity, pending: pending, idsOnly: true).map(\.objectID)
        }
        var storeRequest = try makeStoreRequest(request, entity: entity, resultType: .objectIDs)
        storeRequest.propertiesToFetch = nil
        guard case .objectIDs(let ids) = try persistentStoreCoordinator!.withStores({ try entityStores[0].execute(storeRequest) }) else {
            return []
        }
        return ids
    }

    /// The objects a `.managedObject` request returns, prefetching included.
    func fetchManagedObjects<Result>(_ request: FetchRequest<Result>) throws -> [ManagedObject] {
        let entity = try entity(named: request.entityName)
        if request.includesPendingChanges { processPendingChanges() }
        let pending = hasPendingChanges(for: request, entity: entity)
        let objects = try fetchObjects(request, entity: entity, pending: pending, idsOnly: false)
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: objects)
        }
        return objects
    }

    /// Objects from every store, with unsaved changes merged in when `pending`; with `idsOnly`,
    /// the objects are faults made only to merge and window the results.
    private func fetchObjects<Result>(_ request: FetchRequest<Result>, entity: EntityDescription,
                                      pending: Bool, idsOnly: Bool) throws -> [ManagedObject] {
        let useBatches = !idsOnly && request.fetchBatchSize > 0
        let resultType: StoreFetchResultType = (idsOnly || useBatches || !request.includesPropertyValues) ? .objectIDs : .snapshots
        var found: [ManagedObject] = []
        if let parent = parentContext {
            // A child context's rows come from its parent: one source, as one store is.
            found = try fetchFromParent(request, parent: parent, pending: pending, idsOnly: idsOnly)
            if !pending { return found }
        }
        let entityStores = parentContext == nil ? try stores(for: entity, request) : []
        for store in entityStores {
            var storeRequest = try makeStoreRequest(request, entity: entity, resultType: resultType)
            storeRequest.propertiesToFetch = storeRequest.propertiesToFetch.map { fetched in
                fetched.filter { !($0 is RelationshipDescription && ($0 as! RelationshipDescription).isToMany) }
            }
            if pending || entityStores.count > 1 {
                storeRequest.fetchLimit = 0
                storeRequest.fetchOffset = 0
            }
            var result = try persistentStoreCoordinator!.withStores { try store.execute(storeRequest) }
            // Snapshots are moved out of the result (not matched by a switch, which would keep a
            // copy of it), so that materializing can let each row go in place.
            if var snapshots = result.takeSnapshots() {
                let objects = materialize(&snapshots, asFault: request.returnsObjectsAsFaults && request.propertiesToFetch == nil,
                                          refreshingLoaded: request.shouldRefreshRefetchedObjects)
                if found.isEmpty { found = objects } else { found += objects }
                continue
            }
            switch result {
            case .objectIDs(let ids):
                let batch = useBatches ? FaultBatch(objectIDs: ids, size: request.fetchBatchSize) : nil
                let objects = objects(with: ids)
                if useBatches && request.shouldRefreshRefetchedObjects {
                    // Batches load faults when they are read; the loaded objects among the
                    // results take their stored rows now.
                    try refreshLoaded(objects.filter { !$0.isFault })
                }
                if let batch {
                    for (position, object) in objects.enumerated() where object.isFault {
                        object.faultBatch = batch
                        object.faultBatchPosition = position
                    }
                }
                found += objects
            default:
                break
            }
        }
        guard pending || entityStores.count > 1 else { return found }
        var objects = found.filter { !$0.isDeleted }
        if pending {
            let predicate = request.predicate
            // Key paths are checked once, against the fetched entity, as the stores check them.
            try predicate?.checkKeyPaths(against: entity)
            // A predicate the evaluator refuses fails the fetch, as the stores' refusals do: a
            // pending object must not silently fall out of the results.
            func matches(_ object: ManagedObject) throws -> Bool {
                guard request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity else { return false }
                guard let predicate else { return true }
                return try predicate.evaluateChecked(with: object)
            }
            let changed = Set(updatedByID.values.filter { !$0.isDeleted && !$0.isFault })
            objects = try objects.filter { try !changed.contains($0) || matches($0) }
            let present = Set(objects)
            objects += try changed.filter { try !present.contains($0) && isInAffectedStores($0, request) && matches($0) }
                .sorted { $0.objectID < $1.objectID }
            objects += try insertedByID.values.filter { try !$0.isDeleted && isInAffectedStores($0, request) && matches($0) }
                .sorted { $0.objectID < $1.objectID }
        }
        if !request.sortDescriptors.isEmpty {
            objects = objects.sortedAsStored(using: request.sortDescriptors) { Self.inStoreOrder($0.objectID, $1.objectID) }
        }
        if request.fetchOffset > 0 { objects = Array(objects.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { objects = Array(objects.prefix(request.fetchLimit)) }
        return objects
    }

    /// The registered objects for fetched rows: faults whose snapshots wait in the row cache, or
    /// objects filled with them. New faults keep their row and become users of its cache entry.
    ///
    /// The rows go through in chunks of ``materializingChunk``: each chunk's objects are made,
    /// its new rows recorded in the cache under one lock, its objects filled, and its snapshots
    /// dropped, before the next chunk. A row is touched while it is still in the processor's
    /// cache; a pass per step over all the rows found each row cold again (with 100,000 rows,
    /// every such pass cost about a third of the time raw SQLite takes to read them). `snapshots`
    /// is emptied.
    ///
    /// With `refreshingLoaded` (``FetchRequest/shouldRefreshRefetchedObjects``), loaded objects
    /// whose row the store now holds at another version take it (a partial fetch's row is read
    /// whole first), their unsaved changes applied on top, and are reported refreshed. Deleted
    /// objects stay as they are.
    ///
    /// While the row cache tracks ages (``ManagedObjectContext/stalenessInterval``), rows it
    /// holds at the version read restart their age.
    func materialize(_ snapshots: inout [Snapshot], asFault: Bool, refreshingLoaded: Bool = false) -> [ManagedObject] {
        // Rows come from a store, so there is a coordinator (and its cache).
        guard let cache = rowCacheReference else { return [] }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(snapshots.count)
        let chunk = min(snapshots.count, Self.materializingChunk)
        var newUsers: [Int] = []
        var newRows: [Snapshot] = []
        var refetched: [Int] = []
        var newerRows: [Snapshot] = []
        var refreshed: [Int] = []
        var partlyRefreshed: [ManagedObject] = []
        var renewed: [(ObjectID, Int64)] = []
        let renewing = cache.with(\.isTrackingAges)
        newUsers.reserveCapacity(chunk)
        newRows.reserveCapacity(chunk)
        var runEntity: EntityDescription?
        var runClass: ManagedObject.Type = ManagedObject.self
        // The entity whose slot count rows were last checked against, and that count.
        var checkedEntity: ObjectIdentifier?
        var slotCount = 0
        var start = 0
        while start < snapshots.count {
            let end = min(start + chunk, snapshots.count)
            // Which rows lack a value per slot of their entity's layout (objects read rows by
            // slot): looked at first for the whole chunk, because the rows were made a while ago
            // (the store read them all before the first chunk) and are out of the processor's
            // cache. These plain reads, which it overlaps, bring them back at once, and the
            // retains that follow, atomic and one at a time, find them there instead of each
            // waiting for memory. A row that is used is checked when it fills its object, now or
            // when the fault fires; one that is not used (its object is loaded already) is let be.
            var malformed: [Int] = []
            for index in start..<end {
                let entity = ObjectIdentifier(snapshots[index].objectID.entity)
                if entity != checkedEntity {
                    checkedEntity = entity
                    slotCount = snapshots[index].objectID.entity.layout.kinds.count
                }
                if snapshots[index].values.count != slotCount { malformed.append(index) }
            }
            // New faults keep their row: users of its cache entry from now on. They record the
            // cache's generation unless the cache turns out to hold a newer version of a row.
            let generation = cache.with(\.generation)
            // The registry grows once for the fetch's new objects; the reservation ends with the
            // loop, before any user code (awakeFromFetch) can register objects of its own.
            registry.reserveCapacity(snapshots.count - start)
            for index in start..<end {
                let object = registeredObjectOrFault(for: snapshots[index].objectID, runEntity: &runEntity, runClass: &runClass)
                if object.isFault {
                    if !object.hasCommittedSnapshot {
                        // A row that fills its object now must fit it (a fault's row is checked
                        // when the fault fires).
                        precondition(asFault || malformed.isEmpty || !malformed.contains(index),
                                     "\(snapshots[index].objectID) has \(snapshots[index].values.count) values for the \(object.layout.kinds.count) properties of its entity")
                        // Only whole rows record the generation: a fault may fill (or be
                        // deleted) from its own row then, which a partial fetch's row cannot do.
                        object.committedSnapshotGeneration = asFault || snapshots[index].isWhole ? generation : 0
                        // The row moves to the object and a copy to the cache; the array keeps
                        // an empty one (nothing to release when it goes).
                        let row = snapshots[index].moveOut()
                        newRows.append(row)
                        object.setCommittedSnapshot(row)
                        newUsers.append(index)
                    } else if !asFault {
                        refetched.append(index)
                    } else if snapshots[index].version > object.committedVersion {
                        // A fault fetched again, with a newer row than it holds: the row goes to
                        // the cache, which the fault fires from ("fills the row cache ... When
                        // the fault is fired, Core Data retrieves the data from the row cache").
                        newerRows.append(snapshots[index].moveOut())
                    }
                } else if refreshingLoaded, object.hasCommittedSnapshot, snapshots[index].version != object.committedVersion,
                          !object.isInserted, !object.isDeleted {
                    if asFault || snapshots[index].isWhole || isComplete(snapshots[index]) {
                        refreshed.append(index)
                    } else {
                        partlyRefreshed.append(object)
                    }
                }
                if renewing, object.hasCommittedSnapshot, !snapshots[index].values.isEmpty,
                   snapshots[index].version == object.committedVersion {
                    renewed.append((object.objectID, snapshots[index].version))
                }
                objects.append(object)
            }
            registry.endReservation()
            if !renewed.isEmpty {
                cache.with { $0.renew(renewed) }
                renewed.removeAll(keepingCapacity: true)
            }
            if !newerRows.isEmpty { cache.with { $0.update(taking: &newerRows) } }
            let allCurrent = cache.with { $0.retain(taking: &newRows, expecting: snapshots.count - start) }
            if !allCurrent {
                for index in newUsers { objects[index].committedSnapshotGeneration = 0 }
            }
            if !asFault {
                // Objects wanted with their values: new ones take the row they now hold; faults
                // that had an older row take the fetched one, which the cache records. (An
                // object's awakeFromFetch may have fired a later fault of the chunk already.)
                for index in newUsers where objects[index].isFault { fillFromCommittedSnapshot(objects[index]) }
                if !refetched.isEmpty {
                    fill(refetched.map { (objects[$0], snapshots[$0]) })
                    refetched.removeAll(keepingCapacity: true)
                }
            }
            for index in refreshed where !objects[index].isFault {
                refreshLoaded(objects[index], with: snapshots[index])
            }
            refreshed.removeAll(keepingCapacity: true)
            if !partlyRefreshed.isEmpty {
                // A partial row refreshes nothing by itself: the object takes its whole row. A
                // store that fails to read leaves the objects as they were and keeps the failure,
                // as filling a fault does.
                do {
                    try refreshLoaded(partlyRefreshed)
                } catch {
                    if faultingError == nil { faultingError = error }
                }
                partlyRefreshed.removeAll(keepingCapacity: true)
            }
            newUsers.removeAll(keepingCapacity: true)
            // The chunk's other rows are let go while they are at hand, not when the array goes.
            for index in start..<end where !snapshots[index].values.isEmpty { snapshots[index].values = [] }
            start = end
        }
        snapshots.removeAll()
        return objects
    }

    /// Gives a loaded object that a fetch read again the row the store holds now, its unsaved
    /// changes and transient values kept (``FetchRequest/shouldRefreshRefetchedObjects``), and
    /// reports it refreshed as ``refresh(_:mergeChanges:)`` does. A deleted object stays deleted.
    private func refreshLoaded(_ object: ManagedObject, with snapshot: Snapshot) {
        if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: ObjectIdentifier(object)) }
        merge(snapshot, into: object, keepingLocalChanges: true)
        reportRefreshed(object)
    }

    /// ``refreshLoaded(_:with:)`` for loaded objects whose rows a fetch did not read whole: their
    /// rows are read from their stores (one request per store), and those at another version
    /// than the object holds are applied. Deleted and new objects are left as they are.
    private func refreshLoaded(_ objects: [ManagedObject]) throws {
        if let parent = parentContext {
            refreshLoadedFromParent(objects, parent: parent)
            return
        }
        let candidates = objects.filter { !$0.isFault && !$0.isDeleted && !$0.isInserted && $0.hasCommittedSnapshot }
        guard !candidates.isEmpty, let coordinator = persistentStoreCoordinator else { return }
        for group in Dictionary(grouping: candidates, by: \.objectID.storeTag).values {
            guard let store = coordinator.store(for: group[0].objectID) else { continue }
            let rows = try coordinator.withStores { try store.snapshots(for: group.map(\.objectID)) }
            for object in group {
                guard let row = rows[object.objectID], row.version != object.committedVersion else { continue }
                refreshLoaded(object, with: row)
            }
        }
    }

    /// How many fetched rows ``materialize(_:asFault:)`` takes at a time: enough that the
    /// cache's lock and the loops' set-up are a small share, few enough that a chunk's rows and
    /// objects (about 600 bytes a row for a handful of attributes) stay in the processor's cache.
    static let materializingChunk = 256

    /// The registered object for `id`, or a new fault for it (of the class of `id`'s entity,
    /// looked up once per run of one entity in `runEntity` and `runClass`).
    @inline(__always)
    private func registeredObjectOrFault(for id: ObjectID, runEntity: inout EntityDescription?,
                                         runClass: inout ManagedObject.Type) -> ManagedObject {
        if let registered = registry[id]?.object { return registered }
        // Compared by identity: the ID holds its entity unretained, and a comparison of
        // references would retain it.
        if let runEntity, ObjectIdentifier(runEntity) == ObjectIdentifier(id.entity) {
            return makeFault(for: id, of: runClass, entity: runEntity)
        }
        let entity = id.entity
        runEntity = entity
        runClass = managedObjectClass(for: entity)
        return makeFault(for: id, of: runClass, entity: entity)
    }

    /// The object for each of `ids`, as ``object(with:)`` gives it: the registered one or a new
    /// fault. IDs come in runs of one entity, whose class is looked up once per run.
    func objects(with ids: some Collection<ObjectID>) -> [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        registry.reserveCapacity(ids.count)
        defer { registry.endReservation() }
        var runEntity: EntityDescription?
        var runClass: ManagedObject.Type = ManagedObject.self
        for id in ids {
            objects.append(registeredObjectOrFault(for: id, runEntity: &runEntity, runClass: &runClass))
        }
        return objects
    }

    /// Fills each fault with its snapshot, as ``fill(_:with:cached:)`` does, with one lock of
    /// the row cache for all of them.
    func fill(_ faults: [(ManagedObject, Snapshot)]) {
        var faults = faults
        fill(taking: &faults)
    }

    /// ``fill(_:)`` for rows the caller gives up: each row moves to its object, and one copy to
    /// the row cache (`faults` is left empty).
    func fill(taking faults: inout [(ManagedObject, Snapshot)]) {
        defer { faults.removeAll() }
        guard let cache = rowCacheReference else {
            for (object, snapshot) in faults { fill(object, with: snapshot) }
            return
        }
        // Objects without a row become users of its cache entry; the others' rows are replaced.
        var newRows: [Snapshot] = []
        var newerRows: [Snapshot] = []
        newRows.reserveCapacity(faults.count)
        for index in faults.indices {
            let object = faults[index].0
            let row = faults[index].1.moveOut()
            if !object.hasCommittedSnapshot { newRows.append(row) } else { newerRows.append(row) }
            object.setCommittedSnapshot(row)
        }
        cache.with { cache in
            cache.retain(taking: &newRows)
            if !newerRows.isEmpty { cache.update(taking: &newerRows) }
        }
        for (object, _) in faults where object.isFault { fillFromCommittedSnapshot(object) }
    }

    // MARK: Prefetching

    /// Loads the destinations of each key path for all `objects` at once (one request per
    /// relationship step instead of one per object).
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject]) throws {
        for keyPath in keyPaths {
            var sources = objects
            for name in keyPath.split(separator: ".").map(String.init) {
                sources = try prefetchStep(name, of: sources)
            }
        }
    }

    private func prefetchStep(_ name: String, of sources: [ManagedObject]) throws -> [ManagedObject] {
        guard let first = sources.first, let index = first.layout.index(of: name),
              let relationship = first.layout.properties[index] as? RelationshipDescription,
              let destination = relationship.destinationEntity else { return [] }
        for source in sources { source.fireFaultIfNeeded() }
        if !relationship.isToMany {
            let targets = sources.compactMap { $0.toOneObject(atSlot: index) }
            try fillFaults(targets)
            return targets
        }
        let unloaded = sources.filter { !($0.slots[index] is ToManyStorage || $0.slots[index] is PendingToMany) && !$0.objectID.isTemporaryID }
        if let inverse = relationship.inverseRelationship, !inverse.isToMany, !unloaded.isEmpty {
            var request = FetchRequest<ManagedObject>(entityName: destination.name)
            request.predicate = .comparison(ComparisonPredicate(.keyPath(inverse.name), .in,
                                                                .constant(.array(unloaded.map { .opaque(OpaqueValue($0.objectID)) }))))
            request.returnsObjectsAsFaults = false
            request.includesPendingChanges = false
            let targets = try fetch(request)
            var grouped: [ObjectID: [ManagedObject]] = [:]
            // The inverse's slot is looked up by name once per entity among the targets (a
            // string hashed per target was a tenth of grouping them).
            var inverseLayout: ObjectIdentifier?
            var inverseIndex: Int?
            for target in targets {
                if ObjectIdentifier(target.layout) != inverseLayout {
                    inverseLayout = ObjectIdentifier(target.layout)
                    inverseIndex = target.layout.index(of: inverse.name)
                }
                guard let inverseIndex, let owner = target.toOneObjectID(atSlot: inverseIndex) else { continue }
                grouped[owner, default: []].append(target)
            }
            // An ordered relationship's order is read for every source with one request.
            let orders = relationship.isOrdered ? try storedObjectIDs(relationship, of: unloaded) : [:]
            for source in unloaded {
                var members = grouped[source.objectID] ?? []
                if relationship.isOrdered, let stored = orders[source.objectID] {
                    let position = Dictionary(stored.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
                    members.sort { (position[$0.objectID] ?? 0) < (position[$1.objectID] ?? 0) }
                }
                // Each fetched object is in its one owner's group, once: no index is needed
                // until something asks whether an object is among them.
                source.slots[index] = relationship.isOrdered ? ToManyStorage(OrderedSet(members)) : ToManyStorage(unindexed: members)
            }
            if unloaded.count == sources.count {
                // Every source's members are the fetched objects, filled by the fetch: they go
                // on to the next step as they are (faults only if awakeFromFetch made some).
                try fillFaults(targets)
                return targets
            }
        } else if !unloaded.isEmpty {
            // Many-to-many (or no inverse): every source's destinations with one request per
            // store, held as IDs until read, as a row's loaded to-many slot is; the destinations
            // are filled below, together.
            try loadToManyIDs(relationship, slot: index, of: unloaded)
        }
        let targets = sources.flatMap { $0.toManyStorage(atSlot: index).objects.elements }
        try fillFaults(targets)
        return targets
    }

    /// Loads the to-many relationship in slot `index` of `objects` (saved ones, the slot a fault)
    /// with one request per store.
    private func loadToManyIDs(_ relationship: RelationshipDescription, slot index: Int, of objects: [ManagedObject]) throws {
        let destinations = try storedObjectIDs(relationship, of: objects)
        for object in objects { object.slots[index] = PendingToMany(objectIDs: destinations[object.objectID] ?? []) }
    }

    /// The destinations of `relationship` of each of `objects` (saved ones) as stored, with one
    /// request per store.
    private func storedObjectIDs(_ relationship: RelationshipDescription, of objects: [ManagedObject]) throws -> [ObjectID: [ObjectID]] {
        if parentContext != nil {
            return Dictionary(objects.map { ($0.objectID, relationshipObjectIDs(relationship, of: $0)) }) { first, _ in first }
        }
        guard let coordinator = persistentStoreCoordinator else { return [:] }
        var result: [ObjectID: [ObjectID]] = [:]
        for group in Dictionary(grouping: objects.map(\.objectID), by: \.storeTag).values {
            guard let store = coordinator.store(for: group[0]) else { continue }
            let destinations = try coordinator.withStores { try store.objectIDs(forRelationship: relationship, of: group) }
            result.merge(destinations) { first, _ in first }
        }
        return result
    }

    /// Fills every fault among `objects` with one snapshots request per store.
    func fillFaults(_ objects: [ManagedObject]) throws {
        let faults = objects.filter(\.isFault)
        if let parent = parentContext {
            if !faults.isEmpty { fillFaultsFromParent(faults, parent: parent) }
            return
        }
        guard let first = faults.first, let coordinator = persistentStoreCoordinator else { return }
        // Nearly always one store: group (by store tag) only when the faults come from several.
        let firstStore = first.objectID.storeTag
        let groups = faults.allSatisfy { $0.objectID.storeTag == firstStore }
            ? [firstStore: faults] : Dictionary(grouping: faults, by: \.objectID.storeTag)
        for group in groups.values {
            // A saved object whose store left the coordinator cannot be read: it is not deleted
            // (Core Data: "persistent store is not reachable from this context's coordinator").
            guard let store = coordinator.store(for: group[0].objectID) else {
                throw StoreError.unknownStore("the store of \(group[0].objectID) is not in the context's coordinator (removed?)")
            }
            var snapshots = try coordinator.withStores { try store.snapshotsInOrder(for: group.map(\.objectID)) }
            // Each row moves out of the store's answer to its fault, not copied: a copy of a
            // row is a retain and a release of its values, several per row on this path.
            var faults: [(ManagedObject, Snapshot)] = []
            faults.reserveCapacity(snapshots.count)
            for (index, object) in group.enumerated() where object.isFault {
                if let snapshot = snapshots[index].take() { faults.append((object, snapshot)) }
            }
            fill(taking: &faults)
        }
    }

    // MARK: Fetched properties

    /// The objects of a fetched property, fetched now (``fetchedObjects(of:atSlot:for:)`` caches
    /// them): its request, with every option its template declares
    /// (fetch limit, sub-entities, sort descriptors...), `$FETCH_SOURCE` the object and
    /// `$FETCHED_PROPERTY` the property's description (so `$FETCHED_PROPERTY.userInfo.color`
    /// reads its user info). Key paths of those variables (`$FETCH_SOURCE.name`) are evaluated
    /// here, against the object and the description, and reach the store as constants. The
    /// results are objects whatever result type the template declares, as a property's value.
    func evaluateFetchedProperty(_ property: FetchedPropertyDescription, for object: ManagedObject) throws -> [ManagedObject] {
        var request = try FetchRequest<ManagedObject>(template: property.fetchRequest, substitutionVariables: [
            "FETCH_SOURCE": object, "FETCHED_PROPERTY": property,
        ])
        request.resultType = .managedObject
        request.predicate = try request.predicate?.evaluatingKeyPathsOfConstants()
        return try fetch(request)
    }

    /// The objects of `property`, at `slot` of `object`: as Core Data's, evaluated on first
    /// access and then cached ("fetched properties are not dynamic") until the object is
    /// refreshed (``refresh(_:mergeChanges:)``, a merged change, a rollback), leaves the context
    /// (unregistered, detached, deallocated) or the context is reset; a save keeps them. A fetch
    /// that fails is not cached: each read throws again.
    ///
    /// The cache retains the objects, as the property's value does in Core Data: one that refers
    /// back to the source through a relationship keeps it alive until a refresh or a reset.
    func fetchedObjects(of property: FetchedPropertyDescription, atSlot slot: Int, for object: ManagedObject) throws -> [ManagedObject] {
        let identity = ObjectIdentifier(object)
        if let cached = fetchedPropertyValues[identity]?[slot] { return cached }
        let objects = try evaluateFetchedProperty(property, for: object)
        // A read of the property from inside its fetch (awakeFromFetch, say) cached it first:
        // the object keeps answering those, and no cached value is replaced (and released)
        // while the dictionary is being changed.
        if let cached = fetchedPropertyValues[identity]?[slot] { return cached }
        fetchedPropertyValues[identity, default: [:]][slot] = objects
        return objects
    }

    /// Forgets the fetched properties cached for the object `identity`. Callers on per-object
    /// paths check first that anything is cached (`!fetchedPropertyValues.isEmpty`).
    func forgetFetchedProperties(of identity: ObjectIdentifier) {
        // Releasing the objects may deallocate one, whose deinit removes its own entry: they
        // are released once the removal has returned, not during it.
        let forgotten = fetchedPropertyValues.removeValue(forKey: identity)
        withExtendedLifetime(forgotten) {}
    }

    /// Forgets every cached fetched property (a reset).
    func forgetAllFetchedProperties() {
        // Released after the dictionary is emptied, as in forgetFetchedProperties(of:).
        let forgotten = fetchedPropertyValues
        fetchedPropertyValues = [:]
        withExtendedLifetime(forgotten) {}
    }

    /// How many objects have fetched properties cached (for tests).
    var objectsWithCachedFetchedProperties: Int { fetchedPropertyValues.count }

    // MARK: Predicates for stores

    /// `predicate` with every managed object constant replaced by its object ID, so that stores
    /// (which know rows, not objects) can evaluate it.
    static func replacingObjectsWithIDs(_ predicate: Predicate) -> Predicate {
        predicate.mappingConstants { constant in
            if case .object(let reference) = constant, let object = reference.object as? ManagedObject {
                return .opaque(OpaqueValue(object.objectID))
            }
            return nil
        }
    }
}
