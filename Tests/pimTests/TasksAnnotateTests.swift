// `pim tasks annotate` and `denotate`, Taskwarrior's dated notes, end to end on the built binary:
// shown under the task, in JSON as Taskwarrior exports them, found by search, undone, removed by
// text; exported as COMMENT properties and read back, an undated comment of another program too.
import Foundation
import XCTest

final class TasksAnnotateTests: PimTestCase {
    private func annotations(_ task: String) throws -> [[String: Any]] {
        let shown = try pim("tasks", "show", task, "--json")
        XCTAssertEqual(shown.status, 0, shown.stderr)
        return try XCTUnwrap((shown.json() as? [String: Any])?["annotations"] as? [[String: Any]])
    }

    private func texts(_ task: String) throws -> [String] {
        try annotations(task).compactMap { $0["description"] as? String }
    }

    func testAnnotationsAreDatedShownSearchedAndUndone() throws {
        XCTAssertEqual(try pim("tasks", "add", "Fix the roof", "--due", "2026-12-01").status, 0)
        let first = try pim("tasks", "annotate", "roof", "called", "Bob,", "left a message")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.hasSuffix("Fix the roof\n  2026-11-25 10:30 called Bob, left a message\n"), first.stdout)
        let later = try pim(arguments: ["tasks", "annotate", "1", "quote\narrived:\t2,400"], environment: testEnvironment(now: "2026-11-26T08:05:00"))
        XCTAssertEqual(later.status, 0, later.stderr)

