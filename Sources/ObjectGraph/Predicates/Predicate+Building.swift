// Building predicates in Swift instead of format strings: terms (key paths, typed `Key`s,
// constants, variables) compared with ==, <, ... or with named operators, and predicates
// combined with &&, || and !. The result is the same tree the parser builds.
import Foundation

/// A value that can be a constant of a predicate built in code: `name == "Ada"`, `age > 30`.
public protocol PredicateConstantConvertible {
    /// The value as a constant.
    var predicateConstant: ConstantValue { get }
}

extension String: PredicateConstantConvertible {
    /// The string constant.
    public var predicateConstant: ConstantValue { .string(self) }
}
extension Int: PredicateConstantConvertible {
    /// The integer constant.
    public var predicateConstant: ConstantValue { .integer(Int64(self)) }
}
extension Int16: PredicateConstantConvertible {
    /// The integer constant.
    public var predicateConstant: ConstantValue { .integer(Int64(self)) }
}
extension Int32: PredicateConstantConvertible {
    /// The integer constant.
    public var predicateConstant: ConstantValue { .integer(Int64(self)) }
}
extension Int64: PredicateConstantConvertible {
    /// The integer constant.
    public var predicateConstant: ConstantValue { .integer(self) }
}
extension Double: PredicateConstantConvertible {
    /// The floating-point constant.
    public var predicateConstant: ConstantValue { .double(self) }
}
extension Float: PredicateConstantConvertible {
    /// The floating-point constant.
    public var predicateConstant: ConstantValue { .double(Double(self)) }
}
extension Decimal: PredicateConstantConvertible {
    /// The decimal constant.
    public var predicateConstant: ConstantValue { .decimal(self) }
}
extension Bool: PredicateConstantConvertible {
    /// The boolean constant.
    public var predicateConstant: ConstantValue { .bool(self) }
}
extension Date: PredicateConstantConvertible {
    /// The date constant.
    public var predicateConstant: ConstantValue { .date(self) }
}
extension Data: PredicateConstantConvertible {
    /// The data constant.
    public var predicateConstant: ConstantValue { .data(self) }
}
extension UUID: PredicateConstantConvertible {
    /// The UUID constant.
    public var predicateConstant: ConstantValue { .uuid(self) }
}
extension URL: PredicateConstantConvertible {
    /// The URL constant.
    public var predicateConstant: ConstantValue { .url(self) }
}
extension Optional: PredicateConstantConvertible where Wrapped: PredicateConstantConvertible {
    /// The wrapped value's constant, or `nil`.
    public var predicateConstant: ConstantValue { map(\.predicateConstant) ?? .null }
}
extension Array: PredicateConstantConvertible where Element: PredicateConstantConvertible {
    /// An array constant.
    public var predicateConstant: ConstantValue { .array(map(\.predicateConstant)) }
}
extension Set: PredicateConstantConvertible where Element: PredicateConstantConvertible {
    /// A set constant.
    public var predicateConstant: ConstantValue { .set(Set<ConstantValue>(map(\.predicateConstant))) }
}
extension ConstantValue: PredicateConstantConvertible {
    /// Itself.
    public var predicateConstant: ConstantValue { self }
}

/// One side of a comparison built in code: a key path, a constant, a variable or any
/// expression, with an optional ANY/ALL modifier.
///
/// ```swift
/// let p = PredicateTerm.key("age") >= 18 && PredicateTerm.key("name").beginsWith("a", options: .caseInsensitive)
/// p.predicateFormat   // age >= 18 AND name BEGINSWITH[c] "a"
/// ```
public struct PredicateTerm: Sendable, Hashable {
    /// The expression of the term.
    public var expression: Expression
    /// ANY or ALL when the term is a collection compared element by element.
    public var modifier: ComparisonPredicate.Modifier

    /// Wraps an expression.
    public init(_ expression: Expression, modifier: ComparisonPredicate.Modifier = .direct) {
        self.expression = expression
        self.modifier = modifier
    }

