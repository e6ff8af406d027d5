// The SQLite store's options as Core Data names them: NSSQLitePragmasOption sets pragmas on the
// store's connection (a journal mode instead of WAL), NSSQLiteAnalyzeOption and
// NSSQLiteManualVacuumOption run ANALYZE and VACUUM when the store opens; names and values that
// are not plain words are refused before anything is opened.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLitePragmaOptionTests: XCTestCase {
    private func open(_ url: URL, options: [String: any Sendable]) throws -> (ManagedObjectContext, SQLiteStore) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Stack.organizerModel)
        let added = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        guard let store = added as? SQLiteStore else { throw StoreError.unknownStore("not a SQLite store: \(added)") }
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }

    private func pragma(_ name: String, of store: SQLiteStore) throws -> SQLiteValue? {
        try store.lock.withLock { try store.connection.scalar("PRAGMA \(name)") }
    }

    func testPragmasAreSetAndAJournalModeReplacesWAL() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("store.sqlite")
        let description = PersistentStoreDescription(type: .sqlite, url: url)
        description.setOption(["journal_mode": "DELETE", "synchronous": "FULL", "cache_size": -4000] as [String: any Sendable],
                             forKey: NSSQLitePragmasOption)
        let (context, store) = try open(url, options: description.options)
        XCTAssertEqual(try pragma("journal_mode", of: store), .text("delete"))
        XCTAssertEqual(try pragma("synchronous", of: store), .integer(2))
        XCTAssertEqual(try pragma("cache_size", of: store), .integer(-4000))
        context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
        try context.save()
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + "-wal"), "no write-ahead log")

        let other = try TemporaryDirectory()
        let (_, walStore) = try open(other.url.appendingPathComponent("store.sqlite"), options: [:])
        XCTAssertEqual(try pragma("journal_mode", of: walStore), .text("wal"), "WAL without the option")
    }

    func testAnalyzeAndVacuumRunWhenTheStoreOpens() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("store.sqlite")
        do {
            let (context, _) = try open(url, options: [:])
            context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try context.save()
        }
        // Core Data's options are NSNumbers: 1 is yes.
        let (_, store) = try open(url, options: [NSSQLiteAnalyzeOption: 1, NSSQLiteManualVacuumOption: true])
        let statistics = try store.lock.withLock {
            try store.connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
        }
        XCTAssertEqual(statistics, .integer(1), "ANALYZE made its statistics table")
    }

    /// Pragmas that only take effect on a new file take effect: they are set before the store
    /// switches the file to WAL, its first write (found by the review).
    func testPragmasOfTheFileAreSetBeforeItsFirstWrite() throws {
        let directory = try TemporaryDirectory()
        let (_, store) = try open(directory.url.appendingPathComponent("store.sqlite"),
                                  options: [NSSQLitePragmasOption: ["page_size": 8192, "auto_vacuum": "FULL"] as [String: any Sendable]])
        XCTAssertEqual(try pragma("page_size", of: store), .integer(8192))
        XCTAssertEqual(try pragma("auto_vacuum", of: store), .integer(1))
        XCTAssertEqual(try pragma("journal_mode", of: store), .text("wal"))
    }

    func testPragmasThatAreNotPlainWordsAreRefusedNamingThem() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("store.sqlite")
        let refused: [([String: any Sendable], String)] = [
            (["journal_mode; DROP TABLE ZPERSON": "WAL"], "is not a pragma name"),
            (["synchronous": "FULL; DROP TABLE ZPERSON"], "is not a value for synchronous"),
            (["synchronous": 2.5], "must be a string, an integer or a boolean"),
            (["journal_mode": "SIDEWAYS"], "journal mode"),
        ]
        for (pragmas, message) in refused {
            XCTAssertThrowsError(try open(url, options: [NSSQLitePragmasOption: pragmas])) { error in
                XCTAssertTrue("\(error)".contains(message), "\(pragmas): \(error)")
            }
        }
        XCTAssertThrowsError(try open(url, options: [NSSQLitePragmasOption: "journal_mode=WAL"])) { error in
            XCTAssertTrue("\(error)".contains("dictionary"), "\(error)")
        }
    }
}
