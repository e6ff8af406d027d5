// Recurrence expansion against the examples of RFC 5545 section 3.8.5.3 (all in New York, from
// DTSTART at 09:00 local), plus reading, printing and the friendly --repeat words.
import Foundation
import XCTest
@testable import PIM

final class RecurrenceRuleTests: XCTestCase {
    let zone = TimeZone(identifier: "America/New_York")!
    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    func local(_ text: String) -> Date {
        let numbers = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        return calendar.date(from: DateComponents(year: numbers[0], month: numbers[1], day: numbers[2],
                                                  hour: numbers.count > 3 ? numbers[3] : 9, minute: 0))!
    }

    /// The occurrences of `rule` from `start` (09:00) before `end`, as `yyyy-MM-dd HH:mm` in New York.
    func expand(_ rule: String, from start: String, before end: String = "2001-01-01") throws -> [String] {
        let formatter = DateFormatter()
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let parsed = try RecurrenceRule(rule)
        return parsed.occurrences(from: local(start), in: local(start)..<local(end), calendar: calendar).map(formatter.string)
    }

    func days(_ list: [String]) -> [String] { list.map { String($0.prefix(10)) } }

    func testDailyForTenOccurrences() throws {
        XCTAssertEqual(days(try expand("FREQ=DAILY;COUNT=10", from: "1997-09-02")),
                       (2...11).map { String(format: "1997-09-%02d", $0) })
    }

    func testDailyUntil() throws {
        let result = try expand("RRULE:FREQ=DAILY;UNTIL=19971224T000000Z", from: "1997-09-02")
        XCTAssertEqual(result.count, 113)
        XCTAssertEqual(result.last, "1997-12-23 09:00")
    }

    func testEveryOtherDay() throws {
        XCTAssertEqual(days(Array(try expand("FREQ=DAILY;INTERVAL=2", from: "1997-09-02").prefix(4))),
                       ["1997-09-02", "1997-09-04", "1997-09-06", "1997-09-08"])
    }

    func testEveryTenDaysFiveOccurrences() throws {
        XCTAssertEqual(days(try expand("FREQ=DAILY;INTERVAL=10;COUNT=5", from: "1997-09-02")),
                       ["1997-09-02", "1997-09-12", "1997-09-22", "1997-10-02", "1997-10-12"])
    }

    func testEveryDayInJanuaryForThreeYears() throws {
        let yearly = try expand("FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA", from: "1998-01-01")
        let daily = try expand("FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1", from: "1998-01-01")
        XCTAssertEqual(yearly.count, 93)
        XCTAssertEqual(yearly, daily)
    }

    func testWeeklyKeepsWallClockAcrossDaylightSaving() throws {
        let result = try expand("FREQ=WEEKLY;COUNT=10", from: "1997-09-02")
        XCTAssertEqual(result.count, 10)
        XCTAssertEqual(result.last, "1997-11-04 09:00")
    }

    func testEveryOtherWeekOnMondayWednesdayFriday() throws {
        let result = days(try expand("FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR", from: "1997-09-01"))
        XCTAssertEqual(result.count, 25)
        XCTAssertEqual(Array(result.prefix(7)), ["1997-09-01", "1997-09-03", "1997-09-05", "1997-09-15", "1997-09-17", "1997-09-19", "1997-09-29"])
        XCTAssertEqual(result.last, "1997-12-22")
    }

    func testMonthlyOnFirstFriday() throws {
        XCTAssertEqual(days(try expand("FREQ=MONTHLY;COUNT=10;BYDAY=1FR", from: "1997-09-05")),
                       ["1997-09-05", "1997-10-03", "1997-11-07", "1997-12-05", "1998-01-02",
                        "1998-02-06", "1998-03-06", "1998-04-03", "1998-05-01", "1998-06-05"])
    }

    func testMonthlyOnSecondToLastMonday() throws {
        XCTAssertEqual(days(try expand("FREQ=MONTHLY;COUNT=6;BYDAY=-2MO", from: "1997-09-22")),
                       ["1997-09-22", "1997-10-20", "1997-11-17", "1997-12-22", "1998-01-19", "1998-02-16"])
    }

    func testMonthlyOnThirdToLastDay() throws {
        XCTAssertEqual(days(Array(try expand("FREQ=MONTHLY;BYMONTHDAY=-3", from: "1997-09-28").prefix(6))),
                       ["1997-09-28", "1997-10-29", "1997-11-28", "1997-12-29", "1998-01-29", "1998-02-26"])
    }

    func testMonthlyOnSecondAndFifteenth() throws {
        XCTAssertEqual(days(try expand("FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15", from: "1997-09-02")),
                       ["1997-09-02", "1997-09-15", "1997-10-02", "1997-10-15", "1997-11-02",
                        "1997-11-15", "1997-12-02", "1997-12-15", "1998-01-02", "1998-01-15"])
    }

