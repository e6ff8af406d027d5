// Combining predicates built in Swift: `&&`, `||` and `!` give the same AND, OR and NOT trees
// the parser builds (chains flatten into one compound).

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
