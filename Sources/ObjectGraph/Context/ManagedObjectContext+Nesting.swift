// Nested contexts (Core Data's parent contexts, talks 002 and 003): a child context reads from and
// saves to its parent context instead of a coordinator. Its fetches run in the parent, its faults
// fill from the parent's objects as they are (unsaved changes included), and its save hands the
// changes to the parent, which writes them when it saves in turn: an editor that can be thrown
// away, or an import that the interface sees only when it is complete.
//
// What crosses between the two contexts is rows and object IDs, never objects: each side's work
// runs on its own queue, the parent's through its performAndWait.
import Foundation

/// A context held unretained: the coordinator's and a parent's lists of contexts that merge saves.
struct WeakContext {
    weak var context: ManagedObjectContext?
}

/// A child context's save, as its parent applies it: the new objects' rows (every stored
/// property), the updated objects' rows with the slots that changed, and the deleted objects.
/// A changed to-many relationship of an updated object comes with the destinations the child
/// read (`baselines`, by slot): the parent applies what the child added, removed and reordered,
/// not the child's whole list, so that what the parent changed since the child read it stays.
struct ChildChanges: Sendable {
    var inserted: [Snapshot] = []
    var updated: [(row: Snapshot, slots: [Int], baselines: [Int: [ObjectID]])] = []
    var deleted: [ObjectID] = []
}

extension ManagedObjectContext {
    /// Whether `context` is this context's parent, or its parent's, and so on.
    func hasAncestor(_ context: ManagedObjectContext) -> Bool {
        var current = parentContext
        while let ancestor = current {
            if ancestor === context { return true }
            current = ancestor.parentContext
        }
        return false
    }

    /// Records `child`, whose parent this context becomes.
    func adoptChild(_ child: ManagedObjectContext) {
        childrenLock.withLock {
            childContexts = childContexts.filter { $0.context != nil && $0.context !== child }
            childContexts.append(WeakContext(context: child))
        }
        hasChildContexts = true
    }

    /// Whether a context that took this one as its parent is still alive.
    var hasLiveChildContexts: Bool {
        childrenLock.withLock {
            childContexts = childContexts.filter { $0.context != nil }
            return !childContexts.isEmpty
        }
    }

    /// Records whether `child` merges this context's saves (its ``automaticallyMergesChangesFromParent``).
    func setMergesSaves(of child: ManagedObjectContext, _ merges: Bool) {
        childrenLock.withLock {
            childrenMergingSaves = childrenMergingSaves.filter { $0.value.context != nil }
            childrenMergingSaves[ObjectIdentifier(child)] = merges ? WeakContext(context: child) : nil
        }
    }

    /// The child contexts that merge this context's saves, and the changes its children save into it.
    func childrenMergingSavesNow() -> [ManagedObjectContext] {
        childrenLock.withLock {
            guard !childrenMergingSaves.isEmpty else { return [] }
            return childrenMergingSaves.values.compactMap(\.context)
        }
    }

    // MARK: The child's side

    /// The IDs a child's fetch finds in its parent, objects for them, loaded as the request asks
    /// (see ``fetchObjects``). With `pending` (the child has unsaved changes the results must
    /// take in) the parent returns every match, unwindowed; the child merges, sorts and windows.
    func fetchFromParent<Result>(_ request: FetchRequest<Result>, parent: ManagedObjectContext,
                                 pending: Bool, idsOnly: Bool) throws -> [ManagedObject] {
        var parentRequest = FetchRequest<ObjectID>(entityName: request.entityName)
        parentRequest.resultType = .managedObjectID
        parentRequest.predicate = request.predicate.map(Self.replacingObjectsWithIDs)
        parentRequest.sortDescriptors = request.sortDescriptors
        parentRequest.includesSubentities = request.includesSubentities
        parentRequest.affectedStores = request.affectedStores
        if !pending {
            parentRequest.fetchLimit = request.fetchLimit
            parentRequest.fetchOffset = request.fetchOffset
        }
        let ids = try parent.performAndWait { try parent.objectIDsForChild(parentRequest) }
        let objects = objects(with: ids)
        if idsOnly { return objects }
        if request.fetchBatchSize > 0 {
            let batch = FaultBatch(objectIDs: ids, size: request.fetchBatchSize)
            for (position, object) in objects.enumerated() where object.isFault {
                object.faultBatch = batch
                object.faultBatchPosition = position
            }
        } else if !request.returnsObjectsAsFaults || request.propertiesToFetch != nil {
            try fillFaults(objects)
        }
        if request.shouldRefreshRefetchedObjects {
            refreshLoadedFromParent(objects.filter { !$0.isFault }, parent: parent)
        }
        return objects
    }

