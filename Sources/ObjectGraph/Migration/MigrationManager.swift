// Core Data's heavyweight migration (talk 001: "you create a migration manager and you set the
// mapping model on the migration manager, feed in your source data store and out the other side
// comes a data store that's compatible with the next version of your data model"). The source
// store is opened read-only with the source model, a new store with the destination model; each
// entity mapping's policy makes the destination objects (stage 1), then their relationships
// (stage 2), then checks them (stage 3); one save writes the new store. Any failure destroys the
// new store: the source is never written.
import Foundation

/// Migrates a store from one model to another with a ``MappingModel`` (Core Data's
/// `NSMigrationManager`): one written by hand, read from an Xcode mapping model
/// (``MappingModel/init(contentsOf:sourceModel:destinationModel:)``) or inferred.
///
/// ```swift
/// let mapping = try MappingModel(contentsOf: mappingURL, sourceModel: version5, destinationModel: version6)
/// let manager = MigrationManager(sourceModel: version5, destinationModel: version6)
/// try manager.migrateStore(from: oldURL, type: .sqlite, mapping: mapping, toDestinationURL: newURL, destinationType: .sqlite)
/// ```
///
/// To have a store migrated when it is added, give the mapping models in the store's options
/// under ``mappingModelsOption``, with ``SQLiteStore/migratesAutomaticallyOption``: a store that
/// opens with a mapping's source model is migrated with it before it is added (Core Data prefers
/// a mapping model it finds to an inferred one, too).
///
/// Value expressions see `$source` (the source object), `$manager` (this manager),
/// `$entityMapping`, `$propertyMapping` and `$entityPolicy`, and can call the manager's
/// methods: `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:",
/// "CountryToCountry", $source.country)`, `"sourceInstancesForEntityMappingNamed:destinationInstances:"`,
/// `"destinationInstancesForSourceRelationshipNamed:sourceInstances:"`.
public final class MigrationManager: MethodReceiver {
    /// The store option holding `[MappingModel]`: mapping models a store is migrated with when it
    /// opens (with ``SQLiteStore/migratesAutomaticallyOption``) and the model it was made with is
    /// one's ``MappingModel/sourceModel``. Core Data finds them in the app's bundles.
    public static let mappingModelsOption = "ObjectGraphMappingModelsOption"

    static let sourceVariable = "source"
    static let managerVariable = "manager"
    static let destinationsOfMappingSelector = "destinationInstancesForEntityMappingNamed:sourceInstances:"
    static let sourcesOfMappingSelector = "sourceInstancesForEntityMappingNamed:destinationInstances:"
    static let destinationsOfRelationshipSelector = "destinationInstancesForSourceRelationshipNamed:sourceInstances:"

    public let sourceModel: ManagedObjectModel
    public let destinationModel: ManagedObjectModel
    /// The mapping of the migration under way (or last run).
    public private(set) var mappingModel: MappingModel?
    /// The context holding the source objects, during a migration.
    public private(set) var sourceContext: ManagedObjectContext?
    /// The context the destination objects are made in, during a migration.
    public private(set) var destinationContext: ManagedObjectContext?
    /// The entity mapping being run.
    public private(set) var currentEntityMapping: EntityMapping?
    /// How much of the migration is done, 0 to 1 (the three stages of each entity mapping).
    public private(set) var migrationProgress: Float = 0
    /// Values policies share during a migration (a lookup table of objects made, say).
    public var userInfo: [String: Any] = [:]

    /// The store file being migrated, for messages.
    private var sourcePath: String?
    private var cancellation: (any Error)?
    /// The objects each entity mapping made, in the order it made them, each once.
    private var destinationsByMapping: [String: [ManagedObject]] = [:]
    /// Each entity mapping's destination objects by source object.
    private var destinationsBySource: [String: ObjectTable<ObjectID>] = [:]
    /// Each entity mapping's source objects by destination object (several when a policy
    /// merged them into one).
    private var sourcesByDestination: [String: ObjectTable<ObjectIdentifier>] = [:]
    /// The destination objects of each source object, whatever mapping made them.
    private var allDestinations = ObjectTable<ObjectID>()
    /// The relationship whose value expression is being evaluated, if any: the objects of a
    /// source relationship's destinations are those of its destination entity.
    private var evaluatedRelationship: RelationshipDescription?

    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    // MARK: Migrating a store