    /// A key path on the evaluated object: `.key("author.name")`.
    public static func key(_ path: String) -> PredicateTerm { PredicateTerm(.keyPath(path)) }
    /// The evaluated object itself (`SELF`).
    public static var evaluatedObject: PredicateTerm { PredicateTerm(.evaluatedObject) }
    /// A variable, `$name`.
    public static func variable(_ name: String) -> PredicateTerm { PredicateTerm(.variable(name)) }
    /// A constant.
    public static func constant(_ value: some PredicateConstantConvertible) -> PredicateTerm {
        PredicateTerm(.constant(value.predicateConstant))
    }

    /// The term compared element by element, true if any element matches (`ANY`).
    public var any: PredicateTerm { PredicateTerm(expression, modifier: .any) }
    /// The term compared element by element, true if every element matches (`ALL`).
    public var all: PredicateTerm { PredicateTerm(expression, modifier: .all) }
    /// The number of elements (`.@count`).
    public var count: PredicateTerm { member("@count") }

    /// A key path applied to the term's value: `.key("author").member("name")`.
    public func member(_ path: String) -> PredicateTerm {
        switch expression {
        case .keyPath(let base): return PredicateTerm(.keyPath(base + "." + path))
        case .evaluatedObject: return PredicateTerm(.keyPath(path))
        default: return PredicateTerm(.member(expression, path))
        }
    }

    func compared(
        _ op: ComparisonPredicate.Operator, _ other: Expression, _ options: ComparisonPredicate.Options = []
    ) -> Predicate {
        .comparison(ComparisonPredicate(expression, op, other, modifier: modifier, options: options))
    }

    /// `term BEGINSWITH[options] prefix`.
    public func beginsWith(_ prefix: String, options: ComparisonPredicate.Options = []) -> Predicate {
        compared(.beginsWith, .string(prefix), options)
    }
    /// `term ENDSWITH[options] suffix`.
    public func endsWith(_ suffix: String, options: ComparisonPredicate.Options = []) -> Predicate {
        compared(.endsWith, .string(suffix), options)
    }
    /// `term LIKE[options] pattern` (`*` and `?` wildcards).
    public func like(_ pattern: String, options: ComparisonPredicate.Options = []) -> Predicate {
        compared(.like, .string(pattern), options)
    }
    /// `term MATCHES[options] regex` (whole-string match).
    public func matches(_ regex: String, options: ComparisonPredicate.Options = []) -> Predicate {
        compared(.matches, .string(regex), options)
    }
    /// `term CONTAINS[options] value`: substring of a string, member of a collection.
    public func contains(_ value: some PredicateConstantConvertible, options: ComparisonPredicate.Options = []) -> Predicate {
        compared(.contains, .constant(value.predicateConstant), options)
    }
    /// `term IN collection`.
    public func `in`(_ collection: some PredicateConstantConvertible, options: ComparisonPredicate.Options = []) -> Predicate {
        compared(.in, .constant(collection.predicateConstant), options)
    }
    /// `term BETWEEN {low, high}` (inclusive).
    public func between<T: PredicateConstantConvertible>(_ low: T, _ high: T) -> Predicate {
        compared(.between, .constant(.array([low.predicateConstant, high.predicateConstant])))
    }
    /// `term == nil`.
    public var isNil: Predicate { compared(.equalTo, .null) }
    /// `term != nil`.
    public var isNotNil: Predicate { compared(.notEqualTo, .null) }
    /// `term ==[options] value`, for string options.
    public func equals(_ value: some PredicateConstantConvertible, options: ComparisonPredicate.Options) -> Predicate {
        compared(.equalTo, .constant(value.predicateConstant), options)
    }

