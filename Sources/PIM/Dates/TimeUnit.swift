// The units of relative dates and durations ("+2h", "in 3 days", "1h30m"), with every spelling
// pim accepts, mapped to the calendar component they add.
import Foundation

/// A unit of time as users type it.
enum TimeUnit: Sendable {
    case second, minute, hour, day, week, month, year

    /// The unit a word or abbreviation names (`m` and `min` are minutes, `mo` months).
    init?(word: String) {
        switch word.lowercased() {
        case "s", "sec", "secs", "second", "seconds": self = .second
        case "m", "min", "mins", "minute", "minutes": self = .minute
        case "h", "hr", "hrs", "hour", "hours": self = .hour
        case "d", "day", "days": self = .day
        case "w", "wk", "wks", "week", "weeks": self = .week
        case "mo", "mon", "month", "months": self = .month
        case "y", "yr", "yrs", "year", "years": self = .year
        default: return nil
        }
    }

    /// Date components of `count` of this unit.
    func components(_ count: Int) -> DateComponents {
        switch self {
        case .second: DateComponents(second: count)
        case .minute: DateComponents(minute: count)
        case .hour: DateComponents(hour: count)
        case .day: DateComponents(day: count)
        case .week: DateComponents(day: 7 * count)
        case .month: DateComponents(month: count)
        case .year: DateComponents(year: count)
        }
    }
}

extension DateComponents {
    /// The sum of two sets of components (the fields pim's units use).
    func adding(_ other: DateComponents) -> DateComponents {
        DateComponents(year: (year ?? 0) + (other.year ?? 0), month: (month ?? 0) + (other.month ?? 0),
                       day: (day ?? 0) + (other.day ?? 0), hour: (hour ?? 0) + (other.hour ?? 0),
                       minute: (minute ?? 0) + (other.minute ?? 0), second: (second ?? 0) + (other.second ?? 0))
    }

    /// The components with every field negated.
    var negated: DateComponents {
        DateComponents(year: year.map { -$0 }, month: month.map { -$0 }, day: day.map { -$0 },
                       hour: hour.map { -$0 }, minute: minute.map { -$0 }, second: second.map { -$0 })
    }
}
