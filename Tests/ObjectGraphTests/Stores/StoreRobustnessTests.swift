// Opening damaged or foreign files, failed opens changing nothing, metadata set
// through the coordinator, replacing and copying stores, external data files, and stores
// removed while contexts use them.
import Foundation
import XCTest
@testable import ObjectGraph

final class StoreRobustnessTests: XCTestCase {
    private let big = Data((0..<4096).map { UInt8($0 % 251) })

    /// The names in `directory`, sorted.
    private func names(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// The number of Person rows in the SQLite file at `url`, read with a plain connection.
    private func personCount(at url: URL) throws -> Int64? {
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        defer { connection.close() }
        return try connection.scalar("SELECT count(*) FROM ZPERSON")?.integerValue
    }

    /// A closed store file holding the populated task data, with no -wal or -shm left.
    private func closedStore() throws -> (SQLiteStoreFixture, TaskData) {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        f.store.unload()
        return (f, d)
    }

    // MARK: Failed opens change nothing

    /// A SQLite database of another program, in its rollback journal mode, is refused; the
    /// refusal must leave the file byte for byte as it was (the man page and load's doc comment:
    /// "refused, untouched"), not switched to WAL.
    func testFailedOpenOfAnotherProgramsDatabaseLeavesItsBytesAndJournalMode() throws {
        let directory = try TemporaryDirectory()
        let other = directory.url.appendingPathComponent("accounts.db")
        let setup = try SQLiteConnection(path: other.path)
        try setup.executeScript("PRAGMA journal_mode = DELETE; CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts (name) VALUES ('x');")
        setup.close()
        let before = try Data(contentsOf: other)
        XCTAssertEqual(before[18], 1, "set-up: the file is in rollback-journal mode")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: SQLiteStoreFixture.makeModel())
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, at: other)) { error in
            XCTAssertTrue("\(error)".contains(other.path), "\(error)")
        }
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        XCTAssertEqual(try names(in: directory.url), ["accounts.db"])
        let after = try Data(contentsOf: other)
        XCTAssertEqual(after[18], 1, "the failed open switched the other program's database to WAL (header byte 18 = \(after[18]))")
        XCTAssertEqual(after, before, "the failed open changed the file")
    }

    /// Opening a store with a model whose entities changed fails and leaves the file unchanged.
    func testFailedOpenWithAnIncompatibleModelLeavesTheFileUnchanged() throws {
        let (f, _) = try closedStore()
        let before = try Data(contentsOf: f.url)
        let changed = ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: changed)
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .sqlite, at: f.url)) { error in
            guard case StoreError.incompatibleModel(let path, let differences) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, f.url.path)
            XCTAssertFalse(differences.isEmpty)
        }
        XCTAssertEqual(try Data(contentsOf: f.url), before)
        XCTAssertEqual(try names(in: f.directory.url), ["tasks.sqlite"])
    }

    /// A store file cut short fails with an error naming the file (no crash), and the failure
    /// changes nothing.
    func testTruncatedStoreFailsNamingTheFileAndIsLeftAsItWas() throws {
        let (f, d) = try closedStore()
        let full = try Data(contentsOf: f.url)
        let truncated = full.prefix(full.count / 2)
        try truncated.write(to: f.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        do {
            let store = try coordinator.addPersistentStore(type: .sqlite, at: f.url)
            XCTAssertThrowsError(try store.snapshots(for: [d.ada.withStore(store.identifier)])) { error in
                XCTAssertTrue("\(error)".contains(f.url.path), "\(error)")
            }
            try coordinator.remove(store)
        } catch {
            XCTAssertTrue("\(error)".contains(f.url.path), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.url), Data(truncated))
    }

    /// An empty file is taken as a new store (as SQLite and Core Data take it).
    func testAnEmptyFileOpensAsANewStore() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.write("", to: "empty.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: SQLiteStoreFixture.makeModel())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        XCTAssertEqual(store.metadata["StoreType"] as? String, "SQLite")
    }

    // MARK: Replacing and copying

    /// replacePersistentStore from a source that does not exist must fail and leave both the
    /// destination (and its data) and the file system as they were; it must not create an
    /// empty store at the source path and copy that over the destination.
    func testReplaceFromAMissingSourceKeepsTheDestinationAndCreatesNothing() throws {
        let (f, _) = try closedStore()
        let missing = f.directory.url.appendingPathComponent("missing.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        XCTAssertThrowsError(try coordinator.replacePersistentStore(at: f.url, withPersistentStoreFrom: missing, type: .sqlite))
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path), "replace created the missing source")
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.url.path), "replace destroyed the destination")
        XCTAssertEqual(try? personCount(at: f.url), 3, "the destination lost its rows")
    }

    /// replacePersistentStore from a file that is not a store must fail without destroying the
    /// destination first.
    func testReplaceFromAFileThatIsNotAStoreKeepsTheDestination() throws {
        let (f, _) = try closedStore()
        let text = try f.directory.write("just some text", to: "notes.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        XCTAssertThrowsError(try coordinator.replacePersistentStore(at: f.url, withPersistentStoreFrom: text, type: .sqlite))
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.url.path), "replace destroyed the destination")
        XCTAssertEqual(try? personCount(at: f.url), 3, "the destination lost its rows")
        XCTAssertEqual(try String(contentsOf: text, encoding: .utf8), "just some text")
    }

    /// Copying onto an existing file refuses, names the file and leaves it alone.
    func testCopyOntoAnExistingFileRefusesAndLeavesIt() throws {
        let f = try SQLiteStoreFixture()
        _ = try f.populated()
        let existing = try f.directory.write("keep me", to: "existing.sqlite")
        XCTAssertThrowsError(try f.store.copy(to: existing)) { error in
            XCTAssertTrue("\(error)".contains(existing.path), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: existing, encoding: .utf8), "keep me")
    }

    // MARK: Metadata

    /// setMetadata replaces the metadata (Core Data: "Sets the metadata stored in the persistent
    /// store during the next save"); the store keeps its own keys. A dictionary of only the
    /// application's keys must not make the store unopenable after the save: the model version
    /// hashes have to stay, as StoreType and UUID do.
    func testSetMetadataWithOnlyApplicationKeysKeepsTheStoreOpenable() throws {
        let f = try SQLiteStoreFixture()
        _ = try f.populated()
        f.store.unload()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: f.url)
        coordinator.setMetadata(["Owner": "ada"], for: store)
        _ = try store.save(StoreSaveRequest())
        try coordinator.remove(store)
        let again = PersistentStoreCoordinator(managedObjectModel: f.model)
        XCTAssertNoThrow(try again.addPersistentStore(type: .sqlite, at: f.url), "the saved store no longer opens")
        XCTAssertEqual(again.persistentStores.first?.metadata["Owner"] as? String, "ada")
    }

    /// Property-list numbers come back as the types they were set as: an integer 1 is not a Bool,
    /// a Double stays a Double.
    func testMetadataNumbersKeepTheirTypesAcrossASave() throws {
        let f = try SQLiteStoreFixture()
        var metadata = f.store.metadata
        metadata["Count"] = 1
        metadata["Version"] = 7
        metadata["Ratio"] = 0.5
        metadata["Whole"] = 1.0
        metadata["Enabled"] = true
        metadata["Nested"] = ["a": 2, "b": "x"] as [String: any Sendable]
        f.store.metadata = metadata
        try f.save(StoreSaveRequest())
        try f.reopen()
        let read = f.store.metadata
        XCTAssertEqual(read["Count"] as? Int, 1, "\(String(describing: read["Count"])) \(type(of: read["Count"]!))")
        XCTAssertEqual(read["Version"] as? Int, 7)
        XCTAssertEqual(read["Ratio"] as? Double, 0.5)
        XCTAssertEqual(read["Whole"] as? Double, 1.0, "\(String(describing: read["Whole"]))")
        XCTAssertEqual(read["Enabled"] as? Bool, true)
        XCTAssertEqual((read["Nested"] as? [String: any Sendable])?["a"] as? Int, 2, "\(String(describing: read["Nested"]))")
        XCTAssertEqual((read["Nested"] as? [String: any Sendable])?["b"] as? String, "x")
    }

    // MARK: Two stores, one coordinator

    /// A copy of a store (which keeps its UUID) added beside the original: either the
    /// coordinator refuses it, or fetches see the rows of both (Core Data fetches across every
    /// store). Merging the two stores' objects into one is wrong.
    func testACopyAddedBesideItsOriginalIsRefusedOrKeptApart() throws {
        let f = try SQLiteStoreFixture()
        _ = try f.populated()
        let copy = f.directory.url.appendingPathComponent("copy.sqlite")
        try f.store.copy(to: copy)
        f.store.unload()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        try coordinator.addPersistentStore(type: .sqlite, at: f.url)
        do {
            try coordinator.addPersistentStore(type: .sqlite, at: copy)
        } catch {
            return  // refused: fine
        }
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        XCTAssertEqual(people.count, 6, "two stores with the same UUID: the copy's rows are merged into the original's objects")
    }

    // MARK: Removing a store in use

    /// After a store is removed, its objects can no longer be fetched or saved: existingObject
    /// throws, and a save of a change to one of its objects fails without touching the file.
    func testObjectsOfARemovedStoreCannotBeReadOrSaved() throws {
        let (f, d) = try closedStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: f.url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let ada = try context.existingObject(with: d.ada.withStore(store.identifier))
        XCTAssertEqual(ada.value(forKey: "name") as? String, "Ada")
        try coordinator.remove(store)
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        let fresh = ManagedObjectContext(concurrencyType: .mainQueue)
        fresh.persistentStoreCoordinator = coordinator
        XCTAssertThrowsError(try fresh.existingObject(with: d.bob.withStore(store.identifier)))
        ada.setValue("Ada L.", forKey: "name")
        XCTAssertThrowsError(try context.save())
        let connection = try SQLiteConnection(path: f.url.path, readOnly: true)
        defer { connection.close() }
        XCTAssertEqual(try connection.scalar("SELECT ZNAME FROM ZPERSON WHERE Z_PK = ?", [.integer(d.ada.primaryKey!)]), .text("Ada"))
    }

    // MARK: External data

    /// A value whose file is gone reads as an error naming the file (not as nil or empty data).
    func testAMissingExternalFileIsAnErrorNamingIt() throws {
        let f = try SQLiteStoreFixture(options: ["externalStorageThreshold": 1024])
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["bigData": .value(big)])])
        let directory = f.store.externalData.directory
        let file = directory.appendingPathComponent(try names(in: directory)[0])
        try FileManager.default.removeItem(at: file)
        try f.reopen()
        XCTAssertThrowsError(try f.stored(id)) { error in
            XCTAssertTrue("\(error)".contains(file.path), "\(error)")
        }
    }

    /// A batch delete of every row of an entity with external values removes their files.
    func testBatchDeleteOfEveryRowRemovesTheExternalFiles() throws {
        let f = try SQLiteStoreFixture(options: ["externalStorageThreshold": 1024])
        let a = try f.newID("Sample"), b = try f.newID("Sample")
        try f.insert([f.row(a, ["bigData": .value(big)]), f.row(b, ["bigData": .value(big + big)])])
        XCTAssertEqual(try names(in: f.store.externalData.directory).count, 2)
        _ = try f.store.execute(BatchDeleteRequest(entity: f.entity("Sample")))
        XCTAssertEqual(try names(in: f.store.externalData.directory), [])
    }

    /// replacePersistentStore carries the source's external data files to the destination.
    func testReplaceCarriesTheExternalDataFiles() throws {
        let f = try SQLiteStoreFixture(options: ["externalStorageThreshold": 1024])
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["bigData": .value(big)])])
        f.store.unload()
        let destination = f.directory.url.appendingPathComponent("replaced.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: f.url, type: .sqlite)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: destination)
        XCTAssertEqual(try store.snapshots(for: [id.withStore(store.identifier)])[id.withStore(store.identifier)]?.value(forKey: "bigData"), .value(big))
        try coordinator.destroyPersistentStore(at: destination, type: .sqlite)
        XCTAssertFalse(FileManager.default.fileExists(atPath: SQLiteExternalData.supportDirectory(for: destination).path))
    }

    // MARK: Store info

    /// SQLiteStoreInfo opens the file read-only: it creates no files beside it (no -wal, -shm).
    func testStoreInfoCreatesNoFilesBesideTheStore() throws {
        let (f, _) = try closedStore()
        XCTAssertEqual(try names(in: f.directory.url), ["tasks.sqlite"])
        let before = try Data(contentsOf: f.url)
        let info = try SQLiteStoreInfo(url: f.url)
        XCTAssertEqual(info.rowCounts["Person"], 3)
        XCTAssertEqual(try names(in: f.directory.url), ["tasks.sqlite"], "reading the store's info left files beside it")
        XCTAssertEqual(try Data(contentsOf: f.url), before)
    }

    /// Info of a file that is not SQLite is an error naming the file.
    func testStoreInfoOfATextFileNamesIt() throws {
        let directory = try TemporaryDirectory()
        let text = try directory.write("not a database, just text", to: "notes.sqlite")
        XCTAssertThrowsError(try SQLiteStoreInfo(url: text)) { error in
            XCTAssertTrue("\(error)".contains(text.path), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: text, encoding: .utf8), "not a database, just text")
    }
}

