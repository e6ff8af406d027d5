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
    /// The time of day the text named (hour, minute, second), as typed; nil for a day alone or
    /// an instant ("now", "+2h"). On a day whose clock skips it (02:30 on a spring-forward day)
    /// the instant is later (03:30, RFC 5545 3.3.5), but a repeating event takes the time of its
    /// later occurrences from this one (RFC 5545 3.3.10).
    public var clock: DateComponents?

    public init(date: Date, hasTime: Bool, clock: DateComponents? = nil) {
        self.date = date
        self.hasTime = hasTime
        self.clock = clock
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
        let parsed: ParsedDate
        if let iso = ISO8601Reader.instant(trimmed, calendar: calendar) {
            parsed = iso
        } else {
            var reader = PhraseReader(input: text, tokens: Self.tokens(of: trimmed), parser: self)
            parsed = try reader.read()
        }
        guard calendar.isPIMDate(parsed.date) else { throw Self.outOfRange(text) }
        return parsed
    }

    /// The error of a date beyond the years pim writes.
    static func outOfRange(_ text: String) -> DateParseError {
        DateParseError(input: text, offending: text, reason: "beyond the years pim's dates run over (1 to 9999)")
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
    //
    // Days are found by their calendar date, never by adding days to an instant: adding keeps
    // the time of day, and the start of a day whose clock skips midnight (Chile springs forward
    // at 00:00, so such a day starts at 01:00) would move to 01:00 of the next day, an hour late.

    /// The first instant of the day of `date`: midnight, or the day's later start.
    func startOfDay(_ date: Date) -> Date { calendar.startOfDay(for: date) }

    /// The start of the day `days` days after the one holding `date` (before it when negative);
    /// `date` itself when there is no such day.
    func adding(days: Int, to date: Date) -> Date {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return date }
        return calendar.startOfDay(year: year, month: month, day: day + TimeUnit.day.held(days)) ?? date
    }

    /// The start of the week (Monday) that holds `date`.
    func startOfWeek(_ date: Date) -> Date {
        let weekday = calendar.component(.weekday, from: date)
        return adding(days: -((weekday + 5) % 7), to: date)
    }

    /// The start of the month that holds `date`, or of the month `months` months after it.
    func startOfMonth(_ date: Date, plus months: Int = 0) -> Date {
        let parts = calendar.dateComponents([.year, .month], from: date)
        guard let year = parts.year, let month = parts.month else { return date }
        return calendar.startOfDay(year: year, month: month + TimeUnit.month.held(months), day: 1) ?? date
    }

    /// The start of the day with the date of `date` `years` years on (29 February: 1 March in a
    /// year without it).
    func startOfYear(_ date: Date, sameDayPlus years: Int) -> Date {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return date }
        return calendar.startOfDay(year: year + TimeUnit.year.held(years), month: month, day: day) ?? date
    }

    /// The start of the year that holds `date`, or of the year `years` years after it.
    func startOfYear(_ date: Date, plus years: Int = 0) -> Date {
        guard let year = calendar.dateComponents([.year], from: date).year else { return date }
        return calendar.startOfDay(year: year + TimeUnit.year.held(years), month: 1, day: 1) ?? date
    }
}

extension Calendar {
    /// The years pim's dates fall in: ISO 8601 and RFC 3339, which pim writes, have four-digit
    /// years, and the date formatter writes nothing at all for some dates past them.
    static let pimYears = 1...9999

    /// Whether `date` falls in ``pimYears`` (of the common era) in this calendar.
    func isPIMDate(_ date: Date) -> Bool {
        let parts = dateComponents([.era, .year], from: date)
        return parts.era == 1 && parts.year.map(Self.pimYears.contains) == true
    }

    /// `date` plus `components`, or nil when the sum is no date pim can write. Foundation wraps
    /// or clamps a sum past the dates it can represent (a quintillion days added to a date gives
    /// that date back), so an amount longer than all of pim's years is refused before adding.
    func pimDate(byAdding components: DateComponents, to date: Date) -> Date? {
        let seconds: [(Int?, Double)] = [(components.year, 31_556_952), (components.month, 2_629_746), (components.day, 86_400),
                                         (components.hour, 3_600), (components.minute, 60), (components.second, 1)]
        let length = seconds.reduce(0) { total, part in total + Double(part.0 ?? 0).magnitude * part.1 }
        guard length <= Double(Self.pimYears.count) * 31_556_952,
              let sum = self.date(byAdding: components, to: date), isPIMDate(sum) else { return nil }
        return sum
    }

    /// The first instant of the day `year`-`month`-`day` in this calendar's time zone: midnight,
    /// or the day's later start when its clock skips midnight. Fields may run over (`day: 32`
    /// is a day of the next month), so a day some days from another is found by its date.
    func startOfDay(year: Int, month: Int, day: Int) -> Date? {
        // Noon is clear of the clock changes, which come at night.
        date(from: DateComponents(year: year, month: month, day: day, hour: 12)).map { startOfDay(for: $0) }
    }

    /// Midnight UTC starting the day that holds `date` in this calendar's time zone: the day as
    /// a day of no time zone, as pim keeps birthdays (``OutputFormat/day(_:weekday:)`` prints it).
    func midnightUTC(ofDayHolding date: Date) -> Date {
        let parts = dateComponents([.year, .month, .day], from: date)
        return Self.utc.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day)) ?? date
    }

    /// The first instant, in this calendar's time zone, of the day that `day` (midnight UTC
    /// starting it) names.
    func startOfDay(named day: Date) -> Date? {
        let parts = Self.utc.dateComponents([.year, .month, .day], from: day)
        guard let year = parts.year, let month = parts.month, let number = parts.day else { return nil }
        return startOfDay(year: year, month: month, day: number)
    }

    /// The Gregorian calendar in UTC, where days of no time zone are counted: each has 24 hours.
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()
}
