// Alarms through a real Radicale server between two devices and a phone: an alarm set here
// reaches the other device; one a phone adds comes back as an alarm here; the server's copy of an
// alarm (its sound, acknowledgement, UID) survives an edit here; one removed here goes from the
// server; one pim cannot read (before an event's end) stays there, once.
import Foundation
import XCTest

final class SyncAlarmsTests: SyncTestCase {
    private func alarms(of title: String, _ kind: String = "events", on storeURL: URL? = nil) throws -> [String] {
        let record = try XCTUnwrap(try list(kind, on: storeURL).first { $0["title"] as? String == title }, "no \(title)")
        let shown = try run(kind, "show", String(describing: record["number"] ?? ""), "--json", on: storeURL)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        return try XCTUnwrap((shown.json() as? [String: Any])?["alarms"] as? [String])
    }

    /// The TRIGGER lines of the server's copy of `title`, unfolded.
    private func serverTriggers(_ title: String) throws -> [String] {
        try resource(titled: title).text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
            .filter { $0.hasPrefix("TRIGGER") }
    }

    func testAlarmsGoBothWaysAndTheServersCopyOfOneSurvivesAnEditHere() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-11-26 09:00", "--calendar", "personal", "--alarm", "15m").status, 0)
        XCTAssertEqual(try run("tasks", "add", "Pay rent", "--due", "2026-11-27 17:00", "--alarm", "1h").status, 0)
        XCTAssertEqual(try syncRun(on: nil, []).run.status, 0)
        XCTAssertEqual(try serverTriggers("Dentist"), ["TRIGGER:-PT15M"])
        XCTAssertEqual(try serverTriggers("Pay rent"), ["TRIGGER;RELATED=END:-PT1H"])

        try addCollections(on: other)
        XCTAssertEqual(try syncRun(on: other, []).run.status, 0)
        XCTAssertEqual(try alarms(of: "Dentist", on: other), ["-PT15M"], "the other device reads the alarm")
        XCTAssertEqual(try alarms(of: "Pay rent", "tasks", on: other), ["-PT1H"])

        // A phone acknowledges the alarm and adds a sound a day before.
        let (href, text) = try resource(titled: "Dentist")
        let phone = text.replacingOccurrences(of: "TRIGGER:-PT15M\r\n", with: "TRIGGER:-PT15M\r\nACKNOWLEDGED:20261126T084500Z\r\n")
            .replacingOccurrences(of: "END:VEVENT", with: "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-P1D\r\nX-WR-ALARMUID:9C1B\r\nEND:VALARM\r\nEND:VEVENT")
        XCTAssertEqual(try server.request("PUT", href, headers: ["Content-Type": "text/calendar"], body: phone).status, 204)
        XCTAssertEqual(try syncRun(on: nil, []).run.status, 0)
        XCTAssertEqual(try alarms(of: "Dentist"), ["-PT15M", "-P1D"], "the phone's alarm is one here")

