// pim reviewed as a daily user of Taskwarrior, khal and khard would use it, end to end on the
// built binary (PimRun.swift's helper: a temporary store, Wednesday 2026-11-25 10:30 in Berlin).
// Each test names the documented (or, where the man pages are silent, the conventional)
// behaviour it expects and what pim does instead; every one fails on the code it was written
// against.
import Foundation
import XCTest

final class PimUserReviewTests: PimTestCase {
    // MARK: Helpers

    /// The numbers `pim tasks list --all --where predicate` prints, or nil when it fails.
    func numbers(where predicate: String) throws -> (numbers: [Int]?, run: PimRun) {
        let run = try pim("tasks", "list", "--all", "--where", predicate, "--json", "--fields", "number")
        guard run.status == 0 || run.status == 1 else { return (nil, run) }
        let list = run.status == 1 ? [] : (try run.json() as? [[String: Any]] ?? [])
        return (list.compactMap { $0["number"] as? Int }.sorted(), run)
    }

    /// The titles of the task items of `pim events agenda --days days --json`, by day.
    func agendaTasks(days: Int) throws -> [String: [String]] {
        let run = try pim("events", "agenda", "--days", String(days), "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(run.json() as? [[String: Any]], run.stdout)
        var byDay: [String: [String]] = [:]
        for day in json {
            let titles = (day["items"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "task" }
                .compactMap { $0["title"] as? String }
            if !titles.isEmpty { byDay[day["date"] as? String ?? ""] = titles }
        }
        return byDay
    }

    // MARK: Titles

    /// pim(1) EXIT STATUS 2 is a usage error, and pim refuses a blank title or name everywhere
    /// else: `tasks add` and `contacts add` trim newlines too ("a task needs a title"), and
    /// `events edit --title $'\n'` says "title cannot be empty". `events add` trims only
    /// spaces and tabs, so `pim events add $'\n' --start tomorrow` adds an event whose title
    /// is a line break (exit 0), an agenda line with no title at all.
    func testAnEventTitledOnlyANewlineIsRefused() throws {
        let run = try pim("events", "add", "\n", "--start", "tomorrow")
        XCTAssertEqual(run.status, 2, "added: \(run.stdout)")
        XCTAssertEqual(try pim("events", "list").status, 1, "the refused add stored an event")
    }

    // MARK: --where arithmetic

    /// pim(1) --where: "arithmetic works on numbers and dates (seconds added to a date)", with
    /// 'due < $NOW + 86400' as the example. The same window backwards, what was due in the
    /// last two days (Taskwarrior's `due.after:now-2d`), is `due > $NOW - 172800`; pim refuses
    /// it with exit 2 ("the SQLite store cannot translate CAST(817291800.000000, \"NSDate\") -
    /// 172800: dates take only seconds added to them", naming $NOW by its internal number),
    /// though `$NOW + -172800` is accepted and means the same. `172800 + $NOW` (seconds added
    /// to a date, written the other way round) is refused the same way.
    func testWhereTakesSecondsSubtractedFromADate() throws {
        XCTAssertEqual(try pim("tasks", "add", "Yesterday", "--due", "yesterday 9am").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Last week", "--due", "-7d").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Tomorrow", "--due", "tomorrow 9am").status, 0)
        XCTAssertEqual(try numbers(where: "due > $NOW + -172800").numbers, [1, 3], "the accepted spelling")

        let minus = try numbers(where: "due > $NOW - 172800")
        XCTAssertEqual(minus.numbers, [1, 3], "exit \(minus.run.status): \(minus.run.stderr)")
        let swapped = try numbers(where: "due < 86400 + $NOW")
        XCTAssertEqual(swapped.numbers, [1, 2, 3], "exit \(swapped.run.status): \(swapped.run.stderr)")
    }

    /// pim(1) --where: "$NOW, $TODAY and $TOMORROW are bound, and arithmetic works on numbers and
    /// dates". The week ahead as Core Data writes a range, 'due BETWEEN {$NOW, $NOW + 604800}',
    /// is refused with exit 2: "the SQLite store cannot translate the collection
    /// {CAST(817291800.000000, \"NSDate\"), CAST(817291800.000000, \"NSDate\") + 604800}, whose
    /// elements are not all constants", though both bounds are known before the fetch (and
    /// 'due >= $NOW AND due <= $NOW + 604800' works).
    func testWhereTakesArithmeticInsideBetween() throws {
        XCTAssertEqual(try pim("tasks", "add", "Soon", "--due", "fri 17:00").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Later", "--due", "2026-12-24").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Past", "--due", "yesterday").status, 0)
        XCTAssertEqual(try numbers(where: "due >= $NOW AND due <= $NOW + 604800").numbers, [1])

        let between = try numbers(where: "due BETWEEN {$NOW, $NOW + 604800}")
        XCTAssertEqual(between.numbers, [1], "exit \(between.run.status): \(between.run.stderr)")
    }

    // MARK: Agenda

