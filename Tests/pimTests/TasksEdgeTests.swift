// `pim tasks` at its edges, against pim-tasks(1), pim(1) and Taskwarrior's conventions, run end to
// end on the built binary (PimRun.swift's helper: a temporary store, Wednesday 2026-11-25 10:30 in
// Berlin): tables with wide and combining characters, titles and projects as typed, done twice,
// bad --where and --sort input, notes of several lines in the editor, the default list. Each test
// names the documented or conventional behaviour it expects.
import Foundation
import XCTest

final class TasksEdgeTests: PimTestCase {
    // MARK: Helpers

    func task(_ reference: String, environment: [String: String] = [:]) throws -> [String: Any] {
        let run = try pim("tasks", "show", reference, "--json", environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [String: Any])
    }

    /// The columns a terminal gives `text`: East Asian wide characters and emoji take two,
    /// combining marks none (what wcwidth(3) says, and what Taskwarrior aligns its columns by).
    func displayWidth(_ text: Substring) -> Int {
        text.unicodeScalars.reduce(0) { width, scalar in
            switch scalar.value {
            case 0x0300...0x036F, 0x200B...0x200F: width
            case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
                 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF:
                width + 2
            default: width + 1
            }
        }
    }

    // MARK: Tables

    /// pim-tasks(1) `list`: "Default columns: number, title, status, ...". A title is printed
    /// whole. Table pads cells with NSString's padding(toLength:), which counts UTF-16 units,
    /// to a width counted in Characters: the widest title, when it holds an emoji or a
    /// decomposed accent, is cut short ("Buy 🥛 mil", "Café au lai").
    func testListDoesNotCutTitlesWithEmojiOrCombiningAccents() throws {
        XCTAssertEqual(try pim("tasks", "add", "Buy 🥛 milk").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Short").status, 0)
        let emoji = try pim("tasks", "list", "--fields", "number,title,status")
        XCTAssertEqual(emoji.status, 0, emoji.stderr)
        XCTAssertTrue(emoji.stdout.contains("Buy 🥛 milk"), emoji.stdout)

        XCTAssertEqual(try pim("tasks", "add", "Cafe\u{301} au lait, please").status, 0)
        let accent = try pim("tasks", "list")
        XCTAssertEqual(accent.status, 0, accent.stderr)
        XCTAssertTrue(accent.stdout.contains("Cafe\u{301} au lait, please"), accent.stdout)
    }

    /// Columns line up on a terminal: Taskwarrior (and every column tool, via wcwidth) pads by
    /// display width. pim pads by Character count, so a title in CJK characters (two columns
    /// each) pushes the rest of its row to the right.
    func testColumnsLineUpAfterWideCharacters() throws {
        XCTAssertEqual(try pim("tasks", "add", "東京で会議").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Buy milk").status, 0)
        let run = try pim("tasks", "list", "--fields", "title,status")
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, run.stdout)
        let columns = lines.compactMap { line -> Int? in
            guard let range = line.range(of: "STATUS") ?? line.range(of: "pending") else { return nil }
            return displayWidth(line[..<range.lowerBound])
        }
        XCTAssertEqual(Set(columns).count, 1, "the STATUS column starts at display columns \(columns):\n\(run.stdout)")
    }

    // MARK: add

    /// `add` refuses a blank title ("pim: a task needs a title", exit 2, for "" " " and a tab),
    /// but a title of a newline is stored: it trims `.whitespaces`, which has no newlines.
    func testATitleOfOnlyANewlineIsRefused() throws {
        let run = try pim("tasks", "add", "\n")
        XCTAssertEqual(run.status, 2, run.stdout)
        XCTAssertEqual(try pim("tasks", "list", "--all").status, 1, "the refused add stored a task")
    }

    /// `add` trims the title and tags, and `edit --project` trims the project (a blank one is
    /// none), but `add --project` stores the text as typed: " home " is then missed by
    /// `list --project home` (pim-tasks(1): "--project includes sub-projects"), and a blank " "
    /// is a project nobody sees that still adds "1 project" to the urgency (pim-tasks(1) URGENCY).
    func testAddTrimsTheProjectAsEditDoes() throws {
        XCTAssertEqual(try pim("tasks", "add", "Paint", "--project", " home ").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Blank", "--project", " ").status, 0)
        let home = try pim("tasks", "list", "--project", "home", "--fields", "title")
        XCTAssertEqual(home.stdout, "TITLE\nPaint\n", home.stderr)
        let blank = try task("Blank")
        XCTAssertTrue(blank["project"] is NSNull, "\(blank["project"] ?? "")")
        XCTAssertEqual(blank["urgency"] as? Double, 0)
    }

    /// pim-tasks(1): done marks tasks done "recording the completion date", and `start`
    /// keeps the date a task was first started. `done` on a task already done overwrote its
    /// completion date with today's (Taskwarrior refuses: "Task 1 is neither pending nor waiting").
    func testDoneAgainKeepsTheFirstCompletionDate() throws {
        XCTAssertEqual(try pim("tasks", "add", "Report").status, 0)
        XCTAssertEqual(try pim("tasks", "done", "1").status, 0)
        _ = try pim("tasks", "done", "1", environment: ["PIM_NOW": "2026-11-27T09:00:00"])
        XCTAssertEqual(try task("1")["completed"] as? String, "2026-11-25T10:30:00+01:00")
    }

    // MARK: list options

    /// pim(1) EXIT STATUS 2: "a bad ... predicate"; 8 is "The store cannot be opened or written".
    /// A `--where` regular expression that does not compile exits 8 with the SQL statement.
    func testInvalidRegularExpressionInWhereIsAUsageError() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        let run = try pim("tasks", "list", "--where", "title MATCHES \"(a\"")
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("--where"), run.stderr)
        XCTAssertFalse(run.stderr.contains("SELECT"), run.stderr)
    }

