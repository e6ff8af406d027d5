// The word-by-word reader behind DateParser: each word sets a day, a time of day or an instant,
// each at most once; then they combine ("fri" + "9am"). A word that fits nowhere is the error.
import Foundation

/// Reads the words of one date phrase.
struct PhraseReader {
    let input: String
    let tokens: [String]
    let parser: DateParser
    private var index = 0
    private var day: Date?
    private var time: DateComponents?
    private var instant: Date?
    /// A relative amount of whole days or more ("in 3 days"): a day if a time is given, else an instant.
    private var pendingOffset: DateComponents?

    init(input: String, tokens: [String], parser: DateParser) {
        self.input = input
        self.tokens = tokens
        self.parser = parser
    }

    static let weekdays: [String: Int] = [
        "sunday": 1, "sun": 1, "monday": 2, "mon": 2, "tuesday": 3, "tue": 3, "tues": 3,
        "wednesday": 4, "wed": 4, "thursday": 5, "thu": 5, "thur": 5, "thurs": 5,
        "friday": 6, "fri": 6, "saturday": 7, "sat": 7,
    ]

    static let months: [String: Int] = [
        "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
        "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
        "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
        "december": 12, "dec": 12,
    ]

    mutating func read() throws(DateParseError) -> ParsedDate {
        while index < tokens.count {
            try readWord()
        }
        if let offset = pendingOffset {
            pendingOffset = nil
            if time != nil {
                try setDay(moved(parser.startOfDay(parser.now), by: offset), word: tokens.joined(separator: " "))
            } else {
                try setInstant(moved(parser.now, by: offset), word: tokens.joined(separator: " "))
            }
        }
        if let instant {
            if time != nil || day != nil {
                throw DateParseError(input: input, offending: input, reason: "an instant (now, +2h, eow) cannot take another day or time")
            }
            return ParsedDate(date: instant, hasTime: true)
        }
        let base = day ?? parser.startOfDay(parser.now)
        guard let time else { return ParsedDate(date: base, hasTime: false) }
        let components = parser.calendar.dateComponents([.year, .month, .day], from: base)
        var full = components
        full.hour = time.hour
        full.minute = time.minute
        full.second = time.second
        guard let date = parser.calendar.date(from: full) else {
            throw DateParseError(input: input, offending: input, reason: "no such time on that day")
        }
        return ParsedDate(date: date, hasTime: true, clock: time)
    }

    private mutating func readWord() throws(DateParseError) {
        let word = tokens[index]
        index += 1
        let now = parser.now
        let today = parser.startOfDay(now)
        switch word {
        case "now": try setInstant(now, word: word)
        case "today": try setDay(today, word: word)
        case "tomorrow", "tmr", "tmrw": try setDay(parser.adding(days: 1, to: today), word: word)
        case "yesterday": try setDay(parser.adding(days: -1, to: today), word: word)
        case "tonight": try setDay(today, word: word); try setTime(DateComponents(hour: 20, minute: 0, second: 0), word: word)
        case "noon", "midday": try setTime(DateComponents(hour: 12, minute: 0, second: 0), word: word)
        case "midnight": try setTime(DateComponents(hour: 0, minute: 0, second: 0), word: word)
        case "next", "this": try readQualified(word)
        case "in": try readIn()
        default:
            if let weekday = Self.weekdays[word] {
                try setDay(comingWeekday(weekday), word: word)
            } else if let month = Self.months[word] {
                try readMonthDay(month: month, dayFirst: nil, word: word)
            } else if let boundary = boundary(word) {
                try setInstant(boundary, word: word)
            } else if let day = ISO8601Reader.day(word, calendar: parser.calendar) {
                try setDay(day, word: word)
            } else if let time = Self.timeOfDay(word) {
                try setTime(time, word: word)
            } else if word.first == "+" || word.first == "-", let offset = relativeAmount(String(word.dropFirst())) {
                try setOffset(word.first == "-" ? offset.negated : offset, word: word)
            } else if index < tokens.count, tokens[index] == "ago", let offset = relativeAmount(word) {
                index += 1
                try setOffset(offset.negated, word: word + " ago")
            } else if let count = Int(Self.strippingOrdinal(word)) {
                try readNumber(count, word: word)
            } else {
                throw DateParseError(input: input, offending: word, reason: "not a date, time or duration word")
            }
        }
    }