    /// `--wait` (pim tasks add --help): "Hide it from lists until then"; pim-tasks(1) list shows
    /// tasks "whose wait date has passed", and URGENCY counts "waiting" while the wait date is
    /// ahead (Taskwarrior hides waiting tasks from every report until then). The agenda lists
    /// "the open tasks due that day" without looking at the wait date: a task put off until
    /// 10 December shows on tomorrow's agenda, next to tasks that really are to do.
    func testAgendaLeavesOutTasksStillWaiting() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk", "--due", "tomorrow 9am").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Renew passport", "--due", "tomorrow", "--wait", "dec 10").status, 0)
        XCTAssertEqual(try pim("tasks", "list", "--fields", "title").stdout, "TITLE\nMilk\n", "the list hides the waiting task")

        XCTAssertEqual(try agendaTasks(days: 3), ["2026-11-26": ["Milk"]])
        let text = try pim("events", "agenda", "--days", "3")
        XCTAssertFalse(text.stdout.contains("Renew passport"), text.stdout)
    }

    /// pim-events(1) agenda: "the open tasks due that day beside them (overdue ones on the first
    /// day)". An overdue task is printed on today's heading with its clock time only, the same
    /// line a task due later today gets: "due 10:30  File taxes" under "Wed 2026-11-25" for a
    /// task due on Monday 2026-11-23 at 10:30. Without color (a pipe, NO_COLOR) nothing says it
    /// is overdue or which day it was due; the line should name that day.
    func testAgendaSaysWhenAnOverdueTaskWasDue() throws {
        XCTAssertEqual(try pim("tasks", "add", "File taxes", "--due", "2026-11-23T10:30").status, 0)
        let run = try pim("events", "agenda", "--days", "1")
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(run.stdout.split(separator: "\n").first { $0.contains("File taxes") }, run.stdout)
        XCTAssertTrue(line.contains("11-23") || line.lowercased().contains("overdue") || line.contains("Mon"),
                      "the overdue task reads as due today: \(line)")
    }

    // MARK: Time zones

    /// pim-events(1): "An all-day event lasts whole days", shown on its own days in any time zone
    /// (list prints the Berlin-made holiday as 2026-12-24 in Tokyo and New York, and so does the
    /// agenda); list "--from when keeps those not over by then, --to when those starting before
    /// then". A repeating all-day event is windowed by those days, but a one-off one by the
    /// instants of Berlin's midnights: in Tokyo `--from 2026-12-25 --to 2026-12-26` lists the
    /// holiday of the 24th, in New York the evening of the 24th leaves it out (while keeping the
    /// weekly event of the same day), though the agenda then shows both.
    func testListFromToTakesAllDayEventsByTheirDaysInAnotherZone() throws {
        XCTAssertEqual(try pim("events", "add", "Holiday", "--start", "2026-12-24").status, 0)
        XCTAssertEqual(try pim("events", "add", "Weekly", "--start", "2026-12-24", "--repeat", "weekly").status, 0)
        let tokyo = ["TZ": "Asia/Tokyo"], newYork = ["TZ": "America/New_York"]

        let christmas = try pim("events", "list", "--from", "2026-12-25", "--to", "2026-12-26", "--fields", "title,start,end", environment: tokyo)
        XCTAssertEqual(christmas.status, 1, "Tokyo, 25 December:\n\(christmas.stdout)")

        let evening = try pim("events", "list", "--from", "2026-12-24 19:00", "--to", "2026-12-24 20:00", "--fields", "title", environment: newYork)
        XCTAssertEqual(evening.stdout, "TITLE\nHoliday\nWeekly\n", "New York, evening of 24 December: \(evening.stderr)")
    }

    // MARK: Repeating events

    /// pim-events(1): skipped occurrences are those "a repeating event skips", kept as RFC 5545
    /// EXDATEs of its rule; `delete --occurrence` on "an event that does not repeat" is a usage
    /// error. `events edit --repeat ''` makes the event a one-off but keeps its skipped list
    /// (show --json: "skipped": ["2026-12-03T10:00:00+01:00"]), and when the user makes it weekly
    /// again that Thursday is silently missing from the agenda.
    func testClearingTheRepeatRuleDropsTheSkippedOccurrences() throws {
        XCTAssertEqual(try pim("events", "add", "Review", "--start", "2026-11-26 10:00", "--repeat", "weekly").status, 0)
        XCTAssertEqual(try pim("events", "delete", "Review", "--occurrence", "2026-12-03", "--yes").status, 0)
        XCTAssertEqual(try pim("events", "edit", "Review", "--repeat", "").status, 0)
        let shown = try XCTUnwrap(try pim("events", "show", "Review", "--json").json() as? [String: Any])
        XCTAssertTrue(shown["repeat"] is NSNull, "\(shown["repeat"] ?? "")")
        XCTAssertEqual((shown["skipped"] as? [Any])?.count, 0, "a one-off event still skips \(shown["skipped"] ?? "")")

        XCTAssertEqual(try pim("events", "edit", "Review", "--repeat", "weekly").status, 0)
        XCTAssertEqual(try agendaDays(of: "Review", days: 10), ["2026-11-26", "2026-12-03"])
    }
}
