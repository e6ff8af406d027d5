// A time zone an iCalendar payload defines itself (VTIMEZONE), for TZIDs no zone database knows
// (Outlook's "Customized Time Zone", "(UTC+01:00) Amsterdam, Berlin..."): the offset in effect at
// a local time, from the STANDARD and DAYLIGHT observances' onsets (DTSTART, yearly RRULE by
// month and weekday or day, RDATE).
import Foundation

struct TimeZoneDefinition {
    /// One observance: from its onsets on, local time is UTC plus `offset`.
    struct Observance {
        var start: DateComponents
        var offset: Int
        var rule: [String: String]
        var extraOnsets: [DateComponents]
    }

    var observances: [Observance]

    init?(_ component: ContentComponent) {
        observances = component.components.compactMap { part -> Observance? in
            guard part.name == "STANDARD" || part.name == "DAYLIGHT", let start = part.property("DTSTART").flatMap({ Self.local($0.value) }),
                  let offset = part.property("TZOFFSETTO").flatMap({ Self.offset($0.value) }) else { return nil }
            var rule: [String: String] = [:]
            for pair in (part.property("RRULE")?.value ?? "").split(separator: ";") {
                let sides = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if sides.count == 2 { rule[sides[0].uppercased()] = sides[1] }
            }
            let extra = part.properties(named: "RDATE").flatMap { $0.value.split(separator: ",").compactMap { Self.local(String($0)) } }
            return Observance(start: start, offset: offset, rule: rule, extraOnsets: extra)
        }
        if observances.isEmpty { return nil }
    }

    /// The zone (a fixed offset) in effect at the local time `local`.
    func zone(at local: DateComponents) -> TimeZone? {
        guard let moment = Self.seconds(local), let year = local.year else { return nil }
        var best: (onset: Int, offset: Int)?
        var earliest: (onset: Int, offset: Int)?
        for observance in observances {
            for onset in onsets(of: observance, years: (year - 1)...year).compactMap(Self.seconds) {
                if earliest.map({ onset < $0.onset }) ?? true { earliest = (onset, observance.offset) }
                if onset <= moment, best.map({ onset > $0.onset }) ?? true { best = (onset, observance.offset) }
            }
        }
        return (best ?? earliest).flatMap { TimeZone(secondsFromGMT: $0.offset) }
    }

    private func onsets(of observance: Observance, years: ClosedRange<Int>) -> [DateComponents] {
        var found = [observance.start] + observance.extraOnsets
        guard observance.rule["FREQ"] == "YEARLY", let month = observance.rule["BYMONTH"].flatMap({ Int($0) }) else { return found }
        let until = observance.rule["UNTIL"].flatMap(Self.local).flatMap(Self.seconds)
        for year in years where year >= (observance.start.year ?? year) {
            var day: Int?
            if let byDay = observance.rule["BYDAY"] {
                day = Self.weekdayInMonth(byDay, year: year, month: month)
            } else if let monthDay = observance.rule["BYMONTHDAY"].flatMap({ Int($0) }) {
                day = monthDay
            }
            guard let day else { continue }
            let onset = DateComponents(year: year, month: month, day: day, hour: observance.start.hour, minute: observance.start.minute,
                                       second: observance.start.second)
            if let until, let seconds = Self.seconds(onset), seconds > until { continue }
            found.append(onset)
        }
        return found
    }

    /// The day of `BYDAY` (`-1SU`, `2SU`) in a month.
    static func weekdayInMonth(_ byDay: String, year: Int, month: Int) -> Int? {
        let codes = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
        guard let code = codes.firstIndex(of: String(byDay.suffix(2))) else { return nil }
        let ordinal = Int(byDay.dropLast(2)) ?? 1
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        guard let first = utc.date(from: DateComponents(year: year, month: month, day: 1)),
              let length = utc.range(of: .day, in: .month, for: first)?.count else { return nil }
        let firstWeekday = utc.component(.weekday, from: first) - 1
        let firstMatch = 1 + (code - firstWeekday + 7) % 7
        let matches = Array(stride(from: firstMatch, through: length, by: 7))
        if ordinal > 0 { return ordinal <= matches.count ? matches[ordinal - 1] : nil }
        return -ordinal <= matches.count ? matches[matches.count + ordinal] : nil
    }

    /// A local date-time of iCalendar's basic form (`19701025T030000`), or a date.
    static func local(_ text: String) -> DateComponents? {
        guard let parsed = FeedDateParser.parse(text.trimmingCharacters(in: .whitespaces), floatingIn: TimeZone(identifier: "UTC")!) else { return nil }
        var components = parsed.components
        if parsed.isDate { (components.hour, components.minute, components.second) = (0, 0, 0) }
        return components
    }

    /// `+0100`, `-0500`, `+053000` as seconds east of UTC.
    static func offset(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let sign = trimmed.first, sign == "+" || sign == "-" else { return nil }
        let digits = trimmed.dropFirst().filter(\.isNumber)
        guard digits.count >= 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.dropFirst(2).prefix(2)) else { return nil }
        let seconds = digits.count >= 6 ? Int(digits.dropFirst(4).prefix(2)) ?? 0 : 0
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60 + seconds)
    }

    /// Wall-clock seconds of local components, counted as if in UTC (for ordering only).
    static func seconds(_ components: DateComponents) -> Int? {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        return utc.date(from: components).map { Int($0.timeIntervalSince1970) }
    }
}
