// Review of repeating events at the library level (PIMStoreFixture: Berlin, Wednesday
// 2026-11-25 10:30), for what the built binary cannot show: a pim run without PIM_NOW reads the
// clock (Session.swift: `Date()`), whose instants have fractions of a second, so relative
// starts ("now", "in 2 hours", "+30m") do too.
import Foundation
import XCTest
@testable import PIM

final class RecurrenceReviewLibraryTests: PIMStoreTestCase {
    /// RFC 5545 3.8.5.3: "The "DTSTART" property value always counts as the first occurrence"
    /// (3.3.10, COUNT), and Event+Days.swift: the occurrences are "its own start, or its rule's
    /// expansion"; RecurrenceRule.occurrences(from:in:calendar:) promises "the first being `start`
    /// itself". A daily event added at "in 2 hours" on a clock with a fraction of a second
    /// (12:30:00.25) lost its first occurrence: the expansion rebuilds each start from whole
    /// hours, minutes and seconds (12:30:00), which comes before the start and is dropped; the
    /// agenda showed it from the next day, and that first occurrence could not be skipped either
    /// (exit 3, "has no occurrence").
    func testARepeatingEventStartedAtAFractionOfASecondKeepsItsFirstOccurrence() throws {
        let clock = now.addingTimeInterval(0.25)
        let store = try open(at: clock)
        var draft = EventDraft(title: "Ping", start: "in 2 hours")
        draft.repeatRule = "daily"
        let event = try store.addEvent(draft)
        try store.commit(command: "add")
        let start = try XCTUnwrap(event.start)

        let reopened = try open(at: clock)
        let ping = try XCTUnwrap(try RecordResolver(store: reopened).resolve("1", as: .event) as? Event)
        let today = reopened.dateParser.startOfDay(clock)
        let window = today..<reopened.dateParser.adding(days: 2, to: today)
        let occurrences = ping.occurrences(in: window, calendar: reopened.calendar)
        XCTAssertEqual(occurrences.count, 2, "today's (the start) and tomorrow's: \(occurrences)")
        XCTAssertEqual(occurrences.first.map { Int($0.timeIntervalSince(start).rounded(.down)) }, 0,
                       "the first occurrence is the start, 2026-11-25 12:30")

        let agendaToday = try reopened.agenda(days: 1).first?.items ?? []
        XCTAssertEqual(agendaToday.count, 1, "today's agenda shows the event that starts today at 12:30")

        XCTAssertNoThrow(try reopened.skipOccurrence(of: ping, named: "2026-11-25"),
                         "the first occurrence (the start) exists and can be skipped")
    }
}