    /// Migrates the store of `type` at `sourceURL`, made with ``sourceModel``, into a new store
    /// of `destinationType` at `destinationURL` with ``destinationModel``, as `mapping` says.
    /// The source store is only read. Throws ``MigrationError`` naming the entity mapping and
    /// property of a failure; the new store is then destroyed.
    public func migrateStore(from sourceURL: URL, type: StoreType = .sqlite, options: [String: any Sendable] = [:],
                             mapping: MappingModel, toDestinationURL destinationURL: URL,
                             destinationType: StoreType = .sqlite, destinationOptions: [String: any Sendable] = [:]) throws {
        guard !FileManager.default.fileExists(atPath: destinationURL.path) else {
            throw MigrationError(.migration, "a file is already there: a store is migrated into a new file", path: destinationURL.path)
        }
        // The folders the new store makes, removed with it when the migration fails.
        var madeFolders: [URL] = []
        var folder = destinationURL.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" {
            madeFolders.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        sourcePath = sourceURL.path
        try check(mapping)
        var readOptions = Self.plainOptions(options)
        readOptions[SQLiteStore.readOnlyOption] = true
        let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        let sourceStore: any PersistentStore
        do {
            sourceStore = try sourceCoordinator.addPersistentStore(type: type, at: sourceURL, options: readOptions)
        } catch {
            throw MigrationError(.missingSourceModel, "the store does not open with the mapping's source model: \(error)", path: sourceURL.path)
        }
        defer { try? sourceCoordinator.remove(sourceStore) }
        let destinationCoordinator = PersistentStoreCoordinator(managedObjectModel: destinationModel)
        let destinationStore: any PersistentStore
        do {
            destinationStore = try destinationCoordinator.addPersistentStore(type: destinationType, at: destinationURL,
                                                                             options: Self.plainOptions(destinationOptions))
        } catch {
            Self.remove(madeFolders)
            throw error
        }
        // The application's own metadata (a sync token, say) goes with the objects.
        var metadata = destinationCoordinator.metadata(for: destinationStore)
        for (key, value) in sourceCoordinator.metadata(for: sourceStore) where metadata[key] == nil { metadata[key] = value }
        destinationCoordinator.setMetadata(metadata, for: destinationStore)
        let source = ManagedObjectContext(concurrencyType: .privateQueue)
        source.persistentStoreCoordinator = sourceCoordinator
        let destination = ManagedObjectContext(concurrencyType: .privateQueue)
        destination.persistentStoreCoordinator = destinationCoordinator
        destination.undoManager = nil
        sourceContext = source
        destinationContext = destination
        mappingModel = mapping
        defer { reset() }
        do {
            try destination.performAndWait {
                try source.performAndWait { try run(mapping) }
            }
        } catch {
            try? destinationCoordinator.remove(destinationStore)
            try? destinationCoordinator.destroyPersistentStore(at: destinationURL, type: destinationType,
                                                               options: Self.plainOptions(destinationOptions))
            Self.remove(madeFolders)
            throw error
        }
        try? destinationCoordinator.remove(destinationStore)
    }

    /// Stops the migration under way with `error`, which ``migrateStore(from:type:options:mapping:toDestinationURL:destinationType:destinationOptions:)``
    /// throws (Core Data's `cancelMigrationWithError(_:)`).
    public func cancelMigrationWithError(_ error: any Error) {
        cancellation = error
    }

