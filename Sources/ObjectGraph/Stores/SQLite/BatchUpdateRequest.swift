// A batch update, Core Data's NSBatchUpdateRequest: new constant values for some properties of
// every row of an entity that matches a predicate, written by one UPDATE without loading
// objects. Contexts holding those objects learn of it by refreshing them (the result's IDs).

/// Sets properties of every matching row in one statement.
///
/// ```swift
/// var request = BatchUpdateRequest(entity: model.entitiesByName["Task"]!)
/// request.predicate = try Predicate(format: "due < %@", Date())
/// request.propertiesToUpdate = ["done": .constant(.bool(true))]
/// request.resultType = .objectIDs
/// let result = try store.execute(request)
/// ```
public struct BatchUpdateRequest: Sendable {
    public var entity: EntityDescription
    /// Which rows (nil: all of the entity).
    public var predicate: Predicate?
    /// New values by property name: constant expressions (`nil` included) for attributes and
    /// to-one relationships (an object ID), or, for attributes, values computed from the row's
    /// own attributes in the store, as Core Data's expressions are
    /// (`["count": try Expression(format: "count + 1")]`, `due + 86400`, another attribute).
    public var propertiesToUpdate: [String: Expression]
    public var includesSubentities: Bool
    public var resultType: BatchResultType
    /// The stores the request runs in (Core Data's `affectedStores`); nil: every store of the
    /// coordinator that holds the entity (for an insert, the one new objects go to).
    public var affectedStores: [any PersistentStore]?

    public init(entity: EntityDescription) {
        self.entity = entity
        propertiesToUpdate = [:]
        includesSubentities = true
        resultType = .statusOnly
    }
}
