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
    /// `2026-12`, `dec`, `December 2026` or `12 2026`, or any date pim reads (`next month`,
    /// `2027-03-15`). With `dates`, contacts' birthdays and anniversaries are among the days'
    /// entries.
    public func monthCalendar(month text: String?, months: Int, dates: Bool = true) throws(PIMError) -> MonthCalendar {
        guard (1...Self.calendarMonthLimit).contains(months) else {
            throw PIMError.usage("--months \(months): expected 1 to \(Self.calendarMonthLimit)")
        }
        let parser = dateParser
        var day = now
        if let text = text?.trimmingCharacters(in: .whitespaces) {
            if let month = yearAndMonth(text) {
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
        guard calendar.isPIMDate(first), let last = starts.last, calendar.isPIMDate(last) else {
            throw PIMError.usage("\"\(text ?? "")\": the months must fall in the years \(Calendar.pimYears.lowerBound)-\(Calendar.pimYears.upperBound)")
        }
        // Day after day: a day that starts late (a clock change at midnight) is still a day, and
        // October 1582 (the switch from the Julian calendar) has 21.
        var dayStarts: [Date] = []
        var next = first
        while next < end {
            dayStarts.append(next)
            let after = parser.adding(days: 1, to: next)
            guard after > next else { break }
            next = after
        }
        return MonthCalendar(months: starts, days: try agenda(of: dayStarts, dates: dates))
    }

    /// The year and month `text` names as a month, nil for anything else: `2026-12`, a month's
    /// English name or its first three letters with a year or without (this year: `dec`,
    /// `December 2026`), or a month's number and a year as cal(1) takes them (`12 2026`).
    func yearAndMonth(_ text: String) -> (year: Int, month: Int)? {
        func fourDigitYear(_ part: Substring) -> Int? {
            guard part.count == 4, part.allSatisfy(\.isASCII), let year = Int(part), Calendar.pimYears.contains(year) else { return nil }
            return year
        }
        let dashed = text.split(separator: "-", omittingEmptySubsequences: false)
        if dashed.count == 2, let year = fourDigitYear(dashed[0]), (1...2).contains(dashed[1].count), dashed[1].allSatisfy(\.isASCII),
           let month = Int(dashed[1]), (1...12).contains(month) {
            return (year, month)
        }
        let words = text.split(whereSeparator: \.isWhitespace)
        guard (1...2).contains(words.count) else { return nil }
        let year = words.count == 2 ? fourDigitYear(words[1]) : calendar.component(.year, from: now)
        guard let year else { return nil }
        let word = words[0].lowercased()
        if words.count == 2, word.count <= 2, word.allSatisfy(\.isASCII), let month = Int(word), (1...12).contains(month) {
            return (year, month)
        }
        let names = CalendarPresenter.monthNames.map { $0.lowercased() }
        guard let month = names.firstIndex(where: { $0 == word || word.count == 3 && $0.hasPrefix(word) }) else { return nil }
        return (year, month + 1)
    }
}
