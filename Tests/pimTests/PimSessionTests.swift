// End-to-end: the built pim binary through a realistic session on a temporary store (contacts,
// an event with an attendee, tasks for it, listing, finishing, undo and redo across runs, the
// agenda), then the error cases and their exit codes.
import Foundation
import XCTest

final class PimSessionTests: PimTestCase {
    func testRealisticSession() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--email", "work:ann@example.org", "--phone", "+49 30 1234").status, 0)
        let event = try pim("events", "add", "Design review", "--start", "fri 14:00", "--duration", "1h30m", "--attendee", "ann", "--location", "Room 2")
        XCTAssertEqual(event.status, 0, event.stderr)
        XCTAssertTrue(event.stdout.contains("Fri 2026-11-27 14:00 to Fri 2026-11-27 15:30"), event.stdout)
        let slides = try pim("tasks", "add", "Prepare", "slides", "--due", "fri 9am", "--priority", "H", "--for-event", "design", "--assignee", "1", "--tag", "work")
        XCTAssertEqual(slides.status, 0, slides.stderr)
        XCTAssertTrue(slides.stdout.contains("Added task 1 ("), slides.stdout)
        XCTAssertTrue(slides.stdout.contains("due Fri 2026-11-27 09:00"), slides.stdout)
        XCTAssertEqual(try pim("tasks", "add", "Water plants", "--due", "in 3 days", "--project", "home").status, 0)

        let list = try pim("tasks", "list", "--json")
        let tasks = try XCTUnwrap(list.json() as? [[String: Any]])
        XCTAssertEqual(tasks.map { $0["title"] as? String }, ["Prepare slides", "Water plants"])
        XCTAssertEqual(tasks[0]["due"] as? String, "2026-11-27T09:00:00+01:00")
        XCTAssertEqual((tasks[0]["assignee"] as? [String: Any])?["name"] as? String, "Ann Lee")
        XCTAssertEqual((tasks[0]["event"] as? [String: Any])?["name"] as? String, "Design review")

        XCTAssertEqual(try pim("tasks", "done", "1").status, 0)
        XCTAssertEqual(try pim("tasks", "list", "--fields", "title").stdout, "TITLE\nWater plants\n")
        let undo = try pim("undo")
        XCTAssertEqual(undo.status, 0, undo.stderr)
        XCTAssertTrue(undo.stdout.contains("tasks done 1"), undo.stdout)
        XCTAssertEqual(try pim("tasks", "list", "--fields", "number,title").stdout, "#  TITLE\n1  Prepare slides\n2  Water plants\n")
        XCTAssertEqual(try pim("redo").status, 0)
        XCTAssertEqual(try pim("tasks", "list", "--fields", "title").stdout, "TITLE\nWater plants\n")

        let agenda = try pim("events", "agenda", "--days", "3")
        XCTAssertEqual(agenda.status, 0, agenda.stderr)
        XCTAssertTrue(agenda.stdout.contains("Fri 2026-11-27\n  14:00-15:30  Design review  @ Room 2  [1]"), agenda.stdout)
    }

    func testRepeatingEventsInTheAgendaJSON() throws {
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "today 9:00", "--duration", "15m", "--repeat", "weekdays").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Report", "--due", "tomorrow 17:00").status, 0)
        let days = try XCTUnwrap(try pim("events", "agenda", "--days", "5", "--json").json() as? [[String: Any]])
        XCTAssertEqual(days.map { $0["date"] as? String }, ["2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"])
        let items = days.map { ($0["items"] as? [[String: Any]] ?? []).map { $0["type"] as? String ?? "" } }
        XCTAssertEqual(items, [["event"], ["event", "task"], ["event"], [], []])
        XCTAssertEqual((days[1]["items"] as? [[String: Any]])?.first?["start"] as? String, "2026-11-26T09:00:00+01:00")
    }

    func testWriteCommandsAnswerJSON() throws {
        let added = try pim("tasks", "add", "Milk", "--json")
        let object = try XCTUnwrap(added.json() as? [String: Any])
        let id = try XCTUnwrap(object["id"] as? String)
        XCTAssertNotNil(UUID(uuidString: id))
        XCTAssertEqual(object["number"] as? Int, 1)
        XCTAssertEqual(object["created"] as? String, "2026-11-25T10:30:00+01:00")
        XCTAssertEqual(try pim("tasks", "show", String(id.prefix(6)), "--json").json() as? NSDictionary, try pim("tasks", "show", "1", "--json").json() as? NSDictionary)
    }

    func testStoreIsCreatedInXDGDataHomeWithoutAPrompt() throws {
        let run = try pim("tasks", "add", "First", useStoreOption: false)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/pim/pim.sqlite").path))
    }

    func testPIMStoreVariableLocatesTheStore() throws {
        let path = folder.appendingPathComponent("elsewhere/mine.sqlite").path
        XCTAssertEqual(try pim("tasks", "add", "First", useStoreOption: false, environment: ["PIM_STORE": path]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    }

    func testColorOnlyWhenAsked() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        XCTAssertFalse(try pim("tasks", "list").stdout.contains("\u{1B}["))
        XCTAssertTrue(try pim("tasks", "list", "--color", "always").stdout.contains("\u{1B}["))
        XCTAssertFalse(try pim("tasks", "list", "--color", "auto", environment: ["NO_COLOR": "1"]).stdout.contains("\u{1B}["))
    }
}

