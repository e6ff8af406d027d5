// Turns the XML of an Xcode model file (`.xcdatamodel/contents`) into a ManagedObjectModel. It
// reads every element and attribute Xcode writes (legacy ones included), is lenient where Xcode
// is (`defaultValueString="NO"` on an integer reads as 0, with a warning), and records the line
// of each element so that validation can name it. Cross-references are checked by validate().
import Foundation

enum ModelFileReader {
    /// Reads `data` and validates the model, so that a file's reading and model problems come
    /// back together (an unknown attribute type is reported once, not again as a missing one).
    static func readAndValidate(_ data: Data, path: String) -> ModelFile.ReadResult {
        var result = read(data, path: path)
        guard let model = result.model else { return result }
        let reported = Set(result.issues.filter { $0.kind == .unknownAttributeType }.map { "\($0.entity ?? "").\($0.property ?? "")" })
        result.issues += model.validate().filter {
            !($0.kind == .missingAttributeType && reported.contains("\($0.entity ?? "").\($0.property ?? "")"))
        }
        return result
    }

    /// Reads `data`; the model is nil only when the XML itself is unreadable.
    static func read(_ data: Data, path: String) -> ModelFile.ReadResult {
        let root: XMLTreeElement
        do {
            root = try XMLTree.parse(data, path: path)
        } catch {
            let issue = ModelIssue(.error, .malformedXML, "malformed XML: \(error.message)",
                                   location: ModelSourceLocation(file: path, line: error.line, column: error.column))
            return ModelFile.ReadResult(model: nil, issues: [issue], path: path)
        }
        guard root.name == "model" else {
            // Another kind of XML document (a property list, say): not a model with an error.
            let issue = ModelIssue(.error, .notAModel, "the root element is <\(root.name)>, expected <model>",
                                   location: ModelSourceLocation(file: path, line: root.line))
            return ModelFile.ReadResult(model: nil, issues: [issue], path: path)
        }
        var reader = Reader(path: path)
        let model = reader.model(from: root)
        return ModelFile.ReadResult(model: model, issues: reader.issues, path: path)
    }

    private struct Reader {
        let path: String
        var issues: [ModelIssue] = []

        init(path: String) { self.path = path }

        func location(_ element: XMLTreeElement) -> ModelSourceLocation {
            ModelSourceLocation(file: path, line: element.line)
        }

        mutating func report(_ severity: ModelIssue.Severity, _ kind: ModelIssue.Kind, _ message: String,
                             at element: XMLTreeElement, entity: String? = nil, property: String? = nil) {
            issues.append(ModelIssue(severity, kind, message, location: location(element), entity: entity, property: property))
        }

        /// The attribute `name` of `element`, reporting it when it is missing.
        mutating func required(_ name: String, of element: XMLTreeElement, entity: String? = nil) -> String {
            if let value = element[attribute: name], !value.isEmpty { return value }
            report(.error, .missingElement, "<\(element.name)> has no \(name)", at: element, entity: entity)
            return ""
        }

        // MARK: Model

        mutating func model(from root: XMLTreeElement) -> ManagedObjectModel {
            let model = ManagedObjectModel()
            guard root.name == "model" else {
                report(.error, .missingElement, "the root element is <\(root.name)>, expected <model>", at: root)
                return model
            }
            var info = ModelDocumentInfo()
            info.documentVersion = root[attribute: "documentVersion"] ?? info.documentVersion
            info.lastSavedToolsVersion = root[attribute: "lastSavedToolsVersion"]
            info.systemVersion = root[attribute: "systemVersion"]
            info.minimumToolsVersion = root[attribute: "minimumToolsVersion"] ?? info.minimumToolsVersion
            info.sourceLanguage = root[attribute: "sourceLanguage"]
            info.usedWithCloudKit = flag(root[attribute: "usedWithCloudKit"])
            info.usedWithSwiftData = flag(root[attribute: "usedWithSwiftData"])
            model.documentInfo = info
            if let identifier = root[attribute: "userDefinedModelVersionIdentifier"], !identifier.isEmpty {
                model.versionIdentifiers = [identifier]
            }
            var entities: [EntityDescription] = []
            for child in root.children {
                switch child.name {
                case "entity": entities.append(entity(from: child))
                case "composite": model.compositeTypes.append(composite(from: child))
                case "fetchRequest": model.fetchRequestTemplates.append(fetchRequest(from: child, entity: nil))
                case "configuration": model.configurations.append(configuration(from: child))
                case "elements": break  // the diagram's layout: positions of boxes, not data
                default:
                    report(.warning, .invalidValue, "unknown element <\(child.name)> ignored", at: child)
                }
            }
            model.entities = entities
            return model
        }

