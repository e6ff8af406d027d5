// A batch insert, Core Data's NSBatchInsertRequest: many rows of one entity from dictionaries of
// values, written in one transaction without making managed objects (bulk imports).

/// Inserts rows from dictionaries of attribute values (and to-one object IDs).
///
/// ```swift
/// let request = BatchInsertRequest(entity: model.entitiesByName["Tag"]!, objects: [["name": "swift"], ["name": "linux"]])
/// try store.execute(request)
/// ```
public struct BatchInsertRequest: Sendable {
    public var entity: EntityDescription
    /// One dictionary per row: values by property name; missing attributes take their defaults.
    public var objects: [[String: any Sendable]]
    public var resultType: BatchResultType
    /// The stores the request runs in (Core Data's `affectedStores`); nil: every store of the
    /// coordinator that holds the entity (for an insert, the one new objects go to).
    public var affectedStores: [any PersistentStore]?
    /// What a row does whose uniqueness-constrained values a stored row (or an earlier row of
    /// the request) already holds, as the executing context's merge policy decides it for Core
    /// Data's NSBatchInsertRequest. nil: the context's policy (``ManagedObjectContext/mergePolicy``)
    /// when run through a context, `.error` when run by a store.
    ///
    /// - `.error`: the request fails with a uniqueness violation and writes nothing;
    /// - `.mergeByPropertyObjectTrump`, `.overwrite`: an upsert, the stored row takes the
    ///   incoming row whole (values left out of the dictionary take their defaults, as Core Data
    ///   writes them) and goes up a version;
    /// - `.mergeByPropertyStoreTrump`, `.rollback`: the stored row is kept and the incoming one
    ///   dropped.
    ///
    /// ```swift
    /// var request = BatchInsertRequest(entity: productEntity, objects: feed.map { ["serial": $0.serial, "name": $0.name] })
    /// request.mergePolicy = .mergeByPropertyObjectTrump   // or set it on the context that runs it
    /// try store.execute(request)
    /// ```
    public var mergePolicy: MergePolicy?

    public init(entity: EntityDescription, objects: [[String: any Sendable]]) {
        self.entity = entity
        self.objects = objects
        resultType = .statusOnly
    }

    /// Rows asked of a handler when the request runs, after ``objects``.
    private var source: RowSource?

    /// A request whose rows a handler fills, one call per row, when the request runs (Core
    /// Data's `dictionaryHandler`): it returns true when there are no more rows (the dictionary
    /// of that call is not inserted).
    ///
    /// ```swift
    /// var next = feed.makeIterator()
    /// let request = BatchInsertRequest(entity: tagEntity) { row in
    ///     guard let item = next.next() else { return true }
    ///     row["name"] = item.name
    ///     return false
    /// }
    /// ```
    ///
    /// The handler runs on the thread that runs the request (the context's queue), once per
    /// row, and the request once: run it from one thread only, as Core Data's.
    public init(entity: EntityDescription, dictionaryHandler: @escaping (inout [String: any Sendable]) -> Bool) {
        self.init(entity: entity, objects: [])
        source = RowSource {
            var row: [String: any Sendable] = [:]
            return dictionaryHandler(&row) ? nil : row
        }
    }

    /// A request whose rows a handler fills through managed objects of the entity's class, made
    /// in no context, one per row (Core Data's `managedObjectHandler`): typed accessors work, and
    /// the handler returns true when there are no more rows (the object of that call is not
    /// inserted). Each object's stored attributes and to-one relationships become the row.
    public init(entity: EntityDescription, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        self.init(entity: entity, objects: [])
        let type = ObjectClasses.managedObjectClass(for: entity)
        source = RowSource {
            let object = type.init(entity: entity, insertInto: nil)
            guard !managedObjectHandler(object) else { return nil }
            var row: [String: any Sendable] = [:]
            for property in entity.properties where property.isStored {
                switch property {
                case let attribute as AttributeDescription:
                    if let value = object.value(forKey: attribute.name).flatMap(StorableValues.modelValue) { row[attribute.name] = value }
                case let relationship as RelationshipDescription where !relationship.isToMany:
                    if let destination = object.value(forKey: relationship.name) as? ManagedObject {
                        row[relationship.name] = destination.objectID
                    }
                default:
                    continue
                }
            }
            return row
        }
    }

    /// ``objects``, then the rows the handler gives (asked for once: the handler keeps its own state).
    func rows() -> [[String: any Sendable]] {
        guard let source else { return objects }
        var rows = objects
        while let row = source.next() { rows.append(row) }
        return rows
    }
}

/// A handler's rows, asked for on the thread that runs the request (see the handler initializers).
private final class RowSource: @unchecked Sendable {
    let next: () -> [String: any Sendable]?

    init(_ next: @escaping () -> [String: any Sendable]?) { self.next = next }
}
