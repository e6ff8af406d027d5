// The public entry points of the format-string parser: `Predicate(format:)` and
// `Expression(format:)`, with printf-style arguments (`%@ %K %d %i %u %f %e %g %x %o %c`, their
// length modifiers, and `%%`). Malformed input throws a `PredicateError`, never traps.

extension Predicate {
    /// Parses a predicate format string, substituting `arguments` for its format specifiers.
    ///
    /// ```swift
    /// let p = try Predicate(format: "%K BEGINSWITH[cd] %@ AND age > %d", "name", "é", 18)
    /// ```
    ///
    /// `%@` takes any value (an `Expression` is used as is), `%K` a key path string, the printf
    /// conversions numbers. Throws a syntax error naming the offending character.
    public init(format: String, _ arguments: Any?...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a predicate format string with its arguments given as an array.
    public init(format: String, argumentArray arguments: [Any?]) throws {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parsePredicateToEnd()
    }
}

extension Expression {
    /// Parses an expression format string: `"items.@sum.price * %f"`, `"sum:({1, 2})"`.
    public init(format: String, _ arguments: Any?...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses an expression format string with its arguments given as an array.
    public init(format: String, argumentArray arguments: [Any?]) throws {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parseExpressionToEnd()
    }
}
