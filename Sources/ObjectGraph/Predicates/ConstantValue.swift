// The values a constant expression holds: a closed, Sendable and Hashable set of Swift value
// types, so that predicate trees can be shared across threads, compared and hashed. Numbers of
// different types are equal when their values are (as NSNumber's are).
import Foundation

/// The value of a constant expression: `"text"`, `42`, `2.5`, `YES`, `nil`, a date, `{1, 2}`...
///
/// ```swift
/// let answer = Expression.constant(.integer(42))
/// ConstantValue.integer(42) == ConstantValue.double(42.0)   // true: numbers compare by value
/// ```
public enum ConstantValue: Sendable, Hashable {
    /// `nil` (also `NULL`).
    case null
    /// A null object inside data (Foundation's `NSNull`); equal to `nil`, printed `<null>`.
    case nullObject
    /// `YES`/`NO`, `TRUE`/`FALSE`; behaves as the number 1 or 0 and prints as such.
    case bool(Bool)
    /// A signed integer.
    case integer(Int64)
    /// A binary floating-point number.
    case double(Double)
    /// A decimal number.
    case decimal(Decimal)
    /// A string.
    case string(String)
    /// A date; prints as `CAST(<seconds since 2001-01-01>, "NSDate")`.
    case date(Date)
    /// Binary data.
    case data(Data)
    /// A UUID.
    case uuid(UUID)
    /// A URL.
    case url(URL)
    /// An ordered collection.
    case array([ConstantValue])
    /// An unordered collection of distinct values.
    case set(Set<ConstantValue>)
    /// An ordered collection of distinct values.
    case orderedSet(OrderedSet<ConstantValue>)
    /// A dictionary with string keys.
    case dictionary([String: ConstantValue])
    /// A type named in a custom comparison such as `SELF isKindOfClass: %@` (`"NSNumber"`).
    case typeName(String)
    /// A reference to a class instance passed as a format argument (a managed object, say);
    /// equal only to itself.
    case object(ObjectReference)
    /// A value of a type the engine does not know (an object ID), compared only for equality.
    case opaque(OpaqueValue)

    /// Converts a Swift value to a constant; `nil` and `NSNull` become `.null`/`.nullObject`.
    ///
    /// Accepts strings, every integer and floating-point type, `Decimal`, `Bool`, `Date`, `Data`,
    /// `UUID`, `URL`, arrays, sets, `OrderedSet`, string-keyed dictionaries, metatypes (for
    /// `isKindOfClass:`), class instances (kept by reference) and ``OpaqueConstant`` values
    /// (object IDs). Throws for other value types.
    public init(any value: Any?) throws {
        guard let value = unwrapOptional(value) else { self = .null; return }
        switch value {
        case _ where isNullObject(value): self = .nullObject
        case let v as ConstantValue: self = v
        case let v as AnyHashableValue: self = try ConstantValue(any: v.value)
        case let v as TypeName: self = .typeName(v.name)
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .integer(Int64(v))
        case let v as Int8: self = .integer(Int64(v))
        case let v as Int16: self = .integer(Int64(v))
        case let v as Int32: self = .integer(Int64(v))
        case let v as Int64: self = .integer(v)
        case let v as UInt8: self = .integer(Int64(v))
        case let v as UInt16: self = .integer(Int64(v))
        case let v as UInt32: self = .integer(Int64(v))
        // Beyond Int64: a decimal, which holds every 64-bit value exactly (a double would make
        // neighbouring values equal).
        case let v as UInt: self = v <= UInt(Int64.max) ? .integer(Int64(v)) : .decimal(Decimal(UInt64(v)))
        case let v as UInt64: self = v <= UInt64(Int64.max) ? .integer(Int64(v)) : .decimal(Decimal(v))
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        case let v as Date: self = .date(v)
        case let v as Data: self = .data(v)
        case let v as UUID: self = .uuid(v)
        case let v as URL: self = .url(v)
        case let v as any OpaqueConstant: self = .opaque(OpaqueValue(v))
        case let v as NSNumber where isClassInstance(value): self = Number(nsNumber: v).constant
        case let v as NSString where isClassInstance(value): self = .string(String(describing: v))
        case let v as [Any?]: self = .array(try v.map { try ConstantValue(any: $0) })
        case let v as [Any]: self = .array(try v.map { try ConstantValue(any: $0) })
        case let v as [String: Any?]:
            self = .dictionary(try v.mapValues { try ConstantValue(any: $0) })
        case let v as [String: Any]:
            self = .dictionary(try v.mapValues { try ConstantValue(any: $0) })
        case let v as any OrderedSetProtocol:
            self = .orderedSet(OrderedSet(try v.elementsAsAny.map { try ConstantValue(any: $0) }))
        case let v as any SetProtocol:
            self = .set(Set(try v.elementsAsAny.map { try ConstantValue(any: $0) }))
        case let v as Any.Type: self = .typeName(cocoaTypeName(of: v))
        default:
            if type(of: value) is AnyClass {
                self = .object(ObjectReference(value as AnyObject))
            } else {
                throw PredicateError(.argument, "\(type(of: value)) cannot be a predicate constant")
            }
        }
    }

