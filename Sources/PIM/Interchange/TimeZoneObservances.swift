// The VTIMEZONE of a zone (RFC 5545 3.6.5), which an iCalendar object must carry for every TZID
// it names: the zone's clock changes from the earliest exported year, then a yearly rule taken
// from the last ones, kept only when it gives the zone's own next changes (else the changes are
// listed for decades ahead). Readers that know IANA names (Google, Apple, Thunderbird) use the
// TZID; the others read the offsets.
import Foundation

/// Writes a zone's definition as iCalendar's VTIMEZONE.
struct TimeZoneObservances {
    let zone: TimeZone

    /// How many years past the last listed change a zone without a yearly rule is listed for.
    static let listedYears = 30

    private struct Change {
        var instant: Date
        var offsetFrom: Int
        var offsetTo: Int
        var isDaylight: Bool
    }

    /// The VTIMEZONE, covering `earliest` and every time after it; its listing reaches past
    /// `now` (the export's own time, so that one store's export is the same text each time).
    func component(from earliest: Date, now: Date) -> ContentLines {
        var lines = ContentLines()
        lines.begin("VTIMEZONE")
        lines.add("TZID", value: zone.identifier)
        // From a year before: the change in force at `earliest` is listed.
        let scanStart = Self.startOfYear(holding: earliest).addingTimeInterval(-366 * 86_400)
        var changes: [Change] = []
        var cursor = scanStart
        // Every change up to the end of next year, then the yearly rule (or more years listed).
        let horizon = Self.startOfYear(holding: max(now, earliest)).addingTimeInterval(2 * 366 * 86_400)
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < horizon {
            changes.append(change(at: next))
            cursor = next
        }
        if changes.isEmpty {
            let offset = zone.secondsFromGMT(for: earliest)
            // From 1601, the Gregorian calendar's first whole century (Outlook's choice): before
            // any time an event has.
            observance(daylight: false, start: "16010101T000000", from: offset, to: offset, rule: nil, dates: [], into: &lines)
            lines.end("VTIMEZONE")
            return lines
        }
        var rules: [Bool: String] = [:]
        if changes.count >= 2 {
            for last in changes.suffix(2) { rules[last.isDaylight] = pattern(of: last) }
            if rules.count < 2 || !rulesHold(rules, after: cursor) { rules = [:] }
        }
        if rules.isEmpty {
            // No rule this zone keeps: list its changes far ahead.
            let far = horizon.addingTimeInterval(Double(Self.listedYears) * 365.25 * 86_400)
            while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < far {
                changes.append(change(at: next))
                cursor = next
            }
        }
        // A zone whose first change here comes after `earliest` (it began changing its clocks
        // since) names the offset in force before it.
        let first = changes[0]
        if earliest < first.instant {
            observance(daylight: false, start: localText(scanStart, offset: first.offsetFrom),
                       from: first.offsetFrom, to: first.offsetFrom, rule: nil, dates: [], into: &lines)
        }
        // The yearly rules start at the first change they give; the changes before (other
        // rules) are listed, alike ones (kind and offsets) sharing an observance, as RDATEs.
        var ruledFrom = changes.count
        if !rules.isEmpty {
            ruledFrom = changes.count - 2
            while ruledFrom > 0, rules[changes[ruledFrom - 1].isDaylight] == pattern(of: changes[ruledFrom - 1]) { ruledFrom -= 1 }
        }
        var groups: [(key: String, changes: [Change])] = []
        for change in changes[..<ruledFrom] {
            let key = "\(change.isDaylight) \(change.offsetFrom) \(change.offsetTo)"
            if let index = groups.firstIndex(where: { $0.key == key }) { groups[index].changes.append(change) } else { groups.append((key, [change])) }
        }
        for group in groups {
            let starts = group.changes.map { localText($0.instant, offset: $0.offsetFrom) }
            observance(daylight: group.changes[0].isDaylight, start: starts[0], from: group.changes[0].offsetFrom,
                       to: group.changes[0].offsetTo, rule: nil, dates: Array(starts.dropFirst()), into: &lines)
        }
        var ruledKinds: Set<Bool> = []
        for change in changes[ruledFrom...] where ruledKinds.insert(change.isDaylight).inserted {
            observance(daylight: change.isDaylight, start: localText(change.instant, offset: change.offsetFrom),
                       from: change.offsetFrom, to: change.offsetTo, rule: yearlyRule(for: change), dates: [], into: &lines)
        }
        lines.end("VTIMEZONE")
        return lines
    }

