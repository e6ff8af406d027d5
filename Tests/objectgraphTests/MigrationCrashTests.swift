// A migration into a new file killed at each of its steps (`objectgraph store migrate --mapping`
// run with OBJECTGRAPH_MIGRATION_CRASH_AT, which makes the process SIGKILL itself there, as a
// crash or a power cut would stop it) leaves a store that opens, old or new, with all its
// objects; the next run finishes the migration and removes what the killed one left. Two
// processes migrating the same store take turns.
import Foundation
import ObjectGraph
import XCTest

final class MigrationCrashTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("migration-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private var executable: URL { productsDirectory.appendingPathComponent("objectgraph") }

    /// `objectgraph store migrate` of `store` from Moody 4 to 5 with Moody's mapping model,
    /// killed at `point` when one is given.
    private func migrate(_ store: URL, crashingAt point: String? = nil) throws -> ProgramRun {
        try run(executable, ["store", "migrate", store.path, "--model", moodyModel(5).path, "--mapping", moodyMapping(4).path],
                scratch: directory, environment: point.map { ["OBJECTGRAPH_MIGRATION_CRASH_AT": $0] } ?? [:])
    }

    /// The hidden files and folders beside the store (a migration's working files), but the
    /// output files of runs.
    private func workingFiles(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }.sorted()
    }

    /// The version of Moody's model the store opens with unchanged (4 or 5), read-only, and its
    /// countries' numeric codes with, at version 5, their continents' codes.
    private func opened(_ store: URL, type: StoreType) throws -> (version: Int, countries: [String]) {
        for version in [4, 5] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: moodyModel(version)))
            guard (try? coordinator.addPersistentStore(type: type, at: store, options: [NSReadOnlyPersistentStoreOption: true])) != nil else { continue }
            let context = ManagedObjectContext(concurrencyType: .mainQueue)
            context.persistentStoreCoordinator = coordinator
            var request = FetchRequest<ManagedObject>(entityName: "Country")
            request.sortDescriptors = [SortDescriptor(key: "numericISO3166Code")]
            let countries = try context.fetch(request).map { country in
                "\(country.value(forKey: "numericISO3166Code") ?? "nil")" + (version == 5 ? "/\(country.value(forKey: "isoContinent") ?? "nil")" : "")
            }
            return (version, countries)
        }
        XCTFail("no version of Moody's model opens \(store.path)")
        return (0, [])
    }

    /// A Moody 4 store of `type` in the test's folder.
    private func makeStore(_ type: StoreType) throws -> URL {
        let sqlite = try makeMoody4Store(at: directory.appendingPathComponent("moody.sqlite"))
        guard type != .sqlite else { return sqlite }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: moodyModel(4)))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: sqlite)
        let url = directory.appendingPathComponent(type == .xml ? "moody.xml" : "moody.binary")
        try coordinator.remove(try coordinator.migratePersistentStore(store, to: url, type: type))
        try coordinator.destroyPersistentStore(at: sqlite, type: .sqlite)
        return url
    }

    /// Killed once the migrated file is made, and again just before it is renamed over the
    /// store: the store is Moody 4 with both countries and the working file is beside it; the
    /// next run migrates it and removes that file.
    func testKilledBeforeTheRenameTheStoreIsTheOldOneAndTheNextRunMigratesIt() throws {
        for type in [StoreType.sqlite, .binary] {
            for point in ["migrated", "before-rename"] {
                let store = try makeStore(type)
                let killed = try migrate(store, crashingAt: point)
                XCTAssertTrue(killed.killed && killed.status == SIGKILL, "\(type) \(point): \(killed.status) \(killed.stderr)")
                XCTAssertFalse(killed.stdout.hasSuffix("migrated\n"), "\(type) \(point): \(killed.stdout)")
                let left = try workingFiles(in: directory)
                XCTAssertTrue(left.contains { $0.hasPrefix(".moody-migrated-") }, "\(type) \(point): \(left)")
                let before = try opened(store, type: type)
                XCTAssertEqual(before.version, 4, "\(type) \(point)")
                XCTAssertEqual(before.countries, ["12", "276"], "\(type) \(point)")

                let again = try migrate(store)
                XCTAssertEqual(again.status, 0, "\(type) \(point): \(again.stderr)")
                let after = try opened(store, type: type)
                XCTAssertEqual(after.version, 5, "\(type) \(point)")
                XCTAssertEqual(after.countries, ["12/2", "276/150"], "\(type) \(point)")
                XCTAssertEqual(try workingFiles(in: directory), [], "\(type) \(point)")
                try FileManager.default.removeItem(at: store)
            }
        }
    }

    /// Killed right after the rename: the store is already Moody 5, whole; the next run has
    /// nothing to migrate and leaves no working file.
    func testKilledAfterTheRenameTheStoreIsTheNewOne() throws {
        for type in [StoreType.sqlite, .binary] {
            let store = try makeStore(type)
            let killed = try migrate(store, crashingAt: "after-rename")
            XCTAssertTrue(killed.killed && killed.status == SIGKILL, "\(type): \(killed.status) \(killed.stderr)")
            let after = try opened(store, type: type)
            XCTAssertEqual(after.version, 5, "\(type)")
            XCTAssertEqual(after.countries, ["12/2", "276/150"], "\(type)")
            let again = try migrate(store)
            XCTAssertEqual(again.status, 0, "\(type): \(again.stderr)")
            XCTAssertEqual(try opened(store, type: type).countries, ["12/2", "276/150"], "\(type)")
            XCTAssertEqual(try workingFiles(in: directory), [], "\(type)")
            try FileManager.default.removeItem(at: store)
        }
    }

    /// A process that finds another migrating in the store's folder waits for it (seen in
    /// /proc/locks as a waiter on the folder's lock), then probes the store as that migration
    /// left it: here, already at Moody 5 (another file, put in place while the lock was held),
    /// which it opens without migrating it again (its UUID stays the other file's).
    func testAProcessWaitsForAMigrationInTheStoresFolderAndDoesNotRepeatIt() throws {
        let store = try makeStore(.sqlite)
        let elsewhere = directory.appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let prepared = try makeMoody4Store(at: elsewhere.appendingPathComponent("moody.sqlite"))
        XCTAssertEqual(try migrate(prepared).status, 0)
        let preparedUUID = try XCTUnwrap(SQLiteStoreInfo(url: prepared).metadata["UUID"] as? String)

        let folder = open(directory.path, O_RDONLY | O_DIRECTORY)
        XCTAssertGreaterThanOrEqual(folder, 0)
        defer { close(folder) }
        XCTAssertEqual(flock(folder, LOCK_EX), 0)
        let output = directory.appendingPathComponent("waiting-stdout")
        XCTAssertTrue(FileManager.default.createFile(atPath: output.path, contents: nil))
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["store", "migrate", store.path, "--model", moodyModel(5).path, "--mapping", moodyMapping(4).path]
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // Wait until the process is blocked on the folder's lock (or has ended, which fails).
        let waiter = " -> FLOCK  ADVISORY  WRITE \(process.processIdentifier) "
        var waiting = false
        while process.isRunning, !waiting {
            waiting = ((try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? "").contains(waiter)
            if !waiting { usleep(2_000) }
        }
        XCTAssertTrue(waiting, "the second migration did not wait for the folder's lock: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        XCTAssertEqual(rename(prepared.path, store.path), 0)
        XCTAssertEqual(flock(folder, LOCK_UN), 0)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
        XCTAssertEqual(try SQLiteStoreInfo(url: store).metadata["UUID"] as? String, preparedUUID,
                       "the store was not migrated a second time")
        XCTAssertEqual(try opened(store, type: .sqlite).countries, ["12/2", "276/150"])
    }
}
