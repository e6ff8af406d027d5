// Alarms as values: TRIGGER text read and written (durations in nominal days and exact time,
// UTC date-times), the `alarms` attribute's list, alarms as typed and shown, when one goes off
// across a clock change, and what the sync's merger does with the server's alarms: the same
// alarm is sent as the server wrote it, one pim reads and no longer has goes, one it cannot read
// stays.
import Foundation
import XCTest
@testable import PIM

final class AlarmTests: XCTestCase {
    func testTriggersAreReadAndWrittenInCanonicalForm() {
        let cases: [(String, Alarm, String)] = [
            ("-PT15M", .relative(before: true, days: 0, seconds: 900), "-PT15M"),
            ("-PT900S", .relative(before: true, days: 0, seconds: 900), "-PT15M"),
            ("PT0S", .atStart, "PT0S"),
            ("-PT0S", .atStart, "PT0S"),
            ("+PT10M", .relative(before: false, days: 0, seconds: 600), "PT10M"),
            ("-P1D", .relative(before: true, days: 1, seconds: 0), "-P1D"),
            ("-P2W", .relative(before: true, days: 14, seconds: 0), "-P2W"),
            ("-P1DT2H30M", .relative(before: true, days: 1, seconds: 9000), "-P1DT2H30M"),
            ("-pt1h", .relative(before: true, days: 0, seconds: 3600), "-PT1H"),
            ("20261201T080000Z", .absolute(Date(timeIntervalSince1970: 1_796_112_000)), "20261201T080000Z"),
        ]
        for (text, alarm, canonical) in cases {
            XCTAssertEqual(Alarm(trigger: text), alarm, text)
            XCTAssertEqual(alarm.triggerText, canonical, text)
        }
        for bad in ["", "15M", "-P", "PT", "P1H", "-PT1D", "20261301T080000Z", "20261201T080000", "P1M", "PT1H2"] {
            XCTAssertNil(Alarm(trigger: bad), bad)
        }
    }

    func testTheStoredListKeepsEachAlarmOnceInOrderAndSkipsWhatIsNotATrigger() {
        XCTAssertEqual(Alarm.list("-PT15M,-P1D,junk,-PT900S,20261201T080000Z"),
                       [.relative(before: true, days: 0, seconds: 900), .relative(before: true, days: 1, seconds: 0),
                        .absolute(Date(timeIntervalSince1970: 1_796_112_000))])
        XCTAssertEqual(Alarm.list(nil), [])
        XCTAssertNil(Alarm.stored([]))
        XCTAssertEqual(Alarm.stored([.atStart, .relative(before: true, days: 7, seconds: 0)]), "PT0S,-P1W")
    }