    /// pim(1) EXIT STATUS 2: "a bad ... sort key". `--sort nosuch` is refused, but only the
    /// first part of a key path is checked: `assignee.nosuch` and `title.foo` sort nothing and
    /// exit 0.
    func testSortKeyPathsAreCheckedPastTheFirstKey() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "A", "--assignee", "ann").status, 0)
        XCTAssertEqual(try pim("tasks", "list", "--sort", "assignee.name").status, 0)
        for key in ["assignee.nosuch", "title.foo"] {
            let run = try pim("tasks", "list", "--sort", key)
            XCTAssertEqual(run.status, 2, "\(key): \(run.stdout)")
        }
    }

    // MARK: edit in $EDITOR

    /// pim-tasks(1) edit: "Without flags, opens $VISUAL or $EDITOR on a commented form of all
    /// fields; invalid input reopens the form". Notes may hold several lines (`--notes`), but the
    /// form writes them as they are: the second line is no `key: value`, so the form pim wrote
    /// is invalid as it stands, every save reopens it, and no edit of such a task can succeed.
    func testEditorFormOfATaskWithMultiLineNotes() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk", "--notes", "first line\nsecond line").status, 0)
        let count = folder.appendingPathComponent("opened")
        let script = folder.appendingPathComponent("editor.sh")
        try Data("""
            #!/bin/sh
            echo x >> "\(count.path)"
            if [ "$(wc -l < "\(count.path)")" -gt 1 ]; then : > "$1"; exit 0; fi
            sed -i 's/^title:.*/title: Oat milk/' "$1"

            """.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let run = try pim("tasks", "edit", "1", environment: ["VISUAL": script.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try String(contentsOf: count, encoding: .utf8), "x\n", "the form was reopened")
        let edited = try task("1")
        XCTAssertEqual(edited["title"] as? String, "Oat milk")
        XCTAssertEqual(edited["notes"] as? String, "first line\nsecond line")
    }

    // MARK: delete, limits, projects, notes

    /// pim-tasks(1): delete "Deletes tasks and their subtasks, asking once ... (subtasks
    /// counted)" and "Prints every deleted task once the deletion is saved". Before, the question
    /// counted only the tasks named and --json left the subtasks out.
    func testDeleteCountsAndPrintsSubtasks() throws {
        XCTAssertEqual(try pim("tasks", "add", "Parent").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Child", "--parent", "Parent").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Grandchild", "--parent", "Child").status, 0)
        let unconfirmed = try pim("tasks", "delete", "Parent")
        XCTAssertNotEqual(unconfirmed.status, 0)
        XCTAssertTrue(unconfirmed.stderr.contains("3 tasks"), unconfirmed.stderr)
        let run = try pim("tasks", "delete", "Parent", "--yes", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let deleted = try XCTUnwrap(run.json() as? [[String: Any]])
        XCTAssertEqual(deleted.compactMap { $0["title"] as? String }, ["Parent", "Child", "Grandchild"])
        XCTAssertEqual(try pim("tasks", "list", "--all").status, 1)
    }

    /// pim(1): --limit takes 1 or more; --fields names fields. `--limit 0` and `--limit -1`
    /// reported "no tasks match" or a missing value, and `--fields ""` printed blank lines.
    func testLimitAndFieldsMustNameSomething() throws {
        XCTAssertEqual(try pim("tasks", "add", "One").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Two").status, 0)
        for arguments in [["--limit", "0"], ["--limit", "-1"], ["--fields", ""], ["--fields", " , "]] {
            let run = try pim("tasks", "list", arguments[0], arguments[1])
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains(arguments[0]), run.stderr)
        }
        XCTAssertEqual(try pim("tasks", "list", "--limit", "1", "--fields", "title").stdout.split(separator: "\n").count, 2)
    }

    /// pim-tasks(1): `--project ""` lists tasks with no project (Taskwarrior's `project:`).
    func testEmptyProjectListsTasksWithoutOne() throws {
        XCTAssertEqual(try pim("tasks", "add", "Loose").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Filed", "--project", "home").status, 0)
        XCTAssertEqual(try pim("tasks", "list", "--project", "", "--fields", "title").stdout, "TITLE\nLoose\n")
    }

    /// Notes given empty are no notes; notes of several lines show with their later lines under
    /// the first in `show`, not at the start of the line.
    func testEmptyNotesAreNoneAndLongNotesStayInTheirColumn() throws {
        XCTAssertEqual(try pim("tasks", "add", "Empty", "--notes", "").status, 0)
        XCTAssertTrue(try task("Empty")["notes"] is NSNull)
        XCTAssertEqual(try pim("tasks", "add", "Long", "--notes", "first\nsecond").status, 0)
        let shown = try pim("tasks", "show", "Long").stdout
        let lines = shown.split(separator: "\n").map(String.init)
        let first = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("notes") })
        XCTAssertEqual(lines[first + 1].trimmingCharacters(in: .whitespaces), "second")
        XCTAssertEqual(lines[first + 1].prefix { $0 == " " }.count, lines[first].distance(from: lines[first].startIndex,
                                                                                           to: lines[first].range(of: "first")!.lowerBound))
    }

    // MARK: Documented behaviour that holds (no end-to-end test had it)

    /// pim-tasks(1) list: "Lists pending and started tasks whose wait date has passed";
    /// "--project includes sub-projects" (dots), not other projects sharing its first letters.
    func testDefaultListAndProjectFilter() throws {
        for arguments in [["Home", "--project", "home"], ["Garden", "--project", "home.garden"], ["Homework", "--project", "homework"],
                          ["Later", "--wait", "tomorrow"], ["Ready", "--wait", "yesterday"], ["Finished"], ["Dropped"], ["Going"]] {
            let run = try pim("tasks", "add", arguments[0], arguments.count > 1 ? arguments[1] : "--notes",
                              arguments.count > 2 ? arguments[2] : "")
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        XCTAssertEqual(try pim("tasks", "done", "Finished").status, 0)
        XCTAssertEqual(try pim("tasks", "edit", "Dropped", "--status", "cancelled").status, 0)
        XCTAssertEqual(try pim("tasks", "start", "Going").status, 0)
        let open = try XCTUnwrap(try pim("tasks", "list", "--json", "--fields", "title").json() as? [[String: Any]])
        XCTAssertEqual(Set(open.compactMap { $0["title"] as? String }), ["Home", "Garden", "Homework", "Ready", "Going"])
        let home = try XCTUnwrap(try pim("tasks", "list", "--project", "HOME", "--json", "--fields", "title").json() as? [[String: Any]])
        XCTAssertEqual(Set(home.compactMap { $0["title"] as? String }), ["Home", "Garden"])
        XCTAssertEqual(try pim("tasks", "list", "--project", "home.", "--json").status, 1)
    }
}
