// The SQL functions and collations the store registers on each connection, so that SQL compares
// strings exactly as the in-memory evaluator and sort descriptors do: each calls the same Swift
// function (ValueComparison's folding, LIKE and MATCHES; SortDescriptor's comparisons). Names
// start with OG_ / og_; a file opened by another program reads fine, only these queries need them.
// `og_matches` keeps per connection the patterns it compiled and the error of one that would
// not compile, which the connection throws in place of SQLite's (see ``SQLiteFunctions/State``).
import CSQLite
import Foundation

/// Registration of the store's functions and collations.
enum SQLiteFunctions {
    /// Where `og_find` looks for its needle.
    enum Anchor: Int64 {
        case anywhere = 0, start = 1, end = 2

        var comparisonAnchor: ValueComparison.Anchor {
            switch self {
            case .anywhere: return .anywhere
            case .start: return .start
            case .end: return .end
            }
        }
    }

    /// The collation that orders strings as a sort descriptor with `comparison` does.
    static func collation(for comparison: SortComparison) -> String {
        switch comparison {
        case .default: return "OG_COMPARE"
        case .caseInsensitive: return "OG_CASEINSENSITIVE"
        case .localized: return "OG_LOCALIZED"
        case .localizedCaseInsensitive: return "OG_LOCALIZED_CASEINSENSITIVE"
        case .localizedStandard: return "OG_LOCALIZED_STANDARD"
        }
    }

    /// The collation that orders decimal columns (stored as text) by value.
    static let decimalCollation = "OG_DECIMAL"

    /// What the functions keep for one connection, which holds it: the MATCHES patterns
    /// `og_matches` compiled (a column of patterns repeats a few: each is compiled once, not
    /// once per row), and the error of a pattern that is not a regular expression.
    ///
    /// A function can fail a statement only with a message, which SQLite wraps in an error
    /// quoting the whole statement; the connection throws ``failure`` instead, so that a pattern
    /// read from a row fails a fetch as a constant one does, with
    /// ``PredicateError/Kind/invalidRegularExpression(_:)`` naming it. Used on the connection's
    /// thread only (its owner serializes calls), so it needs no lock.
    final class State {
        /// The compiled patterns, bounded (a table of ever new patterns would grow without end).
        var patterns = RegexTable(limit: 64)
        /// The error of the function call that failed the running statement, if one did.
        var failure: (any Error)?
        /// The folder of the store's external binary values (``SQLiteFunctions/externalData``).
        var externalDirectory: URL?

        /// ``failure``, cleared: the error to throw for the statement that just failed.
        func takeFailure() -> (any Error)? {
            defer { failure = nil }
            return failure
        }
    }

