// Numbers out of `Any` (a dictionary fetch's value, a key-value answer) as one type, so that tests
// compare them whatever Swift type a store or an aggregate returned.
import Foundation

/// Any number as a Double (a Bool as 0 or 1); nil for anything else.
func doubleValue(_ value: Any?) -> Double? {
    switch value {
    case let v as Int: return Double(v)
    case let v as Int16: return Double(v)
    case let v as Int32: return Double(v)
    case let v as Int64: return Double(v)
    case let v as Double: return v
    case let v as Float: return Double(v)
    case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
    case let v as Bool: return v ? 1 : 0
    default: return nil
    }
}
