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

    public init(entity: EntityDescription, objects: [[String: any Sendable]]) {
        self.entity = entity
        self.objects = objects
        resultType = .statusOnly
    }
}
