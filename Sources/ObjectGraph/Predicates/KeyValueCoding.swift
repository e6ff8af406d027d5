// Key-value access, the Linux stand-in for Foundation's KVC: objects answer `value(forKey:)`,
// key paths walk through them, collections map a key over their elements, and the collection
// operators (`@count`, `@sum`, `@avg`, `@min`, `@max`, `@…UnionOf…`) aggregate.
import Foundation

/// A value whose properties can be read by name, as Core Data reads managed objects.
///
/// Adopt it by implementing `value(forKey:)`; `value(forKeyPath:)` comes for free and walks
/// dotted paths, through collections and collection operators:
///
/// ```swift
/// let person: [String: Any] = ["name": "Ada", "pets": [["age": 3], ["age": 5]]]
/// person.value(forKeyPath: "pets.age")       // [3, 5]
/// person.value(forKeyPath: "pets.@sum.age")  // 8
/// person.value(forKeyPath: "pets.@count")    // 2
/// ```
///
/// A missing key answers nil. Dictionaries with `String` keys, arrays, sets and `OrderedSet`
/// adopt it; `ManagedObject` does too.
public protocol KeyValueCoding {
    /// The value of the property named `key`, or nil when it is nil or there is no such key.
    func value(forKey key: String) -> Any?
    /// The value at the end of a dotted key path (`"author.name"`, `"items.@sum.price"`).
    func value(forKeyPath keyPath: String) -> Any?
}

extension KeyValueCoding {
    /// Walks `keyPath` one key at a time with `KeyValueAccess.value(of:forKeyPath:)`.
    public func value(forKeyPath keyPath: String) -> Any? {
        KeyValueAccess.value(of: self, forKeyPath: keyPath)
    }
}

extension Dictionary: KeyValueCoding where Key == String {
    /// The value stored under `key` (a null object reads as nil); `@count` is the entry count.
    public func value(forKey key: String) -> Any? {
        if let stored = self[key] { return KeyValueAccess.normalized(stored) }
        if key == "@count" { return count }
        if key == "@allKeys" { return Array(keys) }
        if key == "@allValues" { return values.map { $0 as Any } }
        return nil
    }
}

extension Array: KeyValueCoding {
    /// The value for `key` of every element (nil answers become null objects), or the result
    /// of a collection operator such as `@count`.
    public func value(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(map { $0 as Any }, forKey: key, rebuild: { $0 })
    }
}

extension Set: KeyValueCoding {
    /// The distinct values for `key` of the elements, or the result of a collection operator.
    public func value(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(map { $0 as Any }, forKey: key, rebuild: KeyValueAccess.distinct)
    }
}

extension OrderedSet: KeyValueCoding {
    /// The values for `key` of the elements in order, or the result of a collection operator.
    public func value(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(elements.map { $0 as Any }, forKey: key, rebuild: { $0 })
    }
}

/// Key-value access to any value: `KeyValueCoding` adopters, strings, and what Foundation's KVC
/// would answer for them.
public enum KeyValueAccess {
    /// The value of `key` on `object`: nil for nil, null objects and unknown keys.
    ///
    /// Strings answer `length` (UTF-16 count, as NSString does), `description` and `self`;
    /// every value answers `self`. Values that do not adopt `KeyValueCoding` answer their
    /// stored properties by reflection.
    public static func value(of object: Any?, forKey key: String) -> Any? {
        guard let object = unwrapOptional(object), !isNullObject(object) else { return nil }
        if let dictionary = object as? [String: Any], let stored = dictionary[key] {
            return normalized(stored)  // the common case, without a protocol lookup
        }
        if key == "self" { return object }
        if let kvc = object as? any KeyValueCoding { return kvc.value(forKey: key) }
        if let string = object as? String {
            switch key {
            case "length": return string.utf16.count
            case "description": return string
            case "uppercaseString": return string.uppercased()
            case "lowercaseString": return string.lowercased()
            default: return nil
            }
        }
        if key == "description" { return String(describing: object) }
        if let items = collectionElements(object) {
            return collectionValue(items, forKey: key, rebuild: { $0 })
        }
        return reflectedValue(of: object, forKey: key)
    }

