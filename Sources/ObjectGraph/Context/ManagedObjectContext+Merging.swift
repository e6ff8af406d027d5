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
                event.refreshed[ObjectIdentifier(object)] = object
            } else {
                refresh(object, mergeChanges: true)
            }
        }
        for id in local.deletedObjectIDs.sorted() {
            guard let object = registry[id]?.object else { continue }
            object.isDeleted = true
            event.deleted[ObjectIdentifier(object)] = object
            unregister(object)
        }
        for id in local.insertedObjectIDs.sorted() {
            if let object = registry[id]?.object { event.inserted[ObjectIdentifier(object)] = object }
        }
        processPendingChanges()
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
