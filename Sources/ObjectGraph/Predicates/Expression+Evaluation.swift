// In-memory evaluation of expressions: constants, key paths through key-value access,
// variables, subscripts, functions, FUNCTION method calls, SUBQUERY, TERNARY and set
// operations. Values come out as Swift values (`Int`, `Double`, `String`, `[Any]`, `Date`...).
// Key paths through collections keep a null object for each nil value
// (``KeyValueAccess/Traversal/evaluation``), as the SQLite store's joins keep NULLs.
import Foundation

extension Expression {
    /// The value of the expression for `object`; `$NAME` variables come from `context`.
    ///
    /// ```swift
    /// try Expression(format: "items.@sum.price").expressionValue(with: order)
    /// try Expression(format: "$x * 2").expressionValue(with: nil, context: ["x": 21])   // 42
    /// ```
    ///
    /// A variable bound to an `Expression` is evaluated in turn. Throws for unbound variables
    /// and for type errors (`"a" * 2`).
    public func expressionValue(with object: Any?, context: [String: Any?] = [:]) throws -> Any? {
        try evaluate(object, EvaluationContext(variables: context))
    }

    func evaluate(_ object: Any?, _ context: EvaluationContext) throws -> Any? {
        switch self {
        case .constant(let value):
            return value.anyValue
        case .evaluatedObject:
            return object
        case .variable(let name):
            let bound = try context.value(of: name)
            guard let expression = bound as? Expression else { return bound }
            // Unbound while its expression is evaluated, so `$x` bound to `$x` is an error, not
            // an endless recursion.
            let saved = context.variables.removeValue(forKey: name)
            defer { context.variables[name] = saved }
            return try expression.evaluate(object, context)
        case .keyPath(let path):
            return KeyValueAccess.evaluationValue(of: object, forKeyPath: path)
        case .member(let base, let path):
            return KeyValueAccess.evaluationValue(of: try base.evaluate(object, context), forKeyPath: path)
        case .dynamicMember(let base, let key):
            let target = try base.evaluate(object, context)
            guard let name = KeyValueAccess.normalized(try key.evaluate(object, context)).flatMap(ValueComparison.string) else {
                throw PredicateError(.evaluation, "a key must be a string in \(expressionFormat)")
            }
            if target != nil, KeyValueAccess.collectionElements(target) != nil,
                !(KeyValueAccess.normalized(target) is any KeyValueCoding)
            {
                throw PredicateError(.evaluation, "\(ValueComparison.describe(target)) has no key \(name)")
            }
            return KeyValueAccess.evaluationValue(of: target, forKeyPath: name)
        case .subscripted(let base, let sub):
            return try Self.subscriptValue(try base.evaluate(object, context), sub, object, context)
        case .aggregate(let elements):
            return try elements.map { try $0.evaluate(object, context) ?? NSNull() }
        case .function(let name, let arguments):
            return try BuiltinFunction.evaluate(name, try arguments.map { try $0.evaluate(object, context) })
        case .method(let receiver, let selector, let arguments):
            let target = try receiver.evaluate(object, context)
            return try MethodTable.call(selector, on: target, try arguments.map { try $0.evaluate(object, context) })
        case .subquery(let collection, let variable, let predicate):
            let source = try collection.evaluate(object, context)
            guard let value = KeyValueAccess.normalized(source) else { return [Any]() }
            guard let items = KeyValueAccess.collectionElements(value) else {
                throw PredicateError(.evaluation, "SUBQUERY needs a collection, got \(ValueComparison.describe(value))")
            }
            let saved = context.variables[variable]
            defer { context.variables[variable] = saved }
            var result: [Any] = []
            for item in items {
                context.variables[variable] = .some(item)
                if try predicate.evaluate(object, context) { result.append(item) }
            }
            return result
        case .conditional(let condition, let whenTrue, let whenFalse):
            return try condition.evaluate(object, context)
                ? whenTrue.evaluate(object, context) : whenFalse.evaluate(object, context)
        case .setOperation(let op, let left, let right):
            let a = try Self.elements(try left.evaluate(object, context), op.rawValue)
            let b = try Self.elements(try right.evaluate(object, context), op.rawValue)
            switch op {
            case .union: return KeyValueAccess.distinct(a + b)
            case .intersect: return KeyValueAccess.distinct(a.filter { e in b.contains { ValueComparison.equal(e, $0) } })
            case .minus: return KeyValueAccess.distinct(a.filter { e in !b.contains { ValueComparison.equal(e, $0) } })
            }
        }
    }

    private static func elements(_ value: Any?, _ operation: String) throws -> [Any] {
        guard let value = KeyValueAccess.normalized(value) else { return [] }
        guard let items = KeyValueAccess.collectionElements(value) else {
            throw PredicateError(.evaluation, "\(operation) needs collections, got \(ValueComparison.describe(value))")
        }
        return items
    }

    private static func subscriptValue(
        _ base: Any?, _ sub: Subscript, _ object: Any?, _ context: EvaluationContext
    ) throws -> Any? {
        guard let base = KeyValueAccess.normalized(base) else { return nil }
        let items = KeyValueAccess.collectionElements(base)
        switch sub {
        case .first:
            guard let items else { throw PredicateError(.evaluation, "[FIRST] needs a collection") }
            return items.first
        case .last:
            guard let items else { throw PredicateError(.evaluation, "[LAST] needs a collection") }
            return items.last
        case .size:
            if let items { return items.count }
            if let dictionary = base as? [String: Any] { return dictionary.count }
            if let string = ValueComparison.string(base) { return string.utf16.count }
            throw PredicateError(.evaluation, "[SIZE] needs a collection")
        case .index(let indexExpression):
            let index = KeyValueAccess.normalized(try indexExpression.evaluate(object, context))
            if let key = index.flatMap(ValueComparison.string) {
                return KeyValueAccess.value(of: base, forKey: key, .evaluation)
            }
            guard let items, let index, let n = Number(index)?.integerValue else {
                throw PredicateError(
                    .evaluation, "cannot subscript \(ValueComparison.describe(base)) with \(ValueComparison.describe(index))")
            }
            guard n >= 0, n < items.count else {
                throw PredicateError(.evaluation, "index \(n) out of range 0..<\(items.count)")
            }
            return items[Int(n)]
        }
    }
}
