// Second review of `pim sync`: defects left after the first review (SyncReviewTests), found by
// running the built binary against a real Radicale server that the tests also use directly as
// another client (Thunderbird, Apple Contacts and Calendar, DAVx5, Outlook through a connector).
// Each test failed on the code as reviewed. Most are in what the resource merger
// (Sources/PIM/Sync/ResourceMerger.swift) keeps of the server's copy, or drops from it, when pim
// sends a record another client made.
import Foundation
import XCTest

final class SyncSecondReviewTests: SyncTestCase {
    private func sync(on storeURL: URL? = nil, _ extra: String...) throws -> (run: PimRun, reports: [String: [String: Any]]) {
        try syncRun(on: storeURL, extra)
    }

    /// Puts `lines` (CRLF-joined) at `path` on the server as another client would.
    private func put(_ path: String, _ lines: [String], type: String) throws {
        let body = lines.joined(separator: "\r\n") + "\r\n"
        let answer = try server.request("PUT", path, headers: ["Content-Type": type], body: body)
        XCTAssertEqual(answer.status, 201, "PUT \(path): \(answer.body)")
    }

    /// The server's text of `href`, unfolded (RFC 5545 3.1, RFC 6350 3.2), with LF line ends.
    private func unfolded(_ href: String) throws -> String {
        try server.text(of: href).replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\n ", with: "").replacingOccurrences(of: "\n\t", with: "")
    }

