// Lightweight migration of rows in memory, as Core Data migrates its atomic (XML and binary)
// stores: every object of the source model's rows becomes a row of the destination model under
// the same number (so its URI keeps its number), its attributes taken from the source attributes
// an inferred mapping names (an integer widened; a new attribute at its default), its
// relationships from the source relationships, minus destinations whose entity the new model
// drops. The store then saves the rows as new ones, which checks uniqueness and computes derived
// attributes, and writes its file whole: a migration that fails leaves the file as it was.
import Foundation

struct RowMigration {
    /// The rows as the file holds them, of the source model's entities.
    let source: [Snapshot]
    let mapping: MappingModel
    /// The destination model's concrete entities the store holds.
    let destinationEntities: [EntityDescription]
    /// The tag the new rows' IDs carry.
    let storeTag: StoreTag
    /// The store file, for messages.
    let path: String

    private func failure(_ reason: String) -> MigrationError {
        MigrationError(.migration, reason, path: path)
    }

    /// What a migration gives the store: the destination rows, in the source's order, and the
    /// derived attributes whose stored values were carried over, by entity, which the store keeps
    /// as they were (as the SQLite store's migration does) instead of computing them again.
    struct Result {
        var rows: [Snapshot]
        var carriedDerivedSlots: [ObjectIdentifier: [Int]]
    }

