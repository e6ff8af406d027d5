// Review: one SQLite store used by two parties at once (two coordinators, or a coordinator and
// another process's connection). Real files in temporary folders; the other party is a second
// coordinator or a connection the test holds in a transaction, so that every interleaving is
// made by the test, never by timing.
import Foundation
import XCTest
@testable import ObjectGraph

final class ProcessReviewTests: XCTestCase {
    /// Another process is in the middle of a write (it holds SQLite's write lock, as a cron
    /// job's long import does); meanwhile a second program opens the store to read it.
    ///
    /// Expected: the store opens and its rows can be fetched at once. The file is in WAL mode
    /// (SQLiteConnection: "WAL journal"), where "readers do not block writers and a writer does
    /// not block readers. Reading and writing can proceed concurrently" (sqlite.org/wal.html);
    /// SQLiteStore's own documentation says only that "writers wait for each other up to the
    /// busy timeout". Core Data opens a store without taking the write lock.
    /// Actual: `addPersistentStore` fails with SQLITE_BUSY (with the default 10 s timeout it
    /// waits the whole write out, then fails). SQLiteStore.load(model:) always runs
    /// `connection.transaction { ... }` (BEGIN IMMEDIATE) to re-read the metadata and re-run the
    /// CREATE ... IF NOT EXISTS statements, even for an existing store whose tables and hashes
    /// are already right: every open is a write. So `pim tasks list` cannot run while another
    /// pim or importer is saving.
    func testOpeningAnExistingStoreDoesNotWaitForAnotherProcesssWrite() throws {
        let stack = try Stack(storeType: .sqlite)
        _ = stack.person("Ada", "Lovelace")
        try stack.context.save()

        let writer = try SQLiteConnection(path: stack.storeURL.path)
        defer { writer.close() }
        try writer.execute("BEGIN IMMEDIATE")
        defer { try? writer.execute("ROLLBACK") }

        let reader = PersistentStoreCoordinator(managedObjectModel: stack.model)
        XCTAssertNoThrow(try reader.addPersistentStore(type: .sqlite, at: stack.storeURL, options: ["busyTimeout": 0]))
        guard !reader.persistentStores.isEmpty else { return }
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = reader
        XCTAssertEqual(try stack.fetch("Person", in: context).compactMap { $0.value(forKey: "firstName") as? String }, ["Ada"])
    }
}