    /// A stored property of a plain Swift value or object that does not adopt `KeyValueCoding`,
    /// found by reflection (and its superclasses'); nil when there is none.
    static func reflectedValue(of object: Any, forKey key: String) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            if current.displayStyle == .optional || current.displayStyle == .enum { return nil }
            for child in current.children where child.label == key { return normalized(child.value) }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The value at the end of `keyPath` on `object`. A collection operator (`@sum`...) takes the
    /// rest of the path as its argument: `items.@sum.price`.
    public static func value(of object: Any?, forKeyPath keyPath: String) -> Any? {
        if !keyPath.utf8.contains(UInt8(ascii: ".")) { return value(of: object, forKey: keyPath) }
        var current: Any? = object
        var rest = Substring(keyPath)
        while !rest.isEmpty {
            let key: Substring
            if let dot = rest.firstIndex(of: ".") {
                key = rest[..<dot]
                rest = rest[rest.index(after: dot)...]
            } else {
                key = rest
                rest = ""
            }
            if key.hasPrefix("@"), key != "@count", !rest.isEmpty,
                let items = collectionElements(current)
            {
                return collectionOperator(String(key), items, argumentPath: String(rest))
            }
            current = value(of: current, forKey: String(key))
        }
        return current
    }

    /// The elements of an array, set, ordered set or dictionary (its values), or nil.
    public static func collectionElements(_ value: Any?) -> [Any]? {
        guard let value = unwrapOptional(value) else { return nil }
        switch value {
        case let v as [Any]: return v
        case let v as any OrderedSetProtocol: return v.elementsAsAny
        case let v as any SetProtocol: return v.elementsAsAny
        case let v as NSArray where isClassInstance(value): return v.map { $0 }
        case let v as NSSet where isClassInstance(value): return v.map { $0 }
        case let v as NSOrderedSet where isClassInstance(value): return v.array
        default: return nil
        }
    }

    /// Whether `value` is an unordered collection (a set), so results should be distinct.
    static func isUnordered(_ value: Any?) -> Bool {
        guard let value = unwrapOptional(value) else { return false }
        return value is any SetProtocol || (isClassInstance(value) && value is NSSet)
    }

    /// `nil` for a null object, the value otherwise.
    static func normalized(_ value: Any?) -> Any? {
        guard let value = unwrapOptional(value), !isNullObject(value) else { return nil }
        return value
    }

    /// The distinct elements of `items`, in first-seen order.
    static func distinct(_ items: [Any]) -> [Any] {
        var result: [Any] = []
        for item in items where !result.contains(where: { ValueComparison.equal($0, item) }) {
            result.append(item)
        }
        return result
    }

    /// A key applied to a collection: an operator (`@count`, `@sum`, `@max`... with no path, over
    /// the elements themselves) or the key mapped over the elements.
    static func collectionValue(_ items: [Any], forKey key: String, rebuild: ([Any]) -> [Any]) -> Any? {
        if key.hasPrefix("@") { return collectionOperator(key, items, argumentPath: "self") }
        return rebuild(items.map { value(of: $0, forKey: key) ?? NSNull() })
    }

    /// Applies a collection operator to the values of `argumentPath` over `items`.
    static func collectionOperator(_ name: String, _ items: [Any], argumentPath: String) -> Any? {
        if name == "@count" { return items.count }
        let values = items.map { value(of: $0, forKeyPath: argumentPath) }
        let present = values.compactMap { normalized($0) }
        switch name {
        case "@sum": return Aggregates.sum(present)
        case "@avg": return present.isEmpty ? nil : Aggregates.average(present)
        case "@min": return Aggregates.extreme(present, wantMax: false)
        case "@max": return Aggregates.extreme(present, wantMax: true)
        case "@unionOfObjects": return present
        case "@distinctUnionOfObjects": return distinct(present)
        case "@unionOfArrays", "@unionOfSets":
            return present.flatMap { collectionElements($0) ?? [$0] }
        case "@distinctUnionOfArrays", "@distinctUnionOfSets":
            return distinct(present.flatMap { collectionElements($0) ?? [$0] })
        default: return nil
        }
    }
}
