// What a batch request (update, delete, insert) answers, as Core Data's NSBatch*Result do:
// nothing but success, the IDs of the rows it touched (to merge into contexts), or their count.
// Batch requests work on rows in the store without loading objects, so only SQLite stores run
// them, as in Core Data.

/// What a batch request returns.
public enum BatchResultType: Sendable, Hashable {
    /// Only whether it succeeded.
    case statusOnly
    /// The IDs of the rows it updated, deleted or inserted.
    case objectIDs
    /// How many rows it updated, deleted or inserted.
    case count
}

/// The answer to a batch request.
///
/// ```swift
/// if case .objectIDs(let ids) = try store.execute(request) { /* refresh these objects */ }
/// ```
public enum BatchResult: Sendable, Equatable {
    case status(Bool)
    case objectIDs([ObjectID])
    case count(Int)

    /// The result of `type` for the rows `ids`.
    init(_ type: BatchResultType, _ ids: [ObjectID]) {
        switch type {
        case .statusOnly: self = .status(true)
        case .objectIDs: self = .objectIDs(ids)
        case .count: self = .count(ids.count)
        }
    }
}
