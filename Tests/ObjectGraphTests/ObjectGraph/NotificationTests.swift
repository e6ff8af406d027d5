// Notifications of a context: objectsDidChange at the end of each event with the objects it
// inserted, updated, deleted, refreshed and invalidated; willSave and didSave around each save
// (didSave carrying the saved objects and their permanent IDs); delivered to callbacks and as
// asynchronous sequences.
import Foundation
import XCTest
@testable import ObjectGraph

final class NotificationTests: XCTestCase {
    func testObjectsDidChangeReportsInsertedObjectsOfTheEvent() throws {
        try forEachStore { stack in
            let recorder = Recorder(stack.context)
            let ada = stack.person("Ada")
            let task = stack.task("Plan", owner: ada)
            XCTAssertTrue(recorder.changes.isEmpty, "nothing is posted before the event ends")
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.count, 1)
            XCTAssertEqual(recorder.changes.first?.inserted, [ada, task])
            XCTAssertEqual(recorder.changes.first?.updated, [])
            XCTAssertEqual(recorder.changes.first?.deleted, [])
        }
    }

    func testUndoneAndRedoneInsertionsAreReportedOnceInTheirEvents() throws {
        try forEachStore(undo: true) { stack in
            let recorder = Recorder(stack.context)
            let ada = stack.person("Ada")
            stack.context.processPendingChanges()
            stack.context.undoManager!.undo()  // the insertion
            stack.context.processPendingChanges()
            stack.context.undoManager!.redo()
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.map(\.inserted), [[ada], [], [ada]])
            XCTAssertEqual(recorder.changes.map(\.deleted), [[], [ada], []])
        }
    }

    func testObjectsDidChangeReportsUpdatedObjectsIncludingInverseSides() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Review", owner: ada)
            try stack.context.save()
            let recorder = Recorder(stack.context)
            task.setValue(bob, forKey: "owner")
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.count, 1)
            XCTAssertEqual(recorder.changes.first?.updated, [task, ada, bob])
            XCTAssertEqual(recorder.changes.first?.inserted, [])
        }
    }

    func testObjectsDidChangeReportsDeletedObjectsWithTheirCascade() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let tasks = [stack.task("A", owner: ada), stack.task("B", owner: ada)]
            try stack.context.save()
            let recorder = Recorder(stack.context)
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.count, 1)
            XCTAssertEqual(recorder.changes.first?.deleted, Set([ada] + tasks))
            XCTAssertEqual(recorder.changes.first?.inserted, [])
        }
    }

    func testEachEventPostsItsOwnSets() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            ada.setValue("Augusta", forKey: "firstName")
            stack.context.processPendingChanges()
            let carol = stack.person("Carol")
            stack.context.delete(bob)
            stack.context.processPendingChanges()
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.count, 2, "an event without changes posts nothing")
            XCTAssertEqual(recorder.changes[0].updated, [ada])
            XCTAssertEqual(recorder.changes[0].inserted, [])
            XCTAssertEqual(recorder.changes[1].inserted, [carol])
            XCTAssertEqual(recorder.changes[1].deleted, [bob])
            XCTAssertEqual(recorder.changes[1].updated, [])
        }
    }

    func testChangesOfAnObjectInsertedInTheSameEventAreReportedAsInsertOnly() throws {
        try forEachStore { stack in
            let recorder = Recorder(stack.context)
            let ada = stack.person("Ada")
            ada.setValue("Lovelace", forKey: "lastName")
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.first?.inserted, [ada])
            XCTAssertEqual(recorder.changes.first?.updated, [])
        }
    }

    func testRefreshIsReportedAsRefreshed() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            stack.context.refresh(ada, mergeChanges: false)
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.first?.refreshed, [ada])
            XCTAssertEqual(recorder.changes.first?.updated, [])
        }
    }

    func testResetIsReportedAsEverythingInvalidated() throws {
        try forEachStore { stack in
            _ = stack.person("Ada")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            stack.context.reset()
            XCTAssertEqual(recorder.changes.count, 1)
            XCTAssertEqual(recorder.changes.first?.invalidatedAll, true)
        }
    }

    func testRollbackReportsDiscardedInsertsAsGone() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            stack.context.processPendingChanges()
            let recorder = Recorder(stack.context)
            stack.context.rollback()
            XCTAssertEqual(recorder.changes.count, 1)
            let gone = (recorder.changes.first?.invalidated ?? []).union(recorder.changes.first?.deleted ?? [])
            XCTAssertEqual(gone, [ada])
            XCTAssertEqual(recorder.changes.first?.inserted, [])
        }
    }

    func testSavePostsWillSaveThenChangesThenDidSave() throws {
        try forEachStore { stack in
            let recorder = Recorder(stack.context)
            _ = stack.person("Ada")
            try stack.context.save()
            XCTAssertEqual(recorder.kinds, ["change", "willSave", "didSave"])
        }
    }

    func testASaveWithoutChangesPostsNothing() throws {
        try forEachStore { stack in
            _ = stack.person("Ada")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            try stack.context.save()
            XCTAssertEqual(recorder.kinds, [])
        }
    }

    func testDidSaveCarriesTheSavedObjectsAndTheirPermanentIDs() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let carol = stack.person("Carol")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            let dan = stack.person("Dan")
            bob.setValue("Robert", forKey: "firstName")
            let carolID = carol.objectID
            stack.context.delete(carol)
            try stack.context.save()
            XCTAssertEqual(recorder.saves.count, 1)
            guard let (payload, objects) = recorder.saves.first else { return }
            XCTAssertEqual(objects.inserted, [dan])
            XCTAssertEqual(objects.updated, [bob])
            XCTAssertEqual(objects.deleted, [carol])
            XCTAssertEqual(payload.insertedObjectIDs, [dan.objectID])
            XCTAssertFalse(dan.objectID.isTemporaryID)
            XCTAssertTrue(payload.insertedObjectIDs.allSatisfy { !$0.isTemporaryID })
            XCTAssertEqual(payload.updatedObjectIDs, [bob.objectID])
            XCTAssertEqual(payload.deletedObjectIDs, [carolID])
            XCTAssertFalse(payload.updatedObjectIDs.contains(ada.objectID))
        }
    }

    func testDidSaveCarriesTheContextNameAndTransactionAuthor() throws {
        try forEachStore { stack in
            stack.context.name = "editor"
            stack.context.transactionAuthor = "importer"
            let recorder = Recorder(stack.context)
            _ = stack.person("Ada")
            try stack.context.save()
            XCTAssertEqual(recorder.saves.first?.0.contextName, "editor")
            XCTAssertEqual(recorder.saves.first?.0.transactionAuthor, "importer")
        }
    }

    func testAFailedSavePostsNoDidSave() throws {
        try forEachStore { stack in
            let recorder = Recorder(stack.context)
            _ = stack.insert("Task", ["uuid": UUID()])   // no title: invalid
            XCTAssertThrowsError(try stack.context.save())
            XCTAssertEqual(recorder.saves.count, 0)
        }
    }

    func testCancelledObservationReceivesNothing() throws {
        try forEachStore { stack in
            let recorder = Recorder(stack.context)
            recorder.token?.cancel()
            _ = stack.person("Ada")
            try stack.context.save()
            XCTAssertEqual(recorder.notes.count, 0)
        }
    }

    func testChangedValuesForCurrentEventAreAvailableToObjectsDidChangeObservers() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            try stack.context.save()
            var seen: [String: Any] = [:]
            let token = stack.context.observe { note in
                if case .objectsDidChange(let changes) = note, changes.updated.contains(ada) {
                    seen = ada.changedValuesForCurrentEvent()
                }
            }
            ada.setValue("Byron", forKey: "lastName")
            stack.context.processPendingChanges()
            token.cancel()
            XCTAssertEqual(seen["lastName"] as? String, "Lovelace")
            XCTAssertEqual(seen.count, 1)
        }
    }

    // MARK: Asynchronous sequences

    func testNotificationsAreDeliveredAsAnAsyncSequence() throws {
        let stack = try Stack(storeType: .inMemory)
        let stream = stack.context.notifications
        let received = expectation(description: "didSave arrives through the sequence")
        let kinds = Box<[String]>([])
        let insertedCount = Box<Int>(-1)
        let consumer = Task {
            for await note in stream {
                switch note {
                case .objectsDidChange(let changes):
                    kinds.value.append("change")
                    if insertedCount.value < 0 { insertedCount.value = changes.inserted.count }
                case .willSave:
                    kinds.value.append("willSave")
                case .didSave(let payload, _):
                    kinds.value.append("didSave:\(payload.insertedObjectIDs.count)")
                    received.fulfill()
                    return
                }
            }
        }
        _ = stack.person("Ada")
        _ = stack.person("Bob")
        try stack.context.save()
        wait(for: [received], timeout: 5)
        consumer.cancel()
        XCTAssertEqual(kinds.value, ["change", "willSave", "didSave:2"])
        XCTAssertEqual(insertedCount.value, 2)
    }

    func testObjectsDeliveredThroughTheSequenceStayWithTheContextUntilItEnds() throws {
        // A consumer on another thread that drops a notification must not be the last to hold
        // its objects: an object's deallocation takes it out of the context's registry, which
        // only the context's queue may touch (dropping them there crashed the test process now
        // and then). The context keeps what it delivered until the consumer is done with it.
        let stack = try Stack(storeType: .inMemory)
        let received = expectation(description: "the change arrives")
        // The consumer holds the only reference to the sequence: when it returns, the sequence
        // ends.
        let consumer = Task { [stream = stack.context.notifications] in
            for await note in stream {
                if case .objectsDidChange = note {
                    received.fulfill()
                    return
                }
            }
        }
        weak var person: ManagedObject?
        do {
            let ada = stack.person("Ada")
            person = ada
            stack.context.processPendingChanges()
            // Saved, the object is no longer kept by the context's changes, only by the
            // notification delivered above.
            try stack.context.save()
        }
        wait(for: [received], timeout: 5)
        _ = consumer
        XCTAssertNotNil(person, "the context keeps the objects of what it delivered")
        // The consumer returned: the sequence ends, and the context lets go on its queue.
        let released = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in person == nil }, object: nil)
        wait(for: [released], timeout: 5)
    }

    func testTheContextLetsGoOfADeliveredNotificationWhenTheConsumerAsksForTheNext() throws {
        // What the context keeps for a consumer stays bounded: a notification goes once the
        // consumer has asked for the one after it.
        let stack = try Stack(storeType: .inMemory)
        let laterChange = expectation(description: "the change after the save arrives")
        let consumer = Task { [stream = stack.context.notifications] in
            var saved = false
            for await note in stream {
                switch note {
                case .didSave: saved = true
                case .objectsDidChange where saved: laterChange.fulfill()
                default: break
                }
            }
        }
        weak var person: ManagedObject?
        do {
            let ada = stack.person("Ada")
            person = ada
            try stack.context.save()
        }
        // Ada is held by the delivered objectsDidChange and didSave notifications only.
        _ = stack.person("Bob")
        stack.context.processPendingChanges()
        wait(for: [laterChange], timeout: 5)
        // The consumer asked for the notification after didSave while the sequence goes on: the
        // context let go of didSave (and of what came before it) on its queue.
        let released = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in person == nil }, object: nil)
        wait(for: [released], timeout: 5)
        consumer.cancel()
    }

    func testDidSavePayloadsAreDeliveredAsAnAsyncSequence() throws {
        let stack = try Stack(storeType: .inMemory)
        let stream = stack.context.didSaveNotifications
        let received = expectation(description: "two saves arrive")
        let payloads = Box<[ContextDidSave]>([])
        let consumer = Task {
            for await payload in stream {
                payloads.value.append(payload)
                if payloads.value.count == 2 { received.fulfill(); return }
            }
        }
        let ada = stack.person("Ada")
        try stack.context.save()
        ada.setValue("Augusta", forKey: "firstName")
        try stack.context.save()
        wait(for: [received], timeout: 5)
        consumer.cancel()
        XCTAssertEqual(payloads.value.count, 2)
        XCTAssertEqual(payloads.value.first?.insertedObjectIDs, [ada.objectID])
        XCTAssertEqual(payloads.value.last?.updatedObjectIDs, [ada.objectID])
        XCTAssertEqual(payloads.value.last?.insertedObjectIDs, [])
    }

    func testDroppingTheObservationTokenEndsTheObservation() throws {
        try forEachStore { stack in
            var count = 0
            var token: ObservationToken? = stack.context.observe { _ in count += 1 }
            _ = stack.person("Ada")
            stack.context.processPendingChanges()
            XCTAssertEqual(count, 1)
            XCTAssertNotNil(token)
            token = nil
            _ = stack.person("Bob")
            stack.context.processPendingChanges()
            XCTAssertEqual(count, 1)
        }
    }

    func testObjectsDidChangeOfADeleteReportsTheInverseSideAsUpdated() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("Plan", owner: ada)
            try stack.context.save()
            let recorder = Recorder(stack.context)
            stack.context.delete(task)
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.first?.deleted, [task])
            XCTAssertEqual(recorder.changes.first?.updated, [ada])
        }
    }

    func testDidSaveOfACascadeCarriesEveryDeletedObject() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let tasks = [stack.task("A", owner: ada), stack.task("B", owner: ada)]
            try stack.context.save()
            let ids = Set(([ada] + tasks).map(\.objectID))
            let recorder = Recorder(stack.context)
            stack.context.delete(ada)
            try stack.context.save()
            XCTAssertEqual(recorder.saves.first?.0.deletedObjectIDs, ids)
            XCTAssertEqual(recorder.saves.first?.1.deleted, Set([ada] + tasks))
        }
    }

    func testTheNotificationSequenceEndsWhenTheContextGoes() throws {
        var context: ManagedObjectContext? = ManagedObjectContext(concurrencyType: .mainQueue)
        context?.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: Stack.organizerModel)
        let stream = try XCTUnwrap(context?.notifications)
        let ended = expectation(description: "the sequence ends")
        let consumer = Task {
            for await _ in stream {}
            ended.fulfill()
        }
        context = nil
        wait(for: [ended], timeout: 2)
        consumer.cancel()
    }

    func testTheDidSaveSequenceEndsWhenTheContextGoes() throws {
        var context: ManagedObjectContext? = ManagedObjectContext(concurrencyType: .mainQueue)
        context?.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: Stack.organizerModel)
        let stream = try XCTUnwrap(context?.didSaveNotifications)
        let ended = expectation(description: "the sequence ends")
        let consumer = Task {
            for await _ in stream {}
            ended.fulfill()
        }
        context = nil
        wait(for: [ended], timeout: 2)
        consumer.cancel()
    }
}

/// A mutable box shared with a task (the test waits on an expectation before reading it).
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
