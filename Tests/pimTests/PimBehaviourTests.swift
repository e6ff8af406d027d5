// pim against its man pages and --help: dates, recurrence, all-day events, editing, undo,
// urgency and failed commands, run end to end on the built binary (PimRun's helper).
import Foundation
import XCTest

final class PimBehaviourTests: PimTestCase {
    // MARK: Helpers

    /// The agenda of `days` days as (day, title) pairs, from `pim events agenda --json`.
    func agenda(days: Int, environment: [String: String] = [:]) throws -> [(day: String, title: String)] {
        let run = try pim("events", "agenda", "--days", String(days), "--json", environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(run.json() as? [[String: Any]])
        return json.flatMap { day in
            (day["items"] as? [[String: Any]] ?? []).map { (day["date"] as? String ?? "", $0["title"] as? String ?? "") }
        }
    }

    func days(of title: String, in agenda: [(day: String, title: String)]) -> [String] {
        agenda.filter { $0.title == title }.map(\.day)
    }

    func object(_ arguments: String...) throws -> [String: Any] {
        let process = try pim(arguments: arguments)
        XCTAssertEqual(process.status, 0, process.stderr)
        return try XCTUnwrap(process.json() as? [String: Any])
    }

    func pim(arguments: [String], environment: [String: String] = [:]) throws -> PimRun {
        // PimTestCase.pim is variadic; spell the few argument counts used here.
        switch arguments.count {
        case 3: return try pim(arguments[0], arguments[1], arguments[2], environment: environment)
        case 4: return try pim(arguments[0], arguments[1], arguments[2], arguments[3], environment: environment)
        case 5: return try pim(arguments[0], arguments[1], arguments[2], arguments[3], arguments[4], environment: environment)
        default: preconditionFailure("add a case for \(arguments.count) arguments")
        }
    }

    // MARK: contacts

    /// pim-contacts(1): `edit --name` sets "the full name", and the given and family names follow
    /// it as on `add` (they stayed Ann Lee, and search still found the old name).
    func testRenamingAContactRenamesItsNameParts() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee").status, 0)
        XCTAssertEqual(try pim("contacts", "edit", "ann", "--name", "Bob Ray").status, 0)
        let contact = try object("contacts", "show", "1", "--json")
        XCTAssertEqual(contact["givenName"] as? String, "Bob")
        XCTAssertEqual(contact["familyName"] as? String, "Ray")
        XCTAssertEqual(try pim("contacts", "search", "ann").status, 1, "a renamed contact is still found by its old name")
    }