    /// Removes `folders` (innermost first) where they are empty.
    private static func remove(_ folders: [URL]) {
        for folder in folders where ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? ["?"]).isEmpty {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Options for a store the manager opens itself: no migration of its own, no external
    /// records.
    static func plainOptions(_ options: [String: any Sendable]) -> [String: any Sendable] {
        var options = options
        options[mappingModelsOption] = nil
        options[StagedMigrationManager.option] = nil
        options[SQLiteStore.migratesAutomaticallyOption] = false
        options[SQLiteStore.infersMappingModelOption] = false
        options[NSExternalRecordsDirectoryOption] = nil
        return options
    }

    private func reset() {
        sourceContext = nil
        destinationContext = nil
        currentEntityMapping = nil
        destinationsByMapping = [:]
        destinationsBySource = [:]
        sourcesByDestination = [:]
        allDestinations = ObjectTable()
        evaluatedRelationship = nil
        cancellation = nil
    }

    /// The three stages over every entity mapping, then one save.
    private func run(_ mapping: MappingModel) throws {
        let mappings = mapping.entityMappings
        var policies: [String: EntityMigrationPolicy] = [:]
        for entityMapping in mappings { policies[entityMapping.name] = try policy(for: entityMapping) }
        // Three stages per mapping, and the save: 1 only once the new store is written.
        let steps = Float(3 * mappings.count + 1)
        var done: Float = 0
        func advance() {
            done += 1
            migrationProgress = done / steps
        }
        migrationProgress = 0
        for entityMapping in mappings {
            currentEntityMapping = entityMapping
            let policy = policies[entityMapping.name]!
            try checkCancelled()
            try stage(entityMapping, "begin") { try policy.begin(entityMapping, with: self) }
            for source in try sourceObjects(of: entityMapping) {
                try checkCancelled()
                try stage(entityMapping, "making the object of \(source.objectID.uriRepresentation.absoluteString)") {
                    try policy.createDestinationInstances(forSource: source, in: entityMapping, manager: self)
                }
            }
            try checkCancelled()
            try stage(entityMapping, "endInstanceCreation") { try policy.endInstanceCreation(forMapping: entityMapping, manager: self) }
            advance()
        }
        for entityMapping in mappings {
            currentEntityMapping = entityMapping
            let policy = policies[entityMapping.name]!
            for destination in destinationsByMapping[entityMapping.name] ?? [] {
                try checkCancelled()
                try stage(entityMapping, "setting relationships") {
                    try policy.createRelationships(forDestination: destination, in: entityMapping, manager: self)
                }
            }
            try checkCancelled()
            try stage(entityMapping, "endRelationshipCreation") { try policy.endRelationshipCreation(forMapping: entityMapping, manager: self) }
            advance()
        }
        for entityMapping in mappings {
            currentEntityMapping = entityMapping
            let policy = policies[entityMapping.name]!
            try checkCancelled()
            try stage(entityMapping, "validation") { try policy.performCustomValidation(forMapping: entityMapping, manager: self) }
            try checkCancelled()
            try stage(entityMapping, "end") { try policy.end(entityMapping, manager: self) }
            advance()
        }
        try checkCancelled()
        currentEntityMapping = nil
        do {
            try destinationContext?.save()
        } catch StoreError.uniquenessViolation(let entity, let properties, _) {
            throw failure("the migrated objects could not be saved: " + duplicates(of: entity, on: properties))
        } catch {
            throw failure("the migrated objects could not be saved: \(error)")
        }
        migrationProgress = 1
    }

    /// Which migrated objects share the values of a uniqueness constraint of `entity` on
    /// `properties`: the values, and the entity mappings and source objects they were made from.
    private func duplicates(of entity: String, on properties: [String]) -> String {
        let constraint = "the uniqueness constraint (\(properties.joined(separator: ", "))) of \(entity)"
        var groups: [[String]: [(mapping: String, object: ManagedObject)]] = [:]
        var order: [[String]] = []
        for (name, objects) in destinationsByMapping.sorted(by: { $0.key < $1.key }) {
            for object in objects where object.entity.name == entity || object.entity.isKind(of: destinationModel.entitiesByName[entity] ?? object.entity) {
                let key = properties.map { ValueComparison.describe(object.value(forKey: $0)) }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append((name, object))
            }
        }
        guard let key = order.first(where: { (groups[$0]?.count ?? 0) > 1 }), let group = groups[key] else {
            return "\(constraint) is broken"
        }
        let values = zip(properties, key).map { "\($0) = \($1)" }.joined(separator: ", ")
        let made = group.prefix(3).map { entry in
            let sources = sourceInstances(forEntityMappingName: entry.mapping, destinationInstances: [entry.object])
            return "entity mapping \(entry.mapping) from " + (sources.map { $0.objectID.uriRepresentation.absoluteString }.first ?? "no source object")
        }
        return "\(constraint) is broken: \(group.count) objects have \(values) (\(made.joined(separator: "; ")))"
    }

    /// Runs a policy's stage, naming the mapping and the stage in an error that does not.
    private func stage(_ mapping: EntityMapping, _ what: @autoclosure () -> String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as MigrationError {
            throw error
        } catch {
            throw failure("entity mapping \(mapping.name), \(what()): \(error)")
        }
    }

    private func checkCancelled() throws {
        guard let cancellation else { return }
        if let error = cancellation as? MigrationError { throw error }
        throw MigrationError(.cancelled, "cancelled: \(cancellation)", path: sourcePath)
    }

    private func failure(_ reason: String) -> MigrationError {
        MigrationError(.migration, reason, path: sourcePath)
    }

    /// The policy of `mapping`: its class's, or the default one.
    private func policy(for mapping: EntityMapping) throws -> EntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty else { return EntityMigrationPolicy() }
        guard let type = EntityMigrationPolicy.policyClass(named: name) else {
            throw failure("entity mapping \(mapping.name): no migration policy class \(name) (register it with EntityMigrationPolicy.register(_:as:))")
        }
        return type.init()
    }