    /// `lhs == rhs`.
    public static func == (lhs: PredicateTerm, rhs: some PredicateConstantConvertible) -> Predicate {
        lhs.compared(.equalTo, .constant(rhs.predicateConstant))
    }
    /// `lhs != rhs`.
    public static func != (lhs: PredicateTerm, rhs: some PredicateConstantConvertible) -> Predicate {
        lhs.compared(.notEqualTo, .constant(rhs.predicateConstant))
    }
    /// `lhs < rhs`.
    public static func < (lhs: PredicateTerm, rhs: some PredicateConstantConvertible) -> Predicate {
        lhs.compared(.lessThan, .constant(rhs.predicateConstant))
    }
    /// `lhs <= rhs`.
    public static func <= (lhs: PredicateTerm, rhs: some PredicateConstantConvertible) -> Predicate {
        lhs.compared(.lessThanOrEqualTo, .constant(rhs.predicateConstant))
    }
    /// `lhs > rhs`.
    public static func > (lhs: PredicateTerm, rhs: some PredicateConstantConvertible) -> Predicate {
        lhs.compared(.greaterThan, .constant(rhs.predicateConstant))
    }
    /// `lhs >= rhs`.
    public static func >= (lhs: PredicateTerm, rhs: some PredicateConstantConvertible) -> Predicate {
        lhs.compared(.greaterThanOrEqualTo, .constant(rhs.predicateConstant))
    }
    /// `lhs == rhs` between two terms.
    public static func == (lhs: PredicateTerm, rhs: PredicateTerm) -> Predicate { lhs.compared(.equalTo, rhs.expression) }
    /// `lhs != rhs` between two terms.
    public static func != (lhs: PredicateTerm, rhs: PredicateTerm) -> Predicate { lhs.compared(.notEqualTo, rhs.expression) }
    /// `lhs < rhs` between two terms.
    public static func < (lhs: PredicateTerm, rhs: PredicateTerm) -> Predicate { lhs.compared(.lessThan, rhs.expression) }
    /// `lhs <= rhs` between two terms.
    public static func <= (lhs: PredicateTerm, rhs: PredicateTerm) -> Predicate {
        lhs.compared(.lessThanOrEqualTo, rhs.expression)
    }
    /// `lhs > rhs` between two terms.
    public static func > (lhs: PredicateTerm, rhs: PredicateTerm) -> Predicate { lhs.compared(.greaterThan, rhs.expression) }
    /// `lhs >= rhs` between two terms.
    public static func >= (lhs: PredicateTerm, rhs: PredicateTerm) -> Predicate {
        lhs.compared(.greaterThanOrEqualTo, rhs.expression)
    }

    /// `lhs + rhs`.
    public static func + (lhs: PredicateTerm, rhs: PredicateTerm) -> PredicateTerm {
        PredicateTerm(.function("add:to:", [lhs.expression, rhs.expression]))
    }
    /// `lhs - rhs`.
    public static func - (lhs: PredicateTerm, rhs: PredicateTerm) -> PredicateTerm {
        PredicateTerm(.function("from:subtract:", [lhs.expression, rhs.expression]))
    }
    /// `lhs * rhs`.
    public static func * (lhs: PredicateTerm, rhs: PredicateTerm) -> PredicateTerm {
        PredicateTerm(.function("multiply:by:", [lhs.expression, rhs.expression]))
    }
    /// `lhs / rhs`.
    public static func / (lhs: PredicateTerm, rhs: PredicateTerm) -> PredicateTerm {
        PredicateTerm(.function("divide:by:", [lhs.expression, rhs.expression]))
    }
}

/// A key path of a typed class or struct, named for predicates and sort descriptors, whose
/// comparisons only accept values of the property's type.
///
/// ```swift
/// struct Person { var name: String; var age: Int }
/// let p = Key(\Person.age) >= 18 && Key(\Person.name).beginsWith("A")
/// // Key(\Person.age) > "x" does not compile.
/// ```
///
/// The name comes from `KeyPathNaming.predicateKeyName(for:)` when `Root` adopts it (managed
/// object classes do, since their properties are computed), otherwise from the key path itself,
/// which names stored properties of structs and final classes.
public struct Key<Root, Value>: Sendable, Hashable {
    /// The dotted key path string.
    public let path: String

    /// A key for the given key path string (no checking against `Root`).
    public init(_ path: String) { self.path = path }

    /// The key for a Swift key path. Traps if the key path cannot be named: adopt
    /// `KeyPathNaming` for types whose properties are computed.
    public init(_ keyPath: KeyPath<Root, Value>) {
        if let naming = Root.self as? any KeyPathNaming.Type, let name = naming.anyKeyName(for: keyPath) {
            path = name
        } else if let name = Self.name(fromDescription: String(describing: keyPath)) {
            path = name
        } else {
            preconditionFailure("cannot name \(keyPath) for a predicate: adopt KeyPathNaming in \(Root.self)")
        }
    }

