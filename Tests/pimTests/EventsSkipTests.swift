// `pim events delete N --occurrence WHEN` and `pim events edit N --skipped` end to end on the
// built binary (PimRun's helper, Wednesday 2026-11-25 10:30 in Berlin): skipping one occurrence of
// a repeating event keeps the event and leaves the occurrence out of the agenda; confirmation,
// the exit codes pim(1) lists, the skipped list in show, JSON and the editor, and undo.
import Foundation
import XCTest

final class EventsSkipTests: PimTestCase {
    /// The `skipped` field of `pim events show <id> --json`.
    func skipped(_ id: String) throws -> [String] {
        let run = try pim("events", "show", id, "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(run.json() as? [String: Any], run.stdout)
        return try XCTUnwrap(json["skipped"] as? [String], run.stdout)
    }

    /// Event 1: Gym, Monday, Wednesday and Friday at 18:00 from Friday 2026-11-27 (in an agenda
    /// of 8 days from Wednesday 2026-11-25: Friday, Monday, Wednesday).
    func addGym() throws {
        let run = try pim("events", "add", "Gym", "--start", "2026-11-27 18:00", "--repeat", "FREQ=WEEKLY;BYDAY=MO,WE,FR")
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    func testSkippingAnOccurrenceKeepsTheEventAndLeavesTheDayOut() throws {
        try addGym()
        XCTAssertEqual(try agendaDays(of: "Gym", days: 8), ["2026-11-27", "2026-11-30", "2026-12-02"])
        let run = try pim("events", "delete", "1", "--occurrence", "2026-11-30", "--yes")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("Edited event 1"), run.stdout)
        XCTAssertTrue(run.stdout.contains("skipped Mon 2026-11-30 18:00"), run.stdout)
        XCTAssertEqual(try agendaDays(of: "Gym", days: 8), ["2026-11-27", "2026-12-02"])
        XCTAssertEqual(try skipped("1"), ["2026-11-30T18:00:00+01:00"])
        XCTAssertEqual(try pim("events", "list").status, 0, "the event itself stays")
    }

    func testWithoutYesAndATerminalNothingIsSkipped() throws {
        try addGym()
        let run = try pim("events", "delete", "1", "--occurrence", "2026-11-30")
        XCTAssertEqual(run.status, 6, run.stderr)
        XCTAssertTrue(run.stderr.contains("not skipping 1 occurrence without --yes"), run.stderr)
        XCTAssertEqual(try skipped("1"), [])
        XCTAssertEqual(try agendaDays(of: "Gym", days: 8), ["2026-11-27", "2026-11-30", "2026-12-02"])
    }

    func testOccurrencesThatDoNotExistExitWithStatus3AndSkipNothing() throws {
        try addGym()
        // Tuesday has none; 17:00 on Monday is not when it starts; the second of two is refused
        // with the first, which is not skipped either (one save).
        let runs = [try pim("events", "delete", "1", "--yes", "--occurrence", "2026-12-01"),
                    try pim("events", "delete", "1", "--yes", "--occurrence", "2026-11-30 17:00"),
                    try pim("events", "delete", "1", "--yes", "--occurrence", "2026-12-02", "--occurrence", "2026-12-03")]
        for run in runs {
            XCTAssertEqual(run.status, 3, run.stderr)
            XCTAssertTrue(run.stderr.contains("has no occurrence"), run.stderr)
        }
        XCTAssertEqual(try skipped("1"), [])
        XCTAssertEqual(try pim("events", "delete", "1", "--occurrence", "2026-12-02 18:00", "--yes").status, 0)
        let again = try pim("events", "delete", "1", "--occurrence", "2026-12-02", "--yes")
        XCTAssertEqual(again.status, 3)
        XCTAssertTrue(again.stderr.contains("skipped already"), again.stderr)
    }

    func testOnlyOneRepeatingEventTakesOccurrences() throws {
        try addGym()
        XCTAssertEqual(try pim("events", "add", "Dentist", "--start", "2026-12-01 10:00").status, 0)
        let once = try pim("events", "delete", "2", "--occurrence", "2026-12-01", "--yes")
        XCTAssertEqual(once.status, 2, once.stderr)
        XCTAssertTrue(once.stderr.contains("does not repeat"), once.stderr)
        let two = try pim("events", "delete", "1", "2", "--occurrence", "2026-11-30", "--yes")
        XCTAssertEqual(two.status, 2, two.stderr)
        XCTAssertEqual(try pim("events", "show", "2").status, 0, "nothing was deleted")
    }

    func testUndoBringsTheOccurrenceBack() throws {
        try addGym()
        XCTAssertEqual(try pim("events", "delete", "1", "--occurrence", "2026-11-27", "--yes").status, 0)
        XCTAssertEqual(try agendaDays(of: "Gym", days: 8), ["2026-11-30", "2026-12-02"])
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try agendaDays(of: "Gym", days: 8), ["2026-11-27", "2026-11-30", "2026-12-02"])
        XCTAssertEqual(try skipped("1"), [])
    }

