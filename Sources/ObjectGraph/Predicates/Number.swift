// Numbers of any Swift type seen as one of three kinds (integer, double, decimal), so the
// evaluator compares and computes by value: `Int16(3) == 3.0`, `true == 1`.
import Foundation

/// A number taken out of any numeric Swift value, NSNumber or Bool.
enum Number: Sendable {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)

    /// The number held by `value`, or nil when it is not a number (strings are not numbers).
    init?(_ value: Any) {
        switch value {
        case let v as Int: self = .integer(Int64(v))
        case let v as Double: self = .double(v)
        case let v as Bool: self = .integer(v ? 1 : 0)
        case let v as Int64: self = .integer(v)
        case let v as Int32: self = .integer(Int64(v))
        case let v as Int16: self = .integer(Int64(v))
        case let v as Int8: self = .integer(Int64(v))
        case let v as UInt8: self = .integer(Int64(v))
        case let v as UInt16: self = .integer(Int64(v))
        case let v as UInt32: self = .integer(Int64(v))
        // Beyond Int64: a decimal, which holds every 64-bit value exactly (a double would make
        // neighbouring values equal).
        case let v as UInt: self = v <= UInt(Int64.max) ? .integer(Int64(v)) : .decimal(Decimal(UInt64(v)))
        case let v as UInt64: self = v <= UInt64(Int64.max) ? .integer(Int64(v)) : .decimal(Decimal(v))
        case let v as Float: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        case let v as NSNumber where isClassInstance(value): self = Number(nsNumber: v)
        default: return nil
        }
    }

    /// The number held by an NSNumber, keeping integers integral.
    init(nsNumber v: NSNumber) {
        let type = String(cString: v.objCType)
        if type == "d" || type == "f" {
            self = .double(v.doubleValue)
        } else {
            self = .integer(v.int64Value)
        }
    }

    /// The number as a constant.
    var constant: ConstantValue {
        switch self {
        case .integer(let v): return .integer(v)
        case .double(let v): return .double(v)
        case .decimal(let v): return .decimal(v)
        }
    }

    /// The number as a Swift value for the evaluator.
    var anyValue: Any {
        switch self {
        case .integer(let v): return Int(v)
        case .double(let v): return v
        case .decimal(let v): return v
        }
    }

    /// The value as a Double (decimals may round).
    var doubleValue: Double {
        switch self {
        case .integer(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        }
    }

    /// The value as a Decimal.
    var decimalValue: Decimal {
        switch self {
        case .integer(let v): return Decimal(v)
        case .double(let v): return Decimal(v)
        case .decimal(let v): return v
        }
    }

    /// The value as an integer, truncating a fraction; nil when out of range or not finite.
    var integerValue: Int64? {
        switch self {
        case .integer(let v): return v
        case .double(let v): return v.isFinite && abs(v) < 9.2e18 ? Int64(v) : nil
        case .decimal(let v):
            let d = NSDecimalNumber(decimal: v).doubleValue
            return d.isFinite && abs(d) < 9.2e18 ? Int64(d) : nil
        }
    }

    /// Compares by value: integers exactly, decimals as decimals, anything else as doubles.
    func compare(_ other: Number) -> ComparisonResult {
        switch (self, other) {
        case let (.integer(a), .integer(b)):
            return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case (.decimal, _), (_, .decimal):
            let a = decimalValue, b = other.decimalValue
            return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        default:
            let a = doubleValue, b = other.doubleValue
            return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        }
    }
}
