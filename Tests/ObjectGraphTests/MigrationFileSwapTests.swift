// How a store migrated into a new file (mapping model, stages) takes the store's place: renamed
// over it, the folder of external data holding exactly the new store's files afterwards, the
// working files of a crashed migration removed, and a store another connection still writes
// through its log left alone. (Crashes at each step are in objectgraphTests/MigrationCrashTests.)
import CSQLite
import Foundation
import XCTest
@testable import ObjectGraph

final class MigrationFileSwapTests: MigrationTestCase {
    private func model(_ version: Int) -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Photo") {
                Attribute("name", .string)
                Attribute("image", .binaryData).allowsExternalStorage()
                if version == 2 { Attribute("caption", .string) }
            }
        }
    }

    /// The options of a store added with an inferred mapping model from version 1 to 2.
    private func mappingOptions() throws -> [String: any Sendable] {
        var options = Self.migrating
        options[MigrationManager.mappingModelsOption] = [try MappingModel.inferredMappingModel(forSourceModel: model(1), destinationModel: model(2))]
        return options
    }

    private func image(_ seed: Int) -> Data {
        Data((0..<(120 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* seed &+ seed) })
    }

    /// A version 1 store at ``url`` with photos p1… whose images are in files beside it.
    private func makeStore(photos: Int) throws {
        let context = try open(model(1), options: [:])
        for index in 1...photos {
            let photo = context.insertNewObject(forEntityName: "Photo")
            photo.setValuesForKeys(["name": "p\(index)", "image": image(index)])
        }
        try context.save()
        contexts = []
    }

    private var externalData: URL {
        directory.url.appendingPathComponent(".store_SUPPORT/_EXTERNAL_DATA")
    }

    private func externalFiles() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: externalData.path))
    }

    /// The hidden names in the store's folder but the store's support folder.
    private func hiddenFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.hasPrefix(".") && $0 != ".store_SUPPORT" }.sorted()
    }

    /// A mapping-model migration writes every image anew, under new file names: afterwards the
    /// folder holds the new store's files and none of the old ones, every image reads back, and
    /// no working file is left beside the store.
    func testTheFolderOfExternalDataHoldsExactlyTheMigratedStoresFiles() throws {
        try makeStore(photos: 3)
        let before = try externalFiles()
        XCTAssertEqual(before.count, 3)
        let inode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int)
        let context = try open(model(2), options: try mappingOptions())
        XCTAssertEqual(try fetch("Photo", in: context).map { $0.value(forKey: "image") as? Data }, (1...3).map(image))
        let after = try externalFiles()
        XCTAssertEqual(after.count, 3, "one file per image: \(after.sorted())")
        XCTAssertTrue(after.isDisjoint(with: before), "the old store's files are gone: \(before.intersection(after))")
        XCTAssertNotEqual(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int, inode,
                          "the migrated file was renamed over the store")
        XCTAssertEqual(try hiddenFiles(), [])
        contexts = []
        XCTAssertEqual(try fetch("Photo", in: try open(model(2), options: [:])).map { $0.value(forKey: "image") as? Data }, (1...3).map(image),
                       "opened again")
    }

    /// A staged migration copies the store (and its external data files under the same names):
    /// the folder keeps exactly those files, and the store keeps its permissions.
    func testAStagedMigrationKeepsTheStoresFilesAndPermissions() throws {
        try makeStore(photos: 2)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
        let before = try externalFiles()
        var options = Self.migrating
        options[StagedMigrationManager.option] = StagedMigrationManager([
            LightweightMigrationStage(models: [model(1)]),
        ])
        let context = try open(model(2), options: options)
        XCTAssertEqual(try fetch("Photo", in: context).map { $0.value(forKey: "image") as? Data }, (1...2).map(image))
        XCTAssertEqual(try externalFiles(), before)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int, 0o640)
        XCTAssertEqual(try hiddenFiles(), [])
    }

    /// What a crashed migration left beside the store (its working file with -wal and support
    /// folder) goes with the next migration; a file that only looks like one (no UUID in its
    /// name), another store's working file, and a copy of the store set aside for a registered
    /// store type (perhaps its only whole copy) stay.
    func testTheWorkingFilesOfACrashedMigrationAreRemovedByTheNext() throws {
        try makeStore(photos: 1)
        let files = FileManager.default
        let uuid = UUID().uuidString
        let leftovers = [".store-migrated-\(uuid).sqlite", ".store-migrated-\(uuid).sqlite-wal"]
        for name in leftovers { try Data("left".utf8).write(to: directory.url.appendingPathComponent(name)) }
        let support = directory.url.appendingPathComponent("..store-migrated-\(uuid)_SUPPORT/_EXTERNAL_DATA")
        try files.createDirectory(at: support, withIntermediateDirectories: true)
        try Data("left".utf8).write(to: support.appendingPathComponent(UUID().uuidString))
        let kept = [".store-migrated-notes.txt", ".other-migrated-\(uuid).sqlite", ".store-premigration-\(uuid).sqlite"]
        for name in kept { try Data("mine".utf8).write(to: directory.url.appendingPathComponent(name)) }

        _ = try open(model(2), options: try mappingOptions())
        XCTAssertEqual(try hiddenFiles(), kept.sorted())
    }

    /// A store whose write-ahead log another connection keeps from being emptied (a reader in
    /// the middle of a transaction, as another process would be) cannot be replaced: the
    /// migration fails naming the store and its log, and the store is left as it was, all its
    /// changes there, with no working file beside it.
    func testAStoreWhoseLogCannotBeEmptiedIsLeftAsItWas() throws {
        try makeStore(photos: 2)
        // A change that stays in the log while a reader holds its snapshot.
        var reader: OpaquePointer?
        XCTAssertEqual(sqlite3_open(url.path, &reader), SQLITE_OK)
        defer { sqlite3_close(reader) }
        XCTAssertEqual(sqlite3_exec(reader, "BEGIN; SELECT count(*) FROM ZPHOTO;", nil, nil, nil), SQLITE_OK)
        let writer = try open(model(1), options: [:])
        let photo = writer.insertNewObject(forEntityName: "Photo")
        photo.setValuesForKeys(["name": "p3", "image": image(3)])
        try writer.save()
        contexts = []

        var options = try mappingOptions()
        options["busyTimeout"] = 0.2
        XCTAssertThrowsError(try open(model(2), options: options)) { error in
            XCTAssertTrue("\(error)".contains(url.path) && "\(error)".contains("wal"), "\(error)")
        }
        XCTAssertEqual(try hiddenFiles(), [])
        XCTAssertEqual(sqlite3_exec(reader, "COMMIT", nil, nil, nil), SQLITE_OK)
        XCTAssertEqual(try fetch("Photo", in: try open(model(1), options: [:])).map { $0.value(forKey: "image") as? Data }, (1...3).map(image))
    }
}
