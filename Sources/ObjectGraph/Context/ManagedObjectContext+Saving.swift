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
        // Values a failed fault never read must not be written as if they were its values.
        if let faultingError { throw faultingError }
        isSaving = true
        defer { isSaving = false }
        post(.willSave)
        var changes = changedObjectsInOrder()
        // Each object changed by a willSave (its own or another's) gets willSave again before it is
        // saved, as in Core Data ("Core Data will observe the resultant change notification and
        // so will invoke willSave again"), until a round changes nothing.
        var hooked = changes
        var rounds = 0
        while true {
            for object in hooked { object.willSave() }
            rounds += 1
            // Deletions made by the round cascade first, so that the objects they delete get
            // their willSave in the next round.
            propagatePendingDeletions()
            // What willSave changed shows in the event, or (after a rollback or reset, which end
            // their own event) in the counts; otherwise the same objects are to be saved.
            let changedWhileSaving = !event.isEmpty
            let changedInRound = changedWhileSaving ? objectsChangedInEvent() : []
            processPendingChanges()
            if changedWhileSaving || changes.count != insertedByID.count + updatedByID.count + deletedByID.count {
                changes = changedObjectsInOrder()
            }
            if changedInRound.isEmpty { break }
            let saved = Set(changes.map(ObjectIdentifier.init))
            hooked = changedInRound.filter { saved.contains(ObjectIdentifier($0)) }
            if hooked.isEmpty { break }
            guard rounds < Self.willSaveRounds else { throw ContextError.willSaveKeepsChanging(hooked.map(\.objectID)) }
        }
        try validateChanges(changes)
        if let parent = parentContext {
            // A child context saves into its parent, which writes the changes when it saves.
            try saveIntoParent(parent, changes: changes)
            return
        }
        guard let coordinator = persistentStoreCoordinator else {
            throw ContextError.noStore(entity: insertedByID.values.first?.entity.name ?? "any")
        }
        try obtainPermanentIDs(for: changes) { $0.isInserted && !$0.isDeleted }
        var saved = SavedRows()
        var attempts = 0
        // Objects whose stored to-many sides a resolved conflict changes though they are not
        // saved themselves (destinations a kept to-one leaves): the save reports them updated.
        var leftByResolution: Set<ObjectID> = []
        while true {
            do {
                saved = try writeChanges(changes, through: coordinator)
                break
            } catch StoreError.conflicts(let conflicts) {
                attempts += 1
                guard mergePolicy != .error, attempts <= 3 else { throw mergeError(for: conflicts) }
                if case .custom(let policy) = mergePolicy {
                    storeConflictsBeingResolved = conflicts
                    defer { storeConflictsBeingResolved = [] }
                    try policy.resolve(optimisticLockingConflicts: mergeError(for: conflicts).conflicts, in: self)
                    leftByResolution.formUnion(leftByCustomResolution)
                    leftByCustomResolution = []
                } else {
                    leftByResolution.formUnion(resolve(conflicts, by: mergePolicy))
                }
            } catch let StoreError.uniquenessViolation(entity, properties, ids) where mergePolicy != .error && ids.count == 2 {
                // Each resolution folds one new object into the one it duplicates.
                attempts += 1
                let violation = StoreError.uniquenessViolation(entity: entity, properties: properties, objectIDs: ids)
                guard attempts <= insertedByID.count + 3 else { throw violation }
                if case .custom(let policy) = mergePolicy {
                    try policy.resolve(constraintConflict: ConstraintConflict(entity: entity, properties: properties,
                                                                              duplicateID: ids[0], originalID: ids[1]), in: self)
                } else if !mergeDuplicate(ids[0], into: ids[1], newValuesWin: mergePolicy.newValuesWin) {
                    throw violation
                }
            }
            // Resolving moved objects between (or out of) the inserted, updated and deleted ones.
            changes = changedObjectsInOrder()
        }
        finishSave(changes, saved: &saved, coordinator: coordinator, alsoUpdated: leftByResolution)
        conflictDetected = [:]
    }

    /// Inserted, updated and deleted objects, in a stable order.
    /// How many rounds of willSave a save makes at most (``ContextError/willSaveKeepsChanging(_:)``).
    static let willSaveRounds = 100

    /// The objects the current event (not yet processed) inserted, changed or deleted, each once.
    private func objectsChangedInEvent() -> [ManagedObject] {
        var seen: Set<ObjectIdentifier> = []
        var objects: [ManagedObject] = []
        func add(_ object: ManagedObject) {
            if seen.insert(ObjectIdentifier(object)).inserted { objects.append(object) }
        }
        for object in event.inserted where object.insertedInEvent == eventSequence { add(object) }
        for object in event.updated where object.eventOldValuesEvent == eventSequence { add(object) }
        for object in event.deleted.values { add(object) }
        for object in event.refreshedDirty.values { add(object) }
        return objects
    }

    func changedObjectsInOrder() -> [ManagedObject] {
        // Sorted as (sequence, object) pairs, each object's sequence read once: comparing the
        // objects' own fields read two objects, out of the processor's cache in a large save,
        // per comparison.
        var keyed: [(sequence: UInt64, object: ManagedObject)] = []
        keyed.reserveCapacity(insertedByID.count + updatedByID.count + deletedByID.count)
        // The inserted and updated objects in the order they came, mostly their registration
        // order already: the sort below then finds them in a few runs.
        appendLoggedChanges(to: &keyed)
        for object in deletedByID.values { keyed.append((object.registrationSequence, object)) }
        keyed.sort { $0.sequence < $1.sequence }
        return keyed.map(\.object)
    }

    /// Runs validateForInsert/Update/Delete on every changed object, collecting all failures.
    func validateChanges(_ changes: [ManagedObject]) throws {
        var failures: [ValidationError.Failure] = []
        func collect(_ object: ManagedObject, _ check: () throws -> Void) {
            do {
                try check()
            } catch let error as ValidationError {
                failures += error.failures
            } catch {
                failures.append(ValidationError.Failure(error, of: object, property: nil))
            }
        }
        for object in changes {
            if object.isDeleted {
                if !object.isInserted { collect(object) { try object.validateForDelete() } }
            } else if object.isInserted {
                collect(object) { try object.validateForInsert() }
            } else {
                collect(object) { try object.validateForUpdate() }
            }
            if !object.isDeleted, !object.layout.relationshipIndexes.isEmpty { appendDanglingReferences(of: object, to: &failures) }
        }
        if !failures.isEmpty { throw ValidationError(failures: failures) }
    }

    /// A failure for each changed relationship of `object` that holds an object with no row
    /// after the save (see ``missingRow(_:)``): no store could resolve the reference. Core Data
    /// refuses such a save too ("dangling reference to an invalid object"); stores would write
    /// the reference as it is.
    private func appendDanglingReferences(of object: ManagedObject, to failures: inout [ValidationError.Failure]) {
        let layout = object.layout
        for index in object.changedSlots {
            var dangling: [(id: ObjectID, reason: String)] = []
            switch layout.kinds[index] {
            case .toOne where !object.rowValues.isEmpty:
                if case .object(let id) = object.rowValues[index], let reason = missingRow(id) { dangling.append((id, reason)) }
            case .toOne:
                if let destination = object.storedSlots[index] as? ManagedObject {
                    if let reason = missingRow(destination) { dangling.append((destination.objectID, reason)) }
                } else if let id = object.storedSlots[index] as? ObjectID, let reason = missingRow(id) {
                    dangling.append((id, reason))
                }
            case .toMany:
                if let storage = object.storedSlots[index] as? ToManyStorage {
                    for destination in storage.elements {
                        if let reason = missingRow(destination) { dangling.append((destination.objectID, reason)) }
                    }
                }
            default:
                continue
            }
            let name = layout.properties[index].name
            for (id, reason) in dangling {
                failures.append(ValidationError.Failure(
                    objectID: object.objectID, entity: object.entity.name, property: name, rule: .danglingReference, value: "\(id)",
                    message: "\(object.entity.name).\(name) refers to \(id), \(reason)"))
            }
        }
    }

    /// Why `destination` will have no row after the save, nil when it will have one:
    ///
    /// - a new object that is not inserted (its insertion undone, or deleted before a save),
    ///   even with a permanent ID obtained early;
    /// - a deleted object: deleted in this context (the save removes its row; relating to it
    ///   after its delete rules ran leaves nothing to clear the reference), or an inaccessible
    ///   fault, whose row another context or process deleted (``shouldDeleteInaccessibleFaults``
    ///   marks it deleted when it fires).
    ///
    /// In a child context, an object with a temporary ID that is not new here is a new one of
    /// the parent's: the parent inserts it.
    private func missingRow(_ destination: ManagedObject) -> String? {
        if !destination.isInserted
            && ((destination.objectID.isTemporaryID && parentContext == nil) || destination.isUnsavedOutOfContext) {
            return Self.unsavedNewObject
        }
        guard destination.isDeleted else { return nil }
        return deletedByID[ObjectKey(destination)] != nil
            ? "an object deleted in this context (this save removes its row)"
            : "an object whose row another context or process deleted (an inaccessible fault)"
    }

    /// ``missingRow(_:)`` for the object of `id`: a temporary ID no registered object holds
    /// has no row either.
    private func missingRow(_ id: ObjectID) -> String? {
        if let registered = registry[id]?.object { return missingRow(registered) }
        return id.isTemporaryID && parentContext == nil ? Self.unsavedNewObject : nil
    }

    /// What ``missingRow(_:)`` says of a new object that will not be inserted.
    private static let unsavedNewObject = "a new object that left the context unsaved (its insertion was undone, or it was deleted)"

    /// Gives the objects permanent IDs from the stores that will hold them.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        try obtainPermanentIDs(for: objects) { _ in true }
    }

    /// ``obtainPermanentIDs(for:)`` for the objects among `objects` that `include` picks (a
    /// save's inserted ones), in one pass: each object is read once to group it, with its ID,
    /// by store.
    func obtainPermanentIDs(for objects: [ManagedObject], where include: (ManagedObject) -> Bool) throws {
        assertOnQueue()
        // A child context's objects new in its parent get their IDs there.
        if let parentContext { try obtainPermanentIDsFromParent(for: objects.filter(include), parent: parentContext) }
        guard let coordinator = persistentStoreCoordinator else { throw ContextError.noStore(entity: objects.first?.entity.name ?? "any") }
        var groups: [(store: any PersistentStore, objects: [ManagedObject], ids: [ObjectID])] = []
        // Objects come mostly in runs of one entity: its store is looked up once per run
        // (entities compared by identity: a comparison of references retains them).
        var lastEntity: ObjectIdentifier?
        var group = 0
        for object in objects where include(object) && object.objectID.isTemporaryID {
            if !assignedStores.isEmpty, let store = assignedStores[object.objectID] {
                // Assigned to a store of its own: grouped with that store's, out of the run.
                lastEntity = nil
                group = groups.firstIndex { $0.store === store } ?? groups.endIndex
                if group == groups.endIndex { groups.append((store, [], [])) }
            } else if ObjectIdentifier(object.entity) != lastEntity {
                guard let store = coordinator.store(forNewObjectOf: object.entity) else { throw ContextError.noStore(entity: object.entity.name) }
                lastEntity = ObjectIdentifier(object.entity)
                group = groups.firstIndex { $0.store === store } ?? groups.endIndex
                if group == groups.endIndex { groups.append((store, [], [])) }
            }
            groups[group].objects.append(object)
            groups[group].ids.append(object.objectID)
        }
        for (store, objects, temporaryIDs) in groups {
            let ids = try coordinator.withStores { try store.obtainPermanentIDs(for: temporaryIDs) }
            for index in objects.indices where index < ids.count {
                if !assignedStores.isEmpty { assignedStores[objects[index].objectID] = nil }
                reassign(objects[index], to: ids[index])
            }
        }
    }

    /// The rows stores wrote, with the objects they belong to: `snapshots[i]` is `objects[i]`'s.
    /// Two arrays rather than an array of pairs: a store's rows and the objects of its request
    /// are taken as they are, not copied pair by pair.
    struct SavedRows {
        var objects: [ManagedObject] = []
        var snapshots: [Snapshot] = []

        mutating func append(contentsOf other: SavedRows) {
            if objects.isEmpty {
                self = other
            } else {
                objects += other.objects
                snapshots += other.snapshots
            }
        }
    }

    /// One store's part of a save, with the objects whose rows it inserts and updates.
    private struct StoreChanges {
        let storeTag: StoreTag
        /// An object of the part, whose store is the part's.
        let sample: ObjectID
        var request = StoreSaveRequest()
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []

        /// The objects of the request's rows, in its order: inserted, then updated (what the
        /// store's result lists).
        var writtenObjects: [ManagedObject] { updated.isEmpty ? inserted : inserted + updated }

        /// A part for at most the context's inserted and updated objects, its arrays sized once:
        /// most saves write to one store, whose part gets them all.
        init(storeTag: StoreTag, sample: ObjectID, expecting counts: (inserted: Int, updated: Int)) {
            self.storeTag = storeTag
            self.sample = sample
            request.inserted.reserveCapacity(counts.inserted)
            inserted.reserveCapacity(counts.inserted)
            request.updated.reserveCapacity(counts.updated)
            request.changedSlots.reserveCapacity(counts.updated)
            updated.reserveCapacity(counts.updated)
        }
    }

    /// Sends each store its inserted, updated and deleted rows, stores in identifier order.
    private func writeChanges(_ changes: [ManagedObject], through coordinator: PersistentStoreCoordinator) throws -> SavedRows {
        var parts: [StoreChanges] = []
        // Nearly every save writes to one store: the part of the previous object is usually the one.
        var part = 0
        for object in changes {
            // Parts are told apart by store tag: comparing integers, no identifier strings.
            let tag = object.objectID.storeTag
            if parts.isEmpty || parts[part].storeTag != tag {
                part = parts.firstIndex { $0.storeTag == tag } ?? parts.endIndex
                if part == parts.endIndex { parts.append(StoreChanges(storeTag: tag, sample: object.objectID, expecting: (insertedByID.count, updatedByID.count))) }
            }
            if object.isDeleted {
                guard !object.isInserted, !object.objectID.isTemporaryID else { continue }
                parts[part].request.deleted.append((object.objectID, object.committedVersion))
            } else if object.isInserted {
                parts[part].request.inserted.append(object.makeSnapshot())
                parts[part].inserted.append(object)
            } else if !object.isFault && !object.changedSlots.isEmpty {
                parts[part].request.updated.append(object.makeSnapshot())
                // An untracked edit (a primitive setter) changed slots without marking them.
                parts[part].request.changedSlots.append(object.hasUntrackedEdits ? nil : object.changedSlots)
                parts[part].updated.append(object)
            }
        }
        // Objects marked for conflict detection that the save does not write are checked at the
        // version they were read (detectConflicts(for:)).
        for object in conflictDetected.values where object.managedObjectContext === self && !object.isDeleted
            && !object.isInserted && object.changedSlots.isEmpty && object.hasCommittedSnapshot {
            let tag = object.objectID.storeTag
            if let index = parts.firstIndex(where: { $0.storeTag == tag }) {
                parts[index].request.locked.append((object.objectID, object.committedVersion))
            } else {
                var locking = StoreChanges(storeTag: tag, sample: object.objectID, expecting: (0, 0))
                locking.request.locked.append((object.objectID, object.committedVersion))
                parts.append(locking)
            }
        }
        var saved = SavedRows()
        var writes: [(store: any PersistentStore, part: StoreChanges)] = []
        for var part in parts.sorted(by: { ($0.storeTag.identifier ?? "") < ($1.storeTag.identifier ?? "") }) {
            guard let store = coordinator.store(for: part.sample) else {
                throw StoreError.unknownStore("no store with identifier \(part.storeTag.identifier ?? "")")
            }
            part.request.author = transactionAuthor ?? name
            writes.append((store, part))
        }
        if writes.count == 1 {
            let (store, part) = writes[0]
            let request = part.request
            let result = try coordinator.withStores {
                coordinator.storeWillSave(store, request)
                let result = try store.save(request)
                coordinator.storeDidSave(store, request: request, result: result)
                return result
            }
            saved.append(contentsOf: savedRows(result.snapshots, of: part.writtenObjects))
            return saved
        }
        // Several stores: each that can hold its save open writes first, and all commit only when
        // every store has written, so that a failure in any leaves every one as it was. A store
        // that cannot (a custom one) writes last, as the commit point; with more than one such
        // store, a later one's failure cannot undo an earlier one's save.
        writes.sort { $0.store.supportsPreparedSaves && !$1.store.supportsPreparedSaves }
        let results = try coordinator.withStores {
            var prepared: [any PersistentStore] = []
            var results: [StoreSaveResult] = []
            do {
                for (store, part) in writes {
                    coordinator.storeWillSave(store, part.request)
                    if store.supportsPreparedSaves {
                        results.append(try store.prepareSave(part.request))
                        prepared.append(store)
                    } else {
                        let result = try store.save(part.request)
                        // Saved for good, whatever a later store does: its records follow now.
                        coordinator.storeDidSave(store, request: part.request, result: result)
                        results.append(result)
                    }
                }
            } catch {
                for store in prepared.reversed() { store.rollbackPreparedSave() }
                throw error
            }
            // A commit fails only for the file itself (a full disk, I/O): the stores committed
            // before it keep their save.
            for (index, store) in prepared.enumerated() {
                do {
                    try store.commitPreparedSave()
                } catch {
                    for later in prepared[(index + 1)...] { later.rollbackPreparedSave() }
                    throw error
                }
            }
            for (write, result) in zip(writes, results) where write.store.supportsPreparedSaves {
                coordinator.storeDidSave(write.store, request: write.part.request, result: result)
            }
            return results
        }
        for (write, result) in zip(writes, results) {
            saved.append(contentsOf: savedRows(result.snapshots, of: write.part.writtenObjects))
        }
        return saved
    }

    /// Pairs the rows a store returned with `objects`, the objects of its request's inserted and
    /// updated rows. The stores return the rows in request order, so this is a walk, checked
    /// row by row; a store that answers otherwise is matched by object ID.
    private func savedRows(_ snapshots: [Snapshot], of objects: [ManagedObject]) -> SavedRows {
        if snapshots.count == objects.count,
           snapshots.indices.allSatisfy({ snapshots[$0].objectID == objects[$0].objectID }) {
            return SavedRows(objects: objects, snapshots: snapshots)
        }
        let byID = Dictionary(snapshots.map { ($0.objectID, $0) }, uniquingKeysWith: { _, last in last })
        var rows = SavedRows()
        for object in objects {
            guard let snapshot = byID[object.objectID] else { continue }
            rows.objects.append(object)
            rows.snapshots.append(snapshot)
        }
        return rows
    }

    /// Marks the saved objects clean, updates the row cache, posts didSave and calls didSave(),
    /// all in the order of `changes`. didSave reports `alsoUpdated` updated too: objects whose
    /// stored relationships the save changed without writing them (see `resolve(_:)`).
    /// A child context's save has no `coordinator`: its rows went to its parent, not the row cache.
    func finishSave(_ changes: [ManagedObject], saved: inout SavedRows, coordinator: PersistentStoreCoordinator?,
                    alsoUpdated: Set<ObjectID> = []) {
        var insertedRows: [Snapshot] = []
        var updatedRows: [Snapshot] = []
        insertedRows.reserveCapacity(insertedByID.count)
        updatedRows.reserveCapacity(updatedByID.count)
        // By index, each row moved out of `saved` into its object after a copy for the cache:
        // iterating copies of the saved rows cost a retain and a release each.
        for index in saved.objects.indices {
            let object = saved.objects[index]
            var committed = saved.snapshots[index].moveOut()
            if object.layout.hasToManySlots { committed = mergedCommitted(committed, object) }
            // The saved row holds the values untracked edits wrote: the next save need not
            // write every column for them.
            object.hasUntrackedEdits = false
            if object.isInserted {
                insertedRows.append(committed)
            } else {
                updatedRows.append(committed)
            }
            object.setCommittedSnapshot(committed)
            if !object.layout.derivedSlots.isEmpty { object.takeDerivedValues() }
        }
        coordinator?.rowCache.retain(taking: &insertedRows)
        coordinator?.rowCache.update(taking: &updatedRows)
        // Observers' sets are built only when someone observes, or merges the save: the
        // coordinator's contexts that merge its saves, this context's children that merge its
        // saves, and its parent's other such children, whose parent now holds the changes.
        var merging = coordinator?.contextsMergingSaves(of: self) ?? []
        if hasChildContexts { merging += childrenMergingSavesNow() }
        if let parentContext { merging += parentContext.childrenMergingSavesNow().filter { $0 !== self } }
        let notifies = !observers.isEmpty || !merging.isEmpty || NotificationCenterPosting.isActive
        var objects = ObjectsDidChange(inserted: [], updated: [], deleted: [], refreshed: [], invalidated: [], invalidatedAll: false)
        var payload = ContextDidSave(contextName: name, transactionAuthor: transactionAuthor)
        // The objects whose didSave runs: `changes`, less the inserted and deleted again (rare:
        // the array is only filtered when there are some). Objects are read by index, which
        // spares the retain and release per object of iterating copies.
        var unsaved = Set<ObjectIdentifier>()
        var deleted: [ManagedObject] = []
        for index in changes.indices {
            let object = changes[index]
            if object.isInserted {
                // Inserted and deleted again: nothing was written.
                if object.isDeleted {
                    unregister(object)
                    unsaved.insert(ObjectIdentifier(object))
                    continue
                }
                object.isInserted = false
                object.clearChanges()
                if notifies {
                    objects.inserted.insert(object)
                    payload.insertedObjectIDs.insert(object.objectID)
                }
            } else if object.isDeleted {
                deleted.append(object)
                if notifies {
                    objects.deleted.insert(object)
                    payload.deletedObjectIDs.insert(object.objectID)
                }
            } else {
                object.clearChanges()
                if notifies {
                    objects.updated.insert(object)
                    payload.updatedObjectIDs.insert(object.objectID)
                }
            }
        }
        if notifies {
            for id in alsoUpdated where !payload.deletedObjectIDs.contains(id) && !payload.insertedObjectIDs.contains(id) {
                payload.updatedObjectIDs.insert(id)
                if let object = registry[id]?.object, !object.isDeleted { objects.updated.insert(object) }
            }
        }
        let savedObjects = unsaved.isEmpty ? changes : changes.filter { !unsaved.contains(ObjectIdentifier($0)) }
        // The change sets, the retained objects (`changes` holds them still) and the deleted
        // rows' cache entries go first, so that unregistering finds nothing of them to remove.
        clearInserted()
        clearUpdated()
        deletedByID = [:]
        if !retainsRegisteredObjects { retainedObjects = [:] }
        coordinator?.rowCache.invalidate(deleted.map(\.objectID))
        for object in deleted { unregister(object, releasingCachedRow: false) }
        if notifies { post(.didSave(payload, objects: objects)) }
        let adopted = merging.isEmpty ? [:] : permanentIDsForChildren(of: payload.insertedObjectIDs)
        for context in merging {
            let saved = payload
            context.perform { [weak context] in
                // A child knows this context's new objects by their temporary IDs until now.
                if !adopted.isEmpty, context?.parentContext === self { context?.adoptPermanentIDs(adopted) }
                context?.mergeChanges(fromContextDidSave: saved)
            }
        }
        for index in savedObjects.indices { savedObjects[index].didSave() }
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

    /// The slot of `original` that takes slot `index` of `duplicate` in a merge: the property of
    /// the same name and kind (the same attribute type; a relationship of the same cardinality
    /// whose destination takes the duplicate's destinations). Nil when the original has none.
    private func counterpart(of index: Int, in duplicate: ManagedObject, on original: ManagedObject) -> Int? {
        if original.entity === duplicate.entity { return index }
        let property = duplicate.layout.properties[index]
        guard let target = original.layout.index(of: property.name) else { return nil }
        let other = original.layout.properties[target]
        if other === property { return target }
        switch (property, other) {
        case (let a as AttributeDescription, let b as AttributeDescription):
            return a.attributeType == b.attributeType && a.isStored == b.isStored ? target : nil
        case (let a as RelationshipDescription, let b as RelationshipDescription):
            guard a.isToMany == b.isToMany, b.isStored, let from = a.destinationEntity, let to = b.destinationEntity,
                  from.isKind(of: to) else { return nil }
            return target
        default:
            return nil
        }
    }

    /// Resolves a uniqueness clash under the merge policy: the new object `duplicateID` is folded
    /// into the object `originalID` (stored, or new in the same save). With object trump (and
    /// overwrite) its changed values win; otherwise the original's stay. Its relationships move
    /// to the original, and it leaves the context. False when the clash cannot be resolved so.
    private func mergeDuplicate(_ duplicateID: ObjectID, into originalID: ObjectID, newValuesWin: Bool) -> Bool {
        guard let duplicate = registry[duplicateID]?.object, duplicate.isInserted else { return false }
        let original = object(with: originalID)
        original.fireFaultIfNeeded()
        guard !original.isDeleted, original !== duplicate else { return false }
        // Property by property, by name: a constraint of a parent entity joins objects of two
        // sub-entities, whose own properties may share slot numbers but nothing else. A property
        // the original's entity lacks (or has with another type) stays with the duplicate.
        for index in duplicate.layout.attributeIndexes where duplicate.layout.properties[index].isStored {
            guard duplicate.changedSlots[index], let target = counterpart(of: index, in: duplicate, on: original) else { continue }
            if newValuesWin || original.slots[target] == nil {
                original.setValue(duplicate.slots[index], atSlot: target)
            }
        }
        for index in duplicate.layout.relationshipIndexes where duplicate.layout.properties[index].isStored {
            guard let target = counterpart(of: index, in: duplicate, on: original) else { continue }
            let relationship = duplicate.layout.properties[index] as! RelationshipDescription
            if relationship.isToMany {
                for destination in duplicate.objects(atSlot: index) {
                    duplicate.removeObject(destination, fromSlot: index)
                    original.addObject(destination, toSlot: target)
                }
            } else if let destination = duplicate.toOneObject(atSlot: index) {
                duplicate.setToOne(nil, atSlot: index)
                if newValuesWin || original.toOneObject(atSlot: target) == nil { original.setToOne(destination, atSlot: target) }
            }
        }
        let id = ObjectKey(duplicate)
        insertedByID[id] = nil
        updatedByID[id] = nil
        detach(duplicate)
        retainedObjects[duplicate.objectID] = nil
        duplicate.isInserted = false
        duplicate.isDeleted = true
        return true
    }

    /// After a merge policy gave relationships of `object` their stored values (`replaced`, whose
    /// values were `local`: all its changes under the rollback policy, those another context
    /// changed too under store trump): the other side of each goes with them, so that both sides
    /// agree with each other and with the stored row. The destinations it left lose it, the
    /// loaded ones it joined gain it (a fault loads its side from the store, where it is already).
    /// A store that keeps both sides, as the in-memory one does, would otherwise also keep the
    /// side another object saves.
    private func reconcileInverses(of object: ManagedObject, replaced: SlotSet, local: [Any?]) {
        for index in replaced {
            guard let relationship = object.layout.properties[index] as? RelationshipDescription, relationship.isStored,
                  let inverse = relationship.inverseRelationship else { continue }
            let before: [ManagedObject]
            let now: [ManagedObject]
            if relationship.isToMany {
                before = (local[index] as? ToManyStorage)?.elements ?? []
                now = object.objects(atSlot: index)
            } else {
                let destination = local[index] as? ManagedObject ?? (local[index] as? ObjectID).flatMap { registry[$0]?.object }
                before = destination.map { [$0] } ?? []
                now = object.toOneObject(atSlot: index).map { [$0] } ?? []
            }
            let kept = Set(now.map(ObjectIdentifier.init))
            let had = Set(before.map(ObjectIdentifier.init))
            for destination in before where !kept.contains(ObjectIdentifier(destination)) && destination.managedObjectContext === self {
                destination.unlink(object, through: inverse)
            }
            for destination in now where !had.contains(ObjectIdentifier(destination)) && !destination.isFault {
                destination.link(object, through: inverse, from: relationship)
            }
        }
    }

    /// After a merge policy kept `object`'s own value of to-one relationships that another
    /// context changed too: the destinations the stored row (`current`) names there lose the
    /// object when the save writes it, yet their cached rows still hold it on their side (a
    /// store derives that side from the to-one, or changes it without a new version: the rows
    /// are not written). Those rows leave the row cache, so that a fault does not fill from them,
    /// and their IDs are returned, for the save to report them updated: other contexts that
    /// merge it then refresh their lists.
    private func forgetCachedRowsOfDestinationsLeft(by object: ManagedObject, stored current: Snapshot) -> [ObjectID] {
        var left: [ObjectID] = []
        for index in object.changedSlots where index < current.values.count {
            guard case .toOne = object.layout.kinds[index], case .object(let id) = current.values[index],
                  id != object.toOneObjectID(atSlot: index),
                  (object.layout.properties[index] as? RelationshipDescription)?.inverseRelationship != nil else { continue }
            left.append(id)
        }
        if !left.isEmpty { storeCoordinator?.rowCache.invalidate(left) }
        return left
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
    /// Returns the objects whose stored to-many sides the next attempt changes without writing
    /// them: the destinations that a to-one kept from this context leaves in the store.
    private func resolve(_ conflicts: [StoreConflict], by policy: MergePolicy) -> [ObjectID] {
        var left: [ObjectID] = []
        for conflict in conflicts {
            guard let object = registry[conflict.objectID]?.object else { continue }
            guard let current = conflict.currentSnapshot else {
                // Deleted elsewhere: nothing of it can be written any more, and nothing may be
                // saved pointing at it. It leaves the relationships of the objects here, as a
                // merged deletion does; those become changes the next attempt writes. The new
                // objects its cascade rules reach here go with it, as a merged deletion's do.
                let cascaded = newCascadeDestinations(of: object)
                detachDeletedElsewhere(object)
                object.isDeleted = true
                unregister(object)
                if !cascaded.isEmpty {
                    undoManager?.disableUndoRegistration()
                    for destination in cascaded where destination.managedObjectContext === self { delete(destination) }
                    propagatePendingDeletions()
                    undoManager?.enableUndoRegistration()
                }
                continue
            }
            let committed = object.committedSnapshot
            switch policy.standard {
            case .error, .custom:
                return left
            case .rollback:
                // Discarding a deletion discards what its delete rules did with it.
                if object.isDeleted { restoreDeletionWhole(of: object) }
                let local = object.isFault ? [] : object.slots
                let changed = object.changedSlots
                object.apply(current)
                object.clearChanges()
                updatedByID[ObjectKey(object)] = nil
                if !local.isEmpty { reconcileInverses(of: object, replaced: changed, local: local) }
            case .overwrite:
                if object.hasCommittedSnapshot { object.committedVersion = current.version }
                // A deletion writes no values (and its object may be a fault, without slots).
                guard !object.isDeleted else { break }
                // Every value the row holds is the context's: attributes and to-one relationships are
                // written again (a store writes only changed columns).
                for index in object.layout.storedIndexes {
                    if case .toMany = object.layout.kinds[index] { continue }
                    object.changedSlots[index] = true
                }
                left += forgetCachedRowsOfDestinationsLeft(by: object, stored: current)
            case .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump:
                guard !object.isDeleted else {
                    if policy.standard == .mergeByPropertyStoreTrump {
                        // The change elsewhere wins over the deletion, which is undone whole:
                        // the objects its cascade deleted stay too.
                        restoreDeletionWhole(of: object)
                        object.apply(current)
                        object.clearChanges()
                        updatedByID[ObjectKey(object)] = nil
                    } else {
                        object.committedSnapshot = current
                    }
                    continue
                }
                let local = object.slots
                let changed = object.changedSlots
                object.apply(current)
                object.clearChanges()
                keepTransientValues(local, changed: changed, of: object)
                var replaced = SlotSet()
                for index in object.layout.storedIndexes where changed[index] {
                    // A to-many relationship takes the local additions and removals on top of the
                    // stored destinations: those another context added or removed are no conflict.
                    if let merged = mergedToMany(local[index], slot: index, of: object) {
                        object.slots[index] = merged
                        object.changedSlots[index] = true
                        continue
                    }
                    let changedElsewhere = committed.map { $0.values[index] != current.values[index] && current.values[index].isLoaded } ?? true
                    if policy.standard == .mergeByPropertyObjectTrump || !changedElsewhere {
                        object.slots[index] = local[index]
                        object.changedSlots[index] = true
                    } else {
                        replaced[index] = true
                    }
                }
                if !replaced.isEmpty { reconcileInverses(of: object, replaced: replaced, local: local) }
                left += forgetCachedRowsOfDestinationsLeft(by: object, stored: current)
                if object.changedSlots.isEmpty { updatedByID[ObjectKey(object)] = nil }
            }
            object.awake(fromSnapshotEvents: .mergePolicy)
        }
        return left
    }

    /// A custom policy's `super`: applies the standard `policy` to the conflicts of the save
    /// being resolved (those of `conflicts`), or throws the merge error for `.error`.
    func applyStandardPolicy(_ policy: MergePolicy, to conflicts: [MergeConflict]) throws {
        let ids = Set(conflicts.map(\.objectID))
        let chosen = storeConflictsBeingResolved.filter { ids.contains($0.objectID) }
        if policy.standard == .error { throw mergeError(for: chosen) }
        leftByCustomResolution += resolve(chosen, by: policy)
    }

    /// A custom policy's `super` for a uniqueness clash: folds the duplicate into the original
    /// as `policy` says, or throws the violation for `.error` (or when it cannot be folded).
    func applyStandardPolicy(_ policy: MergePolicy, to conflict: ConstraintConflict) throws {
        guard policy.standard != .error,
              mergeDuplicate(conflict.duplicateID, into: conflict.originalID, newValuesWin: policy.newValuesWin) else {
            throw StoreError.uniquenessViolation(entity: conflict.entity, properties: conflict.properties,
                                                 objectIDs: [conflict.duplicateID, conflict.originalID])
        }
    }
}