    /// The rows of `ids` as the parent holds the objects now (nil for one it does not have, or
    /// holds deleted), in order.
    func rowsFromParent(_ ids: [ObjectID], parent: ManagedObjectContext) -> [Snapshot?] {
        parent.performAndWait { ids.map { parent.rowForChild($0) } }
    }

    /// Fills the faults among `faults` from the parent's objects, in one visit to the parent.
    func fillFaultsFromParent(_ faults: [ManagedObject], parent: ManagedObjectContext) {
        let rows = rowsFromParent(faults.map(\.objectID), parent: parent)
        for (object, row) in zip(faults, rows) where object.isFault {
            if let row { fill(object, with: row) }
        }
    }

    /// Gives loaded objects a fetch found again the values their parent holds now, their unsaved
    /// changes kept (``FetchRequest/shouldRefreshRefetchedObjects``).
    func refreshLoadedFromParent(_ objects: [ManagedObject], parent: ManagedObjectContext) {
        let candidates = objects.filter { !$0.isFault && !$0.isDeleted && !$0.isInserted && $0.hasCommittedSnapshot }
        guard !candidates.isEmpty else { return }
        let rows = rowsFromParent(candidates.map(\.objectID), parent: parent)
        for (object, row) in zip(candidates, rows) {
            guard let row, row.values != object.committedValues else { continue }
            if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: ObjectIdentifier(object)) }
            merge(row, into: object, keepingLocalChanges: true)
            reportRefreshed(object)
        }
    }

    /// Hands the changes of a save to the parent (see ``save()``): new objects take permanent IDs
    /// from the stores first, so that they keep one identity in both contexts when the parent
    /// saves; then the parent applies the changes as its own unsaved ones, and the saved objects
    /// here take the values they saved as their committed ones.
    func saveIntoParent(_ parent: ManagedObjectContext, changes: [ManagedObject]) throws {
        try obtainPermanentIDs(for: changes) { $0.isInserted && !$0.isDeleted }
        var handed = ChildChanges()
        var saved = SavedRows()
        for object in changes {
            if object.isInserted {
                // Inserted and deleted again: nothing to hand on.
                guard !object.isDeleted else { continue }
                let row = object.currentRow()
                handed.inserted.append(row)
                saved.objects.append(object)
                saved.snapshots.append(row)
            } else if object.isDeleted {
                handed.deleted.append(object.objectID)
            } else {
                let slots = object.persistentChangedSlots()
                let row = object.currentRow()
                if !slots.isEmpty {
                    var baselines: [Int: [ObjectID]] = [:]
                    for index in slots where index < object.committedValues.count {
                        if case .objects(let read) = object.committedValues[index] { baselines[index] = read }
                    }
                    handed.updated.append((row, slots, baselines))
                }
                saved.objects.append(object)
                saved.snapshots.append(row)
            }
        }
        let handedChanges = handed
        parent.performAndWait { parent.applyChildChanges(handedChanges) }
        finishSave(changes, saved: &saved, coordinator: nil)
    }

    /// Gives the objects among `objects` that are new in an ancestor, not here, the permanent IDs
    /// their ancestor obtains for them (``obtainPermanentIDs(for:)`` in a child context): the
    /// ancestor's object and this context's keep one ID.
    func obtainPermanentIDsFromParent(for objects: [ManagedObject], parent: ManagedObjectContext) throws {
        let fromParent = objects.filter { $0.objectID.isTemporaryID && !$0.isInserted && !$0.isUnsavedOutOfContext }
        guard !fromParent.isEmpty else { return }
        let temporary = fromParent.map(\.objectID)
        let permanent = try parent.performAndWait { try parent.permanentIDsForChild(temporary) }
        for (object, id) in zip(fromParent, permanent) where id != object.objectID { reassign(object, to: id) }
    }

    /// After this context's parent saved: its objects new in the parent, which it knew by their
    /// temporary IDs, take the permanent ones the save gave them (`permanentIDs`, by temporary ID).
    func adoptPermanentIDs(_ permanentIDs: [ObjectID: ObjectID]) {
        for (temporary, permanent) in permanentIDs {
            guard let object = registry[temporary]?.object, registry[permanent]?.object == nil else { continue }
            reassign(object, to: permanent)
        }
    }

    // MARK: The parent's side

    /// The permanent IDs of this context's objects of `ids` (new ones get theirs now, from their
    /// store or from this context's own parent); an ID of no object here comes back as it is.
    func permanentIDsForChild(_ ids: [ObjectID]) throws -> [ObjectID] {
        try ids.map { id in
            guard let object = objectForChild(id) else { return id }
            if object.objectID.isTemporaryID { try obtainPermanentIDs(for: [object]) }
            return object.objectID
        }
    }

    /// The permanent IDs a save gave new objects that child contexts may know by their temporary
    /// IDs (`inserted`: the save's inserted objects' IDs), for ``adoptPermanentIDs(_:)``.
    func permanentIDsForChildren(of inserted: Set<ObjectID>) -> [ObjectID: ObjectID] {
        guard hasChildContexts, !permanentIDsOfSavedTemporary.isEmpty else { return [:] }
        return permanentIDsOfSavedTemporary.filter { inserted.contains($0.value) }
    }

    /// The object this context holds for `id`, which a child names: its registered one, or the
    /// one the ID was given to when a save made it permanent after the child read it.
    func objectForChild(_ id: ObjectID) -> ManagedObject? {
        if let object = registry[id]?.object { return object }
        if id.isTemporaryID {
            if let permanent = permanentIDsOfSavedTemporary[id] { return objectForChild(permanent) }
            // A new object of an ancestor's: this context reaches it through its own parent.
            return parentContext == nil ? nil : object(with: id)
        }
        return object(with: id)
    }

    /// The IDs `request` finds among this context's objects as they are now, for a child context.
    func objectIDsForChild(_ request: FetchRequest<ObjectID>) throws -> [ObjectID] {
        var request = request
        // The child's objects went into the predicate as IDs: here they are this context's objects,
        // which the evaluator compares with the objects' relationships (the stores take IDs again).
        request.predicate = request.predicate.map { predicate in
            predicate.mappingConstants { constant in
                guard case .opaque(let opaque) = constant, let id = opaque.value as? ObjectID,
                      let object = objectForChild(id) else { return nil }
                return .object(ObjectReference(object))
            }
        }
        return try fetch(request)
    }

    /// The row a child context reads for `id`: the object's values as this context holds them now,
    /// unsaved changes included; nil when this context has no such object or it is deleted here.
    func rowForChild(_ id: ObjectID) -> Snapshot? {
        guard let object = objectForChild(id), !object.isDeleted else { return nil }
        object.fireFaultIfNeeded()
        // Firing may have found the row gone.
        guard !object.isDeleted, !object.isFault else { return nil }
        var row = object.currentRow()
        // The child knows the object by the ID it asked for.
        if row.objectID != id { row.objectID = id }
        return row
    }

    /// Applies a child context's save as this context's own unsaved changes: its new objects are
    /// inserted here (under the IDs they have there; ``ManagedObject/awakeFromInsert()`` runs
    /// here too, as in Core Data), the changed properties of its updated objects are set, and its
    /// deleted objects deleted. The child's values win over this context's for what it changed;
    /// what it did not change keeps this context's values. The event ends, so observers hear of
    /// the changes, and the child contexts that merge saves are told (all but the saver, which
    /// holds them already).
    func applyChildChanges(_ changes: ChildChanges) {
        // New objects first: the changes' relationships may name them.
        var made: [ManagedObject] = []
        made.reserveCapacity(changes.inserted.count)
        for row in changes.inserted {
            if let registered = registry[row.objectID]?.object {
                // Deleted here by an earlier save of the child, whose deletion the child undid.
                if registered.isDeleted { insert(registered) }
                made.append(registered)
                continue
            }
            let entity = row.objectID.entity
            let object = managedObjectClass(for: entity).init(entity: entity, insertInto: nil)
            object.objectID = row.objectID
            insert(object)
            made.append(object)
        }
        for (object, row) in zip(made, changes.inserted) {
            setChildValues(row, slots: object.layout.storedIndexes, of: object)
        }
        for (row, slots, baselines) in changes.updated {
            // An object deleted here since the child read it stays deleted: the deletion wins.
            guard let object = objectForChild(row.objectID), !object.isDeleted else { continue }
            object.fireFaultIfNeeded()
            guard !object.isDeleted else { continue }
            setChildValues(row, slots: slots, of: object, baselines: baselines)
        }
        for id in changes.deleted {
            guard let object = objectForChild(id), !object.isDeleted else { continue }
            delete(object)
        }
        processPendingChanges()
    }

    /// Sets `slots` of `object` to the child's values in `row`, as changes (undo, inverses,
    /// notifications); derived attributes are the store's to compute.
    private func setChildValues(_ row: Snapshot, slots: [Int], of object: ManagedObject, baselines: [Int: [ObjectID]] = [:]) {
        let layout = object.layout
        for index in slots where layout.isStoredSlot[index] && !layout.derivedSlots.contains(index) {
            switch row.values[index] {
            case .unloaded: continue
            case .null: object.setValue(nil, atSlot: index)
            case .value(let value): object.setValue(value, atSlot: index)
            case .object(let id): object.setValue(objectForChild(id), atSlot: index)
            case .objects(let ids):
                let destinations: [ObjectID]
                if let read = baselines[index] {
                    let ordered = (layout.properties[index] as? RelationshipDescription)?.isOrdered ?? false
                    let current = object.objects(atSlot: index).map(\.objectID)
                    destinations = Self.mergedDestinations(child: ids, read: read, parent: current, ordered: ordered)
                } else {
                    destinations = ids
                }
                object.setValue(destinations.compactMap(objectForChild), atSlot: index)
            }
        }
    }

    /// A to-many relationship after a child's change: the parent's destinations (`parent`) less
    /// those the child removed from what it read (`read`), plus those it added. Ordered, the
    /// child's order holds for the destinations it lists, and the parent's own additions since
    /// the child read follow, in the parent's order.
    static func mergedDestinations(child: [ObjectID], read: [ObjectID], parent: [ObjectID], ordered: Bool) -> [ObjectID] {
        let readSet = Set(read)
        let childSet = Set(child)
        let parentSet = Set(parent)
        let removed = readSet.subtracting(childSet)
        if ordered {
            // The child's list, less what the parent removed meanwhile (what the child read and
            // did not add), then what the parent added meanwhile.
            var result = child.filter { parentSet.contains($0) || !readSet.contains($0) }
            let kept = Set(result)
            result += parent.filter { !readSet.contains($0) && !kept.contains($0) && !removed.contains($0) }
            return result
        }
        var result = parent.filter { !removed.contains($0) }
        let present = Set(result)
        result += child.filter { !readSet.contains($0) && !present.contains($0) }
        return result
    }
}

