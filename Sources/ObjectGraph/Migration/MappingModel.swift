// Core Data's inferred mapping model (talk 001, "lightweight migration"): how each entity and
// stored property of a destination model takes its values from a source model, found by name or
// by the destination's renaming identifier (the source's name). What lightweight migration of a
// store runs; the SQLite store runs it in SQL (SQLiteStore+Migration).
import Foundation

/// How a store's data moves from one model version to another (Core Data's `NSMappingModel`).
///
/// ```swift
/// let mapping = try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
/// mapping.entityMappings.map(\.name)   // ["PersonToPerson", "TaskToTask", "AddNote"]
/// ```
///
/// Inference follows Core Data's rules for lightweight migration: entities and properties are
/// matched by name, or by the destination's renaming identifier (the model file's `elementID`);
/// destination properties with no match start empty (or with their default value); source
/// properties and entities with no match are dropped. It fails, naming the entity and property,
/// where values cannot be carried over without code: an attribute whose type changed (other than
/// an integer widened), an attribute that became a relationship or the reverse, a relationship
/// whose destination is no longer the entity its source's destination maps to.
public struct MappingModel: Sendable, CustomStringConvertible {
    /// One mapping per destination entity (copy, transform, custom or add) and per source entity
    /// left out of the destination (remove), in the order a ``MigrationManager`` runs them.
    public var entityMappings: [EntityMapping]
    /// The model the mapping maps from, when known: an inferred mapping's, or the one a mapping
    /// model file was read against. A store given the mapping in
    /// ``MigrationManager/mappingModelsOption`` is migrated with it when it opens with this model.
    public var sourceModel: ManagedObjectModel?
    /// The model the mapping maps to, when known.
    public var destinationModel: ManagedObjectModel?

    public init(entityMappings: [EntityMapping], sourceModel: ManagedObjectModel? = nil,
                destinationModel: ManagedObjectModel? = nil) {
        self.entityMappings = entityMappings
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    /// The entity mapping named `name` (`SourceToDestination`, as Xcode names them), if any.
    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }

    /// The mapping of `destination` (an entity of the destination model), if any.
    public func entityMapping(forDestinationEntityNamed destination: String) -> EntityMapping? {
        entityMappings.first { $0.destinationEntityName == destination }
    }

    public var description: String {
        entityMappings.map(\.description).joined(separator: "\n")
    }

