// Adding events: the start as typed (a date alone makes an all-day event), the end given or
// derived from a duration (an hour, or a day when all-day; an all-day event ends with a whole
// day), attendees named by contact reference, and the repeat rule checked and stored as RRULE
// text, with the time typed for the start when its day skips it.
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
    /// tentative, confirmed or cancelled; nil for the model's default (confirmed).
    public var status: String?
    /// Alarms as `--alarm` reads them: `15m` (before the start), `10m after`, `at the start`, or
    /// a date and time.
    public var alarms: [String] = []

    public init(title: String, start: String) {
        self.title = title
        self.start = start
    }
}

extension PIMStore {
    /// How long a timed event lasts when no end or duration says: an hour.
    static let defaultEventLength: TimeInterval = 3600

    /// Inserts the event `draft` describes.
    public func addEvent(_ draft: EventDraft) throws(PIMError) -> Event {
        let title = draft.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw PIMError.usage("an event needs a title") }
        if draft.end != nil, draft.duration != nil { throw PIMError.usage("give --end or --duration, not both") }
        if let status = draft.status { try Event.checkStatus(status) }
        let parser = dateParser
        let parsedStart = try readParsedDate(draft.start, with: parser)
        let allDay = draft.allDay || !parsedStart.hasTime
        let start = allDay ? parser.startOfDay(parsedStart.date) : parsedStart.date
        let end: Date
        if let text = draft.end {
            let parsedEnd = try readParsedDate(text, with: parser)
            end = allDay ? Self.allDayEnd(parsedEnd.date, hasTime: parsedEnd.hasTime, with: parser) : parsedEnd.date
        } else if let text = draft.duration {
            let duration: PIMDuration
            do {
                duration = try PIMDuration(parsing: text)
            } catch {
                throw PIMError.date(error)
            }
            guard let sum = duration.added(to: start, in: calendar) else {
                throw PIMError.date(DateParseError(input: text, offending: text, reason: "the end would be beyond the years pim's dates run over (1 to 9999)"))
            }
            end = allDay ? Self.allDayEnd(sum, hasTime: true, with: parser) : sum
        } else {
            end = allDay ? parser.adding(days: 1, to: start) : start.addingTimeInterval(Self.defaultEventLength)
        }
        // An all-day event's end is the day after its last: that may not be its first.
        guard allDay ? end > start : end >= start else {
            throw PIMError.usage("the end (\(draft.end ?? draft.duration ?? "")) comes before the start (\(draft.start))")
        }
        var rule = try draft.repeatRule.map { text throws(PIMError) in try Self.rule(text) }
        if !allDay, let clock = parsedStart.clock { rule?.keepTime(clock, of: start, in: calendar) }
        let resolver = RecordResolver(store: self)
        let attendees = try draft.attendees.map { text throws(PIMError) in try resolver.resolve(text, as: .contact) }
        let alarms = try readAlarms(draft.alarms.joined(separator: ","))

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
        if let status = draft.status { event.status = status }
        event.alarms = Alarm.stored(alarms)
        event.recurrenceRule = rule?.description
        if let name = draft.calendar, !name.isEmpty { event.calendar = name }
        for attendee in attendees.compactMap({ $0 as? Contact }) { event.addToAttendees(attendee) }
        return event
    }

    /// Reads a date typed for an event, as a usage error naming it when it is not one; to the
    /// whole second (iCalendar's precision): "in 2 hours" on the clock would carry its fraction
    /// of a second, and a repeating event's occurrences have none.
    func readParsedDate(_ text: String, with parser: DateParser) throws(PIMError) -> ParsedDate {
        do {
            var parsed = try parser.parse(text)
            parsed.date = Date(timeIntervalSinceReferenceDate: parsed.date.timeIntervalSinceReferenceDate.rounded(.down))
            return parsed
        } catch {
            throw PIMError.date(error)
        }
    }

    /// The stored end of an all-day event whose last day holds `end`: the start of the next day.
    /// An end with a time counts its day (the event covers it), unless it is the start of the
    /// day: an all-day event ending at midnight ends the day before.
    static func allDayEnd(_ end: Date, hasTime: Bool, with parser: DateParser) -> Date {
        hasTime && parser.startOfDay(end) == end ? end : parser.adding(days: 1, to: end)
    }
}

extension PIMStore {
    /// The rule of a `--repeat` value.
    static func rule(_ text: String) throws(PIMError) -> RecurrenceRule {
        do {
            return try RecurrenceRule(repeating: text)
        } catch {
            throw PIMError.recurrence(error)
        }
    }

    /// The RRULE text of a `--repeat` value.
    static func ruleText(_ text: String) throws(PIMError) -> String {
        try rule(text).description
    }
}

extension RecurrenceRule {
    /// Keeps `clock`, the time of day typed for `start`, as the occurrences' time when the start's
    /// day skips it: 02:30 on a spring-forward day starts at 03:30 (RFC 5545 3.3.5), but RFC 5545
    /// 3.3.10 takes the later occurrences' time from DTSTART's local time, 02:30, and pim keeps
    /// the start as an instant only. A rule that names its own time keeps it.
    mutating func keepTime(_ clock: DateComponents, of start: Date, in calendar: Calendar) {
        guard byHour == nil, byMinute == nil, bySecond == nil else { return }
        let actual = calendar.dateComponents([.hour, .minute, .second], from: start)
        guard actual.hour != clock.hour || actual.minute != clock.minute || actual.second != clock.second else { return }
        byHour = clock.hour
        byMinute = clock.minute
        if actual.second != clock.second { bySecond = clock.second }
    }
}

extension Event {
    /// Refuses a status other than tentative, confirmed or cancelled (RFC 5545's for events).
    static func checkStatus(_ text: String) throws(PIMError) {
        guard ["tentative", "confirmed", "cancelled"].contains(text) else {
            throw PIMError.usage("status \"\(text)\": expected tentative, confirmed or cancelled")
        }
    }
}
