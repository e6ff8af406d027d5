// Review of `pim import`: behaviour a user migrating from Exchange, CalDAV or Google expects, per
// pim-import(1), Importers/README.md and the pitfalls of the feed research notes. Every test runs
// the built binary and reads back what was stored through pim's own commands.
import Foundation
import XCTest

final class PimImportReviewTests: PimTestCase {
    /// `../shared/corpus/feeds` beside the checkout.
    static let feeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/feeds")

    /// The repository (Man/, Importers/).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Contacts first, so that attendees find their contacts in the first run.
    static let corpus = [
        "ews-getitem-contact-response.xml", "xcard-rfc6351.xml", "gdata-contacts-v3-feed.xml",
        "carddav-addressbook-query-response.raw.xml", "ews-getitem-task-response.xml", "ews-getitem-calendaritem-response.xml",
        "ews-finditem-calendarview-response.xml", "xcal-rfc6321.xml",
        "gdata-calendar-events-feed.xml", "caldav-calendar-query-response.raw.xml",
        "caldav-calendar-query-vtodo-response.raw.xml", "rss10-mod-event.rdf", "rss20-draft-xcal-events.xml",
        "atom-xcal-embedded-events.xml",
    ]

    func feed(_ name: String) -> String { Self.feeds.appendingPathComponent(name).path }

    func write(_ text: String, to name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func summaries(_ run: PimRun) throws -> [[String: Any]] {
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [[String: Any]], run.stdout)
    }

    func list(_ kind: String, environment: [String: String] = [:]) throws -> [[String: Any]] {
        let run = try pim(arguments: [kind, "list", "--json"] + (kind == "tasks" ? ["--all"] : []), environment: environment)
        return run.status == 1 ? [] : try XCTUnwrap(run.json() as? [[String: Any]], run.stderr)
    }

    static func instant(_ text: Any?) -> Date? {
        guard let text = text as? String else { return nil }
        return ISO8601DateFormatter().date(from: text)
    }

