// Skipping occurrences of a repeating event: `pim events delete N --occurrence WHEN` and the
// `skipped` field of `pim events edit`. A skipped occurrence is an RFC 5545 exception date
// (EXDATE), kept in the event's `exceptionDates` as iCalendar writes them, comma-separated: a
// timed occurrence by its start in UTC (`20261204T090000Z`), an all-day one by its day
// (`20261204`). The agenda and `events list --from/--to` leave them out (Event+Days.swift).
import Foundation

extension Event {
    /// The starts of the occurrences the event skips, sorted: for an all-day event, midnight UTC
    /// of each skipped day (a day of no time zone, as ``EventDays`` keeps it); for a timed one,
    /// the skipped instants.
    public var skippedOccurrences: [Date] {
        Array(Set(allDay ? skippedDays : exceptionInstants)).sorted()
    }

    /// The days of the skipped occurrences in the event's own time zone (an all-day event's are
    /// days already): what a move keeps skipped (``keepSkipping(_:fallback:)``).
    func skippedDaysBeforeMove(fallback: Calendar) -> [DateComponents] {
        skippedOccurrences.map { occurrenceDay($0, fallback: fallback) }
    }

    /// The day holding the occurrence that starts at `start`: in the event's time zone for a
    /// timed event, the UTC day for an all-day one (whose occurrences start at midnight UTC).
    func occurrenceDay(_ start: Date, fallback: Calendar) -> DateComponents {
        let calendar = allDay ? Calendar.utc : zonedCalendar(fallback: fallback)
        return calendar.dateComponents([.year, .month, .day], from: start)
    }

    /// The start of the occurrence `rule` (the event's rule, or its ``dayRule(fallback:)``) gives
    /// on `day` (``occurrenceDay(_:fallback:)``), skipped or not; nil when there is none.
    func ruleStart(onDay day: DateComponents, rule: RecurrenceRule, fallback: Calendar) -> Date? {
        let calendar = allDay ? Calendar.utc : zonedCalendar(fallback: fallback)
        guard let dayStart = calendar.date(from: day), let dayEnd = calendar.date(byAdding: .day, value: 1, to: dayStart) else { return nil }
        return ruleStarts(in: dayStart..<dayEnd, rule: rule, fallback: fallback).first
    }

    /// After a move, skips the occurrences on `days` again (``skippedDaysBeforeMove(fallback:)``):
    /// a timed occurrence at its new time, an all-day one by its day. A day the moved event does
    /// not occur on any more is dropped. RFC 5545 names an exception by its occurrence's start,
    /// so without this a new time would bring every skipped occurrence back.
    func keepSkipping(_ days: [DateComponents], fallback: Calendar) {
        guard !days.isEmpty, let rule = allDay ? dayRule(fallback: fallback) : rule else { return }
        let starts = days.compactMap { ruleStart(onDay: $0, rule: rule, fallback: fallback) }
        exceptionDates = starts.isEmpty ? nil : Array(Set(starts)).sorted().map(exceptionText).joined(separator: ",")
    }

    /// The starts of the occurrences, skipped or not, that `rule` (the event's rule, or for an
    /// all-day event its ``dayRule(fallback:)``) starts in `range`: for an all-day event a range
    /// of UTC midnights (its days), for a timed one any range of instants.
    func ruleStarts(in range: Range<Date>, rule: RecurrenceRule, fallback: Calendar) -> [Date] {
        if allDay {
            guard let first = days(fallback: fallback)?.first else { return [] }
            return rule.occurrences(from: first, in: range, calendar: .utc)
        }
        guard let start else { return [] }
        return rule.occurrences(from: start, in: range, calendar: zonedCalendar(fallback: fallback))
    }

    /// How an exception date for the occurrence starting at `start` is written: its UTC day for
    /// an all-day event (`start` is midnight UTC of that day), its UTC instant otherwise.
    func exceptionText(_ start: Date) -> String {
        allDay ? OutputFormat.string(from: start, format: "yyyyMMdd", timeZone: TimeZone(secondsFromGMT: 0)!)
               : RecurrenceRule.untilText(start)
    }
}

