// The rows a store keeps in memory, by concrete entity: lookup by object ID, the rows of a set of
// entities in primary-key order, to-many destinations (stored, or found through the inverse
// to-one), key paths through to-one relationships, and the index of uniqueness constraints.
// Not thread-safe: the store that owns a table locks around every use of it.
import Foundation

/// Rows by entity, with the indexes a store held in memory needs.
final class RowTable {
    /// The values one row gives a uniqueness constraint, scoped to the entity that declares the
    /// constraint (the rows of its sub-entities share one key space; sibling entities that each
    /// declare the same constraint do not).
    struct UniqueKey: Hashable {
        var owner: ObjectIdentifier
        var properties: [String]
        var values: [SnapshotValue]
    }

    /// A uniqueness constraint resolved to slots of one entity's layout, with the entity that
    /// declares it (its values are unique among that entity's and its sub-entities' rows).
    fileprivate struct Constraint {
        var owner: ObjectIdentifier
        var properties: [String]
        var slots: [Int]
    }

    /// What the table needs to know of an entity, resolved once.
    struct EntityInfo {
        /// The root of the entity's inheritance tree (primary keys and constraints are unique
        /// within it).
        var root: ObjectIdentifier
        /// The slots of properties that are not stored (transient ones).
        var unstoredSlots: [Int]
        /// The stored to-one relationships whose inverse is a stored to-many relationship, by
        /// slot, with the inverse's name: the lists a save keeps in step with these values.
        var listedToOnes: [(slot: Int, inverse: String)]
        /// The stored to-many relationships whose inverse is a stored to-many relationship
        /// (many-to-many), by slot, with the inverse's name: the lists a deleted row leaves.
        var listedToManys: [(slot: Int, inverse: String)]
        fileprivate var constraints: [Constraint]
    }

    /// The rows of one concrete entity by primary key, with the keys in ascending order so
    /// that reading them in order needs no sort.
    fileprivate struct EntityRows {
        var rows: [Int64: Snapshot] = [:]
        /// Ascending; may still hold keys of removed rows, dropped when they are half the keys.
        var keys: [Int64] = []
        var removedKeys = 0

        /// The rows in primary-key order.
        var ordered: [Snapshot] { keys.compactMap { rows[$0] } }

        mutating func store(_ snapshot: Snapshot, key: Int64) {
            guard rows.updateValue(snapshot, forKey: key) == nil else { return }
            if let last = keys.last, key <= last {
                var low = 0, high = keys.count
                while low < high {
                    let middle = (low + high) / 2
                    if keys[middle] < key { low = middle + 1 } else { high = middle }
                }
                if keys[low] == key { removedKeys -= 1 } else { keys.insert(key, at: low) }
            } else {
                keys.append(key)
            }
        }

        mutating func remove(key: Int64) -> Snapshot? {
            guard let old = rows.removeValue(forKey: key) else { return nil }
            removedKeys += 1
            if removedKeys > keys.count / 2 {
                keys.removeAll { rows[$0] == nil }
                removedKeys = 0
            }
            return old
        }
    }

    /// Rows by concrete entity.
    private var rowsByEntity: [ObjectIdentifier: EntityRows] = [:]
    /// The row holding each constraint key.
    private var uniqueIndex: [UniqueKey: ObjectID] = [:]
    /// Each entity's information, resolved on first use.
    private var infoByEntity: [ObjectIdentifier: EntityInfo] = [:]

    /// The row of `objectID`, if stored.
    func row(for objectID: ObjectID) -> Snapshot? {
        guard let key = objectID.primaryKey else { return nil }
        return rowsByEntity[ObjectIdentifier(objectID.entity)]?.rows[key]
    }

