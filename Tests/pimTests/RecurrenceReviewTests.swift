// Review of repeating events, the agenda and skipped occurrences end to end on the built binary
// (PimRun's helper: Wednesday 2026-11-25 10:30 in Berlin unless a test says otherwise), judged
// against RFC 5545 (3.3.5, 3.3.10 RRULE, 3.8.5.1 EXDATE) and pim-events(1).
import Foundation
import XCTest

final class RecurrenceReviewTests: PimTestCase {
    // MARK: Helpers

    /// The starts of `title`'s occurrences in the agenda.
    func agendaStarts(of title: String, days: Int, environment: [String: String] = [:]) throws -> [String] {
        try agendaEvents(days: days, environment: environment).filter { $0.title == title }.map(\.start)
    }

    /// The `skipped` field of `pim events show <id> --json`.
    func skipped(_ id: String, environment: [String: String] = [:]) throws -> [String] {
        let run = try pim("events", "show", id, "--json", environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(run.json() as? [String: Any], run.stdout)
        return try XCTUnwrap(json["skipped"] as? [String], run.stdout)
    }

    // MARK: Moving a series across the spring-forward gap

    /// pim-events(1), add: "A start at a time its day skips (02:30 on a spring-forward day)
    /// begins after the change (03:30); a repeating event keeps the time typed on its later days,
    /// and its rule says it (BYHOUR=2;BYMINUTE=30)." pim-events(1), edit: "a new start moves the
    /// end with it" — the series moves; RFC 5545 3.3.10 takes the instances' time from DTSTART.
    ///
    /// A daily event typed at 02:30 on Sunday 2027-03-28 (Berlin springs forward) is stored as
    /// `FREQ=DAILY;BYHOUR=2;BYMINUTE=30`. `edit 1 --start "2027-03-29 10:00"` moved the start
    /// only: the BYHOUR/BYMINUTE pim wrote itself kept every later occurrence at 02:30, and the
    /// new first day had none at all (its 02:30 comes before the 10:00 start).
    func testMovingASeriesStartedInTheSpringGapMovesItsTime() throws {
        let spring = ["PIM_NOW": "2027-03-27T10:00:00"]
        let add = try pim("events", "add", "Gap", "--start", "2027-03-28 02:30", "--duration", "30m", "--repeat", "daily", environment: spring)
        XCTAssertEqual(add.status, 0, add.stderr)
        let edit = try pim("events", "edit", "1", "--start", "2027-03-29 10:00", environment: spring)
        XCTAssertEqual(edit.status, 0, edit.stderr)
        XCTAssertEqual(try agendaStarts(of: "Gap", days: 3, environment: ["PIM_NOW": "2027-03-29T08:00:00"]),
                       ["2027-03-29T10:00:00+02:00", "2027-03-30T10:00:00+02:00", "2027-03-31T10:00:00+02:00"])
    }

    /// The same rule from the other side: pim-events(1) says a repeating event whose start is
    /// typed at 02:30 on a spring-forward day "keeps the time typed on its later days", and
    /// `add` does so (EventsEdgeTests.testDailyEventStartedInTheSpringGapKeepsItsClockTime).
    /// `edit 1 --start "2027-03-28 02:30"` on a daily 09:00 event moved it to 03:30 that day and,
    /// having kept only the shifted instant, to 03:30 on every later day instead of 02:30.
    func testMovingASeriesIntoTheSpringGapKeepsTheTimeTyped() throws {
        let spring = ["PIM_NOW": "2027-03-25T10:00:00"]
        XCTAssertEqual(try pim("events", "add", "Daily", "--start", "2027-03-26 09:00", "--repeat", "daily", environment: spring).status, 0)
        let edit = try pim("events", "edit", "1", "--start", "2027-03-28 02:30", environment: spring)
        XCTAssertEqual(edit.status, 0, edit.stderr)
        XCTAssertEqual(try agendaStarts(of: "Daily", days: 3, environment: ["PIM_NOW": "2027-03-28T00:00:00"]),
                       ["2027-03-28T03:30:00+02:00", "2027-03-29T02:30:00+02:00", "2027-03-30T02:30:00+02:00"])
    }

    // MARK: UNTIL

    /// pim-events(1): "An UNTIL written as a date (UNTIL=20261126) ends the rule at the end of
    /// that day in the event's time zone; one written as a UTC time (...T235959Z) ends it then."
    /// RFC 5545 3.3.10: UNTIL "specifies a DATE or DATE-TIME value that bounds the recurrence
    /// rule in an inclusive manner".
    ///
    /// In New York, `FREQ=DAILY;UNTIL=20261203T045959Z` on an all-day event ends at 23:59:59 on
    /// Wednesday 2026-12-02 there; Thursday's occurrence starts at 00:00 EST = 05:00Z, after it.
    /// pim compared UNTIL with the days as midnights UTC (2026-12-03T00:00Z, before UNTIL) and
    /// showed the event on Thursday 2026-12-03 as well.
    func testAllDaySeriesEndsAtAUTCUntilAsItsOwnZoneReadsIt() throws {
        let newYork = ["TZ": "America/New_York", "PIM_NOW": "2026-11-29T12:00:00"]
        let add = try pim("events", "add", "Trip", "--start", "2026-11-30", "--repeat", "FREQ=DAILY;UNTIL=20261203T045959Z", environment: newYork)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(try agendaDays(of: "Trip", days: 6, environment: newYork), ["2026-11-30", "2026-12-01", "2026-12-02"])
    }

    // MARK: list --from/--to

    /// pim-events(1), delete: "With --occurrence when ... only those occurrences are skipped: the
    /// agenda and list --from leave them out"; list: "--to when those starting before then".
    /// (Event+Skipping.swift says so too: "The agenda and `events list --from/--to` leave them
    /// out".)
    ///
    /// A weekly Monday Gym whose Monday 2026-11-30 is skipped has no occurrence on that day, yet
    /// `events list --from 2026-11-30 --to 2026-12-01` listed it beside the one event that day:
    /// the list's filter (EventFilter.swift) keeps every repeating event and never looks at its
    /// occurrences or the skipped ones.
    func testListFromToLeavesOutAnEventWhoseOnlyOccurrenceThenIsSkipped() throws {
        XCTAssertEqual(try pim("events", "add", "Gym", "--start", "2026-11-23 18:00", "--repeat", "weekly").status, 0)
        XCTAssertEqual(try pim("events", "add", "Lunch", "--start", "2026-11-30 12:00").status, 0)
        XCTAssertEqual(try pim("events", "delete", "1", "--occurrence", "2026-11-30", "--yes").status, 0)
        XCTAssertEqual(try agendaDays(of: "Gym", days: 7), [], "the agenda leaves it out")
        let run = try pim("events", "list", "--from", "2026-11-30", "--to", "2026-12-01", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let titles = try XCTUnwrap(run.json() as? [[String: Any]], run.stdout).compactMap { $0["title"] as? String }
        XCTAssertEqual(titles, ["Lunch"])
    }

    // MARK: Naming occurrences

    /// pim-events(1): "--occurrence when (repeatable)"; "An occurrence that does not exist, or
    /// is skipped already, exits with status 3". `edit --skipped` takes the same occurrence
    /// named twice (EventSkippingTests: "2026-12-04, 2026-12-02 09:15,2026-12-04"), and the
    /// delete command itself drops repeats (EventsCommand.swift: `if !skipped.contains(start)`).
    ///
    /// `delete 1 --occurrence fri --occurrence 2026-11-27` (one occurrence, named two ways, not
    /// skipped before) failed with exit 3, "is skipped already", and skipped nothing: the second
    /// name found the first one's skip from the same unsaved command.
    func testOneOccurrenceNamedTwiceInOneDeleteIsSkippedOnce() throws {
        XCTAssertEqual(try pim("events", "add", "Gym", "--start", "2026-11-27 18:00", "--repeat", "weekly").status, 0)
        let run = try pim("events", "delete", "1", "--occurrence", "fri", "--occurrence", "2026-11-27", "--yes")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try skipped("1"), ["2026-11-27T18:00:00+01:00"])
    }

    // MARK: Edges that hold (kept as pins)

    /// RFC 5545 3.8.5.3: "The final recurrence set is generated by gathering all of the start
    /// DATE-TIME values generated by any of the specified "RRULE" and "RDATE" properties, and
    /// then excluding any start DATE-TIME values specified by "EXDATE" properties" — COUNT counts
    /// before the exclusion, so `COUNT=5` with one skipped gives 4, and the skipped one does not
    /// make room for a sixth (pim-events(1): "An occurrence that does not exist ... exits with
    /// status 3").
    func testCountIsAppliedBeforeSkippedOccurrences() throws {
        XCTAssertEqual(try pim("events", "add", "Course", "--start", "2026-11-26 09:00", "--repeat", "FREQ=DAILY;COUNT=5").status, 0)
        XCTAssertEqual(try pim("events", "delete", "1", "--occurrence", "2026-11-27", "--yes").status, 0)
        XCTAssertEqual(try agendaDays(of: "Course", days: 10), ["2026-11-26", "2026-11-28", "2026-11-29", "2026-11-30"])
        let past = try pim("events", "delete", "1", "--occurrence", "2026-12-01", "--yes")
        XCTAssertEqual(past.status, 3, past.stderr)
    }

    /// RFC 5545 3.3.5: a local time that "occurs more than once (when changing from daylight to
    /// standard time) ... refers to the first occurrence", and one that "does not occur" is read
    /// "using the UTC offset before the gap". A daily 02:30 event occurs at 02:30 CEST on
    /// 2026-10-25 (Berlin falls back) and at 03:30 CEST on 2027-03-28 (Berlin springs forward);
    /// pim-events(1): "A date and time names the occurrence starting then", so "2026-10-25 02:30"
    /// and "2027-03-28 02:30" name those and skip them.
    func testSkippingOnClockChangeDaysNamesTheOccurrenceTheRFCGives() throws {
        let autumn = ["PIM_NOW": "2026-10-20T10:00:00"]
        XCTAssertEqual(try pim("events", "add", "Backup", "--start", "2026-10-23 02:30", "--duration", "15m", "--repeat", "daily",
                               environment: autumn).status, 0)
        XCTAssertEqual(try agendaStarts(of: "Backup", days: 1, environment: ["PIM_NOW": "2026-10-25T00:00:00"]), ["2026-10-25T02:30:00+02:00"])
        let fall = try pim("events", "delete", "1", "--occurrence", "2026-10-25 02:30", "--yes", environment: autumn)
        XCTAssertEqual(fall.status, 0, fall.stderr)
        let spring = try pim("events", "delete", "1", "--occurrence", "2027-03-28 02:30", "--yes", environment: autumn)
        XCTAssertEqual(spring.status, 0, spring.stderr)
        XCTAssertTrue(spring.stdout.contains("skipped Sun 2027-03-28 03:30"), spring.stdout)
        XCTAssertEqual(try skipped("1"), ["2026-10-25T02:30:00+02:00", "2027-03-28T03:30:00+02:00"])
        XCTAssertEqual(try agendaDays(of: "Backup", days: 3, environment: ["PIM_NOW": "2026-10-24T00:00:00"]), ["2026-10-24", "2026-10-26"])
        XCTAssertEqual(try agendaDays(of: "Backup", days: 3, environment: ["PIM_NOW": "2027-03-27T00:00:00"]), ["2027-03-27", "2027-03-29"])
    }

    /// pim(1): "Dates are read in the local time zone"; pim-events(1): "a date alone, the one
    /// starting that day". A daily 20:00 call made in New York starts at 02:00 the next day in
    /// Berlin: from Berlin, "2026-11-27" names the one starting Friday 02:00 there (Thursday
    /// 20:00 in New York), and only it is left out; New York reads the skip at its own time.
    func testAnEventMadeInAnotherZoneIsSkippedByTheLocalDay() throws {
        let newYork = ["TZ": "America/New_York", "PIM_NOW": "2026-11-25T04:30:00"]
        XCTAssertEqual(try pim("events", "add", "Call", "--start", "2026-11-25 20:00", "--duration", "30m", "--repeat", "daily",
                               environment: newYork).status, 0)
        let run = try pim("events", "delete", "1", "--occurrence", "2026-11-27", "--yes")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("skipped Fri 2026-11-27 02:00"), run.stdout)
        XCTAssertEqual(try agendaStarts(of: "Call", days: 4), ["2026-11-26T02:00:00+01:00", "2026-11-28T02:00:00+01:00"])
        XCTAssertEqual(try skipped("1", environment: newYork), ["2026-11-26T20:00:00-05:00"])
    }
}
