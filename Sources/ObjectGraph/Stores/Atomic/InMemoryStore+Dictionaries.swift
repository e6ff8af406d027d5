// Dictionary fetches from the in-memory store: per row, the requested properties (key paths
// through to-one relationships allowed) and expressions; with group-by properties (or key paths)
// or aggregate expressions, one dictionary per group, filtered by the having predicate. Nil
// values are left out of the dictionaries, as Core Data leaves them out. What the SQLite store
// refuses to put in a dictionary is refused here too.
import Foundation

extension InMemoryStore {
    /// The dictionaries of `rows` (matched and sorted) for `request`.
    ///
    /// Without grouping, offset and limit apply to the rows (after distinct, when asked). With
    /// group-by properties, or aggregates and no group-by (one group of all rows), the groups
    /// come in the order of their first row, then sorted by those sort descriptors whose keys
    /// the dictionaries hold; the having predicate sees each group's dictionary, also bound as
    /// its variables (`$total > 10`).
    func dictionaries(of rows: [EvaluatedRow], for request: StoreFetchRequest) throws -> [[String: any Sendable]] {
        let properties = request.dictionaryProperties
        let grouped = request.isGrouped
        try checkColumns(properties, of: request, grouped: grouped)
        if !grouped && !request.returnsDistinctResults {
            return try window(rows, of: request).map { try dictionary(of: $0, properties, request.expressionsToFetch) }
        }
        var results = grouped
            ? try groupDictionaries(of: rows, properties, for: request)
            : try rows.map { try dictionary(of: $0, properties, request.expressionsToFetch) }
        if request.returnsDistinctResults {
            var seen: Set<[String: AnyHashableValue]> = []
            results = results.filter { seen.insert($0.mapValues { AnyHashableValue(Self.literal($0)) }).inserted }
        }
        return window(results, of: request)
    }

