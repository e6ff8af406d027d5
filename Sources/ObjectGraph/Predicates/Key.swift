// Typed key paths for predicates and sort descriptors: `Key(\Person.age) > 30` only compiles
// with an Int, and `KeyPathNaming` names the key paths the runtime cannot name.
import Foundation

/// A key path of a typed class or struct, named for predicates and sort descriptors, whose
/// comparisons only accept values of the property's type.
///
/// ```swift
/// struct Person { var name: String; var age: Int }
/// let p = Key(\Person.age) >= 18 && Key(\Person.name).beginsWith("A")
/// // Key(\Person.age) > "x" does not compile.
/// ```
///
/// The name comes from `KeyPathNaming.predicateKeyName(for:)` when `Root` adopts it (managed
/// object classes do, since their properties are computed), otherwise from the key path itself,
/// which names stored properties of structs and final classes.
public struct Key<Root, Value>: Sendable, Hashable {
    /// The dotted key path string.
    public let path: String

    /// A key for the given key path string (no checking against `Root`).
    public init(_ path: String) { self.path = path }

    /// The key for a Swift key path. Traps if the key path cannot be named: adopt
    /// `KeyPathNaming` for types whose properties are computed.
    public init(_ keyPath: KeyPath<Root, Value>) {
        if let naming = Root.self as? any KeyPathNaming.Type, let name = naming.anyKeyName(for: keyPath) {
            path = name
        } else if let name = Self.name(fromDescription: String(describing: keyPath)) {
            path = name
        } else {
            preconditionFailure("cannot name \(keyPath) for a predicate: adopt KeyPathNaming in \(Root.self)")
        }
    }

    /// `\Person.address.city` printed by the runtime gives `address.city`; nil when a component
    /// is computed and unnamed.
    static func name(fromDescription description: String) -> String? {
        guard description.hasPrefix("\\"), let dot = description.firstIndex(of: ".") else { return nil }
        let path = String(description[description.index(after: dot)...])
        guard !path.isEmpty, !path.contains("<"), !path.contains("("), !path.contains(" ") else { return nil }
        return path.replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "!", with: "")
    }

    /// The untyped term.
    public var term: PredicateTerm { .key(path) }

    /// `key == value`.
    public static func == (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term == rhs }
    /// `key != value`.
    public static func != (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term != rhs }
    /// `key < value`.
    public static func < (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term < rhs }
    /// `key <= value`.
    public static func <= (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term <= rhs }
    /// `key > value`.
    public static func > (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term > rhs }
    /// `key >= value`.
    public static func >= (lhs: Key, rhs: Value) -> Predicate where Value: PredicateConstantConvertible { lhs.term >= rhs }
    /// `key == nil` / `key == value` for optional properties.
    public static func == <Wrapped>(lhs: Key, rhs: Wrapped?) -> Predicate
    where Value == Wrapped?, Wrapped: PredicateConstantConvertible { lhs.term == rhs }
    /// `key != nil` / `key != value` for optional properties.
    public static func != <Wrapped>(lhs: Key, rhs: Wrapped?) -> Predicate
    where Value == Wrapped?, Wrapped: PredicateConstantConvertible { lhs.term != rhs }
}

extension Key where Value: StringProtocol {
    /// `key BEGINSWITH[options] prefix`.
    public func beginsWith(_ prefix: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.beginsWith(prefix, options: options)
    }
    /// `key ENDSWITH[options] suffix`.
    public func endsWith(_ suffix: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.endsWith(suffix, options: options)
    }
    /// `key CONTAINS[options] substring`.
    public func contains(_ substring: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.contains(substring, options: options)
    }
    /// `key LIKE[options] pattern`.
    public func like(_ pattern: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.like(pattern, options: options)
    }
    /// `key MATCHES[options] regex`.
    public func matches(_ regex: String, options: ComparisonPredicate.Options = []) -> Predicate {
        term.matches(regex, options: options)
    }
}

extension Key where Value: PredicateConstantConvertible {
    /// `key IN {values}`.
    public func `in`(_ values: [Value]) -> Predicate { term.in(values) }
    /// `key BETWEEN {low, high}` (inclusive).
    public func between(_ low: Value, _ high: Value) -> Predicate { term.between(low, high) }
}

/// Names the key paths of a type for predicates and sort descriptors, for types whose
/// properties the runtime cannot name (computed properties, such as a managed object's).
///
/// ```swift
/// final class Person: KeyPathNaming {
///     var name: String { ... }
///     static func predicateKeyName(for keyPath: PartialKeyPath<Person>) -> String? {
///         [\Person.name: "name"][keyPath]
///     }
/// }
/// ```
public protocol KeyPathNaming {
    /// The key path string of `keyPath`, or nil if unknown.
    static func predicateKeyName(for keyPath: PartialKeyPath<Self>) -> String?
}

extension KeyPathNaming {
    static func anyKeyName(for keyPath: AnyKeyPath) -> String? {
        guard let typed = keyPath as? PartialKeyPath<Self> else { return nil }
        return predicateKeyName(for: typed)
    }
}
