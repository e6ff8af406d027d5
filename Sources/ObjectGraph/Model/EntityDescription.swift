// An entity of a model: its name and class, its place in the inheritance tree, its properties
// (declared and inherited, in a stable order: inherited first, then declared, each in the order
// of the model), uniqueness constraints and fetch indexes. Inheritance is independent of classes.
import Foundation
import Synchronization

/// An entity: a kind of object the model describes.
///
/// ```swift
/// let person = EntityDescription(name: "Person")
/// person.declaredProperties = [AttributeDescription(name: "name", type: .string)]
/// person.propertiesByName["name"]   // the attribute
/// ```
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    /// The entity's name, unique in its model.
    public var name: String {
        didSet { model?.rebuildEntityIndex() }
    }
    /// The class that represents the entity's objects (Xcode's `representedClassName`); nil uses
    /// the generic managed object class.
    public var managedObjectClassName: String?
    /// Whether the entity has no objects of its own, only objects of its sub-entities.
    @exclusivity(unchecked) public var isAbstract: Bool
    /// The name of the parent entity whose properties this entity inherits.
    public var parentEntityName: String?
    /// The properties this entity declares (not the inherited ones). Setting them makes this
    /// entity their owner.
    public var declaredProperties: [PropertyDescription] {
        didSet {
            precondition(model?.isEditable ?? true, "the model is in use by a coordinator and can no longer change")
            for property in declaredProperties { property.entity = self }
        }
    }
    /// Uniqueness constraints this entity declares: each a list of property names whose values
    /// together are unique among the objects of the entity's inheritance tree.
    public var declaredUniquenessConstraints: [[String]]
    /// Fetch indexes this entity declares.
    public var fetchIndexes: [FetchIndexDescription]
    /// The legacy compound indexes of old model files (lists of property names).
    public var compoundIndexes: [[String]]
    /// The entity's name in the previous model version, for migration (Xcode's `elementID`).
    public var renamingIdentifier: String?
    /// A string that changes the entity's version hash without changing the entity.
    public var versionHashModifier: String?
    /// Free-form key-value pairs from the model editor.
    public var userInfo: [String: String]
    /// How Xcode generates the entity's class (`class`, `category`; nil: manual).
    public var codeGenerationType: String?
    /// Where the entity was read from, when it came from a model file.
    public var sourceLocation: ModelSourceLocation?
    /// Where each uniqueness constraint's properties were named, by constraint (its index in
    /// ``declaredUniquenessConstraints``) and property, when read from a model file: errors
    /// about them point at that line. Not part of the entity's equality.
    public var uniquenessConstraintLocations: [Int: [String: ModelSourceLocation]] = [:]
    /// Where each compound index's properties were named, by index (its position in
    /// ``compoundIndexes``) and property, as for uniqueness constraints.
    public var compoundIndexLocations: [Int: [String: ModelSourceLocation]] = [:]
    /// The model the entity belongs to; set when the entity is added to a model.
    public internal(set) weak var model: ManagedObjectModel?
    /// The slot layout, built when the model is frozen.
    /// Written once, when the model is frozen; read by every new object (unchecked: no dynamic
    /// exclusivity check per read).
    @exclusivity(unchecked) var frozenLayout: EntityLayout?
    /// Whether the entity lives as long as the process (see `EntityLifetime`).
    let isKeptAlive = Atomic<Bool>(false)

    /// An entity named `name` with the given declared properties.
    public init(name: String, managedObjectClassName: String? = nil, parent: String? = nil,
                isAbstract: Bool = false, properties: [PropertyDescription] = []) {
        self.name = name
        self.managedObjectClassName = managedObjectClassName
        self.parentEntityName = parent
        self.isAbstract = isAbstract
        self.declaredProperties = properties
        self.declaredUniquenessConstraints = []
        self.fetchIndexes = []
        self.compoundIndexes = []
        self.userInfo = [:]
        for property in properties { property.entity = self }
    }

    public var description: String { name }

    // MARK: Inheritance

    /// The parent entity, resolved in the entity's model.
    public var superentity: EntityDescription? {
        parentEntityName.flatMap { model?.entitiesByName[$0] }
    }

    /// The entities whose parent is this entity, in the model's order.
    public var subentities: [EntityDescription] {
        model?.entities.filter { $0.parentEntityName == name } ?? []
    }

    /// The chain of ancestors from the parent up to the root (stops at a cycle).
    public var ancestors: [EntityDescription] {
        var chain: [EntityDescription] = []
        var seen: Set<String> = [name]
        var current = superentity
        while let entity = current, seen.insert(entity.name).inserted {
            chain.append(entity)
            current = entity.superentity
        }
        return chain
    }

    /// The root of the entity's inheritance tree (the entity itself when it has no parent).
    public var rootEntity: EntityDescription { ancestors.last ?? self }

    /// Whether this entity is `entity` or one of its descendants.
    public func isKind(of entity: EntityDescription) -> Bool {
        // Walks the parent chain without building it (relationship changes and in-memory
        // matching ask this often); the step bound stops at an inheritance cycle.
        var current: EntityDescription? = self
        var steps = 0
        let limit = (model?.entities.count ?? 0) + 1
        while let candidate = current, steps <= limit {
            if candidate === entity { return true }
            current = candidate.superentity
            steps += 1
        }
        return false
    }

    /// This entity and all its descendants, depth first, in the model's order.
    public var selfAndDescendants: [EntityDescription] {
        var result = [self]
        var seen: Set<String> = [name]
        var index = 0
        while index < result.count {
            for sub in result[index].subentities where seen.insert(sub.name).inserted { result.append(sub) }
            index += 1
        }
        return result
    }

    // MARK: Properties

    /// All properties, inherited ones first (from the root down), then the declared ones.
    public var properties: [PropertyDescription] {
        ancestors.reversed().flatMap(\.declaredProperties) + declaredProperties
    }

    /// All properties by name, inherited ones included. A redeclared name keeps the deepest one.
    public var propertiesByName: [String: PropertyDescription] {
        // A frozen model's entity answers from its layout (made once); lookups by name are on
        // the paths of key-value coding and of every printed field.
        if let layout = frozenLayout { return layout.propertiesByName }
        return Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { _, declaredLater in declaredLater })
    }

    /// All attributes by name, inherited ones included.
    public var attributesByName: [String: AttributeDescription] {
        propertiesByName.compactMapValues { $0 as? AttributeDescription }
    }

    /// All relationships by name, inherited ones included.
    public var relationshipsByName: [String: RelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? RelationshipDescription }
    }

    /// All fetched properties by name, inherited ones included.
    public var fetchedPropertiesByName: [String: FetchedPropertyDescription] {
        propertiesByName.compactMapValues { $0 as? FetchedPropertyDescription }
    }

    /// All attributes, in property order.
    public var attributes: [AttributeDescription] { properties.compactMap { $0 as? AttributeDescription } }

    /// All relationships, in property order.
    public var relationships: [RelationshipDescription] { properties.compactMap { $0 as? RelationshipDescription } }

    /// The relationships whose destination is `entity` (or one of its ancestors).
    public func relationships(forDestination entity: EntityDescription) -> [RelationshipDescription] {
        relationships.filter { relationship in
            guard let destination = relationship.destinationEntity else { return false }
            return entity.isKind(of: destination)
        }
    }

    /// The property `name` of this entity or, failing that, of one of its sub-entities: what a
    /// key of a fetch of this entity names, whose rows may be of sub-entities (the others' rows
    /// have no value there). Nil when none has it.
    func property(inSelfOrDescendantsNamed name: String) -> PropertyDescription? {
        if let property = propertiesByName[name] { return property }
        for sub in selfAndDescendants.dropFirst() {
            if let property = sub.propertiesByName[name] { return property }
        }
        return nil
    }

    /// The properties the steps of `keyPath` name from objects of this entity, each looked up
    /// with ``property(inSelfOrDescendantsNamed:)`` in the entity the steps before it reach. The
    /// walk ends after a step that is not a to-one relationship, so the result is shorter than
    /// the path when the path goes on after an attribute or a to-many relationship (`tasks.title`,
    /// `tasks.@count`). Nil when a step names no property.
    ///
    /// What fetches check key paths with before a store reads them: a sort key, a key path to
    /// group by or to fetch in a dictionary.
    func properties(alongKeyPath keyPath: String) -> [PropertyDescription]? {
        var entity = self
        var walked: [PropertyDescription] = []
        for name in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            guard let property = entity.property(inSelfOrDescendantsNamed: String(name)) else { return nil }
            walked.append(property)
            guard let relationship = property as? RelationshipDescription, !relationship.isToMany,
                  let destination = relationship.destinationEntity else { break }
            entity = destination
        }
        return walked
    }

    /// Uniqueness constraints of this entity and its ancestors (sub-entities inherit them), each
    /// once.
    public var uniquenessConstraints: [[String]] {
        var result: [[String]] = []
        // A constraint naming nothing (built in code) constrains nothing; a model file's is an error.
        for names in ancestors.reversed().flatMap(\.declaredUniquenessConstraints) + declaredUniquenessConstraints
        where !names.isEmpty && !result.contains(names) {
            result.append(names)
        }
        return result
    }

    /// The entity whose constraint `names` this entity is bound by: the highest of its ancestors
    /// and itself that declares it. The constraint spans that entity and its sub-entities, so two
    /// sibling entities that each declare the same properties unique have a constraint each (as
    /// in Core Data, values are unique over the instances of the declaring entity). Nil when no
    /// such entity declares `names`.
    public func uniquenessConstraintOwner(of names: [String]) -> EntityDescription? {
        for entity in ancestors.reversed() + [self] where entity.declaredUniquenessConstraints.contains(names) {
            return entity
        }
        return nil
    }

    // MARK: Equality and copying

    /// Whether two entities declare the same thing: names, inheritance, properties (in order),
    /// constraints, indexes and editor data. Source locations and models do not count.
    public func isEqual(to other: EntityDescription) -> Bool {
        name == other.name && managedObjectClassName == other.managedObjectClassName
            && isAbstract == other.isAbstract && parentEntityName == other.parentEntityName
            && declaredProperties.count == other.declaredProperties.count
            && zip(declaredProperties, other.declaredProperties).allSatisfy { $0.isEqual(to: $1) }
            && declaredUniquenessConstraints == other.declaredUniquenessConstraints
            && fetchIndexes == other.fetchIndexes && compoundIndexes == other.compoundIndexes
            && renamingIdentifier == other.renamingIdentifier && versionHashModifier == other.versionHashModifier
            && userInfo == other.userInfo && codeGenerationType == other.codeGenerationType
    }

    /// A deep copy (properties copied) that belongs to no model.
    public func copy() -> EntityDescription {
        let copy = EntityDescription(name: name, managedObjectClassName: managedObjectClassName,
                                     parent: parentEntityName, isAbstract: isAbstract,
                                     properties: declaredProperties.map { $0.copy() })
        copy.declaredUniquenessConstraints = declaredUniquenessConstraints
        copy.fetchIndexes = fetchIndexes
        copy.compoundIndexes = compoundIndexes
        copy.renamingIdentifier = renamingIdentifier
        copy.versionHashModifier = versionHashModifier
        copy.userInfo = userInfo
        copy.codeGenerationType = codeGenerationType
        copy.sourceLocation = sourceLocation
        copy.uniquenessConstraintLocations = uniquenessConstraintLocations
        copy.compoundIndexLocations = compoundIndexLocations
        return copy
    }
}
