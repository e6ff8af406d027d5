// New objects that leave a context unsaved (their insertion undone, or deleted before a save):
// they have no row even when their IDs were made permanent early, so a change to one is not an
// update, deleting one does nothing, and a save that would refer to one fails naming the
// relationship (Core Data's "dangling reference to an invalid object"); while saves that relate
// new objects legitimately go through.
import Foundation
import XCTest
@testable import ObjectGraph

final class DanglingReferenceTests: XCTestCase {
    private func dangling(_ error: Error) -> Set<String> {
        Set(((error as? ValidationError)?.failures ?? []).filter { $0.rule == .danglingReference }.map { "\($0.entity).\($0.property ?? "")" })
    }

    /// A new person whose insertion was undone, its ID first made permanent when `permanentID`.
    private func undonePerson(_ stack: Stack, permanentID: Bool = false) throws -> ManagedObject {
        let undone = stack.person("Undone")
        stack.context.processPendingChanges()
        if permanentID { try stack.context.obtainPermanentIDs(for: [undone]) }
        stack.context.undo()
        return undone
    }

    /// A saved task and event, and a new person whose insertion was undone.
    private func savedTaskEventAndUndonePerson(_ stack: Stack) throws -> (task: ManagedObject, event: ManagedObject, undone: ManagedObject) {
        let task = stack.task("T")
        let event = stack.event("E")
        try stack.context.save()
        return (task, event, try undonePerson(stack))
    }

    func testRelatingObjectsToANewObjectWhoseInsertionWasUndoneFailsTheSaveNamingTheRelationship() throws {
        // The object will not be saved, so no store could resolve the reference. The in-memory
        // store used to save it; SQLite failed with "does not belong to this store".
        try forEachStore(undo: true) { stack in
            let context = stack.context
            let (task, event, undone) = try savedTaskEventAndUndonePerson(stack)
            task.setValue(undone, forKey: "owner")
            event.mutableSetValue(forKey: "attendees").insert(undone)
            XCTAssertThrowsError(try context.save(), "\(stack.storeType)") { error in
                XCTAssertEqual(self.dangling(error), ["Task.owner", "Event.attendees"], "\(stack.storeType)")
                let failures = (error as? ValidationError)?.failures ?? []
                XCTAssertTrue(failures.allSatisfy { $0.value == "\(undone.objectID)" && $0.message.contains("left the context unsaved") })
            }
            // Nothing was written: another context reads the task without an owner.
            let other = stack.newContext()
            XCTAssertNil(try other.existingObject(with: task.objectID).value(forKey: "owner"), "\(stack.storeType)")
            // Undoing the relations lets the save go through.
            task.setValue(nil, forKey: "owner")
            event.mutableSetValue(forKey: "attendees").remove(undone)
            XCTAssertNoThrow(try context.save(), "\(stack.storeType)")
        }
    }

    // MARK: A new object whose insertion was undone after its ID was made permanent

