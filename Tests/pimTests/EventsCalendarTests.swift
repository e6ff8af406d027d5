// `pim events calendar`, end to end on the built binary (now: Wednesday 2026-11-25 in Berlin):
// months as cal lays them out, the days with agenda entries marked (repeats expanded, all-day
// spans, due tasks, birthdays), overdue tasks on today only when today is shown, three months
// side by side, Sunday-first weeks, colors, JSON, and the errors.
import Foundation
import XCTest

final class EventsCalendarTests: PimTestCase {
    private func addRecords() throws {
        for arguments in [
            ["events", "add", "Dinner", "--start", "2026-11-26 19:00", "--duration", "2h"],
            ["events", "add", "Standup", "--start", "2026-11-02 09:00", "--duration", "15m", "--repeat", "weekly"],
            ["events", "add", "Trip", "--start", "2026-11-28", "--end", "2026-11-29", "--all-day"],
            ["tasks", "add", "Overdue", "--due", "2026-11-20 12:00"],
            ["tasks", "add", "Forgotten", "--due", "2026-10-15 12:00"],
            ["tasks", "add", "Later", "--due", "2026-12-03 12:00"],
            ["contacts", "add", "Ann Lee", "--birthday", "1990-11-12"],
        ] {
            let run = try pim(arguments: arguments)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
        }
    }