private extension ObjectID {
    /// The same row's ID in the store `identifier`.
    func withStore(_ identifier: String) -> ObjectID {
        ObjectID(entity: entity, storeIdentifier: identifier, primaryKey: primaryKey!)
    }
}

/// A fault whose values the store fails to read (a damaged file) does not stop the program: the
/// object reads as empty, the failure is kept on the context, and saves refuse until a reset.
final class FaultingFailureTests: XCTestCase {
    func testAFaultTheStoreCannotReadIsEmptyAndBlocksSavesUntilReset() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        let id = ada.objectID
        // Nothing keeps the row cached: the fault below must read the store.
        stack.context.reset()
        let context = stack.newContext()
        let fault = context.object(with: id)
        XCTAssertTrue(fault.isFault)
        // Another connection takes the table away under the store: reading the row fails.
        let other = try SQLiteConnection(path: stack.storeURL.path)
        try other.executeScript("DROP TABLE ZPERSON")
        other.close()
        XCTAssertNil(fault.value(forKey: "firstName"))
        XCTAssertFalse(fault.isFault)
        XCTAssertNotNil(context.faultingError)
        fault.setValue("Changed", forKey: "firstName")
        XCTAssertThrowsError(try context.save())
        context.reset()
        XCTAssertNil(context.faultingError)
    }
}
