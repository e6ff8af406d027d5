// Alarms of events and tasks (iCalendar's VALARM): when each goes off, relative to an event's
// start or a task's due date, or at a date and time of its own. A record keeps its alarms in its
// `alarms` attribute as iCalendar TRIGGER values, comma-separated (`-PT15M,-P1D,20261201T080000Z`);
// typed, shown and edited as `15m before`, `1d before`, `at the start`, `10m after` or a date.
import FeedImport
import Foundation

/// When an alarm goes off.
public enum Alarm: Hashable, Sendable {
    /// An offset from the event's start or the task's due date: `days` nominal days (a day across
    /// a clock change is still a day, RFC 5545 3.3.6) and `seconds` exact ones, both before the
    /// start or due date when `before`, after it otherwise.
    case relative(before: Bool, days: Int, seconds: Int)
    /// A date and time of its own.
    case absolute(Date)

    /// At the start (or when due).
    public static let atStart = Alarm.relative(before: false, days: 0, seconds: 0)

    /// Whether the alarm is an offset from the start or due date.
    public var isRelative: Bool {
        if case .relative = self { return true }
        return false
    }

    // MARK: iCalendar

    /// The TRIGGER value: a duration (`-PT15M`, `PT0S`, `-P1W`) or a UTC date-time
    /// (`20261201T080000Z`, which iCalendar marks VALUE=DATE-TIME).
    public var triggerText: String {
        switch self {
        case let .relative(before, days, seconds): TriggerOffset(before: before, days: days, seconds: seconds).text
        case .absolute(let date): FeedImporter.utcText(date)
        }
    }

    /// The alarm of a TRIGGER value (a duration, or a UTC date-time); nil for anything else.
    public init?(trigger text: String) {
        let value = text.trimmingCharacters(in: .whitespaces).uppercased()
        if let date = Self.utcDate(value) {
            self = .absolute(date)
        } else if let offset = TriggerOffset(value) {
            self = .relative(before: offset.before, days: offset.days, seconds: offset.seconds)
        } else {
            return nil
        }
    }

    /// `20261201T080000Z` as a date.
    static func utcDate(_ text: String) -> Date? {
        guard text.count == 16, text.hasSuffix("Z") else { return nil }
        let chars = Array(text)
        guard chars[8] == "T" else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(chars[range])) }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(9..<11),
              let minute = number(11..<13), let second = number(13..<15) else { return nil }
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard components.isValidDate(in: utc), let date = utc.date(from: components) else { return nil }
        return date
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    // MARK: Stored text

    /// The alarms of an `alarms` attribute (TRIGGER values, comma-separated), each once, in
    /// order; values that are not triggers are left out.
    public static func list(_ stored: String?) -> [Alarm] {
        var alarms: [Alarm] = []
        for item in (stored ?? "").split(separator: ",") {
            if let alarm = Alarm(trigger: String(item)), !alarms.contains(alarm) { alarms.append(alarm) }
        }
        return alarms
    }

    /// The `alarms` attribute of `alarms`: nil for none.
    public static func stored(_ alarms: [Alarm]) -> String? {
        alarms.isEmpty ? nil : alarms.map(\.triggerText).joined(separator: ",")
    }

    // MARK: When it goes off

    /// When the alarm goes off for an occurrence starting (or a task due) at `base`, days
    /// counted in `calendar`'s time zone; nil for a relative alarm with no base.
    public func date(from base: Date?, in calendar: Calendar) -> Date? {
        switch self {
        case .absolute(let date):
            return date
        case let .relative(before, days, seconds):
            guard let base else { return nil }
            let sign = before ? -1 : 1
            let shifted = days == 0 ? base : calendar.pimDate(byAdding: DateComponents(day: sign * days), to: base)
            return shifted.map { $0.addingTimeInterval(Double(sign * seconds)) }
        }
    }

    // MARK: As typed and shown

    /// The alarm as `--alarm` and the editor read it: `15m before`, `at the start` (`when due`
    /// for a task), `10m after`, or a date and time in `timeZone`.
    public func text(forTask: Bool = false, timeZone: TimeZone) -> String {
        switch self {
        case .absolute(let date):
            // To the second when it has seconds (a phone's alarm may): read back, it is the same.
            let whole = date.timeIntervalSinceReferenceDate.truncatingRemainder(dividingBy: 60) == 0
            return whole ? OutputFormat.local(date, timeZone: timeZone)
                : OutputFormat.string(from: date, format: "yyyy-MM-dd HH:mm:ss", timeZone: timeZone)
        case let .relative(before, days, seconds):
            if days == 0, seconds == 0 { return forTask ? "when due" : "at the start" }
            var parts = ""
            if days > 0 { parts += days % 7 == 0 ? "\(days / 7)w" : "\(days)d" }
            let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
            if hours > 0 { parts += "\(hours)h" }
            if minutes > 0 { parts += "\(minutes)m" }
            if rest > 0 { parts += "\(rest)s" }
            return parts + (before ? " before" : " after")
        }
    }
}

