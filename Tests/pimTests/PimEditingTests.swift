// End-to-end editing, searching and grouping: `edit` with flags echoes what it resolved, `edit`
// without flags goes through $EDITOR and reopens the form on invalid input; search matches every
// word across names, emails and tags; groups gather contacts.
import Foundation
import XCTest

final class PimEditingTests: PimTestCase {
    func testEditWithFlagsEchoesTheResolvedDate() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        let run = try pim("tasks", "edit", "1", "--due", "fri 5pm", "--tags", "home,shop", "--priority", "M")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("due Fri 2026-11-27 17:00"), run.stdout)
        let task = try XCTUnwrap(try pim("tasks", "show", "1", "--json").json() as? [String: Any])
        XCTAssertEqual(task["tags"] as? [String], ["home", "shop"])
        XCTAssertEqual(task["priority"] as? String, "M")
        XCTAssertEqual(try pim("tasks", "edit", "1", "--due", "").status, 0)
        XCTAssertTrue(try XCTUnwrap(try pim("tasks", "show", "1", "--json").json() as? [String: Any])["due"] is NSNull)
    }

    /// A `vi` first on PATH that records each run in `vi-ran` and renames the record in the form,
    /// so that a test sees whether pim fell back to vi (the real one would wait for a terminal).
    /// Returns the PATH to run pim with.
    func fakeVi() throws -> String {
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let vi = bin.appendingPathComponent("vi")
        try Data("""
            #!/bin/sh
            echo "$1" >> "\(folder.appendingPathComponent("vi-ran").path)"
            sed -i -e 's/^title:.*/title: Changed by vi/' -e 's/^name:.*/name: Changed by vi/' "$1"

            """.utf8).write(to: vi)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: vi.path)
        return "\(bin.path):/usr/bin:/bin"
    }

    /// pim-tasks(1) edit: "Either variable runs without a terminal too". The tests' pim has no
    /// terminal on stdin or stdout, and $EDITOR still edits the form, not the vi on PATH.
    func testEditorEditsTheForm() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        let run = try pim("tasks", "edit", "1", environment: ["EDITOR": "sed -i 's/^title:.*/title: Oat milk/'", "PATH": try fakeVi()])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try XCTUnwrap(try pim("tasks", "show", "1", "--json").json() as? [String: Any])["title"] as? String, "Oat milk")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("vi-ran").path), "vi ran")
    }

    /// pim-tasks(1) edit: with neither $VISUAL nor $EDITOR set (empty counts as unset) and no
    /// terminal, `edit` without flags "changes nothing and exits with status 2", naming a flag
    /// to use instead. Before, pim started vi on no terminal, which hung or garbled a script.
    func testEditWithoutAnEditorOrATerminalIsRefused() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        XCTAssertEqual(try pim("events", "add", "Review", "--start", "fri 10:00").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Ann Lee").status, 0)
        let environment = ["PATH": try fakeVi(), "VISUAL": "", "EDITOR": ""]
        for (domain, key, name) in [("tasks", "title", "Milk"), ("events", "title", "Review"), ("contacts", "name", "Ann Lee")] {
            let run = try pim(domain, "edit", "1", environment: environment)
            XCTAssertEqual(run.status, 2, "\(domain): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("vi needs a terminal; give the changes as flags, such as --\(key), or set $EDITOR"),
                          "\(domain): \(run.stderr)")
            XCTAssertEqual(run.stdout, "", domain)
            let record = try XCTUnwrap(try pim(domain, "show", "1", "--json").json() as? [String: Any])
            XCTAssertEqual(record[key] as? String, name, domain)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("vi-ran").path), "vi ran")
        let undo = try pim("undo")
        XCTAssertTrue(undo.stdout.contains("contacts add 'Ann Lee'"), "the last step to undo is not the add: \(undo.stdout)")
    }

    func testEditorReopensTheFormOnInvalidInput() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        // The first edit writes a bad date; the second sees the error at the top and fixes it.
        let script = folder.appendingPathComponent("editor.sh")
        let log = folder.appendingPathComponent("seen.txt")
        try Data("""
            #!/bin/sh
            cat "$1" >> "\(log.path)"
            if grep -q '^# ERROR' "$1"; then sed -i 's/^due:.*/due: tomorrow 9am/' "$1"; else sed -i 's/^due:.*/due: whenever/' "$1"; fi

            """.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let run = try pim("tasks", "edit", "1", environment: ["VISUAL": script.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("due Thu 2026-11-26 09:00"), run.stdout)
        XCTAssertTrue(try String(contentsOf: log, encoding: .utf8).contains("# ERROR: date: cannot read \"whenever\""))
    }

    func testTwoProcessesEditingTheSameRecordConflict() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        // While the first pim waits for its editor, a second pim changes the same task; the
        // first one's save must then fail with the conflict exit code and change nothing.
        let script = folder.appendingPathComponent("editor.sh")
        try Data("""
            #!/bin/sh
            "\(pimURL.path)" tasks edit 1 --title "Oat milk" --store "\(store.path)" > /dev/null || exit 9
            sed -i 's/^title:.*/title: Almond milk/' "$1"

            """.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let run = try pim("tasks", "edit", "1", environment: ["VISUAL": script.path])
        XCTAssertEqual(run.status, 5, run.stderr)
        XCTAssertTrue(run.stderr.contains("another pim run changed these records"), run.stderr)
        XCTAssertEqual(try XCTUnwrap(try pim("tasks", "show", "1", "--json").json() as? [String: Any])["title"] as? String, "Oat milk")
    }

    func testEmptiedFormCancels() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        let run = try pim("tasks", "edit", "1", environment: ["EDITOR": "truncate -s 0"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(try XCTUnwrap(try pim("tasks", "show", "1", "--json").json() as? [String: Any])["title"] as? String, "Milk")
    }

    func testSearchMatchesEveryWordAcrossFields() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann Lee", "--email", "ann@example.org").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Bob Ray", "--org", "Example Inc").status, 0)
        XCTAssertEqual(try pim("contacts", "search", "example", "--fields", "name").stdout, "NAME\nAnn Lee\nBob Ray\n")
        XCTAssertEqual(try pim("contacts", "search", "example", "ann", "--fields", "name").stdout, "NAME\nAnn Lee\n")
        XCTAssertEqual(try pim("tasks", "add", "Buy oats", "--tag", "shopping").status, 0)
        XCTAssertEqual(try pim("tasks", "search", "SHOP", "--fields", "title").stdout, "TITLE\nBuy oats\n")
        XCTAssertEqual(try pim("events", "search", "nothing").status, 1)
    }

    func testGroupsGatherContacts() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann Lee").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Bob Ray").status, 0)
        XCTAssertEqual(try pim("contacts", "group", "add", "Family", "ann", "bob").status, 0)
        XCTAssertEqual(try pim("contacts", "group", "members", "family", "--fields", "name").stdout, "NAME\nAnn Lee\nBob Ray\n")
        XCTAssertEqual(try pim("contacts", "group", "list", "--fields", "name,members").stdout, "NAME    MEMBERS\nFamily  Ann Lee, Bob Ray\n")
    }

    func testDeletingAContactKeepsEventsAndUnassignsTasks() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann Lee").status, 0)
        XCTAssertEqual(try pim("events", "add", "Review", "--start", "fri 10:00", "--attendee", "ann").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Slides", "--assignee", "ann", "--for-event", "review").status, 0)
        XCTAssertEqual(try pim("contacts", "delete", "ann", "--yes").status, 0)
        let task = try XCTUnwrap(try pim("tasks", "show", "1", "--json").json() as? [String: Any])
        XCTAssertTrue(task["assignee"] is NSNull)
        XCTAssertEqual((task["event"] as? [String: Any])?["name"] as? String, "Review")
        XCTAssertEqual(try pim("events", "delete", "review", "--yes").status, 0)
        XCTAssertEqual(try pim("tasks", "list", "--fields", "title").stdout, "TITLE\nSlides\n")
    }

    /// pim-tasks(1) edit: `--depends-on` replaces the tasks one depends on (comma-separated, empty
    /// clears), as the form's `depends-on:` line does, and `undo` puts them back. A task that
    /// depends on itself, or on a task depending on it, would never be unblocked: refused with
    /// status 2 and nothing changed (Taskwarrior refuses a circular dependency too).
    func testEditSetsDependenciesAndRefusesACircle() throws {
        for title in ["Draft", "Review", "Publish"] { XCTAssertEqual(try pim("tasks", "add", title).status, 0) }
        func dependencies(_ task: String) throws -> [Int] {
            let shown = try XCTUnwrap(try pim("tasks", "show", task, "--json").json() as? [String: Any])
            return try XCTUnwrap(shown["dependsOn"] as? [[String: Any]]).compactMap { $0["number"] as? Int }.sorted()
        }
        XCTAssertEqual(try pim("tasks", "edit", "3", "--depends-on", "2").status, 0)
        XCTAssertEqual(try pim("tasks", "edit", "2", "--depends-on", "1").status, 0)
        XCTAssertEqual(try dependencies("3"), [2])

        let circle = try pim("tasks", "edit", "1", "--depends-on", "3")
        XCTAssertEqual(circle.status, 2, circle.stderr)
        XCTAssertTrue(circle.stderr.contains("task 3 already depends on task 1 (1 → 3 → 2 → 1)"), circle.stderr)
        let itself = try pim("tasks", "edit", "1", "--depends-on", "1")
        XCTAssertEqual(itself.status, 2, itself.stderr)
        XCTAssertTrue(itself.stderr.contains("task 1 cannot depend on itself"), itself.stderr)
        XCTAssertEqual(try dependencies("1"), [])

        let both = try pim("tasks", "edit", "3", "--depends-on", "1, 2")
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertEqual(try dependencies("3"), [1, 2])
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try dependencies("3"), [2])

        let form = try pim("tasks", "edit", "3", environment: ["EDITOR": "sed -i 's/^depends-on: .*/depends-on: /'"])
        XCTAssertEqual(form.status, 0, form.stderr)
        XCTAssertEqual(try dependencies("3"), [])
        XCTAssertEqual(try pim("tasks", "edit", "3", "--depends-on", "1").status, 0)
        let shown = try pim("tasks", "edit", "3", environment: ["EDITOR": "cat"])
        XCTAssertTrue(shown.stdout.contains("depends-on: 1\n"), shown.stdout)
    }
}