    /// The mapping Core Data infers from the differences between the two models (its
    /// `inferredMappingModel(forSourceModel:destinationModel:)`); throws ``MigrationError`` with
    /// Core Data's `NSInferredMappingModelError` naming what no inferred mapping can carry over.
    public static func inferredMappingModel(forSourceModel source: ManagedObjectModel,
                                            destinationModel destination: ManagedObjectModel) throws -> MappingModel {
        var mappings: [EntityMapping] = []
        var mappedSources: Set<String> = []
        // Source entities by destination entity name, for relationship destinations.
        var sourceOfDestination: [String: String] = [:]
        for entity in destination.entities {
            if let match = Self.match(entity, among: source.entities) { sourceOfDestination[entity.name] = match.name }
        }
        for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
            guard let sourceName = sourceOfDestination[entity.name], let sourceEntity = source.entitiesByName[sourceName] else {
                mappings.append(EntityMapping(name: "Add" + entity.name, mappingType: .add, sourceEntityName: nil,
                                              destinationEntityName: entity.name, attributeMappings: [], relationshipMappings: []))
                continue
            }
            guard mappedSources.insert(sourceName).inserted else {
                throw MigrationError(.inference, "entity \(entity.name): source entity \(sourceName) is already mapped to another entity")
            }
            var attributes: [PropertyMapping] = []
            var relationships: [PropertyMapping] = []
            var sameHashes = entity.versionHash == sourceEntity.versionHash
            for property in entity.properties.sorted(by: { $0.name < $1.name }) where property.isStored {
                let match = Self.match(property, among: sourceEntity.properties.filter(\.isStored))
                if match?.name != property.name { sameHashes = false }
                if let attribute = property as? AttributeDescription {
                    if let match, !(match is AttributeDescription) {
                        throw MigrationError(.inference, "\(attribute.qualifiedName): \(match.qualifiedName) is a relationship in the source model, and an inferred mapping cannot turn it into an attribute")
                    }
                    if let old = match as? AttributeDescription, !Self.canCarry(old.attributeType, to: attribute.attributeType) {
                        throw MigrationError(.inference, "\(attribute.qualifiedName): its type changed from \(old.attributeType.xcodeName) (\(old.qualifiedName)) to \(attribute.attributeType.xcodeName), which an inferred mapping cannot convert")
                    }
                    attributes.append(PropertyMapping(name: attribute.name, sourceName: match?.name,
                                                      valueExpression: match.map { Self.sourceValue($0.name) }))
                } else if let relationship = property as? RelationshipDescription {
                    guard let match else {
                        relationships.append(PropertyMapping(name: relationship.name, sourceName: nil))
                        continue
                    }
                    guard let old = match as? RelationshipDescription else {
                        throw MigrationError(.inference, "\(relationship.qualifiedName): \(match.qualifiedName) is an attribute in the source model, and an inferred mapping cannot turn it into a relationship")
                    }
                    // The old destination's objects must be objects of the new destination: the
                    // entity it maps to, or one of its new ancestors (a relationship moved up).
                    let carried = destination.entities.first { sourceOfDestination[$0.name] == old.destinationEntityName }
                    guard let carried, let target = relationship.destinationEntity, carried.isKind(of: target) else {
                        throw MigrationError(.inference, "\(relationship.qualifiedName): its destination \(relationship.destinationEntityName) is not \(old.destinationEntityName) (the destination of \(old.qualifiedName)) nor an entity that objects of \(old.destinationEntityName) become")
                    }
                    relationships.append(PropertyMapping(name: relationship.name, sourceName: old.name,
                                                         valueExpression: Self.destinationsOfRelationship(old.name)))
                }
            }
            let type: EntityMapping.MappingType = sameHashes && entity.name == sourceName ? .copy : .transform
            var mapping = EntityMapping(name: sourceName + "To" + entity.name, mappingType: type, sourceEntityName: sourceName,
                                        destinationEntityName: entity.name, attributeMappings: attributes,
                                        relationshipMappings: relationships)
            mapping.sourceEntityVersionHash = sourceEntity.versionHash
            mapping.destinationEntityVersionHash = entity.versionHash
            mappings.append(mapping)
        }
        for entity in source.entities.sorted(by: { $0.name < $1.name }) where !mappedSources.contains(entity.name) {
            mappings.append(EntityMapping(name: "Remove" + entity.name, mappingType: .remove, sourceEntityName: entity.name,
                                          destinationEntityName: nil, attributeMappings: [], relationshipMappings: []))
        }
        return MappingModel(entityMappings: mappings, sourceModel: source, destinationModel: destination)
    }

    /// `$source.name`: the value of the source object's property `name` (what Xcode writes for
    /// an attribute mapped from one of the same name).
    static func sourceValue(_ name: String) -> Expression {
        .member(.variable(MigrationManager.sourceVariable), name)
    }

    /// The key paths `expression` applies to `$source` (`continent.numericISO3166Code` of
    /// `$source.continent.numericISO3166Code`), wherever they are in it.
    static func sourcePaths(in expression: Expression?) -> [String] {
        guard let expression else { return [] }
        switch expression {
        case .member(.variable(MigrationManager.sourceVariable), let path): return [path]
        case .member(let base, _): return sourcePaths(in: base)
        case .dynamicMember(let base, let key): return sourcePaths(in: base) + sourcePaths(in: key)
        case .subscripted(let base, .index(let index)): return sourcePaths(in: base) + sourcePaths(in: index)
        case .subscripted(let base, _): return sourcePaths(in: base)
        case .aggregate(let elements), .function(_, let elements): return elements.flatMap { sourcePaths(in: $0) }
        case .method(let receiver, _, let arguments): return sourcePaths(in: receiver) + arguments.flatMap { sourcePaths(in: $0) }
        case .subquery(let collection, _, _): return sourcePaths(in: collection)
        case .conditional(_, let a, let b), .setOperation(_, let a, let b): return sourcePaths(in: a) + sourcePaths(in: b)
        case .constant, .evaluatedObject, .variable, .keyPath: return []
        }
    }

    /// What is wrong with `path` as a key path of objects of `entity` (a key its entity does not
    /// have), or nil. A collection operator (`@distinctUnionOfSets`) passes the next key to the
    /// elements; past an attribute the values are not objects, and are not checked.
    static func keyPathProblem(_ path: String, from entity: EntityDescription) -> String? {
        var current: EntityDescription? = entity
        for key in path.split(separator: ".").map(String.init) where !key.hasPrefix("@") {
            guard let entity = current else { return nil }
            if ["self", "objectID", "entity"].contains(key) { continue }
            guard let property = entity.propertiesByName[key] else { return "\(entity.name) has no property \(key)" }
            current = (property as? RelationshipDescription)?.destinationEntity
        }
        return nil
    }

    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
    /// "name", $source.name)`: the objects migrated from the source object's destinations of
    /// relationship `name`, whatever entity mapping made them (what Core Data's inferred mappings
    /// use).
    static func destinationsOfRelationship(_ name: String) -> Expression {
        .method(.variable(MigrationManager.managerVariable), MigrationManager.destinationsOfRelationshipSelector,
                [.string(name), sourceValue(name)])
    }

    /// The inferred mapping of a store's lightweight migration from `source` to `destination`,
    /// when the store's options allow inferring one (`infers`); errors name the store at `path`.
    static func inferredForStore(at path: String, infers: Bool, from source: () throws -> ManagedObjectModel,
                                 to destination: ManagedObjectModel) throws -> (source: ManagedObjectModel, mapping: MappingModel) {
        guard infers else {
            throw MigrationError(.missingMappingModel, "the file was made with another version of the model, and \(SQLiteStore.infersMappingModelOption) is not set: no mapping model to migrate it with", path: path)
        }
        let model = try source()
        do {
            return (model, try inferredMappingModel(forSourceModel: model, destinationModel: destination))
        } catch var error as MigrationError {
            error.path = path
            throw error
        }
    }

    /// The source element `element` maps from: the one its renaming identifier (or, without one,
    /// its name) names, or else the one with the same renaming identifier, which Core Data calls
    /// the canonical name: an element renamed in version 2 and kept (or renamed again) in
    /// version 3 keeps the identifier naming its first name.
    static func match<Element: Named>(_ element: Element, among candidates: [Element]) -> Element? {
        let wanted = element.renamingIdentifier ?? element.name
        return candidates.first { $0.name == wanted }
            ?? candidates.first { $0.renamingIdentifier != nil && $0.renamingIdentifier == wanted }
    }

    /// Whether an inferred mapping carries a value of type `old` into an attribute of type `new`:
    /// the same type, or a wider integer (an integer column holds both).
    static func canCarry(_ old: AttributeType, to new: AttributeType) -> Bool {
        if old == new { return true }
        let widths: [AttributeType: Int] = [.integer16: 16, .integer32: 32, .integer64: 64]
        guard let from = widths[old], let to = widths[new] else { return false }
        return from <= to
    }
}

