// A computed column of a dictionary fetch: a name, an expression (often an aggregate such as
// `sum:(amount)` or `@max.due`) and the type of its result. Core Data's NSExpressionDescription.

/// A named expression a dictionary fetch computes, per row or per group. Per row it can be a
/// key path or arithmetic over the row's values (`points * 2`, `due + 86400`: a dictionary
/// leaves the key out where the value is nil); per group, an aggregate.
///
/// ```swift
/// let total = ExpressionDescription(name: "total", expression: try Expression(format: "sum:(price)"),
///                                   resultType: .double)
/// request.propertiesToFetch = [.expression(total)]
/// ```
public struct ExpressionDescription: Sendable, Hashable {
    /// The key of the value in each result dictionary.
    public var name: String
    /// What to compute.
    public var expression: Expression
    /// The type of the result: a number computed for `.double`, `.float` or `.decimal` comes
    /// back as a `Double`, `Float` or `Decimal` (a sum of integers declared `.double` is a
    /// `Double`); integer results stay as the store gives them (`Int` for computed numbers, the
    /// attribute's own type for its values), other types as the values are.
    public var resultType: AttributeType

    public init(name: String, expression: Expression, resultType: AttributeType) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }
}

extension Expression {
    /// The functions that aggregate a group's rows (`sum:(amount)`), as SQL's aggregates do.
    static let aggregateFunctionNames: Set<String> = [
        "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:",
    ]

    /// Whether the expression aggregates rows: it calls an aggregate function or applies a
    /// collection operator to the rows (`@count`, `@sum.amount`). A dictionary fetch with such an
    /// expression returns one dictionary per group (one group of all rows without group-by
    /// properties), so every store and the context decide grouping alike.
    var aggregatesRows: Bool {
        switch self {
        case .function(let name, let arguments):
            return Self.aggregateFunctionNames.contains(name) || arguments.contains { $0.aggregatesRows }
        case .keyPath(let path): return path.hasPrefix("@")
        default: return false
        }
    }
}
