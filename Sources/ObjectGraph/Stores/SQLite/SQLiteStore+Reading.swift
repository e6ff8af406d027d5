// Reading rows of the SQLite store: snapshots of many objects in one statement per table (batch
// faulting), and the destinations of to-many relationships (through the inverse's foreign key
// or a join table, in order for ordered ones).
import Foundation

extension SQLiteStore {
    /// The current rows of `objectIDs`, one statement per table whatever their number; IDs with
    /// no row (deleted meanwhile) are left out. To-many slots are unloaded: ask
    /// ``objectIDs(forRelationship:of:)`` for them.
    public func snapshots(for objectIDs: [ObjectID]) throws -> [ObjectID: Snapshot] {
        try lock.withLock { try storedSnapshots(for: objectIDs) }
    }

    public func snapshotsInOrder(for objectIDs: [ObjectID]) throws -> [Snapshot?] {
        try lock.withLock {
            if let rows = try consecutiveSnapshots(for: objectIDs) { return rows }
            var snapshots = try storedSnapshots(for: objectIDs)
            // One fault (the usual case outside batches): its row moves out, not copied.
            if objectIDs.count == 1 { return [snapshots.removeValue(forKey: objectIDs[0])] }
            return objectIDs.map { snapshots[$0] }
        }
    }

    /// The rows of `objectIDs` in their order when they are rows of one entity with consecutive
    /// keys in order (a batch of faults of a batched fetch in key order): one range scan, each
    /// row put at its key's place, with no map by ID. Nil for any other IDs.
    private func consecutiveSnapshots(for objectIDs: [ObjectID]) throws -> [Snapshot?]? {
        guard objectIDs.count > 1, let first = objectIDs.first, first.storeTag == storeTag, let firstKey = first.primaryKey,
              schema.holds(first.entity) else { return nil }
        let entity = ObjectIdentifier(first.entity)
        // Keys `firstKey, firstKey + 1, …`, the last not past the end of Int64.
        guard firstKey <= Int64.max - Int64(objectIDs.count - 1) else { return nil }
        for (offset, id) in objectIDs.enumerated() {
            guard ObjectIdentifier(id.entity) == entity, id.storeTag == storeTag,
                  id.primaryKey == firstKey + Int64(offset) else { return nil }
        }
        let storeTag = self.storeTag
        let reader = reader(for: first.entity)
        let (selection, arguments) = try reader.selection(from: firstKey, through: firstKey + Int64(objectIDs.count - 1),
                                                          on: connection)
        var rows = [Snapshot?](repeating: nil, count: objectIDs.count)
        try connection.forEachRow(selection, arguments) { statement in
            // A row of another entity of the table (a sub-entity) is not the ID's row.
            guard reader.entityNumber == statement.int64(1) else { return }
            let index = statement.int64(0) &- firstKey
            guard index >= 0, index < Int64(rows.count) else { return }
            rows[Int(index)] = try reader.snapshot(statement, storeTag: storeTag)
        }
        return rows
    }

    /// The rows of one table a read asks for: their keys, and the entity of each (nearly always
    /// one for all, so a map from key to entity is made only once a second entity appears).
    private struct WantedRows {
        var keys: [Int64]
        /// The first ID's entity: every key's while `entities` is nil.
        let entity: EntityDescription
        var entities: [Int64: EntityDescription]?

        mutating func append(_ key: Int64, of entity: EntityDescription) {
            if entities == nil, entity !== self.entity {
                entities = Dictionary(keys.map { ($0, self.entity) }, uniquingKeysWith: { _, last in last })
            }
            keys.append(key)
            entities?[key] = entity
        }
    }

