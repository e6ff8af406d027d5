// iCalendar and vCard text as feeds carry it inside XML: unfolding, escapes, structured parts,
// parameters, nested components, and payloads pretty-printed inside XML.
@testable import FeedImport
import XCTest

final class ContentComponentTests: XCTestCase {
    func testFoldedLinesAreJoinedAndBareLineFeedsEndLines() {
        let parsed = ContentComponent.parse("BEGIN:VCARD\nEMAIL:zoe.\r\n mueller@example.com\nFN:Zoë\rEND:VCARD\n")
        let card = parsed.recordComponent(named: "VCARD")
        XCTAssertEqual(card?.property("EMAIL")?.value, "zoe.mueller@example.com")
        XCTAssertEqual(card?.property("FN")?.value, "Zoë")
    }

    func testEscapesAreUndoneAndStructuredPartsSplitOnUnescapedSemicolons() {
        let card = ContentComponent.parse("BEGIN:VCARD\nN:Müller;Zoë;;Dr.;\nNOTE:a\\, b\\; c\\nd\nORG:R\\;D;Lab\nEND:VCARD").components[0]
        XCTAssertEqual(card.property("N")?.part(0), "Müller")
        XCTAssertEqual(card.property("N")?.part(1), "Zoë")
        XCTAssertEqual(card.property("N")?.part(3), "Dr.")
        XCTAssertNil(card.property("N")?.part(9))
        XCTAssertEqual(card.property("NOTE")?.value, "a, b; c\nd")
        XCTAssertEqual(card.property("ORG")?.part(0), "R;D")
    }

    func testParametersQuotedValuesGroupsAndBareTypes() {
        let card = ContentComponent.parse("BEGIN:VCARD\nitem1.EMAIL;TYPE=work,pref;LABEL=\"a:b;c\":x@example.org\nTEL;WORK;VOICE:123\nEND:VCARD").components[0]
        let email = card.property("EMAIL")
        XCTAssertEqual(email?.parameters["TYPE"], "work,pref")
        XCTAssertEqual(email?.parameters["LABEL"], "a:b;c")
        XCTAssertEqual(email?.value, "x@example.org")
        XCTAssertEqual(card.property("TEL")?.parameters["TYPE"], "WORK,VOICE")
    }

    func testTheRecordComponentIsTheMasterNotTheOverride() {
        let text = """
            BEGIN:VCALENDAR
            BEGIN:VEVENT
            UID:1
            RECURRENCE-ID:20240610T070000Z
            SUMMARY:moved
            END:VEVENT
            BEGIN:VEVENT
            UID:1
            SUMMARY:series
            END:VEVENT
            END:VCALENDAR
            """
        XCTAssertEqual(ContentComponent.parse(text).recordComponent(named: "VEVENT")?.property("SUMMARY")?.value, "series")
        XCTAssertNil(ContentComponent.parse(text).recordComponent(named: "VTODO"))
    }

    func testLinesIndentedByPrettyPrintingAreNewLinesNotFolds() {
        let text = "DTSTART;TZID=America/Los_Angeles:20070323T090000\n    DTEND;TZID=America/Los_Angeles:20070323T100000\n    RRULE:FREQ=WEEKLY;BYDAY=FR\n"
        let root = ContentComponent.parse(text)
        XCTAssertEqual(root.property("DTSTART")?.value, "20070323T090000")
        XCTAssertEqual(root.property("DTEND")?.parameters["TZID"], "America/Los_Angeles")
        XCTAssertEqual(root.property("RRULE")?.value, "FREQ=WEEKLY;BYDAY=FR")
    }
}
