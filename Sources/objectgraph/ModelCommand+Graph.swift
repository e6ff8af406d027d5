// `objectgraph model graph PATH`: the entity-relationship diagram of a model in Graphviz DOT, the
// picture Xcode's model editor draws: a box per entity listing its attributes and relationships,
// dashed inheritance edges, and one edge per relationship, or per inverse pair, with cardinality.
import ArgumentParser
import Foundation
import ObjectGraph

extension ModelCommand {
    /// Prints a model's entity-relationship diagram in Graphviz DOT.
    struct Graph: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a model's entity-relationship diagram in Graphviz DOT.",
            discussion: """
                Each entity is a node listing the attributes (`name: Type`, `?` when optional) \
                and relationships it declares; an abstract entity's name is in italics. A dashed \
                edge with an empty arrowhead goes from each parent entity to its sub-entities. \
                Each relationship is an edge to its destination, labelled with its name and \
                cardinality (`tasks (0..*)`, `owner (0..1)`, `ordered` when ordered); a to-one \
                end has a single arrowhead, a to-many end a double one. A relationship and its \
                inverse share one edge, with an arrowhead and a label at each end.

                Examples:
                  objectgraph model graph Data/Organizer.xcdatamodeld | dot -Tsvg -o Organizer.svg
                  objectgraph model graph Data/Organizer.xcdatamodeld --version Organizer > model.dot

                Exit codes: 0 drawn; 1 the model has errors (listed on standard error); 64 usage \
                error; 66 PATH or the version was not found, or PATH cannot be read or is not a model.
                """
        )

        /// The model file and version to draw.
        @OptionGroup var source: ModelVersionOptions

        /// Loads the model and prints its diagram; exits 1 or 66 when it cannot.
        func run() throws(ExitCode) {
            let model = try source.loadModel()
            print(Self.dot(for: model), terminator: "")
        }

        /// The DOT text of `model`'s diagram, named after its version.
        static func dot(for model: ManagedObjectModel) -> String {
            var lines = [
                "digraph \(quoted(model.versionName ?? "Model")) {",
                "  graph [fontname=\"Helvetica\"];",
                "  node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];",
                "  edge [fontname=\"Helvetica\", fontsize=9];",
                "",
            ]
            for entity in model.entities {
                lines.append("  \(quoted(entity.name)) [label=<\(nodeLabel(entity))>];")
            }
            lines.append("")
            for entity in model.entities {
                guard let parent = entity.parentEntityName else { continue }
                lines.append("  \(quoted(parent)) -> \(quoted(entity.name)) [dir=back, arrowtail=empty, style=dashed];")
            }
            lines.append("")
            lines += relationshipEdges(model)
            lines.append("}")
            return lines.joined(separator: "\n") + "\n"
        }

        /// One edge per relationship without an inverse, and one per inverse pair, drawn from the
        /// entity that declares the relationship met first in the model's order.
        static func relationshipEdges(_ model: ManagedObjectModel) -> [String] {
            var drawn: Set<String> = []
            var edges: [String] = []
            for entity in model.entities {
                for relationship in entity.declaredProperties.compactMap({ $0 as? RelationshipDescription }) {
                    guard drawn.insert("\(entity.name).\(relationship.name)").inserted else { continue }
                    var attributes = ["arrowhead=\(arrowhead(relationship))",
                                      "headlabel=\(quoted(endLabel(relationship)))"]
                    if let inverse = relationship.inverseRelationship, let owner = inverse.entity,
                       inverse.inverseRelationship === relationship {
                        drawn.insert("\(owner.name).\(inverse.name)")
                        attributes = ["dir=both"] + attributes + ["arrowtail=\(arrowhead(inverse))"]
                        if inverse !== relationship { attributes.append("taillabel=\(quoted(endLabel(inverse)))") }
                    }
                    edges.append("  \(quoted(entity.name)) -> \(quoted(relationship.destinationEntityName))"
                        + " [\(attributes.joined(separator: ", "))];")
                }
            }
            return edges
        }

        /// A single arrowhead for a to-one relationship, a double one for a to-many relationship.
        static func arrowhead(_ relationship: RelationshipDescription) -> String {
            relationship.isToMany ? "normalnormal" : "normal"
        }

        /// `tasks (0..*)`, `owner (1)`, `items (1..5, ordered)`: the name and cardinality shown
        /// at the destination end of a relationship's edge.
        static func endLabel(_ relationship: RelationshipDescription) -> String {
            var cardinality: String
            if relationship.isToMany {
                let lower = relationship.isOptional ? 0 : max(relationship.minCount, 1)
                let upper = relationship.maxCount == 0 ? "*" : String(relationship.maxCount)
                cardinality = "\(lower)..\(upper)"
                if relationship.isOrdered { cardinality += ", ordered" }
            } else {
                cardinality = relationship.isOptional ? "0..1" : "1"
            }
            return "\(relationship.name) (\(cardinality))"
        }

        /// The HTML-like label of an entity's node: its name, then its declared attributes and
        /// relationships, one section each.
        static func nodeLabel(_ entity: EntityDescription) -> String {
            var title = "<B>\(escapedHTML(entity.name))</B>"
            if entity.isAbstract { title = "<I>\(title)</I>" }
            var rows = ["<TR><TD BGCOLOR=\"#dde5f0\">\(title)</TD></TR>"]
            let attributes = entity.declaredProperties.compactMap { $0 as? AttributeDescription }.map { attribute in
                let type = attribute.compositeName ?? attribute.attributeType.xcodeName
                return "\(attribute.name): \(type)\(attribute.isOptional ? "?" : "")"
            }
            let relationships = entity.declaredProperties.compactMap { $0 as? RelationshipDescription }.map { relationship in
                "\(relationship.name) \u{2192} \(relationship.destinationEntityName)"
            }
            for section in [attributes, relationships] where !section.isEmpty {
                let cell = section.map(escapedHTML).joined(separator: "<BR/>")
                rows.append("<TR><TD ALIGN=\"LEFT\" BALIGN=\"LEFT\">\(cell)</TD></TR>")
            }
            return "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\">"
                + rows.joined() + "</TABLE>"
        }

        /// A DOT double-quoted string.
        static func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }

        /// Text made safe inside an HTML-like label.
        static func escapedHTML(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
    }
}
