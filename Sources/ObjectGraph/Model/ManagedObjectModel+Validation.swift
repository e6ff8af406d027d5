// Validating a model as a whole: names unique, parents and destinations exist, inverses point
// back, references from configurations, templates, constraints and indexes resolve. Every issue
// is collected, so one run reports all the problems of a model, each with its file and line.

extension ManagedObjectModel {
    /// Every problem of the model, errors and warnings, in the model's order.
    ///
    /// ```swift
    /// for issue in model.validate() where issue.severity == .error { print(issue) }
    /// ```
    public func validate() -> [ModelIssue] {
        var issues: [ModelIssue] = []
        var entityByName: [String: EntityDescription] = [:]
        for entity in entities {
            if let first = entityByName[entity.name] {
                let firstPlace = first.sourceLocation.map { " (first declared at line \($0.line))" } ?? ""
                issues.append(ModelIssue(.error, .duplicateEntity, "entity \"\(entity.name)\" is declared twice\(firstPlace)",
                                         location: entity.sourceLocation, entity: entity.name))
            } else {
                entityByName[entity.name] = entity
            }
        }
        for entity in entities {
            validateInheritance(of: entity, entityByName: entityByName, into: &issues)
            validateProperties(of: entity, entityByName: entityByName, into: &issues)
            validateReferences(of: entity, into: &issues)
        }
        var configurationNames: [String: ModelConfiguration] = [:]
        for configuration in configurations {
            if let first = configurationNames[configuration.name] {
                issues.append(duplicate("configuration", configuration.name, first.sourceLocation, at: configuration.sourceLocation))
            } else {
                configurationNames[configuration.name] = configuration
            }
            for member in configuration.entityNames where entityByName[member] == nil {
                issues.append(ModelIssue(.error, .unknownEntityReference,
                                         "configuration \"\(configuration.name)\" names entity \"\(member)\", which does not exist",
                                         location: configuration.memberLocations[member] ?? configuration.sourceLocation))
            }
        }
        var templateNames: [String: FetchRequestTemplate] = [:]
        for template in fetchRequestTemplates {
            if let first = templateNames[template.name] {
                issues.append(duplicate("fetch request", template.name, first.sourceLocation, at: template.sourceLocation))
            } else {
                templateNames[template.name] = template
            }
            if entityByName[template.entityName] == nil {
                issues.append(ModelIssue(.error, .unknownEntityReference,
                                         "fetch request \"\(template.name)\" fetches entity \"\(template.entityName)\", which does not exist",
                                         location: template.sourceLocation))
            }
            if let problem = Self.predicateProblem(template.predicateFormat) {
                issues.append(ModelIssue(.error, .invalidPredicate, "fetch request \"\(template.name)\": \(problem)",
                                         location: template.sourceLocation))
            }
        }
        for composite in compositeTypes {
            for attribute in composite.attributes {
                validateAttribute(attribute, entityName: composite.name, into: &issues)
            }
        }
        return issues
    }

    /// What is wrong with a model's predicate text (nil when it parses or there is none). Variables
    /// stay unsubstituted: templates take `$NAME`, fetched properties `$FETCH_SOURCE`.
    static func predicateProblem(_ format: String?) -> String? {
        guard let format, !format.isEmpty else { return nil }
        do {
            _ = try Predicate(format: format)
            return nil
        } catch {
            return "the predicate \"\(format)\" does not parse: \(error)"
        }
    }

    private func duplicate(_ kind: String, _ name: String, _ first: ModelSourceLocation?, at location: ModelSourceLocation?,
                           entity: String? = nil) -> ModelIssue {
        let firstPlace = first.map { " (first declared at line \($0.line))" } ?? ""
        return ModelIssue(.error, .duplicateName, "\(kind) \"\(name)\" is declared twice\(firstPlace)", location: location, entity: entity)
    }

    /// Whether the model has no errors (warnings allowed).
    public var isValid: Bool { !validate().contains { $0.severity == .error } }

    private func validateInheritance(of entity: EntityDescription, entityByName: [String: EntityDescription],
                                     into issues: inout [ModelIssue]) {
        guard let parentName = entity.parentEntityName else { return }
        guard entityByName[parentName] != nil else {
            issues.append(ModelIssue(.error, .unknownParentEntity, "parent entity \"\(parentName)\" does not exist",
                                     location: entity.sourceLocation, entity: entity.name))
            return
        }
        var seen: Set<String> = [entity.name]
        var current = parentName
        while let parent = entityByName[current] {
            guard seen.insert(parent.name).inserted else {
                // Back at this entity: it is in the cycle. Elsewhere: the cycle is above it.
                let message = parent.name == entity.name ? "inherits from itself through \"\(parentName)\""
                    : "its ancestor \"\(parent.name)\" is in an inheritance cycle"
                issues.append(ModelIssue(.error, .inheritanceCycle, message, location: entity.sourceLocation, entity: entity.name))
                return
            }
            guard let next = parent.parentEntityName else { return }
            current = next
        }
    }

