// Dates and durations as pim reads them, end to end on the built binary (PimRun.swift's helper: a
// temporary store, Wednesday 2026-11-25 10:30 in Berlin): offsets too large for a date, and date
// words and $TOMORROW on a day whose midnight does not exist.
import Foundation
import XCTest

final class DateEdgeTests: PimTestCase {
    /// pim(1) DATES and EXIT STATUS: an unreadable date is an error, exit 2. An offset too large
    /// for a date was accepted: `+9223372036854775807d` silently became "now", and
    /// `+999999999999d` stored a due that add echoes as "due " and JSON prints as "" (not RFC 3339).
    func testRelativeDateOutOfRangeIsRefused() throws {
        for text in ["+9223372036854775807d", "+999999999999d"] {
            let run = try pim("tasks", "add", "Far", "--due", text)
            XCTAssertEqual(run.status, 2, "\(text): \(run.stdout)")
        }
        XCTAssertEqual(try pim("tasks", "list", "--all").status, 1, "a refused add stored a task")
    }

    /// pim(1) DATES: "A date without a time is midnight"; eod is "the last second of this day".
    /// On a day whose midnight does not exist (Chile springs forward at 00:00 on Sunday
    /// 2026-09-06, so that day starts at 01:00), pim adds days to 01:00: `tomorrow` became Monday
    /// 01:00 and `eod` Monday 00:59:59, an instant of the next day.
    func testDateWordsOnADayWithoutMidnight() throws {
        let chile = ["TZ": "America/Santiago", "PIM_NOW": "2026-09-06T10:00:00"]
        let expected = [("eod", "Sun 2026-09-06 23:59"), ("tomorrow", "Mon 2026-09-07 00:00"), ("yesterday", "Sat 2026-09-05 00:00"),
                        ("mon", "Mon 2026-09-07 00:00"), ("next week", "Mon 2026-09-07 00:00")]
        for (text, echo) in expected {
            let run = try pim("tasks", "add", "T", "--due", text, environment: chile)
            XCTAssertEqual(run.status, 0, "\(text): \(run.stderr)")
            XCTAssertTrue(run.stdout.contains("due \(echo)"), "\(text): \(run.stdout)")
        }
    }

    /// A count of weeks whose days are more than an Int holds (`+2000000000000000000w`)
    /// crashed pim (seven times the count overflowed) instead of being refused.
    func testWeeksBeyondAnIntAreRefused() throws {
        let run = try pim("tasks", "add", "Far", "--due", "+2000000000000000000w")
        XCTAssertEqual(run.status, 2, run.stdout + run.stderr)
        XCTAssertEqual(try pim("tasks", "list", "--all").status, 1, "a refused add stored a task")
    }

    /// The week words on the same day: the week started Monday 2026-08-31 at 01:00 and ended
    /// Monday 2026-09-07 at 00:59:59, counted from Sunday's 01:00.
    func testWeekWordsOnADayWithoutMidnight() throws {
        let chile = ["TZ": "America/Santiago", "PIM_NOW": "2026-09-06T10:00:00"]
        let expected = [("this week", "Mon 2026-08-31 00:00"), ("eow", "Sun 2026-09-06 23:59"), ("sow", "Mon 2026-09-07 00:00")]
        for (text, echo) in expected {
            let run = try pim("tasks", "add", "T", "--due", text, environment: chile)
            XCTAssertEqual(run.status, 0, "\(text): \(run.stderr)")
            XCTAssertTrue(run.stdout.contains("due \(echo)"), "\(text): \(run.stdout)")
        }
    }

    /// `$TOMORROW` of `--where` (pim(1)) is the start of tomorrow, as the date `tomorrow` is. On
    /// the same day it was Monday 01:00, so a task due Monday 00:30 counted as due before tomorrow.
    func testTomorrowVariableOnADayWithoutMidnightIsMidnight() throws {
        let chile = ["TZ": "America/Santiago", "PIM_NOW": "2026-09-06T10:00:00"]
        XCTAssertEqual(try pim("tasks", "add", "Early", "--due", "mon 00:30", environment: chile).status, 0)
        let run = try pim("tasks", "list", "--where", "due < $TOMORROW", environment: chile)
        XCTAssertEqual(run.status, 1, run.stdout)
    }
}