    /// `\Person.address.city` printed by the runtime gives `address.city`; nil when a component
    /// is computed and unnamed.
    static func name(fromDescription description: String) -> String? {
        guard description.hasPrefix("\\"), let dot = description.firstIndex(of: ".") else { return nil }
        let path = String(description[description.index(after: dot)...])
        guard !path.isEmpty, !path.contains("<"), !path.contains("("), !path.contains(" ") else { return nil }
        return path.replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "!", with: "")
    }

    /// The untyped term.
    public var term: PredicateTerm { .key(path) }

    /// `key == value`.
    public static func == (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term == rhs }
    /// `key != value`.
    public static func != (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term != rhs }
    /// `key < value`.
    public static func < (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term < rhs }
    /// `key <= value`.
    public static func <= (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term <= rhs }
    /// `key > value`.
    public static func > (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term > rhs }
    /// `key >= value`.
    public static func >= (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term >= rhs }
    /// `key == nil` / `key == value` for optional properties.
    public static func == <Wrapped>(lhs: Key, rhs: Wrapped?) -> Predicate
    where Value == Wrapped?, Wrapped: PredicateConstantConvertible { lhs.term == rhs }
    /// `key != nil` / `key != value` for optional properties.
    public static func != <Wrapped>(lhs: Key, rhs: Wrapped?) -> Predicate
    where Value == Wrapped?, Wrapped: PredicateConstantConvertible { lhs.term != rhs }
}

extension Key where Value: StringProtocol {
    /// `key BEGINSWITH[options] prefix`.
    public func beginsWith(_ prefix: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.beginsWith(prefix, options: options)
    }
    /// `key ENDSWITH[options] suffix`.
    public func endsWith(_ suffix: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.endsWith(suffix, options: options)
    }
    /// `key CONTAINS[options] substring`.
    public func contains(_ substring: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.contains(substring, options: options)
    }
    /// `key LIKE[options] pattern`.
    public func like(_ pattern: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.like(pattern, options: options)
    }
    /// `key MATCHES[options] regex`.
    public func matches(_ regex: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.matches(regex, options: options)
    }
}

extension Key where Value: PredicateConstantConvertible {
    /// `key IN {values}`.
    public func `in`(_ values: [Value]) -> Predicate { term.in(values) }
    /// `key BETWEEN {low, high}` (inclusive).
    public func between(_ low: Value, _ high: Value) -> Predicate { term.between(low, high) }
}

/// Names the key paths of a type for predicates and sort descriptors, for types whose
/// properties the runtime cannot name (computed properties, such as a managed object's).
///
/// ```swift
/// final class Person: KeyPathNaming {
///     var name: String { ... }
///     static func predicateKeyName(for keyPath: PartialKeyPath<Person>) -> String? {
///         [\Person.name: "name"][keyPath]
///     }
/// }
/// ```
public protocol KeyPathNaming {
    /// The key path string of `keyPath`, or nil if unknown.
    static func predicateKeyName(for keyPath: PartialKeyPath<Self>) -> String?
}

extension KeyPathNaming {
    static func anyKeyName(for keyPath: AnyKeyPath) -> String? {
        guard let typed = keyPath as? PartialKeyPath<Self> else { return nil }
        return predicateKeyName(for: typed)
    }
}

extension Predicate {
    /// Both predicates: `a && b` is `a AND b` (chains flatten into one AND).
    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate {
        switch (lhs, rhs) {
        case let (.and(a), .and(b)): return .and(a + b)
        case let (.and(a), _): return .and(a + [rhs])
        default: return .and([lhs, rhs])
        }
    }

    /// Either predicate: `a || b` is `a OR b` (chains flatten into one OR).
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate {
        switch (lhs, rhs) {
        case let (.or(a), .or(b)): return .or(a + b)
        case let (.or(a), _): return .or(a + [rhs])
        default: return .or([lhs, rhs])
        }
    }

    /// The negation: `!p` is `NOT p`.
    public static prefix func ! (operand: Predicate) -> Predicate { .not(operand) }
}
