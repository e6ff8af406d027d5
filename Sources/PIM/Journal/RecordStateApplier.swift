// Setting records to journaled states, for undo and redo: first check that every record is as
// the change expects (else another command changed it: a conflict), then delete and create
// records, then set every attribute and link, so links to records created in the same step resolve.
import Foundation
import ObjectGraph

/// Brings records from each change's `before` state to its `after` state.
struct RecordStateApplier {
    let store: PIMStore
    var context: ManagedObjectContext { store.context }

    func apply(_ changes: [RecordChange], command: String) throws {
        var records: [UUID: ManagedObject] = [:]
        for change in changes {
            let entity = (change.before ?? change.after)?.entity ?? ""
            let current = try record(uuid: change.uuid, entityName: entity)
            let currentState = current.map { RecordState(of: $0, committed: false).ignoringNumber }
            guard currentState == change.before?.ignoringNumber else {
                throw PIMError.conflict("\(entity) \(change.uuid.uuidString.lowercased()) changed after \"\(command)\"; it cannot be undone or redone")
            }
            if let current { records[change.uuid] = current }
        }
        for change in changes {
            if change.after == nil, let record = records[change.uuid] {
                context.delete(record)
                records[change.uuid] = nil
            } else if let after = change.after, records[change.uuid] == nil {
                records[change.uuid] = context.insertNewObject(forEntityName: after.entity)
            }
        }
        for change in changes {
            guard let after = change.after, let record = records[change.uuid] else { continue }
            try set(record, to: after, known: records)
        }
    }

    /// A journaled value as the attribute's type takes it: the journal keeps every whole number
    /// as an Int64, and an Integer 16 attribute refuses one (as Core Data's does).
    static func typed(_ value: Any?, as type: AttributeType) -> Any? {
        guard let integer = value as? Int64 else { return value }
        switch type {
        case .integer16: return Int16(truncatingIfNeeded: integer)
        case .integer32: return Int32(truncatingIfNeeded: integer)
        case .double: return Double(integer)
        case .float: return Float(integer)
        case .boolean: return integer != 0
        default: return value
        }
    }

    /// Sets every attribute and relationship of `record` as `state` describes.
    func set(_ record: ManagedObject, to state: RecordState, known: [UUID: ManagedObject]) throws {
        for attribute in record.entity.attributesByName.values where !attribute.isTransient {
            record.setValue(Self.typed(state.attributes[attribute.name]?.value, as: attribute.attributeType), forKey: attribute.name)
        }
        for relationship in record.entity.relationshipsByName.values {
            let destination = relationship.destinationEntityName
            guard relationship.isToMany else {
                let target = try state.toOne[relationship.name].flatMap { uuid in try known[uuid] ?? self.record(uuid: uuid, entityName: destination) }
                record.setValue(target, forKey: relationship.name)
                continue
            }
            switch RelationshipRole(relationship) {
            case .record:
                let targets = try (state.toMany[relationship.name] ?? []).compactMap { uuid in
                    try known[uuid] ?? self.record(uuid: uuid, entityName: destination)
                }
                record.setValue(relationship.isOrdered ? OrderedSet(targets) as Any : Set(targets) as Any, forKey: relationship.name)
            case .owned:
                for old in RecordState.objects(record.value(forKey: relationship.name)) { context.delete(old) }
                let values = (state.owned[relationship.name] ?? []).map { attributes in
                    let value = context.insertNewObject(forEntityName: destination)
                    for (key, stored) in attributes { value.setValue(stored.value, forKey: key) }
                    return value
                }
                record.setValue(relationship.isOrdered ? OrderedSet(values) as Any : Set(values) as Any, forKey: relationship.name)
            case .named:
                let values = try (state.named[relationship.name] ?? []).map { name in try namedValue(name, entityName: destination) }
                record.setValue(Set(values), forKey: relationship.name)
            }
        }
    }

    /// The record of an entity (or its sub-entities) with `uuid`, if it exists.
    func record(uuid: UUID, entityName: String) throws -> ManagedObject? {
        guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName] else { return nil }
        var root = entity
        while let parent = root.superentity { root = parent }
        var request = FetchRequest<ManagedObject>(entityName: root.name)
        request.predicate = try ObjectGraph.Predicate(format: "uuid == %@", uuid)
        return try context.fetch(request).first
    }

    /// The named value (a tag) called `name`, made if there is none.
    func namedValue(_ name: String, entityName: String) throws -> ManagedObject {
        var request = FetchRequest<ManagedObject>(entityName: entityName)
        request.predicate = try ObjectGraph.Predicate(format: "name == %@", name)
        if let existing = try context.fetch(request).first { return existing }
        let value = context.insertNewObject(forEntityName: entityName)
        value.setValue(name, forKey: "name")
        return value
    }
}