    /// The rows of `entities`, in primary-key order (the order their IDs were handed out in).
    func rows(of entities: [EntityDescription]) -> [Snapshot] {
        let tables = entities.compactMap { rowsByEntity[ObjectIdentifier($0)] }.filter { !$0.rows.isEmpty }
        guard tables.count > 1 else { return tables.first?.ordered ?? [] }
        let keyed = tables.flatMap { table in table.keys.compactMap { key in table.rows[key].map { (key, $0) } } }
        return keyed.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Stores `snapshot` (its ID permanent), replacing the row of its object ID if there is one.
    func store(_ snapshot: Snapshot) {
        let id = snapshot.objectID
        guard let key = id.primaryKey else { return }
        if let old = row(for: id) {
            for uniqueKey in uniqueKeys(of: old) where uniqueIndex[uniqueKey] == id { uniqueIndex[uniqueKey] = nil }
        }
        rowsByEntity[ObjectIdentifier(id.entity), default: EntityRows()].store(snapshot, key: key)
        for uniqueKey in uniqueKeys(of: snapshot) { uniqueIndex[uniqueKey] = id }
    }

    /// Removes the row of `objectID`, if stored.
    func remove(_ objectID: ObjectID) {
        guard let key = objectID.primaryKey,
            let old = rowsByEntity[ObjectIdentifier(objectID.entity)]?.remove(key: key)
        else { return }
        for uniqueKey in uniqueKeys(of: old) where uniqueIndex[uniqueKey] == objectID { uniqueIndex[uniqueKey] = nil }
    }

    /// The table's rows and index as a value: copied in constant time (the collections are
    /// copied on write), so that a store can put them back if writing them out fails.
    struct Contents {
        fileprivate var rowsByEntity: [ObjectIdentifier: EntityRows]
        fileprivate var uniqueIndex: [UniqueKey: ObjectID]
    }

    /// The rows and index now; setting it puts earlier contents back.
    var contents: Contents {
        get { Contents(rowsByEntity: rowsByEntity, uniqueIndex: uniqueIndex) }
        set {
            rowsByEntity = newValue.rowsByEntity
            uniqueIndex = newValue.uniqueIndex
        }
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
        let info = info(for: snapshot.objectID.entity)
        return info.constraints.compactMap { constraint in
            // Strings compare literally, by their UTF-8 bytes, as SQLite's unique index compares
            // them (and NSString's isEqual: "a literal Unicode-based comparison"): Swift's ==
            // would equate canonically equivalent spellings.
            let values = constraint.slots.map { slot -> SnapshotValue in
                if case .value(let text as String) = snapshot.values[slot] { return .value(Data(text.utf8)) }
                return snapshot.values[slot]
            }
            guard values.allSatisfy({ $0 != .null && $0.isLoaded }) else { return nil }
            return UniqueKey(owner: constraint.owner, properties: constraint.properties, values: values)
        }
    }

    /// The stored row that holds `key`, if any.
    func holder(of key: UniqueKey) -> ObjectID? { uniqueIndex[key] }

    /// The entity's root, unstored slots and constraints.
    func info(for entity: EntityDescription) -> EntityInfo {
        if let cached = infoByEntity[ObjectIdentifier(entity)] { return cached }
        let layout = entity.layout
        let constraints = entity.uniquenessConstraints.compactMap { names -> Constraint? in
            let slots = names.compactMap { layout.index(of: $0) }
            guard slots.count == names.count else { return nil }
            return Constraint(owner: ObjectIdentifier(entity.uniquenessConstraintOwner(of: names) ?? entity), properties: names, slots: slots)
        }
        let listedToOnes = layout.properties.indices.compactMap { slot -> (slot: Int, inverse: String)? in
            guard let relationship = layout.properties[slot] as? RelationshipDescription, relationship.isStored, !relationship.isToMany,
                  let inverse = relationship.inverseRelationship, inverse.isStored, inverse.isToMany else { return nil }
            return (slot, inverse.name)
        }
        let listedToManys = layout.properties.indices.compactMap { slot -> (slot: Int, inverse: String)? in
            guard let relationship = layout.properties[slot] as? RelationshipDescription, relationship.isStored, relationship.isToMany,
                  let inverse = relationship.inverseRelationship, inverse.isStored, inverse.isToMany else { return nil }
            return (slot, inverse.name)
        }
        let info = EntityInfo(root: ObjectIdentifier(entity.rootEntity),
                              unstoredSlots: layout.properties.indices.filter { !layout.properties[$0].isStored },
                              listedToOnes: listedToOnes,
                              listedToManys: listedToManys,
                              constraints: constraints)
        infoByEntity[ObjectIdentifier(entity)] = info
        return info
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

    /// `snapshot` with its to-many slots unloaded: the row a store reads out (the lists are read
    /// when the relationship is, through ``destinations(ofSlot:in:)``).
    func withToManysUnloaded(_ snapshot: Snapshot) -> Snapshot {
        let layout = snapshot.layout
        guard layout.hasToManySlots else { return snapshot }
        var result = snapshot
        for slot in layout.relationshipIndexes where (layout.properties[slot] as? RelationshipDescription)?.isToMany == true {
            result.values[slot] = .unloaded
        }
        return result
    }

    /// `snapshot` with its stored to-many slots filled (those left unloaded computed from their
    /// inverse): the row as a save wrote it, to-many lists and all.
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
