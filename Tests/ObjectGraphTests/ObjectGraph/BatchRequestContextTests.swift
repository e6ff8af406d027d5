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

    /// Core Data's `NSBatchDeleteRequest(fetchRequest:)`: the fetch's predicate, sort and limit
    /// choose the rows, so a limit deletes in chunks, oldest first here.
    func testABatchDeleteMadeFromAFetchRequestDeletesItsResultsInChunks() throws {
        let stack = try sqliteStack()
        for title in ["E", "A", "D", "B", "C", "Z"] { _ = stack.task(title) }
        try stack.context.save()
        var fetch = FetchRequest<ManagedObject>(entityName: "Task")
        fetch.predicate = try Predicate(format: "title != 'Z'")
        fetch.sortDescriptors = [SortDescriptor(key: "title")]
        fetch.fetchLimit = 2
        var request = BatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .count
        XCTAssertEqual(request.fetchRequest.fetchLimit, 2)
        var left: [[String?]] = []
        while case .count(let deleted) = try stack.context.execute(request), deleted > 0 {
            left.append(try stack.fetch("Task", sortedBy: "title", in: stack.newContext()).map { $0.value(forKey: "title") as? String })
        }
        XCTAssertEqual(left, [["C", "D", "E", "Z"], ["E", "Z"], ["Z"]])
    }

    func testAStoreRunsABatchDeleteMadeFromAFetchRequest() throws {
        let stack = try sqliteStack()
        for title in ["A", "B", "C"] { _ = stack.task(title) }
        try stack.context.save()
        var fetch = FetchRequest<ManagedObject>(entityName: "Task")
        fetch.predicate = try Predicate(format: "title != 'B'")
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        XCTAssertEqual(try store.execute(BatchDeleteRequest(fetchRequest: fetch)), .status(true))
        XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).map { $0.value(forKey: "title") as? String }, ["B"])
    }

    func testABatchDeleteFromAFetchRequestOfAnUnknownEntityNamesIt() throws {
        let stack = try sqliteStack()
        XCTAssertThrowsError(try stack.context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Taks")))) {
            XCTAssertTrue("\($0)".contains("no entity \"Taks\""), "\($0)")
        }
    }

    /// Core Data's `NSBatchDeleteRequest(objectIDs:)`: those rows go (with their cascades);
    /// IDs of two entities, or of an unsaved object, are refused and delete nothing.
    func testABatchDeleteByObjectIDsDeletesThoseRowsOnly() throws {
        let stack = try sqliteStack()
        let ada = stack.person("Ada")
        let bob = stack.person("Bob")
        let task = stack.task("Plan", owner: ada)
        let other = stack.task("Other", owner: bob)
        try stack.context.save()
        let unsaved = stack.person("Carol")
        XCTAssertThrowsError(try stack.context.execute(BatchDeleteRequest(objectIDs: [ada.objectID, task.objectID]))) {
            XCTAssertTrue("\($0)".contains("is a Task, not a Person"), "\($0)")
        }
        XCTAssertThrowsError(try stack.context.execute(BatchDeleteRequest(objectIDs: [ada.objectID, unsaved.objectID]))) {
            XCTAssertTrue("\($0)".contains("temporary"), "\($0)")
        }
        XCTAssertEqual(try stack.context.execute(BatchDeleteRequest(objectIDs: [])), .status(true))
        XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 2, "the refused requests deleted nothing")

        var request = BatchDeleteRequest(objectIDs: [ada.objectID])
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        XCTAssertEqual(result, .objectIDs([ada.objectID, task.objectID]), "the person and the task its cascade rule reaches")
        let fresh = stack.newContext()
        XCTAssertEqual(try stack.fetch("Person", in: fresh).map { $0.objectID }, [bob.objectID])
        XCTAssertEqual(try stack.fetch("Task", in: fresh).map { $0.objectID }, [other.objectID])
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
