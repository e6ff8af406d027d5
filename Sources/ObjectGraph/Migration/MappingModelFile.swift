// Xcode's mapping models (`Name.xcmappingmodel/xcmapping.xml`), read against the two models they
// map between. The file is itself a Core Data XML store of Xcode's own model: one object per
// mapping model, entity mapping, attribute mapping and relationship mapping, linked by id.
// Value expressions Xcode archived (`valueexpressiondata`) are read with ArchivedExpression;
// those it generates when the mapping is compiled are generated here as it does: `$source.name`
// for an attribute the source entity has, and for a relationship
// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", <source key path>)`.
import Foundation

extension MappingModel {
    /// Reads an Xcode mapping model (the `.xcmappingmodel` folder or its `xcmapping.xml`) made
    /// between `sourceModel` and `destinationModel` (Core Data's compiled `NSMappingModel`).
    ///
    /// ```swift
    /// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Moody5to6.xcmappingmodel"),
    ///                                sourceModel: version5, destinationModel: version6)
    /// ```
    ///
    /// Entity mappings run in the file's order; one whose kind Xcode left undefined is a
    /// transform (custom, with a policy class), an add (no source entity) or a remove (no
    /// destination entity), and is named `SourceToDestination`, `AddDestination` or
    /// `RemoveSource`. Throws ``MigrationError`` (``MigrationError/Kind/mappingModelFile``) naming
    /// the file and line of what cannot be read or what the models lack.
    public init(contentsOf url: URL, sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) throws {
        var file = url
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            file = url.appendingPathComponent("xcmapping.xml")
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw MigrationError(.mappingModelFile, "cannot read the mapping model: \(error.localizedDescription)", path: file.path)
        }
        var reader = MappingModelFileReader(path: file.path, source: sourceModel, destination: destinationModel)
        self = try reader.read(data)
    }
}

/// Reads one `xcmapping.xml`.
private struct MappingModelFileReader {
    let path: String
    let source: ManagedObjectModel
    let destination: ManagedObjectModel

    /// One `<object>` of the file: its type, its attributes' text and line, its relationships'
    /// ids.
    struct Object {
        var type: String
        var id: String
        var line: Int
        var attributes: [String: (text: String, line: Int)] = [:]
        var relationships: [String: [String]] = [:]

        func string(_ name: String) -> String? {
            guard let text = attributes[name]?.text, !text.isEmpty else { return nil }
            return text
        }

        func line(of name: String) -> Int { attributes[name]?.line ?? line }
    }

    var objects: [String: Object] = [:]

    init(path: String, source: ManagedObjectModel, destination: ManagedObjectModel) {
        self.path = path
        self.source = source
        self.destination = destination
    }

    func failure(_ reason: String, line: Int) -> MigrationError {
        MigrationError(.mappingModelFile, reason, path: "\(path):\(line)")
    }

