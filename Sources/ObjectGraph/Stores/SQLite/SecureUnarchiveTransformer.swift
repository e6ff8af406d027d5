// Core Data's default value transformer, NSSecureUnarchiveFromDataTransformer, built in under the
// names models give it ("NSSecureUnarchiveFromData", the name Xcode writes, and the class's own):
// property lists (strings, numbers, dates, data, URLs, UUIDs, and arrays, sets and dictionaries
// of them, nested) kept as keyed archives, the bytes Core Data writes for them, so that
// transformable attributes of real models work without registering anything and stores Core
// Data wrote read back. A transformer registered under the name replaces this one.
import Foundation

/// A property list whose collections mix types (`["name": "Ada", "count": 3]`), as the built-in
/// `NSSecureUnarchiveFromData` transformer reads one back: Swift's `[String: Any]` is neither
/// Hashable nor Sendable, so a stored value cannot be one. ``anyValue`` gives it as one. Store
/// one as a transformable attribute's value to write such a property list.
public indirect enum PropertyListValue: StorableValue, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case url(URL)
    case uuid(UUID)
    case array([PropertyListValue])
    case set(Set<PropertyListValue>)
    case dictionary([String: PropertyListValue])

    /// The value as Swift's loosely typed form: `[String: Any]`, `[Any]`, `Set<AnyHashable>`,
    /// `String`, `Int`...
    public var anyValue: Any {
        switch self {
        case .string(let value): return value
        case .integer(let value): return value
        case .double(let value): return value
        case .bool(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .url(let value): return value
        case .uuid(let value): return value
        case .array(let values): return values.map(\.anyValue)
        case .set(let values): return Set(values.map { $0.anyValue as! AnyHashable })
        case .dictionary(let values): return values.mapValues(\.anyValue)
        }
    }

    public var description: String { "\(anyValue)" }
}

enum SecureUnarchiveTransformer {
    /// The names it answers to (a transformer registered under one of them wins).
    static let names: Set<String> = ["NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer"]

    static let transformer = AttributeValueTransformer(transform: archive, reverseTransform: unarchive)