    func testMonthlyOnFirstAndLastDay() throws {
        XCTAssertEqual(days(Array(try expand("FREQ=MONTHLY;BYMONTHDAY=1,-1", from: "1997-09-30").prefix(5))),
                       ["1997-09-30", "1997-10-01", "1997-10-31", "1997-11-01", "1997-11-30"])
    }

    func testEveryEighteenMonthsOnTenthToFifteenth() throws {
        XCTAssertEqual(days(try expand("FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15", from: "1997-09-10")),
                       ["1997-09-10", "1997-09-11", "1997-09-12", "1997-09-13", "1997-09-14", "1997-09-15",
                        "1999-03-10", "1999-03-11", "1999-03-12", "1999-03-13"])
    }

    func testYearlyInJuneAndJuly() throws {
        XCTAssertEqual(days(try expand("FREQ=YEARLY;COUNT=10;BYMONTH=6,7", from: "1997-06-10")),
                       ["1997-06-10", "1997-07-10", "1998-06-10", "1998-07-10", "1999-06-10",
                        "1999-07-10", "2000-06-10", "2000-07-10", "2001-06-10", "2001-07-10"].filter { $0 < "2001" })
    }

    func testEveryTwentiethMondayOfTheYear() throws {
        XCTAssertEqual(days(try expand("FREQ=YEARLY;BYDAY=20MO", from: "1997-05-19")),
                       ["1997-05-19", "1998-05-18", "1999-05-17", "2000-05-15"])
    }

    func testEveryThursdayInMarch() throws {
        XCTAssertEqual(days(try expand("FREQ=YEARLY;BYMONTH=3;BYDAY=TH", from: "1997-03-13", before: "1999-04-01")),
                       ["1997-03-13", "1997-03-20", "1997-03-27", "1998-03-05", "1998-03-12", "1998-03-19",
                        "1998-03-26", "1999-03-04", "1999-03-11", "1999-03-18", "1999-03-25"])
    }

    func testEveryFridayTheThirteenth() throws {
        XCTAssertEqual(days(try expand("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", from: "1997-09-02")),
                       ["1998-02-13", "1998-03-13", "1998-11-13", "1999-08-13", "2000-10-13"])
    }

    func testWindowSkipsEarlierOccurrencesButCountsThem() throws {
        let rule = try RecurrenceRule("FREQ=DAILY;COUNT=5")
        let result = rule.occurrences(from: local("2026-01-01"), in: local("2026-01-04")..<local("2026-02-01"), calendar: calendar)
        XCTAssertEqual(result, [local("2026-01-04"), local("2026-01-05")])
    }

    func testRuleThatNeverMatchesEnds() throws {
        let rule = try RecurrenceRule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30")
        XCTAssertEqual(rule.occurrences(from: local("2026-01-01"), in: local("2026-01-01")..<local("2100-01-01"), calendar: calendar), [])
    }

    func testMonthlyOnThe31stSkipsShortMonths() throws {
        XCTAssertEqual(days(Array(try expand("FREQ=MONTHLY", from: "1997-01-31").prefix(3))), ["1997-01-31", "1997-03-31", "1997-05-31"])
    }

    func testDescriptionRoundTrips() throws {
        let text = "FREQ=MONTHLY;INTERVAL=2;COUNT=6;BYMONTH=1,7;BYDAY=-1FR,2MO"
        XCTAssertEqual(try RecurrenceRule(text).description, text)
        XCTAssertEqual(try RecurrenceRule("FREQ=DAILY;UNTIL=19971224T000000Z").description, "FREQ=DAILY;UNTIL=19971224T000000Z")
    }

