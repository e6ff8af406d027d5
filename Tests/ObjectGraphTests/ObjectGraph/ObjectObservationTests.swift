// Observing one object (what Core Data's users do with key-value observing): at the end of each
// event that changed it, the keys that changed, or that it was refreshed, deleted or let go of;
// nothing for events that did not touch it.
import Foundation
import XCTest
@testable import ObjectGraph

final class ObjectObservationTests: XCTestCase {
    func testAnObservedObjectIsToldWhatChangedIt() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            var told: [ObjectChange] = []
            let token = try XCTUnwrap(ada.observeChanges { told.append($0) })
            ada.setValue("Augusta", forKey: "firstName")
            ada.setValue("King", forKey: "lastName")
            bob.setValue("Robert", forKey: "firstName")
            stack.context.processPendingChanges()
            XCTAssertEqual(told, [.updated(["firstName", "lastName"])])

            bob.setValue("Rob", forKey: "firstName")
            stack.context.processPendingChanges()
            XCTAssertEqual(told.count, 1, "another object's event is not this one's")

            let task = stack.task("Plan")
            task.setValue(ada, forKey: "owner")   // the inverse side changes too
            stack.context.processPendingChanges()
            XCTAssertEqual(told.last, .updated(["tasks"]))

            stack.context.undoManager?.undo()
            stack.context.processPendingChanges()
            XCTAssertEqual(told.last, .updated(["tasks"]), "undone: changed back")

            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertEqual(told.last, .deleted)
            token.cancel()
            stack.context.rollback()
            XCTAssertEqual(told.last, .deleted, "a cancelled observation is told nothing")
        }
    }

    func testAMergedSaveIsToldAsARefreshAndAResetAsInvalidated() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            var told: [ObjectChange] = []
            let token = try XCTUnwrap(ada.observeChanges { told.append($0) })
            defer { token.cancel() }
            let other = stack.newContext()
            try other.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            stack.context.mergeChanges(fromContextDidSave: try savePayload(of: other))
            XCTAssertEqual(told.last, .refreshed, "a merged save refreshes the object, which had no changes")
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
            stack.context.reset()
            XCTAssertEqual(told.last, .invalidated)
            let loose = ManagedObject(entity: stack.model.entitiesByName["Person"]!, insertInto: nil)
            XCTAssertNil(loose.observeChanges { _ in }, "an object in no context has no events")
        }
    }
}
