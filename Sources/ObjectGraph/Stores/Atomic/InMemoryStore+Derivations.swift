// Derived attributes in the in-memory store: when a save is checked, the store works out which
// rows' derived values the save changes (the saved rows, and the rows that read them through a
// relationship) and computes them on the table as the save leaves it, as the SQLite store's
// triggers do. The values go into the saved rows (so the saving context gets them back) and into
// the other rows concerned, whose versions do not change: a derived value is never a conflict.
import Foundation

extension InMemoryStore {
    /// A derived attribute of a held entity, resolved to slots once, at load.
    struct DerivedAttribute {
        /// How the value is computed, by slot.
        enum Source {
            /// The value of the attribute in `slot` of the row.
            case attribute(slot: Int)
            /// The value of the attribute in `attributeSlot` of the row's to-one destination
            /// (the relationship in `slot`), whose entity is `destination` or one of its descendants.
            case toOne(slot: Int, destination: EntityDescription, attributeSlot: Int)
            /// How many destinations the to-many relationship in `slot` has; rows of
            /// `inverseEntity` hold its inverse in `inverseSlot`.
            case count(slot: Int, inverseEntity: EntityDescription?, inverseSlot: Int?)
            /// The time of the save.
            case now
        }

        /// The entity that declares the attribute (its descendants' rows have it too).
        let entity: EntityDescription
        let slot: Int
        let type: AttributeType
        let source: Source
    }

    /// The derived attributes of `entities`, resolved. Throws for a derivation the store cannot
    /// compute (a model made in code skips the checks a model file gets at load).
    static func derivedAttributes(of entities: [EntityDescription], model: ManagedObjectModel) throws -> [DerivedAttribute] {
        var result: [DerivedAttribute] = []
        for entity in entities {
            let layout = entity.layout
            for case let attribute as AttributeDescription in entity.declaredProperties where attribute.isDerived && attribute.isStored {
                let derivation: Derivation
                do {
                    derivation = try Derivation.of(attribute, in: entity) { model.entitiesByName[$0] }
                } catch {
                    throw StoreError.unsupportedRequest("\(attribute.qualifiedName): \(error.description)")
                }
                guard let slot = layout.index(of: attribute.name) else { continue }
                let source: DerivedAttribute.Source
                switch derivation {
                case .now:
                    source = .now
                case .keyPath(nil, let name):
                    guard let attributeSlot = layout.index(of: name) else { continue }
                    source = .attribute(slot: attributeSlot)
                case .keyPath(let relationshipName?, let name):
                    guard let relationshipSlot = layout.index(of: relationshipName),
                          let destination = (layout.properties[relationshipSlot] as? RelationshipDescription)?.destinationEntity,
                          let attributeSlot = destination.layout.index(of: name) else { continue }
                    source = .toOne(slot: relationshipSlot, destination: destination, attributeSlot: attributeSlot)
                case .count(let relationshipName):
                    guard let relationshipSlot = layout.index(of: relationshipName),
                          let relationship = layout.properties[relationshipSlot] as? RelationshipDescription else { continue }
                    let inverse = relationship.inverseRelationship
                    let inverseEntity = inverse?.entity
                    source = .count(slot: relationshipSlot, inverseEntity: inverseEntity,
                                    inverseSlot: inverse.flatMap { inverseEntity?.layout.index(of: $0.name) })
                }
                result.append(DerivedAttribute(entity: entity, slot: slot, type: attribute.attributeType, source: source))
            }
        }
        return result
    }

    /// `pending` with the derived values it changes: in its inserted, updated and relisted rows,
    /// and in `derived`, the other rows whose derived values change. The values are computed on
    /// the table as the save leaves it: the save is written for the time of the computation and
    /// undone after (the store's lock is held; a prepared save is written only at its commit).
    func derivingValues(of pending: PendingSave) -> PendingSave {
        guard !derivedAttributes.isEmpty else { return pending }
        let replaced = pending.updated.map(\.objectID) + pending.deleted + pending.relisted.map(\.objectID)
        let previous = replaced.compactMap { table.row(for: $0) }
        for id in pending.deleted { table.remove(id) }
        for row in pending.inserted + pending.updated + pending.relisted { table.store(row) }
        let changes = derivedChanges(saved: pending.inserted + pending.updated, previous: previous)
        for row in pending.inserted { table.remove(row.objectID) }
        for row in previous { table.store(row) }
        guard !changes.isEmpty else { return pending }
        var result = pending
        var remaining = changes
        func update(_ rows: inout [Snapshot]) {
            for index in rows.indices {
                guard let values = remaining.removeValue(forKey: rows[index].objectID) else { continue }
                for (slot, value) in values { rows[index].values[slot] = value }
            }
        }
        update(&result.inserted)
        update(&result.updated)
        update(&result.relisted)
        for (id, values) in remaining.sorted(by: { $0.key < $1.key }) {
            guard var row = table.row(for: id) else { continue }
            for (slot, value) in values { row.values[slot] = value }
            result.derived.append(row)
        }
        return result
    }

