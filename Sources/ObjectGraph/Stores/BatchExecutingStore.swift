// Stores that run batch requests (update, delete, insert rows without loading objects), as
// Core Data's SQLite store does. Contexts hand batch requests to such stores; others refuse.

/// A store that runs batch requests on its rows.
public protocol BatchExecutingStore: PersistentStore {
    /// Sets properties on every matching row.
    func execute(_ request: BatchUpdateRequest) throws -> BatchResult
    /// Deletes every matching row, applying the delete rules of its relationships.
    func execute(_ request: BatchDeleteRequest) throws -> BatchResult
    /// Inserts rows from dictionaries, honouring uniqueness constraints.
    func execute(_ request: BatchInsertRequest) throws -> BatchResult
}

extension SQLiteStore: BatchExecutingStore {}
