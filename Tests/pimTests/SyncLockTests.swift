// One `pim sync` of a store at a time, against a real Radicale server: a run that finds another
// holding the store's sync lock (seen in /proc/locks as a waiter) says so, waits, and syncs once
// the other has ended.
import Foundation
import XCTest

final class SyncLockTests: SyncTestCase {
    func testASecondSyncOfTheStoreWaitsForTheFirstToEnd() throws {
        try addCollections()
        XCTAssertEqual(try run("tasks", "add", "Renew passport").status, 0)
        // Hold the lock as a sync that is running holds it.
        let lock = open(folder.appendingPathComponent(".pim.sqlite.sync-lock").path, O_RDWR | O_CREAT, 0o600)
        XCTAssertGreaterThanOrEqual(lock, 0)
        defer { close(lock) }
        XCTAssertEqual(flock(lock, LOCK_EX), 0)

        let output = folder.appendingPathComponent("waiting-sync.out"), errors = folder.appendingPathComponent("waiting-sync.err")
        for file in [output, errors] { XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil)) }
        let process = Process()
        process.executableURL = pimURL
        process.arguments = ["sync", "--store", store.path]
        var environment = testEnvironment()
        environment["PIM_RECORDS"] = "off"
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let waiter = " -> FLOCK  ADVISORY  WRITE \(process.processIdentifier) "
        var waiting = false
        while process.isRunning, !waiting {
            waiting = ((try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? "").contains(waiter)
            if !waiting { usleep(2_000) }
        }
        XCTAssertTrue(waiting, "the sync did not wait: \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        XCTAssertEqual(try server.resources(in: "/alice/calendar/"), [], "nothing is sent while the other sync runs")

        XCTAssertEqual(flock(lock, LOCK_UN), 0)
        process.waitUntilExit()
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("pim: waiting for another pim sync of \(store.path) to end"), stderr)
        XCTAssertEqual(try server.resources(in: "/alice/calendar/").count, 1)
    }
}
