// The expression tree: what a predicate compares. Constants, key paths, variables, function
// calls (arithmetic is `add:to:` and friends, as in Foundation), subscripts, aggregates,
// SUBQUERY, TERNARY. Plain enums, Sendable and Hashable, so stores can walk them.

/// An expression of the predicate language, the counterpart of `NSExpression`.
///
/// ```swift
/// let total = try Expression(format: "items.@sum.price * 1.2")
/// let value = try total.expressionValue(with: order)
/// ```
///
/// Arithmetic is represented as Foundation does, by the built-in functions: `a + b` is
/// `.function("add:to:", [a, b])`, `-a` is `from:subtract:` from 0, `CAST(x, "T")` is
/// `castObject:toType:`. Arithmetic with nil is nil (as SQL's with NULL), so `points * 2 > 10`
/// is false for an object without points; both stores compute it, the SQLite store in SQL.
public indirect enum Expression: Sendable, Hashable {
    /// A constant value: `"text"`, `42`, `nil`, a date...
    case constant(ConstantValue)
    /// The object being evaluated: `SELF`.
    case evaluatedObject
    /// A variable, `$NAME`, bound by substitution or at evaluation.
    case variable(String)
    /// A dotted key path applied to the evaluated object: `author.name`, `items.@count`.
    case keyPath(String)
    /// A dotted key path applied to the value of another expression: `$x.name`,
    /// `SUBQUERY(...).@count`.
    case member(Expression, String)
    /// A key given by an expression applied to the value of another: `$a.$b`.
    case dynamicMember(Expression, Expression)
    /// A subscript: `a[1]`, `a[FIRST]`, `a[LAST]`, `a[SIZE]`, `d["key"]`.
    case subscripted(Expression, Subscript)
    /// An array literal: `{1, 2, 3}`.
    case aggregate([Expression])
    /// A built-in function by its Foundation name (`"sum:"`, `"add:to:"`, `"now"`).
    case function(String, [Expression])
    /// `FUNCTION(receiver, "selector:", arguments...)`: a method called on a value.
    case method(Expression, String, [Expression])
    /// `SUBQUERY(collection, $variable, predicate)`: the elements for which the predicate holds.
    case subquery(Expression, variable: String, Predicate)
    /// `TERNARY(predicate, a, b)`: `a` when the predicate holds, else `b`.
    case conditional(Predicate, Expression, Expression)
    /// `a UNION b`, `a INTERSECT b`, `a MINUS b` over collections.
    case setOperation(SetOperation, Expression, Expression)

    /// A subscript of a collection or dictionary.
    public enum Subscript: Sendable, Hashable {
        /// `[FIRST]`: the first element.
        case first
        /// `[LAST]`: the last element.
        case last
        /// `[SIZE]`: the number of elements.
        case size
        /// `[n]` for an index, `["key"]` for a dictionary key.
        case index(Expression)
    }

    /// A set operation between two collections.
    public enum SetOperation: String, Sendable, Hashable {
        /// The elements of either.
        case union = "UNION"
        /// The elements of both.
        case intersect = "INTERSECT"
        /// The elements of the left not in the right.
        case minus = "MINUS"
    }

    /// A string constant.
    public static func string(_ value: String) -> Expression { .constant(.string(value)) }
    /// An integer constant.
    public static func integer(_ value: Int) -> Expression { .constant(.integer(Int64(value))) }
    /// A floating-point constant.
    public static func double(_ value: Double) -> Expression { .constant(.double(value)) }
    /// The `nil` constant.
    public static var null: Expression { .constant(.null) }
}
