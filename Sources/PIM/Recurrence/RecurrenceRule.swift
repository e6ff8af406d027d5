// RFC 5545 recurrence rules (RRULE), the subset pim reads and writes: FREQ (DAILY, WEEKLY,
// MONTHLY, YEARLY), INTERVAL, COUNT, UNTIL, BYDAY (with ordinals such as 2MO or -1FR), BYMONTHDAY,
// BYMONTH, one time of day (BYHOUR, BYMINUTE, BYSECOND) and WKST; and the friendly `--repeat`
// words mapped to rules.
import Foundation

/// A recurrence rule: how an event repeats from its start.
///
/// ```swift
/// let rule = try RecurrenceRule("FREQ=MONTHLY;BYDAY=-1FR;COUNT=3")
/// rule.occurrences(from: start, in: window, calendar: calendar)
/// ```
public struct RecurrenceRule: Sendable, Equatable, CustomStringConvertible {
    /// How often the rule's periods come.
    public enum Frequency: String, Sendable, CaseIterable {
        case daily = "DAILY", weekly = "WEEKLY", monthly = "MONTHLY", yearly = "YEARLY"
    }

    /// A weekday, with an ordinal within the month or year for monthly and yearly rules (`-1FR`).
    public struct WeekdayNumber: Sendable, Equatable {
        /// 1 Sunday ... 7 Saturday, as `Calendar` numbers them.
        public var weekday: Int
        /// 1 the first, -1 the last...; nil every such weekday.
        public var ordinal: Int?

        public init(weekday: Int, ordinal: Int? = nil) {
            self.weekday = weekday
            self.ordinal = ordinal
        }
    }

    public var frequency: Frequency
    public var interval = 1
    public var count: Int?
    /// UNTIL as a UTC time (`19971224T000000Z`).
    public var until: Date?
    /// UNTIL written without a zone, as a date (`19971224`: its whole day) or a floating time
    /// (`19971224T090000`): read in the event's time zone when occurrences are made, as RFC 5545
    /// says (a date's day ends at the event's midnight, not UTC's).
    public var localUntil: LocalTime?

    /// A date, or a date and time, with no time zone.
    public struct LocalTime: Sendable, Equatable {
        public var year: Int, month: Int, day: Int
        /// Nil for a date alone.
        public var hour: Int?, minute: Int?, second: Int?

