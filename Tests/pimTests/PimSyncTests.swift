// `pim sync` end to end: the built binary on two temporary stores (two devices of one user) and a
// real Radicale server, which the tests also use directly as a third client (SyncTesting.swift).
import Foundation
import XCTest

final class PimSyncTests: SyncTestCase {
    /// `pim sync --json` on `storeURL`'s store, exiting `status`: each collection's report by URL.
    private func sync(on storeURL: URL? = nil, _ extra: String..., status: Int32 = 0) throws -> [String: [String: Any]] {
        let done = try syncRun(on: storeURL, extra)
        XCTAssertEqual(done.run.status, status, done.run.stderr)
        XCTAssertFalse(done.reports.isEmpty, done.run.stdout + done.run.stderr)
        return done.reports
    }

    // MARK: - Adding collections

    func testAddingAUserFolderNamesTheCollectionsUnderIt() throws {
        let home = try run("sync", "add", server.root.absoluteString + "alice/")
        XCTAssertEqual(home.status, 2)
        XCTAssertTrue(home.stderr.contains("is not a calendar or an address book"), home.stderr)
        XCTAssertTrue(home.stderr.contains("\(calendarURL) (calendar)"), home.stderr)
        XCTAssertTrue(home.stderr.contains("\(contactsURL) (address book)"), home.stderr)

        let missing = try run("sync", "add", server.root.absoluteString + "alice/nothing/")
        XCTAssertEqual(missing.status, 10)
        XCTAssertTrue(missing.stderr.contains("PROPFIND \(server.root.absoluteString)alice/nothing/: the server answered 404"), missing.stderr)

        try addCollections()
        let again = try run("sync", "add", calendarURL)
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("synced already"), again.stderr)