    private func validateProperties(of entity: EntityDescription, entityByName: [String: EntityDescription],
                                    into issues: inout [ModelIssue]) {
        var declared: [String: PropertyDescription] = [:]
        let inherited = Dictionary(entity.ancestors.reversed().flatMap(\.declaredProperties).map { ($0.name, $0) },
                                   uniquingKeysWith: { first, _ in first })
        for property in entity.declaredProperties {
            if declared[property.name] != nil {
                issues.append(ModelIssue(.error, .duplicateProperty, "property \"\(property.name)\" is declared twice",
                                         location: property.sourceLocation ?? entity.sourceLocation,
                                         entity: entity.name, property: property.name))
            } else if let original = inherited[property.name] {
                issues.append(ModelIssue(.error, .redeclaredInheritedProperty,
                                         "redeclares \"\(property.name)\", inherited from \(original.entity?.name ?? "a parent entity")",
                                         location: property.sourceLocation ?? entity.sourceLocation,
                                         entity: entity.name, property: property.name))
            }
            declared[property.name] = declared[property.name] ?? property
            switch property {
            case let attribute as AttributeDescription:
                validateAttribute(attribute, entityName: entity.name, into: &issues)
                validateDerivation(of: attribute, in: entity, entityByName: entityByName, into: &issues)
            case let relationship as RelationshipDescription:
                validateRelationship(relationship, of: entity, entityByName: entityByName, into: &issues)
            case let fetched as FetchedPropertyDescription:
                if entityByName[fetched.fetchRequest.entityName] == nil {
                    issues.append(ModelIssue(.error, .unknownEntityReference,
                                             "fetches entity \"\(fetched.fetchRequest.entityName)\", which does not exist",
                                             location: fetched.sourceLocation, entity: entity.name, property: fetched.name))
                }
                if let problem = Self.predicateProblem(fetched.fetchRequest.predicateFormat) {
                    issues.append(ModelIssue(.error, .invalidPredicate, problem,
                                             location: fetched.fetchRequest.sourceLocation ?? fetched.sourceLocation,
                                             entity: entity.name, property: fetched.name))
                }
            default:
                break
            }
        }
    }

    private func validateAttribute(_ attribute: AttributeDescription, entityName: String, into issues: inout [ModelIssue]) {
        for rule in attribute.validationPredicates {
            if let problem = Self.predicateProblem(rule.predicateFormat) {
                issues.append(ModelIssue(.error, .invalidPredicate, "validation rule: \(problem)",
                                         location: attribute.sourceLocation, entity: entityName, property: attribute.name))
            }
        }
        if attribute.attributeType == .undefined && !attribute.isTransient {
            issues.append(ModelIssue(.error, .missingAttributeType,
                                     "has no type; only transient attributes may be Undefined",
                                     location: attribute.sourceLocation, entity: entityName, property: attribute.name))
        }
        if attribute.attributeType == .composite {
            if let name = attribute.compositeName {
                if compositeType(named: name) == nil {
                    issues.append(ModelIssue(.error, .unknownComposite, "composite type \"\(name)\" does not exist",
                                             location: attribute.sourceLocation, entity: entityName, property: attribute.name))
                }
            } else {
                issues.append(ModelIssue(.error, .unknownComposite, "is Composite but names no composite type",
                                         location: attribute.sourceLocation, entity: entityName, property: attribute.name))
            }
        }
        if attribute.isDerived && (attribute.derivationExpression ?? "").isEmpty {
            issues.append(ModelIssue(.error, .invalidValue, "is derived but has no derivation expression",
                                     location: attribute.sourceLocation, entity: entityName, property: attribute.name))
        }
        if let minimum = attribute.minimumValue, let maximum = attribute.maximumValue, minimum > maximum {
            issues.append(ModelIssue(.error, .invalidValue, "minimum \(minimum) is greater than maximum \(maximum)",
                                     location: attribute.sourceLocation, entity: entityName, property: attribute.name))
        }
    }

    /// A derived attribute's derivation must be one the stores compute (``Derivation``), over
    /// properties that exist. An empty expression is reported by `validateAttribute`.
    private func validateDerivation(of attribute: AttributeDescription, in entity: EntityDescription,
                                    entityByName: [String: EntityDescription], into issues: inout [ModelIssue]) {
        guard attribute.isDerived, !(attribute.derivationExpression ?? "").isEmpty else { return }
        do {
            _ = try Derivation.of(attribute, in: entity) { entityByName[$0] }
        } catch {
            issues.append(ModelIssue(.error, .unsupportedDerivation, error.description,
                                     location: attribute.sourceLocation ?? entity.sourceLocation,
                                     entity: entity.name, property: attribute.name))
        }
    }

