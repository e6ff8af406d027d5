// A batch delete, Core Data's NSBatchDeleteRequest: every row of an entity that matches a
// predicate deleted without loading objects, with the delete rules of its relationships applied
// in SQL (cascade deletes, nullify clears the inverse, deny refuses, no action leaves it).

/// Deletes every matching row, and what the delete rules reach, in one transaction.
///
/// ```swift
/// var request = BatchDeleteRequest(entity: model.entitiesByName["Task"]!)
/// request.predicate = try Predicate(format: "done == YES")
/// try store.execute(request)
/// ```
public struct BatchDeleteRequest: Sendable {
    public var entity: EntityDescription
    /// Which rows (nil: all of the entity).
    public var predicate: Predicate?
    public var includesSubentities: Bool
    public var resultType: BatchResultType
    /// The stores the request runs in (Core Data's `affectedStores`); nil: every store of the
    /// coordinator that holds the entity (for an insert, the one new objects go to).
    public var affectedStores: [any PersistentStore]?

    public init(entity: EntityDescription) {
        self.entity = entity
        includesSubentities = true
        resultType = .statusOnly
    }
}
