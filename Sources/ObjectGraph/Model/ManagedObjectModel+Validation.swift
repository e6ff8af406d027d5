// Validating a model as a whole: names unique, parents and destinations exist, inverses point
// back, bounds and patterns can hold a value, references from configurations, templates,
// constraints and indexes resolve. Every issue is collected, so one run reports all the problems
// of a model, each with its file and line.
import Foundation

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
            if template.entityName.isEmpty {
                issues.append(ModelIssue(.error, .unknownEntityReference, "fetch request \"\(template.name)\" names no entity",
                                         location: template.sourceLocation))
            } else if entityByName[template.entityName] == nil {
                issues.append(ModelIssue(.error, .unknownEntityReference,
                                         "fetch request \"\(template.name)\" fetches entity \"\(template.entityName)\", which does not exist",
                                         location: template.sourceLocation))
            }
            if let problem = Self.predicateProblem(template.predicateFormat) {
                issues.append(ModelIssue(.error, .invalidPredicate, "fetch request \"\(template.name)\": \(problem)",
                                         location: template.sourceLocation))
            }
        }
        var compositeNames: [String: CompositeTypeDescription] = [:]
        for composite in compositeTypes {
            if let first = compositeNames[composite.name] {
                issues.append(duplicate("composite type", composite.name, first.sourceLocation, at: composite.sourceLocation))
            } else {
                compositeNames[composite.name] = composite
            }
            var declared: Set<String> = []
            for attribute in composite.attributes {
                if !declared.insert(attribute.name).inserted {
                    issues.append(duplicateProperty(attribute, of: composite.name, declaredAt: composite.sourceLocation))
                }
                validateAttribute(attribute, entityName: composite.name, into: &issues)
            }
        }
        return issues
    }

    /// What is wrong with a model's predicate text (nil when it parses or there is none), in one
    /// line: the position in words, not the caret display of ``PredicateError/description``.
    /// Variables stay unsubstituted: templates take `$NAME`, fetched properties `$FETCH_SOURCE`.
    static func predicateProblem(_ format: String?) -> String? {
        guard let format, !format.isEmpty else { return nil }
        do {
            _ = try Predicate(format: format)
            return nil
        } catch {
            let reason = (error as? PredicateError).map { error in
                error.message + (error.offset.map { " at character \($0)" } ?? "")
            } ?? "\(error)"
            return "the predicate \(ConstantValue.quoted(format)) does not parse: \(reason)"
        }
    }

    private func duplicate(_ kind: String, _ name: String, _ first: ModelSourceLocation?, at location: ModelSourceLocation?,
                           entity: String? = nil) -> ModelIssue {
        let firstPlace = first.map { " (first declared at line \($0.line))" } ?? ""
        return ModelIssue(.error, .duplicateName, "\(kind) \"\(name)\" is declared twice\(firstPlace)", location: location, entity: entity)
    }

    /// The error for a second property of one name in an entity or a composite type (`owner`),
    /// at the second declaration.
    private func duplicateProperty(_ property: PropertyDescription, of owner: String,
                                   declaredAt ownerLocation: ModelSourceLocation?) -> ModelIssue {
        ModelIssue(.error, .duplicateProperty, "property \"\(property.name)\" is declared twice",
                   location: property.sourceLocation ?? ownerLocation, entity: owner, property: property.name)
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
                issues.append(duplicateProperty(property, of: entity.name, declaredAt: entity.sourceLocation))
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
                if fetched.fetchRequest.entityName.isEmpty {
                    issues.append(ModelIssue(.error, .unknownEntityReference, "its fetch request names no entity",
                                             location: fetched.fetchRequest.sourceLocation ?? fetched.sourceLocation,
                                             entity: entity.name, property: fetched.name))
                } else if entityByName[fetched.fetchRequest.entityName] == nil {
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
        if let earliest = attribute.minimumDate, let latest = attribute.maximumDate, earliest > latest {
            issues.append(ModelIssue(.error, .invalidValue,
                                     "earliest date \(Self.dateText(earliest)) is after latest date \(Self.dateText(latest))",
                                     location: attribute.sourceLocation, entity: entityName, property: attribute.name))
        }
        // Compiled as the save-time rule compiles it (PropertyRules), so that a pattern accepted
        // here is one every save can check.
        if let pattern = attribute.regularExpression, (try? ValueComparison.compileRegex(pattern, [])) == nil {
            issues.append(ModelIssue(.error, .invalidValue,
                                     "the regular expression \(ConstantValue.quoted(pattern)) is not valid",
                                     location: attribute.sourceLocation, entity: entityName, property: attribute.name))
        }
    }

    /// A date bound in ISO 8601, UTC, with the fraction of a second when it has one.
    private static func dateText(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        return date.formatted(seconds.rounded(.down) == seconds ? .iso8601 : Date.ISO8601FormatStyle(includingFractionalSeconds: true))
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
        if !relationship.isToMany, relationship.minCount > 1 {
            issues.append(ModelIssue(.error, .invalidCount,
                                     "minimum count \(relationship.minCount) for a to-one relationship, which holds one object at most",
                                     location: place, entity: entity.name, property: relationship.name))
        }
        guard !relationship.destinationEntityName.isEmpty else {
            issues.append(ModelIssue(.error, .unknownDestinationEntity, "has no destination entity",
                                     location: place, entity: entity.name, property: relationship.name))
            return
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
        // An inverse must name this relationship back: with no inverse of its own, graph upkeep
        // would run one way only (setting this side sets the other, not the reverse).
        if !pointsAtThisEntity || inverse.inverseName != relationship.name {
            let back = inverse.inverseName.map { "\"\(inverse.destinationEntityName).\($0)\"" } ?? "nothing"
            issues.append(ModelIssue(.error, .inverseMismatch,
                                     "inverse \"\(inverseOwnerName).\(inverseName)\" does not point back (its inverse is \(back))",
                                     location: place, entity: entity.name, property: relationship.name))
        }
    }

    private func validateReferences(of entity: EntityDescription, into issues: inout [ModelIssue]) {
        let names = Set(entity.properties.map(\.name))
        for (position, constraint) in entity.declaredUniquenessConstraints.enumerated() {
            for name in constraint {
                let place = entity.uniquenessConstraintLocations[position]?[name] ?? entity.sourceLocation
                guard let property = entity.propertiesByName[name] else {
                    issues.append(ModelIssue(.error, .unknownPropertyReference,
                                             "uniqueness constraint names \"\(name)\", which is not a property of \(entity.name)",
                                             location: place, entity: entity.name))
                    continue
                }
                if let kind = Self.unconstrainableKind(of: property) {
                    issues.append(ModelIssue(.error, .unsupportedConstraint,
                                             "uniqueness constraint names \"\(name)\", \(kind); a constraint takes stored "
                                                + "attributes and to-one relationships",
                                             location: place, entity: entity.name))
                }
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
        for (position, index) in entity.compoundIndexes.enumerated() {
            for name in index where !names.contains(name) {
                issues.append(ModelIssue(.error, .unknownPropertyReference,
                                         "compound index names \"\(name)\", which is not a property of \(entity.name)",
                                         location: entity.compoundIndexLocations[position]?[name] ?? entity.sourceLocation,
                                         entity: entity.name))
            }
        }
    }

    /// What `property` is when it has no stored value a uniqueness constraint could compare (as
    /// in Core Data, constraints name attributes and to-one relationships); nil when it has one.
    private static func unconstrainableKind(of property: PropertyDescription) -> String? {
        switch property {
        case is FetchedPropertyDescription: "a fetched property"
        case let relationship as RelationshipDescription where relationship.isToMany: "a to-many relationship"
        case is RelationshipDescription where property.isTransient: "a transient relationship"
        case _ where property.isTransient: "a transient attribute"
        default: nil
        }
    }
}
