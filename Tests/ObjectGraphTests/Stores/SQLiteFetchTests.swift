// Fetch request options through a context on the SQLite store: batch size, prefetching, pending
// changes, counts, partial objects, object IDs and dictionaries; a fetch's statement, values and
// query plan (indexes used); and the SQL debug output.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteFetchTests: XCTestCase {
    /// A saved organizer: Ada with tasks "t00"..."t29" (priority n % 4), Bob with none.
    private func organizer() throws -> Stack {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        _ = stack.person("Bob")
        for n in 0..<30 { _ = stack.task(String(format: "t%02d", n), priority: n % 4, owner: ada) }
        try stack.context.save()
        return stack
    }

    /// A fresh context on the stack's coordinator (nothing registered).
    private func fresh(_ stack: Stack) -> ManagedObjectContext { stack.newContext() }

    func testBatchedFetchReturnsEveryObjectInOrder() throws {
        let stack = try organizer()
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.fetchBatchSize = 7
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "title", ascending: false)]
        let context = fresh(stack)
        let tasks = try context.fetch(request)
        XCTAssertEqual(tasks.count, 30)
        XCTAssertEqual(tasks.map { $0.value(forKey: "title") as? String }, (0..<30).reversed().map { String(format: "t%02d", $0) })
    }

    func testPrefetchedRelationshipsAreLoaded() throws {
        let stack = try organizer()
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.relationshipKeyPathsForPrefetching = ["owner"]
        request.predicate = try Predicate(format: "priority == 1")
        let context = fresh(stack)
        let tasks = try context.fetch(request)
        XCTAssertEqual(tasks.count, 8)
        XCTAssertTrue(tasks.allSatisfy { ($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "firstName") as? String == "Ada" })
    }

    /// Prefetching to-many relationships (many-to-many, and ordered one-to-many beyond it) takes
    /// a few statements per relationship, however many objects were fetched, and loads what
    /// reading the relationships one object at a time would.
    func testPrefetchingToManyTakesStatementsPerRelationshipNotPerObject() throws {
        let stack = try Stack(storeType: .sqlite)
        let people = (0..<6).map { stack.person("P\($0)") }
        for (n, person) in people.enumerated() {
            for t in 0..<(n % 3) { _ = stack.task("\(n)-\(t)", owner: person) }
        }
        for n in 0..<20 {
            let event = stack.event("E\(n)")
            event.setValue(Set(people.enumerated().filter { ($0.offset + n) % 4 == 0 }.map(\.element)), forKey: "attendees")
        }
        try stack.context.save()
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        func statements() -> Int { store.lock.withLock { store.connection.statementsRun } }
        /// Each event's title with its attendees' names and their tasks' titles, in order.
        func described(_ events: [ManagedObject]) -> [String] {
            events.map { event in
                let attendees = (event.value(forKey: "attendees") as? Set<ManagedObject> ?? []).map { person in
                    let tasks = (person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements ?? []
                    return "\(person.value(forKey: "firstName") as? String ?? "")\(tasks.map { $0.value(forKey: "title") as? String ?? "" })"
                }
                return "\(event.value(forKey: "title") as? String ?? ""): \(attendees.sorted())"
            }
        }
        var request = FetchRequest<ManagedObject>(entityName: "Event")
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "title")]
        let expected = described(try fresh(stack).fetch(request))
        request.relationshipKeyPathsForPrefetching = ["attendees.tasks"]
        let context = fresh(stack)
        let start = statements()
        let events = try context.fetch(request)
        let fetched = statements()
        // The events; the attendees' IDs and rows; their tasks, and the tasks' order.
        XCTAssertLessThanOrEqual(fetched - start, 5)
        XCTAssertEqual(described(events), expected)
        XCTAssertEqual(statements(), fetched, "reading prefetched relationships ran statements")
    }

    func testFetchIncludesPendingChanges() throws {
        let stack = try organizer()
        _ = stack.task("unsaved", priority: 3)
        let found = try stack.fetch("Task", "priority == 3 AND title BEGINSWITH 'u'")
        XCTAssertEqual(found.map { $0.value(forKey: "title") as? String }, ["unsaved"])
    }

    func testCountsObjectIDsAndPartialObjects() throws {
        let stack = try organizer()
        let context = fresh(stack)
        var count = FetchRequest<Int>(entityName: "Task")
        count.predicate = try Predicate(format: "owner.firstName == 'Ada' AND priority >= 2")
        XCTAssertEqual(try context.count(for: count), 14)
        var ids = FetchRequest<ObjectID>(entityName: "Person")
        ids.sortDescriptors = [ObjectGraph.SortDescriptor(key: "firstName", ascending: false)]
        XCTAssertEqual(try context.fetch(ids).count, 2)
        var partial = FetchRequest<ManagedObject>(entityName: "Task")
        partial.propertiesToFetch = [.property("title")]
        partial.predicate = try Predicate(format: "title == 't07'")
        let task = try XCTUnwrap(context.fetch(partial).first)
        XCTAssertEqual(task.value(forKey: "title") as? String, "t07")
        XCTAssertEqual(task.value(forKey: "priority") as? Int16, 3)
    }

    func testDictionariesThroughTheContext() throws {
        let stack = try organizer()
        var request = FetchRequest<[String: Any]>(entityName: "Task")
        request.propertiesToFetch = [.property("priority"),
                                     .expression(ExpressionDescription(name: "n", expression: try Expression(format: "count:(title)"), resultType: .integer64))]
        request.propertiesToGroupBy = ["priority"]
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "priority")]
        let context = fresh(stack)
        let rows = try context.fetch(request)
        XCTAssertEqual(rows.map { $0["priority"] as? Int16 }, [0, 1, 2, 3])
        XCTAssertEqual(rows.map { $0["n"] as? Int }, [8, 8, 7, 7])
    }

    func testStatementsBindEveryValueAndPlansUseTheIndexes() throws {
        let f = try SQLiteStoreFixture()
        let request = try f.request("Person", "email == %@ AND name BEGINSWITH[c] %@", "o'hara@example.org", "o'")
        let (sql, arguments) = try f.store.statement(for: request)
        XCTAssertFalse(sql.contains("o'hara"), sql)
        XCTAssertEqual(arguments, [.text("o'hara@example.org"), .text("o'")])
        let plan = try f.store.queryPlan(for: request)
        XCTAssertTrue(plan.contains { $0.contains("USING INDEX ZPERSON_UNIQUE_EMAIL") }, "\(plan)")
        let stack = try Stack(storeType: .sqlite)
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        var byName = StoreFetchRequest(entity: stack.model.entitiesByName["Person"]!)
        byName.predicate = try Predicate(format: "lastName == 'Lovelace'")
        let namePlan = try store.queryPlan(for: byName)
        XCTAssertTrue(namePlan.contains { $0.contains("USING INDEX ZPERSON_PERSON_BYNAME") }, "\(namePlan)")
    }

    func testSQLDebugPrintsStatementsValuesAndPlans() throws {
        let directory = try TemporaryDirectory()
        let log = directory.url.appendingPathComponent("stderr.txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
        let handle = try FileHandle(forWritingTo: log)
        let saved = dup(2)
        setenv("OBJECTGRAPH_SQL_DEBUG", "3", 1)
        dup2(handle.fileDescriptor, 2)
        defer {
            dup2(saved, 2)
            close(saved)
            unsetenv("OBJECTGRAPH_SQL_DEBUG")
        }
        let f = try SQLiteStoreFixture()
        _ = try f.ids(f.request("Person", "name == %@", "Ada Debug"))
        dup2(saved, 2)
        let text = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(text.contains("objectgraph SQL ("), text)
        XCTAssertTrue(text.contains("'Ada Debug'"), text)
        XCTAssertTrue(text.contains("objectgraph SQL plan:"), text)
    }
}