    /// `snapshots(for:)` with the lock held.
    func storedSnapshots(for objectIDs: [ObjectID]) throws -> [ObjectID: Snapshot] {
        let storeTag = self.storeTag
        var wanted: [ObjectIdentifier: WantedRows] = [:]
        // IDs come in runs of one entity: each run looks its entity's table up once.
        var run: (entity: EntityDescription, root: ObjectIdentifier)?
        for id in objectIDs {
            guard id.storeTag == storeTag, let key = id.primaryKey else { throw StoreError.foreignObjectID(id) }
            if id.entity !== run?.entity {
                guard schema.holds(id.entity) else { throw unheld(id.entity) }
                run = (id.entity, ObjectIdentifier(schema.table(of: id.entity).root))
            }
            if wanted[run!.root] == nil {
                wanted[run!.root] = WantedRows(keys: [key], entity: id.entity)
            } else {
                wanted[run!.root]!.append(key, of: id.entity)
            }
        }
        var result = [ObjectID: Snapshot](minimumCapacity: objectIDs.count)
        for rows in wanted.values {
            var reader = reader(for: rows.entity)
            let (selection, arguments) = try reader.selection(of: rows.keys, on: connection)
            try connection.forEachRow(selection, arguments) { statement in
                let entity = rows.entities?[statement.int64(0)] ?? rows.entity
                if entity !== reader.entity { reader = self.reader(for: entity) }
                guard reader.entityNumber == statement.int64(1) else { return }
                let snapshot = try reader.snapshot(statement, storeTag: storeTag)
                result[snapshot.objectID] = snapshot
            }
        }
        return result
    }

    /// The destinations of `relationship` of `objectID`'s row, in order for an ordered one and
    /// by primary key otherwise. Empty when there is no such row, or the relationship is not one
    /// of its entity's.
    public func objectIDs(forRelationship relationship: RelationshipDescription, of objectID: ObjectID) throws -> [ObjectID] {
        try lock.withLock {
            guard objectID.storeTag == storeTag, let key = objectID.primaryKey else { throw StoreError.foreignObjectID(objectID) }
            guard schema.holds(objectID.entity) else { throw unheld(objectID.entity) }
            let layout = objectID.entity.layout
            guard let slot = layout.index(of: relationship.name), layout.properties[slot] === relationship,
                  let sql = destinationQuery(relationship, owners: "= ?") else { return [] }
            return try destinations(sql, [.integer(key)])
        }
    }

    /// The destinations of `relationship` for each of `objectIDs`, with one query for them all
    /// (prefetching): each owner's as ``objectIDs(forRelationship:of:)-(_,ObjectID)`` gives them,
    /// empty for an owner with none or no row.
    public func objectIDs(forRelationship relationship: RelationshipDescription, of objectIDs: [ObjectID]) throws -> [ObjectID: [ObjectID]] {
        try lock.withLock {
            var owners: [Int64: ObjectID] = [:]
            owners.reserveCapacity(objectIDs.count)
            var checked: Set<ObjectIdentifier> = []
            for id in objectIDs {
                guard id.storeTag == storeTag, let key = id.primaryKey else { throw StoreError.foreignObjectID(id) }
                if checked.insert(ObjectIdentifier(id.entity)).inserted {
                    guard schema.holds(id.entity) else { throw unheld(id.entity) }
                    let layout = id.entity.layout
                    guard let slot = layout.index(of: relationship.name), layout.properties[slot] === relationship else {
                        throw StoreError.unsupportedRequest("\(id.entity.name) has no relationship \(relationship.qualifiedName)")
                    }
                }
                owners[key] = id
            }
            var result: [ObjectID: [ObjectID]] = [:]
            for id in objectIDs { result[id] = [] }
            guard !owners.isEmpty,
                  let sql = destinationQuery(relationship, owners: "IN (SELECT value FROM json_each(?))", selectingOwner: true) else { return result }
            let storeTag = self.storeTag
            let entitiesByNumber = schema.entitiesByNumber
            try connection.forEachRow(sql, [Self.jsonArray(owners.keys)]) { statement in
                guard let owner = owners[statement.int64(0)], let entity = entitiesByNumber[statement.int64(2)] else { return }
                result[owner, default: []].append(ObjectID(entity: entity, storeTag: storeTag, primaryKey: statement.int64(1)))
            }
            return result
        }
    }

