// Faulting: loading an object's values on first access (from the coordinator's row cache, or
// from its store in one request for the whole batch it was fetched with), loading to-many
// relationship faults, and what happens when a fault's row is gone.
import Foundation

/// The IDs of objects fetched together: firing one fault loads the batch window around it.
final class FaultBatch {
    let objectIDs: [ObjectID]
    let size: Int

    init(objectIDs: [ObjectID], size: Int) {
        self.objectIDs = objectIDs
        self.size = max(1, size)
    }

    /// The IDs of the window that holds position `position`.
    func window(around position: Int) -> ArraySlice<ObjectID> {
        let start = position - position % size
        return objectIDs[start..<min(start + size, objectIDs.count)]
    }
}

extension ManagedObjectContext {
    /// Loads `object`'s values (and those of the other faults of its batch).
    func fulfillFault(_ object: ManagedObject) {
        assertOnQueue()
        if let cache = rowCacheReference {
            if stalenessInterval < 0 {
                // A fault fetched with its whole row fills from it while the cache holds nothing
                // newer (only complete rows record a generation).
                if object.committedSnapshotGeneration == cache.with(\.generation), object.hasCommittedSnapshot {
                    fillFromCommittedSnapshot(object)
                    return
                }
                if let snapshot = cache.with({ $0.snapshot(for: object.objectID) }), isComplete(snapshot) {
                    fill(object, with: snapshot, cached: true)
                    return
                }
            } else if stalenessInterval > 0,
                      let snapshot = cache.with({ $0.snapshot(for: object.objectID, readWithin: stalenessInterval) }),
                      isComplete(snapshot) {
                // A row the store gave within the staleness interval (its own fetched row is
                // this one while the generation is the same).
                fill(object, with: snapshot, cached: true)
                return
            }
        }
        do {
            try loadFaults(including: object)
        } catch {
            // A store that fails to read (a damaged file) does not stop the program: the object
            // reads as empty, and the failure is kept for the caller and for the next save.
            if faultingError == nil { faultingError = error }
            emptyValues(of: object)
            return
        }
        if object.isFault { handleInaccessibleFault(object) }
    }

    /// Gives a fault that cannot be filled empty values (nil attributes and to-ones, empty
    /// to-manys), so that reading it answers without touching the store again.
    private func emptyValues(of object: ManagedObject) {
        object.slots = Array(repeating: nil, count: object.layout.properties.count)
        object.changedSlots.removeAll()
        for index in object.layout.relationshipIndexes where (object.layout.properties[index] as? RelationshipDescription)?.isToMany == true {
            object.slots[index] = ToManyStorage()
        }
        object.faulted = false
    }

    /// Whether every stored attribute slot of `snapshot` is loaded (not a partial fetch).
    func isComplete(_ snapshot: Snapshot) -> Bool {
        snapshot.values.withUnsafeBufferPointer { values in
            for index in snapshot.layout.storedAttributeIndexes {
                if case .unloaded = values[index] { return false }
            }
            return true
        }
    }

    /// Fetches the snapshots of `object` and of the still-faulted objects of its batch in one
    /// request per store.
    private func loadFaults(including object: ManagedObject) throws {
        guard persistentStoreCoordinator != nil else { throw ContextError.noStore(entity: object.entity.name) }
        var faults = [object]
        if let batch = object.faultBatch {
            for id in batch.window(around: object.faultBatchPosition) where id != object.objectID {
                if let target = registry[id]?.object, target.isFault { faults.append(target) }
            }
        }
        try fillFaults(faults)
    }

    /// A fault whose row is gone: deleted (``shouldDeleteInaccessibleFaults``) or a failure.
    private func handleInaccessibleFault(_ object: ManagedObject) {
        guard shouldDeleteInaccessibleFaults else {
            preconditionFailure("\(ContextError.inaccessibleFault(object.objectID))")
        }
        emptyValues(of: object)
        object.isDeleted = true
    }

    /// Fills a fault from `snapshot` and calls awakeFromFetch.
    /// The object becomes a user of the row cache's entry (once); `cached` says the snapshot
    /// was just read from the cache, so the entry needs no update.
    func fill(_ object: ManagedObject, with snapshot: Snapshot, cached: Bool = false) {
        let hadSnapshot = object.hasCommittedSnapshot
        object.apply(snapshot)
        object.clearChanges()
        if let cache = storeCoordinator?.rowCache {
            if !hadSnapshot {
                cache.retain(snapshot, fromStore: !cached)
            } else if !cached {
                cache.update([snapshot])
            }
        }
        awakeFromFetch(object)
    }

