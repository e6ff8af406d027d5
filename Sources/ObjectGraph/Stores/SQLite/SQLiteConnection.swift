// One connection to a SQLite file, set up as the store needs it: WAL journal, synchronous=NORMAL,
// a busy timeout so that processes can share the file, foreign keys off (the store keeps its
// own integrity), a new file created 0600 in a directory created 0700. Statements are prepared
// once and cached by their SQL; every value is bound. OBJECTGRAPH_SQL_DEBUG=1 prints each
// statement and its time to stderr, 2 adds the bound values, 3 adds EXPLAIN QUERY PLAN.
import CSQLite
import Foundation

/// A connection to one database file. Not thread-safe: its owner (the store) serializes calls.
///
/// ```swift
/// let connection = try SQLiteConnection(path: "/tmp/pim.sqlite")
/// try connection.transaction {
///     try connection.execute("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, ?, ?)",
///                            [.integer(1), .integer(4), .integer(1), .text("swift")])
/// }
/// ```
final class SQLiteConnection {
    /// The database file.
    let path: String
    private var handle: OpaquePointer?
    /// Prepared statements by SQL.
    private var cache: [String: SQLiteStatement] = [:]
    /// Statements their users keep (``keptStatement(_:)``): never evicted, finalized on close.
    private var kept: [SQLiteStatement] = []
    /// How many statements the cache keeps; past that it starts over (predicates with constant
    /// lists of every length would otherwise grow it without bound).
    private let cacheLimit = 500
    /// How much the connection prints to stderr (`OBJECTGRAPH_SQL_DEBUG`, 0 to 3).
    let debugLevel: Int
    /// How many statements the connection has run (for tests and diagnostics: how many round
    /// trips a request takes).
    private(set) var statementsRun = 0
    /// What the registered SQL functions keep on this connection: a statement that one of them
    /// failed throws the function's error (see ``SQLiteFunctions/State``).
    private let functionState = SQLiteFunctions.State()

