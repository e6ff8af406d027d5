// The object life cycle as Core Data defines it: validation (model rules, hooks, all failures at
// once, objects changed only through inverses, deleted objects skipped), undo and redo across
// saves and faulting, notification contents, and delete rules with re-insertion.
import Foundation
import XCTest
@testable import ObjectGraph

/// Counts its awakeFromInsert calls (Core Data: once in the object's lifetime).
final class LifecycleNote: ManagedObject {
    nonisolated(unsafe) static var awakeFromInsertCount = 0
    override func awakeFromInsert() {
        super.awakeFromInsert()
        Self.awakeFromInsertCount += 1
    }
}

/// Sets a primitive value in awakeFromInsert, as Core Data advises (a baseline, not a change).
final class PrimitiveNote: ManagedObject {
    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue("from awake", forKey: "text")
    }
}

final class ObjectLifecycleTests: XCTestCase {
    override func setUp() {
        super.setUp()
        ObjectClasses.register(LifecycleNote.self, PrimitiveNote.self)
        LifecycleNote.awakeFromInsertCount = 0
    }

    /// Owners hold at most two items; an item needs an owner (nullify both ways) and a label of
    /// 2...5 characters; a keeper denies its deletion while it holds a note.
    static let rulesModel = ManagedObjectModel {
        Entity("Owner") {
            Attribute("name", .string).required()
            Relationship("items", to: "Thing", inverse: "owner", toMany: true).count(max: 2)
            Relationship("kept", to: "Kept", inverse: "keeper", toMany: false, deleteRule: .deny)
        }
        Entity("Thing") {
            Attribute("label", .string).required().minimum(2).maximum(5)
            Attribute("size", .integer32, default: 1).required().minimum(1).maximum(10)
            Relationship("owner", to: "Owner", inverse: "items").required()
        }
        Entity("Kept") {
            Attribute("name", .string)
            Relationship("keeper", to: "Owner", inverse: "kept")
        }
        Entity("LifecycleNote", class: "LifecycleNote") {
            Attribute("text", .string)
        }
        Entity("PrimitiveNote", class: "PrimitiveNote") {
            Attribute("text", .string)
        }
    }

    private func validationError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> ValidationError? {
        do {
            try body()
            XCTFail("expected a validation error", file: file, line: line)
            return nil
        } catch let error as ValidationError {
            return error
        } catch {
            XCTFail("expected a validation error, got \(error)", file: file, line: line)
            return nil
        }
    }

