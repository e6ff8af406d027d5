// Opening SQLite stores: model mismatches (a refused open leaves the file as it was, journal
// mode included), configurations, damaged files, the read-only option, one file added twice, and faults of a removed store.
import Foundation
import XCTest
@testable import ObjectGraph

final class StoreOpeningTests: XCTestCase {
    /// A closed store file holding the populated task data.
    private func closedStore() throws -> (SQLiteStoreFixture, TaskData) {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        f.store.unload()
        return (f, d)
    }

    private func personCount(at url: URL) throws -> Int64? {
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        defer { connection.close() }
        return try connection.scalar("SELECT count(*) FROM ZPERSON")?.integerValue
    }

    // MARK: Model mismatch

    /// Retyping one attribute (age: integer64 -> string) must be refused naming Person and age.
    func testRetypedAttributeIsRefusedNamingEntityAndProperty() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("retype.sqlite")
        let old = ManagedObjectModel { Entity("Person") { Attribute("name", .string); Attribute("age", .integer64) } }
        let first = PersistentStoreCoordinator(managedObjectModel: old)
        try first.remove(try first.addPersistentStore(type: .sqlite, at: url))
        let before = try Data(contentsOf: url)
        let new = ManagedObjectModel { Entity("Person") { Attribute("name", .string); Attribute("age", .string) } }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: new)
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, at: url)) { error in
            guard case StoreError.incompatibleModel(let path, let differences) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, url.path)
            XCTAssertTrue(differences.contains { $0.contains("Person") && $0.contains("age") }, "\(differences)")
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
    }

    /// A store in rollback-journal mode (`PRAGMA journal_mode = DELETE`, as another tool may
    /// leave it) refused for an incompatible model is left byte for byte as it was: the model is
    /// checked before WAL, a lasting property of the file, is switched on.
    func testIncompatibleOpenOfARollbackJournalStoreLeavesItsJournalMode() throws {
        let (f, _) = try closedStore()
        let setup = try SQLiteConnection(path: f.url.path, writeAheadLog: false)
        try setup.executeScript("PRAGMA journal_mode = DELETE;")
        setup.close()
        let before = try Data(contentsOf: f.url)
        XCTAssertEqual(before[18], 1, "set-up: the file is in rollback-journal mode")
        let changed = ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: changed)
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, at: f.url)) { error in
            guard case StoreError.incompatibleModel = error else { return XCTFail("\(error)") }
        }
        let after = try Data(contentsOf: f.url)
        XCTAssertEqual(after[18], 1, "the refused open switched the store to WAL (byte 18 = \(after[18]))")
        XCTAssertEqual(after, before, "the refused open changed the file")
    }

    /// A store made with the whole model, opened with the configuration "People" (Person only),
    /// is refused naming the stored entities the configuration leaves out (it used to be refused
    /// with no difference named at all).
    func testOpeningAWholeModelStoreWithAConfigurationNamesTheEntitiesItLeavesOut() throws {
        let (f, _) = try closedStore()
        let before = try Data(contentsOf: f.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, configuration: "People", at: f.url)) { error in
            guard case StoreError.incompatibleModel(let path, let differences) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(path, f.url.path)
            XCTAssertFalse(differences.isEmpty, "refused with no differences named")
            XCTAssertTrue(differences.allSatisfy { $0.contains("is in the store but not in configuration People") }, "\(differences)")
        }
        XCTAssertEqual(try Data(contentsOf: f.url), before)
    }

    // MARK: Not a store

    /// A store cut to a part of its header (under 100 bytes) fails naming the file and is kept.
    func testAStoreCutInsideItsHeaderFailsNamingTheFile() throws {
        let (f, _) = try closedStore()
        let cut = try Data(contentsOf: f.url).prefix(60)
        try cut.write(to: f.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, at: f.url)) { error in
            XCTAssertTrue("\(error)".contains(f.url.path), "\(error)")
        }
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        XCTAssertEqual(try Data(contentsOf: f.url), Data(cut))
    }

    // MARK: Read-only option

    /// With Core Data's NSReadOnlyPersistentStoreOption, fetches work; a save and a batch
    /// request throw naming the option and write nothing; the file is left as it was.
    func testReadOnlyOptionAllowsFetchesAndRefusesWrites() throws {
        let (f, _) = try closedStore()
        let before = try Data(contentsOf: f.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        try coordinator.addPersistentStore(type: .sqlite, at: f.url, options: [SQLiteStore.readOnlyOption: true])
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        XCTAssertEqual(try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).count, 3)
        let eve = ManagedObject(entity: f.entity("Person"), insertInto: context)
        eve.setValue("Eve", forKey: "name")
        XCTAssertThrowsError(try context.save(), "a save into a read-only store succeeded") { error in
            XCTAssertTrue("\(error)".contains("read-only"), "\(error)")
        }
        XCTAssertThrowsError(try context.execute(BatchDeleteRequest(entity: f.entity("Person")))) { error in
            XCTAssertTrue("\(error)".contains("read-only"), "\(error)")
        }
        XCTAssertEqual(try personCount(at: f.url), 3, "the read-only store was written")
        XCTAssertEqual(try Data(contentsOf: f.url), before)
    }

    /// A read-only store needs a store to read: a missing file is not created.
    func testReadOnlyOptionDoesNotCreateAStore() throws {
        let f = try SQLiteStoreFixture()
        let url = f.url.deletingLastPathComponent().appendingPathComponent("missing.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, at: url, options: [SQLiteStore.readOnlyOption: true])) { error in
            XCTAssertTrue("\(error)".contains(url.path), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    }

    // MARK: One file added twice

    /// The same file added a second time through a symlinked folder is refused: two stores
    /// with one UUID would route the second's objects to the first.
    func testTheSameFileThroughASymlinkedDirectoryIsRefused() throws {
        let (f, _) = try closedStore()
        let alias = try TemporaryDirectory()
        let link = alias.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: f.directory.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        try coordinator.addPersistentStore(type: .sqlite, at: f.url)
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, at: link.appendingPathComponent("tasks.sqlite")),
                             "the same file was added twice") { error in
            XCTAssertTrue("\(error)".contains("tasks.sqlite"), "\(error)")
        }
        XCTAssertEqual(coordinator.persistentStores.count, 1)
    }

    /// The same file spelled as a relative URL (with a base) is refused too.
    func testTheSameFileAsARelativeURLIsRefused() throws {
        let (f, _) = try closedStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        try coordinator.addPersistentStore(type: .sqlite, at: f.url)
        let relative = URL(fileURLWithPath: "tasks.sqlite", relativeTo: f.directory.url)
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, at: relative), "the same file was added twice")
        XCTAssertEqual(coordinator.persistentStores.count, 1)
    }


    // MARK: Removing a store under a context

    /// Firing a fault of an object whose store was removed fails clearly (Core Data: "persistent
    /// store is not reachable"): as for an unreadable store, empty values and the context's
    /// faultingError, not a silent deletion.
    func testAFaultOfARemovedStoreFailsWithoutATrap() throws {
        let (f, d) = try closedStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: f.url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let fault = context.object(with: d.bob.withStore(store.identifier))
        XCTAssertTrue(fault.isFault)
        try coordinator.remove(store)
        XCTAssertNil(fault.value(forKey: "name"))
        XCTAssertNotNil(context.faultingError)
        XCTAssertFalse(fault.isDeleted)
        let tasks = fault.value(forKey: "tasks") as? Set<ManagedObject>
        XCTAssertTrue(tasks?.isEmpty ?? true)
    }
}

private extension ObjectID {
    /// The same row's ID in the store `identifier`.
    func withStore(_ identifier: String) -> ObjectID {
        ObjectID(entity: entity, storeIdentifier: identifier, primaryKey: primaryKey!)
    }
}
