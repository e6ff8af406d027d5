// A small ordered set value type: the Swift counterpart of NSOrderedSet for ordered to-many
// relationships and for predicate constants. Keeps insertion order and rejects duplicates.
import Foundation

/// An ordered collection of distinct elements, the value-type counterpart of `NSOrderedSet`.
///
/// ```swift
/// var tags: OrderedSet = ["swift", "linux"]
/// tags.append("swift")            // no effect: already present
/// tags.contains("linux")          // true, in O(1)
/// ```
public struct OrderedSet<Element: Hashable>: RandomAccessCollection, Hashable,
    ExpressibleByArrayLiteral
{
    /// The elements in order.
    public private(set) var elements: [Element]
    private var members: Set<Element>

    /// Creates an empty ordered set.
    public init() {
        elements = []
        members = []
    }

    /// Creates an ordered set of the distinct elements of `sequence`, first occurrences first.
    public init<S: Sequence>(_ sequence: S) where S.Element == Element {
        self.init()
        elements.reserveCapacity(sequence.underestimatedCount)
        members.reserveCapacity(sequence.underestimatedCount)
        for element in sequence { append(element) }
    }

    /// Creates an ordered set from a literal; duplicates are dropped.
    public init(arrayLiteral elements: Element...) { self.init(elements) }

    /// Appends `element` unless it is already present; returns whether it was inserted.
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        guard members.insert(element).inserted else { return false }
        elements.append(element)
        return true
    }

    /// Removes `element` if present.
    public mutating func remove(_ element: Element) {
        guard members.remove(element) != nil else { return }
        elements.removeAll { $0 == element }
    }

    /// Inserts `element` at `index` unless it is already present; returns whether it was inserted.
    @discardableResult
    public mutating func insert(_ element: Element, at index: Int) -> Bool {
        guard members.insert(element).inserted else { return false }
        elements.insert(element, at: index)
        return true
    }

    /// Removes and returns the element at `index`.
    @discardableResult
    public mutating func remove(at index: Int) -> Element {
        let element = elements.remove(at: index)
        members.remove(element)
        return element
    }

    /// Whether `element` is a member, in constant time.
    public func contains(_ element: Element) -> Bool { members.contains(element) }

    /// The position of the first element.
    public var startIndex: Int { elements.startIndex }
    /// The position past the last element.
    public var endIndex: Int { elements.endIndex }
    /// The element at `position`.
    public subscript(position: Int) -> Element { elements[position] }

    /// Ordered sets are equal when they hold the same elements in the same order.
    public static func == (lhs: OrderedSet, rhs: OrderedSet) -> Bool { lhs.elements == rhs.elements }
    /// Hashes the elements in order.
    public func hash(into hasher: inout Hasher) { hasher.combine(elements) }
}

extension OrderedSet: Sendable where Element: Sendable {}

/// Lets the evaluator see an `OrderedSet` of any element type through `Any`.
protocol OrderedSetProtocol {
    var elementsAsAny: [Any] { get }
}

extension OrderedSet: OrderedSetProtocol {
    var elementsAsAny: [Any] { elements.map(unwrapHashable) }
}

/// Lets the evaluator see a `Set` of any element type through `Any`.
protocol SetProtocol {
    var elementsAsAny: [Any] { get }
}

extension Set: SetProtocol {
    var elementsAsAny: [Any] { map(unwrapHashable) }
}

/// An element as the evaluator sees it: the value inside an `AnyHashable` (what keys applied to
/// sets answer) and inside an `AnyHashableValue` box (a null object for nil), the element itself
/// otherwise.
private func unwrapHashable<T>(_ element: T) -> Any {
    // Only sets of `AnyHashable` hold such boxes: asking any other element `as? AnyHashable`
    // would box it.
    let value: Any = T.self == AnyHashable.self ? (element as! AnyHashable).base : element
    if let boxed = value as? AnyHashableValue { return boxed.value ?? NSNull() }
    return value
}
