// Printing a month calendar: each month as `cal` lays it out (a centered title, the weekdays,
// a line per week), up to three months side by side; a day with something on it is followed
// by `*` (and bold when coloring), today is in reverse video when coloring. Under the months,
// the agenda of the marked days. Month and weekday names are English whatever the locale.
import Foundation

/// Turns a ``MonthCalendar`` into text.
public struct CalendarPresenter {
    public let now: Date
    public let timeZone: TimeZone
    public let colored: Bool
    /// Whether weeks start on Sunday (else on Monday).
    public let sundayFirst: Bool

    /// How many months share a row of the output.
    static let monthsPerRow = 3
    /// The columns a month takes: seven days of two digits, each followed by its mark.
    static let monthWidth = 21
    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]
    /// Sunday first, as `Calendar` numbers weekdays.
    static let weekdayNames = ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"]

    public init(now: Date, timeZone: TimeZone, colored: Bool, sundayFirst: Bool = false) {
        self.now = now
        self.timeZone = timeZone
        self.colored = colored
        self.sundayFirst = sundayFirst
    }

    /// The months, then (with `agenda`) the days that have entries, as the agenda prints them.
    public func text(_ view: MonthCalendar, agenda: Bool = true) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let busy = Set(view.days.filter { !$0.items.isEmpty }.map { calendar.startOfDay(for: $0.day) })
        let today = calendar.startOfDay(for: now)
        // Each month's days, in order.
        let daysByMonth = Dictionary(grouping: view.days.map(\.day)) { calendar.dateComponents([.year, .month], from: $0) }
        var lines: [String] = []
        for rowStart in stride(from: 0, to: view.months.count, by: Self.monthsPerRow) {
            let blocks = view.months[rowStart..<min(rowStart + Self.monthsPerRow, view.months.count)].map { first in
                self.month(first, days: daysByMonth[calendar.dateComponents([.year, .month], from: first)] ?? [], calendar: calendar,
                           busy: busy, today: today)
            }
            if rowStart > 0 { lines.append("") }
            let height = blocks.map(\.count).max() ?? 0
            for index in 0..<height {
                // Each line of a block is `monthWidth` columns wide (escape codes take none); a
                // month of fewer weeks than the others of its row gets blank ones.
                let parts = blocks.map { index < $0.count ? $0[index] : String(repeating: " ", count: Self.monthWidth) }
                lines.append(parts.joined(separator: "  ").trimmingTrailingSpaces())
            }
        }
        var text = lines.joined(separator: "\n") + "\n"
        let marked = view.days.filter { !$0.items.isEmpty }
        if agenda, !marked.isEmpty {
            text += "\n" + AgendaPresenter(now: now, timeZone: timeZone, colored: colored).text(marked)
        }
        return text
    }

    /// The lines of the month starting at `first`, each `monthWidth` columns wide: `days` (the
    /// starts of its days, in order) numbered as the calendar numbers them.
    func month(_ first: Date, days: [Date], calendar: Calendar, busy: Set<Date>, today: Date) -> [String] {
        let parts = calendar.dateComponents([.year, .month], from: first)
        let title = "\(Self.monthNames[(parts.month ?? 1) - 1]) \(parts.year ?? 0)"
        let left = (Self.monthWidth - 1 - title.count) / 2
        var lines = [String(repeating: " ", count: max(0, left)) + Emphasis.header.apply(title, colored: colored)
            + String(repeating: " ", count: max(0, Self.monthWidth - left - title.count))]
        let order = sundayFirst ? Array(0..<7) : Array(1..<7) + [0]
        lines.append(order.map { Self.weekdayNames[$0] + " " }.joined())
        // Empty cells before the first day: how far its weekday is from the week's first.
        let firstWeekday = calendar.component(.weekday, from: days.first ?? first) - 1
        var cells = Array(repeating: "   ", count: (firstWeekday - order[0] + 7) % 7)
        for day in days {
            let number = calendar.component(.day, from: day)
            let digits = number < 10 ? " \(number)" : "\(number)"
            let start = calendar.startOfDay(for: day)
            let isBusy = busy.contains(start)
            let shown = start == today ? "\u{1B}[7m" : isBusy ? "\u{1B}[1m" : ""
            cells.append((colored && !shown.isEmpty ? shown + digits + "\u{1B}[0m" : digits) + (isBusy ? "*" : " "))
        }
        cells += Array(repeating: "   ", count: (7 - cells.count % 7) % 7)
        for week in stride(from: 0, to: cells.count, by: 7) {
            lines.append(cells[week..<week + 7].joined())
        }
        return lines
    }
}
