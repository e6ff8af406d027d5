// Merging other contexts' saves: refresh the objects they updated (keeping local changes, with
// their inverses), delete the ones they deleted (with the new objects their cascade rules reach
// here), and fault in the ones they inserted. Works for contexts of the same coordinator and,
// through URIs, for other coordinators of the same store.
import Foundation

extension ManagedObjectContext {
    /// Brings this context up to date with a save made by another context (its didSave payload),
    /// as Core Data's merge "refreshes any objects which have been updated in the other context,
    /// faults in any newly-inserted objects, and invokes delete(_:) on those which have been
    /// deleted":
    ///
    /// - an updated object is refreshed, its unsaved changes kept on top of the stored values
    ///   (``refresh(_:mergeChanges:)``); where the stored values now disagree with a kept change
    ///   of a to-one relationship, the stored destination lets the object go and the local one
    ///   holds it, so that both sides of the relationship show the context's pending change;
    /// - a deleted object leaves the context and the relationships of the objects here; the new
    ///   objects this context linked to it follow it where its cascade rules say so, as they
    ///   would have had the context deleted it;
    /// - an inserted object is registered (a fault) and reported inserted to objectsDidChange.
    ///
    /// ```swift
    /// let token = writer.observe { note in
    ///     if case .didSave(let payload, _) = note { reader.perform { reader.mergeChanges(fromContextDidSave: payload) } }
    /// }
    /// ```
    public func mergeChanges(fromContextDidSave save: ContextDidSave) {
        assertOnQueue()
        // The context's own pending changes (a delete's cascade, say) end their event first,
        // recorded for undo as the user's; the merge's changes are not.
        processPendingChanges()
        let local = translated(save)
        if let cache = storeCoordinator?.rowCache {
            cache.invalidate(Array(local.updatedObjectIDs) + Array(local.deletedObjectIDs))
        }
        var changedObjects: [(object: ManagedObject, committed: [SnapshotValue])] = []
        for id in local.updatedObjectIDs.sorted() {
            guard let object = registry[id]?.object else { continue }
            if object.isFault {
                // A fault read no values to refresh, but may have fetched properties cached.
                if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: ObjectIdentifier(object)) }
                event.refreshed[ObjectKey(object)] = object
            } else {
                if object.hasChanges { changedObjects.append((object, object.committedValues)) }
                refresh(object, mergeChanges: true)
            }
        }
        var cascaded: [ManagedObject] = []
        var deletedObjects: [ManagedObject] = []
        for id in local.deletedObjectIDs.sorted() {
            guard let object = registry[id]?.object else { continue }
            cascaded += newCascadeDestinations(of: object)
            detachFromDestinations(object)
            deletedObjects.append(object)
        }
        // Rows deleted there that no object here stands for (never accessed, or a batch delete's)
        // may still be held by ID in the objects here.
        detachHolders(of: local.deletedObjectIDs, objects: deletedObjects)
        for object in deletedObjects {
            object.isDeleted = true
            event.deleted[ObjectKey(object)] = object
            unregister(object)
        }
        var faultedIn: [ManagedObject] = []
        for id in local.insertedObjectIDs.sorted() {
            if let object = registry[id]?.object {
                noteInserted(object)
            } else {
                let object = self.object(with: id)
                faultedIn.append(object)
                noteInserted(object)
            }
        }
        // What the merge changes here is not the user's to undo (as detachDeletedElsewhere's is not).
        undoManager?.disableUndoRegistration()
        for (object, committed) in changedObjects {
            keepInversesOfPendingToOnes(of: object, committedBefore: committed, deletedThere: local.deletedObjectIDs)
        }
        for object in cascaded where object.managedObjectContext === self { delete(object) }
        processPendingChanges()
        undoManager?.enableUndoRegistration()
        mergedInsertions = faultedIn
        postMerged(local)
    }

    /// The new objects `object`, deleted elsewhere, takes with it by its cascade rules in this
    /// context, as they would have gone had the context deleted it: linked to it here, they have
    /// no row, and saved without it they would be the orphans its cascade rule forbids. Saved
    /// destinations are left to the store's cascade (those it deleted are in the same save) and,
    /// if linked to the object here since, only lose it (``detachDeletedElsewhere(_:)``).
    func newCascadeDestinations(of object: ManagedObject) -> [ManagedObject] {
        guard !object.isFault else { return [] }
        var result: [ManagedObject] = []
        for index in object.layout.relationshipIndexes {
            guard (object.layout.properties[index] as? RelationshipDescription)?.deleteRule == .cascade else { continue }
            result += registeredDestinations(of: object, slot: index).filter { $0.isInserted && !$0.isDeleted }
        }
        return result
    }

    /// After a merge refreshed `object` keeping its unsaved changes (its committed values were
    /// `committedBefore`): for each changed to-one relationship whose stored destination the
    /// merge changed to another than the local one, the stored destination (which loads its side
    /// from the store, where the object is) lets the object go, and the local one holds it. The
    /// context's pending change wins, and the two sides agree.
    private func keepInversesOfPendingToOnes(of object: ManagedObject, committedBefore: [SnapshotValue], deletedThere: Set<ObjectID>) {
        guard object.managedObjectContext === self, !object.isFault, !object.isDeleted else { return }
        let committed = object.committedValues
        for index in object.changedSlots {
            guard case .toOne = object.layout.kinds[index], index < committed.count, index < committedBefore.count,
                  committed[index] != committedBefore[index], case .object(let storedID) = committed[index],
                  storedID != object.toOneObjectID(atSlot: index), !deletedThere.contains(storedID),
                  let relationship = object.layout.properties[index] as? RelationshipDescription,
                  let inverse = relationship.inverseRelationship else { continue }
            let stored = self.object(with: storedID)
            if !stored.isDeleted { stored.unlink(object, through: inverse) }
            object.toOneObject(atSlot: index)?.link(object, through: inverse, from: relationship)
        }
    }

    /// Removes an object deleted by another context from the relationships of the objects
    /// registered here (so that unsaved references to it do not point at a missing row).
    func detachDeletedElsewhere(_ object: ManagedObject) {
        detachFromDestinations(object)
        detachHolders(of: [object.objectID], objects: [object])
    }

    /// The destinations `object` (deleted elsewhere) holds let it go: the other sides of the
    /// relationships it has loaded. A fault holds none: its values are gone with its row.
    private func detachFromDestinations(_ object: ManagedObject) {
        guard !object.isFault else { return }
        undoManager?.disableUndoRegistration()
        defer { undoManager?.enableUndoRegistration() }
        for index in object.layout.relationshipIndexes {
            guard let relationship = object.layout.properties[index] as? RelationshipDescription,
                  let inverse = relationship.inverseRelationship else { continue }
            let destinations: [ManagedObject]
            if relationship.isToMany {
                destinations = (object.slots[index] as? ToManyStorage)?.objects.elements ?? []
            } else {
                destinations = (object.slots[index] as? ManagedObject).map { [$0] } ?? []
            }
            for destination in destinations where !destination.isFault {
                destination.unlink(object, through: inverse)
                if !inverse.isToMany, let slot = destination.layout.index(of: inverse.name) {
                    adoptStoredNullification(of: destination, slot: slot)
                }
            }
        }
    }

    /// The loaded objects registered here let go of the rows `deleted` elsewhere that they still
    /// hold, which their destinations could not tell them of (unloaded relationships, faults, or
    /// rows with no object here): a to-one holding one, as an object or an ID, becomes nil and
    /// takes the store's nullification; a to-many drops those of `objects` (the registered ones
    /// among them; only registered objects are members of to-many relationships). One pass over
    /// the registry whatever the number of rows.
    private func detachHolders(of deleted: Set<ObjectID>, objects: [ManagedObject]) {
        guard !deleted.isEmpty else { return }
        undoManager?.disableUndoRegistration()
        defer { undoManager?.enableUndoRegistration() }
        for case let other? in registry.values.map(\.object) where !other.isFault && !deleted.contains(other.objectID) {
            for index in other.layout.relationshipIndexes {
                switch other.slots[index] {
                case let storage as ToManyStorage:
                    for object in objects where storage.objects.contains(object) { other.removePrimitive(object, fromSlot: index) }
                case let destination as ManagedObject where deleted.contains(destination.objectID):
                    other.changePrimitive(slot: index, to: nil)
                    adoptStoredNullification(of: other, slot: index)
                case let id as ObjectID where deleted.contains(id):
                    other.changePrimitive(slot: index, to: nil)
                    adoptStoredNullification(of: other, slot: index)
                default:
                    break
                }
            }
        }
    }

    /// After a merged deletion cleared to-one `slot` of `holder`: when the store cleared it too
    /// (a delete's nullify rule, which raises the row's version), the holder takes the stored row
    /// as its committed one, so that saving it is no conflict with a change it already has. Only
    /// when the stored row differs from the holder's committed one in that slot alone: any other
    /// difference is another writer's change, which the save must still meet as a conflict.
    private func adoptStoredNullification(of holder: ManagedObject, slot: Int) {
        guard holder.hasCommittedSnapshot, !holder.objectID.isTemporaryID, !holder.isDeleted,
              let stored = try? snapshotFromStore(for: holder.objectID),
              stored.version > holder.committedVersion, stored.values.count == holder.committedValues.count,
              case .null = stored.values[slot] else { return }
        let committed = holder.committedValues
        for index in stored.values.indices where index != slot && committed[index].isLoaded && stored.values[index].isLoaded {
            if committed[index] != stored.values[index] { return }
        }
        holder.setCommittedSnapshot(stored)
        storeCoordinator?.rowCache.update([stored])
    }

    /// Merges a save made elsewhere (another coordinator or process) into each context, on its queue.
    public static func mergeChanges(fromRemoteContextSave save: ContextDidSave, into contexts: [ManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeChanges(fromContextDidSave: save) }
        }
    }

    /// The payload with IDs of another coordinator's model turned into this coordinator's IDs.
    private func translated(_ save: ContextDidSave) -> ContextDidSave {
        guard let coordinator = persistentStoreCoordinator else { return save }
        func local(_ ids: Set<ObjectID>) -> Set<ObjectID> {
            Set(ids.compactMap { id in
                if coordinator.managedObjectModel.entitiesByName[id.entity.name] === id.entity { return id }
                return coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation)
            })
        }
        var result = save
        result.insertedObjectIDs = local(save.insertedObjectIDs)
        result.updatedObjectIDs = local(save.updatedObjectIDs)
        result.deletedObjectIDs = local(save.deletedObjectIDs)
        return result
    }
}
