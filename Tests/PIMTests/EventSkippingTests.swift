// Skipping occurrences of repeating events on a store (Berlin, Wednesday 2026-11-25 10:30): naming
// an occurrence by date or by date and time, the RFC 5545 EXDATE values written, what the agenda's
// expansion leaves out, all-day occurrences read in another time zone, and replacing the list.
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class EventSkippingTests: PIMStoreTestCase {
    /// Adds an event and returns its number (given when the command commits).
    @discardableResult
    func add(_ title: String, start: String, duration: String? = nil, repeat rule: String?) throws -> Int64 {
        let store = try open()
        var draft = EventDraft(title: title, start: start)
        draft.duration = duration
        draft.repeatRule = rule
        let event = try store.addEvent(draft)
        try store.commit(command: "add")
        return event.number
    }

    func event(_ number: Int64, _ store: PIMStore) throws -> Event {
        try XCTUnwrap(try RecordResolver(store: store).resolve(String(number), as: .event) as? Event)
    }

    /// Event `number`'s exception dates as a new run reads them.
    func exceptionDates(of number: Int64) throws -> String? {
        let store = try open()
        return try event(number, store).exceptionDates
    }

    /// The starts of event `number`'s occurrences from Monday 2026-11-30 for `days` days, as the
    /// agenda expands them, in the store's zone (`yyyy-MM-dd HH:mm`).
    func occurrences(of number: Int64, days: Int = 7, in zone: TimeZone? = nil) throws -> [String] {
        let store = try zone.map { try PIMStore(url: folder.appendingPathComponent("pim.sqlite"), now: now, timeZone: $0) } ?? open()
        let from = try store.dateParser.date("2026-11-30")
        let window = from..<store.dateParser.adding(days: days, to: from)
        return try event(number, store).occurrences(in: window, calendar: store.calendar).map {
            OutputFormat.local($0, timeZone: store.timeZone)
        }
    }

    func testSkippingATimedOccurrenceByItsDayWritesItsUTCStartAndLeavesItOut() throws {
        let standup = try add("Standup", start: "2026-11-30 09:15", duration: "15m", repeat: "weekdays")
        let skipped = try run("skip") { store in try store.skipOccurrence(of: try event(standup, store), named: "2026-12-02") }
        XCTAssertEqual(OutputFormat.local(skipped, timeZone: zone), "2026-12-02 09:15")
        let store = try open()
        // Berlin is UTC+1 in December: 09:15 there is 08:15Z.
        XCTAssertEqual(try event(standup, store).exceptionDates, "20261202T081500Z")
        XCTAssertEqual(try occurrences(of: standup), ["2026-11-30 09:15", "2026-12-01 09:15", "2026-12-03 09:15", "2026-12-04 09:15"])
    }

    func testAnOccurrenceNamedWithATimeMustStartThen() throws {
        let standup = try add("Standup", start: "2026-11-30 09:15", duration: "15m", repeat: "daily")
        let store = try open()
        let standupEvent = try event(standup, store)
        XCTAssertThrowsError(try store.skipOccurrence(of: standupEvent, named: "2026-12-03 10:00")) { error in
            guard case PIMError.noOccurrence(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("that day it starts at Thu 2026-12-03 09:15"), message)
            XCTAssertEqual((error as? PIMError)?.exitCode, .notFound)
        }
        XCTAssertNil(standupEvent.exceptionDates)
        XCTAssertEqual(OutputFormat.local(try store.skipOccurrence(of: standupEvent, named: "2026-12-03 9:15"), timeZone: zone), "2026-12-03 09:15")
    }

    func testADayWithoutAnOccurrenceAndASecondSkipAreNotFound() throws {
        let standup = try add("Standup", start: "2026-11-30 09:15", repeat: "weekdays")
        try run("skip") { store in try store.skipOccurrence(of: try event(standup, store), named: "2026-12-01") }
        let store = try open()
        let standupEvent = try event(standup, store)
        for text in ["2026-12-05", "2026-12-01", "2026-11-23"] {
            XCTAssertThrowsError(try store.skipOccurrence(of: standupEvent, named: text), text) { error in
                XCTAssertEqual((error as? PIMError)?.exitCode, .notFound, "\(text): \(error)")
            }
        }
        XCTAssertEqual(standupEvent.skippedOccurrences.count, 1)
    }

    func testAnEventThatDoesNotRepeatHasNoOccurrencesToSkip() throws {
        let once = try add("Dentist", start: "2026-12-01 10:00", repeat: nil)
        let store = try open()
        let dentist = try event(once, store)
        XCTAssertThrowsError(try store.skipOccurrence(of: dentist, named: "2026-12-01")) { error in
            XCTAssertEqual((error as? PIMError)?.exitCode, .usage)
            XCTAssertTrue("\(error)".contains("does not repeat"), "\(error)")
        }
        // An imported rule pim does not read: its occurrences cannot be named either.
        dentist.recurrenceRule = "FREQ=HOURLY;BYHOUR=9,10"
        XCTAssertThrowsError(try store.skipOccurrence(of: dentist, named: "2026-12-01")) { error in
            XCTAssertTrue("\(error)".contains("FREQ=HOURLY"), "\(error)")
        }
    }

    func testAnAllDayOccurrenceIsSkippedByItsDayInEveryTimeZone() throws {
        let holiday = try add("Gym", start: "2026-12-01", repeat: "weekly")
        try run("skip") { store in try store.skipOccurrence(of: try event(holiday, store), named: "2026-12-08") }
        XCTAssertEqual(try exceptionDates(of: holiday), "20261208")
        for zone in [zone, TimeZone(identifier: "America/New_York")!, TimeZone(identifier: "Pacific/Kiritimati")!] {
            let days = try occurrences(of: holiday, days: 21, in: zone).map { String($0.prefix(10)) }
            XCTAssertEqual(days, ["2026-12-01", "2026-12-15"], zone.identifier)
        }
        let store = try open()
        XCTAssertEqual(try event(holiday, store).skippedOccurrences.map { OutputFormat.day($0) }, ["2026-12-08"])
    }

    /// Exception dates already there (imported from a feed) stay beside new skips.
    func testImportedExceptionDatesStayBesideNewSkips() throws {
        let standup = try add("Standup", start: "2026-11-30 09:00", repeat: "daily")
        try run("import") { store in try event(standup, store).exceptionDates = "20261201T080000Z" }
        try run("skip") { store in try store.skipOccurrence(of: try event(standup, store), named: "2026-12-03") }
        let store = try open()
        XCTAssertEqual(try event(standup, store).exceptionDates, "20261201T080000Z,20261203T080000Z")
        XCTAssertEqual(try occurrences(of: standup, days: 5), ["2026-11-30 09:00", "2026-12-02 09:00", "2026-12-04 09:00"])
    }

    func testSettingTheSkippedListReplacesItAndAnEmptyOneClearsIt() throws {
        let standup = try add("Standup", start: "2026-11-30 09:15", repeat: "weekdays")
        try run("skip") { store in try store.skipOccurrence(of: try event(standup, store), named: "2026-12-01") }
        try run("edit") { store in try store.setSkippedOccurrences(of: try event(standup, store), to: "2026-12-04, 2026-12-02 09:15,2026-12-04") }
        XCTAssertEqual(try exceptionDates(of: standup), "20261202T081500Z,20261204T081500Z")
        // One bad item refuses the whole list.
        let store = try open()
        XCTAssertThrowsError(try store.setSkippedOccurrences(of: try event(standup, store), to: "2026-12-07, 2026-12-06"))
        try run("edit") { store in try store.setSkippedOccurrences(of: try event(standup, store), to: " ") }
        XCTAssertNil(try exceptionDates(of: standup))
        XCTAssertEqual(try occurrences(of: standup).count, 5)
    }

    /// An exception names its occurrence by its start: a series moved to 10:00 would bring back
    /// the occurrence skipped at 09:15. The skipped days stay skipped, at the new time, and as
    /// days when the move makes the event all-day.
    func testMovingTheSeriesKeepsItsSkippedDays() throws {
        let standup = try add("Standup", start: "2026-11-30 09:15", duration: "15m", repeat: "weekdays")
        try run("skip") { store in try store.skipOccurrence(of: try event(standup, store), named: "2026-12-02") }
        try run("move") { store in try store.moveEvent(try event(standup, store), toStart: "2026-11-30 10:00") }
        XCTAssertEqual(try exceptionDates(of: standup), "20261202T090000Z")
        XCTAssertEqual(try occurrences(of: standup).map { String($0.suffix(5)) }, Array(repeating: "10:00", count: 4))
        XCTAssertFalse(try occurrences(of: standup).contains("2026-12-02 10:00"))
        try run("move") { store in try store.moveEvent(try event(standup, store), toStart: "2026-11-30") }
        XCTAssertEqual(try exceptionDates(of: standup), "20261202")
        XCTAssertEqual(try occurrences(of: standup).map { String($0.prefix(10)) }, ["2026-11-30", "2026-12-01", "2026-12-03", "2026-12-04"])
    }
}