        mutating func configuration(from element: XMLTreeElement) -> ModelConfiguration {
            let memberElements = element.children(named: "memberEntity")
            let members = memberElements.map { $0[attribute: "name"] ?? "" }
            var configuration = ModelConfiguration(name: required("name", of: element), entityNames: members,
                                                   usedWithCloudKit: flag(element[attribute: "usedWithCloudKit"]))
            configuration.sourceLocation = location(element)
            for (member, name) in zip(memberElements, members) where configuration.memberLocations[name] == nil {
                configuration.memberLocations[name] = location(member)
            }
            return configuration
        }

        mutating func fetchRequest(from element: XMLTreeElement, entity: String?) -> FetchRequestTemplate {
            // A missing entity is left to validate(), which names the template or fetched property.
            var template = FetchRequestTemplate(name: element[attribute: "name"] ?? "",
                                                entityName: element[attribute: "entity"] ?? "",
                                                predicateFormat: element[attribute: "predicateString"])
            if template.name.isEmpty && entity == nil {
                report(.error, .missingElement, "<fetchRequest> has no name", at: element)
            }
            // Numbers, reported where they are not (a template's named by its name).
            let owner = entity == nil ? template.name : nil
            template.fetchLimit = count(element, "fetchLimit", entity: entity, property: owner) ?? 0
            template.fetchBatchSize = count(element, "fetchBatchSize", entity: entity, property: owner) ?? 0
            template.resultType = count(element, "resultType", entity: entity, property: owner) ?? 0
            // Sources disagree on the flags' spellings; every known spelling is accepted.
            func option(_ spellings: String..., default value: Bool) -> Bool {
                for spelling in spellings { if let text = element[attribute: spelling] { return flag(text) } }
                return value
            }
            template.includesSubentities = option("includesSubentities", "includeSubentities", default: true)
            template.includesPropertyValues = option("includesPropertyValues", "includePropertyValues", default: true)
            template.returnsObjectsAsFaults = option("returnsObjectsAsFaults", "returnObjectsAsFaults", default: true)
            template.includesPendingChanges = option("includesPendingChanges", "includePendingChanges", default: true)
            template.returnsDistinctResults = option("returnsDistinctResults", "returnDistinctResults", default: false)
            template.sourceLocation = location(element)
            return template
        }

        mutating func composite(from element: XMLTreeElement) -> CompositeTypeDescription {
            let name = required("name", of: element)
            let composite = CompositeTypeDescription(name: name)
            composite.attributes = element.children(named: "attribute").map { attribute(from: $0, entity: name) }
            composite.sourceLocation = location(element)
            return composite
        }

        // MARK: Entities

        mutating func entity(from element: XMLTreeElement) -> EntityDescription {
            let name = required("name", of: element)
            let entity = EntityDescription(name: name, managedObjectClassName: element[attribute: "representedClassName"],
                                           parent: element[attribute: "parentEntity"],
                                           isAbstract: flag(element[attribute: "isAbstract"]))
            entity.renamingIdentifier = element[attribute: "elementID"]
            entity.versionHashModifier = element[attribute: "versionHashModifier"]
            entity.codeGenerationType = element[attribute: "codeGenerationType"]
            entity.sourceLocation = location(element)
            var properties: [PropertyDescription] = []
            for child in element.children {
                switch child.name {
                case "attribute": properties.append(attribute(from: child, entity: name))
                case "relationship": properties.append(relationship(from: child, entity: name))
                case "fetchedProperty": properties.append(fetchedProperty(from: child, entity: name))
                case "fetchIndex": entity.fetchIndexes.append(fetchIndex(from: child, entity: name))
                case "compoundIndexes":
                    for index in child.children(named: "compoundIndex") {
                        let (names, locations) = propertyNames(in: index, named: "index")
                        entity.compoundIndexLocations[entity.compoundIndexes.count] = locations
                        entity.compoundIndexes.append(names)
                    }
                case "uniquenessConstraints":
                    for constraint in child.children(named: "uniquenessConstraint") {
                        let (names, locations) = propertyNames(in: constraint, named: "constraint")
                        guard !names.isEmpty else {
                            report(.error, .missingElement, "a uniqueness constraint names no property", at: constraint, entity: name)
                            continue
                        }
                        entity.uniquenessConstraintLocations[entity.declaredUniquenessConstraints.count] = locations
                        entity.declaredUniquenessConstraints.append(names)
                    }
                case "userInfo": entity.userInfo = userInfo(from: child)
                default:
                    report(.warning, .invalidValue, "unknown element <\(child.name)> ignored", at: child, entity: name)
                }
            }
            entity.declaredProperties = properties
            return entity
        }

        /// The property names of a compound index or a uniqueness constraint (the `value` of each
        /// child element named `name`), with the line where each name first appears.
        func propertyNames(in element: XMLTreeElement, named name: String) -> ([String], [String: ModelSourceLocation]) {
            var names: [String] = []
            var locations: [String: ModelSourceLocation] = [:]
            for child in element.children(named: name) {
                guard let value = child[attribute: "value"] else { continue }
                names.append(value)
                if locations[value] == nil { locations[value] = location(child) }
            }
            return (names, locations)
        }