        let list = try annotations("1")
        XCTAssertEqual(list.compactMap { $0["description"] as? String }, ["called Bob, left a message", "quote arrived: 2,400"],
                       "one line each, in the order added")
        XCTAssertEqual(list.compactMap { $0["entry"] as? String }, ["2026-11-25T10:30:00+01:00", "2026-11-26T08:05:00+01:00"])
        let shown = try pim("tasks", "show", "1")
        XCTAssertTrue(shown.stdout.contains("annotations  2026-11-25 10:30 called Bob, left a message\n"
                                            + "             2026-11-26 08:05 quote arrived: 2,400\n"), shown.stdout)
        let table = try pim("tasks", "list", "--fields", "number,annotations")
        XCTAssertTrue(table.stdout.contains("1  2026-11-25 10:30 called Bob, left a message; 2026-11-26 08:05 quote arrived: 2,400\n"),
                      "a list's cell has them on one line, apart: \(table.stdout)")
        let listed = try pim("tasks", "list", "--fields", "number,annotations", "--json")
        XCTAssertEqual((try XCTUnwrap(listed.json() as? [[String: Any]]).first?["annotations"] as? [Any])?.count, 2)
        let found = try pim("tasks", "search", "quote", "--json")
        XCTAssertEqual(try XCTUnwrap(found.json() as? [[String: Any]]).compactMap { $0["title"] as? String }, ["Fix the roof"],
                       "search reads annotations")

        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try texts("1"), ["called Bob, left a message"])
        XCTAssertEqual(try pim("redo").status, 0)
        XCTAssertEqual(try texts("1").count, 2)
    }

    func testDenotateRemovesByTextAndRefusesWhatItCannotTell() throws {
        XCTAssertEqual(try pim("tasks", "add", "Fix the roof").status, 0)
        XCTAssertEqual(try pim("tasks", "denotate", "1").status, 1, "no annotations")
        XCTAssertEqual(try pim("tasks", "annotate", "1").status, 2, "no text")
        XCTAssertEqual(try pim("tasks", "annotate", "1", "  ").status, 2, "blank text")
        for text in ["called Bob", "called Ann", "quote arrived", "Call"] {
            XCTAssertEqual(try pim("tasks", "annotate", "1", text).status, 0)
        }
        let ambiguous = try pim("tasks", "denotate", "1", "called")
        XCTAssertEqual(ambiguous.status, 4, ambiguous.stderr)
        XCTAssertTrue(ambiguous.stderr.contains("\"called\" is in 2 annotations of task 1 (Fix the roof):\n"), ambiguous.stderr)
        XCTAssertEqual(try pim("tasks", "denotate", "1", "nothing like it").status, 1)
        XCTAssertEqual(try texts("1"), ["called Bob", "called Ann", "quote arrived", "Call"], "nothing removed")

        // The exact text (any case) wins over those containing it; then a unique part; then the latest.
        XCTAssertEqual(try pim("tasks", "denotate", "1", "call").status, 0)
        XCTAssertEqual(try texts("1"), ["called Bob", "called Ann", "quote arrived"])
        let removed = try pim("tasks", "denotate", "1", "ANN")
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertTrue(removed.stdout.contains("  removed: 2026-11-25 10:30 called Ann\n"), removed.stdout)
        XCTAssertEqual(try pim("tasks", "denotate", "1").status, 0)
        XCTAssertEqual(try texts("1"), ["called Bob"])
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try texts("1"), ["called Bob", "quote arrived"])
    }

    func testAnnotationsTravelAsCommentsAndComeBack() throws {
        XCTAssertEqual(try pim("tasks", "add", "Fix the roof", "--due", "2026-12-01 17:00").status, 0)
        XCTAssertEqual(try pim("tasks", "annotate", "1", "quote: 2,400; ok").status, 0)
        let export = try pim("tasks", "export", "1")
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stdout.contains("COMMENT;X-PIM-ENTRY=20261125T093000Z:quote: 2\\,400\\; ok\r\n"), export.stdout)

        // Another program's to-do: one comment without a date, one with a date in another form.
        let other = export.stdout.replacingOccurrences(of: "END:VTODO", with: "COMMENT:Ask Ann\\nabout tiles\r\nCOMMENT;X-PIM-ENTRY=2026-11-20:seen\r\nEND:VTODO")
        let file = folder.appendingPathComponent("roof.ics")
        try other.write(to: file, atomically: true, encoding: .utf8)
        let imported = try pim(arguments: ["import", file.path, "--store", folder.appendingPathComponent("other.sqlite").path], useStoreOption: false)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let shown = try pim(arguments: ["tasks", "show", "1", "--json", "--store", folder.appendingPathComponent("other.sqlite").path], useStoreOption: false)
        let list = try XCTUnwrap((shown.json() as? [String: Any])?["annotations"] as? [[String: Any]])
        XCTAssertEqual(list.compactMap { $0["description"] as? String }, ["quote: 2,400; ok", "Ask Ann about tiles", "seen"])
        XCTAssertEqual(list.map { $0["entry"] as? String }, ["2026-11-25T10:30:00+01:00", nil, nil], "dates only where pim can read them")

        // Imported again without the comments: they go, as the file says.
        try export.stdout.replacingOccurrences(of: "COMMENT;X-PIM-ENTRY=20261125T093000Z:quote: 2\\,400\\; ok\r\n", with: "")
            .write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try pim(arguments: ["import", file.path, "--store", folder.appendingPathComponent("other.sqlite").path], useStoreOption: false).status, 0)
        let again = try pim(arguments: ["tasks", "show", "1", "--json", "--store", folder.appendingPathComponent("other.sqlite").path], useStoreOption: false)
        XCTAssertEqual(((try again.json() as? [String: Any])?["annotations"] as? [Any])?.count, 0)
    }

    func testTheRecordFileHasTheAnnotations() throws {
        XCTAssertEqual(try pim("tasks", "add", "Fix the roof").status, 0)
        XCTAssertEqual(try pim("tasks", "annotate", "1", "slate from Wales").status, 0)
        let file = try storeRecords().appendingPathComponent("Task/p1.pimtask")
        XCTAssertTrue(try String(contentsOf: file, encoding: .utf8).contains("slate from Wales"), "recoll indexes it")
    }
}