    func testFriendlyWords() throws {
        XCTAssertEqual(try RecurrenceRule(repeating: "weekdays").description, "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
        XCTAssertEqual(try RecurrenceRule(repeating: "Monthly").description, "FREQ=MONTHLY")
        XCTAssertEqual(try RecurrenceRule(repeating: "biweekly").description, "FREQ=WEEKLY;INTERVAL=2")
        XCTAssertEqual(try RecurrenceRule(repeating: "FREQ=YEARLY;BYMONTH=3").description, "FREQ=YEARLY;BYMONTH=3")
    }

    func testErrorsNameThePart() {
        XCTAssertThrowsError(try RecurrenceRule("FREQ=HOURLY")) { XCTAssertEqual(($0 as? RecurrenceRuleError)?.part, "FREQ=HOURLY") }
        XCTAssertThrowsError(try RecurrenceRule("FREQ=DAILY;BYDAY=XX")) { XCTAssertEqual(($0 as? RecurrenceRuleError)?.part, "BYDAY=XX") }
        XCTAssertThrowsError(try RecurrenceRule("FREQ=DAILY;BYSETPOS=1")) { XCTAssertEqual(($0 as? RecurrenceRuleError)?.reason, "pim does not support BYSETPOS") }
        XCTAssertThrowsError(try RecurrenceRule("INTERVAL=2")) { XCTAssertEqual(($0 as? RecurrenceRuleError)?.reason, "FREQ is missing") }
        XCTAssertThrowsError(try RecurrenceRule(repeating: "sometimes"))
    }

    /// RFC 5545 3.3.10: a numbered BYDAY only with MONTHLY or YEARLY, no BYMONTHDAY with WEEKLY,
    /// each part once; the error names the part.
    func testPartsTheRFCForbidsAreRefused() {
        let cases = [("FREQ=WEEKLY;BYDAY=-1FR", "BYDAY=-1FR"), ("FREQ=DAILY;BYDAY=MO,1TU", "BYDAY=MO,1TU"),
                     ("FREQ=WEEKLY;BYMONTHDAY=5", "BYMONTHDAY=5"), ("FREQ=DAILY;FREQ=WEEKLY", "FREQ=WEEKLY")]
        for (rule, part) in cases {
            XCTAssertThrowsError(try RecurrenceRule(rule), rule) { XCTAssertEqual(($0 as? RecurrenceRuleError)?.part, part, rule) }
        }
        XCTAssertNoThrow(try RecurrenceRule("FREQ=YEARLY;BYDAY=20MO"))
    }

    /// BYHOUR, BYMINUTE and BYSECOND set the occurrences' time of day, one value each.
    func testTimeOfDayPartsSetTheOccurrencesTime() throws {
        XCTAssertEqual(try expand("FREQ=DAILY;COUNT=3;BYHOUR=7;BYMINUTE=15", from: "1997-09-02 6"),
                       ["1997-09-02 07:15", "1997-09-03 07:15", "1997-09-04 07:15"])
        XCTAssertEqual(try RecurrenceRule("FREQ=DAILY;BYHOUR=7;BYMINUTE=15").description, "FREQ=DAILY;BYHOUR=7;BYMINUTE=15")
        for rule in ["FREQ=DAILY;BYHOUR=7,8", "FREQ=DAILY;BYHOUR=24", "FREQ=DAILY;BYMINUTE=60"] {
            XCTAssertThrowsError(try RecurrenceRule(rule), rule)
        }
    }

    /// A date UNTIL ends with its day. Chile's 2026-09-06 starts at 01:00 (the clock skips
    /// midnight); a day added to that start ended it at 00:59:59 on the 7th, which took the
    /// 7th's 00:30 occurrence in.
    func testDateUntilOnADayWithoutMidnightEndsWithThatDay() throws {
        var chile = Calendar(identifier: .gregorian)
        chile.timeZone = TimeZone(identifier: "America/Santiago")!
        let start = chile.date(from: DateComponents(year: 2026, month: 9, day: 5, hour: 0, minute: 30))!
        let end = chile.date(from: DateComponents(year: 2026, month: 9, day: 10))!
        let days = try RecurrenceRule("FREQ=DAILY;UNTIL=20260906").occurrences(from: start, in: start..<end, calendar: chile)
            .map { chile.component(.day, from: $0) }
        XCTAssertEqual(days, [5, 6])
    }

    /// The expansion starts at the first period that can reach a window (instead of walking every
    /// period from the first occurrence, which made an agenda slower each day after a repeating
    /// event's start): it must find exactly what the walk from the first day finds, for each
    /// frequency, interval and filter, in windows years after the start, across clock changes.
    func testAWindowLongAfterTheStartFindsWhatTheWholeExpansionFinds() throws {
        let rules = ["FREQ=DAILY", "FREQ=DAILY;INTERVAL=3", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,SU",
                     "FREQ=WEEKLY;BYDAY=SA;WKST=SU", "FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=MONTHLY;INTERVAL=5;BYDAY=2TU", "FREQ=MONTHLY;BYDAY=-1FR",
                     "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
                     "FREQ=YEARLY;INTERVAL=2", "FREQ=DAILY;BYHOUR=23;BYMINUTE=30", "FREQ=WEEKLY;UNTIL=20260315T000000Z"]
        let start = local("2019-03-10 01:30")
        let windows = [("2026-03-06", "2026-03-16"), ("2026-10-30", "2026-11-09"), ("2024-02-25", "2024-03-05"),
                       ("2019-03-11", "2019-03-20"), ("2027-03-05", "2027-03-15")]
        var compared = 0
        for text in rules {
            let rule = try RecurrenceRule(text)
            for (from, to) in windows {
                let window = local(from)..<local(to)
                let whole = rule.occurrences(from: start, in: start..<window.upperBound, calendar: calendar).filter { $0 >= window.lowerBound }
                XCTAssertEqual(rule.occurrences(from: start, in: window, calendar: calendar), whole, "\(text) in \(from)..<\(to)")
                if !whole.isEmpty { compared += 1 }
            }
        }
        XCTAssertGreaterThan(compared, 30, "windows holding occurrences to compare")
    }
}
