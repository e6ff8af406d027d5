// Rewriting the constants of a predicate tree: the context replaces managed objects given as
// format arguments by their object IDs before a store sees the predicate (stores know rows,
// not objects). Collections of constants are rewritten element by element.

extension Predicate {
    /// A copy in which every constant `transform` returns a replacement for is replaced
    /// (elements of collection constants included); nil keeps the constant.
    ///
    /// ```swift
    /// let forStore = predicate.mappingConstants { constant in
    ///     if case .string(let s) = constant { return .string(s.lowercased()) }
    ///     return nil
    /// }
    /// ```
    public func mappingConstants(_ transform: (ConstantValue) -> ConstantValue?) -> Predicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .comparison(var comparison):
            comparison.left = comparison.left.mappingConstants(transform)
            comparison.right = comparison.right.mappingConstants(transform)
            return .comparison(comparison)
        case .and(let operands): return .and(operands.map { $0.mappingConstants(transform) })
        case .or(let operands): return .or(operands.map { $0.mappingConstants(transform) })
        case .not(let operand): return .not(operand.mappingConstants(transform))
        }
    }
}

extension Expression {
    /// A copy with constants replaced as ``Predicate/mappingConstants(_:)`` does.
    public func mappingConstants(_ transform: (ConstantValue) -> ConstantValue?) -> Expression {
        func map(_ e: Expression) -> Expression { e.mappingConstants(transform) }
        switch self {
        case .constant(let value): return .constant(value.mapping(transform))
        case .evaluatedObject, .keyPath, .variable: return self
        case .member(let base, let path): return .member(map(base), path)
        case .dynamicMember(let base, let key): return .dynamicMember(map(base), map(key))
        case .subscripted(let base, let s):
            if case .index(let index) = s { return .subscripted(map(base), .index(map(index))) }
            return .subscripted(map(base), s)
        case .aggregate(let elements): return .aggregate(elements.map(map))
        case .function(let name, let arguments): return .function(name, arguments.map(map))
        case .method(let receiver, let selector, let arguments): return .method(map(receiver), selector, arguments.map(map))
        case .subquery(let collection, let variable, let predicate):
            return .subquery(map(collection), variable: variable, predicate.mappingConstants(transform))
        case .conditional(let condition, let a, let b):
            return .conditional(condition.mappingConstants(transform), map(a), map(b))
        case .setOperation(let op, let a, let b): return .setOperation(op, map(a), map(b))
        }
    }
}

extension ConstantValue {
    /// This constant, or its replacement, with collection elements mapped too.
    func mapping(_ transform: (ConstantValue) -> ConstantValue?) -> ConstantValue {
        if let replaced = transform(self) { return replaced }
        switch self {
        case .array(let items): return .array(items.map { $0.mapping(transform) })
        case .set(let items): return .set(Set(items.map { $0.mapping(transform) }))
        case .orderedSet(let items): return .orderedSet(OrderedSet(items.map { $0.mapping(transform) }))
        case .dictionary(let items): return .dictionary(items.mapValues { $0.mapping(transform) })
        default: return self
        }
    }
}
