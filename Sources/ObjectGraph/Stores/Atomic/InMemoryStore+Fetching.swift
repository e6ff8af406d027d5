// Fetching from the in-memory store: the rows of the entity (and its sub-entities), filtered by
// the predicate engine, sorted by the sort descriptors, windowed by offset and limit, and
// returned as snapshots, object IDs or a count. Dictionary results are in +Dictionaries.swift.
import Foundation

extension InMemoryStore {
    /// Runs `request` over the stored rows.
    ///
    /// Rows come in primary-key order unless sorted (ties keep that order). A count is the
    /// number of rows the same fetch would return (of dictionaries, when they can be fewer):
    /// offset and limit apply to it too, as they do to Core Data's `count(for:)`. Partial
    /// snapshots (`propertiesToFetch`) leave the other slots unloaded. A sort key the SQLite
    /// store refuses is refused here too (``checkSortKeys(_:of:)``), so that the stores agree.
    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try lock.withLock {
            let rows = try matchingRows(of: request)
            switch request.resultType {
            case .count where request.countsDictionaries:
                return .count(try dictionaries(of: rows, for: request).count)
            case .count:
                return .count(window(rows, of: request).count)
            case .objectIDs:
                return .objectIDs(window(rows, of: request).map(\.objectID))
            case .snapshots:
                let fetched = request.propertiesToFetch.map { Set($0.map(\.name)) }
                return .snapshots(window(rows, of: request).map { snapshot(of: $0.snapshot, keeping: fetched) })
            case .dictionaries:
                return .dictionaries(try dictionaries(of: rows, for: request))
            }
        }
    }

    /// The rows of the request's entities that satisfy its predicate, in its order.
    private func matchingRows(of request: StoreFetchRequest) throws -> [EvaluatedRow] {
        let sorts = request.rowSortDescriptors
        try checkSortKeys(sorts, of: request.entity)
        let entities = request.includesSubentities ? request.entity.selfAndDescendants : [request.entity]
        var rows = table.rows(of: entities).map { EvaluatedRow($0, in: table) }
        if let predicate = request.predicate {
            // A MATCHES pattern that is no regular expression is refused whether or not a row
            // reaches it, as the SQLite store refuses it before running its statement.
            try predicate.checkRegularExpressions()
            // A key path naming no property is refused, as the SQLite store refuses it, rather
            // than read as nil on every row.
            do {
                try predicate.checkKeyPaths(against: request.entity)
            } catch let error as PredicateError {
                throw StoreError.unsupportedRequest("the in-memory store cannot evaluate \(error.message)")
            }
            if sorts.isEmpty, request.fetchLimit > 0, request.resultType != .dictionaries, !request.countsDictionaries {
                // Unsorted rows come in key order, and a limit stops the scan at the last row
                // it keeps, as SQLite's does: a row after it is never evaluated (and cannot fail
                // the fetch, with a division by zero say).
                let needed = max(request.fetchOffset, 0) + request.fetchLimit
                var kept: [EvaluatedRow] = []
                for row in rows where kept.count < needed {
                    if try predicate.evaluateChecked(with: row) { kept.append(row) }
                }
                return kept
            }
            rows = try rows.filter { try predicate.evaluateChecked(with: $0) }
        }
        return rows.sortedAsStored(using: sorts)
    }

    /// Throws ``StoreError/unsupportedRequest(_:)`` for a sort key the SQLite store cannot
    /// translate either: one naming no property of `entity` (Core Data: key path not found in
    /// entity), one going on after an attribute, or one through a to-many relationship (Core
    /// Data: "to-many key not allowed here"; the members have no one value to order by) unless a
    /// collection operator follows it (`tasks.@count`). Without this, rows would read nil or an
    /// unordered collection and come back unsorted, silently.
    private func checkSortKeys(_ descriptors: [SortDescriptor], of entity: EntityDescription) throws {
        for descriptor in descriptors {
            let key = descriptor.key
            guard let walked = entity.properties(alongKeyPath: key), let last = walked.last else {
                throw StoreError.unsupportedRequest("the in-memory store cannot sort by \(key): \(entity.name) has no property along that key path")
            }
            let steps = key.split(separator: ".", omittingEmptySubsequences: false)
            if let relationship = last as? RelationshipDescription, relationship.isToMany {
                if walked.count < steps.count, steps[walked.count].hasPrefix("@") { continue }
                throw StoreError.unsupportedRequest(
                    "the in-memory store cannot sort by the to-many key path \(key): \(relationship.qualifiedName) holds many objects, which have no one value to order by")
            }
            if walked.count < steps.count {
                throw StoreError.unsupportedRequest("the in-memory store cannot sort by \(key): it goes on after \(last.qualifiedName)")
            }
        }
    }

    /// `items` after skipping `fetchOffset` and keeping at most `fetchLimit` (0: all).
    func window<T>(_ items: [T], of request: StoreFetchRequest) -> [T] {
        let rest = items.dropFirst(max(request.fetchOffset, 0))
        return Array(request.fetchLimit > 0 ? rest.prefix(request.fetchLimit) : rest)
    }

    /// The row with its to-many slots unloaded (read when the relationship is, as the SQLite
    /// store's are); with `fetched` names, every other slot unloaded too.
    private func snapshot(of row: Snapshot, keeping fetched: Set<String>?) -> Snapshot {
        var result = table.withToManysUnloaded(row)
        if let fetched {
            for (slot, property) in row.layout.properties.enumerated() where !fetched.contains(property.name) {
                result.values[slot] = .unloaded
            }
        }
        return result
    }
}
