// A task's dependencies through a real CalDAV server (Radicale): sent as RFC 9253's
// RELATED-TO;RELTYPE=DEPENDS-ON, read by another device, and another client's relations of
// other types kept when pim sends the task again.
import Foundation
import XCTest

final class SyncTaskRelationsTests: SyncTestCase {
    private func sync(on storeURL: URL? = nil) throws -> [String: [String: Any]] {
        let (run, reports) = try syncRun(on: storeURL, [])
        XCTAssertEqual(run.status, 0, run.stderr)
        return reports
    }

    func testDependenciesReachAnotherDeviceAndAnotherClientsRelationsStay() throws {
        try addCollections()
        XCTAssertEqual(try run("tasks", "add", "Plan trip").status, 0)
        XCTAssertEqual(try run("tasks", "add", "Renew passport").status, 0)
        XCTAssertEqual(try run("tasks", "add", "Book hotel", "--depends-on", "1", "--depends-on", "2").status, 0)
        XCTAssertEqual(count(try sync()[calendarURL], "sent"), 3)
        let plan = try resource(titled: "Plan trip"), passport = try resource(titled: "Renew passport")
        func uid(_ text: String) -> String {
            text.components(separatedBy: "\r\n").first { $0.hasPrefix("UID:") }.map { String($0.dropFirst(4)) } ?? ""
        }
        let hotel = try resource(titled: "Book hotel")
        for dependency in [plan, passport] {
            XCTAssertTrue(hotel.text.contains("RELATED-TO;RELTYPE=DEPENDS-ON:\(uid(dependency.text))\r\n"), hotel.text)
        }

        // Another client relates the task to another one its own way.
        let theirs = hotel.text.replacingOccurrences(of: "END:VTODO", with: "RELATED-TO;RELTYPE=SIBLING:elsewhere-1\r\nEND:VTODO")
        XCTAssertEqual(try server.request("PUT", hotel.href, headers: ["Content-Type": "text/calendar"], body: theirs).status, 204)
        // Read here (its new tag kept), though nothing pim keeps of the task changed.
        XCTAssertEqual(count(try sync()[calendarURL], "sent"), 0)
        XCTAssertEqual(try dependencies(of: "Book hotel"), ["Plan trip", "Renew passport"], "the sibling is no dependency here")
        XCTAssertEqual(try run("tasks", "edit", "Book hotel", "--title", "Book the hotel").status, 0)
        let reports = try sync()
        XCTAssertEqual(count(reports[calendarURL], "sent"), 1, "\(reports)")
        let sent = try resource(titled: "Book the hotel").text
        XCTAssertTrue(sent.contains("RELATED-TO;RELTYPE=SIBLING:elsewhere-1\r\n"), "another client's relation stays:\n\(sent)")
        XCTAssertEqual(sent.components(separatedBy: "RELATED-TO;RELTYPE=DEPENDS-ON:").count - 1, 2, sent)

        try addCollections(on: other)
        XCTAssertEqual(count(try sync(on: other)[calendarURL], "added"), 3)
        XCTAssertEqual(try dependencies(of: "Book the hotel", on: other), ["Plan trip", "Renew passport"])
        let back = try sync(on: other)
        XCTAssertEqual(count(back[calendarURL], "sent"), 0, "what was read is not sent back: \(back)")
    }
}