final class PimErrorTests: PimTestCase {
    func testUnparsableDateIsAUsageErrorNamingIt() throws {
        let run = try pim("tasks", "add", "Call", "Bob", "--due", "tomorrow blah")
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("\"blah\""), run.stderr)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(try pim("tasks", "list", "--all").status, 1)
    }

    func testBadPredicateShowsACaret() throws {
        let run = try pim("tasks", "list", "--where", "priority == ")
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("priority == \n") && run.stderr.contains("^"), run.stderr)
    }

    func testNothingMatchedExitsOne() throws {
        let run = try pim("contacts", "list")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(try pim("tasks", "list", "--json").stdout, "[\n\n]\n")
    }

    func testNotFoundAndAmbiguous() throws {
        XCTAssertEqual(try pim("tasks", "show", "7").status, 3)
        XCTAssertEqual(try pim("contacts", "add", "Ann Smith").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Bob Smith").status, 0)
        let ambiguous = try pim("contacts", "show", "smith")
        XCTAssertEqual(ambiguous.status, 4)
        XCTAssertTrue(ambiguous.stderr.contains("Ann Smith") && ambiguous.stderr.contains("Bob Smith"), ambiguous.stderr)
    }

    func testDeleteNeedsYesWithoutATerminal() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        XCTAssertEqual(try pim("tasks", "delete", "1").status, 6)
        XCTAssertEqual(try pim("tasks", "list").status, 0)
        XCTAssertEqual(try pim("tasks", "delete", "1", "--yes").status, 0)
        XCTAssertEqual(try pim("tasks", "list").status, 1)
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try pim("tasks", "list").status, 0)
    }

    func testUsageErrorsExitTwo() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk", "--colour", "red").status, 2)
        XCTAssertEqual(try pim("tasks", "add", "Milk", "--priority", "urgent").status, 2)
        XCTAssertEqual(try pim("events", "add", "Party", "--start", "fri 8pm", "--repeat", "sometimes").status, 2)
        XCTAssertEqual(try pim("tasks", "list", "--sort", "colour").status, 2)
    }

    func testNothingToUndo() throws {
        let run = try pim("undo")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("nothing to undo"), run.stderr)
    }

    func testHelpExitsZero() throws {
        let run = try pim("tasks", "--help")
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.contains("urgency"), run.stdout)
    }
}

final class PimTerminalTests: PimTestCase {
    /// Runs pim under `script(1)`, so that it sees a terminal, answering `answer` to its question.
    func pimOnTerminal(_ arguments: String, answer: String) throws -> (status: Int32, output: String) {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: script.path), "script(1) is not installed")
        let process = Process()
        process.executableURL = script
        process.arguments = ["-qec", "\(pimURL.path) \(arguments) --store \(store.path)", "/dev/null"]
        process.environment = ["HOME": folder.path, "PIM_NOW": "2026-11-25T10:30:00", "TZ": "Europe/Berlin", "TERM": "dumb"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data((answer + "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testDeleteAsksOnceWithTheCount() throws {
        XCTAssertEqual(try pim("tasks", "add", "A").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "B").status, 0)
        let declined = try pimOnTerminal("tasks delete 1 2", answer: "n")
        XCTAssertEqual(declined.status, 6)
        XCTAssertTrue(declined.output.contains("Delete 2 tasks? [y/N]"), declined.output)
        XCTAssertEqual(try pim("tasks", "list", "--fields", "title").stdout, "TITLE\nA\nB\n")
        let accepted = try pimOnTerminal("tasks delete 1 2", answer: "y")
        XCTAssertEqual(accepted.status, 0, accepted.output)
        XCTAssertEqual(try pim("tasks", "list").status, 1)
    }
}

