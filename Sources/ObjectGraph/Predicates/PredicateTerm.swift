// One side of a comparison built in Swift rather than parsed: a key path, a constant, a
// variable or any expression, compared with ==, <, ... or with named operators.
import Foundation

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