    private func change(at instant: Date) -> Change {
        Change(instant: instant, offsetFrom: zone.secondsFromGMT(for: instant.addingTimeInterval(-1)),
               offsetTo: zone.secondsFromGMT(for: instant), isDaylight: zone.isDaylightSavingTime(for: instant))
    }

    private func observance(daylight: Bool, start: String, from: Int, to: Int, rule: String?, dates: [String], into lines: inout ContentLines) {
        let name = daylight ? "DAYLIGHT" : "STANDARD"
        lines.begin(name)
        lines.add("DTSTART", value: start)
        if let rule { lines.add("RRULE", value: rule) }
        if !dates.isEmpty { lines.add("RDATE", value: dates.joined(separator: ",")) }
        lines.add("TZOFFSETFROM", value: Self.offsetText(from))
        lines.add("TZOFFSETTO", value: Self.offsetText(to))
        lines.end(name)
    }

    /// The yearly rule a change keeps: its month and its weekday's place in the month (`2SU`,
    /// or `-1SU` for the last), read on the clock before the change.
    private func yearlyRule(for change: Change) -> String {
        let parts = Self.utcCalendar.dateComponents([.month, .day, .weekday], from: change.instant.addingTimeInterval(Double(change.offsetFrom)))
        let month = parts.month ?? 1, day = parts.day ?? 1
        let length = Self.utcCalendar.range(of: .day, in: .month, for: change.instant.addingTimeInterval(Double(change.offsetFrom)))?.count ?? 31
        let place = day + 7 > length ? -1 : (day - 1) / 7 + 1
        let weekday = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"][(parts.weekday ?? 1) - 1]
        return "FREQ=YEARLY;BYMONTH=\(month);BYDAY=\(place)\(weekday)"
    }

    /// A change's yearly rule and local time of day: alike for every year a rule holds.
    private func pattern(of change: Change) -> String {
        yearlyRule(for: change) + "@" + localText(change.instant, offset: change.offsetFrom).suffix(6)
    }

    /// Whether `rules` (patterns by kind) give the zone's own changes for the ten years after
    /// `cursor`.
    private func rulesHold(_ rules: [Bool: String], after cursor: Date) -> Bool {
        var cursor = cursor
        for _ in 0..<20 {
            guard let next = zone.nextDaylightSavingTimeTransition(after: cursor) else { return false }
            let change = change(at: next)
            guard rules[change.isDaylight] == pattern(of: change) else { return false }
            cursor = next
        }
        return true
    }

    /// The local date and time of `instant` on a clock `offset` seconds from UTC:
    /// `20260329T020000`.
    private func localText(_ instant: Date, offset: Int) -> String {
        OutputFormat.string(from: instant.addingTimeInterval(Double(offset)), format: "yyyyMMdd'T'HHmmss", timeZone: TimeZone(secondsFromGMT: 0)!)
    }

    /// `+0100`, `-0430`, `+053000` (seconds only when there are some).
    static func offsetText(_ seconds: Int) -> String {
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        let magnitude = abs(seconds)
        let text = (seconds < 0 ? "-" : "+") + two(magnitude / 3600) + two(magnitude % 3600 / 60)
        return magnitude % 60 == 0 ? text : text + two(magnitude % 60)
    }

    private static func startOfYear(holding date: Date) -> Date {
        let year = utcCalendar.component(.year, from: date)
        return utcCalendar.date(from: DateComponents(year: year, month: 1, day: 1)) ?? date
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()
}