    private func validateRelationship(_ relationship: RelationshipDescription, of entity: EntityDescription,
                                      entityByName: [String: EntityDescription], into issues: inout [ModelIssue]) {
        let place = relationship.sourceLocation ?? entity.sourceLocation
        if relationship.isToMany, relationship.maxCount > 0, relationship.minCount > relationship.maxCount {
            issues.append(ModelIssue(.error, .invalidCount,
                                     "minimum count \(relationship.minCount) is greater than maximum count \(relationship.maxCount)",
                                     location: place, entity: entity.name, property: relationship.name))
        }
        guard let destination = entityByName[relationship.destinationEntityName] else {
            issues.append(ModelIssue(.error, .unknownDestinationEntity,
                                     "destination entity \"\(relationship.destinationEntityName)\" does not exist",
                                     location: place, entity: entity.name, property: relationship.name))
            return
        }
        guard let inverseName = relationship.inverseName else {
            // Xcode warns too: without an inverse, deleting the destination leaves a dangling
            // reference that the framework cannot nullify.
            if !relationship.isTransient {
                issues.append(ModelIssue(.warning, .missingInverse, "has no inverse relationship",
                                         location: place, entity: entity.name, property: relationship.name))
            }
            return
        }
        let inverseOwnerName = relationship.inverseEntityName ?? destination.name
        guard let inverseOwner = entityByName[inverseOwnerName] else {
            issues.append(ModelIssue(.error, .unknownEntityReference,
                                     "inverse entity \"\(inverseOwnerName)\" does not exist",
                                     location: place, entity: entity.name, property: relationship.name))
            return
        }
        guard let inverse = inverseOwner.relationshipsByName[inverseName] else {
            issues.append(ModelIssue(.error, .unknownInverse,
                                     "inverse relationship \"\(inverseOwnerName).\(inverseName)\" does not exist",
                                     location: place, entity: entity.name, property: relationship.name))
            return
        }
        let inverseDestination = entityByName[inverse.destinationEntityName]
        let pointsAtThisEntity = inverseDestination.map { entity.isKind(of: $0) || $0.isKind(of: entity) } ?? false
        if !pointsAtThisEntity || (inverse.inverseName != nil && inverse.inverseName != relationship.name) {
            let back = inverse.inverseName.map { "\"\(inverse.destinationEntityName).\($0)\"" } ?? "nothing"
            issues.append(ModelIssue(.error, .inverseMismatch,
                                     "inverse \"\(inverseOwnerName).\(inverseName)\" does not point back (its inverse is \(back))",
                                     location: place, entity: entity.name, property: relationship.name))
        }
    }

    private func validateReferences(of entity: EntityDescription, into issues: inout [ModelIssue]) {
        let names = Set(entity.properties.map(\.name))
        for (position, constraint) in entity.declaredUniquenessConstraints.enumerated() {
            for name in constraint where !names.contains(name) {
                issues.append(ModelIssue(.error, .unknownPropertyReference,
                                         "uniqueness constraint names \"\(name)\", which is not a property of \(entity.name)",
                                         location: entity.uniquenessConstraintLocations[position]?[name] ?? entity.sourceLocation,
                                         entity: entity.name))
            }
        }
        var indexNames: [String: FetchIndexDescription] = [:]
        for index in entity.fetchIndexes {
            if let first = indexNames[index.name] {
                issues.append(duplicate("fetch index", index.name, first.sourceLocation, at: index.sourceLocation, entity: entity.name))
            } else {
                indexNames[index.name] = index
            }
            for (position, element) in index.elements.enumerated() {
                if let name = element.propertyName, !names.contains(name) {
                    let place = position < index.elementLocations.count ? index.elementLocations[position] : nil
                    issues.append(ModelIssue(.error, .unknownPropertyReference,
                                             "fetch index \"\(index.name)\" names \"\(name)\", which is not a property of \(entity.name)",
                                             location: place ?? index.sourceLocation ?? entity.sourceLocation, entity: entity.name))
                }
            }
        }
        for index in entity.compoundIndexes {
            for name in index where !names.contains(name) {
                issues.append(ModelIssue(.error, .unknownPropertyReference,
                                         "compound index names \"\(name)\", which is not a property of \(entity.name)",
                                         location: entity.sourceLocation, entity: entity.name))
            }
        }
    }
}
