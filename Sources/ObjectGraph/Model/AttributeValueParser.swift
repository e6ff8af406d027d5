// Converts between an attribute's values and the strings a model file holds them as
// (`defaultValueString`), for every attribute type. Lenient where Xcode is: an integer written
// as "NO" reads as 0 (as NSString's integerValue does), and the reader reports a warning.
import Foundation

enum AttributeValueParser {
    enum Outcome {
        /// The text is a value of the type.
        case value(ModelValue)
        /// The text is not quite a value of the type; read as Core Data would, with a note why.
        case lenient(ModelValue, note: String)
        /// The text cannot be read as the type.
        case invalid(reason: String)
    }

    static func parse(_ text: String, as type: AttributeType) -> Outcome {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16: return integer(trimmed, type, Int16.self)
        case .integer32: return integer(trimmed, type, Int32.self)
        case .integer64: return integer(trimmed, type, Int64.self)
        case .decimal:
            guard let value = decimal(trimmed) else { return .invalid(reason: "is not a Decimal") }
            return .value(value)
        case .double:
            guard let value = Double(trimmed) else { return .invalid(reason: "is not a Double") }
            return .value(value)
        case .float:
            guard let value = Float(trimmed) else { return .invalid(reason: "is not a Float") }
            return .value(value)
        case .string:
            return .value(text)
        case .boolean:
            switch trimmed.uppercased() {
            case "YES", "TRUE", "1": return .value(true)
            case "NO", "FALSE", "0": return .value(false)
            default:
                // Xcode keeps a number typed before the type became Boolean; Core Data reads it
                // as NSNumber's boolValue.
                guard let number = Double(trimmed) else { return .invalid(reason: "is not a Boolean (YES or NO)") }
                return .lenient(number != 0, note: "is not a Boolean; read as \(number != 0 ? "YES" : "NO"), as Core Data does")
            }
        case .date:
            guard let seconds = Double(trimmed) else { return .invalid(reason: "is not a date (seconds since 2001-01-01)") }
            return .value(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid:
            guard let value = UUID(uuidString: trimmed) else { return .invalid(reason: "is not a UUID") }
            return .value(value)
        case .uri:
            guard let value = URL(string: trimmed) else { return .invalid(reason: "is not a URI") }
            return .value(value)
        case .binaryData:
            guard let value = Data(base64Encoded: trimmed) else { return .invalid(reason: "is not base64 data") }
            return .value(value)
        case .undefined, .transformable, .objectID, .composite:
            return .lenient(text, note: "is kept as a string: \(type.xcodeName) attributes have no default value form")
        }
    }

    /// `text` as a decimal number when all of it is one: an optional sign, digits with an
    /// optional fraction, an optional exponent (`-12`, `0.5`, `.5`, `1e3`). `Decimal(string:)`
    /// alone reads the longest number that starts the text, so "12abc" would be 12 and "0x10" 0.
    static func decimal(_ text: String) -> Decimal? {
        guard text.wholeMatch(of: /[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?/) != nil else { return nil }
        return Decimal(string: text)
    }

    private static func integer<T: FixedWidthInteger & Sendable>(_ text: String, _ type: AttributeType, _: T.Type) -> Outcome {
        if let value = T(text) { return .value(value) }
        if let number = Double(text) {
            guard number.rounded(.towardZero) == number, let value = T(exactly: number) else {
                return .invalid(reason: "is not an \(type.xcodeName) (out of range or not whole)")
            }
            return .value(value)
        }
        // NSString.integerValue reads an optional sign and leading digits; anything else is 0.
        var prefix = Substring(text)
        if let sign = prefix.first, sign == "-" || sign == "+" { prefix = prefix.dropFirst() }
        let digits = prefix.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else {
            return .lenient(T.zero, note: "is not an \(type.xcodeName); read as 0, as Core Data does")
        }
        guard let value = T(text.hasPrefix("-") ? "-" + digits : String(digits)) else {
            return .invalid(reason: "is out of range for \(type.xcodeName)")
        }
        return .lenient(value, note: "is not an \(type.xcodeName); read as \(value), as Core Data does")
    }

    /// The string a model file holds `value` as, for an attribute of `type`.
    static func format(_ value: ModelValue, as type: AttributeType) -> String {
        switch value {
        case let text as String: return text
        case let flag as Bool: return flag ? "YES" : "NO"
        case let date as Date: return formatNumber(date.timeIntervalSinceReferenceDate)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let data as Data: return data.base64EncodedString()
        case let decimal as Decimal: return "\(decimal)"
        case let double as Double: return formatNumber(double)
        case let float as Float: return formatNumber(Double(float))
        default: return "\(value)"
        }
    }

    /// A number as Xcode writes it: `0.0` for integral doubles, otherwise the shortest form.
    static func formatNumber(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(format: "%.1f", number) }
        return "\(number)"
    }
}

extension AttributeValueParser {
    /// `value` converted to the Swift type of `type` where it is a number of another width
    /// (`0` for an Integer 16 attribute becomes `Int16(0)`); other values are returned as they are.
    /// An `Int` that does not fit the attribute's integer type is returned as it is too, for
    /// validation to refuse (converting it would trap).
    static func coerce(_ value: ModelValue, to type: AttributeType) -> ModelValue {
        // Any integer (and a Boolean, as NSNumber holds either) for integer and Boolean
        // attributes, as Core Data takes any NSNumber; converted only where it is exact.
        func integer() -> Int64? {
            switch value {
            case let v as Int: return Int64(v)
            case let v as Int8: return Int64(v)
            case let v as Int16: return Int64(v)
            case let v as Int32: return Int64(v)
            case let v as Int64: return v
            case let v as UInt8: return Int64(v)
            case let v as UInt16: return Int64(v)
            case let v as UInt32: return Int64(v)
            case let v as UInt: return Int64(exactly: v)
            case let v as UInt64: return Int64(exactly: v)
            case let v as Bool: return v ? 1 : 0
            default: return nil
            }
        }
        // Any number but a Boolean, for floating-point attributes.
        func number() -> Double? {
            switch value {
            case is Bool: return nil
            case let v as Double: return v
            case let v as Float: return Double(v)
            default: return integer().map(Double.init)
            }
        }
        switch type {
        case .integer16: if !(value is Int16), let v = integer(), let narrowed = Int16(exactly: v) { return narrowed }
        case .integer32: if !(value is Int32), let v = integer(), let narrowed = Int32(exactly: v) { return narrowed }
        case .integer64: if !(value is Int64), let v = integer() { return v }
        case .boolean: if !(value is Bool), let v = integer(), v == 0 || v == 1 { return v == 1 }
        case .double: if let v = number() { return v }
        case .float: if let v = number() { return Float(v) }
        case .decimal:
            if let v = value as? Int { return Decimal(v) }
            if let v = value as? Double { return Decimal(string: "\(v)") ?? Decimal(v) }
        case .uri: if let text = value as? String, let url = URL(string: text) { return url }
        case .uuid: if let text = value as? String, let uuid = UUID(uuidString: text) { return uuid }
        default: break
        }
        return value
    }
}