    /// Registers everything on `db`; `og_matches` keeps its patterns and failures in `state`
    /// (retained until SQLite lets the function go, when the connection closes).
    static func register(on db: OpaquePointer, path: String, state: State) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        let functions: [(String, Int32, @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)] = [
            ("og_compare", 3, compareFunction),
            ("og_equal", 3, equalFunction),
            ("og_find", 4, findFunction),
            ("og_like", 3, likeFunction),
            ("og_number_compare", 2, numberCompareFunction),
        ]
        for (name, count, function) in functions {
            let code = sqlite3_create_function_v2(db, name, count, flags, nil, function, nil, nil, nil)
            guard code == SQLITE_OK else {
                throw SQLiteError(code: code, message: "cannot register the SQL function \(name)", path: path)
            }
        }
        // SQLite calls the destructor when the function goes, and when registering it fails.
        let matchesCode = sqlite3_create_function_v2(db, "og_matches", 3, flags, Unmanaged.passRetained(state).toOpaque(),
                                                     matchesFunction, nil, nil, releaseState)
        guard matchesCode == SQLITE_OK else {
            throw SQLiteError(code: matchesCode, message: "cannot register the SQL function og_matches", path: path)
        }
        // Not deterministic: the file a value refers to is read when the statement runs.
        let externalCode = sqlite3_create_function_v2(db, externalData, 1, SQLITE_UTF8, Unmanaged.passRetained(state).toOpaque(),
                                                      externalDataFunction, nil, nil, releaseState)
        guard externalCode == SQLITE_OK else {
            throw SQLiteError(code: externalCode, message: "cannot register the SQL function \(externalData)", path: path)
        }
        let arithmeticCode = sqlite3_create_function_v2(db, arithmetic, 3, flags, Unmanaged.passRetained(state).toOpaque(),
                                                        arithmeticFunction, nil, nil, releaseState)
        guard arithmeticCode == SQLITE_OK else {
            throw SQLiteError(code: arithmeticCode, message: "cannot register the SQL function \(arithmetic)", path: path)
        }
        for (index, comparison) in SortComparison.allCases.enumerated() {
            let code = sqlite3_create_collation_v2(db, collation(for: comparison), SQLITE_UTF8,
                                                   UnsafeMutableRawPointer(bitPattern: index + 1), sortCollation, nil)
            guard code == SQLITE_OK else {
                throw SQLiteError(code: code, message: "cannot register the collation \(collation(for: comparison))", path: path)
            }
        }
        let code = sqlite3_create_collation_v2(db, decimalCollation, SQLITE_UTF8, nil, decimalCollationFunction, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: "cannot register the collation \(decimalCollation)", path: path)
        }
        for (name, final) in [(decimalSum, decimalSumFinal), (decimalAverage, decimalAverageFinal)] {
            let code = sqlite3_create_function_v2(db, name, 1, flags, nil, nil, decimalStep, final, nil)
            guard code == SQLITE_OK else {
                throw SQLiteError(code: code, message: "cannot register the SQL function \(name)", path: path)
            }
        }
        let sumCode = sqlite3_create_function_v2(db, sum, 1, flags, nil, nil, sumStep, sumFinal, nil)
        guard sumCode == SQLITE_OK else {
            throw SQLiteError(code: sumCode, message: "cannot register the SQL function \(sum)", path: path)
        }
    }

    // MARK: Sums of numbers

    /// The aggregate function summing numbers as the evaluator's sum does (`Aggregates.sum`):
    /// integers stay an integer until the total leaves 64 bits, then it goes on as a double.
    /// SQLite's SUM fails the whole statement with "integer overflow" instead. NULL over no
    /// number.
    static let sum = "og_sum"

    /// What `og_sum` keeps per group, in memory SQLite gives zeroed.
    private struct NumberTotal {
        var started: Bool
        var isDouble: Bool
        var integer: Int64
        var double: Double
    }

    private static let sumStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let value = argument(arguments, 0) else { return }
        let type = sqlite3_value_type(value)
        guard type == SQLITE_INTEGER || type == SQLITE_FLOAT else { return }
        guard let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<NumberTotal>.size)) else {
            sqlite3_result_error_nomem(context)
            return
        }
        let total = raw.bindMemory(to: NumberTotal.self, capacity: 1)
        total.pointee.started = true
        if type == SQLITE_INTEGER, !total.pointee.isDouble {
            let (sum, overflow) = total.pointee.integer.addingReportingOverflow(sqlite3_value_int64(value))
            if !overflow {
                total.pointee.integer = sum
                return
            }
            total.pointee.isDouble = true
            total.pointee.double = Double(total.pointee.integer) + Double(sqlite3_value_int64(value))
            return
        }
        if !total.pointee.isDouble {
            total.pointee.isDouble = true
            total.pointee.double = Double(total.pointee.integer)
        }
        total.pointee.double += type == SQLITE_INTEGER ? Double(sqlite3_value_int64(value)) : sqlite3_value_double(value)
    }

    private static let sumFinal: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let raw = sqlite3_aggregate_context(context, 0) else { sqlite3_result_null(context); return }
        let total = raw.bindMemory(to: NumberTotal.self, capacity: 1).pointee
        if !total.started {
            sqlite3_result_null(context)
        } else if total.isDouble {
            sqlite3_result_double(context, total.double)
        } else {
            sqlite3_result_int64(context, total.integer)
        }
    }

    // MARK: Decimal aggregates

    /// The aggregate function summing decimal text exactly (decimal columns are text, which
    /// SQLite's SUM would read as numbers up to the first character that is not a digit, and as
    /// doubles): the sum's text, NULL over no number.
    static let decimalSum = "og_decimal_sum"
    /// The aggregate function averaging decimal text exactly: the mean's text, NULL over no number.
    static let decimalAverage = "og_decimal_avg"

    /// What the decimal aggregates keep per group, in memory SQLite gives zeroed.
    private struct DecimalTotal {
        var started: Bool
        var count: Int64
        var sum: Decimal
    }

    /// Adds the argument (decimal text; NULL and other text left out) to the group's total.
    private static let decimalStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let value = number(arguments, 0)?.decimalValue else { return }
        guard let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<DecimalTotal>.size)) else {
            sqlite3_result_error_nomem(context)
            return
        }
        let total = raw.bindMemory(to: DecimalTotal.self, capacity: 1)
        if !total.pointee.started { total.initialize(to: DecimalTotal(started: true, count: 0, sum: 0)) }
        total.pointee.count += 1
        total.pointee.sum += value
    }

    /// The group's total (nil when no number was added).
    private static func decimalTotal(_ context: OpaquePointer?) -> DecimalTotal? {
        guard let raw = sqlite3_aggregate_context(context, 0) else { return nil }
        let total = raw.bindMemory(to: DecimalTotal.self, capacity: 1).pointee
        return total.started ? total : nil
    }

    private static func result(_ context: OpaquePointer?, _ decimal: Decimal?) {
        guard let decimal else { sqlite3_result_null(context); return }
        let text = SQLiteValueCoding.text(of: decimal)
        sqlite3_result_text(context, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    private static let decimalSumFinal: @convention(c) (OpaquePointer?) -> Void = { context in
        result(context, decimalTotal(context)?.sum)
    }

    private static let decimalAverageFinal: @convention(c) (OpaquePointer?) -> Void = { context in
        result(context, decimalTotal(context).map { $0.sum / Decimal($0.count) })
    }

    // MARK: Reading arguments

    private static func argument(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> OpaquePointer? {
        arguments?[index]
    }

    /// The text of argument `index`, or nil when it is NULL.
    private static func text(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> String? {
        guard let value = argument(arguments, index), sqlite3_value_type(value) != SQLITE_NULL,
              let bytes = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    private static func integer(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> Int64 {
        argument(arguments, index).map { sqlite3_value_int64($0) } ?? 0
    }

    private static func options(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> ComparisonPredicate.Options {
        ComparisonPredicate.Options(rawValue: Int(integer(arguments, index)))
    }

    /// The number held by argument `index`: integers and reals as they are, text parsed as a
    /// decimal (decimal columns are text); nil for NULL or text that is not a number.
    private static func number(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> Number? {
        guard let value = argument(arguments, index) else { return nil }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .double(sqlite3_value_double(value))
        case SQLITE_TEXT: return text(arguments, index).flatMap(SQLiteValueCoding.decimal).map { .decimal($0) }
        default: return nil
        }
    }

    private static func result(_ context: OpaquePointer?, _ value: Bool?) {
        guard let value else { sqlite3_result_null(context); return }
        sqlite3_result_int64(context, value ? 1 : 0)
    }

    private static func result(_ context: OpaquePointer?, _ order: ComparisonResult?) {
        guard let order else { sqlite3_result_null(context); return }
        sqlite3_result_int64(context, order == .orderedAscending ? -1 : order == .orderedSame ? 0 : 1)
    }

    // MARK: Functions

    /// `og_compare(a, b, options)`: -1, 0 or 1 as the evaluator orders two strings; NULL if one is.
    private static let compareFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let a = text(arguments, 0), let b = text(arguments, 1) else { return result(context, nil as ComparisonResult?) }
        result(context, ValueComparison.compareStrings(a, b, options(arguments, 2)))
    }

    /// `og_equal(a, b, options)`: whether the evaluator finds two strings equal; NULL if one is.
    private static let equalFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let a = text(arguments, 0), let b = text(arguments, 1) else { return result(context, nil as Bool?) }
        result(context, ValueComparison.stringsEqual(a, b, options(arguments, 2)))
    }

    /// `og_find(haystack, needle, anchor, options)`: BEGINSWITH (1), ENDSWITH (2), CONTAINS (0).
    private static let findFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let haystack = text(arguments, 0), let needle = text(arguments, 1) else { return result(context, nil as Bool?) }
        let anchor = Anchor(rawValue: integer(arguments, 2)) ?? .anywhere
        result(context, ValueComparison.find(needle, in: haystack, anchor.comparisonAnchor, options(arguments, 3)))
    }

    /// `og_like(subject, pattern, options)`: the predicate language's LIKE (`*`, `?`, `\`).
    private static let likeFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let subject = text(arguments, 0), let pattern = text(arguments, 1) else { return result(context, nil as Bool?) }
        result(context, ValueComparison.like(subject, pattern, options(arguments, 2)))
    }

    /// `og_matches(subject, pattern, options)`: MATCHES, each distinct pattern compiled once per
    /// connection (the function's ``State``); a pattern that is not a regular expression fails
    /// the statement, its error kept for the connection to throw.
    private static let matchesFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let subject = text(arguments, 0), let pattern = text(arguments, 1) else { return result(context, nil as Bool?) }
        guard let pointer = sqlite3_user_data(context) else {
            return sqlite3_result_error(context, "og_matches was registered without its state", -1)
        }
        let state = Unmanaged<State>.fromOpaque(pointer).takeUnretainedValue()
        let matchOptions = options(arguments, 2)
        do {
            result(context, ValueComparison.matches(subject, try state.patterns.regex(pattern, matchOptions), matchOptions))
        } catch {
            state.failure = error
            sqlite3_result_error(context, "\(error)", -1)
        }
    }

    /// The function computing arithmetic as the evaluator does, where SQL's operators would not:
    /// `og_arithmetic(selector, a, b)` with `divide:by:`, `modulus:by:` or `raise:toPower:`, or
    /// with decimal text on either side (NULL for NULL; a division by zero fails the statement
    /// with the evaluator's error, kept in the ``State`` like og_matches' errors).
    static let arithmetic = "og_arithmetic"

    /// Integers and reals as the evaluator's numbers (Int, Double), decimal text as Decimal.
    private static func arithmeticOperand(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> Any? {
        switch number(arguments, index) {
        case .integer(let v): return Int(v)
        case .double(let v): return v
        case .decimal(let v): return v
        case nil: return nil
        }
    }

    private static let arithmeticFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let selector = text(arguments, 0) else { return sqlite3_result_null(context) }
        do {
            switch try BuiltinFunction.evaluate(selector, [arithmeticOperand(arguments, 1), arithmeticOperand(arguments, 2)]) {
            case let value as Int: sqlite3_result_int64(context, Int64(value))
            case let value as Double: sqlite3_result_double(context, value)
            case let value as Decimal: result(context, value)
            default: sqlite3_result_null(context)
            }
        } catch {
            if let pointer = sqlite3_user_data(context) {
                Unmanaged<State>.fromOpaque(pointer).takeUnretainedValue().failure = error
            }
            sqlite3_result_error(context, "\(error)", -1)
        }
    }

    /// `og_external_data(column)`: the inline form (0x01 and the bytes) of a binary value whose
    /// column refers to a file beside the store (0x02 and the file's name), so that it compares
    /// with a constant as the value does; any other value as it is. A file that cannot be read
    /// fails the statement, naming it.
    static let externalData = "og_external_data"

    private static let externalDataFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let value = argument(arguments, 0) else { return sqlite3_result_null(context) }
        let count = Int(sqlite3_value_bytes(value))
        guard sqlite3_value_type(value) == SQLITE_BLOB, count > 1, let bytes = sqlite3_value_blob(value),
              bytes.load(as: UInt8.self) == SQLiteExternalData.fileTag else {
            return sqlite3_result_value(context, value)
        }
        let name = String(decoding: UnsafeRawBufferPointer(start: bytes + 1, count: count - 1), as: UTF8.self)
        guard let pointer = sqlite3_user_data(context) else {
            return sqlite3_result_error(context, "og_external_data was registered without its state", -1)
        }
        let state = Unmanaged<State>.fromOpaque(pointer).takeUnretainedValue()
        do {
            guard let directory = state.externalDirectory else {
                throw StoreError.io(path: name, reason: "the connection knows no folder of external data")
            }
            let data = try SQLiteExternalData.read(name, in: directory)
            let inline = Data([SQLiteValueCoding.inlineDataTag]) + data
            inline.withUnsafeBytes { buffer in
                sqlite3_result_blob(context, buffer.baseAddress, Int32(buffer.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            }
        } catch {
            state.failure = error
            sqlite3_result_error(context, "\(error)", -1)
        }
    }

    /// Releases the ``State`` `og_matches` was registered with.
    private static let releaseState: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<State>.fromOpaque(pointer).release()
    }

    /// `og_number_compare(a, b)`: -1, 0 or 1 comparing numbers by value as the evaluator does
    /// (decimal text exactly); NULL when either is not a number.
    private static let numberCompareFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let a = number(arguments, 0), let b = number(arguments, 1) else { return result(context, nil as ComparisonResult?) }
        result(context, a.compare(b))
    }

    // MARK: Collations

    private static func string(_ count: Int32, _ bytes: UnsafeRawPointer?) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }

    private static func order(_ result: ComparisonResult) -> Int32 {
        result == .orderedAscending ? -1 : result == .orderedSame ? 0 : 1
    }

    /// Orders as `SortDescriptor.compareValues` does for the comparison the context points at.
    private static let sortCollation: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { context, countA, a, countB, b in
        let index = Int(bitPattern: context) - 1
        let comparison = SortComparison.allCases[max(0, min(index, SortComparison.allCases.count - 1))]
        let descriptor = SortDescriptor(key: "", comparison: comparison)
        return order(descriptor.compareValues(string(countA, a), string(countB, b)))
    }

    /// Orders decimal text by value.
    private static let decimalCollationFunction: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, countA, a, countB, b in
        let x = SQLiteValueCoding.decimal(string(countA, a)) ?? 0, y = SQLiteValueCoding.decimal(string(countB, b)) ?? 0
        return x < y ? -1 : x == y ? 0 : 1
    }
}
