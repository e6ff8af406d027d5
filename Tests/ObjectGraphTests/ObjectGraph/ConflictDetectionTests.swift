// detectConflicts(for:): optimistic locking of objects a save depends on without changing them.
// Core Data: "If on the next invocation of save() object has been modified in the persistent
// store, the save fails. This allows optimistic locking for unchanged objects."
import Foundation
import XCTest
@testable import ObjectGraph

final class ConflictDetectionTests: XCTestCase {
    /// Ada's task is saved from a context that read Ada; another context renames her meanwhile.
    /// Marked, Ada's new row makes the save fail naming her, and nothing of it is written.
    func testAMarkedObjectChangedElsewhereFailsTheSave() throws {
        try forEachStore { stack in
            let (reader, writer, adaHere) = try stack.adaMarked()
            let task = reader.insertNewObject(forEntityName: "Task")
            task.setValue("Write to \(adaHere.value(forKey: "firstName") as? String ?? "")", forKey: "title")
            task.setValue(UUID(), forKey: "uuid")

            try writer.existingObject(with: adaHere.objectID).setValue("Augusta", forKey: "firstName")
            try writer.save()

            XCTAssertThrowsError(try reader.save()) { error in
                let conflicts = (error as? MergeError)?.conflicts ?? []
                XCTAssertEqual(conflicts.map(\.objectID), [adaHere.objectID], "\(error)")
            }
            XCTAssertEqual(try stack.count("Task", in: stack.newContext()), 0, "the failed save wrote the task")
            XCTAssertTrue(reader.hasChanges)
        }
    }

    /// Unchanged since it was read, a marked object lets the save through; the mark lasts one
    /// save ("the next invocation of save()"), so a later change elsewhere fails nothing.
    func testAMarkHoldsForTheNextSaveOnly() throws {
        try forEachStore { stack in
            let (reader, writer, adaHere) = try stack.adaMarked()
            _ = stack.task("First", in: reader)
            XCTAssertNoThrow(try reader.save())

            try writer.existingObject(with: adaHere.objectID).setValue("Augusta", forKey: "firstName")
            try writer.save()
            _ = stack.task("Second", in: reader)
            XCTAssertNoThrow(try reader.save())
            XCTAssertEqual(try stack.count("Task", in: stack.newContext()), 2)
        }
    }

    /// A merge policy resolves the conflict of a marked object as it resolves any: with the
    /// store's values trumping, the save goes through and the object takes the stored row.
    func testAMergePolicyResolvesAMarkedObjectsConflict() throws {
        try forEachStore { stack in
            let (reader, writer, adaHere) = try stack.adaMarked()
            reader.mergePolicy = .mergeByPropertyStoreTrump
            _ = stack.task("First", in: reader)

            try writer.existingObject(with: adaHere.objectID).setValue("Augusta", forKey: "firstName")
            try writer.save()

            XCTAssertNoThrow(try reader.save())
            XCTAssertEqual(adaHere.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(try stack.count("Task", in: stack.newContext()), 1)
        }
    }
}

private extension Stack {
    /// Ada, saved, read in a new context that marks her for conflict detection, and another
    /// context to change her in.
    func adaMarked() throws -> (reader: ManagedObjectContext, writer: ManagedObjectContext, ada: ManagedObject) {
        let ada = person("Ada")
        try context.save()
        let reader = newContext()
        let adaThere = try reader.existingObject(with: ada.objectID)
        reader.detectConflicts(for: adaThere)
        return (reader, newContext(), adaThere)
    }

    /// A new task titled `title` in `context`.
    func task(_ title: String, in context: ManagedObjectContext) -> ManagedObject {
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue(title, forKey: "title")
        task.setValue(UUID(), forKey: "uuid")
        return task
    }

    /// How many objects of `entity` `context` fetches.
    func count(_ entity: String, in context: ManagedObjectContext) throws -> Int {
        try context.count(for: FetchRequest<ManagedObject>(entityName: entity))
    }
}
