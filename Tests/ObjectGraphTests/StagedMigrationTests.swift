// Staged migration (Core Data's NSStagedMigrationManager): a store of people whose full names
// become first and last names in three versions. Version 1 has `name`; version 2 adds
// `firstName` and `lastName` (lightweight); version 3 drops `name` and adds `initials`, a custom
// stage whose willMigrateHandler splits the names at version 2 and whose didMigrateHandler
// fills the initials at version 3. No single inferred mapping can carry the names over.
import Foundation
import XCTest
@testable import ObjectGraph

final class StagedMigrationTests: MigrationTestCase {
    private let v1 = ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
    private let v2 = ManagedObjectModel {
        Entity("Person") { Attribute("name", .string); Attribute("firstName", .string); Attribute("lastName", .string) }
    }
    private let v3 = ManagedObjectModel {
        Entity("Person") { Attribute("firstName", .string); Attribute("lastName", .string); Attribute("initials", .string) }
    }

    /// What the handlers saw: each call with the checksum of the model its container had.
    private final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ call: String) { lock.withLock { list.append(call) } }
        var all: [String] { lock.withLock { list } }
    }

    private struct HandlerFailure: Error, CustomStringConvertible {
        var description: String { "the handler gave up" }
    }

    private func people(_ names: [String], at url: URL, model: ManagedObjectModel, type: StoreType = .sqlite) throws {
        let context = try context(model, at: url, type: type)
        for name in names { context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name") }
        try context.save()
        contexts = []
    }

    /// The custom stage from version 2 to 3, recording its calls in `calls`; `failing` names a
    /// handler that throws after saving what it changed.
    private func splitStage(_ calls: Calls, failing: String? = nil) -> CustomMigrationStage {
        let stage = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: v2), to: ManagedObjectModelReference(model: v3))
        stage.label = "split names"
        stage.willMigrateHandler = { manager, _ in
            let container = try XCTUnwrap(manager.container)
            calls.append("will \(container.managedObjectModel.versionChecksum)")
            let context = container.newBackgroundContext()
            try context.performAndWait {
                var request = FetchRequest<ManagedObject>(entityName: "Person")
                request.sortDescriptors = [SortDescriptor(key: "name")]
                for person in try context.fetch(request) {
                    let parts = (person.value(forKey: "name") as? String ?? "").split(separator: " ")
                    person.setValue(parts.dropLast().joined(separator: " "), forKey: "firstName")
                    person.setValue(parts.last.map(String.init), forKey: "lastName")
                }
                try context.save()
            }
            if failing == "will" { throw HandlerFailure() }
        }
        stage.didMigrateHandler = { manager, _ in
            let container = try XCTUnwrap(manager.container)
            calls.append("did \(container.managedObjectModel.versionChecksum)")
            let context = container.viewContext
            for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                let initials = [person.value(forKey: "firstName"), person.value(forKey: "lastName")]
                    .compactMap { ($0 as? String)?.first.map(String.init) }.joined()
                person.setValue(initials, forKey: "initials")
            }
            try context.save()
            if failing == "did" { throw HandlerFailure() }
        }
        return stage
    }

    private func manager(_ calls: Calls, failing: String? = nil) -> StagedMigrationManager {
        StagedMigrationManager([LightweightMigrationStage(models: [v1, v2]), splitStage(calls, failing: failing)])
    }

    private func options(_ manager: StagedMigrationManager) -> [String: any Sendable] {
        var options = Self.migrating
        options[StagedMigrationManager.option] = manager
        return options
    }

    /// "first last initials" of every person, sorted by last name.
    private func names(in context: ManagedObjectContext) throws -> [String] {
        try fetch("Person", in: context, sortedBy: "lastName").map { person in
            ["firstName", "lastName", "initials"].map { person.value(forKey: $0) as? String ?? "nil" }.joined(separator: " ")
        }
    }

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
        XCTAssertEqual(calls.all, ["will \(v2.versionChecksum)", "did \(v3.versionChecksum)"],
                       "each handler sees the store at its side of the step")
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
        let gap = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: v1), to: ManagedObjectModelReference(model: v3))
        let wrong = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: v2, versionChecksum: v1.versionChecksum),
                                         to: ManagedObjectModelReference(model: v3))
        let cases: [(StagedMigrationManager, String)] = [
            (StagedMigrationManager([unknown], models: [v1]), "stage 1 (lightweight): no model has the version checksum no-such-checksum"),
            (StagedMigrationManager([LightweightMigrationStage(models: [v1, v2]), gap]),
             "stage 2 (custom) starts at version \(v1.versionChecksum), but the stage before it ends at \(v2.versionChecksum)"),
            (StagedMigrationManager([LightweightMigrationStage(models: [v1, v2])]),
             "the last stage ends at version \(v2.versionChecksum), not at the coordinator's model (\(v3.versionChecksum))"),
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