    /// The source objects of `mapping`: those of its source entity (not of its sub-entities)
    /// for which its source predicate holds, in the store's order.
    private func sourceObjects(of mapping: EntityMapping) throws -> [ManagedObject] {
        guard mapping.mappingType != .remove, mapping.mappingType != .add, let name = mapping.sourceEntityName,
              let context = sourceContext else { return [] }
        var request = FetchRequest<ManagedObject>(entityName: name)
        request.includesSubentities = false
        request.predicate = mapping.sourcePredicate
        request.returnsObjectsAsFaults = false
        // The relationships the expressions follow from `$source` are read with the objects, a
        // query per relationship instead of one per object.
        if let entity = sourceModel.entitiesByName[name] {
            var keys: Set<String> = []
            for propertyMapping in mapping.attributeMappings + mapping.relationshipMappings {
                for path in MappingModel.sourcePaths(in: propertyMapping.valueExpression) {
                    if let key = path.split(separator: ".").first.map(String.init), entity.relationshipsByName[key] != nil { keys.insert(key) }
                }
            }
            request.relationshipKeyPathsForPrefetching = keys.sorted()
        }
        do {
            return try context.fetch(request)
        } catch {
            throw failure("entity mapping \(mapping.name): the source objects could not be fetched: \(error)")
        }
    }

    // MARK: Checking a mapping against the models

