// Building models in code, as readably as the XML: a result builder over entities,
// configurations, fetch request templates and composite types, with attribute and relationship
// values that read like Xcode's inspector. What it builds is the same ManagedObjectModel a
// model file gives, so a model built here equals the one read from the equivalent file.
import Foundation

/// A part of a model in the builder: an entity, a configuration, a template or a composite type.
public protocol ModelComponent {
    /// Adds the part to `model`.
    func add(to model: ManagedObjectModel)
}

/// A part of an entity in the builder: a property, a constraint or an index.
public protocol EntityComponent {
    /// Adds the part to `entity`.
    func add(to entity: EntityDescription)
}

/// Collects the parts of a model.
@resultBuilder
public enum ModelBuilder {
    public static func buildExpression(_ component: any ModelComponent) -> [any ModelComponent] { [component] }
    public static func buildBlock(_ parts: [any ModelComponent]...) -> [any ModelComponent] { parts.flatMap { $0 } }
    public static func buildOptional(_ parts: [any ModelComponent]?) -> [any ModelComponent] { parts ?? [] }
    public static func buildEither(first parts: [any ModelComponent]) -> [any ModelComponent] { parts }
    public static func buildEither(second parts: [any ModelComponent]) -> [any ModelComponent] { parts }
    public static func buildArray(_ parts: [[any ModelComponent]]) -> [any ModelComponent] { parts.flatMap { $0 } }
}

/// Collects the parts of an entity.
@resultBuilder
public enum EntityBuilder {
    public static func buildExpression(_ component: any EntityComponent) -> [any EntityComponent] { [component] }
    public static func buildBlock(_ parts: [any EntityComponent]...) -> [any EntityComponent] { parts.flatMap { $0 } }
    public static func buildOptional(_ parts: [any EntityComponent]?) -> [any EntityComponent] { parts ?? [] }
    public static func buildEither(first parts: [any EntityComponent]) -> [any EntityComponent] { parts }
    public static func buildEither(second parts: [any EntityComponent]) -> [any EntityComponent] { parts }
    public static func buildArray(_ parts: [[any EntityComponent]]) -> [any EntityComponent] { parts.flatMap { $0 } }
}

extension ManagedObjectModel {
    /// A model built in code.
    ///
    /// ```swift
    /// let model = ManagedObjectModel {
    ///     Entity("Person") {
    ///         Attribute("name", .string).required()
    ///         Relationship("tasks", to: "Task", inverse: "owner", toMany: true, deleteRule: .cascade)
    ///     }
    ///     Entity("Task") {
    ///         Attribute("title", .string)
    ///         Relationship("owner", to: "Person", inverse: "tasks")
    ///     }
    /// }
    /// ```
    public convenience init(@ModelBuilder _ content: () -> [any ModelComponent]) {
        self.init()
        for part in content() { part.add(to: self) }
    }
}

/// An entity in the model builder.
public struct Entity: ModelComponent {
    /// The entity being built.
    public let description: EntityDescription

    /// An entity named `name`; `class` is its represented class, `parent` the entity it inherits from.
    public init(_ name: String, class className: String? = nil, parent: String? = nil, abstract: Bool = false,
                @EntityBuilder _ content: () -> [any EntityComponent] = { [] }) {
        description = EntityDescription(name: name, managedObjectClassName: className, parent: parent, isAbstract: abstract)
        for part in content() { part.add(to: description) }
    }

    public func add(to model: ManagedObjectModel) { model.entities.append(description) }

    /// Names the entity's previous name, for migration.
    public func renamed(from identifier: String) -> Entity { description.renamingIdentifier = identifier; return self }
    /// Sets the version hash modifier.
    public func versionHashModifier(_ modifier: String) -> Entity { description.versionHashModifier = modifier; return self }
    /// Adds a user info entry.
    public func userInfo(_ key: String, _ value: String) -> Entity { description.userInfo[key] = value; return self }
}

