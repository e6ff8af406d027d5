// `pim sync` sends its PUT and DELETE requests a few at once (the round trips to a distant server
// overlap), against a real Radicale server whose storage counts the writes in flight: what is
// sent arrives whole, and is what a second store reads back.
import Foundation
import XCTest

final class SyncConcurrencyTests: SyncTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        // The shared setup's server, replaced by one that counts the writes it has at once.
        server.stop()
        server = try RadicaleServer(folder: folder.appendingPathComponent("counting"), countsWrites: true)
        try server.makeCalendar("/alice/calendar/", name: "Personal")
        try server.makeAddressBook("/alice/contacts/")
    }

    func testPutsAndDeletesAreSentAFewAtOnceAndAllArrive() throws {
        try addCollections()
        for index in 1...9 {
            XCTAssertEqual(try run("contacts", "add", "Person \(index)", "--email", "p\(index)@example.org").status, 0)
        }
        let first = try syncRun(on: nil, [])
        XCTAssertEqual(first.run.status, 0, first.run.stderr)
        XCTAssertEqual(first.reports[contactsURL]?["sent"] as? Int, 9)
        XCTAssertGreaterThanOrEqual(try server.writesAtOnce()["PUT"] ?? 0, 2, "the PUTs were sent one at a time")
        XCTAssertLessThanOrEqual(try server.writesAtOnce()["PUT"] ?? 0, 4, "more than four requests at once")
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 9)
        // A parent is sent before its subtask, in a request of its own.
        XCTAssertEqual(try run("tasks", "add", "Plan trip").status, 0)
        XCTAssertEqual(try run("tasks", "add", "Book hotel", "--parent", "Plan trip").status, 0)
        XCTAssertEqual(try run("tasks", "add", "Pack").status, 0)
        let tasks = try syncRun(on: nil, [])
        XCTAssertEqual(tasks.run.status, 0, tasks.run.stderr)
        XCTAssertEqual(tasks.reports[calendarURL]?["sent"] as? Int, 3)

        // Another device reads every contact and the subtask's parent back.
        try addCollections(on: other)
        let second = try syncRun(on: other, [])
        XCTAssertEqual(second.run.status, 0, second.run.stderr)
        let names = try list("contacts", on: other).compactMap { $0["name"] as? String }.sorted()
        XCTAssertEqual(names, (1...9).map { "Person \($0)" }.sorted())
        let subtask = try XCTUnwrap(try list("tasks", on: other).first { $0["title"] as? String == "Book hotel" })
        XCTAssertEqual((subtask["parent"] as? [String: Any])?["name"] as? String, "Plan trip")

        // Deleting six here deletes them there, a few at once too.
        let deleted = try run(arguments: ["contacts", "delete", "--yes"] + (1...6).map { "Person \($0)" }, on: nil)
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        let third = try syncRun(on: nil, [])
        XCTAssertEqual(third.run.status, 0, third.run.stderr)
        XCTAssertEqual(third.reports[contactsURL]?["removed"] as? Int, 6)
        XCTAssertGreaterThanOrEqual(try server.writesAtOnce()["DELETE"] ?? 0, 2, "the DELETEs were sent one at a time")
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 3)
    }
}
