// A field's value on its way out: typed so that JSON gets numbers, booleans, arrays and RFC 3339
// dates with offsets, and tables get the same value as short text.
import Foundation
import Synchronization

/// A value to print, as JSON or as table text.
public indirect enum OutputValue {
    case null
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    /// An instant; `dateOnly` shows (and writes) the day alone.
    case date(Date, dateOnly: Bool)
    /// A day that belongs to no time zone (a birthday): the same day wherever it is read.
    case day(Date)
    case array([OutputValue])
    /// A JSON object shown in tables as `text` (a linked record's name, `value (label)`).
    case object([String: OutputValue], text: String)
    /// An alarm: its iCalendar TRIGGER value in JSON (`-PT15M`, `20261201T080000Z`), `15m before`
    /// or a local date and time in tables (`when due` for a task's alarm at its due date).
    case alarm(Alarm, forTask: Bool)
    /// A task's annotations: objects with `entry` (an instant, or null) and `description` in JSON,
    /// as Taskwarrior exports them; one per line in tables (`2026-11-25 10:30 called back`).
    case annotations([Annotation])

    /// The value for JSONSerialization, dates as RFC 3339 with the offset of `timeZone`.
    public func jsonObject(timeZone: TimeZone) -> Any {
        switch self {
        case .null: NSNull()
        case .string(let value): value
        case .integer(let value): value
        case .double(let value): (value * 100).rounded() / 100
        case .bool(let value): value
        case let .date(value, dateOnly): OutputFormat.rfc3339(value, timeZone: timeZone, dateOnly: dateOnly)
        case .day(let value): OutputFormat.day(value)
        case .array(let values): values.map { $0.jsonObject(timeZone: timeZone) }
        case .object(let values, _): values.mapValues { $0.jsonObject(timeZone: timeZone) }
        case .alarm(let alarm, _): alarm.triggerText
        case .annotations(let annotations):
            annotations.map { annotation -> [String: Any] in
                ["entry": annotation.entry.map { OutputFormat.rfc3339($0, timeZone: timeZone) } ?? NSNull(), "description": annotation.text]
            }
        }
    }

    /// The value as a table cell.
    public func text(timeZone: TimeZone) -> String {
        switch self {
        case .null: ""
        case .string(let value): value
        case .integer(let value): String(value)
        case .double(let value): String(format: "%.1f", value)
        case .bool(let value): value ? "yes" : "no"
        case let .date(value, dateOnly): OutputFormat.local(value, timeZone: timeZone, dateOnly: dateOnly)
        case .day(let value): OutputFormat.day(value)
        case .array(let values): values.map { $0.text(timeZone: timeZone) }.joined(separator: ", ")
        case .object(_, let text): text
        case let .alarm(alarm, forTask): alarm.text(forTask: forTask, timeZone: timeZone)
        case .annotations(let annotations): annotations.map { $0.text(timeZone: timeZone) }.joined(separator: "\n")
        }
    }

    /// The value as one cell of a list's table: its text, with a task's annotations on one line
    /// apart by semicolons (`show` gives each a line of its own).
    public func cellText(timeZone: TimeZone) -> String {
        guard case .annotations(let annotations) = self else { return text(timeZone: timeZone) }
        return annotations.map { $0.text(timeZone: timeZone) }.joined(separator: "; ")
    }

    /// The value of an optional, or null.
    static func from<T>(_ value: T?, _ make: (T) -> OutputValue) -> OutputValue {
        value.map(make) ?? .null
    }
}

/// Date formats of pim's output.
public enum OutputFormat {
    /// `2026-11-25T17:00:00+01:00`, or `2026-11-25` for a day.
    public static func rfc3339(_ date: Date, timeZone: TimeZone, dateOnly: Bool = false) -> String {
        string(from: date, format: dateOnly ? "yyyy-MM-dd" : "yyyy-MM-dd'T'HH:mm:ssxxxxx", timeZone: timeZone)
    }

    /// `2026-11-25 17:00`, or `2026-11-25` for a day, in `timeZone`.
    public static func local(_ date: Date, timeZone: TimeZone, dateOnly: Bool = false) -> String {
        string(from: date, format: dateOnly ? "yyyy-MM-dd" : "yyyy-MM-dd HH:mm", timeZone: timeZone)
    }

    /// `Wed 2026-11-25 17:00`: how add and edit echo a resolved date.
    public static func echo(_ date: Date, timeZone: TimeZone, dateOnly: Bool = false) -> String {
        string(from: date, format: dateOnly ? "EEE yyyy-MM-dd" : "EEE yyyy-MM-dd HH:mm", timeZone: timeZone)
    }

    /// A day of no time zone, `2026-11-25` (`Wed 2026-11-25` with `weekday`). Such days are
    /// stored as midnight UTC (``PIMStore/readDay(_:)``); one stored as midnight in some zone, as
    /// older versions did, is read as the nearest midnight UTC, which is its day.
    public static func day(_ date: Date, weekday: Bool = false) -> String {
        let utc = TimeZone(secondsFromGMT: 0)!
        // A day without a year (a birthday whose year is not known, kept as 1604, as Apple's
        // address books keep it) as RFC 6350 writes one.
        if isYearless(date) { return string(from: nearestUTCMidnight(date), format: "--MM-dd", timeZone: utc) }
        return string(from: nearestUTCMidnight(date), format: weekday ? "EEE yyyy-MM-dd" : "yyyy-MM-dd", timeZone: utc)
    }

    /// The year pim keeps a day without a year in (a leap year, so that 29 February has one).
    public static let yearlessYear = 1604

    /// Whether `date` (a day kept as midnight UTC) is a day without a year: one of 1604 or before.
    public static func isYearless(_ date: Date) -> Bool {
        Calendar.utc.component(.year, from: nearestUTCMidnight(date)) <= yearlessYear
    }

    /// The midnight UTC nearest `date`.
    static func nearestUTCMidnight(_ date: Date) -> Date {
        // The reference date, 2001-01-01 00:00 UTC, is a midnight UTC.
        Date(timeIntervalSinceReferenceDate: ((date.timeIntervalSinceReferenceDate + 43_200) / 86_400).rounded(.down) * 86_400)
    }

    /// `date` written in `format` (fixed English names, Gregorian calendar) in `timeZone`.
    public static func string(from date: Date, format: String, timeZone: TimeZone) -> String {
        withFormatter(format, timeZone) { $0.string(from: date) }
    }

    /// The date `text` writes in `format` in `timeZone`, or nil when it does not.
    public static func date(from text: String, format: String, timeZone: TimeZone) -> Date? {
        withFormatter(format, timeZone) { $0.date(from: text) }
    }

    private struct FormatterKey: Hashable {
        let format: String
        let timeZone: TimeZone
    }

    /// Formatters by format and zone, made once each: making one (an ICU formatter behind it)
    /// cost more than writing a hundred dates, and a list writes several dates per record.
    private static let formatters = Mutex<[FormatterKey: DateFormatter]>([:])

    private static func withFormatter<Result>(_ format: String, _ timeZone: TimeZone, _ body: (DateFormatter) -> Result) -> Result {
        formatters.withLock { formatters in
            let key = FormatterKey(format: format, timeZone: timeZone)
            if let formatter = formatters[key] { return body(formatter) }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.timeZone = timeZone
            formatter.dateFormat = format
            formatters[key] = formatter
            return body(formatter)
        }
    }
}
