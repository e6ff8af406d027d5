// `pim events` end to end on the built binary (PimRun's helper): all-day events across time zones
// and clock changes, repeat rules as RFC 5545 3.3.10 reads them, durations beyond any date,
// editing an event's start, the agenda on a day without a midnight, and tentative and cancelled
// events told apart from confirmed ones in text.
import Foundation
import XCTest

final class EventsEdgeTests: PimTestCase {
    // MARK: Helpers

    /// `pim events show <id> --json`.
    func event(_ id: String, environment: [String: String] = [:]) throws -> [String: Any] {
        let run = try pim("events", "show", id, "--json", environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [String: Any], run.stdout)
    }

    /// An executable editor script in the test folder.
    func editorScript(_ name: String, _ body: String) throws -> URL {
        let script = folder.appendingPathComponent(name)
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script
    }

    /// Three events on Thursday 2026-11-26, numbered in this order: Standup (09:00, confirmed,
    /// the default), Review (14:00 at Room 2, cancelled) and Offsite (all day, tentative).
    func addEventsOfEachStatus() throws {
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "tomorrow 9:00", "--duration", "15m").status, 0)
        XCTAssertEqual(try pim("events", "add", "Review", "--start", "tomorrow 14:00", "--location", "Room 2").status, 0)
        XCTAssertEqual(try pim("events", "add", "Offsite", "--start", "tomorrow").status, 0)
        XCTAssertEqual(try pim("events", "edit", "2", "--status", "cancelled").status, 0)
        XCTAssertEqual(try pim("events", "edit", "3", "--status", "tentative").status, 0)
    }

    // MARK: Time zones

    /// An all-day event is a calendar day (RFC 5545 3.3.4: a DATE value is a day, not an instant;
    /// pim-events(1): "An all-day event lasts whole days"). Made in Berlin on 2026-12-01 and read
    /// with TZ=America/New_York, `list`/`show` said it starts 2026-11-30 and ends 2026-12-01 (two
    /// days), and the agenda showed it on Monday 2026-11-30 only, never on its day.
    func testAllDayEventKeepsItsDayInAnotherTimeZone() throws {
        XCTAssertEqual(try pim("events", "add", "Trip", "--start", "2026-12-01").status, 0)
        let newYork = ["TZ": "America/New_York", "PIM_NOW": "2026-11-29T12:00:00"]
        let trip = try event("1", environment: newYork)
        XCTAssertEqual(trip["start"] as? String, "2026-12-01")
        XCTAssertEqual(trip["end"] as? String, "2026-12-01")
        XCTAssertEqual(try agendaDays(of: "Trip", days: 4, environment: newYork), ["2026-12-01"])
    }

    // MARK: Daylight saving time

    /// A weekly all-day event first made on the 25-hour autumn Sunday (Berlin, 2026-10-25) showed,
    /// in an agenda starting on a Monday, on that Monday too: the occurrence window used the first
    /// occurrence's 25 hours, so Sunday's occurrence "lasted" into Monday 01:00. The same with a
    /// weekly all-day event whose occurrence falls on the 23-hour spring Sunday (2027-03-28): it
    /// showed on Monday 2027-03-29. pim-events(1): "An all-day event lasts whole days, also across a
    /// clock change"; the agenda shows an event "on each" day it spans.
    func testWeeklyAllDayEventDoesNotSpillIntoTheDayAfterAClockChange() throws {
        XCTAssertEqual(try pim("events", "add", "Hike", "--start", "2026-10-25", "--repeat", "weekly",
                               environment: ["PIM_NOW": "2026-10-20T10:00:00"]).status, 0)
        XCTAssertEqual(try agendaDays(of: "Hike", days: 2, environment: ["PIM_NOW": "2026-11-02T10:00:00"]), [],
                       "Sunday's occurrence shown on Monday 2026-11-02")
        XCTAssertEqual(try pim("events", "add", "Run", "--start", "2027-03-21", "--repeat", "weekly",
                               environment: ["PIM_NOW": "2027-03-20T10:00:00"]).status, 0)
        XCTAssertEqual(try agendaDays(of: "Run", days: 2, environment: ["PIM_NOW": "2027-03-29T10:00:00"]), [],
                       "Sunday 2027-03-28's occurrence shown on Monday 2027-03-29")
    }

    /// A daily event typed at 02:30 on the spring-forward day (New York, 2026-03-08) starts at
    /// 03:30 that day (RFC 5545 3.3.5: a local time in the gap is read with the offset before it),
    /// but its DTSTART's clock time is still 02:30, and RFC 5545 3.3.10 takes the time of the
    /// instances from DTSTART: 2026-03-09 at 02:30. pim repeated it at 03:30 every day after,
    /// having kept only the shifted instant.
    func testDailyEventStartedInTheSpringGapKeepsItsClockTime() throws {
        let newYork = ["TZ": "America/New_York", "PIM_NOW": "2026-03-08T00:00:00"]
        let add = try pim("events", "add", "Gap", "--start", "2026-03-08T02:30", "--duration", "30m", "--repeat", "daily",
                          environment: newYork)
        XCTAssertEqual(add.status, 0, add.stderr)
        let starts = try agendaEvents(days: 3, environment: newYork).filter { $0.title == "Gap" }.map(\.start)
        XCTAssertEqual(starts, ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00", "2026-03-10T02:30:00-04:00"])
    }

    // MARK: All-day events

    /// `add` echoes "all day Thu 2026-11-26 to Sat 2026-11-28" for an all-day start with an end
    /// that has a time, and `list`/`show` say it ends 2026-11-28; but the agenda (which shows an
    /// event "on each" day it spans, pim-events(1)) showed it on 11-26 and 11-27 only, its JSON
    /// end 2026-11-27.
    func testAllDayEventEndingWithATimeShowsOnTheDaysItLists() throws {
        let add = try pim("events", "add", "Fest", "--start", "2026-11-26", "--end", "2026-11-28 10:00")
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stdout.contains("all day Thu 2026-11-26 to Sat 2026-11-28"), add.stdout)
        XCTAssertEqual(try event("1")["end"] as? String, "2026-11-28")
        XCTAssertEqual(try agendaDays(of: "Fest", days: 6), ["2026-11-26", "2026-11-27", "2026-11-28"])
    }

    /// The same with a duration in hours: `--duration 36h` from 2026-11-26 was echoed "to Fri
    /// 2026-11-27", but the agenda showed the event on 11-26 only.
    func testAllDayEventWithADurationInHoursShowsOnTheDaysItCovers() throws {
        let add = try pim("events", "add", "Fair", "--start", "2026-11-26", "--duration", "36h")
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stdout.contains("all day Thu 2026-11-26 to Fri 2026-11-27"), add.stdout)
        XCTAssertEqual(try event("1")["end"] as? String, "2026-11-27")
        XCTAssertEqual(try agendaDays(of: "Fair", days: 6), ["2026-11-26", "2026-11-27"])
    }

    // MARK: Recurrence (RFC 5545 3.3.10)

    /// RFC 5545 3.3.10's table: BYMONTHDAY with FREQ=YEARLY "Expand"s, and without BYMONTH every
    /// month of the year is a candidate (`FREQ=YEARLY;BYMONTHDAY=1` is the 1st of every month, as
    /// python-dateutil and libical expand it). pim took the start's month only: once a year.
    func testYearlyRuleWithByMonthDayExpandsToEveryMonth() throws {
        let add = try pim("events", "add", "Firsts", "--start", "2026-12-01T09:00", "--repeat", "FREQ=YEARLY;BYMONTHDAY=1")
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(try agendaDays(of: "Firsts", days: 70), ["2026-12-01", "2027-01-01", "2027-02-01"])
    }

    /// With BYDAY too, BYMONTHDAY still expands to every month and BYDAY limits the days
    /// (`FREQ=YEARLY;BYDAY=FR;BYMONTHDAY=13`: every Friday the 13th); pim kept the start's month.
    func testYearlyRuleWithByDayAndByMonthDayTakesEveryMonth() throws {
        let now = ["PIM_NOW": "2026-02-13T08:00:00"]
        let add = try pim("events", "add", "Unlucky", "--start", "2026-02-13 9:00", "--repeat", "FREQ=YEARLY;BYDAY=FR;BYMONTHDAY=13",
                          environment: now)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(try agendaDays(of: "Unlucky", days: 300, environment: now), ["2026-02-13", "2026-03-13", "2026-11-13"])
    }

    /// RFC 5545 3.3.10: "The BYDAY rule part MUST NOT be specified with a numeric value when the
    /// FREQ rule part is not set to MONTHLY or YEARLY", and BYMONTHDAY is "N/A" ("MUST NOT be
    /// used") with WEEKLY. pim accepted both and silently dropped the part: `FREQ=WEEKLY;BYDAY=-1FR`
    /// (meant: the last Friday) repeated every Friday, `FREQ=WEEKLY;BYMONTHDAY=5` every week.
    /// pim(1): a bad repeat rule is a usage error, exit 2, and nothing is stored.
    func testWeeklyRuleWithOrdinalByDayOrByMonthDayIsRefused() throws {
        let ordinal = try pim("events", "add", "Drinks", "--start", "2026-11-27 18:00", "--repeat", "FREQ=WEEKLY;BYDAY=-1FR")
        XCTAssertEqual(ordinal.status, 2, ordinal.stdout)
        let monthDay = try pim("events", "add", "Rent", "--start", "2026-12-05 9:00", "--repeat", "FREQ=WEEKLY;BYMONTHDAY=5")
        XCTAssertEqual(monthDay.status, 2, monthDay.stdout)
        XCTAssertEqual(try pim("events", "list").status, 1, "a refused rule stored an event")
    }

    /// The same rule for DAILY (`FREQ=DAILY;BYDAY=1MO` repeated every Monday), and RFC 5545
    /// 3.3.10: "Individual rule parts MUST only be specified once" (`FREQ=DAILY;FREQ=WEEKLY` was
    /// read as the last one).
    func testDailyRuleWithOrdinalByDayOrARepeatedPartIsRefused() throws {
        for rule in ["FREQ=DAILY;BYDAY=1MO", "FREQ=DAILY;FREQ=WEEKLY", "FREQ=MONTHLY;COUNT=2;COUNT=3"] {
            let run = try pim("events", "add", "Call", "--start", "2026-11-30 9:00", "--repeat", rule)
            XCTAssertEqual(run.status, 2, "\(rule): \(run.stdout)")
        }
        XCTAssertEqual(try pim("events", "list").status, 1, "a refused rule stored an event")
    }

    // MARK: Durations

    /// A duration whose end no date can hold was accepted: the event was stored with an end that
    /// prints as nothing (`list` shows an empty END, `show --json` gives "end": "", not RFC 3339 as
    /// pim(1) promises), and the agenda shows it on every day from then on. pim(1): a bad duration
    /// is a usage error, exit 2, and the store is unchanged.
    func testDurationBeyondAnyDateIsRefused() throws {
        let run = try pim("events", "add", "Forever", "--start", "2026-11-27 9:00", "--duration", "99999999999d")
        XCTAssertEqual(run.status, 2, run.stdout)
        XCTAssertEqual(try pim("events", "list").status, 1, "the refused add stored an event")
    }

    // MARK: Editing

    /// In the $EDITOR form the start's help line says "the end moves with it" (and pim-events(1):
    /// "a new start moves the end with it"), but the form's unchanged end line was applied after
    /// the start and put the end back: moving a 10:00-11:00 meeting to 09:00 made it 09:00-11:00,
    /// and moving it to a later day was refused ("end ... comes before the start") and the form
    /// reopened. Flags (`edit --start`) do move the end.
    func testEditorFormNewStartMovesTheEnd() throws {
        XCTAssertEqual(try pim("events", "add", "Meet", "--start", "2026-11-27 10:00", "--duration", "1h").status, 0)
        // Each editor changes the start line; if the form comes back with an error it cancels.
        let earlier = try editorScript("earlier.sh", """
            if grep -q '^# ERROR' "$1"; then : > "$1"; else sed -i 's/^start:.*/start: 2026-11-27 09:00/' "$1"; fi
            """)
        let first = try pim("events", "edit", "1", environment: ["VISUAL": earlier.path])
        XCTAssertEqual(first.status, 0, first.stderr)
        var meet = try event("1")
        XCTAssertEqual(meet["start"] as? String, "2026-11-27T09:00:00+01:00")
        XCTAssertEqual(meet["end"] as? String, "2026-11-27T10:00:00+01:00", "the end stayed put and the meeting grew")

        let later = try editorScript("later.sh", """
            if grep -q '^# ERROR' "$1"; then : > "$1"; else sed -i 's/^start:.*/start: 2026-12-04 09:00/' "$1"; fi
            """)
        let second = try pim("events", "edit", "1", environment: ["VISUAL": later.path])
        XCTAssertEqual(second.status, 0, second.stderr)
        meet = try event("1")
        XCTAssertEqual(meet["start"] as? String, "2026-12-04T09:00:00+01:00")
        XCTAssertEqual(meet["end"] as? String, "2026-12-04T10:00:00+01:00")
    }

    /// pim(1), DATES: "A date without a time is midnight, and makes an event all-day." `edit
    /// --start 2026-11-30` on a 10:00-11:30 meeting made it a timed event 00:00-01:30 instead.
    func testEditingTheStartToADateMakesTheEventAllDay() throws {
        XCTAssertEqual(try pim("events", "add", "Meet", "--start", "2026-11-27 10:00", "--duration", "90m").status, 0)
        let run = try pim("events", "edit", "1", "--start", "2026-11-30")
        XCTAssertEqual(run.status, 0, run.stderr)
        let meet = try event("1")
        XCTAssertEqual(meet["allDay"] as? Bool, true)
        XCTAssertEqual(meet["start"] as? String, "2026-11-30")
    }

    /// The other way round: a start with a time makes an all-day event a timed one, an hour long
    /// as `add` makes it, or until an end given with it (pim-events(1) edit). Before, the time was
    /// dropped without a word: the holiday stayed all day on the 24th.
    func testEditingTheStartToATimeMakesAnAllDayEventTimed() throws {
        XCTAssertEqual(try pim("events", "add", "Party", "--start", "2026-12-24").status, 0)
        let run = try pim("events", "edit", "1", "--start", "2026-12-24 18:00")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("start Thu 2026-12-24 18:00"), run.stdout)
        let party = try event("1")
        XCTAssertEqual(party["allDay"] as? Bool, false)
        XCTAssertEqual(party["start"] as? String, "2026-12-24T18:00:00+01:00")
        XCTAssertEqual(party["end"] as? String, "2026-12-24T19:00:00+01:00")

        XCTAssertEqual(try pim("events", "add", "Trip", "--start", "2026-12-01", "--end", "2026-12-03").status, 0)
        XCTAssertEqual(try pim("events", "edit", "2", "--start", "2026-12-01 08:00", "--end", "2026-12-03 20:00").status, 0)
        let trip = try event("2")
        XCTAssertEqual(trip["allDay"] as? Bool, false)
        XCTAssertEqual(trip["start"] as? String, "2026-12-01T08:00:00+01:00")
        XCTAssertEqual(trip["end"] as? String, "2026-12-03T20:00:00+01:00")
    }

    /// A timed event over several days showed its start and end clock times on every day it
    /// spans ("08:00-20:00" on the Wednesday it fills whole). Each day now shows the part that
    /// falls on it, an end past midnight as 24:00, and which day of the event it is.
    func testAgendaShowsEachDayOfATimedEventSpanningDays() throws {
        XCTAssertEqual(try pim("events", "add", "Trip", "--start", "2026-11-26 08:00", "--end", "2026-11-28 20:00").status, 0)
        XCTAssertEqual(try pim("events", "add", "Late", "--start", "2026-11-26 22:00", "--end", "2026-11-27 00:00").status, 0)
        let agenda = try pim("events", "agenda", "--days", "4")
        XCTAssertEqual(agenda.status, 0, agenda.stderr)
        XCTAssertEqual(agenda.stdout, """
            Wed 2026-11-25
              nothing
            Thu 2026-11-26
              08:00-24:00  Trip (day 1/3)  [1]
              22:00-24:00  Late  [2]
            Fri 2026-11-27
              00:00-24:00  Trip (day 2/3)  [1]
            Sat 2026-11-28
              00:00-20:00  Trip (day 3/3)  [1]

            """)
    }

    // MARK: Days without a midnight

    /// Chile springs forward at 00:00 on Sunday 2026-09-06, which starts at 01:00. The agenda
    /// counted its days from 01:00 (Monday 01:00, ...) while events are filed under the start of
    /// their day (Monday 00:00): Monday's meeting was missing.
    func testAgendaFromADayWithoutMidnightShowsTheNextDays() throws {
        let chile = ["TZ": "America/Santiago", "PIM_NOW": "2026-09-06T10:00:00"]
        XCTAssertEqual(try pim("events", "add", "Meet", "--start", "2026-09-07 10:00", environment: chile).status, 0)
        XCTAssertEqual(try agendaDays(of: "Meet", days: 3, environment: chile), ["2026-09-07"])
    }

    // MARK: Documented behaviour that holds

    /// RFC 5545 3.3.10's example of WKST: from Tuesday 1997-08-05, `FREQ=WEEKLY;INTERVAL=2;COUNT=4;
    /// BYDAY=TU,SU` gives Aug 5, 10, 19, 24 with WKST=MO and Aug 5, 17, 19, 31 with WKST=SU.
    func testWeekStartChangesBiweeklyOccurrencesAsTheRFCExample() throws {
        let now = ["PIM_NOW": "1997-08-05T00:00:00"]
        XCTAssertEqual(try pim("events", "add", "Monday weeks", "--start", "1997-08-05 9:00",
                               "--repeat", "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", environment: now).status, 0)
        XCTAssertEqual(try pim("events", "add", "Sunday weeks", "--start", "1997-08-05 9:00",
                               "--repeat", "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", environment: now).status, 0)
        XCTAssertEqual(try agendaDays(of: "Monday weeks", days: 40, environment: now), ["1997-08-05", "1997-08-10", "1997-08-19", "1997-08-24"])
        XCTAssertEqual(try agendaDays(of: "Sunday weeks", days: 40, environment: now), ["1997-08-05", "1997-08-17", "1997-08-19", "1997-08-31"])
    }

    /// pim-events(1): "an event spanning days shows on each" — one from 22:00 to 02:00 shows on both
    /// days, one ending at midnight only on its own day; events of a day come by start.
    func testEventsSpanningMidnightInTheAgenda() throws {
        XCTAssertEqual(try pim("events", "add", "Party", "--start", "2026-12-31 22:00", "--end", "2027-01-01 02:00").status, 0)
        XCTAssertEqual(try pim("events", "add", "Late", "--start", "2026-12-31 23:00", "--end", "2027-01-01 00:00").status, 0)
        XCTAssertEqual(try pim("events", "add", "Brunch", "--start", "2027-01-01 11:00").status, 0)
        let items = try agendaEvents(days: 3, environment: ["PIM_NOW": "2026-12-31T08:00:00"])
        XCTAssertEqual(items.map { "\($0.day) \($0.title)" },
                       ["2026-12-31 Party", "2026-12-31 Late", "2027-01-01 Party", "2027-01-01 Brunch"])
    }

    // MARK: Status in text

    /// pim-events(1) agenda: "A tentative or cancelled event says so after its title"; "a
    /// confirmed one says nothing". Before, a cancelled event's line was a confirmed one's, and
    /// only --json told them apart.
    /// pim-events(1) add: "--status is tentative, confirmed (the default) or cancelled"; anything
    /// else is a usage error (exit 2) that adds nothing.
    func testAddTakesAStatus() throws {
        XCTAssertEqual(try pim("events", "add", "Offsite", "--start", "tomorrow", "--status", "tentative").status, 0)
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "tomorrow 9:00").status, 0)
        let refused = try pim("events", "add", "Review", "--start", "tomorrow 14:00", "--status", "maybe")
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("status \"maybe\": expected tentative, confirmed or cancelled"), refused.stderr)
        let events = try XCTUnwrap(try pim("events", "list", "--json").json() as? [[String: Any]])
        XCTAssertEqual(events.map { "\($0["title"] as? String ?? "") \($0["status"] as? String ?? "")" },
                       ["Offsite tentative", "Standup confirmed"])
    }

    func testAgendaMarksTentativeAndCancelledEvents() throws {
        try addEventsOfEachStatus()
        let run = try pim("events", "agenda", "--days", "2")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, """
            Wed 2026-11-25
              nothing
            Thu 2026-11-26
              all day      Offsite (tentative)  [3]
              09:00-09:15  Standup  [1]
              14:00-15:00  Review (cancelled)  @ Room 2  [2]

            """)
        let colored = try pim("events", "agenda", "--days", "2", "--color", "always")
        XCTAssertTrue(colored.stdout.contains("\u{1B}[2m  14:00-15:00  Review (cancelled)  @ Room 2  [2]\u{1B}[0m"), colored.stdout)
        XCTAssertTrue(colored.stdout.contains("\n  09:00-09:15  Standup  [1]\n"), colored.stdout)
        let days = try XCTUnwrap(try pim("events", "agenda", "--days", "2", "--json").json() as? [[String: Any]])
        let items = try XCTUnwrap(days.last?["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { "\($0["title"] as? String ?? "") \($0["status"] as? String ?? "")" },
                       ["Offsite tentative", "Standup confirmed", "Review cancelled"])
    }

    /// pim-events(1) list: "Default columns: number, start, end, title, status, location, repeat"
    /// (the STATUS column as wide as "confirmed"), and a cancelled event's row is dimmed when
    /// colored, as a finished task's is.
    func testListShowsEachEventsStatus() throws {
        try addEventsOfEachStatus()
        let run = try pim("events", "list")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, """
            #  START             END               TITLE    STATUS     LOCATION  REPEAT
            3  2026-11-26        2026-11-26        Offsite  tentative
            1  2026-11-26 09:00  2026-11-26 09:15  Standup  confirmed
            2  2026-11-26 14:00  2026-11-26 15:00  Review   cancelled  Room 2

            """)
        let colored = try pim("events", "list", "--color", "always")
        XCTAssertTrue(colored.stdout.contains("\u{1B}[2m2  2026-11-26 14:00"), colored.stdout)
        XCTAssertTrue(colored.stdout.contains("\n1  2026-11-26 09:00"), colored.stdout)
        let events = try XCTUnwrap(try pim("events", "list", "--json").json() as? [[String: Any]])
        XCTAssertEqual(events.map { $0["status"] as? String }, ["tentative", "confirmed", "cancelled"])
    }

    /// `show` prints every field with a value, the status among them: a cancelled event says
    /// "cancelled", a confirmed one "confirmed".
    func testShowGivesTheStatus() throws {
        try addEventsOfEachStatus()
        let cancelled = try pim("events", "show", "2")
        XCTAssertEqual(cancelled.status, 0, cancelled.stderr)
        XCTAssertTrue(cancelled.stdout.contains("\nstatus      cancelled\n"), cancelled.stdout)
        let confirmed = try pim("events", "show", "1")
        XCTAssertTrue(confirmed.stdout.contains("\nstatus      confirmed\n"), confirmed.stdout)
        XCTAssertFalse(confirmed.stdout.contains("cancelled"), confirmed.stdout)
        XCTAssertEqual(try event("2")["status"] as? String, "cancelled")
    }
}