/// What ``MappingModel/match(_:among:)`` matches: entities and properties.
protocol Named {
    var name: String { get }
    var renamingIdentifier: String? { get }
}

extension EntityDescription: Named {}
extension PropertyDescription: Named {}

/// How one destination entity gets its objects (Core Data's `NSEntityMapping`).
public struct EntityMapping: Sendable, CustomStringConvertible {
    /// Core Data's entity mapping types (`NSEntityMappingType`).
    public enum MappingType: Sendable {
        /// A new entity: no objects to carry over.
        case add
        /// A source entity the destination model leaves out: its objects are dropped.
        case remove
        /// The same entity, unchanged: its objects are copied as they are.
        case copy
        /// A changed or renamed entity: its objects are copied property by property.
        case transform
        /// Objects made by the mapping's migration policy, from source objects or none.
        case custom
        /// A mapping whose kind was not set; run as a transform when it names a source and a
        /// destination entity.
        case undefined
    }

    /// `SourceToDestination`, `AddDestination` or `RemoveSource`, as Core Data names them.
    public var name: String
    public var mappingType: MappingType
    public var sourceEntityName: String?
    public var destinationEntityName: String?
    /// One mapping per stored attribute of the destination entity.
    public var attributeMappings: [PropertyMapping]
    /// One mapping per stored relationship of the destination entity.
    public var relationshipMappings: [PropertyMapping]
    /// Which source objects the mapping migrates: those of the source entity (not of its
    /// sub-entities, which have mappings of their own) for which this predicate holds; nil for
    /// all. Core Data's `sourceExpression` is a fetch of the source entity with this predicate.
    public var sourcePredicate: Predicate?
    /// The name of the ``EntityMigrationPolicy`` subclass that migrates the objects (Core Data's
    /// `entityMigrationPolicyClassName`); nil for the default policy. Found by
    /// ``EntityMigrationPolicy/register(_:as:)`` or by its Swift name (`Module.ClassName`).
    public var entityMigrationPolicyClassName: String?
    /// Values a custom policy can read.
    public var userInfo: [String: String] = [:]
    /// The version hash of the source entity the mapping was made for, when known.
    public var sourceEntityVersionHash: Data?
    /// The version hash of the destination entity the mapping was made for, when known.
    public var destinationEntityVersionHash: Data?