    /// Opens (creating it if needed) the database at `path`, waiting up to `busyTimeout`
    /// seconds for locks other connections hold; `readOnly` opens an existing file for reading.
    /// `writeAheadLog` false leaves the file's journal mode as it is (the caller switches it
    /// with ``enableWriteAheadLog(within:)`` once it knows the file is its own).
    init(path: String, busyTimeout: TimeInterval = 10, readOnly: Bool = false, writeAheadLog: Bool = true) throws {
        self.path = path
        debugLevel = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_SQL_DEBUG"] ?? "") ?? 0
        // SQLite would answer a folder with a "disk I/O error", which blames the disk.
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "\(path) is a folder, not a SQLite database file", path: path)
        }
        if !readOnly, path != ":memory:" { try Self.createPrivately(path) }
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw SQLiteError(code: code, message: message, path: path)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(busyTimeout * 1000))
        try SQLiteFunctions.register(on: db, path: path, state: functionState)
        if readOnly {
            try executeScript("PRAGMA query_only = ON;")
        } else {
            try executeScript("PRAGMA foreign_keys = OFF; PRAGMA synchronous = NORMAL;")
            if writeAheadLog { try enableWriteAheadLog(within: busyTimeout) }
        }
    }

    /// Where `og_external_data` reads the files that columns of external binary values name.
    func setExternalDataDirectory(_ directory: URL) {
        functionState.externalDirectory = directory
    }

    /// Switches the file to WAL (a lasting property of the file). SQLite does not call the busy
    /// handler for this switch, so while another process creates the same new file it is retried
    /// here, up to the busy timeout.
    func enableWriteAheadLog(within timeout: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            do {
                let mode = try scalar("PRAGMA journal_mode = WAL")
                guard mode == .text("wal") else {
                    throw SQLiteError(code: SQLITE_ERROR, message: "the journal mode stays \(mode ?? .null), not WAL", sql: "PRAGMA journal_mode = WAL", path: path)
                }
                return
            } catch let error as SQLiteError where error.isBusy && Date() < deadline {
                usleep(5_000)
            }
        }
    }

    deinit { close() }

    /// Creates the file (mode 0600) and its directory (mode 0700) when they do not exist, so that
    /// SQLite, which gives the -wal and -shm files the database's mode, never widens access.
    private static func createPrivately(_ path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        let files = FileManager.default
        if !files.fileExists(atPath: directory.path) {
            do {
                try files.createDirectory(at: directory, withIntermediateDirectories: true,
                                          attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError.io(path: directory.path, reason: "cannot create the store's directory: \(error.localizedDescription)")
            }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd >= 0 {
            Foundation.close(fd)
        } else if errno != EEXIST {
            throw StoreError.io(path: path, reason: "cannot create the store file: \(String(cString: strerror(errno)))")
        }
    }

    /// Finalizes every statement and closes the connection; later calls fail.
    func close() {
        for statement in cache.values { sqlite3_finalize(statement.handle) }
        for statement in kept { sqlite3_finalize(statement.handle) }
        cache = [:]
        kept = []
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    // MARK: Running statements

    /// Runs `sql` (one statement) with `arguments` bound, ignoring any rows.
    func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws {
        try forEachRow(sql, arguments) { _ in }
    }

    /// Runs several statements without arguments (schema creation, PRAGMAs).
    func executeScript(_ sql: String) throws {
        guard let handle else { throw closedError(sql) }
        let start = DispatchTime.now()
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw functionState.takeFailure() ?? SQLiteError(code: code, message: text, sql: sql, path: path)
        }
        log(sql, [], since: start)
    }

    /// Runs `sql` with `arguments` bound and calls `body` with the statement positioned on each
    /// result row in turn.
    func forEachRow(_ sql: String, _ arguments: [SQLiteValue], _ body: (SQLiteStatement) throws -> Void) throws {
        let (statement, cached) = try prepared(sql)
        try run(statement, finalizing: !cached, arguments, body)
    }

    /// Runs a statement of ``keptStatement(_:)`` as ``forEachRow(_:_:_:)`` runs SQL, without
    /// looking it up by its text (what per-row reads and writes would otherwise hash every time).
    func forEachRow(_ statement: SQLiteStatement, _ arguments: [SQLiteValue], _ body: (SQLiteStatement) throws -> Void) throws {
        guard handle != nil else { throw closedError(statement.sql) }
        guard !statement.isInUse else { return try forEachRow(statement.sql, arguments, body) }
        try run(statement, finalizing: false, arguments, body)
    }

    /// Runs a statement of ``keptStatement(_:)``, ignoring any rows.
    func execute(_ statement: SQLiteStatement, _ arguments: [SQLiteValue]) throws {
        try forEachRow(statement, arguments) { _ in }
    }

    /// Runs `statement` (reset afterwards, or finalized when `finalizing`).
    private func run(_ statement: SQLiteStatement, finalizing: Bool, _ arguments: [SQLiteValue],
                     _ body: (SQLiteStatement) throws -> Void) throws {
        let sql = statement.sql
        statement.isInUse = true
        defer {
            if finalizing {
                sqlite3_finalize(statement.handle)
            } else {
                sqlite3_reset(statement.handle)
                statement.isInUse = false
            }
        }
        statementsRun += 1
        if debugLevel >= 3 { explain(sql, arguments) }
        let start = debugLevel >= 1 ? DispatchTime.now() : DispatchTime(uptimeNanoseconds: 0)
        let bound = statement.bind(arguments)
        guard bound == SQLITE_OK else { throw error(bound, sql, arguments) }
        while true {
            let code = sqlite3_step(statement.handle)
            if code == SQLITE_DONE { break }
            // A function that failed the statement (og_matches given a pattern that is not a
            // regular expression) left its own error, which says more than SQLite's.
            guard code == SQLITE_ROW else { throw functionState.takeFailure() ?? error(code, sql, arguments) }
            try body(statement)
        }
        log(sql, arguments, since: start)
    }

    /// Every row of `sql`, each column in its storage class.
    func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        var result: [[SQLiteValue]] = []
        try forEachRow(sql, arguments) { result.append($0.row) }
        return result
    }

    /// The first column of the first row of `sql`, or nil when there is no row.
    func scalar(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> SQLiteValue? {
        var result: SQLiteValue?
        try forEachRow(sql, arguments) { statement in
            if result == nil { result = statement.value(0) }
        }
        return result
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// Whether a transaction is open.
    var inTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`, so that a second writer waits for
    /// the lock at the start rather than failing half-way); commits when it returns, rolls back
    /// when it throws, so the file is as it was.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run(body, in: "BEGIN IMMEDIATE")
    }

    /// Runs `body` in a read transaction (`BEGIN`, which takes no write lock): its statements
    /// read one state of the file, even while another connection writes (WAL).
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try run(body, in: "BEGIN")
    }

    private func run<T>(_ body: () throws -> T, in begin: String) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if let handle, sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Statement cache

    /// A statement prepared for `sql` that the caller keeps for repeated use (a write plan's
    /// INSERT, say): outside the cache, so never evicted; finalized when the connection closes.
    func keptStatement(_ sql: String) throws -> SQLiteStatement {
        let statement = try prepare(sql)
        kept.append(statement)
        return statement
    }

    /// A new statement for `sql`, prepared for repeated use.
    private func prepare(_ sql: String) throws -> SQLiteStatement {
        guard let handle else { throw closedError(sql) }
        var pointer: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard code == SQLITE_OK, let pointer else { throw error(code, sql, []) }
        return SQLiteStatement(handle: pointer, sql: sql)
    }

    /// The cached statement for `sql`, prepared on first use; while the cached one is stepping (a
    /// query run from inside another's row loop), a fresh one that is not cached.
    private func prepared(_ sql: String) throws -> (statement: SQLiteStatement, cached: Bool) {
        if let statement = cache[sql], !statement.isInUse { return (statement, true) }
        let statement = try prepare(sql)
        guard cache[sql] == nil else { return (statement, false) }
        if cache.count >= cacheLimit {
            for (key, cached) in cache where !cached.isInUse {
                sqlite3_finalize(cached.handle)
                cache[key] = nil
            }
        }
        cache[sql] = statement
        return (statement, true)
    }

    // MARK: Errors and diagnostics

    private func error(_ code: Int32, _ sql: String, _ arguments: [SQLiteValue]) -> SQLiteError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql, arguments: arguments, path: path)
    }

    private func closedError(_ sql: String) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed", sql: sql, path: path)
    }

    /// Prints a finished statement (level 1), with its values (level 2).
    private func log(_ sql: String, _ arguments: [SQLiteValue], since start: DispatchTime) {
        guard debugLevel >= 1 else { return }
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
        var line = "objectgraph SQL (\(String(format: "%.3f", milliseconds)) ms): \(sql)"
        if debugLevel >= 2, !arguments.isEmpty {
            line += " [" + arguments.map(\.description).joined(separator: ", ") + "]"
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Prints the query plan of `sql` (level 3).
    private func explain(_ sql: String, _ arguments: [SQLiteValue]) {
        guard let handle else { return }
        var pointer: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "EXPLAIN QUERY PLAN " + sql, -1, &pointer, nil) == SQLITE_OK, let pointer else { return }
        defer { sqlite3_finalize(pointer) }
        let statement = SQLiteStatement(handle: pointer, sql: sql)
        guard statement.bind(arguments) == SQLITE_OK else { return }
        var lines: [String] = []
        while sqlite3_step(pointer) == SQLITE_ROW {
            lines.append("  " + statement.text(3))
        }
        FileHandle.standardError.write(Data(("objectgraph SQL plan:\n" + lines.joined(separator: "\n") + "\n").utf8))
    }
}
