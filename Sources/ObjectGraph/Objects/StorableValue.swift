// Which values a managed object can store: the attribute types' Swift values, and values of a
// type of one's own (for transformable attributes) that adopt StorableValue. They must be
// Hashable and Sendable, since snapshots cross threads and saves compare values.
import Foundation

/// A value of one's own type a transformable attribute can hold.
///
/// ```swift
/// struct Coordinates: StorableValue { var latitude: Double; var longitude: Double }
/// ```
public protocol StorableValue: Hashable, Sendable {}

extension Array: StorableValue where Element: StorableValue {}
extension Dictionary: StorableValue where Key: StorableValue, Value: StorableValue {}
extension Set: StorableValue where Element: StorableValue {}
extension String: StorableValue {}
extension Int: StorableValue {}
extension Int16: StorableValue {}
extension Int32: StorableValue {}
extension Int64: StorableValue {}
extension Double: StorableValue {}
extension Float: StorableValue {}
extension Decimal: StorableValue {}
extension Bool: StorableValue {}
extension Date: StorableValue {}
extension Data: StorableValue {}
extension UUID: StorableValue {}
extension URL: StorableValue {}

enum StorableValues {
    /// `value` as a value a snapshot can hold, or nil when its type cannot be stored.
    static func modelValue(_ value: Any) -> ModelValue? {
        switch value {
        case let v as String: return v
        case let v as Int16: return v
        case let v as Int32: return v
        case let v as Int64: return v
        case let v as Int: return v
        case let v as Double: return v
        case let v as Float: return v
        case let v as Decimal: return v
        case let v as Bool: return v
        case let v as Date: return v
        case let v as Data: return v
        case let v as UUID: return v
        case let v as URL: return v
        case let v as ObjectID: return v
        case let v as any StorableValue: return v
        default: return nil
        }
    }
}
