// In-memory evaluation of predicates against any value with key-value access: comparisons with
// their modifiers and options, compounds with short-circuiting, and the variables bound for
// the evaluation (`evaluate(with:substitutionVariables:)`).
import Foundation

/// The state of one evaluation: the variables in scope (those given by the caller and those
/// bound by SUBQUERY while it walks its collection).
final class EvaluationContext {
    var variables: [String: Any?]

    init(variables: [String: Any?]) { self.variables = variables }

    func value(of name: String) throws -> Any? {
        guard let bound = variables[name] else {
            throw PredicateError(.unboundVariable(name), "no value bound for variable $\(name)")
        }
        return bound
    }
}

extension Predicate {
    /// Whether `object` satisfies the predicate; `$NAME` variables take their values from
    /// `substitutionVariables` (an unbound variable throws). On a managed object, a key path
    /// naming no property of its entity throws, as Core Data raises for an unknown key.
    ///
    /// ```swift
    /// let p = try Predicate(format: "age > $min")
    /// try p.evaluate(with: ["age": 30], substitutionVariables: ["min": 18])   // true
    /// ```
    public func evaluate(with object: Any?, substitutionVariables: [String: Any?] = [:]) throws -> Bool {
        if let object = object as? ManagedObject { try checkKeyPaths(against: object.entity) }
        return try evaluate(object, EvaluationContext(variables: substitutionVariables))
    }

    /// ``evaluate(with:substitutionVariables:)`` without the key path check, for callers that
    /// made it once for many objects.
    func evaluateChecked(with object: Any?) throws -> Bool {
        try evaluate(object, EvaluationContext(variables: [:]))
    }

    func evaluate(_ object: Any?, _ context: EvaluationContext) throws -> Bool {
        switch self {
        case .truePredicate: return true
        case .falsePredicate: return false
        case .comparison(let comparison): return try comparison.evaluate(object, context)
        case .and(let operands):
            for operand in operands where try !operand.evaluate(object, context) { return false }
            return true
        case .or(let operands):
            for operand in operands where try operand.evaluate(object, context) { return true }
            return false
        case .not(let operand): return try !operand.evaluate(object, context)
        }
    }
}

extension ComparisonPredicate {
    /// Whether `object` satisfies the comparison.
    public func evaluate(with object: Any?, substitutionVariables: [String: Any?] = [:]) throws -> Bool {
        try evaluate(object, EvaluationContext(variables: substitutionVariables))
    }

    func evaluate(_ object: Any?, _ context: EvaluationContext) throws -> Bool {
        let lhs = try left.evaluate(object, context)
        let rhs = try right.evaluate(object, context)
        switch modifier {
        case .direct:
            return try compare(lhs, rhs)
        case .any, .all:
            guard let value = KeyValueAccess.normalized(lhs) else { return false }
            let elements: [Any]
            if let items = KeyValueAccess.collectionElements(value) {
                elements = items
            } else if let dictionary = value as? [String: Any] {
                elements = Array(dictionary.values)
            } else {
                throw PredicateError(
                    .evaluation, "the left side of ANY or ALL must be a collection, got \(ValueComparison.describe(value))")
            }
            if modifier == .any {
                for element in elements where try compare(element, rhs) { return true }
                return false
            }
            for element in elements where try !compare(element, rhs) { return false }
            return true
        }
    }

