// Merging other contexts' saves: refresh the objects they updated (keeping local changes),
// remove the ones they deleted, and let faults of inserted ones load when touched. Works for
// contexts of the same coordinator and, through URIs, for other coordinators of the same store.
import Foundation

extension ManagedObjectContext {
    /// Brings this context up to date with a save made by another context (its didSave payload).
    public func mergeChanges(fromContextDidSave save: ContextDidSave) {
        assertOnQueue()
        let local = translated(save)
        if let cache = persistentStoreCoordinator?.rowCache {
            cache.invalidate(Array(local.updatedObjectIDs) + Array(local.deletedObjectIDs))
        }
        for id in local.updatedObjectIDs.sorted() {
            guard let object = registry[id]?.object else { continue }
            if object.isFault {
                // A fault read no values to refresh, but may have fetched properties cached.
                if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: ObjectIdentifier(object)) }
                event.refreshed[ObjectKey(object)] = object
            } else {
                refresh(object, mergeChanges: true)
            }
        }
        for id in local.deletedObjectIDs.sorted() {
            guard let object = registry[id]?.object else { continue }
            detachDeletedElsewhere(object)
            object.isDeleted = true
            event.deleted[ObjectKey(object)] = object
            unregister(object)
        }
        for id in local.insertedObjectIDs.sorted() {
            if let object = registry[id]?.object {
                noteInserted(object)
            }
        }
        processPendingChanges()
    }

    /// Removes an object deleted by another context from the relationships of the objects
    /// registered here (so that unsaved references to it do not point at a missing row).
    func detachDeletedElsewhere(_ object: ManagedObject) {
        undoManager?.disableUndoRegistration()
        defer { undoManager?.enableUndoRegistration() }
        if object.isFault {
            // Its values are gone with its row: find who points at it among loaded objects.
            for case let other? in registry.values.map(\.object) where !other.isFault && other !== object {
                for index in other.layout.relationshipIndexes {
                    if let storage = other.slots[index] as? ToManyStorage, storage.objects.contains(object) {
                        other.removePrimitive(object, fromSlot: index)
                    } else if other.slots[index] as? ManagedObject === object
                                || (other.slots[index] as? ObjectID) == object.objectID {
                        other.changePrimitive(slot: index, to: nil)
                        adoptStoredNullification(of: other, slot: index)
                    }
                }
            }
            return
        }
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
        for case let other? in registry.values.map(\.object) where !other.isFault && other !== object {
            for index in other.layout.relationshipIndexes where (other.slots[index] as? ObjectID) == object.objectID {
                other.changePrimitive(slot: index, to: nil)
                adoptStoredNullification(of: other, slot: index)
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
        persistentStoreCoordinator?.rowCache.update([stored])
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
