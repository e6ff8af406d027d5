// Repeating tasks end to end (pim-tasks(1) `--repeat`, Taskwarrior's recurring tasks): completing
// one adds the next occurrence, like it, due at the rule's next date; COUNT counts down; undo takes
// both back; a rule needs a due date. Run on the built binary (PimRun.swift's helper: Wednesday
// 2026-11-25 10:30 in Berlin).
import Foundation
import XCTest

final class TasksRepeatTests: PimTestCase {
    /// The tasks of `statuses`, as `tasks list --json` gives them, by number.
    private func tasks(_ statuses: String...) throws -> [[String: Any]] {
        let run = try pim(arguments: ["tasks", "list", "--json"] + statuses.flatMap { ["--status", $0] })
        XCTAssertEqual(run.status, 0, run.stderr)
        let objects = try XCTUnwrap(run.json() as? [[String: Any]])
        return objects.sorted { ($0["number"] as? Int ?? 0) < ($1["number"] as? Int ?? 0) }
    }

    /// Completing a weekly task adds the next one, a week later, with its title, project, tags,
    /// priority, notes and rule; its wait date moves with it. The done one stays done.
    func testCompletingAWeeklyTaskAddsTheNextWeeksTask() throws {
        let add = try pim("tasks", "add", "Water plants", "--due", "2026-11-27 18:00", "--wait", "2026-11-26 08:00",
                          "--repeat", "weekly", "--project", "garden", "--tag", "home", "--priority", "H", "--notes", "the ferns too")
        XCTAssertEqual(add.status, 0, add.stderr)
        let done = try pim("tasks", "done", "1")
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertTrue(done.stdout.contains("Completed task 1"), done.stdout)
        XCTAssertTrue(done.stdout.contains("Added task 2") && done.stdout.contains("due Fri 2026-12-04 18:00"), done.stdout)
        let all = try tasks("pending", "done")
        XCTAssertEqual(all.map { $0["status"] as? String }, ["done", "pending"])
        let next = all[1]
        XCTAssertEqual(next["title"] as? String, "Water plants")
        XCTAssertEqual(next["project"] as? String, "garden")
        XCTAssertEqual(next["tags"] as? [String], ["home"])
        XCTAssertEqual(next["priority"] as? String, "H")
        XCTAssertEqual(next["notes"] as? String, "the ferns too")
        XCTAssertEqual(next["repeat"] as? String, "FREQ=WEEKLY")
        XCTAssertTrue((next["due"] as? String)?.hasPrefix("2026-12-04T18:00:00") == true, "\(next["due"] ?? "nil")")
        XCTAssertTrue((next["wait"] as? String)?.hasPrefix("2026-12-03T08:00:00") == true, "\(next["wait"] ?? "nil")")
        // Done again, it adds nothing: only becoming done does.
        XCTAssertEqual(try pim("tasks", "done", "1").status, 0)
        XCTAssertEqual(try tasks("pending", "done").count, 2)
    }

    /// An RRULE with COUNT=2: the first completion adds the second and last occurrence (the
    /// series keeps its rule and first date, so COUNT counts from the first task), whose
    /// completion adds none. `pim undo` takes a completion back with the task
    /// it added.
    func testACountedRuleEndsAndUndoTakesBackTheAddedTask() throws {
        XCTAssertEqual(try pim("tasks", "add", "Pay rent", "--due", "2026-12-01", "--repeat", "FREQ=MONTHLY;COUNT=2").status, 0)
        XCTAssertEqual(try pim("tasks", "done", "1").status, 0)
        var all = try tasks("pending", "done")
        XCTAssertEqual(all.count, 2)
        XCTAssertEqual(all[1]["repeat"] as? String, "FREQ=MONTHLY;COUNT=2")
        XCTAssertNil(all[0]["repeat"] as? String, "the done task hands its rule on")
        XCTAssertTrue((all[1]["due"] as? String)?.hasPrefix("2027-01-01") == true, "\(all[1]["due"] ?? "nil")")
        let last = try pim("tasks", "done", "2")
        XCTAssertEqual(last.status, 0, last.stderr)
        XCTAssertFalse(last.stdout.contains("Added"), last.stdout)
        XCTAssertEqual(try tasks("pending", "done").count, 2)
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try pim("undo").status, 0)
        all = try tasks("pending", "done")
        XCTAssertEqual(all.map { $0["status"] as? String }, ["pending"], "undoing the first completion removes the task it added")
    }

    /// A rule needs a due date: on add and on edit it is a usage error (exit 2) naming the
    /// option; `edit --repeat ''` stops the repeating, and completing then adds nothing.
    func testARuleNeedsADueDateAndEditSetsAndClearsIt() throws {
        let refused = try pim("tasks", "add", "Stretch", "--repeat", "daily")
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("repeat") && refused.stderr.contains("due"), refused.stderr)
        XCTAssertEqual(try pim("tasks", "add", "Stretch").status, 0)
        let noDue = try pim("tasks", "edit", "1", "--repeat", "daily")
        XCTAssertEqual(noDue.status, 2, noDue.stdout)
        XCTAssertEqual(try pim("tasks", "edit", "1", "--due", "tomorrow 07:00", "--repeat", "weekdays").status, 0)
        XCTAssertEqual(try tasks("pending").first?["repeat"] as? String, "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
        XCTAssertEqual(try pim("tasks", "edit", "1", "--repeat", "").status, 0)
        XCTAssertNil(try tasks("pending").first?["repeat"] as? String)
        XCTAssertEqual(try pim("tasks", "done", "1").status, 0)
        XCTAssertEqual(try tasks("pending", "done").count, 1)
        let bad = try pim("tasks", "add", "Odd", "--due", "tomorrow", "--repeat", "FREQ=HOURLY")
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("FREQ"), bad.stderr)
    }
}