    /// The value as the evaluator sees it: `nil`, `NSNull()`, `Int`, `Double`, `String`, `[Any]`...
    public var anyValue: Any? {
        switch self {
        case .null: return nil
        case .nullObject: return NSNull()
        case .bool(let v): return v
        case .integer(let v): return Int(v)
        case .double(let v): return v
        case .decimal(let v): return v
        case .string(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        case .url(let v): return v
        case .array(let v): return v.map { $0.anyValue ?? NSNull() }
        case .set(let v): return v.map { $0.anyValue ?? NSNull() }
        case .orderedSet(let v): return v.elements.map { $0.anyValue ?? NSNull() }
        case .dictionary(let v): return v.mapValues { $0.anyValue ?? NSNull() }
        case .typeName(let v): return TypeName(v)
        case .object(let v): return v.object
        case .opaque(let v): return v.value
        }
    }

    /// The numeric value of a number or boolean, for comparing numbers of different types.
    var number: Number? {
        switch self {
        case .bool(let v): return .integer(v ? 1 : 0)
        case .integer(let v): return .integer(v)
        case .double(let v): return .double(v)
        case .decimal(let v): return .decimal(v)
        default: return nil
        }
    }

    /// Numbers (and booleans) are equal when their values are; `nil` equals a null object.
    public static func == (lhs: ConstantValue, rhs: ConstantValue) -> Bool {
        if let a = lhs.number, let b = rhs.number { return a.compare(b) == .orderedSame }
        switch (lhs, rhs) {
        case (.null, .null), (.null, .nullObject), (.nullObject, .null), (.nullObject, .nullObject):
            return true
        case let (.string(a), .string(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.url(a), .url(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.set(a), .set(b)): return a == b
        case let (.orderedSet(a), .orderedSet(b)): return a == b
        // A set or ordered set prints as an array literal, which parses back as an array.
        case let (.array(a), .set(b)), let (.set(b), .array(a)): return a.count == b.count && Set(a) == b
        case let (.array(a), .orderedSet(b)), let (.orderedSet(b), .array(a)): return a == b.elements
        case let (.dictionary(a), .dictionary(b)): return a == b
        case let (.typeName(a), .typeName(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        case let (.opaque(a), .opaque(b)): return a == b
        default: return false
        }
    }

    /// Arrays, sets and ordered sets hash alike (count and an order-independent combination of
    /// the elements), since an array can equal a set.
    private static func hashCollection<C: Collection>(_ elements: C, into hasher: inout Hasher)
    where C.Element == ConstantValue {
        hasher.combine(7)
        hasher.combine(elements.count)
        hasher.combine(elements.reduce(0) { $0 ^ $1.hashValue })
    }

    /// Hashes numbers by their value as a `Double`, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        if let n = number { hasher.combine(0); hasher.combine(n.doubleValue); return }
        switch self {
        case .null, .nullObject: hasher.combine(1)
        case .string(let v): hasher.combine(2); hasher.combine(v)
        case .date(let v): hasher.combine(3); hasher.combine(v)
        case .data(let v): hasher.combine(4); hasher.combine(v)
        case .uuid(let v): hasher.combine(5); hasher.combine(v)
        case .url(let v): hasher.combine(6); hasher.combine(v)
        case .array(let v): Self.hashCollection(v, into: &hasher)
        case .set(let v): Self.hashCollection(v, into: &hasher)
        case .orderedSet(let v): Self.hashCollection(v.elements, into: &hasher)
        case .dictionary(let v): hasher.combine(10); hasher.combine(v)
        case .typeName(let v): hasher.combine(11); hasher.combine(v)
        case .object(let v): hasher.combine(12); hasher.combine(v)
        case .opaque(let v): hasher.combine(13); hasher.combine(v)
        case .bool, .integer, .double, .decimal: break
        }
    }
}

/// A class instance held by a constant expression, compared by identity.
///
/// It is `@unchecked Sendable` because predicates only read it (to compare identities), never
/// mutate it; the object itself stays confined to whoever owns it.
public struct ObjectReference: @unchecked Sendable, Hashable {
    /// The referenced instance.
    public let object: AnyObject

    /// Wraps `object`.
    public init(_ object: AnyObject) { self.object = object }

    /// Two references are equal when they name the same instance.
    public static func == (lhs: ObjectReference, rhs: ObjectReference) -> Bool {
        lhs.object === rhs.object
    }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(object)) }
}

/// A type name given to a custom comparison (`SELF isKindOfClass: %@`), Cocoa's spelling.
public struct TypeName: Sendable, Hashable {
    /// The name: `NSNumber`, `NSString`, `NSArray`, `NSDictionary`, `NSSet`, `NSDate`...
    public let name: String
    /// Creates a type name.
    public init(_ name: String) { self.name = name }
}

/// Cocoa's name for a Swift type, so `isKindOfClass:` reads as it does on Apple platforms.
func cocoaTypeName(of type: Any.Type) -> String {
    switch type {
    case is String.Type, is NSString.Type: return "NSString"
    case is Bool.Type, is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
        is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type,
        is Double.Type, is Float.Type, is NSNumber.Type:
        return "NSNumber"
    case is Decimal.Type: return "NSDecimalNumber"
    case is Date.Type: return "NSDate"
    case is Data.Type: return "NSData"
    case is UUID.Type: return "NSUUID"
    case is URL.Type: return "NSURL"
    case is NSNull.Type: return "NSNull"
    default: return String(describing: type)
    }
}
