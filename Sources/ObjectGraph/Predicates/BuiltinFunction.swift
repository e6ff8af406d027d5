// The built-in functions of the expression language (Foundation's `expressionForFunction:`
// table): aggregates, arithmetic, math, random and time, strings, bitwise, `noindex:` and
// `castObject:toType:`. Names are Foundation's selectors; operators print as infix symbols.
import Foundation

/// A built-in function of the expression language.
struct BuiltinFunction: Sendable {
    /// The selector-style name: `sum:`, `add:to:`, `now`.
    let name: String
    /// The number of arguments it takes; nil for the aggregates, which take one collection or
    /// any number of values.
    let arity: Int?

    static let all: [String: BuiltinFunction] = {
        var table: [String: BuiltinFunction] = [:]
        for name in ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"] {
            table[name] = BuiltinFunction(name: name, arity: nil)
        }
        for name in [
            "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
            "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
            "castObject:toType:",
        ] {
            table[name] = BuiltinFunction(name: name, arity: 2)
        }
        for name in [
            "sqrt:", "log:", "ln:", "exp:", "ceiling:", "abs:", "trunc:", "floor:", "random:", "uppercase:",
            "lowercase:", "onesComplement:", "noindex:", "length:",
        ] {
            table[name] = BuiltinFunction(name: name, arity: 1)
        }
        for name in ["random", "now"] { table[name] = BuiltinFunction(name: name, arity: 0) }
        return table
    }()

    /// The function written `name(args)` or `name:(args)` with this many arguments, if any.
    static func resolve(_ written: String, argumentCount: Int) -> BuiltinFunction? {
        let candidates = written.hasSuffix(":") ? [written] : [written, written + ":"]
        for candidate in candidates {
            if let function = all[candidate], function.arity == nil ? argumentCount >= 1 : function.arity == argumentCount {
                return function
            }
        }
        if !written.hasSuffix(":") {
            for function in all.values where function.arity == argumentCount && argumentCount > 1
                && function.name.hasPrefix(written + ":")
            {
                return function
            }
        }
        return nil
    }

    private static let infixSymbols: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
        "bitwiseAnd:with:": "&", "bitwiseOr:with:": "|", "bitwiseXor:with:": "^", "leftshift:by:": "<<",
        "rightshift:by:": ">>",
    ]

    /// The operator a two-argument function prints as (`add:to:` is `+`), if any.
    static func infixSymbol(_ name: String) -> String? { infixSymbols[name] }

    /// The arithmetic functions, whose value is nil when an argument is.
    static let arithmeticFunctions: Set<String> = ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:"]

    /// Applies the function named `name` to evaluated arguments.
    static func evaluate(_ name: String, _ arguments: [Any?]) throws -> Any? {
        // Arithmetic with nil is nil, as SQL's is with NULL: `score * 2 > 10` is false for an
        // object without a score, in memory and in SQLite alike, instead of failing the fetch.
        if arithmeticFunctions.contains(name) {
            if arguments.contains(where: { KeyValueAccess.normalized($0) == nil }) { return nil }
            // Not a number is no value, as SQL's NULL (SQLite stores a NaN as NULL).
            switch try evaluateFunction(name, arguments) {
            case let value as Double where value.isNaN: return nil
            case let value as Decimal where value.isNaN: return nil
            case let value: return value
            }
        }
        return try evaluateFunction(name, arguments)
    }

    /// ``evaluate(_:_:)`` for every function.
    private static func evaluateFunction(_ name: String, _ arguments: [Any?]) throws -> Any? {
        func number(_ i: Int) throws -> Number {
            guard let value = KeyValueAccess.normalized(arguments[i]), let n = Number(value) else {
                throw PredicateError(.evaluation, "\(name) needs a number, got \(ValueComparison.describe(arguments[i]))")
            }
            return n
        }
        func integer(_ i: Int) throws -> Int64 {
            guard let v = try number(i).integerValue else {
                throw PredicateError(.evaluation, "\(name) needs an integer")
            }
            return v
        }
        func string(_ i: Int) throws -> String? {
            guard let value = KeyValueAccess.normalized(arguments[i]) else { return nil }
            guard let s = ValueComparison.string(value) else {
                throw PredicateError(.evaluation, "\(name) needs a string, got \(ValueComparison.describe(value))")
            }
            return s
        }
        switch name {
        case "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:":
            var values: [Any] = []
            if arguments.count == 1, let items = KeyValueAccess.collectionElements(arguments[0]) {
                values = items
            } else {
                values = arguments.compactMap { $0 }
            }
            let present = values.compactMap { KeyValueAccess.normalized($0) }
            switch name {
            case "count:": return values.count
            case "sum:": return try Aggregates.checkedSum(present, name)
            case "min:": return Aggregates.extreme(present, wantMax: false)
            case "max:": return Aggregates.extreme(present, wantMax: true)
            case "average:": return try Aggregates.checkedNumbers(present, name).isEmpty ? nil : Aggregates.average(present)
            case "median:": return Aggregates.median(try Aggregates.checkedNumbers(present, name))
            case "mode:": return Aggregates.mode(present)
            default: return Aggregates.standardDeviation(try Aggregates.checkedNumbers(present, name))
            }
        case "add:to:", "from:subtract:", "multiply:by:":
            // A date takes seconds added (either way round) or subtracted.
            if name != "multiply:by:", let date = KeyValueAccess.normalized(arguments[0]) as? Date {
                let seconds = try number(1).doubleValue
                return date.addingTimeInterval(name == "add:to:" ? seconds : -seconds)
            }
            if name == "add:to:", let date = KeyValueAccess.normalized(arguments[1]) as? Date {
                return date.addingTimeInterval(try number(0).doubleValue)
            }
            return try arithmetic(name, try number(0), try number(1))
        case "divide:by:":
            let a = try number(0), b = try number(1)
            guard b.doubleValue != 0 else { throw PredicateError(.evaluation, "division by zero") }
            if case .decimal = a { return a.decimalValue / b.decimalValue }
            if case .decimal = b { return a.decimalValue / b.decimalValue }
            return a.doubleValue / b.doubleValue
        case "modulus:by:":
            let a = try number(0), b = try number(1)
            if case .integer(let x) = a, case .integer(let y) = b {
                guard y != 0 else { throw PredicateError(.evaluation, "modulus by zero") }
                return Int(x.remainderReportingOverflow(dividingBy: y).partialValue)
            }
            return fmod(a.doubleValue, b.doubleValue)
        case "raise:toPower:":
            let a = try number(0), b = try number(1)
            if case .integer(let x) = a, case .integer(let y) = b, y >= 0, y < 64 {
                var result: Int64 = 1
                var overflow = false
                for _ in 0..<y where !overflow {
                    (result, overflow) = result.multipliedReportingOverflow(by: x)
                }
                if !overflow { return Int(result) }
            }
            return pow(a.doubleValue, b.doubleValue)
        case "sqrt:": return sqrt(try number(0).doubleValue)
        case "log:": return log10(try number(0).doubleValue)
        case "ln:": return log(try number(0).doubleValue)
        case "exp:": return exp(try number(0).doubleValue)
        case "ceiling:": return ceil(try number(0).doubleValue)
        case "trunc:": return trunc(try number(0).doubleValue)
        case "floor:": return floor(try number(0).doubleValue)
        case "abs:":
            switch try number(0) {
            case .integer(let v): return v == Int64.min ? Double(v).magnitude : Int(abs(v))
            case .double(let v): return abs(v)
            case .decimal(let v): return abs(v)
            }
        case "random": return Double.random(in: 0..<1)
        case "random:":
            let upper = try integer(0)
            return upper > 0 ? Int(Int64.random(in: 0..<upper)) : 0
        case "now": return Date()
        case "uppercase:": return try string(0)?.uppercased()
        case "lowercase:": return try string(0)?.lowercased()
        case "length:": return try string(0)?.utf16.count
        case "noindex:": return arguments[0]
        case "bitwiseAnd:with:": return Int(try integer(0) & integer(1))
        case "bitwiseOr:with:": return Int(try integer(0) | integer(1))
        case "bitwiseXor:with:": return Int(try integer(0) ^ integer(1))
        case "leftshift:by:":
            let shift = try integer(1)
            return shift >= 64 || shift < 0 ? 0 : Int(try integer(0) << shift)
        case "rightshift:by:":
            let shift = try integer(1)
            return shift >= 64 || shift < 0 ? 0 : Int(try integer(0) >> shift)
        case "onesComplement:": return Int(~(try integer(0)))
        case "castObject:toType:":
            guard let type = try string(1) else { throw PredicateError(.evaluation, "CAST needs a type name") }
            return try cast(KeyValueAccess.normalized(arguments[0]), to: type)
        default:
            throw PredicateError(.evaluation, "unknown function \(name)")
        }
    }

    private static func arithmetic(_ name: String, _ a: Number, _ b: Number) throws -> Any {
        if case .integer(let x) = a, case .integer(let y) = b {
            let (result, overflow): (Int64, Bool)
            switch name {
            case "add:to:": (result, overflow) = x.addingReportingOverflow(y)
            case "from:subtract:": (result, overflow) = x.subtractingReportingOverflow(y)
            default: (result, overflow) = x.multipliedReportingOverflow(by: y)
            }
            if !overflow { return Int(result) }
        }
        switch (a, b) {
        case (.decimal, _), (_, .decimal):
            let x = a.decimalValue, y = b.decimalValue
            switch name {
            case "add:to:": return x + y
            case "from:subtract:": return x - y
            default: return x * y
            }
        default:
            let x = a.doubleValue, y = b.doubleValue
            switch name {
            case "add:to:": return x + y
            case "from:subtract:": return x - y
            default: return x * y
            }
        }
    }

    /// `CAST(value, "Type")`: to NSDate (from seconds since 2001), NSNumber, NSDecimalNumber,
    /// NSString, NSData (from base64), NSUUID, NSURL, or Class (a name for `isKindOfClass:`).
    static func cast(_ value: Any?, to type: String) throws -> Any? {
        guard let value else { return nil }
        switch type {
        case "NSDate":
            if let date = value as? Date { return date }
            if let n = Number(value) { return Date(timeIntervalSinceReferenceDate: n.doubleValue) }
            if let s = ValueComparison.string(value), let seconds = Double(s) {
                return Date(timeIntervalSinceReferenceDate: seconds)
            }
        case "NSNumber", "NSDecimalNumber":
            if let n = Number(value) { return type == "NSDecimalNumber" ? n.decimalValue : n.anyValue }
            if let date = value as? Date { return date.timeIntervalSinceReferenceDate }
            if let s = ValueComparison.string(value) {
                let trimmed = s.trimmingCharacters(in: .whitespaces)
                if let i = Int(trimmed) { return i }
                if let d = Double(trimmed) { return d }
                return 0
            }
        case "NSString":
            if let s = ValueComparison.string(value) { return s }
            if let n = Number(value) { return ConstantValue(number: n).expressionFormat }
            return String(describing: value)
        case "Class":
            if let s = ValueComparison.string(value) { return TypeName(s) }
        case "NSData":
            if let data = value as? Data { return data }
            if let s = ValueComparison.string(value), let data = Data(base64Encoded: s) { return data }
        case "NSUUID":
            if let uuid = value as? UUID { return uuid }
            if let s = ValueComparison.string(value), let uuid = UUID(uuidString: s) { return uuid }
        case "NSURL":
            if let url = value as? URL { return url }
            if let s = ValueComparison.string(value), let url = URL(string: s) { return url }
        default:
            break
        }
        throw PredicateError(.evaluation, "cannot cast \(ValueComparison.describe(value)) to \(type)")
    }
}

extension ConstantValue {
    /// The constant holding a number.
    init(number: Number) { self = number.constant }
}
