// Batch requests on the SQLite store, each one transaction over rows, no objects: an update is
// one UPDATE over the rows a translated predicate selects; a delete selects its rows, follows the
// delete rules level by level (cascade adds rows, deny refuses, nullify clears the inverse's
// foreign keys), then deletes and cleans join tables and external files; an insert turns its
// dictionaries into rows and saves them as a save would (rows that collide with stored ones on
// a uniqueness constraint updating them or dropped, as its merge policy says). Results name the
// rows touched, so callers can refresh the contexts that hold them.
import Foundation

extension SQLiteStore {
    // MARK: Update

    /// Sets the request's properties on every matching row with one UPDATE; versions go up by
    /// one. Throws naming a property that cannot be set this way (to-many relationships, values
    /// that are not constants, nil for a required attribute, data stored in external files).
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        try execute(request, rehearsing: false)
    }

    /// Runs `request` and rolls it back (see ``rehearse(_:)-(BatchDeleteRequest)``).
    func rehearse(_ request: BatchUpdateRequest) throws {
        _ = try execute(request, rehearsing: true)
    }

    private func execute(_ request: BatchUpdateRequest, rehearsing: Bool) throws -> BatchResult {
        try checkWritable("a batch update")
        return try lock.withLock {
            let entity = request.entity
            guard schema.holds(entity) else { throw unheld(entity) }
            let q = SQLiteSchema.quoted
            let translator = SQLitePredicateTranslator(schema: schema, storeTag: storeTag, entity: entity)
            var assignments: [String] = []
            for (name, expression) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
                guard let property = entity.propertiesByName[name] else {
                    throw StoreError.unsupportedRequest("batch update: \(entity.name) has no property \(name)")
                }
                guard case .constant(let constant) = expression else {
                    assignments.append(try computedAssignment(expression, to: property, translator: translator))
                    continue
                }
                for (column, value) in try batchValues(constant, for: property) {
                    assignments.append("\(q(column)) = \(translator.bind(value))")
                }
            }
            guard !assignments.isEmpty else { throw StoreError.unsupportedRequest("batch update of \(entity.name): no properties to update") }
            var conditions: [String] = []
            if let numbers = schema.entityNumbers(of: entity, subentities: request.includesSubentities) {
                conditions.append("t0.Z_ENT IN (" + numbers.map(String.init).joined(separator: ", ") + ")")
            }
            if let predicate = request.predicate { conditions.append(try translator.condition(predicate)) }
            let table = q(schema.table(of: entity).name)
            let selection = "SELECT t0.Z_PK FROM \(table) t0" + translator.root.joins.map { " " + $0 }.joined()
                + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            // The updated row is `t0`, as in the selection, for values computed from it.
            let sql = "UPDATE \(table) AS t0 SET Z_OPT = Z_OPT + 1, " + assignments.joined(separator: ", ")
                + " WHERE Z_PK IN (\(selection)) RETURNING Z_PK, Z_ENT"
            guard let ids = try transaction(rehearsing: rehearsing, {
                do {
                    return try destinations(sql, translator.arguments)
                } catch let error as SQLiteError where error.isUniqueViolation {
                    throw try uniquenessViolation(entity, setting: request.propertiesToUpdate) ?? error
                }
            }) else { return .status(true) }
            return BatchResult(request.resultType, ids)
        }
    }

    /// `column = value` for a value computed from the row being updated (`t0`): its own
    /// attributes, constants and arithmetic (`count + 1`, `due + 86400`, another attribute),
    /// translated as predicates translate them, cast to the attribute's storage. Key paths
    /// through relationships are refused (the UPDATE has no joins), and so is a value of another
    /// kind than the attribute's (text into a number). As in Core Data, the value is not
    /// validated: an integer too wide for a 16-bit attribute is written whole.
    private func computedAssignment(_ expression: Expression, to property: PropertyDescription,
                                    translator: SQLitePredicateTranslator) throws -> String {
        let what = "batch update of \(property.qualifiedName) to \(expression.expressionFormat)"
        guard case .attribute(let column, let attribute)? = schema.storage(of: property) else {
            throw StoreError.unsupportedRequest("\(what): only attributes take computed values")
        }
        guard !attribute.allowsExternalBinaryDataStorage else {
            throw StoreError.unsupportedRequest("\(what): values that may be stored in external files are set through saves")
        }
        let joins = translator.root.joins.count
        let operand = try translator.operand(expression)
        guard translator.root.joins.count == joins else {
            throw StoreError.unsupportedRequest("\(what): a computed value reads the row's own attributes, not key paths through relationships")
        }
        guard case .value(let sql, let kind) = operand else {
            throw StoreError.unsupportedRequest("\(what): only attributes, constants and arithmetic are computed in the store")
        }
        let fits: Bool
        switch (kind, SQLitePredicateTranslator.kind(of: attribute)) {
        case (.number, .number), (.decimal, .decimal), (.string, .string), (.date, .date): fits = true
        case (.other(let source), .other(let target)): fits = source.attributeType == target.attributeType
        default: fits = false
        }
        guard fits else { throw StoreError.unsupportedRequest("\(what): the value is not of \(attribute.attributeType.rawValue)") }
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64, .boolean: return "\(SQLiteSchema.quoted(column)) = CAST(\(sql) AS INTEGER)"
        case .double, .float: return "\(SQLiteSchema.quoted(column)) = CAST(\(sql) AS REAL)"
        default: return "\(SQLiteSchema.quoted(column)) = \(sql)"
        }
    }

    /// The columns and stored values that setting `property` to `constant` writes.
    private func batchValues(_ constant: ConstantValue, for property: PropertyDescription) throws -> [(String, SQLiteValue)] {
        let isNil = constant == .null || constant == .nullObject
        if isNil && !property.isOptional {
            throw StoreError.unsupportedRequest("batch update of \(property.qualifiedName): it is required and cannot be set to nil")
        }
        switch schema.storage(of: property) {
        case .attribute(let column, let attribute)?:
            guard !attribute.allowsExternalBinaryDataStorage else {
                throw StoreError.unsupportedRequest("batch update of \(property.qualifiedName): values that may be stored in external files are set through saves")
            }
            guard !isNil else { return [(column, .null)] }
            guard let value = constant.anyValue.flatMap(StorableValues.modelValue) else {
                throw StoreError.unsupportedRequest("batch update of \(property.qualifiedName): \(constant) cannot be stored")
            }
            return [(column, try SQLiteValueCoding.encode(try batchValue(value, for: attribute, in: "batch update"), of: attribute))]
        case .foreignKey(let column, let entityColumn, let orderColumn)?:
            // The row's place in its new owner's ordered list is unknown: it goes first.
            var values: [(String, SQLiteValue)] = orderColumn.map { [($0, .null)] } ?? []
            if isNil {
                values.append((column, .null))
                if let entityColumn { values.append((entityColumn, .null)) }
                return values
            }
            guard case .opaque(let opaque) = constant, let id = opaque.value as? ObjectID, id.storeTag == storeTag,
                  let key = id.primaryKey, let destination = (property as? RelationshipDescription)?.destinationEntity,
                  id.entity.isKind(of: destination) else {
                throw StoreError.unsupportedRequest("batch update of \(property.qualifiedName): \(constant) is not an object of this store it can point to")
            }
            values.append((column, .integer(key)))
            if let entityColumn { values.append((entityColumn, .integer(schema.number(of: id.entity)))) }
            return values
        default:
            throw StoreError.unsupportedRequest("batch update of \(property.qualifiedName): only attributes and to-one relationships can be set")
        }
    }

    /// `value` taken as `attribute`'s type, refusing an integer the type cannot hold: batch
    /// requests skip validation, and SQLite would keep the whole number in a column that reads
    /// back narrowed. `operation` names the request in the error.
    private func batchValue(_ value: ModelValue, for attribute: AttributeDescription, in operation: String) throws -> ModelValue {
        let coerced = AttributeValueParser.coerce(value, to: attribute.attributeType)
        guard let integer = coerced as? any BinaryInteger else { return coerced }
        let fits: Bool
        switch attribute.attributeType {
        case .integer16: fits = Int16(exactly: integer) != nil
        case .integer32: fits = Int32(exactly: integer) != nil
        case .integer64: fits = Int64(exactly: integer) != nil
        default: fits = true
        }
        guard fits else {
            throw StoreError.unsupportedRequest("\(operation) of \(attribute.qualifiedName): \(integer) does not fit \(attribute.attributeType.rawValue)")
        }
        return coerced
    }

    /// The violation a batch update of `values` causes: the first constraint of `entity` whose
    /// properties it sets, with the rows that hold those values.
    private func uniquenessViolation(_ entity: EntityDescription, setting values: [String: Expression]) throws -> StoreError? {
        for names in entity.uniquenessConstraints where names.contains(where: { values[$0] != nil }) {
            let stored = try names.map { name -> SQLiteValue in
                guard case .constant(let constant)? = values[name], let property = entity.propertiesByName[name] else { return .null }
                return try batchValues(constant, for: property).first?.1 ?? .null
            }
            let holders = stored.contains(.null) ? [] : try storedHolders(of: names, values: stored, in: entity)
            return StoreError.uniquenessViolation(entity: entity.name, properties: names, objectIDs: holders)
        }
        return nil
    }

    // MARK: Delete

    /// Deletes every matching row and applies the delete rules of their relationships: cascade
    /// deletes the destinations too (and so on), nullify clears the foreign keys that pointed at
    /// the deleted rows, deny refuses the whole request while a destination would survive.
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        try execute(request, rehearsing: false)
    }

    /// Runs `request` and rolls it back: throws what running it would throw, and changes
    /// nothing. A context rehearses a request in each of several stores before it runs it in
    /// any, so that one store's refusal (a deny rule, say) leaves the others as they were.
    func rehearse(_ request: BatchDeleteRequest) throws {
        _ = try execute(request, rehearsing: true)
    }

    /// Thrown inside a rehearsal's transaction to roll it back.
    private struct Rehearsed: Error {}

    /// `body`'s result in a write transaction, committed; when `rehearsing`, rolled back once
    /// `body` has run (nil: it would have succeeded).
    private func transaction<T>(rehearsing: Bool, _ body: () throws -> T) throws -> T? {
        do {
            return try connection.transaction {
                let result = try body()
                if rehearsing { throw Rehearsed() }
                return result
            }
        } catch is Rehearsed {
            return nil
        }
    }

    private func execute(_ request: BatchDeleteRequest, rehearsing: Bool) throws -> BatchResult {
        try checkWritable("a batch delete")
        if request.deletesNothing { return BatchResult(request.resultType, []) }
        let request = try request.resolved(in: model)
        return try lock.withLock {
            guard schema.holds(request.entity) else { throw unheld(request.entity) }
            if let table = wholeTable(deletedBy: request) {
                // Nothing refuses emptying a table of a writable store.
                if rehearsing { return .status(true) }
                // Every row of the table goes and nothing else needs their keys: one statement,
                // which SQLite runs as a truncation.
                let count = try connection.transaction { () -> Int in
                    try connection.execute("DELETE FROM \(SQLiteSchema.quoted(table))")
                    return connection.changes
                }
                return request.resultType == .count ? .count(count) : .status(true)
            }
            externalFilesReplaced = []
            guard let deleted = try transaction(rehearsing: rehearsing, { () -> [ObjectID] in
                var fetch = StoreFetchRequest(entity: request.entity)
                fetch.predicate = request.predicate
                fetch.includesSubentities = request.includesSubentities
                fetch.sortDescriptors = request.sortDescriptors
                fetch.fetchLimit = request.fetchLimit
                fetch.fetchOffset = request.fetchOffset
                fetch.resultType = .objectIDs
                let statement = try fetchStatement(for: fetch)
                let matched = try destinations(statement.sql, statement.arguments)
                let candidates = request.includesSubentities ? request.entity.selfAndDescendants : [request.entity]
                var rows = matched
                if candidates.contains(where: { plan(for: $0).followsDeleteRules }) {
                    let denied: [(RelationshipDescription, ObjectID)]
                    (rows, denied) = try rowsReachedByDeleteRules(from: matched)
                    if let (relationship, holder) = denied.first(where: { !rows.contains($0.1) }) {
                        throw StoreError.unsupportedRequest(
                            "batch delete refused: \(relationship.qualifiedName) has the deny rule and \(holder) would be left pointing at a deleted object")
                    }
                }
                try delete(rows)
                return rows
            }) else {
                externalFilesReplaced = []
                return .status(true)
            }
            externalData.remove(externalFilesReplaced)
            return BatchResult(request.resultType, deleted)
        }
    }

    /// The table `request` empties, when it deletes all of its rows and no one needs their
    /// keys: no predicate, every entity stored in the table deleted, no result of object IDs, and
    /// no delete rule, join table or external file that would have to follow the rows.
    private func wholeTable(deletedBy request: BatchDeleteRequest) -> String? {
        guard request.predicate == nil, request.fetchLimit == 0, request.fetchOffset == 0, request.resultType != .objectIDs,
              schema.entityNumbers(of: request.entity, subentities: request.includesSubentities) == nil else { return nil }
        let candidates = request.includesSubentities ? request.entity.selfAndDescendants : [request.entity]
        guard !candidates.contains(where: { plan(for: $0).followsDeleteRules || plan(for: $0).cleansUpOnDelete }) else { return nil }
        return schema.table(of: request.entity).name
    }

    /// `matched` and the rows cascade rules reach from them, in the order reached; and the
    /// destinations that deny rules protect (relationship, destination).
    private func rowsReachedByDeleteRules(from matched: [ObjectID]) throws -> (rows: [ObjectID], denied: [(RelationshipDescription, ObjectID)]) {
        var rows: [ObjectID] = []
        var seen: Set<ObjectID> = []
        var denied: [(RelationshipDescription, ObjectID)] = []
        var level = matched
        while !level.isEmpty {
            let fresh = level.filter { seen.insert($0).inserted }
            rows += fresh
            var next: [ObjectID] = []
            for (_, ids) in Dictionary(grouping: fresh, by: { ObjectIdentifier($0.entity) }) {
                let keys = Self.jsonArray(ids.map { $0.primaryKey! })
                for relationship in ids[0].entity.relationships where relationship.isStored {
                    guard relationship.deleteRule == .cascade || relationship.deleteRule == .deny,
                          let sql = destinationQuery(relationship, owners: "IN (SELECT value FROM json_each(?))") else { continue }
                    let reached = try destinations(sql, [keys])
                    if relationship.deleteRule == .cascade { next += reached } else { denied += reached.map { (relationship, $0) } }
                }
            }
            level = next
        }
        return (rows, denied)
    }

    /// Deletes `rows`: foreign keys of nullify rules cleared (the rows that held them change
    /// version), external files noted for removal, join-table rows removed, then the rows.
    private func delete(_ rows: [ObjectID]) throws {
        let q = SQLiteSchema.quoted
        let storeTag = self.storeTag
        var keysByEntity: [ObjectIdentifier: (entity: EntityDescription, keys: [Int64])] = [:]
        for id in rows { keysByEntity[ObjectIdentifier(id.entity), default: (id.entity, [])].keys.append(id.primaryKey!) }
        var keysByRoot: [ObjectIdentifier: [Int64]] = [:]
        for (entity, keys) in keysByEntity.values { keysByRoot[ObjectIdentifier(schema.table(of: entity).root), default: []] += keys }
        let jsonByRoot = keysByRoot.mapValues { Self.jsonArray($0) }
        for (entity, entityKeys) in keysByEntity.values {
            let plan = plan(for: entity)
            guard plan.cleansUpOnDelete else { continue }
            let keys = Self.jsonArray(entityKeys)
            for relationship in entity.relationships where relationship.isStored && relationship.deleteRule == .nullify {
                guard let inverse = relationship.inverseRelationship, !inverse.isToMany, let destination = relationship.destinationEntity,
                      schema.holds(destination), case .foreignKey(let column, let entityColumn, let order)? = schema.storage(of: inverse) else { continue }
                let table = schema.table(of: destination)
                let cleared = ([column] + [entityColumn, order].compactMap { $0 }).map { "\(q($0)) = NULL" }.joined(separator: ", ")
                try connection.execute("UPDATE \(q(table.name)) SET Z_OPT = Z_OPT + 1, \(cleared) WHERE \(q(column)) IN (SELECT value FROM json_each(?1))"
                                       + " AND Z_PK NOT IN (SELECT value FROM json_each(?2))",
                                       [keys, jsonByRoot[ObjectIdentifier(table.root)] ?? .text("[]")])
            }
            if !plan.externalColumns.isEmpty {
                for key in entityKeys {
                    try noteExternalFiles(of: ObjectID(entity: entity, storeTag: storeTag, primaryKey: key),
                                          columns: plan.externalColumns.map(\.column))
                }
            }
            for (join, column) in plan.joinColumns {
                try connection.execute("DELETE FROM \(q(join)) WHERE \(q(column)) IN (SELECT value FROM json_each(?))", [keys])
            }
        }
        for (root, keys) in jsonByRoot {
            try connection.execute("DELETE FROM \(q(schema.tables[root]!.name)) WHERE Z_PK IN (SELECT value FROM json_each(?))", [keys])
        }
    }

    // MARK: Insert

    /// Inserts one row per dictionary, all in one transaction: values are taken as the
    /// attributes' types, missing attributes get their defaults, to-one relationships take
    /// object IDs. Throws naming an unknown property, a to-many relationship, a value of the
    /// wrong type or a missing required value; uniqueness constraints hold as in a save, or
    /// resolve rows that collide as the request's ``BatchInsertRequest/mergePolicy`` says.
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        try checkWritable("a batch insert")
        let entity = request.entity
        try lock.withLock {
            guard schema.holds(entity), !entity.isAbstract else { throw unheld(entity) }
        }
        let layout = entity.layout
        let rows = try request.rows().map { object -> [SnapshotValue] in
            for name in object.keys where layout.index(of: name) == nil {
                throw StoreError.unsupportedRequest("batch insert: \(entity.name) has no property \(name)")
            }
            return try layout.properties.indices.map { slot in try batchInsertValue(object[layout.properties[slot].name], slot: slot, of: layout) }
        }
        let policy = (request.mergePolicy ?? .error).standard
        guard policy != .error, !entity.uniquenessConstraints.isEmpty else {
            let ids = try obtainPermanentIDs(for: rows.map { _ in ObjectID.temporary(for: entity) })
            _ = try save(StoreSaveRequest(inserted: zip(ids, rows).map { Snapshot(objectID: $0, version: 0, values: $1) }))
            return BatchResult(request.resultType, ids)
        }
        let resolved = try resolveCollisions(of: rows, of: entity, incomingWins: policy.newValuesWin)
        let ids = try obtainPermanentIDs(for: resolved.inserted.map { _ in ObjectID.temporary(for: entity) })
        _ = try save(StoreSaveRequest(inserted: zip(ids, resolved.inserted).map { Snapshot(objectID: $0, version: 0, values: $1) },
                                      updated: resolved.updated))
        return BatchResult(request.resultType, ids + resolved.updated.map(\.objectID))
    }

    /// Batch-inserted `rows` of `entity` sorted into the rows to insert and the stored rows to
    /// update, for a merge policy that resolves uniqueness collisions. A row whose constrained
    /// values (all non-nil) a stored row holds becomes an update of that row at its stored
    /// version when `incomingWins` (an upsert, Core Data's object trump), and is dropped
    /// otherwise (store trump); a row that collides with an earlier row of the request replaces
    /// it, or is dropped, the same way. Updates leave to-many relationships as stored. The save
    /// that writes the result checks the versions read here and the UNIQUE indexes again, so a
    /// writer that changes a holder meanwhile makes it fail rather than write a duplicate.
    private func resolveCollisions(of rows: [[SnapshotValue]], of entity: EntityDescription,
                                   incomingWins: Bool) throws -> (inserted: [[SnapshotValue]], updated: [Snapshot]) {
        enum Target { case inserted(Int), updated(Int), kept }
        let layout = entity.layout
        let constraints = entity.uniquenessConstraints.map { names in (names, names.compactMap { layout.index(of: $0) }) }
        let toManySlots = layout.properties.indices.filter { (layout.properties[$0] as? RelationshipDescription)?.isToMany == true }
        func updating(_ row: [SnapshotValue]) -> [SnapshotValue] {
            var values = row
            for slot in toManySlots { values[slot] = .unloaded }
            return values
        }
        var inserted: [[SnapshotValue]] = []
        var updated: [Snapshot] = []
        // By constraint number and stored values: the row of the request that holds them.
        var targets: [[SQLiteValue]: Target] = [:]
        try lock.withLock {
            for row in rows {
                var keys: [[SQLiteValue]] = []
                var target: Target?
                var holder: (objectID: ObjectID, version: Int64)?
                for (number, (names, slots)) in constraints.enumerated() {
                    let values = try slots.map { try encodeForComparison(row[$0], of: layout.properties[$0]) }
                    guard !values.contains(.null) else { continue }
                    let key = [SQLiteValue.integer(Int64(number))] + values
                    keys.append(key)
                    if target == nil { target = targets[key] }
                    if target == nil, holder == nil { holder = try storedHolderVersions(of: names, values: values, in: entity).first }
                    if let found = holder, found.objectID.entity !== entity {
                        // The row cannot take another entity's values: the collision stands.
                        throw StoreError.uniquenessViolation(entity: entity.name, properties: names, objectIDs: [found.objectID])
                    }
                }
                switch target {
                case .inserted(let index)? where incomingWins: inserted[index] = row
                case .updated(let index)? where incomingWins: updated[index].values = updating(row)
                case nil:
                    if let holder {
                        guard incomingWins else { target = .kept; break }
                        updated.append(Snapshot(objectID: holder.objectID, version: holder.version, values: updating(row)))
                        target = .updated(updated.count - 1)
                    } else {
                        inserted.append(row)
                        target = .inserted(inserted.count - 1)
                    }
                default: break
                }
                for key in keys { targets[key] = target }
            }
        }
        return (inserted, updated)
    }

    /// The snapshot value of slot `slot` of a batch-inserted row given `given` (nil: not given).
    private func batchInsertValue(_ given: (any Sendable)?, slot: Int, of layout: EntityLayout) throws -> SnapshotValue {
        let property = layout.properties[slot]
        guard property.isStored else { return .unloaded }
        let value = unwrapOptional(given).flatMap { $0 is NSNull ? nil : $0 }
        switch property {
        case let attribute as AttributeDescription:
            guard let value = value ?? layout.defaultValues[slot] else {
                if !attribute.isOptional { throw StoreError.unsupportedRequest("batch insert: \(attribute.qualifiedName) is required") }
                return .null
            }
            guard let storable = StorableValues.modelValue(value) else {
                throw StoreError.unsupportedRequest("batch insert: \(attribute.qualifiedName) cannot store a value of type \(Swift.type(of: value))")
            }
            return .value(try batchValue(storable, for: attribute, in: "batch insert"))
        case let relationship as RelationshipDescription where relationship.isToMany:
            guard value == nil else { throw StoreError.unsupportedRequest("batch insert: \(relationship.qualifiedName) is to-many; set it through saves") }
            return .objects([])
        default:
            guard let value else {
                if !property.isOptional { throw StoreError.unsupportedRequest("batch insert: \(property.qualifiedName) is required") }
                return .null
            }
            guard let id = value as? ObjectID else {
                throw StoreError.unsupportedRequest("batch insert: \(property.qualifiedName) takes an object ID, not a value of type \(Swift.type(of: value))")
            }
            // As in a batch update: a key of another entity's table would name an unrelated row.
            guard let destination = (property as? RelationshipDescription)?.destinationEntity, id.entity.isKind(of: destination) else {
                let expected = (property as? RelationshipDescription)?.destinationEntity?.name ?? "its destination"
                throw StoreError.unsupportedRequest("batch insert: \(property.qualifiedName) points at \(expected), not at \(id.entity.name) (\(id))")
            }
            return .object(id)
        }
    }
}