        mutating func fetchIndex(from element: XMLTreeElement, entity: String) -> FetchIndexDescription {
            var elements: [FetchIndexElement] = []
            var elementLocations: [ModelSourceLocation?] = []
            for child in element.children(named: "fetchIndexElement") {
                let ascending = (child[attribute: "order"] ?? "ascending") != "descending"
                var type = FetchIndexElement.IndexType.binary
                if let text = child[attribute: "type"] {
                    if let known = FetchIndexElement.IndexType(rawValue: text) {
                        type = known
                    } else {
                        report(.error, .invalidValue, "fetch index element type \"\(text)\" is not Binary or RTree",
                               at: child, entity: entity)
                    }
                }
                if let property = child[attribute: "property"] {
                    elements.append(FetchIndexElement(property: property, ascending: ascending, type: type))
                    elementLocations.append(location(child))
                } else if let expression = child[attribute: "expression"] {
                    elements.append(FetchIndexElement(expression: expression,
                                                      expressionType: child[attribute: "expressionType"] ?? "",
                                                      ascending: ascending, type: type))
                    elementLocations.append(location(child))
                } else {
                    report(.error, .missingElement, "<fetchIndexElement> has neither property nor expression",
                           at: child, entity: entity)
                }
            }
            var index = FetchIndexDescription(name: required("name", of: element, entity: entity), elements: elements)
            index.sourceLocation = location(element)
            index.elementLocations = elementLocations
            return index
        }

        // MARK: Properties

        mutating func readCommon(_ property: PropertyDescription, from element: XMLTreeElement) {
            property.renamingIdentifier = element[attribute: "elementID"]
            property.versionHashModifier = element[attribute: "versionHashModifier"]
            property.isIndexed = flag(element[attribute: "indexed"])
            property.isIndexedBySpotlight = flag(element[attribute: "spotlightIndexingEnabled"])
            property.isStoredInExternalRecord = flag(element[attribute: "storedInTruthFile"])
            property.sourceLocation = location(element)
            if let info = element.children(named: "userInfo").first { property.userInfo = userInfo(from: info) }
        }

        mutating func attribute(from element: XMLTreeElement, entity: String) -> AttributeDescription {
            let name = required("name", of: element, entity: entity)
            var type = AttributeType.undefined
            if let typeName = element[attribute: "attributeType"] {
                if let known = AttributeType(xcodeName: typeName) {
                    type = known
                } else {
                    let names = AttributeType.allCases.map(\.xcodeName).joined(separator: ", ")
                    report(.error, .unknownAttributeType, "attribute type \"\(typeName)\" is not one Xcode has (\(names))",
                           at: element, entity: entity, property: name)
                }
            }
            let attribute = AttributeDescription(name: name, type: type, isOptional: flag(element[attribute: "optional"]),
                                                 isTransient: flag(element[attribute: "transient"]))
            readCommon(attribute, from: element)
            attribute.valueTransformerName = element[attribute: "valueTransformerName"]
            attribute.attributeValueClassName = element[attribute: "customClassName"]
            attribute.usesScalarValueType = element[attribute: "usesScalarValueType"].map(flag)
            attribute.allowsExternalBinaryDataStorage = flag(element[attribute: "allowsExternalBinaryDataStorage"])
            attribute.preservesValueInHistoryOnDeletion = flag(element[attribute: "preserveAfterDeletion"])
            attribute.isDerived = flag(element[attribute: "derived"])
            attribute.derivationExpression = element[attribute: "derivationExpression"]
            attribute.compositeName = element[attribute: "composite"]
            attribute.regularExpression = element[attribute: "regularExpressionString"]
            readDefault(of: attribute, from: element, entity: entity)
            readBounds(of: attribute, from: element, entity: entity)
            for rule in element.children(named: "validationPredicate") {
                attribute.validationPredicates.append(
                    ValidationPredicate(rule[attribute: "predicateString"] ?? "", warning: rule[attribute: "warning"] ?? ""))
            }
            return attribute
        }

        mutating func readDefault(of attribute: AttributeDescription, from element: XMLTreeElement, entity: String) {
            if attribute.attributeType == .date, let interval = element[attribute: "defaultDateTimeInterval"] {
                if let seconds = Double(interval) {
                    attribute.defaultValue = Date(timeIntervalSinceReferenceDate: seconds)
                } else {
                    report(.error, .invalidValue, "defaultDateTimeInterval \"\(interval)\" is not a number of seconds",
                           at: element, entity: entity, property: attribute.name)
                }
                return
            }
            guard let text = element[attribute: "defaultValueString"] else { return }
            switch AttributeValueParser.parse(text, as: attribute.attributeType) {
            case .value(let value):
                attribute.defaultValue = value
            case .lenient(let value, let note):
                attribute.defaultValue = value
                report(.warning, .invalidValue, "defaultValueString \"\(text)\" \(note)",
                       at: element, entity: entity, property: attribute.name)
            case .invalid(let reason):
                report(.error, .invalidValue, "defaultValueString \"\(text)\" \(reason)",
                       at: element, entity: entity, property: attribute.name)
            }
        }

