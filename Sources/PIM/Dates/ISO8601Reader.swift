// ISO 8601 and RFC 3339 dates as a whole text: a date ("2026-11-25"), a local date and time
// ("2026-11-25T14:00", "2026-11-25 14:00:30"), or an instant with an offset ("...Z", "...+01:00").
import Foundation

/// Reads ISO 8601 dates; local forms are read in the calendar's time zone.
enum ISO8601Reader {
    /// The date `text` names, or nil if it is not ISO 8601.
    static func instant(_ text: String, calendar: Calendar) -> ParsedDate? {
        let pattern = #/(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?/#
        guard let match = text.uppercased().wholeMatch(of: pattern),
              let year = Int(match.1), let month = Int(match.2), let day = Int(match.3) else { return nil }
        var calendar = calendar
        if let offset = match.7 {
            guard let zone = timeZone(offset: String(offset)) else { return nil }
            calendar.timeZone = zone
        }
        let hour = match.4.flatMap { Int($0) }
        // The calendar would carry 10:60 over to 11:00: a field out of its range is no time.
        guard (hour ?? 0) <= 23, (match.5.flatMap { Int($0) } ?? 0) <= 59, (match.6.flatMap { Int($0) } ?? 0) <= 59 else { return nil }
        let components = DateComponents(year: year, month: month, day: day, hour: hour ?? 0,
                                        minute: match.5.flatMap { Int($0) } ?? 0, second: match.6.flatMap { Int($0) } ?? 0)
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month else { return nil }
        // With an offset it names an instant; without, a time of day in the calendar's zone.
        let clock = hour != nil && match.7 == nil ? DateComponents(hour: components.hour, minute: components.minute, second: components.second) : nil
        return ParsedDate(date: date, hasTime: hour != nil, clock: clock)
    }

    /// The date part alone (`2026-11-25`), as midnight starting that day.
    static func day(_ text: String, calendar: Calendar) -> Date? {
        guard text.count == 10, let parsed = instant(text, calendar: calendar), !parsed.hasTime else { return nil }
        return parsed.date
    }

    /// The fixed time zone of an offset: `Z`, `+01:00`, `-0530`.
    static func timeZone(offset: String) -> TimeZone? {
        if offset == "Z" { return TimeZone(secondsFromGMT: 0) }
        let sign = offset.hasPrefix("-") ? -1 : 1
        let digits = offset.dropFirst().filter(\.isNumber)
        guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)),
              hours < 24, minutes < 60 else { return nil }
        return TimeZone(secondsFromGMT: sign * (hours * 3600 + minutes * 60))
    }
}
