// An event's days and occurrences. An all-day event is calendar days, not instants (RFC 5545
// 3.3.4: a DATE is a day): its start and end are kept as the starts of its first day and of the
// day after its last in its own time zone, and read in that zone, so that it has the same days
// wherever it is read and lasts whole days across a clock change. A timed event is instants,
// repeated at its zone's wall-clock time.
import Foundation

/// The calendar days of an all-day event, of no time zone.
///
/// ```swift
/// if let days = event.days(fallback: store.calendar) {
///     OutputFormat.day(days.first)   // "2026-12-01", in any time zone
/// }
/// ```
public struct EventDays: Sendable, Equatable {
    /// Midnight UTC starting the first day: a day of no time zone, as pim keeps birthdays
    /// (``OutputFormat/day(_:weekday:)`` prints it).
    public var first: Date
    /// How many days, at least one.
    public var count: Int

    public init(first: Date, count: Int) {
        self.first = first
        self.count = count
    }

    /// Midnight UTC starting the last day.
    public var last: Date { first.addingTimeInterval(Double(count - 1) * Self.length) }

    /// Midnight UTC starting the day after the last.
    var end: Date { first.addingTimeInterval(Double(count) * Self.length) }

    /// A day of no time zone lasts 24 hours (they are counted in UTC).
    static let length: TimeInterval = 86_400
}

extension Event {
    /// `calendar` in the event's own time zone (`calendar`'s own when the event has none): the
    /// zone its wall-clock times repeat in and its days are kept in.
    func zonedCalendar(fallback calendar: Calendar) -> Calendar {
        var zoned = calendar
        if let identifier = timeZone, let zone = TimeZone(identifier: identifier) { zoned.timeZone = zone }
        return zoned
    }

    /// The days of an all-day event (nil for a timed one), read in its own time zone (`fallback`'s
    /// when it has none): from the day holding its start to the day before its end. An end with a
    /// time of day, which older versions kept when one was typed, ends the day it falls in.
    public func days(fallback: Calendar) -> EventDays? {
        allDay ? coveredDays(fallback: fallback) : nil
    }

    /// The days the event touches in its own time zone, all-day or not: from the day holding its
    /// start to the day holding its end, or the day before when it ends at the start of a day.
    func coveredDays(fallback: Calendar) -> EventDays? {
        guard let start else { return nil }
        let calendar = zonedCalendar(fallback: fallback)
        let end = self.end ?? start
        let first = calendar.midnightUTC(ofDayHolding: start)
        var after = calendar.midnightUTC(ofDayHolding: end)
        if calendar.startOfDay(for: end) != end { after.addTimeInterval(EventDays.length) }
        let count = Calendar.utc.dateComponents([.day], from: first, to: after).day ?? 1
        return EventDays(first: first, count: max(count, 1))
    }

    /// Makes the event all-day over `days`, kept as the starts of its first day and of the day
    /// after its last in its own time zone (`fallback`'s when it has none).
    func setDays(_ days: EventDays, fallback: Calendar) {
        let calendar = zonedCalendar(fallback: fallback)
        allDay = true
        start = calendar.startOfDay(named: days.first)
        end = calendar.startOfDay(named: days.end)
    }

    /// The starts of the event's occurrences that meet `window`: its own start, or its rule's
    /// expansion without the exception dates (RFC 5545 EXDATE values, UTC, comma-separated). An
    /// all-day occurrence starts at the start of its first day in `calendar`'s time zone and
    /// lasts the event's whole days.
    public func occurrences(in window: Range<Date>, calendar: Calendar) -> [Date] {
        occurrences(in: window, calendar: calendar, includingSkipped: false)
    }

    /// Whether an occurrence of the event, not skipped, meets `window` (`events list --from/--to`).
    /// Looks no further than the first one.
    func occurs(in window: Range<Date>, calendar: Calendar) -> Bool {
        // The expansion stops after this many starts: one per skipped occurrence, and a few that
        // end before the window or start after it once read in `calendar`'s zone.
        !occurrences(in: window, calendar: calendar, includingSkipped: false, atMost: exceptionInstants.count + 3).isEmpty
    }

