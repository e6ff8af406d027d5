// A review of how alarms (VALARM) survive `pim sync` between two pim devices and a phone writing
// to the same Radicale server: changed occurrences, conflicts settled either way, alarms at a set
// time, repeated syncs, undo. Tests marked "Failed before its fix" assert what pim-sync(1) and
// pim-events(1) promise, and failed on 0402dda; those marked "Passes (guards a risk)" checked a
// risk that turned out handled.
import Foundation
import XCTest

final class AlarmSyncReviewTests: SyncTestCase {
    /// The TRIGGER lines of `text`, unfolded, in order.
    private func triggers(in text: String) -> [String] {
        lines(of: text).filter { $0.hasPrefix("TRIGGER") }
    }

    private func lines(of text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
    }

    /// The VEVENT blocks of `text`: the series (no RECURRENCE-ID) and its changed occurrences.
    private func events(in text: String) -> (series: [String], occurrences: [String]) {
        let blocks = text.components(separatedBy: "BEGIN:VEVENT").dropFirst().map { "BEGIN:VEVENT" + $0 }
        return (blocks.filter { !$0.contains("RECURRENCE-ID") }, blocks.filter { $0.contains("RECURRENCE-ID") })
    }

    /// Puts `components` on the server as a phone would, at `name` in the calendar.
    private func phonePut(_ name: String, _ components: [String], created: Bool = true) throws {
        let text = (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Phone//EN"] + components + ["END:VCALENDAR", ""])
            .joined(separator: "\r\n")
        let answer = try server.request("PUT", "/alice/calendar/\(name)", headers: ["Content-Type": "text/calendar"], body: text)
        XCTAssertEqual(answer.status, created ? 201 : 204)
    }

    /// Replaces the server's copy of `title` with `change` applied to its text, as a phone does.
    private func phoneEdit(_ title: String, _ change: (String) -> String) throws {
        let (href, text) = try resource(titled: title)
        let changed = change(text)
        XCTAssertNotEqual(changed, text, "the phone's edit changes nothing")
        XCTAssertEqual(try server.request("PUT", href, headers: ["Content-Type": "text/calendar"], body: changed).status, 204)
    }

    private func syncStatus(on storeURL: URL? = nil, _ extra: String...) throws -> (status: Int32, sent: Int, stderr: String) {
        let done = try syncRun(on: storeURL, extra)
        return (done.run.status, count(done.reports[calendarURL], "sent"), done.run.stderr)
    }

    /// What `pim alarms --json` lists from `from` to `to` on `storeURL`'s store, as "at title trigger".
    private func firings(from: String, to: String, on storeURL: URL? = nil) throws -> [String] {
        let listed = try run("alarms", "--from", from, "--to", to, "--json", on: storeURL)
        guard listed.status == 0 else { return [] }
        return try XCTUnwrap(listed.json() as? [[String: Any]]).map { "\($0["at"] ?? "") \($0["title"] ?? "") \($0["trigger"] ?? "")" }
    }

    // MARK: Failed before their fixes

    /// Failed before its fix. Defect: of two alarms a phone set at the same time (a notification and an
    /// e-mail 15 minutes before, as Google Calendar and Thunderbird let one have), an edit here
    /// deletes one on the server. pim reads both as one alarm (`-PT15M`, each once), writes one,
    /// and the merger matches it with the first and takes the second for an alarm "pim reads and
    /// no longer has", removed here. The user only changed the location; the e-mail reminder is
    /// gone from every device. pim-sync(1): only the alarms "removed here" go.
    func testTwoAlarmsOfThePhoneAtTheSameTimeBothStayAfterAnEditHere() throws {
        try addCollections()
        try phonePut("review-1.ics", [
            "BEGIN:VEVENT", "UID:review-1@example.com", "DTSTAMP:20261120T100000Z", "SUMMARY:Review",
            "DTSTART:20261203T140000Z", "DTEND:20261203T150000Z",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Review", "TRIGGER:-PT15M", "END:VALARM",
            "BEGIN:VALARM", "ACTION:EMAIL", "SUMMARY:Review", "DESCRIPTION:Review in 15 minutes",
            "ATTENDEE:mailto:alice@example.com", "TRIGGER:-PT15M", "END:VALARM",
            "END:VEVENT",
        ])
        XCTAssertEqual(try syncStatus().status, 0)
        XCTAssertEqual(try run("events", "edit", "Review", "--location", "Room 3").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        let sent = try resource(titled: "Review").text
        XCTAssertEqual(triggers(in: sent), ["TRIGGER:-PT15M", "TRIGGER:-PT15M"], "both of the phone's alarms stay:\n\(sent)")
        XCTAssertTrue(sent.contains("ACTION:EMAIL\r\n"), "the e-mail alarm stays:\n\(sent)")
    }

    /// Failed before its fix. Defect: `pim sync --prefer local` deletes an alarm the phone added since the
    /// last sync. The event was changed here (its location) and on the phone (an alarm a day
    /// before); settling for the record here sends pim's alarms and removes the phone's as one
    /// "pim reads and no longer has". pim never had it: nothing here removed it. pim-sync(1)
    /// says those "removed here" go, and pim keeps an attendee the server gained since the last
    /// sync the same way (ResourceMerger.removedAttendees); the phone's reminder is lost on every
    /// device while the user only changed the location here.
    func testPreferLocalKeepsAnAlarmThePhoneAddedSinceTheLastSync() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-11-26 09:00", "--calendar", "personal", "--alarm", "15m").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        try phoneEdit("Dentist") {
            $0.replacingOccurrences(of: "END:VEVENT", with: "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-P1D\r\nX-WR-ALARMUID:9C1B\r\nEND:VALARM\r\nEND:VEVENT")
        }
        XCTAssertEqual(try run("events", "edit", "Dentist", "--location", "Main St 4").status, 0)
        XCTAssertEqual(try syncStatus().status, 5, "a conflict")
        let settled = try syncStatus(on: nil, "--prefer", "local")
        XCTAssertEqual(settled.sent, 1, settled.stderr)
        let sent = try resource(titled: "Dentist").text
        XCTAssertTrue(sent.contains("LOCATION:Main St 4"), sent)
        XCTAssertEqual(triggers(in: sent), ["TRIGGER:-PT15M", "TRIGGER:-P1D"], "the phone's new alarm stays:\n\(sent)")
    }