    func testEditReplacesTheSkippedListAndAnEmptyOneBringsThemBack() throws {
        try addGym()
        XCTAssertEqual(try pim("events", "delete", "1", "--occurrence", "2026-11-27", "--yes").status, 0)
        let edit = try pim("events", "edit", "1", "--skipped", "2026-11-30, 2026-12-04 18:00")
        XCTAssertEqual(edit.status, 0, edit.stderr)
        XCTAssertEqual(try agendaDays(of: "Gym", days: 10), ["2026-11-27", "2026-12-02"])
        let bad = try pim("events", "edit", "1", "--skipped", "2026-12-01")
        XCTAssertEqual(bad.status, 3, bad.stderr)
        XCTAssertEqual(try skipped("1"), ["2026-11-30T18:00:00+01:00", "2026-12-04T18:00:00+01:00"], "a refused list changes nothing")
        XCTAssertEqual(try pim("events", "edit", "1", "--skipped", "").status, 0)
        XCTAssertEqual(try agendaDays(of: "Gym", days: 10), ["2026-11-27", "2026-11-30", "2026-12-02", "2026-12-04"])
    }

    /// The editor's form shows the skipped occurrences as pim reads dates, and takes them back.
    func testTheEditorFormHasTheSkippedList() throws {
        XCTAssertEqual(try pim("events", "add", "Market", "--start", "2026-11-28", "--repeat", "weekly").status, 0)
        XCTAssertEqual(try pim("events", "delete", "1", "--occurrence", "2026-12-05", "--yes").status, 0)
        let form = folder.appendingPathComponent("form.txt")
        let editor = folder.appendingPathComponent("editor.sh")
        try Data("#!/bin/sh\ncp \"$1\" \(form.path)\nsed -i 's/^skipped: .*/skipped:   2026-12-12/' \"$1\"\n".utf8).write(to: editor)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: editor.path)
        let run = try pim("events", "edit", "1", environment: ["EDITOR": editor.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(try String(contentsOf: form, encoding: .utf8).contains("\nskipped:   2026-12-05\n"))
        XCTAssertEqual(try agendaDays(of: "Market", days: 21), ["2026-11-28", "2026-12-05"])
        XCTAssertEqual(try skipped("1"), ["2026-12-12"])
    }

    /// `events list --from/--to` lists a repeating event when one of its occurrences meets the
    /// range (pim-events(1)): not one whose rule ended before it, nor one that starts after it.
    func testListFromToListsRepeatingEventsByTheirOccurrences() throws {
        try addGym()
        XCTAssertEqual(try pim("events", "add", "Course", "--start", "2026-11-26 19:00", "--repeat", "FREQ=DAILY;COUNT=3").status, 0)
        XCTAssertEqual(try pim("events", "add", "Later", "--start", "2026-12-20 19:00", "--repeat", "weekly").status, 0)
        func titles(_ arguments: String...) throws -> [String] {
            let run = try pim(arguments: ["events", "list", "--json"] + arguments)
            return (try run.json() as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
        XCTAssertEqual(try titles("--from", "2026-12-01", "--to", "2026-12-10"), ["Gym"])
        XCTAssertEqual(try titles("--from", "2026-11-28"), ["Course", "Gym", "Later"])
        XCTAssertEqual(try titles("--to", "2026-11-27"), ["Course"])
    }
}
