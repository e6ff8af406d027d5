// Fetch request options and faulting, on both stores, as Core Data documents them: count(for:)
// of dictionary requests, dictionary results (propertiesToFetch, propertiesToGroupBy with key
// paths, havingPredicate, returnsDistinctResults), sort keys the stores refuse, dictionary fetches
// across several stores, refreshing an object deleted in the current event, dangling references
// to deleted objects and inaccessible faults, MATCHES with an invalid regular expression and with
// a pattern read from each row, includesSubentities with pending changes, and prefetching over
// pending relationship changes.
import Foundation
import XCTest
@testable import ObjectGraph

private typealias Sort = ObjectGraph.SortDescriptor

final class FetchOptionsTests: XCTestCase {
    /// The task model of the store fixtures: a concrete Task with a Milestone sub-entity, a
    /// transient Person.nickname, and the to-many Person.tasks.
    static let taskModel = InMemoryStoreFixture.makeModel()

    private func strings(_ objects: [ManagedObject], _ key: String = "title") -> [String] {
        objects.map { $0.value(forKey: key) as? String ?? "nil" }
    }

    private func count(_ name: String, of key: String) throws -> PropertyToFetch {
        .expression(ExpressionDescription(name: name, expression: try Expression(format: "count:(\(key))"), resultType: .integer64))
    }

    /// Three saved tasks: A and B of priority 1, C of priority 2.
    private func seedPriorities(_ stack: Stack) throws {
        _ = stack.task("A", priority: 1)
        _ = stack.task("B", priority: 1)
        _ = stack.task("C", priority: 2)
        try stack.context.save()
    }

    // MARK: count(for:) of dictionary requests

    /// NSManagedObjectContext.count(for:), return value: "The number of objects a given fetch
    /// request would have returned if it had been passed to fetch(_:)". For a dictionary request
    /// that is the number of dictionaries: distinct ones with returnsDistinctResults, one per
    /// group with propertiesToGroupBy, the groups havingPredicate keeps. Both stores answer the
    /// number of matching rows instead (3 for each request below), ignoring all three options.
    func testCountForADictionaryRequestIsTheNumberOfDictionariesItFetches() throws {
        try forEachStore { stack in
            try seedPriorities(stack)
            var distinct = FetchRequest<[String: Any]>(entityName: "Task")
            distinct.propertiesToFetch = [.property("priority")]
            distinct.returnsDistinctResults = true
            XCTAssertEqual(try stack.context.fetch(distinct).count, 2, "\(stack.storeType)")
            XCTAssertEqual(try stack.context.count(for: distinct), 2, "\(stack.storeType): count(for:) with returnsDistinctResults")

            var grouped = FetchRequest<[String: Any]>(entityName: "Task")
            grouped.propertiesToFetch = [.property("priority"), try count("n", of: "title")]
            grouped.propertiesToGroupBy = ["priority"]
            XCTAssertEqual(try stack.context.fetch(grouped).count, 2, "\(stack.storeType)")
            XCTAssertEqual(try stack.context.count(for: grouped), 2, "\(stack.storeType): count(for:) with propertiesToGroupBy")

            grouped.havingPredicate = try Predicate(format: "n > 1")
            XCTAssertEqual(try stack.context.fetch(grouped).map { doubleValue($0["priority"]) }, [1], "\(stack.storeType)")
            XCTAssertEqual(try stack.context.count(for: grouped), 1, "\(stack.storeType): count(for:) with havingPredicate")
        }
    }

    // MARK: Grouping