    mutating func read(_ data: Data) throws -> MappingModel {
        let root: XMLTreeElement
        do {
            root = try XMLTree.parse(data, path: path)
        } catch {
            throw MigrationError(.mappingModelFile, "not well-formed XML: \(error.message)", path: "\(path):\(error.line):\(error.column)")
        }
        guard root.name == "database" else {
            throw failure("not a mapping model: the document is <\(root.name)>, not a Core Data XML store <database>", line: root.line)
        }
        for element in root.children(named: "object") {
            guard let type = element[attribute: "type"], let id = element[attribute: "id"] else {
                throw failure("an <object> without a type or an id", line: element.line)
            }
            var object = Object(type: type, id: id, line: element.line)
            for attribute in element.children(named: "attribute") {
                guard let name = attribute[attribute: "name"] else { continue }
                object.attributes[name] = (attribute.text, attribute.line)
            }
            for relationship in element.children(named: "relationship") {
                guard let name = relationship[attribute: "name"] else { continue }
                object.relationships[name] = (relationship[attribute: "idrefs"] ?? "").split(separator: " ").map(String.init)
            }
            objects[id] = object
        }
        let models = objects.values.filter { $0.type == "XDDEVMAPPINGMODEL" }
        guard let model = models.first, models.count == 1 else {
            throw failure("not a mapping model: \(models.isEmpty ? "no" : "\(models.count)") XDDEVMAPPINGMODEL object(s), where there must be one", line: root.line)
        }
        let entityObjects = try referenced(model, "entitymappings", type: "XDDEVENTITYMAPPING")
            .enumerated()
            .sorted { (Int($0.element.string("mappingnumber") ?? "") ?? Int.max, $0.offset) < (Int($1.element.string("mappingnumber") ?? "") ?? Int.max, $1.offset) }
            .map(\.element)
        // Names first: relationship mappings name other entity mappings.
        var heads: [(object: Object, mapping: EntityMapping)] = []
        for object in entityObjects { heads.append((object, try head(of: object))) }
        let names = Set(heads.map(\.mapping.name))
        var mappings: [EntityMapping] = []
        for (object, head) in heads {
            var mapping = head
            let sourceEntity = mapping.sourceEntityName.flatMap { source.entitiesByName[$0] }
            guard let name = mapping.destinationEntityName, let destinationEntity = destination.entitiesByName[name] else {
                mappings.append(mapping)
                continue
            }
            let autogenerates = object.string("autogenerateexpression") == "1"
            for attributeObject in try referenced(object, "attributemappings", type: "XDDEVATTRIBUTEMAPPING") {
                let property = try propertyName(of: attributeObject, in: destinationEntity, relationship: false)
                var expression = try archivedExpression(of: attributeObject)
                try checkSourcePaths(of: expression, attributeObject, "valueexpressiondata", sourceEntity)
                if expression == nil, autogenerates, sourceEntity?.attributesByName[property] != nil {
                    expression = MappingModel.sourceValue(property)
                }
                mapping.attributeMappings.append(PropertyMapping(name: property, valueExpression: expression))
            }
            for relationshipObject in try referenced(object, "relationshipmappings", type: "XDDEVRELATIONSHIPMAPPING") {
                let property = try propertyName(of: relationshipObject, in: destinationEntity, relationship: true)
                var expression = try archivedExpression(of: relationshipObject)
                try checkSourcePaths(of: expression, relationshipObject, "valueexpressiondata", sourceEntity)
                if expression == nil {
                    expression = try generatedExpression(of: relationshipObject, property: property, sourceEntity: sourceEntity,
                                                         autogenerates: autogenerates || relationshipObject.string("autogenerateexpression") == "1",
                                                         mappingNames: names, heads: heads.map(\.mapping))
                    try checkSourcePaths(of: expression, relationshipObject, "sourcekeypath", sourceEntity)
                }
                mapping.relationshipMappings.append(PropertyMapping(name: property, valueExpression: expression))
            }
            mapping.sourceEntityVersionHash = sourceEntity?.versionHash
            mapping.destinationEntityVersionHash = destinationEntity.versionHash
            mappings.append(mapping)
        }
        return MappingModel(entityMappings: mappings, sourceModel: source, destinationModel: destination)
    }

    /// The objects of `object`'s relationship `name`, which must be of `type`.
    func referenced(_ object: Object, _ name: String, type: String) throws -> [Object] {
        try (object.relationships[name] ?? []).map { id in
            guard let found = objects[id] else {
                throw failure("\(object.type) \(object.id) refers to \(id), which the file does not hold", line: object.line)
            }
            guard found.type == type else {
                throw failure("\(object.type) \(object.id) refers to \(id), a \(found.type), where a \(type) belongs", line: object.line)
            }
            return found
        }
    }

    /// An entity mapping's kind, entities, name and policy, checked against the models.
    func head(of object: Object) throws -> EntityMapping {
        let sourceName = object.string("sourcename")
        let destinationName = object.string("destinationname")
        if let sourceName, source.entitiesByName[sourceName] == nil {
            throw failure("the entity mapping's source entity \(sourceName) is not in the source model", line: object.line(of: "sourcename"))
        }
        if let destinationName, destination.entitiesByName[destinationName] == nil {
            throw failure("the entity mapping's destination entity \(destinationName) is not in the destination model", line: object.line(of: "destinationname"))
        }
        let policy = object.string("migrationpolicyclassname")
        let typeName = object.string("mappingtypename") ?? "Undefined"
        var type: EntityMapping.MappingType
        switch typeName {
        case "Add": type = .add
        case "Remove": type = .remove
        case "Copy": type = .copy
        case "Transform": type = .transform
        case "Custom": type = .custom
        case "Undefined": type = .undefined
        default:
            throw failure("unknown entity mapping type \"\(typeName)\" (Undefined, Custom, Add, Remove, Copy or Transform)", line: object.line(of: "mappingtypename"))
        }
        if type == .undefined {
            switch (sourceName, destinationName) {
            case (_?, _?): type = policy == nil ? .transform : .custom
            case (nil, _?): type = .add
            case (_?, nil): type = .remove
            case (nil, nil): type = .custom
            }
        }
        let name = object.string("name") ?? {
            switch (sourceName, destinationName) {
            case (let s?, let d?): return s + "To" + d
            case (nil, let d?): return "Add" + d
            case (let s?, nil): return "Remove" + s
            case (nil, nil): return "Mapping\(object.id)"
            }
        }()
        var mapping = EntityMapping(name: name, mappingType: type, sourceEntityName: sourceName, destinationEntityName: destinationName,
                                    attributeMappings: [], relationshipMappings: [])
        mapping.entityMigrationPolicyClassName = policy
        return mapping
    }

