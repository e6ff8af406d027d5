// Core Data's spellings that code written for Core Data uses: NSEntityDescription's class methods,
// the …ConcurrencyType and …ResultType names, properties to fetch by name, Identifiable objects,
// performBackgroundTask returning a value, and a fetched results controller's cacheName.
import Foundation
import XCTest
@testable import ObjectGraph

final class CoreDataSpellingsTests: XCTestCase {
    func testEntityDescriptionClassMethodsAndEnumNames() throws {
        let stack = try Stack(storeType: .sqlite)
        let context = ManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        XCTAssertEqual(context.concurrencyType, .mainQueue)
        XCTAssertEqual(ManagedObjectContext(concurrencyType: .privateQueueConcurrencyType).concurrencyType, .privateQueue)
        context.persistentStoreCoordinator = stack.coordinator
        XCTAssertIdentical(EntityDescription.entity(forEntityName: "Task", in: context), stack.model.entitiesByName["Task"])
        XCTAssertNil(EntityDescription.entity(forEntityName: "Nothing", in: context))
        let task = EntityDescription.insertNewObject(forEntityName: "Task", into: context)
        XCTAssertEqual(task.entity.name, "Task")
        XCTAssertTrue(context.insertedObjects.contains(task))
        task.setValue("Write", forKey: "title")
        task.setValue(UUID(), forKey: "uuid")
        try context.save()

        var request = FetchRequest<[String: Any]>(entityName: "Task")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title"]
        XCTAssertEqual(try context.fetch(request).map { $0["title"] as? String }, ["Write"])
        XCTAssertEqual(FetchResultType.managedObjectResultType, .managedObject)
        XCTAssertEqual(FetchResultType.managedObjectIDResultType, .managedObjectID)
        XCTAssertEqual(FetchResultType.countResultType, .count)
    }

    /// The identity is the object's, which a save does not change (its object ID does).
    func testManagedObjectsAreIdentifiableByThemselves() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Plan")
        let (id, objectID) = (task.id, task.objectID)
        XCTAssertEqual(id, ObjectIdentifier(task))
        try stack.context.save()
        XCTAssertNotEqual(task.objectID, objectID)
        XCTAssertEqual(task.id, id)
        XCTAssertNotEqual(stack.task("Other").id, id)
    }

    func testPerformBackgroundTaskReturnsWhatTheBlockReturns() async throws {
        let folder = try TemporaryDirectory()
        let container = PersistentContainer(name: "Organizer", managedObjectModel: Stack.organizerModel)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .sqlite, url: folder.url.appendingPathComponent("o.sqlite"))]
        try container.loadPersistentStores()
        let saved = try await container.performBackgroundTask { context in
            for title in ["A", "B"] {
                let task = context.insertNewObject(forEntityName: "Task")
                task.setValue(title, forKey: "title")
                task.setValue(UUID(), forKey: "uuid")
            }
            try context.save()
            return try context.count(for: FetchRequest<Int>(entityName: "Task"))
        }
        XCTAssertEqual(saved, 2)
        do {
            _ = try await container.performBackgroundTask { context -> Int in
                _ = context.insertNewObject(forEntityName: "Task")   // no title, no uuid: invalid
                try context.save()
                return 0
            }
            XCTFail("the block's error should be thrown")
        } catch {
            XCTAssertTrue(error is ValidationError, "\(error)")
        }
    }

    /// A description's isReadOnly and timeout are the store's options, honoured when it opens.
    func testAStoreDescriptionsReadOnlyAndTimeout() throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("o.sqlite")
        let writer = PersistentContainer(name: "Organizer", managedObjectModel: Stack.organizerModel)
        writer.persistentStoreDescriptions = [PersistentStoreDescription(type: .sqlite, url: url)]
        try writer.loadPersistentStores()
        let task = writer.viewContext.insertNewObject(forEntityName: "Task")
        task.setValue("Kept", forKey: "title")
        task.setValue(UUID(), forKey: "uuid")
        try writer.viewContext.save()

        let description = PersistentStoreDescription(type: .sqlite, url: url)
        XCTAssertFalse(description.isReadOnly)
        XCTAssertEqual(description.timeout, 10)
        description.isReadOnly = true
        description.timeout = 2.5
        description.setOption("kept", forKey: "note")
        description.setOption(nil, forKey: "note")
        XCTAssertNil(description.options["note"])
        XCTAssertEqual(description.options[SQLiteStore.readOnlyOption] as? Bool, true)
        let reader = PersistentContainer(name: "Organizer", managedObjectModel: Stack.organizerModel)
        reader.persistentStoreDescriptions = [description]
        try reader.loadPersistentStores()
        let store = try XCTUnwrap(reader.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        XCTAssertTrue(store.isReadOnly)
        XCTAssertEqual(store.busyTimeout, 2.5)
        XCTAssertEqual(try reader.viewContext.count(for: FetchRequest<Int>(entityName: "Task")), 1)
        try reader.viewContext.existingObject(with: task.objectID).setValue("Changed", forKey: "title")
        XCTAssertThrowsError(try reader.viewContext.save()) { error in
            XCTAssertTrue("\(error)".contains("read-only"), "\(error)")
        }
    }

    func testAFetchedResultsControllerTakesACacheName() throws {
        let stack = try Stack(storeType: .inMemory)
        _ = stack.task("A")
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.sortDescriptors = [SortDescriptor(key: "title")]
        FetchedResultsController<ManagedObject>.deleteCache(withName: "Tasks")
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context,
                                                  sectionNameKeyPath: nil, cacheName: "Tasks")
        try controller.performFetch()
        XCTAssertEqual(controller.fetchedObjects?.count, 1)
    }

    /// The idiom of Core Data's tests: a container whose SQLite store is in memory (its URL
    /// /dev/null), set in place on the container's description, loaded with a completion handler.
    func testAContainersDescriptionChangedInPlaceToDevNullIsASQLiteStoreInMemory() throws {
        let container = PersistentContainer(name: "Organizer", managedObjectModel: Stack.organizerModel)
        container.persistentStoreDescriptions.first?.url = URL(fileURLWithPath: "/dev/null")
        var loaded: [(StoreType, Bool)] = []
        container.loadPersistentStores(completionHandler: { description, error in loaded.append((description.type, error == nil)) })
        XCTAssertEqual(loaded.map(\.0), [.sqlite])
        XCTAssertEqual(loaded.map(\.1), [true])
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        XCTAssertTrue(store.isInMemory)
        let context = container.viewContext
        context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
        try context.save()
        let background = container.newBackgroundContext()
        XCTAssertEqual(try background.performAndWait { try background.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/dev/null-wal"), "no files beside /dev/null")

        // A second container on /dev/null has a store of its own.
        let other = PersistentContainer(name: "Organizer", managedObjectModel: Stack.organizerModel)
        other.persistentStoreDescriptions = [PersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        try other.loadPersistentStores()
        XCTAssertEqual(try other.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Person")), 0)
    }
}