    /// A birthday is a day: the same contact read in another time zone must keep its day.
    func testBirthdayKeepsItsDayInAnotherTimeZone() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--birthday", "1990-04-01").status, 0)
        let run = try pim("contacts", "show", "ann", "--json", environment: ["TZ": "America/New_York"])
        let contact = try XCTUnwrap(run.json() as? [String: Any])
        XCTAssertEqual(contact["birthday"] as? String, "1990-04-01")
    }

    // MARK: dates

    /// pim(1) DATES: month names are "the coming such day without a year"; the coming Feb 29 is 2028's.
    func testFebruary29WithoutAYearIsTheComingOne() throws {
        let run = try pim("tasks", "add", "Leap", "--due", "feb 29")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("due Tue 2028-02-29 00:00"), run.stdout)
    }

    /// An impossible clock time is a bad date (exit 2), not silently the next hour.
    func testImpossibleMinuteIsADateError() throws {
        let run = try pim("tasks", "add", "Call", "--due", "2026-11-25T10:60")
        XCTAssertEqual(run.status, 2, run.stdout)
        XCTAssertEqual(try pim("tasks", "list", "--all").status, 1, "the failed add stored a task")
    }

    /// pim(1) documents `-3d` as a date and pim(1)/--help `--sort` keys with "a leading - sorts
    /// descending": typed the documented way, as separate words, both are taken as values (they
    /// were refused as a missing value).
    func testLeadingDashValuesAsDocumented() throws {
        let due = try pim("tasks", "add", "Call", "--due", "-3d")
        XCTAssertEqual(due.status, 0, due.stderr)
        XCTAssertTrue(due.stdout.contains("due Sun 2026-11-22 10:30"), due.stdout)
        XCTAssertEqual(try pim("tasks", "add", "Zebra").status, 0)
        let sorted = try pim("tasks", "list", "--sort", "-title", "--fields", "title")
        XCTAssertEqual(sorted.status, 0, sorted.stderr)
        XCTAssertEqual(sorted.stdout, "TITLE\nZebra\nCall\n")
    }

    // MARK: all-day events and recurrence

    /// An all-day event whose last day comes before its first is refused (the end day made
    /// exclusive equals the start, which passed a check for end >= start).
    func testAllDayEndBeforeStartIsRefused() throws {
        let run = try pim("events", "add", "Trip", "--start", "2026-11-27", "--end", "2026-11-26")
        XCTAssertEqual(run.status, 2, run.stdout)
        XCTAssertEqual(try pim("events", "list").status, 1, "the failed add stored an event")
    }

    func testEditingAllDayEndBeforeStartIsRefused() throws {
        XCTAssertEqual(try pim("events", "add", "Trip", "--start", "2026-12-02", "--end", "2026-12-03").status, 0)
        let run = try pim("events", "edit", "1", "--end", "2026-12-01")
        XCTAssertEqual(run.status, 2, run.stdout)
        XCTAssertEqual(try pim("events", "list", "--fields", "start,end").stdout, "START       END\n2026-12-02  2026-12-03\n")
    }

    /// `edit` echoes the resolved dates; for an all-day event, the last day as typed and listed,
    /// not the stored exclusive end (the day after), as `add` does.
    func testEditEchoesTheAllDayEndAsTyped() throws {
        XCTAssertEqual(try pim("events", "add", "Trip", "--start", "2026-12-02", "--end", "2026-12-03").status, 0)
        let run = try pim("events", "edit", "1", "--end", "2026-12-05")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try pim("events", "list", "--fields", "end").stdout, "END\n2026-12-05\n")
        XCTAssertTrue(run.stdout.contains("end Sat 2026-12-05"), run.stdout)
    }

    /// Moving a one-day all-day event onto the spring DST day keeps it one day (a fixed 24 hours
    /// ended it at 01:00 the next day).
    func testMovingAnAllDayEventOntoTheDSTDayKeepsItOneDay() throws {
        XCTAssertEqual(try pim("events", "add", "Trip", "--start", "2026-11-25").status, 0)
        XCTAssertEqual(try pim("events", "edit", "1", "--start", "2027-03-28").status, 0)
        let event = try object("events", "show", "1", "--json")
        XCTAssertEqual(event["start"] as? String, "2027-03-28")
        XCTAssertEqual(event["end"] as? String, "2027-03-28")
        XCTAssertEqual(days(of: "Trip", in: try agenda(days: 3, environment: ["PIM_NOW": "2027-03-28T08:00:00"])), ["2027-03-28"])
    }

    /// A weekly all-day event's occurrence on the 23-hour DST Sunday shows on that day alone.
    func testRepeatingAllDayEventOnTheDSTDayShowsOnOneDay() throws {
        let now = ["PIM_NOW": "2027-03-20T10:00:00"]
        XCTAssertEqual(try pim("events", "add", "Hike", "--start", "2027-03-21", "--repeat", "weekly", environment: now).status, 0)
        XCTAssertEqual(days(of: "Hike", in: try agenda(days: 10, environment: now)), ["2027-03-21", "2027-03-28"])
    }

    /// RRULE UNTIL as a date ends on that day in the event's time zone; read as the end of that
    /// day in UTC, an all-day event in Berlin repeated one day too many...
    func testDateOnlyUntilEndsAllDayEventsOnThatDay() throws {
        XCTAssertEqual(try pim("events", "add", "Trip", "--start", "2026-11-25", "--repeat", "FREQ=DAILY;UNTIL=20261126").status, 0)
        XCTAssertEqual(days(of: "Trip", in: try agenda(days: 4)), ["2026-11-25", "2026-11-26"])
    }

    /// ...and an evening event west of UTC lost its last day.
    func testDateOnlyUntilKeepsTheLastLocalDayWestOfUTC() throws {
        let newYork = ["TZ": "America/New_York"]
        XCTAssertEqual(try pim("events", "add", "Call", "--start", "2026-11-25 20:00", "--repeat", "FREQ=DAILY;UNTIL=20261126", environment: newYork).status, 0)
        XCTAssertEqual(days(of: "Call", in: try agenda(days: 4, environment: newYork)), ["2026-11-25", "2026-11-26"])
    }

    // MARK: tasks

    /// A task cannot be its own subtask: `edit --parent` with the task itself is refused (it was
    /// accepted, and `show` listed it as its own parent and subtask).
    func testATaskCannotBeItsOwnParent() throws {
        XCTAssertEqual(try pim("tasks", "add", "Plan").status, 0)
        let run = try pim("tasks", "edit", "1", "--parent", "1")
        XCTAssertNotEqual(run.status, 0, run.stdout)
        XCTAssertTrue(try object("tasks", "show", "1", "--json")["parent"] is NSNull)
    }

    // MARK: Documented behaviour that holds

    func testRecurrenceMonthEndsLeapDaysAndCounts() throws {
        XCTAssertEqual(try pim("events", "add", "Pay", "--start", "2026-11-30", "--repeat", "FREQ=MONTHLY;BYMONTHDAY=-1").status, 0)
        XCTAssertEqual(try pim("events", "add", "Leap", "--start", "2024-02-29", "--repeat", "yearly").status, 0)
        XCTAssertEqual(try pim("events", "add", "Rent", "--start", "2026-10-31 8:00", "--repeat", "monthly").status, 0)
        XCTAssertEqual(try pim("events", "add", "Drinks", "--start", "2026-11-27 18:00", "--repeat", "FREQ=MONTHLY;BYDAY=-1FR;COUNT=3").status, 0)
        let items = try agenda(days: 500, environment: ["PIM_NOW": "2026-11-25T00:00:00"])
        XCTAssertEqual(days(of: "Pay", in: items).prefix(4), ["2026-11-30", "2026-12-31", "2027-01-31", "2027-02-28"])
        XCTAssertEqual(days(of: "Leap", in: items), ["2028-02-29"])
        XCTAssertEqual(days(of: "Rent", in: items).prefix(4), ["2026-12-31", "2027-01-31", "2027-03-31", "2027-05-31"])
        XCTAssertEqual(days(of: "Drinks", in: items), ["2026-11-27", "2026-12-25", "2027-01-29"])
    }

    func testRepeatingEventKeepsItsClockTimeAcrossDST() throws {
        let now = ["PIM_NOW": "2027-03-27T08:00:00"]
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "2027-03-27 9:15", "--duration", "15m", "--repeat", "daily", environment: now).status, 0)
        let run = try pim("events", "agenda", "--days", "2", "--json", environment: now)
        let json = try XCTUnwrap(run.json() as? [[String: Any]])
        let starts = json.compactMap { ($0["items"] as? [[String: Any]])?.first?["start"] as? String }
        XCTAssertEqual(starts, ["2027-03-27T09:15:00+01:00", "2027-03-28T09:15:00+02:00"])
    }

    func testUrgencyFollowsTheDocumentedFormula() throws {
        XCTAssertEqual(try pim("tasks", "add", "A", "--priority", "H", "--tag", "a", "--tag", "b", "--project", "p").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "B", "--depends-on", "1", "--scheduled", "yesterday").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "C", "--tag", "next", "--due", "in 20 days", "--priority", "L").status, 0)
        XCTAssertEqual(try pim("tasks", "start", "3").status, 0)
        let tasks = try XCTUnwrap(try pim("tasks", "list", "--json", "--fields", "title,urgency").json() as? [[String: Any]])
        // A: 6 high + 8 blocking + 0.9 two tags + 1 project; C: 15 next + 2.4 due + 1.8 low + 4 started + 0.8 tag;
        // B: 5 scheduled - 5 blocked.
        XCTAssertEqual(tasks.map { $0["title"] as? String }, ["C", "A", "B"])
        XCTAssertEqual(tasks.map { $0["urgency"] as? Double }, [24.0, 15.9, 0.0])
    }

    func testUndoOfAContactDeleteRestoresEveryLink() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--email", "work:ann@example.org", "--phone", "123").status, 0)
        XCTAssertEqual(try pim("contacts", "group", "add", "Family", "ann").status, 0)
        XCTAssertEqual(try pim("events", "add", "Review", "--start", "fri 10:00", "--attendee", "ann").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Slides", "--assignee", "ann", "--for-event", "review").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Sub", "--parent", "1").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "After", "--depends-on", "2").status, 0)
        func snapshot() throws -> [String] {
            try [["contacts", "list"], ["events", "list"], ["tasks", "list"], ["contacts", "group", "list"]].map { command in
                try pim(arguments: command + ["--json"]).stdout
            }
        }
        let before = try snapshot()
        XCTAssertEqual(try pim("contacts", "delete", "ann", "--yes").status, 0)
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try snapshot(), before)
        XCTAssertEqual(try pim("tasks", "delete", "1", "--yes").status, 0)
        XCTAssertEqual(try pim("tasks", "list", "--fields", "title").stdout, "TITLE\nAfter\n")
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try snapshot(), before)
    }

    func testUndoRedoExitCodesAndANewChangeDropsRedo() throws {
        XCTAssertEqual(try pim("tasks", "add", "A").status, 0)
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "B").status, 0)
        let redo = try pim("redo")
        XCTAssertEqual(redo.status, 1)
        XCTAssertTrue(redo.stderr.contains("nothing to redo"), redo.stderr)
        XCTAssertEqual(try pim("tasks", "start", "1").status, 0)
        XCTAssertEqual(try pim("undo").status, 0)
        let task = try object("tasks", "show", "1", "--json")
        XCTAssertEqual(task["status"] as? String, "pending")
        XCTAssertTrue(task["started"] is NSNull)
    }

    func testFailedCommandsExitAsDocumentedAndChangeNothing() throws {
        XCTAssertEqual(try pim("tasks", "add", "A").status, 0)
        let before = try pim("tasks", "list", "--all", "--json").stdout
        XCTAssertEqual(try pim("tasks", "add", "B", "--assignee", "nobody").status, 3)
        XCTAssertEqual(try pim("tasks", "done", "1", "99").status, 3)
        XCTAssertEqual(try pim("tasks", "edit", "1", "--title", "New", "--due", "someday").status, 2)
        XCTAssertEqual(try pim("tasks", "list", "--status", "Done").status, 2)
        XCTAssertEqual(try pim("events", "add", "E", "--start", "fri 9am", "--repeat", "FREQ=HOURLY").status, 2)
        XCTAssertEqual(try pim("contacts", "add", "X", "--phone", "mobile:").status, 2)
        XCTAssertEqual(try pim("tasks", "list", "--all", "--json").stdout, before)
        XCTAssertEqual(try pim("events", "list").status, 1)
        XCTAssertEqual(try pim("contacts", "list").status, 1)
    }

    func testDocumentedDatePhrases() throws {
        let expected = [
            ("tomorrow at 5pm", "Thu 2026-11-26 17:00"), ("fri 9am", "Fri 2026-11-27 09:00"), ("wed", "Wed 2026-12-02 00:00"),
            ("next friday", "Fri 2026-12-04 00:00"), ("eow", "Sun 2026-11-29 23:59"), ("sow", "Mon 2026-11-30 00:00"),
            ("socm", "Sun 2026-11-01 00:00"), ("24 dec 2027", "Fri 2027-12-24 00:00"), ("nov 24", "Wed 2027-11-24 00:00"),
            ("3 days ago", "Sun 2026-11-22 10:30"), ("2026-12-01T17:00Z", "Tue 2026-12-01 18:00"),
        ]
        for (text, echo) in expected {
            let run = try pim("tasks", "add", "T", "--due", text)
            XCTAssertEqual(run.status, 0, "\(text): \(run.stderr)")
            XCTAssertTrue(run.stdout.contains("due \(echo)"), "\(text): \(run.stdout)")
        }
    }

    /// A list loads the relationships its columns read (tags, dependencies, emails, phones...)
    /// together with the records: the statements it runs do not grow with the records listed.
    func testListsRunAsManyStatementsForManyRecordsAsForFew() throws {
        func statements(_ arguments: String...) throws -> Int {
            var run = PimRun(status: 0, stdout: "", stderr: "")
            switch arguments.count {
            case 2: run = try pim(arguments[0], arguments[1], environment: ["OBJECTGRAPH_SQL_DEBUG": "1"])
            default: run = try pim(arguments[0], arguments[1], arguments[2], environment: ["OBJECTGRAPH_SQL_DEBUG": "1"])
            }
            XCTAssertEqual(run.status, 0, run.stderr)
            return run.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("objectgraph SQL (") }.count
        }
        func addRecords(_ range: Range<Int>) throws {
            for n in range {
                try pim("tasks", "add", "Task \(n)", "--tag", "t\(n % 3)", "--tag", "all")
                if n > 0 { try pim("tasks", "add", "Follow-up \(n)", "--depends-on", "Task \(n)") }
                try pim("contacts", "add", "Person \(n)", "--email", "p\(n)@example.org", "--phone", "mobile:+1 555 010\(n)")
            }
        }
        try addRecords(0..<2)
        let few = [try statements("tasks", "list"), try statements("tasks", "list", "--json"),
                   try statements("contacts", "list"), try statements("contacts", "list", "--json")]
        try addRecords(2..<7)
        let many = [try statements("tasks", "list"), try statements("tasks", "list", "--json"),
                    try statements("contacts", "list"), try statements("contacts", "list", "--json")]
        XCTAssertEqual(many, few)
        let listed = try pim("tasks", "list", "--json").json() as? [Any]
        XCTAssertEqual(listed?.count, 13)
    }
}
