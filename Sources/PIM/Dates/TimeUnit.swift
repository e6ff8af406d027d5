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

    /// Date components of `count` of this unit, the count held within ``limit``.
    func components(_ count: Int) -> DateComponents {
        let count = held(count)
        switch self {
        case .second: return DateComponents(second: count)
        case .minute: return DateComponents(minute: count)
        case .hour: return DateComponents(hour: count)
        case .day: return DateComponents(day: count)
        case .week: return DateComponents(day: 7 * count)
        case .month: return DateComponents(month: count)
        case .year: return DateComponents(year: count)
        }
    }

    /// How many of this unit make 10,000 years, more than all of pim's dates (years 1 to 9999).
    /// Amounts are held within it: any larger one is as far beyond every date, and is refused
    /// when added to one (`Calendar.pimDate(byAdding:to:)`), while sums of held
    /// amounts cannot overflow, nor reach `Int.max`, which `DateComponents` reads as no value.
    var limit: Int {
        switch self {
        case .second: 315_569_520_000
        case .minute: 5_259_492_000
        case .hour: 87_658_200
        case .day: 3_652_425
        case .week: 521_775
        case .month: 120_000
        case .year: 10_000
        }
    }

    /// `count` held within ``limit`` either way.
    func held(_ count: Int) -> Int { min(max(count, -limit), limit) }
}

extension DateComponents {
    /// The sum of two sets of components (the fields pim's units use), each field held within
    /// its unit's ``TimeUnit/limit``.
    func adding(_ other: DateComponents) -> DateComponents {
        func sum(_ a: Int?, _ b: Int?, _ unit: TimeUnit) -> Int { unit.held((a ?? 0) + (b ?? 0)) }
        return DateComponents(year: sum(year, other.year, .year), month: sum(month, other.month, .month),
                              day: sum(day, other.day, .day), hour: sum(hour, other.hour, .hour),
                              minute: sum(minute, other.minute, .minute), second: sum(second, other.second, .second))
    }

    /// The components with every field negated.
    var negated: DateComponents {
        DateComponents(year: year.map { -$0 }, month: month.map { -$0 }, day: day.map { -$0 },
                       hour: hour.map { -$0 }, minute: minute.map { -$0 }, second: second.map { -$0 })
    }
}
