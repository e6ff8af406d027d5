// Expanding a recurrence rule into occurrence starts, as RFC 5545 section 3.3.10 defines it for
// pim's subset: period by period (a day, a week, a month, a year, times INTERVAL), each period's
// candidate days from the BYxxx parts, at the start's wall-clock time (or BYHOUR, BYMINUTE and
// BYSECOND's), counted from the start.
import Foundation

extension RecurrenceRule {
    /// A calendar day, before it gets the start's time of day.
    struct Day: Hashable, Comparable {
        var year: Int, month: Int, day: Int
        static func < (a: Day, b: Day) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }
    }

    /// The starts of the occurrences that fall in `window` (lower bound included, upper
    /// excluded), the first being `start` itself; COUNT counts from `start` even before the window.
    ///
    /// Times keep the start's wall-clock time in `calendar`'s time zone across daylight saving,
    /// or take the rule's BYHOUR, BYMINUTE and BYSECOND; one a day skips is read with the offset
    /// before the change (RFC 5545 3.3.5: 02:30 on a spring-forward day is 03:30).
    /// At most `limit` periods are examined, so a rule that never matches (`BYMONTH=2;BYMONTHDAY=30`)
    /// ends; at most `maximumCount` occurrences are returned (the first ones in the window).
    ///
    /// Occurrences have whole seconds (iCalendar's precision): a start with a fraction of a second
    /// (typed as "in 2 hours" on the clock) is the first occurrence at its whole second.
    public func occurrences(from start: Date, in window: Range<Date>, calendar: Calendar, limit: Int = 100_000,
                            maximumCount: Int = .max) -> [Date] {
        let start = Date(timeIntervalSinceReferenceDate: start.timeIntervalSinceReferenceDate.rounded(.down))
        let until = untilDate(in: calendar)
        var time = calendar.dateComponents([.hour, .minute, .second], from: start)
        if let byHour { time.hour = byHour }
        if let byMinute { time.minute = byMinute }
        if let bySecond { time.second = bySecond }
        let first = calendar.dateComponents([.year, .month, .day], from: start)
        let startDay = Day(year: first.year!, month: first.month!, day: first.day!)
        var result: [Date] = []
        var emitted = 0
        let firstPeriod = firstPeriod(from: start, to: window.lowerBound, calendar: calendar)
        guard firstPeriod < limit else { return [] }
        for period in firstPeriod..<limit {
            guard let (periodStart, days) = candidates(period: period, startDay: startDay, calendar: calendar) else { break }
            if let periodDate = date(periodStart, time: DateComponents(hour: 0), calendar: calendar), periodDate >= window.upperBound { break }
            if let until, let periodDate = date(periodStart, time: DateComponents(hour: 0), calendar: calendar), periodDate > until { break }
            for day in days.sorted() where day >= startDay {
                guard let occurrence = date(day, time: time, calendar: calendar), occurrence >= start else { continue }
                if let until, occurrence > until { return result }
                emitted += 1
                if let count, emitted > count { return result }
                if occurrence >= window.upperBound { return result }
                if occurrence >= window.lowerBound {
                    result.append(occurrence)
                    if result.count >= maximumCount { return result }
                }
            }
        }
        return result
    }

    /// The first period that can hold an occurrence at or after `lowerBound`: the periods before
    /// it end at least two days before (each lasts at most `longest` days, and an occurrence
    /// falls before its next period starts), so the expansion starts there instead of walking
    /// every period from the event's first day (an agenda of a daily event made five years ago
    /// walked 1,800 of them). A rule with COUNT counts every occurrence from the first: 0.
    func firstPeriod(from start: Date, to lowerBound: Date, calendar: Calendar) -> Int {
        guard count == nil, let days = calendar.dateComponents([.day], from: start, to: lowerBound).day, days > 2 else { return 0 }
        let longest: Int
        switch frequency {
        case .daily: longest = interval
        case .weekly: longest = 7 * interval
        case .monthly: longest = 31 * interval
        case .yearly: longest = 366 * interval
        }
        return (days - 2) / max(longest, 1)
    }

    /// The first day of period `period` and its candidate days; nil past the calendar's range.
    func candidates(period: Int, startDay: Day, calendar: Calendar) -> (Day, [Day])? {
        let step = period * interval
        switch frequency {
        case .daily:
            guard let day = adding(days: step, to: startDay, calendar: calendar) else { return nil }
            return (day, matchesFilters(day, calendar: calendar) ? [day] : [])
        case .weekly:
            let startWeekday = weekday(of: startDay, calendar: calendar)
            let back = (startWeekday - weekStart + 7) % 7
            guard let weekFirst = adding(days: 7 * step - back, to: startDay, calendar: calendar) else { return nil }
            let weekdays = byDay.isEmpty ? [startWeekday] : byDay.map(\.weekday)
            let days = weekdays.compactMap { adding(days: ($0 - weekStart + 7) % 7, to: weekFirst, calendar: calendar) }
            return (weekFirst, days.filter { byMonth.isEmpty || byMonth.contains($0.month) })
        case .monthly:
            let index = startDay.year * 12 + startDay.month - 1 + step
            let (year, month) = (index / 12, index % 12 + 1)
            let first = Day(year: year, month: month, day: 1)
            guard byMonth.isEmpty || byMonth.contains(month) else { return (first, []) }
            return (first, daysOfMonth(year: year, month: month, startDay: startDay, calendar: calendar))
        case .yearly:
            let year = startDay.year + step
            let first = Day(year: year, month: 1, day: 1)
            if byMonth.isEmpty, byMonthDay.isEmpty, !byDay.isEmpty {
                return (first, weekdaysOfYear(year, calendar: calendar))
            }
            // RFC 5545 3.3.10's table: BYMONTHDAY expands a year to those days of each month
            // (BYMONTH, else every month); without either, the year has the start's day.
            let months = !byMonth.isEmpty ? byMonth : byMonthDay.isEmpty ? [startDay.month] : Array(1...12)
            return (first, months.flatMap { daysOfMonth(year: year, month: $0, startDay: startDay, calendar: calendar) })
        }
    }

    /// The candidate days of one month: BYMONTHDAY (filtered by BYDAY), else BYDAY, else the
    /// start's day of the month (skipped in months too short for it).
    func daysOfMonth(year: Int, month: Int, startDay: Day, calendar: Calendar) -> [Day] {
        let length = monthLength(year: year, month: month, calendar: calendar)
        if !byMonthDay.isEmpty {
            let days = byMonthDay.compactMap { number -> Day? in
                let day = number > 0 ? number : length + 1 + number
                return (1...length).contains(day) ? Day(year: year, month: month, day: day) : nil
            }
            guard !byDay.isEmpty else { return days }
            return days.filter { day in byDay.contains { $0.weekday == weekday(of: day, calendar: calendar) } }
        }
        if !byDay.isEmpty {
            let all = (1...length).map { Day(year: year, month: month, day: $0) }
            return select(byDay, from: all, calendar: calendar)
        }
        return startDay.day <= length ? [Day(year: year, month: month, day: startDay.day)] : []
    }

    /// The days of `year` that BYDAY names, ordinals counting within the year (`20MO`).
    func weekdaysOfYear(_ year: Int, calendar: Calendar) -> [Day] {
        let all = (1...12).flatMap { month in
            (1...monthLength(year: year, month: month, calendar: calendar)).map { Day(year: year, month: month, day: $0) }
        }
        return select(byDay, from: all, calendar: calendar)
    }

    /// The days of `days` (one month or year, in order) that the weekday numbers pick.
    func select(_ weekdays: [WeekdayNumber], from days: [Day], calendar: Calendar) -> [Day] {
        var picked: Set<Day> = []
        for entry in weekdays {
            let matching = days.filter { weekday(of: $0, calendar: calendar) == entry.weekday }
            guard let ordinal = entry.ordinal else {
                picked.formUnion(matching)
                continue
            }
            let index = ordinal > 0 ? ordinal - 1 : matching.count + ordinal
            if matching.indices.contains(index) { picked.insert(matching[index]) }
        }
        return Array(picked)
    }

    /// Whether a daily rule's day passes BYMONTH, BYMONTHDAY and BYDAY.
    func matchesFilters(_ day: Day, calendar: Calendar) -> Bool {
        if !byMonth.isEmpty, !byMonth.contains(day.month) { return false }
        if !byMonthDay.isEmpty {
            let length = monthLength(year: day.year, month: day.month, calendar: calendar)
            guard byMonthDay.contains(where: { ($0 > 0 ? $0 : length + 1 + $0) == day.day }) else { return false }
        }
        if !byDay.isEmpty, !byDay.contains(where: { $0.weekday == weekday(of: day, calendar: calendar) }) { return false }
        return true
    }

    // MARK: Calendar arithmetic on days (at noon, clear of daylight-saving changes)

    func noon(_ day: Day, calendar: Calendar) -> Date? {
        calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))
    }

    func adding(days: Int, to day: Day, calendar: Calendar) -> Day? {
        guard let base = noon(day, calendar: calendar), let moved = calendar.date(byAdding: .day, value: days, to: base) else { return nil }
        let parts = calendar.dateComponents([.year, .month, .day], from: moved)
        return Day(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    func weekday(of day: Day, calendar: Calendar) -> Int {
        noon(day, calendar: calendar).map { calendar.component(.weekday, from: $0) } ?? 0
    }

    func monthLength(year: Int, month: Int, calendar: Calendar) -> Int {
        guard let date = noon(Day(year: year, month: month, day: 1), calendar: calendar),
              let range = calendar.range(of: .day, in: .month, for: date) else { return 28 }
        return range.count
    }

    func date(_ day: Day, time: DateComponents, calendar: Calendar) -> Date? {
        calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day,
                                           hour: time.hour ?? 0, minute: time.minute ?? 0, second: time.second ?? 0))
    }
}
