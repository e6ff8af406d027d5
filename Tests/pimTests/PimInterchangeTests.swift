// `pim contacts|events|tasks export` and `pim import` of .vcf and .ics files, end to end: the
// built binary writes vCard 3.0 and iCalendar as the RFCs say (CRLF, folding, escaping,
// VTIMEZONEs, a series with its changed occurrences), reads them back into a fresh store with the
// same records, and reports malformed files by line.
import Foundation
import XCTest

final class PimInterchangeTests: PimTestCase {
    /// A second store in the temporary folder.
    var otherStore: String { folder.appendingPathComponent("other.sqlite").path }

    /// Runs pim on the second store.
    @discardableResult
    func other(_ arguments: String...) throws -> PimRun {
        try pim(arguments: arguments + ["--store", otherStore], useStoreOption: false)
    }

    /// The content lines of `text`: CRLF-ended, unfolded.
    func contentLines(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        XCTAssertTrue(text.hasSuffix("\r\n"), "lines end with CRLF", file: file, line: line)
        XCTAssertFalse(text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "no bare LF", file: file, line: line)
        return text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    /// `text` without what names a record's identity or its write times, which a copy in
    /// another store has of its own.
    func comparable(_ text: String) -> [String] {
        contentLines(text).filter { line in !["UID:", "DTSTAMP:", "CREATED:", "LAST-MODIFIED:", "REV:"].contains { line.hasPrefix($0) } }
    }

    func exported(_ kind: String, _ extra: String..., store: String? = nil) throws -> String {
        let run = store == nil ? try pim(arguments: [kind, "export"] + extra) : try pim(arguments: [kind, "export"] + extra + ["--store", store!], useStoreOption: false)
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout
    }

    func write(_ text: String, to name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func addSampleContacts() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "O'Neil", "--email", "work:ann@example.org", "--email", "home:ann@home.example",
                               "--phone", "mobile:+44 7700 900123", "--address", "home:1 Main St;Springfield;IL;62701;USA",
                               "--org", "ACME; Inc", "--title", "Engineer", "--nickname", "Annie", "--birthday", "1990-04-01",
                               "--notes", "Met at the conference,\nsecond line; with \\ backslash").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Globex", "--kind", "organization", "--email", "info@globex.example").status, 0)
        XCTAssertEqual(try pim("contacts", "group", "add", "friends", "Ann").status, 0)
    }

