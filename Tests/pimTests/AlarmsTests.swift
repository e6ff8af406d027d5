// Alarms end to end on the built binary (now: Wednesday 2026-11-25 10:30 in Berlin): --alarm on
// events and tasks add, --alarms and the editor's form on edit, show and JSON, undo, the errors,
// `pim alarms` over repeating events and open tasks, a repeating task's next occurrence, and the
// VALARM components of an export, which `pim import` reads back.
import Foundation
import XCTest

final class AlarmsTests: PimTestCase {
    private func record(_ kind: String, _ id: String) throws -> [String: Any] {
        let run = try pim(kind, "show", id, "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [String: Any])
    }

    private func alarms(_ kind: String, _ id: String) throws -> [String] {
        try XCTUnwrap(record(kind, id)["alarms"] as? [String])
    }

    func testAlarmsAreAddedShownEditedAndUndoneAsTyped() throws {
        let added = try pim("events", "add", "Dentist", "--start", "2026-11-26 09:00", "--alarm", "15m", "--alarm", "1d before",
                            "--alarm", "2026-11-26 07:00", "--alarm", "15 min", "--alarm", "-15m")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(try alarms("events", "1"), ["-PT15M", "-P1D", "20261126T060000Z"], "each once; 07:00 in Berlin is 06:00 UTC")
        let shown = try pim("events", "show", "1")
        XCTAssertTrue(shown.stdout.contains("alarms      15m before, 1d before, 2026-11-26 07:00\n"), shown.stdout)

        XCTAssertEqual(try pim("events", "edit", "1", "--alarms", "30m, +10m, at the start").status, 0)
        XCTAssertEqual(try alarms("events", "1"), ["-PT30M", "PT10M", "PT0S"])
        XCTAssertEqual(try pim("events", "edit", "1", "--alarms", "").status, 0)
        XCTAssertEqual(try alarms("events", "1"), [])
        XCTAssertFalse(try pim("events", "show", "1").stdout.contains("alarms"), "no alarms, no line")
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try alarms("events", "1"), ["-PT30M", "PT10M", "PT0S"])

        XCTAssertEqual(try pim("tasks", "add", "Pay rent", "--due", "2026-11-27 17:00", "--alarm", "1h", "--alarm", "when due").status, 0)
        XCTAssertEqual(try alarms("tasks", "1"), ["-PT1H", "PT0S"])
        XCTAssertTrue(try pim("tasks", "show", "1").stdout.contains("alarms       1h before, when due\n"), "a task's labels are as wide as annotations")
        let listed = try pim("tasks", "list", "--fields", "number,alarms")
        XCTAssertTrue(listed.stdout.contains("1  1h before, when due"), listed.stdout)
    }

    func testTheEditorsFormHasTheAlarms() throws {
        XCTAssertEqual(try pim("events", "add", "Dentist", "--start", "2026-11-26 09:00", "--alarm", "1h30m").status, 0)
        let script = try editor(["sed -i 's/^alarms:.*/alarms: 2d before, 5m/' \"$1\""])
        let run = try pim("events", "edit", "1", environment: ["EDITOR": script])
        XCTAssertEqual(run.status, 0, run.stderr)
        let form = try String(contentsOf: folder.appendingPathComponent("form-1.txt"), encoding: .utf8)
        XCTAssertTrue(form.contains("\nalarms:    1h30m before\n"), form)
        XCTAssertEqual(try alarms("events", "1"), ["-P2D", "-PT5M"])
    }

