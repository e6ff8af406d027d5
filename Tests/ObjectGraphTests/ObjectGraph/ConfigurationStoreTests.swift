// A coordinator with a store per configuration sends each entity's objects to the store of its
// configuration, and fetches across stores; object URIs name their store.
import Foundation
import XCTest
@testable import ObjectGraph

final class ConfigurationStoreTests: XCTestCase {
    private func twoStoreStack() throws -> (ManagedObjectContext, any PersistentStore, any PersistentStore) {
        let model = ManagedObjectModel {
            Entity("Note") { Attribute("text", .string) }
            Entity("Tag") { Attribute("name", .string) }
            Configuration("Notes", entities: ["Note"])
            Configuration("Tags", entities: ["Tag"])
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let notes = try coordinator.addPersistentStore(type: .inMemory, configuration: "Notes")
        let tags = try coordinator.addPersistentStore(type: .inMemory, configuration: "Tags")
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, notes, tags)
    }

    func testObjectsGoToTheStoreOfTheirEntitysConfiguration() throws {
        let (context, notes, tags) = try twoStoreStack()
        let note = context.insertNewObject(forEntityName: "Note")
        let tag = context.insertNewObject(forEntityName: "Tag")
        try context.save()
        XCTAssertEqual(note.objectID.storeIdentifier, notes.identifier)
        XCTAssertEqual(tag.objectID.storeIdentifier, tags.identifier)
        XCTAssertEqual(note.objectID.uriRepresentation.host, notes.identifier)
    }