/// An attribute in the entity builder. Optional by default, as in Core Data.
public struct Attribute: EntityComponent {
    /// The attribute being built.
    public let description: AttributeDescription

    /// An attribute named `name` of `type`, with a default value converted to the type
    /// (`default: 0` on an Integer 16 attribute is `Int16(0)`).
    public init(_ name: String, _ type: AttributeType, default value: (any Hashable & Sendable)? = nil) {
        description = AttributeDescription(name: name, type: type)
        description.defaultValue = value.map { AttributeValueParser.coerce($0, to: type) }
    }

    public func add(to entity: EntityDescription) { entity.declaredProperties.append(description) }

    /// Requires a value (not optional).
    public func required() -> Attribute { description.isOptional = false; return self }
    /// Keeps the value in memory only.
    public func transient() -> Attribute { description.isTransient = true; return self }
    /// The smallest valid value (numbers) or length (strings, data).
    public func minimum(_ value: Decimal) -> Attribute { description.minimumValue = value; return self }
    /// The largest valid value (numbers) or length (strings, data).
    public func maximum(_ value: Decimal) -> Attribute { description.maximumValue = value; return self }
    /// The earliest valid date.
    public func minimum(_ date: Date) -> Attribute { description.minimumDate = date; return self }
    /// The latest valid date.
    public func maximum(_ date: Date) -> Attribute { description.maximumDate = date; return self }
    /// A regular expression valid strings match in whole.
    public func matching(_ pattern: String) -> Attribute { description.regularExpression = pattern; return self }
    /// A validation predicate on the value (`SELF`), with its warning.
    public func validated(by predicateFormat: String, warning: String) -> Attribute {
        description.validationPredicates.append(ValidationPredicate(predicateFormat, warning: warning)); return self
    }
    /// Lets large binary values live in files beside the store.
    public func allowsExternalStorage() -> Attribute { description.allowsExternalBinaryDataStorage = true; return self }
    /// Shows the value to desktop search indexers.
    public func indexedBySpotlight() -> Attribute { description.isIndexedBySpotlight = true; return self }
    /// Writes the value to the object's external record file.
    public func storedInExternalRecord() -> Attribute { description.isStoredInExternalRecord = true; return self }
    /// Stores values through the named value transformer; `valueClass` names their class.
    public func transformed(by transformerName: String?, valueClass: String? = nil) -> Attribute {
        description.valueTransformerName = transformerName
        description.attributeValueClassName = valueClass
        return self
    }
    /// Computes the value from an expression, in the store, when the rows it depends on are
    /// saved: `name`, `owner.name`, `photos.@count` or `now()` (see ``AttributeDescription/derivationExpression``).
    public func derived(from expression: String) -> Attribute {
        description.isDerived = true
        description.derivationExpression = expression
        return self
    }
    /// Names the attribute's previous name, for migration.
    public func renamed(from identifier: String) -> Attribute { description.renamingIdentifier = identifier; return self }
    /// Sets the version hash modifier.
    public func versionHashModifier(_ modifier: String) -> Attribute { description.versionHashModifier = modifier; return self }
    /// Adds a user info entry.
    public func userInfo(_ key: String, _ value: String) -> Attribute { description.userInfo[key] = value; return self }
    /// Whether generated code uses a Swift scalar.
    public func scalar(_ usesScalar: Bool = true) -> Attribute { description.usesScalarValueType = usesScalar; return self }
}

/// A relationship in the entity builder. Optional, to-one and nullifying by default.
public struct Relationship: EntityComponent {
    /// The relationship being built.
    public let description: RelationshipDescription

    public init(_ name: String, to destination: String, inverse: String? = nil, toMany: Bool = false,
                ordered: Bool = false, deleteRule: DeleteRule = .nullify) {
        description = RelationshipDescription(name: name, destination: destination, inverse: inverse,
                                              isToMany: toMany, deleteRule: deleteRule)
        description.isOrdered = ordered
    }

