// `search TEXT`: records whose searchable text contains every word typed, ignoring case and
// accents. Searchable means marked for the desktop search indexer in the model (Spotlight's flag),
// on the record, its sub-entities, and the values it owns or names (emails, phones, tags).
import Foundation
import ObjectGraph

extension PIMStore {
    /// The predicate matching records of `kind` whose searchable text contains every word of `text`.
    public func searchPredicate(_ text: String, kind: RecordKind) throws(PIMError) -> ObjectGraph.Predicate {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { throw PIMError.usage("search: give some text to look for") }
        let keys = searchableKeyPaths(of: kind)
        do {
            return .and(try words.map { word in
                .or(try keys.map { key in
                    if key == "annotations" {
                        // A task's annotations are lines of a stamp, a tab and the text: the word
                        // is looked for in a text, not in the stamps (20261125T093000Z).
                        let pattern = "(?s)(?:.*\\n)?[^\\t\\n]*\\t[^\\n]*" + NSRegularExpression.escapedPattern(for: word) + ".*"
                        return try ObjectGraph.Predicate(format: "%K MATCHES[cd] %@", key, pattern)
                    }
                    return try ObjectGraph.Predicate(format: key.contains(".") ? "ANY %K CONTAINS[cd] %@" : "%K CONTAINS[cd] %@", key, word)
                })
            })
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
    }

    /// The key paths of searchable strings: indexed attributes of the kind's entities, and indexed
    /// attributes one to-many relationship away (`emailAddresses.address`, `tags.name`).
    func searchableKeyPaths(of kind: RecordKind) -> [String] {
        guard let root = PIMModel.shared.entitiesByName[kind.entityName] else { return [] }
        var keys: Set<String> = []
        for entity in [root] + root.subentities {
            for attribute in entity.attributesByName.values where attribute.isIndexedBySpotlight && attribute.attributeType == .string {
                keys.insert(attribute.name)
            }
            for relationship in entity.relationshipsByName.values where relationship.isToMany && RelationshipRole(relationship) != .record {
                for attribute in relationship.destinationEntity?.attributesByName.values.filter({ $0.isIndexedBySpotlight && $0.attributeType == .string }) ?? [] {
                    keys.insert("\(relationship.name).\(attribute.name)")
                }
            }
        }
        return keys.sorted()
    }
}