    func testBadAlarmsAreRefusedNamingTheValueAndNothingIsSaved() throws {
        for (arguments, message) in [
            (["events", "add", "A", "--start", "2026-11-26 09:00", "--alarm", "1mo"], "alarm \"1mo\": months and years are not alarm offsets"),
            (["events", "add", "A", "--start", "2026-11-26 09:00", "--alarm", "soonish"], "alarm \"soonish\": expected a duration"),
            (["events", "add", "A", "--start", "2026-11-26 09:00", "--alarm", "-15m after"], "alarm \"-15m after\": a minus sign says before"),
            (["tasks", "add", "B", "--alarm", "1h"], "alarm \"1h before\": a task needs a due date (--due)"),
        ] {
            let run = try pim(arguments: arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        XCTAssertEqual(try pim("events", "list").status, 1, "no event was added")
        XCTAssertEqual(try pim("tasks", "list").status, 1, "no task was added")

        XCTAssertEqual(try pim("tasks", "add", "B", "--alarm", "2026-11-26 08:00").status, 0, "a date and time needs no due date")
        XCTAssertEqual(try pim("tasks", "add", "C", "--due", "2026-11-27", "--alarm", "1d").status, 0)
        let cleared = try pim("tasks", "edit", "C", "--due", "")
        XCTAssertEqual(cleared.status, 2)
        XCTAssertTrue(cleared.stderr.contains("a task needs a due date"), cleared.stderr)
        XCTAssertNotNil(try record("tasks", "C")["due"] as? String, "the due date stays")
        XCTAssertEqual(try pim("tasks", "edit", "C", "--due", "", "--alarms", "").status, 0, "both at once")
    }

    func testAlarmsListsWhatGoesOffInTheWindowSoonestFirst() throws {
        for arguments in [
            ["events", "add", "Standup", "--start", "2026-11-23 09:00", "--duration", "15m", "--repeat", "daily", "--alarm", "10m"],
            ["events", "add", "Dentist", "--start", "2026-11-26 09:00", "--alarm", "1d", "--alarm", "15m"],
            ["events", "add", "Called off", "--start", "2026-11-25 18:00", "--status", "cancelled", "--alarm", "5m"],
            ["tasks", "add", "Pay rent", "--due", "2026-11-25 17:00", "--alarm", "1h"],
            ["tasks", "add", "Paid", "--due", "2026-11-25 17:00", "--alarm", "1h"],
            ["tasks", "add", "Call back", "--alarm", "2026-11-25 14:00"],
        ] {
            let run = try pim(arguments: arguments)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
        }
        XCTAssertEqual(try pim("tasks", "done", "Paid").status, 0)

        let run = try pim("alarms", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let firings = try XCTUnwrap(run.json() as? [[String: Any]])
        XCTAssertEqual(firings.map { "\($0["at"] ?? "") \($0["title"] ?? "") \($0["trigger"] ?? "")" }, [
            "2026-11-25T14:00:00+01:00 Call back 20261125T130000Z",
            "2026-11-25T16:00:00+01:00 Pay rent -PT1H",
            "2026-11-26T08:45:00+01:00 Dentist -PT15M",
            "2026-11-26T08:50:00+01:00 Standup -PT10M",
        ], "the next 24 hours; the cancelled event and the finished task are left out; the day before the dentist was at 09:00 today")
        XCTAssertEqual(firings[3]["start"] as? String, "2026-11-26T09:00:00+01:00", "the occurrence's start")
        XCTAssertEqual(firings[1]["due"] as? String, "2026-11-25T17:00:00+01:00")
        XCTAssertEqual(firings[1]["kind"] as? String, "task")

        let morning = try pim("alarms", "--from", "2026-11-25 08:00", "--to", "2026-11-25 10:00")
        XCTAssertEqual(morning.status, 0, morning.stderr)
        let lines = morning.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, morning.stdout)
        XCTAssertTrue(lines[1].hasPrefix("Wed 2026-11-25 08:50  10m before  event  1  Standup"), morning.stdout)
        XCTAssertTrue(lines[2].hasPrefix("Wed 2026-11-25 09:00  1d before   event  2  Dentist"), morning.stdout)

        let none = try pim("alarms", "--from", "2026-11-25 11:00", "--to", "2026-11-25 12:00")
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no alarm goes off from 2026-11-25 11:00 to 2026-11-25 12:00"), none.stderr)
        let backwards = try pim("alarms", "--from", "2026-11-25 12:00", "--to", "2026-11-25 11:00")
        XCTAssertEqual(backwards.status, 2)
    }

    func testARepeatingTasksNextOccurrenceKeepsItsAlarms() throws {
        XCTAssertEqual(try pim("tasks", "add", "Water plants", "--due", "2026-11-25 18:00", "--repeat", "daily", "--alarm", "5m",
                               "--alarm", "2026-11-25 12:00").status, 0)
        XCTAssertEqual(try pim("tasks", "done", "1").status, 0)
        XCTAssertEqual(try alarms("tasks", "2"), ["-PT5M", "20261126T110000Z"], "the same offset; the set time a day later, as the due date")
    }

    func testAnExportCarriesTheAlarmsAsVALARMs() throws {
        XCTAssertEqual(try pim("events", "add", "Dentist", "--start", "2026-11-26 09:00", "--alarm", "15m", "--alarm", "2026-11-26 07:00").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Pay rent", "--due", "2026-11-27 17:00", "--alarm", "1h").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Someday", "--alarm", "2026-11-30 09:00").status, 0)
        let events = try pim("events", "export")
        XCTAssertEqual(events.status, 0, events.stderr)
        XCTAssertTrue(events.stdout.contains("BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Dentist\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n"), events.stdout)
        XCTAssertTrue(events.stdout.contains("TRIGGER;VALUE=DATE-TIME:20261126T060000Z\r\n"), events.stdout)
        let tasks = try pim("tasks", "export")
        XCTAssertTrue(tasks.stdout.contains("DESCRIPTION:Pay rent\r\nTRIGGER;RELATED=END:-PT1H\r\n"), tasks.stdout)
        XCTAssertTrue(tasks.stdout.contains("TRIGGER;VALUE=DATE-TIME:20261130T080000Z\r\n"), tasks.stdout)

        // Read back into another store, each alarm as it was.
        let file = folder.appendingPathComponent("all.ics")
        try Data((events.stdout + tasks.stdout).utf8).write(to: file)
        let copy = folder.appendingPathComponent("copy.sqlite").path
        let imported = try pim(arguments: ["import", file.path, "--store", copy], useStoreOption: false)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let read = try pim(arguments: ["events", "show", "Dentist", "--json", "--store", copy], useStoreOption: false)
        XCTAssertEqual((try read.json() as? [String: Any])?["alarms"] as? [String], ["-PT15M", "20261126T060000Z"])
        for (title, expected) in [("Pay rent", ["-PT1H"]), ("Someday", ["20261130T080000Z"])] {
            let task = try pim(arguments: ["tasks", "show", title, "--json", "--store", copy], useStoreOption: false)
            XCTAssertEqual((try task.json() as? [String: Any])?["alarms"] as? [String], expected, title)
        }
    }
}