    /// Applies the operator to two evaluated values.
    func compare(_ lhs: Any?, _ rhs: Any?) throws -> Bool {
        let lhs = KeyValueAccess.normalized(lhs), rhs = KeyValueAccess.normalized(rhs)
        switch `operator` {
        case .equalTo: return ValueComparison.equal(lhs, rhs, options: options)
        case .notEqualTo: return !ValueComparison.equal(lhs, rhs, options: options)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let lhs, let rhs else { return false }
            let order = try ValueComparison.order(lhs, rhs, options: options)
            switch `operator` {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .between:
            guard let rhs else { return false }
            guard let bounds = KeyValueAccess.collectionElements(rhs), bounds.count == 2 else {
                throw PredicateError(.evaluation, "BETWEEN needs a two-element collection {low, high} on the right")
            }
            guard let lhs, let low = KeyValueAccess.normalized(bounds[0]),
                let high = KeyValueAccess.normalized(bounds[1])
            else { return false }
            return try ValueComparison.order(lhs, low, options: options) != .orderedAscending
                && ValueComparison.order(lhs, high, options: options) != .orderedDescending
        case .in:
            return try membership(element: lhs, container: rhs, operatorName: "IN")
        case .contains:
            return try membership(element: rhs, container: lhs, operatorName: "CONTAINS")
        case .beginsWith, .endsWith, .like, .matches:
            guard let lhs, let rhs else { return false }
            guard let subject = ValueComparison.string(lhs), let pattern = ValueComparison.string(rhs) else {
                throw PredicateError(
                    .evaluation,
                    "\(`operator`.symbol) compares strings, got \(ValueComparison.describe(lhs)) and \(ValueComparison.describe(rhs))")
            }
            switch `operator` {
            case .beginsWith: return ValueComparison.find(pattern, in: subject, .start, options)
            case .endsWith: return ValueComparison.find(pattern, in: subject, .end, options)
            case .like: return ValueComparison.like(subject, pattern, options)
            default: return try ValueComparison.matches(subject, pattern, options, compiled: compiledPattern)
            }
        case .customSelector(let selector):
            return try CustomSelectors.evaluate(selector, lhs, rhs)
        }
    }

    /// IN and CONTAINS: membership in a collection (a dictionary's values), or a substring.
    private func membership(element: Any?, container: Any?, operatorName: String) throws -> Bool {
        guard let container else { return false }
        if let haystack = ValueComparison.string(container) {
            guard let element else { return false }
            guard let needle = ValueComparison.string(element) else {
                throw PredicateError(
                    .evaluation, "\(operatorName) with a string needs a string, got \(ValueComparison.describe(element))")
            }
            return ValueComparison.find(needle, in: haystack, .anywhere, options)
        }
        if let items = KeyValueAccess.collectionElements(container) {
            return items.contains { ValueComparison.equal($0, element, options: options) }
        }
        if let dictionary = container as? [String: Any] {
            return dictionary.values.contains { ValueComparison.equal($0, element, options: options) }
        }
        throw PredicateError(
            .evaluation, "\(operatorName) needs a collection or a string, got \(ValueComparison.describe(container))")
    }
}

/// The custom selector comparisons understood (`SELF isKindOfClass: %@`).
enum CustomSelectors {
    static func evaluate(_ selector: String, _ lhs: Any?, _ rhs: Any?) throws -> Bool {
        switch selector {
        case "isKindOfClass:", "isMemberOfClass:":
            guard let type = rhs as? TypeName else {
                throw PredicateError(.evaluation, "\(selector) needs a class, got \(ValueComparison.describe(rhs))")
            }
            guard let lhs else { return false }
            return isKind(lhs, of: type.name, exact: selector == "isMemberOfClass:")
        case "isEqual:", "isEqualTo:":
            return ValueComparison.equal(lhs, rhs)
        default:
            throw PredicateError(.evaluation, "unsupported selector \(selector)")
        }
    }

    /// Whether `value` is of the Cocoa class `name` (`NSNumber`, `NSString`...) or of the Swift
    /// type of that name.
    static func isKind(_ value: Any, of name: String, exact: Bool) -> Bool {
        switch name {
        case "NSObject": return !exact
        case "NSNumber": return Number(value) != nil && !(value is Decimal)
        case "NSDecimalNumber": return value is Decimal
        case "NSString", "NSMutableString": return ValueComparison.string(value) != nil
        case "NSArray", "NSMutableArray": return value is [Any]
        case "NSDictionary", "NSMutableDictionary": return value is [String: Any]
        case "NSSet", "NSMutableSet": return value is any SetProtocol
        case "NSOrderedSet": return value is any OrderedSetProtocol
        case "NSDate": return value is Date
        case "NSData": return value is Data
        case "NSUUID": return value is UUID
        case "NSURL": return value is URL
        case "NSNull": return isNullObject(value)
        default:
            if cocoaTypeName(of: type(of: value)) == name { return true }
            guard !exact else { return false }
            var mirror: Mirror? = Mirror(reflecting: value)
            while let current = mirror {
                if String(describing: current.subjectType) == name { return true }
                mirror = current.superclassMirror
            }
            return false
        }
    }
}

extension Sequence {
    /// The elements that satisfy `predicate`, in order (Foundation's `filtered(using:)`).
    ///
    /// ```swift
    /// let adults = try people.filtered(using: Predicate(format: "age >= 18"))
    /// ```
    public func filtered(using predicate: Predicate, substitutionVariables: [String: Any?] = [:]) throws -> [Element] {
        let context = EvaluationContext(variables: substitutionVariables)
        return try filter { try predicate.evaluate($0, context) }
    }
}
