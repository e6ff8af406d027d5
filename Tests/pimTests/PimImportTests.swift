// `pim import` end to end: the built binary reads the corpus's web-service feeds (EWS, xCard,
// xCal, GData, CalDAV/CardDAV, RSS/Atom) into a temporary store, and what it stored is read back
// through pim's own commands.
import Foundation
import XCTest

final class PimImportTests: PimTestCase {
    /// `../shared/corpus/feeds` beside the checkout, as CI lays it out.
    static let feeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/feeds")

    func feed(_ name: String) -> String { Self.feeds.appendingPathComponent(name).path }

    /// Runs `pim import --json` and returns its one summary.
    func importSummary(_ arguments: String...) throws -> [String: Any] {
        let run = try pim(arguments: ["import", "--json"] + arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let summaries = try XCTUnwrap(run.json() as? [[String: Any]], run.stdout)
        return try XCTUnwrap(summaries.first)
    }

    func list(_ kind: String) throws -> [[String: Any]] {
        let run = try pim(kind, "list", "--json")
        return run.status == 1 ? [] : try XCTUnwrap(run.json() as? [[String: Any]], run.stderr)
    }

    func testEveryCorpusFeedIsRecognizedAndImported() throws {
        let expected: [(file: String, format: String, added: Int)] = [
            ("ews-getitem-contact-response.xml", "ews", 2), ("ews-getitem-task-response.xml", "ews", 1),
            ("ews-getitem-calendaritem-response.xml", "ews", 1), ("ews-finditem-calendarview-response.xml", "ews", 3),
            ("xcard-rfc6351.xml", "xcard", 2), ("xcal-rfc6321.xml", "xcal", 4),
            ("gdata-contacts-v3-feed.xml", "gdata-contacts", 2), ("gdata-calendar-events-feed.xml", "gdata-calendar", 3),
            ("carddav-addressbook-query-response.raw.xml", "dav", 2), ("caldav-calendar-query-response.raw.xml", "dav", 3),
            ("caldav-calendar-query-vtodo-response.raw.xml", "dav", 1), ("rss10-mod-event.rdf", "rss-event", 2),
            ("rss20-draft-xcal-events.xml", "rss-xcal", 2), ("atom-xcal-embedded-events.xml", "atom-xcal", 2),
        ]
        for (file, format, added) in expected {
            let summary = try importSummary(feed(file))
            XCTAssertEqual(summary["format"] as? String, format, file)
            XCTAssertEqual(summary["added"] as? Int, added, file)
        }
        XCTAssertEqual(try list("contacts").count, 8)
        XCTAssertEqual(try list("tasks").count, 3)
    }

    func testImportingAFeedAgainChangesNothing() throws {
        _ = try importSummary(feed("ews-getitem-contact-response.xml"))
        let before = try list("contacts")
        let again = try importSummary(feed("ews-getitem-contact-response.xml"))
        XCTAssertEqual(again["added"] as? Int, 0)
        XCTAssertEqual(again["updated"] as? Int, 0)
        XCTAssertEqual(again["unchanged"] as? Int, 2)
        XCTAssertEqual(try list("contacts").map { $0["modified"] as? String }, before.map { $0["modified"] as? String })
    }

    func testAChangedRecordUpdatesItsContactInPlace() throws {
        _ = try importSummary(feed("ews-getitem-contact-response.xml"))
        let text = try String(contentsOfFile: feed("ews-getitem-contact-response.xml"), encoding: .utf8)
            .replacingOccurrences(of: "Lead engineer", with: "CTO")
        let changed = folder.appendingPathComponent("changed.xml")
        try text.write(to: changed, atomically: true, encoding: .utf8)
        let summary = try importSummary(changed.path)
        XCTAssertEqual(summary["updated"] as? Int, 1)
        XCTAssertEqual(summary["unchanged"] as? Int, 1)
        let zoe = try XCTUnwrap(try list("contacts").first { $0["name"] as? String == "Zoë Müller" })
        XCTAssertEqual(zoe["jobTitle"] as? String, "CTO")
        XCTAssertEqual(try list("contacts").count, 2)
    }

    func testEWSContactKeepsNamesOrganizationAddressesAndLabelledPhones() throws {
        _ = try importSummary(feed("ews-getitem-contact-response.xml"))
        let run = try pim("contacts", "show", "Zoë", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let zoe = try XCTUnwrap(run.json() as? [String: Any])
        XCTAssertEqual(zoe["givenName"] as? String, "Zoë")
        XCTAssertEqual(zoe["familyName"] as? String, "Müller")
        XCTAssertEqual(zoe["organization"] as? String, "Acme Corp")
        XCTAssertEqual(zoe["birthday"] as? String, "1985-02-03")
        XCTAssertEqual(zoe["source"] as? String, "ews")
        XCTAssertEqual(zoe["externalID"] as? String, "AAAtAEB=")
        let text = try pim("contacts", "show", "Zoë").stdout
        XCTAssertTrue(text.contains("+49 170 555 0199 (mobile)"), text)
        XCTAssertTrue(text.contains("Hauptstraße 5"), text)
    }

    func testExchangeAllDayEventFallsOnItsDayInItsWindowsTimeZone() throws {
        _ = try importSummary(feed("ews-finditem-calendarview-response.xml"))
        let offsite = try XCTUnwrap(try list("events").first { ($0["title"] as? String)?.hasPrefix("Company offsite") == true })
        XCTAssertEqual(offsite["allDay"] as? Bool, true)
        XCTAssertEqual(offsite["start"] as? String, "2024-06-15")
        let master = try importSummary(feed("ews-getitem-calendaritem-response.xml"))
        XCTAssertEqual(master["added"] as? Int, 1)
        let standup = try XCTUnwrap(try list("events").first { $0["externalID"] as? String == "AAMkAGI1MASTER=" })
        XCTAssertEqual(standup["timeZone"] as? String, "Europe/Berlin")
        XCTAssertEqual(standup["start"] as? String, "2024-06-03T09:00:00+02:00")
        XCTAssertEqual(standup["notes"] as? String, "Agenda: blockers & priorities")
        XCTAssertEqual(standup["repeat"] as? String, "FREQ=WEEKLY;COUNT=8;BYDAY=MO")
        XCTAssertEqual(standup["skipped"] as? [String], ["2024-06-10T09:00:00+02:00", "2024-06-17T09:00:00+02:00"],
                       "the deleted occurrence and the one changed on its own")
    }

    func testCalDAVEventKeepsItsRuleExceptionAndZonedStart() throws {
        _ = try importSummary(feed("caldav-calendar-query-response.raw.xml"))
        let events = try list("events")
        let standup = try XCTUnwrap(events.first { $0["title"] as? String == "Weekly standup" })
        XCTAssertEqual(standup["repeat"] as? String, "FREQ=WEEKLY;COUNT=8;BYDAY=MO")
        XCTAssertEqual(standup["end"] as? String, "2024-06-03T09:30:00+02:00")
        XCTAssertEqual(standup["skipped"] as? [String], ["2024-06-10T09:00:00+02:00", "2024-06-17T09:00:00+02:00"])
        let offsite = try XCTUnwrap(events.first { ($0["title"] as? String)?.hasPrefix("Company offsite") == true })
        XCTAssertEqual(offsite["allDay"] as? Bool, true)
        XCTAssertEqual(offsite["start"] as? String, "2024-06-15")
    }

    func testAMemberGoneFromTheCollectionIsDeleted() throws {
        _ = try importSummary(feed("caldav-calendar-query-response.raw.xml"))
        let gone = """
            <?xml version="1.0" encoding="utf-8"?>
            <multistatus xmlns="DAV:"><sync-token>t2</sync-token>\
            <response><href>/alice/work/event2.ics</href><status>HTTP/1.1 404 Not Found</status></response></multistatus>
            """
        let url = folder.appendingPathComponent("sync.xml")
        try gone.write(to: url, atomically: true, encoding: .utf8)
        let summary = try importSummary(url.path)
        XCTAssertEqual(summary["deleted"] as? Int, 1)
        XCTAssertFalse(try list("events").contains { ($0["title"] as? String)?.hasPrefix("Company offsite") == true })
        XCTAssertEqual(try list("events").count, 3, "the series, its moved occurrence and the planning meeting")
    }

    func testMalformedFeedNamesLineAndColumnAndImportsNothing() throws {
        _ = try importSummary(feed("xcard-rfc6351.xml"))
        let broken = folder.appendingPathComponent("broken.xml")
        let text = try String(contentsOfFile: feed("ews-getitem-contact-response.xml"), encoding: .utf8)
            .replacingOccurrences(of: "</t:JobTitle>\n              <t:Surname>Müller", with: "</t:Job>\n              <t:Surname>Müller")
        try text.write(to: broken, atomically: true, encoding: .utf8)
        let run = try pim("import", broken.path)
        XCTAssertEqual(run.status, 9, run.stderr)
        XCTAssertTrue(run.stderr.contains("broken.xml:"), run.stderr)
        XCTAssertTrue(run.stderr.range(of: #"broken\.xml:\d+:\d+: "#, options: .regularExpression) != nil, run.stderr)
        XCTAssertEqual(try list("contacts").count, 2, "the first, well-formed contacts of the broken feed are not kept")
    }

    func testARefusedRecordFailsTheImportUnlessSkipped() throws {
        let text = """
            <?xml version="1.0"?>
            <icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0"><vcalendar><components>
            <vevent><properties><uid><text>a</text></uid><summary><text>Fine</text></summary>
            <dtstart><date-time>2024-06-10T09:00:00Z</date-time></dtstart></properties></vevent>
            <vevent><properties><uid><text>b</text></uid><summary><text>No start</text></summary></properties></vevent>
            </components></vcalendar></icalendar>
            """
        let url = folder.appendingPathComponent("cal.xml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let strict = try pim("import", url.path)
        XCTAssertEqual(strict.status, 7, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("cal.xml:5: Event \"b\""), strict.stderr)
        XCTAssertEqual(try list("events").count, 0)
        let skipping = try pim("import", "--skip-invalid", url.path)
        XCTAssertEqual(skipping.status, 7, skipping.stderr)
        XCTAssertTrue(skipping.stdout.contains("1 added"), skipping.stdout)
        XCTAssertTrue(skipping.stderr.contains("cal.xml:5"), skipping.stderr)
        XCTAssertEqual(try list("events").map { $0["title"] as? String }, ["Fine"])
    }

    func testUndoTakesBackAWholeImport() throws {
        _ = try importSummary(feed("gdata-contacts-v3-feed.xml"))
        XCTAssertEqual(try list("contacts").count, 2)
        let undo = try pim("undo")
        XCTAssertEqual(undo.status, 0, undo.stderr)
        XCTAssertEqual(try list("contacts").count, 0)
    }

    func testDryRunReportsAndChangesNothing() throws {
        let run = try pim("import", "--dry-run", feed("xcal-rfc6321.xml"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("Would import"), run.stdout)
        XCTAssertTrue(run.stdout.contains("4 added"), run.stdout)
        XCTAssertEqual(try list("events").count, 0)
    }

    func testSourcesKeepRecordsWithTheSameKeyApart() throws {
        _ = try importSummary("--source", "work", feed("ews-getitem-task-response.xml"))
        let other = try importSummary("--source", "home", feed("ews-getitem-task-response.xml"))
        XCTAssertEqual(other["added"] as? Int, 1)
        XCTAssertEqual(Set(try list("tasks").compactMap { $0["source"] as? String }), ["work", "home"])
    }

    func testAMappingOfTheUsersOwnImportsItsFormat() throws {
        let mapping = """
            {"name": "notes", "namespaces": {"n": "urn:example:notes"},
             "records": [{"select": "n:note", "entity": "Task", "key": "@id",
                          "attributes": {"title": "n:title", "due": {"xpath": "n:due", "type": "date"},
                                         "priority": {"xpath": "@importance", "map": {"high": "1"}, "mapOnly": true, "type": "int"}}}]}
            """
        let feedText = """
            <notes xmlns="urn:example:notes"><note id="7" importance="high"><title>Renew passport</title><due>2026-12-01</due></note></notes>
            """
        let mappingURL = folder.appendingPathComponent("notes.json")
        let feedURL = folder.appendingPathComponent("notes.xml")
        try mapping.write(to: mappingURL, atomically: true, encoding: .utf8)
        try feedText.write(to: feedURL, atomically: true, encoding: .utf8)
        let summary = try importSummary("--mapping", mappingURL.path, feedURL.path)
        XCTAssertEqual(summary["format"] as? String, "notes")
        let task = try XCTUnwrap(try list("tasks").first)
        XCTAssertEqual(task["title"] as? String, "Renew passport")
        XCTAssertEqual(task["priority"] as? String, "H")
        XCTAssertEqual((task["due"] as? String)?.prefix(10), "2026-12-01")
    }

    func testABadMappingIsNamedWithItsPlace() throws {
        let mappingURL = folder.appendingPathComponent("bad.json")
        try #"{"name": "bad", "records": [{"select": "x", "entity": "Task", "key": "@id", "attributes": {"titel": "y"}}]}"#
            .write(to: mappingURL, atomically: true, encoding: .utf8)
        let run = try pim("import", "--mapping", mappingURL.path, feed("xcal-rfc6321.xml"))
        XCTAssertEqual(run.status, 9, run.stderr)
        XCTAssertTrue(run.stderr.contains("bad.json: records[0].attributes.titel: Task has no attribute titel"), run.stderr)
    }

    func testAnUnknownDocumentAsksForAFormat() throws {
        let url = folder.appendingPathComponent("plain.xml")
        try "<a/>".write(to: url, atomically: true, encoding: .utf8)
        let run = try pim("import", url.path)
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("--format"), run.stderr)
    }

    func testAttendeesAreTheContactsWithTheirAddressesAndTagsAreFoundOrMadeByName() throws {
        _ = try importSummary(feed("ews-getitem-contact-response.xml"))
        let tag = try pim("tasks", "add", "Existing", "--tag", "work")
        XCTAssertEqual(tag.status, 0, tag.stderr)
        _ = try importSummary(feed("xcal-rfc6321.xml"))
        let planning = try XCTUnwrap(try list("events").first { ($0["title"] as? String)?.hasPrefix("Café planning") == true })
        XCTAssertEqual((planning["attendees"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["Zoë Müller"])
        XCTAssertNil(planning["organizer"] as? [String: Any], "jane.smith@example.com is no contact: no organizer is made up")
        let budget = try XCTUnwrap(try list("tasks").first { $0["title"] as? String == "Send Q3 budget to finance" })
        XCTAssertEqual(budget["tags"] as? [String], ["work"], "CATEGORIES Work is the existing tag work")
        let again = try importSummary(feed("xcal-rfc6321.xml"))
        XCTAssertEqual(again["unchanged"] as? Int, 4)
    }

    func testAnExchangeDeleteChangeDeletesTheContact() throws {
        _ = try importSummary(feed("ews-getitem-contact-response.xml"))
        let sync = """
            <?xml version="1.0" encoding="utf-8"?>
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>
            <m:SyncFolderItemsResponse xmlns:m="http://schemas.microsoft.com/exchange/services/2006/messages"
                xmlns:t="http://schemas.microsoft.com/exchange/services/2006/types"><m:ResponseMessages>
            <m:SyncFolderItemsResponseMessage ResponseClass="Success"><m:ResponseCode>NoError</m:ResponseCode>
            <m:SyncState>H4sI</m:SyncState><m:IncludesLastItemInRange>true</m:IncludesLastItemInRange>
            <m:Changes><t:Delete><t:ItemId Id="AAAtAEA=" ChangeKey="EQAAABYq"/></t:Delete></m:Changes>
            </m:SyncFolderItemsResponseMessage></m:ResponseMessages></m:SyncFolderItemsResponse></s:Body></s:Envelope>
            """
        let url = folder.appendingPathComponent("sync.xml")
        try sync.write(to: url, atomically: true, encoding: .utf8)
        let summary = try importSummary(url.path)
        XCTAssertEqual(summary["deleted"] as? Int, 1)
        XCTAssertEqual(try list("contacts").map { $0["name"] as? String }, ["Zoë Müller"])
    }

    func testAnOccurrenceChangedOnItsOwnIsAnEventReplacingItsStart() throws {
        _ = try importSummary(feed("caldav-calendar-query-response.raw.xml"))
        let moved = try XCTUnwrap(try list("events").first { $0["title"] as? String == "Weekly standup (moved)" })
        XCTAssertEqual(moved["start"] as? String, "2024-06-10T10:00:00+02:00")
        XCTAssertEqual(moved["end"] as? String, "2024-06-10T10:30:00+02:00")
        XCTAssertEqual(moved["replaces"] as? String, "2024-06-10T09:00:00+02:00")
        XCTAssertEqual((moved["series"] as? [String: Any])?["name"] as? String, "Weekly standup")
        let agenda = try agendaEvents(days: 15, environment: ["PIM_NOW": "2024-06-03T00:00"]).filter { $0.title.hasPrefix("Weekly standup") }
        XCTAssertEqual(agenda.map(\.title), ["Weekly standup", "Weekly standup (moved)"], "the 10th once, moved; the 17th skipped")
        let again = try importSummary(feed("caldav-calendar-query-response.raw.xml"))
        XCTAssertEqual(again["unchanged"] as? Int, 3)
        XCTAssertEqual(try list("events").count, 4)
    }

    func testAContactsCategoriesAreItsGroupsMadeOnce() throws {
        _ = try importSummary(feed("ews-getitem-contact-response.xml"))
        let colleagues = try pim("contacts", "list", "--group", "Colleagues", "--json")
        XCTAssertEqual(colleagues.status, 0, colleagues.stderr)
        XCTAssertEqual((try colleagues.json() as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["Zoë Müller"])
        let again = try importSummary(feed("ews-getitem-contact-response.xml"))
        XCTAssertEqual(again["unchanged"] as? Int, 2)
        let undo = try pim("undo")
        XCTAssertEqual(undo.status, 0, undo.stderr)
        let undone = try pim("contacts", "list", "--group", "Colleagues")
        XCTAssertNotEqual(undone.status, 0, "the group the import made went with it: \(undone.stdout)")
    }
}
