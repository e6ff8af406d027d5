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
    /// Events only: a repeating event is kept only when one of its occurrences, not skipped,
    /// meets this window, and an all-day event when one of its days does, read in the current
    /// time zone (`events list --from/--to`; the filters' predicate keeps every repeating and
    /// all-day event, which the store cannot expand or read by days).
    public var occurring: Range<Date>?

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
        if let limit = query.limit, query.occurring == nil, let descriptors = storeOrder(sortKeys, kind: query.kind) {
            // The store sorts and stops after `limit` records, as pim would have sorted them.
            guard limit > 0 else { return [] }
            request.sortDescriptors = descriptors
            request.fetchLimit = limit
        }
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
        var kept = records
        if let window = query.occurring {
            let calendar = self.calendar
            kept = records.filter { record in
                guard let event = record as? Event, event.rule != nil || event.allDay else { return true }
                return event.occurs(in: window, calendar: calendar)
            }
        }
        let sorted = try sort(kept, by: sortKeys, kind: query.kind)
        if let limit = query.limit { return Array(sorted.prefix(max(limit, 0))) }
        return sorted
    }

    /// `records` ordered by `keys` (attributes, key paths through to-one relationships, or
    /// `urgency`). Text sorts as people read it: ignoring case and accents (ann, Bob, Émile, Zoe).
    /// A task's priority sorts by importance (none, L, M, H), not by iCalendar's number, where 1
    /// is the highest and 0 none: `-priority` lists H first, as Taskwarrior's `priority-` does.
    func sort(_ records: [ManagedObject], by keys: [String], kind: RecordKind) throws(PIMError) -> [ManagedObject] {
        let entity = PIMModel.shared.entitiesByName[kind.entityName]
        let descriptors = try keys.map { key throws(PIMError) -> (String, Bool) in
            let descending = key.hasPrefix("-")
            let name = descending ? String(key.dropFirst()) : key
            guard name == "urgency" && kind == .task || entity.map({ Self.isSortable(name, of: $0) }) == true else {
                throw PIMError.usage("--sort: \(kind.plural) have no key \"\(name)\"")
            }
            return (name, !descending)
        }
        // Each record's sort values, read once (text folded), rather than at every comparison.
        let keyed = records.map { record -> (record: ManagedObject, values: [Any?], number: Int64) in
            let values = descriptors.map { key, _ -> Any? in
                if key == "urgency" { return (record as? TaskItem)?.urgency(at: now) ?? 0 }
                if key == "priority", let task = record as? TaskItem { return TaskPriority.importance(task.priority) }
                let value = record.value(forKeyPath: key)
                if let text = value as? String { return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
                return value
            }
            return (record, values, record.value(forKey: "number") as? Int64 ?? 0)
        }
        // Keyed by position ("0", "1"...): the values were read above, once per record, and the
        // sort takes each apart once (not at every comparison).
        let comparators = descriptors.enumerated().map { ObjectGraph.SortDescriptor(key: String($0), ascending: $1.1) }
        return keyed.sorted(using: comparators, value: { element, key in element.values[Int(key) ?? 0] },
                            precedes: { $0.number < $1.number }).map(\.record)
    }

    /// The sort descriptors that make the store order records as ``sort(_:by:kind:)`` does, with
    /// the number breaking ties; nil when a key is sorted in a way of pim's own: urgency, a task's
    /// priority (by importance), text (folded), or not an attribute reached through to-one
    /// relationships of one entity.
    func storeOrder(_ keys: [String], kind: RecordKind) -> [ObjectGraph.SortDescriptor]? {
        guard let entity = PIMModel.shared.entitiesByName[kind.entityName] else { return nil }
        var descriptors: [ObjectGraph.SortDescriptor] = []
        for key in keys {
            let descending = key.hasPrefix("-")
            let name = descending ? String(key.dropFirst()) : key
            guard name != "urgency", !(name == "priority" && kind == .task),
                  let (attribute, throughSubentities) = Self.sortAttribute(atKeyPath: name, of: entity), !throughSubentities,
                  attribute.attributeType != .string else { return nil }
            descriptors.append(ObjectGraph.SortDescriptor(key: name, ascending: !descending))
        }
        return descriptors + [ObjectGraph.SortDescriptor(key: "number")]
    }

    /// The attribute `keyPath` names from `entity` (or a sub-entity) through to-one
    /// relationships, and whether an entity along the way has sub-entities; nil when it names none.
    static func sortAttribute(atKeyPath keyPath: String, of entity: EntityDescription)
        -> (attribute: AttributeDescription, throughSubentities: Bool)? {
        var candidates = [entity] + entity.subentities
        var throughSubentities = false
        let steps = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (index, step) in steps.enumerated() {
            throughSubentities = throughSubentities || candidates.count > 1
            guard let property = candidates.lazy.compactMap({ $0.propertiesByName[step] }).first else { return nil }
            if index == steps.count - 1 { return (property as? AttributeDescription).map { ($0, throughSubentities) } }
            guard let relationship = property as? RelationshipDescription, !relationship.isToMany,
                  let destination = relationship.destinationEntity else { return nil }
            candidates = [destination] + destination.subentities
        }
        return nil
    }

    /// Whether `keyPath` names an attribute of `entity` (or of a sub-entity), through to-one
    /// relationships only: what a list can sort by.
    static func isSortable(_ keyPath: String, of entity: EntityDescription) -> Bool {
        sortAttribute(atKeyPath: keyPath, of: entity) != nil
    }
}
