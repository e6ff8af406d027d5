// The undo journal, queries, record naming and concurrent runs, end to end: each test
// runs the built pim binary on a temporary store (see PimRun.swift).
import Foundation
import XCTest

final class PimJournalTests: PimTestCase {
    // MARK: Helpers

    /// Every record of the store as JSON text: contacts, events, all tasks and groups.
    func snapshot() throws -> String {
        try [["contacts", "list"], ["events", "list"], ["tasks", "list", "--all"], ["contacts", "group", "list"]].map { arguments in
            let run = try pimArray(arguments + ["--json"])
            XCTAssertTrue(run.status == 0 || run.status == 1, "\(arguments): \(run.stderr)")
            return run.stdout
        }.joined(separator: "\n")
    }

    /// Runs pim with `arguments` at a given instant; fails the test when it does not exit 0.
    @discardableResult
    func must(_ arguments: [String], at now: String = "2026-11-25T10:30:00", file: StaticString = #filePath, line: UInt = #line) throws -> PimRun {
        let run = try pimArray(arguments, now: now)
        XCTAssertEqual(run.status, 0, "pim \(arguments.joined(separator: " ")): \(run.stderr)", file: file, line: line)
        return run
    }

    func pimArray(_ arguments: [String], now: String = "2026-11-25T10:30:00") throws -> PimRun {
        let process = try launch(arguments, now: now)
        process.process.waitUntilExit()
        return try process.result()
    }

    /// A pim run started and not waited for, so that two can run at once.
    struct Launched {
        var process: Process
        var output: URL
        var error: URL
        func result() throws -> PimRun {
            PimRun(status: process.terminationStatus,
                   stdout: try String(contentsOf: output, encoding: .utf8),
                   stderr: try String(contentsOf: error, encoding: .utf8))
        }
    }

    func launch(_ arguments: [String], now: String = "2026-11-25T10:30:00") throws -> Launched {
        let outputURL = folder.appendingPathComponent("out-\(UUID().uuidString)")
        let errorURL = folder.appendingPathComponent("err-\(UUID().uuidString)")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let process = Process()
        process.executableURL = pimURL
        process.arguments = arguments + ["--store", store.path]
        process.environment = testEnvironment(now: now)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        return Launched(process: process, output: outputURL, error: errorURL)
    }

    func taskNumbers() throws -> [Int] {
        let tasks = try XCTUnwrap(try pim("tasks", "list", "--all", "--json").json() as? [[String: Any]])
        return tasks.compactMap { $0["number"] as? Int }.sorted()
    }

    // MARK: Undo and redo

    /// Undoing a priority change must restore it (priority is an Integer 16; the journal gives it back as Int64).
    func testUndoAndRedoOfAPriorityEdit() throws {
        try must(["tasks", "add", "Slides", "--priority", "H"])
        let before = try snapshot()
        try must(["tasks", "edit", "1", "--priority", "L"], at: "2026-11-25T11:00:00")
        let after = try snapshot()
        let undo = try pim("undo")
        XCTAssertEqual(undo.status, 0, undo.stderr)
        XCTAssertEqual(try snapshot(), before)
        let redo = try pim("redo")
        XCTAssertEqual(redo.status, 0, redo.stderr)
        XCTAssertEqual(try snapshot(), after)
    }

    /// Undoing a bulk delete brings every task back as it was, priorities included.
    func testUndoOfABulkDeleteOfTasksWithPriorities() throws {
        try must(["tasks", "add", "One", "--priority", "H", "--tag", "a"])
        try must(["tasks", "add", "Two", "--priority", "M", "--depends-on", "1"])
        try must(["tasks", "add", "Three", "--priority", "L", "--parent", "1"])
        try must(["tasks", "add", "Four"])
        let before = try snapshot()
        let deleted = try must(["tasks", "delete", "1", "2", "--yes"], at: "2026-11-25T12:00:00")
        XCTAssertTrue(deleted.stdout.contains("Deleted task 1"))
        XCTAssertEqual(try taskNumbers(), [4])
        let undo = try pim("undo")
        XCTAssertEqual(undo.status, 0, undo.stderr)
        XCTAssertEqual(try snapshot(), before)
    }

