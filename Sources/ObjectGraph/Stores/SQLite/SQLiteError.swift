// The error of every failed SQLite call: SQLite's result code and message, with the statement
// and the values bound to it, so that a failure names what ran and with what.
import CSQLite
import Foundation

/// A failed SQLite call.
///
/// ```swift
/// catch let error as SQLiteError where error.isConstraintViolation { … }
/// error.description   // SQLite error 19 (UNIQUE constraint failed: ZPERSON.ZEMAIL) in "INSERT …" with ['a@b', 3]
/// ```
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code.
    public var code: Int32
    /// SQLite's message.
    public var message: String
    /// The statement that failed, if one was running.
    public var sql: String?
    /// The values bound to it.
    public var arguments: [SQLiteValue]
    /// The database file.
    public var path: String

    public init(code: Int32, message: String, sql: String? = nil, arguments: [SQLiteValue] = [], path: String) {
        self.code = code
        self.message = message
        self.sql = sql
        self.arguments = arguments
        self.path = path
    }

    /// Whether a constraint (UNIQUE, NOT NULL...) failed.
    public var isConstraintViolation: Bool { code & 0xFF == SQLITE_CONSTRAINT }

    /// Whether a UNIQUE constraint (a uniqueness constraint's index) failed.
    public var isUniqueViolation: Bool { code == SQLITE_CONSTRAINT | (8 << 8) }

    /// Whether a row was inserted with a primary key already used.
    public var isPrimaryKeyViolation: Bool { code == SQLITE_CONSTRAINT | (6 << 8) }

    /// Whether another connection held a lock longer than the busy timeout.
    public var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }

    public var description: String {
        var text = "\(path): SQLite error \(code) (\(message))"
        if let sql { text += " in \"\(sql)\"" }
        if !arguments.isEmpty { text += " with [" + arguments.map(\.description).joined(separator: ", ") + "]" }
        return text
    }
}