    /// Throws when `mapping` names entities or properties the models lack.
    private func check(_ mapping: MappingModel) throws {
        var names: Set<String> = []
        for entityMapping in mapping.entityMappings {
            let label = "entity mapping \(entityMapping.name)"
            guard names.insert(entityMapping.name).inserted else { throw failure("\(label) is named twice") }
            var source: EntityDescription?
            if let name = entityMapping.sourceEntityName {
                source = sourceModel.entitiesByName[name]
                guard source != nil else { throw failure("\(label): the source model has no entity \(name)") }
            }
            guard let name = entityMapping.destinationEntityName else { continue }
            guard let destination = destinationModel.entitiesByName[name] else {
                throw failure("\(label): the destination model has no entity \(name)")
            }
            for (mappings, kind) in [(entityMapping.attributeMappings, "attribute"), (entityMapping.relationshipMappings, "relationship")] {
                for propertyMapping in mappings {
                    let property = destination.propertiesByName[propertyMapping.name]
                    let fits = kind == "attribute" ? property is AttributeDescription : property is RelationshipDescription
                    guard fits else { throw failure("\(label): \(name) has no \(kind) \(propertyMapping.name)") }
                    guard let source else { continue }
                    for path in MappingModel.sourcePaths(in: propertyMapping.valueExpression) {
                        if let problem = MappingModel.keyPathProblem(path, from: source) {
                            throw failure("\(label), \(name).\(propertyMapping.name): $source.\(path): \(problem)")
                        }
                    }
                }
            }
        }
    }

    // MARK: What policies call

    /// Records that `destination` was made from `source` by `entityMapping`, so that
    /// ``destinationInstances(forEntityMappingName:sourceInstances:)`` finds it and relationships
    /// to `source` become relationships to it.
    public func associate(sourceInstance source: ManagedObject, withDestinationInstance destination: ManagedObject,
                          for entityMapping: EntityMapping) {
        let name = entityMapping.name
        let key = ObjectIdentifier(destination)
        let first = !(sourcesByDestination[name]?.contains(key) ?? false)
        guard sourcesByDestination[name, default: ObjectTable()].add(source, for: key) else { return }
        if first { destinationsByMapping[name, default: []].append(destination) }
        destinationsBySource[name, default: ObjectTable()].add(destination, for: source.objectID)
        allDestinations.add(destination, for: source.objectID)
    }

    /// The objects the entity mapping named `name` made from `sources` (nil: every object it
    /// made), in their order.
    public func destinationInstances(forEntityMappingName name: String, sourceInstances sources: [ManagedObject]?) -> [ManagedObject] {
        guard let sources else { return destinationsByMapping[name] ?? [] }
        let table = destinationsBySource[name] ?? ObjectTable()
        return Self.distinct(sources.flatMap { table.objects(for: $0.objectID) })
    }

    /// The source objects the entity mapping named `name` made `destinations` from (nil: the
    /// sources of every object it made).
    public func sourceInstances(forEntityMappingName name: String, destinationInstances destinations: [ManagedObject]?) -> [ManagedObject] {
        let table = sourcesByDestination[name] ?? ObjectTable()
        let destinations = destinations ?? destinationsByMapping[name] ?? []
        return Self.distinct(destinations.flatMap { table.objects(for: ObjectIdentifier($0)) })
    }

    /// `objects` without repeats, in order.
    private static func distinct(_ objects: [ManagedObject]) -> [ManagedObject] {
        var seen: Set<ObjectIdentifier> = []
        return objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }

    /// The objects made from `source` that a relationship to `entity` may hold.
    private func destinations(of source: ManagedObject, kindOf entity: EntityDescription?) -> [ManagedObject] {
        let all = allDestinations.objects(for: source.objectID)
        guard let entity else { return all }
        return all.filter { $0.entity.isKind(of: entity) }
    }

    /// Inserts an object of `entityName` into the destination context.
    func insertDestinationObject(forEntityName entityName: String, mapping: EntityMapping) throws -> ManagedObject {
        guard let context = destinationContext else { throw failure("entity mapping \(mapping.name): no migration is under way") }
        guard let entity = destinationModel.entitiesByName[entityName], !entity.isAbstract else {
            throw failure("entity mapping \(mapping.name): the destination model has no concrete entity \(entityName)")
        }
        return context.insertNewObject(forEntityName: entityName)
    }