    /// A long sequence of commands over all three domains (no priorities): undoing them all walks
    /// back through every earlier store exactly, and redoing them all walks forward again.
    func testUndoAllThenRedoAllRestoresEveryIntermediateStore() throws {
        let commands: [[String]] = [
            ["contacts", "add", "Ada", "Lovelace", "--email", "work:ada@example.org", "--phone", "123"],
            ["contacts", "add", "Bob", "Byte"],
            ["events", "add", "Review", "--start", "fri 14:00", "--attendee", "ada"],
            ["tasks", "add", "Slides", "--due", "fri", "--tag", "talk", "--assignee", "ada", "--for-event", "review"],
            ["tasks", "add", "Other", "--depends-on", "1", "--tag", "x"],
            ["tasks", "add", "Sub", "--parent", "1"],
            ["contacts", "group", "add", "Family", "ada", "bob"],
            ["tasks", "start", "2"],
            ["tasks", "edit", "1", "--tags", "a,b", "--assignee", "bob", "--due", ""],
            ["contacts", "edit", "ada", "--emails", "home:a@b.c,x@y.z", "--name", "Ada King"],
            ["events", "edit", "review", "--attendees", "bob", "--location", "Room"],
            ["tasks", "done", "1", "2"],
            ["tasks", "delete", "1", "--yes"],
            ["contacts", "delete", "1", "2", "--yes"],
            ["events", "delete", "1", "--yes"],
        ]
        var snapshots = [try snapshot()]
        for (index, command) in commands.enumerated() {
            try must(command, at: String(format: "2026-11-25T%02d:%02d:00", 10 + index / 4, (index * 7) % 60))
            snapshots.append(try snapshot())
        }
        for index in stride(from: commands.count, to: 0, by: -1) {
            let undo = try pimArray(["undo"], now: "2026-11-26T09:00:00")
            XCTAssertEqual(undo.status, 0, "undo of \(commands[index - 1]): \(undo.stderr)")
            // Arguments with spaces are quoted (testUndoNamesTheCommandWithItsArgumentsQuoted).
            let typed = commands[index - 1].map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
            XCTAssertTrue(undo.stdout.hasPrefix("Undid \"\(typed)"), undo.stdout)
            XCTAssertEqual(try snapshot(), snapshots[index - 1], "after undoing \(commands[index - 1])")
        }
        XCTAssertEqual(try pim("undo").status, 1)
        for index in 1...commands.count {
            let redo = try pimArray(["redo"], now: "2026-11-27T09:00:00")
            XCTAssertEqual(redo.status, 0, "redo of \(commands[index - 1]): \(redo.stderr)")
            XCTAssertEqual(try snapshot(), snapshots[index], "after redoing \(commands[index - 1])")
        }
        XCTAssertEqual(try pim("redo").status, 1)
    }

    /// Failed commands leave no journal entry: undo reverts the last command that succeeded.
    func testFailedCommandsAreNotJournaled() throws {
        try must(["tasks", "add", "A"])
        let afterA = try snapshot()
        try must(["tasks", "add", "B"])
        XCTAssertEqual(try pim("tasks", "edit", "1", "--status", "bogus").status, 2)
        XCTAssertEqual(try pim("tasks", "add", "C", "--due", "blah").status, 2)
        XCTAssertEqual(try pim("tasks", "delete", "9", "--yes").status, 3)
        XCTAssertEqual(try pim("tasks", "delete", "1").status, 6)
        XCTAssertEqual(try pim("contacts", "group", "add", "Family", "nobody").status, 3)
        let undo = try pim("undo")
        XCTAssertEqual(undo.status, 0)
        XCTAssertTrue(undo.stdout.hasPrefix("Undid \"tasks add B"), undo.stdout)
        XCTAssertEqual(try snapshot(), afterA)
        XCTAssertEqual(try pim("contacts", "group", "list").status, 1)
    }

    /// The journal names a command as it could be typed again: an argument with spaces, quotes
    /// or shell characters is quoted, so that `--due 'fri 17:00'` does not read as two words.
    func testUndoNamesTheCommandWithItsArgumentsQuoted() throws {
        try must(["tasks", "add", "Ada's", "talk", "--due", "fri 17:00", "--project", "a&b"])
        let undo = try XCTUnwrap(try pim("undo", "--json").json() as? [String: Any])
        XCTAssertEqual(undo["command"] as? String,
                       "tasks add 'Ada'\\''s' talk --due 'fri 17:00' --project 'a&b' --store \(store.path)")
    }

    /// What undo and redo print, as text and JSON; a new change drops the redo.
    func testUndoRedoReportsAndJSON() throws {
        try must(["tasks", "add", "A"])
        try must(["tasks", "add", "B"])
        try must(["tasks", "done", "1", "2"], at: "2026-11-25T12:00:00")
        let undo = try XCTUnwrap(try pim("undo", "--json").json() as? [String: Any])
        XCTAssertEqual(undo["action"] as? String, "undid")
        XCTAssertEqual(undo["records"] as? Int, 2)
        XCTAssertEqual(undo["date"] as? String, "2026-11-25T12:00:00+01:00")
        XCTAssertTrue((undo["command"] as? String)?.hasPrefix("tasks done 1 2") == true)
        let redo = try pim("redo")
        XCTAssertTrue(redo.stdout.hasPrefix("Redid \"tasks done 1 2"), redo.stdout)
        XCTAssertTrue(redo.stdout.hasSuffix("(2 records, Wed 2026-11-25 12:00)\n"), redo.stdout)
        try must(["undo"])
        try must(["tasks", "add", "C"])
        XCTAssertEqual(try pim("redo").status, 1)
    }

