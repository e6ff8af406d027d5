// Changing an event's start or end as `pim events edit` does, with flags or in the editor: the
// end moves with a new start, a date without a time makes the event all-day, and an all-day
// event's days are written in its own time zone, where they are read (Event+Days.swift).
import Foundation

extension PIMStore {
    /// Moves `event` to start at `text`, its end moving with it. A date without a time makes it
    /// all-day (pim(1) DATES: "A date without a time is midnight, and makes an event all-day")
    /// over the days it touched; an all-day event keeps its days and moves to the day named; a
    /// timed event keeps its length. A time makes an all-day event a timed one, an hour long as
    /// `add` makes it (a later end sets its length).
    ///
    /// ```swift
    /// try store.moveEvent(meeting, toStart: "2026-11-30")   // all day on Monday 2026-11-30
    /// try store.moveEvent(meeting, toStart: "fri 9:00")     // 9:00 on Friday, as long as before
    /// try store.moveEvent(holiday, toStart: "dec 24 18:00") // no longer all-day: 18:00 to 19:00
    /// ```
    ///
    /// A repeating event's skipped occurrences stay skipped on their days, at the new time.
    public func moveEvent(_ event: Event, toStart text: String) throws(PIMError) {
        let parser = dateParser
        let parsed = try readParsedDate(text, with: parser)
        let skippedDays = event.skippedDaysBeforeMove(fallback: parser.calendar)
        let changedDays = event.changedOccurrenceDaysBeforeMove(fallback: parser.calendar)
        defer {
            event.keepSkipping(skippedDays, fallback: parser.calendar)
            event.keepChangedOccurrences(changedDays, fallback: parser.calendar)
        }
        if !parsed.hasTime {
            let count = event.coveredDays(fallback: parser.calendar)?.count ?? 1
            event.setDays(EventDays(first: parser.calendar.midnightUTC(ofDayHolding: parsed.date), count: count), fallback: parser.calendar)
        } else if event.allDay {
            event.allDay = false
            event.start = parsed.date
            event.end = parsed.date.addingTimeInterval(Self.defaultEventLength)
            retime(event, clock: parsed.clock, calendar: parser.calendar)
        } else {
            let start = event.start ?? parsed.date
            event.end = parsed.date.addingTimeInterval((event.end ?? start).timeIntervalSince(start))
            event.start = parsed.date
            retime(event, clock: parsed.clock, calendar: parser.calendar)
        }
    }

    /// A moved repeating event's rule takes its time from the new start: a time of day in the
    /// rule (BYHOUR, BYMINUTE, BYSECOND: written by pim for a start its day skips, or typed) goes,
    /// and a new start at a time its day skips keeps the time typed for the later days, as `add`
    /// does (RFC 5545 3.3.5 and 3.3.10).
    private func retime(_ event: Event, clock: DateComponents?, calendar: Calendar) {
        guard let before = event.rule, let start = event.start else { return }
        var rule = before
        (rule.byHour, rule.byMinute, rule.bySecond) = (nil, nil, nil)
        let zoned = event.zonedCalendar(fallback: calendar)
        if let clock, zoned.timeZone == calendar.timeZone { rule.keepTime(clock, of: start, in: zoned) }
        // A rule with no time of day before or after keeps its text as the user typed it.
        guard (rule.byHour, rule.byMinute, rule.bySecond) != (before.byHour, before.byMinute, before.bySecond) else { return }
        event.recurrenceRule = rule.description
    }

    /// Sets the end of `event` to `text`: for an all-day event, its last day (the day an end with
    /// a time falls in, or the day before when that is midnight). An end before the start, or an
    /// all-day event's last day before its first, is refused.
    public func setEnd(of event: Event, to text: String) throws(PIMError) {
        let parser = dateParser
        let parsed = try readParsedDate(text, with: parser)
        if let days = event.days(fallback: parser.calendar) {
            let after = parser.calendar.midnightUTC(ofDayHolding: Self.allDayEnd(parsed.date, hasTime: parsed.hasTime, with: parser))
            let count = Calendar.utc.dateComponents([.day], from: days.first, to: after).day ?? 0
            guard count >= 1 else { throw PIMError.usage("end \"\(text)\" comes before the start") }
            event.setDays(EventDays(first: days.first, count: count), fallback: parser.calendar)
        } else {
            guard parsed.date >= event.start ?? parsed.date else { throw PIMError.usage("end \"\(text)\" comes before the start") }
            event.end = parsed.date
        }
    }
}