    /// Throws ``StoreError/unsupportedRequest(_:)`` for what the SQLite store refuses too, so
    /// that the stores agree: a to-many relationship fetched or grouped by, or a key path through
    /// one (NSFetchRequest's propertiesToFetch "may represent attributes, to-one relationships, or
    /// expressions"), a transient property (no store holds its values), a key path the entity
    /// does not have, a sum or average of what is not a number, a minimum or maximum of what has
    /// no order in SQL (UUIDs, data, URIs, transformable values), and, when rows are grouped, a
    /// property or key path that is neither grouped by nor aggregated ("the SELECT values must be
    /// literals, aggregates, or columns specified in propertiesToGroupBy"; a group has no one
    /// value of it), or the object itself.
    private func checkColumns(_ properties: [PropertyDescription], of request: StoreFetchRequest, grouped: Bool) throws {
        func refuse(_ what: String) -> StoreError {
            StoreError.unsupportedRequest("the in-memory store cannot fetch \(what) in a dictionary")
        }
        /// The properties along `keyPath`, checked: every step exists, and none is a to-many
        /// relationship unless `counting` (`jobs.@count`, the path's last step).
        func walk(_ keyPath: String, for name: String) throws -> [PropertyDescription] {
            let steps = keyPath.split(separator: ".", omittingEmptySubsequences: false)
            guard let walked = request.entity.properties(alongKeyPath: keyPath), !walked.isEmpty else {
                throw refuse("\(name) (\(request.entity.name) has no property \"\(steps[0])\")")
            }
            if walked.count < steps.count {
                let last = walked[walked.count - 1]
                if let relationship = last as? RelationshipDescription, relationship.isToMany {
                    guard walked.count == steps.count - 1, steps.last == "@count" else {
                        throw refuse("\(name) (\(keyPath) goes through \(last.qualifiedName), a to-many relationship)")
                    }
                    return walked
                }
                throw refuse("\(name) (\(keyPath): \(last.qualifiedName) has no property \"\(steps[walked.count])\")")
            }
            if let relationship = walked.last as? RelationshipDescription, relationship.isToMany {
                throw refuse("\(name) (\(keyPath), a to-many relationship)")
            }
            if let transient = walked.first(where: { !$0.isStored }) {
                throw refuse("\(name) (\(transient.qualifiedName) is transient: no store holds its values)")
            }
            return walked
        }
        /// Checks the key paths `expression` reads; `summing`: the values must be numbers;
        /// `ordering`: they must have an order (a minimum or maximum).
        func check(_ expression: Expression, for name: String, summing: Bool = false, ordering: Bool = false) throws {
            switch expression {
            case .keyPath(let path) where path == "@count":
                return
            case .keyPath(let path) where path.hasPrefix("@"):
                let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return }
                try check(.keyPath(parts[1]), for: name, summing: parts[0] == "@sum" || parts[0] == "@avg",
                          ordering: parts[0] == "@min" || parts[0] == "@max")
            case .keyPath(let path):
                let walked = try walk(path, for: name)
                if summing, let attribute = walked.last as? AttributeDescription, !attribute.attributeType.isNumeric {
                    throw refuse("\(name) (a sum or average of \(attribute.qualifiedName), which is not a number)")
                }
                let unordered: Set<AttributeType> = [.uuid, .binaryData, .uri, .transformable, .objectID]
                if ordering, let attribute = walked.last as? AttributeDescription, unordered.contains(attribute.attributeType) {
                    throw refuse("\(name) (a minimum or maximum of \(attribute.qualifiedName), whose values have no order)")
                }
            case .function(let function, let arguments):
                for argument in arguments {
                    try check(argument, for: name, summing: function == "sum:" || function == "average:",
                              ordering: function == "min:" || function == "max:")
                }
            default:
                return
            }
        }
        let groupNames = Set(request.groupingKeys)
        for key in request.groupingKeys {
            _ = try walk(key, for: "the group of \(key)")
        }
        for property in properties {
            if (property as? RelationshipDescription)?.isToMany == true {
                throw refuse("\(property.qualifiedName) (a to-many relationship)")
            }
            if !property.isStored {
                throw refuse("\(property.qualifiedName) (transient: no store holds its values)")
            }
            if grouped && !groupNames.contains(property.name) {
                throw refuse("\(property.qualifiedName), which is neither grouped by nor aggregated,")
            }
        }
        for description in request.expressionsToFetch {
            try check(description.expression, for: description.name)
            switch description.expression {
            case .keyPath(let path) where !path.hasPrefix("@"):
                if grouped && !groupNames.contains(path) {
                    throw refuse("\(description.name) (\(path), which is neither grouped by nor aggregated)")
                }
            case .evaluatedObject where grouped:
                throw refuse("\(description.name) (the object itself, in a grouped fetch)")
            default:
                continue
            }
        }
    }

    /// One row's dictionary: its values of `properties` and of `expressions`.
    private func dictionary(of row: EvaluatedRow, _ properties: [PropertyDescription],
                            _ expressions: [ExpressionDescription]) throws -> [String: any Sendable] {
        var dictionary = try values(of: properties, in: row)
        for description in expressions {
            let value = try rowValue(of: description.expression, in: row)
            if let value = try Self.sendable(value, named: description.name) { dictionary[description.name] = value }
        }
        return dictionary
    }

    /// One dictionary per group that passes the having predicate, sorted by the descriptors
    /// whose keys the dictionaries hold (groups otherwise keep the order of their first row).
    private func groupDictionaries(of rows: [EvaluatedRow], _ properties: [PropertyDescription],
                                   for request: StoreFetchRequest) throws -> [[String: any Sendable]] {
        var results: [[String: any Sendable]] = []
        let names = Set(properties.map(\.name) + request.expressionsToFetch.map(\.name))
        for group in groups(of: rows, by: request.groupingKeys) {
            var dictionary = try group.first.map { try values(of: properties, in: $0) } ?? [:]
            for description in request.expressionsToFetch {
                let value = try groupValue(of: description.expression, over: group, entity: request.entity)
                if let value = try Self.sendable(value, named: description.name) { dictionary[description.name] = value }
            }
            if let having = request.havingPredicate {
                let scope = HavingScope(dictionary, names: names)
                // Every name the dictionaries can hold is a variable, nil where the group has no
                // value (an average over nothing): `$avg > 5` is then false, as SQL's NULL > 5.
                var variables: [String: Any?] = Dictionary(uniqueKeysWithValues: names.map { ($0, nil) })
                for (key, value) in dictionary { variables[key] = value }
                let kept = try having.evaluate(with: scope, substitutionVariables: variables)
                if let missing = scope.missing.first {
                    throw StoreError.unsupportedRequest(
                        "the in-memory store cannot apply the having predicate \(having): \"\(missing)\" is not a key of the dictionaries")
                }
                guard kept else { continue }
            }
            results.append(dictionary)
        }
        // Read as entries: a key may be a dotted key path (`owner.name`) that key-value access
        // would walk.
        let descriptors = request.sortDescriptors.filter { descriptor in results.contains { $0[descriptor.key] != nil } }
        return results.sorted(using: descriptors) { dictionary, key in dictionary[key] }
    }

    /// `value` as grouping and distinct results compare it: a string by its UTF-8 bytes, as
    /// SQLite's GROUP BY and DISTINCT do (Swift's == would make one of "é" and "e\u{301}").
    private static func literal(_ value: any Sendable) -> any Sendable {
        (value as? String).map { Data($0.utf8) } ?? value
    }

    /// `rows` grouped by the values of `keyPaths` (strings compared by their bytes, as
    /// ``literal(_:)`` says), groups in the order of their first row; one group of every row
    /// (possibly none) when there are no key paths.
    private func groups(of rows: [EvaluatedRow], by keyPaths: [String]) -> [[EvaluatedRow]] {
        guard !keyPaths.isEmpty else { return [rows] }
        var order: [[SnapshotValue]] = []
        var members: [[SnapshotValue]: [EvaluatedRow]] = [:]
        for row in rows {
            let key = keyPaths.map { path -> SnapshotValue in
                let value = table.storedValue(atKeyPath: path, from: row.snapshot) ?? .null
                if case .value(let text as String) = value { return .value(Data(text.utf8)) }
                return value
            }
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(row)
        }
        return order.map { members[$0] ?? [] }
    }

    /// The values of `properties` (their names read as key paths) in `row`.
    private func values(of properties: [PropertyDescription], in row: EvaluatedRow) throws -> [String: any Sendable] {
        var dictionary: [String: any Sendable] = [:]
        for property in properties {
            let value: (any Sendable)?
            if let stored = table.storedValue(atKeyPath: property.name, from: row.snapshot) {
                value = Self.exported(stored)
            } else {
                value = try Self.sendable(KeyValueAccess.evaluationValue(of: row, forKeyPath: property.name), named: property.name)
            }
            if let value { dictionary[property.name] = value }
        }
        return dictionary
    }

    /// The value of a per-row expression: stored values directly for key paths, the predicate
    /// engine for the rest.
    private func rowValue(of expression: Expression, in row: EvaluatedRow) throws -> Any? {
        switch expression {
        case .evaluatedObject:
            return row.objectID
        case .keyPath(let path):
            if let stored = table.storedValue(atKeyPath: path, from: row.snapshot) { return Self.exported(stored) }
            return KeyValueAccess.evaluationValue(of: row, forKeyPath: path)
        default:
            return try expression.expressionValue(with: row)
        }
    }

    /// The value of an expression over a group: aggregate functions over the values of their
    /// argument in every row (nil values left out, as SQL does), collection operators over the
    /// rows, other functions over those, and anything else in the group's first row.
    private func groupValue(of expression: Expression, over rows: [EvaluatedRow], entity: EntityDescription) throws -> Any? {
        switch expression {
        case .function(let name, let arguments) where Expression.aggregateFunctionNames.contains(name) && arguments.count == 1:
            let values = try rows.compactMap { KeyValueAccess.normalized(try rowValue(of: arguments[0], in: $0)) }
            // A sum of decimals over no values is a decimal zero, as the SQLite store answers
            // (and Core Data's NSDecimalNumber sum), not the integer 0 of a sum of nothing.
            if name == "sum:", values.isEmpty, case .keyPath(let path) = arguments[0],
               Self.attribute(atKeyPath: path, of: entity)?.attributeType == .decimal {
                return Decimal(0)
            }
            return try BuiltinFunction.evaluate(name, [values])
        case .function(let name, let arguments):
            return try BuiltinFunction.evaluate(name, try arguments.map { try groupValue(of: $0, over: rows, entity: entity) })
        case .keyPath(let path) where path.hasPrefix("@"):
            return KeyValueAccess.evaluationValue(of: rows as [Any], forKeyPath: path)
        default:
            return try rows.first.flatMap { try rowValue(of: expression, in: $0) }
        }
    }

    /// The attribute `keyPath` names from `entity`, through to-one relationships.
    private static func attribute(atKeyPath keyPath: String, of entity: EntityDescription) -> AttributeDescription? {
        var current = entity
        let steps = keyPath.split(separator: ".").map(String.init)
        for (index, step) in steps.enumerated() {
            let property = current.propertiesByName[step]
            if index == steps.count - 1 { return property as? AttributeDescription }
            guard let relationship = property as? RelationshipDescription, !relationship.isToMany,
                  let destination = relationship.destinationEntity else { return nil }
            current = destination
        }
        return nil
    }

    /// A stored value as a dictionary holds it: attribute values as they are, to-one
    /// destinations as object IDs, to-many ones as arrays of IDs; nil for no value.
    private static func exported(_ value: SnapshotValue) -> (any Sendable)? {
        switch value {
        case .value(let value): return value
        case .object(let id): return id
        case .objects(let ids): return ids
        case .null, .unloaded: return nil
        }
    }

    /// A value the predicate engine computed, as a dictionary holds it (rows become their
    /// object IDs); throws for a value of a type the store cannot return.
    private static func sendable(_ value: Any?, named name: String) throws -> (any Sendable)? {
        guard let value = KeyValueAccess.normalized(value) else { return nil }
        switch value {
        case let row as EvaluatedRow: return row.objectID
        case let v as any OpaqueConstant: return v
        case let v as String: return v
        case let v as Bool: return v
        case let v as Int: return v
        case let v as Int16: return v
        case let v as Int32: return v
        case let v as Int64: return v
        case let v as Double: return v
        case let v as Float: return v
        case let v as Decimal: return v
        case let v as Date: return v
        case let v as Data: return v
        case let v as UUID: return v
        case let v as URL: return v
        default:
            guard let items = KeyValueAccess.collectionElements(value) else {
                throw StoreError.unsupportedRequest("\(name): a value of type \(Swift.type(of: value)) cannot be returned in a dictionary")
            }
            return try items.compactMap { try sendable($0, named: name) }
        }
    }
}

