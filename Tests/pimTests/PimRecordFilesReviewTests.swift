// Review of pim's record files through the built binary, against what pim(1) (RECORD FILES,
// ENVIRONMENT, EXIT STATUS), pim-record(5), README.md ("Desktop search") and Importers/ promise:
// the fields of each kind of record, changes that must reach the files of the records showing
// them, `pim open` on the paths a desktop or a user hands it, `pim records`, PIM_RECORDS, stores in
// unusual places, warnings, concurrent runs, the real recoll with Importers/recoll, and the demo.
// Each test checks one observable behaviour and quotes the doc it holds pim to.
import Foundation
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif

final class PimRecordFilesReviewTests: PimTestCase {
    // MARK: Helpers

    /// The content of the `<meta name="name">` of a record page, nil when it has none.
    private func meta(_ name: String, in page: String) -> String? {
        guard let start = page.range(of: "<meta name=\"\(name)\" content=\""),
              let end = page[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(page[start.upperBound..<end])
    }

    private func meta(_ name: String, of url: URL) throws -> String? {
        meta(name, in: try text(url))
    }

    /// Asserts that a pim run succeeded.
    private func ok(_ arguments: String..., environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws {
        let run = try pim(arguments: arguments, environment: environment)
        XCTAssertEqual(run.status, 0, "pim \(arguments.joined(separator: " ")): \(run.stderr)", file: file, line: line)
    }

    /// The names of the files in a folder, sorted (none when it is missing).
    /// The names in a folder, without dot files (the records folder's own `.store` and
    /// `.pending`, and temporary files). (Adjusted when fixing: `.store` came with the copy check.)
    private func names(in url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Runs pim in `directory` (not the temporary folder) without adding `--store`.
    private func pim(in directory: URL, _ arguments: [String], environment extra: [String: String] = [:]) throws -> PimRun {
        var environment = testEnvironment()
        environment.merge(extra) { $1 }
        return try run(pimURL.path, arguments, environment: environment, directory: directory)
    }

    // MARK: The fields pim-record(5) lists

    func testAPersonRecordShowsEveryDocumentedContactField() throws {
        try ok("contacts", "add", "Ada", "Lovelace", "--email", "ada@example.com", "--phone", "mobile:+44 7700 900001",
               "--address", "home:1 Main St;Springfield;IL;62701;USA", "--org", "Analytical Engines", "--title", "Engineer",
               "--nickname", "Countess", "--notes", "Poet of science")
        try ok("contacts", "group", "add", "Engineers", "Ada")
        let page = try text(try storeRecords().appendingPathComponent("Person/p1.pimcontact"))
        let expected = ["email": "ada@example.com", "phone": "+44 7700 900001", "org": "Analytical Engines", "jobtitle": "Engineer",
                        "nickname": "Countess", "notes": "Poet of science", "group": "Engineers", "givenname": "Ada", "familyname": "Lovelace"]
        for (field, value) in expected {
            XCTAssertEqual(meta(field, in: page), value, "pim-record(5) FIELDS: contacts show email, phone, address, group, notes; persons also givenname, familyname, nickname, jobtitle, org (\(field))")
        }
        XCTAssertNotNil(meta("address", in: page), "pim-record(5): contacts show their address")
        XCTAssertTrue(page.contains("<title>Ada Lovelace</title>"), "pim-record(5): <title> is the contact's name")
    }

    func testAnAddressListsItsPartsInTheDocumentedOrder() throws {
        try ok("contacts", "add", "Ada Lovelace", "--address", "home:1 Main St;Springfield;IL;62701;USA")
        let address = try meta("address", of: try storeRecords().appendingPathComponent("Person/p1.pimcontact"))
        XCTAssertEqual(address, "1 Main St Springfield 62701 IL USA",
                       "pim-record(5) FIELDS: \"address (street, locality, postal code, region, country)\"")
    }

    func testAnOrganizationHasItsOwnFolderAndOpensAsAnOrganization() throws {
        try ok("contacts", "add", "Ada Lovelace")
        try ok("contacts", "add", "Acme Corp", "--kind", "organization", "--email", "info@acme.example")
        let records = try storeRecords()
        let file = records.appendingPathComponent("Organization/p2.pimcontact")
        XCTAssertTrue(exists(file), "pim-record(5) SYNOPSIS: records/store-UUID/Organization/pN.pimcontact; found \(names(in: records))")
        let page = try text(file)
        XCTAssertEqual(meta("entity", in: page), "Organization", "pim-record(5): entity is Person, Organization, Event or Task")
        XCTAssertEqual(meta("email", in: page), "info@acme.example")
        XCTAssertNil(meta("givenname", in: page), "pim-record(5): givenname... are persons' fields only")
        let opened = try pim("open", file.path, "--json")
        XCTAssertEqual(opened.status, 0, opened.stderr)
        XCTAssertEqual((try opened.json() as? [String: Any])?["kind"] as? String, "organization", "pim(1): open shows the record as show does")
    }

    func testAnEventRecordShowsEveryDocumentedField() throws {
        try ok("contacts", "add", "Ada Lovelace")
        try ok("events", "add", "Talk", "--start", "2026-12-03 15:00", "--end", "2026-12-03 16:30", "--location", "Berlin",
               "--attendee", "Ada", "--calendar", "work", "--notes", "bring slides", "--status", "tentative")
        let page = try text(try storeRecords().appendingPathComponent("Event/p1.pimevent"))
        let expected = ["dtstart": "20261203150000", "dtend": "20261203163000", "location": "Berlin", "status": "tentative",
                        "calendar": "work", "attendee": "Ada Lovelace", "notes": "bring slides"]
        for (field, value) in expected {
            XCTAssertEqual(meta(field, in: page), value, "pim-record(5) FIELDS: events show dtstart, dtend, location, status, calendar, attendee, notes; dates in local time (\(field))")
        }
    }

    func testATaskRecordShowsEveryDocumentedField() throws {
        try ok("contacts", "add", "Grace Hopper")
        try ok("tasks", "add", "Plant tulips", "--tag", "garden", "--tag", "spring", "--due", "2026-12-01 12:00", "--priority", "H",
               "--project", "home.garden", "--assignee", "Grace", "--notes", "bulbs")
        let page = try text(try storeRecords().appendingPathComponent("Task/p1.pimtask"))
        let expected = ["due": "20261201120000", "status": "pending", "project": "home.garden", "keywords": "garden, spring",
                        "assignee": "Grace Hopper", "notes": "bulbs"]
        for (field, value) in expected {
            XCTAssertEqual(meta(field, in: page), value, "pim-record(5) FIELDS: tasks show due, status, priority, project, keywords (tags), assignee, notes (\(field))")
        }
        XCTAssertNotNil(meta("priority", in: page), "pim-record(5): tasks show their priority")
    }

    func testARecordIsWellFormedXHTMLWhateverTheName() throws {
        let name = "Zoë \"Z\" <O'Brien> & Co ✓"
        try ok("contacts", "add", name, "--notes", "a\u{1}b\rc")
        let file = try storeRecords().appendingPathComponent("Person/p1.pimcontact")
        let page = try text(file)
        XCTAssertTrue(page.contains("<title>Zoë &quot;Z&quot; &lt;O'Brien&gt; &amp; Co ✓</title>"), page)
        #if canImport(FoundationXML)
        let parser = XMLParser(data: try Data(contentsOf: file))
        XCTAssertTrue(parser.parse(), "pim-record(5) FORMAT: an XHTML 1.0 document in UTF-8: \(String(describing: parser.parserError))")
        #endif
    }

    func testGroupsAndTagsHaveNoRecordFiles() throws {
        try ok("contacts", "add", "Ada Lovelace")
        try ok("contacts", "group", "add", "Engineers", "Ada")
        try ok("tasks", "add", "Plant tulips", "--tag", "garden")
        XCTAssertEqual(names(in: try storeRecords()), ["Person", "Task"], "pim-record(5): one file per contact, event and task")
    }

    // MARK: Changes that reach the records showing them

    func testJoiningAGroupRewritesTheMembersRecord() throws {
        try ok("contacts", "add", "Ada Lovelace")
        try ok("contacts", "add", "Charles Babbage")
        try ok("contacts", "group", "add", "Engineers", "Ada", "Charles")
        try ok("contacts", "group", "add", "Poets", "Ada")
        let records = try storeRecords()
        XCTAssertEqual(try meta("group", of: records.appendingPathComponent("Person/p1.pimcontact")), "Engineers, Poets",
                       "pim-record(5): group (group names); a field with several values lists them separated by \", \"")
        XCTAssertEqual(try meta("group", of: records.appendingPathComponent("Person/p2.pimcontact")), "Engineers")
    }

    func testARenamedContactIsRenamedInTheEventsTheyAttend() throws {
        try ok("contacts", "add", "Grace Hopper")
        try ok("events", "add", "Review", "--start", "2026-12-03 15:00", "--attendee", "Grace")
        try ok("contacts", "edit", "1", "--name", "Admiral Grace Hopper")
        XCTAssertEqual(try meta("attendee", of: try storeRecords().appendingPathComponent("Event/p1.pimevent")), "Admiral Grace Hopper",
                       "pim-record(5): pim writes a file whenever a change touches what it shows ... those of the records it names (an event's attendees)")
    }

    func testChangingATasksTagsRewritesItsKeywords() throws {
        try ok("tasks", "add", "Plant tulips", "--tag", "garden")
        try ok("tasks", "edit", "1", "--tags", "bulbs,spring")
        XCTAssertEqual(try meta("keywords", of: try storeRecords().appendingPathComponent("Task/p1.pimtask")), "bulbs, spring",
                       "pim-record(5): keywords (the task's tags)")
    }

    func testDeletingAContactTakesItOutOfTheTasksAndEventsThatNamedIt() throws {
        try ok("contacts", "add", "Grace Hopper")
        try ok("tasks", "add", "Find the moth", "--assignee", "Grace")
        try ok("events", "add", "Review", "--start", "2026-12-03 15:00", "--attendee", "Grace")
        try ok("contacts", "delete", "Grace", "--yes")
        let records = try storeRecords()
        XCTAssertNil(try meta("assignee", of: records.appendingPathComponent("Task/p1.pimtask")), "pim(1): every deletion removes... records that named it rewritten")
        XCTAssertNil(try meta("attendee", of: records.appendingPathComponent("Event/p1.pimevent")))
    }

    func testAChangedOccurrenceHasItsOwnRecordAndGoesWithItsSeries() throws {
        try ok("events", "add", "Standup", "--start", "2026-11-26 09:15", "--duration", "15m", "--repeat", "daily", "--location", "Room 1")
        try ok("events", "edit", "Standup", "--occurrence", "2026-11-27", "--location", "Room 9")
        let events = try storeRecords().appendingPathComponent("Event")
        XCTAssertEqual(names(in: events), ["p1.pimevent", "p2.pimevent"], "pim(1): every contact, event and task has a record file")
        XCTAssertEqual(try meta("location", of: events.appendingPathComponent("p2.pimevent")), "Room 9")
        XCTAssertEqual(try meta("dtstart", of: events.appendingPathComponent("p2.pimevent")), "20261127091500")
        XCTAssertEqual(try meta("location", of: events.appendingPathComponent("p1.pimevent")), "Room 1")
        try ok("events", "delete", "1", "--yes")
        XCTAssertEqual(names(in: events), [], "pim(1): every deletion removes [the file], the changed occurrence's too")
    }

    func testDoneOnARepeatingTaskGivesTheNextOccurrenceAFile() throws {
        try ok("tasks", "add", "Water the plants", "--due", "2026-11-28 10:00", "--repeat", "weekly")
        try ok("tasks", "done", "1")
        let tasks = try storeRecords().appendingPathComponent("Task")
        XCTAssertEqual(names(in: tasks), ["p1.pimtask", "p2.pimtask"])
        XCTAssertEqual(try meta("status", of: tasks.appendingPathComponent("p1.pimtask")), "done")
        XCTAssertEqual(try meta("due", of: tasks.appendingPathComponent("p2.pimtask")), "20261205100000",
                       "the next occurrence `tasks done` adds is a task with a record file")
        XCTAssertEqual(try meta("status", of: tasks.appendingPathComponent("p2.pimtask")), "pending")
    }

    func testDeletingATaskRemovesItsSubtasksFiles() throws {
        try ok("tasks", "add", "Parent")
        try ok("tasks", "add", "Child", "--parent", "Parent")
        let tasks = try storeRecords().appendingPathComponent("Task")
        XCTAssertEqual(names(in: tasks), ["p1.pimtask", "p2.pimtask"])
        try ok("tasks", "delete", "Parent", "--yes")
        XCTAssertEqual(names(in: tasks), [], "pim(1): every deletion removes [its record file], subtasks included")
    }

    func testUndoAndRedoOfAnEditRewriteTheRecord() throws {
        try ok("contacts", "add", "Ada Lovelace", "--email", "ada@example.com")
        try ok("contacts", "edit", "1", "--emails", "countess@example.org")
        let file = try storeRecords().appendingPathComponent("Person/p1.pimcontact")
        try ok("undo")
        XCTAssertEqual(try meta("email", of: file), "ada@example.com", "pim(1): every command that changes records keeps [the files] up to date (undo and redo included)")
        try ok("redo")
        XCTAssertEqual(try meta("email", of: file), "countess@example.org")
    }

    func testUndoOfARenameRevertsTheRecordsThatNameTheContact() throws {
        try ok("contacts", "add", "Grace Hopper")
        try ok("tasks", "add", "Find the moth", "--assignee", "Grace")
        try ok("contacts", "edit", "1", "--name", "Admiral Hopper")
        try ok("undo")
        XCTAssertEqual(try meta("assignee", of: try storeRecords().appendingPathComponent("Task/p1.pimtask")), "Grace Hopper",
                       "pim(1): undo and redo included; pim-record(5): a task's assignee")
    }

    func testAChangeThatShowsNothingNewLeavesTheFileAlone() throws {
        try ok("tasks", "add", "Plant tulips", "--due", "2026-12-01 12:00")
        let file = try storeRecords().appendingPathComponent("Task/p1.pimtask")
        let before = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int
        try ok("tasks", "edit", "1", "--scheduled", "2026-11-30")
        let after = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int
        XCTAssertEqual(before, after, "pim-record(5): a file whose contents would not change is left alone")
    }

    func testRecordFilesAndFoldersArePrivate() throws {
        try ok("tasks", "add", "Plant tulips")
        let records = try storeRecords()
        for url in [recordsRoot, records, records.appendingPathComponent("Task")] {
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int, 0o700,
                           "pim-record(5): files and folders are private to their owner (0600, 0700): \(url.path)")
        }
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: records.appendingPathComponent("Task/p1.pimtask").path)[.posixPermissions] as? Int, 0o600)
    }