    /// Failed before its fix. Defect: the other device's alarm edit is undone by `--prefer local` here when
    /// both devices changed the event between syncs. Device 2 sets "1d" (replacing 15m) and
    /// syncs; device 1, not synced yet, changes the title and settles with --prefer local: the
    /// server gets 15m back and loses the day-before alarm, though device 1 touched no alarm. The
    /// one added there (1d) should stay, by the same three-way rule as for attendees. (`--prefer
    /// local` sends the record here as it is, so its 15 minutes are sent too: an alarm removed on
    /// the other side is not taken back out of it.)
    func testPreferLocalAfterAnAlarmEditOnTheOtherDeviceKeepsThatEdit() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-11-26 09:00", "--calendar", "personal", "--alarm", "15m").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        try addCollections(on: other)
        XCTAssertEqual(try syncStatus(on: other).status, 0)
        XCTAssertEqual(try run("events", "edit", "Dentist", "--alarms", "1d", on: other).status, 0)
        XCTAssertEqual(try syncStatus(on: other).sent, 1)

        XCTAssertEqual(try run("events", "edit", "Dentist", "--title", "Dentist (Dr. Kim)").status, 0)
        XCTAssertEqual(try syncStatus().status, 5, "a conflict")
        XCTAssertEqual(try syncStatus(on: nil, "--prefer", "local").sent, 1)
        // The record here is sent as it is (its 15 minutes), and the alarm the other device
        // added stays, as an attendee added there would: nothing either side set is lost.
        XCTAssertEqual(triggers(in: try resource(titled: "Dentist (Dr. Kim)").text), ["TRIGGER:-PT15M", "TRIGGER:-P1D"],
                       "the other device's alarm stays")
    }

    /// Failed before its fix. Defect: a phone's changed occurrence whose RECURRENCE-ID names a Windows zone
    /// (as Outlook writes it) loses its alarm's sound, UID and acknowledgement at the next edit
    /// here. pim writes the occurrence's RECURRENCE-ID in the series' zone read as Europe/Berlin;
    /// the merger reads the server's in "W. Europe Standard Time" as no instant (IANA names
    /// only), so the two occurrences are not matched and the server's copy of it is replaced by
    /// pim's. pim-sync(1): a changed occurrence is "matched by the instant its RECURRENCE-ID
    /// names, whatever its zone", and a matching alarm "is sent as the server wrote it".
    func testAPhonesOccurrenceAlarmInAWindowsZoneKeepsItsSoundAndUID() throws {
        try addCollections()
        let zone = "W. Europe Standard Time"
        try phonePut("standup-1.ics", [
            "BEGIN:VTIMEZONE", "TZID:\(zone)",
            "BEGIN:STANDARD", "DTSTART:16010101T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "END:STANDARD",
            "BEGIN:DAYLIGHT", "DTSTART:16010101T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "END:DAYLIGHT", "END:VTIMEZONE",
            "BEGIN:VEVENT", "UID:standup-1@example.com", "DTSTAMP:20261120T100000Z", "SUMMARY:Standup",
            "DTSTART;TZID=\(zone):20261126T090000", "DTEND;TZID=\(zone):20261126T091500", "RRULE:FREQ=DAILY;COUNT=10",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Standup", "TRIGGER:-PT10M", "END:VALARM",
            "END:VEVENT",
            "BEGIN:VEVENT", "UID:standup-1@example.com", "DTSTAMP:20261120T100000Z", "SUMMARY:Standup (demo)",
            "RECURRENCE-ID;TZID=\(zone):20261128T090000",
            "DTSTART;TZID=\(zone):20261128T100000", "DTEND;TZID=\(zone):20261128T103000",
            "BEGIN:VALARM", "ACTION:AUDIO", "ATTACH:Chord", "X-WR-ALARMUID:D2", "TRIGGER:-PT30M", "END:VALARM",
            "END:VEVENT",
        ])
        XCTAssertEqual(try syncStatus().status, 0)
        XCTAssertEqual(try run("events", "edit", "Standup", "--location", "Room 2").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        let sent = try resource(titled: "Standup").text
        let occurrences = events(in: sent).occurrences
        XCTAssertEqual(occurrences.count, 1, sent)
        XCTAssertTrue(occurrences.first?.contains("X-WR-ALARMUID:D2\r\n") == true && occurrences.first?.contains("ATTACH:Chord\r\n") == true,
                      "the occurrence's alarm as the phone wrote it:\n\(sent)")
    }

    /// Failed before its fix. Defect: renaming an event here leaves its alarm announcing the old name on
    /// every other device. pim writes each alarm with the summary as its DESCRIPTION (the text a
    /// display alarm shows, RFC 5545 3.6.6), but at the next sync the merger sends the server's
    /// copy of the matching alarm, which is pim's own earlier text: "Dentist" pops up for
    /// "Dentist (Dr. Kim)", on the phone and on the other device forever. A DESCRIPTION that is
    /// the summary pim wrote should follow the summary (a phone's own alarm text stays).
    func testAnAlarmsTextFollowsATitleChangedHere() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-11-26 09:00", "--calendar", "personal", "--alarm", "15m").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        XCTAssertEqual(try run("events", "edit", "Dentist", "--title", "Dentist (Dr. Kim)").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        let sent = try resource(titled: "Dentist (Dr. Kim)").text
        let alarm = lines(of: sent).drop { $0 != "BEGIN:VALARM" }
        XCTAssertEqual(alarm.filter { $0.hasPrefix("DESCRIPTION") }, ["DESCRIPTION:Dentist (Dr. Kim)"], "the alarm says the new title:\n\(sent)")
    }

    // MARK: Passes (guards a risk)

    /// Passes (guards a risk): an occurrence's own alarms set here (`edit --occurrence
    /// --alarms`) reach the server inside that occurrence and the other device, the series keeps
    /// the phone's copy of its alarm, and three more rounds of edits and syncs on both devices
    /// neither add nor drop a VALARM.
    func testAnOccurrencesAlarmsSurviveRoundsOfSyncOnBothDevices() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Standup", "--start", "2026-11-26 09:00", "--duration", "15m", "--repeat", "daily",
                               "--calendar", "personal", "--alarm", "10m").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        try phoneEdit("Standup") { $0.replacingOccurrences(of: "TRIGGER:-PT10M\r\n", with: "TRIGGER:-PT10M\r\nX-WR-ALARMUID:S1\r\n") }
        XCTAssertEqual(try syncStatus().status, 0)
        let edited = try run("events", "edit", "Standup", "--occurrence", "2026-11-28", "--start", "2026-11-28 10:00", "--alarms", "1h")
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertEqual(try syncStatus().sent, 1)
        try addCollections(on: other)
        XCTAssertEqual(try syncStatus(on: other).status, 0)
        for round in 1...3 {
            XCTAssertEqual(try run("events", "edit", "Standup", "--location", "Room \(round)", on: round % 2 == 0 ? nil : other).status, 0)
            XCTAssertEqual(try syncStatus(on: round % 2 == 0 ? nil : other).sent, 1, "round \(round)")
            XCTAssertEqual(try syncStatus(on: round % 2 == 0 ? other : nil).status, 0)
        }
        let sent = try resource(titled: "Standup").text
        let (series, occurrences) = events(in: sent)
        XCTAssertEqual(series.flatMap { triggers(in: $0) }, ["TRIGGER:-PT10M"], sent)
        XCTAssertTrue(series.first?.contains("X-WR-ALARMUID:S1\r\n") == true, sent)
        XCTAssertEqual(occurrences.flatMap { triggers(in: $0) }, ["TRIGGER:-PT1H"], sent)
        for device in [nil, other] {
            XCTAssertEqual(try firings(from: "2026-11-28 00:00", to: "2026-11-29 00:00", on: device),
                           ["2026-11-28T09:00:00+01:00 Standup -PT1H"], "the changed occurrence's alarm only")
        }
    }

    /// Passes (guards a risk): `pim undo` of an alarm edit already synced is sent at the next
    /// sync (the record's restored stamp is not the one the last sync saw), and the other device
    /// gets the alarm back.
    func testAnUndoneAlarmEditIsSentAtTheNextSync() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Dentist", "--start", "2026-11-26 09:00", "--calendar", "personal", "--alarm", "15m").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        XCTAssertEqual(try run("events", "edit", "Dentist", "--alarms", "1d").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        let undone = try run("undo")
        XCTAssertEqual(undone.status, 0, undone.stderr)
        XCTAssertEqual(try syncStatus().sent, 1)
        XCTAssertEqual(triggers(in: try resource(titled: "Dentist").text), ["TRIGGER:-PT15M"])
        try addCollections(on: other)
        XCTAssertEqual(try syncStatus(on: other).status, 0)
        XCTAssertEqual(try firings(from: "2026-11-26 08:00", to: "2026-11-26 09:00", on: other), ["2026-11-26T08:45:00+01:00 Dentist -PT15M"])
    }

    /// Passes (guards a risk): `--prefer server` takes the phone's alarms (an all-day event's,
    /// 15 hours before, and one at a set time with seconds) as they are, once each, and the next
    /// edit here sends them back unchanged.
    func testPreferServerTakesThePhonesAlarmsOnceEach() throws {
        try addCollections()
        XCTAssertEqual(try run("events", "add", "Holiday", "--start", "2026-11-27", "--calendar", "personal", "--alarm", "1d").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        try phoneEdit("Holiday") {
            $0.replacingOccurrences(of: "TRIGGER:-P1D\r\n", with: "TRIGGER:-PT15H\r\nX-APPLE-DEFAULT-ALARM:TRUE\r\n")
                .replacingOccurrences(of: "END:VEVENT", with: "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;VALUE=DATE-TIME:20261126T074530Z\r\nEND:VALARM\r\nEND:VEVENT")
        }
        XCTAssertEqual(try run("events", "edit", "Holiday", "--location", "Home").status, 0)
        XCTAssertEqual(try syncStatus().status, 5, "a conflict")
        XCTAssertEqual(try syncStatus(on: nil, "--prefer", "server").status, 0)
        XCTAssertEqual(try firings(from: "2026-11-26 00:00", to: "2026-11-27 00:00"),
                       ["2026-11-26T08:45:30+01:00 Holiday 20261126T074530Z", "2026-11-26T09:00:00+01:00 Holiday -PT15H"])
        XCTAssertEqual(try run("events", "edit", "Holiday", "--location", "Home").status, 0)
        XCTAssertEqual(try syncStatus().sent, 1)
        let sent = try resource(titled: "Holiday").text
        XCTAssertEqual(triggers(in: sent), ["TRIGGER:-PT15H", "TRIGGER;VALUE=DATE-TIME:20261126T074530Z"], sent)
        XCTAssertTrue(sent.contains("X-APPLE-DEFAULT-ALARM:TRUE\r\n"), sent)
    }
}
