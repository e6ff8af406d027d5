// Queue confinement: private-queue and main-queue contexts, perform (async and with a callback),
// performAndWait (reentrant), the persistent container's contexts and background tasks, and the
// concurrency debug mode (OBJECTGRAPH_CONCURRENCY_DEBUG=1), which traps any access from the wrong
// queue: checked by running this test binary as a child process on a probe test.
import Foundation
import XCTest
@testable import ObjectGraph

final class ConcurrencyTests: XCTestCase {
    private func privateContext() throws -> (ManagedObjectContext, PersistentStoreCoordinator) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Stack.organizerModel)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, coordinator)
    }

    private func inMemoryContainer() throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Organizer", modelURL: Corpus.data.appendingPathComponent("Organizer.xcdatamodeld"))
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()
        return container
    }

    // MARK: perform and performAndWait

    func testPrivateQueueIsTheDefault() {
        XCTAssertEqual(ManagedObjectContext().concurrencyType, .privateQueue)
    }

    func testPerformAsyncReturnsTheBlocksValue() async throws {
        let (context, _) = try privateContext()
        let count = try await context.perform { () throws -> Int in
            for name in ["Ada", "Bob"] {
                context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "firstName")
            }
            try context.save()
            return try context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        }
        XCTAssertEqual(count, 2)
    }

    func testPerformAsyncRunsOnTheContextsQueue() async throws {
        let (context, _) = try privateContext()
        XCTAssertFalse(context.isOnQueue)
        let onQueue = try await context.perform { context.isOnQueue }
        XCTAssertTrue(onQueue)
    }

    func testPerformAsyncRethrowsTheBlocksError() async throws {
        let (context, _) = try privateContext()
        do {
            _ = try await context.perform { () throws -> Int in
                _ = context.insertNewObject(forEntityName: "Task")   // no title, no uuid: invalid
                try context.save()
                return 0
            }
            XCTFail("the save should have failed")
        } catch {
            XCTAssertTrue(error is ValidationError, "\(error)")
        }
    }

    func testPerformAsyncEndsTheEventAfterTheBlock() async throws {
        let (context, _) = try privateContext()
        let inserted = Box<Int>(0)
        let token = try await context.perform { () -> ObservationToken in
            context.observe { note in
                if case .objectsDidChange(let changes) = note { inserted.value += changes.inserted.count }
            }
        }
        try await context.perform { () -> Void in
            context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
        }
        let seen = try await context.perform { inserted.value }
        XCTAssertEqual(seen, 1, "perform posts objectsDidChange after the block")
        token.cancel()
    }

    /// The callback form of perform (an async caller would otherwise get the async one).
    private func enqueue(on context: ManagedObjectContext, _ block: @escaping @Sendable () -> Void) {
        context.perform(block)
    }

    /// Core Data's `perform(schedule:)`: `.immediate` (the default) runs the block at once when
    /// the caller is on the context's queue, ahead of blocks queued before; `.enqueued` runs it
    /// after them.
    @MainActor
    func testPerformScheduleImmediateRunsAtOnceOnTheQueueAndEnqueuedWaitsItsTurn() async throws {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = try privateContext().1
        let order = Box<[String]>([])
        enqueue(on: context) { order.value.append("queued before") }
        try await context.perform { order.value.append("immediate") }
        XCTAssertEqual(order.value, ["immediate"])
        enqueue(on: context) { order.value.append("queued after") }
        try await context.perform(schedule: .enqueued) { order.value.append("enqueued") }
        XCTAssertEqual(order.value, ["immediate", "queued before", "queued after", "enqueued"])
        let changes = Box<Int>(0)
        let token = context.observe { note in
            if case .objectsDidChange = note { changes.value += 1 }
        }
        let inserted = try await context.perform(schedule: .immediate) { () -> Bool in
            context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            return true
        }
        XCTAssertTrue(inserted)
        XCTAssertEqual(context.insertedObjects.count, 1)
        XCTAssertEqual(changes.value, 1, "the event ended after the block run at once")
        token.cancel()
    }

    func testPerformWithACallbackRunsOnTheContextsQueue() throws {
        let (context, _) = try privateContext()
        let done = expectation(description: "the block ran")
        let result = Box<(onQueue: Bool, isMain: Bool, count: Int)?>(nil)
        context.perform {
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("Ada", forKey: "firstName")
            try? context.save()
            let count = (try? context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))) ?? -1
            result.value = (context.isOnQueue, Thread.isMainThread, count)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(result.value?.onQueue, true)
        XCTAssertEqual(result.value?.isMain, false)
        XCTAssertEqual(result.value?.count, 1)
    }

    func testPerformedBlocksRunInOrder() throws {
        let (context, _) = try privateContext()
        let done = expectation(description: "all blocks ran")
        let order = Box<[Int]>([])
        for index in 1...5 {
            context.perform {
                order.value.append(index)
                if index == 5 { done.fulfill() }
            }
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(order.value, [1, 2, 3, 4, 5])
    }

    func testMainQueueContextPerformsOnTheMainThread() throws {
        let stack = try Stack(storeType: .inMemory)
        let context = stack.context
        XCTAssertEqual(context.concurrencyType, .mainQueue)
        let done = expectation(description: "the block ran")
        let onMain = Box<Bool>(false)
        context.perform {
            onMain.value = Thread.isMainThread && context.isOnQueue
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertTrue(onMain.value)
    }

    func testPerformAndWaitReturnsTheValueAndRunsOnTheQueue() throws {
        let (context, _) = try privateContext()
        let (onQueue, count) = try context.performAndWait { () throws -> (Bool, Int) in
            context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try context.save()
            return (context.isOnQueue, try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")))
        }
        XCTAssertTrue(onQueue)
        XCTAssertEqual(count, 1)
        XCTAssertFalse(context.isOnQueue)
    }

    func testPerformAndWaitIsReentrant() throws {
        let (context, _) = try privateContext()
        let value = context.performAndWait {
            context.performAndWait {
                context.performAndWait { context.isOnQueue ? 42 : -1 }
            }
        }
        XCTAssertEqual(value, 42)
    }

    func testPerformAndWaitInsideAPerformedBlockRunsInline() throws {
        let (context, _) = try privateContext()
        let done = expectation(description: "the nested block ran")
        let value = Box<Int>(0)
        context.perform {
            value.value = context.performAndWait { 7 }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(value.value, 7)
    }

    func testPerformAndWaitRethrows() throws {
        let (context, _) = try privateContext()
        struct Failure: Error {}
        XCTAssertThrowsError(try context.performAndWait { () throws -> Int in throw Failure() }) { error in
            XCTAssertTrue(error is Failure)
        }
    }

    func testObjectIDsCrossQueuesAndResolveInAnotherContext() async throws {
        let (background, coordinator) = try privateContext()
        let id = try await background.perform { () throws -> ObjectID in
            let person = background.insertNewObject(forEntityName: "Person")
            person.setValue("Ada", forKey: "firstName")
            try background.save()
            return person.objectID
        }
        let other = ManagedObjectContext(concurrencyType: .privateQueue)
        other.persistentStoreCoordinator = coordinator
        let name = try await other.perform { try other.existingObject(with: id).value(forKey: "firstName") as? String }
        XCTAssertEqual(name, "Ada")
    }

    // MARK: Persistent container

    func testContainerReadsItsModelAndHasAMainQueueViewContext() throws {
        let container = try inMemoryContainer()
        XCTAssertEqual(container.name, "Organizer")
        XCTAssertNotNil(container.managedObjectModel.entitiesByName["Person"])
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.count, 1)
        XCTAssertEqual(container.viewContext.concurrencyType, .mainQueue)
        XCTAssertTrue(container.viewContext.persistentStoreCoordinator === container.persistentStoreCoordinator)
        XCTAssertTrue(container.viewContext === container.viewContext)
    }

    func testContainerDefaultStoreIsASQLiteFileNamedAfterTheContainer() throws {
        let container = try PersistentContainer(name: "Organizer", modelURL: Corpus.data.appendingPathComponent("Organizer.xcdatamodeld"))
        XCTAssertEqual(container.persistentStoreDescriptions.count, 1)
        XCTAssertEqual(container.persistentStoreDescriptions.first?.type, .sqlite)
        XCTAssertEqual(container.persistentStoreDescriptions.first?.url?.lastPathComponent, "Organizer.sqlite")
    }

    func testLoadPersistentStoresReportsEachDescription() throws {
        let container = try PersistentContainer(name: "Organizer", modelURL: Corpus.data.appendingPathComponent("Organizer.xcdatamodeld"))
        container.persistentStoreDescriptions = [
            PersistentStoreDescription(type: .inMemory),
            PersistentStoreDescription(type: .inMemory, configuration: "NoSuchConfiguration"),
        ]
        var reports: [(String?, Bool)] = []
        container.loadPersistentStores { description, error in reports.append((description.configuration, error == nil)) }
        XCTAssertEqual(reports.count, 2)
        XCTAssertEqual(reports.first?.1, true)
        XCTAssertEqual(reports.last?.0, "NoSuchConfiguration")
        XCTAssertEqual(reports.last?.1, false)
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.count, 1)
    }

    func testNewBackgroundContextIsAPrivateQueueContextOnTheContainersCoordinator() throws {
        let container = try inMemoryContainer()
        let background = container.newBackgroundContext()
        XCTAssertEqual(background.concurrencyType, .privateQueue)
        XCTAssertTrue(background.persistentStoreCoordinator === container.persistentStoreCoordinator)
        XCTAssertFalse(background === container.newBackgroundContext())
    }

    func testPerformBackgroundTaskSavesWhatTheViewContextThenFetches() throws {
        let container = try inMemoryContainer()
        let done = expectation(description: "the background task ran")
        let ranOnQueue = Box<Bool>(false)
        container.performBackgroundTask { context in
            ranOnQueue.value = context.concurrencyType == .privateQueue && context.isOnQueue && !Thread.isMainThread
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("Ada", forKey: "firstName")
            do { try context.save() } catch { XCTFail("\(error)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertTrue(ranOnQueue.value)
        let people = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        XCTAssertEqual(people.map { $0.value(forKey: "firstName") as? String }, ["Ada"])
    }

    func testBackgroundSaveMergedIntoTheViewContext() throws {
        let container = try inMemoryContainer()
        let view = container.viewContext
        let ada = view.insertNewObject(forEntityName: "Person")
        ada.setValue("Ada", forKey: "firstName")
        try view.save()
        let id = ada.objectID
        let background = container.newBackgroundContext()
        let payload = try background.performAndWait { () throws -> ContextDidSave? in
            var saved: ContextDidSave?
            let token = background.observe { note in if case .didSave(let p, _) = note { saved = p } }
            try background.existingObject(with: id).setValue("Lovelace", forKey: "lastName")
            try background.save()
            token.cancel()
            return saved
        }
        view.mergeChanges(fromContextDidSave: try XCTUnwrap(payload))
        XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Lovelace")
        XCTAssertFalse(view.hasChanges)
    }

    // MARK: Debug mode

    /// Runs one probe test of this class in a child process with the concurrency debug mode on.
    private func runProbe(_ testName: String) throws -> ProbeResult {
        try ChildProcessProbe.run("ConcurrencyTests", testName, environment: ["OBJECTGRAPH_CONCURRENCY_DEBUG": "1"])
    }

    private func skipUnlessProbing() throws {
        try ChildProcessProbe.skipUnlessProbing()
    }

    func testDebugModeTrapsAccessFromTheWrongQueue() throws {
        let result = try runProbe("testProbeTouchesAPrivateQueueContextOffItsQueue")
        XCTAssertTrue(result.reason == .uncaughtSignal || result.status != 0,
                      "the child should crash; it exited with \(result.status): \(result.output.suffix(2000))")
        XCTAssertTrue(result.output.contains("concurrency violation"), String(result.output.suffix(2000)))
    }

    func testDebugModeAllowsAccessOnTheRightQueue() throws {
        let result = try runProbe("testProbeUsesContextsOnTheirQueues")
        XCTAssertEqual(result.reason, .exit, result.output)
        XCTAssertEqual(result.status, 0, String(result.output.suffix(2000)))
        XCTAssertFalse(result.output.contains("concurrency violation"), String(result.output.suffix(2000)))
        XCTAssertFalse(result.output.lowercased().contains("skipped"), "the probe must run, not skip: \(result.output.suffix(2000))")
        XCTAssertTrue(result.output.contains("passed"), String(result.output.suffix(2000)))
    }

    /// Probe (child process only): reads a private-queue context from the test's thread.
    func testProbeTouchesAPrivateQueueContextOffItsQueue() throws {
        try skipUnlessProbing()
        let (context, _) = try privateContext()
        XCTAssertTrue(ManagedObjectContext.concurrencyDebug)
        _ = context.insertedObjects   // off the queue: traps
        XCTFail("the access above should have trapped")
    }

    /// Probe (child process only): uses contexts only on their queues, which must not trap.
    func testProbeUsesContextsOnTheirQueues() throws {
        try skipUnlessProbing()
        XCTAssertTrue(ManagedObjectContext.concurrencyDebug)
        let (context, coordinator) = try privateContext()
        let id = try context.performAndWait { () throws -> ObjectID in
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("Ada", forKey: "firstName")
            try context.save()
            return context.performAndWait { person.objectID }
        }
        let done = expectation(description: "perform ran")
        context.perform {
            _ = try? context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.persistentStoreCoordinator = coordinator
        XCTAssertEqual(try main.existingObject(with: id).value(forKey: "firstName") as? String, "Ada")
    }

    func testMainQueueContextPerformAsyncFromAnAsyncTest() async throws {
        let stack = try Stack(storeType: .inMemory)
        let context = stack.context
        let value = try await context.perform { () throws -> Int in
            context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try context.save()
            return try context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        }
        XCTAssertEqual(value, 1)
    }

    func testDebugModeTrapsAccessToAMainQueueContextFromAnotherThread() throws {
        let result = try runProbe("testProbeTouchesAMainQueueContextFromABackgroundThread")
        XCTAssertTrue(result.reason == .uncaughtSignal || result.status != 0,
                      "the child should crash; it exited with \(result.status): \(result.output.suffix(2000))")
        XCTAssertTrue(result.output.contains("concurrency violation"), String(result.output.suffix(2000)))
    }

    /// Probe (child process only): saves a main-queue context from a background thread.
    func testProbeTouchesAMainQueueContextFromABackgroundThread() throws {
        try skipUnlessProbing()
        let stack = try Stack(storeType: .inMemory)
        let context = stack.context
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = context.hasChanges   // off the main thread: traps
            finished.signal()
        }
        finished.wait()
        XCTFail("the access above should have trapped")
    }

    func testDebugModeTrapsReadingAnObjectOffItsContextsQueue() throws {
        let result = try runProbe("testProbeReadsAnObjectOffItsContextsQueue")
        XCTAssertTrue(result.reason == .uncaughtSignal || result.status != 0,
                      "the child should crash; it exited with \(result.status): \(result.output.suffix(2000))")
        XCTAssertTrue(result.output.contains("concurrency violation"), String(result.output.suffix(2000)))
    }

    /// Probe (child process only): reads a value of an object of a private-queue context from the test's thread.
    func testProbeReadsAnObjectOffItsContextsQueue() throws {
        try skipUnlessProbing()
        let (context, _) = try privateContext()
        let person = context.performAndWait { () -> ManagedObject in
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("Ada", forKey: "firstName")
            return person
        }
        _ = person.value(forKey: "firstName")   // off the queue: traps
        XCTFail("the access above should have trapped")
    }

    func testReadingAnInaccessibleFaultFailsWhenNotDeletingThem() throws {
        let result = try runProbe("testProbeReadsAFaultDeletedElsewhereWithoutDeletingInaccessibleFaults")
        XCTAssertTrue(result.reason == .uncaughtSignal || result.status != 0,
                      "the child should fail; it exited with \(result.status): \(result.output.suffix(2000))")
        XCTAssertTrue(result.output.contains("was deleted by another context or process"), String(result.output.suffix(2000)))
    }

    /// Probe (child process only): fires a fault whose row another context deleted, with
    /// shouldDeleteInaccessibleFaults off: the access fails.
    func testProbeReadsAFaultDeletedElsewhereWithoutDeletingInaccessibleFaults() throws {
        try skipUnlessProbing()
        let stack = try Stack(storeType: .inMemory)
        let ada = stack.person("Ada")
        try stack.context.save()
        let first = stack.newContext()
        first.shouldDeleteInaccessibleFaults = false
        let fault = first.object(with: ada.objectID)
        let second = stack.newContext()
        second.delete(second.object(with: ada.objectID))
        try second.save()
        _ = fault.value(forKey: "firstName")   // the row is gone: fails
        XCTFail("the access above should have failed")
    }

    func testSeveralBackgroundContextsSavingConcurrentlyLoseNothing() async throws {
        let container = try inMemoryContainer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                let context = container.newBackgroundContext()
                group.addTask {
                    for index in 0..<25 {
                        try await context.perform { () throws -> Void in
                            let person = context.insertNewObject(forEntityName: "Person")
                            person.setValue("W\(worker)-\(index)", forKey: "firstName")
                            try context.save()
                            _ = try context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let check = container.newBackgroundContext()
        let (count, names) = try await check.perform { () throws -> (Int, Int) in
            let people = try check.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            return (people.count, Set(people.compactMap { $0.value(forKey: "firstName") as? String }).count)
        }
        XCTAssertEqual(count, 100)
        XCTAssertEqual(names, 100)
    }
}
