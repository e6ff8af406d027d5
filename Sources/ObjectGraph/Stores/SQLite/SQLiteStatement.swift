// A prepared statement: binding values by position, stepping through rows and reading typed
// columns. Statements are owned by their connection, which caches them by SQL and finalizes them
// when it closes; a statement is used by one call at a time (the connection checks).
import CSQLite
import Foundation

/// SQLite's "copy the bytes now" destructor for bound text and blobs.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement of a ``SQLiteConnection``.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    /// Whether a call is using the statement (stepping its rows); the cache hands out another then.
    var isInUse = false

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    /// Binds `values` to parameters 1...n, replacing earlier bindings.
    func bind(_ values: [SQLiteValue]) -> Int32 {
        // Parameters left out are NULL; when every one is bound, none is left to clear.
        let parameters = Int(sqlite3_bind_parameter_count(handle))
        if values.count != parameters { sqlite3_clear_bindings(handle) }
        // Values past the last parameter the SQL names are not bound: a translated term can
        // bind its operands and then turn out constant (`points * 2 == 'six'` is `0`), leaving
        // numbered placeholders (`?N`) unused at the end.
        for (offset, value) in values.enumerated() {
            if offset == parameters { break }
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
            case .double(let v): code = sqlite3_bind_double(handle, index, v)
            case .text(var v):
                // The byte count, not NUL-termination, bounds the text: it may hold NUL characters.
                // The UTF-8 in place (small strings on the stack), not a C string copied to the
                // heap; an empty string still needs a non-null pointer to stay text, not NULL.
                code = v.withUTF8 { bytes in
                    let start = UnsafeRawPointer(bytes.baseAddress) ?? UnsafeRawPointer(bitPattern: 1)!
                    return sqlite3_bind_text(handle, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), transientDestructor)
                }
            case .blob(let v):
                code = v.withUnsafeBytes { bytes in
                    // A zero-length blob still needs a non-null pointer to stay a blob, not NULL.
                    sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(v.count), transientDestructor)
                }
            }
            if code != SQLITE_OK { return code }
        }
        return SQLITE_OK
    }

    /// The number of columns of a result row.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Whether column `index` of the current row is NULL.
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The storage class of column `index` of the current row (`SQLITE_INTEGER`, `SQLITE_NULL`...).
    func storageClass(_ index: Int32) -> Int32 { sqlite3_column_type(handle, index) }

    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func blob(_ index: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Column `index` of the current row in its storage class.
    func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .double(double(index))
        case SQLITE_TEXT: return .text(text(index))
        default: return .blob(blob(index))
        }
    }

    /// The current row, every column in its storage class.
    var row: [SQLiteValue] { (0..<columnCount).map(value) }
}
