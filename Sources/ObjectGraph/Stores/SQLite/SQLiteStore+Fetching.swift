// Fetching from the SQLite store: each request is one SQL statement, the predicate and sort
// descriptors translated by SQLitePredicateTranslator, the entity (and its sub-entities) chosen
// by Z_ENT, offset and limit in SQL; rows come back as snapshots (full or partial), object IDs,
// a count or dictionaries (SQLiteDictionaryPlan). Ties in the order fall back to the primary
// key, as the in-memory store orders.
import Foundation

extension SQLiteStore {
    /// Runs `request` as one statement.
    ///
    /// A count is the number of rows the same fetch would return (offset and limit apply, as they
    /// do to Core Data's `count(for:)`), or of dictionaries when they can be fewer (distinct
    /// results, groups): their statement, counted. Partial snapshots (`propertiesToFetch`) leave
    /// the other slots unloaded. A predicate or sort key the store cannot translate throws
    /// ``StoreError/unsupportedRequest(_:)`` naming it; nothing is ever filtered in memory.
    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try lock.withLock {
            let statement = try fetchStatement(for: request)
            let storeTag = self.storeTag
            switch request.resultType {
            case .count:
                return .count(Int(try connection.scalar(statement.sql, statement.arguments)?.integerValue ?? 0))
            case .objectIDs:
                return .objectIDs(try destinations(statement.sql, statement.arguments))
            case .snapshots:
                let names = request.propertiesToFetch.map { Set($0.map(\.name)) }
                var loaded: [Int64: Set<Int>] = [:]
                var rows: [Snapshot] = []
                // Rows come in runs of one entity: its reader and loaded slots are looked up once
                // per run. The reader is held unretained (the store keeps its readers): a row
                // then costs no retain and release of it.
                var runNumber: Int64?
                var runReader: Unowned<SQLiteRowReader>?
                var runLoaded: Set<Int>?
                try connection.forEachRow(statement.sql, statement.arguments) { row in
                    let number = row.int64(1)
                    if runNumber != number {
                        guard let entity = schema.entitiesByNumber[number] else { return }
                        if let names, loaded[number] == nil {
                            loaded[number] = Set(entity.layout.properties.indices.filter { names.contains(entity.layout.properties[$0].name) })
                        }
                        runNumber = number
                        runReader = Unowned(reader(for: entity))
                        runLoaded = loaded[number]
                    }
                    rows.append(try runReader!.with { try $0.snapshot(row, storeTag: storeTag, loading: runLoaded) })
                }
                return .snapshots(rows)
            case .dictionaries:
                guard let plan = statement.dictionaries else { return .dictionaries([]) }
                var results: [[String: any Sendable]] = []
                try connection.forEachRow(statement.sql, statement.arguments) { row in
                    results.append(try plan.dictionary(row, storeTag: storeTag, schema: schema, external: externalData))
                }
                return .dictionaries(results)
            }
        }
    }

    /// The statement of a fetch: its SQL, the values bound to it, and for dictionaries how its
    /// rows become dictionaries. Called with the lock held.
    func fetchStatement(for request: StoreFetchRequest) throws -> (sql: String, arguments: [SQLiteValue], dictionaries: SQLiteDictionaryPlan?) {
        guard schema.holds(request.entity) else { throw unheld(request.entity) }
        let q = SQLiteSchema.quoted
        let translator = SQLitePredicateTranslator(schema: schema, storeTag: storeTag, entity: request.entity)
        var conditions: [String] = []
        if let numbers = schema.entityNumbers(of: request.entity, subentities: request.includesSubentities) {
            conditions.append("t0.Z_ENT IN (" + numbers.map(String.init).joined(separator: ", ") + ")")
        }
        if let predicate = request.predicate { conditions.append(try translator.condition(predicate)) }
        // A dictionary fetch may sort by its expressions' names, which order its results, not rows.
        let order = try orderTerms(request.rowSortDescriptors, translator) + ["t0.Z_PK"]
        let countsDictionaries = request.resultType == .count && request.countsDictionaries
        let dictionaries = request.resultType == .dictionaries || countsDictionaries
            ? try SQLiteDictionaryPlan(request: request, translator: translator) : nil
        var window = ""
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            window = " LIMIT \(translator.bind(.integer(Int64(request.fetchLimit > 0 ? request.fetchLimit : -1))))"
                + " OFFSET \(translator.bind(.integer(Int64(max(request.fetchOffset, 0)))))"
        }
        let table = schema.table(of: request.entity)
        let from = " FROM \(q(table.name)) t0" + translator.root.joins.map { " " + $0 }.joined()
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        let ordered = from + " ORDER BY " + order.joined(separator: ", ") + window
        let sql: String
        switch request.resultType {
        case .count where countsDictionaries:
            sql = "SELECT COUNT(*) FROM (" + (dictionaries?.sql(from: from, order: order, window: window, distinct: request.returnsDistinctResults) ?? "") + ")"
        case .count: sql = window.isEmpty ? "SELECT COUNT(*)" + from : "SELECT COUNT(*) FROM (SELECT t0.Z_PK" + ordered + ")"
        case .objectIDs: sql = "SELECT t0.Z_PK, t0.Z_ENT" + ordered
        case .snapshots: sql = "SELECT " + table.selectList + ordered
        case .dictionaries: sql = dictionaries?.sql(from: from, order: order, window: window, distinct: request.returnsDistinctResults) ?? ""
        }
        return (sql, translator.arguments, dictionaries)
    }

    /// The SQL statement `request` runs and the values bound to it, without running it (for
    /// `objectgraph store explain` and for debugging a fetch).
    ///
    /// ```swift
    /// let (sql, values) = try store.statement(for: request)
    /// ```
    public func statement(for request: StoreFetchRequest) throws -> (sql: String, arguments: [SQLiteValue]) {
        try lock.withLock {
            let statement = try fetchStatement(for: request)
            return (statement.sql, statement.arguments)
        }
    }

    /// SQLite's plan for `request` (EXPLAIN QUERY PLAN), one line per step: which indexes the
    /// fetch uses and which tables it scans.
    public func queryPlan(for request: StoreFetchRequest) throws -> [String] {
        try lock.withLock {
            let statement = try fetchStatement(for: request)
            return try connection.rows("EXPLAIN QUERY PLAN " + statement.sql, statement.arguments).map { row in
                if case .text(let detail) = row[3] { return detail }
                return row[3].description
            }
        }
    }

    /// ORDER BY terms for `descriptors`: strings under the collation of their comparison,
    /// decimals by value, numbers and dates as stored, UUIDs by their bytes (as NSUUID's
    /// compare(_:)); values the in-memory sort cannot order (data, objects) only put nil first,
    /// as it does. A key path through a to-many
    /// relationship throws (Core Data: "to-many key not allowed here"): its members have no one
    /// value to order by, and dropping the descriptor would return the rows unsorted, silently.
    func orderTerms(_ descriptors: [SortDescriptor], _ translator: SQLitePredicateTranslator) throws -> [String] {
        try descriptors.compactMap { descriptor -> String? in
            let direction = descriptor.ascending ? "" : " DESC"
            switch try translator.operand(.keyPath(descriptor.key)) {
            case .value(let sql, .string):
                return "\(sql) COLLATE \(SQLiteFunctions.collation(for: descriptor.comparison))" + direction
            case .value(let sql, .decimal):
                return "\(sql) COLLATE \(SQLiteFunctions.decimalCollation)" + direction
            case .value(let sql, .number), .value(let sql, .date):
                return sql + direction
            case .value(let sql, .other(let attribute)) where attribute.attributeType == .uuid || attribute.attributeType == .uri:
                // Sixteen bytes in a blob, which SQLite orders byte by byte; a URI's text.
                return sql + direction
            case .value(let sql, .other(let attribute)) where attribute.attributeType == .binaryData:
                // Bytes, byte by byte; an externally stored value's column names its file, so
                // the bytes are read as equality reads them (behind the inline tag all share).
                return (attribute.allowsExternalBinaryDataStorage ? "\(SQLiteFunctions.externalData)(\(sql))" : sql) + direction
            case .value(let sql, .other), .object(let sql, _, _):
                return "(\(sql) IS NOT NULL)" + direction
            case .toMany(let members):
                throw StoreError.unsupportedRequest(
                    "the SQLite store cannot sort by the to-many key path \(descriptor.key): \(members.relationship.qualifiedName) holds many objects, which have no one value to order by")
            case .constant:
                return nil
            }
        }
    }
}
