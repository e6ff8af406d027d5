// Saving: end the event, let objects prepare (willSave), validate every change (all failures in
// one error), obtain permanent IDs, hand each store its part of the changes with the versions the
// context last saw, resolve conflicts by the merge policy, then update the objects and post didSave.

extension ManagedObjectContext {
    /// Writes every change to the stores. Throws ``ValidationError`` (all failures at once),
    /// ``MergeError`` (conflicts under the error policy) or a store's error; after a failure the
    /// stores are as they were and the context keeps its changes.
    public func save() throws {
        assertOnQueue()
        precondition(!isSaving, "save() called while the context is saving")
        processPendingChanges()
        guard hasChanges else { return }
        isSaving = true
        defer { isSaving = false }
        post(.willSave)
        for object in changedObjectsInOrder() { object.willSave() }
        processPendingChanges()
        try validateChanges()
        guard let coordinator = persistentStoreCoordinator else {
            throw ContextError.noStore(entity: insertedByID.values.first?.entity.name ?? "any")
        }
        try obtainPermanentIDs(for: insertedByID.values.filter { !$0.isDeleted }.sorted { $0.registrationSequence < $1.registrationSequence })
        var written: [Snapshot] = []
        var removed: [ObjectID] = []
        var attempts = 0
        while true {
            do {
                (written, removed) = try writeChanges(through: coordinator)
                break
            } catch StoreError.conflicts(let conflicts) {
                attempts += 1
                guard mergePolicy != .error, attempts <= 3 else { throw mergeError(for: conflicts) }
                resolve(conflicts)
            } catch let StoreError.uniquenessViolation(entity, properties, ids) where mergePolicy != .error && ids.count == 2 {
                // Each resolution folds one new object into the one it duplicates.
                attempts += 1
                guard attempts <= insertedByID.count + 3, mergeDuplicate(ids[0], into: ids[1]) else {
                    throw StoreError.uniquenessViolation(entity: entity, properties: properties, objectIDs: ids)
                }
            }
        }
        finishSave(written: written, removed: removed, coordinator: coordinator)
    }

    /// Inserted, updated and deleted objects, in a stable order.
    func changedObjectsInOrder() -> [ManagedObject] {
        (Array(insertedByID.values) + Array(updatedByID.values) + Array(deletedByID.values))
            .sorted { $0.registrationSequence < $1.registrationSequence }
    }

    /// Runs validateForInsert/Update/Delete on every changed object, collecting all failures.
    func validateChanges() throws {
        var failures: [ValidationError.Failure] = []
        func collect(_ object: ManagedObject, _ check: () throws -> Void) {
            do {
                try check()
            } catch let error as ValidationError {
                failures += error.failures
            } catch {
                failures.append(ValidationError.Failure(objectID: object.objectID, entity: object.entity.name, property: nil,
                                                        rule: .custom("\(type(of: error))"), value: "", message: "\(error)"))
            }
        }
        for object in changedObjectsInOrder() {
            if object.isDeleted {
                if !object.isInserted { collect(object) { try object.validateForDelete() } }
            } else if object.isInserted {
                collect(object) { try object.validateForInsert() }
            } else {
                collect(object) { try object.validateForUpdate() }
            }
        }
        if !failures.isEmpty { throw ValidationError(failures: failures) }
    }

