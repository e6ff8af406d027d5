// Core Data's migratePersistentStore(_:to:options:type:): a store's rows, relationships (ordered,
// many-to-many) and metadata copied into a new store of another type under new object IDs, the
// new store in the old one's place; a migration that cannot be made leaves the old store added.
import Foundation
import XCTest
@testable import ObjectGraph

final class MigrateStoreTests: XCTestCase {
    /// Ada with two tasks in order, both attending an event; Bob with none.
    private func fill(_ stack: Stack) throws {
        let ada = stack.person("Ada", "Lovelace")
        _ = stack.person("Bob")
        let write = stack.task("Write", priority: 2, owner: ada)
        let review = stack.task("Review", owner: ada)
        let event = stack.event("Launch")
        event.setValue(Set([ada]), forKey: "attendees")
        event.setValue(Set([write, review]), forKey: "preparation")
        try stack.context.save()
    }

    /// What the stores of `coordinator` hold, read through a fresh context.
    private func contents(of coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        var people = FetchRequest<ManagedObject>(entityName: "Person")
        people.sortDescriptors = [SortDescriptor(key: "firstName")]
        return try context.fetch(people).map { person in
            let tasks = (person.value(forKey: "tasks") as? OrderedSet<ManagedObject>).map(Array.init) ?? []
            let described = tasks.map { task in
                "\(task.value(forKey: "title") as? String ?? "?")/\(task.value(forKey: "priority") as? Int16 ?? -1)/"
                    + "\((task.value(forKey: "event") as? ManagedObject)?.value(forKey: "title") as? String ?? "-")"
            }
            let events = (person.value(forKey: "events") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "title") as? String }
            return "\(person.value(forKey: "firstName") as? String ?? "?") \(person.value(forKey: "lastName") as? String ?? "-") "
                + "tasks \(described) events \(events.sorted())"
        }
    }

    func testAStoreMovesIntoANewStoreOfAnotherType() throws {
        let stack = try Stack(storeType: .inMemory)
        try fill(stack)
        let old = try XCTUnwrap(stack.coordinator.persistentStores.first)
        var metadata = stack.coordinator.metadata(for: old)
        metadata["importedFrom"] = "feed-7"
        stack.coordinator.setMetadata(metadata, for: old)
        let expected = try contents(of: stack.coordinator)
        XCTAssertEqual(expected.first, "Ada Lovelace tasks [\"Write/2/Launch\", \"Review/0/Launch\"] events [\"Launch\"]")

        let url = stack.directory.url.appendingPathComponent("migrated.sqlite")
        let new = try stack.coordinator.migratePersistentStore(old, to: url, type: .sqlite)
        XCTAssertEqual(stack.coordinator.persistentStores.count, 1)
        XCTAssertTrue(stack.coordinator.persistentStores.first === new)
        XCTAssertEqual(new.type, .sqlite)
        XCTAssertNotEqual(new.identifier, old.identifier, "a new store, with its own UUID")
        XCTAssertEqual(try contents(of: stack.coordinator), expected)
        XCTAssertEqual(stack.coordinator.metadata(for: new)["importedFrom"] as? String, "feed-7")

        // The file holds it all, opened afresh.
        let reopened = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try reopened.addPersistentStore(type: .sqlite, at: url)
        XCTAssertEqual(try contents(of: reopened), expected)
        XCTAssertEqual(reopened.persistentStores.first.map { reopened.metadata(for: $0)["importedFrom"] as? String }, "feed-7")
    }

    func testASQLiteStoreMovesIntoMemoryAndBack() throws {
        let stack = try Stack(storeType: .sqlite)
        try fill(stack)
        let expected = try contents(of: stack.coordinator)
        let memory = try stack.coordinator.migratePersistentStore(stack.coordinator.persistentStores[0], to: nil, type: .inMemory)
        XCTAssertEqual(try contents(of: stack.coordinator), expected)
        let back = stack.directory.url.appendingPathComponent("back.sqlite")
        try stack.coordinator.migratePersistentStore(memory, to: back, type: .sqlite)
        XCTAssertEqual(try contents(of: stack.coordinator), expected)
    }

    func testAMigrationThatCannotBeMadeLeavesTheStoreInPlace() throws {
        let stack = try Stack(storeType: .inMemory)
        try fill(stack)
        let old = stack.coordinator.persistentStores[0]
        let taken = stack.directory.url.appendingPathComponent("taken.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: taken.path, contents: Data("not a store".utf8)))
        XCTAssertThrowsError(try stack.coordinator.migratePersistentStore(old, to: taken, type: .sqlite)) { error in
            XCTAssertTrue("\(error)".contains("taken.sqlite"), "\(error)")
        }
        XCTAssertTrue(stack.coordinator.persistentStores.first === old)
        XCTAssertEqual(try contents(of: stack.coordinator).count, 2)
        XCTAssertEqual(try Data(contentsOf: taken), Data("not a store".utf8), "the file there is left as it was")

        let other = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try other.addPersistentStore(type: .inMemory)
        XCTAssertThrowsError(try stack.coordinator.migratePersistentStore(other.persistentStores[0], to: nil, type: .inMemory)) { error in
            XCTAssertTrue("\(error)".contains("not one of this coordinator's stores"), "\(error)")
        }
    }
}
