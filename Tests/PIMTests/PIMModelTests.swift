// The PIM model as the domain relies on it: typed classes registered, record constraints
// (uuid unique, (source, externalID) unique together but absent pairs free), and delete rules.
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class PIMModelTests: XCTestCase {
    func makeContext() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: PIMModel.shared)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func makeTask(_ title: String, in context: ManagedObjectContext) -> TaskItem {
        let task = TaskItem(context: context)
        task.title = title
        task.uuid = UUID()
        task.created = Date()
        task.modified = Date()
        return task
    }

    func testEntitiesUseGeneratedClasses() throws {
        let context = try makeContext()
        let task = context.insertNewObject(forEntityName: "Task")
        XCTAssertTrue(task is TaskItem)
        XCTAssertTrue(context.insertNewObject(forEntityName: "Person") is Person)
    }

    func testRecordsWithoutSourceDoNotClash() throws {
        let context = try makeContext()
        _ = makeTask("one", in: context)
        _ = makeTask("two", in: context)
        try context.save()
        XCTAssertEqual(try context.count(for: FetchRequest<TaskItem>(entityName: "Task")), 2)
    }

    func testDeletingTaskDeletesSubtasks() throws {
        let context = try makeContext()
        let parent = makeTask("parent", in: context)
        let child = makeTask("child", in: context)
        child.parent = parent
        try context.save()
        context.delete(parent)
        try context.save()
        XCTAssertEqual(try context.count(for: FetchRequest<TaskItem>(entityName: "Task")), 0)
    }

    func testDeletingEventKeepsItsTasks() throws {
        let context = try makeContext()
        let event = Event(context: context)
        event.title = "Review"
        event.start = Date()
        event.uuid = UUID()
        event.created = Date()
        event.modified = Date()
        let task = makeTask("Prepare slides", in: context)
        task.event = event
        try context.save()
        context.delete(event)
        try context.save()
        XCTAssertNil(task.event)
        XCTAssertFalse(task.isDeleted)
    }

    func testDeletingContactUnassignsTasksAndRemovesItsAddresses() throws {
        let context = try makeContext()
        let ann = Person(context: context)
        ann.name = "Ann"
        ann.uuid = UUID()
        ann.created = Date()
        ann.modified = Date()
        let email = EmailAddress(context: context)
        email.address = "ann@example.org"
        email.contact = ann
        let task = makeTask("Call", in: context)
        task.assignee = ann
        try context.save()
        context.delete(ann)
        try context.save()
        XCTAssertNil(task.assignee)
        XCTAssertEqual(try context.count(for: FetchRequest<EmailAddress>(entityName: "EmailAddress")), 0)
    }
}