    /// `next friday`, `next week`, `this friday`.
    private mutating func readQualified(_ qualifier: String) throws(DateParseError) {
        guard index < tokens.count else {
            throw DateParseError(input: input, offending: qualifier, reason: "expected a weekday, week, month or year after it")
        }
        let word = tokens[index]
        index += 1
        let phrase = "\(qualifier) \(word)"
        let now = parser.now
        if let weekday = Self.weekdays[word] {
            if qualifier == "this" {
                try setDay(parser.adding(days: (weekday + 5) % 7, to: parser.startOfWeek(now)), word: phrase)
            } else {
                let nextWeek = parser.adding(days: 7, to: parser.startOfWeek(now))
                try setDay(parser.adding(days: (weekday + 5) % 7, to: nextWeek), word: phrase)
            }
            return
        }
        let start: Date?
        switch (qualifier, word) {
        case ("next", "week"): start = parser.adding(days: 7, to: parser.startOfWeek(now))
        case ("next", "month"): start = parser.startOfMonth(now, plus: 1)
        case ("next", "year"): start = parser.startOfYear(now, plus: 1)
        case ("this", "week"): start = parser.startOfWeek(now)
        case ("this", "month"): start = parser.startOfMonth(now)
        case ("this", "year"): start = parser.startOfYear(now)
        default: start = nil
        }
        guard let start else {
            throw DateParseError(input: input, offending: phrase, reason: "expected a weekday, week, month or year after \"\(qualifier)\"")
        }
        try setDay(start, word: phrase)
    }

    /// `in 3 days`, `in 2h`, `in 1h30m`.
    private mutating func readIn() throws(DateParseError) {
        guard index < tokens.count else {
            throw DateParseError(input: input, offending: "in", reason: "expected an amount after it, as in \"in 3 days\"")
        }
        var phrase = tokens[index]
        index += 1
        if Int(phrase) != nil, index < tokens.count {
            phrase += tokens[index]
            index += 1
        }
        guard let offset = relativeAmount(phrase) else {
            throw DateParseError(input: input, offending: "in " + phrase, reason: "expected an amount such as \"3 days\" or \"2h\"")
        }
        try setOffset(offset, word: "in " + phrase)
    }

    /// A number: `3 days ago`, `25 nov [2026]`, or a day of the month after a month name.
    private mutating func readNumber(_ count: Int, word: String) throws(DateParseError) {
        if index < tokens.count, let month = Self.months[tokens[index]] {
            index += 1
            try readMonthDay(month: month, dayFirst: count, word: word)
            return
        }
        if index + 1 < tokens.count, tokens[index + 1] == "ago", let unit = TimeUnit(word: tokens[index]) {
            index += 2
            try setOffset(unit.components(-count), word: "\(word) \(tokens[index - 2]) ago")
            return
        }
        throw DateParseError(input: input, offending: word, reason: "a number needs a unit or a month (\"3 days ago\", \"25 nov\")")
    }

    /// `nov 25`, `nov 25 2026`, `25 nov`, `25 nov 2026`: the coming such day when no year is given.
    private mutating func readMonthDay(month: Int, dayFirst: Int?, word: String) throws(DateParseError) {
        var dayOfMonth = dayFirst
        if dayOfMonth == nil {
            guard index < tokens.count, let number = Int(Self.strippingOrdinal(tokens[index])) else {
                throw DateParseError(input: input, offending: word, reason: "expected a day of the month with it")
            }
            dayOfMonth = number
            index += 1
        }
        var year: Int?
        if index < tokens.count, tokens[index].count == 4, let number = Int(tokens[index]) {
            year = number
            index += 1
        }
        let calendar = parser.calendar
        let today = parser.startOfDay(parser.now)
        let thisYear = calendar.component(.year, from: today)
        func make(_ year: Int) -> Date? {
            guard let dayOfMonth, let date = calendar.startOfDay(year: year, month: month, day: dayOfMonth),
                  calendar.component(.day, from: date) == dayOfMonth else { return nil }
            return date
        }
        if let year {
            guard let date = make(year) else { throw DateParseError(input: input, offending: word, reason: "no such day in that month") }
            try setDay(date, word: word)
            return
        }
        // Without a year: the coming such day, which for February 29 may be up to four years on.
        for ahead in 0...8 {
            if let date = make(thisYear + ahead), date >= today {
                try setDay(date, word: word)
                return
            }
        }
        throw DateParseError(input: input, offending: word, reason: "no such day in that month")
    }

    // MARK: Word meanings

