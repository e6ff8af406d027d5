// Key-value access, the Linux stand-in for Foundation's KVC: objects answer `value(forKey:)`,
// key paths walk through them, collections map a key over their elements (an array into an
// array, a set into a set, an ordered set into an ordered set, as NSArray, NSSet and NSOrderedSet
// do), and the collection operators (`@count`, `@sum`, `@avg`, `@min`, `@max`, `@…UnionOf…`)
// aggregate. The predicate evaluator walks key paths its own way (``KeyValueAccess/Traversal``).
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
///
/// A key applied to a collection answers a collection of the same kind, as Foundation's do:
///
/// - an array answers an array with every element's value, nil values as `NSNull()` (NSArray);
/// - a set answers a `Set<AnyHashable>` of the distinct values that are not nil (NSSet);
/// - an ordered set answers an `OrderedSet<AnyHashable>` of the distinct values that are not
///   nil, in order (NSOrderedSet).
///
/// So `event.value(forKeyPath: "attendees.lastName")` (attendees being a to-many relationship,
/// a set) leaves out attendees without a last name, and a further key applies to that set
/// again: `preparation.owner.firstName` is the set of the first names of the tasks' owners.
/// A value that is not `Hashable` sits in such a set in an ``AnyHashableValue`` box, which
/// ``KeyValueAccess/collectionElements(_:)`` opens.
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

extension Array: KeyValueCoding, KeyedCollection {
    /// The value for `key` of every element, in an array (nil answers become null objects), or
    /// the result of a collection operator such as `@count`.
    public func value(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(map { $0 as Any }, forKey: key, kind: .array, .foundation)
    }

    func evaluationValue(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(map { $0 as Any }, forKey: key, kind: .array, .evaluation)
    }
}

extension Set: KeyValueCoding, KeyedCollection {
    /// The distinct values for `key` of the elements that are not nil, in a `Set<AnyHashable>`
    /// (as NSSet answers), or the result of a collection operator.
    public func value(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(keyedElements, forKey: key, kind: .set, .foundation)
    }

    func evaluationValue(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(keyedElements, forKey: key, kind: .set, .evaluation)
    }

    /// The elements a key maps over: out of their boxes for sets of `AnyHashable` (what keys
    /// answer) or ``AnyHashableValue``, as they are otherwise (without a cast per element).
    private var keyedElements: [Any] {
        Element.self == AnyHashable.self || Element.self == AnyHashableValue.self ? elementsAsAny : map { $0 as Any }
    }
}

extension OrderedSet: KeyValueCoding, KeyedCollection {
    /// The distinct values for `key` of the elements that are not nil, in order, in an
    /// `OrderedSet<AnyHashable>` (as NSOrderedSet answers), or the result of a collection operator.
    public func value(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(keyedElements, forKey: key, kind: .orderedSet, .foundation)
    }

    func evaluationValue(forKey key: String) -> Any? {
        KeyValueAccess.collectionValue(keyedElements, forKey: key, kind: .orderedSet, .evaluation)
    }

    /// The elements a key maps over, as for a set.
    private var keyedElements: [Any] {
        Element.self == AnyHashable.self || Element.self == AnyHashableValue.self ? elementsAsAny : elements.map { $0 as Any }
    }
}

/// The collections that adopt `KeyValueCoding` (arrays, sets, ordered sets), which the
/// evaluator's traversal maps a key over its own way (``KeyValueAccess/Traversal/evaluation``).
protocol KeyedCollection {
    /// The value of `key` as the predicate evaluator sees it.
    func evaluationValue(forKey key: String) -> Any?
}

/// Key-value access to any value: `KeyValueCoding` adopters, strings, and what Foundation's KVC
/// would answer for them.
public enum KeyValueAccess {
    /// How a key path walks through collections.
    enum Traversal {
        /// As Foundation's key-value coding does (``KeyValueCoding``): a set's or an ordered
        /// set's values leave out nil and duplicates.
        case foundation
        /// As the predicate evaluator does, and as the SQLite store translates: every
        /// collection maps a key over all its elements into an array, with a null object for
        /// each nil value, so that `ANY tasks.due == nil` matches a task without a due date
        /// (SQL's join sees its NULL); a set's values are made distinct.
        case evaluation
    }

    /// The value of `key` on `object`: nil for nil, null objects and unknown keys.
    ///
    /// Strings answer `length` (UTF-16 count, as NSString does), `description` and `self`;
    /// every value answers `self`. Values that do not adopt `KeyValueCoding` answer their
    /// stored properties by reflection.
    public static func value(of object: Any?, forKey key: String) -> Any? {
        value(of: object, forKey: key, .foundation)
    }

