// Review of `pim contacts|events|tasks export` (vCard 3.0, iCalendar) and `pim import` of .vcf and
// .ics files: each test is a defect found by reading RFC 5545, RFC 6350 and RFC 2426 and by feeding
// pim what khard, khal, Thunderbird, Apple and Google write. Each asserts what should be seen.
import Foundation
import XCTest

final class InterchangeReviewTests: PimTestCase {
    // MARK: Helpers

    /// A second store in the temporary folder, for round trips into a fresh store.
    var otherStore: String { folder.appendingPathComponent("other.sqlite").path }

    /// Runs pim on the second store.
    @discardableResult
    func pimOther(_ arguments: String..., environment: [String: String] = [:]) throws -> PimRun {
        try pim(arguments: arguments + ["--store", otherStore], useStoreOption: false, environment: environment)
    }

    /// Writes `text` (exactly, as UTF-8) to a file in the temporary folder and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        try bytes(name, Data(text.utf8))
    }

    /// Writes `data` to a file in the temporary folder and returns its path.
    func bytes(_ name: String, _ data: Data) throws -> String {
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    /// The content lines of vCard or iCalendar text, unfolded (RFC 5545 3.1).
    func unfolded(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\r\n\t", with: "")
            .components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    /// The output of a successful `pim <kind> export`.
    func exported(_ arguments: String..., other: Bool = false) throws -> String {
        let run = other ? try pim(arguments: arguments + ["--store", otherStore], useStoreOption: false) : try pim(arguments: arguments)
        XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
        return run.stdout
    }

    /// Runs `pim import` on `path` (in the main store unless `other`) and expects it to succeed.
    func importFile(_ path: String, other: Bool = false) throws {
        let run = other ? try pimOther("import", path) : try pim("import", path)
        XCTAssertEqual(run.status, 0, "import \(path): \(run.stderr)")
    }

    func json(_ run: PimRun) throws -> Any {
        XCTAssertEqual(run.status, 0, run.stderr)
        return try run.json()
    }

    /// The names of the main store's contacts (none when the list is empty: exit status 1).
    func contactNames() throws -> [String] {
        let run = try pim("contacts", "list", "--json")
        if run.status == 1 { return [] }
        return try XCTUnwrap(try json(run) as? [[String: Any]]).compactMap { $0["name"] as? String }
    }

    // MARK: Round trips

    /// A comma inside a category is escaped (`CATEGORIES:Friends\, close`, RFC 6350 3.4 / RFC 2426
    /// 4: an escaped comma is a literal comma, not a list separator), which the exporter writes
    /// correctly. But the vcard (and icalendar) mapping splits CATEGORIES at every comma *after*
    /// unescaping, so importing the export makes two groups, "Friends" and "close", instead of
    /// the one group the contact was in. The same happens to task tags with a comma.
    func testAGroupNameWithACommaComesBackAsOneGroup() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--email", "ann@example.org").status, 0)
        let group = try pim("contacts", "group", "add", "Friends, close", "1")
        XCTAssertEqual(group.status, 0, group.stderr)
        let text = try exported("contacts", "export")
        XCTAssertTrue(unfolded(text).contains("CATEGORIES:Friends\\, close"), text)

        try importFile(try file("contacts.vcf", text), other: true)
        let groups = try XCTUnwrap(try json(pimOther("contacts", "group", "list", "--json")) as? [[String: Any]])
        XCTAssertEqual(groups.compactMap { $0["name"] as? String }, ["Friends, close"],
                       "one group, named as exported, not one per comma-separated piece")
    }

    /// RFC 5545 3.8.4.7 and RFC 6350 6.7.6: a UID is the persistent, globally unique identity of an
    /// event or card; a program that re-exports what it imported keeps it, or every calendar or
    /// address book the text goes back to (Google, CalDAV, khal, Thunderbird) sees new, duplicate
    /// objects. pim keeps the imported UID (the record's externalID) but exports the record's own
    /// new UUID instead, so an .ics from Google comes back out with different UIDs.
    func testReExportingImportedRecordsKeepsTheirUIDs() throws {
        let calendar = try file("google.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//Google Inc//Google Calendar 70.9054//EN\r
            BEGIN:VEVENT\r
            DTSTART;TZID=Europe/Berlin:20261210T100000\r
            DTEND;TZID=Europe/Berlin:20261210T110000\r
            DTSTAMP:20261120T000000Z\r
            UID:7kukuqrfedlm2f9t8sqf2f5ab4@google.com\r
            SUMMARY:Dentist\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let cards = try file("contacts.vcf", """
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1\r
            FN:Ann Lee\r
            N:Lee;Ann;;;\r
            END:VCARD\r

            """)
        try importFile(calendar)
        try importFile(cards)
        let events = unfolded(try exported("events", "export"))
        XCTAssertTrue(events.contains("UID:7kukuqrfedlm2f9t8sqf2f5ab4@google.com"), events.joined(separator: "\n"))
        let contacts = unfolded(try exported("contacts", "export"))
        XCTAssertTrue(contacts.contains("UID:urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1"), contacts.joined(separator: "\n"))
    }

    /// Exporting the store and importing the file into the same store (a backup restored, a file
    /// opened twice) doubles every record: the import keys records by the UIDs of the file, which
    /// are the records' own UUIDs, but never matches them against the records they came from.
    /// Calendar programs treat an incoming UID they hold as the same event (khal import asks to
    /// overwrite it, Thunderbird and Apple Calendar update it): nothing should be added.
    func testImportingAnExportIntoItsOwnStoreAddsNothing() throws {
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "2026-12-01T09:00", "--repeat", "weekly").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--email", "ann@example.org").status, 0)
        try importFile(try file("events.ics", try exported("events", "export")))
        try importFile(try file("contacts.vcf", try exported("contacts", "export")))
        let events = try XCTUnwrap(try json(pim("events", "list", "--json")) as? [[String: Any]])
        XCTAssertEqual(events.compactMap { $0["title"] as? String }, ["Standup"], "the event once, not a copy beside it")
        XCTAssertEqual(try contactNames(), ["Ann Lee"], "the contact once, not a copy beside it")
    }

    /// `pim tasks export` writes a subtask's parent (`RELATED-TO;RELTYPE=PARENT:<uid>`, RFC 5545
    /// 3.8.4.5, which Thunderbird and tasks.org use for subtasks), but the icalendar mapping never
    /// reads RELATED-TO: the round trip export, import, export loses every subtask's parent.
    func testASubtaskKeepsItsParentThroughExportAndImport() throws {
        XCTAssertEqual(try pim("tasks", "add", "Move house").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Pack books", "--parent", "1").status, 0)
        let text = try exported("tasks", "export")
        XCTAssertTrue(unfolded(text).contains { $0.hasPrefix("RELATED-TO;RELTYPE=PARENT:") }, text)

        try importFile(try file("tasks.ics", text), other: true)
        let tasks = try XCTUnwrap(try json(pimOther("tasks", "list", "--all", "--json")) as? [[String: Any]])
        let child = try XCTUnwrap(tasks.first { $0["title"] as? String == "Pack books" }, "\(tasks)")
        XCTAssertEqual((child["parent"] as? [String: Any])?["name"] as? String, "Move house")
    }

    // MARK: RFC 5545 conformance of the written text

    /// RFC 5545 3.8.2.4: DTSTART "is REQUIRED in all types of recurring calendar components that
    /// specify the RRULE property" (without it there is nothing to repeat from). pim repeats
    /// tasks by their due date (`--repeat` needs only `--due`), and exports such a task as a VTODO
    /// with an RRULE and a DUE but no DTSTART, which strict readers refuse or cannot expand.
    func testARepeatingTaskIsWrittenWithADTSTART() throws {
        let add = try pim("tasks", "add", "Pay rent", "--due", "2026-12-01", "--repeat", "monthly")
        XCTAssertEqual(add.status, 0, add.stderr)
        let lines = unfolded(try exported("tasks", "export"))
        let todo = Array(lines.drop { $0 != "BEGIN:VTODO" }.prefix { $0 != "END:VTODO" })
        XCTAssertTrue(todo.contains { $0.hasPrefix("RRULE:") }, todo.joined(separator: "\n"))
        XCTAssertTrue(todo.contains { $0.hasPrefix("DTSTART") }, "a VTODO with an RRULE needs a DTSTART:\n" + todo.joined(separator: "\n"))
    }

    /// RFC 5545 3.3.10: when DTSTART is a date-time with a TZID, "the UNTIL rule part MUST be
    /// specified as a date with UTC time". pim accepts (and keeps, as feeds write them) UNTIL as a
    /// plain date, and the exporter copies the rule verbatim next to `DTSTART;TZID=...`;
    /// python-dateutil (khal) refuses such a rule ("RRULE UNTIL values must be specified in UTC
    /// when DTSTART is timezone-aware"). The UNTIL should be written as the UTC instant that
    /// ends that day in the event's zone (20261231T225959Z in Berlin).
    func testUntilIsWrittenInUTCWhenTheStartHasATimeZone() throws {
        let add = try pim("events", "add", "Standup", "--start", "2026-12-01T09:00", "--repeat", "FREQ=WEEKLY;UNTIL=20261231")
        XCTAssertEqual(add.status, 0, add.stderr)
        let lines = unfolded(try exported("events", "export"))
        XCTAssertTrue(lines.contains("DTSTART;TZID=Europe/Berlin:20261201T090000"), lines.joined(separator: "\n"))
        let event = lines.drop { $0 != "BEGIN:VEVENT" }
        let rule = try XCTUnwrap(event.first { $0.hasPrefix("RRULE:") }, lines.joined(separator: "\n"))
        let until = try XCTUnwrap(rule.split(separator: ";").first { $0.hasPrefix("UNTIL=") }.map { String($0.dropFirst(6)) }, rule)
        XCTAssertNotNil(until.range(of: #"^\d{8}T\d{6}Z$"#, options: .regularExpression), "UNTIL in UTC form: \(rule)")
        XCTAssertTrue(until >= "20261229T080000Z" && until <= "20261231T235959Z",
                      "still ending after the occurrence of 29 December and by the end of the 31st: \(rule)")
    }

    /// RFC 5545 3.2.19 / 3.6.5: "An individual VTIMEZONE calendar component MUST be specified for
    /// each unique TZID parameter value specified in the iCalendar object." An occurrence of an
    /// all-day series changed to a time of day is written `DTSTART;TZID=Europe/Berlin:...`, but
    /// the writer decides whether a zone is used from the series' all-day flag, so the object
    /// names Europe/Berlin without defining it.
    func testATimedOccurrenceOfAnAllDaySeriesHasItsTimeZoneDefined() throws {
        XCTAssertEqual(try pim("events", "add", "Gym", "--start", "2026-12-01", "--all-day", "--repeat", "daily").status, 0)
        let edit = try pim("events", "edit", "1", "--occurrence", "2026-12-03", "--start", "2026-12-03T15:00", "--end", "2026-12-03T16:00")
        XCTAssertEqual(edit.status, 0, edit.stderr)
        let lines = unfolded(try exported("events", "export"))
        let named = Set(lines.compactMap { line -> String? in
            guard let range = line.range(of: #";TZID=[^;:]+"#, options: .regularExpression) else { return nil }
            return String(line[range].dropFirst(6))
        })
        XCTAssertEqual(named, ["Europe/Berlin"], lines.joined(separator: "\n"))
        let defined = Set(lines.filter { $0.hasPrefix("TZID:") }.map { String($0.dropFirst(5)) })
        XCTAssertTrue(named.isSubset(of: defined), "TZIDs used \(named), VTIMEZONEs defined \(defined):\n" + lines.joined(separator: "\n"))
    }

    // MARK: Reading real-world files

    /// The vcard mapping says it reads vCard 2.1, whose exporters (Android, Nokia, older Outlook)
    /// write every non-ASCII value as `ENCODING=QUOTED-PRINTABLE` (RFC 2045), with `=` soft line
    /// breaks for long values (vCard 2.1 2.1.3). pim stores the encoded text: a contact named
    /// "J=C3=BCrgen M=C3=BCller". The values should be decoded (and soft breaks joined).
    func testQuotedPrintableValuesOfAVCard21AreDecoded() throws {
        let path = try file("phone.vcf", """
            BEGIN:VCARD\r
            VERSION:2.1\r
            N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:M=C3=BCller;J=C3=BCrgen;;;\r
            FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:J=C3=BCrgen M=C3=BCller\r
            TEL;CELL:+49 170 1234567\r
            NOTE;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Stra=C3=9Fe 1, erste Zeile und noch viel mehr Text, der umbr=\r
            ochen wird\r
            END:VCARD\r

            """)
        try importFile(path)
        XCTAssertEqual(try contactNames(), ["Jürgen Müller"])
        let card = try XCTUnwrap(try json(pim("contacts", "show", "1", "--json")) as? [String: Any])
        XCTAssertEqual(card["givenName"] as? String, "Jürgen")
        XCTAssertEqual(card["familyName"] as? String, "Müller")
        XCTAssertEqual(card["notes"] as? String, "Straße 1, erste Zeile und noch viel mehr Text, der umbrochen wird")
    }

    /// RFC 6350 3.2: "It is possible for very simple implementations to generate improperly
    /// folded lines in the middle of a UTF-8 multi-octet sequence. For this reason,
    /// implementations SHOULD unfold lines in such a way as to properly restore the original
    /// sequence." pim decodes the whole file as UTF-8 before unfolding, so a fold between the two
    /// octets of "ü" refuses the whole file ("not UTF-8 text", naming line 1) instead of reading
    /// "Jürgen".
    func testACharacterSplitByAFoldIsRestored() throws {
        var data = Data("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:split-1\r\nFN:J".utf8)
        data.append(contentsOf: [0xC3, 0x0D, 0x0A, 0x20, 0xBC])   // "ü" = C3 BC, folded between its octets
        data.append(Data("rgen Müller\r\nN:Müller;Jürgen;;;\r\nEND:VCARD\r\n".utf8))
        let run = try pim("import", try bytes("split.vcf", data))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try contactNames(), ["Jürgen Müller"])
    }

    /// vCard 4.0 group cards (`KIND:group` with MEMBER, RFC 6350 6.1.4) and Apple's iCloud
    /// group cards (`X-ADDRESSBOOKSERVER-KIND:group`), which every iCloud/CardDAV address book
    /// export holds, are not people: pim imports each as a person named after the group
    /// ("Family", "Book Club") among the contacts. They should become groups (or be left out),
    /// never contacts.
    func testGroupCardsAreNotImportedAsContacts() throws {
        let path = try file("icloud.vcf", """
            BEGIN:VCARD\r
            VERSION:4.0\r
            UID:urn:uuid:a1\r
            FN:Ann Lee\r
            N:Lee;Ann;;;\r
            EMAIL:ann@example.org\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:4.0\r
            KIND:group\r
            UID:urn:uuid:g1\r
            FN:Family\r
            MEMBER:urn:uuid:a1\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:3.0\r
            PRODID:-//Apple Inc.//iOS 17.0//EN\r
            N:Book Club\r
            FN:Book Club\r
            X-ADDRESSBOOKSERVER-KIND:group\r
            X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:a1\r
            UID:g2\r
            END:VCARD\r

            """)
        let run = try pim("import", path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try contactNames(), ["Ann Lee"], "group cards are not contacts")
    }

    /// ADR's second component is the extended address (RFC 6350 6.3.1, RFC 2426 3.2.1:
    /// apartment or suite), and the first the post office box; Outlook, khard and Evolution write
    /// "Suite 630" or "Apt 4" there. pim has no field for them and drops them silently, so the
    /// imported address lacks the suite and the letter never arrives. They should be kept with
    /// the street.
    func testTheExtendedAddressOfAnADRIsKept() throws {
        let path = try file("office.vcf", """
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:adr-1\r
            FN:Simon Perreault\r
            N:Perreault;Simon;;;\r
            ADR;TYPE=work:;Suite D2-630;2875 Laurier;Quebec;QC;G1V 2M2;Canada\r
            END:VCARD\r

            """)
        try importFile(path)
        let card = try XCTUnwrap(try json(pim("contacts", "show", "1", "--json")) as? [String: Any])
        let address = try XCTUnwrap((card["addresses"] as? [[String: Any]])?.first, "\(card)")
        let text = address.values.compactMap { $0 as? String }.joined(separator: "\n")
        XCTAssertTrue(text.contains("Suite D2-630"), "the suite is part of the address: \(address)")
        XCTAssertTrue(text.contains("2875 Laurier"), "\(address)")
    }

    /// A series whose DTSTART is in UTC (`DTSTART:20261202T100000Z`, as Outlook.com, Exchange and
    /// many servers export) repeats at that UTC time (RFC 5545 3.3.5 form #2, 3.3.10: the
    /// recurrence is computed in the zone DTSTART is given in). pim gives the imported series
    /// the store's zone (Europe/Berlin) and so repeats it at 11:00 Berlin time: after the clock
    /// change the meeting is an hour early (09:00 UTC in July instead of 10:00 UTC).
    func testARepeatingEventInUTCKeepsItsUTCTimeAcrossAClockChange() throws {
        let path = try file("outlook.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN\r
            BEGIN:VEVENT\r
            UID:utc-weekly-1\r
            DTSTAMP:20261120T000000Z\r
            DTSTART:20261202T100000Z\r
            DTEND:20261202T110000Z\r
            RRULE:FREQ=WEEKLY\r
            SUMMARY:Call with London\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        try importFile(path)
        let july = try agendaEvents(days: 7, environment: ["PIM_NOW": "2027-07-05T08:00:00"]).filter { $0.title == "Call with London" }
        XCTAssertEqual(july.map(\.start), ["2027-07-07T12:00:00+02:00"], "10:00 UTC is 12:00 in Berlin's summer")
    }
}
