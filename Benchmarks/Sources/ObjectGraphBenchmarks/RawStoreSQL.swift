// The statements ObjectGraph's SQLite store issues for the benchmark's entities, copied from its
// `OBJECTGRAPH_SQL_DEBUG=2` log, so that the raw variant runs exactly the store's SQL, and the
// raw helpers for the store's transaction shapes (key allocation, version check, batch reads).
import Foundation

enum RawStoreSQL {
    static let selectList = "t0.\"Z_PK\", t0.\"Z_ENT\", t0.\"Z_OPT\", t0.\"ZAGE\", t0.\"ZCREATED\", t0.\"ZEMAIL\", t0.\"ZNAME\", t0.\"ZSCORE\""
    static let selectAll = "SELECT \(selectList) FROM \"ZPERSON\" t0 ORDER BY t0.Z_PK"
    static let selectIDs = "SELECT t0.Z_PK, t0.Z_ENT FROM \"ZPERSON\" t0 ORDER BY t0.Z_PK"
    static let selectByKeys = "SELECT \(selectList) FROM \"ZPERSON\" t0 WHERE t0.Z_PK IN (SELECT value FROM json_each(?))"
    /// The store's batch read when the batch's keys are consecutive: a range scan.
    static let selectByKeyRange = "SELECT \(selectList) FROM \"ZPERSON\" t0 WHERE t0.Z_PK BETWEEN ?1 AND ?2"
    static let selectByKey = "SELECT \(selectList) FROM \"ZPERSON\" t0 WHERE t0.Z_PK = ?"
    static let selectByAge = "SELECT \(selectList) FROM \"ZPERSON\" t0 WHERE (t0.\"ZAGE\" = ?1) ORDER BY t0.Z_PK"
    static let countByScore = "SELECT COUNT(*) FROM \"ZPERSON\" t0 WHERE (t0.\"ZSCORE\" > ?1)"
    static let checkVersions = "SELECT Z_PK, Z_ENT, Z_OPT FROM \"ZPERSON\" WHERE Z_PK IN (SELECT value FROM json_each(?))"
    /// The store's version check when a save changes one row.
    static let checkVersion = "SELECT Z_PK, Z_ENT, Z_OPT FROM \"ZPERSON\" WHERE Z_PK = ?"
    /// The UPDATE of W6 and W10, which change only the score: the store writes changed columns.
    static let update = "UPDATE \"ZPERSON\" SET Z_OPT = Z_OPT + 1, \"ZSCORE\" = ? WHERE Z_PK = ? AND Z_OPT = ?"
    static let delete = "DELETE FROM \"ZPERSON\" WHERE Z_PK = ? AND Z_OPT = ?"
    /// A batch delete of every row of a table no rule or join table follows (W7b).
    static let deleteAll = "DELETE FROM \"ZPERSON\""

    /// Binds person `i`'s values, with primary key `key`, to the store's INSERT.
    static func bindInsert(of i: Int, key: Int64, to statement: RawStatement) {
        statement.bind(1, key)
        statement.bind(2, Fixtures.personEntity)
        statement.bind(3, Int64(PersonValues.age(i)))
        statement.bind(4, PersonValues.created(i))
        statement.bind(5, PersonValues.email(i))
        statement.bind(6, PersonValues.name(i))
        statement.bind(7, PersonValues.score(i))
    }

    /// Keys as the JSON array the store binds to `json_each(?)`.
    static func jsonArray<S: Sequence>(_ keys: S) -> String where S.Element == Int64 {
        "[" + keys.map(String.init).joined(separator: ",") + "]"
    }

    /// The store's key allocation: its own transaction, before the save's. Returns the first key.
    static func allocateKeys(_ count: Int, entity: Int64, on connection: RawConnection) throws -> Int64 {
        try connection.execute("BEGIN IMMEDIATE")
        let allocate = try connection.prepare(Fixtures.allocateKeysSQL)
        allocate.bind(1, Int64(count))
        allocate.bind(2, entity)
        guard try allocate.step() else { throw RawSQLiteError(description: "Z_PRIMARYKEY has no row for entity \(entity)") }
        let last = allocate.int64(0)
        allocate.reset()
        try connection.execute("COMMIT")
        return last - Int64(count) + 1
    }

    /// The store's version check at the start of a save: every row at its expected version.
    static func checkVersions(of rows: [RawPerson], with statement: RawStatement) throws {
        if rows.count == 1 { statement.bind(1, rows[0].pk) } else { statement.bind(1, jsonArray(rows.lazy.map(\.pk))) }
        var stored: [Int64: Int64] = [:]
        stored.reserveCapacity(rows.count)
        while try statement.step() {
            if statement.int64(1) == Fixtures.personEntity { stored[statement.int64(0)] = statement.int64(2) }
        }
        statement.reset()
        for row in rows where stored[row.pk] != row.version {
            throw RawSQLiteError(description: "person \(row.pk) is not at version \(row.version)")
        }
    }

    /// The store's UPDATE of a row whose score changed (version checked); returns the row at its
    /// new version.
    static func update(_ row: RawPerson, with statement: RawStatement, on connection: RawConnection) throws -> RawPerson {
        statement.bind(1, row.score)
        statement.bind(2, row.pk)
        statement.bind(3, row.version)
        try statement.run()
        guard connection.changes == 1 else { throw RawSQLiteError(description: "person \(row.pk) changed meanwhile") }
        var saved = row
        saved.version += 1
        return saved
    }

    /// Every row `statement` returns.
    static func rows(_ statement: RawStatement) throws -> [RawPerson] {
        var rows: [RawPerson] = []
        while try statement.step() { rows.append(RawPerson(statement)) }
        statement.reset()
        return rows
    }

    /// The keys of every person, as the store fetches object IDs.
    static func keys(on connection: RawConnection) throws -> [Int64] {
        let statement = try connection.prepare(selectIDs)
        var keys: [Int64] = []
        while try statement.step() {
            if statement.int64(1) == Fixtures.personEntity { keys.append(statement.int64(0)) }
        }
        return keys
    }

    /// Reads `keys` in batches of `size` rows, one statement per batch, as the store fires batch
    /// faults (a range scan for consecutive keys, a `json_each` statement otherwise); calls
    /// `body` with each row.
    static func forEachRow(keys: [Int64], batchSize size: Int, on connection: RawConnection,
                           _ body: (RawPerson) -> Void) throws {
        let byKeys = try connection.prepare(selectByKeys)
        let byRange = try connection.prepare(selectByKeyRange)
        for start in stride(from: 0, to: keys.count, by: size) {
            let batchKeys = keys[start..<min(start + size, keys.count)]
            if let first = batchKeys.first, let last = batchKeys.last, last - first == Int64(batchKeys.count - 1),
               zip(batchKeys, first...).allSatisfy({ $0 == $1 }) {
                // The range scan gives the rows in key order: each is read as it comes.
                byRange.bind(1, first)
                byRange.bind(2, last)
                while try byRange.step() {
                    if byRange.int64(1) == Fixtures.personEntity { body(RawPerson(byRange)) }
                }
                byRange.reset()
                continue
            }
            let statement = byKeys
            statement.bind(1, jsonArray(batchKeys))
            var batch: [Int64: RawPerson] = [:]
            while try statement.step() {
                guard statement.int64(1) == Fixtures.personEntity else { continue }
                let row = RawPerson(statement)
                batch[row.pk] = row
            }
            statement.reset()
            for key in keys[start..<min(start + size, keys.count)] {
                if let row = batch[key] { body(row) }
            }
        }
    }
}
