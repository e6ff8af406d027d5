// A relationship of an entity: its destination entity, its inverse, cardinality, ordering,
// count limits and delete rule. Destination and inverse are named, and resolved through the
// model the entity belongs to, so that a model can be built or read in any order.

/// A relationship from the objects of one entity to objects of another.
///
/// ```swift
/// let tasks = RelationshipDescription(name: "tasks", destination: "Task", inverse: "owner")
/// tasks.isToMany = true
/// tasks.deleteRule = .cascade
/// ```
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    /// The name of the entity the relationship points to.
    public var destinationEntityName: String
    /// The name of the relationship of the destination entity that points back, if any.
    public var inverseName: String?
    /// The entity that declares the inverse (Xcode's `inverseEntity`); normally the destination.
    public var inverseEntityName: String?
    /// Whether the relationship holds many objects (a set, or an ordered set when `isOrdered`).
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool
    /// The fewest objects a valid to-many relationship holds (0: no minimum).
    public var minCount: Int
    /// The most objects a valid to-many relationship holds (0: no maximum).
    public var maxCount: Int
    /// What deleting the source object does to the destination objects.
    public var deleteRule: DeleteRule

    /// A to-one, optional, nullifying relationship to `destination`, as Core Data makes it.
    public init(name: String, destination: String, inverse: String? = nil, isToMany: Bool = false,
                isOptional: Bool = true, deleteRule: DeleteRule = .nullify) {
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.inverseEntityName = inverse == nil ? nil : destination
        self.isToMany = isToMany
        self.isOrdered = false
        self.minCount = 0
        self.maxCount = isToMany ? 0 : 1
        self.deleteRule = deleteRule
        super.init(name: name, isOptional: isOptional, isTransient: false)
    }

    /// The destination entity, resolved in the model of this relationship's entity.
    public var destinationEntity: EntityDescription? {
        entity?.model?.entitiesByName[destinationEntityName]
    }

    /// The inverse relationship, resolved in the destination entity (inherited ones included).
    public var inverseRelationship: RelationshipDescription? {
        guard let inverseName else { return nil }
        guard let owner = inverseEntityName.flatMap({ entity?.model?.entitiesByName[$0] }) ?? destinationEntity else { return nil }
        // Every relationship change asks for its inverse: a frozen model answers from the slot
        // layout instead of building the entity's property dictionary each time.
        if let layout = owner.frozenLayout {
            return layout.index(of: inverseName).flatMap { layout.properties[$0] as? RelationshipDescription }
        }
        return owner.relationshipsByName[inverseName]
    }

    public override func isEqual(to other: PropertyDescription) -> Bool {
        guard let other = other as? RelationshipDescription, super.isEqual(to: other) else { return false }
        return destinationEntityName == other.destinationEntityName && inverseName == other.inverseName
            && (inverseEntityName ?? destinationEntityName) == (other.inverseEntityName ?? other.destinationEntityName)
            && isToMany == other.isToMany && isOrdered == other.isOrdered
            && minCount == other.minCount && maxCount == other.maxCount && deleteRule == other.deleteRule
    }

    public override func copy() -> PropertyDescription {
        let copy = RelationshipDescription(name: name, destination: destinationEntityName, inverse: inverseName,
                                           isToMany: isToMany, isOptional: isOptional, deleteRule: deleteRule)
        copyCommonFields(to: copy)
        copy.isTransient = isTransient
        copy.inverseEntityName = inverseEntityName
        copy.isOrdered = isOrdered
        copy.minCount = minCount
        copy.maxCount = maxCount
        return copy
    }
}