    /// The coming day named `weekday` (1 Sunday ... 7 Saturday), one to seven days ahead.
    private func comingWeekday(_ weekday: Int) -> Date {
        let today = parser.startOfDay(parser.now)
        let current = parser.calendar.component(.weekday, from: today)
        let ahead = (weekday - current + 7) % 7
        return parser.adding(days: ahead == 0 ? 7 : ahead, to: today)
    }

    /// The instant a period word names (`eow`, `som`...), or nil for another word.
    private func boundary(_ word: String) -> Date? {
        let now = parser.now
        let nextDay = parser.adding(days: 1, to: now)
        let nextWeek = parser.adding(days: 7, to: parser.startOfWeek(now))
        let nextMonth = parser.startOfMonth(now, plus: 1)
        let nextYear = parser.startOfYear(now, plus: 1)
        switch word {
        case "eod": return nextDay.addingTimeInterval(-1)
        case "eow", "eoww": return nextWeek.addingTimeInterval(-1)
        case "eom": return nextMonth.addingTimeInterval(-1)
        case "eoy": return nextYear.addingTimeInterval(-1)
        case "sod": return nextDay
        case "sow", "soww": return nextWeek
        case "som": return nextMonth
        case "soy": return nextYear
        case "socd": return parser.startOfDay(now)
        case "socw": return parser.startOfWeek(now)
        case "socm": return parser.startOfMonth(now)
        case "socy": return parser.startOfYear(now)
        default: return nil
        }
    }

    /// A time of day: `17:00`, `17:00:30`, `9am`, `9:30pm`, `12am` (midnight).
    static func timeOfDay(_ word: String) -> DateComponents? {
        guard let match = word.wholeMatch(of: #/(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?(am|pm|a|p)?/#),
              var hour = Int(match.1) else { return nil }
        let minute = match.2.flatMap { Int($0) } ?? 0
        let second = match.3.flatMap { Int($0) } ?? 0
        if let suffix = match.4 {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (suffix.hasPrefix("p") ? 12 : 0)
        } else if match.2 == nil {
            return nil
        }
        guard hour < 24, minute < 60, second < 60 else { return nil }
        return DateComponents(hour: hour, minute: minute, second: second)
    }

    /// `25th` as `25`.
    static func strippingOrdinal(_ word: String) -> String {
        for suffix in ["st", "nd", "rd", "th"] where word.hasSuffix(suffix) && word.count > 2 {
            return String(word.dropLast(2))
        }
        return word
    }

    // MARK: Setting each part once

    private mutating func setDay(_ date: Date?, word: String) throws(DateParseError) {
        guard let date else { throw DateParseError(input: input, offending: word, reason: "no such day") }
        guard day == nil, instant == nil, pendingOffset == nil else {
            throw DateParseError(input: input, offending: word, reason: "a second day in one date")
        }
        day = date
    }

    private mutating func setTime(_ components: DateComponents, word: String) throws(DateParseError) {
        guard time == nil else { throw DateParseError(input: input, offending: word, reason: "a second time of day in one date") }
        time = components
    }

    private mutating func setInstant(_ date: Date?, word: String) throws(DateParseError) {
        guard let date else { throw DateParseError(input: input, offending: word, reason: "no such instant") }
        guard instant == nil, day == nil else {
            throw DateParseError(input: input, offending: word, reason: "a second day in one date")
        }
        instant = date
    }

    /// `date` moved by a relative amount; an error when that is beyond pim's dates.
    private func moved(_ date: Date, by offset: DateComponents) throws(DateParseError) -> Date {
        guard let moved = parser.calendar.pimDate(byAdding: offset, to: date) else { throw DateParser.outOfRange(input) }
        return moved
    }

    /// A relative amount: days or more wait for a possible time of day, smaller units are instants.
    private mutating func setOffset(_ offset: DateComponents, word: String) throws(DateParseError) {
        guard pendingOffset == nil, instant == nil, day == nil else {
            throw DateParseError(input: input, offending: word, reason: "a second day in one date")
        }
        if (offset.hour ?? 0) != 0 || (offset.minute ?? 0) != 0 || (offset.second ?? 0) != 0 {
            try setInstant(moved(parser.now, by: offset), word: word)
        } else {
            pendingOffset = offset
        }
    }
}

/// The components of a relative amount without its sign: `2h`, `3d`, `1h30m`, `3days`.
private func relativeAmount(_ text: String) -> DateComponents? {
    PIMDuration.unitRuns(text)
}