extension ManagedObject {
    /// The object's stored values as they are now, as a row with every relationship loaded (its
    /// to-many destinations listed): what a child context reads for the object, and what a child
    /// hands its parent when it saves. Transient and fetched properties are not in it.
    func currentRow() -> Snapshot {
        let layout = self.layout
        for index in layout.storedIndexes { completeIfMissing(index) }
        let values = [SnapshotValue](count: layout.kinds.count) { index -> SnapshotValue in
            guard layout.isStoredSlot[index] else { return .unloaded }
            switch layout.kinds[index] {
            case .attribute(let type):
                // An object still reading its row holds the values as a row already.
                if !rowValues.isEmpty { return rowValues[index] }
                guard let slot = slots[index] else { return .null }
                return Self.snapshotValue(of: slot, type)
            case .toOne:
                return toOneObjectID(atSlot: index).map { .object($0) } ?? .null
            case .toMany:
                if !rowValues.isEmpty, case .objects = rowValues[index] { return rowValues[index] }
                switch slots[index] {
                case let storage as ToManyStorage:
                    return .objects(storage.elements.compactMap { $0.isDeleted ? nil : $0.objectID })
                case let pending as PendingToMany:
                    return .objects(pending.objectIDs)
                default:
                    guard let relationship = layout.properties[index] as? RelationshipDescription else { return .unloaded }
                    return .objects(managedObjectContext?.relationshipObjectIDs(relationship, of: self) ?? [])
                }
            case .fetched:
                return .unloaded
            }
        }
        return Snapshot(objectID: objectID, version: committedVersion, values: values, isWhole: true)
    }
}
