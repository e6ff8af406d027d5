// Substitution of variables: `withSubstitutionVariables(_:)` replaces each `$NAME` with a
// constant (or with the expression bound to it), as Core Data does for fetch request
// templates. A SUBQUERY's own variable is left alone inside it.

extension Predicate {
    /// A copy with every variable replaced by its value in `variables`; throws for a variable
    /// that has no value.
    ///
    /// ```swift
    /// let template = try Predicate(format: "lastName LIKE[c] $LAST_NAME")
    /// try template.withSubstitutionVariables(["LAST_NAME": "Turner"]).predicateFormat
    /// // lastName LIKE[c] "Turner"
    /// ```
    ///
    /// A string value becomes a string constant (not a key path); an `Expression` value is used
    /// as is; nil becomes `nil` and `NSNull()` the null object.
    public func withSubstitutionVariables(_ variables: [String: Any?]) throws -> Predicate {
        try substituting(variables, bound: [])
    }

    func substituting(_ variables: [String: Any?], bound: Set<String>) throws -> Predicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .comparison(let c):
            return .comparison(
                ComparisonPredicate(
                    try c.left.substituting(variables, bound: bound), c.operator,
                    try c.right.substituting(variables, bound: bound), modifier: c.modifier, options: c.options))
        case .and(let operands): return .and(try operands.map { try $0.substituting(variables, bound: bound) })
        case .or(let operands): return .or(try operands.map { try $0.substituting(variables, bound: bound) })
        case .not(let operand): return .not(try operand.substituting(variables, bound: bound))
        }
    }

    /// The names of the variables the predicate uses (not counting SUBQUERY's own).
    public var variableNames: Set<String> {
        var names = Set<String>()
        visitVariables(bound: []) { names.insert($0) }
        return names
    }

    func visitVariables(bound: Set<String>, _ visit: (String) -> Void) {
        switch self {
        case .truePredicate, .falsePredicate: break
        case .comparison(let c):
            c.left.visitVariables(bound: bound, visit)
            c.right.visitVariables(bound: bound, visit)
        case .and(let operands), .or(let operands):
            for operand in operands { operand.visitVariables(bound: bound, visit) }
        case .not(let operand): operand.visitVariables(bound: bound, visit)
        }
    }
}

extension Expression {
    /// A copy with every variable replaced by its value in `variables`; throws for a variable
    /// that has no value.
    public func withSubstitutionVariables(_ variables: [String: Any?]) throws -> Expression {
        try substituting(variables, bound: [])
    }

    func substituting(_ variables: [String: Any?], bound: Set<String>) throws -> Expression {
        func sub(_ e: Expression) throws -> Expression { try e.substituting(variables, bound: bound) }
        switch self {
        case .constant, .evaluatedObject, .keyPath: return self
        case .variable(let name):
            if bound.contains(name) { return self }
            guard let value = variables[name] else {
                throw PredicateError(.unboundVariable(name), "no value bound for variable $\(name)")
            }
            if let expression = value as? Expression { return expression }
            return .constant(try ConstantValue(any: value))
        case .member(let base, let path): return .member(try sub(base), path)
        case .dynamicMember(let base, let key): return .dynamicMember(try sub(base), try sub(key))
        case .subscripted(let base, let s):
            if case .index(let index) = s { return .subscripted(try sub(base), .index(try sub(index))) }
            return .subscripted(try sub(base), s)
        case .aggregate(let elements): return .aggregate(try elements.map(sub))
        case .function(let name, let arguments): return .function(name, try arguments.map(sub))
        case .method(let receiver, let selector, let arguments):
            return .method(try sub(receiver), selector, try arguments.map(sub))
        case .subquery(let collection, let variable, let predicate):
            return .subquery(
                try sub(collection), variable: variable,
                try predicate.substituting(variables, bound: bound.union([variable])))
        case .conditional(let condition, let a, let b):
            return .conditional(try condition.substituting(variables, bound: bound), try sub(a), try sub(b))
        case .setOperation(let op, let a, let b): return .setOperation(op, try sub(a), try sub(b))
        }
    }

