// Delete rules propagate at the end of the event: cascade through chains and cycles, nullify,
// deny (the save fails naming the objects), no action. Objects with no rules to run are
// deleted as faults, with the version their row was fetched (or cached) at.
import Foundation
import XCTest
@testable import ObjectGraph

final class DeleteRuleTests: XCTestCase {
    func testCascadeDeleteRemovesTasksOfDeletedPerson() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let tasks = [stack.task("A", owner: ada), stack.task("B", owner: ada)]
            try stack.context.save()
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertTrue(tasks.allSatisfy(\.isDeleted))
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Task").count, 0)
            XCTAssertEqual(try stack.fetch("Person").count, 0)
        }
    }

    func testNullifyRemovesTheDeletedObjectFromTheInverseSide() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            let task = stack.task("Prepare")
            task.setValue(meeting, forKey: "event")
            try stack.context.save()
            stack.context.delete(meeting)
            try stack.context.save()
            XCTAssertNil(task.value(forKey: "event"))
            XCTAssertFalse(task.isDeleted)
            XCTAssertEqual((ada.value(forKey: "events") as? Set<ManagedObject>)?.count, 0)
            let other = stack.newContext()
            XCTAssertNil(try stack.fetch("Task", in: other).first?.value(forKey: "event"))
        }
    }

    private static let chainModel = ManagedObjectModel {
        Entity("Folder") {
            Attribute("name", .string)
            Relationship("children", to: "Folder", inverse: "parent", toMany: true, deleteRule: .cascade)
            Relationship("parent", to: "Folder", inverse: "children")
            Relationship("partner", to: "Folder", inverse: "partner", deleteRule: .cascade)
        }
    }

    func testCascadeFollowsChainsAndStopsAtCycles() throws {
        try forEachStore(model: Self.chainModel) { stack in
            let root = stack.insert("Folder", ["name": "root"])
            let child = stack.insert("Folder", ["name": "child", "parent": root])
            let grandchild = stack.insert("Folder", ["name": "grandchild", "parent": child])
            let partner = stack.insert("Folder", ["name": "partner"])
            grandchild.setValue(partner, forKey: "partner")
            try stack.context.save()
            stack.context.delete(root)
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Folder").count, 0)
        }
    }

    private static let denyModel = ManagedObjectModel {
        Entity("Project") {
            Attribute("name", .string)
            Relationship("tasks", to: "Item", inverse: "project", toMany: true, deleteRule: .deny)
        }
        Entity("Item") {
            Attribute("name", .string)
            Relationship("project", to: "Project", inverse: "tasks", deleteRule: .noAction)
        }
    }

    func testDenyStopsTheSaveWithAnErrorNamingTheObjects() throws {
        try forEachStore(model: Self.denyModel) { stack in
            let project = stack.insert("Project", ["name": "Home"])
            let item = stack.insert("Item", ["name": "Paint", "project": project])
            try stack.context.save()
            stack.context.delete(project)
            XCTAssertThrowsError(try stack.context.save()) { error in
                guard let failures = (error as? ValidationError)?.failures else { return XCTFail("\(error)") }
                XCTAssertEqual(failures.count, 1)
                XCTAssertEqual(failures[0].rule, .deny)
                XCTAssertEqual(failures[0].entity, "Project")
                XCTAssertEqual(failures[0].property, "tasks")
                XCTAssertEqual(failures[0].objectID, project.objectID)
                XCTAssertTrue(failures[0].message.contains("\(item.objectID)"), failures[0].message)
            }
            XCTAssertEqual(try stack.fetch("Project", in: stack.newContext()).count, 1)
        }
    }

    func testDenyAllowsDeletionOnceTheRelationshipIsEmpty() throws {
        try forEachStore(model: Self.denyModel) { stack in
            let project = stack.insert("Project", ["name": "Home"])
            let item = stack.insert("Item", ["name": "Paint", "project": project])
            try stack.context.save()
            stack.context.delete(item)
            stack.context.delete(project)
            XCTAssertNoThrow(try stack.context.save())
        }
    }

    func testNoActionLeavesTheInverseAsItWas() throws {
        try forEachStore(model: Self.denyModel) { stack in
            let project = stack.insert("Project", ["name": "Home"])
            let item = stack.insert("Item", ["name": "Paint", "project": project])
            stack.context.delete(item)
            stack.context.processPendingChanges()
            XCTAssertEqual(project.value(forKey: "tasks") as? Set<ManagedObject>, [item])
        }
    }

    // MARK: Deleting faults

    private static let notesModel = ManagedObjectModel {
        Entity("Note") { Attribute("text", .string) }
    }

    func testAFaultWithNoRelationshipsIsDeletedWithoutLoadingIt() throws {
        try forEachStore(model: Self.notesModel) { stack in
            stack.insert("Note", ["text": "first"])
            stack.insert("Note", ["text": "second"])
            try stack.context.save()
            let context = stack.newContext()
            let notes = try stack.fetch("Note", in: context)
            for note in notes { context.delete(note) }
            XCTAssertTrue(notes.allSatisfy(\.isFault))
            try context.save()
            XCTAssertEqual(try stack.fetch("Note", in: stack.newContext()).count, 0)
            // Their last saved values stay readable, as a loaded deleted object's do.
            XCTAssertEqual(Set(notes.compactMap { $0.value(forKey: "text") as? String }), ["first", "second"])
        }
    }

    func testADeletedFaultIsCheckedAtTheVersionAnotherContextSaved() throws {
        try forEachStore(model: Self.notesModel) { stack in
            let note = stack.insert("Note", ["text": "draft"])
            try stack.context.save()
            let context = stack.newContext()
            let fault = try XCTUnwrap(stack.fetch("Note", in: context).first)
            note.setValue("final", forKey: "text")
            try stack.context.save()
            context.delete(fault)
            XCTAssertNoThrow(try context.save(), "the row cache holds the version the other context saved")
            XCTAssertEqual(try stack.fetch("Note", in: stack.newContext()).count, 0)
        }
    }

    func testOverwritePolicyDeletesAFaultChangedThroughAnotherCoordinator() throws {
        let stack = try Stack(storeType: .sqlite, model: Self.notesModel)
        let note = stack.insert("Note", ["text": "draft"])
        try stack.context.save()
        let context = stack.newContext()
        context.mergePolicy = .overwrite
        let fault = try XCTUnwrap(stack.fetch("Note", in: context).first)
        let elsewhere = PersistentStoreCoordinator(managedObjectModel: Self.notesModel)
        try elsewhere.addPersistentStore(type: .sqlite, at: stack.storeURL)
        let other = ManagedObjectContext(concurrencyType: .mainQueue)
        other.persistentStoreCoordinator = elsewhere
        try other.existingObject(with: note.objectID).setValue("final", forKey: "text")
        try other.save()
        context.delete(fault)
        try context.save()
        XCTAssertEqual(try stack.fetch("Note", in: stack.newContext()).count, 0)
    }
}