    static func davCalendar(href: String, _ lines: [String]) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><response><href>\(href)</href><propstat><prop>\
        <getetag>"1"</getetag><C:calendar-data>\(lines.joined(separator: "\r\n"))\r\n</C:calendar-data></prop>\
        <status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
        """
    }

    // MARK: Idempotency

    /// Importing every corpus feed a second time reports nothing added or updated, and changes
    /// no record (their modification dates too).
    func testImportingEveryCorpusFeedAgainReportsEverythingUnchanged() throws {
        let files = Self.corpus.map(feed)
        _ = try summaries(try pim(arguments: ["import", "--json"] + files))
        let before = try ["contacts", "events", "tasks"].map { try list($0).map { $0["modified"] as? String } }
        let again = try summaries(try pim(arguments: ["import", "--json"] + files))
        for summary in again {
            let file = summary["file"] as? String ?? "?"
            XCTAssertEqual(summary["added"] as? Int, 0, file)
            XCTAssertEqual(summary["updated"] as? Int, 0, file)
            XCTAssertEqual(summary["deleted"] as? Int, 0, file)
        }
        let after = try ["contacts", "events", "tasks"].map { try list($0).map { $0["modified"] as? String } }
        XCTAssertEqual(after, before)
    }

    /// A done task the feed gives no completion date is unchanged when the same feed is imported
    /// again on a later day: its completion date stays the one the first import gave it.
    func testReimportingACompletedTaskOnALaterDayChangesNothing() throws {
        let xcal = """
            <?xml version="1.0" encoding="utf-8"?>
            <icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0"><vcalendar><properties><prodid><text>-//r//EN</text></prodid>\
            <version><text>2.0</text></version></properties><components><vtodo><properties><uid><text>todo-done-1</text></uid>\
            <summary><text>File the taxes</text></summary><status><text>COMPLETED</text></status>\
            <priority><integer>0</integer></priority><percent-complete><integer>100</integer></percent-complete></properties></vtodo>\
            </components></vcalendar></icalendar>
            """
        let path = try write(xcal, to: "done.xml")
        _ = try summaries(try pim("import", "--json", path))
        let first = try XCTUnwrap(try list("tasks").first)
        XCTAssertEqual(first["status"] as? String, "done")
        let later = ["PIM_NOW": "2026-11-27T09:00:00"]
        let again = try XCTUnwrap(try summaries(try pim(arguments: ["import", "--json", path], environment: later)).first)
        XCTAssertEqual(again["updated"] as? Int, 0, "a re-import on a later day changed the done task")
        XCTAssertEqual(again["unchanged"] as? Int, 1)
        let second = try XCTUnwrap(try list("tasks", environment: later).first)
        XCTAssertEqual(second["completed"] as? String, first["completed"] as? String)
        XCTAssertEqual(second["modified"] as? String, first["modified"] as? String)
    }

    /// A to-do with neither PRIORITY nor PERCENT-COMPLETE (both optional in RFC 5545) is
    /// imported with pim's defaults, as `pim tasks add` would make it, not refused.
    func testAMinimalToDoWithoutPriorityOrPercentIsImported() throws {
        let xcal = """
            <?xml version="1.0" encoding="utf-8"?>
            <icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0"><vcalendar><properties><prodid><text>-//r//EN</text></prodid>\
            <version><text>2.0</text></version></properties><components><vtodo><properties><uid><text>todo-min-1</text></uid>\
            <summary><text>Buy milk</text></summary></properties></vtodo></components></vcalendar></icalendar>
            """
        let run = try pim("import", "--json", try write(xcal, to: "minimal.xml"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try list("tasks").compactMap { $0["title"] as? String }, ["Buy milk"])
    }

    // MARK: Atomicity

    /// A run whose second file is not well-formed imports nothing of the first (exit 9).
    func testAMalformedSecondFileLeavesTheStoreAsItWas() throws {
        let broken = try write("<vcards xmlns=\"urn:ietf:params:xml:ns:vcard-4.0\"><vcard><fn><text>X</text></fn>", to: "broken.xml")
        let run = try pim("import", "--format", "xcard", feed("xcard-rfc6351.xml"), broken)
        XCTAssertEqual(run.status, 9, run.stderr)
        XCTAssertTrue(try list("contacts").isEmpty)
    }

    // MARK: Records matched wrongly

    /// Two different people of the same name, neither card with a UID, in one xCard document are
    /// two contacts: neither silently overwrites the other.
    func testTwoCardsWithoutUIDButTheSameNameAreNotMergedWithinOneFeed() throws {
        let xcard = """
            <?xml version="1.0" encoding="utf-8"?>
            <vcards xmlns="urn:ietf:params:xml:ns:vcard-4.0">\
            <vcard><fn><text>Jan Novák</text></fn><org><text>Acme</text></org><email><text>jan@acme.example</text></email></vcard>\
            <vcard><fn><text>Jan Novák</text></fn><org><text>Globex</text></org><email><text>jan@globex.example</text></email></vcard>\
            </vcards>
            """
        let summary = try XCTUnwrap(try summaries(try pim("import", "--json", try write(xcard, to: "cards.xml"))).first)
        XCTAssertEqual(summary["records"] as? Int, 2)
        XCTAssertEqual(summary["added"] as? Int, 2, "one of the two cards vanished: \(summary)")
        XCTAssertEqual(Set(try list("contacts").compactMap { $0["organization"] as? String }), ["Acme", "Globex"])
    }

    /// pim-import(1): a CalendarView lists each occurrence of a series as an item of its own,
    /// imported as an event of its own; the series itself comes from GetItem of its master.
    /// Imported into one source, both show the meeting: the man page says to import one of them.
    func testAnExchangeCalendarViewOccurrenceIsAnEventOfItsOwn() throws {
        _ = try summaries(try pim("import", "--json", feed("ews-finditem-calendarview-response.xml")))
        XCTAssertEqual(try agendaDays(of: "Weekly standup", days: 1, environment: ["PIM_NOW": "2024-06-03T06:00:00"]), ["2024-06-03"])
        let man = try String(contentsOf: Self.repository.appendingPathComponent("Man/pim-import.1"), encoding: .utf8)
        XCTAssertTrue(man.contains("CalendarView"), "pim-import(1) says how calendar views and series mix")
    }

    // MARK: Detection

    /// pim-import(1): "Documents printed with https:// namespaces are read too" — without having
    /// to name the format.
    func testAnExchangeDocumentWithHttpsNamespacesIsRecognized() throws {
        let text = try String(contentsOfFile: feed("ews-getitem-contact-response.xml"), encoding: .utf8)
            .replacingOccurrences(of: "http://schemas.microsoft.com/exchange", with: "https://schemas.microsoft.com/exchange")
        let run = try pim("import", "--json", try write(text, to: "docs.xml"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try list("contacts").count, 2)
    }

    // MARK: iCalendar payloads

    /// A folded line whose continuation starts with a blank (the fold fell before a space) keeps
    /// its text, even when that text looks like `Word: ...`; iCalendar escapes are undone.
    func testAFoldBeforeABlankKeepsTheRestOfTheValue() throws {
        let dav = Self.davCalendar(href: "/cal/fold.ics", [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//r//EN", "BEGIN:VEVENT", "UID:fold-1",
            "DTSTART:20240610T070000Z", "DTEND:20240610T080000Z",
            "SUMMARY:Lunch\\, dinner\\; drinks",
            "DESCRIPTION:Agenda and budget review\\, see",
            "  Room: 4.2 in building B",
            "END:VEVENT", "END:VCALENDAR",
        ])
        _ = try summaries(try pim("import", "--json", try write(dav, to: "fold.xml")))
        let event = try XCTUnwrap(try list("events").first)
        XCTAssertEqual(event["title"] as? String, "Lunch, dinner; drinks")
        XCTAssertEqual(event["notes"] as? String, "Agenda and budget review, see Room: 4.2 in building B")
    }

    /// A CalDAV `<C:expand>` answer carries a series as its instances (each with a RECURRENCE-ID,
    /// no RRULE) in one member: every instance is in the store, not only the first one.
    func testEveryInstanceOfAnExpandedCalDAVSeriesIsKept() throws {
        _ = try summaries(try pim("import", "--json", feed("caldav-calendar-query-expand-response.raw.xml")))
        let environment = ["PIM_NOW": "2024-06-01T08:00:00"]
        XCTAssertEqual(try agendaDays(of: "Weekly standup", days: 30, environment: environment), ["2024-06-03", "2024-06-24"])
        XCTAssertEqual(try agendaDays(of: "Weekly standup (moved)", days: 30, environment: environment), ["2024-06-10"])
    }

    /// A TZID that is no IANA or Windows name (Outlook's "Customized Time Zone") is the zone the
    /// payload's VTIMEZONE defines: the event is imported at its instant, not refused.
    func testATZIDDefinedOnlyByItsVTIMEZONEGivesTheInstant() throws {
        let dav = Self.davCalendar(href: "/cal/outlook.ics", [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN",
            "BEGIN:VTIMEZONE", "TZID:Customized Time Zone",
            "BEGIN:STANDARD", "DTSTART:16011104T020000", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11",
            "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "END:STANDARD",
            "BEGIN:DAYLIGHT", "DTSTART:16010311T020000", "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3",
            "TZOFFSETFROM:-0500", "TZOFFSETTO:-0400", "END:DAYLIGHT", "END:VTIMEZONE",
            "BEGIN:VEVENT", "UID:outlook-1",
            "DTSTART;TZID=Customized Time Zone:20240610T090000", "DTEND;TZID=Customized Time Zone:20240610T100000",
            "SUMMARY:Call with New York", "END:VEVENT", "END:VCALENDAR",
        ])
        let run = try pim("import", "--json", try write(dav, to: "outlook.xml"))
        XCTAssertEqual(run.status, 0, run.stderr)
        let event = try XCTUnwrap(try list("events").first)
        XCTAssertEqual(Self.instant(event["start"]), ISO8601DateFormatter().date(from: "2024-06-10T13:00:00Z"), "\(event)")
        XCTAssertEqual(Self.instant(event["end"]), ISO8601DateFormatter().date(from: "2024-06-10T14:00:00Z"), "\(event)")
    }

    // MARK: All-day

    /// An xCal all-day event (DTEND exclusive, as RFC 5545 says) shows on its one day only.
    func testAnXCalAllDayEventShowsOnItsOneDay() throws {
        _ = try summaries(try pim("import", "--json", feed("xcal-rfc6321.xml")))
        let allDay = try XCTUnwrap(try list("events").first { $0["allDay"] as? Bool == true })
        let title = try XCTUnwrap(allDay["title"] as? String)
        XCTAssertEqual(allDay["start"] as? String, "2024-06-15")
        XCTAssertEqual(try agendaDays(of: title, days: 4, environment: ["PIM_NOW": "2024-06-14T08:00:00"]), ["2024-06-15"])
    }

    // MARK: Errors inside HTTP 200

    /// An Exchange response whose message is an error (ResponseClass="Error") is not an import
    /// that succeeded with nothing in it: the run fails and names the response code.
    func testAnExchangeErrorResponseIsNotReportedAsSuccess() throws {
        let ews = """
            <?xml version="1.0" encoding="utf-8"?>
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>\
            <m:GetItemResponse xmlns:m="http://schemas.microsoft.com/exchange/services/2006/messages" \
            xmlns:t="http://schemas.microsoft.com/exchange/services/2006/types"><m:ResponseMessages>\
            <m:GetItemResponseMessage ResponseClass="Error"><m:MessageText>The specified object was not found in the store.</m:MessageText>\
            <m:ResponseCode>ErrorItemNotFound</m:ResponseCode><m:DescriptiveLinkKey>0</m:DescriptiveLinkKey><m:Items/>\
            </m:GetItemResponseMessage></m:ResponseMessages></m:GetItemResponse></s:Body></s:Envelope>
            """
        let run = try pim("import", try write(ews, to: "error.xml"))
        XCTAssertNotEqual(run.status, 0, "an error response imported as success: \(run.stdout)")
        XCTAssertTrue(run.stderr.contains("ErrorItemNotFound"), run.stderr)
    }

    // MARK: XML security

    /// An external entity is never read: a file it names does not end up in the store or in what
    /// pim prints.
    func testAnExternalEntityIsNotRead() throws {
        let secret = folder.appendingPathComponent("secret.txt")
        try "TOPSECRET-4711".write(to: secret, atomically: true, encoding: .utf8)
        let xcard = """
            <?xml version="1.0" encoding="utf-8"?>
            <!DOCTYPE vcards [<!ENTITY leak SYSTEM "\(secret.absoluteString)">]>
            <vcards xmlns="urn:ietf:params:xml:ns:vcard-4.0"><vcard><uid><text>xxe-1</text></uid>\
            <fn><text>Eve &leak;</text></fn><note><text>&leak;</text></note></vcard></vcards>
            """
        let run = try pim("import", try write(xcard, to: "xxe.xml"))
        XCTAssertFalse(run.stdout.contains("TOPSECRET") || run.stderr.contains("TOPSECRET"))
        let shown = try pim("contacts", "list", "--json")
        XCTAssertFalse(shown.stdout.contains("TOPSECRET"), shown.stdout)
    }
}
