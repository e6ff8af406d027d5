// Printing predicates and expressions in Core Data's canonical `predicateFormat`: operators
// upper-case and normalized (`=` prints `==`), options in brackets, strings double-quoted,
// booleans as 1/0, dates as CAST(seconds, "NSDate"), nested compounds parenthesized.
import Foundation

extension Predicate: CustomStringConvertible {
    /// The canonical format string; parsing it gives back an equal predicate, unless a constant
    /// has no literal in the format syntax: a dictionary (printed as NSPredicate prints one,
    /// `{"k": 1}`), a managed object or another opaque value (their description), NaN. Those
    /// are for reading; substitute them as arguments (`%@`) instead.
    ///
    /// ```swift
    /// try Predicate(format: "a = 1 and b like[c] 'x*'").predicateFormat
    /// // a == 1 AND b LIKE[c] "x*"
    /// ```
    public var predicateFormat: String {
        switch self {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .comparison(let comparison): return comparison.predicateFormat
        case .and(let operands):
            return operands.isEmpty ? "TRUEPREDICATE" : operands.map(\.compoundOperandFormat).joined(separator: " AND ")
        case .or(let operands):
            return operands.isEmpty ? "FALSEPREDICATE" : operands.map(\.compoundOperandFormat).joined(separator: " OR ")
        case .not(let operand): return "NOT " + operand.compoundOperandFormat
        }
    }

    /// The canonical format string.
    public var description: String { predicateFormat }

    private var compoundOperandFormat: String {
        switch self {
        case .and(let operands) where !operands.isEmpty: return "(\(predicateFormat))"
        case .or(let operands) where !operands.isEmpty: return "(\(predicateFormat))"
        default: return predicateFormat
        }
    }
}

extension ComparisonPredicate: CustomStringConvertible {
    /// The canonical format: `ANY tags.name ==[cd] "x"`.
    public var predicateFormat: String {
        var text = ""
        switch modifier {
        case .direct: break
        case .any: text += "ANY "
        case .all: text += "ALL "
        }
        text += left.expressionFormat + " " + `operator`.symbol
        if !options.isEmpty { text += "[" + options.letters + "]" }
        return text + " " + right.expressionFormat
    }

    /// The canonical format.
    public var description: String { predicateFormat }
}

extension ComparisonPredicate.Operator {
    /// The operator as printed: `==`, `BEGINSWITH`, `isKindOfClass:`.
    public var symbol: String {
        switch self {
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .equalTo: return "=="
        case .notEqualTo: return "!="
        case .matches: return "MATCHES"
        case .like: return "LIKE"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .in: return "IN"
        case .contains: return "CONTAINS"
        case .between: return "BETWEEN"
        case .customSelector(let selector): return selector
        }
    }
}

extension ComparisonPredicate.Options {
    /// The option letters in Foundation's bit order: `c`, `d`, `n`, `l`.
    public var letters: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        if contains(.normalized) { letters += "n" }
        if contains(.localeSensitive) { letters += "l" }
        return letters
    }
}