    /// Gives the objects permanent IDs from the stores that will hold them.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        assertOnQueue()
        guard let coordinator = persistentStoreCoordinator else { throw ContextError.noStore(entity: objects.first?.entity.name ?? "any") }
        let pending = objects.filter(\.objectID.isTemporaryID)
        var byStore: [ObjectIdentifier: (store: any PersistentStore, objects: [ManagedObject])] = [:]
        for object in pending {
            guard let store = coordinator.store(forNewObjectOf: object.entity) else { throw ContextError.noStore(entity: object.entity.name) }
            byStore[ObjectIdentifier(store), default: (store, [])].objects.append(object)
        }
        for (_, group) in byStore {
            let ids = try coordinator.withStores { try group.store.obtainPermanentIDs(for: group.objects.map(\.objectID)) }
            for (object, id) in zip(group.objects, ids) { reassign(object, to: id) }
        }
    }

    /// Sends each store its inserted, updated and deleted rows.
    private func writeChanges(through coordinator: PersistentStoreCoordinator) throws -> ([Snapshot], [ObjectID]) {
        var requests: [String: StoreSaveRequest] = [:]
        for object in changedObjectsInOrder() {
            let store = object.objectID.storeIdentifier ?? ""
            if object.isDeleted {
                guard !object.isInserted, !object.objectID.isTemporaryID else { continue }
                requests[store, default: StoreSaveRequest()].deleted.append((object.objectID, object.committedSnapshot?.version ?? 0))
            } else if object.isInserted {
                requests[store, default: StoreSaveRequest()].inserted.append(object.makeSnapshot())
            } else if !object.isFault && object.changedSlots.contains(true) {
                requests[store, default: StoreSaveRequest()].updated.append(object.makeSnapshot())
            }
        }
        var written: [Snapshot] = []
        var removed: [ObjectID] = []
        for identifier in requests.keys.sorted() {
            guard var request = requests[identifier], let store = coordinator.persistentStore(withIdentifier: identifier) else {
                throw StoreError.unknownStore("no store with identifier \(identifier)")
            }
            request.author = transactionAuthor ?? name
            let result = try coordinator.withStores { try store.save(request) }
            written += result.snapshots
            removed += result.deletedObjectIDs
        }
        return (written, removed)
    }

    /// Marks the saved objects clean, updates the row cache, posts didSave and calls didSave().
    private func finishSave(written: [Snapshot], removed: [ObjectID], coordinator: PersistentStoreCoordinator) {
        let byID = Dictionary(written.map { ($0.objectID, $0) }, uniquingKeysWith: { _, last in last })
        var saved = ObjectsDidChange(inserted: [], updated: [], deleted: [], refreshed: [], invalidated: [], invalidatedAll: false)
        var payload = ContextDidSave(contextName: name, transactionAuthor: transactionAuthor)
        for object in insertedByID.values {
            if object.isDeleted {
                unregister(object)
                continue
            }
            object.isInserted = false
            if let snapshot = byID[object.objectID] {
                object.committedSnapshot = mergedCommitted(snapshot, object)
                coordinator.rowCache.retain(object.committedSnapshot!)
            }
            object.clearChanges()
            saved.inserted.insert(object)
            payload.insertedObjectIDs.insert(object.objectID)
        }
        for object in updatedByID.values where !object.isDeleted {
            if let snapshot = byID[object.objectID] {
                object.committedSnapshot = mergedCommitted(snapshot, object)
                coordinator.rowCache.update([object.committedSnapshot!])
            }
            object.clearChanges()
            saved.updated.insert(object)
            payload.updatedObjectIDs.insert(object.objectID)
        }
        for object in deletedByID.values where !object.isInserted {
            saved.deleted.insert(object)
            payload.deletedObjectIDs.insert(object.objectID)
            coordinator.rowCache.invalidate([object.objectID])
            unregister(object)
        }
        insertedByID = [:]
        updatedByID = [:]
        deletedByID = [:]
        if !retainsRegisteredObjects { retainedObjects = [:] }
        post(.didSave(payload, objects: saved))
        for object in (Array(saved.inserted) + Array(saved.updated) + Array(saved.deleted)).sorted(by: { $0.registrationSequence < $1.registrationSequence }) {
            object.didSave()
        }
    }

    /// The committed snapshot after a save: the written row, with the object's loaded to-many
    /// contents where the store left them unloaded.
    private func mergedCommitted(_ snapshot: Snapshot, _ object: ManagedObject) -> Snapshot {
        var result = snapshot
        for index in object.layout.relationshipIndexes where !result.values[index].isLoaded {
            if let storage = object.slots[index] as? ToManyStorage {
                result.values[index] = .objects(storage.objects.map(\.objectID))
            }
        }
        return result
    }

    // MARK: Conflicts

    /// Resolves a uniqueness clash under the merge policy: the new object `duplicateID` is folded
    /// into the object `originalID` (stored, or new in the same save). With object trump (and
    /// overwrite) its changed values win; otherwise the original's stay. Its relationships move
    /// to the original, and it leaves the context. False when the clash cannot be resolved so.
    private func mergeDuplicate(_ duplicateID: ObjectID, into originalID: ObjectID) -> Bool {
        guard let duplicate = registry[duplicateID]?.object, duplicate.isInserted else { return false }
        let original = object(with: originalID)
        original.fireFaultIfNeeded()
        guard !original.isDeleted, original !== duplicate else { return false }
        let newValuesWin = mergePolicy == .mergeByPropertyObjectTrump || mergePolicy == .overwrite
        for index in duplicate.layout.attributeIndexes where duplicate.layout.properties[index].isStored {
            guard duplicate.changedSlots[index] else { continue }
            if newValuesWin || original.slots[index] == nil {
                original.setValue(duplicate.slots[index], atSlot: index)
            }
        }
        for index in duplicate.layout.relationshipIndexes where duplicate.layout.properties[index].isStored {
            let relationship = duplicate.layout.properties[index] as! RelationshipDescription
            if relationship.isToMany {
                for destination in duplicate.objects(atSlot: index) {
                    duplicate.removeObject(destination, fromSlot: index)
                    original.addObject(destination, toSlot: index)
                }
            } else if let target = duplicate.toOneObject(atSlot: index) {
                duplicate.setToOne(nil, atSlot: index)
                if newValuesWin || original.toOneObject(atSlot: index) == nil { original.setToOne(target, atSlot: index) }
            }
        }
        let id = ObjectIdentifier(duplicate)
        insertedByID[id] = nil
        updatedByID[id] = nil
        registry[duplicate.objectID] = nil
        retainedObjects[duplicate.objectID] = nil
        duplicate.isInserted = false
        duplicate.isDeleted = true
        return true
    }

    private func mergeError(for conflicts: [StoreConflict]) -> MergeError {
        MergeError(conflicts: conflicts.map { conflict in
            let object = registry[conflict.objectID]?.object
            return MergeConflict(objectID: conflict.objectID,
                                 objectSnapshot: object?.makeSnapshot() ?? Snapshot(objectID: conflict.objectID, version: conflict.expectedVersion, values: []),
                                 cachedSnapshot: object?.committedSnapshot, persistedSnapshot: conflict.currentSnapshot)
        })
    }

    /// Applies the merge policy to each conflicting object, so that the next attempt succeeds.
    private func resolve(_ conflicts: [StoreConflict]) {
        for conflict in conflicts {
            guard let object = registry[conflict.objectID]?.object else { continue }
            guard let current = conflict.currentSnapshot else {
                // Deleted elsewhere: nothing of it can be written any more.
                object.isDeleted = true
                unregister(object)
                continue
            }
            let committed = object.committedSnapshot
            switch mergePolicy {
            case .error:
                return
            case .rollback:
                if object.isDeleted {
                    object.isDeleted = false
                    deletedByID[ObjectIdentifier(object)] = nil
                }
                object.apply(current)
                object.clearChanges()
                updatedByID[ObjectIdentifier(object)] = nil
            case .overwrite:
                object.committedSnapshot?.version = current.version
                for index in object.layout.storedIndexes where object.layout.properties[index] is AttributeDescription {
                    object.changedSlots[index] = true
                }
            case .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump:
                guard !object.isDeleted else {
                    if mergePolicy == .mergeByPropertyStoreTrump {
                        object.isDeleted = false
                        deletedByID[ObjectIdentifier(object)] = nil
                        object.apply(current)
                        object.clearChanges()
                    } else {
                        object.committedSnapshot = current
                    }
                    continue
                }
                let local = object.slots
                let changed = object.changedSlots
                object.apply(current)
                object.clearChanges()
                for index in object.layout.storedIndexes where changed[index] {
                    let changedElsewhere = committed.map { $0.values[index] != current.values[index] && current.values[index].isLoaded } ?? true
                    if mergePolicy == .mergeByPropertyObjectTrump || !changedElsewhere {
                        object.slots[index] = local[index]
                        object.changedSlots[index] = true
                    }
                }
                if !object.changedSlots.contains(true) { updatedByID[ObjectIdentifier(object)] = nil }
            }
            object.awake(fromSnapshotEvents: .mergePolicy)
        }
    }
}
