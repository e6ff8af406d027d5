// iCalendar TRIGGER values (RFC 5545 3.8.6.3), the `triggerlist` value type: a duration from the
// start (or the end) the alarm is related to, written back in one canonical form so the same alarm
// reads the same however a feed spells it (`-PT900S`, `-PT15M`), or a date and time as UTC.
import Foundation

/// A TRIGGER's duration: nominal days (weeks as seven) and exact seconds, before or after what
/// the alarm is related to.
///
/// ```swift
/// TriggerOffset("-P1DT2H")?.text            // "-P1DT2H"
/// TriggerOffset("-PT900S")?.text            // "-PT15M"
/// TriggerOffset("-PT1M")?.times(15).text    // "-PT15M" (GData's minutes="15")
/// ```
public struct TriggerOffset: Sendable, Equatable {
    public var before: Bool
    public var days: Int
    public var seconds: Int

    /// The duration `text` writes (`-PT15M`, `PT0S`, `+P1W`, `-P1DT2H`, any case); nil for anything
    /// else, fractions included (RFC 5545 durations count whole units).
    public init?(_ text: String) {
        var rest = Substring(text.trimmedBlanks.uppercased())
        var before = false
        if rest.first == "-" || rest.first == "+" {
            before = rest.first == "-"
            rest = rest.dropFirst()
        }
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var days = 0, seconds = 0, inTime = false, sawPart = false
        while !rest.isEmpty {
            if rest.first == "T" {
                guard !inTime else { return nil }
                inTime = true
                rest = rest.dropFirst()
                continue
            }
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            // Nine digits keep every sum far inside Int.
            guard !digits.isEmpty, digits.count <= 9, let count = Int(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let unit = rest.first else { return nil }
            rest = rest.dropFirst()
            switch (unit, inTime) {
            case ("W", false): days += 7 * count
            case ("D", false): days += count
            case ("H", true): seconds += 3600 * count
            case ("M", true): seconds += 60 * count
            case ("S", true): seconds += count
            default: return nil
            }
            sawPart = true
        }
        guard sawPart else { return nil }
        self.init(before: before, days: days, seconds: seconds)
    }

    public init(before: Bool, days: Int, seconds: Int) {
        // A zero offset has no side: -PT0S is PT0S.
        self.before = before && (days > 0 || seconds > 0)
        self.days = days
        self.seconds = seconds
    }

    /// `count` times this duration (a negative count turns its side).
    func times(_ count: Int) -> TriggerOffset {
        TriggerOffset(before: count < 0 ? !before : before, days: days * abs(count), seconds: seconds * abs(count))
    }

    /// The canonical text: weeks when it is whole weeks, else days then hours, minutes and
    /// seconds, each only when not zero (`-P1W`, `-P1DT2H`, `-PT15M`, `PT0S`).
    public var text: String {
        var text = before ? "-P" : "P"
        if seconds == 0, days > 0, days % 7 == 0 { return text + "\(days / 7)W" }
        if days > 0 { text += "\(days)D" }
        if seconds > 0 || days == 0 {
            text += "T"
            let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
            if hours > 0 { text += "\(hours)H" }
            if minutes > 0 { text += "\(minutes)M" }
            if rest > 0 || seconds == 0 { text += "\(rest)S" }
        }
        return text
    }
}

/// How the numbers of a `triggerlist` field are read as durations (its `unit`).
enum TriggerUnit: Sendable {
    /// Every number counts this duration (`-PT1M`: Exchange's minutes before the start).
    case each(TriggerOffset)
    /// The duration by the local name of the node the number is from (GData's `minutes`, `hours`,
    /// `days` attributes); the text of a node it does not name is read as a trigger itself.
    case byNodeName([String: TriggerOffset])
}
