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
}
