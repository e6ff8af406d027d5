// Turning a context's pending changes into journal record changes, before the save: every record
// inserted, updated or deleted, and the owners of every owned value (an edited email address is a
// change of its contact), with their committed and current states.
import Foundation
import ObjectGraph

/// Describes the pending changes of a store's context as record changes.
struct JournalRecorder {
    let store: PIMStore

    /// The records the pending changes touch, each with its state before and after.
    func changes() -> [RecordChange] {
        touchedRecords().compactMap { record -> RecordChange? in
            guard let uuid = (record.value(forKey: "uuid") ?? record.committedValues(forKeys: ["uuid"])["uuid"]) as? UUID else { return nil }
            let before = record.isInserted ? nil : RecordState(of: record, committed: true)
            let after = record.isDeleted ? nil : RecordState(of: record, committed: false)
            guard before != after else { return nil }
            return RecordChange(uuid: uuid, before: before, after: after)
        }
        .sorted { $0.uuid.uuidString < $1.uuid.uuidString }
    }

    /// The records that the context's inserted, updated and deleted objects stand for.
    func touchedRecords() -> [ManagedObject] {
        let context = store.context
        var touched: [ObjectIdentifier: ManagedObject] = [:]
        for object in context.insertedObjects.union(context.updatedObjects).union(context.deletedObjects) {
            for record in records(touchedBy: object) { touched[ObjectIdentifier(record)] = record }
        }
        return Array(touched.values)
    }

    /// The records a changed object stands for: itself if it is a record, the owners of an owned
    /// value (now and before the change), none for named values and journal entries.
    func records(touchedBy object: ManagedObject) -> [ManagedObject] {
        if RecordKind(entity: object.entity) != nil { return [object] }
        var owners: [ManagedObject] = []
        for relationship in object.entity.relationshipsByName.values where !relationship.isToMany {
            guard let inverse = relationship.inverseRelationship, RelationshipRole(inverse) == .owned else { continue }
            if let owner = object.value(forKey: relationship.name) as? ManagedObject { owners.append(owner) }
            if !object.isInserted, let owner = object.committedValues(forKeys: [relationship.name])[relationship.name] as? ManagedObject {
                owners.append(owner)
            }
        }
        return owners
    }
}
