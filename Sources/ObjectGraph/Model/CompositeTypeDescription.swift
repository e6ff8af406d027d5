// A composite type: a named group of attributes that composite attributes (`attributeType
// "Composite"`) store together. Xcode's `<composite name=...>` element at the model level.

/// A named group of attributes that a composite attribute holds as one value.
public final class CompositeTypeDescription: @unchecked Sendable {
    public var name: String
    /// The group's attributes (which may themselves be composite).
    public var attributes: [AttributeDescription]
    /// Where the composite was read from, when it came from a model file.
    public var sourceLocation: ModelSourceLocation?

    public init(name: String, attributes: [AttributeDescription] = []) {
        self.name = name
        self.attributes = attributes
    }

    /// Whether both declare the same attributes under the same name.
    public func isEqual(to other: CompositeTypeDescription) -> Bool {
        name == other.name && attributes.count == other.attributes.count
            && zip(attributes, other.attributes).allSatisfy { $0.isEqual(to: $1) }
    }

    /// A deep copy.
    public func copy() -> CompositeTypeDescription {
        let copy = CompositeTypeDescription(name: name, attributes: attributes.map { $0.copy() as! AttributeDescription })
        copy.sourceLocation = sourceLocation
        return copy
    }
}
