// The order a save takes the changed objects in: registration order, read from the logs the
// context keeps of inserted and updated objects (ManagedObjectContext.insertionLog) while they
// match the change sets, and from the change sets themselves when objects have left them.
import Foundation
import XCTest
@testable import ObjectGraph

final class ChangeOrderTests: XCTestCase {
    /// What `changedObjectsInOrder()` must return: every inserted, updated and deleted object,
    /// once, in registration order (taken from the change sets, not the logs).
    private func expectedOrder(_ context: ManagedObjectContext) -> [ObjectIdentifier] {
        let all = Array(context.insertedByID.values) + Array(context.updatedByID.values) + Array(context.deletedByID.values)
        return all.sorted { $0.registrationSequence < $1.registrationSequence }.map(ObjectIdentifier.init)
    }

    /// The most objects the change sets held since the logs were last emptied.
    private struct Peaks {
        var inserted = 0
        var updated = 0

        mutating func note(_ context: ManagedObjectContext) {
            inserted = max(inserted, context.insertedByID.count)
            updated = max(updated, context.updatedByID.count)
        }
    }

    /// A log is compacted when an append takes it past twice its set's size and 64, so it never
    /// holds more than twice the most objects its set held, and 64.
    private func assertLogsBounded(_ context: ManagedObjectContext, _ peaks: Peaks, _ message: String, line: UInt = #line) {
        XCTAssertLessThanOrEqual(context.insertionLog.count, 2 * peaks.inserted + 64, message, line: line)
        XCTAssertLessThanOrEqual(context.updateLog.count, 2 * peaks.updated + 64, message, line: line)
    }

    func testRandomInsertsChangesDeletesUndosAndSavesKeepTheRegistrationOrder() throws {
        for seed in UInt64(1)...12 {
            var generator = SplitMix(seed: seed)
            try forEachStore(undo: true) { stack in
                let context = stack.context
                var saved: [ManagedObject] = []
                var fresh: [ManagedObject] = []
                var peaks = Peaks()
                for step in 0..<400 {
                    switch generator.next() % 10 {
                    case 0, 1, 2:
                        fresh.append(stack.person("p\(step)"))
                    case 3, 4:
                        if let object = saved.randomElement(using: &generator), !object.isDeleted {
                            object.setValue("c\(step)", forKey: "firstName")
                        }
                    case 5:
                        if let object = (saved + fresh).randomElement(using: &generator), !object.isDeleted,
                           object.managedObjectContext === context {
                            context.delete(object)
                        }
                    case 6:
                        context.processPendingChanges()
                        context.undo()
                    case 7:
                        context.redo()
                    case 8:
                        context.processPendingChanges()
                    default:
                        if generator.next() % 4 == 0 {
                            try context.save()
                            saved = (saved + fresh).filter { $0.managedObjectContext === context && !$0.isDeleted && !$0.objectID.isTemporaryID }
                            fresh = []
                            XCTAssertTrue(context.insertionLog.isEmpty, "seed \(seed) step \(step)")
                            XCTAssertTrue(context.updateLog.isEmpty, "seed \(seed) step \(step)")
                            peaks = Peaks()
                        }
                    }
                    peaks.note(context)
                    assertLogsBounded(context, peaks, "seed \(seed) step \(step)")
                    let order = context.changedObjectsInOrder().map(ObjectIdentifier.init)
                    XCTAssertEqual(order, expectedOrder(context), "seed \(seed) step \(step) (\(stack.storeType))")
                }
            }
        }
    }

    func testANewObjectDeletedBeforeTheSaveIsFreedThoughItsInsertionWasLogged() throws {
        try forEachStore { stack in
            let context = stack.context
            let kept = stack.person("kept")
            weak var gone: ManagedObject?
            do {
                let object = stack.person("gone")
                gone = object
                context.processPendingChanges()
                context.delete(object)
                context.processPendingChanges()
            }
            XCTAssertNil(gone, "the log holds its objects unretained")
            // The log has an entry more than the inserted objects: the order comes from them.
            XCTAssertEqual(context.insertedByID.count, 1)
            XCTAssertEqual(context.changedObjectsInOrder().map(ObjectIdentifier.init), [ObjectIdentifier(kept)])
            let later = stack.person("later")
            XCTAssertEqual(context.changedObjectsInOrder().map(ObjectIdentifier.init), [ObjectIdentifier(kept), ObjectIdentifier(later)])
            try context.save()
            XCTAssertEqual(try stack.fetch("Person", sortedBy: "firstName").compactMap { $0.value(forKey: "firstName") as? String },
                           ["kept", "later"])
        }
    }

    func testInsertingAndDeletingWithoutSavingKeepsTheLogsBounded() throws {
        try forEachStore { stack in
            let context = stack.context
            let saved = stack.person("saved")
            try context.save()
            var peaks = Peaks()
            for round in 0..<2_000 {
                let object = stack.person("p\(round)")
                peaks.note(context)
                context.processPendingChanges()
                context.delete(object)
                // An object changed and changed back stays among the updated ones until the save.
                saved.setValue("s\(round)", forKey: "firstName")
                context.processPendingChanges()
                peaks.note(context)
                assertLogsBounded(context, peaks, "round \(round)")
            }
            // Without compaction the insertion log would hold an entry per round.
            XCTAssertEqual(peaks.inserted, 1)
            XCTAssertLessThanOrEqual(context.insertionLog.count, 66)
            XCTAssertEqual(context.insertedByID.count, 0)
            XCTAssertEqual(context.changedObjectsInOrder().map(ObjectIdentifier.init), [ObjectIdentifier(saved)])
        }
    }

    func testObjectsChangedOutOfRegistrationOrderAreSavedInRegistrationOrder() throws {
        try forEachStore { stack in
            let context = stack.context
            let people = (0..<300).map { stack.person("p\($0)") }
            try context.save()
            // Changed in reverse, then new ones inserted: the log's order is not the order wanted.
            for person in people.reversed() { person.setValue("changed", forKey: "lastName") }
            let added = (0..<50).map { stack.person("n\($0)") }
            let order = context.changedObjectsInOrder()
            XCTAssertEqual(order.map(ObjectIdentifier.init), (people + added).map(ObjectIdentifier.init))
        }
    }
}