    /// Fills `object` from the committed snapshot it holds (fetched with it, and the cache's
    /// user of it already), as ``fill(_:with:cached:)`` does.
    func fillFromCommittedSnapshot(_ object: ManagedObject) {
        object.applyCommittedSnapshot()
        object.clearChanges()
        awakeFromFetch(object)
    }

    /// Calls `object`'s awakeFromFetch, with its changes untracked (as in Core Data).
    private func awakeFromFetch(_ object: ManagedObject) {
        object.isAwakingFromFetch = true
        object.awakeFromFetch()
        object.isAwakingFromFetch = false
    }

    /// The current snapshot of `objectID` from its store (not the cache).
    func snapshotFromStore(for objectID: ObjectID) throws -> Snapshot? {
        // A child context's store is its parent.
        if let parent = parentContext { return rowsFromParent([objectID], parent: parent)[0] }
        guard let coordinator = persistentStoreCoordinator, let store = coordinator.store(for: objectID) else {
            throw ContextError.noStore(entity: objectID.entity.name)
        }
        return try coordinator.withStores { try store.snapshots(for: [objectID])[objectID] }
    }

    /// The destinations of a to-many relationship as stored (empty for a new object).
    func storedObjectIDs(_ relationship: RelationshipDescription, of object: ManagedObject) -> [ObjectID]? {
        if let parent = parentContext {
            // What the parent holds: a new object there has destinations too.
            guard let row = rowsFromParent([object.objectID], parent: parent)[0],
                  let index = object.layout.index(of: relationship.name), case .objects(let ids) = row.values[index] else { return [] }
            return ids
        }
        guard !object.objectID.isTemporaryID, let coordinator = persistentStoreCoordinator,
              let store = coordinator.store(for: object.objectID) else { return [] }
        return try? coordinator.withStores { try store.objectIDs(forRelationship: relationship, of: object.objectID) }
    }

    /// Loads a to-many relationship fault: its destinations as (possibly faulted) objects.
    func loadRelationship(_ relationship: RelationshipDescription, of object: ManagedObject) -> [ManagedObject] {
        (storedObjectIDs(relationship, of: object) ?? []).map { self.object(with: $0) }
    }

    /// The IDs of a to-many relationship's destinations without making objects.
    func relationshipObjectIDs(_ relationship: RelationshipDescription, of object: ManagedObject) -> [ObjectID] {
        storedObjectIDs(relationship, of: object) ?? []
    }

    /// For slot `index` of `object`, a to-many relationship it changed, once a newer row is
    /// applied: the destinations stored now, less those the object removed and with those it
    /// added since its baseline (``ToManyStorage/baseline``), in the stored order with additions
    /// after. As Core Data re-applies local changes on top of refreshed values: what another
    /// context added to or removed from the relationship stays. An ordered relationship keeps the
    /// object's own order (a reorder is a change too), each destination added elsewhere after the
    /// one it follows in the stored order. Nil when `local` is no changed to-many storage with a
    /// baseline (the local list then stands whole).
    func mergedToMany(_ local: Any?, slot index: Int, of object: ManagedObject) -> ToManyStorage? {
        guard case .toMany = object.layout.kinds[index], let storage = local as? ToManyStorage,
              let baseline = storage.baseline,
              let relationship = object.layout.properties[index] as? RelationshipDescription else { return nil }
        let stored: [ObjectID]
        if case .objects(let ids) = object.committedValues.count > index ? object.committedValues[index] : .unloaded {
            stored = ids
        } else {
            stored = relationshipObjectIDs(relationship, of: object)
        }
        let mine = storage.elements
        let kept = Set(mine.map(\.objectID))
        let before = Set(baseline)
        var result: OrderedSet<ManagedObject> = []
        if relationship.isOrdered {
            let present = Set(stored)
            let ours = mine.filter { present.contains($0.objectID) || !before.contains($0.objectID) }
            let ourIDs = Set(ours.map(\.objectID))
            // Each destination added elsewhere follows the last of ours before it in the stored
            // order (those before any of ours lead).
            var leading: [ManagedObject] = []
            var following: [ObjectID: [ManagedObject]] = [:]
            var anchor: ObjectID?
            for id in stored {
                if ourIDs.contains(id) {
                    anchor = id
                } else if !before.contains(id) {
                    if let anchor { following[anchor, default: []].append(self.object(with: id)) } else { leading.append(self.object(with: id)) }
                }
            }
            for destination in leading { result.append(destination) }
            for destination in ours {
                result.append(destination)
                for added in following[destination.objectID] ?? [] { result.append(added) }
            }
        } else {
            for id in stored where kept.contains(id) || !before.contains(id) { result.append(self.object(with: id)) }
            for destination in mine where !before.contains(destination.objectID) { result.append(destination) }
        }
        let merged = ToManyStorage(result)
        merged.baseline = stored
        return merged
    }

