// Saving into the SQLite store: one transaction per save, all or nothing. Versions of updated,
// deleted and locked rows are checked first (conflicts carry the rows as stored); then rows are
// deleted, updated (`WHERE Z_PK = ? AND Z_OPT = ?`) and inserted, in that order so that values
// a save frees can be taken by its other rows, and to-many lists written to join tables and
// order columns. Uniqueness constraints are the UNIQUE indexes' job; a failure is reported
// naming both rows. Any failure rolls back, so the file is exactly as it was, and removes the
// external data files the save wrote; success removes those it replaced or deleted.
import Foundation

extension SQLiteStore {
    /// Writes `request`'s changes in one transaction, or throws and writes nothing.
    ///
    /// Throws ``StoreError/conflicts(_:)`` listing every updated, deleted or locked row whose
    /// version is not the expected one, then ``StoreError/uniquenessViolation(entity:properties:objectIDs:)``
    /// for the first row whose constraint values another row holds (nil values never collide).
    /// Unloaded slots of updated rows keep their stored values. Returns the inserted and updated
    /// rows at their new versions (to-many slots as sent, or unloaded).
    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try lock.withLock {
            let result = try prepare(request)
            try commitPrepared()
            return result
        }
    }

    /// Whether the store holds a save open (``prepareSave(_:)``): SQLite keeps its transaction.
    public var supportsPreparedSaves: Bool { true }

    /// Writes `request` as ``save(_:)`` does inside a transaction it leaves open, until
    /// ``commitPreparedSave()`` or ``rollbackPreparedSave()``. A save across several stores
    /// prepares each and commits them only once all are written.
    public func prepareSave(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try lock.withLock { try prepare(request) }
    }

    /// Makes the prepared save durable (nothing when none is prepared).
    public func commitPreparedSave() throws {
        try lock.withLock { try commitPrepared() }
    }

    /// Undoes the prepared save: the file is as it was before it (nothing when none is prepared).
    public func rollbackPreparedSave() {
        lock.withLock { rollBackPrepared() }
    }

    /// Begins the save's transaction and writes `request`; on failure rolls back. Lock held.
    private func prepare(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        precondition(!hasPreparedSave, "a save was prepared in \(identifier) and neither committed nor rolled back")
        try checkWritable("a save")
        try checkOwnership(of: request)
        externalFilesWritten = []
        externalFilesReplaced = []
        metadataChangedBeforeSave = metadataChanged
        try connection.execute("BEGIN IMMEDIATE")
        hasPreparedSave = true
        do {
            return try write(request)
        } catch {
            rollBackPrepared()
            throw error
        }
    }

    /// Commits the open save's transaction; on failure rolls it back. Lock held.
    private func commitPrepared() throws {
        guard hasPreparedSave else { return }
        do {
            try connection.execute("COMMIT")
        } catch {
            rollBackPrepared()
            throw error
        }
        hasPreparedSave = false
        externalData.remove(externalFilesReplaced)
        externalFilesWritten = []
        externalFilesReplaced = []
    }

    /// Rolls the open save's transaction back and removes the external files it wrote. Lock held.
    private func rollBackPrepared() {
        guard hasPreparedSave else { return }
        hasPreparedSave = false
        if connection.inTransaction { try? connection.execute("ROLLBACK") }
        externalData.remove(externalFilesWritten)
        externalFilesWritten = []
        externalFilesReplaced = []
        // The metadata written in the transaction was not kept: the next save writes it.
        metadataChanged = metadataChanged || metadataChangedBeforeSave
    }

    /// The writes of a save, inside its transaction.
    private func write(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try checkVersions(of: request)
        // One buffer holds each row's values in turn, so rows allocate no argument arrays.
        var arguments: [SQLiteValue] = []
        // In key order, as the rows lie in the table: each B-tree page is visited once.
        for (id, version) in request.deleted.sorted(by: { $0.objectID.primaryKey! < $1.objectID.primaryKey! }) {
            try delete(id, version: version, arguments: &arguments)
        }
        try releaseConstrainedValues(of: request.updated)
        let storeTag = self.storeTag
        // Rows are read by index (a copy out of the array retains it), and each row's copy as
        // saved is made as it is written, while it is at hand; the result lists the inserted
        // rows, then the updated ones, as the request does.
        var incomplete: [ObjectID] = []
        var savedUpdates: [Snapshot] = []
        savedUpdates.reserveCapacity(request.updated.count)
        // Each row's write plan is looked up once and handed down.
        for index in request.updated.indices {
            let changed = index < request.changedSlots.count ? request.changedSlots[index] : nil
            let plan = plan(for: request.updated[index].objectID.entity)
            try update(request.updated[index], plan, changed: changed, storeTag: storeTag, arguments: &arguments)
            savedUpdates.append(savedRow(request.updated[index], plan, version: request.updated[index].version + 1, incomplete: &incomplete))
        }
        var saved: [Snapshot] = []
        saved.reserveCapacity(request.inserted.count + request.updated.count)
        for index in request.inserted.indices {
            let plan = plan(for: request.inserted[index].objectID.entity)
            try insert(request.inserted[index], plan, storeTag: storeTag, arguments: &arguments)
            saved.append(savedRow(request.inserted[index], plan, version: 1, incomplete: &incomplete))
        }
        if saved.isEmpty { saved = savedUpdates } else { saved += savedUpdates }
        for index in request.inserted.indices where !plan(for: request.inserted[index].objectID.entity).toManySlots.isEmpty {
            try writeToManyLists(of: request.inserted[index], isNew: true)
        }
        for index in request.updated.indices where !plan(for: request.updated[index].objectID.entity).toManySlots.isEmpty {
            try writeToManyLists(of: request.updated[index], isNew: false)
        }
        if metadataChanged { try writeMetadata() }
        try complete(&saved, incomplete: incomplete)
        return StoreSaveResult(snapshots: saved, deletedObjectIDs: request.deleted.map(\.objectID))
    }

    /// Every ID must be a permanent one of this store, of an entity it holds, with one value per slot.
    private func checkOwnership(of request: StoreSaveRequest) throws {
        let storeTag = self.storeTag
        // Rows come in runs of one entity: each run checks its entity once. Entities are
        // compared by identity and rows read by index: an ID holds its entity unretained, and
        // a comparison of references, or a row copied out of the array, would retain.
        var held: ObjectIdentifier?
        var slotCount = 0
        func check(_ id: ObjectID) throws {
            guard id.storeTag == storeTag, !id.isTemporaryID else { throw StoreError.foreignObjectID(id) }
            guard ObjectIdentifier(id.entity) != held else { return }
            guard schema.holds(id.entity), !id.entity.isAbstract else { throw unheld(id.entity) }
            held = ObjectIdentifier(id.entity)
            slotCount = id.entity.layout.properties.count
        }
        for rows in [request.inserted, request.updated] {
            for index in rows.indices {
                try check(rows[index].objectID)
                guard rows[index].values.count == slotCount else {
                    throw StoreError.unsupportedRequest(
                        "\(rows[index].objectID) has \(rows[index].values.count) values for the \(slotCount) properties of \(rows[index].objectID.entity.name)")
                }
            }
        }
        for index in request.deleted.indices { try check(request.deleted[index].objectID) }
        for index in request.locked.indices { try check(request.locked[index].objectID) }
    }

    /// Throws the conflicts of every updated, deleted or locked row not at its expected version,
    /// each with the row as stored now (nil when it is gone).
    private func checkVersions(of request: StoreSaveRequest) throws {
        let count = request.updated.count + request.deleted.count + request.locked.count
        guard count > 0 else { return }
        // Per table (by root entity), its keys in request order and the rows stored under them
        // (entity number and version). The rows are kept by key in an array when the keys are
        // dense (the usual case: a save of objects fetched together), else in a dictionary: the
        // hashing of a key per row, on a table of every key, was most of the check's time.
        struct Versions {
            let root: ObjectIdentifier
            let sql: String
            let singleKeySQL: String
            var keys: [Int64] = []
            var low = Int64.max
            var high = Int64.min
            /// Stored rows by `key - low` when dense (entity `Int64.min`: none).
            var dense: [(entity: Int64, version: Int64)] = []
            var sparse: [Int64: (entity: Int64, version: Int64)] = [:]

            mutating func prepare() {
                guard !keys.isEmpty else { return }
                // Keys may lie anywhere in Int64: a span that overflows is not dense.
                let (span, overflow) = high.subtractingReportingOverflow(low)
                guard !overflow, span < 4 * Int64(keys.count) + 64 else { return }
                dense = Array(repeating: (Int64.min, 0), count: Int(span) + 1)
            }

            mutating func record(_ key: Int64, entity: Int64, version: Int64) {
                if dense.isEmpty {
                    sparse[key] = (entity, version)
                } else if key >= low && key <= high {
                    dense[Int(key - low)] = (entity, version)
                }
            }

            func stored(_ key: Int64) -> (entity: Int64, version: Int64)? {
                guard !dense.isEmpty else { return sparse[key] }
                guard key >= low && key <= high, dense[Int(key - low)].entity != Int64.min else { return nil }
                return dense[Int(key - low)]
            }
        }
        var tables: [Versions] = []
        // Rows come in runs of one entity: each run looks its table and number up once. Rows
        // are read by index and entities compared by identity: a row copied out of its array,
        // or a comparison of references, would retain.
        var lastEntity: ObjectIdentifier?
        var table = 0
        var number: Int64 = 0
        func locate(_ id: ObjectID) {
            guard ObjectIdentifier(id.entity) != lastEntity else { return }
            let entity = id.entity
            lastEntity = ObjectIdentifier(entity)
            let stored = schema.table(of: entity)
            let root = ObjectIdentifier(stored.root)
            table = tables.firstIndex { $0.root == root } ?? tables.endIndex
            if table == tables.endIndex {
                tables.append(Versions(root: root, sql: stored.versionsByKeys, singleKeySQL: stored.versionByKey))
                tables[table].keys.reserveCapacity(count)
            }
            number = schema.number(of: entity)
        }
        // A key that comes twice is asked for twice: harmless to `IN`.
        func expect(_ id: ObjectID) {
            locate(id)
            let key = id.primaryKey!
            tables[table].keys.append(key)
            tables[table].low = min(tables[table].low, key)
            tables[table].high = max(tables[table].high, key)
        }
        for index in request.updated.indices { expect(request.updated[index].objectID) }
        for index in request.deleted.indices { expect(request.deleted[index].objectID) }
        for index in request.locked.indices { expect(request.locked[index].objectID) }
        for index in tables.indices {
            tables[index].prepare()
            // One key (a save of one object, the common interactive case) takes a keyed lookup.
            let keys = tables[index].keys
            let (sql, arguments) = keys.count == 1 ? (tables[index].singleKeySQL, [SQLiteValue.integer(keys[0])])
                                                   : (tables[index].sql, [Self.jsonArray(keys)])
            var versions = tables[index]
            tables[index].dense = []
            tables[index].sparse = [:]
            try connection.forEachRow(sql, arguments) { statement in
                versions.record(statement.int64(0), entity: statement.int64(1), version: statement.int64(2))
            }
            tables[index] = versions
        }
        // A row is at the expected version only if it is stored with the ID's entity number.
        var mismatched: [(objectID: ObjectID, version: Int64)] = []
        func check(_ id: ObjectID, _ version: Int64) {
            locate(id)
            let stored = tables[table].stored(id.primaryKey!)
            if stored?.entity != number || stored?.version != version { mismatched.append((id, version)) }
        }
        for index in request.updated.indices { check(request.updated[index].objectID, request.updated[index].version) }
        for index in request.deleted.indices { check(request.deleted[index].objectID, request.deleted[index].version) }
        for index in request.locked.indices { check(request.locked[index].objectID, request.locked[index].version) }
        guard !mismatched.isEmpty else { return }
        let current = try storedSnapshots(for: mismatched.map(\.objectID))
        throw StoreError.conflicts(mismatched.map {
            StoreConflict(objectID: $0.objectID, expectedVersion: $0.version, currentSnapshot: current[$0.objectID])
        })
    }

    // MARK: Uniqueness

    /// A slot's value as it is stored, for comparing constraint values (`.null` when unloaded).
    func encodeForComparison(_ value: SnapshotValue, of property: PropertyDescription) throws -> SQLiteValue {
        switch (value, property) {
        case (.value, let attribute as AttributeDescription): return try SQLiteValueCoding.encode(value, of: attribute)
        case (.object(let id), _): return .integer(id.primaryKey ?? 0)
        default: return .null
        }
    }

    /// The stored rows bound by `entity`'s constraint `names` (rows of the entity that declares
    /// it and of its sub-entities) that hold `values`.
    func storedHolders(of names: [String], values: [SQLiteValue], in entity: EntityDescription) throws -> [ObjectID] {
        try storedHolderVersions(of: names, values: values, in: entity).map(\.objectID)
    }

    /// ``storedHolders(of:values:in:)`` with the version each holder is stored at.
    func storedHolderVersions(of names: [String], values: [SQLiteValue], in entity: EntityDescription) throws -> [(objectID: ObjectID, version: Int64)] {
        let q = SQLiteSchema.quoted
        let table = schema.table(of: entity)
        let owner = entity.uniquenessConstraintOwner(of: names) ?? entity
        let holders = owner.selfAndDescendants.filter { !$0.isAbstract }
        let columns = names.compactMap { schema.column(of: $0, in: entity) }
        let sql = "SELECT Z_PK, Z_ENT, Z_OPT FROM \(q(table.name)) WHERE " + columns.map { "\(q($0)) = ?" }.joined(separator: " AND ")
            + " AND Z_ENT IN (" + holders.map { String(schema.number(of: $0)) }.joined(separator: ", ") + ")"
        let storeTag = self.storeTag
        var result: [(objectID: ObjectID, version: Int64)] = []
        try connection.forEachRow(sql, values) { statement in
            guard let holder = schema.entitiesByNumber[statement.int64(1)] else { return }
            result.append((ObjectID(entity: holder, storeTag: storeTag, primaryKey: statement.int64(0)), statement.int64(2)))
        }
        return result
    }

    /// The write plan of `entity`.
    func plan(for entity: EntityDescription) -> SQLiteWritePlan {
        // Saves write runs of rows of one entity: the last plan is usually the one. Compared by
        // identity: an ID holds its entity unretained, and comparing references would retain it.
        if let last = lastWritePlan, ObjectIdentifier(last.entity) == ObjectIdentifier(entity) { return last }
        let plan = writePlans[ObjectIdentifier(entity)] ?? SQLiteWritePlan(entity: entity, schema: schema)
        writePlans[ObjectIdentifier(entity)] = plan
        lastWritePlan = plan
        return plan
    }

    /// Clears the uniqueness-constrained columns of the updated `rows` whose values change, when
    /// several do, so that values moving between rows of one save do not trip the UNIQUE indexes
    /// half-way, whatever the order of the updates.
    private func releaseConstrainedValues(of rows: [Snapshot]) throws {
        guard rows.count > 1 else { return }
        let q = SQLiteSchema.quoted
        var groups: [String: (table: String, columns: [(slot: Int, column: String)], rows: [Snapshot])] = [:]
        for index in rows.indices {
            // Entities without uniqueness constraints (most) are passed over without a copy of
            // the row.
            let constrained = plan(for: rows[index].objectID.entity).constrainedColumns
            guard !constrained.isEmpty else { continue }
            let row = rows[index]
            let columns = constrained.filter { row.values.isLoaded(at: $0.slot) }
            guard !columns.isEmpty else { continue }
            let table = schema.table(of: row.objectID.entity).name
            groups[table + "." + columns.map(\.column).joined(separator: ","), default: (table, columns, [])].rows.append(row)
        }
        for (table, columns, members) in groups.values where members.count > 1 {
            var current: [Int64: [SQLiteValue]] = [:]
            let select = "SELECT Z_PK, " + columns.map { q($0.column) }.joined(separator: ", ")
                + " FROM \(q(table)) WHERE Z_PK IN (SELECT value FROM json_each(?))"
            try connection.forEachRow(select, [Self.jsonArray(members.map { $0.objectID.primaryKey! })]) { statement in
                current[statement.int64(0)] = (1...columns.count).map { statement.value(Int32($0)) }
            }
            let moving = try members.filter { row in
                let values = try columns.map { try encodeForComparison(row.values[$0.slot], of: row.layout.properties[$0.slot]) }
                return current[row.objectID.primaryKey!] != values
            }
            guard moving.count > 1 else { continue }
            try connection.execute("UPDATE \(q(table)) SET " + columns.map { "\(q($0.column)) = NULL" }.joined(separator: ", ")
                                   + " WHERE Z_PK IN (SELECT value FROM json_each(?))", [Self.jsonArray(moving.map { $0.objectID.primaryKey! })])
        }
    }

    /// Runs a write of `row`, turning a UNIQUE index failure into a uniqueness violation naming
    /// `row` and the row that holds its values, and a reused primary key into an error naming it.
    private func writing(_ row: Snapshot, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as SQLiteError where error.isUniqueViolation {
            let entity = row.objectID.entity
            for names in entity.uniquenessConstraints {
                let slots = names.compactMap { entity.layout.index(of: $0) }
                let values = try slots.map { try encodeForComparison(row.values[$0], of: entity.layout.properties[$0]) }
                if let holder = try storedHolders(of: names, values: values, in: entity).first(where: { $0 != row.objectID }) {
                    throw StoreError.uniquenessViolation(entity: entity.name, properties: names, objectIDs: [row.objectID, holder])
                }
            }
            throw error
        } catch let error as SQLiteError where error.isPrimaryKeyViolation {
            throw StoreError.unsupportedRequest("\(row.objectID) is inserted but already stored")
        }
    }

    // MARK: Rows

    /// Appends the values `row` writes to `arguments`: the columns of `plan` whose slots are
    /// loaded, in order (a to-one writes its key, then its entity number when it has a column).
    /// Returns whether every column's slot was loaded (the row then writes them all). With
    /// `mask`, only the columns whose bits it sets (see ``SQLiteWritePlan/updatedColumns(_:of:)``).
    private func appendValues(of row: Snapshot, _ plan: SQLiteWritePlan, storeTag: StoreTag, only mask: UInt64? = nil,
                              to arguments: inout [SQLiteValue]) throws -> Bool {
        var writesAll = true
        let valueCaseTag = plan.entity.layout.valueCaseTag
        // By index: iterating the columns would copy each one, retaining its names and description.
        for index in plan.columns.indices {
            if let mask, mask & (1 << UInt64(index)) == 0 { continue }
            let slot = plan.columns[index].slot
            switch plan.columns[index] {
            case .attribute(_, _, let attribute, let type, let allowsExternalStorage):
                // Plain values are encoded where the row holds them, without copying them out.
                if !allowsExternalStorage, let encoded = row.values.withUnsafeBufferPointer({
                    SQLiteValueCoding.encodeInPlace($0.baseAddress.unsafelyUnwrapped + slot, as: type, tag: valueCaseTag)
                }) {
                    arguments.append(encoded)
                    continue
                }
                let value = row.values[slot]
                switch value {
                case .value(let value):
                    if allowsExternalStorage, let data = value as? Data, data.count >= externalData.threshold {
                        let file = try externalData.write(data)
                        externalFilesWritten.append(file.name)
                        arguments.append(.blob(file.stored))
                    } else {
                        arguments.append(try attribute.with { try SQLiteValueCoding.encode(value, of: $0, as: type) })
                    }
                case .null:
                    arguments.append(.null)
                case .unloaded:
                    writesAll = false
                case .object, .objects:
                    arguments.append(try SQLiteValueCoding.encode(value, of: attribute.object))
                }
            case .toOne(_, _, let entityColumn, let relationship):
                let value = row.values[slot]
                switch value {
                case .object(let id):
                    guard id.storeTag == storeTag, let key = id.primaryKey else { throw StoreError.foreignObjectID(id) }
                    arguments.append(.integer(key))
                    if entityColumn != nil { arguments.append(.integer(schema.number(of: id.entity))) }
                case .null:
                    arguments.append(.null)
                    if entityColumn != nil { arguments.append(.null) }
                case .unloaded:
                    writesAll = false
                default:
                    throw StoreError.unsupportedRequest("\(relationship.object.qualifiedName) is a to-one relationship but was given \(value)")
                }
            }
        }
        return writesAll
    }

    /// The columns `row` writes when some of `plan`'s slots are unloaded.
    private func partialColumns(of row: Snapshot, _ plan: SQLiteWritePlan) -> [String] {
        plan.columns.filter { row.values[$0.slot].isLoaded }.flatMap(\.names)
    }

    private func insert(_ row: Snapshot, _ plan: SQLiteWritePlan, storeTag: StoreTag, arguments: inout [SQLiteValue]) throws {
        arguments.removeAll(keepingCapacity: true)
        arguments.append(.integer(row.objectID.primaryKey!))
        arguments.append(.integer(plan.entityNumber))
        let writesAll = try appendValues(of: row, plan, storeTag: storeTag, to: &arguments)
        try writing(row) { try plan.insert.run(columns: writesAll ? nil : partialColumns(of: row, plan), arguments, on: connection) }
    }

    /// Updates `row`: its changed columns when `changed` says which slots changed (as Core Data
    /// writes them), else every loaded column.
    private func update(_ row: Snapshot, _ plan: SQLiteWritePlan, changed: SlotSet?, storeTag: StoreTag, arguments: inout [SQLiteValue]) throws {
        let mask = changed.flatMap { plan.updatedColumns($0, of: row) }
        if !plan.externalColumns.isEmpty {
            // Files of the columns the row rewrites are replaced; the others stay in use.
            try noteExternalFiles(of: row.objectID, columns: plan.externalColumns.filter {
                row.values[$0.slot].isLoaded && plan.updates(slot: $0.slot, in: mask)
            }.map(\.column))
        }
        arguments.removeAll(keepingCapacity: true)
        let writesAll = try appendValues(of: row, plan, storeTag: storeTag, only: mask, to: &arguments)
        arguments.append(.integer(row.objectID.primaryKey!))
        arguments.append(.integer(row.version))
        try writing(row) {
            if let mask {
                try plan.update.run(mask: mask, names: plan.columnNames, arguments, on: connection)
            } else {
                try plan.update.run(columns: writesAll ? nil : partialColumns(of: row, plan), arguments, on: connection)
            }
        }
        guard connection.changes == 1 else {
            throw StoreError.conflicts([StoreConflict(objectID: row.objectID, expectedVersion: row.version,
                                                      currentSnapshot: try storedSnapshots(for: [row.objectID])[row.objectID])])
        }
    }

    private func delete(_ id: ObjectID, version: Int64, arguments: inout [SQLiteValue]) throws {
        let plan = plan(for: id.entity)
        if !plan.externalColumns.isEmpty { try noteExternalFiles(of: id, columns: plan.externalColumns.map(\.column)) }
        arguments.removeAll(keepingCapacity: true)
        arguments.append(.integer(id.primaryKey!))
        arguments.append(.integer(version))
        try plan.delete.run(columns: nil, arguments, on: connection)
        guard connection.changes == 1 else {
            throw StoreError.conflicts([StoreConflict(objectID: id, expectedVersion: version,
                                                      currentSnapshot: try storedSnapshots(for: [id])[id])])
        }
        for sql in plan.joinRowDeletes {
            try connection.execute(sql, [.integer(id.primaryKey!)])
        }
    }

    /// Records the files that `columns` (of attributes allowing external storage) of `id`'s row
    /// refer to now (replaced or deleted by this save: removed once it commits).
    func noteExternalFiles(of id: ObjectID, columns: [String]) throws {
        guard !columns.isEmpty else { return }
        let sql = "SELECT " + columns.map(SQLiteSchema.quoted).joined(separator: ", ")
            + " FROM \(SQLiteSchema.quoted(schema.table(of: id.entity).name)) WHERE Z_PK = ?"
        try connection.forEachRow(sql, [.integer(id.primaryKey!)]) { statement in
            for index in 0..<statement.columnCount {
                if case .blob(let data) = statement.value(index), let name = externalData.fileName(in: data) {
                    externalFilesReplaced.append(name)
                }
            }
        }
    }

    // MARK: To-many relationships

    /// Writes the to-many lists `row` sends: join-table rows (added, removed, reordered) and the
    /// order columns of ordered relationships kept by the inverse's foreign key.
    private func writeToManyLists(of row: Snapshot, isNew: Bool) throws {
        let q = SQLiteSchema.quoted
        let owner = Int64(row.objectID.primaryKey!)
        let storeTag = self.storeTag
        for (index, property) in row.layout.properties.enumerated() {
            guard case .objects(let ids) = row.values[index], let relationship = property as? RelationshipDescription else { continue }
            let keys = try ids.map { id -> Int64 in
                guard id.storeTag == storeTag, let key = id.primaryKey else { throw StoreError.foreignObjectID(id) }
                return key
            }
            switch schema.storage(of: relationship) {
            case .inverseForeignKey(let inverse)? where relationship.isOrdered:
                guard case .foreignKey(_, _, let order?)? = schema.storage(of: inverse), let destination = relationship.destinationEntity else { continue }
                let sql = "UPDATE \(q(schema.table(of: destination).name)) SET \(q(order)) = ? WHERE Z_PK = ?"
                for (position, key) in keys.enumerated() { try connection.execute(sql, [.integer(Int64(position + 1)), .integer(key)]) }
            case .joinTable(let join, let reversed)?:
                let ownerColumn = reversed ? join.destinationColumn : join.sourceColumn
                let memberColumn = reversed ? join.sourceColumn : join.destinationColumn
                let orderColumn = reversed ? join.sourceOrderColumn : join.destinationOrderColumn
                if !isNew {
                    try connection.execute("DELETE FROM \(q(join.name)) WHERE \(q(ownerColumn)) = ? AND \(q(memberColumn)) NOT IN (SELECT value FROM json_each(?))",
                                           [.integer(owner), Self.jsonArray(keys)])
                }
                if let orderColumn {
                    let sql = "INSERT INTO \(q(join.name)) (\(q(ownerColumn)), \(q(memberColumn)), \(q(orderColumn))) VALUES (?, ?, ?) "
                        + "ON CONFLICT (\(q(join.sourceColumn)), \(q(join.destinationColumn))) DO UPDATE SET \(q(orderColumn)) = excluded.\(q(orderColumn))"
                    for (position, key) in keys.enumerated() {
                        try connection.execute(sql, [.integer(owner), .integer(key), .integer(Int64(position + 1))])
                    }
                } else {
                    let sql = "INSERT OR IGNORE INTO \(q(join.name)) (\(q(ownerColumn)), \(q(memberColumn))) VALUES (?, ?)"
                    for key in keys { try connection.execute(sql, [.integer(owner), .integer(key)]) }
                }
            default:
                continue
            }
        }
    }

    // MARK: Result

    /// `row` as saved, at `version`: slots the store does not keep unloaded. A row that lacks a
    /// slot the cache needs (a required one: a partial update, or a derived attribute, which the
    /// store computed) has its ID added to `incomplete`, for ``complete(_:incomplete:)``.
    private func savedRow(_ row: Snapshot, _ plan: SQLiteWritePlan, version: Int64, incomplete: inout [ObjectID]) -> Snapshot {
        var saved = row
        saved.version = version
        for slot in plan.unstoredSlots { saved.values[slot] = .unloaded }
        for slot in plan.derivedSlots { saved.values[slot] = .unloaded }
        for slot in plan.requiredSlots where !saved.values.isLoaded(at: slot) {
            incomplete.append(row.objectID)
            break
        }
        return saved
    }

    /// Fills the unloaded slots of the `incomplete` rows among `rows` from the table.
    private func complete(_ rows: inout [Snapshot], incomplete: [ObjectID]) throws {
        guard !incomplete.isEmpty else { return }
        let stored = try storedSnapshots(for: incomplete)
        for index in rows.indices {
            guard let current = stored[rows[index].objectID] else { continue }
            for slot in rows[index].values.indices where !rows[index].values[slot].isLoaded && current.values[slot].isLoaded {
                rows[index].values[slot] = current.values[slot]
            }
        }
    }
}