    func testAddingAStoreForAnUnknownConfigurationFails() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel { Entity("Note") })
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .inMemory, configuration: "Elsewhere")) { error in
            XCTAssertTrue("\(error)".contains("no configuration \"Elsewhere\""), "\(error)")
        }
    }

    func testEachEntityIsFetchedFromItsOwnStore() throws {
        let (context, _, _) = try twoStoreStack()
        context.insertNewObject(forEntityName: "Note").setValue("a", forKey: "text")
        context.insertNewObject(forEntityName: "Tag").setValue("b", forKey: "name")
        try context.save()
        let other = ManagedObjectContext(concurrencyType: .mainQueue)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        XCTAssertEqual(try other.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { $0.value(forKey: "text") as? String }, ["a"])
        XCTAssertEqual(try other.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).map { $0.value(forKey: "name") as? String }, ["b"])
    }

    func testStoresWithoutConfigurationShareAnEntitysFetch() throws {
        let model = ManagedObjectModel { Entity("Note") { Attribute("text", .string) } }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let first = try coordinator.addPersistentStore(type: .inMemory)
        try coordinator.addPersistentStore(type: .inMemory)
        XCTAssertEqual(coordinator.persistentStores.count, 2)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        for text in ["b", "a"] { context.insertNewObject(forEntityName: "Note").setValue(text, forKey: "text") }
        try context.save()
        var request = FetchRequest<ManagedObject>(entityName: "Note")
        request.sortDescriptors = [SortDescriptor(key: "text")]
        XCTAssertEqual(try context.fetch(request).map { $0.value(forKey: "text") as? String }, ["a", "b"])
        XCTAssertTrue(try context.fetch(request).allSatisfy { $0.objectID.storeIdentifier == first.identifier })
        try coordinator.remove(first)
        XCTAssertEqual(coordinator.persistentStores.count, 1)
    }

    // MARK: Choosing stores: assign(_:to:), affectedStores, read-only stores

    /// Two SQLite stores holding every entity (no configurations), in a temporary folder.
    private func twoFileStack(readOnlyFirst: Bool = false) throws
        -> (ManagedObjectContext, any PersistentStore, any PersistentStore, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let model = ManagedObjectModel { Entity("Note") { Attribute("text", .string) } }
        let first = folder.url.appendingPathComponent("first.sqlite")
        if readOnlyFirst {
            // A read-only store opens an existing file: one with a saved note.
            let maker = PersistentStoreCoordinator(managedObjectModel: model)
            let store = try maker.addPersistentStore(type: .sqlite, at: first)
            let context = ManagedObjectContext(concurrencyType: .mainQueue)
            context.persistentStoreCoordinator = maker
            context.insertNewObject(forEntityName: "Note").setValue("old", forKey: "text")
            try context.save()
            try maker.remove(store)
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let a = try coordinator.addPersistentStore(type: .sqlite, at: first, options: readOnlyFirst ? [SQLiteStore.readOnlyOption: true] : [:])
        let b = try coordinator.addPersistentStore(type: .sqlite, at: folder.url.appendingPathComponent("second.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, a, b, folder)
    }

    private func texts(_ objects: [ManagedObject]) -> [String] {
        objects.compactMap { $0.value(forKey: "text") as? String }.sorted()
    }

    /// Apple, assign(_:to:): "Specifies the store in which a newly inserted object will be
    /// saved." Unassigned new objects go to the first store holding their entity.
    func testAnAssignedNewObjectIsSavedInItsStore() throws {
        let (context, first, second, folder) = try twoFileStack()
        defer { withExtendedLifetime(folder) {} }
        let kept = context.insertNewObject(forEntityName: "Note")
        kept.setValue("kept", forKey: "text")
        let archived = context.insertNewObject(forEntityName: "Note")
        archived.setValue("archived", forKey: "text")
        context.assign(archived, to: second)
        try context.save()
        XCTAssertEqual(kept.objectID.storeIdentifier, first.identifier)
        XCTAssertEqual(archived.objectID.storeIdentifier, second.identifier)
        XCTAssertTrue(context.assignedStores.isEmpty, "assignments end with the save")
        var request = FetchRequest<ManagedObject>(entityName: "Note")
        request.affectedStores = [second]
        let other = ManagedObjectContext(concurrencyType: .mainQueue)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        XCTAssertEqual(texts(try other.fetch(request)), ["archived"])
    }

    /// Apple, NSFetchRequest.affectedStores: "An array of persistent stores specified for the
    /// fetch request." A fetch and a count read those stores only; unsaved objects count in the
    /// store they will be saved to, and a batch delete runs in the stores named.
    func testAffectedStoresLimitFetchesCountsPendingObjectsAndBatchRequests() throws {
        let (context, first, second, folder) = try twoFileStack()
        defer { withExtendedLifetime(folder) {} }
        for (text, store) in [("a1", first), ("a2", first), ("b1", second)] {
            let note = context.insertNewObject(forEntityName: "Note")
            note.setValue(text, forKey: "text")
            context.assign(note, to: store)
        }
        try context.save()
        let pendingInSecond = context.insertNewObject(forEntityName: "Note")
        pendingInSecond.setValue("b2", forKey: "text")
        context.assign(pendingInSecond, to: second)
        context.insertNewObject(forEntityName: "Note").setValue("a3", forKey: "text")
        var request = FetchRequest<ManagedObject>(entityName: "Note")
        XCTAssertEqual(texts(try context.fetch(request)), ["a1", "a2", "a3", "b1", "b2"])
        request.affectedStores = [second]
        XCTAssertEqual(texts(try context.fetch(request)), ["b1", "b2"])
        XCTAssertEqual(try context.count(for: request), 2)
        request.includesPendingChanges = false
        XCTAssertEqual(texts(try context.fetch(request)), ["b1"])
        XCTAssertEqual(try context.count(for: request), 1)
        request.affectedStores = [first]
        XCTAssertEqual(try context.count(for: request), 2)
        try context.save()
        var delete = BatchDeleteRequest(entity: try XCTUnwrap(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"]))
        delete.affectedStores = [second]
        _ = try context.execute(delete)
        let fresh = ManagedObjectContext(concurrencyType: .mainQueue)
        fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
        XCTAssertEqual(texts(try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Note"))), ["a1", "a2", "a3"])
    }

    /// Apple, assign(_:to:): "If the receiver’s persistent store coordinator manages only a
    /// single writable store ... object will automatically be assigned to that store." A new
    /// object does not go to a read-only store that comes first.
    func testNewObjectsGoToTheWritableStore() throws {
        let (context, readOnly, writable, folder) = try twoFileStack(readOnlyFirst: true)
        defer { withExtendedLifetime(folder) {} }
        XCTAssertTrue(readOnly.isReadOnly)
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue("new", forKey: "text")
        XCTAssertNoThrow(try context.save())
        XCTAssertEqual(note.objectID.storeIdentifier, writable.identifier)
        XCTAssertEqual(texts(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))), ["new", "old"])
    }
}
