// Core Data's progressive-migration questions, asked of a store file without adding it: its
// metadata (`metadataForPersistentStore(type:at:options:)`), whether a model opens it
// (`isConfiguration(withName:compatibleWithStoreMetadata:)`) and which of several versions it was
// written with (`model(from:forStoreMetadata:)`), for SQLite, XML and binary stores.
import CSQLite
import Foundation
import XCTest
@testable import ObjectGraph

final class StoreMetadataTests: MigrationTestCase {
    private func model(_ version: Int) -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Note") {
                Attribute("title", .string)
                if version == 2 { Attribute("pinned", .boolean) }
            }
        }
    }

    /// Makes a version 1 store of `type` at `url` with one note and the application's key
    /// `"synced": "2026-11-30"`, and answers its UUID.
    private func makeStore(_ type: StoreType, at url: URL) throws -> String {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model(1))
        let store = try coordinator.addPersistentStore(type: type, at: url)
        var metadata = coordinator.metadata(for: store)
        metadata["synced"] = "2026-11-30"
        coordinator.setMetadata(metadata, for: store)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        context.insertNewObject(forEntityName: "Note").setValue("first", forKey: "title")
        try context.save()
        try coordinator.remove(store)
        return store.identifier
    }

    func testTheMetadataOfEachKindOfStoreTellsWhichVersionWroteIt() throws {
        for (type, name) in [(StoreType.sqlite, "notes.sqlite"), (.xml, "notes.xml"), (.binary, "notes.binary")] {
            let file = directory.url.appendingPathComponent(name)
            let uuid = try makeStore(type, at: file)
            let before = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: type, at: file)
            XCTAssertEqual(metadata["UUID"] as? String, uuid, "\(type)")
            XCTAssertEqual(metadata["StoreType"] as? String, type.rawValue, "\(type)")
            XCTAssertEqual(metadata["synced"] as? String, "2026-11-30", "\(type)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted(), before,
                           "\(type): reading the metadata leaves no file behind")
            XCTAssertTrue(model(1).isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(type)")
            XCTAssertFalse(model(2).isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(type)")
            let versions = [model(2), model(1)]
            XCTAssertTrue(ManagedObjectModel.model(from: versions, forStoreMetadata: metadata) === versions[1], "\(type)")
            XCTAssertNil(ManagedObjectModel.model(from: [model(2)], forStoreMetadata: metadata), "\(type)")
        }
    }

    func testMetadataWithoutVersionHashesFitsNoModel() {
        XCTAssertFalse(model(1).isConfiguration(withName: nil, compatibleWithStoreMetadata: ["StoreType": "SQLite", "UUID": "x"]))
    }

    func testNoStoreAStoreOfAnotherTypeOrAnotherProgramsDatabaseIsAnErrorNamingTheFile() throws {
        let missing = directory.url.appendingPathComponent("missing.sqlite")
        XCTAssertThrowsError(try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: missing)) { error in
            XCTAssertTrue("\(error)".contains(missing.path), "\(error)")
        }
        let binary = directory.url.appendingPathComponent("notes.binary")
        _ = try makeStore(.binary, at: binary)
        XCTAssertThrowsError(try PersistentStoreCoordinator.metadataForPersistentStore(type: .xml, at: binary)) { error in
            XCTAssertTrue("\(error)".contains("is a binary store, not an XML one"), "\(error)")
        }
        let foreign = directory.url.appendingPathComponent("other.db")
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(foreign.path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, "CREATE TABLE t (x)", nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        XCTAssertThrowsError(try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: foreign)) { error in
            XCTAssertTrue("\(error)".contains("\(foreign.path) is not an ObjectGraph SQLite store"), "\(error)")
        }
    }
}