    /// The SQL selecting `Z_PK, Z_ENT` of the destinations of `relationship` of the rows whose key
    /// meets `owners` (`= ?`, `IN (...)`), in order for an ordered relationship and by key
    /// otherwise; nil when the destination is not in this store. With `selectingOwner`, the
    /// owner's key comes first in each row, and the rows go by owner first.
    func destinationQuery(_ relationship: RelationshipDescription, owners: String, selectingOwner: Bool = false) -> String? {
        guard let destination = relationship.destinationEntity, schema.holds(destination), let source = relationship.entity,
              schema.holds(source) else { return nil }
        let q = SQLiteSchema.quoted
        let target = schema.table(of: destination)
        switch schema.storage(of: relationship) {
        case .inverseForeignKey(let inverse)?:
            guard case .foreignKey(let column, _, let order)? = schema.storage(of: inverse) else { return nil }
            let owner = selectingOwner ? q(column) + ", " : ""
            return "SELECT \(owner)Z_PK, Z_ENT FROM \(q(target.name)) WHERE \(q(column)) \(owners) ORDER BY \(owner)"
                + (order.map { q($0) + ", " } ?? "") + "Z_PK"
        case .joinTable(let join, let reversed)?:
            let ownerColumn = reversed ? join.destinationColumn : join.sourceColumn
            let member = reversed ? join.sourceColumn : join.destinationColumn
            let order = reversed ? join.sourceOrderColumn : join.destinationOrderColumn
            let owner = selectingOwner ? "j." + q(ownerColumn) + ", " : ""
            return "SELECT \(owner)t.Z_PK, t.Z_ENT FROM \(q(join.name)) j JOIN \(q(target.name)) t ON t.Z_PK = j.\(q(member)) "
                + "WHERE j.\(q(ownerColumn)) \(owners) ORDER BY \(owner)" + (order.map { "j." + q($0) + ", " } ?? "") + "t.Z_PK"
        case .foreignKey(let column, _, _)?:
            let table = schema.table(of: source)
            let owner = selectingOwner ? "s.Z_PK, " : ""
            return "SELECT \(owner)t.Z_PK, t.Z_ENT FROM \(q(table.name)) s JOIN \(q(target.name)) t ON t.Z_PK = s.\(q(column)) WHERE s.Z_PK \(owners)"
        case .attribute?, nil:
            return nil
        }
    }

    /// The object IDs a destination query selects.
    func destinations(_ sql: String, _ arguments: [SQLiteValue]) throws -> [ObjectID] {
        let storeTag = self.storeTag
        let entitiesByNumber = schema.entitiesByNumber
        // Rows mostly come in runs of one entity: its number is looked up once per run.
        var last: (number: Int64, entity: EntityDescription)?
        var result: [ObjectID] = []
        try connection.forEachRow(sql, arguments) { statement in
            let number = statement.int64(1)
            if last?.number != number {
                guard let entity = entitiesByNumber[number] else { return }
                last = (number, entity)
            }
            result.append(ObjectID(entity: last!.entity, storeTag: storeTag, primaryKey: statement.int64(0)))
        }
        return result
    }

    /// The reader of `entity`'s rows.
    func reader(for entity: EntityDescription) -> SQLiteRowReader {
        if let reader = readers[ObjectIdentifier(entity)] { return reader }
        let reader = SQLiteRowReader(entity: entity, schema: schema, external: externalData)
        readers[ObjectIdentifier(entity)] = reader
        return reader
    }

    /// Keys as one JSON array bound to `json_each(?)`: one cached statement for any number of keys.
    /// The digits are written straight into one buffer (batch requests list every row they touch).
    static func jsonArray<S: Sequence>(_ keys: S) -> SQLiteValue where S.Element == Int64 {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(keys.underestimatedCount * 8 + 2)
        for key in keys {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            if key < 0 { bytes.append(UInt8(ascii: "-")) }
            var rest = key.magnitude
            var unit: UInt64 = 1
            while unit <= rest / 10 { unit *= 10 }
            repeat {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / unit))
                rest %= unit
                unit /= 10
            } while unit > 0
        }
        bytes.append(UInt8(ascii: "]"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }
}