        let listed = try run("sync", "list", "--json")
        let collections = try XCTUnwrap(listed.json() as? [[String: Any]])
        XCTAssertEqual(collections.map { $0["url"] as? String }, [calendarURL, contactsURL])
        XCTAssertEqual(collections.map { $0["kind"] as? String }, ["calendar", "addressbook"])
        XCTAssertEqual(collections[0]["calendar"] as? String, "personal")
        XCTAssertEqual(collections[0]["name"] as? String, "Personal")
    }

    func testAServerThatCannotBeReachedExits10AndChangesNothing() throws {
        try addCollections()
        XCTAssertEqual(try run("tasks", "add", "Buy milk").status, 0)
        server.stop()
        let failed = try run("sync")
        XCTAssertEqual(failed.status, 10, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("REPORT \(calendarURL)"), failed.stderr)
        let listed = try run("sync", "list", "--json")
        let collections = try XCTUnwrap(listed.json() as? [[String: Any]])
        XCTAssertNil(collections[0]["synced"], "a failed sync is not a sync")
        XCTAssertEqual(try titles("tasks"), ["Buy milk"])
        let task = try XCTUnwrap(try list("tasks").first)
        XCTAssertNil(task["source"] as? String)
    }

    func testACollectionGoneFromTheServerKeepsNoOtherFromSyncing() throws {
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace").status, 0)
        XCTAssertEqual(try server.request("DELETE", "/alice/calendar/").status, 200)
        let partly = try run("sync")
        XCTAssertEqual(partly.status, 10, partly.stderr)
        XCTAssertTrue(partly.stderr.contains("REPORT \(calendarURL) (sync-collection): the server answered 404"), partly.stderr)
        XCTAssertTrue(partly.stdout.contains("\(contactsURL): 0 added, 0 updated, 0 deleted here; 1 sent"), partly.stdout)
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 1)
    }

    // MARK: - Two devices

    func testRecordsMadeOnOneStoreReachAnotherThroughTheServer() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Standup", "--start", "2026-11-30 09:00", "--repeat", "weekdays", "--calendar", "personal").status, 0)
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-12-03 10:00", "--end", "2026-12-03 10:45",
                               "--location", "Main St 1", "--calendar", "personal").status, 0)
        XCTAssertEqual(try run("events", "add", "Not synced", "--start", "2026-12-03 12:00", "--calendar", "work").status, 0)
        XCTAssertEqual(try run("tasks", "add", "Plan trip", "--due", "2026-12-20").status, 0)
        XCTAssertEqual(try run("tasks", "add", "Book hotel", "--parent", "1").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace", "--email", "ada@example.com", "--phone", "+44 20 1234").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Analytical Engines Ltd", "--kind", "organization").status, 0)

        let first = try sync()
        XCTAssertEqual(count(first[calendarURL], "sent"), 4, "two events (not the work one) and two tasks")
        XCTAssertEqual(count(first[contactsURL], "sent"), 2)
        XCTAssertEqual(try server.resources(in: "/alice/calendar/").count, 4)
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 2)
        let quiet = try sync()
        XCTAssertEqual(count(quiet[calendarURL], "sent") + count(quiet[calendarURL], "added") + count(quiet[calendarURL], "updated"), 0,
                       "a second sync has nothing to do")

        try addCollections(on: other)
        let second = try sync(on: other)
        XCTAssertEqual(count(second[calendarURL], "added"), 4)
        XCTAssertEqual(count(second[contactsURL], "added"), 2)
        XCTAssertEqual(try titles("events", on: other), ["Dentist", "Standup"])
        XCTAssertEqual(try titles("tasks", on: other), ["Book hotel", "Plan trip"])
        let events = try list("events", on: other)
        let dentist = try XCTUnwrap(events.first { $0["title"] as? String == "Dentist" })
        XCTAssertEqual(dentist["location"] as? String, "Main St 1")
        XCTAssertEqual(dentist["calendar"] as? String, "personal")
        let standup = try XCTUnwrap(events.first { $0["title"] as? String == "Standup" })
        XCTAssertEqual(standup["repeat"] as? String, try XCTUnwrap(try list("events").first { $0["title"] as? String == "Standup" })["repeat"] as? String)
        let subtask = try XCTUnwrap(try list("tasks", on: other).first { $0["title"] as? String == "Book hotel" })
        XCTAssertEqual((subtask["parent"] as? [String: Any])?["name"] as? String, "Plan trip", "\(subtask)")
        let contacts = try list("contacts", on: other)
        let ada = try XCTUnwrap(contacts.first { $0["name"] as? String == "Ada Lovelace" })
        XCTAssertEqual((ada["emails"] as? [[String: Any]])?.compactMap { $0["value"] as? String }, ["ada@example.com"], "\(ada)")
        let company = try XCTUnwrap(contacts.first { $0["name"] as? String == "Analytical Engines Ltd" })
        XCTAssertEqual(company["kind"] as? String, "organization", "\(company)")
        let back = try sync(on: other)
        XCTAssertEqual(count(back[calendarURL], "sent") + count(back[contactsURL], "sent"), 0, "what was read is not sent back")
    }

    func testChangesAndDeletionsGoBothWays() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-12-03 10:00", "--calendar", "personal").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace", "--email", "ada@example.com").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Charles Babbage").status, 0)
        _ = try sync()
        try addCollections(on: other)
        _ = try sync(on: other)

        // Changed on the other store: read here.
        XCTAssertEqual(try run("events", "edit", "Dentist", "--title", "Dentist (moved)", "--start", "2026-12-04 11:00", on: other).status, 0)
        let sent = try sync(on: other)
        XCTAssertEqual(count(sent[calendarURL], "sent"), 1)
        let read = try sync()
        XCTAssertEqual(count(read[calendarURL], "updated"), 1)
        let moved = try XCTUnwrap(try list("events").first)
        XCTAssertEqual(moved["title"] as? String, "Dentist (moved)")
        XCTAssertTrue((moved["start"] as? String ?? "").hasPrefix("2026-12-04"), "\(moved)")

        // Deleted here: deleted on the server and on the other store.
        XCTAssertEqual(try run("contacts", "delete", "Charles Babbage", "--yes").status, 0)
        let removed = try sync()
        XCTAssertEqual(count(removed[contactsURL], "removed"), 1)
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 1)
        let gone = try sync(on: other)
        XCTAssertEqual(count(gone[contactsURL], "deleted"), 1)
        XCTAssertEqual(try titles("contacts", on: other), ["Ada Lovelace"])

        // Another client deletes the event and adds a card: both seen here.
        let href = try XCTUnwrap(try server.resources(in: "/alice/calendar/").first)
        XCTAssertEqual(try server.request("DELETE", href).status, 200)
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:grace-1\r\nFN:Grace Hopper\r\nN:Hopper;Grace;;;\r\nEMAIL;TYPE=work:grace@example.com\r\nEND:VCARD\r\n"
        XCTAssertEqual(try server.request("PUT", "/alice/contacts/grace.vcf", headers: ["Content-Type": "text/vcard"], body: card).status, 201)
        let both = try sync()
        XCTAssertEqual(count(both[calendarURL], "deleted"), 1)
        XCTAssertEqual(count(both[contactsURL], "added"), 1)
        XCTAssertEqual(try titles("events"), [])
        XCTAssertEqual(try titles("contacts"), ["Ada Lovelace", "Grace Hopper"])

        // Changed here: the server's copy is pim's card, under its own UID.
        XCTAssertEqual(try run("contacts", "edit", "Grace Hopper", "--phones", "+1 555 0100").status, 0)
        XCTAssertEqual(count(try sync()[contactsURL], "sent"), 1)
        let text = try server.text(of: "/alice/contacts/grace.vcf")
        XCTAssertTrue(text.contains("UID:grace-1\r\n"), text)
        XCTAssertTrue(text.contains("+1 555 0100"), text)
    }

    func testAConflictIsLeftOnBothSidesUntilAPreferenceSettlesIt() throws {
        try addCollections()
        XCTAssertEqual(try run("tasks", "add", "Buy milk").status, 0)
        _ = try sync()
        try addCollections(on: other)
        _ = try sync(on: other)
        XCTAssertEqual(try run("tasks", "edit", "1", "--title", "Buy oat milk").status, 0)
        XCTAssertEqual(try run("tasks", "edit", "1", "--title", "Buy soy milk", on: other).status, 0)
        _ = try sync()

        let clash = try run("sync", on: other)
        XCTAssertEqual(clash.status, 5, clash.stderr)
        XCTAssertTrue(clash.stderr.contains("(task 1: Buy soy milk): changed here and on the server"), clash.stderr)
        XCTAssertTrue(clash.stderr.contains("--prefer"), clash.stderr)
        XCTAssertEqual(try titles("tasks", on: other), ["Buy soy milk"], "left as it is here")
        let href = try XCTUnwrap(try server.resources(in: "/alice/calendar/").first)
        XCTAssertTrue(try server.text(of: href).contains("SUMMARY:Buy oat milk"), "and on the server")
        XCTAssertEqual(try run("sync", on: other).status, 5, "still a conflict")

        let settled = try sync(on: other, "--prefer", "local")
        XCTAssertEqual(count(settled[calendarURL], "sent"), 1)
        XCTAssertTrue(try server.text(of: href).contains("SUMMARY:Buy soy milk"))
        XCTAssertEqual(count(try sync()[calendarURL], "updated"), 1)
        XCTAssertEqual(try titles("tasks"), ["Buy soy milk"])
    }

    func testDeletedHereButChangedThereComesBackWhenTheServerIsPreferred() throws {
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace").status, 0)
        _ = try sync()
        try addCollections(on: other)
        _ = try sync(on: other)
        XCTAssertEqual(try run("contacts", "edit", "Ada Lovelace", "--emails", "ada@example.org", on: other).status, 0)
        _ = try sync(on: other)
        XCTAssertEqual(try run("contacts", "delete", "Ada Lovelace", "--yes").status, 0)

        let clash = try run("sync")
        XCTAssertEqual(clash.status, 5)
        XCTAssertTrue(clash.stderr.contains("deleted here, changed on the server"), clash.stderr)
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 1, "not deleted on the server")
        let restored = try sync(on: nil, "--prefer", "server")
        XCTAssertEqual(count(restored[contactsURL], "added"), 1)
        let ada = try XCTUnwrap(try list("contacts").first)
        XCTAssertEqual(ada["name"] as? String, "Ada Lovelace")
        XCTAssertTrue("\(ada)".contains("ada@example.org"), "\(ada)")
    }

    func testDryRunReadsTheServerAndChangesNothing() throws {
        try addCollections()
        XCTAssertEqual(try run("tasks", "add", "Buy milk").status, 0)
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:g1\r\nFN:Grace Hopper\r\nN:Hopper;Grace;;;\r\nEND:VCARD\r\n"
        XCTAssertEqual(try server.request("PUT", "/alice/contacts/g1.vcf", headers: ["Content-Type": "text/vcard"], body: card).status, 201)
        let planned = try sync(on: nil, "--dry-run")
        XCTAssertEqual(count(planned[calendarURL], "sent"), 1)
        XCTAssertEqual(count(planned[contactsURL], "added"), 1)
        XCTAssertEqual(try server.resources(in: "/alice/calendar/"), [])
        XCTAssertEqual(try titles("contacts"), [])
        let done = try sync()
        XCTAssertEqual(count(done[calendarURL], "sent"), 1)
        XCTAssertEqual(count(done[contactsURL], "added"), 1)
    }

    func testAResourceTheStoreRefusesIsNamedAndTheOthersAreSynced() throws {
        try addCollections()
        let refused = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//other//EN\r\nBEGIN:VEVENT\r\nUID:odd-1\r\nDTSTAMP:20261120T100000Z\r\n"
            + "DTSTART:20261201T100000Z\r\nDTEND:20261201T110000Z\r\nSUMMARY:Last weekday\r\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let fine = refused.replacingOccurrences(of: "odd-1", with: "fine-1").replacingOccurrences(of: "Last weekday", with: "Lunch")
            .replacingOccurrences(of: "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1\r\n", with: "")
        XCTAssertEqual(try server.request("PUT", "/alice/calendar/odd.ics", headers: ["Content-Type": "text/calendar"], body: refused).status, 201)
        XCTAssertEqual(try server.request("PUT", "/alice/calendar/fine.ics", headers: ["Content-Type": "text/calendar"], body: fine).status, 201)

        let first = try run("sync")
        XCTAssertEqual(first.status, 7, first.stderr)
        XCTAssertTrue(first.stderr.contains("\(calendarURL)odd.ics (Event): "), first.stderr)
        XCTAssertTrue(first.stderr.contains("BYSETPOS"), first.stderr)
        XCTAssertEqual(try titles("events"), ["Lunch"])
        let again = try run("sync")
        XCTAssertEqual(again.status, 7, "read again, refused again: \(again.stderr)")
        XCTAssertEqual(try titles("events"), ["Lunch"])
        XCTAssertEqual(try server.resources(in: "/alice/calendar/").count, 2, "nothing deleted on the server")
    }

    // MARK: - Scope

    func testEachCalendarGetsItsOwnEventsAndTasksGoToTheFirstThatHoldsThem() throws {
        try server.makeCalendar("/alice/work/", name: "Work", components: ["VEVENT"])
        XCTAssertEqual(try run("sync", "add", server.root.absoluteString + "alice/work/").status, 0)
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Review", "--start", "2026-12-01 14:00", "--calendar", "Work").status, 0)
        XCTAssertEqual(try run("events", "add", "Dinner", "--start", "2026-12-01 19:00", "--calendar", "personal").status, 0)
        XCTAssertEqual(try run("tasks", "add", "Write report").status, 0)
        _ = try sync()
        let work = try server.resources(in: "/alice/work/")
        XCTAssertEqual(work.count, 1)
        XCTAssertTrue(try server.text(of: work[0]).contains("SUMMARY:Review"))
        let personal = try server.resources(in: "/alice/calendar/").map { try server.text(of: $0) }
        XCTAssertEqual(personal.count, 2, "the dinner and the task (the work calendar holds no to-dos)")
        XCTAssertTrue(personal.contains { $0.contains("SUMMARY:Dinner") })
        XCTAssertTrue(personal.contains { $0.contains("BEGIN:VTODO") && $0.contains("SUMMARY:Write report") })
    }

    func testAnEventMovedToAnotherCalendarMovesToItsCollection() throws {
        try server.makeCalendar("/alice/work/", name: "Work", components: ["VEVENT"])
        try addCollections()
        XCTAssertEqual(try run("sync", "add", server.root.absoluteString + "alice/work/", "--calendar", "work").status, 0)
        XCTAssertEqual(try run("events", "add", "Review", "--start", "2026-12-01 14:00", "--calendar", "personal").status, 0)
        _ = try sync()
        XCTAssertEqual(try server.resources(in: "/alice/calendar/").count, 1)
        try addCollections(on: other)
        XCTAssertEqual(try run("sync", "add", server.root.absoluteString + "alice/work/", "--calendar", "work", on: other).status, 0)
        _ = try sync(on: other)

        XCTAssertEqual(try run("events", "edit", "Review", "--calendar", "work").status, 0)
        let moved = try sync()
        XCTAssertEqual(count(moved[calendarURL], "removed"), 1)
        XCTAssertEqual(count(moved[server.root.absoluteString + "alice/work/"], "sent"), 1)
        XCTAssertEqual(try server.resources(in: "/alice/calendar/"), [])
        let work = try server.resources(in: "/alice/work/")
        XCTAssertEqual(work.count, 1)
        XCTAssertTrue(try server.text(of: work[0]).contains("SUMMARY:Review"))
        XCTAssertEqual(count(try sync()[calendarURL], "sent"), 0, "moved once")

        _ = try sync(on: other)
        let events = try list("events", on: other)
        XCTAssertEqual(events.map { $0["title"] as? String }, ["Review"], "one copy on the other store: \(events)")
        XCTAssertEqual(events.first?["calendar"] as? String, "work")
    }

    func testRecordsImportedFromAFileStayHere() throws {
        try addCollections()
        let file = folder.appendingPathComponent("phone.vcf")
        try Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Imported Person\r\nN:Person;Imported;;;\r\nEND:VCARD\r\n".utf8).write(to: file)
        XCTAssertEqual(try run("import", file.path).status, 0)
        XCTAssertEqual(try run("contacts", "add", "Made Here").status, 0)
        XCTAssertEqual(count(try sync()[contactsURL], "sent"), 1)
        let href = try XCTUnwrap(try server.resources(in: "/alice/contacts/").first)
        XCTAssertTrue(try server.text(of: href).contains("FN:Made Here"))
    }

    func testRemovingACollectionKeepsItsRecordsAndAddingItAgainTakesThemUp() throws {
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace").status, 0)
        _ = try sync()
        let removed = try run("sync", "remove", "contacts")
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.stdout, "Removed \(contactsURL)\n")
        XCTAssertEqual(try titles("contacts"), ["Ada Lovelace"])
        XCTAssertEqual(try run("sync", "add", contactsURL).status, 0)
        let again = try sync()
        XCTAssertEqual(count(again[contactsURL], "added"), 0)
        XCTAssertEqual(count(again[contactsURL], "sent"), 0)
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 1)
        XCTAssertEqual(try titles("contacts"), ["Ada Lovelace"])
    }

    func testUndoTakesBackWhatASyncReadAndTheNextSyncSendsTheUndoneState() throws {
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ada Lovelace").status, 0)
        _ = try sync()
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:g1\r\nFN:Grace Hopper\r\nN:Hopper;Grace;;;\r\nEND:VCARD\r\n"
        XCTAssertEqual(try server.request("PUT", "/alice/contacts/g1.vcf", headers: ["Content-Type": "text/vcard"], body: card).status, 201)
        XCTAssertEqual(count(try sync()[contactsURL], "added"), 1)
        let undone = try run("undo")
        XCTAssertEqual(undone.status, 0, undone.stderr)
        XCTAssertEqual(try titles("contacts"), ["Ada Lovelace"])
        // Undoing what a sync read is a change here: the card is deleted on the server too.
        XCTAssertEqual(count(try sync()[contactsURL], "removed"), 1)
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 1)
    }

    // MARK: - Accounts

    func testBasicAuthenticationAndDiscoveryFromTheServerRoot() throws {
        server.stop()
        server = try RadicaleServer(folder: folder.appendingPathComponent("secure"), users: ["alice": "s3cret"])
        try server.makeCalendar("/alice/calendar/", name: "Personal", user: ("alice", "s3cret"))
        try server.makeAddressBook("/alice/contacts/", user: ("alice", "s3cret"))
        let passwordFile = folder.appendingPathComponent("password")
        try Data("s3cret\n".utf8).write(to: passwordFile)

        let anonymous = try run("sync", "add", calendarURL)
        XCTAssertEqual(anonymous.status, 10)
        XCTAssertTrue(anonymous.stderr.contains("401 Unauthorized: no user name was given"), anonymous.stderr)

        let root = try run("sync", "add", server.root.absoluteString, "--user", "alice", "--password-file", passwordFile.path)
        XCTAssertEqual(root.status, 2, root.stderr)
        XCTAssertTrue(root.stderr.contains("\(calendarURL) (calendar)"), root.stderr)
        XCTAssertTrue(root.stderr.contains("\(contactsURL) (address book)"), root.stderr)

        XCTAssertEqual(try run("sync", "add", calendarURL, "--user", "alice", "--password-file", passwordFile.path).status, 0)
        XCTAssertEqual(try run("tasks", "add", "Buy milk").status, 0)
        XCTAssertEqual(count(try sync()[calendarURL], "sent"), 1)

        try Data("wrong\n".utf8).write(to: passwordFile)
        let refused = try run("sync")
        XCTAssertEqual(refused.status, 10)
        XCTAssertTrue(refused.stderr.contains("401 Unauthorized: the user name or password was refused"), refused.stderr)

        let byEnvironment = try run("sync", "add", contactsURL, "--user", "alice", environment: ["PIM_SYNC_PASSWORD": "s3cret"])
        XCTAssertEqual(byEnvironment.status, 0, byEnvironment.stderr)
    }
}
