// Queue confinement under real threads (perform/performAndWait nesting across
// contexts, main-queue performAndWait from a background thread), contexts on several queues
// saving through one coordinator (conflicts detected, no lost writes), and batch update, delete
// and insert seen from contexts (stale until merged, current after the merge, delete rules).
// Every wait is bounded: a deadlock fails the test rather than hanging the suite.
import Foundation
import XCTest
@testable import ObjectGraph

/// A value shared between threads, behind a lock.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

final class ConcurrencyAndBatchTests: XCTestCase {
    private func coordinator(_ type: StoreType) throws -> (PersistentStoreCoordinator, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Stack.organizerModel)
        try coordinator.addPersistentStore(type: type, at: directory.url.appendingPathComponent("store.sqlite"))
        return (coordinator, directory)
    }

    private func privateContext(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Runs `body` on a new thread; false if it did not finish within `timeout` seconds.
    private func finishes(within timeout: TimeInterval = 10, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done.wait(timeout: .now() + timeout) == .success
    }

    private func entity(_ stack: Stack, _ name: String) -> EntityDescription { stack.model.entitiesByName[name]! }

    private func titles(_ objects: Any?) -> [String] {
        if let ordered = objects as? OrderedSet<ManagedObject> { return ordered.compactMap { $0.value(forKey: "title") as? String } }
        if let set = objects as? Set<ManagedObject> { return set.compactMap { $0.value(forKey: "title") as? String }.sorted() }
        return []
    }

    // MARK: perform and performAndWait

    /// performAndWait is reentrant (Core Data documents it so; this project's doc comment says a
    /// call "nested in another performAndWait" runs inline): a block running on A's queue that
    /// goes through B's performAndWait and back into A's must run inline, not wait for A's queue,
    /// which it holds. Run in a child process: libdispatch traps on the self-deadlock.
    func testPerformAndWaitBackIntoAContextThroughAnotherDoesNotDeadlock() throws {
        let result = try ChildProcessProbe.run("ConcurrencyAndBatchTests", "testProbePerformAndWaitBackIntoAContextThroughAnother")
        XCTAssertTrue(result.passed, "the child crashed or failed (reason \(result.reason), status \(result.status)):\n\(result.tail)")
    }

    /// The same nesting starting from a perform (asynchronous) block of A, in a child process.
    func testPerformAndWaitBackIntoAContextFromItsPerformBlockThroughAnotherDoesNotDeadlock() throws {
        let result = try ChildProcessProbe.run("ConcurrencyAndBatchTests", "testProbePerformAndWaitBackFromAPerformBlock")
        XCTAssertTrue(result.passed, "the child crashed or failed (reason \(result.reason), status \(result.status)):\n\(result.tail)")
    }

    /// Probe (child process only).
    func testProbePerformAndWaitBackIntoAContextThroughAnother() throws {
        try ChildProcessProbe.skipUnlessProbing()
        let (coordinator, _) = try coordinator(.inMemory)
        let a = privateContext(coordinator), b = privateContext(coordinator)
        let value = Locked<Int>(0)
        let finished = finishes(within: 5) {
            a.performAndWait {
                b.performAndWait {
                    a.performAndWait { value.value = a.isOnQueue ? 1 : -1 }
                }
            }
        }
        XCTAssertTrue(finished, "A.performAndWait { B.performAndWait { A.performAndWait {} } } deadlocked")
        XCTAssertEqual(value.value, 1)
    }

    /// Probe (child process only).
    func testProbePerformAndWaitBackFromAPerformBlock() throws {
        try ChildProcessProbe.skipUnlessProbing()
        let (coordinator, _) = try coordinator(.inMemory)
        let a = privateContext(coordinator), b = privateContext(coordinator)
        let done = DispatchSemaphore(value: 0)
        let value = Locked<Int>(0)
        a.perform {
            b.performAndWait {
                a.performAndWait { value.value = 2 }
            }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "perform { B.performAndWait { A.performAndWait {} } } deadlocked")
        XCTAssertEqual(value.value, 2)
    }

    /// A main-queue context's performAndWait called from a background thread runs the block on
    /// the main thread while the main thread waits for an expectation.
    func testMainQueuePerformAndWaitFromABackgroundThreadRunsOnTheMainThread() throws {
        let stack = try Stack(storeType: .inMemory)
        let context = stack.context
        let done = expectation(description: "performAndWait returned")
        let result = Locked<(Bool, Int)>((false, 0))
        Thread.detachNewThread {
            let value = context.performAndWait { () -> (Bool, Int) in
                let person = context.insertNewObject(forEntityName: "Person")
                person.setValue("Ada", forKey: "firstName")
                try? context.save()
                return (Thread.isMainThread, (try? context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))) ?? -1)
            }
            result.value = value
            done.fulfill()
        }
        XCTAssertEqual(XCTWaiter().wait(for: [done], timeout: 10), .completed)
        XCTAssertTrue(result.value.0)
        XCTAssertEqual(result.value.1, 1)
    }

    /// An error thrown inside a nested performAndWait comes out of the outer one, and the
    /// context stays usable.
    func testErrorThrownInANestedPerformAndWaitReachesTheOuterCaller() throws {
        let (coordinator, _) = try coordinator(.inMemory)
        let context = privateContext(coordinator)
        struct Failure: Error {}
        XCTAssertThrowsError(try context.performAndWait { () throws -> Int in
            try context.performAndWait { () throws -> Int in throw Failure() }
        }) { XCTAssertTrue($0 is Failure) }
        XCTAssertEqual(context.performAndWait { 3 }, 3)
    }

    /// Blocks performed from many threads at once run one at a time (a serial queue).
    func testPerformsFromManyThreadsRunOneAtATime() throws {
        let (coordinator, _) = try coordinator(.inMemory)
        let context = privateContext(coordinator)
        let group = DispatchGroup()
        let inside = Locked<Int>(0), overlaps = Locked<Int>(0), runs = Locked<Int>(0)
        for _ in 0..<200 { group.enter() }
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            context.perform {
                inside.mutate { $0 += 1; if $0 > 1 { overlaps.mutate { $0 += 1 } } }
                runs.mutate { $0 += 1 }
                inside.mutate { $0 -= 1 }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(runs.value, 200)
        XCTAssertEqual(overlaps.value, 0)
    }

    // MARK: Contexts on several queues, one coordinator

    /// Two contexts change the same saved object and save at the same time: the store's
    /// optimistic locking lets exactly one save through, the other fails with a merge conflict,
    /// and the store holds the winner's value.
    func testConcurrentSavesOfOneObjectExactlyOneWins() throws {
        for type in Stack.storeTypes {
            let (coordinator, directory) = try coordinator(type)
            defer { withExtendedLifetime(directory) {} }
            let setup = privateContext(coordinator)
            let id = try setup.performAndWait { () throws -> ObjectID in
                let person = setup.insertNewObject(forEntityName: "Person")
                person.setValue("Start", forKey: "firstName")
                try setup.save()
                return person.objectID
            }
            for round in 0..<10 {
                let contexts = [privateContext(coordinator), privateContext(coordinator)]
                for (index, context) in contexts.enumerated() {
                    try context.performAndWait {
                        try context.existingObject(with: id).setValue("R\(round)-\(index)", forKey: "firstName")
                    }
                }
                let start = DispatchSemaphore(value: 0)
                let group = DispatchGroup()
                let outcomes = Locked<[Int: String]>([:])
                for (index, context) in contexts.enumerated() {
                    group.enter()
                    context.perform {
                        start.wait()
                        do {
                            try context.save()
                            outcomes.mutate { $0[index] = "saved" }
                        } catch is MergeError {
                            outcomes.mutate { $0[index] = "conflict" }
                        } catch {
                            outcomes.mutate { $0[index] = "\(error)" }
                        }
                        group.leave()
                    }
                }
                start.signal(); start.signal()
                XCTAssertEqual(group.wait(timeout: .now() + 10), .success, "\(type): saves did not finish")
                let results = outcomes.value
                XCTAssertEqual(results.values.filter { $0 == "saved" }.count, 1, "\(type) round \(round): \(results)")
                XCTAssertEqual(results.values.filter { $0 == "conflict" }.count, 1, "\(type) round \(round): \(results)")
                let winner = results.first { $0.value == "saved" }?.key ?? -1
                let check = privateContext(coordinator)
                let stored = try check.performAndWait { try check.existingObject(with: id).value(forKey: "firstName") as? String }
                XCTAssertEqual(stored, "R\(round)-\(winner)", "\(type) round \(round)")
            }
        }
    }

    /// Four contexts on their own queues increment one counter, retrying on conflicts (refresh,
    /// re-read, write again): optimistic locking loses no increment.
    func testConcurrentIncrementsWithConflictRetriesLoseNothing() throws {
        for type in Stack.storeTypes {
            let (coordinator, directory) = try coordinator(type)
            defer { withExtendedLifetime(directory) {} }
            let setup = privateContext(coordinator)
            let id = try setup.performAndWait { () throws -> ObjectID in
                let task = setup.insertNewObject(forEntityName: "Task")
                task.setValue("Counter", forKey: "title")
                task.setValue(UUID(), forKey: "uuid")
                task.setValue("0", forKey: "notes")
                try setup.save()
                return task.objectID
            }
            let group = DispatchGroup()
            let failures = Locked<[String]>([])
            let workers = 4, increments = 15
            for _ in 0..<workers {
                let context = privateContext(coordinator)
                group.enter()
                context.perform {
                    defer { group.leave() }
                    do {
                        let task = try context.existingObject(with: id)
                        for _ in 0..<increments {
                            var attempts = 0
                            while true {
                                attempts += 1
                                if attempts > 500 { failures.mutate { $0.append("too many retries") }; return }
                                context.refresh(task, mergeChanges: false)
                                let current = Int(task.value(forKey: "notes") as? String ?? "") ?? -1000
                                task.setValue(String(current + 1), forKey: "notes")
                                do {
                                    try context.save()
                                    break
                                } catch is MergeError {
                                    context.rollback()
                                }
                            }
                        }
                    } catch {
                        failures.mutate { $0.append("\(error)") }
                    }
                }
            }
            XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "\(type): workers did not finish")
            XCTAssertEqual(failures.value, [], "\(type)")
            let check = privateContext(coordinator)
            let final = try check.performAndWait { try check.existingObject(with: id).value(forKey: "notes") as? String }
            XCTAssertEqual(final, String(workers * increments), "\(type): increments were lost")
        }
    }

    /// A container's background tasks each get their own private-queue context; what they save
    /// concurrently is all there, and the view context fetches it.
    func testPerformBackgroundTasksRunConcurrentlyAndSaveEverything() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(name: "Organizer", modelURL: Corpus.data.appendingPathComponent("Organizer.xcdatamodeld"))
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .sqlite, url: directory.url.appendingPathComponent("o.sqlite"))]
        try container.loadPersistentStores()
        let group = DispatchGroup()
        // The contexts themselves, kept alive: a context freed after its task could otherwise be
        // followed by another at the same address, and counted once.
        let contexts = Locked<[ManagedObjectContext]>([])
        let errors = Locked<[String]>([])
        for worker in 0..<6 {
            group.enter()
            container.performBackgroundTask { context in
                defer { group.leave() }
                contexts.mutate { $0.append(context) }
                if context.concurrencyType != .privateQueue || !context.isOnQueue { errors.mutate { $0.append("not on its private queue") } }
                for index in 0..<10 {
                    let person = context.insertNewObject(forEntityName: "Person")
                    person.setValue("W\(worker)-\(index)", forKey: "firstName")
                }
                do { try context.save() } catch { errors.mutate { $0.append("\(error)") } }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(errors.value, [])
        XCTAssertEqual(Set(contexts.value.map(ObjectIdentifier.init)).count, 6)
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Person")), 60)
    }

    // MARK: Batch update seen from contexts

    /// A batch update raises the rows' versions: a context that still holds the old version and
    /// saves a change to the object gets a merge conflict (Core Data's optimistic locking), not a
    /// silent overwrite of the batch's values.
    func testSavingAnObjectStaleAfterABatchUpdateIsAConflict() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Plan", priority: 1)
        try stack.context.save()
        var request = BatchUpdateRequest(entity: entity(stack, "Task"))
        request.propertiesToUpdate = ["priority": .constant(.integer(3))]
        request.resultType = .count
        guard case .count(let count) = try stack.newContext().execute(request) else { return XCTFail() }
        XCTAssertEqual(count, 1)
        XCTAssertEqual(task.value(forKey: "priority") as? Int16, 1, "registered objects keep their values until merged")
        task.setValue("Plan B", forKey: "title")
        XCTAssertThrowsError(try stack.context.save()) { XCTAssertTrue($0 is MergeError, "\($0)") }
    }

    /// Merging a batch update's object IDs into a context with unsaved changes to the same object
    /// shows the batch's values and keeps the local change; the save that follows succeeds and
    /// stores both.
    func testMergedBatchUpdateKeepsLocalChangesAndTheSaveSucceeds() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Plan", priority: 1)
        try stack.context.save()
        task.setValue("Local title", forKey: "title")
        var request = BatchUpdateRequest(entity: entity(stack, "Task"))
        request.propertiesToUpdate = ["priority": .constant(.integer(3))]
        request.resultType = .objectIDs
        let result = try stack.newContext().execute(request)
        stack.context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: true))
        XCTAssertEqual(task.value(forKey: "priority") as? Int16, 3)
        XCTAssertEqual(task.value(forKey: "title") as? String, "Local title")
        XCTAssertNoThrow(try stack.context.save())
        let stored = try stored(stack, task.objectID)
        XCTAssertEqual(stored.value(forKey: "priority") as? Int16, 3)
        XCTAssertEqual(stored.value(forKey: "title") as? String, "Local title")
    }

    /// A batch update of the abstract parent entity with subentities updates tasks and events
    /// (count and IDs), with a predicate that names an object, and merging makes every
    /// registered one current.
    func testBatchUpdateOfAnAbstractParentReachesEverySubentity() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        let mine = stack.task("Mine", owner: ada), other = stack.task("Other")
        let meeting = stack.event("Meeting")
        try stack.context.save()
        var request = BatchUpdateRequest(entity: entity(stack, "Item"))
        request.includesSubentities = true
        request.propertiesToUpdate = ["notes": .constant(.string("seen"))]
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        guard case .objectIDs(let ids) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(Set(ids), [mine.objectID, other.objectID, meeting.objectID])
        XCTAssertNil(meeting.value(forKey: "notes"))
        stack.context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: true))
        XCTAssertEqual([mine, other, meeting].map { $0.value(forKey: "notes") as? String }, ["seen", "seen", "seen"])
        XCTAssertFalse(stack.context.hasChanges)

        var byOwner = BatchUpdateRequest(entity: entity(stack, "Task"))
        byOwner.predicate = try Predicate(format: "owner == %@", ada)
        byOwner.propertiesToUpdate = ["done": .constant(.bool(true))]
        byOwner.resultType = .objectIDs
        let owned = try stack.context.execute(byOwner)
        guard case .objectIDs(let ownedIDs) = owned else { return XCTFail("\(owned)") }
        XCTAssertEqual(ownedIDs, [mine.objectID])
        stack.context.mergeChanges(fromContextDidSave: owned.contextDidSave(updating: true))
        XCTAssertEqual(mine.value(forKey: "done") as? Bool, true)
        XCTAssertEqual(other.value(forKey: "done") as? Bool, false)
    }

    /// A batch update run on a background context while the view context holds the objects:
    /// the view context sees the new values once it merges the result on its own queue.
    func testBatchUpdateInABackgroundContextMergedIntoTheViewContext() throws {
        let stack = try Stack(storeType: .sqlite)
        let tasks = (0..<5).map { stack.task("T\($0)", priority: 1) }
        try stack.context.save()
        let background = privateContext(stack.coordinator)
        let taskEntity = entity(stack, "Task")
        let result = try background.performAndWait { () throws -> BatchResult in
            var request = BatchUpdateRequest(entity: taskEntity)
            request.predicate = try Predicate(format: "title IN %@", ["T1", "T3"])
            request.propertiesToUpdate = ["priority": .constant(.integer(2))]
            request.resultType = .objectIDs
            return try background.execute(request)
        }
        XCTAssertEqual(tasks.map { $0.value(forKey: "priority") as? Int16 }, [1, 1, 1, 1, 1])
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.contextDidSave(updating: true), into: [stack.context])
        XCTAssertEqual(tasks.map { $0.value(forKey: "priority") as? Int16 }, [1, 2, 1, 2, 1])
    }

    // MARK: Batch delete seen from contexts

    /// Deleting people in a batch cascades to their tasks; the object-ID result names the
    /// cascaded rows too, and merging it deletes every one of them in the context.
    func testMergedBatchDeleteDeletesCascadedObjectsInTheContext() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada"), bob = stack.person("Bob")
        let adas = [stack.task("A1", owner: ada), stack.task("A2", owner: ada)]
        let bobs = stack.task("B1", owner: bob)
        try stack.context.save()
        var request = BatchDeleteRequest(entity: entity(stack, "Person"))
        request.predicate = try Predicate(format: "firstName == %@", "Ada")
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        guard case .objectIDs(let ids) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(Set(ids), Set([ada.objectID] + adas.map(\.objectID)))
        stack.context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: false))
        XCTAssertTrue(ada.isDeleted)
        XCTAssertTrue(adas.allSatisfy(\.isDeleted))
        XCTAssertFalse(bobs.isDeleted)
        XCTAssertEqual(try stack.fetch("Task").map { $0.value(forKey: "title") as? String }, ["B1"])
        XCTAssertFalse(stack.context.hasChanges)
        XCTAssertNoThrow(try stack.context.save())
    }

    /// A batch delete of a task merged into a context whose owner has its ordered tasks loaded:
    /// the owner no longer lists it, the context has nothing to save, and a later change to the
    /// owner saves without trouble.
    func testMergedBatchDeleteLeavesTheOwnersTasks() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        _ = stack.task("Keep", owner: ada)
        let drop = stack.task("Drop", owner: ada)
        try stack.context.save()
        XCTAssertEqual(titles(ada.value(forKey: "tasks")), ["Keep", "Drop"])
        var request = BatchDeleteRequest(entity: entity(stack, "Task"))
        request.predicate = try Predicate(format: "title == %@", "Drop")
        request.resultType = .objectIDs
        let result = try stack.newContext().execute(request)
        stack.context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: false))
        XCTAssertTrue(drop.isDeleted)
        XCTAssertEqual(titles(ada.value(forKey: "tasks")), ["Keep"])
        ada.setValue("Lovelace", forKey: "lastName")
        XCTAssertNoThrow(try stack.context.save())
        let fresh = try stored(stack, ada.objectID)
        XCTAssertEqual(titles(fresh.value(forKey: "tasks")), ["Keep"])
    }

    /// A batch delete of an event nullifies its preparation tasks' foreign key. A context that
    /// holds such a task as a fault (its row cached) and merges the result must not, when the
    /// fault fires, show the task still pointing at the deleted event.
    func testMergedBatchDeleteNullifiesTheToOneOfAFaultedTask() throws {
        let stack = try Stack(storeType: .sqlite)
        let meeting = stack.event("Meeting")
        let agenda = stack.task("Agenda")
        agenda.setValue(meeting, forKey: "event")
        try stack.context.save()
        let taskID = agenda.objectID
        // A second context holds the task as a fault over the cached row.
        let other = stack.newContext()
        let fetched = try XCTUnwrap(try stack.fetch("Task", in: other).first)
        other.refresh(fetched, mergeChanges: false)
        _ = try stack.fetch("Task", in: other)   // the row is cached again
        XCTAssertTrue(fetched.isFault || fetched.value(forKey: "event") != nil)

        var request = BatchDeleteRequest(entity: entity(stack, "Event"))
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        let payload = result.contextDidSave(updating: false)
        stack.context.mergeChanges(fromContextDidSave: payload)
        other.mergeChanges(fromContextDidSave: payload)
        XCTAssertNil(fetched.value(forKey: "event"), "the task still points at the deleted event after the merge")
        XCTAssertNil(agenda.value(forKey: "event"))
        // A fresh context reads the row from the store.
        XCTAssertNil(try stored(stack, taskID).value(forKey: "event"))
    }

    /// After a merged batch delete that nullified a task's to-one, the context can change and
    /// save that task (the merge brought it up to date with its row).
    func testTaskNullifiedByAMergedBatchDeleteSavesAfterwards() throws {
        let stack = try Stack(storeType: .sqlite)
        let meeting = stack.event("Meeting")
        let agenda = stack.task("Agenda")
        agenda.setValue(meeting, forKey: "event")
        try stack.context.save()
        var request = BatchDeleteRequest(entity: entity(stack, "Event"))
        request.resultType = .objectIDs
        let result = try stack.newContext().execute(request)
        stack.context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: false))
        XCTAssertNil(agenda.value(forKey: "event"))
        XCTAssertNoThrow(try stack.context.save(), "a save with nothing changed by the user failed")
        agenda.setValue("Agenda v2", forKey: "title")
        XCTAssertNoThrow(try stack.context.save())
        XCTAssertEqual(try stored(stack, agenda.objectID).value(forKey: "title") as? String, "Agenda v2")
    }

    /// A context that changed an object another context then batch-deleted cannot save the
    /// change as if the row were there: the save fails (a conflict) and writes nothing.
    func testSavingAChangeToABatchDeletedObjectFails() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Plan")
        try stack.context.save()
        task.setValue("Plan B", forKey: "title")
        var request = BatchDeleteRequest(entity: entity(stack, "Task"))
        request.resultType = .count
        guard case .count(let count) = try stack.newContext().execute(request) else { return XCTFail() }
        XCTAssertEqual(count, 1)
        XCTAssertThrowsError(try stack.context.save())
        XCTAssertEqual(try stack.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Task")), 0)
    }

    /// Batch delete with a predicate through a to-one key path, count result.
    func testBatchDeleteThroughAKeyPathCountsWhatItDeletes() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada"), bob = stack.person("Bob")
        for n in 0..<3 { _ = stack.task("A\(n)", owner: ada) }
        _ = stack.task("B0", owner: bob)
        _ = stack.task("Nobody's")
        try stack.context.save()
        var request = BatchDeleteRequest(entity: entity(stack, "Task"))
        request.predicate = try Predicate(format: "owner.firstName == %@", "Ada")
        request.resultType = .count
        guard case .count(let count) = try stack.context.execute(request) else { return XCTFail() }
        XCTAssertEqual(count, 3)
        XCTAssertEqual(Set(try stack.fetch("Task", in: stack.newContext()).compactMap { $0.value(forKey: "title") as? String }), ["B0", "Nobody's"])
    }

    // MARK: Batch insert

    /// A batch insert's object IDs resolve in a context, and a context that already fetched
    /// sees the new rows in its next fetch.
    func testBatchInsertedRowsResolveAndFetchInContexts() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        XCTAssertEqual(try stack.fetch("Task").count, 0)
        var request = BatchInsertRequest(entity: entity(stack, "Task"), objects: [
            ["title": "One", "uuid": UUID(), "owner": ada.objectID],
            ["title": "Two", "uuid": UUID(), "priority": 2],
        ])
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        guard case .objectIDs(let ids) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(ids.count, 2)
        XCTAssertEqual(try stack.context.existingObject(with: ids[1]).value(forKey: "priority") as? Int16, 2)
        XCTAssertEqual(Set(try stack.fetch("Task").compactMap { $0.value(forKey: "title") as? String }), ["One", "Two"])
        let one = try stack.context.existingObject(with: ids[0])
        XCTAssertEqual((one.value(forKey: "owner") as? ManagedObject)?.objectID, ada.objectID)
        var count = BatchInsertRequest(entity: entity(stack, "Person"), objects: [["firstName": "Bob"], ["firstName": "Cy"], ["firstName": "Di"]])
        count.resultType = .count
        guard case .count(let inserted) = try stack.context.execute(count) else { return XCTFail() }
        XCTAssertEqual(inserted, 3)
    }

    /// A batch insert that breaks a uniqueness constraint (two rows with one UUID, or a UUID
    /// already stored) fails as a whole: the store is as it was.
    func testBatchInsertBreakingUniquenessLeavesTheStoreUnchanged() throws {
        let stack = try Stack(storeType: .sqlite)
        let existing = stack.task("Existing")
        try stack.context.save()
        let shared = UUID()
        let twice = BatchInsertRequest(entity: entity(stack, "Task"), objects: [
            ["title": "Fine", "uuid": UUID()], ["title": "A", "uuid": shared], ["title": "B", "uuid": shared],
        ])
        XCTAssertThrowsError(try stack.context.execute(twice))
        let clash = BatchInsertRequest(entity: entity(stack, "Task"), objects: [
            ["title": "Fine", "uuid": UUID()], ["title": "Copy", "uuid": existing.value(forKey: "uuid") as! UUID],
        ])
        XCTAssertThrowsError(try stack.context.execute(clash))
        XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).compactMap { $0.value(forKey: "title") as? String }, ["Existing"])
    }

    /// Batch inserts from several background contexts at once lose no row and collide on no
    /// primary key.
    func testConcurrentBatchInsertsLoseNothing() throws {
        let stack = try Stack(storeType: .sqlite)
        let taskEntity = entity(stack, "Task")
        let group = DispatchGroup()
        let ids = Locked<[ObjectID]>([])
        let errors = Locked<[String]>([])
        for worker in 0..<4 {
            let context = privateContext(stack.coordinator)
            group.enter()
            context.perform {
                defer { group.leave() }
                for batch in 0..<5 {
                    var request = BatchInsertRequest(entity: taskEntity, objects: (0..<20).map { n -> [String: any Sendable] in
                        ["title": "W\(worker)-\(batch)-\(n)", "uuid": UUID()]
                    })
                    request.resultType = .objectIDs
                    do {
                        if case .objectIDs(let found) = try context.execute(request) { ids.mutate { $0 += found } }
                    } catch { errors.mutate { $0.append("\(error)") } }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(errors.value, [])
        XCTAssertEqual(ids.value.count, 400)
        XCTAssertEqual(Set(ids.value).count, 400)
        XCTAssertEqual(try stack.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Task")), 400)
    }
}
