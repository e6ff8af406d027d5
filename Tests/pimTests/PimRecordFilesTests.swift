// pim's record files, through the built binary: every change keeps one XHTML file per contact,
// event and task beside the store, `pim open` leads from a file back to its record, `pim records`
// prints the folder and rebuilds it, and the real recoll indexer, configured by Importers/recoll,
// finds records by field and follows them through edits and deletions.
import Foundation
import XCTest

final class PimRecordFilesTests: PimTestCase {
    func testEveryChangeKeepsTheRecordFilesOfContactsEventsAndTasks() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ada Lovelace", "--email", "ada@example.com", "--org", "Analytical Engines").status, 0)
        XCTAssertEqual(try pim("events", "add", "Talk at the Royal Society", "--start", "2026-12-03 15:00", "--location", "London").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Plant the tulips", "--tag", "garden", "--due", "2026-12-01").status, 0)
        let records = try storeRecords()
        XCTAssertEqual(records.deletingLastPathComponent().path, recordsRoot.path)
        let contact = records.appendingPathComponent("Person/p1.pimcontact")
        let event = records.appendingPathComponent("Event/p1.pimevent")
        let task = records.appendingPathComponent("Task/p1.pimtask")

        let page = try text(contact)
        XCTAssertTrue(page.contains("<title>Ada Lovelace</title>"), page)
        XCTAssertTrue(page.contains("<meta name=\"email\" content=\"ada@example.com\"/>"), page)
        XCTAssertTrue(page.contains("<meta name=\"org\" content=\"Analytical Engines\"/>"), page)
        // Dates are the wall-clock time of the run's zone (Berlin here), sortable as text.
        XCTAssertTrue(try text(event).contains("<meta name=\"dtstart\" content=\"20261203150000\"/>"))
        XCTAssertTrue(try text(event).contains("<meta name=\"location\" content=\"London\"/>"))
        XCTAssertTrue(try text(task).contains("<meta name=\"keywords\" content=\"garden\"/>"))

        XCTAssertEqual(try pim("contacts", "edit", "1", "--emails", "countess@example.org").status, 0)
        XCTAssertTrue(try text(contact).contains("countess@example.org"))
        XCTAssertFalse(try text(contact).contains("ada@example.com"))

        XCTAssertEqual(try pim("tasks", "delete", "1", "--yes").status, 0)
        XCTAssertFalse(exists(task))
        XCTAssertEqual(try pim("undo").status, 0)
        // Undo inserts the record again (same UUID and number, a new row): its file comes back
        // under the new row's key.
        let tasks = records.appendingPathComponent("Task")
        let restored = try FileManager.default.contentsOfDirectory(atPath: tasks.path)
        XCTAssertEqual(restored.count, 1)
        XCTAssertTrue(try text(tasks.appendingPathComponent(restored[0])).contains("<title>Plant the tulips</title>"))
        XCTAssertEqual(try pim("redo").status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tasks.path), [])
    }

    func testATaskRecordShowsItsAssigneeAndFollowsTheirRename() throws {
        XCTAssertEqual(try pim("contacts", "add", "Grace Hopper").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Find the moth", "--assignee", "Grace").status, 0)
        let task = try storeRecords().appendingPathComponent("Task/p1.pimtask")
        XCTAssertTrue(try text(task).contains("<meta name=\"assignee\" content=\"Grace Hopper\"/>"))
        XCTAssertEqual(try pim("contacts", "edit", "1", "--name", "Rear Admiral Grace Hopper").status, 0)
        XCTAssertTrue(try text(task).contains("<meta name=\"assignee\" content=\"Rear Admiral Grace Hopper\"/>"))
    }

    func testOpenShowsTheRecordAFileStandsFor() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ada Lovelace", "--email", "ada@example.com").status, 0)
        let file = try storeRecords().appendingPathComponent("Person/p1.pimcontact")

        let shown = try pim("open", file.path)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("Ada Lovelace"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("ada@example.com"), shown.stdout)
        let json = try XCTUnwrap(try pim("open", file.path, "--json").json() as? [String: Any])
        XCTAssertEqual(json["name"] as? String, "Ada Lovelace")

        let notARecord = try pim("open", folder.appendingPathComponent("pim.sqlite").path)
        XCTAssertEqual(notARecord.status, 2)
        XCTAssertTrue(notARecord.stderr.contains("not a pim record file"), notARecord.stderr)

        XCTAssertEqual(try pim("contacts", "delete", "1", "--yes").status, 0)
        XCTAssertFalse(exists(file))
        let gone = try pim("open", file.path)
        XCTAssertEqual(gone.status, 3, "the file's record was deleted: not found")
        XCTAssertTrue(gone.stderr.contains(file.path), gone.stderr)
    }

    func testOpenRefusesARecordOfAnotherStoreNamingIt() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ada Lovelace").status, 0)
        let file = try storeRecords().appendingPathComponent("Person/p1.pimcontact")
        let other = folder.appendingPathComponent("other/pim.sqlite")
        let run = try pim(arguments: ["open", file.path, "--store", other.path], useStoreOption: false)
        XCTAssertEqual(run.status, 8, run.stderr)
        XCTAssertTrue(run.stderr.contains("another store (\(store.path))"), run.stderr)
    }

    func testRecordsSyncRebuildsAMissingOrStaleFolder() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ada Lovelace").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Plant the tulips").status, 0)
        let records = try storeRecords()
        let task = records.appendingPathComponent("Task/p1.pimtask")
        try Data("stale".utf8).write(to: task)
        try Data("orphan".utf8).write(to: records.appendingPathComponent("Task/p99.pimtask"))

        let sync = try pim("records", "sync")
        XCTAssertEqual(sync.status, 0, sync.stderr)
        XCTAssertEqual(sync.stdout, "Wrote 1, removed 1, 1 up to date\n")
        XCTAssertTrue(try text(task).contains("<title>Plant the tulips</title>"))

        // A store whose folder is gone (removed, or made before record files) gets it back on opening.
        try FileManager.default.removeItem(at: recordsRoot)
        XCTAssertEqual(try pim("tasks", "list").status, 0)
        XCTAssertTrue(exists(task))
        XCTAssertTrue(exists(records.appendingPathComponent("Person/p1.pimcontact")))
    }

    func testPimRecordsChoosesTheFolderOrTurnsFilesOff() throws {
        let elsewhere = folder.appendingPathComponent("elsewhere", isDirectory: true)
        XCTAssertEqual(try pim(arguments: ["tasks", "add", "Water the plants"], environment: ["PIM_RECORDS": elsewhere.path]).status, 0)
        let path = try pim(arguments: ["records", "path"], environment: ["PIM_RECORDS": elsewhere.path])
        XCTAssertTrue(path.stdout.hasPrefix(elsewhere.path + "/"), path.stdout)
        XCTAssertTrue(exists(URL(fileURLWithPath: path.stdout.trimmingCharacters(in: .newlines)).appendingPathComponent("Task/p1.pimtask")))

        let off = ["PIM_RECORDS": "off"]
        XCTAssertEqual(try pim(arguments: ["tasks", "add", "Nowhere"], environment: off).status, 0)
        XCTAssertFalse(exists(recordsRoot), "PIM_RECORDS=off keeps no files")
        let sync = try pim(arguments: ["records", "sync"], environment: off)
        XCTAssertEqual(sync.status, 2)
        XCTAssertTrue(sync.stderr.contains("record files are off"), sync.stderr)
    }

    func testAFileThatCannotBeWrittenIsAWarningAndTheChangeIsSaved() throws {
        XCTAssertEqual(try pim("tasks", "add", "First").status, 0)
        let taskFolder = try storeRecords().appendingPathComponent("Task")
        try FileManager.default.removeItem(at: taskFolder)
        try Data("in the way".utf8).write(to: taskFolder)

        let run = try pim("tasks", "add", "Second")
        XCTAssertEqual(run.status, 0, "the store saved the task")
        XCTAssertTrue(run.stderr.contains("warning: 1 record file(s) not written"), run.stderr)
        XCTAssertTrue(run.stderr.contains(taskFolder.path), run.stderr)
        XCTAssertTrue(run.stderr.contains("pim records sync"), run.stderr)
        XCTAssertEqual(try pim("tasks", "show", "Second").status, 0)

        try FileManager.default.removeItem(at: taskFolder)
        XCTAssertEqual(try pim("records", "sync").stdout, "Wrote 2, removed 0, 0 up to date\n")
    }

    // MARK: The real indexer

    func testRecollFindsRecordsByFieldAndFollowsEditsAndDeletions() throws {
        let configuration = try recollConfiguration(indexing: recordsRoot)
        XCTAssertEqual(try pim("contacts", "add", "Ada Lovelace", "--email", "ada@example.com", "--org", "Analytical Engines").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Grace Hopper", "--email", "grace@example.com").status, 0)
        XCTAssertEqual(try pim("events", "add", "Lecture at the Café Central", "--start", "2026-12-03 15:00", "--location", "Café Central").status, 0)
        XCTAssertEqual(try pim("events", "add", "New year", "--start", "2027-01-01 00:00").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Plant the tulips", "--tag", "garden").status, 0)
        let records = try storeRecords()
        try recoll("recollindex", [], configuration: configuration)

        let ada = records.appendingPathComponent("Person/p1.pimcontact").path
        XCTAssertEqual(try recollSearch("email:ada@example.com", configuration: configuration), [ada])
        XCTAssertEqual(try recollSearch("org:analytical", configuration: configuration), [ada])
        XCTAssertEqual(try recollSearch("location:\"café central\"", configuration: configuration),
                       [records.appendingPathComponent("Event/p1.pimevent").path])
        XCTAssertEqual(try recollSearch("dtstart:20261201..20270101", configuration: configuration),
                       [records.appendingPathComponent("Event/p1.pimevent").path], "dates are range-searchable")
        XCTAssertEqual(try recollSearch("mime:application/x-pim-task keywords:garden", configuration: configuration),
                       [records.appendingPathComponent("Task/p1.pimtask").path])

        // A hit opens in pim (what mimeview and the desktop entry run).
        let opened = try pim("open", ada)
        XCTAssertEqual(opened.status, 0, opened.stderr)
        XCTAssertTrue(opened.stdout.contains("Ada Lovelace"), opened.stdout)

        // The index follows the files: an edit and a deletion, then an incremental pass.
        XCTAssertEqual(try pim("contacts", "edit", "Ada", "--emails", "countess@example.org").status, 0)
        XCTAssertEqual(try pim("contacts", "delete", "Grace", "--yes").status, 0)
        try recoll("recollindex", [], configuration: configuration)
        XCTAssertEqual(try recollSearch("email:ada@example.com", configuration: configuration), [])
        XCTAssertEqual(try recollSearch("email:countess@example.org", configuration: configuration), [ada])
        XCTAssertEqual(try recollSearch("email:grace@example.com", configuration: configuration), [], "a deleted record leaves the index")
        XCTAssertEqual(try recollSearch("ada", configuration: configuration).count, 1, "temporary files are never indexed")
    }
}
