// Swift values that can be constants of predicates built in code (`PredicateTerm`, `Key`):
// the protocol and its conformances for the standard value types.
import Foundation

/// A value that can be a constant of a predicate built in code: `name == "Ada"`, `age > 30`.
public protocol PredicateConstantConvertible {
    /// The value as a constant.
    var predicateConstant: ConstantValue { get }
}

extension String: PredicateConstantConvertible {
    /// The string constant.
    public var predicateConstant: ConstantValue { .string(self) }
}
extension Int: PredicateConstantConvertible {
    /// The integer constant.
    public var predicateConstant: ConstantValue { .integer(Int64(self)) }
}
extension Int16: PredicateConstantConvertible {
    /// The integer constant.
    public var predicateConstant: ConstantValue { .integer(Int64(self)) }
}
extension Int32: PredicateConstantConvertible {
    /// The integer constant.
    public var predicateConstant: ConstantValue { .integer(Int64(self)) }
}
extension Int64: PredicateConstantConvertible {
    /// The integer constant.
    public var predicateConstant: ConstantValue { .integer(self) }
}
extension Double: PredicateConstantConvertible {
    /// The floating-point constant.
    public var predicateConstant: ConstantValue { .double(self) }
}
extension Float: PredicateConstantConvertible {
    /// The floating-point constant.
    public var predicateConstant: ConstantValue { .double(Double(self)) }
}
extension Decimal: PredicateConstantConvertible {
    /// The decimal constant.
    public var predicateConstant: ConstantValue { .decimal(self) }
}
extension Bool: PredicateConstantConvertible {
    /// The boolean constant.
    public var predicateConstant: ConstantValue { .bool(self) }
}
extension Date: PredicateConstantConvertible {
    /// The date constant.
    public var predicateConstant: ConstantValue { .date(self) }
}
extension Data: PredicateConstantConvertible {
    /// The data constant.
    public var predicateConstant: ConstantValue { .data(self) }
}
extension UUID: PredicateConstantConvertible {
    /// The UUID constant.
    public var predicateConstant: ConstantValue { .uuid(self) }
}
extension URL: PredicateConstantConvertible {
    /// The URL constant.
    public var predicateConstant: ConstantValue { .url(self) }
}
extension Optional: PredicateConstantConvertible where Wrapped: PredicateConstantConvertible {
    /// The wrapped value's constant, or `nil`.
    public var predicateConstant: ConstantValue { map(\.predicateConstant) ?? .null }
}
extension Array: PredicateConstantConvertible where Element: PredicateConstantConvertible {
    /// An array constant.
    public var predicateConstant: ConstantValue { .array(map(\.predicateConstant)) }
}
extension Set: PredicateConstantConvertible where Element: PredicateConstantConvertible {
    /// A set constant.
    public var predicateConstant: ConstantValue { .set(Set<ConstantValue>(map(\.predicateConstant))) }
}
extension ConstantValue: PredicateConstantConvertible {
    /// Itself.
    public var predicateConstant: ConstantValue { self }
}
