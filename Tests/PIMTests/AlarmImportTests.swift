// Alarms through pim's own mappings (Importers/feeds): every calendar format that carries them
// fills an event's or a task's `alarms` with TRIGGER values `Alarm` reads back as written. The
// corpus's real documents where they have alarms, small changes to them where they have none.
import FeedImport
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class AlarmImportTests: PIMStoreTestCase {
    /// `../shared/corpus/feeds` beside the checkout.
    static let feeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/feeds")

    private func corpus(_ name: String) throws -> String {
        try String(contentsOf: Self.feeds.appendingPathComponent(name), encoding: .utf8)
    }

    /// `text` with `old` replaced, failing when `old` is not in it (the corpus changed).
    private func replacing(_ old: String, with new: String, in text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertTrue(text.contains(old), "the document no longer holds \(old)", file: file, line: line)
        return text.replacingOccurrences(of: old, with: new)
    }

    /// `text` with `new` inserted after the first `closing` that follows `anchor`.
    private func inserting(_ new: String, after closing: String, following anchor: String, in text: String,
                           file: StaticString = #filePath, line: UInt = #line) -> String {
        guard let start = text.range(of: anchor), let end = text.range(of: closing, range: start.upperBound..<text.endIndex) else {
            XCTFail("the document no longer holds \(anchor) and then \(closing)", file: file, line: line)
            return text
        }
        var changed = text
        changed.insert(contentsOf: new, at: end.upperBound)
        return changed
    }

    /// Imports `text` (written to `name`) with the built-in mapping `format`, as `pim import` does.
    @discardableResult
    private func importText(_ text: String, name: String, format: String) throws -> FeedImportReport {
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return try run("import") { store in
            try store.importFeed(at: url, mapping: try FeedFormat.named(format), source: nil, skipInvalid: false).report
        }
    }

    /// The stored `alarms` of each record of `entity`, by title (an event's changed occurrence
    /// as `title @ recurrence ID`); `none` for nil. Every value reads back through `Alarm` as it is.
    private func alarms(_ entity: String = "Event", file: StaticString = #filePath, line: UInt = #line) throws -> [String: String] {
        let store = try open()
        var found: [String: String] = [:]
        for record in try store.context.fetch(FetchRequest<ManagedObject>(entityName: entity)) {
            var name = record.value(forKey: "title") as? String ?? ""
            if entity == "Event", let replaced = record.value(forKey: "recurrenceID") as? Date {
                name += " @ " + ISO8601DateFormatter().string(from: replaced)
            }
            let stored = record.value(forKey: "alarms") as? String
            XCTAssertEqual(Alarm.stored(Alarm.list(stored)), stored, "Alarm reads \(name)'s alarms otherwise", file: file, line: line)
            found[name] = stored ?? "none"
        }
        return found
    }

    private func calendar(_ components: String...) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + components.joined() + "END:VCALENDAR\r\n"
    }

    private func valarm(_ trigger: String, action: String = "DISPLAY") -> String {
        "BEGIN:VALARM\r\nACTION:\(action)\r\nDESCRIPTION:Reminder\r\n\(trigger)\r\nEND:VALARM\r\n"
    }

    // MARK: iCalendar

    func testICalendarEventKeepsAlarmsRelatedToItsStartAndAtADateOnceEach() throws {
        try importText(calendar("BEGIN:VEVENT\r\nUID:review@example.com\r\nSUMMARY:Review\r\nDTSTART;TZID=Europe/Berlin:20261201T090000\r\n"
                                + "DTEND;TZID=Europe/Berlin:20261201T100000\r\n"
                                + valarm("TRIGGER:-PT15M") + valarm("TRIGGER;RELATED=START:-PT900S", action: "AUDIO")
                                + valarm("TRIGGER:-P1D", action: "EMAIL") + valarm("TRIGGER;RELATED=END:-PT5M")
                                + valarm("TRIGGER;VALUE=DATE-TIME;TZID=Europe/Berlin:20261130T180000")
                                + valarm("TRIGGER;VALUE=DATE-TIME:20261130T170000Z") + valarm("TRIGGER:PT0S")
                                + "END:VEVENT\r\n"), name: "review.ics", format: "icalendar")
        // Berlin's 18:00 is 17:00 UTC: the absolute alarm once; the alarm related to the end is left out.
        XCTAssertEqual(try alarms(), ["Review": "-PT15M,-P1D,20261130T170000Z,PT0S"])
    }

    func testICalendarChangedOccurrenceHasItsOwnAlarms() throws {
        try importText(calendar("BEGIN:VEVENT\r\nUID:standup@example.com\r\nSUMMARY:Standup\r\nDTSTART:20261130T080000Z\r\nDURATION:PT15M\r\n"
                                + "RRULE:FREQ=DAILY;COUNT=5\r\n" + valarm("TRIGGER:-PT10M") + "END:VEVENT\r\n",
                                "BEGIN:VEVENT\r\nUID:standup@example.com\r\nRECURRENCE-ID:20261202T080000Z\r\nSUMMARY:Standup (moved)\r\n"
                                + "DTSTART:20261202T090000Z\r\nDURATION:PT15M\r\n" + valarm("TRIGGER:-PT1H") + valarm("TRIGGER;RELATED=END:PT0S")
                                + "END:VEVENT\r\n",
                                "BEGIN:VEVENT\r\nUID:standup@example.com\r\nRECURRENCE-ID:20261203T080000Z\r\nSUMMARY:Standup (no alarm)\r\n"
                                + "DTSTART:20261203T090000Z\r\nDURATION:PT15M\r\nEND:VEVENT\r\n"), name: "standup.ics", format: "icalendar")
        XCTAssertEqual(try alarms(), ["Standup": "-PT10M", "Standup (moved) @ 2026-12-02T08:00:00Z": "-PT1H",
                                      "Standup (no alarm) @ 2026-12-03T08:00:00Z": "none"])
    }

    func testICalendarToDoKeepsAlarmsRelatedToItsDueDateAndAtADateNotToItsStart() throws {
        try importText(calendar("BEGIN:VTODO\r\nUID:budget@example.com\r\nSUMMARY:Budget\r\nDTSTART:20261125T080000Z\r\nDUE:20261201T120000Z\r\n"
                                + valarm("TRIGGER;RELATED=END:-PT30M") + valarm("TRIGGER:-PT5M") + valarm("TRIGGER;RELATED=START:-P1D")
                                + valarm("TRIGGER;VALUE=DATE-TIME:20261130T080000Z", action: "EMAIL") + valarm("TRIGGER;RELATED=END:-PT1800S")
                                + valarm("TRIGGER;RELATED=END:PT0S", action: "AUDIO") + "END:VTODO\r\n",
                                "BEGIN:VTODO\r\nUID:plain@example.com\r\nSUMMARY:Plain\r\nDUE:20261201T120000Z\r\n"
                                + valarm("TRIGGER:-PT5M") + "END:VTODO\r\n"), name: "todo.ics", format: "icalendar")
        XCTAssertEqual(try alarms("Task"), ["Budget": "-PT30M,20261130T080000Z,PT0S", "Plain": "none"])
    }

    func testImportingAFileAgainWithoutItsAlarmsClearsThem() throws {
        let event = "BEGIN:VEVENT\r\nUID:review@example.com\r\nSUMMARY:Review\r\nDTSTART:20261201T080000Z\r\n"
        let todo = "BEGIN:VTODO\r\nUID:budget@example.com\r\nSUMMARY:Budget\r\nDUE:20261201T120000Z\r\n"
        try importText(calendar(event + valarm("TRIGGER:-PT15M") + "END:VEVENT\r\n", todo + valarm("TRIGGER;RELATED=END:-PT1H") + "END:VTODO\r\n"),
                       name: "work.ics", format: "icalendar")
        XCTAssertEqual(try alarms(), ["Review": "-PT15M"])
        XCTAssertEqual(try alarms("Task"), ["Budget": "-PT1H"])
        let report = try importText(calendar(event + "END:VEVENT\r\n", todo + "END:VTODO\r\n"), name: "work.ics", format: "icalendar")
        XCTAssertEqual(report.updated, 2)
        XCTAssertEqual(try alarms(), ["Review": "none"])
        XCTAssertEqual(try alarms("Task"), ["Budget": "none"])
    }

    func testImportingTheSameAlarmsAgainChangesNothing() throws {
        let file = calendar("BEGIN:VEVENT\r\nUID:review@example.com\r\nSUMMARY:Review\r\nDTSTART:20261201T080000Z\r\n"
                            + valarm("TRIGGER:-PT900S") + valarm("TRIGGER:-P7D") + "END:VEVENT\r\n")
        try importText(file, name: "review.ics", format: "icalendar")
        let again = try importText(file, name: "review.ics", format: "icalendar")
        XCTAssertEqual(again.unchanged, 1)
        XCTAssertEqual(again.updated, 0)
        XCTAssertEqual(try alarms(), ["Review": "-PT15M,-P1W"])
    }

    func testATriggerPimCannotReadIsLeftOutAndTheEventImported() throws {
        try importText(calendar("BEGIN:VEVENT\r\nUID:review@example.com\r\nSUMMARY:Review\r\nDTSTART:20261201T080000Z\r\n"
                                + valarm("TRIGGER:-PT15M") + valarm("TRIGGER:whenever") + "END:VEVENT\r\n"), name: "review.ics", format: "icalendar")
        XCTAssertEqual(try alarms(), ["Review": "-PT15M"])
    }

    // MARK: CalDAV

    func testCalDAVEventOfTheCorpusKeepsItsAlarm() throws {
        try importText(try corpus("caldav-calendar-query-response.raw.xml"), name: "report.xml", format: "dav")
        XCTAssertEqual(try alarms(), ["Café planning — Q3 roadmap": "-PT15M", "Company offsite (all day)": "none", "Weekly standup": "none",
                                      "Weekly standup (moved) @ 2024-06-10T07:00:00Z": "none"])
    }

    func testCalDAVExpandedOccurrencesEachKeepTheirAlarms() throws {
        let expanded = replacing("SUMMARY:Weekly standup (moved)\r\n", with: "SUMMARY:Weekly standup (moved)\r\n" + valarm("TRIGGER:-PT5M"),
                                 in: try corpus("caldav-calendar-query-expand-response.raw.xml"))
        try importText(expanded, name: "expand.xml", format: "dav")
        let found = try alarms()
        XCTAssertEqual(found["Café planning — Q3 roadmap"], "-PT15M")
        XCTAssertEqual(found["Weekly standup (moved)"], "-PT5M")
        XCTAssertEqual(found["Weekly standup"], "none")
    }

    func testCalDAVToDoKeepsAlarmsRelatedToItsDueDate() throws {
        let withAlarms = replacing("UID:todo-1@example.com\r\n", with: "UID:todo-1@example.com\r\n" + valarm("TRIGGER;RELATED=END:-P1D")
                                   + valarm("TRIGGER:-PT15M") + valarm("TRIGGER;VALUE=DATE-TIME:20240613T070000Z"),
                                   in: try corpus("caldav-calendar-query-vtodo-response.raw.xml"))
        try importText(withAlarms, name: "todos.xml", format: "dav")
        XCTAssertEqual(try alarms("Task"), ["Send Q3 budget to finance": "-P1D,20240613T070000Z"])
    }

    // MARK: xCal

    func testXCalEventOfTheCorpusKeepsItsAlarm() throws {
        try importText(try corpus("xcal-rfc6321.xml"), name: "calendar.xml", format: "xcal")
        XCTAssertEqual(try alarms(), ["Café planning — Q3 roadmap": "-PT15M", "Company offsite (all day)": "none", "Weekly standup": "none"])
        XCTAssertEqual(try alarms("Task"), ["Send Q3 budget to finance": "none"])
    }

    func testXCalReadsDurationsAndDatesAndLeavesOutWhatPimCannotHold() throws {
        var text = try corpus("xcal-rfc6321.xml")
        text = inserting("""
                    <components>
                      <valarm><properties><action><text>AUDIO</text></action><trigger><duration>-P1D</duration></trigger></properties></valarm>
                      <valarm><properties><action><text>DISPLAY</text></action>
                        <trigger><parameters><related><text>END</text></related></parameters><duration>-PT5M</duration></trigger></properties></valarm>
                      <valarm><properties><action><text>EMAIL</text></action>
                        <trigger><parameters><value><text>DATE-TIME</text></value></parameters><date-time>2024-06-02T18:00:00Z</date-time></trigger></properties></valarm>
                      <valarm><properties><action><text>DISPLAY</text></action>
                        <trigger><parameters><related><text>START</text></related></parameters><duration>-PT1440M</duration></trigger></properties></valarm>
                    </components>
            """, after: "</properties>", following: "<summary><text>Weekly standup</text></summary>", in: text)
        text = inserting("""
                    <components>
                      <valarm><properties><action><text>DISPLAY</text></action><trigger><duration>-PT10M</duration></trigger></properties></valarm>
                      <valarm><properties><action><text>DISPLAY</text></action>
                        <trigger><parameters><related><text>END</text></related></parameters><duration>-PT2H</duration></trigger></properties></valarm>
                      <valarm><properties><action><text>DISPLAY</text></action><trigger><date-time>2024-06-13T08:00:00Z</date-time></trigger></properties></valarm>
                    </components>
            """, after: "</properties>", following: "<uid><text>todo-1@example.com</text></uid>", in: text)
        try importText(text, name: "calendar.xml", format: "xcal")
        XCTAssertEqual(try alarms()["Weekly standup"], "-P1D,20240602T180000Z,-PT24H")
        XCTAssertEqual(try alarms("Task"), ["Send Q3 budget to finance": "-PT2H,20240613T080000Z"])
    }

    func testAtomEntryOfXCalKeepsItsEventsAlarms() throws {
        let text = inserting("""
                  <components>
                    <valarm><properties><action><text>DISPLAY</text></action><trigger><duration>-PT30M</duration></trigger></properties></valarm>
                    <valarm><properties><action><text>DISPLAY</text></action>
                      <trigger><parameters><related><text>end</text></related></parameters><duration>PT0S</duration></trigger></properties></valarm>
                  </components>
            """, after: "</properties>", following: "<location><text>Raum 4.01, Berlin HQ</text></location>", in: try corpus("atom-xcal-embedded-events.xml"))
        try importText(text, name: "team.atom", format: "atom-xcal")
        XCTAssertEqual(try alarms(), ["Café planning — Q3 roadmap": "-PT30M", "Company offsite (all day)": "none"])
    }

    // MARK: GData

    func testGDataEventOfTheCorpusKeepsItsReminder() throws {
        try importText(try corpus("gdata-calendar-events-feed.xml"), name: "gdata.xml", format: "gdata-calendar")
        XCTAssertEqual(try alarms(), ["Café planning — Q3 roadmap": "-PT15M", "Company offsite (all day)": "none", "Weekly standup": "none",
                                      "Weekly standup (moved) @ 2024-06-10T07:00:00Z": "none"])
    }

    func testGDataRecurringEventAndItsExceptionKeepTheirReminders() throws {
        try importText(try corpus("fixtures/gdata-python-client_RECURRENCE_EXCEPTION_ENTRY.xml"), name: "entry.xml", format: "gdata-calendar")
        XCTAssertEqual(try alarms(), ["testDavid": "-PT10M", "testDavid @ 2007-04-07T18:00:00Z": "-PT10M"])
        try importText(try corpus("fixtures/gdata-python-client_CALENDAR_FULL_EVENT_FEED.xml"), name: "full.xml", format: "gdata-calendar")
        let found = try alarms()
        XCTAssertEqual(found["Afternoon at Dolores Park with Kim"], "-PT20M")
        XCTAssertEqual(found["Team meeting"], "-PT10M")
    }

    func testGDataRemindersInMinutesHoursDaysOrAtATimeWhateverTheirMethod() throws {
        let text = replacing(#"<gd:reminder minutes="15" method="alert"/>"#, with: """
            <gd:reminder minutes="15" method="alert"/><gd:reminder minutes="15" method="email"/>
                  <gd:reminder hours="2" method="sms"/><gd:reminder days="7" method="email"/>
                  <gd:reminder absoluteTime="2024-06-09T18:00:00.000+02:00" method="alert"/>
            """, in: try corpus("gdata-calendar-events-feed.xml"))
        try importText(text, name: "gdata.xml", format: "gdata-calendar")
        XCTAssertEqual(try alarms()["Café planning — Q3 roadmap"], "-PT15M,-PT2H,-P1W,20240609T160000Z")
    }

    // MARK: EWS

    func testEWSCalendarItemWithItsReminderSetHasAnAlarmBeforeItsStart() throws {
        let text = replacing("<t:Subject>Weekly standup</t:Subject>", with: """
            <t:Subject>Weekly standup</t:Subject>
                          <t:ReminderIsSet>true</t:ReminderIsSet><t:ReminderMinutesBeforeStart>15</t:ReminderMinutesBeforeStart>
            """, in: try corpus("ews-getitem-calendaritem-response.xml"))
        try importText(text, name: "item.xml", format: "ews")
        XCTAssertEqual(try alarms()["Weekly standup"], "-PT15M")
    }

    func testEWSCalendarItemsWithoutTheirReminderSetHaveNoAlarm() throws {
        var text = try corpus("ews-finditem-calendarview-response.xml")
        text = replacing("<t:Subject>Café planning — Q3 roadmap</t:Subject>", with: """
            <t:Subject>Café planning — Q3 roadmap</t:Subject><t:ReminderIsSet>false</t:ReminderIsSet>
            <t:ReminderMinutesBeforeStart>15</t:ReminderMinutesBeforeStart>
            """, in: text)
        text = replacing("<t:Subject>Weekly standup</t:Subject>", with: """
            <t:Subject>Weekly standup</t:Subject><t:ReminderMinutesBeforeStart>15</t:ReminderMinutesBeforeStart>
            """, in: text)
        text = replacing("<t:Subject>Company offsite (all day)</t:Subject>", with: """
            <t:Subject>Company offsite (all day)</t:Subject><t:ReminderIsSet>true</t:ReminderIsSet>
            <t:ReminderMinutesBeforeStart>1080</t:ReminderMinutesBeforeStart>
            """, in: text)
        try importText(text, name: "view.xml", format: "ews")
        XCTAssertEqual(try alarms(), ["Café planning — Q3 roadmap": "none", "Weekly standup": "none", "Company offsite (all day)": "-PT18H"])
    }

    func testEWSTaskWithItsReminderSetHasAnAlarmAtItsReminderTime() throws {
        let task = try corpus("ews-getitem-task-response.xml")
        let set = replacing("<t:Subject>Send Q3 budget to finance</t:Subject>", with: """
            <t:Subject>Send Q3 budget to finance</t:Subject>
                          <t:ReminderDueBy>2024-06-13T07:00:00Z</t:ReminderDueBy><t:ReminderIsSet>true</t:ReminderIsSet>
            """, in: task)
        try importText(set, name: "task.xml", format: "ews")
        XCTAssertEqual(try alarms("Task"), ["Send Q3 budget to finance": "20240613T070000Z"])
        try importText(set.replacingOccurrences(of: "<t:ReminderIsSet>true", with: "<t:ReminderIsSet>false"), name: "task.xml", format: "ews")
        XCTAssertEqual(try alarms("Task"), ["Send Q3 budget to finance": "none"])
    }
}
