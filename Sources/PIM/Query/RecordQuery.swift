// Listing records: the user's `--where` predicate (the framework's format, with $NOW, $TODAY and
// $TOMORROW bound), friendly filters turned into predicates, `--sort` keys (`-` for descending,
// `urgency` for tasks) and `--limit`.
import Foundation
import ObjectGraph

/// Which records of a kind to list, and in what order.
public struct RecordQuery {
    public var kind: RecordKind
    /// A predicate in the framework's format, as typed after `--where`.
    public var whereClause: String?
    /// Predicates of friendly filters, all of which must hold.
    public var filters: [ObjectGraph.Predicate] = []
    /// Sort keys, most significant first; `-key` sorts descending. Empty: the kind's default order.
    public var sort: [String] = []
    /// The most records to return.
    public var limit: Int?
    /// Relationships to load with the records (key paths), one request per relationship: what
    /// the printed fields read. Sorting by urgency adds what urgency reads.
    public var relationshipKeyPaths: [String] = []

    public init(kind: RecordKind) { self.kind = kind }

    /// The default order: tasks by urgency, events by start, contacts and groups by name.
    var defaultSort: [String] {
        switch kind {
        case .task: ["-urgency", "due"]
        case .event: ["start"]
        case .contact, .group: ["name"]
        }
    }
}

extension PIMStore {
    /// The values `$NOW`, `$TODAY` and `$TOMORROW` of `--where` predicates.
    public var substitutionVariables: [String: Any?] {
        let today = dateParser.startOfDay(now)
        return ["NOW": now, "TODAY": today, "TOMORROW": dateParser.adding(days: 1, to: today)]
    }

    /// The records `query` selects, in its order.
    public func list(_ query: RecordQuery) throws(PIMError) -> [ManagedObject] {
        var predicates = query.filters
        if let text = query.whereClause {
            do {
                predicates.append(try ObjectGraph.Predicate(format: text).withSubstitutionVariables(substitutionVariables))
            } catch let error as ObjectGraph.PredicateError {
                throw PIMError.predicate(error, option: "--where")
            } catch {
                throw PIMError.usage("--where: \(error)")
            }
        }
        var request = FetchRequest<ManagedObject>(entityName: query.kind.entityName)
        request.predicate = predicates.isEmpty ? nil : .and(predicates)
        let sortKeys = query.sort.isEmpty ? query.defaultSort : query.sort
        var keyPaths = query.relationshipKeyPaths
        if query.kind == .task, sortKeys.contains(where: { $0 == "urgency" || $0 == "-urgency" }) {
            keyPaths += TaskItem.urgencyRelationships.filter { !keyPaths.contains($0) }
        }
        request.relationshipKeyPathsForPrefetching = keyPaths
        let records: [ManagedObject]
        do {
            records = try context.fetch(request)
        } catch let error as ObjectGraph.PredicateError {
            throw PIMError.predicate(error, option: "--where")
        } catch let error as StoreError {
            if case .unsupportedRequest(let reason) = error { throw PIMError.usage("--where: \(reason)") }
            throw PIMError.wrapping(error, storePath: url.path)
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
        let sorted = try sort(records, by: sortKeys, kind: query.kind)
        if let limit = query.limit { return Array(sorted.prefix(max(limit, 0))) }
        return sorted
    }

    /// `records` ordered by `keys` (attributes, key paths through to-one relationships, or `urgency`).
    func sort(_ records: [ManagedObject], by keys: [String], kind: RecordKind) throws(PIMError) -> [ManagedObject] {
        let entity = PIMModel.shared.entitiesByName[kind.entityName]
        let descriptors = try keys.map { key throws(PIMError) -> (String, Bool) in
            let descending = key.hasPrefix("-")
            let name = descending ? String(key.dropFirst()) : key
            let first = String(name.split(separator: ".").first ?? "")
            guard name == "urgency" && kind == .task || entity?.propertiesByName[first] != nil
                    || entity?.subentities.contains(where: { $0.propertiesByName[first] != nil }) == true else {
                throw PIMError.usage("--sort: \(kind.plural) have no key \"\(name)\"")
            }
            return (name, !descending)
        }
        let urgencies = descriptors.contains { $0.0 == "urgency" }
            ? Dictionary(uniqueKeysWithValues: records.map { (ObjectIdentifier($0), ($0 as? TaskItem)?.urgency(at: now) ?? 0) })
            : [:]
        func value(_ record: ManagedObject, _ key: String) -> Any? {
            key == "urgency" ? urgencies[ObjectIdentifier(record)] : record.value(forKeyPath: key)
        }
        return records.sorted { a, b in
            for (key, ascending) in descriptors {
                let order = ObjectGraph.SortDescriptor(key: key, ascending: ascending).compareValues(value(a, key), value(b, key))
                if order != .orderedSame { return order == .orderedAscending }
            }
            return ((a.value(forKey: "number") as? Int64) ?? 0) < ((b.value(forKey: "number") as? Int64) ?? 0)
        }
    }
}
