// The date reader against a fixed clock: Wednesday 2026-11-25 10:30 in New York. Each test names
// one phrase family and checks the instant it resolves to, or the word an error names.
import Foundation
import XCTest
@testable import PIM

final class DateParserTests: XCTestCase {
    let zone = TimeZone(identifier: "America/New_York")!
    lazy var parser = DateParser(now: local("2026-11-25 10:30"), timeZone: zone)

    /// A wall-clock time in New York: `2026-11-25 10:30`, or a date alone at midnight.
    func local(_ text: String) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let numbers = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        let components = DateComponents(year: numbers[0], month: numbers[1], day: numbers[2],
                                        hour: numbers.count > 3 ? numbers[3] : 0, minute: numbers.count > 4 ? numbers[4] : 0,
                                        second: numbers.count > 5 ? numbers[5] : 0)
        return calendar.date(from: components)!
    }

    func assertParses(_ text: String, _ expected: String, hasTime: Bool? = nil, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let parsed = try parser.parse(text)
            XCTAssertEqual(parsed.date, local(expected), "\(text)", file: file, line: line)
            if let hasTime { XCTAssertEqual(parsed.hasTime, hasTime, "\(text)", file: file, line: line) }
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
        }
    }

    func assertRejects(_ text: String, naming offending: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parser.parse(text), file: file, line: line) { error in
            XCTAssertEqual((error as? DateParseError)?.offending, offending, file: file, line: line)
        }
    }

    func testISODateIsMidnightWithoutTime() {
        assertParses("2026-12-01", "2026-12-01", hasTime: false)
    }

    func testISODateTimeIsLocal() {
        assertParses("2026-12-01T14:05", "2026-12-01 14:05", hasTime: true)
        assertParses("2026-12-01 14:05:30", "2026-12-01 14:05:30")
    }

    func testISOInstantWithOffset() throws {
        XCTAssertEqual(try parser.date("2026-12-01T14:00:00Z"), Date(timeIntervalSince1970: 1_796_133_600))
        XCTAssertEqual(try parser.date("2026-12-01T15:00:00+01:00"), Date(timeIntervalSince1970: 1_796_133_600))
        XCTAssertEqual(try parser.date("2026-12-01t09:00-0500"), Date(timeIntervalSince1970: 1_796_133_600))
    }

    func testISODateWithOtherWords() {
        assertParses("2026-12-01 9am", "2026-12-01 09:00")
    }

    func testImpossibleISODateIsRejected() {
        assertRejects("2026-02-30", naming: "2026-02-30")
    }

    func testNamedDays() {
        assertParses("today", "2026-11-25", hasTime: false)
        assertParses("tomorrow", "2026-11-26")
        assertParses("yesterday", "2026-11-24")
        assertParses("now", "2026-11-25 10:30", hasTime: true)
    }

    func testNamedDayWithTime() {
        assertParses("tomorrow 17:00", "2026-11-26 17:00", hasTime: true)
        assertParses("tomorrow at 5pm", "2026-11-26 17:00")
        assertParses("9am tomorrow", "2026-11-26 09:00")
        assertParses("today noon", "2026-11-25 12:00")
    }

    func testTimeAloneIsToday() {
        assertParses("17:00", "2026-11-25 17:00", hasTime: true)
        assertParses("9:30pm", "2026-11-25 21:30")
        assertParses("12am", "2026-11-25 00:00")
        assertParses("12pm", "2026-11-25 12:00")
        assertParses("9 am", "2026-11-25 09:00")
    }

    func testWeekdayIsTheComingOne() {
        assertParses("friday", "2026-11-27")
        assertParses("fri", "2026-11-27")
        assertParses("mon", "2026-11-30")
        assertParses("wednesday", "2026-12-02")
    }

    func testNextWeekdayIsInNextWeek() {
        assertParses("next friday", "2026-12-04")
        assertParses("next monday", "2026-11-30")
        assertParses("this friday", "2026-11-27")
    }

    func testWeekdayWithTime() {
        assertParses("fri 9am", "2026-11-27 09:00")
        assertParses("next fri 14:30", "2026-12-04 14:30")
    }

    func testInAmount() {
        assertParses("in 3 days", "2026-11-28 10:30", hasTime: true)
        assertParses("in 2 hours", "2026-11-25 12:30")
        assertParses("in 45 minutes", "2026-11-25 11:15")
        assertParses("in 1 week", "2026-12-02 10:30")
        assertParses("in 1 month", "2026-12-25 10:30")
        assertParses("in 3d", "2026-11-28 10:30")
    }

    func testInDaysWithTimeIsThatDayAtTheTime() {
        assertParses("in 3 days 9am", "2026-11-28 09:00", hasTime: true)
    }

    func testSignedOffsets() {
        assertParses("+2h", "2026-11-25 12:30")
        assertParses("-3d", "2026-11-22 10:30")
        assertParses("+1w", "2026-12-02 10:30")
        assertParses("+1h30m", "2026-11-25 12:00")
        assertParses("+3d 9am", "2026-11-28 09:00")
    }

    func testAgo() {
        assertParses("2 hours ago", "2026-11-25 08:30")
        assertParses("3d ago", "2026-11-22 10:30")
    }

    func testPeriodBoundaries() {
        assertParses("eod", "2026-11-25 23:59:59")
        assertParses("eow", "2026-11-29 23:59:59")
        assertParses("eom", "2026-11-30 23:59:59")
        assertParses("eoy", "2026-12-31 23:59:59")
        assertParses("sow", "2026-11-30")
        assertParses("som", "2026-12-01")
        assertParses("soy", "2027-01-01")
        assertParses("socw", "2026-11-23")
        assertParses("socm", "2026-11-01")
    }

    func testNextWeekMonthYear() {
        assertParses("next week", "2026-11-30")
        assertParses("next month", "2026-12-01")
        assertParses("next year", "2027-01-01")
    }

    func testMonthNames() {
        assertParses("dec 24", "2026-12-24")
        assertParses("24 dec", "2026-12-24")
        assertParses("24th december 2027", "2027-12-24")
        assertParses("nov 1", "2027-11-01")
        assertParses("dec 24 18:00", "2026-12-24 18:00")
    }

    func testDaylightSavingChangeKeepsWallClock() {
        let march = DateParser(now: local("2026-03-07 10:00"), timeZone: zone)
        XCTAssertEqual(try march.date("tomorrow 10:00"), local("2026-03-08 10:00"))
        XCTAssertEqual(try march.date("in 1 day"), local("2026-03-08 10:00"))
    }

    func testOtherTimeZone() throws {
        let tokyo = DateParser(now: local("2026-11-25 10:30"), timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        XCTAssertEqual(try tokyo.date("2026-11-26 00:30"), local("2026-11-25 10:30"))
    }

    func testUnknownWordIsNamed() {
        assertRejects("blah", naming: "blah")
        assertRejects("tomorrow blah", naming: "blah")
        assertRejects("fri 25", naming: "25")
    }

    func testTwoDaysAreRejected() {
        assertRejects("today tomorrow", naming: "tomorrow")
        assertRejects("9am 10am", naming: "10am")
    }

    func testInvalidTimesAreRejected() {
        assertRejects("25:00", naming: "25:00")
        assertRejects("13pm", naming: "13pm")
    }

    func testEmptyTextIsRejected() {
        XCTAssertThrowsError(try parser.parse("  "))
    }

    func testErrorMessageNamesTheWordAndTheText() {
        XCTAssertThrowsError(try parser.parse("tomorrow blah")) { error in
            XCTAssertEqual("\(error)", "date: cannot read \"blah\" in \"tomorrow blah\": not a date, time or duration word")
        }
    }
}

