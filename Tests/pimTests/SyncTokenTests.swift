// `pim sync` listing a collection through sync tokens (RFC 6578) against a real Radicale, which
// logs every request it receives: an unchanged collection costs one small REPORT and no
// PROPFIND; changes another client makes are found through the token; a token the server has
// forgotten lists the collection whole again, with nothing lost or read twice.
import Foundation
import XCTest

final class SyncTokenTests: SyncTestCase {
    override class var logsRequests: Bool { true }

    /// `pim sync --json` on the first store, exiting `status`: each collection's report by URL.
    private func sync(_ extra: String..., status: Int32 = 0) throws -> [String: [String: Any]] {
        let done = try syncRun(on: nil, extra)
        XCTAssertEqual(done.run.status, status, done.run.stderr)
        XCTAssertFalse(done.reports.isEmpty, done.run.stdout + done.run.stderr)
        return done.reports
    }

    /// The number of each method's requests the server has received.
    private func requests() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for method in ["PROPFIND", "REPORT", "PUT", "DELETE", "GET"] { counts[method] = try server.requestCount(method) }
        return counts
    }

    /// What `before` to `after` added, by method (methods with none left out).
    private func difference(_ before: [String: Int], _ after: [String: Int]) -> [String: Int] {
        after.reduce(into: [:]) { result, entry in
            let added = entry.value - (before[entry.key] ?? 0)
            if added != 0 { result[entry.key] = added }
        }
    }

    /// An iCalendar event with `uid` and `summary`.
    private func event(_ uid: String, _ summary: String) -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Other client//EN\r
        BEGIN:VEVENT\r
        UID:\(uid)\r
        DTSTAMP:20261125T090000Z\r
        DTSTART:20261210T090000Z\r
        DTEND:20261210T100000Z\r
        SUMMARY:\(summary)\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    /// Adds the collections and two events (Dentist, Standup), then syncs twice: the server has
    /// both, and the collection's token is past pim's own PUTs.
    private func syncTwoEvents() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-12-03 10:00", "--calendar", "personal").status, 0)
        XCTAssertEqual(try run("events", "add", "Standup", "--start", "2026-12-04 09:00", "--calendar", "personal").status, 0)
        _ = try sync()
        _ = try sync()
    }

    private func put(_ href: String, _ text: String) throws {
        let answer = try server.request("PUT", href, headers: ["Content-Type": "text/calendar; charset=utf-8"], body: text)
        XCTAssertTrue((200..<300).contains(answer.status), "PUT \(href): \(answer.status) \(answer.body)")
    }

    func testAnUnchangedCollectionCostsOneReportAndNoListing() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-12-03 10:00", "--calendar", "personal").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace", "--email", "ada@example.com").status, 0)

        let first = try sync()
        XCTAssertEqual(first[calendarURL]?["listing"] as? String, "whole", "the first run has no token: every resource is listed")
        XCTAssertEqual(count(first[calendarURL], "sent"), 1)
        XCTAssertEqual(count(first[contactsURL], "sent"), 1)
        let listed = try XCTUnwrap(try run("sync", "list", "--json").json() as? [[String: Any]])
        XCTAssertTrue(listed.allSatisfy { ($0["syncToken"] as? String)?.isEmpty == false }, "\(listed)")

        // The second run's changes are the first run's own PUTs, already known by their tags.
        let second = try sync()
        XCTAssertEqual(second[calendarURL]?["listing"] as? String, "changes")
        XCTAssertEqual(count(second[calendarURL], "listedChanges"), 1)
        XCTAssertEqual(count(second[contactsURL], "listedChanges"), 1)
        for report in second.values {
            XCTAssertEqual(["added", "updated", "deleted", "sent", "removed"].map { count(report, $0) }, [0, 0, 0, 0, 0], "\(report)")
        }

        let before = try requests()
        let third = try sync()
        XCTAssertEqual(difference(before, try requests()), ["REPORT": 2], "one sync-collection report per collection, nothing else")
        XCTAssertEqual(count(third[calendarURL], "listedChanges"), 0)
        XCTAssertEqual(count(third[contactsURL], "listedChanges"), 0)
        XCTAssertEqual(try titles("events"), ["Dentist"])
        XCTAssertEqual(try titles("contacts"), ["Ada Lovelace"])
    }

    func testWhatAnotherClientChangedIsFoundThroughTheToken() throws {
        try syncTwoEvents()
        let hrefs = try server.resources(in: "/alice/calendar/")
        XCTAssertEqual(hrefs.count, 2)
        let texts = try hrefs.map { try server.text(of: $0) }
        let dentist = try XCTUnwrap(zip(hrefs, texts).first { $0.1.contains("SUMMARY:Dentist") }?.0)
        let standup = try XCTUnwrap(zip(hrefs, texts).first { $0.1.contains("SUMMARY:Standup") }?.0)

        // Another client adds one event, renames one and deletes the other.
        try put("/alice/calendar/lunch.ics", event("lunch-1", "Lunch"))
        let renamed = try server.text(of: dentist).replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)")
        try put(dentist, renamed)
        XCTAssertEqual(try server.request("DELETE", standup).status, 200)

        let before = try requests()
        let found = try sync()
        XCTAssertEqual(found[calendarURL]?["listing"] as? String, "changes")
        XCTAssertEqual(count(found[calendarURL], "listedChanges"), 3)
        XCTAssertEqual(count(found[calendarURL], "added"), 1)
        XCTAssertEqual(count(found[calendarURL], "updated"), 1)
        XCTAssertEqual(count(found[calendarURL], "deleted"), 1)
        XCTAssertEqual(count(found[calendarURL], "sent"), 0)
        let made = difference(before, try requests())
        XCTAssertNil(made["PROPFIND"], "\(made)")
        XCTAssertEqual(made["REPORT"], 3, "a sync-collection report per collection and one multiget of the two changed events: \(made)")
        XCTAssertEqual(try titles("events"), ["Dentist (moved)", "Lunch"])

        // What pim changes next is sent against the tag the token's listing gave.
        XCTAssertEqual(try run("events", "edit", "Lunch", "--location", "Canteen").status, 0)
        let sent = try sync()
        XCTAssertEqual(count(sent[calendarURL], "sent"), 1)
        XCTAssertEqual(sent[calendarURL]?["conflicts"] as? [String], [])
        XCTAssertTrue(try server.text(of: "/alice/calendar/lunch.ics").contains("LOCATION:Canteen"))
    }

    func testAForgottenTokenListsTheCollectionWholeAndLosesNothing() throws {
        try syncTwoEvents()
        let standup = try XCTUnwrap(try server.resources(in: "/alice/calendar/").first { try server.text(of: $0).contains("SUMMARY:Standup") })

        // The server forgets every token it gave (its cache removed), while another client
        // adds one event and deletes another.
        let cache = folder.appendingPathComponent("radicale/collections/collection-root/alice/calendar/.Radicale.cache/sync-token")
        XCTAssertTrue(FileManager.default.fileExists(atPath: cache.path), "set-up: Radicale keeps its tokens at \(cache.path)")
        try FileManager.default.removeItem(at: cache)
        try put("/alice/calendar/lunch.ics", event("lunch-1", "Lunch"))
        XCTAssertEqual(try server.request("DELETE", standup).status, 200)

        let before = try requests()
        let again = try sync()
        XCTAssertEqual(again[calendarURL]?["listing"] as? String, "whole", "\(again)")
        XCTAssertEqual(count(again[calendarURL], "added"), 1)
        XCTAssertEqual(count(again[calendarURL], "deleted"), 1)
        XCTAssertEqual(count(again[calendarURL], "updated"), 0, "the resources both sides still agree on are not read again")
        XCTAssertEqual(count(again[calendarURL], "sent"), 0)
        let made = difference(before, try requests())
        XCTAssertNil(made["PROPFIND"], "\(made)")
        XCTAssertEqual(made["REPORT"], 4, "the refused report, the report with no token, the address book's, one multiget: \(made)")
        XCTAssertEqual(try titles("events"), ["Dentist", "Lunch"])
        XCTAssertEqual(again[contactsURL]?["listing"] as? String, "changes", "the address book's token still holds")

        let after = try sync()
        XCTAssertEqual(after[calendarURL]?["listing"] as? String, "changes")
        XCTAssertEqual(count(after[calendarURL], "listedChanges"), 0)
    }
}

