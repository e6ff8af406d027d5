// Reading durations: "1h30m", "90m", "2d", "1w", "1 hour", "2 days", and ISO 8601's "PT1H30M" or
// "P1W". A duration is calendar components, so "1d" across a daylight-saving change stays a day.
import Foundation

/// A length of time as calendar components, added to a date with a calendar.
public struct PIMDuration: Sendable, Equatable, CustomStringConvertible {
    /// The components (years, months, days, hours, minutes, seconds).
    public var components: DateComponents

    public init(_ components: DateComponents) { self.components = components }

    /// `date` plus the duration in `calendar` (its time zone decides what a day is); nil when
    /// that is beyond the years pim's dates run over (1 to 9999).
    public func added(to date: Date, in calendar: Calendar) -> Date? {
        calendar.pimDate(byAdding: components, to: date)
    }

    /// The duration in compact form: `1d2h30m`.
    public var description: String {
        let parts: [(Int?, String)] = [(components.year, "y"), (components.month, "mo"), (components.day, "d"),
                                       (components.hour, "h"), (components.minute, "m"), (components.second, "s")]
        let text = parts.compactMap { value, unit in value.flatMap { $0 == 0 ? nil : "\($0)\(unit)" } }.joined()
        return text.isEmpty ? "0m" : text
    }

    /// Reads `text`: runs of a number and a unit (`1h30m`, `2 days`, `90 min`) or ISO 8601 (`PT45M`).
    public init(parsing text: String) throws(DateParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let iso = Self.iso8601(trimmed) {
            self.init(iso)
            return
        }
        guard let components = Self.unitRuns(trimmed.replacingOccurrences(of: " ", with: "")), !trimmed.isEmpty else {
            throw DateParseError(input: text, offending: text, reason: "expected a duration such as 1h30m, 90m, 2d or PT1H", kind: "duration")
        }
        self.init(components)
    }

    /// Components of `1h30m`-style text: one or more runs of digits followed by a unit word.
    static func unitRuns(_ text: String) -> DateComponents? {
        var total = DateComponents()
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard let count = Int(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            let word = rest.prefix { $0.isLetter }
            guard let unit = TimeUnit(word: String(word)) else { return nil }
            rest = rest.dropFirst(word.count)
            total = total.adding(unit.components(count))
        }
        return total
    }

    /// Components of an ISO 8601 duration (`P1DT2H`, `PT90M`, `P2W`).
    static func iso8601(_ text: String) -> DateComponents? {
        let upper = text.uppercased()
        guard upper.hasPrefix("P"), upper.count > 1 else { return nil }
        var total = DateComponents()
        var inTime = false
        var digits = ""
        var units = 0
        for character in upper.dropFirst() {
            if character == "T" { inTime = true; continue }
            if character.isNumber { digits.append(character); continue }
            guard let count = Int(digits) else { return nil }
            digits = ""
            let unit: TimeUnit
            switch (character, inTime) {
            case ("Y", false): unit = .year
            case ("M", false): unit = .month
            case ("W", false): unit = .week
            case ("D", false): unit = .day
            case ("H", true): unit = .hour
            case ("M", true): unit = .minute
            case ("S", true): unit = .second
            default: return nil
            }
            total = total.adding(unit.components(count))
            units += 1
        }
        return digits.isEmpty && units > 0 ? total : nil
    }
}
