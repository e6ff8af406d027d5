// The raw variant's access to SQLite: the C API called from Swift, with only the thinnest helpers
// (open with the store's PRAGMAs, prepare, bind, step). The C declarations come from GRDB's
// system-library module (`GRDBSQLite`), which is nothing but the system's sqlite3.h.
import Foundation
import GRDBSQLite

/// `SQLITE_TRANSIENT`: SQLite copies bound text, as the store's statements have it do.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

struct RawSQLiteError: Error, CustomStringConvertible {
    var description: String
}

/// One connection, opened with the PRAGMAs ObjectGraph's store sets.
final class RawConnection {
    let handle: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        // The store's flags: no per-connection mutex (each connection is used by one thread at a
        // time), as GRDB opens its connections too.
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let handle else {
            throw RawSQLiteError(description: "cannot open \(path)")
        }
        self.handle = handle
        try execute("PRAGMA foreign_keys = OFF; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs statements without arguments.
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    /// A prepared statement (persistent, as the store prepares its cached ones).
    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else { throw error(sql) }
        return RawStatement(handle: statement, connection: self)
    }

    /// The number of rows the last statement changed.
    var changes: Int32 { sqlite3_changes(handle) }

    func error(_ sql: String) -> RawSQLiteError {
        RawSQLiteError(description: "\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
    }
}

/// A prepared statement: bind by position, step, read columns.
final class RawStatement {
    let handle: OpaquePointer
    private let connection: RawConnection

    init(handle: OpaquePointer, connection: RawConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    func bind(_ index: Int32, _ value: String) {
        sqlite3_bind_text(handle, index, value, Int32(value.utf8.count), sqliteTransient)
    }

    /// Steps once; true while a row is there.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(String(cString: sqlite3_sql(handle)))
        }
    }

    /// Runs a statement that returns no row, then resets it for the next use.
    func run() throws {
        _ = try step()
        sqlite3_reset(handle)
    }

    func reset() { sqlite3_reset(handle) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }
}

/// A raw person row, as a Swift app on the C API would hold one.
struct RawPerson {
    var pk: Int64
    var version: Int64
    var age: Int32
    var created: Double
    var email: String
    var name: String
    var score: Double

    /// The row under `statement`, whose columns are the store's select list
    /// (`Z_PK, Z_ENT, Z_OPT, ZAGE, ZCREATED, ZEMAIL, ZNAME, ZSCORE`).
    init(_ statement: RawStatement) {
        pk = statement.int64(0)
        version = statement.int64(2)
        age = Int32(truncatingIfNeeded: statement.int64(3))
        created = statement.double(4)
        email = statement.text(5)
        name = statement.text(6)
        score = statement.double(7)
    }

    func read(into checksum: inout Checksum) {
        checksum.addPerson(age: age, created: created, email: email, name: name, score: score)
    }
}
