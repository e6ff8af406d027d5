// Finding the record a user names: by short number (`12`), by UUID or a unique prefix of it
// (`3f2a`; digits of four or more that are no record's number are read as a prefix too), and for contacts and events (and tasks, groups) by a unique name: an exact match
// first (ignoring case), then a part of the name. Several matches are an error listing them.
import Foundation
import ObjectGraph

/// Resolves record references of one store.
public struct RecordResolver {
    let store: PIMStore

    public init(store: PIMStore) { self.store = store }

    /// The record of `kind` that `reference` names.
    public func resolve(_ reference: String, as kind: RecordKind, byName: Bool = true) throws(PIMError) -> ManagedObject {
        let text = reference.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw PIMError.usage("an empty \(kind.singular) id") }
        if let number = Int64(text), number > 0 {
            let numbered = try fetch(kind, "number == %@", number)
            if !numbered.isEmpty || text.count < 4 { return try unique(numbered, kind: kind, reference: text) }
        }
        let hex = text.lowercased()
        if hex.count >= 4, hex.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
            let matches = try records(kind, uuidPrefix: hex)
            if !matches.isEmpty || !byName { return try unique(matches, kind: kind, reference: text) }
        }
        guard byName else { throw PIMError.notFound(kind: kind, reference: text) }
        let exact = try fetch(kind, "%K ==[c] %@", kind.nameKey, text)
        if !exact.isEmpty { return try unique(exact, kind: kind, reference: text) }
        return try unique(fetch(kind, "%K CONTAINS[cd] %@", kind.nameKey, text), kind: kind, reference: text)
    }

    /// The records of `kind` whose UUID starts with `prefix` (lowercase hexadecimal, dashes as
    /// typed), by number: every UUID is read as a dictionary with its object's ID, and only the
    /// matching records become objects (reading them all as objects took a quarter of a second
    /// with 20,000 tasks).
    func records(_ kind: RecordKind, uuidPrefix prefix: String) throws(PIMError) -> [ManagedObject] {
        var request = FetchRequest<[String: Any]>(entityName: kind.entityName)
        request.propertiesToFetch = [
            .property("uuid"),
            .expression(ExpressionDescription(name: "record", expression: .evaluatedObject, resultType: .objectID)),
        ]
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "number")]
        do {
            return try store.fetch(request).compactMap { row -> ManagedObject? in
                guard let uuid = row["uuid"] as? UUID, uuid.uuidString.lowercased().hasPrefix(prefix),
                      let id = row["record"] as? ObjectID else { return nil }
                return try store.context.existingObject(with: id)
            }
        } catch let error as PIMError {
            throw error
        } catch {
            throw PIMError.wrapping(error, storePath: store.url.path)
        }
    }

    /// The records of `kind` matching a predicate format (all when nil).
    func fetch(_ kind: RecordKind, _ format: String?, _ arguments: Any?...) throws(PIMError) -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: kind.entityName)
        do {
            if let format { request.predicate = try ObjectGraph.Predicate(format: format, argumentArray: arguments) }
        } catch {
            throw PIMError.wrapping(error, storePath: store.url.path)
        }
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "number")]
        return try store.fetch(request)
    }

    func unique(_ matches: [ManagedObject], kind: RecordKind, reference: String) throws(PIMError) -> ManagedObject {
        guard let first = matches.first else { throw PIMError.notFound(kind: kind, reference: reference) }
        guard matches.count == 1 else {
            throw PIMError.ambiguous(kind: kind, reference: reference, candidates: matches.map { record in
                let number = record.value(forKey: "number") as? Int64 ?? 0
                let uuid = (record.value(forKey: "uuid") as? UUID)?.uuidString.lowercased() ?? ""
                return "\(number)  \(uuid)  \(record.value(forKey: kind.nameKey) as? String ?? "")"
            })
        }
        return first
    }
}