    func testAlarmsAreShownAsTheyAreTyped() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        XCTAssertEqual(Alarm.relative(before: true, days: 0, seconds: 5400).text(timeZone: berlin), "1h30m before")
        XCTAssertEqual(Alarm.relative(before: false, days: 0, seconds: 600).text(timeZone: berlin), "10m after")
        XCTAssertEqual(Alarm.relative(before: true, days: 14, seconds: 0).text(timeZone: berlin), "2w before")
        XCTAssertEqual(Alarm.relative(before: true, days: 1, seconds: 30).text(timeZone: berlin), "1d30s before")
        XCTAssertEqual(Alarm.atStart.text(timeZone: berlin), "at the start")
        XCTAssertEqual(Alarm.atStart.text(forTask: true, timeZone: berlin), "when due")
        XCTAssertEqual(Alarm.absolute(Date(timeIntervalSince1970: 1_796_112_000)).text(timeZone: berlin), "2026-12-01 09:00")
    }

    func testADayBeforeIsACalendarDayAcrossAClockChange() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try XCTUnwrap(TimeZone(identifier: "Europe/Berlin"))
        // Sunday 2026-10-25 09:00 in Berlin: the clocks went back at 03:00 that night.
        let start = try XCTUnwrap(calendar.date(from: DateComponents(year: 2026, month: 10, day: 25, hour: 9)))
        let dayBefore = try XCTUnwrap(Alarm.relative(before: true, days: 1, seconds: 0).date(from: start, in: calendar))
        XCTAssertEqual(calendar.dateComponents([.day, .hour], from: dayBefore), DateComponents(day: 24, hour: 9), "09:00 the day before")
        XCTAssertEqual(start.timeIntervalSince(dayBefore), 25 * 3600, "a day of 25 hours")
        let exact = try XCTUnwrap(Alarm.relative(before: true, days: 0, seconds: 24 * 3600).date(from: start, in: calendar))
        XCTAssertEqual(calendar.dateComponents([.day, .hour], from: exact), DateComponents(day: 24, hour: 10), "24 hours are exact")
        XCTAssertNil(Alarm.atStart.date(from: nil, in: calendar), "no start, no relative alarm")
    }

    // MARK: The merger

    private func calendarText(_ component: String, _ lines: [String], lineEnd: String = "\r\n") -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:\(component)", "UID:a1", "SUMMARY:Dentist"] + lines
            + ["END:\(component)", "END:VCALENDAR", ""]).joined(separator: lineEnd)
    }

    private func alarm(_ trigger: String, _ extra: [String] = []) -> [String] {
        ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Dentist", trigger] + extra + ["END:VALARM"]
    }

    /// A merger for pim's text `own` whose last sync sent `lastSynced`: the alarms that text had
    /// and `own` has not were removed here.
    private func merger(_ own: String, lastSynced: String) -> ResourceMerger {
        var merger = ResourceMerger()
        merger.removedAlarms = Set(ResourceMerger.alarmKeys(of: lastSynced)).subtracting(ResourceMerger.alarmKeys(of: own))
        return merger
    }

    /// The TRIGGER lines of `text`, in order.
    private func triggers(_ text: String) -> [String] {
        text.components(separatedBy: "\r\n").filter { $0.hasPrefix("TRIGGER") }
    }

    func testTheServersCopyOfAnAlarmPimHasIsSentAsTheServerWroteIt() {
        let own = calendarText("VEVENT", alarm("TRIGGER:-PT15M"))
        let server = calendarText("VEVENT", ["BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:-PT900S", "X-WR-ALARMUID:7F3A",
                                             "ACKNOWLEDGED:20261201T084500Z", "END:VALARM"], lineEnd: "\n")
        let merged = ResourceMerger().merged(own, keeping: server)
        XCTAssertEqual(triggers(merged), ["TRIGGER:-PT900S"], merged)
        XCTAssertTrue(merged.contains("ACTION:AUDIO\r\n"), merged)
        XCTAssertTrue(merged.contains("ACKNOWLEDGED:20261201T084500Z\r\n"), merged)
        XCTAssertTrue(merged.contains("X-WR-ALARMUID:7F3A\r\n"), merged)
    }

    func testAnAlarmRemovedHereGoesAndOnePimCannotReadStays() {
        let own = calendarText("VEVENT", alarm("TRIGGER:-PT30M"))
        let server = calendarText("VEVENT", alarm("TRIGGER:-PT15M") + alarm("TRIGGER;RELATED=END:-PT5M")
                                  + alarm("TRIGGER;VALUE=DATE-TIME:20261201T070000Z") + alarm("TRIGGER;VALUE=DATE-TIME;TZID=Mars/Olympus:20261201T070000"))
        let merged = merger(own, lastSynced: server).merged(own, keeping: server)
        XCTAssertEqual(triggers(merged), ["TRIGGER:-PT30M", "TRIGGER;RELATED=END:-PT5M", "TRIGGER;VALUE=DATE-TIME;TZID=Mars/Olympus:20261201T070000"],
                       "pim's new alarm; the server's 15 minutes and 07:00 UTC were removed here; its alarm before the end and its time in an unknown zone stay")
    }

    func testWithoutALastSyncOfItsAlarmsNoAlarmOfTheServerIsTakenForRemoved() {
        // A resource last synced before pim read alarms: its record has none of the server's.
        let own = calendarText("VEVENT", alarm("TRIGGER:-PT30M"))
        let server = calendarText("VEVENT", alarm("TRIGGER:-PT15M") + alarm("TRIGGER;VALUE=DATE-TIME:20261201T070000Z"))
        XCTAssertEqual(triggers(ResourceMerger().merged(own, keeping: server)),
                       ["TRIGGER:-PT30M", "TRIGGER:-PT15M", "TRIGGER;VALUE=DATE-TIME:20261201T070000Z"])
        let added = calendarText("VEVENT", alarm("TRIGGER:-PT30M") + alarm("TRIGGER:-P1D"))
        XCTAssertEqual(triggers(merger(own, lastSynced: own).merged(own, keeping: added)), ["TRIGGER:-PT30M", "TRIGGER:-P1D"],
                       "one another client added since the last sync stays")
    }

    func testAnAbsoluteAlarmMatchesTheSameInstantInAnyZone() {
        let own = calendarText("VEVENT", alarm("TRIGGER;VALUE=DATE-TIME:20261201T070000Z"))
        let server = calendarText("VEVENT", alarm("TRIGGER;VALUE=DATE-TIME;TZID=Europe/Berlin:20261201T080000", ["X-KEEP:1"]))
        let merged = ResourceMerger().merged(own, keeping: server)
        XCTAssertEqual(triggers(merged), ["TRIGGER;VALUE=DATE-TIME;TZID=Europe/Berlin:20261201T080000"], merged)
        XCTAssertTrue(merged.contains("X-KEEP:1"))
    }

    func testAnEventsUTCTimeWithoutValueDateTimeIsTheSameAlarm() {
        let own = calendarText("VEVENT", alarm("TRIGGER;VALUE=DATE-TIME:20261201T070000Z"))
        let server = calendarText("VEVENT", alarm("TRIGGER:20261201T070000Z", ["X-KEEP:1"]))
        let merged = ResourceMerger().merged(own, keeping: server)
        XCTAssertEqual(triggers(merged), ["TRIGGER:20261201T070000Z"], "pim import reads it: one alarm, not two")
        XCTAssertTrue(merged.contains("X-KEEP:1"))
    }

    func testATasksAlarmsAreRelatedToItsDueDate() {
        let own = calendarText("VTODO", ["DUE:20261204T170000Z"] + alarm("TRIGGER;RELATED=END:-PT1H"))
        let server = calendarText("VTODO", ["DUE:20261204T170000Z"] + alarm("TRIGGER;RELATED=END:-PT1H", ["X-KEEP:1"]) + alarm("TRIGGER:-PT10M")
                                  + alarm("TRIGGER;RELATED=END:-P1D"))
        let merged = merger(own, lastSynced: server).merged(own, keeping: server)
        XCTAssertEqual(triggers(merged), ["TRIGGER;RELATED=END:-PT1H", "TRIGGER:-PT10M"],
                       "the matched one as the server wrote it; one before the start pim does not read stays; the day before the due date was removed here")
        XCTAssertTrue(merged.contains("X-KEEP:1"))
    }

    func testTheServersKeptPropertiesComeBeforeTheAlarms() {
        let own = calendarText("VEVENT", alarm("TRIGGER:-PT15M"))
        let server = calendarText("VEVENT", ["X-MOZ-GENERATION:3"] + alarm("TRIGGER;RELATED=END:PT0S") + ["CATEGORIES:Health"])
        let lines = ResourceMerger().merged(own, keeping: server).components(separatedBy: "\r\n")
        let firstAlarm = try? XCTUnwrap(lines.firstIndex(of: "BEGIN:VALARM"))
        for property in ["X-MOZ-GENERATION:3", "CATEGORIES:Health"] {
            XCTAssertLessThan(lines.firstIndex(of: property) ?? .max, firstAlarm ?? -1, "RFC 5545: properties, then alarms: \(lines)")
        }
        XCTAssertEqual(lines.filter { $0.hasPrefix("TRIGGER") }, ["TRIGGER:-PT15M", "TRIGGER;RELATED=END:PT0S"])
    }

    func testATodoPimWritesWithoutADueDateKeepsTheServersAlarmsRelatedToIt() {
        let own = calendarText("VTODO", ["DTSTART:20261203T090000Z"])
        let server = calendarText("VTODO", ["DTSTART:20261203T090000Z"] + alarm("TRIGGER;RELATED=END:-PT15M") + alarm("TRIGGER;VALUE=DATE-TIME:20261203T080000Z"))
        let merged = merger(own, lastSynced: server).merged(own, keeping: server)
        XCTAssertEqual(triggers(merged), ["TRIGGER;RELATED=END:-PT15M"],
                       "pim cannot write an alarm related to a due date it has not: the server's stays; the one at 08:00 was removed here")
    }

    func testApplesNoneAlarmStaysOnTheServer() {
        let own = calendarText("VEVENT", alarm("TRIGGER:-PT15M"))
        let server = calendarText("VEVENT", ["BEGIN:VALARM", "ACTION:NONE", "TRIGGER;VALUE=DATE-TIME:19760401T005545Z", "END:VALARM"])
        let merged = ResourceMerger().merged(own, keeping: server)
        XCTAssertEqual(triggers(merged), ["TRIGGER:-PT15M", "TRIGGER;VALUE=DATE-TIME:19760401T005545Z"], "RFC 9074's alarm that never alerts is not pim's")
    }

    func testTwoAlarmsOfTheServerAtTheTimeOfOneOfPimsBothStay() {
        // pim reads them as one alarm (each once): it removed neither.
        let own = calendarText("VEVENT", alarm("TRIGGER:-PT15M"))
        let server = calendarText("VEVENT", alarm("TRIGGER:-PT15M", ["X-FIRST:1"]) + alarm("TRIGGER:-PT15M", ["ACTION:EMAIL"]))
        let merged = merger(own, lastSynced: own).merged(own, keeping: server)
        XCTAssertEqual(triggers(merged), ["TRIGGER:-PT15M", "TRIGGER:-PT15M"])
        XCTAssertTrue(merged.contains("X-FIRST:1"))
        XCTAssertTrue(merged.contains("ACTION:EMAIL"))
    }

    func testAnAlarmsTextFollowsTheTitleOnlyWhenItWasTheTitle() {
        let own = calendarText("VEVENT", alarm("TRIGGER:-PT15M")).replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (Dr. Kim)")
            .replacingOccurrences(of: "DESCRIPTION:Dentist", with: "DESCRIPTION:Dentist (Dr. Kim)")
        let server = calendarText("VEVENT", alarm("TRIGGER:-PT15M", ["X-KEEP:1"]))
        let merged = ResourceMerger().merged(own, keeping: server)
        XCTAssertTrue(merged.contains("DESCRIPTION:Dentist (Dr. Kim)\r\n") && merged.contains("X-KEEP:1"), merged)
        XCTAssertFalse(merged.contains("DESCRIPTION:Dentist\r\n"), merged)
        let own2 = calendarText("VEVENT", alarm("TRIGGER:-PT15M"))
        let custom = calendarText("VEVENT", ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Leave now", "TRIGGER:-PT15M", "END:VALARM"])
        XCTAssertTrue(ResourceMerger().merged(own2, keeping: custom).contains("DESCRIPTION:Leave now\r\n"), "its own text stays")
    }
}
