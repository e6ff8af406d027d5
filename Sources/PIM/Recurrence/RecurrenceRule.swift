// RFC 5545 recurrence rules (RRULE), the subset pim reads and writes: FREQ (DAILY, WEEKLY,
// MONTHLY, YEARLY), INTERVAL, COUNT, UNTIL, BYDAY (with ordinals such as 2MO or -1FR), BYMONTHDAY,
// BYMONTH and WKST; and the friendly `--repeat` words mapped to rules.
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
    public var until: Date?
    public var byDay: [WeekdayNumber] = []
    public var byMonthDay: [Int] = []
    public var byMonth: [Int] = []
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
        for part in body.split(separator: ";") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { String($0).uppercased() }
            guard pieces.count == 2 else { throw RecurrenceRuleError(rule: text, part: String(part), reason: "expected NAME=VALUE") }
            let (name, value) = (pieces[0], pieces[1])
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
                guard let date = Self.untilDate(value) else { throw bad }
                rule.until = date
            case "BYDAY":
                rule.byDay = try value.split(separator: ",").map { code throws(RecurrenceRuleError) in
                    guard let day = Self.weekdayNumber(String(code)) else { throw bad }
                    return day
                }
            case "BYMONTHDAY":
                rule.byMonthDay = try Self.numbers(value, in: 1...31, allowingNegative: true, error: bad)
            case "BYMONTH":
                rule.byMonth = try Self.numbers(value, in: 1...12, allowingNegative: false, error: bad)
            case "WKST":
                guard let index = Self.dayCodes.firstIndex(of: value) else { throw bad }
                rule.weekStart = index + 1
            default:
                throw RecurrenceRuleError(rule: text, part: String(part), reason: "pim does not support \(name)")
            }
        }
        guard let frequency else { throw RecurrenceRuleError(rule: text, part: text, reason: "FREQ is missing") }
        if rule.count != nil, rule.until != nil {
            throw RecurrenceRuleError(rule: text, part: text, reason: "COUNT and UNTIL cannot both be given")
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
        if !byMonth.isEmpty { parts.append("BYMONTH=" + byMonth.map(String.init).joined(separator: ",")) }
        if !byMonthDay.isEmpty { parts.append("BYMONTHDAY=" + byMonthDay.map(String.init).joined(separator: ",")) }
        if !byDay.isEmpty {
            parts.append("BYDAY=" + byDay.map { ($0.ordinal.map(String.init) ?? "") + Self.dayCodes[$0.weekday - 1] }.joined(separator: ","))
        }
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
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        for format in ["yyyyMMdd'T'HHmmss'Z'", "yyyyMMdd'T'HHmmss"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return date }
        }
        formatter.dateFormat = "yyyyMMdd"
        return formatter.date(from: value).map { $0.addingTimeInterval(86_399) }
    }

    static func untilText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
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
