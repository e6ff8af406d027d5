// The five kinds of value SQLite stores (NULL, INTEGER, REAL, TEXT, BLOB) as one Swift enum: what
// statements bind and what rows give back. Conversions to and from model values live in
// SQLiteValueCoding.swift; this file knows nothing of models.
import Foundation

/// A value as SQLite holds it: the storage classes of its type system.
///
/// ```swift
/// try connection.execute("UPDATE ZTASK SET ZTITLE = ? WHERE Z_PK = ?", [.text("Plan"), .integer(3)])
/// ```
public enum SQLiteValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
    case blob(Data)

    /// The value as it appears in debug output and error messages (blobs shortened).
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .double(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data):
            let hex = data.prefix(16).map { String(format: "%02X", $0) }.joined()
            return "x'\(hex)'" + (data.count > 16 ? "… (\(data.count) bytes)" : "")
        }
    }

    /// The integer held, if the value is an integer.
    var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}