final class DurationParserTests: XCTestCase {
    func minutes(_ text: String) throws -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let start = Date(timeIntervalSince1970: 0)
        let end = try XCTUnwrap(PIMDuration(parsing: text).added(to: start, in: calendar))
        return Int(end.timeIntervalSince(start) / 60)
    }

    func testCompactForms() throws {
        XCTAssertEqual(try minutes("1h30m"), 90)
        XCTAssertEqual(try minutes("90m"), 90)
        XCTAssertEqual(try minutes("2d"), 2880)
        XCTAssertEqual(try minutes("1w"), 10080)
        XCTAssertEqual(try minutes("2 hours"), 120)
    }

    func testISO8601Forms() throws {
        XCTAssertEqual(try minutes("PT1H30M"), 90)
        XCTAssertEqual(try minutes("P1DT1H"), 1500)
        XCTAssertEqual(try minutes("P1W"), 10080)
    }

    func testDescriptionIsCompact() throws {
        XCTAssertEqual(try PIMDuration(parsing: "90m").description, "90m")
        XCTAssertEqual(try PIMDuration(parsing: "1d2h").description, "1d2h")
    }

    func testRejectsWhatIsNotADuration() {
        XCTAssertThrowsError(try PIMDuration(parsing: "soon")) { error in
            XCTAssertEqual((error as? DateParseError)?.offending, "soon")
        }
        XCTAssertThrowsError(try PIMDuration(parsing: "3"))
        XCTAssertThrowsError(try PIMDuration(parsing: "PT"))
    }
}