final class PimFilterTests: PimTestCase {
    func testEventsListByRangeAndCalendar() throws {
        XCTAssertEqual(try pim("events", "add", "Dentist", "--start", "tomorrow 8:00", "--calendar", "health").status, 0)
        XCTAssertEqual(try pim("events", "add", "Review", "--start", "next fri 14:00").status, 0)
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "2026-11-01 9:00", "--repeat", "weekdays").status, 0)
        XCTAssertEqual(try pim("events", "list", "--from", "today", "--to", "eow", "--fields", "title").stdout, "TITLE\nStandup\nDentist\n")
        XCTAssertEqual(try pim("events", "list", "--calendar", "Health", "--fields", "title").stdout, "TITLE\nDentist\n")
    }

    func testContactsListByGroup() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann Lee").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Bob Ray").status, 0)
        XCTAssertEqual(try pim("contacts", "group", "add", "Team", "bob").status, 0)
        XCTAssertEqual(try pim("contacts", "list", "--group", "team", "--fields", "name").stdout, "NAME\nBob Ray\n")
    }
}

final class PimAddressTests: PimTestCase {
    func testPostalAddressesInOrderWithLabels() throws {
        let added = try pim("contacts", "add", "Ann Lee", "--address", "home:1 Main St;Springfield;IL;62701;USA", "--address", "Dock 4;Hull")
        XCTAssertEqual(added.status, 0, added.stderr)
        let contact = try XCTUnwrap(try pim("contacts", "show", "ann", "--json").json() as? [String: Any])
        let addresses = try XCTUnwrap(contact["addresses"] as? [[String: Any]])
        XCTAssertEqual(addresses.map { $0["locality"] as? String }, ["Springfield", "Hull"])
        XCTAssertEqual(addresses[0]["label"] as? String, "home")
        XCTAssertEqual(addresses[0]["postalCode"] as? String, "62701")
        XCTAssertEqual(try pim("contacts", "list", "--fields", "addresses").stdout,
                       "ADDRESSES\n1 Main St, 62701 Springfield, IL, USA (home), Dock 4, Hull\n")
        XCTAssertEqual(try pim("contacts", "search", "springfield", "--fields", "name").stdout, "NAME\nAnn Lee\n")
        XCTAssertEqual(try pim("contacts", "edit", "ann", "--addresses", "work:2 Side St;Leeds").status, 0)
        XCTAssertEqual(try pim("contacts", "list", "--fields", "addresses").stdout, "ADDRESSES\n2 Side St, Leeds (work)\n")
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try pim("contacts", "list", "--fields", "addresses").stdout,
                       "ADDRESSES\n1 Main St, 62701 Springfield, IL, USA (home), Dock 4, Hull\n")
    }
}
