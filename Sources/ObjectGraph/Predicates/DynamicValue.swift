// Looking into `Any` cheaply and safely: flattening Optionals stored in `Any`, and recognizing
// Foundation objects without the bridging casts that cost an allocation per check on Linux.
import Foundation

/// Whether `value` is Foundation's null object. Compares the dynamic type: on Linux, `is NSNull`
/// on a Swift value bridges it to an object first, which costs an allocation per check.
@inline(__always)
func isNullObject(_ value: Any) -> Bool { type(of: value) == NSNull.self }

/// Whether `value` is a class instance; guards casts to Foundation classes (NSString, NSNumber,
/// NSArray...) which, on Linux, would otherwise bridge every Swift value they are tried on.
@inline(__always)
func isClassInstance(_ value: Any) -> Bool { type(of: value) is AnyObject.Type }

/// `Optional<Any>` nested inside `Any` is flattened; `nil` at any depth becomes `nil`.
func unwrapOptional(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if let optional = value as? OptionalProtocol { return optional.wrappedAny }
    return value
}

/// Lets `unwrapOptional` see through an `Optional` stored in an `Any`.
protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrappedAny: Any? {
        switch self {
        case .none: return nil
        case .some(let wrapped): return unwrapOptional(wrapped)
        }
    }
}
