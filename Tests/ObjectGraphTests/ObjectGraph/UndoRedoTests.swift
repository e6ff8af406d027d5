// Undo and redo of editing sessions: one undo group per event; undoing inserts, attribute changes,
// relationship changes and deletes (with their cascades) restores the graph exactly, and redo
// replays it. Levels of undo and disabled registration.
import Foundation
import XCTest
@testable import ObjectGraph

final class UndoRedoTests: XCTestCase {
    private func tasks(of person: ManagedObject) -> [ManagedObject] {
        (person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements ?? []
    }

    private func titles(_ objects: [ManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "title") as? String ?? "?" }
    }

    private func attendees(of event: ManagedObject) -> Set<ManagedObject> {
        event.value(forKey: "attendees") as? Set<ManagedObject> ?? []
    }

    private func events(of person: ManagedObject) -> Set<ManagedObject> {
        person.value(forKey: "events") as? Set<ManagedObject> ?? []
    }

    func testDeletingANewObjectWhoseInsertionWasUndoneDoesNothingAndTheSaveSucceeds() throws {
        try forEachStore(undo: true) { stack in
            let context = stack.context
            let kept = stack.person("Kept")
            context.processPendingChanges()
            let undone = stack.person("Undone")
            context.processPendingChanges()
            context.undo()
            XCTAssertFalse(context.insertedObjects.contains(undone))
            // Found by ChangeOrderTests: the object still names the context (it is detached),
            // and deleting it made the save look for a store for its temporary ID.
            context.delete(undone)
            XCTAssertFalse(undone.isDeleted)
            XCTAssertEqual(context.deletedObjects, [])
            try context.save()
            XCTAssertEqual(try stack.fetch("Person").compactMap { $0.value(forKey: "firstName") as? String }, ["Kept"])
            XCTAssertFalse(kept.objectID.isTemporaryID)
        }
    }

    func testChangingANewObjectWhoseInsertionWasUndoneIsNotSavedAsAnUpdate() throws {
        // Found in review: the change made the object one of the updated ones, and the save
        // sent an UPDATE for its temporary ID.
        try forEachStore(undo: true) { stack in
            let context = stack.context
            _ = stack.person("Kept")
            context.processPendingChanges()
            let undone = stack.person("Undone")
            context.processPendingChanges()
            context.undo()
            undone.setValue("Changed", forKey: "firstName")
            XCTAssertFalse(context.updatedObjects.contains(undone), "\(stack.storeType)")
            try context.save()
            XCTAssertEqual(try stack.fetch("Person").compactMap { $0.value(forKey: "firstName") as? String }, ["Kept"])
        }
    }

