// Review of "pim sync sends its PUTs and DELETEs four at a time" (5648d89), against a real Radicale
// server whose storage plugin (RadicaleServer, `writeSeconds`) writes slowly on purpose: a server
// that is slow but steady is waited for, one that stops answering ends the run.
import Foundation
import XCTest

final class SyncConcurrencyReviewTests: SyncTestCase {
    /// Replaces the shared setup's server with one made as `make` says, with the same collections.
    private func replaceServer(_ name: String, _ make: (URL) throws -> RadicaleServer) throws {
        server.stop()
        server = try make(folder.appendingPathComponent(name))
        try server.makeCalendar("/alice/calendar/", name: "Personal")
        try server.makeAddressBook("/alice/contacts/")
    }

    /// A slow but steady server, one that writes one resource at a time (as Radicale does: a PUT
    /// holds its storage's lock) and takes 3 seconds for each, within the 4 seconds `--timeout`
    /// gives a request here. On 5648d89 both PUTs were on their way at once and URLSession's
    /// timeoutIntervalForRequest ran from `resume()`, not from when the server took the request
    /// up: the second PUT waited in the server's queue, was answered after 6 s and had timed out
    /// (NSURLErrorDomain error -1001), so the run stopped with exit 10 and reported 1 sent,
    /// although the server stored both. (The review found it with 62-second writes and the
    /// 120-second default; `--timeout` came with the mend, to make the test quick.)
    func testASlowButSteadyServerDoesNotTimeOutTheRequestsWaitingBehindOthers() throws {
        try replaceServer("slow") { try RadicaleServer(folder: $0, writeSeconds: 3) }
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Grace Hopper").status, 0)
        let sync = try syncRun(on: nil, ["--timeout", "4"])
        XCTAssertEqual(sync.run.status, 0, sync.run.stderr)
        XCTAssertEqual(count(sync.reports[contactsURL], "sent"), 2)
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 2)
    }

    /// A server that takes a request and never answers stops the run once `--timeout` has gone
    /// by without an answer (exit 10, naming the request), and nothing is taken as sent.
    func testAServerThatStopsAnsweringEndsTheRunAfterTheTimeout() throws {
        // The server answers after 8 seconds: a run that waited for it would have sent the contact.
        try replaceServer("stalled") { try RadicaleServer(folder: $0, writeSeconds: 8) }
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace").status, 0)
        let sync = try syncRun(on: nil, ["--timeout", "2"])
        XCTAssertEqual(sync.run.status, 10, sync.run.stderr)
        XCTAssertTrue(sync.run.stderr.contains("PUT \(contactsURL)") && sync.run.stderr.contains("no answer within 2 seconds"), sync.run.stderr)
        let contact = try XCTUnwrap(try list("contacts").first)
        XCTAssertNil(contact["source"] as? String, "a contact whose PUT had no answer is not taken as sent")
    }
}