    private func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The titles of the items of each day of `calendar arguments --json` that has any.
    private func titlesByDay(_ arguments: String...) throws -> [String: [String]] {
        let run = try pim(arguments: ["events", "calendar", "--json"] + arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        var result: [String: [String]] = [:]
        for day in try XCTUnwrap(run.json() as? [[String: Any]]) {
            let items = try XCTUnwrap(day["items"] as? [[String: Any]])
            if !items.isEmpty {
                result[try XCTUnwrap(day["date"] as? String)] = items.map { ($0["title"] ?? $0["name"]) as? String ?? "?" }
            }
        }
        return result
    }

    func testTheMonthIsLaidOutAsCalWithTheBusyDaysMarkedAndTheirAgendaUnder() throws {
        try addRecords()
        let run = try pim("events", "calendar")
        XCTAssertEqual(run.status, 0, run.stderr)
        let output = lines(run.stdout)
        XCTAssertEqual(Array(output.prefix(9)), [
            "   November 2026",
            "Mo Tu We Th Fr Sa Su",
            "                   1",
            " 2* 3  4  5  6  7  8",
            " 9*10 11 12*13 14 15",
            "16*17 18 19 20 21 22",
            "23*24 25*26*27 28*29*",
            "30*",
            "",
        ])
        // The agenda of the marked days only, overdue tasks on today with the day they were due.
        let headings = output.dropFirst(9).filter { !$0.isEmpty && !$0.hasPrefix(" ") }
        XCTAssertEqual(headings, ["Mon 2026-11-02", "Mon 2026-11-09", "Thu 2026-11-12", "Mon 2026-11-16", "Mon 2026-11-23",
                                  "Wed 2026-11-25", "Thu 2026-11-26", "Sat 2026-11-28", "Sun 2026-11-29", "Mon 2026-11-30"])
        XCTAssertTrue(run.stdout.contains("Wed 2026-11-25\n  due 10-15    Forgotten  [2]\n  due 11-20    Overdue  [1]\n"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Thu 2026-11-12\n  birthday     Ann Lee (turns 36)  [1]\n"), run.stdout)
        // --no-agenda stops after the month; --no-dates leaves the birthday unmarked.
        let bare = try pim("events", "calendar", "--no-agenda", "--no-dates")
        XCTAssertEqual(bare.status, 0, bare.stderr)
        XCTAssertEqual(lines(bare.stdout).count, 9, bare.stdout)
        XCTAssertEqual(lines(bare.stdout)[4], " 9*10 11 12 13 14 15")
    }

    func testOverdueTasksAreOnTodayOnlyWhenTodayIsShownAndOnTheirDaysInPastMonths() throws {
        try addRecords()
        let november = try titlesByDay()
        XCTAssertEqual(november["2026-11-25"], ["Forgotten", "Overdue"])
        XCTAssertNil(november["2026-11-20"])
        XCTAssertEqual(november.count, 10)
        let december = try titlesByDay("2026-12")
        XCTAssertEqual(december["2026-12-03"], ["Later"])
        XCTAssertFalse(december.values.joined().contains("Overdue"), "\(december)")
        let october = try titlesByDay("2026-10")
        XCTAssertEqual(october, ["2026-10-15": ["Forgotten"]], "a past month shows its open tasks on their days")
        // Every day of the months is in the JSON, empty or not.
        let run = try pim("events", "calendar", "--json", "2026-11", "--months", "2")
        let days = try XCTUnwrap(run.json() as? [[String: Any]])
        XCTAssertEqual(days.count, 61)
        XCTAssertEqual(days.first?["date"] as? String, "2026-11-01")
        XCTAssertEqual(days.last?["date"] as? String, "2026-12-31")
    }

    func testMonthsStandThreeAbreastEachAsItPrintsAlone() throws {
        try addRecords()
        let run = try pim("events", "cal", "2026-11", "--months", "4", "--week-start", "sunday", "--no-agenda")
        XCTAssertEqual(run.status, 0, run.stderr)
        let output = lines(run.stdout).dropLast()
        var alone: [[String]] = []
        for month in ["2026-11", "2026-12", "2027-01", "2027-02"] {
            let single = try pim("events", "calendar", month, "--week-start", "sunday", "--no-agenda")
            XCTAssertEqual(single.status, 0, single.stderr)
            alone.append(lines(single.stdout).dropLast())
        }
        XCTAssertEqual(alone[0][1], "Su Mo Tu We Th Fr Sa")
        XCTAssertEqual(alone[0][2], " 1  2* 3  4  5  6  7")
        // January has six week lines, the others five: the row is as high as its highest month.
        XCTAssertEqual(alone.map(\.count), [7, 7, 8, 7])
        let firstRow = Array(output.prefix(8))
        for (index, line) in firstRow.enumerated() {
            let padded = Array(line.padding(toLength: 3 * 23, withPad: " ", startingAt: 0))
            for month in 0..<3 {
                let expected = index < alone[month].count ? alone[month][index] : ""
                let column = String(padded[(23 * month)..<(23 * month + 21)]).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
                XCTAssertEqual(column, expected, "line \(index), month \(month)")
            }
        }
        XCTAssertEqual(output[8], "")
        XCTAssertEqual(Array(output.dropFirst(9)), alone[3])
    }

    func testTheFirstMonthCanBeNamedOrGivenByADateInIt() throws {
        for (words, title) in [(["2026-12"], "December 2026"), (["next", "month"], "December 2026"), (["2027-03-15"], "March 2027"),
                               (["2026-1"], "January 2026"), (["dec"], "December 2026"), (["December", "2027"], "December 2027"),
                               (["3", "2027"], "March 2027"), (["Jan"], "January 2026")] {
            let run = try pim(arguments: ["events", "calendar", "--no-agenda"] + words)
            XCTAssertEqual(run.status, 0, "\(words): \(run.stderr)")
            XCTAssertEqual(lines(run.stdout).first?.trimmingCharacters(in: .whitespaces), title, "\(words)")
        }
    }

    func testColorShowsTodayReversedAndBusyDaysBold() throws {
        try addRecords()
        let run = try pim("events", "calendar", "--color", "always", "--no-agenda")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("\u{1B}[7m25\u{1B}[0m*\u{1B}[1m26\u{1B}[0m*27 "), run.stdout)
        XCTAssertTrue(run.stdout.contains("\u{1B}[1;4mNovember 2026\u{1B}[0m"), run.stdout)
        let plain = try pim("events", "calendar", "--no-agenda")
        XCTAssertFalse(plain.stdout.contains("\u{1B}"), "no color without a terminal")
    }

    func testBadMonthsAndOptionsAreUsageErrors() throws {
        for (arguments, message) in [(["--months", "0"], "--months 0: expected 1 to 36"), (["--months", "37"], "--months 37"),
                                     (["2026-13"], "2026-13"), (["--week-start", "friday"], "--week-start \"friday\""),
                                     (["0000-01"], "0000-01")] {
            let run = try pim(arguments: ["events", "calendar"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stdout, "")
        }
    }
}