    func testSyncRemovesTemporaryFilesLeftByACrash() throws {
        try ok("tasks", "add", "Plant tulips")
        let tasks = try storeRecords().appendingPathComponent("Task")
        try Data("half".utf8).write(to: tasks.appendingPathComponent(".p1.pimtask.tmp"))
        let sync = try pim("records", "sync")
        XCTAssertEqual(sync.stdout, "Wrote 0, removed 0, 1 up to date\n")
        XCTAssertEqual(names(in: tasks), ["p1.pimtask"], "pim(1): records sync removes ... temporary files left by a crash")
    }

    // MARK: pim open

    func testOpenTakesAPathRelativeToTheCurrentFolder() throws {
        try ok("tasks", "add", "Plant tulips")
        let uuid = try storeRecords().lastPathComponent
        let sub = folder.appendingPathComponent("sub", isDirectory: true)
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let run = try pim(in: sub, ["open", "../records/\(uuid)/Task/p1.pimtask", "--store", store.path])
        XCTAssertEqual(run.status, 0, "pim(1): pim open FILE shows the record a record file stands for: \(run.stderr)")
        XCTAssertTrue(run.stdout.contains("Plant tulips"), run.stdout)
    }

    func testOpenThroughASymlinkedRecordsFolder() throws {
        try ok("tasks", "add", "Plant tulips")
        let uuid = try storeRecords().lastPathComponent
        let link = folder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: recordsRoot)
        let run = try pim("open", link.appendingPathComponent("\(uuid)/Task/p1.pimtask").path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("Plant tulips"), run.stdout)
    }

    func testOpenThroughASymlinkToTheStoresFolderIsNotAnotherStore() throws {
        try ok("tasks", "add", "Plant tulips")
        let link = folder.appendingPathComponent("my-tasks-store")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: try storeRecords())
        let run = try pim("open", link.appendingPathComponent("Task/p1.pimtask").path)
        XCTAssertEqual(run.status, 0, "pim(1): open shows the record a record file stands for; exit 8 only for \"a record file of another store\", but: \(run.stderr)")
        XCTAssertFalse(run.stderr.contains("another store (\(store.path))"), "the file is a record of this very store: \(run.stderr)")
    }

    func testOpenFollowsASymlinkToARecordFile() throws {
        try ok("tasks", "add", "Plant tulips")
        let link = folder.appendingPathComponent("tulips.pimtask")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: try storeRecords().appendingPathComponent("Task/p1.pimtask"))
        let run = try pim("open", link.path)
        XCTAssertEqual(run.status, 0, "pim(1) \"pim open file: shows the record a record file stands for\"; a link to a record file (a desktop shortcut) is refused: \(run.stderr)")
    }

    func testOpenRefusesAFolder() throws {
        try ok("tasks", "add", "Plant tulips")
        let run = try pim("open", try storeRecords().appendingPathComponent("Task").path)
        XCTAssertEqual(run.status, 2, "pim(1): a file that is not a record file exits 2: \(run.stderr)")
        XCTAssertEqual(run.stdout, "")
    }

    func testOpenRefusesATemporaryDotFile() throws {
        try ok("tasks", "add", "Plant tulips")
        let temporary = try storeRecords().appendingPathComponent("Task/.p1.pimtask.tmp")
        try Data("half".utf8).write(to: temporary)
        let run = try pim("open", temporary.path)
        XCTAssertEqual(run.status, 2, "pim-record(5): dot files are temporary and are not records; pim(1): not a record file exits 2")
    }

    func testOpenRefusesAFileWithoutARecordExtension() throws {
        try ok("tasks", "add", "Plant tulips")
        let other = try storeRecords().appendingPathComponent("Task/p1.txt")
        try Data("notes".utf8).write(to: other)
        let run = try pim("open", other.path)
        XCTAssertEqual(run.status, 2, "pim-record(5): extensions .pimcontact, .pimevent, .pimtask; pim(1): a file that is not a record file exits 2; got \(run.status): \(run.stdout)")
    }

    func testOpenOfADeletedRecordsFileExits3AndPrintsNoJSON() throws {
        try ok("tasks", "add", "Plant tulips")
        let file = try storeRecords().appendingPathComponent("Task/p1.pimtask")
        try ok("tasks", "delete", "1", "--yes")
        let run = try pim("open", file.path, "--json")
        XCTAssertEqual(run.status, 3, "pim(1): a record deleted since, 3")
        XCTAssertEqual(run.stdout, "", "pim(1): standard output carries only data")
    }

    func testOpenJSONIsTheJSONOfShow() throws {
        try ok("tasks", "add", "Plant tulips", "--tag", "garden")
        let opened = try pim("open", try storeRecords().appendingPathComponent("Task/p1.pimtask").path, "--json")
        let shown = try pim("tasks", "show", "1", "--json")
        XCTAssertEqual(opened.status, 0, opened.stderr)
        XCTAssertEqual(opened.stdout, shown.stdout, "pim(1): open shows the record as show does (with --json, its JSON)")
    }

    // MARK: pim records, warnings

    func testRecordsPathAndSyncJSON() throws {
        try ok("tasks", "add", "Plant tulips")
        let path = try XCTUnwrap(try pim("records", "path", "--json").json() as? [String: Any])
        XCTAssertEqual(path["folder"] as? String, try storeRecords().path)
        XCTAssertEqual(path["format"] as? String, "xhtml")
        XCTAssertEqual(path["pending"] as? Int, 0, "pim(1): records path --json: folder, format and pending")
        let sync = try XCTUnwrap(try pim("records", "sync", "--json").json() as? [String: Any])
        XCTAssertEqual(sync["unchanged"] as? Int, 1)
        XCTAssertEqual(sync["written"] as? Int, 0)
    }

    /// Makes the next task's file unwritable: a plain file where the Task folder goes.
    private func blockTaskFolder() throws -> URL {
        try ok("tasks", "add", "First")
        let taskFolder = try storeRecords().appendingPathComponent("Task")
        try FileManager.default.removeItem(at: taskFolder)
        try Data("in the way".utf8).write(to: taskFolder)
        return taskFolder
    }

    func testRecordsPathCountsTheFilesTheLastChangeCouldNotWrite() throws {
        _ = try blockTaskFolder()
        let add = try pim("tasks", "add", "Second")
        XCTAssertEqual(add.status, 0)
        XCTAssertTrue(add.stderr.contains("1 record file(s) not written"), add.stderr)
        let path = try XCTUnwrap(try pim("records", "path", "--json").json() as? [String: Any])
        XCTAssertEqual(path["pending"] as? Int, 1,
                       "pim(1): records path --json: pending, \"the number of files the last change could not write\"")
    }

    func testTheNextChangeWritesAFileAnEarlierChangeCouldNotWrite() throws {
        let taskFolder = try blockTaskFolder()
        XCTAssertEqual(try pim("tasks", "add", "Second").status, 0)
        try FileManager.default.removeItem(at: taskFolder)
        try ok("contacts", "add", "Ada Lovelace")
        XCTAssertTrue(exists(taskFolder.appendingPathComponent("p2.pimtask")),
                      "pim(1): a record file that cannot be written... pim \"tries the file again after the next change\"; Task/ holds \(names(in: taskFolder))")
    }

    func testTheWarningNamesTheFileThatWasNotWritten() throws {
        let taskFolder = try blockTaskFolder()
        let run = try pim("tasks", "add", "Second")
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains(taskFolder.appendingPathComponent("p2.pimtask").path),
                      "pim(1): \"pim prints a warning naming the file on standard error\": \(run.stderr)")
    }

    func testWarningsNeverReachStandardOutput() throws {
        let blocker = folder.appendingPathComponent("blocker")
        try Data("not a folder".utf8).write(to: blocker)
        let environment = ["PIM_RECORDS": blocker.path]
        let run = try pim(arguments: ["tasks", "add", "Plant tulips", "--json"], environment: environment)
        XCTAssertEqual(run.status, 0, "pim(1): a record file that cannot be written does not fail the command")
        XCTAssertEqual((try? run.json() as? [String: Any])?["title"] as? String, "Plant tulips", "pim(1): standard output carries only data: \(run.stdout)")
        XCTAssertTrue(run.stderr.contains("warning"), run.stderr)
        XCTAssertEqual(try pim("tasks", "show", "1").status, 0, "the store has the change")
    }

    // MARK: PIM_RECORDS and where stores are

    func testPimRecordsRelativeIsRelativeToTheCurrentFolder() throws {
        let run = try pim(arguments: ["tasks", "add", "Plant tulips"], environment: ["PIM_RECORDS": "rel/recs"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let records = try storeRecords(environment: ["PIM_RECORDS": "rel/recs"])
        XCTAssertEqual(records.deletingLastPathComponent().path, folder.appendingPathComponent("rel/recs").path,
                       "pim(1) PIM_RECORDS: relative to the current folder unless absolute")
        XCTAssertTrue(exists(records.appendingPathComponent("Task/p1.pimtask")))
    }

    func testPimRecordsTildeIsTheHomeFolder() throws {
        try ok("tasks", "add", "Plant tulips", environment: ["PIM_RECORDS": "~/my-records"])
        let records = try storeRecords(environment: ["PIM_RECORDS": "~/my-records"])
        XCTAssertEqual(records.deletingLastPathComponent().path, folder.appendingPathComponent("my-records").path,
                       "pim(1) PIM_RECORDS: with ~ for the home folder")
        XCTAssertTrue(exists(records.appendingPathComponent("Task/p1.pimtask")))
    }

    func testPimRecordsOffMakesRecordsPathExit2() throws {
        let run = try pim(arguments: ["records", "path", "--json"], environment: ["PIM_RECORDS": "off"])
        XCTAssertEqual(run.status, 2, "pim(1) EXIT STATUS 2: records with PIM_RECORDS=off")
        XCTAssertEqual(run.stdout, "")
    }

    func testTheDefaultStoresRecordsAreBesideItInXDGDataHome() throws {
        let run = try pim(arguments: ["tasks", "add", "Plant tulips"], useStoreOption: false)
        XCTAssertEqual(run.status, 0, run.stderr)
        let path = try pim(arguments: ["records", "path"], useStoreOption: false)
        XCTAssertTrue(path.stdout.hasPrefix(folder.appendingPathComponent("data/pim/records").path + "/"),
                      "pim(1): default: a records folder beside the store: \(path.stdout)")
    }

    func testARelativeStoreKeepsItsRecordsBesideItAndItsPathAbsolute() throws {
        let run = try pim(arguments: ["tasks", "add", "Plant tulips", "--store", "sub/my.sqlite"], useStoreOption: false)
        XCTAssertEqual(run.status, 0, run.stderr)
        let records = try storeRecords(["--store", "sub/my.sqlite"])
        XCTAssertEqual(records.deletingLastPathComponent().path, folder.appendingPathComponent("sub/records").path)
        XCTAssertEqual(try meta("storepath", of: records.appendingPathComponent("Task/p1.pimtask")),
                       folder.appendingPathComponent("sub/my.sqlite").path, "pim-record(5): storepath, the store file")
    }

    func testTwoStoresSideBySideKeepTheirOwnRecords() throws {
        let other = folder.appendingPathComponent("other.sqlite")
        try ok("tasks", "add", "Mine")
        let run = try pim(arguments: ["tasks", "add", "Theirs", "--store", other.path], useStoreOption: false)
        XCTAssertEqual(run.status, 0, run.stderr)
        let mine = try storeRecords()
        let theirs = try storeRecords(["--store", other.path])
        XCTAssertNotEqual(mine, theirs)
        XCTAssertEqual(mine.deletingLastPathComponent(), theirs.deletingLastPathComponent(), "both beside their stores, in one records folder")
        XCTAssertEqual(try pim("records", "sync").stdout, "Wrote 0, removed 0, 1 up to date\n")
        XCTAssertTrue(exists(theirs.appendingPathComponent("Task/p1.pimtask")), "a store's sync leaves another store's files alone")
        let wrongStore = try pim("open", theirs.appendingPathComponent("Task/p1.pimtask").path)
        XCTAssertEqual(wrongStore.status, 8, "pim(1): a record file of another store exits 8")
        XCTAssertTrue(wrongStore.stderr.contains(other.path), "naming that store's path: \(wrongStore.stderr)")
        let right = try pim(arguments: ["open", theirs.appendingPathComponent("Task/p1.pimtask").path, "--store", other.path], useStoreOption: false)
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertTrue(right.stdout.contains("Theirs"))
    }

    func testACopiedStoreDoesNotOverwriteTheOriginalsRecords() throws {
        try ok("tasks", "add", "Plant tulips")
        let copy = folder.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: store, to: copy)
        let edit = try pim(arguments: ["tasks", "edit", "1", "--title", "Sow radishes", "--store", copy.path], useStoreOption: false)
        XCTAssertEqual(edit.status, 0, edit.stderr)
        let original = try storeRecords().appendingPathComponent("Task/p1.pimtask")
        let writer = try meta("storepath", of: original) ?? ""
        XCTAssertTrue(try text(original).contains("<title>Plant tulips</title>"),
                      "pim-record(5): the files are derived from the store; a change in another store file (a copy) must not rewrite this store's record, now written by \(writer)")
    }

    // MARK: Concurrent runs

    func testConcurrentRunsEachWriteTheirRecords() throws {
        try ok("tasks", "add", "First", "--tag", "shared")
        var processes: [Process] = []
        for index in 1...8 {
            let process = Process()
            process.executableURL = pimURL
            process.arguments = ["tasks", "add", "Task \(index)", "--tag", "shared", "--store", store.path]
            process.environment = testEnvironment()
            process.currentDirectoryURL = folder
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            processes.append(process)
        }
        for process in processes { process.waitUntilExit() }
        XCTAssertEqual(processes.map(\.terminationStatus), Array(repeating: 0, count: 8), "pim(1) EXIT STATUS 5: runs that write at the same time take turns")
        let tasks = try storeRecords().appendingPathComponent("Task")
        let files = names(in: tasks)
        XCTAssertEqual(files.count, 9, "every task has its file: \(files)")
        for name in files {
            XCTAssertEqual(try meta("keywords", of: tasks.appendingPathComponent(name)), "shared", name)
        }
    }

    // MARK: The real indexer (Importers/recoll)

    /// A store with a person, an organization, events and tasks, indexed by recoll.
    private func indexedStore() throws -> (records: URL, configuration: URL) {
        let configuration = try recollConfiguration(indexing: recordsRoot)
        try ok("contacts", "add", "Ada Lovelace", "--email", "ada@example.com", "--email", "countess@example.org",
               "--phone", "+44 7700 900001", "--org", "Analytical Engines")
        try ok("contacts", "add", "Zoë Ångström")
        try ok("contacts", "group", "add", "Engineers", "Ada")
        try ok("events", "add", "Talk", "--start", "2026-12-03 15:00", "--location", "Berlin", "--attendee", "Ada")
        try ok("events", "add", "New year's eve party", "--start", "2026-12-31 12:00", "--location", "Berlin")
        try ok("events", "add", "Advent market", "--start", "2026-12-01")
        try ok("events", "add", "Autumn walk", "--start", "2026-11-20 12:00", "--location", "Berlin")
        try ok("tasks", "add", "Plant the tulips", "--tag", "garden", "--tag", "spring", "--project", "home.garden",
               "--priority", "H", "--assignee", "Ada", "--due", "2026-12-15 12:00")
        try ok("tasks", "add", "Rake the leaves", "--tag", "garden")
        try ok("tasks", "done", "2")
        let records = try storeRecords()
        try recoll("recollindex", [], configuration: configuration)
        return (records, configuration)
    }

    func testRecollFindsRecordsByTheAliasesOfFields() throws {
        let (records, configuration) = try indexedStore()
        let ada = records.appendingPathComponent("Person/p1.pimcontact").path
        XCTAssertEqual(try recollSearch("mail:ada@example.com", configuration: configuration), [ada], "Importers/recoll/fields: mail:x is email:x")
        XCTAssertEqual(try recollSearch("email:countess@example.org", configuration: configuration), [ada], "a second address is searchable")
        XCTAssertEqual(try recollSearch("company:analytical", configuration: configuration), [ada], "fields [aliases]: org = organization company")
        XCTAssertEqual(try recollSearch("organization:analytical", configuration: configuration), [ada])
    }

    func testRecollFindsRecordsByEveryPrefixedField() throws {
        let (records, configuration) = try indexedStore()
        let ada = records.appendingPathComponent("Person/p1.pimcontact").path
        let talk = records.appendingPathComponent("Event/p1.pimevent").path
        let tulips = records.appendingPathComponent("Task/p1.pimtask").path
        XCTAssertEqual(try recollSearch("phone:900001", configuration: configuration), [ada])
        XCTAssertEqual(try recollSearch("group:engineers", configuration: configuration), [ada])
        XCTAssertEqual(try recollSearch("attendee:lovelace", configuration: configuration), [talk])
        XCTAssertEqual(try recollSearch("assignee:ada", configuration: configuration), [tulips])
        XCTAssertEqual(try recollSearch("project:home.garden", configuration: configuration), [tulips])
        XCTAssertEqual(try recollSearch("keywords:spring", configuration: configuration), [tulips])
        XCTAssertEqual(try recollSearch("priority:1..3", configuration: configuration), [tulips], "fields [values]: priority is an int range")
        XCTAssertEqual(try recollSearch("zoë", configuration: configuration), [records.appendingPathComponent("Person/p2.pimcontact").path])
    }

    func testRecollFindsTheReadmesTaskQuery() throws {
        let (records, configuration) = try indexedStore()
        XCTAssertEqual(try recollSearch("mime:application/x-pim-task keywords:garden status:pending", configuration: configuration),
                       [records.appendingPathComponent("Task/p1.pimtask").path],
                       "Importers/README.md: recollq 'mime:application/x-pim-task keywords:garden status:pending'")
    }

    func testRecollReturnsTheStoredFieldsOfAHit() throws {
        let (records, configuration) = try indexedStore()
        let output = try recoll("recollq", ["-F", "objecturi email", "email:ada@example.com"], configuration: configuration)
        let line = try XCTUnwrap(output.split(separator: "\n").last)
        let values = line.split(separator: " ").map { String(decoding: Data(base64Encoded: String($0)) ?? Data(), as: UTF8.self) }
        XCTAssertEqual(values, ["x-objectgraph://\(records.lastPathComponent)/Person/p1", "ada@example.com, countess@example.org"],
                       "Importers/README.md: the fields a hit returns (recollq -F 'objecturi email')")
    }

    func testRecollDateRangeIncludesItsLastDay() throws {
        let (records, configuration) = try indexedStore()
        // (Adjusted when fixing: the documented query now names the day's last second.)
        XCTAssertEqual(try recollSearch("dtstart:20261201..20270101 location:Berlin", configuration: configuration),
                       [records.appendingPathComponent("Event/p1.pimevent").path, records.appendingPathComponent("Event/p2.pimevent").path],
                       "pim-record(5) EXAMPLES: recollq 'dtstart:20261201..20270101 location:Berlin' (the event at 2026-12-31 12:00 is in December)")
    }

    func testRecollDateRangeFindsAnAllDayEventOnItsFirstDay() throws {
        let (records, configuration) = try indexedStore()
        let indexed = try meta("dtstart", of: records.appendingPathComponent("Event/p3.pimevent")) ?? "nothing"
        XCTAssertTrue(try recollSearch("dtstart:20261201..20270101", configuration: configuration)
                        .contains(records.appendingPathComponent("Event/p3.pimevent").path),
                      "README \"Desktop search\": 'dtstart:20261201..20270101'; the all-day event of 2026-12-01 is indexed as \(indexed)")
    }

    func testRecollFollowsADoneTask() throws {
        let (records, configuration) = try indexedStore()
        XCTAssertEqual(try recollSearch("status:done keywords:garden", configuration: configuration),
                       [records.appendingPathComponent("Task/p2.pimtask").path])
    }

    // MARK: Importers/freedesktop, the demo

    func testTheDesktopsMimeTypesAreTheFilesPimWrites() throws {
        let package = try text(repositoryRoot.appendingPathComponent("Importers/freedesktop/pim-records.xml"))
        let mimemap = try text(repositoryRoot.appendingPathComponent("Importers/recoll/mimemap"))
        let desktop = try text(repositoryRoot.appendingPathComponent("Importers/freedesktop/pim.desktop"))
        for (type, ext) in [("application/x-pim-contact", "pimcontact"), ("application/x-pim-event", "pimevent"), ("application/x-pim-task", "pimtask")] {
            XCTAssertTrue(package.contains("<mime-type type=\"\(type)\">"), "pim-record(5): MIME type \(type)")
            XCTAssertTrue(package.contains("<glob pattern=\"*.\(ext)\""), ext)
            XCTAssertTrue(mimemap.contains(".\(ext) = \(type)"), ext)
            XCTAssertTrue(desktop.contains(type), type)
        }
        try ok("contacts", "add", "Ada Lovelace")
        try ok("events", "add", "Talk", "--start", "2026-12-03 15:00")
        try ok("tasks", "add", "Plant tulips")
        let records = try storeRecords()
        XCTAssertEqual(names(in: records.appendingPathComponent("Person")), ["p1.pimcontact"])
        XCTAssertEqual(names(in: records.appendingPathComponent("Event")), ["p1.pimevent"])
        XCTAssertEqual(names(in: records.appendingPathComponent("Task")), ["p1.pimtask"])
    }

    func testTheDemoScriptShowsARecordFileOpenedInPim() throws {
        var environment = testEnvironment()
        environment["PIM"] = pimURL.path
        environment["PIM_STORE"] = folder.appendingPathComponent("demo/demo.sqlite").path
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("demo"), withIntermediateDirectories: true)
        let result = try run("/bin/sh", [repositoryRoot.appendingPathComponent("Data/demo.sh").path], environment: environment, directory: repositoryRoot)
        XCTAssertEqual(result.status, 0, "Data/demo.sh: \(result.stderr)")
        XCTAssertTrue(result.stdout.contains("record files: 15 in \(folder.path)/demo/records/"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Ada Lovelace"), "the demo ends with a record file opened in pim: \(result.stdout)")
    }
}