        mutating func readBounds(of attribute: AttributeDescription, from element: XMLTreeElement, entity: String) {
            if attribute.attributeType == .date {
                // Dates carry their bounds in seconds; minValueString is only Xcode's display form.
                for (key, assign) in [("minDateTimeInterval", { (date: Date) in attribute.minimumDate = date }),
                                      ("maxDateTimeInterval", { (date: Date) in attribute.maximumDate = date })] {
                    guard let text = element[attribute: key] else { continue }
                    if let seconds = Double(text) {
                        assign(Date(timeIntervalSinceReferenceDate: seconds))
                    } else {
                        report(.error, .invalidValue, "\(key) \"\(text)\" is not a number of seconds",
                               at: element, entity: entity, property: attribute.name)
                    }
                }
                return
            }
            for (key, isMinimum) in [("minValueString", true), ("maxValueString", false)] {
                guard let text = element[attribute: key] else { continue }
                guard let bound = AttributeValueParser.decimal(text.trimmingCharacters(in: .whitespaces)) else {
                    report(.error, .invalidValue, "\(key) \"\(text)\" is not a number",
                           at: element, entity: entity, property: attribute.name)
                    continue
                }
                if isMinimum { attribute.minimumValue = bound } else { attribute.maximumValue = bound }
            }
        }

        mutating func relationship(from element: XMLTreeElement, entity: String) -> RelationshipDescription {
            let name = required("name", of: element, entity: entity)
            // A missing destination is left to validate(), which reports it once for every model.
            let destination = element[attribute: "destinationEntity"] ?? ""
            var rule = DeleteRule.nullify
            if let text = element[attribute: "deletionRule"] {
                if let known = DeleteRule(xcodeName: text) {
                    rule = known
                } else {
                    report(.error, .invalidValue, "deletionRule \"\(text)\" is not Nullify, Cascade, Deny or No Action",
                           at: element, entity: entity, property: name)
                }
            }
            let isToMany = flag(element[attribute: "toMany"])
            let relationship = RelationshipDescription(name: name, destination: destination,
                                                       inverse: element[attribute: "inverseName"], isToMany: isToMany,
                                                       isOptional: flag(element[attribute: "optional"]), deleteRule: rule)
            relationship.inverseEntityName = element[attribute: "inverseEntity"]
            relationship.isTransient = flag(element[attribute: "transient"])
            relationship.isOrdered = flag(element[attribute: "ordered"])
            relationship.minCount = count(element, "minCount", entity: entity, property: name) ?? 0
            relationship.maxCount = count(element, "maxCount", entity: entity, property: name) ?? (isToMany ? 0 : 1)
            readCommon(relationship, from: element)
            return relationship
        }

        mutating func count(_ element: XMLTreeElement, _ key: String, entity: String?, property: String?) -> Int? {
            guard let text = element[attribute: key] else { return nil }
            guard let value = Int(text), value >= 0 else {
                report(.error, .invalidCount, "\(key) \"\(text)\" is not a count", at: element, entity: entity, property: property)
                return nil
            }
            return value
        }

        mutating func fetchedProperty(from element: XMLTreeElement, entity: String) -> FetchedPropertyDescription {
            let name = required("name", of: element, entity: entity)
            let request: FetchRequestTemplate
            if let child = element.children(named: "fetchRequest").first {
                request = fetchRequest(from: child, entity: entity)
            } else {
                report(.error, .missingElement, "fetched property has no <fetchRequest>", at: element, entity: entity, property: name)
                request = FetchRequestTemplate(name: "fetchedPropertyFetchRequest", entityName: "")
            }
            let fetched = FetchedPropertyDescription(name: name, fetchRequest: request,
                                                     isOptional: flag(element[attribute: "optional"]))
            readCommon(fetched, from: element)
            return fetched
        }

        func userInfo(from element: XMLTreeElement) -> [String: String] {
            var info: [String: String] = [:]
            for entry in element.children(named: "entry") {
                if let key = entry[attribute: "key"] { info[key] = entry[attribute: "value"] ?? "" }
            }
            return info
        }

        func flag(_ text: String?) -> Bool {
            guard let text else { return false }
            // Xcode writes YES; a hand-edited file may say yes or True.
            return ["yes", "true", "1"].contains(text.lowercased())
        }

    }
}
