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

    func testMappingModelExample() throws {
        let moody = Corpus.root.appendingPathComponent("xcdatamodels/objcio__core-data__Moody.xcdatamodeld")
        let mappingURL = Corpus.root.appendingPathComponent("xcdatamodels/objcio__core-data__Moody.mappings/Moody_4-Moody_5.xcmappingmodel")
        let version4 = try ModelFile(url: moody).load(version: "Moody 4")
        let version5 = try ModelFile(url: moody).load(version: "Moody 5")
        let directory = try TemporaryDirectory()
        let oldURL = directory.url.appendingPathComponent("old.sqlite"), newURL = directory.url.appendingPathComponent("new.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: version4)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: oldURL)
        try coordinator.remove(store)
        let description = PersistentStoreDescription(url: oldURL)

        let mapping = try MappingModel(contentsOf: mappingURL, sourceModel: version4, destinationModel: version5)
        try MigrationManager(sourceModel: version4, destinationModel: version5)
            .migrateStore(from: oldURL, mapping: mapping, toDestinationURL: newURL)
        description.setOption([mapping], forKey: MigrationManager.mappingModelsOption)  // or when it opens

        XCTAssertTrue(FileManager.default.fileExists(atPath: newURL.path))
        let container = PersistentContainer(name: "Moody", managedObjectModel: version5)
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        XCTAssertNil(failure)
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.count, 1)
    }

    func testStagedMigrationExample() throws {
        let version1 = ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
        let version2 = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Attribute("firstName", .string); Attribute("lastName", .string) }
        }
        let version3 = ManagedObjectModel { Entity("Person") { Attribute("firstName", .string); Attribute("lastName", .string) } }
        let directory = try TemporaryDirectory()
        let storeURL = directory.url.appendingPathComponent("people.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: version1)
            let store = try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
            let context = ManagedObjectContext(concurrencyType: .mainQueue)
            context.persistentStoreCoordinator = coordinator
            context.insertNewObject(forEntityName: "Person").setValue("Ada King Lovelace", forKey: "name")
            try context.save()
            try coordinator.remove(store)
        }
        let description = PersistentStoreDescription(url: storeURL)

        let split = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: version2),
                                         to: ManagedObjectModelReference(model: version3))
        split.willMigrateHandler = { manager, _ in
            let context = manager.container!.newBackgroundContext()
            try context.performAndWait {
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    let parts = (person.value(forKey: "name") as? String ?? "").split(separator: " ")
                    person.setValue(parts.dropLast().joined(separator: " "), forKey: "firstName")
                    person.setValue(parts.last.map(String.init), forKey: "lastName")
                }
                try context.save()
            }
        }
        let stages = StagedMigrationManager([LightweightMigrationStage(models: [version1, version2]), split])
        description.setOption(stages, forKey: StagedMigrationManager.option)

        let container = PersistentContainer(name: "People", managedObjectModel: version3)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let people = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        XCTAssertEqual(people.map { "\($0.value(forKey: "firstName") as? String ?? "") | \($0.value(forKey: "lastName") as? String ?? "")" },
                       ["Ada King | Lovelace"])
    }
}
