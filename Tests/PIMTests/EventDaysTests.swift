// An event's days and moves on a store (Berlin, Wednesday 2026-11-25 10:30): all-day events read
// in their own time zone from a store opened in another, older stores' ends with a time, and
// moving an event's start or end as `pim events edit` does.
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class EventDaysTests: PIMStoreTestCase {
    let newYork = TimeZone(identifier: "America/New_York")!

    /// The store opened in `zone` instead of Berlin.
    func open(in zone: TimeZone) throws -> PIMStore {
        try PIMStore(url: folder.appendingPathComponent("pim.sqlite"), now: now, timeZone: zone)
    }

    /// Event 1 of `store`.
    func firstEvent(_ store: PIMStore) throws -> Event {
        try XCTUnwrap(try RecordResolver(store: store).resolve("1", as: .event) as? Event)
    }

    /// The days of event 1 as `first last` (`2026-12-01 2026-12-02`), read in `zone`.
    func days(in zone: TimeZone) throws -> String {
        let store = try open(in: zone)
        let days = try XCTUnwrap(try firstEvent(store).days(fallback: store.calendar))
        return "\(OutputFormat.day(days.first)) \(OutputFormat.day(days.last))"
    }

    func add(_ title: String, start: String, end: String? = nil) throws {
        try run("add") { store in
            var draft = EventDraft(title: title, start: start)
            draft.end = end
            return try store.addEvent(draft)
        }
    }

    func testAllDayEventHasItsDaysInAnyTimeZone() throws {
        try add("Trip", start: "2026-12-01", end: "2026-12-02")
        XCTAssertEqual(try days(in: zone), "2026-12-01 2026-12-02")
        XCTAssertEqual(try days(in: newYork), "2026-12-01 2026-12-02")
        XCTAssertEqual(try days(in: TimeZone(identifier: "Pacific/Kiritimati")!), "2026-12-01 2026-12-02")
    }

    /// Older versions stored an end typed with a time as it was: its day is one of the event's.
    func testAnOlderEndWithATimeEndsTheDayItFallsIn() throws {
        try add("Fest", start: "2026-11-26")
        let store = try open()
        let fest = try firstEvent(store)
        fest.end = try store.dateParser.date("2026-11-28 10:00")
        XCTAssertEqual(fest.days(fallback: store.calendar), EventDays(first: try store.dateParser.date("2026-11-26T00:00Z"), count: 3))
    }

    func testMovingTheStartToADateMakesATimedEventAllDay() throws {
        try add("Meet", start: "2026-11-27 10:00", end: "2026-11-27 11:30")
        try run("edit") { store in try store.moveEvent(try firstEvent(store), toStart: "2026-11-30") }
        XCTAssertEqual(try days(in: zone), "2026-11-30 2026-11-30")
    }

    func testMovingATimedEventKeepsItsLength() throws {
        try add("Meet", start: "2026-11-27 10:00", end: "2026-11-27 11:30")
        try run("edit") { store in try store.moveEvent(try firstEvent(store), toStart: "2026-11-30 09:00") }
        let store = try open()
        let meet = try firstEvent(store)
        XCTAssertFalse(meet.allDay)
        XCTAssertEqual(meet.start, try store.dateParser.date("2026-11-30 09:00"))
        XCTAssertEqual(meet.end, try store.dateParser.date("2026-11-30 10:30"))
    }

    /// Moved from New York, a Berlin all-day event takes the day typed there and keeps its
    /// length, in Berlin as in New York.
    func testMovingAnAllDayEventFromAnotherZoneKeepsItsDays() throws {
        try add("Trip", start: "2026-12-01", end: "2026-12-02")
        let store = try open(in: newYork)
        try store.moveEvent(try firstEvent(store), toStart: "2026-12-10")
        try store.commit(command: "edit")
        XCTAssertEqual(try days(in: zone), "2026-12-10 2026-12-11")
        XCTAssertEqual(try days(in: newYork), "2026-12-10 2026-12-11")
    }

    func testSettingTheEndOfAnAllDayEventSetsItsLastDay() throws {
        try add("Trip", start: "2026-12-01")
        let store = try open(in: newYork)
        try store.setEnd(of: try firstEvent(store), to: "2026-12-04")
        try store.commit(command: "edit")
        XCTAssertEqual(try days(in: zone), "2026-12-01 2026-12-04")
        XCTAssertThrowsError(try store.setEnd(of: try firstEvent(store), to: "2026-11-30")) { error in
            XCTAssertEqual((error as? PIMError)?.exitCode, .usage)
        }
    }
}