    /// The value of a mapping's expression for `source`.
    func evaluate(_ expression: Expression, source: ManagedObject?, mapping: EntityMapping, propertyMapping: PropertyMapping,
                  policy: EntityMigrationPolicy) throws -> Any? {
        // The common case, `$source.name` (what Xcode generates for most attributes): the
        // source's value, without building the variables.
        if let source, case .member(.variable(Self.sourceVariable), let key) = expression,
           !key.utf8.contains(UInt8(ascii: ".")), source.entity.propertiesByName[key] is AttributeDescription {
            return source.value(forKey: key)
        }
        let variables: [String: Any?] = [
            Self.sourceVariable: source, Self.managerVariable: self, "entityMapping": mapping,
            "propertyMapping": propertyMapping, "entityPolicy": policy,
        ]
        evaluatedRelationship = mapping.destinationEntityName
            .flatMap { destinationModel.entitiesByName[$0]?.propertiesByName[propertyMapping.name] as? RelationshipDescription }
        defer { evaluatedRelationship = nil }
        do {
            return try expression.expressionValue(with: source, context: variables)
        } catch {
            throw failure("entity mapping \(mapping.name), \(mapping.destinationEntityName ?? "?").\(propertyMapping.name) = \(expression.expressionFormat): \(error)")
        }
    }

