// Staged migration (Core Data's NSStagedMigrationManager) of the people store of
// StagedMigrationTestCase: every stage from the store's version, in a container and in an
// atomic store; failures that leave the store as it was; stages that do not chain; checksums.
import Foundation
import XCTest
@testable import ObjectGraph

final class StagedMigrationTests: StagedMigrationTestCase {
    /// Every file in the test's folder (a failed migration must leave none of its own).
    private func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    /// Every file in the test's folder with its bytes.
    private func contents() throws -> [String: Data] {
        try Dictionary(uniqueKeysWithValues: files().map { ($0, try Data(contentsOf: directory.url.appendingPathComponent($0))) })
    }

    // MARK: Migrating

    func testAStoreOfTheFirstVersionGoesThroughEveryStageInAContainer() throws {
        try people(["Ada Lovelace", "Grace Brewster Hopper"], at: url, model: v1)
        let calls = Calls()
        let container = PersistentContainer(name: "People", managedObjectModel: v3)
        let description = PersistentStoreDescription(url: url)
        description.setOption(manager(calls), forKey: StagedMigrationManager.option)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()

        XCTAssertEqual(try names(in: container.viewContext), ["Grace Brewster Hopper GH", "Ada Lovelace AL"])
        XCTAssertEqual(calls.all, ["will", "did"])
        XCTAssertEqual(calls.models, [v2.versionChecksum, v3.versionChecksum], "each handler sees the store at its side of the step")
        XCTAssertEqual(try files().filter { $0.contains("migration") || $0.contains("migrated") }, [], "nothing is left beside the store")
        XCTAssertTrue(v3.isConfiguration(compatibleWithVersionHashes: try XCTUnwrap(
            container.persistentStoreCoordinator.persistentStores.first?.metadata[SQLiteStore.versionHashesKey] as? [String: Data])))
    }

    func testAStoreOfALaterVersionStartsAtItsStageAndOneOfTheLastIsLeftAlone() throws {
        try people(["Alan Turing"], at: url, model: v2)
        let calls = Calls()
        XCTAssertEqual(try names(in: try context(v3, at: url, options: options(manager(calls)))), ["Alan Turing AT"])
        XCTAssertEqual(calls.all.count, 2)

        contexts = []
        XCTAssertEqual(try names(in: try context(v3, at: url, options: options(manager(calls)))), ["Alan Turing AT"])
        XCTAssertEqual(calls.all.count, 2, "a store at the last version runs no stage")
    }

    func testABinaryStoreIsMigratedThroughTheStagesToo() throws {
        let binary = directory.url.appendingPathComponent("people.binary")
        try people(["Ada Lovelace"], at: binary, model: v1, type: .binary)
        let calls = Calls()
        XCTAssertEqual(try names(in: try context(v3, at: binary, type: .binary, options: options(manager(calls)))), ["Ada Lovelace AL"])
        XCTAssertEqual(calls.all.count, 2)
    }

    // MARK: Failures

    func testAHandlerThatFailsLeavesTheStoreAsItWasNamingTheStage() throws {
        try people(["Ada Lovelace"], at: url, model: v1)
        contexts = []
        let before = try Data(contentsOf: url)
        for failing in ["will", "did"] {
            XCTAssertThrowsError(try context(v3, at: url, options: options(manager(Calls(), failing: failing)))) { error in
                let reason = (error as? MigrationError)?.reason ?? "\(error)"
                XCTAssertTrue(reason.contains("stage \"split names\""), reason)
                XCTAssertTrue(reason.contains("its \(failing)MigrateHandler failed: the handler gave up"), reason)
            }
            contexts = []
            XCTAssertEqual(try Data(contentsOf: url), before, "the store is as it was after a failing \(failing)MigrateHandler")
            // Only SQLite's own files beside it (a read-only open leaves an empty log).
            XCTAssertEqual(try files().filter { $0 != "store.sqlite-shm" && !($0 == "store.sqlite-wal" && (try? contents()[$0]?.isEmpty) == true) },
                           ["store.sqlite"])
        }
        // The store still opens at its own version, with what it held.
        XCTAssertEqual(strings(try fetch("Person", in: try context(v1, at: url)), "name"), ["Ada Lovelace"])
    }

    func testStagesThatDoNotChainAreRefusedNamingTheStage() throws {
        try people(["Ada Lovelace"], at: url, model: v1)
        let unknown = LightweightMigrationStage([v1.versionChecksum, "no-such-checksum"])
        let v2b = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Attribute("firstName", .string); Attribute("lastName", .string); Attribute("note", .string) }
        }
        let first = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: v1), to: ManagedObjectModelReference(model: v2))
        let gap = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: v2b), to: ManagedObjectModelReference(model: v3))
        let wrong = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: v2, versionChecksum: v1.versionChecksum),
                                         to: ManagedObjectModelReference(model: v3))
        let cases: [(StagedMigrationManager, String)] = [
            (StagedMigrationManager([unknown], models: [v1]), "stage 1 (lightweight): no model has the version checksum no-such-checksum"),
            (StagedMigrationManager([first, gap]),
             "stage 2 (custom) starts at version \(v2b.versionChecksum), but the stage before it ends at \(v2.versionChecksum)"),
            (StagedMigrationManager([LightweightMigrationStage(models: [v1, v3, v2])]),
             "stage 1 (lightweight) migrates from version \(v3.versionChecksum), the coordinator's model: the stages must end there"),
            (StagedMigrationManager([LightweightMigrationStage(models: [v1, v2]), wrong]),
             "stage 2 (custom): a model reference names checksum \(v1.versionChecksum), but its model's checksum is \(v2.versionChecksum)"),
            (StagedMigrationManager([LightweightMigrationStage(models: [v1, v2, v1, v3])]), "version \(v1.versionChecksum) comes twice"),
        ]
        for (manager, expected) in cases {
            XCTAssertThrowsError(try context(v3, at: url, options: options(manager))) { error in
                XCTAssertTrue((error as? MigrationError)?.reason.contains(expected) == true, "\(error)\nexpected: \(expected)")
            }
        }
        XCTAssertEqual(strings(try fetch("Person", in: try context(v1, at: url)), "name"), ["Ada Lovelace"])
    }

    func testAStoreOfAVersionNoStageNamesIsLeftToInference() throws {
        try people(["Ada Lovelace"], at: url, model: v2)
        // Stages from version 1 to 2 only, opened at version 2's successor by inference alone.
        let v2b = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Attribute("firstName", .string); Attribute("lastName", .string); Attribute("note", .string) }
        }
        let manager = StagedMigrationManager([LightweightMigrationStage(models: [v1, v2b])])
        XCTAssertEqual(strings(try fetch("Person", in: try context(v2b, at: url, options: options(manager))), "name"), ["Ada Lovelace"])
    }

    // MARK: Checksums

    func testAVersionChecksumIsTheSameForTheSameVersionAndDiffersForAnother() throws {
        let again = ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
        XCTAssertEqual(v1.versionChecksum, again.versionChecksum)
        XCTAssertNotEqual(v1.versionChecksum, v2.versionChecksum)
        XCTAssertNotEqual(v2.versionChecksum, v3.versionChecksum)
        XCTAssertEqual(ManagedObjectModelReference(model: v2).versionChecksum, v2.versionChecksum)
        XCTAssertEqual(Data(base64Encoded: v1.versionChecksum)?.count, 32, "a Base64 SHA-256")
    }
}
