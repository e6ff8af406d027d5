// Reading the dates people type: ISO 8601 ("2026-11-25", "2026-11-25T14:00+01:00"), named days
// ("today", "tomorrow 17:00", "fri 9am", "next friday"), relative times ("in 3 days", "+2h",
// "2 hours ago"), period boundaries ("eow", "som") and month names ("nov 25"). Everything is
// relative to an injected `now`, time zone and calendar; nothing reads the clock.
import Foundation

/// A date read from text, and whether the text gave a time of day (an all-day date when not).
public struct ParsedDate: Sendable, Equatable {
    /// The instant; midnight at the start of the day when no time was given.
    public var date: Date
    /// Whether the text named a time of day or an instant ("9am", "+2h", "now").
    public var hasTime: Bool

    public init(date: Date, hasTime: Bool) {
        self.date = date
        self.hasTime = hasTime
    }
}

/// Reads dates relative to a fixed `now` in a time zone.
///
/// ```swift
/// let parser = DateParser(now: Date(), timeZone: .current)
/// try parser.parse("tomorrow 17:00").date
/// try parser.parse("next friday")          // hasTime == false: midnight starting that day
/// ```
///
/// Named weekdays: `friday` is the coming Friday (never today); `next friday` is the Friday of
/// next week (weeks start on Monday). Period words: `eod`, `eow`, `eom`, `eoy` are the last second
/// of the current day, week, month, year; `sod`, `sow`, `som`, `soy` the first second of the next
/// one (as Taskwarrior reads them); `socw`, `socm`, `socy` the start of the current one.
public struct DateParser: Sendable {
    /// The instant relative words count from.
    public var now: Date
    /// The calendar (Gregorian, weeks from Monday) in the time zone dates are read in.
    public var calendar: Calendar

    public init(now: Date, timeZone: TimeZone) {
        self.now = now
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        calendar.locale = Locale(identifier: "en_US_POSIX")
        self.calendar = calendar
    }

    /// The instant `text` names.
    public func date(_ text: String) throws(DateParseError) -> Date {
        try parse(text).date
    }

    /// Reads `text`; throws naming the first word that is not part of a date.
    public func parse(_ text: String) throws(DateParseError) -> ParsedDate {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw DateParseError(input: text, offending: text, reason: "empty date")
        }
        if let iso = ISO8601Reader.instant(trimmed, calendar: calendar) { return iso }
        var reader = PhraseReader(input: text, tokens: Self.tokens(of: trimmed), parser: self)
        return try reader.read()
    }

    /// The words of `text`, lowercased, with filler words (`at`, `on`) dropped and `9 am` joined.
    static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        for word in text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init) {
            if word == "at" || word == "on" { continue }
            if (word == "am" || word == "pm"), let last = tokens.last, last.allSatisfy({ $0.isNumber || $0 == ":" }) {
                tokens[tokens.count - 1] = last + word
                continue
            }
            tokens.append(word)
        }
        return tokens
    }

    // MARK: Calendar helpers

    /// Midnight starting the day of `date`.
    func startOfDay(_ date: Date) -> Date { calendar.startOfDay(for: date) }

    /// `date` moved by `days` days, at the same wall-clock time.
    func adding(days: Int, to date: Date) -> Date {
        calendar.date(byAdding: .day, value: days, to: date) ?? date
    }

    /// Midnight starting the week (Monday) that holds `date`.
    func startOfWeek(_ date: Date) -> Date {
        let weekday = calendar.component(.weekday, from: date)
        return adding(days: -((weekday + 5) % 7), to: startOfDay(date))
    }

    /// Midnight starting the month that holds `date`.
    func startOfMonth(_ date: Date) -> Date {
        calendar.date(from: calendar.dateComponents([.year, .month], from: date)) ?? date
    }

    /// Midnight starting the year that holds `date`.
    func startOfYear(_ date: Date) -> Date {
        calendar.date(from: calendar.dateComponents([.year], from: date)) ?? date
    }
}