extension PIMStore {
    /// The alarm `text` names, as `--alarm` reads it: a duration before the start or due date
    /// (`15m`, `1h30m`, `2d`, `1w`, `PT15M`, optionally followed by `before`, or `-15m`), one
    /// after it (`10m after`, `+10m`), `0`, `at the start` or `when due`, or a date and time as
    /// `--due` reads them.
    public func readAlarm(_ text: String) throws(PIMError) -> Alarm {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lower = trimmed.lowercased()
        if ["0", "at start", "at the start", "start", "when due", "at due", "due"].contains(lower) { return .atStart }
        var words = lower.split(separator: " ").map(String.init)
        var before = true
        var said: String?
        if let last = words.last, last == "before" || last == "after" {
            before = last == "before"
            said = last
            words.removeLast()
        }
        var durationText = words.joined()
        // A sign says which side, as iCalendar's TRIGGER does: -15m before, +10m after. An
        // iCalendar duration without one is after, as a TRIGGER (and `--json`) writes it: PT10M.
        var sign: Character?
        if let first = durationText.first, first == "-" || first == "+",
           let next = durationText.dropFirst().first, next.isNumber || next == "p" {
            sign = first
            durationText.removeFirst()
        }
        if let sign {
            if let said, (sign == "-") != (said == "before") {
                throw PIMError.usage("alarm \"\(text)\": a \(sign == "-" ? "minus sign says before" : "plus sign says after"), not \(said)")
            }
            before = sign == "-"
        } else if said == nil, durationText.first == "p" {
            before = false
        }
        if !durationText.isEmpty, durationText.first?.isNumber == true || durationText.first == "p",
           let duration = try? PIMDuration(parsing: durationText) {
            let parts = duration.components
            if (parts.year ?? 0) != 0 || (parts.month ?? 0) != 0 {
                throw PIMError.usage("alarm \"\(text)\": months and years are not alarm offsets; give days or weeks (30d), or a date")
            }
            let days = parts.day ?? 0, seconds = (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)
            guard days <= 3650 else { throw PIMError.usage("alarm \"\(text)\": an alarm at most ten years (3650 days) from the start") }
            return .relative(before: before && (days > 0 || seconds > 0), days: days, seconds: seconds)
        }
        if words.count != lower.split(separator: " ").count {
            throw PIMError.usage("alarm \"\(text)\": expected a duration such as 15m or 1h30m before '\(before ? "before" : "after")'")
        }
        do {
            return .absolute(try readDate(trimmed, with: dateParser))
        } catch {
            throw PIMError.usage("alarm \"\(text)\": expected a duration before the start (15m, 1h, 2d), '10m after', 'at the start', or a date and time (2026-12-01 08:00)")
        }
    }

    /// The alarms of comma-separated `text` (`15m, 1h before, 2026-12-01 08:00`), each once.
    func readAlarms(_ text: String) throws(PIMError) -> [Alarm] {
        var alarms: [Alarm] = []
        for item in FormField.items(text) {
            let alarm = try readAlarm(item)
            if !alarms.contains(alarm) { alarms.append(alarm) }
        }
        return alarms
    }
}