    /// NSFetchRequest.propertiesToGroupBy: "An array of NSPropertyDescription or
    /// NSExpressionDescription objects or key-path strings that indicate how data should be
    /// grouped". A key path through a to-one relationship is grouped by as propertiesToFetch
    /// fetches it.
    func testGroupingByAKeyPathThroughAToOneRelationship() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            _ = stack.task("T1", owner: ada)
            _ = stack.task("T2", owner: ada)
            _ = stack.task("T3", owner: bob)
            _ = stack.task("T4")
            try stack.context.save()
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("owner.firstName"), try count("n", of: "title")]
            request.propertiesToGroupBy = ["owner.firstName"]
            request.sortDescriptors = [Sort(key: "owner.firstName")]
            do {
                let rows = try stack.context.fetch(request)
                // The group of tasks without an owner has no "owner.firstName" key (nil values
                // are left out), and sorts first.
                XCTAssertEqual(rows.map { $0["owner.firstName"] as? String }, [nil, "Ada", "Bob"], "\(stack.storeType)")
                XCTAssertEqual(rows.map { doubleValue($0["n"]) }, [1, 2, 1], "\(stack.storeType)")
            } catch {
                XCTFail("\(stack.storeType): grouping by a to-one key path threw \(error)")
            }
        }
    }

    /// NSFetchRequest.propertiesToGroupBy: "the SELECT values must be literals, aggregates, or
    /// columns specified in propertiesToGroupBy". A grouped fetch of `title` (neither grouped
    /// nor aggregated) is refused by both stores (the in-memory store answered it with the value
    /// of the group's first row).
    func testAGroupedFetchOfAnUngroupedPropertyIsRefusedByEveryStore() throws {
        try forEachStore { stack in
            try seedPriorities(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("priority"), .property("title")]
            request.propertiesToGroupBy = ["priority"]
            XCTAssertThrowsError(try stack.context.fetch(request), "\(stack.storeType): title is neither grouped by nor aggregated")
        }
    }

    /// NSFetchRequest.propertiesToFetch: "The property descriptions may represent attributes,
    /// to-one relationships, or expressions." Both stores refuse the to-many `tasks` ("cannot
    /// fetch Person.tasks (a to-many relationship) in a dictionary"; the in-memory store returned
    /// it as an array of object IDs).
    func testADictionaryFetchOfAToManyRelationshipIsRefusedByEveryStore() throws {
        try forEachStore(model: Self.taskModel) { stack in
            let ada = stack.insert("Person", ["name": "Ada"])
            stack.insert("Task", ["title": "T", "owner": ada])
            try stack.context.save()
            var request = FetchRequest<[String: Any]>(entityName: "Person")
            request.propertiesToFetch = [.property("name"), .property("tasks")]
            XCTAssertThrowsError(try stack.context.fetch(request), "\(stack.storeType): tasks is a to-many relationship")
        }
    }

    // MARK: Sort keys

    /// A sort on a to-many key path has no order (Core Data's SQLite store raises "to-many key
    /// not allowed here"), and SQLiteStore.execute documents "A predicate or sort key the store
    /// cannot translate throws unsupportedRequest naming it" (ARCHITECTURE.md: "refuse loudly
    /// what it cannot translate"). Both stores refuse it, with or without pending objects to
    /// sort too (they dropped the descriptor, returning the rows as if unsorted); a collection
    /// operator after the to-many key (`tasks.@count`) is a number and still sorts.
    func testASortOnAToManyKeyPathIsRefusedNotIgnored() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            _ = stack.task("Z", owner: ada)
            _ = stack.task("A", owner: bob)
            _ = stack.task("B", owner: bob)
            try stack.context.save()
            _ = stack.person("Cy")
            for key in ["tasks.title", "tasks"] {
                var request = FetchRequest<ManagedObject>(entityName: "Person")
                request.sortDescriptors = [Sort(key: key, ascending: false)]
                for (context, what) in [(stack.newContext(), "saved objects"), (stack.context, "with a pending object")] {
                    XCTAssertThrowsError(try context.fetch(request),
                                         "\(stack.storeType), \(what): sorting by the to-many key path \(key) was silently ignored") { error in
                        guard case StoreError.unsupportedRequest(let reason) = error else {
                            return XCTFail("\(stack.storeType): \(error) is not unsupportedRequest")
                        }
                        XCTAssertTrue(reason.contains(key), "\(stack.storeType): \(reason) does not name \(key)")
                    }
                }
            }
            var byCount = FetchRequest<ManagedObject>(entityName: "Person")
            byCount.sortDescriptors = [Sort(key: "tasks.@count", ascending: false), Sort(key: "firstName")]
            XCTAssertEqual(strings(try stack.newContext().fetch(byCount), "firstName"), ["Bob", "Ada"], "\(stack.storeType)")
        }
    }

    /// A sort key the entity does not have: both stores throw ("Person has no property
    /// nonexistent"), as Core Data raises (key path not found in entity); the in-memory store
    /// read nil for every row and returned them unsorted.
    func testAnUnknownSortKeyIsRefusedByEveryStore() throws {
        try forEachStore { stack in
            _ = stack.person("Ada")
            _ = stack.person("Bob")
            try stack.context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [Sort(key: "nonexistent")]
            XCTAssertThrowsError(try stack.newContext().fetch(request), "\(stack.storeType): unknown sort key accepted")
        }
    }

    // MARK: Several stores

    /// NSFetchRequest.fetchLimit: "The fetch limit specifies the maximum number of objects that a
    /// request should return when executed"; sortDescriptors "specify how the objects returned
    /// when the NSFetchRequest instance is issued should be ordered". With the entity in two
    /// stores, a dictionary fetch merges, sorts and windows the stores' answers as object, ID and
    /// count fetches do (it concatenated each store's own window: 4 unsorted dictionaries).
    /// A sort key the dictionaries do not hold sorts them too, and distinct results are distinct
    /// across the stores.
    func testADictionaryFetchOverTwoStoresIsSortedAndWindowedAsAWhole() throws {
        let directory = try TemporaryDirectory()
        let urls = [directory.url.appendingPathComponent("a.sqlite"), directory.url.appendingPathComponent("b.sqlite")]
        for (url, names) in zip(urls, [["Bea", "Dan"], ["Al", "Cy"]]) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Stack.organizerModel)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(concurrencyType: .mainQueue)
            context.persistentStoreCoordinator = coordinator
            for name in names {
                let person = context.insertNewObject(forEntityName: "Person")
                person.setValue(name, forKey: "firstName")
                person.setValue(["Bea": "Smith", "Al": "Smith"][name] ?? "Jones", forKey: "lastName")
            }
            try context.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Stack.organizerModel)
        for url in urls { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator

        var objects = FetchRequest<ManagedObject>(entityName: "Person")
        objects.sortDescriptors = [Sort(key: "firstName")]
        objects.fetchLimit = 2
        XCTAssertEqual(strings(try context.fetch(objects), "firstName"), ["Al", "Bea"])
        XCTAssertEqual(try context.count(for: objects), 2)

        var dictionaries = FetchRequest<[String: Any]>(entityName: "Person")
        dictionaries.propertiesToFetch = [.property("firstName")]
        dictionaries.sortDescriptors = [Sort(key: "firstName")]
        dictionaries.fetchLimit = 2
        XCTAssertEqual(try context.fetch(dictionaries).map { $0["firstName"] as? String }, ["Al", "Bea"])
        XCTAssertEqual(try context.count(for: dictionaries), 2)

        var reversed = FetchRequest<[String: Any]>(entityName: "Person")
        reversed.propertiesToFetch = [.property("lastName")]
        reversed.sortDescriptors = [Sort(key: "firstName", ascending: false)]
        reversed.fetchOffset = 1
        // Dan, Cy, Bea, Al without the first: the sort key is fetched along, then dropped.
        XCTAssertEqual(try context.fetch(reversed).map { $0 as? [String: String] }, [["lastName": "Jones"], ["lastName": "Smith"], ["lastName": "Smith"]])

        var distinct = FetchRequest<[String: Any]>(entityName: "Person")
        distinct.propertiesToFetch = [.property("lastName")]
        distinct.sortDescriptors = [Sort(key: "lastName")]
        distinct.returnsDistinctResults = true
        XCTAssertEqual(try context.fetch(distinct).map { $0["lastName"] as? String }, ["Jones", "Smith"])
        XCTAssertEqual(try context.count(for: distinct), 2)
        distinct.fetchLimit = 1
        XCTAssertEqual(try context.fetch(distinct).map { $0["lastName"] as? String }, ["Jones"])
    }

    // MARK: Refreshing a deletion

    /// A saved task (it has to-one relationships) is deleted and, in the same event, refreshed
    /// with mergeChanges false; the next processPendingChanges (here the fetch; a save does the
    /// same) runs the deletion's delete rules on what is now a fault (it trapped with "Index out
    /// of range" in propagateDeletion, reading the emptied slots). refresh(_:mergeChanges:) turns
    /// the object into a fault ("If flag is false, then object is turned into a fault"); the
    /// deletion stays, as it does when processPendingChanges runs between the delete and the
    /// refresh: the delete rules follow the relationships as saved (the owner loses the task) and
    /// the save deletes the row.
    func testRefreshingAnObjectDeletedInTheCurrentEventLeavesTheContextUsable() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("T", owner: ada)
            try stack.context.save()
            stack.context.delete(task)
            stack.context.refresh(task, mergeChanges: false)
            let fetched = try stack.fetch("Task")
            XCTAssertTrue(task.isDeleted, "\(stack.storeType): the refresh keeps the deletion")
            XCTAssertEqual(fetched.count, 0, "\(stack.storeType)")
            XCTAssertEqual(ada.mutableSetValue(forKey: "tasks").count, 0, "\(stack.storeType): the nullify rule ran")
            try stack.context.save()
            let other = stack.newContext()
            XCTAssertEqual(try stack.fetch("Task", in: other).count, 0, "\(stack.storeType)")
            XCTAssertEqual(other.object(with: ada.objectID).mutableSetValue(forKey: "tasks").count, 0, "\(stack.storeType)")
        }
    }

    // MARK: Dangling references

    /// NSManagedObjectContext.shouldDeleteInaccessibleFaults: with it true (the default), an
    /// inaccessible fault ("an object with no underlying data in the persistent store") comes
    /// back as a deleted object with nil attributes, as it does here. Relating a saved task to
    /// that object must not then save a reference to a row that does not exist: Core Data
    /// refuses such a save ("Dangling reference to an invalid object", which ValidationError's
    /// `.danglingReference` names). The save fails naming the task and its owner relationship,
    /// and writes nothing (both stores stored the owner as Person/p1, whose row was deleted).
    func testRelatingToAnInaccessibleFaultDoesNotSaveADanglingReference() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("T")
            try stack.context.save()
            let other = stack.newContext()
            let adaFault = other.object(with: ada.objectID)
            let taskInOther = other.object(with: task.objectID)
            stack.context.delete(ada)
            try stack.context.save()
            taskInOther.setValue(adaFault, forKey: "owner")
            XCTAssertTrue(adaFault.isDeleted, "\(stack.storeType): the inaccessible fault is a deleted object")
            XCTAssertNil(adaFault.value(forKey: "firstName"), "\(stack.storeType)")
            do {
                try other.save()
                let owner = try stored(stack, task.objectID).value(forKey: "owner") as? ManagedObject
                XCTFail("\(stack.storeType): the save went through, storing the task's owner as \(owner.map { "\($0.objectID)" } ?? "nil"), a row that does not exist")
            } catch {
                let failures = (error as? ValidationError)?.failures ?? []
                XCTAssertTrue(failures.contains { $0.rule == .danglingReference && $0.objectID == task.objectID && $0.property == "owner" },
                              "\(stack.storeType): \(error)")
            }
            XCTAssertNil(try stored(stack, task.objectID).value(forKey: "owner"), "\(stack.storeType): the store is unchanged")
        }
    }

    /// The same with an object deleted in the context itself: once its delete rules have run
    /// (the event ended), relating another object to it leaves nothing to clear the reference,
    /// and the save would delete the row and store a reference to it. The save fails naming the
    /// object and the relationship (both stores saved the dangling reference), and writes
    /// nothing: the deleted person is still stored.
    func testRelatingToAnObjectDeletedInTheContextDoesNotSaveADanglingReference() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("T")
            try stack.context.save()
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            task.setValue(ada, forKey: "owner")
            XCTAssertThrowsError(try stack.context.save(), "\(stack.storeType): the save went through") { error in
                let failures = (error as? ValidationError)?.failures ?? []
                XCTAssertTrue(failures.contains { failure in
                    failure.rule == .danglingReference && failure.objectID == task.objectID && failure.property == "owner"
                        && failure.value == "\(ada.objectID)"
                }, "\(stack.storeType): \(error)")
            }
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 1, "\(stack.storeType): the deletion was not written")
            XCTAssertNil(try stored(stack, task.objectID).value(forKey: "owner"), "\(stack.storeType): the task was not written")
        }
    }

    // MARK: Regular expressions

    /// Asserts that `body` throws PredicateError's `.invalidRegularExpression(pattern)` with a
    /// message that names the pattern and quotes no SQL.
    private func assertRefusesPattern(_ pattern: String, _ body: @autoclosure () throws -> Any, _ what: String,
                                      file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), what, file: file, line: line) { error in
            XCTAssertEqual((error as? PredicateError)?.kind, .invalidRegularExpression(pattern), "\(what): \(error)", file: file, line: line)
            let message = "\(error)"
            XCTAssertTrue(message.contains("\"\(pattern)\" is not a valid regular expression"), "\(what): \(message)",
                          file: file, line: line)
            XCTAssertFalse(message.contains("SELECT"), "\(what): \(message)", file: file, line: line)
        }
    }

    /// `MATCHES` with a pattern that is not a regular expression fails every fetch with the same
    /// clear error naming the pattern (PredicateError's `.invalidRegularExpression`): with saved
    /// rows, with none that reach the comparison, for count(for:), and when a pending object is
    /// evaluated. The SQLite store failed at run time with SQLite's error quoting its whole
    /// statement; the in-memory store only when a row reached the comparison.
    func testMatchingAnInvalidRegularExpressionIsRefusedNamingThePattern() throws {
        try forEachStore { stack in
            _ = stack.task("A")
            try stack.context.save()
            let predicate = try Predicate(format: #"title MATCHES "(a""#)
            func assertRefused(_ body: @autoclosure () throws -> Any, _ what: String) {
                assertRefusesPattern("(a", try body(), "\(stack.storeType), \(what)")
            }
            var tasks = FetchRequest<ManagedObject>(entityName: "Task")
            tasks.predicate = predicate
            assertRefused(try stack.newContext().fetch(tasks), "saved rows")
            assertRefused(try stack.newContext().count(for: tasks), "count(for:)")
            var events = FetchRequest<ManagedObject>(entityName: "Event")
            events.predicate = predicate
            assertRefused(try stack.newContext().fetch(events), "no rows")
            let pending = stack.task("B")
            assertRefused(try stack.context.fetch(tasks), "a pending object")
            assertRefused(try predicate.evaluate(with: pending), "the pending object evaluated")
        }
    }

    /// People whose last name is a regular expression for their first name, or not: whole-string
    /// matching (`cat|category` takes "category"), `.` across a line break, the [c] and [cd]
    /// options, an escaped metacharacter, and a nil pattern. Saved, so that the stores answer.
    private func savePeopleWithPatterns(_ stack: Stack) throws {
        let people: [(String, String?)] = [
            ("category", "cat|category"), ("cat", "cat|category"), ("abc", "a.c"), ("ABC", "a.c"),
            ("Café", "cafe"), ("line1\nline2", "line1.line2"), ("x+", #"x\+"#), ("xx", #"x\+"#), ("nobody", nil),
        ]
        for (first, last) in people { _ = stack.person(first, last) }
        try stack.context.save()
    }

    /// The first names of the saved people matching `predicate`, fetched in a fresh context so
    /// that the store evaluates it, sorted.
    private func firstNames(_ stack: Stack, _ predicate: Predicate) throws -> [String] {
        var request = FetchRequest<ManagedObject>(entityName: "Person")
        request.predicate = predicate
        return strings(try stack.newContext().fetch(request), "firstName").sorted()
    }

    /// MATCHES whose pattern is another attribute of each row ("The left hand expression equals
    /// the right hand expression using a regex-style comparison according to ICU v3", a whole-
    /// string match): the SQLite store compiles each row's pattern and finds what the in-memory
    /// evaluator finds, with options, under NOT (a nil pattern matches nothing, so NOT takes
    /// it), and with a constant subject.
    func testMatchingAPatternFromAnotherAttributeFindsTheSameObjectsOnBothStores() throws {
        let formats = [
            "firstName MATCHES lastName", "firstName MATCHES[c] lastName", "firstName MATCHES[d] lastName",
            "firstName MATCHES[cd] lastName", "NOT firstName MATCHES lastName", "'category' MATCHES lastName",
        ]
        var found: [StoreType: [[String]]] = [:]
        try forEachStore { stack in
            try savePeopleWithPatterns(stack)
            found[stack.storeType] = try formats.map { try firstNames(stack, Predicate(format: $0)) }
        }
        let inMemory = try XCTUnwrap(found[.inMemory]), sqlite = try XCTUnwrap(found[.sqlite])
        for (index, format) in formats.enumerated() {
            XCTAssertEqual(sqlite[index], inMemory[index], format)
        }
        XCTAssertEqual(inMemory[0], ["abc", "cat", "category", "line1\nline2", "x+"])
        XCTAssertEqual(inMemory[3], ["ABC", "Café", "abc", "cat", "category", "line1\nline2", "x+"])
        XCTAssertEqual(inMemory[4], ["ABC", "Café", "nobody", "xx"])
    }

    /// A variable substituted with a key path after the predicate was parsed (`$pattern` as
    /// `lastName`) is a per-row pattern too, and both stores answer it alike.
    func testMatchingAPatternSubstitutedAsAKeyPathFindsTheSameObjectsOnBothStores() throws {
        let predicate = try Predicate(format: "firstName MATCHES[c] $pattern")
            .withSubstitutionVariables(["pattern": Expression.keyPath("lastName")])
        try forEachStore { stack in
            try savePeopleWithPatterns(stack)
            XCTAssertEqual(try firstNames(stack, predicate), ["ABC", "abc", "cat", "category", "line1\nline2", "x+"], "\(stack.storeType)")
        }
    }

    /// More distinct per-row patterns than a store keeps compiled at once: each row is still
    /// matched against its own pattern.
    func testMatchingMorePerRowPatternsThanAreKeptCompiledMatchesEachRowAgainstItsOwn() throws {
        try forEachStore { stack in
            for number in 0..<150 {
                // Every third person's pattern is another's number, so that it does not match.
                _ = stack.person("n\(number)", number % 3 == 0 ? "n\(number + 1)" : "n\(number)")
            }
            try stack.context.save()
            let found = try firstNames(stack, Predicate(format: "firstName MATCHES lastName"))
            XCTAssertEqual(found, (0..<150).filter { $0 % 3 != 0 }.map { "n\($0)" }.sorted(), "\(stack.storeType)")
        }
    }

    /// A per-row pattern that is not a regular expression fails the fetch with the error a
    /// constant one gives (PredicateError's `.invalidRegularExpression`, naming the pattern), on
    /// both stores, for fetch and count(for:); no row is left out silently, nothing traps, and
    /// the next fetch works. The SQLite store failed with SQLite's error quoting its statement.
    func testAnInvalidPatternInOneRowFailsTheFetchNamingThePattern() throws {
        try forEachStore { stack in
            try savePeopleWithPatterns(stack)
            _ = stack.person("q", "(a")
            try stack.context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = try Predicate(format: "firstName MATCHES lastName")
            assertRefusesPattern("(a", try stack.newContext().fetch(request), "\(stack.storeType), fetch")
            assertRefusesPattern("(a", try stack.newContext().count(for: request), "\(stack.storeType), count(for:)")
            request.predicate = try Predicate(format: "firstName MATCHES[c] 'c.*'")
            XCTAssertEqual(strings(try stack.newContext().fetch(request), "firstName").sorted(), ["Café", "cat", "category"],
                           "\(stack.storeType): the fetch after the failure")
        }
    }

    // MARK: Sub-entities and prefetching with pending changes

    /// includesSubentities false ("whether the fetch request includes subentities"; unsaved
    /// inserts of the entity only are "retrieved if the fetch request is executed on that
    /// context") with an offset, a limit, a batch size, object IDs and count(for:), before and
    /// after the save.
    func testExcludingSubentitiesWithPendingInsertsOfBothEntitiesAndAWindow() throws {
        try forEachStore(model: Self.taskModel) { stack in
            for title in ["A", "C", "E"] { stack.insert("Task", ["title": title]) }
            for title in ["B", "D"] { stack.insert("Milestone", ["title": title]) }
            try stack.context.save()
            stack.insert("Task", ["title": "AA"])
            stack.insert("Milestone", ["title": "AB"])
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.includesSubentities = false
            request.sortDescriptors = [Sort(key: "title")]
            request.fetchOffset = 1
            request.fetchLimit = 2
            XCTAssertEqual(strings(try stack.context.fetch(request)), ["AA", "C"], "\(stack.storeType)")
            XCTAssertEqual(try stack.context.count(for: request), 2, "\(stack.storeType)")
            var ids = FetchRequest<ObjectID>(entityName: "Task")
            ids.includesSubentities = false
            ids.sortDescriptors = request.sortDescriptors
            ids.fetchOffset = 1
            ids.fetchLimit = 2
            XCTAssertEqual(try stack.context.fetch(ids), try stack.context.fetch(request).map(\.objectID), "\(stack.storeType)")
            var batched = request
            batched.fetchBatchSize = 1
            XCTAssertEqual(strings(try stack.context.fetch(batched)), ["AA", "C"], "\(stack.storeType)")
            XCTAssertEqual(strings(Array(try stack.context.fetchBatched(batched))), ["AA", "C"], "\(stack.storeType)")
            try stack.context.save()
            XCTAssertEqual(strings(try stack.newContext().fetch(request)), ["AA", "C"], "\(stack.storeType) after the save")
        }
    }

    /// relationshipKeyPathsForPrefetching over unsaved relationship changes: a saved task moved
    /// to another owner and a new task given to a saved owner, neither owner's tasks loaded.
    /// The prefetched relationships must show the context's state, as firing them would.
    func testPrefetchingAToManyRelationshipShowsPendingMoves() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let moved = stack.task("T1", owner: ada)
            _ = stack.task("T2", owner: ada)
            try stack.context.save()
            let other = stack.newContext()
            other.object(with: moved.objectID).setValue(other.object(with: bob.objectID), forKey: "owner")
            stack.insert("Task", ["title": "T3", "uuid": UUID()], into: other)
                .setValue(other.object(with: ada.objectID), forKey: "owner")
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [Sort(key: "firstName")]
            request.relationshipKeyPathsForPrefetching = ["tasks"]
            let people = try other.fetch(request)
            XCTAssertEqual(Set(strings(people[0].mutableSetValue(forKey: "tasks").objects)), ["T2", "T3"], "\(stack.storeType)")
            XCTAssertEqual(Set(strings(people[1].mutableSetValue(forKey: "tasks").objects)), ["T1"], "\(stack.storeType)")
        }
    }
}
