// Values the predicate engine compares without knowing their type: opaque constants (object IDs
// passed as `%@`) and evaluated values that stand for such a constant (a store's row compares as
// its object ID). Equality is all the engine asks of them; they have no order.

/// A value that can be a predicate constant without the engine knowing its type; it compares
/// equal only to an equal value of its own type.
///
/// ```swift
/// extension ObjectID: OpaqueConstant {}
/// let p = try Predicate(format: "owner == %@", ownerID)   // .constant(.opaque(ownerID))
/// ```
public protocol OpaqueConstant: Hashable, Sendable {}

/// An opaque constant as `ConstantValue` holds it.
public struct OpaqueValue: Hashable, Sendable {
    /// The wrapped value.
    public let value: any OpaqueConstant

    /// Wraps `value`.
    public init(_ value: any OpaqueConstant) { self.value = value }

    /// Equal when the values are of the same type and equal.
    public static func == (lhs: OpaqueValue, rhs: OpaqueValue) -> Bool {
        AnyHashable(lhs.value) == AnyHashable(rhs.value)
    }

    /// Hashes the wrapped value.
    public func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(value)) }
}

/// A value that predicates compare as another one, its identity: a store's row, walked through
/// by key paths, compares as its object ID, so `owner == %@` holds for the owner's ID.
///
/// Only equality (`==`, `!=`, `IN`, `CONTAINS`, distinct unions) uses the identity; key paths
/// still walk the value itself.
public protocol EvaluationIdentity {
    /// The value compared in place of this one.
    var evaluationIdentity: any OpaqueConstant { get }
}

/// Object IDs are the framework's opaque constants: `owner == %@`, `SELF IN %@` with IDs.
extension ObjectID: OpaqueConstant {}