    /// The destination rows; throws ``MigrationError`` naming the entity and property when
    /// objects lack a value the new model requires, are of an entity it makes abstract or leaves
    /// out of the store's configuration, or list several destinations of a relationship it makes
    /// to-one.
    func run() throws -> Result {
        let held = Dictionary(destinationEntities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let model = destinationEntities.first?.model
        // The destination entity of each source entity the mapping carries objects into.
        var destinationOf: [String: EntityDescription] = [:]
        var abstract: [String: EntityDescription] = [:]
        // Entities the new model keeps in another configuration than the store's.
        var elsewhere: [String: EntityDescription] = [:]
        for entityMapping in mapping.entityMappings where entityMapping.mappingType == .copy || entityMapping.mappingType == .transform {
            guard let sourceName = entityMapping.sourceEntityName, let name = entityMapping.destinationEntityName else { continue }
            if let entity = held[name] {
                destinationOf[sourceName] = entity
            } else if let entity = model?.entitiesByName[name] {
                if entity.isAbstract {
                    abstract[sourceName] = entity
                } else {
                    elsewhere[sourceName] = entity
                }
            }
        }
        // New IDs by the source rows' numbers (one sequence for every entity in an atomic store).
        var newIDs: [ObjectID: ObjectID] = [:]
        for row in source {
            let name = row.objectID.entity.name
            if let entity = abstract[name] {
                let count = source.lazy.filter { $0.objectID.entity.name == name }.count
                throw failure("entity \(entity.name) is abstract in the new model, but the store holds \(count) of its objects")
            }
            if let entity = elsewhere[name] {
                let count = source.lazy.filter { $0.objectID.entity.name == name }.count
                throw failure("entity \(entity.name) is not in the store's configuration in the new model, but the store holds \(count) of its objects")
            }
            guard let entity = destinationOf[name], let number = row.objectID.primaryKey else { continue }
            newIDs[row.objectID] = ObjectID(entity: entity, storeTag: storeTag, primaryKey: number)
        }
        var rows: [Snapshot] = []
        rows.reserveCapacity(newIDs.count)
        var newRelationships: Set<SlotOfEntity> = []
        var carriedDerived: [ObjectIdentifier: [Int]] = [:]
        for row in source {
            guard let id = newIDs[row.objectID] else { continue }
            let values = try values(of: row, as: id, newIDs: newIDs, newRelationships: &newRelationships, carriedDerived: &carriedDerived)
            rows.append(Snapshot(objectID: id, version: 1, values: values))
        }
        fillNewInverses(of: &rows, newRelationships: newRelationships)
        try checkRequiredValues(of: rows)
        return Result(rows: rows, carriedDerivedSlots: carriedDerived)
    }

    /// A relationship of an entity of the new model, by slot.
    private struct SlotOfEntity: Hashable {
        var entity: ObjectIdentifier
        var slot: Int
    }

    /// Fills the relationships the new model adds as inverses of ones it keeps (a one-way
    /// relationship given an inverse) from the kept side, as the SQLite store's keys do.
    private func fillNewInverses(of rows: inout [Snapshot], newRelationships: Set<SlotOfEntity>) {
        guard !newRelationships.isEmpty else { return }
        let index = Dictionary(rows.indices.map { (rows[$0].objectID, $0) }, uniquingKeysWith: { first, _ in first })
        for position in rows.indices {
            let row = rows[position]
            let layout = row.layout
            for slot in layout.relationshipIndexes where layout.isStoredSlot[slot] {
                guard let relationship = layout.properties[slot] as? RelationshipDescription,
                      let inverse = relationship.inverseRelationship else { continue }
                let destinations: [ObjectID]
                switch row.values[slot] {
                case .object(let id): destinations = [id]
                case .objects(let ids): destinations = ids
                default: continue
                }
                for destination in destinations {
                    guard let target = index[destination], let inverseSlot = rows[target].layout.index(of: inverse.name),
                          newRelationships.contains(SlotOfEntity(entity: ObjectIdentifier(rows[target].objectID.entity), slot: inverseSlot)) else { continue }
                    switch rows[target].values[inverseSlot] {
                    case .objects(let ids) where !ids.contains(row.objectID):
                        rows[target].values[inverseSlot] = .objects(ids + [row.objectID])
                    case .null:
                        rows[target].values[inverseSlot] = .object(row.objectID)
                    default:
                        break
                    }
                }
            }
        }
    }

    /// Throws naming the property and count when objects lack a value the new model requires.
    private func checkRequiredValues(of rows: [Snapshot]) throws {
        var missing: [String: (property: PropertyDescription, count: Int)] = [:]
        for row in rows {
            let values = row.values
            let layout = row.layout
            for slot in layout.kinds.indices where layout.isStoredSlot[slot] {
                let property = layout.properties[slot]
                guard !property.isOptional, !(property is AttributeDescription && (property as? AttributeDescription)?.isDerived == true) else { continue }
                let empty: Bool
                switch values[slot] {
                case .null: empty = true
                case .objects(let ids): empty = ids.isEmpty && property is RelationshipDescription && (property as? RelationshipDescription)?.minCount ?? 0 > 0
                default: empty = false
                }
                if empty { missing[property.qualifiedName, default: (property, 0)].count += 1 }
            }
        }
        if let (name, (property, count)) = missing.min(by: { $0.key < $1.key }) {
            let what = property is AttributeDescription ? "has no default value" : "is a relationship"
            let entity = property.entity?.name ?? name
            throw failure("\(name) is required in the new model and \(what), but \(count) \(entity) object\(count == 1 ? " has" : "s have") no value for it in the store")
        }
    }

    /// The values of the source `row` as a row of `id`'s entity.
    private func values(of row: Snapshot, as id: ObjectID, newIDs: [ObjectID: ObjectID], newRelationships: inout Set<SlotOfEntity>,
                        carriedDerived: inout [ObjectIdentifier: [Int]]) throws -> [SnapshotValue] {
        let layout = id.entity.layout
        let sourceLayout = row.layout
        let entityMapping = mapping.entityMapping(forDestinationEntityNamed: id.entity.name)
        let sourceNames = Dictionary(((entityMapping?.attributeMappings ?? []) + (entityMapping?.relationshipMappings ?? [])).map { ($0.name, $0.sourceName) },
                                     uniquingKeysWith: { first, _ in first })
        var values = [SnapshotValue](repeating: .null, count: layout.kinds.count)
        for slot in layout.kinds.indices {
            guard layout.isStoredSlot[slot] else {
                values[slot] = .unloaded
                continue
            }
            let property = layout.properties[slot]
            let sourceSlot = (sourceNames[property.name] ?? nil).flatMap { sourceLayout.index(of: $0) }
            let old = sourceSlot.map { row.values[$0] }
            switch property {
            case let attribute as AttributeDescription:
                var value = SnapshotValue.null
                if let old, let sourceSlot, let oldAttribute = sourceLayout.properties[sourceSlot] as? AttributeDescription {
                    value = try carried(old, from: oldAttribute, to: attribute)
                }
                if case .null = value, let defaultValue = attribute.defaultValue { value = .value(defaultValue) }
                values[slot] = value
                if attribute.isDerived, sourceSlot != nil, carriedDerived[ObjectIdentifier(id.entity)]?.contains(slot) != true {
                    carriedDerived[ObjectIdentifier(id.entity), default: []].append(slot)
                }
            case let relationship as RelationshipDescription:
                var destinations: [ObjectID] = []
                switch old {
                case .object(let destination)?: destinations = newIDs[destination].map { [$0] } ?? []
                case .objects(let ids)?: destinations = ids.compactMap { newIDs[$0] }
                default: if sourceSlot == nil { newRelationships.insert(SlotOfEntity(entity: ObjectIdentifier(id.entity), slot: slot)) }
                }
                if relationship.isToMany {
                    values[slot] = .objects(destinations)
                } else {
                    guard destinations.count <= 1 else {
                        throw failure("\(relationship.qualifiedName) is to-one in the new model, but \(row.objectID.entity.name) \(row.objectID.primaryKey ?? 0) has \(destinations.count) objects in it")
                    }
                    values[slot] = destinations.first.map { .object($0) } ?? .null
                }
            default:
                values[slot] = .unloaded
            }
        }
        return values
    }

    /// A value of `old` as a value of `new`: the same when the types are, else through the stored
    /// form (an integer widened).
    private func carried(_ value: SnapshotValue, from old: AttributeDescription, to new: AttributeDescription) throws -> SnapshotValue {
        guard case .value(let stored) = value else { return .null }
        if old.attributeType == new.attributeType { return value }
        do {
            return try SQLiteValueCoding.decode(SQLiteValueCoding.encode(stored, of: old), of: new)
        } catch {
            throw failure("\(new.qualifiedName): \(error)")
        }
    }
}