    /// ``value(of:forKey:)`` walking collections as `traversal` says.
    static func value(of object: Any?, forKey key: String, _ traversal: Traversal) -> Any? {
        guard let object = unwrapOptional(object), !isNullObject(object) else { return nil }
        if let dictionary = object as? [String: Any], let stored = dictionary[key] {
            return normalized(stored)  // the common case, without a protocol lookup
        }
        if key == "self" { return object }
        // Keyed collections are value types: for objects (managed objects, rows) the evaluator's
        // check costs a test of the type's kind, not a conformance lookup.
        if traversal == .evaluation, !(type(of: object) is AnyClass), let collection = object as? any KeyedCollection {
            return collection.evaluationValue(forKey: key)
        }
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
            let kind: CollectionKind = object is NSSet ? .set : object is NSOrderedSet ? .orderedSet : .array
            return collectionValue(items, forKey: key, kind: kind, traversal)
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
        value(of: object, forKeyPath: keyPath, .foundation)
    }

    /// ``value(of:forKeyPath:)`` as the predicate evaluator walks it
    /// (``Traversal/evaluation``): collections answer arrays holding a null object for each nil.
    static func evaluationValue(of object: Any?, forKeyPath keyPath: String) -> Any? {
        value(of: object, forKeyPath: keyPath, .evaluation)
    }

    /// ``value(of:forKeyPath:)`` walking collections as `traversal` says.
    static func value(of object: Any?, forKeyPath keyPath: String, _ traversal: Traversal) -> Any? {
        if !keyPath.utf8.contains(UInt8(ascii: ".")) { return value(of: object, forKey: keyPath, traversal) }
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
                return collectionOperator(String(key), items, argumentPath: String(rest), traversal)
            }
            current = value(of: current, forKey: String(key), traversal)
        }
        return current
    }

    /// The elements of an array, set or ordered set, or nil. Elements of a `Set<AnyHashable>`
    /// or an `OrderedSet<AnyHashable>` (what keys applied to sets answer) come out of their
    /// `AnyHashable` (and ``AnyHashableValue``) boxes.
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

    /// The kind of collection a key is applied to, which is the kind it answers (Foundation's).
    enum CollectionKind {
        case array, set, orderedSet
    }

    /// A key applied to a collection's `items`: an operator (`@count`, `@sum`, `@max`... with no
    /// path, over the elements themselves) or the key mapped over the elements. Foundation's
    /// traversal answers a collection of `kind` (sets without nil or duplicates); the evaluator's
    /// answers an array with null objects for nil (distinct for a set).
    static func collectionValue(_ items: [Any], forKey key: String, kind: CollectionKind, _ traversal: Traversal) -> Any? {
        if key.hasPrefix("@") { return collectionOperator(key, items, argumentPath: "self", traversal) }
        switch (traversal, kind) {
        case (_, .array), (.evaluation, .orderedSet):
            return items.map { value(of: $0, forKey: key, traversal) ?? NSNull() }
        case (.evaluation, .set):
            return distinct(items.map { value(of: $0, forKey: key, traversal) ?? NSNull() })
        case (.foundation, .set):
            var values = Set<AnyHashable>(minimumCapacity: items.count)
            for item in items {
                if let found = normalized(value(of: item, forKey: key)) { values.insert(hashable(found)) }
            }
            return values
        case (.foundation, .orderedSet):
            var values = OrderedSet<AnyHashable>()
            for item in items {
                if let found = normalized(value(of: item, forKey: key)) { values.append(hashable(found)) }
            }
            return values
        }
    }

    /// `value` as an element of a `Set<AnyHashable>`: itself when it is `Hashable`, else in an
    /// ``AnyHashableValue`` box (equal to values the evaluator finds equal).
    static func hashable(_ value: Any) -> AnyHashable {
        if let hashable = value as? AnyHashable { return hashable }
        return AnyHashable(AnyHashableValue(value))
    }

    /// Applies a collection operator to the values of `argumentPath` over `items`.
    static func collectionOperator(_ name: String, _ items: [Any], argumentPath: String, _ traversal: Traversal) -> Any? {
        if name == "@count" { return items.count }
        let values = items.map { value(of: $0, forKeyPath: argumentPath, traversal) }
        let present = values.compactMap { normalized($0) }
        switch name {
        case "@sum": return Aggregates.sum(present)
        case "@avg":
            // Foundation's @avg "converts it to a double (substituting 0 for nil values)"; the
            // evaluator averages the values there are, as SQL's AVG does in the SQLite store.
            if case .foundation = traversal, !items.isEmpty, present.count < items.count {
                return Aggregates.average(values.map { normalized($0) ?? 0 })
            }
            return present.isEmpty ? nil : Aggregates.average(present)
        case "@min": return Aggregates.extreme(present, wantMax: false)
        case "@max": return Aggregates.extreme(present, wantMax: true)
        case "@unionOfObjects": return present
        case "@distinctUnionOfObjects": return distinct(present)
        case "@unionOfArrays", "@unionOfSets":
            return present.flatMap { collectionElements($0) ?? [$0] }
        case "@distinctUnionOfSets" where traversal == .foundation:
            // "it returns an NSSet instance".
            return Set(present.flatMap { collectionElements($0) ?? [$0] }.map(hashable))
        case "@distinctUnionOfArrays", "@distinctUnionOfSets":
            return distinct(present.flatMap { collectionElements($0) ?? [$0] })
        default: return nil
        }
    }
}