    // MARK: Queries

    func addQueryTasks() throws {
        try must(["tasks", "add", "Alpha", "--priority", "H", "--due", "2026-11-24", "--project", "work"])
        try must(["tasks", "add", "Beta", "--priority", "M", "--due", "today 12:00", "--project", "work.sub", "--tag", "x"])
        try must(["tasks", "add", "Gamma", "--priority", "L", "--due", "tomorrow 9:00"])
        try must(["tasks", "add", "Délta", "--due", "2026-11-26T23:00"])
        try must(["tasks", "add", "Eps"])
    }

    func titles(_ arguments: String...) throws -> String {
        try pimArray(arguments + ["--fields", "title"]).stdout
    }

    func testWhereWithBoundVariablesAndFilters() throws {
        try addQueryTasks()
        XCTAssertEqual(try titles("tasks", "list", "--where", "due < $NOW"), "TITLE\nAlpha\n")
        XCTAssertEqual(try titles("tasks", "list", "--where", "due >= $TODAY AND due < $TOMORROW"), "TITLE\nBeta\n")
        XCTAssertEqual(try titles("tasks", "list", "--where", "due >= $TOMORROW", "--sort", "due"), "TITLE\nGamma\nDélta\n")
        XCTAssertEqual(try titles("tasks", "list", "--where", "due == nil"), "TITLE\nEps\n")
        // Arithmetic in SQL: a day from now, and an empty due date never matches.
        XCTAssertEqual(try titles("tasks", "list", "--where", "due < $NOW + 86400", "--sort", "due"), "TITLE\nAlpha\nBeta\nGamma\n")
        XCTAssertEqual(try titles("tasks", "list", "--where", "due + 86400 > $NOW + 172800"), "TITLE\nDélta\n")
        XCTAssertEqual(try titles("tasks", "list", "--where", "priority > 0", "--project", "work", "--tag", "x"), "TITLE\nBeta\n")
        XCTAssertEqual(try titles("tasks", "search", "DELTA"), "TITLE\nDélta\n")
        XCTAssertEqual(try titles("tasks", "search", "délta", "--where", "due > $NOW"), "TITLE\nDélta\n")
        XCTAssertEqual(try pim("tasks", "search", "delta", "x").status, 1)
        XCTAssertEqual(try pim("tasks", "list", "--where", "assignee.name == 'nobody'").status, 1)
    }

    func testBadPredicatesExitTwoWithACaret() throws {
        try addQueryTasks()
        let cases: [(String, Int)] = [("priority === 1", 11), ("title == \"abc", 9), ("(priority == 1", 14), ("title == \"ééé\" @ 1", 15)]
        for (predicate, offset) in cases {
            let run = try pim("tasks", "list", "--where", predicate)
            XCTAssertEqual(run.status, 2, predicate)
            XCTAssertTrue(run.stderr.contains("at character \(offset)"), run.stderr)
            let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let caret = try XCTUnwrap(lines.first { $0.trimmingCharacters(in: .whitespaces) == "^" })
            let echoed = try XCTUnwrap(lines.first { $0.hasSuffix(predicate) })
            XCTAssertEqual(caret.count - 1, echoed.count - predicate.count + offset, run.stderr)
        }
        XCTAssertEqual(try pim("tasks", "list", "--where", "nosuchkey == 1").status, 2)
        XCTAssertEqual(try pim("tasks", "list", "--where", "due < $LATER").status, 2)
        XCTAssertEqual(try pim("tasks", "list", "--where", "tags.name == 'x'").status, 2)
        XCTAssertEqual(try pim("tasks", "list", "--sort", "nosuch").status, 2)
        XCTAssertEqual(try pim("tasks", "list", "--fields", "nosuch").status, 2)
    }