    func visitVariables(bound: Set<String>, _ visit: (String) -> Void) {
        switch self {
        case .constant, .evaluatedObject, .keyPath: break
        case .variable(let name): if !bound.contains(name) { visit(name) }
        case .member(let base, _): base.visitVariables(bound: bound, visit)
        case .dynamicMember(let base, let key):
            base.visitVariables(bound: bound, visit)
            key.visitVariables(bound: bound, visit)
        case .subscripted(let base, let s):
            base.visitVariables(bound: bound, visit)
            if case .index(let index) = s { index.visitVariables(bound: bound, visit) }
        case .aggregate(let elements), .function(_, let elements):
            for e in elements { e.visitVariables(bound: bound, visit) }
        case .method(let receiver, _, let arguments):
            receiver.visitVariables(bound: bound, visit)
            for e in arguments { e.visitVariables(bound: bound, visit) }
        case .subquery(let collection, let variable, let predicate):
            collection.visitVariables(bound: bound, visit)
            predicate.visitVariables(bound: bound.union([variable]), visit)
        case .conditional(let condition, let a, let b):
            condition.visitVariables(bound: bound, visit)
            a.visitVariables(bound: bound, visit)
            b.visitVariables(bound: bound, visit)
        case .setOperation(_, let a, let b):
            a.visitVariables(bound: bound, visit)
            b.visitVariables(bound: bound, visit)
        }
    }
}

// MARK: Key paths of constants

extension Predicate {
    /// A copy in which every key path applied to a constant (what `$FETCH_SOURCE.name` becomes
    /// once `$FETCH_SOURCE` is substituted by an object) is replaced by its value, computed as
    /// the evaluator computes it. A store can compare the constant, where it could not walk a
    /// key path of an object it does not hold (it knows rows, not objects). Throws when a value
    /// cannot be a constant.
    func evaluatingKeyPathsOfConstants() throws -> Predicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .comparison(var comparison):
            comparison.left = try comparison.left.evaluatingKeyPathsOfConstants()
            comparison.right = try comparison.right.evaluatingKeyPathsOfConstants()
            return .comparison(comparison)
        case .and(let operands): return .and(try operands.map { try $0.evaluatingKeyPathsOfConstants() })
        case .or(let operands): return .or(try operands.map { try $0.evaluatingKeyPathsOfConstants() })
        case .not(let operand): return .not(try operand.evaluatingKeyPathsOfConstants())
        }
    }
}

extension Expression {
    /// ``Predicate/evaluatingKeyPathsOfConstants()`` for an expression.
    func evaluatingKeyPathsOfConstants() throws -> Expression {
        func fold(_ e: Expression) throws -> Expression { try e.evaluatingKeyPathsOfConstants() }
        switch self {
        case .constant, .evaluatedObject, .keyPath, .variable: return self
        case .member(let base, let path):
            let folded = try fold(base)
            guard case .constant = folded else { return .member(folded, path) }
            return .constant(try ConstantValue(any: try Expression.member(folded, path).expressionValue(with: nil)))
        case .dynamicMember(let base, let key):
            let (foldedBase, foldedKey) = (try fold(base), try fold(key))
            guard case .constant = foldedBase, case .constant = foldedKey else { return .dynamicMember(foldedBase, foldedKey) }
            return .constant(try ConstantValue(any: try Expression.dynamicMember(foldedBase, foldedKey).expressionValue(with: nil)))
        case .subscripted(let base, let s):
            if case .index(let index) = s { return .subscripted(try fold(base), .index(try fold(index))) }
            return .subscripted(try fold(base), s)
        case .aggregate(let elements): return .aggregate(try elements.map(fold))
        case .function(let name, let arguments): return .function(name, try arguments.map(fold))
        case .method(let receiver, let selector, let arguments):
            return .method(try fold(receiver), selector, try arguments.map(fold))
        case .subquery(let collection, let variable, let predicate):
            return .subquery(try fold(collection), variable: variable, try predicate.evaluatingKeyPathsOfConstants())
        case .conditional(let condition, let a, let b):
            return .conditional(try condition.evaluatingKeyPathsOfConstants(), try fold(a), try fold(b))
        case .setOperation(let op, let a, let b): return .setOperation(op, try fold(a), try fold(b))
        }
    }
}