        /// The last instant it covers in `calendar`'s time zone: the time itself, or for a date
        /// the second before the next day begins (found by its date: a day after one without a
        /// midnight still starts at midnight).
        func last(in calendar: Calendar) -> Date? {
            if let hour {
                return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute ?? 0, second: second ?? 0))
            }
            return calendar.startOfDay(year: year, month: month, day: day + 1)?.addingTimeInterval(-1)
        }

        var text: String {
            let date = String(format: "%04d%02d%02d", year, month, day)
            guard let hour else { return date }
            return date + String(format: "T%02d%02d%02d", hour, minute ?? 0, second ?? 0)
        }
    }

    /// The rule's end in `calendar`'s time zone (the event's), from whichever UNTIL it has.
    func untilDate(in calendar: Calendar) -> Date? {
        until ?? localUntil?.last(in: calendar)
    }
    public var byDay: [WeekdayNumber] = []
    public var byMonthDay: [Int] = []
    public var byMonth: [Int] = []
    /// The occurrences' hour (BYHOUR), minute (BYMINUTE) and second (BYSECOND), one value each;
    /// those not given come from the start (RFC 5545 3.3.10). pim writes them for a start typed
    /// at a time its day skips (02:30 on a spring-forward day starts at 03:30): the later
    /// occurrences keep the time typed.
    public var byHour: Int?
    public var byMinute: Int?
    public var bySecond: Int?
    /// The first day of the week for weekly rules (1 Sunday ... 7 Saturday); Monday by default.
    public var weekStart = 2

    public init(frequency: Frequency) {
        self.frequency = frequency
    }

    static let dayCodes = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

    /// Reads RRULE text (`FREQ=WEEKLY;BYDAY=MO,WE`, with or without an `RRULE:` prefix); throws
    /// naming the part that is wrong.
    public init(_ text: String) throws(RecurrenceRuleError) {
        var body = text.trimmingCharacters(in: .whitespaces)
        if body.uppercased().hasPrefix("RRULE:") { body = String(body.dropFirst(6)) }
        var frequency: Frequency?
        var rule = RecurrenceRule(frequency: .daily)
        // The parts by name, as written, for the checks that involve several.
        var parts: [String: String] = [:]
        for part in body.split(separator: ";") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { String($0).uppercased() }
            guard pieces.count == 2 else { throw RecurrenceRuleError(rule: text, part: String(part), reason: "expected NAME=VALUE") }
            let (name, value) = (pieces[0], pieces[1])
            // RFC 5545 3.3.10: "Individual rule parts MUST only be specified once."
            guard parts.updateValue(String(part), forKey: name) == nil else {
                throw RecurrenceRuleError(rule: text, part: String(part), reason: "\(name) is given twice")
            }
            let bad = RecurrenceRuleError(rule: text, part: String(part), reason: "invalid value")
            switch name {
            case "FREQ":
                guard let parsed = Frequency(rawValue: value) else {
                    throw RecurrenceRuleError(rule: text, part: String(part), reason: "pim repeats DAILY, WEEKLY, MONTHLY or YEARLY")
                }
                frequency = parsed
            case "INTERVAL":
                guard let number = Int(value), number > 0 else { throw bad }
                rule.interval = number
            case "COUNT":
                guard let number = Int(value), number > 0 else { throw bad }
                rule.count = number
            case "UNTIL":
                if value.hasSuffix("Z") {
                    guard let date = Self.untilDate(value) else { throw bad }
                    rule.until = date
                } else {
                    guard let local = Self.localTime(value) else { throw bad }
                    rule.localUntil = local
                }
            case "BYDAY":
                rule.byDay = try value.split(separator: ",").map { code throws(RecurrenceRuleError) in
                    guard let day = Self.weekdayNumber(String(code)) else { throw bad }
                    return day
                }
            case "BYMONTHDAY":
                rule.byMonthDay = try Self.numbers(value, in: 1...31, allowingNegative: true, error: bad)
            case "BYMONTH":
                rule.byMonth = try Self.numbers(value, in: 1...12, allowingNegative: false, error: bad)
            case "BYHOUR", "BYMINUTE", "BYSECOND":
                let range = name == "BYHOUR" ? 0...23 : name == "BYMINUTE" ? 0...59 : 0...60
                guard let number = Int(value), range.contains(number) else {
                    throw RecurrenceRuleError(rule: text, part: String(part), reason: "pim takes one value from \(range.lowerBound) to \(range.upperBound)")
                }
                switch name {
                case "BYHOUR": rule.byHour = number
                case "BYMINUTE": rule.byMinute = number
                default: rule.bySecond = number
                }
            case "WKST":
                guard let index = Self.dayCodes.firstIndex(of: value) else { throw bad }
                rule.weekStart = index + 1
            default:
                throw RecurrenceRuleError(rule: text, part: String(part), reason: "pim does not support \(name)")
            }
        }
        guard let frequency else { throw RecurrenceRuleError(rule: text, part: text, reason: "FREQ is missing") }
        if rule.count != nil, rule.until != nil || rule.localUntil != nil {
            throw RecurrenceRuleError(rule: text, part: text, reason: "COUNT and UNTIL cannot both be given")
        }
        // RFC 5545 3.3.10: a numbered BYDAY only with MONTHLY or YEARLY; BYMONTHDAY not with
        // WEEKLY. Dropping the part would repeat the event on other days than the rule says.
        if frequency == .daily || frequency == .weekly, rule.byDay.contains(where: { $0.ordinal != nil }), let part = parts["BYDAY"] {
            throw RecurrenceRuleError(rule: text, part: part, reason: "a numbered weekday (2MO, -1FR) needs FREQ=MONTHLY or YEARLY")
        }
        if frequency == .weekly, let part = parts["BYMONTHDAY"] {
            throw RecurrenceRuleError(rule: text, part: part, reason: "BYMONTHDAY cannot be used with FREQ=WEEKLY")
        }
        rule.frequency = frequency
        self = rule
    }

    /// The rule a `--repeat` word names (`daily`, `weekly`, `monthly`, `yearly`, `weekdays`,
    /// `weekends`, `biweekly`), or RRULE text itself.
    public init(repeating word: String) throws(RecurrenceRuleError) {
        switch word.lowercased() {
        case "daily": self.init(frequency: .daily)
        case "weekly": self.init(frequency: .weekly)
        case "biweekly", "fortnightly":
            self.init(frequency: .weekly)
            interval = 2
        case "monthly": self.init(frequency: .monthly)
        case "yearly", "annually": self.init(frequency: .yearly)
        case "weekdays":
            self.init(frequency: .weekly)
            byDay = (2...6).map { WeekdayNumber(weekday: $0) }
        case "weekends":
            self.init(frequency: .weekly)
            byDay = [7, 1].map { WeekdayNumber(weekday: $0) }
        default:
            guard word.uppercased().contains("FREQ=") else {
                throw RecurrenceRuleError(rule: word, part: word,
                                          reason: "expected daily, weekly, biweekly, monthly, yearly, weekdays, weekends or an RRULE such as FREQ=WEEKLY;BYDAY=MO")
            }
            try self.init(word)
        }
    }

    /// The rule as RRULE text, in RFC 5545's usual order.
    public var description: String {
        var parts = ["FREQ=\(frequency.rawValue)"]
        if interval != 1 { parts.append("INTERVAL=\(interval)") }
        if let count { parts.append("COUNT=\(count)") }
        if let until { parts.append("UNTIL=\(Self.untilText(until))") }
        if let localUntil { parts.append("UNTIL=\(localUntil.text)") }
        if !byMonth.isEmpty { parts.append("BYMONTH=" + byMonth.map(String.init).joined(separator: ",")) }
        if !byMonthDay.isEmpty { parts.append("BYMONTHDAY=" + byMonthDay.map(String.init).joined(separator: ",")) }
        if !byDay.isEmpty {
            parts.append("BYDAY=" + byDay.map { ($0.ordinal.map(String.init) ?? "") + Self.dayCodes[$0.weekday - 1] }.joined(separator: ","))
        }
        if let byHour { parts.append("BYHOUR=\(byHour)") }
        if let byMinute { parts.append("BYMINUTE=\(byMinute)") }
        if let bySecond { parts.append("BYSECOND=\(bySecond)") }
        if weekStart != 2 { parts.append("WKST=\(Self.dayCodes[weekStart - 1])") }
        return parts.joined(separator: ";")
    }

    // MARK: Reading values

    static func weekdayNumber(_ code: String) -> WeekdayNumber? {
        let letters = String(code.suffix(2))
        guard let index = dayCodes.firstIndex(of: letters) else { return nil }
        let prefix = code.dropLast(2)
        guard !prefix.isEmpty else { return WeekdayNumber(weekday: index + 1) }
        guard let ordinal = Int(prefix.hasPrefix("+") ? prefix.dropFirst() : prefix), ordinal != 0, abs(ordinal) <= 53 else { return nil }
        return WeekdayNumber(weekday: index + 1, ordinal: ordinal)
    }

    static func numbers(_ value: String, in range: ClosedRange<Int>, allowingNegative: Bool,
                        error: RecurrenceRuleError) throws(RecurrenceRuleError) -> [Int] {
        try value.split(separator: ",").map { text throws(RecurrenceRuleError) in
            guard let number = Int(text), range.contains(abs(number)), number > 0 || allowingNegative else { throw error }
            return number
        }
    }

    /// UNTIL as RFC 5545 writes it: `19971224T000000Z`, or a date `19971224` (its end, in UTC).
    static func untilDate(_ value: String) -> Date? {
        let utc = TimeZone(secondsFromGMT: 0)!
        for format in ["yyyyMMdd'T'HHmmss'Z'", "yyyyMMdd'T'HHmmss"] {
            if let date = OutputFormat.date(from: value, format: format, timeZone: utc) { return date }
        }
        return OutputFormat.date(from: value, format: "yyyyMMdd", timeZone: utc).map { $0.addingTimeInterval(86_399) }
    }

    /// A date (`19971224`) or floating date and time (`19971224T090000`), checked as a calendar
    /// date and a time of day.
    static func localTime(_ value: String) -> LocalTime? {
        guard let match = value.wholeMatch(of: #/(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2}))?/#),
              let year = Int(match.1), let month = Int(match.2), let day = Int(match.3) else { return nil }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0)!
        guard let date = utc.date(from: DateComponents(year: year, month: month, day: day)),
              utc.component(.day, from: date) == day, utc.component(.month, from: date) == month else { return nil }
        var local = LocalTime(year: year, month: month, day: day)
        if let hour = match.4.flatMap({ Int($0) }), let minute = match.5.flatMap({ Int($0) }), let second = match.6.flatMap({ Int($0) }) {
            guard hour <= 23, minute <= 59, second <= 60 else { return nil }
            (local.hour, local.minute, local.second) = (hour, minute, second)
        }
        return local
    }

    static func untilText(_ date: Date) -> String {
        OutputFormat.string(from: date, format: "yyyyMMdd'T'HHmmss'Z'", timeZone: TimeZone(secondsFromGMT: 0)!)
    }
}

/// A recurrence rule pim cannot read, naming the part at fault.
public struct RecurrenceRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    public let rule: String
    public let part: String
    public let reason: String

    public var description: String {
        part == rule ? "repeat: \"\(rule)\": \(reason)" : "repeat: \"\(part)\" in \"\(rule)\": \(reason)"
    }
}
