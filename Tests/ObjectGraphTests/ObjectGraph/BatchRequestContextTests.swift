// Batch requests through a context: run in the SQLite store without loading objects, refused
// for stores that cannot run them, and merged into contexts from their object-ID results.
import Foundation
import XCTest
@testable import ObjectGraph

final class BatchRequestContextTests: XCTestCase {
    private func sqliteStack() throws -> Stack { try Stack(storeType: .sqlite) }

    func testBatchDeleteRemovesMatchingRowsAndMergesIntoTheContext() throws {
        let stack = try sqliteStack()
        let ada = stack.person("Ada")
        let keep = stack.task("Keep", priority: 0, owner: ada)
        let drop = stack.task("Drop", priority: 3, owner: ada)
        try stack.context.save()
        var request = BatchDeleteRequest(entity: stack.model.entitiesByName["Task"]!)
        request.predicate = try Predicate(format: "priority == 3")
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        guard case .objectIDs(let ids) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(ids, [drop.objectID])
        stack.context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: false))
        XCTAssertTrue(drop.isDeleted)
        XCTAssertEqual(try stack.fetch("Task").map { $0.value(forKey: "title") as? String }, ["Keep"])
        XCTAssertFalse(keep.isDeleted)
    }

    func testBatchUpdateSetsValuesAndRefreshesMergedObjects() throws {
        let stack = try sqliteStack()
        let task = stack.task("Old", priority: 1)
        try stack.context.save()
        var request = BatchUpdateRequest(entity: stack.model.entitiesByName["Task"]!)
        request.predicate = try Predicate(format: "title == %@", "Old")
        request.propertiesToUpdate = ["title": .constant(.string("New"))]
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        stack.context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: true))
        XCTAssertEqual(task.value(forKey: "title") as? String, "New")
    }

    func testBatchUpdateWithCountResultCountsRows() throws {
        let stack = try sqliteStack()
        for n in 0..<3 { _ = stack.task("T\(n)", priority: 2) }
        try stack.context.save()
        var request = BatchUpdateRequest(entity: stack.model.entitiesByName["Task"]!)
        request.propertiesToUpdate = ["priority": .constant(.integer(0))]
        request.resultType = .count
        guard case .count(let count) = try stack.context.execute(request) else { return XCTFail() }
        XCTAssertEqual(count, 3)
    }

    func testBatchRequestsOnAnInMemoryStoreAreRefused() throws {
        let stack = try Stack(storeType: .inMemory)
        let request = BatchDeleteRequest(entity: stack.model.entitiesByName["Task"]!)
        XCTAssertThrowsError(try stack.context.execute(request)) { error in
            XCTAssertTrue("\(error)".contains("need stores that run them (SQLite)"), "\(error)")
        }
    }
}