    /// A four-step session (insert, rename, assign a task, delete with cascade) undone step by
    /// step, each step restoring the graph exactly as it was before it, then redone step by step.
    func testEditingSessionUndoneAndRedoneStepByStep() throws {
        try forEachStore(undo: true) { stack in
            let context = stack.context
            // Step 1: insert Ada.
            let ada = stack.person("Ada")
            context.processPendingChanges()
            // Step 2: rename her.
            ada.setValue("Ada L.", forKey: "firstName")
            context.processPendingChanges()
            // Step 3: a task for her.
            let task = stack.task("Write notes")
            task.setValue(ada, forKey: "owner")
            context.processPendingChanges()
            // Step 4: delete her; the task goes with her (cascade).
            context.delete(ada)
            context.processPendingChanges()
            XCTAssertTrue(ada.isDeleted)
            XCTAssertTrue(task.isDeleted)

            // Undo step 4: both back, still linked.
            context.undo()
            XCTAssertFalse(ada.isDeleted)
            XCTAssertFalse(task.isDeleted)
            XCTAssertTrue(task.value(forKey: "owner") as? ManagedObject === ada)
            XCTAssertEqual(tasks(of: ada), [task])
            XCTAssertEqual(context.insertedObjects, [ada, task])
            XCTAssertEqual(context.deletedObjects, [])

            // Undo step 3: the task is gone and Ada has no tasks.
            context.undo()
            XCTAssertEqual(tasks(of: ada), [])
            XCTAssertFalse(context.insertedObjects.contains(task))
            XCTAssertEqual(context.insertedObjects, [ada])
            XCTAssertEqual(try stack.fetch("Task").count, 0)

            // Undo step 2: her first name is back.
            context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")

            // Undo step 1: nothing is left.
            context.undo()
            XCTAssertEqual(context.insertedObjects, [])
            XCTAssertFalse(context.hasChanges)
            XCTAssertEqual(try stack.fetch("Person").count, 0)
            XCTAssertFalse(context.undoManager!.canUndo)

            // Redo step 1.
            context.redo()
            XCTAssertEqual(context.insertedObjects, [ada])
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            XCTAssertEqual(try stack.fetch("Person"), [ada])
            // Redo step 2.
            context.redo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada L.")
            // Redo step 3.
            context.redo()
            XCTAssertEqual(context.insertedObjects, [ada, task])
            XCTAssertTrue(task.value(forKey: "owner") as? ManagedObject === ada)
            XCTAssertEqual(tasks(of: ada), [task])
            XCTAssertEqual(task.value(forKey: "title") as? String, "Write notes")
            // Redo step 4.
            context.redo()
            XCTAssertTrue(ada.isDeleted)
            XCTAssertTrue(task.isDeleted)
            XCTAssertFalse(context.undoManager!.canRedo)
            try context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0)
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 0)
        }
    }

    func testUndoingAnAttributeChangeOfASavedObjectRestoresTheSavedValue() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada", "Lovelace")
            try stack.context.save()
            ada.setValue("Byron", forKey: "lastName")
            stack.context.processPendingChanges()
            XCTAssertTrue(ada.isUpdated)
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertFalse(ada.hasPersistentChangedValues)
            stack.context.redo()
            XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Byron")
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).first?.value(forKey: "lastName") as? String, "Byron")
        }
    }

    func testSeveralChangesInOneEventAreUndoneTogether() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada", "Lovelace")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            ada.setValue("King", forKey: "lastName")
            ada.setValue("ada@example.org", forKey: "email")
            stack.context.processPendingChanges()
            ada.setValue("Countess", forKey: "firstName")
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(ada.value(forKey: "lastName") as? String, "King")
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertNil(ada.value(forKey: "email"))
        }
    }

    func testUndoClosesTheOpenEventFirst() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Grace", forKey: "firstName")
            // No processPendingChanges: undo ends the event and undoes it.
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testUndoingAToOneChangeRestoresBothSides() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Review", owner: ada)
            try stack.context.save()
            task.setValue(bob, forKey: "owner")
            stack.context.processPendingChanges()
            XCTAssertEqual(tasks(of: bob), [task])
            stack.context.undo()
            XCTAssertTrue(task.value(forKey: "owner") as? ManagedObject === ada)
            XCTAssertEqual(tasks(of: ada), [task])
            XCTAssertEqual(tasks(of: bob), [])
            stack.context.redo()
            XCTAssertTrue(task.value(forKey: "owner") as? ManagedObject === bob)
            XCTAssertEqual(tasks(of: ada), [])
            XCTAssertEqual(tasks(of: bob), [task])
        }
    }

    func testUndoingManyToManyChangesRestoresBothSides() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            try stack.context.save()
            meeting.setValue(Set([bob]), forKey: "attendees")
            stack.context.processPendingChanges()
            XCTAssertEqual(events(of: ada), [])
            XCTAssertEqual(events(of: bob), [meeting])
            stack.context.undo()
            XCTAssertEqual(attendees(of: meeting), [ada])
            XCTAssertEqual(events(of: ada), [meeting])
            XCTAssertEqual(events(of: bob), [])
            stack.context.redo()
            XCTAssertEqual(attendees(of: meeting), [bob])
            XCTAssertEqual(events(of: ada), [])
            XCTAssertEqual(events(of: bob), [meeting])
        }
    }

    func testUndoingOrderedRelationshipChangesRestoresTheOrder() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let a = stack.task("A", owner: ada)
            let b = stack.task("B", owner: ada)
            let c = stack.task("C", owner: ada)
            try stack.context.save()
            ada.mutableOrderedSetValue(forKey: "tasks").remove(b)
            stack.context.processPendingChanges()
            let zeroth = stack.task("Zeroth")
            ada.mutableOrderedSetValue(forKey: "tasks").insert(zeroth, at: 0)
            stack.context.processPendingChanges()
            XCTAssertEqual(tasks(of: ada), [zeroth, a, c])
            stack.context.undo()
            XCTAssertEqual(tasks(of: ada), [a, c])
            stack.context.undo()
            XCTAssertEqual(tasks(of: ada), [a, b, c])
            XCTAssertTrue(b.value(forKey: "owner") as? ManagedObject === ada)
            stack.context.redo()
            XCTAssertEqual(tasks(of: ada), [a, c])
            XCTAssertNil(b.value(forKey: "owner"))
        }
    }

    func testUndoingACascadeDeleteOfSavedObjectsRestoresEveryRelationship() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let first = stack.task("First", owner: ada)
            let second = stack.task("Second", owner: ada)
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            second.setValue(meeting, forKey: "event")
            try stack.context.save()

            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertEqual(stack.context.deletedObjects, [ada, first, second])
            XCTAssertEqual(attendees(of: meeting), [])
            XCTAssertEqual((meeting.value(forKey: "preparation") as? Set<ManagedObject>) ?? [], [])

            stack.context.undo()
            XCTAssertEqual(stack.context.deletedObjects, [])
            XCTAssertFalse(ada.isDeleted || first.isDeleted || second.isDeleted)
            XCTAssertEqual(tasks(of: ada), [first, second])
            XCTAssertEqual(attendees(of: meeting), [ada])
            XCTAssertEqual(events(of: ada), [meeting])
            XCTAssertTrue(second.value(forKey: "event") as? ManagedObject === meeting)
            XCTAssertEqual(meeting.value(forKey: "preparation") as? Set<ManagedObject>, [second])
            XCTAssertFalse(ada.hasPersistentChangedValues)
            // Saving now writes nothing harmful: everything is as stored.
            try stack.context.save()
            let other = stack.newContext()
            XCTAssertEqual(try stack.fetch("Task", in: other).count, 2)
            XCTAssertEqual(try stack.fetch("Person", in: other).count, 1)

            stack.context.redo()
            XCTAssertEqual(stack.context.deletedObjects, [ada, first, second])
            XCTAssertEqual(attendees(of: meeting), [])
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 0)
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0)
        }
    }

    func testRedoingADeleteLeavesTheRedoneGroupUndoable() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            try stack.context.save()
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            stack.context.undo()
            stack.context.redo()
            XCTAssertTrue(ada.isDeleted)
            XCTAssertTrue(stack.context.undoManager!.canUndo)
            stack.context.undo()
            XCTAssertFalse(ada.isDeleted)
            XCTAssertEqual(attendees(of: meeting), [ada])
            XCTAssertTrue(stack.context.undoManager!.canRedo, "undo after redo must be redoable again")
        }
    }

    func testUndoingAnInsertRemovesTheObjectFromFetches() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            stack.context.processPendingChanges()
            XCTAssertEqual(try stack.fetch("Person"), [ada])
            stack.context.undo()
            XCTAssertEqual(try stack.fetch("Person"), [])
            XCTAssertNil(stack.context.registeredObject(for: ada.objectID))
            XCTAssertFalse(ada.isInserted)
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0)
        }
    }

    func testANewChangeAfterUndoClearsRedo() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Grace", forKey: "firstName")
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertTrue(stack.context.undoManager!.canRedo)
            ada.setValue("Hedy", forKey: "firstName")
            stack.context.processPendingChanges()
            XCTAssertFalse(stack.context.undoManager!.canRedo)
            stack.context.redo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Hedy")
        }
    }

    func testUndoWorksAcrossASave() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Grace", forKey: "firstName")
            try stack.context.save()
            XCTAssertFalse(stack.context.hasChanges)
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            XCTAssertTrue(ada.isUpdated)
            XCTAssertEqual(stack.context.updatedObjects, [ada])
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).first?.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testLevelsOfUndoLimitsHowManyEventsCanBeUndone() throws {
        try forEachStore(undo: true) { stack in
            stack.context.undoManager!.levelsOfUndo = 2
            let ada = stack.person("Ada")
            try stack.context.save()
            for name in ["B", "C", "D"] {
                ada.setValue(name, forKey: "firstName")
                stack.context.processPendingChanges()
            }
            stack.context.undo()
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "B")
            XCTAssertFalse(stack.context.undoManager!.canUndo)
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "B")
        }
    }

    func testDisabledRegistrationRecordsNothing() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let undoManager = stack.context.undoManager!
            undoManager.removeAllActions()
            undoManager.disableUndoRegistration()
            ada.setValue("Grace", forKey: "firstName")
            let task = stack.task("Unrecorded", owner: ada)
            stack.context.processPendingChanges()
            undoManager.enableUndoRegistration()
            XCTAssertFalse(undoManager.canUndo)
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Grace")
            XCTAssertTrue(stack.context.insertedObjects.contains(task))
            // Recording resumes once enabled again.
            ada.setValue("Hedy", forKey: "firstName")
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Grace")
        }
    }

    func testAContextWithoutUndoManagerRecordsNothing() throws {
        try forEachStore { stack in
            XCTAssertNil(stack.context.undoManager)
            let ada = stack.person("Ada")
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertTrue(stack.context.insertedObjects.contains(ada))
        }
    }

    func testRollbackClearsTheUndoHistory() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Grace", forKey: "firstName")
            stack.context.processPendingChanges()
            stack.context.rollback()
            XCTAssertFalse(stack.context.undoManager!.canUndo)
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testUndoAfterUndoingAnInsertAndRedoKeepsValuesAndRelationships() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            // One event: a new task for Ada.
            let task = stack.task("Plan", priority: 2, owner: ada)
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertEqual(tasks(of: ada), [])
            XCTAssertFalse(ada.hasPersistentChangedValues)
            stack.context.redo()
            XCTAssertEqual(tasks(of: ada), [task])
            XCTAssertEqual(task.value(forKey: "priority") as? Int16, 2)
            try stack.context.save()
            let other = stack.newContext()
            let saved = try XCTUnwrap(try stack.fetch("Task", in: other).first)
            XCTAssertEqual(saved.value(forKey: "title") as? String, "Plan")
            XCTAssertEqual((saved.value(forKey: "owner") as? ManagedObject)?.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testUndoingAnInsertAfterItWasSavedDeletesTheSavedRow() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            stack.context.processPendingChanges()
            try stack.context.save()
            stack.context.undo()
            XCTAssertTrue(stack.context.hasChanges, "undoing a saved insert is an unsaved change")
            XCTAssertEqual(try stack.fetch("Person"), [], "the object is gone from this context's view")
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0, "the save removes the row")
            stack.context.redo()
            XCTAssertEqual(try stack.fetch("Person").map { $0.value(forKey: "firstName") as? String }, ["Ada"])
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).map { $0.value(forKey: "firstName") as? String }, ["Ada"])
            _ = ada
        }
    }

    func testUndoingADeleteAfterItWasSavedBringsTheObjectBack() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada", "Lovelace")
            let task = stack.task("Plan", owner: ada)
            try stack.context.save()
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0)
            stack.context.undo()
            XCTAssertFalse(ada.isDeleted)
            XCTAssertTrue(ada.managedObjectContext === stack.context)
            XCTAssertTrue(stack.context.hasChanges)
            XCTAssertTrue(stack.context.insertedObjects.isSuperset(of: [ada, task]), "\(stack.context.insertedObjects)")
            try stack.context.save()
            let other = stack.newContext()
            let people = try stack.fetch("Person", in: other)
            XCTAssertEqual(people.map { $0.value(forKey: "lastName") as? String }, ["Lovelace"])
            XCTAssertEqual((people.first?.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String }, ["Plan"])
        }
    }

    func testAnUndoGroupOpenedByHandSpansSeveralEvents() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let undoManager = stack.context.undoManager!
            undoManager.beginUndoGrouping()
            ada.setValue("B", forKey: "firstName")
            stack.context.processPendingChanges()
            ada.setValue("C", forKey: "firstName")
            stack.context.processPendingChanges()
            undoManager.endUndoGrouping()
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testUndoingADeleteOfAnUnsavedObjectInsertsItAgain() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            stack.context.processPendingChanges()
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertFalse(ada.isDeleted)
            XCTAssertEqual(stack.context.insertedObjects, [ada])
            XCTAssertEqual(stack.context.deletedObjects, [])
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 1)
        }
    }

    func testUndoingOneToOneStealRestoresThePreviousOwner() throws {
        let model = ManagedObjectModel {
            Entity("Person") { Relationship("passport", to: "Passport", inverse: "holder") }
            Entity("Passport") { Relationship("holder", to: "Person", inverse: "passport") }
        }
        try forEachStore(undo: true, model: model) { stack in
            let ada = stack.insert("Person")
            let bob = stack.insert("Person")
            let passport = stack.insert("Passport")
            ada.setValue(passport, forKey: "passport")
            stack.context.processPendingChanges()
            bob.setValue(passport, forKey: "passport")
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertTrue(ada.value(forKey: "passport") as? ManagedObject === passport)
            XCTAssertNil(bob.value(forKey: "passport"))
            XCTAssertTrue(passport.value(forKey: "holder") as? ManagedObject === ada)
            stack.context.redo()
            XCTAssertNil(ada.value(forKey: "passport"))
            XCTAssertTrue(passport.value(forKey: "holder") as? ManagedObject === bob)
        }
    }

    func testUndoIsReportedInObjectsDidChange() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            stack.context.processPendingChanges()
            var changes: [ObjectsDidChange] = []
            let token = stack.context.observe { note in
                if case .objectsDidChange(let c) = note { changes.append(c) }
            }
            stack.context.undo()
            XCTAssertEqual(changes.count, 1)
            XCTAssertEqual(changes.first?.deleted, [ada])
            XCTAssertEqual(changes.first?.inserted, [])
            XCTAssertEqual(changes.first?.updated, [], "an undone insert is reported as deleted only")
            changes = []
            stack.context.redo()
            XCTAssertEqual(changes.count, 1)
            XCTAssertEqual(changes.first?.inserted, [ada])
            XCTAssertEqual(changes.first?.updated, [])
            token.cancel()
        }
    }

    func testUndoActionNamesFollowTheGroups() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            stack.context.undoManager!.setActionName("New Person")
            stack.context.processPendingChanges()
            ada.setValue("Grace", forKey: "firstName")
            stack.context.undoManager!.setActionName("Rename")
            stack.context.processPendingChanges()
            XCTAssertEqual(stack.context.undoManager!.undoActionName, "Rename")
            stack.context.undo()
            XCTAssertEqual(stack.context.undoManager!.undoActionName, "New Person")
            XCTAssertEqual(stack.context.undoManager!.redoActionName, "Rename")
        }
    }

    func testUndoingACascadeDeleteThroughUnloadedRelationships() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("A", owner: ada)
            _ = stack.task("B", owner: ada)
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            try stack.context.save()
            let other = stack.newContext()
            other.undoManager = UndoManager()
            let adaThere = other.object(with: ada.objectID)
            other.delete(adaThere)
            other.processPendingChanges()
            XCTAssertEqual(other.deletedObjects.count, 3)
            other.undo()
            XCTAssertEqual(other.deletedObjects, [])
            XCTAssertEqual((adaThere.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.count, 2)
            XCTAssertEqual((adaThere.value(forKey: "events") as? Set<ManagedObject>)?.count, 1)
            try other.save()
            let third = stack.newContext()
            XCTAssertEqual(try stack.fetch("Task", in: third).count, 2)
            let person = try XCTUnwrap(try stack.fetch("Person", in: third).first)
            XCTAssertEqual((person.value(forKey: "events") as? Set<ManagedObject>)?.count, 1)
        }
    }

    func testUndoingADeleteThatADenyRuleRefusedLetsTheSaveSucceed() throws {
        let model = ManagedObjectModel {
            Entity("Project") {
                Attribute("name", .string)
                Relationship("items", to: "Item", inverse: "project", toMany: true, deleteRule: .deny)
            }
            Entity("Item") {
                Attribute("name", .string)
                Relationship("project", to: "Project", inverse: "items")
            }
        }
        try forEachStore(undo: true, model: model) { stack in
            let project = stack.insert("Project", ["name": "Home"])
            _ = stack.insert("Item", ["name": "Paint", "project": project])
            try stack.context.save()
            stack.context.delete(project)
            stack.context.processPendingChanges()
            XCTAssertThrowsError(try stack.context.save())
            stack.context.undo()
            XCTAssertFalse(project.isDeleted)
            XCTAssertNoThrow(try stack.context.save())
            XCTAssertEqual(try stack.fetch("Project", in: stack.newContext()).count, 1)
        }
    }

    func testRedoAfterSavingTheUndoIsSavedToo() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Grace", forKey: "firstName")
            try stack.context.save()
            stack.context.undo()
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).first?.value(forKey: "firstName") as? String, "Ada")
            stack.context.redo()
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).first?.value(forKey: "firstName") as? String, "Grace")
        }
    }

    // MARK: Generated sessions

    /// A small deterministic generator (so that a failing session can be replayed).
    private struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
    }

    /// The observable state of `objects` in `context`: presence, attribute values and
    /// relationships (as positions in `objects`).
    private func graphState(_ objects: [ManagedObject], in context: ManagedObjectContext) -> [String] {
        func position(_ object: Any?) -> String {
            guard let object = object as? ManagedObject else { return "-" }
            return objects.firstIndex(where: { $0 === object }).map(String.init) ?? "?"
        }
        return objects.enumerated().map { index, object in
            let present = context.registeredObject(for: object.objectID) === object
            guard present else { return "\(index): absent" }
            var parts = ["\(index): \(object.entity.name)\(object.isDeleted ? " deleted" : "")\(object.isInserted ? " inserted" : "")"]
            switch object.entity.name {
            case "Person":
                parts.append("name=\(object.value(forKey: "firstName") as? String ?? "nil")")
                parts.append("tasks=\(((object.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements ?? []).map(position))")
                parts.append("events=\(((object.value(forKey: "events") as? Set<ManagedObject>) ?? []).map(position).sorted())")
            case "Task":
                parts.append("title=\(object.value(forKey: "title") as? String ?? "nil")")
                parts.append("priority=\(object.value(forKey: "priority") as? Int16 ?? -1)")
                parts.append("owner=\(position(object.value(forKey: "owner")))")
                parts.append("event=\(position(object.value(forKey: "event")))")
            default:
                parts.append("title=\(object.value(forKey: "title") as? String ?? "nil")")
                parts.append("attendees=\(((object.value(forKey: "attendees") as? Set<ManagedObject>) ?? []).map(position).sorted())")
                parts.append("preparation=\(((object.value(forKey: "preparation") as? Set<ManagedObject>) ?? []).map(position).sorted())")
            }
            return parts.joined(separator: " ")
        }
    }

    /// Applies one random edit (one event) to the graph; returns its description.
    private func randomEdit(_ stack: Stack, _ objects: inout [ManagedObject], _ random: inout Generator, step: Int,
                            kinds: [Int] = Array(0..<10), in target: ManagedObjectContext? = nil) -> String {
        let context = target ?? stack.context
        let live = objects.filter { context.registeredObject(for: $0.objectID) === $0 && !$0.isDeleted }
        let people = live.filter { $0.entity.name == "Person" }
        let tasks = live.filter { $0.entity.name == "Task" }
        let events = live.filter { $0.entity.name == "Event" }
        func pick(_ list: [ManagedObject]) -> ManagedObject? { list.isEmpty ? nil : list[random.next(list.count)] }
        func name(_ object: ManagedObject?) -> String { object.map { "#\(objects.firstIndex(of: $0)!)" } ?? "nil" }
        switch kinds[random.next(kinds.count)] {
        case 0:
            let person = stack.insert("Person", ["firstName": "P\(step)"], into: context)
            objects.append(person)
            return "insert person \(name(person))"
        case 1:
            let owner = pick(people)
            let task = stack.insert("Task", ["title": "T\(step)", "uuid": UUID(), "priority": random.next(4)], into: context)
            if let owner { task.setValue(owner, forKey: "owner") }
            objects.append(task)
            return "insert task \(name(task)) owner \(name(owner))"
        case 2:
            guard let person = pick(people) else { return "nothing" }
            person.setValue("R\(step)", forKey: "firstName")
            return "rename \(name(person))"
        case 3:
            guard let task = pick(tasks) else { return "nothing" }
            let owner = random.next(3) == 0 ? nil : pick(people)
            task.setValue(owner, forKey: "owner")
            return "owner of \(name(task)) := \(name(owner))"
        case 4:
            guard let person = pick(people), let event = pick(events) else { return "nothing" }
            let attendees = event.mutableSetValue(forKey: "attendees")
            _ = attendees.count
            if attendees.contains(person) { attendees.remove(person) } else { attendees.insert(person) }
            return "toggle \(name(person)) at \(name(event))"
        case 5:
            guard let task = pick(tasks) else { return "nothing" }
            let event = random.next(3) == 0 ? nil : pick(events)
            task.setValue(event, forKey: "event")
            return "event of \(name(task)) := \(name(event))"
        case 6:
            guard let person = pick(people) else { return "nothing" }
            context.delete(person)
            return "delete person \(name(person))"
        case 7:
            guard let task = pick(tasks) else { return "nothing" }
            context.delete(task)
            return "delete task \(name(task))"
        case 8:
            guard let person = pick(people), let task = pick(tasks) else { return "nothing" }
            let list = person.mutableOrderedSetValue(forKey: "tasks")
            _ = list.count   // (fires a fault first: contains on a fault's proxy is covered by ObjectStateTests)
            if list.contains(task) { list.remove(task) } else { list.insert(task, at: 0) }
            return "toggle \(name(task)) first in \(name(person))"
        default:
            guard let task = pick(tasks) else { return "nothing" }
            task.setValue(random.next(4), forKey: "priority")
            task.setValue("E\(step)", forKey: "title")
            return "edit \(name(task))"
        }
    }

    /// Whether `actual` is `expected` for the objects known then, and the objects made later are absent.
    private func matches(_ actual: [String], _ expected: [String]) -> Bool {
        Array(actual.prefix(expected.count)) == expected && actual.dropFirst(expected.count).allSatisfy { $0.hasSuffix(": absent") }
    }

    func testGeneratedEditingSessionsUndoAndRedoExactly() throws {
        for seed in 1...60 {
            try forEachStore(undo: true) { stack in
                var objects: [ManagedObject] = []
                let ada = stack.person("Ada"), bob = stack.person("Bob")
                let meeting = stack.event("Meeting"), party = stack.event("Party")
                objects += [ada, bob, meeting, party]
                for index in 0..<3 { objects.append(stack.task("Base \(index)", priority: index, owner: index == 2 ? bob : ada)) }
                meeting.setValue(Set([ada]), forKey: "attendees")
                try stack.context.save()
                stack.context.undoManager!.removeAllActions()
                var random = Generator(state: UInt64(seed))
                var states = [graphState(objects, in: stack.context)]
                var log: [String] = []
                for step in 0..<40 {
                    let edit = randomEdit(stack, &objects, &random, step: step)
                    guard edit != "nothing" else { continue }
                    stack.context.processPendingChanges()
                    let state = graphState(objects, in: stack.context)
                    // An edit that changed nothing (a value set to what it was) records no undo step.
                    guard !matches(state, states.last!) else { continue }
                    log.append(edit)
                    states.append(state)
                }
                let steps = log.count
                for back in 1...steps {
                    stack.context.undo()
                    let expected = states[steps - back]
                    let actual = graphState(objects, in: stack.context)
                    if !matches(actual, expected) {
                        let diff = zip(expected, actual).filter { $0 != $1 }.map { "expected \($0)\n     got \($1)" }
                        XCTFail("seed \(seed): undoing step \(steps - back + 1) (\(log[steps - back])) of \(log):\n\(diff.joined(separator: "\n"))")
                        return
                    }
                }
                for forward in 1...steps {
                    stack.context.redo()
                    let expected = states[forward]
                    let actual = graphState(objects, in: stack.context)
                    if !matches(actual, expected) {
                        let diff = zip(expected, actual).filter { $0 != $1 }.map { "expected \($0)\n     got \($1)" }
                        XCTFail("seed \(seed): redoing step \(forward) (\(log[forward - 1])) of \(log):\n\(diff.joined(separator: "\n"))")
                        return
                    }
                }
                // The replayed session saves as the original would have.
                try stack.context.save()
                let other = stack.newContext()
                let expectedPeople = states[steps].filter { $0.contains(": Person") && !$0.contains(" deleted") }.count
                XCTAssertEqual(try stack.fetch("Person", in: other).count, expectedPeople, "seed \(seed)")
            }
        }
    }

    func testGeneratedSessionsWithSavesUndoneAndRedoneAreSavedExactly() throws {
        for seed in 1...40 {
            try forEachStore(undo: true) { stack in
                var objects: [ManagedObject] = []
                let ada = stack.person("Ada"), bob = stack.person("Bob"), carol = stack.person("Carol")
                let meeting = stack.event("Meeting"), party = stack.event("Party")
                objects += [ada, bob, carol, meeting, party]
                for index in 0..<5 { objects.append(stack.task("Base \(index)", priority: index % 4, owner: [ada, bob, nil][index % 3])) }
                meeting.setValue(Set([ada, bob]), forKey: "attendees")
                try stack.context.save()
                stack.context.undoManager!.removeAllActions()
                func storedState() throws -> [String] {
                    let other = stack.newContext()
                    return graphState(objects.map { other.object(with: $0.objectID) }, in: other)
                }
                let initial = try storedState()
                var random = Generator(state: UInt64(seed) &* 7919)
                var steps = 0
                var last = graphState(objects, in: stack.context)
                for step in 0..<30 {
                    let edit = randomEdit(stack, &objects, &random, step: step, kinds: [2, 3, 4, 5, 8, 9])
                    guard edit != "nothing" else { continue }
                    stack.context.processPendingChanges()
                    let state = graphState(objects, in: stack.context)
                    guard state != last else { continue }
                    last = state
                    steps += 1
                    if random.next(4) == 0 { try stack.context.save() }
                }
                try stack.context.save()
                let final = graphState(objects, in: stack.context)
                XCTAssertEqual(try storedState(), final, "seed \(seed): the session as saved")
                for _ in 0..<steps { stack.context.undo() }
                XCTAssertEqual(graphState(objects, in: stack.context), initial, "seed \(seed): all undone in memory")
                try stack.context.save()
                XCTAssertEqual(try storedState(), initial, "seed \(seed): all undone, saved")
                for _ in 0..<steps { stack.context.redo() }
                XCTAssertEqual(graphState(objects, in: stack.context), final, "seed \(seed): all redone in memory")
                try stack.context.save()
                XCTAssertEqual(try storedState(), final, "seed \(seed): all redone, saved")
            }
        }
    }

    func testGeneratedSessionsInTwoContextsMergedIntoEachOther() throws {
        for seed in 1...30 {
            try forEachStore { stack in
                let ada = stack.person("Ada"), bob = stack.person("Bob")
                let meeting = stack.event("Meeting")
                var base: [ManagedObject] = [ada, bob, meeting]
                for index in 0..<3 { base.append(stack.task("Base \(index)", owner: index == 2 ? bob : ada)) }
                meeting.setValue(Set([ada]), forKey: "attendees")
                try stack.context.save()
                var ids = base.map(\.objectID)
                let contexts = [stack.newContext(), stack.newContext()]
                var random = Generator(state: UInt64(seed) &* 104729)
                var log: [String] = []
                for round in 0..<12 {
                    let writer = contexts[round % 2], reader = contexts[1 - round % 2]
                    ids = ids.filter { id in (try? stack.newContext().existingObject(with: id)) != nil }
                    var objects = ids.map { writer.object(with: $0) }
                    let known = objects.count
                    for step in 0..<3 {
                        log.append("round \(round): " + randomEdit(stack, &objects, &random, step: round * 10 + step, in: writer))
                        writer.processPendingChanges()
                    }
                    var payload: ContextDidSave?
                    let token = writer.observe { note in if case .didSave(let saved, _) = note { payload = saved } }
                    try writer.save()
                    token.cancel()
                    ids += objects.dropFirst(known).filter { !$0.isDeleted && $0.managedObjectContext != nil }.map(\.objectID)
                    if let payload { reader.mergeChanges(fromContextDidSave: payload) }
                    let live = ids.filter { id in (try? stack.newContext().existingObject(with: id)) != nil }
                    let check = stack.newContext()
                    let stored = graphState(live.map { check.object(with: $0) }, in: check)
                    for (index, context) in contexts.enumerated() {
                        let state = graphState(live.map { context.object(with: $0) }, in: context)
                        if state != stored {
                            let diff = zip(stored, state).filter { $0 != $1 }.map { "stored \($0)\n   context \($1)" }
                            XCTFail("seed \(seed) round \(round) context \(index):\n\(diff.joined(separator: "\n"))\n\(log.joined(separator: "\n"))")
                            return
                        }
                    }
                }
            }
        }
    }
}