    public func add(to entity: EntityDescription) { entity.declaredProperties.append(description) }

    /// Requires a destination (at least one object for a to-many relationship).
    public func required() -> Relationship { description.isOptional = false; return self }
    /// Keeps the relationship in memory only.
    public func transient() -> Relationship { description.isTransient = true; return self }
    /// The fewest and most objects a valid to-many relationship holds (0: no limit).
    public func count(min: Int = 0, max: Int = 0) -> Relationship {
        description.minCount = min
        description.maxCount = max
        return self
    }
    /// Names the relationship's previous name, for migration.
    public func renamed(from identifier: String) -> Relationship { description.renamingIdentifier = identifier; return self }
    /// Sets the version hash modifier.
    public func versionHashModifier(_ modifier: String) -> Relationship { description.versionHashModifier = modifier; return self }
    /// Adds a user info entry.
    public func userInfo(_ key: String, _ value: String) -> Relationship { description.userInfo[key] = value; return self }
}

/// A fetched property in the entity builder.
public struct FetchedProperty: EntityComponent {
    public let description: FetchedPropertyDescription

    /// A fetched property of the objects of `entity` matching `predicate` (which may use
    /// `$FETCH_SOURCE` and `$FETCHED_PROPERTY`).
    public init(_ name: String, entity: String, predicate: String? = nil) {
        description = FetchedPropertyDescription(name: name, fetchRequest: FetchRequestTemplate(
            name: "fetchedPropertyFetchRequest", entityName: entity, predicateFormat: predicate))
    }

    public func add(to entity: EntityDescription) { entity.declaredProperties.append(description) }
}

/// A uniqueness constraint in the entity builder: the named properties are unique together.
public struct Unique: EntityComponent {
    public let propertyNames: [String]

    public init(_ propertyNames: String...) { self.propertyNames = propertyNames }

    public func add(to entity: EntityDescription) { entity.declaredUniquenessConstraints.append(propertyNames) }
}

/// A fetch index in the entity builder.
public struct FetchIndex: EntityComponent {
    public let description: FetchIndexDescription

    /// An ascending index over `properties`, in order.
    public init(_ name: String, on properties: String...) {
        description = FetchIndexDescription(name: name, elements: properties.map { FetchIndexElement(property: $0) })
    }

    /// An index over the given elements (for descending or expression elements).
    public init(_ name: String, elements: [FetchIndexElement]) {
        description = FetchIndexDescription(name: name, elements: elements)
    }

    public func add(to entity: EntityDescription) { entity.fetchIndexes.append(description) }
}

/// A configuration in the model builder.
public struct Configuration: ModelComponent {
    public let configuration: ModelConfiguration

    public init(_ name: String, entities: [String]) {
        configuration = ModelConfiguration(name: name, entityNames: entities)
    }

    public func add(to model: ManagedObjectModel) { model.configurations.append(configuration) }
}

/// A stored fetch request template in the model builder.
public struct FetchTemplate: ModelComponent {
    public let template: FetchRequestTemplate

    public init(_ name: String, entity: String, predicate: String? = nil) {
        template = FetchRequestTemplate(name: name, entityName: entity, predicateFormat: predicate)
    }

    public func add(to model: ManagedObjectModel) { model.fetchRequestTemplates.append(template) }
}

/// A composite type in the model builder.
public struct Composite: ModelComponent {
    public let description: CompositeTypeDescription

    public init(_ name: String, @EntityBuilder _ attributes: () -> [any EntityComponent]) {
        let holder = EntityDescription(name: name)
        for part in attributes() { part.add(to: holder) }
        description = CompositeTypeDescription(name: name, attributes: holder.declaredProperties.compactMap { $0 as? AttributeDescription })
    }

    public func add(to model: ManagedObjectModel) { model.compositeTypes.append(description) }
}
