// Fetching: predicates, sorting, limits and offsets, batching, sub-entities, unsaved changes
// (inserted objects found, deleted ones left out, changed ones re-evaluated), faults and partial
// fetches, prefetching, result types (objects, IDs, counts, dictionaries with grouping and
// aggregates), the model's fetch request templates, and fetched properties.
import Foundation
import XCTest
@testable import ObjectGraph

final class FetchingTests: XCTestCase {
    private func names(_ objects: [ManagedObject], _ key: String = "firstName") -> [String] {
        objects.map { $0.value(forKey: key) as? String ?? "?" }
    }

    private func makeRequest(_ entity: String, _ format: String? = nil, _ args: Any?..., sortedBy keys: [String] = []) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let format { request.predicate = try Predicate(format: format, argumentArray: args) }
        request.sortDescriptors = keys.map { SortDescriptor(key: $0) }
        return request
    }

    /// Four saved tasks: Alpha(p1, Ada), Beta(p3, Ada), Gamma(p3, Bob, done), Delta(p0, no owner).
    private func seedTasks(_ stack: Stack) throws -> (ada: ManagedObject, bob: ManagedObject) {
        let ada = stack.person("Ada", "Lovelace")
        let bob = stack.person("Bob", "Babbage")
        _ = stack.task("Alpha", priority: 1, owner: ada)
        _ = stack.task("Beta", priority: 3, owner: ada)
        stack.task("Gamma", priority: 3, owner: bob).setValue(true, forKey: "done")
        _ = stack.task("Delta", priority: 0)
        try stack.context.save()
        return (ada, bob)
    }

    // MARK: Predicates, sorting, windows

    func testPredicateAndSortDescriptorsSelectAndOrder() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = try makeRequest("Task", "priority >= %d", 1)
            request.sortDescriptors = [SortDescriptor(key: "priority", ascending: false), SortDescriptor(key: "title")]
            XCTAssertEqual(names(try stack.context.fetch(request), "title"), ["Beta", "Gamma", "Alpha"])
        }
    }

    func testPredicateComparingARelationshipWithAnObject() throws {
        try forEachStore { stack in
            let (ada, _) = try seedTasks(stack)
            let request = try makeRequest("Task", "owner == %@", ada, sortedBy: ["title"])
            XCTAssertEqual(names(try stack.context.fetch(request), "title"), ["Alpha", "Beta"])
            let other = stack.newContext()
            let adaThere = other.object(with: ada.objectID)
            let there = try makeRequest("Task", "owner == %@", adaThere, sortedBy: ["title"])
            XCTAssertEqual(names(try other.fetch(there), "title"), ["Alpha", "Beta"])
        }
    }

    func testFetchLimitAndOffsetWindowTheSortedResults() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = try makeRequest("Task", sortedBy: ["title"])
            request.fetchLimit = 2
            XCTAssertEqual(names(try stack.context.fetch(request), "title"), ["Alpha", "Beta"])
            request.fetchOffset = 1
            XCTAssertEqual(names(try stack.context.fetch(request), "title"), ["Beta", "Delta"])
            request.fetchOffset = 3
            XCTAssertEqual(names(try stack.context.fetch(request), "title"), ["Gamma"])
            request.fetchOffset = 10
            XCTAssertEqual(try stack.context.fetch(request).count, 0)
        }
    }

    func testFetchBatchSizeReturnsEveryObjectAndLoadsThemABatchAtATime() throws {
        try forEachStore { stack in
            for index in 0..<5 { _ = stack.task("T\(index)", priority: index % 4) }
            try stack.context.save()
            let other = stack.newContext()
            var request = try makeRequest("Task", sortedBy: ["title"])
            request.fetchBatchSize = 2
            let results = try other.fetch(request)
            XCTAssertEqual(results.count, 5)
            XCTAssertTrue(results.allSatisfy(\.isFault))
            XCTAssertEqual(results[0].value(forKey: "title") as? String, "T0")
            XCTAssertFalse(results[1].isFault, "firing one fault loads its whole batch")
            XCTAssertTrue(results[2].isFault, "the next batch stays unloaded")
            XCTAssertEqual(names(results, "title"), ["T0", "T1", "T2", "T3", "T4"])
        }
    }

    func testSubentitiesAreIncludedUnlessExcluded() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            _ = stack.event("Meeting")
            try stack.context.save()
            var items = try makeRequest("Item")
            XCTAssertEqual(try stack.context.fetch(items).count, 5)
            XCTAssertEqual(try stack.context.count(for: items), 5)
            items.includesSubentities = false
            XCTAssertEqual(try stack.context.fetch(items).count, 0)
            XCTAssertEqual(try stack.context.count(for: items), 0)
            var tasks = try makeRequest("Task")
            tasks.includesSubentities = false
            XCTAssertEqual(try stack.context.fetch(tasks).count, 4)
        }
    }

    func testAbstractEntityPredicateOnInheritedAttributeMatchesSubentities() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            _ = stack.event("Alpha meeting")
            try stack.context.save()
            let request = try makeRequest("Item", "title BEGINSWITH %@", "Alpha", sortedBy: ["title"])
            let results = try stack.context.fetch(request)
            XCTAssertEqual(results.map(\.entity.name), ["Task", "Event"])
        }
    }

    // MARK: Pending changes

    func testUnsavedInsertedObjectsAreFound() throws {
        try forEachStore { stack in
            _ = stack.person("Ada")
            try stack.context.save()
            let bob = stack.person("Bob")
            XCTAssertEqual(names(try stack.fetch("Person", sortedBy: "firstName")), ["Ada", "Bob"])
            XCTAssertEqual(try stack.fetch("Person", "firstName == 'Bob'"), [bob])
        }
    }

    func testUnsavedDeletedObjectsAreLeftOut() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.person("Bob")
            try stack.context.save()
            stack.context.delete(ada)
            XCTAssertEqual(names(try stack.fetch("Person")), ["Bob"])
            var request = try makeRequest("Person")
            request.resultType = .managedObjectID
            XCTAssertEqual(try stack.context.count(for: request), 1)
        }
    }

    func testUnsavedChangesAreReevaluatedAgainstThePredicate() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            let alpha = try XCTUnwrap(try stack.fetch("Task", "title == 'Alpha'").first)
            alpha.setValue(3, forKey: "priority")
            XCTAssertEqual(names(try stack.fetch("Task", "priority == 3", sortedBy: "title"), "title"), ["Alpha", "Beta", "Gamma"])
            XCTAssertEqual(try stack.fetch("Task", "priority == 1"), [])
            XCTAssertEqual(try stack.context.count(for: try makeRequest("Task", "priority == 1")), 0)
            XCTAssertEqual(try stack.context.count(for: try makeRequest("Task", "priority == 3")), 3)
        }
    }

    func testRelationshipChangesAreReevaluatedAgainstThePredicate() throws {
        try forEachStore { stack in
            let (ada, bob) = try seedTasks(stack)
            let alpha = try XCTUnwrap(try stack.fetch("Task", "title == 'Alpha'").first)
            alpha.setValue(bob, forKey: "owner")
            XCTAssertEqual(names(try stack.context.fetch(try makeRequest("Task", "owner == %@", ada, sortedBy: ["title"])), "title"), ["Beta"])
            XCTAssertEqual(names(try stack.context.fetch(try makeRequest("Task", "owner == %@", bob, sortedBy: ["title"])), "title"), ["Alpha", "Gamma"])
        }
    }

    func testPendingAndStoredObjectsAreSortedAndWindowedTogether() throws {
        try forEachStore { stack in
            _ = stack.person("Bob")
            _ = stack.person("Dan")
            try stack.context.save()
            _ = stack.person("Ada")
            _ = stack.person("Carol")
            var request = try makeRequest("Person", sortedBy: ["firstName"])
            XCTAssertEqual(names(try stack.context.fetch(request)), ["Ada", "Bob", "Carol", "Dan"])
            request.fetchLimit = 3
            XCTAssertEqual(names(try stack.context.fetch(request)), ["Ada", "Bob", "Carol"])
            request.fetchOffset = 1
            request.fetchLimit = 2
            XCTAssertEqual(names(try stack.context.fetch(request)), ["Bob", "Carol"])
            XCTAssertEqual(try stack.context.count(for: request), 2)
        }
    }

    func testIncludesPendingChangesFalseSeesOnlyTheStore() throws {
        try forEachStore { stack in
            _ = stack.person("Ada")
            try stack.context.save()
            _ = stack.person("Bob")
            var request = try makeRequest("Person", sortedBy: ["firstName"])
            request.includesPendingChanges = false
            XCTAssertEqual(names(try stack.context.fetch(request)), ["Ada"])
            XCTAssertEqual(try stack.context.count(for: request), 1)
        }
    }

    func testCountIncludesPendingInsertsAndDeletes() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.person("Bob")
            try stack.context.save()
            stack.context.delete(ada)
            _ = stack.person("Carol")
            _ = stack.person("Dan")
            XCTAssertEqual(try stack.context.count(for: try makeRequest("Person")), 3)
            XCTAssertEqual(try stack.context.count(for: try makeRequest("Person", "firstName < 'C'")), 1)
        }
    }

    func testObjectIDResultsIncludePendingInserts() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let bob = stack.person("Bob")
            var request = FetchRequest<ObjectID>(entityName: "Person")
            request.sortDescriptors = [SortDescriptor(key: "firstName")]
            XCTAssertEqual(request.resultType, .managedObjectID)
            XCTAssertEqual(try stack.context.fetch(request), [ada.objectID, bob.objectID])
        }
    }

    // MARK: Faults, partial fetches, prefetching

    func testObjectsComeBackAsFaultsByDefault() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            let other = stack.newContext()
            let tasks = try other.fetch(try makeRequest("Task", sortedBy: ["title"]))
            XCTAssertTrue(tasks.allSatisfy(\.isFault))
            XCTAssertEqual(tasks[0].value(forKey: "title") as? String, "Alpha")
            XCTAssertFalse(tasks[0].isFault)
        }
    }

    func testReturnsObjectsAsFaultsFalseLoadsTheValues() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            let other = stack.newContext()
            var request = try makeRequest("Task", sortedBy: ["title"])
            request.returnsObjectsAsFaults = false
            let tasks = try other.fetch(request)
            XCTAssertEqual(tasks.count, 4)
            XCTAssertTrue(tasks.allSatisfy { !$0.isFault })
            XCTAssertEqual(names(tasks, "title"), ["Alpha", "Beta", "Delta", "Gamma"])
        }
    }

    func testIncludesPropertyValuesFalseReturnsFaultsWithCorrectValues() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            let other = stack.newContext()
            var request = try makeRequest("Task", sortedBy: ["title"])
            request.includesPropertyValues = false
            request.returnsObjectsAsFaults = false
            let tasks = try other.fetch(request)
            XCTAssertTrue(tasks.allSatisfy(\.isFault))
            XCTAssertEqual(names(tasks, "title"), ["Alpha", "Beta", "Delta", "Gamma"])
        }
    }

    func testPropertiesToFetchLoadsTheRestOnDemand() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            let other = stack.newContext()
            var request = try makeRequest("Person", sortedBy: ["firstName"])
            request.propertiesToFetch = [.property("firstName")]
            let people = try other.fetch(request)
            XCTAssertEqual(names(people), ["Ada", "Bob"])
            XCTAssertEqual(people.map { $0.value(forKey: "lastName") as? String }, ["Lovelace", "Babbage"])
            XCTAssertFalse(people[0].hasChanges)
            people[0].setValue("Byron", forKey: "lastName")
            try other.save()
            XCTAssertEqual(try stack.fetch("Person", "lastName == 'Byron'", in: stack.newContext()).count, 1)
            XCTAssertEqual(try stack.fetch("Person", "firstName == 'Ada'", in: stack.newContext()).count, 1)
        }
    }

    func testPrefetchingToManyRelationshipLoadsTheDestinations() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            // Without prefetching, the tasks are faults.
            let plain = stack.newContext()
            let plainAda = try XCTUnwrap(try plain.fetch(try makeRequest("Person", "firstName == 'Ada'")).first)
            let plainTasks = try XCTUnwrap(plainAda.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
            XCTAssertTrue(plainTasks.elements.allSatisfy(\.isFault))
            // With it, they are loaded, in the relationship's order.
            let other = stack.newContext()
            var request = try makeRequest("Person", sortedBy: ["firstName"])
            request.relationshipKeyPathsForPrefetching = ["tasks"]
            let people = try other.fetch(request)
            let tasks = try XCTUnwrap(people[0].value(forKey: "tasks") as? OrderedSet<ManagedObject>)
            XCTAssertEqual(tasks.count, 2)
            XCTAssertTrue(tasks.elements.allSatisfy { !$0.isFault })
            XCTAssertEqual(names(tasks.elements, "title"), ["Alpha", "Beta"])
        }
    }

    func testAPrefetchedUnorderedRelationshipAnswersMembershipAndChanges() throws {
        try forEachStore { stack in
            let meeting = stack.insert("Event", ["title": "Meeting", "uuid": UUID(), "start": Date(timeIntervalSince1970: 0)])
            let agenda = stack.task("Agenda"), slides = stack.task("Slides"), room = stack.task("Room")
            meeting.mutableSetValue(forKey: "preparation").insert(agenda)
            meeting.mutableSetValue(forKey: "preparation").insert(slides)
            try stack.context.save()
            // Prefetched, the relationship keeps its objects in order without an index; asking
            // for a member, adding and removing make one then.
            let other = stack.newContext()
            var request = try makeRequest("Event")
            request.relationshipKeyPathsForPrefetching = ["preparation"]
            let fetched = try XCTUnwrap(try other.fetch(request).first)
            let preparation = fetched.mutableSetValue(forKey: "preparation")
            XCTAssertEqual(Set(names(preparation.objects, "title")), ["Agenda", "Slides"])
            let otherAgenda = other.object(with: agenda.objectID), otherRoom = other.object(with: room.objectID)
            XCTAssertTrue(preparation.contains(otherAgenda))
            XCTAssertFalse(preparation.contains(otherRoom))
            preparation.insert(otherRoom)
            preparation.insert(otherAgenda)
            XCTAssertEqual(preparation.count, 3, "an object already there is not added again")
            preparation.remove(otherAgenda)
            XCTAssertEqual(Set(names(preparation.objects, "title")), ["Slides", "Room"])
            XCTAssertTrue(otherRoom.value(forKey: "event") as? ManagedObject === fetched)
            XCTAssertNil(otherAgenda.value(forKey: "event"))
        }
    }

    func testPrefetchingToOneRelationshipLoadsTheDestinations() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            let other = stack.newContext()
            var request = try makeRequest("Task", "owner != nil", sortedBy: ["title"])
            request.relationshipKeyPathsForPrefetching = ["owner"]
            let tasks = try other.fetch(request)
            let owners = tasks.compactMap { $0.value(forKey: "owner") as? ManagedObject }
            XCTAssertEqual(owners.count, 3)
            XCTAssertTrue(owners.allSatisfy { !$0.isFault })
            XCTAssertEqual(names(owners), ["Ada", "Ada", "Bob"])
        }
    }

    // MARK: Result types

    func testCountResultType() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = FetchRequest<Int>(entityName: "Task")
            request.predicate = try Predicate(format: "done == NO")
            XCTAssertEqual(request.resultType, .count)
            XCTAssertEqual(try stack.context.fetch(request), [3])
        }
    }

    func testDictionaryResultsHoldTheFetchedProperties() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("title"), .property("priority"), .property("owner.firstName")]
            request.sortDescriptors = [SortDescriptor(key: "title")]
            let rows = try stack.context.fetch(request)
            XCTAssertEqual(rows.count, 4)
            XCTAssertEqual(rows.map { $0["title"] as? String }, ["Alpha", "Beta", "Delta", "Gamma"])
            XCTAssertEqual(rows.map { doubleValue($0["priority"]) }, [1, 3, 0, 3])
            XCTAssertEqual(rows.map { $0["owner.firstName"] as? String }, ["Ada", "Ada", nil, "Bob"])
            XCTAssertEqual(Set(rows[0].keys), ["title", "priority", "owner.firstName"])
        }
    }

    func testDistinctDictionaryResults() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("priority")]
            request.returnsDistinctResults = true
            request.sortDescriptors = [SortDescriptor(key: "priority")]
            XCTAssertEqual(try stack.context.fetch(request).map { doubleValue($0["priority"]) }, [0, 1, 3])
        }
    }

    func testGroupByWithAggregates() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            let count = ExpressionDescription(name: "total", expression: try Expression(format: "count:(title)"), resultType: .integer64)
            request.propertiesToFetch = [.property("priority"), .expression(count)]
            request.propertiesToGroupBy = ["priority"]
            request.sortDescriptors = [SortDescriptor(key: "priority")]
            let rows = try stack.context.fetch(request)
            XCTAssertEqual(rows.map { doubleValue($0["priority"]) }, [0, 1, 3])
            XCTAssertEqual(rows.map { doubleValue($0["total"]) }, [1, 1, 2])
        }
    }

    func testHavingPredicateFiltersGroups() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            let count = ExpressionDescription(name: "total", expression: try Expression(format: "count:(title)"), resultType: .integer64)
            request.propertiesToFetch = [.property("priority"), .expression(count)]
            request.propertiesToGroupBy = ["priority"]
            request.havingPredicate = try Predicate(format: "total > 1")
            let rows = try stack.context.fetch(request)
            XCTAssertEqual(rows.count, 1)
            XCTAssertEqual(doubleValue(rows.first?["priority"]), 3)
            XCTAssertEqual(doubleValue(rows.first?["total"]), 2)
        }
    }

    func testAggregateExpressionsOverAllRows() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [
                .expression(ExpressionDescription(name: "sum", expression: try Expression(format: "sum:(priority)"), resultType: .integer64)),
                .expression(ExpressionDescription(name: "max", expression: try Expression(format: "max:(priority)"), resultType: .integer16)),
                .expression(ExpressionDescription(name: "min", expression: try Expression(format: "min:(priority)"), resultType: .integer16)),
                .expression(ExpressionDescription(name: "avg", expression: try Expression(format: "average:(priority)"), resultType: .double)),
            ]
            let rows = try stack.context.fetch(request)
            XCTAssertEqual(rows.count, 1)
            XCTAssertEqual(doubleValue(rows.first?["sum"]), 7)
            XCTAssertEqual(doubleValue(rows.first?["max"]), 3)
            XCTAssertEqual(doubleValue(rows.first?["min"]), 0)
            XCTAssertEqual(doubleValue(rows.first?["avg"]), 1.75)
        }
    }

    func testAggregatesRespectThePredicate() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.predicate = try Predicate(format: "done == NO")
            request.propertiesToFetch = [
                .expression(ExpressionDescription(name: "sum", expression: try Expression(format: "sum:(priority)"), resultType: .integer64)),
            ]
            XCTAssertEqual(doubleValue(try stack.context.fetch(request).first?["sum"]), 4)
        }
    }

    // MARK: Templates and fetched properties

    func testFetchRequestTemplateWithSubstitutedName() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            let template = try XCTUnwrap(try stack.model.fetchRequestTemplate(forName: "peopleNamed", substitutionVariables: ["NAME": "lovelace"]))
            let request = try FetchRequest<ManagedObject>(template: template)
            XCTAssertEqual(request.entityName, "Person")
            XCTAssertEqual(names(try stack.context.fetch(request)), ["Ada"])
        }
    }

    func testFetchRequestTemplateWithSubstitutedDate() throws {
        try forEachStore { stack in
            let base = Date(timeIntervalSinceReferenceDate: 800_000_000)
            stack.task("Early").setValue(base.addingTimeInterval(-100), forKey: "due")
            let done = stack.task("Early but done")
            done.setValue(base.addingTimeInterval(-100), forKey: "due")
            done.setValue(true, forKey: "done")
            stack.task("Late").setValue(base.addingTimeInterval(100), forKey: "due")
            _ = stack.task("Undated")
            try stack.context.save()
            let template = try XCTUnwrap(try stack.model.fetchRequestTemplate(forName: "tasksDueBefore", substitutionVariables: ["DATE": base]))
            let request = try FetchRequest<ManagedObject>(template: template)
            XCTAssertEqual(names(try stack.context.fetch(request), "title"), ["Early"])
        }
    }

    func testMissingTemplateIsNil() throws {
        XCTAssertNil(try Stack.organizerModel.fetchRequestTemplate(forName: "noSuchTemplate", substitutionVariables: [:]))
    }

    func testFetchedPropertyReturnsTheOpenTasksOfTheSource() throws {
        try forEachStore { stack in
            let (ada, bob) = try seedTasks(stack)
            let open = try XCTUnwrap(ada.value(forKey: "openTasks") as? [ManagedObject])
            XCTAssertEqual(Set(names(open, "title")), ["Alpha", "Beta"])
            XCTAssertEqual((bob.value(forKey: "openTasks") as? [ManagedObject])?.count, 0)
        }
    }

    func testFetchedPropertyIsEvaluatedWhenRead() throws {
        try forEachStore { stack in
            let (ada, _) = try seedTasks(stack)
            let other = stack.newContext()
            let adaThere = other.object(with: ada.objectID)
            XCTAssertEqual((adaThere.value(forKey: "openTasks") as? [ManagedObject])?.count, 2)
            // A new open task saved elsewhere shows once the property is read again after a refresh.
            _ = stack.task("Epsilon", owner: ada)
            try stack.context.save()
            other.refresh(adaThere, mergeChanges: false)
            XCTAssertEqual((adaThere.value(forKey: "openTasks") as? [ManagedObject])?.count, 3)
        }
    }

    // MARK: More pending changes

    func testPendingInsertsOfSubentitiesAreFoundThroughTheParentEntity() throws {
        try forEachStore { stack in
            let task = stack.task("Plan")
            let meeting = stack.event("Meeting")
            var items = try makeRequest("Item", sortedBy: ["title"])
            XCTAssertEqual(try stack.context.fetch(items), [meeting, task])
            items.includesSubentities = false
            XCTAssertEqual(try stack.context.fetch(items), [])
            var tasks = try makeRequest("Task")
            tasks.includesSubentities = false
            XCTAssertEqual(try stack.context.fetch(tasks), [task])
        }
    }

    func testPendingObjectsMatchPredicatesThroughToManyRelationships() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("A", priority: 3, owner: ada)
            _ = stack.task("B", priority: 1, owner: ada)
            _ = stack.person("Bob")
            XCTAssertEqual(try stack.fetch("Person", "ANY tasks.priority == 3"), [ada])
            XCTAssertEqual(try stack.fetch("Person", "tasks.@count == 2"), [ada])
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", "ANY tasks.priority == 3", in: stack.newContext()).count, 1)
            XCTAssertEqual(try stack.fetch("Person", "tasks.@count == 2", in: stack.newContext()).count, 1)
        }
    }

    func testFetchingNeverDiscardsUnsavedChanges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            var request = try makeRequest("Person")
            request.returnsObjectsAsFaults = false
            request.includesPendingChanges = false
            let fetched = try stack.context.fetch(request)
            XCTAssertTrue(fetched.first === ada)
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertTrue(ada.hasChanges)
        }
    }

    func testCountResultTypeIncludesPendingChanges() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            _ = stack.task("Epsilon")
            XCTAssertEqual(try stack.context.fetch(FetchRequest<Int>(entityName: "Task")), [5])
        }
    }

    func testSortingPutsNilFirstForStoredAndPendingObjectsAlike() throws {
        try forEachStore { stack in
            _ = stack.person("Ada", "Lovelace")
            _ = stack.person("Bob")
            try stack.context.save()
            let stored = try stack.context.fetch(try makeRequest("Person", sortedBy: ["lastName"]))
            XCTAssertEqual(names(stored), ["Bob", "Ada"])
            _ = stack.person("Carol", "Babbage")
            let mixed = try stack.context.fetch(try makeRequest("Person", sortedBy: ["lastName"]))
            XCTAssertEqual(names(mixed), ["Bob", "Carol", "Ada"])
        }
    }

    func testSortingByAKeyPathThroughAToOneRelationship() throws {
        try forEachStore { stack in
            _ = try seedTasks(stack)
            let request = try makeRequest("Task", "owner != nil", sortedBy: ["owner.firstName", "title"])
            XCTAssertEqual(names(try stack.context.fetch(request), "title"), ["Alpha", "Beta", "Gamma"])
            XCTAssertEqual(names(try stack.newContext().fetch(request), "title"), ["Alpha", "Beta", "Gamma"])
        }
    }

    func testPrefetchingAKeyPathOfSeveralSteps() throws {
        try forEachStore { stack in
            let (ada, _) = try seedTasks(stack)
            let meeting = stack.event("Meeting")
            let beta = try XCTUnwrap((ada.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.last)
            beta.setValue(meeting, forKey: "event")
            try stack.context.save()
            let other = stack.newContext()
            var request = try makeRequest("Person", "firstName == 'Ada'")
            request.relationshipKeyPathsForPrefetching = ["tasks.event"]
            let people = try other.fetch(request)
            let tasks = try XCTUnwrap(people.first?.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
            let event = try XCTUnwrap(tasks.last?.value(forKey: "event") as? ManagedObject)
            XCTAssertFalse(event.isFault)
            XCTAssertEqual(event.value(forKey: "title") as? String, "Meeting")
        }
    }

    func testGroupByAToOneRelationship() throws {
        try forEachStore { stack in
            let (ada, bob) = try seedTasks(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            let count = ExpressionDescription(name: "total", expression: try Expression(format: "count:(title)"), resultType: .integer64)
            request.propertiesToFetch = [.property("owner"), .expression(count)]
            request.propertiesToGroupBy = ["owner"]
            let rows = try stack.context.fetch(request)
            XCTAssertEqual(rows.count, 3)
            var byOwner: [ObjectID?: Double] = [:]
            for row in rows { byOwner[row["owner"] as? ObjectID] = doubleValue(row["total"]) }
            XCTAssertEqual(byOwner[ada.objectID], 2)
            XCTAssertEqual(byOwner[bob.objectID], 1)
            XCTAssertEqual(byOwner[nil as ObjectID?], 1)
        }
    }

    func testDictionaryResultsHoldToOneRelationshipsAsObjectIDs() throws {
        try forEachStore { stack in
            let (ada, _) = try seedTasks(stack)
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.predicate = try Predicate(format: "title == 'Alpha'")
            request.propertiesToFetch = [.property("owner")]
            XCTAssertEqual(try stack.context.fetch(request).first?["owner"] as? ObjectID, ada.objectID)
        }
    }

    func testATemplateWithUnboundVariablesCannotBeUsedAsIs() throws {
        let template = try XCTUnwrap(Stack.organizerModel.fetchRequestTemplate(forName: "peopleNamed"))
        XCTAssertThrowsError(try FetchRequest<ManagedObject>(template: template))
    }

    func testFetchingAnUnknownEntityThrows() throws {
        try forEachStore { stack in
            XCTAssertThrowsError(try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Nobody"))) { error in
                XCTAssertEqual(error as? ContextError, .unknownEntity("Nobody"))
            }
        }
    }

    // MARK: Generated sessions

    func testFetchesMatchTheGraphThroughGeneratedEditsAndSaves() throws {
        for seed in 1...40 {
            try forEachStore { stack in
                var state = UInt64(seed) &* 2654435761
                func next(_ bound: Int) -> Int {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    return Int((state >> 33) % UInt64(bound))
                }
                let people = [stack.person("Ada"), stack.person("Bob"), stack.person("Carol")]
                var tasks: [ManagedObject] = []
                for index in 0..<8 { tasks.append(stack.task("T\(100 + index)", priority: index % 4, owner: index % 4 == 3 ? nil : people[index % 3])) }
                try stack.context.save()
                var log: [String] = []
                for round in 0..<15 {
                    for step in 0..<3 {
                        let live = tasks.filter { !$0.isDeleted && $0.managedObjectContext != nil }
                        let task = live.isEmpty ? nil : live[next(live.count)]
                        switch next(6) {
                        case 0:
                            let owner: ManagedObject? = next(4) == 0 ? nil : people[next(3)]
                            let new = stack.task("T\(200 + round * 10 + step)", priority: next(4), owner: owner)
                            tasks.append(new)
                            log.append("insert \(new.value(forKey: "title")!)")
                        case 1:
                            guard let task else { continue }
                            stack.context.delete(task)
                            log.append("delete \(task.value(forKey: "title")!)")
                        case 2:
                            guard let task else { continue }
                            task.setValue(next(4), forKey: "priority")
                            log.append("priority \(task.value(forKey: "title")!)")
                        case 3:
                            guard let task else { continue }
                            task.setValue(next(4) == 0 ? nil : people[next(3)], forKey: "owner")
                            log.append("owner \(task.value(forKey: "title")!)")
                        case 4:
                            guard let task else { continue }
                            task.setValue("T\(300 + round * 10 + step)", forKey: "title")
                            log.append("retitle \(task.value(forKey: "title")!)")
                        default:
                            guard let task else { continue }
                            task.setValue(!(task.value(forKey: "done") as? Bool ?? false), forKey: "done")
                            log.append("done \(task.value(forKey: "title")!)")
                        }
                    }
                    if next(3) == 0 { try stack.context.save(); log.append("save") }
                    let live = tasks.filter { !$0.isDeleted && $0.managedObjectContext != nil }
                    func title(_ task: ManagedObject) -> String { task.value(forKey: "title") as? String ?? "" }
                    func priority(_ task: ManagedObject) -> Int16 { task.value(forKey: "priority") as? Int16 ?? -1 }
                    func check(_ format: String, _ args: [Any?], _ keep: (ManagedObject) -> Bool, limit: Int = 0, offset: Int = 0,
                               batch: Int = 0, faults: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
                        var request = FetchRequest<ManagedObject>(entityName: "Task")
                        request.predicate = try Predicate(format: format, argumentArray: args)
                        request.sortDescriptors = [SortDescriptor(key: "title")]
                        request.fetchLimit = limit
                        request.fetchOffset = offset
                        request.fetchBatchSize = batch
                        request.returnsObjectsAsFaults = faults
                        var expected = live.filter(keep).map(title).sorted()
                        expected = Array(expected.dropFirst(offset))
                        if limit > 0 { expected = Array(expected.prefix(limit)) }
                        let fetched = try stack.context.fetch(request).map(title)
                        XCTAssertEqual(fetched, expected, "seed \(seed) round \(round) \(format): \(log)", file: file, line: line)
                        XCTAssertEqual(try stack.context.count(for: request), expected.count, "count: seed \(seed) round \(round) \(format)", file: file, line: line)
                    }
                    try check("TRUEPREDICATE", [], { _ in true })
                    try check("priority >= 2", [], { priority($0) >= 2 })
                    try check("priority >= 2", [], { priority($0) >= 2 }, limit: 2, offset: 1)
                    try check("priority < 2", [], { priority($0) < 2 }, batch: 3)
                    try check("priority < 3", [], { priority($0) < 3 }, limit: 3, batch: 2, faults: false)
                    try check("done == NO AND priority < 3", [], { ($0.value(forKey: "done") as? Bool) == false && priority($0) < 3 })
                    try check("owner == nil", [], { $0.value(forKey: "owner") == nil })
                    for person in people {
                        try check("owner == %@", [person], { $0.value(forKey: "owner") as? ManagedObject === person })
                    }
                    try check("owner.firstName == 'Bob'", [], { ($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "firstName") as? String == "Bob" })
                    try check("title BEGINSWITH 'T2'", [], { title($0).hasPrefix("T2") })
                    // Fetched properties are not dynamic: refreshed, merging the person's own
                    // changes, the property is evaluated again.
                    stack.context.refresh(people[0], mergeChanges: true)
                    let open = try XCTUnwrap(people[0].value(forKey: "openTasks") as? [ManagedObject])
                    XCTAssertEqual(Set(open.map(title)), Set(live.filter { $0.value(forKey: "owner") as? ManagedObject === people[0] && ($0.value(forKey: "done") as? Bool) == false }.map(title)),
                                   "openTasks: seed \(seed) round \(round): \(log)")
                }
            }
        }
    }
}
