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
}
