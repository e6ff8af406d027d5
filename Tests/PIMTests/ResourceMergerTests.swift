// ResourceMerger: what pim sync keeps of the server's copy of a resource it replaces (alarms,
// attendees who are not contacts, other programs' properties), and what it does not (what pim
// writes itself).
import XCTest
@testable import PIM

final class ResourceMergerTests: XCTestCase {
    private let ours = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//ObjectGraph//pim//EN",
        "BEGIN:VEVENT", "UID:tb-1@example.com", "DTSTART:20261203T140000Z", "DTEND:20261203T150000Z",
        "LOCATION:Room 4", "SUMMARY:Board meeting", "ATTENDEE;CN=Ada:mailto:ada@example.com",
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Board meeting", "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT",
        "BEGIN:VEVENT", "UID:tb-1@example.com", "RECURRENCE-ID:20261210T140000Z", "DTSTART:20261210T150000Z",
        "SUMMARY:Board meeting (later)", "END:VEVENT",
        "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    /// The server's copy, as XML hands calendar data over (LF line ends), with a folded line.
    private let theirs = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN",
        "BEGIN:VEVENT", "UID:tb-1@example.com", "DTSTAMP:20261120T100000Z", "SUMMARY:Board meeting",
        "DTSTART:20261203T140000Z", "DTEND:20261203T150000Z", "LOCATION:Room 1",
        "ORGANIZER;CN=Carol:mailto:carol@example.com",
        "ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED:mailto:bob@example.com",
        "ATTENDEE;CN=Eve:mailto:eve@example.com",
        "CATEGORIES:Board", "X-MOZ-GENERATION:3", "X-PIM-CALENDAR:old",
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder with a long text that goes on and on and on",
        " and is folded", "TRIGGER:-PT15M", "END:VALARM",
        "END:VEVENT",
        "BEGIN:VEVENT", "UID:tb-1@example.com", "RECURRENCE-ID:20261210T140000Z", "DTSTART:20261210T150000Z",
        "SUMMARY:Board meeting (later)", "X-MOZ-LASTACK:20261201T000000Z", "END:VEVENT",
        "END:VCALENDAR", "",
    ].joined(separator: "\n")

    private func component(_ text: String, _ index: Int) -> [String] {
        let lines = text.components(separatedBy: "\r\n")
        var found: [[String]] = []
        var current: [String]?
        for line in lines {
            if line == "BEGIN:VEVENT" { current = [] }
            if line == "END:VEVENT", let done = current { found.append(done); current = nil }
            current?.append(line)
        }
        return found[index]
    }

    func testAnEventKeepsItsAlarmOrganizerOtherAttendeesAndUnknownProperties() {
        let merged = ResourceMerger(removedAttendees: ["eve@example.com"]).merged(ours, keeping: theirs)
        XCTAssertTrue(merged.hasSuffix("END:VCALENDAR\r\n"))
        XCTAssertFalse(merged.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF only")
        let master = component(merged, 0)
        XCTAssertTrue(master.contains("LOCATION:Room 4"))
        XCTAssertFalse(master.contains("LOCATION:Room 1"), "what pim writes comes from pim")
        XCTAssertTrue(master.contains("ORGANIZER;CN=Carol:mailto:carol@example.com"))
        XCTAssertTrue(master.contains("ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED:mailto:bob@example.com"), "not a contact here: kept")
        XCTAssertFalse(master.contains("ATTENDEE;CN=Eve:mailto:eve@example.com"), "removed here since the last sync")
        XCTAssertTrue(master.contains("ATTENDEE;CN=Ada:mailto:ada@example.com"))
        XCTAssertTrue(master.contains("CATEGORIES:Board"))
        XCTAssertTrue(master.contains("X-MOZ-GENERATION:3"))
        XCTAssertFalse(master.contains("X-PIM-CALENDAR:old"))
        XCTAssertEqual(master.filter { $0 == "BEGIN:VALARM" }.count, 1, "pim's alarm is the server's")
        XCTAssertTrue(master.contains(" and is folded"), "the server's alarm, its folded lines kept as they were")
        XCTAssertFalse(master.contains("DESCRIPTION:Board meeting"), "pim's text of the alarm gives way to the server's")
        XCTAssertTrue(master.contains("END:VALARM"))
        XCTAssertEqual(master.filter { $0.hasPrefix("DTSTAMP") }.count, 0, "pim's DTSTAMP only (none in this text)")
        let changed = component(merged, 1)
        XCTAssertTrue(changed.contains("X-MOZ-LASTACK:20261201T000000Z"), "kept in its own occurrence")
        XCTAssertFalse(changed.contains("BEGIN:VALARM"))
    }

    func testACardKeepsWhatPimDoesNotWriteAndGroupsWithOwnedProperties() {
        let own = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:c1\r\nFN:Ada Lovelace\r\nN:Lovelace;Ada;;;\r\nEMAIL:ada@example.org\r\nEND:VCARD\r\n"
        let server = "BEGIN:VCARD\nVERSION:3.0\nUID:c1\nFN:Ada\nitem1.EMAIL:old@example.org\nitem1.X-ABLabel:_$!<Work>!$_\n"
            + "item2.X-ABRELATEDNAMES:Byron\nitem2.X-ABLabel:_$!<Father>!$_\nIMPP:xmpp:ada@example.org\nEND:VCARD\n"
        let merged = ResourceMerger().merged(own, keeping: server)
        let lines = merged.components(separatedBy: "\r\n")
        XCTAssertTrue(lines.contains("EMAIL:ada@example.org"))
        XCTAssertFalse(lines.contains("item1.EMAIL:old@example.org"))
        XCTAssertFalse(lines.contains("item1.X-ABLabel:_$!<Work>!$_"), "the label of an address pim writes goes with it")
        XCTAssertTrue(lines.contains("item2.X-ABRELATEDNAMES:Byron"))
        XCTAssertTrue(lines.contains("item2.X-ABLabel:_$!<Father>!$_"))
        XCTAssertTrue(lines.contains("IMPP:xmpp:ada@example.org"))
        XCTAssertFalse(lines.contains("FN:Ada"))
        XCTAssertEqual(lines.last(where: { !$0.isEmpty }), "END:VCARD")
    }

    func testNothingToKeepLeavesPimsTextAsItIs() {
        let own = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:c1\r\nFN:Ada\r\nEND:VCARD\r\n"
        XCTAssertEqual(ResourceMerger().merged(own, keeping: "BEGIN:VCARD\nVERSION:4.0\nUID:c1\nFN:Ada L\nEND:VCARD\n"), own)
    }

    func testAnAttendeesReplyAndAnOccurrenceNamedInUTCAreKept() {
        let own = [
            "BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:s1", "DTSTART;TZID=Europe/Berlin:20261201T090000", "SUMMARY:Standup",
            "DESCRIPTION:New agenda", "ATTENDEE;CN=Bob:mailto:bob@example.com", "END:VEVENT",
            "BEGIN:VEVENT", "UID:s1", "RECURRENCE-ID;TZID=Europe/Berlin:20261202T090000", "DTSTART;TZID=Europe/Berlin:20261202T100000",
            "SUMMARY:Standup", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Standup", "TRIGGER:-PT5M", "END:VALARM",
            "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let server = [
            "BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:s1", "DTSTART;TZID=Europe/Berlin:20261201T090000", "SUMMARY:Standup",
            "DESCRIPTION:Old agenda", "X-ALT-DESC;FMTTYPE=text/html:<p>Old agenda</p>",
            "ATTENDEE;CN=Bob Builder;PARTSTAT=ACCEPTED:MAILTO:Bob@Example.com", "END:VEVENT",
            "BEGIN:VEVENT", "UID:s1", "RECURRENCE-ID:20261202T080000Z", "DTSTART:20261202T090000Z", "SUMMARY:Standup",
            "BEGIN:VALARM", "TRIGGER:-PT5M", "ACTION:DISPLAY", "DESCRIPTION:Soon", "END:VALARM", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\n")
        let merged = ResourceMerger().merged(own, keeping: server)
        let master = component(merged, 0)
        XCTAssertEqual(master.filter { $0.uppercased().hasPrefix("ATTENDEE") }, ["ATTENDEE;CN=Bob Builder;PARTSTAT=ACCEPTED:MAILTO:Bob@Example.com"],
                       "one line for Bob, as the server wrote it")
        XCTAssertFalse(master.contains { $0.hasPrefix("X-ALT-DESC") }, "the description changed here: its HTML form goes")
        XCTAssertTrue(component(merged, 1).contains("DESCRIPTION:Soon"), "the occurrence is the same instant in another zone: its alarm is the server's")

        let unchanged = ResourceMerger().merged(own.replacingOccurrences(of: "New agenda", with: "Old agenda"), keeping: server)
        XCTAssertTrue(component(unchanged, 0).contains("X-ALT-DESC;FMTTYPE=text/html:<p>Old agenda</p>"), "kept while the description is the server's")
    }

    func testACardKeepsWhatPimCannotReadAndTheLabelsOfWhatItWrites() {
        let own = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:c1\r\nFN:Marie Curie\r\nORG:Sorbonne\r\nEMAIL;TYPE=work:marie@sorbonne.example\r\nEND:VCARD\r\n"
        let server = "BEGIN:VCARD\nVERSION:4.0\nUID:c1\nFN:Marie Curie\nORG:Sorbonne;Physics\nBDAY:--1107\n"
            + "PHOTO;VALUE=uri:https://photos.example/marie.jpg\nitem1.EMAIL;type=INTERNET;type=pref:marie@sorbonne.example\n"
            + "item1.X-ABLabel:school\nEND:VCARD\n"
        let lines = ResourceMerger().merged(own, keeping: server).components(separatedBy: "\r\n")
        XCTAssertTrue(lines.contains("ORG:Sorbonne;Physics"), "\(lines)")
        XCTAssertFalse(lines.contains("ORG:Sorbonne"))
        XCTAssertTrue(lines.contains("BDAY:--1107"))
        XCTAssertTrue(lines.contains("PHOTO;VALUE=uri:https://photos.example/marie.jpg"))
        XCTAssertEqual(lines.filter { $0.uppercased().contains("EMAIL") }, ["item1.EMAIL;type=INTERNET;type=pref:marie@sorbonne.example"])
        XCTAssertTrue(lines.contains("item1.X-ABLabel:school"))

        let edited = own.replacingOccurrences(of: "ORG:Sorbonne", with: "ORG:Institut Curie").replacingOccurrences(of: "\r\nEND", with: "\r\nBDAY:1867-11-07\r\nEND")
        let after = ResourceMerger().merged(edited, keeping: server).components(separatedBy: "\r\n")
        XCTAssertTrue(after.contains("ORG:Institut Curie"))
        XCTAssertFalse(after.contains { $0.hasPrefix("ORG:Sorbonne") }, "a new organization is pim's alone")
        XCTAssertFalse(after.contains("BDAY:--1107"), "pim writes a birthday now")
    }
}