    func addSampleEvents() throws {
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "2026-12-01 09:30", "--duration", "15m", "--repeat", "weekdays",
                               "--attendee", "Ann", "--location", "Room 1").status, 0)
        XCTAssertEqual(try pim("events", "edit", "Standup", "--occurrence", "2026-12-03", "--start", "2026-12-03 10:00").status, 0)
        XCTAssertEqual(try pim("events", "delete", "1", "--occurrence", "2026-12-04", "--yes").status, 0)
        XCTAssertEqual(try pim("events", "add", "Holidays", "--start", "2026-12-24", "--end", "2026-12-26", "--calendar", "family").status, 0)
        XCTAssertEqual(try pim("events", "add", "Call", "--start", "2026-12-02 15:00", "--duration", "30m",
                               environment: ["TZ": "America/New_York"]).status, 0)
    }

    // MARK: vCard

    func testContactsExportIsAVCard30OfEveryField() throws {
        try addSampleContacts()
        let lines = contentLines(try exported("contacts"))
        XCTAssertEqual(lines.filter { $0 == "BEGIN:VCARD" }.count, 2)
        XCTAssertEqual(lines.filter { $0 == "VERSION:3.0" }.count, 2)
        for expected in ["FN:Ann O'Neil", "N:O'Neil;Ann;;;", "NICKNAME:Annie", "ORG:ACME\\; Inc", "TITLE:Engineer", "BDAY:1990-04-01",
                         "EMAIL;TYPE=work:ann@example.org", "EMAIL;TYPE=home:ann@home.example", "TEL;TYPE=CELL:+44 7700 900123",
                         "ADR;TYPE=home:;;1 Main St;Springfield;IL;62701;USA", "CATEGORIES:friends",
                         "NOTE:Met at the conference\\,\\nsecond line\\; with \\\\ backslash",
                         "FN:Globex", "N:;;;;", "ORG:Globex", "X-ABSHOWAS:COMPANY", "EMAIL:info@globex.example"] {
            XCTAssertTrue(lines.contains(expected), "\(expected) in\n\(lines.joined(separator: "\n"))")
        }
        let uids = lines.filter { $0.hasPrefix("UID:") }
        XCTAssertEqual(Set(uids).count, 2)
    }

    func testLongValuesFoldAt75OctetsWithoutSplittingACharacter() throws {
        let notes = String(repeating: "Grüße aus Köln, 東京 und São Paulo. ", count: 12)
        XCTAssertEqual(try pim("contacts", "add", "Ann", "--notes", notes).status, 0)
        let run = try pim("contacts", "export")
        let physical = run.stdout.components(separatedBy: "\r\n")
        XCTAssertGreaterThan(physical.count, 10)
        for line in physical {
            XCTAssertLessThanOrEqual(line.utf8.count, 75, line)
            XCTAssertFalse(line.contains("\u{FFFD}"), line)
        }
        XCTAssertTrue(contentLines(run.stdout).contains("NOTE:" + notes.replacingOccurrences(of: ",", with: "\\,")))
    }

    func testContactsComeBackTheSameFromAFreshStore() throws {
        try addSampleContacts()
        let first = try exported("contacts")
        let file = try write(first, to: "contacts.vcf")
        let imported = try other("import", file)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("(vcard, source vcard): 2 added"), imported.stdout)
        XCTAssertEqual(comparable(try exported("contacts", store: otherStore)), comparable(first))
        let kinds = try XCTUnwrap(try other("contacts", "list", "--json", "--fields", "name,kind").json() as? [[String: Any]])
        XCTAssertEqual(kinds.map { $0["kind"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") }, ["organization", "person"])
    }

    /// `--vcard-version 4.0` writes RFC 6350's forms, and the cards come back into a fresh store
    /// as the same contacts (their 3.0 exports are the same), with a photo and an anniversary.
    func testContactsExportAsVCard40AndComeBackTheSame() throws {
        try addSampleContacts()
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cy Young\r\nN:Young;Cy;;;\r\nANNIVERSARY:2015-06-20\r\n"
            + "PHOTO;ENCODING=b;TYPE=PNG:iVBORw0KGgoBAgM=\r\nEND:VCARD\r\n"
        XCTAssertEqual(try pim("import", try write(card, to: "cy.vcf")).status, 0)
        let four = try exported("contacts", "--vcard-version", "4.0")
        let lines = contentLines(four)
        XCTAssertEqual(lines.filter { $0 == "VERSION:4.0" }.count, 3)
        for expected in ["FN:Ann O'Neil", "N:O'Neil;Ann;;;", "BDAY:19900401", "ANNIVERSARY:20150620", "TEL;TYPE=cell:+44 7700 900123",
                         "EMAIL;TYPE=work:ann@example.org", "ADR;TYPE=home:;;1 Main St;Springfield;IL;62701;USA", "CATEGORIES:friends",
                         "PHOTO:data:image/png;base64,iVBORw0KGgoBAgM=", "KIND:org", "FN:Globex", "ORG:Globex"] {
            XCTAssertTrue(lines.contains(expected), "\(expected) in\n\(lines.joined(separator: "\n"))")
        }
        XCTAssertFalse(lines.contains { $0.hasPrefix("X-ABSHOWAS") || $0 == "N:;;;;" }, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.filter { $0.hasPrefix("UID:urn:uuid:") }.count, 3, lines.joined(separator: "\n"))

        let imported = try other("import", try write(four, to: "contacts.vcf"))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(comparable(try exported("contacts", store: otherStore)), comparable(try exported("contacts")))
        let kinds = try XCTUnwrap(try other("contacts", "list", "--json", "--fields", "name,kind").json() as? [[String: Any]])
        XCTAssertEqual(kinds.map { $0["kind"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") }, ["organization", "person", "person"])

        let wrong = try pim("contacts", "export", "--vcard-version", "2.1")
        XCTAssertEqual(wrong.status, 2, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("--vcard-version: \"2.1\" is not one of 3.0, 4.0"), wrong.stderr)
    }

    func testImportingTheSameFileAgainChangesNothing() throws {
        try addSampleContacts()
        let file = try write(try exported("contacts"), to: "contacts.vcf")
        XCTAssertEqual(try other("import", file).status, 0)
        let again = try other("import", "--json", file)
        let summary = try XCTUnwrap((try again.json() as? [[String: Any]])?.first, again.stdout)
        XCTAssertEqual(summary["unchanged"] as? Int, 2)
        XCTAssertEqual(summary["added"] as? Int, 0)
        XCTAssertEqual(summary["updated"] as? Int, 0)
    }

    func testAnExportChangedElsewhereUpdatesTheStoreItCameFrom() throws {
        try addSampleContacts()
        let file = try write(try exported("contacts").replacingOccurrences(of: "TITLE:Engineer", with: "TITLE:Chief Engineer"), to: "edited.vcf")
        let run = try pim("import", "--json", file)
        let summary = try XCTUnwrap((try run.json() as? [[String: Any]])?.first, run.stderr)
        XCTAssertEqual(summary["added"] as? Int, 0)
        XCTAssertEqual(summary["updated"] as? Int, 1)
        XCTAssertEqual(summary["unchanged"] as? Int, 1)
        let contacts = try XCTUnwrap(try pim("contacts", "list", "--json", "--fields", "name,jobTitle").json() as? [[String: Any]])
        XCTAssertEqual(contacts.count, 2)
        XCTAssertEqual(contacts.first { $0["name"] as? String == "Ann O'Neil" }?["jobTitle"] as? String, "Chief Engineer")
        XCTAssertEqual(try pim("undo").status, 0)
        let undone = try XCTUnwrap(try pim("contacts", "show", "Ann", "--json").json() as? [String: Any])
        XCTAssertEqual(undone["jobTitle"] as? String, "Engineer")
    }

    func testAUIDThatIsAUUIDBecomesTheRecordsIdentityAndIsExportedAgain() throws {
        let file = try write("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1\r\nFN:Jane Doe\r\nEND:VCARD\r\n"
                             + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:jane-2@example.org\r\nFN:Jane Two\r\nEND:VCARD\r\n", to: "jane.vcf")
        XCTAssertEqual(try pim("import", file).status, 0)
        let jane = try XCTUnwrap(try pim("contacts", "show", "Jane Doe", "--json").json() as? [String: Any])
        XCTAssertEqual(jane["id"] as? String, "4fbe8971-0bc3-424c-9c26-36c3e1eff6b1")
        XCTAssertTrue(contentLines(try exported("contacts", "Jane Doe")).contains("UID:urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1"),
                      "the UID as the file wrote it")
        let two = try XCTUnwrap(try pim("contacts", "show", "Jane Two", "--json").json() as? [String: Any])
        XCTAssertNotNil(UUID(uuidString: two["id"] as? String ?? ""), "a UID that is not a UUID leaves pim's own")
        // Imported again from another source, the same UUID is the same record.
        let again = try pim("import", "--source", "phone", "--json", file)
        let summary = try XCTUnwrap((try again.json() as? [[String: Any]])?.first, again.stderr)
        XCTAssertEqual(summary["added"] as? Int, 1, "only Jane Two, whose key is no UUID, is new to the source")
        XCTAssertEqual(summary["unchanged"] as? Int, 1)
    }

    // MARK: iCalendar

    func testEventsComeBackTheSameFromAFreshStore() throws {
        try addSampleContacts()
        try addSampleEvents()
        let contacts = try write(try exported("contacts"), to: "contacts.vcf")
        let first = try exported("events")
        let events = try write(first, to: "events.ics")
        // Contacts first: attendees are the contacts with their e-mail addresses.
        let imported = try other("import", contacts, events)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(comparable(try exported("events", store: otherStore)), comparable(first))
        let show = try other("events", "show", "Standup", "--json")
        let standup = try XCTUnwrap(show.json() as? [String: Any], show.stderr)
        XCTAssertEqual((standup["attendees"] as? [[String: Any]])?.map { $0["name"] as? String }, ["Ann O'Neil"])
    }

    func testARepeatingEventCarriesItsChangedOccurrenceAndSkipsOnlyTheDeletedOne() throws {
        try addSampleContacts()
        try addSampleEvents()
        let lines = contentLines(try exported("events", "Standup"))
        XCTAssertEqual(lines.filter { $0 == "BEGIN:VEVENT" }.count, 2, lines.joined(separator: "\n"))
        let uids = lines.filter { $0.hasPrefix("UID:") }
        XCTAssertEqual(uids.count, 2)
        XCTAssertEqual(Set(uids).count, 1, "a changed occurrence has its series' UID")
        XCTAssertTrue(lines.contains("RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"))
        XCTAssertTrue(lines.contains("RECURRENCE-ID;TZID=Europe/Berlin:20261203T093000"))
        XCTAssertTrue(lines.contains("DTSTART;TZID=Europe/Berlin:20261203T100000"))
        // The changed occurrence's start is not an exception date (a reader would hide it).
        XCTAssertEqual(lines.filter { $0.hasPrefix("EXDATE") }, ["EXDATE;TZID=Europe/Berlin:20261204T093000"])
        XCTAssertTrue(lines.contains("ATTENDEE;CN=Ann O'Neil:mailto:ann@example.org"))
        XCTAssertTrue(lines.contains("LOCATION:Room 1"))
    }

    func testAnAllDayEventIsDatesEndingTheDayAfterItsLast() throws {
        try addSampleContacts()
        try addSampleEvents()
        let lines = contentLines(try exported("events", "Holidays"))
        XCTAssertTrue(lines.contains("DTSTART;VALUE=DATE:20261224"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("DTEND;VALUE=DATE:20261227"))
        XCTAssertTrue(lines.contains("X-PIM-CALENDAR:family"))
        XCTAssertFalse(lines.contains("BEGIN:VTIMEZONE"), "dates name no zone")
    }

    func testEveryZoneATimeNamesHasItsDefinitionWithTheRulesOfItsYears() throws {
        try addSampleContacts()
        try addSampleEvents()
        XCTAssertEqual(try pim("events", "add", "Old", "--start", "2005-06-01 10:00", environment: ["TZ": "America/New_York"]).status, 0)
        let lines = contentLines(try exported("events"))
        let named = Set(lines.compactMap { line -> String? in
            guard let range = line.range(of: "TZID="), !line.hasPrefix("TZID") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != ":" && $0 != ";" })
        })
        XCTAssertEqual(named, ["Europe/Berlin", "America/New_York"])
        XCTAssertEqual(Set(lines.filter { $0.hasPrefix("TZID:") }), ["TZID:Europe/Berlin", "TZID:America/New_York"])
        // New York changed its rules in 2007: 2005 and 2006 are listed, the rule starts in 2007.
        XCTAssertTrue(lines.contains("RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU"))
        XCTAssertTrue(lines.contains("DTSTART:20070311T020000"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("RDATE:") && $0.contains("20050403T020000") }, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU"), "Berlin's last Sunday of March")
        XCTAssertTrue(lines.contains("DTSTART;TZID=America/New_York:20261202T150000"))
    }

    func testTasksComeBackTheSameFromAFreshStore() throws {
        XCTAssertEqual(try pim("tasks", "add", "Write report", "--due", "2026-12-05 17:00", "--priority", "H", "--project", "work.q4",
                               "--tag", "writing", "--tag", "urgent", "--scheduled", "2026-12-01", "--wait", "2026-11-30",
                               "--notes", "Draft, then review").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Water plants", "--due", "2026-11-28 08:00", "--repeat", "weekly").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Old chore", "--due", "2026-11-20").status, 0)
        XCTAssertEqual(try pim("tasks", "done", "Old chore").status, 0)
        let first = try exported("tasks")
        let lines = contentLines(first)
        for expected in ["SUMMARY:Write report", "DUE;TZID=Europe/Berlin:20261205T170000", "PRIORITY:1", "CATEGORIES:urgent,writing",
                         "X-PIM-PROJECT:work.q4", "DESCRIPTION:Draft\\, then review", "STATUS:NEEDS-ACTION", "STATUS:COMPLETED",
                         "RRULE:FREQ=WEEKLY", "COMPLETED:20261125T093000Z"] {
            XCTAssertTrue(lines.contains(expected), "\(expected) in\n\(lines.joined(separator: "\n"))")
        }
        let file = try write(first, to: "tasks.ics")
        XCTAssertEqual(try other("import", file).status, 0)
        XCTAssertEqual(comparable(try exported("tasks", store: otherStore)), comparable(first))
    }

    // MARK: Selecting

    func testExportTakesIdsAPredicateAGroupOrAWindow() throws {
        try addSampleContacts()
        try addSampleEvents()
        XCTAssertEqual(contentLines(try exported("contacts", "Globex")).filter { $0.hasPrefix("FN:") }, ["FN:Globex"])
        XCTAssertEqual(contentLines(try exported("contacts", "--where", "name BEGINSWITH 'Ann'")).filter { $0.hasPrefix("FN:") }, ["FN:Ann O'Neil"])
        XCTAssertEqual(contentLines(try exported("contacts", "--group", "friends")).filter { $0.hasPrefix("FN:") }, ["FN:Ann O'Neil"])
        let window = contentLines(try exported("events", "--from", "2026-12-20", "--to", "2026-12-31"))
        XCTAssertEqual(window.filter { $0.hasPrefix("SUMMARY:") }, ["SUMMARY:Standup", "SUMMARY:Standup", "SUMMARY:Holidays"])
        XCTAssertEqual(contentLines(try exported("events", "--calendar", "family")).filter { $0.hasPrefix("SUMMARY:") }, ["SUMMARY:Holidays"])
    }

    func testExportExitCodes() throws {
        try addSampleContacts()
        let none = try pim("contacts", "export", "--where", "name == 'Nobody'")
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(none.stdout, "")
        XCTAssertTrue(none.stderr.contains("no contacts match"), none.stderr)
        XCTAssertEqual(try pim("contacts", "export", "Ann", "--where", "name != nil").status, 2)
        XCTAssertEqual(try pim("contacts", "export", "Nobody").status, 3)
        let json = try pim("events", "export", "--json")
        XCTAssertEqual(json.status, 2)
        XCTAssertTrue(json.stderr.contains("export writes iCalendar text"), json.stderr)
        let unwritable = try pim("contacts", "export", "-o", folder.appendingPathComponent("missing/folder/out.vcf").path)
        XCTAssertEqual(unwritable.status, 8)
        XCTAssertTrue(unwritable.stderr.contains("missing/folder/out.vcf: cannot be written"), unwritable.stderr)
        XCTAssertFalse(unwritable.stderr.contains("store"), "the file is not the store: \(unwritable.stderr)")
        let out = folder.appendingPathComponent("out.vcf")
        let written = try pim("contacts", "export", "--output", out.path)
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(written.stdout, "")
        XCTAssertEqual(try String(contentsOf: out, encoding: .utf8), try exported("contacts"))
    }

    // MARK: Reading other programs' files

    /// The text between `<tag ...>` and `</tag>` of each element `tag` of `xml`, unescaped.
    func payloads(_ xml: String, tag: String) -> [String] {
        xml.components(separatedBy: "<\(tag)").dropFirst().compactMap { part -> String? in
            guard let start = part.firstIndex(of: ">"), let end = part.range(of: "</\(tag)>") else { return nil }
            return String(part[part.index(after: start)..<end.lowerBound])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&#13;", with: "\r").replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    func testTheCorpusCalDAVAndCardDAVPayloadsReadAsFilesGiveTheRecordsTheFeedsGive() throws {
        let feeds = PimImportTests.feeds
        let caldav = try String(contentsOf: feeds.appendingPathComponent("caldav-calendar-query-response.raw.xml"), encoding: .utf8)
        let carddav = try String(contentsOf: feeds.appendingPathComponent("carddav-addressbook-query-response.raw.xml"), encoding: .utf8)
        let calendars = payloads(caldav, tag: "C:calendar-data")
        let cards = payloads(carddav, tag: "CR:address-data")
        XCTAssertFalse(calendars.isEmpty)
        XCTAssertFalse(cards.isEmpty)
        XCTAssertEqual(try pim("import", feeds.appendingPathComponent("carddav-addressbook-query-response.raw.xml").path,
                               feeds.appendingPathComponent("caldav-calendar-query-response.raw.xml").path).status, 0)
        let imported = try other("import", try write(cards.joined(separator: "\r\n"), to: "cards.vcf"),
                                 try write(calendars.joined(separator: "\r\n"), to: "calendar.ics"))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        for kind in ["contacts", "events"] {
            let fields = kind == "contacts" ? "name,emails,phones,organization" : "title,start,end,repeat,skipped,location"
            let viaDAV = try XCTUnwrap(try pim(kind, "list", "--json", "--fields", fields).json() as? [[String: Any]])
            let viaFiles = try XCTUnwrap(try other(kind, "list", "--json", "--fields", fields).json() as? [[String: Any]])
            XCTAssertEqual(viaFiles.count, viaDAV.count, kind)
            func canonical(_ records: [[String: Any]]) throws -> String {
                let content = records.map { $0.filter { $0.key != "id" && $0.key != "number" } }
                return String(decoding: try JSONSerialization.data(withJSONObject: content, options: .sortedKeys), as: UTF8.self)
            }
            XCTAssertEqual(try canonical(viaFiles), try canonical(viaDAV), kind)
        }
    }

    func testAMalformedCalendarFileIsRefusedByLineWithExitStatus9() throws {
        let file = try write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Broken\r\nDTSTART:20261201T100000Z\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
                             to: "broken.ics")
        let run = try pim("import", file)
        XCTAssertEqual(run.status, 9)
        XCTAssertTrue(run.stderr.contains("broken.ics:7:1: END:VTODO closes BEGIN:VEVENT of line 3"), run.stderr)
        XCTAssertEqual(try pim("events", "list").status, 1, "nothing imported")
    }

    func testAPhotoComesInFromAnyVCardVersionAndGoesOutAsBase64() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 90)
        let base64 = png.base64EncodedString()
        let folded = stride(from: 0, to: base64.count, by: 60).map { offset -> String in
            let start = base64.index(base64.startIndex, offsetBy: offset)
            return String(base64[start..<(base64.index(start, offsetBy: 60, limitedBy: base64.endIndex) ?? base64.endIndex)])
        }.joined(separator: "\r\n ")
        let file = try write("""
            BEGIN:VCARD\r\nVERSION:3.0\r\nUID:three\r\nFN:Three\r\nPHOTO;ENCODING=b;TYPE=PNG:\(folded)\r\nEND:VCARD\r
            BEGIN:VCARD\r\nVERSION:4.0\r\nUID:four\r\nFN:Four\r\nPHOTO:data:image/png;base64,\(base64)\r\nEND:VCARD\r
            BEGIN:VCARD\r\nVERSION:4.0\r\nUID:linked\r\nFN:Linked\r\nPHOTO:https://example.org/linked.png\r\nEND:VCARD\r

            """, to: "photos.vcf")
        let run = try pim("import", file)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = contentLines(try exported("contacts"))
        XCTAssertEqual(lines.filter { $0.hasPrefix("PHOTO") }, Array(repeating: "PHOTO;ENCODING=b;TYPE=PNG:" + base64, count: 2),
                       "Four and Three have the photo; Linked's is a link, not bytes")
    }

    func testAnEventWithoutAnEndEndsWhenItStartsAndOneInUTCRepeatsInUTC() throws {
        let file = try write("""
            BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:reminder-1\r\nSUMMARY:Deadline\r\nDTSTART;TZID=Europe/Berlin:20261202T170000\r\nEND:VEVENT\r
            BEGIN:VEVENT\r\nUID:utc-1\r\nSUMMARY:Sync\r\nDTSTART:20261202T100000Z\r\nDTEND:20261202T103000Z\r\nRRULE:FREQ=WEEKLY\r\nEND:VEVENT\r
            END:VCALENDAR\r

            """, to: "events.ics")
        XCTAssertEqual(try pim("import", file).status, 0)
        let deadline = try XCTUnwrap(try pim("events", "show", "Deadline", "--json").json() as? [String: Any])
        XCTAssertEqual(deadline["end"] as? String, deadline["start"] as? String, "RFC 5545 3.6.1: no DTEND, no length")
        let sync = try XCTUnwrap(try pim("events", "show", "Sync", "--json").json() as? [String: Any])
        XCTAssertEqual(sync["timeZone"] as? String, "UTC")
        XCTAssertTrue(contentLines(try exported("events", "Sync")).contains("DTSTART:20261202T100000Z"))
    }

    func testAQuoteInANameIsWrittenAndReadAsRFC6868Says() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann \"Boss\" Lee", "--email", "ann@example.org").status, 0)
        XCTAssertEqual(try pim("events", "add", "Review", "--start", "2026-12-02 15:00", "--attendee", "Ann").status, 0)
        let text = try exported("events")
        XCTAssertTrue(contentLines(text).contains("ATTENDEE;CN=Ann ^'Boss^' Lee:mailto:ann@example.org"), text)
        let contacts = try write(try exported("contacts"), to: "contacts.vcf")
        XCTAssertEqual(try other("import", contacts, try write(text, to: "events.ics")).status, 0)
        let review = try XCTUnwrap(try other("events", "show", "Review", "--json").json() as? [String: Any])
        XCTAssertEqual((review["attendees"] as? [[String: Any]])?.map { $0["name"] as? String }, ["Ann \"Boss\" Lee"])
    }

    func testAnEmptyFileIsNamedAsEmptyWithExitStatus9() throws {
        let run = try pim("import", try write("\r\n", to: "empty.ics"))
        XCTAssertEqual(run.status, 9)
        XCTAssertTrue(run.stderr.contains("empty.ics: is empty"), run.stderr)
    }

    func testAVCard21FromAnOldPhoneIsRead() throws {
        let file = try write("BEGIN:VCARD\r\nVERSION:2.1\r\nN:Doe;John\r\nFN:John Doe\r\nTEL;CELL;PREF:+1 555 0100\r\nEMAIL;INTERNET:john@example.com\r\nEND:VCARD\r\n",
                             to: "phone.vcf")
        let run = try pim("import", file)
        XCTAssertEqual(run.status, 0, run.stderr)
        let contact = try XCTUnwrap(try pim("contacts", "show", "John", "--json").json() as? [String: Any])
        XCTAssertEqual(contact["givenName"] as? String, "John")
        XCTAssertEqual(contact["phones"] as? [[String: String]], [["label": "mobile", "value": "+1 555 0100"]], "vCard's CELL is pim's mobile")
        XCTAssertEqual((contact["emails"] as? [[String: Any]])?.map { $0["value"] as? String }, ["john@example.com"])
    }

    func testASubtaskBeforeItsParentInTheFileIsStillLinkedToIt() throws {
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VTODO\r
            UID:child-1\r
            DTSTAMP:20261120T100000Z\r
            SUMMARY:Pack books\r
            RELATED-TO;RELTYPE=PARENT:parent-1\r
            END:VTODO\r
            BEGIN:VTODO\r
            UID:parent-1\r
            DTSTAMP:20261120T100000Z\r
            SUMMARY:Move house\r
            END:VTODO\r
            END:VCALENDAR\r

            """
        let imported = try pim("import", try write(text, to: "tasks.ics"))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let tasks = try XCTUnwrap(try pim("tasks", "list", "--json").json() as? [[String: Any]])
        let child = try XCTUnwrap(tasks.first { $0["title"] as? String == "Pack books" }, "\(tasks)")
        XCTAssertEqual((child["parent"] as? [String: Any])?["name"] as? String, "Move house", "\(child)")
    }

    func testASubtaskInOneFileLinksToItsParentInTheNextFileOfTheSameImport() throws {
        func calendar(_ todo: String) -> String {
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\n\(todo)DTSTAMP:20261120T100000Z\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        }
        let child = try write(calendar("UID:child-2\r\nSUMMARY:Label boxes\r\nRELATED-TO:parent-2\r\n"), to: "child.ics")
        let parent = try write(calendar("UID:parent-2\r\nSUMMARY:Move office\r\n"), to: "parent.ics")
        let imported = try pim("import", child, parent)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let tasks = try XCTUnwrap(try pim("tasks", "list", "--json").json() as? [[String: Any]])
        let subtask = try XCTUnwrap(tasks.first { $0["title"] as? String == "Label boxes" }, "\(tasks)")
        XCTAssertEqual((subtask["parent"] as? [String: Any])?["name"] as? String, "Move office", "\(subtask)")
    }

    // MARK: Task dependencies (RFC 9253's RELATED-TO;RELTYPE=DEPENDS-ON)

    /// The names of the records a JSON reference list holds (`dependsOn`, `subtasks`).
    private func names(_ references: Any?) -> [String] {
        ((references as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }.sorted()
    }

    func testDependenciesGoOutAsDependsOnRelationsAndComeBackFromAFreshStore() throws {
        XCTAssertEqual(try pim("tasks", "add", "Buy paint").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Sand walls").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Paint walls", "--depends-on", "1", "--depends-on", "2").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Hang pictures", "--depends-on", "3", "--parent", "3").status, 0)
        let first = try exported("tasks")
        let lines = contentLines(first)
        // Each to-do's UID by its SUMMARY.
        var uidsByTitle: [String: String] = [:]
        var uid = ""
        for line in lines {
            if line.hasPrefix("UID:") { uid = String(line.dropFirst(4)) }
            if line.hasPrefix("SUMMARY:") { uidsByTitle[String(line.dropFirst(8))] = uid }
        }
        let uids = ["Buy paint", "Sand walls", "Paint walls"].map { uidsByTitle[$0] ?? "" }
        let relations = lines.filter { $0.hasPrefix("RELATED-TO") }.sorted()
        XCTAssertEqual(relations, ["RELATED-TO;RELTYPE=DEPENDS-ON:\(uids[0])", "RELATED-TO;RELTYPE=DEPENDS-ON:\(uids[1])",
                                   "RELATED-TO;RELTYPE=DEPENDS-ON:\(uids[2])", "RELATED-TO;RELTYPE=PARENT:\(uids[2])"].sorted(),
                       lines.joined(separator: "\n"))

        let imported = try other("import", try write(first, to: "tasks.ics"))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let paint = try XCTUnwrap(try other("tasks", "show", "Paint walls", "--json").json() as? [String: Any])
        XCTAssertEqual(names(paint["dependsOn"]), ["Buy paint", "Sand walls"], "\(paint)")
        let hang = try XCTUnwrap(try other("tasks", "show", "Hang pictures", "--json").json() as? [String: Any])
        XCTAssertEqual(names(hang["dependsOn"]), ["Paint walls"], "\(hang)")
        XCTAssertEqual((hang["parent"] as? [String: Any])?["name"] as? String, "Paint walls", "\(hang)")
        XCTAssertEqual(comparable(try exported("tasks", store: otherStore)), comparable(first))
    }

    /// Only a PARENT relation (or one without RELTYPE) names a parent: a SIBLING or another
    /// client's relation makes neither a parent nor a dependency; a dependency on a task later
    /// in the file is found once the file is read.
    func testOnlyParentRelationsMakeParentsAndADependencyMayComeBeforeItsTask() throws {
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VTODO\r
            UID:frame-1\r
            DTSTAMP:20261120T100000Z\r
            SUMMARY:Frame picture\r
            RELATED-TO;RELTYPE=SIBLING:glass-1\r
            RELATED-TO;RELTYPE=depends-on:glass-1\r
            END:VTODO\r
            BEGIN:VTODO\r
            UID:glass-1\r
            DTSTAMP:20261120T100000Z\r
            SUMMARY:Cut glass\r
            RELATED-TO;RELTYPE=FINISHTOSTART:frame-1\r
            END:VTODO\r
            END:VCALENDAR\r

            """
        let imported = try pim("import", try write(text, to: "tasks.ics"))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let frame = try XCTUnwrap(try pim("tasks", "show", "Frame picture", "--json").json() as? [String: Any])
        XCTAssertNil(frame["parent"] as? [String: Any], "\(frame)")
        XCTAssertEqual(names(frame["dependsOn"]), ["Cut glass"], "\(frame)")
        let glass = try XCTUnwrap(try pim("tasks", "show", "Cut glass", "--json").json() as? [String: Any])
        XCTAssertNil(glass["parent"] as? [String: Any], "\(glass)")
        XCTAssertEqual(names(glass["dependsOn"]), [], "\(glass)")
    }

    /// A file whose tasks depend on each other in a circle is refused (exit 7) naming the tasks,
    /// and nothing is imported; with --skip-invalid the dependency that closes the circle is left
    /// out and listed, and the rest is imported.
    func testACircleOfDependenciesIsRefusedOrWithSkipInvalidBroken() throws {
        func todo(_ uid: String, _ title: String, dependsOn: String) -> String {
            "BEGIN:VTODO\r\nUID:\(uid)\r\nDTSTAMP:20261120T100000Z\r\nSUMMARY:\(title)\r\nRELATED-TO;RELTYPE=DEPENDS-ON:\(dependsOn)\r\nEND:VTODO\r\n"
        }
        let file = try write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + todo("a", "Alpha", dependsOn: "b")
                             + todo("b", "Beta", dependsOn: "c") + todo("c", "Gamma", dependsOn: "a") + "END:VCALENDAR\r\n", to: "circle.ics")
        let refused = try pim("import", file)
        XCTAssertEqual(refused.status, 7, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("circle of dependencies") && refused.stderr.contains("\"Alpha\" → \"Beta\" → \"Gamma\" → \"Alpha\""),
                      refused.stderr)
        XCTAssertEqual(try XCTUnwrap(try pim("tasks", "list", "--all", "--json").json() as? [[String: Any]]).count, 0, "nothing imported")

        let broken = try pim("import", "--skip-invalid", file)
        XCTAssertEqual(broken.status, 7, broken.stderr)
        XCTAssertTrue(broken.stderr.contains("1 dependency left out:") && !broken.stderr.contains("record(s) left out")
                      && broken.stderr.contains("is left out: it would close a circle"), broken.stderr)
        let tasks = try XCTUnwrap(try pim("tasks", "list", "--all", "--json").json() as? [[String: Any]])
        XCTAssertEqual(tasks.count, 3)
        let dependencies = try ["Alpha", "Beta", "Gamma"].map { title in
            names(try XCTUnwrap(try pim("tasks", "show", title, "--json").json() as? [String: Any])["dependsOn"])
        }
        XCTAssertEqual(dependencies.map(\.count).reduce(0, +), 2, "one of the three dependencies is left out: \(dependencies)")
    }
}
