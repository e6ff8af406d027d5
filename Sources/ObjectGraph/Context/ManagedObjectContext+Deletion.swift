// Delete propagation: when the event ends, each object deleted in it gets prepareForDeletion and
// its relationships' delete rules run: nullify removes it from the inverse side, cascade deletes
// the destinations (through chains and cycles), deny is checked at save, no action does nothing.
// A merge policy that keeps a deleted object after all takes its deletion back whole, with what
// the rules did.

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
              undoManager?.isUndoRegistrationEnabled != true, let cache = storeCoordinator?.rowCache else { return nil }
        // A fault fetched with its whole row holds what the cache holds while nothing newer came.
        if object.committedSnapshotGeneration == cache.generation { return committed }
        guard let cached = cache.snapshot(for: object.objectID),
              layout.storedIndexes.allSatisfy({ cached.values[$0].isLoaded }) else { return nil }
        return cached
    }

    /// Takes back the deletion of `object`, not saved yet, with every deletion that stands or
    /// falls with it, when a merge policy keeps the object after all (its deletion conflicted
    /// with a change saved elsewhere): the deletion and its cascade are one change, never half
    /// written. The objects of ``deletionGroup(of:)`` are deleted no more, and the objects their
    /// nullify rules removed them from hold them again (an ordered relationship at their place
    /// before, as far as its baseline tells).
    ///
    /// New objects the cascade reached left the context when the deletion's event ended and
    /// stay out: they had no row.
    func restoreDeletionWhole(of object: ManagedObject) {
        let group = deletionGroup(of: object)
        for member in group {
            member.isDeleted = false
            deletedByID[ObjectKey(member)] = nil
            if !member.changedSlots.isEmpty { setUpdated(member) }
        }
        for member in group where !member.isFault {
            for index in member.layout.relationshipIndexes {
                let relationship = member.layout.properties[index] as! RelationshipDescription
                guard relationship.deleteRule == .nullify, let inverse = relationship.inverseRelationship else { continue }
                for destination in registeredDestinations(of: member, slot: index)
                where !destination.isDeleted && destination.managedObjectContext === self {
                    relink(member, into: destination, through: inverse, from: relationship)
                }
            }
        }
    }

    /// The deleted objects (of ``deletedByID``) joined to `object` through cascade rules, with
    /// it: those its cascade deleted, the one whose cascade deleted it, and so on through chains.
    /// An object a cascade deleted still points at its source (its own rules change only the
    /// source's side), so the links are found from either side.
    private func deletionGroup(of object: ManagedObject) -> [ManagedObject] {
        var links: [ObjectKey: [ManagedObject]] = [:]
        for member in deletedByID.values where !member.isFault {
            for index in member.layout.relationshipIndexes {
                let relationship = member.layout.properties[index] as! RelationshipDescription
                guard relationship.deleteRule == .cascade || relationship.inverseRelationship?.deleteRule == .cascade else { continue }
                for destination in registeredDestinations(of: member, slot: index) where deletedByID[ObjectKey(destination)] != nil {
                    links[ObjectKey(member), default: []].append(destination)
                    links[ObjectKey(destination), default: []].append(member)
                }
            }
        }
        var group: [ManagedObject] = []
        var seen: Set<ObjectKey> = []
        var next = [object]
        while let member = next.popLast() {
            guard seen.insert(ObjectKey(member)).inserted else { continue }
            group.append(member)
            next += links[ObjectKey(member)] ?? []
        }
        return group
    }

    /// The registered destinations of relationship slot `index` of the loaded `object`, read as
    /// they are: no relationship fault is loaded, no object made.
    func registeredDestinations(of object: ManagedObject, slot index: Int) -> [ManagedObject] {
        switch object.slots[index] {
        case let storage as ToManyStorage: return storage.elements
        case let pending as PendingToMany: return pending.objectIDs.compactMap { registry[$0]?.object }
        case let destination as ManagedObject: return [destination]
        case let id as ObjectID: return registry[id]?.object.map { [$0] } ?? []
        default: return []
        }
    }

    /// Puts `member` back into `destination`'s side `inverse` of relationship `forward`, which
    /// a nullify rule emptied of it: in an ordered relationship, after the destinations that came
    /// before it in the baseline (``ToManyStorage/baseline``), as it was.
    private func relink(_ member: ManagedObject, into destination: ManagedObject, through inverse: RelationshipDescription,
                        from forward: RelationshipDescription) {
        guard inverse.isOrdered, let slot = destination.layout.index(of: inverse.name) else {
            destination.link(member, through: inverse, from: forward)
            return
        }
        destination.fireFaultIfNeeded()
        let storage = destination.toManyStorage(atSlot: slot)
        guard !storage.objects.contains(member) else { return }
        var position: Int?
        if let baseline = storage.baseline, let place = baseline.firstIndex(of: member.objectID) {
            let present = Set(storage.elements.map(\.objectID))
            position = baseline[..<place].filter(present.contains).count
        }
        destination.insertPrimitive(member, inSlot: slot, at: position)
    }
}