    /// ``occurrences(in:calendar:)``, with the skipped ones too when `includingSkipped`; the
    /// rule's expansion stops after `atMost` starts (before skipped ones are left out).
    func occurrences(in window: Range<Date>, calendar: Calendar, includingSkipped: Bool, atMost: Int = .max) -> [Date] {
        if let days = days(fallback: calendar) {
            return occurrences(of: days, in: window, calendar: calendar, includingSkipped: includingSkipped, atMost: atMost)
        }
        guard let start else { return [] }
        let length = (end ?? start).timeIntervalSince(start)
        guard let rule else {
            return start < window.upperBound && start.addingTimeInterval(max(length, 1)) > window.lowerBound ? [start] : []
        }
        let earliest = window.lowerBound.addingTimeInterval(-max(length, 0))
        let exceptions = includingSkipped ? [] : Set(exceptionInstants)
        return rule.occurrences(from: start, in: earliest..<window.upperBound, calendar: zonedCalendar(fallback: calendar), maximumCount: atMost)
            .filter { $0.addingTimeInterval(max(length, 1)) > window.lowerBound && !exceptions.contains($0) }
    }

    /// An all-day event's occurrences that meet `window`, as the starts of their first days in
    /// `calendar`'s time zone. The rule is expanded over days of no time zone (in UTC, where
    /// each day has 24 hours), so that a clock change neither moves nor lengthens a day.
    private func occurrences(of days: EventDays, in window: Range<Date>, calendar: Calendar, includingSkipped: Bool,
                             atMost: Int) -> [Date] {
        var firsts = [days.first]
        if let rule = dayRule(fallback: calendar) {
            // The days the window touches, and the days before it of occurrences still running.
            let from = calendar.midnightUTC(ofDayHolding: window.lowerBound).addingTimeInterval(-Double(days.count) * EventDays.length)
            let to = calendar.midnightUTC(ofDayHolding: window.upperBound).addingTimeInterval(EventDays.length)
            let exceptions = includingSkipped ? [] : Set(skippedDays)
            firsts = rule.occurrences(from: days.first, in: from..<to, calendar: .utc, maximumCount: atMost).filter { !exceptions.contains($0) }
        }
        return firsts.compactMap { first in
            let occurrence = EventDays(first: first, count: days.count)
            guard let start = calendar.startOfDay(named: occurrence.first), let end = calendar.startOfDay(named: occurrence.end),
                  start < window.upperBound, end > window.lowerBound else { return nil }
            return start
        }
    }

    /// The event's repeat rule, when it has one pim reads.
    var rule: RecurrenceRule? {
        recurrenceRule.flatMap { try? RecurrenceRule($0) }
    }

    /// An all-day event's rule as its days are expanded (over UTC midnights): an UNTIL written as
    /// a UTC time ends the rule with the day holding that instant in the event's own time zone
    /// (RFC 5545 3.3.10: UNTIL bounds the occurrences' starts, and a day starts at its midnight
    /// there), not with the UTC day holding it. An UNTIL written as a date is a day already.
    /// A time of day in the rule (BYHOUR, BYMINUTE, BYSECOND, kept from when the event was timed)
    /// is no part of a day.
    func dayRule(fallback: Calendar) -> RecurrenceRule? {
        guard var rule else { return nil }
        (rule.byHour, rule.byMinute, rule.bySecond) = (nil, nil, nil)
        if let until = rule.until {
            rule.until = zonedCalendar(fallback: fallback).midnightUTC(ofDayHolding: until).addingTimeInterval(EventDays.length - 1)
        }
        return rule
    }

    /// The instants of the exception dates.
    var exceptionInstants: [Date] {
        (exceptionDates ?? "").split(separator: ",").compactMap { RecurrenceRule.untilDate(String($0.trimmingCharacters(in: .whitespaces))) }
    }

    /// The days an all-day event skips, as midnight UTC: the UTC day of each exception date (a
    /// DATE value reads as its last second, a DATE-TIME as its instant).
    var skippedDays: [Date] {
        exceptionInstants.map { Calendar.utc.startOfDay(for: $0) }
    }
}