extension Expression: CustomStringConvertible {
    /// The canonical format string of the expression; parsing it gives back an equal expression.
    public var expressionFormat: String {
        switch self {
        case .constant(let value): return value.expressionFormat
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .keyPath(let path): return Self.keyPathFormat(path)
        case .member(let base, let path): return base.postfixBaseFormat + "." + Self.keyPathFormat(path)
        case .dynamicMember(let base, let key): return base.postfixBaseFormat + "." + key.expressionFormat
        case .subscripted(let base, let sub):
            let inner: String
            switch sub {
            case .first: inner = "FIRST"
            case .last: inner = "LAST"
            case .size: inner = "SIZE"
            case .index(let index): inner = index.expressionFormat
            }
            return base.postfixBaseFormat + "[" + inner + "]"
        case .aggregate(let elements):
            return "{" + elements.map(\.expressionFormat).joined(separator: ", ") + "}"
        case .function(let name, let arguments):
            if let symbol = BuiltinFunction.infixSymbol(name), arguments.count == 2 {
                return arguments[0].infixOperandFormat + " " + symbol + " " + arguments[1].infixOperandFormat
            }
            if name == "castObject:toType:", arguments.count == 2 {
                return "CAST(" + arguments[0].expressionFormat + ", " + arguments[1].expressionFormat + ")"
            }
            return name + "(" + arguments.map(\.expressionFormat).joined(separator: ", ") + ")"
        case .method(let receiver, let selector, let arguments):
            return "FUNCTION(" + receiver.expressionFormat + ", " + ConstantValue.quoted(selector)
                + arguments.map { " , " + $0.expressionFormat }.joined() + ")"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(" + collection.expressionFormat + ", $" + variable + ", "
                + predicate.predicateFormat + ")"
        case .conditional(let condition, let whenTrue, let whenFalse):
            return "TERNARY(" + condition.predicateFormat + ", " + whenTrue.expressionFormat + ", "
                + whenFalse.expressionFormat + ")"
        case .setOperation(let op, let left, let right):
            return left.infixOperandFormat + " " + op.rawValue + " " + right.infixOperandFormat
        }
    }

    /// The canonical format string.
    public var description: String { expressionFormat }

    private var isInfix: Bool {
        switch self {
        case .function(let name, let arguments): return arguments.count == 2 && BuiltinFunction.infixSymbol(name) != nil
        case .setOperation: return true
        default: return false
        }
    }

    private var infixOperandFormat: String { isInfix ? "(" + expressionFormat + ")" : expressionFormat }

    private var postfixBaseFormat: String {
        if isInfix { return "(" + expressionFormat + ")" }
        if case .constant(let value) = self, let n = value.number, n.doubleValue < 0 {
            return "(" + expressionFormat + ")"
        }
        if case .constant(.date) = self { return "(" + expressionFormat + ")" }
        return expressionFormat
    }

    /// A key path with reserved words escaped by `#` (`g.@max.#self`). FIRST, LAST and SIZE are
    /// escaped too: in a subscript (`a[#first]`) the bare word is the keyword.
    static func keyPathFormat(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false).map { component in
            let word = component.uppercased()
            return PredicateParser.reservedWords.contains(word) || ["FIRST", "LAST", "SIZE"].contains(word) ? "#" + component : String(component)
        }.joined(separator: ".")
    }
}

extension ConstantValue {
    /// The constant as written in a format string: `"text"`, `42`, `1` for YES, `nil`,
    /// `CAST(724000000.000000, "NSDate")`, `{1, 2}`; data, UUIDs and URLs print as a CAST of
    /// their string form (`CAST("AQID", "NSData")`) so they parse back.
    public var expressionFormat: String {
        switch self {
        case .null: return "nil"
        case .nullObject: return "<null>"
        case .bool(let v): return v ? "1" : "0"
        case .integer(let v): return String(v)
        case .double(let v): return Self.format(v)
        case .decimal(let v): return "\(v)"
        case .string(let v): return Self.quoted(v)
        case .date(let d):
            let seconds = d.timeIntervalSinceReferenceDate
            var text = String(format: "%.6f", seconds)
            if Double(text) != seconds { text = Self.format(seconds) }
            return "CAST(\(text), \"NSDate\")"
        case .data(let v): return "CAST(\(Self.quoted(v.base64EncodedString())), \"NSData\")"
        case .uuid(let v): return "CAST(\(Self.quoted(v.uuidString)), \"NSUUID\")"
        case .url(let v): return "CAST(\(Self.quoted(v.absoluteString)), \"NSURL\")"
        case .array(let v): return "{" + v.map(\.expressionFormat).joined(separator: ", ") + "}"
        case .set(let v): return "{" + v.map(\.expressionFormat).sorted().joined(separator: ", ") + "}"
        case .orderedSet(let v): return "{" + v.map(\.expressionFormat).joined(separator: ", ") + "}"
        case .dictionary(let v):
            return "{" + v.keys.sorted().map { Self.quoted($0) + ": " + v[$0]!.expressionFormat }
                .joined(separator: ", ") + "}"
        case .typeName(let name): return "CAST(\(Self.quoted(name)), \"Class\")"
        case .object(let reference): return String(describing: reference.object)
        case .opaque(let value): return String(describing: value.value)
        }
    }

    /// A double at full precision, integral values without a fraction (`2`, `13.39657778010461`).
    static func format(_ v: Double) -> String {
        if v.isFinite, v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        // Infinity as a literal that reads back as it (`inf` would be a key).
        if v.isInfinite { return v < 0 ? "-1e999" : "1e999" }
        return "\(v)"
    }

    /// A double-quoted string literal with `\` `"` and control characters escaped.
    static func quoted(_ s: String) -> String {
        var text = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            default:
                if c.value < 0x20 || c.value == 0x7f {
                    text += String(format: "\\u%04x", c.value)
                } else {
                    text.unicodeScalars.append(c)
                }
            }
        }
        return text + "\""
    }
}