/// A server without sync tokens (Radicale with a storage that refuses sync-collection reports).
final class SyncWithoutTokensTests: SyncTestCase {
    override class var logsRequests: Bool { true }
    override class var serverKeepsSyncTokens: Bool { false }

    func testAServerThatRefusesTheReportIsListedWithPropfindFromThenOn() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-12-03 10:00", "--calendar", "personal").status, 0)
        let first = try syncRun(on: nil, [])
        XCTAssertEqual(first.run.status, 0, first.run.stderr)
        XCTAssertEqual(first.reports[calendarURL]?["listing"] as? String, "whole")
        XCTAssertEqual(count(first.reports[calendarURL], "sent"), 1)
        let listed = try XCTUnwrap(try run("sync", "list", "--json").json() as? [[String: Any]])
        XCTAssertTrue(listed.allSatisfy { $0["syncToken"] == nil && $0["syncTokensRefused"] as? Bool == true }, "\(listed)")

        // Another client adds an event; the next run lists with PROPFIND and asks for no token.
        let lunch = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//Other client//EN\r
            BEGIN:VEVENT\r
            UID:lunch-1\r
            DTSTAMP:20261125T090000Z\r
            DTSTART:20261210T120000Z\r
            SUMMARY:Lunch\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let put = try server.request("PUT", "/alice/calendar/lunch.ics", headers: ["Content-Type": "text/calendar"], body: lunch)
        XCTAssertEqual(put.status, 201, put.body)
        let reports = try server.requestCount("REPORT"), propfinds = try server.requestCount("PROPFIND")
        let second = try syncRun(on: nil, [])
        XCTAssertEqual(second.run.status, 0, second.run.stderr)
        XCTAssertEqual(second.reports[calendarURL]?["listing"] as? String, "whole")
        XCTAssertEqual(count(second.reports[calendarURL], "added"), 1)
        XCTAssertEqual(try server.requestCount("PROPFIND") - propfinds, 2, "one listing per collection")
        XCTAssertEqual(try server.requestCount("REPORT") - reports, 1, "only the multiget of the new event: no sync-collection report")
        XCTAssertEqual(try titles("events"), ["Dentist", "Lunch"])
    }
}
