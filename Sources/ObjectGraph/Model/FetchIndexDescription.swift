// A fetch index of an entity: one or more properties (or expressions), each ascending or
// descending, that the store indexes to speed up fetches. Xcode's `<fetchIndex>` element.

/// One element of a fetch index: a property (or an expression) and its order.
public struct FetchIndexElement: Sendable, Hashable {
    /// How the store indexes the element.
    public enum IndexType: String, Sendable, Hashable, CaseIterable {
        /// An ordinary B-tree index.
        case binary = "Binary"
        /// A spatial index over a range of values.
        case rTree = "RTree"
    }

    /// The indexed property's name (nil when the element is an expression).
    public var propertyName: String?
    /// The indexed expression (nil when the element is a property).
    public var expression: String?
    /// The expression's result type (Xcode's `expressionType`).
    public var expressionType: String?
    public var type: IndexType
    public var isAscending: Bool

    /// An element indexing the property `propertyName`.
    public init(property propertyName: String, ascending: Bool = true, type: IndexType = .binary) {
        self.propertyName = propertyName
        self.type = type
        self.isAscending = ascending
    }

    /// An element indexing an expression of type `expressionType`.
    public init(expression: String, expressionType: String, ascending: Bool = true, type: IndexType = .binary) {
        self.expression = expression
        self.expressionType = expressionType
        self.type = type
        self.isAscending = ascending
    }
}

/// A named, possibly compound index of an entity.
///
/// ```swift
/// FetchIndexDescription(name: "byDue", elements: [.init(property: "due"), .init(property: "priority", ascending: false)])
/// ```
public struct FetchIndexDescription: Sendable, Hashable {
    public var name: String
    public var elements: [FetchIndexElement]
    /// Where the index was read from, when it came from a model file.
    public var sourceLocation: ModelSourceLocation?
    /// Where each element was read from, in the elements' order (empty when not read from a file).
    public var elementLocations: [ModelSourceLocation?] = []

    public init(name: String, elements: [FetchIndexElement]) {
        self.name = name
        self.elements = elements
    }

    /// Equal when they index the same elements under the same name.
    public static func == (lhs: FetchIndexDescription, rhs: FetchIndexDescription) -> Bool {
        lhs.name == rhs.name && lhs.elements == rhs.elements
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(elements)
    }
}
