// Delete propagation: when the event ends, each object deleted in it gets prepareForDeletion and
// its relationships' delete rules run: nullify removes it from the inverse side, cascade deletes
// the destinations (through chains and cycles), deny is checked at save, no action does nothing.

extension ManagedObjectContext {
    /// Runs the delete rules of `object`, deleted in the event that ends.
    ///
    /// An object refreshed (``refresh(_:mergeChanges:)`` with `mergeChanges` false) in the event
    /// of its deletion is a fault again: the refresh discards its changed values, not its
    /// deletion, as when the event ended before the refresh. Its rules then follow the
    /// relationships it has as saved, which it loads first.
    func propagateDeletion(of object: ManagedObject) {
        if object.isFault && !object.layout.relationshipIndexes.isEmpty { object.fireFaultIfNeeded() }
        object.prepareForDeletion()
        for index in object.layout.relationshipIndexes {
            let relationship = object.layout.properties[index] as! RelationshipDescription
            let destinations = relationship.isToMany ? object.toManyStorage(atSlot: index).objects.elements
                : object.toOneObject(atSlot: index).map { [$0] } ?? []
            switch relationship.deleteRule {
            case .nullify:
                guard let inverse = relationship.inverseRelationship else { continue }
                for destination in destinations where !destination.isDeleted { destination.unlink(object, through: inverse) }
            case .cascade:
                for destination in destinations where !destination.isDeleted { delete(destination) }
            case .deny, .noAction:
                continue
            }
        }
    }

    /// The cached row of the fault `object` when it can be deleted without firing (as Core Data
    /// deletes faults): its entity has no relationships for delete rules to follow, no undo
    /// manager records the deletion (undoing a saved one needs the values), and the row cache,
    /// which the fault uses, holds all of its row (so firing would not reach the store either).
    func cachedRowDeletableAsFault(_ object: ManagedObject) -> Snapshot? {
        let layout = object.layout
        guard layout.relationshipIndexes.isEmpty, let committed = object.committedSnapshot,
              undoManager?.isUndoRegistrationEnabled != true, let cache = persistentStoreCoordinator?.rowCache else { return nil }
        // A fault fetched with its whole row holds what the cache holds while nothing newer came.
        if object.committedSnapshotGeneration == cache.generation { return committed }
        guard let cached = cache.snapshot(for: object.objectID),
              layout.storedIndexes.allSatisfy({ cached.values[$0].isLoaded }) else { return nil }
        return cached
    }
}
