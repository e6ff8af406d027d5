// How attribute values enter a managed object's slots: converted to the attribute type's own Swift
// type (so that stored values have one type per attribute), and compared with the value already
// there. Setting a value is the hottest path of an import, so the common case (the value already
// has the attribute's type) costs a type comparison; only other values take the general path.
import Foundation

enum AttributeSlots {
    /// `value` as the slot of an attribute of `type` keeps it: numbers in the attribute's own
    /// type (`Int` to `Int16`...), optionals unwrapped, `NSNull` as nil. `type` is nil for slots
    /// that are not attributes; `valueType` is the slot's Swift type (``EntityLayout/valueTypes``).
    static func normalized(_ value: Any?, as type: AttributeType?, valueType: ObjectIdentifier?) -> Any? {
        guard let value else { return nil }
        // The common case: a value of the attribute's own Swift type is kept as it is.
        if let valueType, ObjectIdentifier(Swift.type(of: value)) == valueType { return value }
        if let storable = StorableValues.modelValue(value) {
            return type.map { AttributeValueParser.coerce(storable, to: $0) } ?? storable
        }
        // A value wrapped in optionals inside `Any`, or NSNull.
        guard let unwrapped = unwrapOptional(value), !(unwrapped is NSNull) else { return nil }
        guard let type, let storable = StorableValues.modelValue(unwrapped) else { return unwrapped }
        return AttributeValueParser.coerce(storable, to: type)
    }

    /// Whether two normalized values of an attribute of `type` are equal, comparing them as
    /// that type (no `AnyHashable` boxing) when both have it.
    static func equal(_ lhs: Any?, _ rhs: Any?, as type: AttributeType) -> Bool {
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        switch type {
        case .string: if let a = lhs as? String, let b = rhs as? String { return a == b }
        case .integer16: if let a = lhs as? Int16, let b = rhs as? Int16 { return a == b }
        case .integer32: if let a = lhs as? Int32, let b = rhs as? Int32 { return a == b }
        case .integer64: if let a = lhs as? Int64, let b = rhs as? Int64 { return a == b }
        case .double: if let a = lhs as? Double, let b = rhs as? Double { return a == b }
        case .float: if let a = lhs as? Float, let b = rhs as? Float { return a == b }
        case .boolean: if let a = lhs as? Bool, let b = rhs as? Bool { return a == b }
        case .date: if let a = lhs as? Date, let b = rhs as? Date { return a == b }
        default: break
        }
        return ManagedObject.valuesEqual(lhs, rhs)
    }
}
