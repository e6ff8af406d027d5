// Core Data's default value transformer, NSSecureUnarchiveFromDataTransformer, built in under the
// names models give it ("NSSecureUnarchiveFromData", the name Xcode writes, and the class's own):
// property-list values (strings, numbers, dates, data, URLs, UUIDs; arrays and sets of one such
// type; dictionaries of strings to one such type) kept as keyed archives, the bytes Core Data
// writes for them, so that transformable attributes of real models work without registering
// anything. Other values are refused naming their type; a transformer registered under the name
// replaces this one.
import Foundation

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
        try NSKeyedArchiver.archivedData(withRootObject: try foundationObject(of: value, nested: false), requiringSecureCoding: true)
    }

    /// The stored value. Bytes that are not a keyed archive (values stored before the transformer
    /// was built in, which kept Data as it was) come back as they are.
    static func unarchive(_ data: Data) throws -> any Hashable & Sendable {
        guard data.starts(with: Array("bplist".utf8)) else { return data }
        guard let object = try NSKeyedUnarchiver.unarchivedObject(ofClasses: allowedClasses, from: data) else {
            throw Failure(description: "the keyed archive holds no object")
        }
        return try swiftValue(of: object, nested: false)
    }

    private static let unsupported = "property-list values (strings, numbers, dates, data, URLs, UUIDs), arrays and sets of one such type, and dictionaries of strings to one such type; register a transformer of your own for others"

    /// The Foundation object a Swift value is archived as.
    private static func foundationObject(of value: Any, nested: Bool) throws -> AnyObject {
        switch value {
        case let string as String: return NSString(string: string)
        case let bool as Bool: return NSNumber(value: bool)
        case let int as Int: return NSNumber(value: int)
        case let int as Int64: return NSNumber(value: int)
        case let int as Int32: return NSNumber(value: int)
        case let int as Int16: return NSNumber(value: int)
        case let double as Double: return NSNumber(value: double)
        case let float as Float: return NSNumber(value: float)
        case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let data as Data: return NSData(data: data)
        case let url as URL: return NSURL(string: url.absoluteString) ?? NSString(string: url.absoluteString)
        case let uuid as UUID: return NSUUID(uuidString: uuid.uuidString)!
        case let array as [Any] where !nested:
            var objects: [AnyObject] = []
            for element in array { objects.append(try foundationObject(of: element, nested: true)) }
            return NSArray(array: objects)
        case let set as Set<AnyHashable> where !nested:
            var objects: [AnyObject] = []
            for element in set { objects.append(try foundationObject(of: element.base, nested: true)) }
            return NSSet(array: objects)
        case let dictionary as [String: Any] where !nested:
            let result = NSMutableDictionary()
            for (key, element) in dictionary { result.setObject(try foundationObject(of: element, nested: true), forKey: NSString(string: key)) }
            return result
        default:
            throw Failure(description: "a value of type \(type(of: value)): the built-in transformer keeps \(unsupported)")
        }
    }

    /// The Swift value an unarchived object stands for. Collections come back typed (`[String]`,
    /// `Set<Int>`, `[String: Date]`), so that a value reads back equal to the one stored.
    private static func swiftValue(of object: Any, nested: Bool) throws -> any Hashable & Sendable {
        switch object {
        case let string as String: return string
        case let number as NSNumber: return number.propertyListValue
        case let bool as Bool: return bool
        case let date as Date: return date
        case let data as Data: return data
        case let url as URL: return url
        case let uuid as UUID: return uuid
        case let set as NSSet where !nested:
            return try narrowed(try set.allObjects.map { try swiftValue(of: $0, nested: true) }, asSet: true)
        case let array as [Any] where !nested:
            return try narrowed(try array.map { try swiftValue(of: $0, nested: true) }, asSet: false)
        case let dictionary as [String: Any] where !nested:
            var values: [String: any Hashable & Sendable] = [:]
            for (key, element) in dictionary { values[key] = try swiftValue(of: element, nested: true) }
            func all<T: Hashable & Sendable>(_: T.Type) -> [String: T]? {
                let typed = values.compactMapValues { $0 as? T }
                return typed.count == values.count ? typed : nil
            }
            if let result: any Hashable & Sendable = all(String.self) ?? all(Int.self) ?? all(Double.self) ?? all(Bool.self)
                ?? all(Date.self) ?? all(Data.self) ?? all(URL.self) ?? all(UUID.self) {
                return result
            }
            throw Failure(description: "an archived dictionary whose values are of several types: the built-in transformer keeps \(unsupported)")
        default:
            throw Failure(description: "an archived \(type(of: object)): the built-in transformer keeps \(unsupported)")
        }
    }

    /// `elements` as an array (or a set) of their one property-list type.
    private static func narrowed(_ elements: [any Hashable & Sendable], asSet: Bool) throws -> any Hashable & Sendable {
        func all<T: Hashable & Sendable>(_: T.Type) -> (any Hashable & Sendable)? {
            let typed = elements.compactMap { $0 as? T }
            guard typed.count == elements.count else { return nil }
            return asSet ? Set(typed) : typed
        }
        if let result = all(String.self) ?? all(Int.self) ?? all(Double.self) ?? all(Bool.self) ?? all(Date.self)
            ?? all(Data.self) ?? all(URL.self) ?? all(UUID.self) {
            return result
        }
        throw Failure(description: "an archived collection of several types: the built-in transformer keeps \(unsupported)")
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
