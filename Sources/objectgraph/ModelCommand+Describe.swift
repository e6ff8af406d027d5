// `objectgraph model describe PATH`: prints what a model declares, entity by entity, in a text
// form for people (this file) or a JSON form for programs (ModelCommand+DescribeJSON.swift).
// Each entity lists only the properties it declares; inherited ones appear under its parent.
import ArgumentParser
import Foundation
import ObjectGraph

extension ModelCommand {
    /// Prints the entities, properties, constraints, indexes, fetch request templates and
    /// configurations of one model version.
    struct Describe: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Describe a model's entities, properties, templates and configurations.",
            discussion: """
                The text form starts with two lines naming the version and its checksum (what a \
                staged migration's stages name versions by), then lists each entity (its parent, \
                whether it is abstract, its class), then the properties it declares: attributes \
                with their type, optionality, default value and validation rules; relationships \
                with their destination, cardinality, inverse and delete rule; fetched properties; \
                then its uniqueness constraints and fetch indexes. Fetch request templates and \
                configurations follow the entities:

                  entity Task (class Task)
                    attributes:
                      title  String, required, min length 1
                    relationships:
                      owner  -> Person (to-one, optional) inverse: tasks, delete: Nullify

                --json prints the same content as one JSON object with sorted keys, every key \
                always present (null when unset); dates are ISO 8601 strings, decimal numbers are \
                JSON numbers, binary default values are base64 strings, versionChecksum is the \
                version's checksum, and each entity carries its version hash in hex.

                Examples:
                  objectgraph model describe Data/Organizer.xcdatamodeld
                  objectgraph model describe Data/Organizer.xcdatamodeld --version Organizer --json

                Exit codes: 0 described; 1 the model has errors (listed on standard error); \
                64 usage error; 66 PATH or the version was not found, or PATH cannot be read or is not a model.
                """
        )

        /// The model file and version to describe.
        @OptionGroup var source: ModelVersionOptions

        /// Whether to print JSON rather than text.
        @Flag(help: "Print a machine-readable JSON object instead of text.")
        var json = false

        /// Loads the model and prints its description; exits 1 or 66 when it cannot.
        func run() throws(ExitCode) {
            let model = try source.loadModel()
            if json {
                print(ModelDocument(model, path: source.path).jsonText)
            } else {
                print(Self.text(describing: model, path: source.path), terminator: "")
            }
        }

        /// The text form of `model`, read from `path`.
        static func text(describing model: ManagedObjectModel, path: String) -> String {
            var lines = ["model \(path) (version \(model.versionName ?? "none")): "
                + counted(model.entities.count, "entity", plural: "entities"),
                         "version checksum \(model.versionChecksum)"]
            for entity in model.entities {
                lines.append("")
                lines += entityLines(entity)
            }
            if !model.fetchRequestTemplates.isEmpty {
                lines += ["", "fetch request templates:"]
                lines += aligned(model.fetchRequestTemplates.map { ($0.name, fetchRequestText($0)) }, indent: 2)
            }
            if !model.configurations.isEmpty {
                lines += ["", "configurations:"]
                lines += aligned(model.configurations.map { configuration in
                    let members = configuration.entityNames.isEmpty ? "no entities"
                        : configuration.entityNames.joined(separator: ", ")
                    return (configuration.name, members + (configuration.usedWithCloudKit ? " (CloudKit)" : ""))
                }, indent: 2)
            }
            if !model.compositeTypes.isEmpty {
                lines += ["", "composite types:"]
                for composite in model.compositeTypes {
                    lines.append("  \(composite.name)")
                    lines += aligned(composite.attributes.map { ($0.name, attributeText($0)) }, indent: 4)
                }
            }
            return lines.joined(separator: "\n") + "\n"
        }

        /// An entity's header and its sections; empty sections are left out.
        static func entityLines(_ entity: EntityDescription) -> [String] {
            var traits: [String] = []
            if entity.isAbstract { traits.append("abstract") }
            if let className = entity.managedObjectClassName { traits.append("class \(className)") }
            if let renamed = entity.renamingIdentifier { traits.append("renaming identifier \(renamed)") }
            if let modifier = entity.versionHashModifier { traits.append("version hash modifier \(modifier)") }
            var header = "entity \(entity.name)"
            if let parent = entity.parentEntityName { header += " : \(parent)" }
            if !traits.isEmpty { header += " (\(traits.joined(separator: ", ")))" }
            var lines = [header]
            let subentities = entity.subentities.map(\.name)
            if !subentities.isEmpty { lines.append("  subentities: \(subentities.joined(separator: ", "))") }

            let declared = entity.declaredProperties
            let attributes = declared.compactMap { $0 as? AttributeDescription }
            let relationships = declared.compactMap { $0 as? RelationshipDescription }
            let fetched = declared.compactMap { $0 as? FetchedPropertyDescription }
            if !attributes.isEmpty {
                lines.append("  attributes:")
                lines += aligned(attributes.map { ($0.name, attributeText($0)) }, indent: 4)
            }
            if !relationships.isEmpty {
                lines.append("  relationships:")
                lines += aligned(relationships.map { ($0.name, relationshipText($0)) }, indent: 4)
            }
            if !fetched.isEmpty {
                lines.append("  fetched properties:")
                lines += aligned(fetched.map { ($0.name, "-> " + fetchRequestText($0.fetchRequest)) }, indent: 4)
            }
            for constraint in entity.declaredUniquenessConstraints {
                lines.append("  unique: (\(constraint.joined(separator: ", ")))")
            }
            if !entity.fetchIndexes.isEmpty {
                lines.append("  indexes:")
                lines += aligned(entity.fetchIndexes.map { index in
                    (index.name, index.elements.map(indexElementText).joined(separator: ", "))
                }, indent: 4)
            }
            for compound in entity.compoundIndexes {
                lines.append("  compound index: (\(compound.joined(separator: ", ")))")
            }
            if !entity.userInfo.isEmpty { lines.append("  user info: \(userInfoText(entity.userInfo))") }
            return lines
        }

        /// `String, required, default "", min length 1, matches /^.+$/`.
        static func attributeText(_ attribute: AttributeDescription) -> String {
            var parts = [attribute.compositeName.map { "Composite \($0)" } ?? attribute.attributeType.xcodeName,
                         attribute.isOptional ? "optional" : "required"]
            if attribute.isTransient { parts.append("transient") }
            if let value = attribute.defaultValue { parts.append("default \(modelValueText(value))") }
            let noun = [.string, .binaryData].contains(attribute.attributeType) ? "length " : ""
            if let minimum = attribute.minimumValue { parts.append("min \(noun)\(minimum)") }
            if let maximum = attribute.maximumValue { parts.append("max \(noun)\(maximum)") }
            if let date = attribute.minimumDate { parts.append("not before \(modelDateText(date))") }
            if let date = attribute.maximumDate { parts.append("not after \(modelDateText(date))") }
            if let pattern = attribute.regularExpression { parts.append("matches /\(pattern)/") }
            for rule in attribute.validationPredicates {
                parts.append("satisfies \(rule.predicateFormat) (\(String(reflecting: rule.warning)))")
            }
            if attribute.isDerived { parts.append("derived from \(attribute.derivationExpression ?? "?")") }
            if let transformer = attribute.valueTransformerName { parts.append("transformer \(transformer)") }
            if let className = attribute.attributeValueClassName { parts.append("class \(className)") }
            if attribute.allowsExternalBinaryDataStorage { parts.append("external storage") }
            if attribute.isIndexedBySpotlight { parts.append("indexed by Spotlight") }
            parts += commonTraits(attribute)
            return parts.joined(separator: ", ")
        }

        /// `-> Task (to-many, ordered, optional, 1..5) inverse: owner, delete: Cascade`.
        static func relationshipText(_ relationship: RelationshipDescription) -> String {
            var traits = [relationship.isToMany ? "to-many" : "to-one"]
            if relationship.isToMany && relationship.isOrdered { traits.append("ordered") }
            traits.append(relationship.isOptional ? "optional" : "required")
            if relationship.isTransient { traits.append("transient") }
            if relationship.isToMany && (relationship.minCount > 0 || relationship.maxCount > 0) {
                traits.append("\(relationship.minCount)..\(relationship.maxCount == 0 ? "*" : String(relationship.maxCount))")
            }
            var parts = ["-> \(relationship.destinationEntityName) (\(traits.joined(separator: ", ")))"
                + " inverse: \(relationship.inverseName ?? "none")"]
            parts.append("delete: \(relationship.deleteRule.xcodeName)")
            parts += commonTraits(relationship)
            return parts.joined(separator: ", ")
        }

        /// What attributes and relationships share: renaming identifier, hash modifier, user info.
        static func commonTraits(_ property: PropertyDescription) -> [String] {
            var traits: [String] = []
            if let renamed = property.renamingIdentifier { traits.append("renaming identifier \(renamed)") }
            if let modifier = property.versionHashModifier { traits.append("version hash modifier \(modifier)") }
            if !property.userInfo.isEmpty { traits.append("user info \(userInfoText(property.userInfo))") }
            return traits
        }

        /// `Task where done == NO, limit 10`.
        static func fetchRequestText(_ request: FetchRequestTemplate) -> String {
            var text = request.entityName
            if let predicate = request.predicateFormat { text += " where \(predicate)" }
            if request.fetchLimit > 0 { text += ", limit \(request.fetchLimit)" }
            if request.fetchBatchSize > 0 { text += ", batch size \(request.fetchBatchSize)" }
            return text
        }

        /// `due ascending`, or `expression (Double) descending, RTree`.
        static func indexElementText(_ element: FetchIndexElement) -> String {
            var text = element.propertyName ?? element.expression.map { "\($0) (\(element.expressionType ?? "?"))" } ?? "?"
            text += element.isAscending ? " ascending" : " descending"
            if element.type != .binary { text += ", \(element.type.rawValue)" }
            return text
        }

        /// `{key = value; other = value}`, sorted by key.
        static func userInfoText(_ userInfo: [String: String]) -> String {
            "{" + userInfo.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: "; ") + "}"
        }

        /// Name-and-description rows with the descriptions lined up in one column.
        static func aligned(_ rows: [(name: String, text: String)], indent: Int) -> [String] {
            let width = rows.map(\.name.count).max() ?? 0
            let margin = String(repeating: " ", count: indent)
            return rows.map { margin + $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.text }
        }
    }
}

/// A default value as a person reads it: strings quoted, dates in ISO 8601, bytes in hex.
func modelValueText(_ value: ModelValue) -> String {
    switch value {
    case let string as String: String(reflecting: string)
    case let date as Date: modelDateText(date)
    case let data as Data: "<" + data.map { String(format: "%02x", $0) }.joined() + ">"
    case let uuid as UUID: uuid.uuidString
    case let url as URL: url.absoluteString
    default: "\(value)"
    }
}

/// A model's date (a bound or a default) in ISO 8601, UTC, with the fraction of a second when it
/// has one: Xcode stores them as seconds, `-100.5` among them.
func modelDateText(_ date: Date) -> String {
    let seconds = date.timeIntervalSinceReferenceDate
    let whole = seconds.rounded(.down) == seconds
    return date.formatted(whole ? .iso8601 : Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}