    /// pim(1) --sort: a task's priority sorts by importance (none, L, M, H), so `-priority` lists
    /// H first and tasks with none last, as Taskwarrior's `priority-` does (not by iCalendar's
    /// number, where 1 is H and 0 none, which put L first).
    func testSortWithSeveralKeysAndLimit() throws {
        try addQueryTasks()
        XCTAssertEqual(try titles("tasks", "list", "--sort", "-priority,title"), "TITLE\nAlpha\nBeta\nGamma\nDélta\nEps\n")
        XCTAssertEqual(try titles("tasks", "list", "--sort", "priority,title"), "TITLE\nDélta\nEps\nGamma\nBeta\nAlpha\n")
        XCTAssertEqual(try titles("tasks", "list", "--sort", "project,-due"), "TITLE\nDélta\nGamma\nEps\nAlpha\nBeta\n")
        XCTAssertEqual(try titles("tasks", "list", "--sort", "-title", "--limit", "2"), "TITLE\nGamma\nEps\n")
        XCTAssertEqual(try pim("tasks", "list", "--limit", "0").status, 2)
        let json = try XCTUnwrap(try pim("tasks", "list", "--sort", "title", "--limit", "1", "--fields", "title,number", "--json").json() as? [[String: Any]])
        XCTAssertEqual(json.count, 1)
        XCTAssertEqual(json[0]["title"] as? String, "Alpha")
        XCTAssertEqual(json[0]["number"] as? Int, 1)
    }

    // MARK: Naming records

    func testNumbersUUIDsAndAmbiguousNames() throws {
        try must(["contacts", "add", "Zoë", "Adams"])
        try must(["contacts", "add", "Zoe", "Baker"])
        try must(["contacts", "add", "Al"])
        let ambiguous = try pim("contacts", "show", "zoe")
        XCTAssertEqual(ambiguous.status, 4)
        XCTAssertTrue(ambiguous.stderr.contains("Zoë Adams") && ambiguous.stderr.contains("Zoe Baker"), ambiguous.stderr)
        XCTAssertEqual(try pim("contacts", "show", "zoë adams").status, 0)
        let contacts = try XCTUnwrap(try pim("contacts", "list", "--json").json() as? [[String: Any]])
        let uuid = try XCTUnwrap(contacts.first { $0["number"] as? Int == 2 }?["id"] as? String)
        XCTAssertTrue(try pim("contacts", "show", String(uuid.prefix(8))).stdout.contains("Zoe Baker"))
        XCTAssertTrue(try pim("contacts", "show", uuid.uppercased()).stdout.contains("Zoe Baker"))

        try must(["contacts", "delete", "1", "--yes"])
        XCTAssertEqual(try pim("contacts", "show", "1").status, 3)
        XCTAssertTrue(try must(["contacts", "add", "New", "Person"]).stdout.hasPrefix("Added contact 1 "))
        try must(["undo"])
        try must(["undo"])
        let numbers = try XCTUnwrap(try pim("contacts", "list", "--json").json() as? [[String: Any]])
            .map { "\($0["number"] as? Int ?? 0) \($0["name"] as? String ?? "")" }.sorted()
        XCTAssertEqual(numbers, ["1 Zoë Adams", "2 Zoe Baker", "3 Al"])
    }

    // MARK: Concurrent runs

    /// Two adds of unrelated tasks at the same time: both must be saved (the journal sequence
    /// both compute is the same, and its uniqueness constraint refuses the second save).
    func testConcurrentAddsOfUnrelatedTasksBothSucceed() throws {
        try must(["tasks", "add", "Seed"])
        var failures: [String] = []
        for round in 1...4 {
            let first = try launch(["tasks", "add", "A\(round)"])
            let second = try launch(["tasks", "add", "B\(round)"])
            first.process.waitUntilExit()
            second.process.waitUntilExit()
            for run in [try first.result(), try second.result()] where run.status != 0 {
                failures.append("exit \(run.status): \(run.stderr)")
            }
        }
        XCTAssertEqual(failures, [])
        XCTAssertEqual(try taskNumbers(), Array(1...9))
    }

    /// An undo and an add at the same time must not give two tasks the same number, nor leave a
    /// redo behind a newer change.
    func testConcurrentUndoAndAddKeepNumbersUnique() throws {
        for _ in 1...12 {
            try? FileManager.default.removeItem(at: store)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
            try must(["tasks", "add", "Keep"])
            try must(["tasks", "add", "Gone"])
            try must(["tasks", "delete", "2", "--yes"])
            let undo = try launch(["undo"])
            let add = try launch(["tasks", "add", "New"])
            undo.process.waitUntilExit()
            add.process.waitUntilExit()
            let numbers = try taskNumbers()
            XCTAssertEqual(numbers, Array(Set(numbers)).sorted(), "duplicate numbers after a concurrent undo and add: \(numbers)")
            for number in Set(numbers) {
                XCTAssertNotEqual(try pim("tasks", "show", "\(number)").status, 4, "task \(number) is ambiguous")
            }
            if numbers.count != Set(numbers).count { break }
        }
    }
}
