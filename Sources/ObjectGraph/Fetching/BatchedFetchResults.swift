// Batched fetch results: Core Data's batched array. Only the object IDs are fetched up front;
// objects materialize a batch at a time (one store request per batch) as the collection is
// read, and only the current batch is retained, so iterating a million rows keeps memory
// bounded by the batch size (and by what the caller keeps).

/// The results of a fetch read batch by batch; a random-access collection of managed objects.
///
/// ```swift
/// var request = FetchRequest<ManagedObject>(entityName: "Task")
/// request.fetchBatchSize = 1_000
/// for task in try context.fetchBatched(request) { total += task.value(forKey: "points") as? Int ?? 0 }
/// ```
///
/// Use it on its context's queue only, like the objects it returns.
public final class BatchedFetchResults<Result>: RandomAccessCollection {
    /// The IDs of the results, in order.
    public let objectIDs: [ObjectID]
    /// How many objects are materialized at a time.
    public let batchSize: Int
    /// The context the objects belong to (kept alive while the results are read).
    private let context: ManagedObjectContext
    private var batchStart = -1
    private var batch: [ManagedObject] = []
    /// The unsaved objects among the results, by the temporary IDs `objectIDs` holds: they are
    /// the results themselves, and stay so after a save gives them permanent IDs (as Core Data's
    /// batched array keeps its pending objects). Empty when every result was saved.
    private let unsaved: [ObjectID: ManagedObject]

    init(objectIDs: [ObjectID], batchSize: Int, context: ManagedObjectContext) {
        self.objectIDs = objectIDs
        self.batchSize = Swift.max(1, batchSize)
        self.context = context
        var unsaved: [ObjectID: ManagedObject] = [:]
        if !context.insertedByID.isEmpty {
            for id in objectIDs where id.isTemporaryID {
                if let object = context.registeredObject(for: id) { unsaved[id] = object }
            }
        }
        self.unsaved = unsaved
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { objectIDs.count }

    /// The object at `position`, with its batch loaded in one request if it is not yet.
    public subscript(position: Int) -> Result {
        let start = position - position % batchSize
        if start != batchStart { load(batchFrom: start) }
        return batch[position - start] as! Result
    }

    private func load(batchFrom start: Int) {
        // The current batch goes first: its objects (those the caller does not keep) leave the
        // registry and the row cache before the next batch's come, which then take their room.
        // No batch is loaded meanwhile: a read from awakeFromFetch loads its own.
        batch = []
        batchStart = -1
        let ids = objectIDs[start..<Swift.min(start + batchSize, objectIDs.count)]
        let objects = unsaved.isEmpty ? context.objects(with: ids)
            : ids.map { id in unsaved[id] ?? context.object(with: id) }
        do {
            try context.fillFaults(objects)
        } catch {
            preconditionFailure("could not load objects \(start)..<\(start + ids.count) of a batched fetch: \(error)")
        }
        batch = objects
        batchStart = start
    }
}

extension ManagedObjectContext {
    /// Runs `request` for object IDs only and returns results that materialize
    /// `request.fetchBatchSize` objects at a time (all at once when it is 0), keeping only the
    /// current batch. Unsaved changes are taken into account as ``fetch(_:)`` does.
    public func fetchBatched<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> BatchedFetchResults<Result> {
        assertOnQueue()
        var idRequest = FetchRequest<ObjectID>(entityName: request.entityName)
        idRequest.predicate = request.predicate
        idRequest.sortDescriptors = request.sortDescriptors
        idRequest.fetchLimit = request.fetchLimit
        idRequest.fetchOffset = request.fetchOffset
        idRequest.includesSubentities = request.includesSubentities
        idRequest.includesPendingChanges = request.includesPendingChanges
        let ids = try fetch(idRequest)
        return BatchedFetchResults(objectIDs: ids, batchSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : ids.count,
                                   context: self)
    }
}
