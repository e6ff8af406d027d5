// What a command does, under the writer lock, about the pim runs that saved since it read the
// store (pim(1) EXIT STATUS 5: "only a change to the same records is a conflict"). Records it
// changed only as the other side of a link (a contact a new task is assigned to, a tag a task
// joins), and records whose own fields nobody else changed (another run only linked a subtask
// or a task to them), are read again with its changes kept on top, so that both runs save; a
// tag or group it made is folded into the one another run made meanwhile under the same name.
// A record whose own fields another run changed keeps the version this one read: the save is
// a conflict.
import Foundation
import ObjectGraph

extension PIMStore {
    /// Brings the command's pending changes up to date with the store; called holding the
    /// writer lock, before numbers are given and the journal is written.
    func catchUpWithOtherRuns() throws {
        var probe: ManagedObjectContext?
        for object in context.updatedObjects where !object.isDeleted {
            guard try Self.changesOnlyToManyLinks(object) || ownFieldsAreAsRead(object, probe: &probe) else { continue }
            context.refresh(object, mergeChanges: true)
        }
        for object in context.insertedObjects where !object.isDeleted {
            guard let twin = try storedTwin(of: object) else { continue }
            fold(object, into: twin)
        }
        context.processPendingChanges()
    }

    /// The record `record` stands for now: a group or tag the command made that was folded into
    /// the one another run had saved under its name (``catchUpWithOtherRuns()``), else itself.
    public func survivor(of record: ManagedObject) -> ManagedObject {
        folded[ObjectIdentifier(record)] ?? record
    }

    /// Whether every change of `object` is to a to-many relationship: the other side of a link
    /// made or broken from a record the command did change.
    private static func changesOnlyToManyLinks(_ object: ManagedObject) -> Bool {
        let relationships = object.entity.relationshipsByName
        return object.changedValues().keys.allSatisfy { relationships[$0]?.isToMany == true }
    }

    /// Whether the stored row of the record `object` still holds the fields this run read: its
    /// attributes (but `modified`, which linking stamps), its to-one links, the values it owns
    /// and its tags. Another run may have changed only its links to other records (a subtask, a
    /// task assigned to a contact). Read in a context of its own (`probe`, made once), which
    /// reads the store, not the row this run cached.
    private func ownFieldsAreAsRead(_ object: ManagedObject, probe: inout ManagedObjectContext?) throws -> Bool {
        guard RecordKind(entity: object.entity) != nil, !object.objectID.isTemporaryID else { return false }
        let reader = probe ?? {
            let reader = ManagedObjectContext(concurrencyType: .mainQueue)
            reader.persistentStoreCoordinator = context.persistentStoreCoordinator
            reader.stalenessInterval = 0
            return reader
        }()
        probe = reader
        guard let stored = try? reader.existingObject(with: object.objectID) else { return false }
        func fields(_ state: RecordState) -> RecordState {
            var state = state
            state.attributes["modified"] = nil
            state.toMany = [:]
            return state
        }
        return fields(RecordState(of: stored, committed: true)) == fields(RecordState(of: object, committed: true))
    }

    /// The stored tag or group with the name of the new `object`, when another run saved one
    /// since this one looked (tags by their exact name, as their uniqueness constraint has it;
    /// groups ignoring case, as ``group(named:)`` finds them).
    private func storedTwin(of object: ManagedObject) throws -> ManagedObject? {
        let format: String
        switch object.entity.name {
        case "Tag": format = "name == %@"
        case "Group": format = "name ==[c] %@"
        default: return nil
        }
        guard let name = object.value(forKey: "name") as? String else { return nil }
        var request = FetchRequest<ManagedObject>(entityName: object.entity.name)
        request.predicate = try ObjectGraph.Predicate(format: format, name)
        request.includesPendingChanges = false
        if object.entity.name == "Group" { request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "number")] }
        return try context.fetch(request).first { $0 !== object && !$0.isDeleted }
    }

    /// Moves the links of the new `duplicate` to `twin` and deletes it: nothing of it is saved.
    private func fold(_ duplicate: ManagedObject, into twin: ManagedObject) {
        for relationship in duplicate.entity.relationshipsByName.values {
            let key = relationship.name
            if relationship.isToMany {
                let destinations = RecordState.objects(duplicate.value(forKey: key))
                guard !destinations.isEmpty else { continue }
                let kept = RecordState.objects(twin.value(forKey: key))
                let merged = kept + destinations.filter { destination in !kept.contains { $0 === destination } }
                duplicate.setValue(relationship.isOrdered ? OrderedSet<ManagedObject>() as Any : Set<ManagedObject>() as Any, forKey: key)
                twin.setValue(relationship.isOrdered ? OrderedSet(merged) as Any : Set(merged) as Any, forKey: key)
            } else if let destination = duplicate.value(forKey: key) as? ManagedObject {
                duplicate.setValue(nil, forKey: key)
                if twin.value(forKey: key) == nil { twin.setValue(destination, forKey: key) }
            }
        }
        context.delete(duplicate)
        folded[ObjectIdentifier(duplicate)] = twin
    }
}
