// Listing: --where with $NOW bound, friendly task filters, urgency order, sort keys checked, and
// the agenda with recurring events expanded and due tasks beside them.
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class QueryTests: PIMStoreTestCase {
    func seedTasks() throws {
        try run("add") { store in
            var milk = TaskDraft(title: "Milk")
            milk.due = "yesterday"
            milk.priority = "H"
            milk.tags = ["home"]
            milk.project = "home.shop"
            _ = try store.addTask(milk)
            var report = TaskDraft(title: "Report")
            report.due = "next friday"
            report.project = "work"
            _ = try store.addTask(report)
            var someday = TaskDraft(title: "Someday")
            someday.wait = "in 2 weeks"
            _ = try store.addTask(someday)
        }
    }

    func testWhereBindsNow() throws {
        try seedTasks()
        let store = try open()
        var query = RecordQuery(kind: .task)
        query.whereClause = "priority == 1 AND due < $NOW"
        XCTAssertEqual(try store.list(query).map { $0.value(forKey: "title") as? String }, ["Milk"])
    }

    func testBadWhereIsAUsageErrorWithACaret() throws {
        let store = try open()
        var query = RecordQuery(kind: .task)
        query.whereClause = "due <"
        XCTAssertThrowsError(try store.list(query)) { error in
            XCTAssertEqual((error as? PIMError)?.exitCode, .usage)
            XCTAssertTrue("\(error)".contains("^"), "\(error)")
        }
    }

    func testFriendlyFilters() throws {
        try seedTasks()
        let store = try open()
        func list(_ configure: (inout TaskFilter) -> Void) throws -> [String] {
            var filter = TaskFilter()
            configure(&filter)
            var query = RecordQuery(kind: .task)
            query.filters = try store.predicates(for: filter)
            return try store.list(query).compactMap { $0.value(forKey: "title") as? String }
        }
        XCTAssertEqual(try list { _ in }, ["Milk", "Report"])
        XCTAssertEqual(try list { $0.project = "home" }, ["Milk"])
        XCTAssertEqual(try list { $0.tags = ["HOME"] }, ["Milk"])
        XCTAssertEqual(try list { $0.dueBefore = "friday" }, ["Milk"])
        XCTAssertEqual(Set(try list { $0.all = true }), ["Milk", "Report", "Someday"])
        XCTAssertThrowsError(try list { $0.statuses = ["open"] })
    }

    func testTasksListMostUrgentFirst() throws {
        try seedTasks()
        let store = try open()
        var query = RecordQuery(kind: .task)
        query.filters = try store.predicates(for: TaskFilter())
        XCTAssertEqual(try store.list(query).compactMap { $0.value(forKey: "title") as? String }, ["Milk", "Report"])
        query.sort = ["-due"]
        XCTAssertEqual(try store.list(query).compactMap { $0.value(forKey: "title") as? String }, ["Report", "Milk"])
        query.sort = ["colour"]
        XCTAssertThrowsError(try store.list(query)) { XCTAssertEqual(($0 as? PIMError)?.exitCode, .usage) }
    }

    func testAgendaExpandsRepeatsAndShowsDueTasks() throws {
        try run("add") { store in
            var standup = EventDraft(title: "Standup", start: "today 9:00")
            standup.duration = "15m"
            standup.repeatRule = "weekdays"
            _ = try store.addEvent(standup)
            var task = TaskDraft(title: "Slides")
            task.due = "tomorrow 17:00"
            _ = try store.addTask(task)
        }
        let days = try open().agenda(days: 7)
        XCTAssertEqual(days.count, 7)
        let counts = days.map { day in day.items.filter { if case .event = $0 { true } else { false } }.count }
        XCTAssertEqual(counts, [1, 1, 1, 0, 0, 1, 1])
        XCTAssertTrue(days[1].items.contains { if case .task = $0 { true } else { false } })
    }

    func testEventsSpanningDaysShowOnEachDay() throws {
        try run("add") { store in
            var trip = EventDraft(title: "Trip", start: "tomorrow")
            trip.end = "fri"
            _ = try store.addEvent(trip)
        }
        let days = try open().agenda(days: 4)
        XCTAssertEqual(days.map(\.items.count), [0, 1, 1, 0])
    }

    func testAllDayEventFromADateAlone() throws {
        let event = try run("add") { try $0.addEvent(EventDraft(title: "Holiday", start: "2026-12-24")) }
        XCTAssertTrue(event.allDay)
        XCTAssertEqual(event.end?.timeIntervalSince(try XCTUnwrap(event.start)), 86_400)
    }

    func testEventEndBeforeStartIsRefused() throws {
        let store = try open()
        var draft = EventDraft(title: "Back to the future", start: "tomorrow 10:00")
        draft.end = "today 9:00"
        XCTAssertThrowsError(try store.addEvent(draft)) { XCTAssertEqual(($0 as? PIMError)?.exitCode, .usage) }
    }
}

final class StoreLocationTests: XCTestCase {
    let home = URL(fileURLWithPath: "/home/ann")

    func testOptionWinsOverEnvironment() {
        XCTAssertEqual(StoreLocation.url(option: "/tmp/x.sqlite", environment: ["PIM_STORE": "/tmp/y.sqlite"], home: home).path, "/tmp/x.sqlite")
    }

    func testEnvironmentVariable() {
        XCTAssertEqual(StoreLocation.url(option: nil, environment: ["PIM_STORE": "~/p.sqlite"], home: home).path, "/home/ann/p.sqlite")
    }

    func testXDGDataHome() {
        XCTAssertEqual(StoreLocation.url(option: nil, environment: ["XDG_DATA_HOME": "/data"], home: home).path, "/data/pim/pim.sqlite")
    }

    func testDefaultIsInLocalShare() {
        XCTAssertEqual(StoreLocation.url(option: nil, environment: ["XDG_DATA_HOME": "relative"], home: home).path,
                       "/home/ann/.local/share/pim/pim.sqlite")
    }
}

final class ColorModeTests: XCTestCase {
    func testAutoColorsOnlyATerminalWithoutNoColor() {
        XCTAssertTrue(ColorMode.auto.isEnabled(isTerminal: true, environment: [:]))
        XCTAssertFalse(ColorMode.auto.isEnabled(isTerminal: false, environment: [:]))
        XCTAssertFalse(ColorMode.auto.isEnabled(isTerminal: true, environment: ["NO_COLOR": "1"]))
        XCTAssertTrue(ColorMode.always.isEnabled(isTerminal: false, environment: ["NO_COLOR": "1"]))
        XCTAssertFalse(ColorMode.never.isEnabled(isTerminal: true, environment: [:]))
    }
}

final class EventOccurrenceTests: PIMStoreTestCase {
    func testExceptionDatesAreLeftOut() throws {
        let event = try run("add") { store in
            var draft = EventDraft(title: "Standup", start: "2026-11-23 09:00")
            draft.repeatRule = "daily"
            let event = try store.addEvent(draft)
            event.exceptionDates = "20261124T080000Z"
            return event
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let days = event.occurrences(in: now.addingTimeInterval(-3 * 86_400)..<now.addingTimeInterval(86_400), calendar: calendar)
            .map { calendar.component(.day, from: $0) }
        XCTAssertEqual(days, [23, 25, 26])
    }
}