    private func event(_ uid: String, _ summary: String, _ extra: [String]) -> [String] {
        ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN",
         "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20261120T100000Z", "SUMMARY:\(summary)",
         "DTSTART:20261203T140000Z", "DTEND:20261203T150000Z"] + extra + ["END:VEVENT", "END:VCALENDAR"]
    }

    private func card(_ uid: String, _ name: String, _ extra: [String], version: String = "3.0") -> [String] {
        let parts = name.split(separator: " ")
        return ["BEGIN:VCARD", "VERSION:\(version)", "PRODID:-//Apple Inc.//macOS 15.0//EN", "UID:\(uid)", "FN:\(name)",
                "N:\(parts.last ?? "");\(parts.first ?? "");;;"] + extra + ["END:VCARD"]
    }

    // MARK: - Events

    /// An attendee of another client's event is deleted from the server as soon as a contact
    /// with the attendee's address exists here and pim sends the event. The event was read while
    /// no contact had the address, so pim's record has no attendee link and the merger kept the
    /// ATTENDEE line from the server's copy; once the user adds the contact (`pim contacts add
    /// Bob --email bob@example.com`, or the address book sync reads it), the merger takes every
    /// ATTENDEE whose address is a contact's for one pim "left out on purpose"
    /// (ResourceMerger.keptLines, `knownAddresses`), and an edit of the location uninvites Bob on
    /// every device. Nobody removed the attendee: a client keeps the attendees it did not remove
    /// (RFC 5545 3.8.4.1, RFC 6638 3.1; Thunderbird, DAVx5 and Apple Calendar only drop an
    /// ATTENDEE the user deleted). What pim left out on purpose is what its record had and no
    /// longer has, not whatever matches a contact now.
    func testAnAttendeeWhoBecomesAContactLaterIsKeptWhenTheEventIsSent() throws {
        try addCollections()
        try put("/alice/calendar/plan-1.ics", event("plan-1@example.com", "Planning", [
            "ORGANIZER;CN=Carol:mailto:carol@example.com",
            "ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED:mailto:bob@example.com",
        ]), type: "text/calendar")
        XCTAssertEqual(count(try sync().reports[calendarURL], "added"), 1)

        XCTAssertEqual(try run("contacts", "add", "Bob Builder", "--email", "bob@example.com").status, 0)
        XCTAssertEqual(try run("events", "edit", "Planning", "--location", "Room 5").status, 0)
        let sent = try sync()
        XCTAssertEqual(sent.run.status, 0, sent.run.stderr)
        XCTAssertEqual(count(sent.reports[calendarURL], "sent"), 1)

        let text = try unfolded("/alice/calendar/plan-1.ics")
        XCTAssertTrue(text.contains("LOCATION:Room 5"), text)
        XCTAssertTrue(text.lowercased().contains("mailto:bob@example.com"), "Bob is still invited:\n\(text)")
    }

    /// An attendee's reply is lost when pim sends an event: for an attendee who is a contact here
    /// pim writes `ATTENDEE;CN=...:mailto:...` from the contact (ICalendarWriter), and the merger
    /// drops the server's ATTENDEE line for that address, with its PARTSTAT, ROLE and RSVP. After a
    /// change of location in pim, every client shows Bob's accepted invitation as "needs action"
    /// again (PARTSTAT defaults to NEEDS-ACTION, RFC 5545 3.2.12) and the organizer's client may
    /// ask him again. Parameters pim does not model belong to the attendee, not to pim: a client
    /// keeps them when it rewrites the event (RFC 6638 3.2.1: only the attendee changes its
    /// PARTSTAT; Thunderbird and DAVx5 keep them).
    func testAnAttendeesReplyIsKeptWhenTheEventIsSent() throws {
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Bob Builder", "--email", "bob@example.com").status, 0)
        XCTAssertEqual(try sync().run.status, 0)
        try put("/alice/calendar/review-1.ics", event("review-1@example.com", "Design review", [
            "ORGANIZER;CN=Carol:mailto:carol@example.com",
            "ATTENDEE;CN=Bob Builder;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:bob@example.com",
        ]), type: "text/calendar")
        XCTAssertEqual(count(try sync().reports[calendarURL], "added"), 1)

        XCTAssertEqual(try run("events", "edit", "Design review", "--location", "Room 5").status, 0)
        XCTAssertEqual(count(try sync().reports[calendarURL], "sent"), 1)

        let text = try unfolded("/alice/calendar/review-1.ics")
        XCTAssertTrue(text.contains("LOCATION:Room 5"), text)
        let bob = text.split(separator: "\n").filter { $0.uppercased().hasPrefix("ATTENDEE") && $0.lowercased().contains("bob@example.com") }
        XCTAssertEqual(bob.count, 1, "one ATTENDEE for Bob:\n\(text)")
        XCTAssertTrue(bob.first?.uppercased().contains("PARTSTAT=ACCEPTED") ?? false, "Bob's acceptance is kept:\n\(text)")
    }

    /// The alarm (and anything else pim does not hold) of another client's changed occurrence is
    /// lost when pim sends the series, if that client named the occurrence in UTC
    /// (`RECURRENCE-ID:20261202T080000Z`, as RFC 5545 3.8.4.4 allows beside a DTSTART with a
    /// TZID) while pim names it in the series' zone (`RECURRENCE-ID;TZID=Europe/Berlin:
    /// 20261202T090000`). The merger matches the server's components to pim's by the digits of
    /// RECURRENCE-ID (ResourceMerger.ObjectKey.recurrence), so the two never match and the
    /// override's VALARM is dropped. A RECURRENCE-ID names an instant: components are the same
    /// occurrence when the instants are equal (RFC 5545 3.8.4.4), however they are written.
    func testAChangedOccurrencesAlarmIsKeptWhenItsRecurrenceIDIsInUTC() throws {
        try addCollections()
        try put("/alice/calendar/standup-1.ics", [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Other client//EN",
            "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
            "BEGIN:STANDARD", "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
            "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET", "END:STANDARD",
            "BEGIN:DAYLIGHT", "DTSTART:19700329T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
            "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST", "END:DAYLIGHT",
            "END:VTIMEZONE",
            "BEGIN:VEVENT", "UID:standup-1@example.com", "DTSTAMP:20261120T100000Z", "SUMMARY:Standup",
            "DTSTART;TZID=Europe/Berlin:20261201T090000", "DTEND;TZID=Europe/Berlin:20261201T091500",
            "RRULE:FREQ=DAILY;COUNT=5", "END:VEVENT",
            "BEGIN:VEVENT", "UID:standup-1@example.com", "DTSTAMP:20261120T100000Z", "SUMMARY:Late call",
            "RECURRENCE-ID:20261202T080000Z",
            "DTSTART;TZID=Europe/Berlin:20261202T110000", "DTEND;TZID=Europe/Berlin:20261202T111500",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Late call", "TRIGGER:-PT10M", "END:VALARM",
            "END:VEVENT", "END:VCALENDAR",
        ], type: "text/calendar")
        let read = try sync()
        XCTAssertEqual(read.run.status, 0, read.run.stderr)
        XCTAssertEqual(count(read.reports[calendarURL], "added"), 1)

        let series = try XCTUnwrap(try list("events").first { $0["title"] as? String == "Standup" })
        let number = try XCTUnwrap(series["number"] as? Int)
        let edited = try run("events", "edit", String(number), "--location", "Room 2")
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertEqual(count(try sync().reports[calendarURL], "sent"), 1)

        let text = try unfolded("/alice/calendar/standup-1.ics")
        XCTAssertTrue(text.contains("LOCATION:Room 2"), text)
        XCTAssertTrue(text.contains("SUMMARY:Late call"), "the changed occurrence is still there:\n\(text)")
        XCTAssertTrue(text.contains("BEGIN:VALARM"), "and so is its alarm:\n\(text)")
    }

    /// A description changed in pim is still shown unchanged by Outlook and other clients that
    /// read the HTML description: the merger keeps the server's `X-ALT-DESC;FMTTYPE=text/html`
    /// (not a property pim owns) beside pim's new DESCRIPTION, and such clients show X-ALT-DESC
    /// in place of DESCRIPTION. The same holds for a location and Apple's
    /// X-APPLE-STRUCTURED-LOCATION (its X-TITLE), and for a card's address and its vCard 3.0
    /// LABEL (RFC 2426 3.2.2, the formatted text of the ADR it goes with). A property that
    /// restates a value pim changed is an old value: it goes when pim changes that value (kept
    /// only while pim's value is the one it restated), or other clients show the old one.
    func testAChangedDescriptionLeavesNoOldHTMLDescription() throws {
        try addCollections()
        try put("/alice/calendar/agenda-1.ics", event("agenda-1@example.com", "Quarterly", [
            "DESCRIPTION:Old agenda",
            "X-ALT-DESC;FMTTYPE=text/html:<html><body><p>Old agenda</p></body></html>",
        ]), type: "text/calendar")
        XCTAssertEqual(count(try sync().reports[calendarURL], "added"), 1)

        XCTAssertEqual(try run("events", "edit", "Quarterly", "--notes", "New agenda").status, 0)
        XCTAssertEqual(count(try sync().reports[calendarURL], "sent"), 1)

        let text = try unfolded("/alice/calendar/agenda-1.ics")
        XCTAssertTrue(text.contains("DESCRIPTION:New agenda"), text)
        XCTAssertFalse(text.contains("Old agenda"), "no client shows the old agenda:\n\(text)")
    }

    // MARK: - Contacts

    /// A person's department is deleted from the server when pim sends the card. The dav
    /// mapping reads only the first part of ORG into `organization` (a person has no `unit`, an
    /// organization has), pim writes `ORG:Acme Corp`, and ORG is a property the merger takes from
    /// pim's text only, so `ORG:Acme Corp;Research` of Apple Contacts, Outlook or Thunderbird
    /// becomes `ORG:Acme Corp` on every device after any edit here (a note, a phone). ORG is a
    /// structured value, the organization and its units (RFC 2426 3.5.5, RFC 6350 6.6.4): a
    /// client that does not show the units still writes them back.
    func testAPersonsDepartmentIsKeptWhenTheCardIsSent() throws {
        try addCollections()
        try put("/alice/contacts/grace-1.vcf", card("grace-1", "Grace Hopper", [
            "ORG:Acme Corp;Research", "EMAIL;TYPE=INTERNET,WORK:grace@acme.example",
        ]), type: "text/vcard")
        XCTAssertEqual(count(try sync().reports[contactsURL], "added"), 1)

        XCTAssertEqual(try run("contacts", "edit", "Grace Hopper", "--notes", "Met at the conference").status, 0)
        XCTAssertEqual(count(try sync().reports[contactsURL], "sent"), 1)

        let text = try unfolded("/alice/contacts/grace-1.vcf")
        XCTAssertTrue(text.contains("Met at the conference"), text)
        XCTAssertTrue(text.contains("ORG:Acme Corp;Research"), "the department is kept:\n\(text)")
    }

    /// A contact's photo given by URL is deleted from the server when pim sends the card. The dav
    /// mapping reads PHOTO as base64 bytes only and leaves a link out (FeedValue's `base64`:
    /// "a link to an image elsewhere is not its bytes"), so pim's record has no photo, pim's card
    /// has none, and PHOTO is a property the merger takes from pim's text only: the server's
    /// `PHOTO;VALUE=uri:https://...` (RFC 2426 3.1.4, RFC 6350 6.2.4; Google, Nextcloud and
    /// Outlook connectors write links) goes on every device after an edit of the note here. What
    /// pim cannot read into its record is the server's to keep.
    func testAPhotoGivenByURLIsKeptWhenTheCardIsSent() throws {
        try addCollections()
        try put("/alice/contacts/ada-1.vcf", card("ada-1", "Ada Lovelace", [
            "PHOTO;VALUE=uri:https://photos.example.com/ada.jpg",
        ]), type: "text/vcard")
        XCTAssertTrue(try unfolded("/alice/contacts/ada-1.vcf").contains("photos.example.com/ada.jpg"), "the server keeps the link")
        XCTAssertEqual(count(try sync().reports[contactsURL], "added"), 1)

        XCTAssertEqual(try run("contacts", "edit", "Ada Lovelace", "--notes", "Analyst").status, 0)
        XCTAssertEqual(count(try sync().reports[contactsURL], "sent"), 1)

        let text = try unfolded("/alice/contacts/ada-1.vcf")
        XCTAssertTrue(text.contains("NOTE:Analyst"), text)
        XCTAssertTrue(text.contains("photos.example.com/ada.jpg"), "the photo is kept:\n\(text)")
    }

    /// A birthday without a year is lost when pim sends the card. `BDAY:--0412` (RFC 6350 4.3.1,
    /// a date without a year, which Apple Contacts, Android and Nextcloud write for a birthday
    /// whose year is not known) is not a date the dav mapping reads (`lenient`: left out), so the
    /// record has no birthday, pim's card has none, and BDAY is a property the merger takes from
    /// pim's text only: an edit of the note here deletes the birthday on every device. A value
    /// pim cannot hold must stay on the server, not be replaced by nothing.
    func testABirthdayWithoutAYearIsKeptWhenTheCardIsSent() throws {
        try addCollections()
        try put("/alice/contacts/linus-1.vcf", card("linus-1", "Linus Pauling", ["BDAY:--0412"], version: "4.0"), type: "text/vcard")
        XCTAssertTrue(try unfolded("/alice/contacts/linus-1.vcf").contains("--0412"), "the server keeps the birthday")
        XCTAssertEqual(count(try sync().reports[contactsURL], "added"), 1)

        XCTAssertEqual(try run("contacts", "edit", "Linus Pauling", "--notes", "Chemist").status, 0)
        XCTAssertEqual(count(try sync().reports[contactsURL], "sent"), 1)

        let text = try unfolded("/alice/contacts/linus-1.vcf")
        XCTAssertTrue(text.contains("NOTE:Chemist"), text)
        // pim reads the day (as 1604, shown --04-12) and sends it as the server wrote it.
        XCTAssertTrue(text.contains("\nBDAY:--0412\n"), "the birthday (12 April, no year) is kept:\n\(text)")
        XCTAssertFalse(text.contains("1604"), "the server's form is kept, not pim's:\n\(text)")
        let linus = try XCTUnwrap(try list("contacts").first { $0["name"] as? String == "Linus Pauling" })
        XCTAssertEqual(linus["birthday"] as? String, "--04-12")
    }

    /// The custom label of an e-mail address (Apple Contacts and iCloud: `item1.EMAIL` with
    /// `item1.X-ABLabel:school`) is deleted when pim sends the card. pim reads a label from TYPE
    /// only and writes EMAIL without the group, and the merger drops every property of a group
    /// whose EMAIL pim writes ("properties of a group pim writes take their labels along"): the
    /// label goes on the Mac, the iPhone and iCloud after an edit of the note here, and the
    /// address shows as "other". Grouped labels are how vCard 3.0 and 4.0 clients name a property
    /// (RFC 6350 3.3 groups); pim keeps neither, so the server's must stay with its address.
    func testAnAddressBooksCustomEmailLabelIsKeptWhenTheCardIsSent() throws {
        try addCollections()
        try put("/alice/contacts/marie-1.vcf", card("marie-1", "Marie Curie", [
            "item1.EMAIL;type=INTERNET;type=pref:marie@sorbonne.example", "item1.X-ABLabel:school",
        ]), type: "text/vcard")
        XCTAssertEqual(count(try sync().reports[contactsURL], "added"), 1)

        XCTAssertEqual(try run("contacts", "edit", "Marie Curie", "--notes", "Physicist").status, 0)
        XCTAssertEqual(count(try sync().reports[contactsURL], "sent"), 1)

        let text = try unfolded("/alice/contacts/marie-1.vcf")
        XCTAssertTrue(text.contains("NOTE:Physicist"), text)
        XCTAssertTrue(text.contains("marie@sorbonne.example"), text)
        XCTAssertTrue(text.uppercased().contains("X-ABLABEL:SCHOOL"), "the address keeps its label:\n\(text)")
    }

    /// A contact group of Apple Contacts, iCloud or Nextcloud (a card with
    /// `X-ADDRESSBOOKSERVER-KIND:group` and its members' UIDs in X-ADDRESSBOOKSERVER-MEMBER,
    /// RFC 6350 6.1.4's KIND:group and MEMBER in vCard 4.0) is read as a person: `pim contacts
    /// list` shows "Book club" as a contact with no address, and nothing shows who is in it.
    /// The dav mapping knows only people and organizations. A group card is a group (pim has
    /// groups with members); DAVx5 reads such cards as groups, and no client lists them as people.
    func testAGroupCardOfAnotherClientIsNotReadAsAPerson() throws {
        try addCollections()
        try put("/alice/contacts/grace-1.vcf", card("grace-1", "Grace Hopper", ["EMAIL;TYPE=INTERNET:grace@example.com"]), type: "text/vcard")
        try put("/alice/contacts/club-1.vcf", [
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//AddressBook 15.0//EN", "UID:club-1", "FN:Book club", "N:Book club;;;;",
            "X-ADDRESSBOOKSERVER-KIND:group", "X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:grace-1", "END:VCARD",
        ], type: "text/vcard")
        let read = try sync()
        XCTAssertEqual(read.run.status, 0, read.run.stderr)

        XCTAssertEqual(try titles("contacts"), ["Grace Hopper"], "the group is not a person")
    }
}
