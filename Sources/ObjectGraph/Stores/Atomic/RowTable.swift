// The rows a store keeps in memory, by concrete entity: lookup by object ID, the rows of a set of
// entities in primary-key order, to-many destinations (stored, or found through the inverse
// to-one), key paths through to-one relationships, and the index of uniqueness constraints.
// Not thread-safe: the store that owns a table locks around every use of it.
import Foundation

/// Rows by entity, with the indexes a store held in memory needs.
final class RowTable {
    /// The values one row gives a uniqueness constraint, scoped to the inheritance root (rows of
    /// sibling entities share one key space, as they share one table in SQLite).
    struct UniqueKey: Hashable {
        var root: ObjectIdentifier
        var properties: [String]
        var values: [SnapshotValue]
    }

    /// A uniqueness constraint resolved to slots of one entity's layout.
    private struct Constraint {
        var root: ObjectIdentifier
        var properties: [String]
        var slots: [Int]
    }

    /// Rows by concrete entity, then by object ID.
    private var rowsByEntity: [ObjectIdentifier: [ObjectID: Snapshot]] = [:]
    /// The row holding each constraint key.
    private var uniqueIndex: [UniqueKey: ObjectID] = [:]
    /// Each entity's constraints, resolved on first use.
    private var constraintsByEntity: [ObjectIdentifier: [Constraint]] = [:]

    /// The row of `objectID`, if stored.
    func row(for objectID: ObjectID) -> Snapshot? {
        rowsByEntity[ObjectIdentifier(objectID.entity)]?[objectID]
    }

    /// The rows of `entities`, in primary-key order (the order they were saved in).
    func rows(of entities: [EntityDescription]) -> [Snapshot] {
        var result: [Snapshot] = []
        for entity in entities {
            if let rows = rowsByEntity[ObjectIdentifier(entity)] { result.append(contentsOf: rows.values) }
        }
        result.sort { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        return result
    }

    /// Stores `snapshot`, replacing the row of its object ID if there is one.
    func store(_ snapshot: Snapshot) {
        let id = snapshot.objectID
        if let old = row(for: id) {
            for key in uniqueKeys(of: old) where uniqueIndex[key] == id { uniqueIndex[key] = nil }
        }
        rowsByEntity[ObjectIdentifier(id.entity), default: [:]][id] = snapshot
        for key in uniqueKeys(of: snapshot) { uniqueIndex[key] = id }
    }

    /// Removes the row of `objectID`, if stored.
    func remove(_ objectID: ObjectID) {
        guard let old = rowsByEntity[ObjectIdentifier(objectID.entity)]?.removeValue(forKey: objectID) else { return }
        for key in uniqueKeys(of: old) where uniqueIndex[key] == objectID { uniqueIndex[key] = nil }
    }

    /// Forgets every row.
    func removeAll() {
        rowsByEntity = [:]
        uniqueIndex = [:]
    }

    // MARK: Uniqueness constraints

    /// The keys `snapshot` gives its entity's uniqueness constraints (inherited ones included);
    /// a constraint with a nil value among its properties gives none, since nil never collides.
    func uniqueKeys(of snapshot: Snapshot) -> [UniqueKey] {
        constraints(of: snapshot.objectID.entity).compactMap { constraint in
            let values = constraint.slots.map { snapshot.values[$0] }
            guard values.allSatisfy({ $0 != .null && $0.isLoaded }) else { return nil }
            return UniqueKey(root: constraint.root, properties: constraint.properties, values: values)
        }
    }

    /// The stored row that holds `key`, if any.
    func holder(of key: UniqueKey) -> ObjectID? { uniqueIndex[key] }

    private func constraints(of entity: EntityDescription) -> [Constraint] {
        if let cached = constraintsByEntity[ObjectIdentifier(entity)] { return cached }
        let layout = entity.layout
        let root = ObjectIdentifier(entity.rootEntity)
        let resolved = entity.uniquenessConstraints.compactMap { names -> Constraint? in
            let slots = names.compactMap { layout.index(of: $0) }
            return slots.count == names.count ? Constraint(root: root, properties: names, slots: slots) : nil
        }
        constraintsByEntity[ObjectIdentifier(entity)] = resolved
        return resolved
    }

    // MARK: Relationships

    /// The destinations of the relationship in `slot` of `row`: the stored list, or for a to-many
    /// relationship left unloaded whose inverse is to-one, the rows whose inverse points at `row`.
    func destinations(ofSlot slot: Int, in row: Snapshot) -> [ObjectID] {
        switch row.values[slot] {
        case .objects(let ids): return ids
        case .object(let id): return [id]
        case .null, .value: return []
        case .unloaded:
            guard let relationship = row.layout.properties[slot] as? RelationshipDescription, relationship.isToMany,
                let inverse = relationship.inverseRelationship, !inverse.isToMany,
                let destination = relationship.destinationEntity,
                let inverseSlot = destination.layout.index(of: inverse.name)
            else { return [] }
            let target = SnapshotValue.object(row.objectID)
            return rows(of: destination.selfAndDescendants).filter { $0.values[inverseSlot] == target }.map(\.objectID)
        }
    }

    /// `snapshot` with its stored to-many slots filled (those left unloaded computed from their
    /// inverse), as stores return rows.
    func filled(_ snapshot: Snapshot) -> Snapshot {
        var result = snapshot
        let layout = snapshot.layout
        for slot in layout.relationshipIndexes where !snapshot.values[slot].isLoaded {
            guard let relationship = layout.properties[slot] as? RelationshipDescription,
                relationship.isToMany, relationship.isStored
            else { continue }
            result.values[slot] = .objects(destinations(ofSlot: slot, in: snapshot))
        }
        return result
    }

    /// The stored value at the end of `keyPath` (`name`, `owner.name`) walked through to-one
    /// relationships from `row`: `.null` when a step has no destination, nil when a step is not
    /// a property (the path then needs the evaluator, as `tasks.@count` does).
    func storedValue(atKeyPath keyPath: String, from row: Snapshot) -> SnapshotValue? {
        var current = row
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false)
        for (position, key) in keys.enumerated() {
            guard let slot = current.layout.index(of: String(key)) else { return nil }
            let value = current.values[slot]
            if position == keys.count - 1 {
                if current.layout.properties[slot] is RelationshipDescription, !value.isLoaded {
                    return .objects(destinations(ofSlot: slot, in: current))
                }
                return value
            }
            switch value {
            case .object(let id):
                guard let next = self.row(for: id) else { return .null }
                current = next
            case .null: return .null
            default: return nil
            }
        }
        return nil
    }
}