extension PIMStore {
    /// The start of the occurrence of the repeating `event` that `text` names, skipped or not:
    /// a date and time names the occurrence starting then; a date alone, the one starting that
    /// day. For an all-day event the day is the occurrence's first, returned as midnight UTC (as
    /// ``Event/skippedOccurrences`` lists it).
    ///
    /// ```swift
    /// let start = try store.occurrence(of: standup, named: "2026-12-04")   // that day's standup
    /// ```
    ///
    /// Throws a usage error for an event that does not repeat (or whose imported rule pim does not
    /// read), `noOccurrence` when none matches.
    public func occurrence(of event: Event, named text: String) throws(PIMError) -> Date {
        guard let ruleText = event.recurrenceRule, event.start != nil else {
            throw PIMError.usage("event \(event.number) does not repeat: delete the event, or give it a rule with --repeat")
        }
        guard let rule = event.allDay ? event.dayRule(fallback: dateParser.calendar) : event.rule else {
            throw PIMError.usage("event \(event.number) repeats by a rule pim does not read (\(ruleText)): its occurrences cannot be named")
        }
        let parser = dateParser
        let parsed = try readParsedDate(text, with: parser)
        let reference = "event \(event.number)"
        if event.allDay {
            let day = parser.calendar.midnightUTC(ofDayHolding: parsed.date)
            guard event.ruleStarts(in: day..<day.addingTimeInterval(EventDays.length), rule: rule, fallback: parser.calendar).contains(day) else {
                throw PIMError.noOccurrence("\(reference) (\(event.title ?? "")) has no occurrence starting \(OutputFormat.day(day, weekday: true))")
            }
            return day
        }
        let dayStart = parser.calendar.startOfDay(for: parsed.date)
        let sameDay = event.ruleStarts(in: dayStart..<parser.adding(days: 1, to: dayStart), rule: rule, fallback: parser.calendar)
        if parsed.hasTime {
            guard sameDay.contains(parsed.date) else {
                let hint = sameDay.isEmpty ? "" : "; that day it starts at " + sameDay.map { echoTime($0) }.joined(separator: ", ")
                throw PIMError.noOccurrence("\(reference) (\(event.title ?? "")) has no occurrence starting \(echoTime(parsed.date))\(hint)")
            }
            return parsed.date
        }
        // The rules pim reads start at most one occurrence a day (BYHOUR and BYMINUTE take one
        // value each, FREQ is at least DAILY), so a day names one.
        guard let only = sameDay.first else {
            throw PIMError.noOccurrence("\(reference) (\(event.title ?? "")) has no occurrence on \(OutputFormat.echo(dayStart, timeZone: timeZone, dateOnly: true))")
        }
        return only
    }

    /// Skips the occurrence of `event` that `text` names (``occurrence(of:named:)``) and returns
    /// its start; one skipped already is not found again.
    @discardableResult
    public func skipOccurrence(of event: Event, named text: String) throws(PIMError) -> Date {
        try skipOccurrences(of: event, named: [text])[0]
    }

    /// Skips the occurrences of `event` that `texts` name, each once however many texts name it,
    /// and returns their starts in order. One skipped before is not found again, and then none
    /// is skipped. An occurrence changed on its own (``detachOccurrence(of:named:)``), which the
    /// event skips already, is deleted.
    @discardableResult
    public func skipOccurrences(of event: Event, named texts: [String]) throws(PIMError) -> [Date] {
        var starts = try occurrences(of: event, named: texts)
        let changed = starts.compactMap { start in changedOccurrence(of: event, startingAt: start).map { (start, $0) } }
        for (_, occurrence) in changed { context.delete(occurrence) }
        starts.removeAll { start in changed.contains { $0.0 == start } }
        let skipped = Set(event.skippedOccurrences)
        if let again = starts.first(where: skipped.contains) {
            throw PIMError.noOccurrence("the occurrence of event \(event.number) on \(describeOccurrence(again, of: event)) is skipped already")
        }
        let written = (event.exceptionDates ?? "").split(separator: ",").map(String.init) + starts.map(event.exceptionText)
        event.exceptionDates = written.joined(separator: ",")
        return (starts + changed.map(\.0)).sorted()
    }

    /// Makes the occurrences `text` names, comma-separated, the ones `event` skips; an empty text
    /// skips none. Each must name an occurrence (``occurrence(of:named:)``).
    ///
    /// The occurrences changed on their own stay skipped: their events stand for them.
    public func setSkippedOccurrences(of event: Event, to text: String) throws(PIMError) {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let changed = event.overrides.filter { !$0.isDeleted }.compactMap(\.recurrenceID)
        let starts = Set(try occurrences(of: event, named: items) + changed)
        event.exceptionDates = starts.isEmpty ? nil : starts.sorted().map(event.exceptionText).joined(separator: ",")
    }

    /// The starts of the occurrences `texts` name (``occurrence(of:named:)``), each once, in the
    /// order first named.
    private func occurrences(of event: Event, named texts: [String]) throws(PIMError) -> [Date] {
        var starts: [Date] = []
        for text in texts {
            let start = try occurrence(of: event, named: text)
            if !starts.contains(start) { starts.append(start) }
        }
        return starts
    }

    /// An occurrence's start as pim prints it: the day of an all-day one, the local date and
    /// time of a timed one.
    public func describeOccurrence(_ start: Date, of event: Event) -> String {
        event.allDay ? OutputFormat.day(start, weekday: true) : echoTime(start)
    }

    /// A timed occurrence's start in the store's time zone, with its weekday.
    private func echoTime(_ date: Date) -> String {
        OutputFormat.echo(date, timeZone: timeZone)
    }
}