/// A group's dictionary as the having predicate reads it: a key path names an entry whole
/// (`owner.name` is the entry of that name, as the SQLite store's HAVING reads it, not a walk from
/// `owner`), and a key the dictionaries do not hold is recorded (`missing`), so that the predicate
/// is refused rather than silently false.
private final class HavingScope: KeyValueCoding {
    private let entries: [String: any Sendable]
    private let names: Set<String>
    private let prefix: String
    private let recorder: Recorder

    /// Where the keys not found are kept, shared by a scope and the scopes of its key paths.
    private final class Recorder {
        var missing: [String] = []
    }

    /// The keys asked for that the dictionaries do not hold, in the order asked.
    var missing: [String] { recorder.missing }

    init(_ entries: [String: any Sendable], names: Set<String>) {
        self.entries = entries
        self.names = names
        prefix = ""
        recorder = Recorder()
    }

    private init(_ parent: HavingScope, prefix: String) {
        entries = parent.entries
        names = parent.names
        self.prefix = prefix
        recorder = parent.recorder
    }

    func value(forKey key: String) -> Any? {
        let name = prefix + key
        if let value = entries[name] { return value }
        if names.contains(name) { return nil }
        if names.contains(where: { $0.hasPrefix(name + ".") }) { return HavingScope(self, prefix: name + ".") }
        if !recorder.missing.contains(name) { recorder.missing.append(name) }
        return nil
    }
}
