// Batched fetch results: IDs up front, objects a batch at a time in one request per batch, only
// the current batch retained, results in the request's order with pending changes included.
import Foundation
import XCTest
@testable import ObjectGraph

final class BatchedFetchResultsTests: XCTestCase {
    func testBatchedResultsReadEveryObjectInOrder() throws {
        try forEachStore { stack in
            for n in 0..<25 { _ = stack.task(String(format: "T%02d", n)) }
            try stack.context.save()
            let other = stack.newContext()
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.sortDescriptors = [SortDescriptor(key: "title", ascending: false)]
            request.fetchBatchSize = 10
            let results = try other.fetchBatched(request)
            XCTAssertEqual(results.count, 25)
            XCTAssertEqual(results.map { $0.value(forKey: "title") as? String }.first, "T24")
            XCTAssertEqual(results[24].value(forKey: "title") as? String, "T00")
        }
    }

    /// `count` saved tasks `T0`, `T1`, …, read in batches of `batchSize` in a new context.
    private func batchedTasks(_ count: Int, batchSize: Int, in stack: Stack) throws -> (ManagedObjectContext, BatchedFetchResults<ManagedObject>) {
        for n in 0..<count { _ = stack.task("T\(n)") }
        try stack.context.save()
        let other = stack.newContext()
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.fetchBatchSize = batchSize
        return (other, try other.fetchBatched(request))
    }

    func testOnlyTheCurrentBatchIsRetained() throws {
        try forEachStore { stack in
            let (other, results) = try batchedTasks(30, batchSize: 10, in: stack)
            for index in results.indices { _ = results[index].value(forKey: "title") }
            XCTAssertEqual(other.registeredObjects.count, 10)
        }
    }

    func testTheNextBatchTakesTheRoomOfTheOneBeforeIt() throws {
        try forEachStore { stack in
            let (other, results) = try batchedTasks(500, batchSize: 100, in: stack)
            _ = results[0].value(forKey: "title")
            let moves = other.registry.moves
            for index in 100..<500 { _ = results[index].value(forKey: "title") }
            // The batch before goes before the next one comes: its keys leave the registry's
            // run, whose storage the next batch's keys take without moving it.
            XCTAssertEqual(other.registry.moves, moves, "the registry moved its storage for later batches")
            XCTAssertEqual(other.registeredObjects.count, 100)
            XCTAssertEqual(results[499].value(forKey: "title") as? String, "T499")
        }
    }

    func testABatchIsLoadedInOneGoAndNotAsFaults() throws {
        try forEachStore { stack in
            let (_, results) = try batchedTasks(12, batchSize: 5, in: stack)
            _ = results[6]
            XCTAssertTrue((5..<10).allSatisfy { !results[$0].isFault })
        }
    }

    func testUnsavedInsertsAreInTheResults() throws {
        try forEachStore { stack in
            _ = stack.task("Saved")
            try stack.context.save()
            _ = stack.task("New")
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.sortDescriptors = [SortDescriptor(key: "title")]
            request.fetchBatchSize = 1
            XCTAssertEqual(try stack.context.fetchBatched(request).map { $0.value(forKey: "title") as? String }, ["New", "Saved"])
        }
    }

    func testAwakeFromFetchMayReadTheBatchBeforeWhileTheNextLoads() throws {
        // Found in review: the batch before was let go while its position still counted as
        // loaded, so a read of it from user code during the next load indexed an empty batch.
        ObjectClasses.register(PeekingRow.self)
        defer { PeekingRow.results = nil; PeekingRow.peeked = [] }
        let stack = try Stack(storeType: .sqlite, model: Self.peekingModel)
        for n in 0..<20 { stack.insert("PeekingRow", ["number": Int64(n)]) }
        try stack.context.save()
        let other = stack.newContext()
        var request = FetchRequest<ManagedObject>(entityName: "PeekingRow")
        request.sortDescriptors = [SortDescriptor(key: "number")]
        request.fetchBatchSize = 10
        let results = try other.fetchBatched(request)
        XCTAssertEqual(results[0].value(forKey: "number") as? Int64, 0)
        PeekingRow.results = results
        XCTAssertEqual(results[10].value(forKey: "number") as? Int64, 10)
        XCTAssertEqual(PeekingRow.peeked, Array(repeating: 0, count: 10), "each awakeFromFetch of the second batch read the first one's first object")
        XCTAssertEqual(results[15].value(forKey: "number") as? Int64, 15)
    }

    static let peekingModel = ManagedObjectModel {
        Entity("PeekingRow", class: "PeekingRow") { Attribute("number", .integer64) }
    }
}

/// An object whose awakeFromFetch reads the first result of the batched results being loaded.
final class PeekingRow: ManagedObject {
    nonisolated(unsafe) static var results: BatchedFetchResults<ManagedObject>?
    nonisolated(unsafe) static var peeked: [Int64] = []

    override func awakeFromFetch() {
        super.awakeFromFetch()
        guard let results = Self.results, let number = value(forKey: "number") as? Int64, number >= 10 else { return }
        Self.peeked.append(results[0].value(forKey: "number") as? Int64 ?? -1)
    }
}