    /// Sets the attribute of a property mapping to `value`, checking its type.
    /// Sets the attribute of a property mapping to `value` (nil too, as Core Data's default
    /// policy sets it), checking its type; a number goes into an integer attribute as an
    /// integer (its fraction dropped, as `NSNumber`'s `int64Value` does).
    func setAttribute(_ value: Any?, of destination: ManagedObject, _ propertyMapping: PropertyMapping, _ mapping: EntityMapping) throws {
        guard let attribute = destination.entity.propertiesByName[propertyMapping.name] as? AttributeDescription else {
            throw failure("entity mapping \(mapping.name): \(destination.entity.name) has no attribute \(propertyMapping.name)")
        }
        guard var value = KeyValueAccess.normalized(value) else {
            destination.setValue(nil, forKey: propertyMapping.name)
            return
        }
        if value is ManagedObject {
            throw failure("entity mapping \(mapping.name), \(attribute.qualifiedName): the value expression gave an object, and \(attribute.name) is an attribute")
        }
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64:
            let type = Swift.type(of: value)
            if type == Double.self || type == Float.self || type == Decimal.self || type == NSNumber.self,
               let integer = Number(value)?.integerValue {
                value = integer
            }
        default:
            break
        }
        destination.setValue(value, forKey: propertyMapping.name)
    }

    /// Sets the relationship of a property mapping to the objects `value` holds, source objects
    /// standing for the objects migrated from them.
    func setRelationship(_ value: Any?, of destination: ManagedObject, _ propertyMapping: PropertyMapping, _ mapping: EntityMapping) throws {
        guard let relationship = destination.entity.propertiesByName[propertyMapping.name] as? RelationshipDescription else {
            throw failure("entity mapping \(mapping.name): \(destination.entity.name) has no relationship \(propertyMapping.name)")
        }
        let objects = try destinationObjects(from: value, for: relationship, mapping)
        if relationship.isToMany {
            destination.setValue(objects, forKey: relationship.name)
        } else {
            guard objects.count <= 1 else {
                throw failure("entity mapping \(mapping.name), \(relationship.qualifiedName): to-one, and its value expression gave \(objects.count) objects")
            }
            destination.setValue(objects.first, forKey: relationship.name)
        }
    }

    /// The destination objects `value` (an object, a collection of them, or nil) stands for.
    private func destinationObjects(from value: Any?, for relationship: RelationshipDescription, _ mapping: EntityMapping) throws -> [ManagedObject] {
        guard let value = KeyValueAccess.normalized(value) else { return [] }
        let items: [Any] = value is ManagedObject ? [value] : KeyValueAccess.collectionElements(value) ?? [value]
        var result: [ManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        for item in items {
            guard let object = KeyValueAccess.normalized(item) as? ManagedObject else {
                if KeyValueAccess.normalized(item) == nil { continue }
                throw failure("entity mapping \(mapping.name), \(relationship.qualifiedName): its value expression gave \(ValueComparison.describe(item)), not objects")
            }
            let found: [ManagedObject]
            if object.managedObjectContext === destinationContext {
                found = [object]
            } else if object.managedObjectContext === sourceContext {
                found = destinations(of: object, kindOf: relationship.destinationEntity)
            } else {
                throw failure("entity mapping \(mapping.name), \(relationship.qualifiedName): its value expression gave an object of neither the source nor the destination store")
            }
            for object in found where seen.insert(ObjectIdentifier(object)).inserted {
                guard let target = relationship.destinationEntity, object.entity.isKind(of: target) else {
                    throw failure("entity mapping \(mapping.name), \(relationship.qualifiedName): its value expression gave an object of \(object.entity.name), not of \(relationship.destinationEntityName)")
                }
                result.append(object)
            }
        }
        return result
    }

    // MARK: FUNCTION($manager, ...)

    public func method(forSelector selector: String) -> (([Any?]) throws -> Any?)? {
        switch selector {
        case Self.destinationsOfMappingSelector:
            return { [unowned self] arguments in
                // A nil source (an empty to-one) has no destinations, not all of the mapping's.
                let name = try self.mappingName(arguments, selector)
                return self.destinationInstances(forEntityMappingName: name, sourceInstances: try Self.objects(arguments, selector) ?? [])
            }
        case Self.sourcesOfMappingSelector:
            return { [unowned self] arguments in
                let name = try self.mappingName(arguments, selector)
                return self.sourceInstances(forEntityMappingName: name, destinationInstances: try Self.objects(arguments, selector) ?? [])
            }
        case Self.destinationsOfRelationshipSelector:
            return { [unowned self] arguments in
                let entity = self.evaluatedRelationship?.destinationEntity
                return Self.distinct((try Self.objects(arguments, selector) ?? []).flatMap { self.destinations(of: $0, kindOf: entity) })
            }
        default:
            return nil
        }
    }

    /// The entity mapping a manager method's first argument names, which the mapping must have.
    private func mappingName(_ arguments: [Any?], _ selector: String) throws -> String {
        guard let name = arguments.first.flatMap({ $0 }) as? String else {
            throw PredicateError(.evaluation, "\(selector) needs an entity mapping name first")
        }
        guard mappingModel?.entityMapping(named: name) != nil else {
            throw PredicateError(.evaluation, "\(selector): the mapping model has no entity mapping \(name)")
        }
        return name
    }

    /// The objects of a manager method's second argument: one object, a collection, or nil.
    private static func objects(_ arguments: [Any?], _ selector: String) throws -> [ManagedObject]? {
        guard arguments.count > 1 else { throw PredicateError(.evaluation, "\(selector) needs 2 arguments") }
        guard let value = KeyValueAccess.normalized(arguments[1]) else { return nil }
        if let object = value as? ManagedObject { return [object] }
        guard let items = KeyValueAccess.collectionElements(value) else {
            throw PredicateError(.evaluation, "\(selector) needs objects, got \(ValueComparison.describe(value))")
        }
        return items.compactMap { $0 as? ManagedObject }
    }
}

/// Objects by key, most keys having one (a source and the object made from it): the first
/// object of a key is kept without an array of its own.
struct ObjectTable<Key: Hashable> {
    private var first: [Key: ManagedObject] = [:]
    private var more: [Key: [ManagedObject]] = [:]

    func contains(_ key: Key) -> Bool { first[key] != nil }

    /// Adds `object` under `key`; false when it is there already.
    @discardableResult
    mutating func add(_ object: ManagedObject, for key: Key) -> Bool {
        guard let existing = first[key] else {
            first[key] = object
            return true
        }
        if existing === object || (more[key]?.contains { $0 === object } ?? false) { return false }
        more[key, default: []].append(object)
        return true
    }

    func objects(for key: Key) -> [ManagedObject] {
        guard let object = first[key] else { return [] }
        return [object] + (more[key] ?? [])
    }
}
