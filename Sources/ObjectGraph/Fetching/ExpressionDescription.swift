// A computed column of a dictionary fetch: a name, an expression (often an aggregate such as
// `sum:(amount)` or `@max.due`) and the type of its result. Core Data's NSExpressionDescription.

/// A named expression a dictionary fetch computes, per row or per group.
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
    /// The type of the result.
    public var resultType: AttributeType

    public init(name: String, expression: Expression, resultType: AttributeType) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }
}