    /// The derived values that differ from the stored ones, by row, once `saved` rows are written
    /// (`previous`: the rows they replaced or deleted, as they were). The rows concerned: the saved
    /// rows themselves, the rows whose to-one destination was saved or deleted, and the rows a
    /// saved or deleted row was counted in (through the inverse, before and after).
    private func derivedChanges(saved: [Snapshot], previous: [Snapshot]) -> [ObjectID: [(slot: Int, value: SnapshotValue)]] {
        let now = Date()
        var concerned: [ObjectID: [Int]] = [:]
        func note(_ id: ObjectID, _ attribute: Int) {
            if concerned[id]?.contains(attribute) != true { concerned[id, default: []].append(attribute) }
        }
        for (index, derived) in derivedAttributes.enumerated() {
            for row in saved where row.objectID.entity.isKind(of: derived.entity) { note(row.objectID, index) }
            switch derived.source {
            case .attribute, .now:
                break
            case .toOne(let slot, let destination, _):
                let changed = Set((saved + previous).map(\.objectID).filter { $0.entity.isKind(of: destination) })
                guard !changed.isEmpty else { break }
                for row in table.rows(of: derived.entity.selfAndDescendants) {
                    if case .object(let id) = row.values[slot], changed.contains(id) { note(row.objectID, index) }
                }
            case .count(_, let inverseEntity?, let inverseSlot?):
                for row in saved + previous where row.objectID.entity.isKind(of: inverseEntity) {
                    let owners: [ObjectID]
                    switch row.values[inverseSlot] {
                    case .object(let id): owners = [id]
                    case .objects(let ids): owners = ids
                    default: owners = []
                    }
                    for id in owners where id.entity.isKind(of: derived.entity) { note(id, index) }
                }
            case .count(let slot, _, _):
                // No inverse leads from a destination to the rows counting it: a deleted
                // destination (it left their lists) recounts every row of the entity.
                guard let destination = (derived.entity.layout.properties[slot] as? RelationshipDescription)?.destinationEntity else { break }
                let savedIDs = Set(saved.map(\.objectID))
                guard previous.contains(where: { $0.objectID.entity.isKind(of: destination) && !savedIDs.contains($0.objectID) }) else { break }
                for row in table.rows(of: derived.entity.selfAndDescendants) { note(row.objectID, index) }
            }
        }
        var changes: [ObjectID: [(slot: Int, value: SnapshotValue)]] = [:]
        for (id, attributes) in concerned {
            guard let row = table.row(for: id) else { continue }
            for index in attributes {
                let derived = derivedAttributes[index]
                let value = derivedValue(derived, of: row, now: now)
                if value != row.values[derived.slot] { changes[id, default: []].append((derived.slot, value)) }
            }
        }
        // A row whose derived values change is updated, as SQLite's triggers update it: its
        // `now()` attributes take the time too.
        let savedIDs = Set(saved.map(\.objectID))
        for (id, changed) in changes where !savedIDs.contains(id) {
            for derived in derivedAttributes where id.entity.isKind(of: derived.entity) {
                guard case .now = derived.source, !changed.contains(where: { $0.slot == derived.slot }) else { continue }
                changes[id, default: []].append((derived.slot, .value(now)))
            }
        }
        return changes
    }

    /// The value of `derived` for `row`, from the table as it is.
    private func derivedValue(_ derived: DerivedAttribute, of row: Snapshot, now: Date) -> SnapshotValue {
        switch derived.source {
        case .attribute(let slot):
            return row.values[slot]
        case .toOne(let slot, _, let attributeSlot):
            guard case .object(let id) = row.values[slot], let destination = table.row(for: id) else { return .null }
            return destination.values[attributeSlot]
        case .count(let slot, _, _):
            let count = table.destinations(ofSlot: slot, in: row).filter { table.row(for: $0) != nil }.count
            return .value(AttributeValueParser.coerce(count, to: derived.type))
        case .now:
            return .value(now)
        }
    }
}
