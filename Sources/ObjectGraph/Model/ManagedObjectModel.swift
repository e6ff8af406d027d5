// The managed object model: the entities, configurations, fetch request templates and version
// identifiers that describe an application's data. Read from an Xcode model file
// (ModelFile), built in code (ManagedObjectModel+Builder), or merged from several models.
import Foundation

/// A model: the description of every kind of object the framework manages.
///
/// ```swift
/// let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Data/Organizer.xcdatamodeld"))
/// model.entitiesByName["Person"]?.relationshipsByName["tasks"]?.isToMany   // true
/// ```
///
/// A model is editable until a coordinator starts using it; after that it must not change.
public final class ManagedObjectModel: @unchecked Sendable, Equatable, CustomStringConvertible {
    /// The entities, in the model's order (a model file's order, or the order they were added).
    public var entities: [EntityDescription] {
        didSet {
            precondition(isEditable, "the model is in use by a coordinator and can no longer change")
            adoptEntities()
        }
    }
    /// Whether the model may still change: true until a coordinator starts using it (``freeze()``).
    public internal(set) var isEditable = true
    /// The configurations: named groups of entities, each of which a store can hold.
    public var configurations: [ModelConfiguration]
    /// Fetch requests stored in the model by name, with `$VARIABLE`s to substitute.
    public var fetchRequestTemplates: [FetchRequestTemplate]
    /// The composite types composite attributes refer to.
    public var compositeTypes: [CompositeTypeDescription]
    /// Free-form identifiers of this model version (Xcode's Model Version Identifier).
    public var versionIdentifiers: Set<String>
    /// What the model file says about the tools that saved it.
    public var documentInfo: ModelDocumentInfo
    /// The file the model was read from, if any.
    public var sourceURL: URL?
    /// The name of the version the model was read from (the `.xcdatamodel` folder's name).
    public var versionName: String?

    /// An empty model, or one holding `entities`.
    public init(entities: [EntityDescription] = []) {
        self.entities = entities
        self.configurations = []
        self.fetchRequestTemplates = []
        self.compositeTypes = []
        self.versionIdentifiers = []
        self.documentInfo = ModelDocumentInfo()
        adoptEntities()
    }

    /// A model holding deep copies of the entities, configurations and templates of `models`.
    ///
    /// Throws ``ModelError/mergeConflict(entity:)`` when two models declare an entity of the same
    /// name, as Core Data refuses to merge them.
    public convenience init(byMerging models: [ManagedObjectModel]) throws {
        self.init()
        var seen: Set<String> = []
        for model in models {
            for entity in model.entities {
                guard seen.insert(entity.name).inserted else { throw ModelError.mergeConflict(entity: entity.name) }
                entities.append(entity.copy())
            }
            for configuration in model.configurations {
                if let index = configurations.firstIndex(where: { $0.name == configuration.name }) {
                    configurations[index].entityNames += configuration.entityNames
                } else {
                    configurations.append(configuration)
                }
            }
            fetchRequestTemplates += model.fetchRequestTemplates
            compositeTypes += model.compositeTypes.map { $0.copy() }
            versionIdentifiers.formUnion(model.versionIdentifiers)
        }
        adoptEntities()  // observers do not run for assignments inside an initializer
    }

    /// The entities by name, rebuilt whenever `entities` or an entity's name changes (at
    /// mutation time, so that reading a model from many threads never writes).
    public private(set) var entitiesByName: [String: EntityDescription] = [:]

    private func adoptEntities() {
        for entity in entities { entity.model = self }
        rebuildEntityIndex()
    }

    func rebuildEntityIndex() {
        entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public var description: String {
        "ManagedObjectModel(\(entities.map(\.name).joined(separator: ", ")))"
    }

    // MARK: Looking things up

    /// The names of the configurations, in the model's order.
    public var configurationNames: [String] { configurations.map(\.name) }

    /// The entities of the configuration named `name`; nil when there is no such configuration.
    /// The default configuration (`nil` name, or `"Default"` when the model declares none by
    /// that name) holds every entity.
    public func entities(forConfigurationName name: String?) -> [EntityDescription]? {
        guard let name else { return entities }
        guard let configuration = configurations.first(where: { $0.name == name }) else {
            return name == "Default" || name == "PF_DEFAULT_CONFIGURATION_NAME" ? entities : nil
        }
        let byName = entitiesByName
        return configuration.entityNames.compactMap { byName[$0] }
    }

    /// The fetch request templates by name.
    public var fetchRequestTemplatesByName: [String: FetchRequestTemplate] {
        Dictionary(fetchRequestTemplates.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The stored fetch request named `name`, its predicate still holding its `$VARIABLE`s.
    public func fetchRequestTemplate(forName name: String) -> FetchRequestTemplate? {
        fetchRequestTemplates.first { $0.name == name }
    }

    /// The stored fetch request named `name` with `variables` substituted for the `$NAME`s of
    /// its predicate; nil when there is no such template. Throws for an unbound variable or a
    /// malformed predicate, naming the template.
    ///
    /// ```swift
    /// let due = try model.fetchRequestTemplate(forName: "tasksDueBefore", substitutionVariables: ["DATE": Date()])
    /// due?.predicateFormat   // due < CAST(785000000.000000, "NSDate") AND done == 0
    /// ```
    public func fetchRequestTemplate(forName name: String, substitutionVariables variables: [String: Any?]) throws -> FetchRequestTemplate? {
        guard var template = fetchRequestTemplate(forName: name) else { return nil }
        do {
            template.predicateFormat = try template.predicate(substitutionVariables: variables)?.predicateFormat
        } catch let error as PredicateError {
            throw ModelError.invalidTemplate(name: name, reason: "\(error)")
        }
        return template
    }

    /// The composite type named `name`.
    public func compositeType(named name: String) -> CompositeTypeDescription? {
        compositeTypes.first { $0.name == name }
    }

    // MARK: Equality and copying

    /// Whether two models declare the same entities (in order), configurations, templates,
    /// composite types and version identifiers. Where they were read from does not count.
    public static func == (lhs: ManagedObjectModel, rhs: ManagedObjectModel) -> Bool {
        lhs.entities.count == rhs.entities.count
            && zip(lhs.entities, rhs.entities).allSatisfy { $0.isEqual(to: $1) }
            && lhs.configurations == rhs.configurations
            && lhs.fetchRequestTemplates == rhs.fetchRequestTemplates
            && lhs.compositeTypes.count == rhs.compositeTypes.count
            && zip(lhs.compositeTypes, rhs.compositeTypes).allSatisfy { $0.isEqual(to: $1) }
            && lhs.versionIdentifiers == rhs.versionIdentifiers
    }

    /// A deep copy: editing it leaves this model unchanged.
    public func copy() -> ManagedObjectModel {
        let copy = ManagedObjectModel(entities: entities.map { $0.copy() })
        copy.configurations = configurations
        copy.fetchRequestTemplates = fetchRequestTemplates
        copy.compositeTypes = compositeTypes.map { $0.copy() }
        copy.versionIdentifiers = versionIdentifiers
        copy.documentInfo = documentInfo
        copy.sourceURL = sourceURL
        copy.versionName = versionName
        return copy
    }
}
