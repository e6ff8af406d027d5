// Review of migratePersistentStore(_:to:options:type:) and of the FetchedResultsController's
// CollectionDifference callback against Core Data. The tests that fail on the current code assert
// what Core Data does; the last two guard subtle behaviour that is right today.
import Foundation
import XCTest
@testable import ObjectGraph

final class StoreMigrationReviewTests: XCTestCase {
    private var contexts: [ManagedObjectContext] = []

    /// A main-queue context of `coordinator`, kept alive for the test (objects do not keep their
    /// context alive).
    private func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        contexts.append(context)
        return context
    }

    private func names(_ entity: String, in coordinator: PersistentStoreCoordinator) throws -> [String] {
        try context(coordinator).fetch(FetchRequest<ManagedObject>(entityName: entity))
            .map { $0.value(forKey: "name") as? String ?? "?" }.sorted()
    }

    // MARK: Migrating a store of a configuration

    /// A store of the configuration "Work" (which names Base) holds Base's inheritance tree: the
    /// coordinator saves a Job (a subentity of Base) into it, and fetches it back from it.
    /// migratePersistentStore copies only the entities the configuration names
    /// (entities(forConfigurationName:)), each fetched without subentities, so the Job row is
    /// not copied: after the migration the Job is gone from the coordinator (Base counts 1 of 2,
    /// Job 0). Core Data's migratePersistentStore moves the store's data, all of it: "Changes
    /// the location and, if necessary, the store type of the specified persistent store" (Apple,
    /// NSPersistentStoreCoordinator.migratePersistentStore); a migration never drops rows the
    /// store held.
    func testMigratingAConfigurationStoreKeepsTheRowsOfSubentitiesOfItsEntities() throws {
        let model = ManagedObjectModel {
            Entity("Base") { Attribute("name", .string) }
            Entity("Job", parent: "Base") { Attribute("points", .integer32) }
            Entity("Other") { Attribute("name", .string) }
            Configuration("Work", entities: ["Base"])
            Configuration("Rest", entities: ["Other"])
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let work = try coordinator.addPersistentStore(type: .sqlite, configuration: "Work", at: directory.url.appendingPathComponent("work.sqlite"))
        try coordinator.addPersistentStore(type: .sqlite, configuration: "Rest", at: directory.url.appendingPathComponent("rest.sqlite"))
        let context = context(coordinator)
        context.insertNewObject(forEntityName: "Job").setValue("job", forKey: "name")
        context.insertNewObject(forEntityName: "Base").setValue("base", forKey: "name")
        try context.save()
        XCTAssertEqual(try names("Base", in: coordinator), ["base", "job"], "both saved into the Work store")

        let moved = try coordinator.migratePersistentStore(work, to: directory.url.appendingPathComponent("moved.sqlite"), type: .sqlite)
        XCTAssertEqual(moved.configurationName, "Work")
        XCTAssertEqual(try names("Base", in: coordinator), ["base", "job"], "the Job row is migrated with the Base row")
        XCTAssertEqual(try names("Job", in: coordinator), ["job"])
    }

    /// The same with an abstract entity named by the configuration: its only rows are of its
    /// concrete subentity, and the migration copies none of them (Job counts 0 after it, 1
    /// before). Core Data's migration moves every row of the store (see above).
    func testMigratingAStoreWhoseConfigurationNamesAnAbstractEntityKeepsItsRows() throws {
        let model = ManagedObjectModel {
            Entity("Base", abstract: true) { Attribute("name", .string) }
            Entity("Job", parent: "Base") { Attribute("points", .integer32) }
            Configuration("Work", entities: ["Base"])
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let work = try coordinator.addPersistentStore(type: .inMemory, configuration: "Work")
        let context = context(coordinator)
        context.insertNewObject(forEntityName: "Job").setValue("job", forKey: "name")
        try context.save()
        XCTAssertEqual(try names("Job", in: coordinator), ["job"])

        let url = directory.url.appendingPathComponent("moved.sqlite")
        try coordinator.migratePersistentStore(work, to: url, type: .sqlite)
        XCTAssertEqual(try names("Job", in: coordinator), ["job"], "the Job is in the migrated store")
        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(type: .sqlite, configuration: "Work", at: url)
        XCTAssertEqual(try names("Job", in: reopened), ["job"], "and in its file")
    }

    // MARK: The fetched results controller's CollectionDifference

    /// Apple, NSFetchedResultsControllerDelegate.controller(_:didChangeContentWith:) (the
    /// CollectionDifference<NSManagedObjectID> one): "This method is only invoked if the
    /// controller's sectionNameKeyPath property is nil". A difference of one flat list of IDs
    /// cannot describe sections. ObjectGraph tells it to controllers with sections too.
    func testTheDifferenceIsNotToldToAControllerWithSections() throws {
        let stack = try Stack(storeType: .inMemory)
        for (title, priority) in [("a", 0), ("b", 1)] { _ = stack.task(title, priority: priority) }
        try stack.context.save()
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.sortDescriptors = [SortDescriptor(key: "priority"), SortDescriptor(key: "title")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "priority")
        let recorder = DifferenceRecorder()
        controller.delegate = recorder
        try controller.performFetch()

        _ = stack.task("c", priority: 1)
        _ = stack.task("d", priority: 2)
        stack.context.processPendingChanges()
        XCTAssertEqual(controller.fetchedObjects?.count, 4, "the controller tracked the event")
        XCTAssertEqual(recorder.differences.count, 0, "no CollectionDifference for a controller with a sectionNameKeyPath")
    }

    // MARK: Guards (pass today)

    /// Core Data's migration leaves the source store's file as it was (it is read, not moved):
    /// after the store is migrated and a registered object of it changed, the old file still
    /// holds the old values, the new file the migrated ones, and a save of the object of the
    /// removed store fails rather than write anywhere.
    func testTheSourceFileIsLeftIntactAndAnObjectOfTheOldStoreCannotBeSaved() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        let url = stack.directory.url.appendingPathComponent("moved.sqlite")
        try stack.coordinator.migratePersistentStore(stack.coordinator.persistentStores[0], to: url, type: .sqlite)
        ada.setValue("Ava", forKey: "firstName")
        XCTAssertThrowsError(try stack.context.save(), "its store is no longer the coordinator's")

        for file in [stack.storeURL, url] {
            let reader = PersistentStoreCoordinator(managedObjectModel: stack.model)
            try reader.addPersistentStore(type: .sqlite, at: file, options: [SQLiteStore.readOnlyOption: true])
            XCTAssertEqual(try context(reader).fetch(FetchRequest<ManagedObject>(entityName: "Person"))
                .map { $0.value(forKey: "firstName") as? String }, ["Ada"], file.lastPathComponent)
        }
    }

    /// Values of attributes allowing external storage are copied into the new store's own
    /// external files: they survive destroying the source store.
    func testExternallyStoredValuesSurviveDestroyingTheSourceStore() throws {
        let model = ManagedObjectModel {
            Entity("Doc") { Attribute("blob", .binaryData).allowsExternalStorage() }
        }
        let directory = try TemporaryDirectory()
        let source = directory.url.appendingPathComponent("a.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: source)
        let big = Data((0..<300_000).map { UInt8($0 % 251) })
        let context = context(coordinator)
        context.insertNewObject(forEntityName: "Doc").setValue(big, forKey: "blob")
        try context.save()
        let destination = directory.url.appendingPathComponent("b.sqlite")
        try coordinator.migratePersistentStore(store, to: destination, type: .sqlite)
        try SQLiteStore.destroy(at: source)

        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(type: .sqlite, at: destination)
        let docs = try self.context(reopened).fetch(FetchRequest<ManagedObject>(entityName: "Doc"))
        XCTAssertEqual(docs.map { $0.value(forKey: "blob") as? Data }, [big])
    }
}

/// Records the CollectionDifference callbacks.
private final class DifferenceRecorder: FetchedResultsControllerDelegate {
    var differences: [CollectionDifference<ObjectID>] = []
    func controller(_ controller: FetchedResultsController<ManagedObject>, didChangeContentWith difference: CollectionDifference<ObjectID>) {
        differences.append(difference)
    }
}