    /// The destination property a property mapping names, which `entity` must have.
    func propertyName(of object: Object, in entity: EntityDescription, relationship: Bool) throws -> String {
        guard let name = object.string("name") else {
            throw failure("a property mapping of \(entity.name) has no name", line: object.line)
        }
        let property = entity.propertiesByName[name]
        guard relationship ? property is RelationshipDescription : property is AttributeDescription else {
            throw failure("\(entity.name) in the destination model has no \(relationship ? "relationship" : "attribute") \(name)", line: object.line(of: "name"))
        }
        return name
    }

    /// Throws, naming the line of `attribute`, when `expression` follows a key from `$source`
    /// that the source entity's objects do not have.
    func checkSourcePaths(of expression: Expression?, _ object: Object, _ attribute: String, _ sourceEntity: EntityDescription?) throws {
        guard let sourceEntity else { return }
        for path in MappingModel.sourcePaths(in: expression) {
            if let problem = MappingModel.keyPathProblem(path, from: sourceEntity) {
                throw failure("the value of \(object.string("name") ?? object.id) follows $source.\(path): \(problem) in the source model",
                              line: object.line(of: attribute))
            }
        }
    }

    /// The value expression Xcode archived in a property mapping, if any.
    func archivedExpression(of object: Object) throws -> Expression? {
        guard let text = object.attributes["valueexpressiondata"]?.text else { return nil }
        let line = object.line(of: "valueexpressiondata")
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw failure("the value expression of \(object.string("name") ?? object.id) is not base64", line: line)
        }
        do {
            return try ArchivedExpression.expression(from: data)
        } catch {
            throw failure("the value expression of \(object.string("name") ?? object.id): \(error.message)", line: line)
        }
    }

    /// A relationship mapping's expression as Xcode generates it: the objects `sourcemappingname`
    /// made from the objects at `sourcekeypath` (by default the source's relationship of the
    /// same name, and the mapping of its destination entity).
    func generatedExpression(of object: Object, property: String, sourceEntity: EntityDescription?, autogenerates: Bool,
                             mappingNames: Set<String>, heads: [EntityMapping]) throws -> Expression? {
        let manager = Expression.variable(MigrationManager.managerVariable)
        if let keyPath = object.string("sourcekeypath") {
            let sources: Expression
            do {
                sources = try Expression(format: keyPath)
            } catch {
                throw failure("the source key path \(keyPath) of \(property): \(error)", line: object.line(of: "sourcekeypath"))
            }
            guard let mappingName = object.string("sourcemappingname") else {
                return .method(manager, MigrationManager.destinationsOfRelationshipSelector, [.string(property), sources])
            }
            guard mappingNames.contains(mappingName) else {
                throw failure("\(property) takes the objects of entity mapping \(mappingName), which the file does not have", line: object.line(of: "sourcemappingname"))
            }
            return .method(manager, MigrationManager.destinationsOfMappingSelector, [.string(mappingName), sources])
        }
        guard autogenerates, let sourceRelationship = sourceEntity?.relationshipsByName[property] else { return nil }
        let candidates = heads.filter { $0.sourceEntityName == sourceRelationship.destinationEntityName && $0.destinationEntityName != nil }
        guard candidates.count == 1 else { return MappingModel.destinationsOfRelationship(property) }
        return .method(manager, MigrationManager.destinationsOfMappingSelector, [.string(candidates[0].name), MappingModel.sourceValue(property)])
    }
}