    /// The classes a secure unarchiving accepts: Core Data's "top-level classes".
    private static let allowedClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
        NSURL.self, NSUUID.self,
    ]

    /// A problem with a value or with stored bytes, naming it.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func archive(_ value: any Hashable & Sendable) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: try foundationObject(of: value), requiringSecureCoding: true)
    }

    /// The stored value. Bytes that are not a keyed archive (values stored before the transformer
    /// was built in, which kept Data as it was) come back as they are.
    static func unarchive(_ data: Data) throws -> any Hashable & Sendable {
        guard data.starts(with: Array("bplist".utf8)) else { return data }
        guard let object = try NSKeyedUnarchiver.unarchivedObject(ofClasses: allowedClasses, from: data) else {
            throw Failure(description: "the keyed archive holds no object")
        }
        return try swiftValue(of: object)
    }

    /// The Foundation object a Swift value is archived as.
    private static func foundationObject(of value: Any) throws -> AnyObject {
        switch value {
        case let string as String: return NSString(string: string)
        case let bool as Bool: return NSNumber(value: bool)
        case let int as Int: return NSNumber(value: int)
        case let int as Int64: return NSNumber(value: int)
        case let int as Int32: return NSNumber(value: int)
        case let int as Int16: return NSNumber(value: int)
        case let double as Double: return NSNumber(value: double)
        case let float as Float: return NSNumber(value: float)
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal)
        case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let data as Data: return NSData(data: data)
        case let url as URL: return NSURL(string: url.absoluteString) ?? NSString(string: url.absoluteString)
        case let uuid as UUID: return NSUUID(uuidString: uuid.uuidString)!
        case let list as PropertyListValue: return try foundationObject(of: list.anyValue)
        case let array as [Any]:
            var objects: [AnyObject] = []
            for element in array { objects.append(try foundationObject(of: element)) }
            return NSArray(array: objects)
        case let set as Set<AnyHashable>:
            var objects: [AnyObject] = []
            for element in set { objects.append(try foundationObject(of: element.base)) }
            return NSSet(array: objects)
        case let dictionary as [String: Any]:
            let result = NSMutableDictionary()
            for (key, element) in dictionary { result.setObject(try foundationObject(of: element), forKey: NSString(string: key)) }
            return result
        default:
            throw Failure(description: "a value of type \(type(of: value)): the built-in transformer keeps property lists "
                + "(strings, numbers, dates, data, URLs, UUIDs, and arrays, sets and dictionaries with string keys of them); "
                + "register a transformer of your own for others")
        }
    }

    /// The Swift value an unarchived object stands for. A collection of one type comes back
    /// typed (`[String]`, `Set<Int>`, `[String: Date]`, and one level deeper: `[[String: String]]`),
    /// so that it reads back equal to the value stored; one that mixes types as a
    /// ``PropertyListValue``.
    private static func swiftValue(of object: Any) throws -> any Hashable & Sendable {
        switch object {
        case let string as String: return string
        case let number as NSNumber: return number.propertyListValue
        case let bool as Bool: return bool
        case let date as Date: return date
        case let data as Data: return data
        case let url as URL: return url
        case let uuid as UUID: return uuid
        case let set as NSSet:
            let elements = try set.allObjects.map(swiftValue(of:))
            if let typed = narrowed(elements, asSet: true) { return typed }
            return PropertyListValue.set(Set(try elements.map(propertyList(of:))))
        case let array as [Any]:
            let elements = try array.map(swiftValue(of:))
            if let typed = narrowed(elements, asSet: false) { return typed }
            return PropertyListValue.array(try elements.map(propertyList(of:)))
        case let dictionary as [String: Any]:
            var values: [String: any Hashable & Sendable] = [:]
            for (key, element) in dictionary { values[key] = try swiftValue(of: element) }
            func all<T: Hashable & Sendable>(_: T.Type) -> [String: T]? {
                let typed = values.compactMapValues { $0 as? T }
                return typed.count == values.count ? typed : nil
            }
            if let result: any Hashable & Sendable = all(String.self) ?? all(Int.self) ?? all(Double.self) ?? all(Bool.self)
                ?? all(Date.self) ?? all(Data.self) ?? all(URL.self) ?? all(UUID.self) {
                return result
            }
            return PropertyListValue.dictionary(try values.mapValues(propertyList(of:)))
        default:
            throw Failure(description: "an archived \(type(of: object)), which is not a property list")
        }
    }

    /// `elements` as an array (or a set) of their one type, when they share one of the
    /// property-list types or one of the common collections of them.
    private static func narrowed(_ elements: [any Hashable & Sendable], asSet: Bool) -> (any Hashable & Sendable)? {
        func all<T: Hashable & Sendable>(_: T.Type) -> (any Hashable & Sendable)? {
            let typed = elements.compactMap { $0 as? T }
            guard typed.count == elements.count else { return nil }
            return asSet ? Set(typed) : typed
        }
        let candidates: [() -> (any Hashable & Sendable)?] = [
            { all(String.self) }, { all(Int.self) }, { all(Double.self) }, { all(Bool.self) }, { all(Date.self) },
            { all(Data.self) }, { all(URL.self) }, { all(UUID.self) },
            { all([String: String].self) }, { all([String: Int].self) }, { all([String: Double].self) }, { all([String: Bool].self) },
            { all([String].self) }, { all([Int].self) }, { all([Double].self) },
        ]
        for candidate in candidates { if let result = candidate() { return result } }
        return nil
    }

    /// A value ``swiftValue(of:)`` made, as a ``PropertyListValue`` (inside a mixed collection).
    private static func propertyList(of value: any Hashable & Sendable) throws -> PropertyListValue {
        switch value {
        case let list as PropertyListValue: return list
        case let string as String: return .string(string)
        case let bool as Bool: return .bool(bool)
        case let int as Int: return .integer(int)
        case let double as Double: return .double(double)
        case let date as Date: return .date(date)
        case let data as Data: return .data(data)
        case let url as URL: return .url(url)
        case let uuid as UUID: return .uuid(uuid)
        default:
            // A typed collection narrowed one level down: its elements one by one.
            func element(_ any: Any) throws -> PropertyListValue {
                guard let storable = StorableValues.modelValue(any) else { throw Failure(description: "a \(type(of: any)) inside a property list") }
                return try propertyList(of: storable)
            }
            switch value {
            case let array as [Any]: return .array(try array.map(element))
            case let set as Set<AnyHashable>: return .set(Set(try set.map { try element($0.base) }))
            case let dictionary as [String: Any]: return .dictionary(try dictionary.mapValues(element))
            default: throw Failure(description: "a \(type(of: value)) inside a property list")
            }
        }
    }
}

extension NSNumber {
    /// The number as the Swift value of its own type (Bool, Double or Int): on Linux a stored 1
    /// or 1.0 also casts to Bool, so the number's type decides.
    var propertyListValue: any Hashable & Sendable {
        switch String(cString: objCType) {
        case "c", "B": return boolValue
        case "f", "d": return doubleValue
        default: return intValue
        }
    }
}