        XCTAssertEqual(try run("events", "edit", "Dentist", "--location", "Main St 4").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        var sent = try resource(titled: "Dentist").text
        XCTAssertTrue(sent.contains("LOCATION:Main St 4"), sent)
        XCTAssertEqual(try serverTriggers("Dentist"), ["TRIGGER:-PT15M", "TRIGGER:-P1D"], "each alarm once")
        XCTAssertTrue(sent.contains("ACKNOWLEDGED:20261126T084500Z\r\n"), "the acknowledgement stays:\n\(sent)")
        XCTAssertTrue(sent.contains("ACTION:AUDIO\r\n") && sent.contains("X-WR-ALARMUID:9C1B\r\n"), "the phone's alarm as it wrote it:\n\(sent)")

        XCTAssertEqual(try run("events", "edit", "Dentist", "--alarms", "1d").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        sent = try resource(titled: "Dentist").text
        XCTAssertEqual(try serverTriggers("Dentist"), ["TRIGGER:-P1D"], "the alarm removed here goes:\n\(sent)")
        XCTAssertFalse(sent.contains("ACKNOWLEDGED"), sent)
        XCTAssertTrue(sent.contains("X-WR-ALARMUID:9C1B\r\n"), sent)

        XCTAssertEqual(try syncRun(on: other, []).run.status, 0)
        XCTAssertEqual(try alarms(of: "Dentist", on: other), ["-P1D"])
    }

    func testAnAlarmPimCannotReadStaysOnTheServerOnce() throws {
        try addCollections()
        let event = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Phone//EN",
            "BEGIN:VEVENT", "UID:walk-1@example.com", "DTSTAMP:20261120T100000Z", "SUMMARY:Walk",
            "DTSTART:20261203T140000Z", "DTEND:20261203T150000Z",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Nearly over", "TRIGGER;RELATED=END:-PT5M", "END:VALARM",
            "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        XCTAssertEqual(try server.request("PUT", "/alice/calendar/walk-1.ics", headers: ["Content-Type": "text/calendar"], body: event).status, 201)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "added"), 1)
        XCTAssertEqual(try alarms(of: "Walk"), [], "an alarm before the end is not one pim reads")

        XCTAssertEqual(try run("events", "edit", "Walk", "--alarms", "10m").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        XCTAssertEqual(try serverTriggers("Walk"), ["TRIGGER:-PT10M", "TRIGGER;RELATED=END:-PT5M"])
        XCTAssertEqual(try run("events", "edit", "Walk", "--title", "Long walk").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        XCTAssertEqual(try serverTriggers("Long walk"), ["TRIGGER:-PT10M", "TRIGGER;RELATED=END:-PT5M"], "still once each")
    }

    /// A store that synced before pim read alarms has the events without them, and remembers no
    /// alarms for their resources: the next sync reads each once more (the phone's alarm is one
    /// here then), and nothing of the server's is taken for removed.
    func testAResourceSyncedBeforePimReadAlarmsIsReadOnceMore() throws {
        try addCollections()
        let event = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Phone//EN",
            "BEGIN:VEVENT", "UID:walk-1@example.com", "DTSTAMP:20261120T100000Z", "SUMMARY:Walk",
            "DTSTART:20261203T140000Z", "DTEND:20261203T150000Z",
            "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:-PT15M", "X-WR-ALARMUID:9C1B", "END:VALARM",
            "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        XCTAssertEqual(try server.request("PUT", "/alice/calendar/walk-1.ics", headers: ["Content-Type": "text/calendar"], body: event).status, 201)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "added"), 1)
        // What an earlier pim left: the event without its alarm, its resource remembered without
        // alarms (the key as JSONEncoder writes it, slashes escaped, which SQLite's paths match).
        let forget = try run("/usr/bin/sqlite3", [store.path, """
            UPDATE ZEVENT SET ZALARMS = NULL;
            UPDATE ZSYNCCOLLECTION SET ZRESOURCES = CAST(json_remove(CAST(ZRESOURCES AS TEXT), '$."\\/alice\\/calendar\\/walk-1.ics".alarms') AS BLOB)
                WHERE ZRESOURCES IS NOT NULL;
            """], environment: [:])
        XCTAssertEqual(forget.status, 0, forget.stderr)
        XCTAssertEqual(try alarms(of: "Walk"), [], "set-up: no alarm here")

        let next = try syncRun(on: nil, [])
        XCTAssertEqual(next.run.status, 0, next.run.stderr)
        XCTAssertEqual(try alarms(of: "Walk"), ["-PT15M"], "read once more: \(next.run.stdout)")
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "updated"), 0, "and only once")
        XCTAssertEqual(try run("events", "edit", "Walk", "--location", "Park").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[calendarURL], "sent"), 1)
        let sent = try resource(titled: "Walk").text
        XCTAssertEqual(try serverTriggers("Walk"), ["TRIGGER:-PT15M"], sent)
        XCTAssertTrue(sent.contains("X-WR-ALARMUID:9C1B\r\n") && sent.contains("ACTION:AUDIO\r\n"), sent)
    }
}