    public init(name: String, mappingType: MappingType, sourceEntityName: String?, destinationEntityName: String?,
                attributeMappings: [PropertyMapping], relationshipMappings: [PropertyMapping]) {
        self.name = name
        self.mappingType = mappingType
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
    }

    public var description: String {
        let properties = (attributeMappings + relationshipMappings).map(\.description)
        let policy = entityMigrationPolicyClassName.map { ", policy \($0)" } ?? ""
        return "\(name) (\(mappingType)\(policy))" + (properties.isEmpty ? "" : ": " + properties.joined(separator: ", "))
    }
}

/// Where one destination property takes its value (Core Data's `NSPropertyMapping`).
///
/// A ``MigrationManager`` evaluates the value expression with `$source` (the source object),
/// `$manager`, `$entityMapping`, `$propertyMapping` and `$entityPolicy` bound; a relationship's
/// finds the migrated objects with `FUNCTION($manager,
/// "destinationInstancesForEntityMappingNamed:sourceInstances:", "CountryToCountry", $source.country)`.
public struct PropertyMapping: Sendable, CustomStringConvertible {
    /// The destination property.
    public var name: String
    /// The source property whose value it takes unchanged (what lightweight migration carries
    /// over): `x` of a value expression `$source.x`, nil for a new property, which starts with
    /// its default value (attributes) or empty (relationships), or for a computed one.
    public var sourceName: String?
    /// The expression giving the value; nil leaves the property at its default value.
    public var valueExpression: Expression?
    /// Values a custom policy can read.
    public var userInfo: [String: String] = [:]

    /// A property carried over from the source property `sourceName` (nil: a new property).
    public init(name: String, sourceName: String?) {
        self.init(name: name, sourceName: sourceName, valueExpression: sourceName.map(MappingModel.sourceValue))
    }

    /// A property whose value `valueExpression` gives (nil: left at its default).
    public init(name: String, valueExpression: Expression?) {
        var carried: String?
        if case .member(.variable(MigrationManager.sourceVariable), let key)? = valueExpression, !key.contains(".") {
            carried = key
        }
        self.init(name: name, sourceName: carried, valueExpression: valueExpression)
    }

    init(name: String, sourceName: String?, valueExpression: Expression?) {
        self.name = name
        self.sourceName = sourceName
        self.valueExpression = valueExpression
    }

    public var description: String {
        if let sourceName, valueExpression == MappingModel.sourceValue(sourceName)
            || valueExpression == MappingModel.destinationsOfRelationship(sourceName) {
            return sourceName == name ? name : "\(name) = $source.\(sourceName)"
        }
        guard let valueExpression else { return "\(name) = default" }
        return "\(name) = \(valueExpression.expressionFormat)"
    }
}

/// Why a migration could not be made; the store is left as it was.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// No mapping can be inferred between the models (Core Data's `NSInferredMappingModelError`).
        case inference
        /// The store's own model is not known (`NSMigrationMissingSourceModelError`).
        case missingSourceModel
        /// Migrating needs a mapping the options do not allow inferring (`NSMigrationMissingMappingModelError`).
        case missingMappingModel
        /// The store's data does not fit the destination model (`NSMigrationError`).
        case migration
        /// A mapping model file cannot be read, or names what its models lack; the path then
        /// ends with the line (`xcmapping.xml:12`).
        case mappingModelFile
        /// A policy cancelled the migration (`NSMigrationCancelledError`).
        case cancelled
    }

    public let kind: Kind
    /// What could not be carried over, naming the entity and property.
    public let reason: String
    /// The store file, when a store's migration failed.
    public var path: String?

    public init(_ kind: Kind, _ reason: String, path: String? = nil) {
        self.kind = kind
        self.reason = reason
        self.path = path
    }

    public var description: String {
        if kind == .mappingModelFile { return (path.map { "\($0): " } ?? "") + reason }
        return (path.map { "\($0): " } ?? "") + "cannot migrate the store: " + reason
    }
}