    private func tasks(of person: ManagedObject) -> [ManagedObject] {
        (person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements ?? []
    }

    // MARK: Undo of changes to objects turned into faults since (probed: the failure traps)

    func testUndoingAChangeToAnObjectRefreshedSinceRestoresTheValue() throws {
        let result = try ChildProcessProbe.run("ObjectLifecycleTests", "testProbeUndoAfterRefresh")
        XCTAssertTrue(result.passed, "undo of a change to an object refreshed (turned into a fault) since should fire the fault and undo; child: \(result.tail)")
    }

    func testProbeUndoAfterRefresh() throws {
        try ChildProcessProbe.skipUnlessProbing()
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Grace", forKey: "firstName")
            try stack.context.save()
            stack.context.refresh(ada, mergeChanges: false)
            XCTAssertTrue(ada.isFault)
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            XCTAssertTrue(ada.hasChanges)
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).first?.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testUndoingAChangeAfterRefreshAllObjectsRestoresTheValue() throws {
        let result = try ChildProcessProbe.run("ObjectLifecycleTests", "testProbeUndoAfterRefreshAllObjects")
        XCTAssertTrue(result.passed, "undo after refreshAllObjects should undo the saved change; child: \(result.tail)")
    }

    func testProbeUndoAfterRefreshAllObjects() throws {
        try ChildProcessProbe.skipUnlessProbing()
        try forEachStore(undo: true) { stack in
            let task = stack.task("Plan", priority: 1)
            try stack.context.save()
            task.setValue(2, forKey: "priority")
            try stack.context.save()
            stack.context.refreshAllObjects()
            stack.context.undo()
            XCTAssertEqual(task.value(forKey: "priority") as? Int16, 1)
        }
    }

    // MARK: Insertion

    func testInsertingAnInsertedObjectAgainDoesNotAwakeItAgain() throws {
        try forEachStore(undo: true, model: Self.rulesModel) { stack in
            LifecycleNote.awakeFromInsertCount = 0
            let note = stack.context.insertNewObject(forEntityName: "LifecycleNote")
            stack.context.insert(note)
            XCTAssertEqual(LifecycleNote.awakeFromInsertCount, 1, "awakeFromInsert runs once in an object's lifetime")
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertTrue(stack.context.insertedObjects.isEmpty, "one undo takes back the insertion")
        }
    }

    func testInsertingASavedObjectAgainChangesNothing() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            stack.context.insert(ada)
            XCTAssertFalse(ada.isInserted, "a saved object is not new")
            XCTAssertNoThrow(try stack.context.save())
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 1)
        }
    }

    func testAPrimitiveValueSetInAwakeFromInsertIsSaved() throws {
        try forEachStore(model: Self.rulesModel) { stack in
            let note = stack.context.insertNewObject(forEntityName: "PrimitiveNote")
            XCTAssertEqual(note.value(forKey: "text") as? String, "from awake")
            try stack.context.save()
            let there = try XCTUnwrap(try stack.fetch("PrimitiveNote", in: stack.newContext()).first)
            XCTAssertEqual(there.value(forKey: "text") as? String, "from awake")
        }
    }

    // MARK: Deleting and inserting again

    func testReinsertingANewObjectDeletedInAnEarlierEventSavesIt() throws {
        try forEachStore { stack in
            let bob = stack.person("Bob")
            stack.context.delete(bob)
            stack.context.processPendingChanges()
            stack.context.insert(bob)
            XCTAssertTrue(bob.isInserted)
            XCTAssertFalse(bob.isDeleted, "an inserted object is not deleted")
            XCTAssertEqual(stack.context.insertedObjects, [bob])
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).map { $0.value(forKey: "firstName") as? String }, ["Bob"])
        }
    }

    func testReinsertingADeletedSavedObjectLeavesAConsistentStore() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("Plan", owner: ada)
            try stack.context.save()
            stack.context.delete(ada)
            stack.context.insert(ada)
            try stack.context.save()
            let people = try stack.fetch("Person", in: stack.newContext()).count
            let tasks = try stack.fetch("Task", in: stack.newContext()).count
            // Core Data undeletes an object inserted again (both stay); deleting it would remove
            // both (cascade). Either way the person's row and its cascade agree.
            XCTAssertTrue((people == 1 && tasks == 1) || (people == 0 && tasks == 0), "people \(people), tasks \(tasks)")
            if people == 1 {
                XCTAssertTrue(ada.managedObjectContext === stack.context && !ada.isDeleted, "the person stored is the context's")
            }
        }
    }

    // MARK: Notifications

    func testChangedValuesForCurrentEventOfAToManyRelationshipHoldTheOldObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let first = stack.task("First", owner: ada)
            try stack.context.save()
            _ = stack.task("Second", owner: ada)
            let old = ada.changedValuesForCurrentEvent()["tasks"]
            XCTAssertNotNil(old)
            XCTAssertFalse(old is NSNull, "the tasks had one object before the event, not nil")
            XCTAssertEqual((old as? OrderedSet<ManagedObject>)?.elements, [first], "\(String(describing: old))")
        }
    }

    func testRollbackOfAnUnprocessedInsertionDoesNotReportItInserted() throws {
        try forEachStore { stack in
            let recorder = Recorder(stack.context)
            let ada = stack.person("Ada")
            stack.context.rollback()
            let last = try XCTUnwrap(recorder.changes.last)
            XCTAssertFalse(last.inserted.contains(ada), "rolled back, the object was never inserted")
            for change in recorder.changes {
                XCTAssertFalse(change.inserted.contains(ada) && change.invalidated.contains(ada), "inserted and invalidated in one notification")
            }
            XCTAssertFalse(stack.context.hasChanges)
        }
    }

    func testRollbackOfAnUnprocessedDeletionDoesNotReportItDeleted() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            stack.context.delete(ada)
            stack.context.rollback()
            XCTAssertFalse(ada.isDeleted)
            // Nothing was reported before the rollback, and nothing is left to report after it.
            XCTAssertFalse(recorder.changes.contains { $0.deleted.contains(ada) }, "rolled back, the object is not deleted")
        }
    }

    // MARK: Validation

    func testAToManyOverItsMaximumThroughTheInverseIsRefused() throws {
        try forEachStore(model: Self.rulesModel) { stack in
            let owner = stack.insert("Owner", ["name": "O"])
            stack.insert("Thing", ["label": "aa", "owner": owner])
            stack.insert("Thing", ["label": "bb", "owner": owner])
            try stack.context.save()
            // Changed only through the inverse: the owner is validated too.
            stack.insert("Thing", ["label": "cc", "owner": owner])
            let error = validationError { try stack.context.save() }
            XCTAssertEqual(error?.failures.map { "\($0.entity).\($0.property ?? "")" }, ["Owner.items"])
            XCTAssertEqual(error?.failures.first?.rule, .maximumCount(2))
            XCTAssertEqual(error?.failures.first?.objectID, owner.objectID)
        }
    }

    func testNullifiedRequiredToOneIsReportedWithEveryOtherFailure() throws {
        try forEachStore(model: Self.rulesModel) { stack in
            let owner = stack.insert("Owner", ["name": "O"])
            let thing = stack.insert("Thing", ["label": "aa", "owner": owner])
            try stack.context.save()
            stack.context.delete(owner)
            let bad = stack.insert("Thing", ["label": "x", "size": 11])
            let error = validationError { try stack.context.save() }
            let found = Set(error?.failures.map { "\($0.objectID == thing.objectID ? "old" : "new").\($0.property ?? "")" } ?? [])
            XCTAssertEqual(found, ["old.owner", "new.owner", "new.label", "new.size"], "\(String(describing: error))")
            XCTAssertTrue(stack.context.hasChanges, "a refused save keeps the changes")
            _ = bad
        }
    }

    func testInvalidValuesOfADeletedObjectAreNotValidated() throws {
        try forEachStore(model: Self.rulesModel) { stack in
            let owner = stack.insert("Owner", ["name": "O"])
            let thing = stack.insert("Thing", ["label": "aa", "owner": owner])
            try stack.context.save()
            thing.setValue("", forKey: "label")
            thing.setValue(99, forKey: "size")
            stack.context.delete(thing)
            XCTAssertNoThrow(try stack.context.save())
            XCTAssertEqual(try stack.fetch("Thing", in: stack.newContext()).count, 0)
        }
    }

    func testDenyRefusesWithTheDeniedRelationshipNamedAndUndoLetsTheSaveSucceed() throws {
        try forEachStore(undo: true, model: Self.rulesModel) { stack in
            let owner = stack.insert("Owner", ["name": "O"])
            let kept = stack.insert("Kept", ["name": "K", "keeper": owner])
            try stack.context.save()
            stack.context.delete(owner)
            let error = validationError { try stack.context.save() }
            XCTAssertEqual(error?.failures.map { "\($0.entity).\($0.property ?? "")" }, ["Owner.kept"])
            XCTAssertEqual(error?.failures.first?.rule, .deny)
            // The deny rule leaves the destination as it was (nothing was nullified).
            XCTAssertTrue(kept.value(forKey: "keeper") as? ManagedObject === owner)
            stack.context.undo()
            XCTAssertFalse(owner.isDeleted)
            XCTAssertNoThrow(try stack.context.save())
        }
    }

    // MARK: Undo and redo across saves

    func testUndoAndRedoOfManyToManyAndOrderedChangesAcrossSavesReachTheStore() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let meeting = stack.event("Meeting")
            let a = stack.task("A", owner: ada)
            let b = stack.task("B", owner: ada)
            meeting.setValue(Set([ada]), forKey: "attendees")
            try stack.context.save()
            meeting.setValue(Set([bob]), forKey: "attendees")
            ada.setValue(OrderedSet([b, a]), forKey: "tasks")
            b.setValue(bob, forKey: "owner")
            try stack.context.save()
            stack.context.undo()
            try stack.context.save()
            func stored() throws -> (attendees: Set<String>, tasks: [String], bobTasks: [String]) {
                let other = stack.newContext()
                let m = try other.existingObject(with: meeting.objectID)
                let adaThere = try other.existingObject(with: ada.objectID)
                let bobThere = try other.existingObject(with: bob.objectID)
                let names = Set((m.value(forKey: "attendees") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "firstName") as? String })
                return (names, tasks(of: adaThere).compactMap { $0.value(forKey: "title") as? String },
                        tasks(of: bobThere).compactMap { $0.value(forKey: "title") as? String })
            }
            var state = try stored()
            XCTAssertEqual(state.attendees, ["Ada"])
            XCTAssertEqual(state.tasks, ["A", "B"])
            XCTAssertEqual(state.bobTasks, [])
            stack.context.redo()
            try stack.context.save()
            state = try stored()
            XCTAssertEqual(state.attendees, ["Bob"])
            XCTAssertEqual(state.tasks, ["A"])
            XCTAssertEqual(state.bobTasks, ["B"])
        }
    }

    func testACascadeDeleteSavedThenUndoneAndRedoneIsSavedAsAWhole() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            _ = stack.task("A", owner: ada)
            _ = stack.task("B", owner: ada)
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            try stack.context.save()
            stack.context.delete(ada)
            try stack.context.save()
            stack.context.undo()
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 2)
            let there = try stack.newContext().existingObject(with: meeting.objectID)
            XCTAssertEqual((there.value(forKey: "attendees") as? Set<ManagedObject>)?.count, 1)
            stack.context.redo()
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 0)
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0)
        }
    }

    func testDeletingTwiceIsOneDeletionUndoneByOneUndo() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.count, 1)
            stack.context.undo()
            XCTAssertFalse(ada.isDeleted)
            XCTAssertFalse(stack.context.hasChanges)
        }
    }
}
