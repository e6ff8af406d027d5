// Task annotations through a real Radicale server: one added here reaches another device as an
// annotation; a phone's COMMENT comes back as one; one removed here goes from the server; and a
// to-do synced by a pim that did not read comments keeps the server's when it is edited here
// first, and has them as annotations after the next sync.
import Foundation
import XCTest

final class SyncAnnotationsTests: SyncTestCase {
    private func annotations(of title: String, on storeURL: URL? = nil) throws -> [String] {
        let task = try XCTUnwrap(try list("tasks", on: storeURL).first { $0["title"] as? String == title }, "no \(title)")
        let shown = try run("tasks", "show", String(describing: task["number"] ?? ""), "--json", on: storeURL)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        return try XCTUnwrap((shown.json() as? [String: Any])?["annotations"] as? [[String: Any]]).compactMap { $0["description"] as? String }
    }

    private func serverComments(_ title: String) throws -> [String] {
        try resource(titled: title).text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
            .filter { $0.hasPrefix("COMMENT") }
    }

    func testAnnotationsGoBothWaysAndARemovedOneGoes() throws {
        try addCollections()
        XCTAssertEqual(try run("tasks", "add", "Fix the roof").status, 0)
        XCTAssertEqual(try run("tasks", "annotate", "1", "called Bob").status, 0)
        XCTAssertEqual(try syncRun(on: nil, []).run.status, 0)
        XCTAssertEqual(try serverComments("Fix the roof").count, 1)
        XCTAssertTrue(try serverComments("Fix the roof")[0].hasSuffix(":called Bob"))

        try addCollections(on: other)
        XCTAssertEqual(try syncRun(on: other, []).run.status, 0)
        XCTAssertEqual(try annotations(of: "Fix the roof", on: other), ["called Bob"])

        // A phone (jtx Board keeps a to-do's comments) adds one.
        let (href, text) = try resource(titled: "Fix the roof")
        XCTAssertEqual(try server.request("PUT", href, headers: ["Content-Type": "text/calendar"],
                                          body: text.replacingOccurrences(of: "END:VTODO", with: "COMMENT:Bob says Tuesday\r\nEND:VTODO")).status, 204)
        XCTAssertEqual(try syncRun(on: nil, []).run.status, 0)
        XCTAssertEqual(try annotations(of: "Fix the roof"), ["called Bob", "Bob says Tuesday"])

        XCTAssertEqual(try run("tasks", "denotate", "1", "called").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        XCTAssertEqual(try serverComments("Fix the roof"), ["COMMENT:Bob says Tuesday"], "the one removed here goes, once each")
        XCTAssertEqual(try syncRun(on: other, []).run.status, 0)
        XCTAssertEqual(try annotations(of: "Fix the roof", on: other), ["Bob says Tuesday"])
    }

    /// What an earlier pim left: a to-do whose server copy has comments pim never read, its
    /// resource remembered without `comments`. Edited here before the next sync, it reads them as
    /// annotations as it sends itself, so that pim's text says them all; from then on a comment
    /// removed here goes from the server. (First version: it kept them beside its own unread and
    /// read them at the sync after, and a second change here before that sync duplicated them.)
    func testCommentsAnEarlierPimDidNotReadAreReadWhenTheToDoIsSent() throws {
        try addCollections()
        let todo = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Phone//EN", "BEGIN:VTODO", "UID:roof-1", "DTSTAMP:20261120T080000Z",
            "SUMMARY:Fix the roof", "COMMENT;LANGUAGE=en:Ask about slate", "END:VTODO", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        XCTAssertEqual(try server.request("PUT", "/alice/calendar/roof-1.ics", headers: ["Content-Type": "text/calendar"], body: todo).status, 201)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "added"), 1)
        let forget = try run("/usr/bin/sqlite3", [store.path, """
            UPDATE ZTASK SET ZANNOTATIONS = NULL;
            UPDATE ZSYNCCOLLECTION SET ZRESOURCES = CAST(json_remove(CAST(ZRESOURCES AS TEXT), '$."\\/alice\\/calendar\\/roof-1.ics".comments') AS BLOB)
                WHERE ZRESOURCES IS NOT NULL;
            """], environment: [:])
        XCTAssertEqual(forget.status, 0, forget.stderr)
        XCTAssertEqual(try annotations(of: "Fix the roof"), [], "set-up: the comment not read here")

        XCTAssertEqual(try run("tasks", "annotate", "Fix the roof", "slate ordered").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        XCTAssertEqual(try annotations(of: "Fix the roof"), ["slate ordered", "Ask about slate"], "the server's comment is one here")
        let comments = try serverComments("Fix the roof")
        XCTAssertEqual(comments.count, 2, "each once: \(comments)")
        XCTAssertTrue(comments.contains("COMMENT;LANGUAGE=en:Ask about slate"), "as the phone wrote it: \(comments)")

        XCTAssertEqual(try run("tasks", "annotate", "Fix the roof", "roofer booked").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        XCTAssertEqual(try serverComments("Fix the roof").count, 3, "no comment twice after a second change")
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "updated"), 0)
        XCTAssertEqual(try run("tasks", "denotate", "Fix the roof", "Ask").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        XCTAssertEqual(try serverComments("Fix the roof").count, 2, "now pim's to remove")
        XCTAssertFalse(try serverComments("Fix the roof").contains { $0.contains("Ask about slate") })
    }
}
