// `pim events calendar`: whole months as `cal` prints them, the days with something on them
// marked, and the agenda of those days under the months, as khal's `calendar` puts a month grid
// beside the agenda. The days' entries are the agenda's (repeats expanded, due tasks, birthdays).
import Foundation

/// Some whole months and every day of them with its agenda entries.
public struct MonthCalendar {
    /// The first day of each month, in order.
    public var months: [Date]
    /// Every day of the months, in order, each with its entries (maybe none).
    public var days: [AgendaDay]
}

extension PIMStore {
    /// The most months one calendar shows.
    public static let calendarMonthLimit = 36

    /// `months` whole months from the one holding `month` (this month when nil): a month typed
    /// `2026-12`, or any date pim reads (`next month`, `2027-03-15`). With `dates`, contacts'
    /// birthdays and anniversaries are among the days' entries.
    public func monthCalendar(month text: String?, months: Int, dates: Bool = true) throws(PIMError) -> MonthCalendar {
        guard (1...Self.calendarMonthLimit).contains(months) else {
            throw PIMError.usage("--months \(months): expected 1 to \(Self.calendarMonthLimit)")
        }
        let parser = dateParser
        var day = now
        if let text = text?.trimmingCharacters(in: .whitespaces) {
            if let month = Self.yearAndMonth(text) {
                guard let first = calendar.startOfDay(year: month.year, month: month.month, day: 1) else {
                    throw PIMError.usage("\"\(text)\": no such month")
                }
                day = first
            } else {
                day = try readDate(text, with: parser)
            }
        }
        let first = parser.startOfMonth(day)
        let starts = (0..<months).map { parser.startOfMonth(first, plus: $0) }
        let end = parser.startOfMonth(first, plus: months)
        guard calendar.isPIMDate(first), calendar.isPIMDate(end) else {
            throw PIMError.usage("\"\(text ?? "")\": the months must fall in the years \(Calendar.pimYears.lowerBound)-\(Calendar.pimYears.upperBound)")
        }
        // Counted by the months' lengths: a day that starts late (a clock change at midnight)
        // is still a day.
        let count = starts.reduce(0) { $0 + (calendar.range(of: .day, in: .month, for: $1)?.count ?? 0) }
        return MonthCalendar(months: starts, days: try agenda(from: first, days: count, dates: dates))
    }

    /// `2026-12` as its year and month (month 1 to 12), nil for anything else.
    static func yearAndMonth(_ text: String) -> (year: Int, month: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, (1...2).contains(parts[1].count),
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
              let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month), Calendar.pimYears.contains(year)
        else { return nil }
        return (year, month)
    }
}
