// The README's code examples, run as written (apart from the model path), so that the
// documentation cannot drift from the API.
import Foundation
import XCTest
import ObjectGraph

final class ReadmeExampleTests: XCTestCase {
    private let modelURL = Corpus.data.appendingPathComponent("Organizer.xcdatamodeld")

    func testReadingAModelFileExample() throws {
        let model = try ManagedObjectModel(contentsOf: modelURL)
        let person = model.entitiesByName["Person"]!
        XCTAssertEqual(person.attributesByName.keys.sorted(), ["birthday", "email", "firstName", "lastName"])
        XCTAssertEqual(person.relationshipsByName["tasks"]!.deleteRule, .cascade)
    }

    func testBuildingAModelInCodeExample() {
        let model = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string).required()
                Attribute("age", .integer16, default: 0).minimum(0)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true, deleteRule: .cascade)
            }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "tasks")
            }
        }
        XCTAssertTrue(model.isValid)
    }

    func testContextExample() throws {
        let model = try ManagedObjectModel(contentsOf: modelURL)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = UndoManager()

        let ada = context.insertNewObject(forEntityName: "Person")
        ada.setValue("Ada", forKey: "firstName")
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue("Write the notes", forKey: "title")
        task.setValue(UUID(), forKey: "uuid")
        task.setValue(ada, forKey: "owner")
        try context.save()

        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.predicate = try Predicate(format: "owner.firstName == %@ AND done == NO", "Ada")
        request.sortDescriptors = [SortDescriptor(key: "due")]
        let open = try context.fetch(request)
        XCTAssertEqual(open, [task])
        XCTAssertEqual((ada.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements, [task])

        var byPriority = FetchRequest<ManagedObject>(entityName: "Task")
        byPriority.sortDescriptors = [SortDescriptor(key: "priority"), SortDescriptor(key: "title")]
        let results = FetchedResultsController(fetchRequest: byPriority, managedObjectContext: context,
                                               sectionNameKeyPath: "priority")
        try results.performFetch()
        XCTAssertEqual(results.sections?.map(\.name), ["0"])
        XCTAssertEqual(results.object(at: IndexPath(item: 0, section: 0)), task)

        context.stalenessInterval = 0
        request.shouldRefreshRefetchedObjects = true
        XCTAssertFalse(ada.hasFault(forRelationshipNamed: "tasks"))
        XCTAssertEqual(try context.fetch(request), [task])

        let editor = ManagedObjectContext(concurrencyType: .mainQueue)
        editor.parent = context
        let draft = editor.object(with: task.objectID)
        draft.setValue("Write the notes twice", forKey: "title")
        try editor.save()
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(task.value(forKey: "title") as? String, "Write the notes twice")
        try context.save()
        XCTAssertFalse(context.hasChanges)
    }
}