    func testChangingAnUndoneNewObjectWithAnEarlyPermanentIDIsNotAnUpdate() throws {
        try forEachStore(undo: true) { stack in
            let context = stack.context
            _ = stack.person("Kept")
            context.processPendingChanges()
            let undone = try undonePerson(stack, permanentID: true)
            undone.setValue("Changed", forKey: "firstName")
            XCTAssertFalse(context.updatedObjects.contains(undone), "\(stack.storeType)")
            XCTAssertNoThrow(try context.save(), "\(stack.storeType)")
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).compactMap { $0.value(forKey: "firstName") as? String }, ["Kept"], "\(stack.storeType)")
        }
    }

    func testRelatingToAnUndoneNewObjectWithAnEarlyPermanentIDFailsTheSaveWhateverTheMergePolicy() throws {
        for policy in [MergePolicy.error, .mergeByPropertyObjectTrump] {
            try forEachStore(undo: true) { stack in
                let context = stack.context
                context.mergePolicy = policy
                let task = stack.task("T")
                try context.save()
                let undone = try undonePerson(stack, permanentID: true)
                undone.setValue("Undone", forKey: "firstName")
                task.setValue(undone, forKey: "owner")
                XCTAssertThrowsError(try context.save(), "\(stack.storeType) \(policy)") { error in
                    XCTAssertEqual(self.dangling(error), ["Task.owner"], "\(stack.storeType) \(policy): \(error)")
                }
                // Nothing was written.
                let other = stack.newContext()
                XCTAssertEqual(try stack.fetch("Task", in: other)[0].objectIDs(forRelationshipNamed: "owner"), [], "\(stack.storeType)")
                XCTAssertEqual(try stack.fetch("Person", in: other).count, 0, "\(stack.storeType)")
            }
        }
    }

    func testDeletingAnUndoneNewObjectWithAnEarlyPermanentIDDoesNothing() throws {
        try forEachStore(undo: true) { stack in
            let context = stack.context
            let undone = try undonePerson(stack, permanentID: true)
            context.delete(undone)
            XCTAssertNoThrow(try context.save(), "\(stack.storeType)")
        }
    }

    // MARK: No false alarms

    func testSavesThatRelateNewObjectsLegitimatelyGoThrough() throws {
        try forEachStore(undo: true) { stack in
            let context = stack.context
            // Inserted and related in one event.
            let p = stack.person("P")
            let t = stack.task("T", owner: p)
            let e = stack.event("E")
            e.mutableSetValue(forKey: "attendees").insert(p)
            XCTAssertNoThrow(try context.save(), "\(stack.storeType) one event")
            // Permanent IDs obtained early.
            let p2 = stack.person("P2")
            try context.obtainPermanentIDs(for: [p2])
            t.setValue(p2, forKey: "owner")
            e.mutableSetValue(forKey: "attendees").insert(p2)
            XCTAssertNoThrow(try context.save(), "\(stack.storeType) early IDs")
            // Undo an insertion, redo it, relate, save.
            let p3 = stack.person("P3")
            context.processPendingChanges()
            context.undo()
            context.redo()
            t.setValue(p3, forKey: "owner")
            p3.mutableSetValue(forKey: "events").insert(e)
            XCTAssertNoThrow(try context.save(), "\(stack.storeType) undo redo")
            // Undo an insertion, then insert the object again by hand.
            let p4 = stack.person("P4")
            context.processPendingChanges()
            context.undo()
            context.insert(p4)
            p4.setValue("P4", forKey: "firstName")
            t.setValue(p4, forKey: "owner")
            XCTAssertNoThrow(try context.save(), "\(stack.storeType) reinsert")
            // insertInto: nil, inserted later.
            let entity = stack.model.entitiesByName["Person"]!
            let p5 = ManagedObject(entity: entity, insertInto: nil)
            p5.setValue("P5", forKey: "firstName")
            context.insert(p5)
            let t5 = stack.task("T5")
            t5.setValue(p5, forKey: "owner")
            XCTAssertNoThrow(try context.save(), "\(stack.storeType) insertInto nil")
            // retainsRegisteredObjects.
            context.retainsRegisteredObjects = true
            let p6 = stack.person("P6")
            _ = stack.task("T6", owner: p6)
            p6.mutableSetValue(forKey: "events").insert(e)
            XCTAssertNoThrow(try context.save(), "\(stack.storeType) retains")
            // Ordered to-many from a fetched object, to-one read from a row.
            let other = stack.newContext()
            let fetched = try stack.fetch("Task", "title == 'T'", in: other)[0]
            let np = ManagedObject(entity: entity, insertInto: other)
            np.setValue("NP", forKey: "firstName")
            fetched.setValue(np, forKey: "owner")
            XCTAssertNoThrow(try other.save(), "\(stack.storeType) fetched")
        }
    }

    // MARK: Inverses and ordered relationships

    func testTheUndoneObjectsOwnRelationshipsAndOrderedToManyAreCaught() throws {
        try forEachStore(undo: true) { stack in
            let context = stack.context
            let (task, event, undone) = try savedTaskEventAndUndonePerson(stack)
            undone.mutableSetValue(forKey: "tasks").insert(task)
            undone.mutableSetValue(forKey: "events").insert(event)
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual(self.dangling(error), ["Task.owner", "Event.attendees"], "\(stack.storeType)")
            }
            context.rollback()
            let p = stack.person("P")
            try context.save()
            let ut = stack.task("UT")
            context.processPendingChanges()
            context.undo()
            p.mutableOrderedSetValue(forKey: "tasks").insert(ut, at: 0)
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual(self.dangling(error), ["Person.tasks"], "\(stack.storeType)")
            }
        }
    }
}
