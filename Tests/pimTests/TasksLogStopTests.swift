// `pim tasks log` (a task done already, Taskwarrior's log) and `pim tasks stop` (a started task
// pending again, its start cleared), end to end on the built binary, with undo and iCalendar.
import Foundation
import XCTest

final class TasksLogStopTests: PimTestCase {
    private func task(_ reference: String) throws -> [String: Any] {
        let shown = try pim("tasks", "show", reference, "--json")
        XCTAssertEqual(shown.status, 0, shown.stderr)
        return try XCTUnwrap(shown.json() as? [String: Any])
    }

    func testLogAddsADoneTaskThatNoOpenListShows() throws {
        let logged = try pim("tasks", "log", "Paid", "the", "invoice", "--project", "home", "--tag", "bills", "--due", "2026-11-24")
        XCTAssertEqual(logged.status, 0, logged.stderr)
        XCTAssertEqual(logged.stdout.split(separator: "\n").map(String.init).dropFirst(),
                       ["  due Tue 2026-11-24 00:00", "  done Wed 2026-11-25 10:30"])
        XCTAssertTrue(logged.stdout.hasPrefix("Logged task 1 ("), logged.stdout)
        let paid = try task("1")
        XCTAssertEqual(paid["status"] as? String, "done")
        XCTAssertEqual(paid["completed"] as? String, "2026-11-25T10:30:00+01:00")
        XCTAssertEqual(paid["project"] as? String, "home")
        XCTAssertEqual(try pim("tasks", "list").status, 1, "no open task")
        let export = try pim("tasks", "export", "1")
        XCTAssertTrue(export.stdout.contains("STATUS:COMPLETED\r\nCOMPLETED:20261125T093000Z\r\n"), export.stdout)

        let repeating = try pim("tasks", "log", "Water", "--due", "2026-11-24", "--repeat", "weekly")
        XCTAssertEqual(repeating.status, 2)
        XCTAssertTrue(repeating.stderr.contains("--repeat: a logged task is done"), repeating.stderr)
        XCTAssertEqual(try pim("tasks", "log").status, 2, "a title is needed")
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try pim("tasks", "show", "1").status, 3, "undo takes the logged task back")
    }

    func testStopMakesAStartedTaskPendingAndLeavesOthers() throws {
        XCTAssertEqual(try pim("tasks", "add", "Fix the roof").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Call Bob").status, 0)
        XCTAssertEqual(try pim("tasks", "start", "1").status, 0)
        XCTAssertNotNil(try task("1")["started"] as? String)

        let stopped = try pim("tasks", "stop", "1", "2")
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        XCTAssertTrue(stopped.stdout.hasPrefix("Stopped task 1 ("), stopped.stdout)
        XCTAssertFalse(stopped.stdout.contains("Call Bob"), stopped.stdout)
        XCTAssertTrue(stopped.stderr.contains("pim: task 2 (Call Bob) is not started"), stopped.stderr)
        let roof = try task("1")
        XCTAssertEqual(roof["status"] as? String, "pending")
        XCTAssertTrue(roof["started"] is NSNull, "\(roof)")
        XCTAssertTrue(try pim("tasks", "export", "1").stdout.contains("STATUS:NEEDS-ACTION\r\n"))

        let none = try pim("tasks", "stop", "2")
        XCTAssertEqual(none.status, 1, none.stderr)
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try task("1")["status"] as? String, "started", "undo starts it again")
    }
}