    /// Merges a newer snapshot into a loaded object; local changes win when `keepingLocalChanges`,
    /// and transient values are kept then too (they are the object's own: a refresh that merges
    /// changes "does not affect any transient properties", as Core Data's does not).
    func merge(_ snapshot: Snapshot, into object: ManagedObject, keepingLocalChanges: Bool) {
        let changed = object.changedSlots
        let local = object.slots
        object.apply(snapshot)
        storeCoordinator?.rowCache.update([snapshot])
        if keepingLocalChanges {
            for index in changed {
                object.slots[index] = mergedToMany(local[index], slot: index, of: object) ?? local[index]
                object.changedSlots[index] = true
            }
            keepTransientValues(local, changed: changed, of: object)
        } else {
            object.clearChanges()
        }
        object.awake(fromSnapshotEvents: .refresh)
    }

    /// After a stored row was applied to `object` (which resets transient slots to their
    /// defaults): its transient values go back to `local`, its slots before, still marked changed
    /// where `changed` says. A transient property has no stored value to merge, so merging stored
    /// values into an object (a merging refresh, a merge policy) leaves it as it was.
    func keepTransientValues(_ local: [Any?], changed: SlotSet, of object: ManagedObject) {
        for index in object.layout.transientSlots {
            object.slots[index] = local[index]
            if changed[index] { object.changedSlots[index] = true }
        }
    }
}

extension ManagedObject {
    /// Loads the object's values now; throws ``ContextError/inaccessibleFault(_:)`` when its row
    /// no longer exists and the context does not delete inaccessible faults.
    public func fulfill() throws {
        guard faulted, let context = managedObjectContext else { return }
        guard let snapshot = try context.snapshotFromStore(for: objectID) else {
            if context.shouldDeleteInaccessibleFaults { context.fulfillFault(self); return }
            throw ContextError.inaccessibleFault(objectID)
        }
        context.fill(self, with: snapshot)
    }
}

extension ManagedObjectContext {
    /// Loads the attributes a partial fetch left out (keeping values changed since). When the row
    /// changed since the partial fetch, its other unchanged attributes take the new row's values
    /// too: the object then agrees with its committed snapshot, which is the new row. A row that
    /// is gone makes the object an inaccessible fault (``shouldDeleteInaccessibleFaults``), as
    /// firing a whole fault does; a store that cannot be read leaves the missing values nil and
    /// keeps the failure (``faultingError``).
    func completePartialObject(_ object: ManagedObject) {
        guard let missing = object.missingSlots else { return }
        object.missingSlots = nil
        let found: Snapshot?
        do {
            found = try snapshotFromStore(for: object.objectID)
        } catch {
            if faultingError == nil { faultingError = error }
            return
        }
        guard let snapshot = found else {
            handleInaccessibleFault(object)
            return
        }
        var reloaded = Set(missing)
        if snapshot.version != object.committedVersion { reloaded.formUnion(object.layout.storedAttributeIndexes) }
        for index in reloaded.sorted() where !object.changedSlots[index] {
            switch snapshot.values[index] {
            case .value(let value): object.slots[index] = value
            case .object(let id): object.slots[index] = id
            default: object.slots[index] = nil
            }
        }
        object.committedSnapshot = snapshot
        storeCoordinator?.rowCache.update([snapshot])
    }
}
