// Adding events: the start as typed (a date alone makes an all-day event), the end given or
// derived from a duration (an hour, or a day when all-day), attendees named by contact reference,
// and the repeat rule checked and stored as RRULE text.
import Foundation
import ObjectGraph

/// An event to add, as the user typed it.
public struct EventDraft: Sendable {
    public var title: String
    public var start: String
    public var end: String?
    public var duration: String?
    public var allDay = false
    public var location: String?
    public var attendees: [String] = []
    public var repeatRule: String?
    public var calendar: String?
    public var notes: String?

    public init(title: String, start: String) {
        self.title = title
        self.start = start
    }
}

extension PIMStore {
    /// Inserts the event `draft` describes.
    public func addEvent(_ draft: EventDraft) throws(PIMError) -> Event {
        let title = draft.title.trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty else { throw PIMError.usage("an event needs a title") }
        if draft.end != nil, draft.duration != nil { throw PIMError.usage("give --end or --duration, not both") }
        let parser = dateParser
        let parsedStart: ParsedDate
        do {
            parsedStart = try parser.parse(draft.start)
        } catch {
            throw PIMError.date(error)
        }
        let allDay = draft.allDay || !parsedStart.hasTime
        let start = allDay ? parser.startOfDay(parsedStart.date) : parsedStart.date
        let end: Date
        if let text = draft.end {
            let parsedEnd = try readDate(text, with: parser)
            end = allDay && !((try? parser.parse(text))?.hasTime ?? false) ? parser.adding(days: 1, to: parser.startOfDay(parsedEnd)) : parsedEnd
        } else if let text = draft.duration {
            let duration: PIMDuration
            do {
                duration = try PIMDuration(parsing: text)
            } catch {
                throw PIMError.date(error)
            }
            end = duration.added(to: start, in: calendar) ?? start
        } else {
            end = allDay ? parser.adding(days: 1, to: start) : start.addingTimeInterval(3600)
        }
        // An all-day event's end is the day after its last: that may not be its first.
        guard allDay ? end > start : end >= start else {
            throw PIMError.usage("the end (\(draft.end ?? draft.duration ?? "")) comes before the start (\(draft.start))")
        }
        let rule = try draft.repeatRule.map { text throws(PIMError) in try Self.ruleText(text) }
        let resolver = RecordResolver(store: self)
        let attendees = try draft.attendees.map { text throws(PIMError) in try resolver.resolve(text, as: .contact) }

        guard let event = insertRecord("Event") as? Event else {
            preconditionFailure("the Event entity is not represented by its generated class")
        }
        event.title = title
        event.start = start
        event.end = end
        event.allDay = allDay
        event.timeZone = timeZone.identifier
        event.location = draft.location
        event.notes = draft.notes
        event.recurrenceRule = rule
        if let name = draft.calendar, !name.isEmpty { event.calendar = name }
        for attendee in attendees.compactMap({ $0 as? Contact }) { event.addToAttendees(attendee) }
        return event
    }
}

extension PIMStore {
    /// The RRULE text of a `--repeat` value.
    static func ruleText(_ text: String) throws(PIMError) -> String {
        do {
            return try RecurrenceRule(repeating: text).description
        } catch {
            throw PIMError.recurrence(error)
        }
    }
}

extension Event {
    /// How many days an all-day event covers, at least one: counted in calendar days, so that a
    /// day of 23 or 25 hours (a clock change) is still one day.
    func wholeDays(with parser: DateParser) -> Int {
        let first = start ?? parser.now
        let days = parser.calendar.dateComponents([.day], from: parser.startOfDay(first), to: parser.startOfDay(end ?? first)).day ?? 1
        return max(days, 1)
    }

    /// The starts of the event's occurrences in `window`: its own start, or its rule's expansion
    /// without the exception dates (RFC 5545 EXDATE values, UTC, comma-separated).
    public func occurrences(in window: Range<Date>, calendar: Calendar) -> [Date] {
        guard let start else { return [] }
        let length = (end ?? start).timeIntervalSince(start)
        guard let text = recurrenceRule, let rule = try? RecurrenceRule(text) else {
            return start < window.upperBound && start.addingTimeInterval(max(length, 1)) > window.lowerBound ? [start] : []
        }
        var zoned = calendar
        if let identifier = timeZone, let zone = TimeZone(identifier: identifier) { zoned.timeZone = zone }
        let earliest = window.lowerBound.addingTimeInterval(-max(length, 0))
        let exceptions = Set((exceptionDates ?? "").split(separator: ",").compactMap { RecurrenceRule.untilDate(String($0)) })
        return rule.occurrences(from: start, in: earliest..<window.upperBound, calendar: zoned)
            .filter { $0.addingTimeInterval(max(length, 1)) > window.lowerBound && !exceptions.contains($0) }
    }
}
