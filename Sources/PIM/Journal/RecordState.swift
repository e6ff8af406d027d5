// The whole state of one record as the undo journal keeps it: its attributes, its links to other
// records by UUID, the values it owns (email addresses, phones, postal addresses: cascaded
// destinations without a UUID) in order, and its links to named values (tags) by name.
import Foundation
import ObjectGraph

/// A record's state, before or after a command.
struct RecordState: Codable, Equatable {
    /// The record's entity (Person, Organization, Event...).
    var entity: String
    var attributes: [String: StoredValue]
    /// To-one links to records, by UUID (absent: none).
    var toOne: [String: UUID]
    /// To-many links to records, by UUID (sorted unless the relationship is ordered).
    var toMany: [String: [UUID]]
    /// Owned values, in order, as attribute dictionaries.
    var owned: [String: [[String: StoredValue]]]
    /// Links to named values, by name, sorted.
    var named: [String: [String]]

    /// The state without the short number, which undo may have to change when it restores a
    /// record whose number was reused meanwhile.
    var ignoringNumber: RecordState {
        var state = self
        state.attributes["number"] = nil
        return state
    }
}

/// How each relationship of a record is journaled, decided from the model.
enum RelationshipRole {
    /// To another record (its destination has a `uuid`).
    case record
    /// To values the record owns (cascade, no `uuid`).
    case owned
    /// To shared values named by their `name` (tags).
    case named

    init(_ relationship: RelationshipDescription) {
        let destination = relationship.destinationEntity
        if destination?.attributesByName["uuid"] != nil {
            self = .record
        } else if relationship.deleteRule == .cascade {
            self = .owned
        } else {
            self = .named
        }
    }
}

extension RecordState {
    /// The state of `record`: its current values, or those it was last fetched or saved with.
    init(of record: ManagedObject, committed: Bool) {
        let values: (String) -> Any? = committed
            ? { key in Self.unwrap(record.committedValues(forKeys: [key])[key]) }
            : { key in record.value(forKey: key) }
        entity = record.entity.name
        attributes = [:]
        toOne = [:]
        toMany = [:]
        owned = [:]
        named = [:]
        for attribute in record.entity.attributesByName.values where !attribute.isTransient {
            if let value = StoredValue(values(attribute.name)) { attributes[attribute.name] = value }
        }
        for relationship in record.entity.relationshipsByName.values {
            let role = RelationshipRole(relationship)
            guard relationship.isToMany else {
                if let destination = values(relationship.name) as? ManagedObject, let uuid = destination.value(forKey: "uuid") as? UUID {
                    toOne[relationship.name] = uuid
                }
                continue
            }
            let destinations = Self.objects(values(relationship.name))
            switch role {
            case .record:
                let uuids = destinations.compactMap { $0.value(forKey: "uuid") as? UUID }
                toMany[relationship.name] = relationship.isOrdered ? uuids : uuids.sorted { $0.uuidString < $1.uuidString }
            case .owned:
                owned[relationship.name] = destinations.map { Self.ownedValues(of: $0, committed: committed) }
            case .named:
                named[relationship.name] = destinations.compactMap { $0.value(forKey: "name") as? String }.sorted()
            }
        }
    }

    /// The attributes of an owned value.
    static func ownedValues(of object: ManagedObject, committed: Bool) -> [String: StoredValue] {
        var result: [String: StoredValue] = [:]
        let stored = committed && !object.isInserted ? object.committedValues(forKeys: nil) : [:]
        for attribute in object.entity.attributesByName.values where !attribute.isTransient {
            let value = committed && !object.isInserted ? unwrap(stored[attribute.name]) : object.value(forKey: attribute.name)
            if let value = StoredValue(value) { result[attribute.name] = value }
        }
        return result
    }

    /// The objects of a to-many value (a set or an ordered set), in order.
    static func objects(_ value: Any?) -> [ManagedObject] {
        switch value {
        case let set as Set<ManagedObject>: Array(set)
        case let ordered as OrderedSet<ManagedObject>: Array(ordered)
        case let array as [ManagedObject]: array
        default: []
        }
    }

    static func unwrap(_ value: Any?) -> Any? {
        value is NSNull ? nil : value
    }
}
