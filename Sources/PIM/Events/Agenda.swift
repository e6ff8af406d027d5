// The agenda: the coming days, each with its event occurrences (recurring events expanded, events
// spanning days shown on each, all-day events on their own days in any time zone) and the open
// tasks due that day beside them (not those still waiting); overdue tasks show on the first day.
// Contacts' birthdays and anniversaries come first on their days, as a calendar of birthdays
// beside one's own (khal's, Apple's) shows them.
import Foundation
import ObjectGraph

/// One entry of an agenda day.
public enum AgendaItem {
    /// An occurrence of an event.
    case event(Event, start: Date, end: Date)
    /// An open task due that day (or overdue, on the first day).
    case task(TaskItem)
    /// A contact's birthday, and the age reached that day (nil: the year is not known).
    case birthday(Person, years: Int?)
    /// A contact's anniversary, and how many years it marks (nil: the year is not known).
    case anniversary(Person, years: Int?)
}

/// A day of the agenda and its entries, events by start then tasks by due date.
public struct AgendaDay {
    public var day: Date
    public var items: [AgendaItem]
}

extension PIMStore {
    /// The agenda of `days` days from the day of `start` (today when nil); with `dates`,
    /// contacts' birthdays and anniversaries. Overdue tasks show on today when the days take it
    /// in, on their own days when the days are all past, and not at all when they are all ahead.
    public func agenda(from start: Date? = nil, days: Int, dates: Bool = true) throws(PIMError) -> [AgendaDay] {
        guard days > 0 else { throw PIMError.usage("--days must be at least 1") }
        let parser = dateParser
        var dayStarts = [start.map { parser.startOfDay($0) } ?? parser.startOfDay(now)]
        while dayStarts.count < days { dayStarts.append(parser.adding(days: 1, to: dayStarts[dayStarts.count - 1])) }
        return try agenda(of: dayStarts, dates: dates)
    }

    /// The agenda of `dayStarts`: the starts of successive days, found day after day (not by
    /// adding days to the first: across the calendar's switch from Julian to Gregorian, 4 to 15
    /// October 1582, a date that is not there reads as a later one).
    func agenda(of dayStarts: [Date], dates: Bool) throws(PIMError) -> [AgendaDay] {
        guard let first = dayStarts.first, let last = dayStarts.last else { return [] }
        let parser = dateParser
        let today = parser.startOfDay(now)
        let end = parser.adding(days: 1, to: last)
        let window = first..<end
        // An all-day event's days are kept in its own time zone, up to 26 hours from this one:
        // the request reaches two days further each way, and occurrences(in:) keeps those that
        // meet the window.
        let (fetchFrom, fetchTo) = (parser.adding(days: -2, to: first), parser.adding(days: 2, to: end))
        var events = FetchRequest<Event>(entityName: "Event")
        var tasks = FetchRequest<TaskItem>(entityName: "Task")
        do {
            events.predicate = try ObjectGraph.Predicate(format: "start < %@ AND (recurrenceRule != nil OR end > %@ OR start >= %@)", fetchTo, fetchFrom, fetchFrom)
            // Tasks put off (a wait date still ahead) stay hidden, as in task lists.
            tasks.predicate = try ObjectGraph.Predicate(format: "status IN %@ AND due < %@ AND (wait == nil OR wait <= %@)",
                                                        ["pending", "started"], end, now)
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
        var byDay: [Date: [AgendaItem]] = [:]
        for event in try fetch(events) {
            let length = (event.end ?? event.start ?? today).timeIntervalSince(event.start ?? today)
            // An all-day occurrence lasts whole days, here as in the event's zone: on a day of
            // 23 or 25 hours (a clock change) it still ends at a midnight.
            let allDayCount = event.days(fallback: calendar)?.count
            for start in event.occurrences(in: window, calendar: calendar) {
                let occurrenceEnd = allDayCount.map { parser.adding(days: $0, to: start) } ?? start.addingTimeInterval(length)
                var day = max(parser.startOfDay(start), first)
                repeat {
                    byDay[day, default: []].append(.event(event, start: start, end: occurrenceEnd))
                    day = parser.adding(days: 1, to: day)
                } while day < occurrenceEnd && day < end
            }
        }
        for task in try fetch(tasks) {
            guard let due = task.due else { continue }
            var day = parser.startOfDay(due)
            if day < today, window.contains(today) { day = today }
            guard day >= first else { continue }
            byDay[day, default: []].append(.task(task))
        }
        if dates { try addContactDates(to: &byDay, window: window) }
        return dayStarts.map { day in
            let items = (byDay[day] ?? []).sorted { a, b in
                switch (a, b) {
                case let (.event(_, startA, _), .event(_, startB, _)): startA < startB
                case let (.task(taskA), .task(taskB)): (taskA.due ?? now) < (taskB.due ?? now)
                case let (.birthday(a, _), .birthday(b, _)), let (.anniversary(a, _), .anniversary(b, _)):
                    ((a.name ?? "").lowercased(), a.number) < ((b.name ?? "").lowercased(), b.number)
                default: Self.agendaRank(a) < Self.agendaRank(b)
                }
            }
            return AgendaDay(day: day, items: items)
        }
    }

    /// Contacts' birthdays and anniversaries on the `days` days from today (a year: up to the
    /// same date next year, when nil), the days that have any (`contacts birthdays`), each
    /// day's by name.
    public func contactDates(days: Int? = nil) throws(PIMError) -> [AgendaDay] {
        if let days, days < 1 { throw PIMError.usage("--days must be at least 1") }
        let today = dateParser.startOfDay(now)
        let end = days.map { dateParser.adding(days: $0, to: today) } ?? dateParser.startOfYear(today, sameDayPlus: 1)
        var byDay: [Date: [AgendaItem]] = [:]
        try addContactDates(to: &byDay, window: today..<end)
        // By name, a person's birthday before their anniversary.
        func order(_ item: AgendaItem) -> (String, Int64, Int) {
            switch item {
            case let .birthday(person, _), let .anniversary(person, _):
                ((person.name ?? "").lowercased(), person.number, Self.agendaRank(item))
            case .event, .task: ("", 0, Self.agendaRank(item))
            }
        }
        return byDay.keys.sorted().map { day in
            AgendaDay(day: day, items: (byDay[day] ?? []).sorted { order($0) < order($1) })
        }
    }

    /// How many days from today `day` (the start of a day) is: calendar days, counted by their
    /// dates (a day that starts at 01:00, after a clock change at midnight, is still a day).
    public func daysFromToday(_ day: Date) -> Int {
        let dates = [now, day].map { calendar.dateComponents([.year, .month, .day], from: $0) }
        let days = dates.map { Calendar.utc.date(from: DateComponents(year: $0.year, month: $0.month, day: $0.day)) ?? day }
        return Calendar.utc.dateComponents([.day], from: days[0], to: days[1]).day ?? 0
    }

    /// The order of kinds within a day: birthdays, anniversaries, events, tasks.
    private static func agendaRank(_ item: AgendaItem) -> Int {
        switch item {
        case .birthday: 0
        case .anniversary: 1
        case .event: 2
        case .task: 3
        }
    }

    /// Adds the birthdays and anniversaries of persons that fall in `window`, on their days. pim
    /// keeps such a date as midnight UTC of its day; one of 29 February shows on 28 February in
    /// other years. A year up to 1604 counts as unknown (Apple's address books write 1604 for none).
    private func addContactDates(to byDay: inout [Date: [AgendaItem]], window: Range<Date>) throws(PIMError) {
        var request = FetchRequest<Person>(entityName: "Person")
        do {
            request.predicate = try ObjectGraph.Predicate(format: "birthday != nil OR anniversary != nil")
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0)!
        // Each date by its month and day (29 February also under 28 February, for other years).
        struct Mark { var person: Person; var year: Int?; var isBirthday: Bool; var leapDay: Bool }
        var marks: [Int: [Mark]] = [:]
        for person in try fetch(request) {
            for (date, isBirthday) in [(person.birthday, true), (person.anniversary, false)] {
                guard let date else { continue }
                let parts = utc.dateComponents([.year, .month, .day], from: date)
                guard let month = parts.month, let dayOfMonth = parts.day else { continue }
                let leapDay = month == 2 && dayOfMonth == 29
                marks[(leapDay ? 228 : month * 100 + dayOfMonth), default: []]
                    .append(Mark(person: person, year: parts.year, isBirthday: isBirthday, leapDay: leapDay))
            }
        }
        guard !marks.isEmpty else { return }
        let parser = dateParser
        var day = window.lowerBound
        while day < window.upperBound {
            let here = calendar.dateComponents([.year, .month, .day], from: day)
            // Whether this year's February has a 29th, as the calendar counts (Julian before 1582).
            let isLeapYear = here.year.flatMap { calendar.date(from: DateComponents(year: $0, month: 2, day: 1)) }
                .flatMap { calendar.range(of: .day, in: .month, for: $0)?.count } == 29
            let key = (here.month ?? 0) * 100 + (here.day ?? 0)
            // A leap day's date shows on 28 February of other years, and on 29 February of leap years.
            let found = (key == 229 ? (marks[228] ?? []).filter(\.leapDay) : (marks[key] ?? []).filter { !$0.leapDay || !isLeapYear })
            for mark in found {
                var years: Int?
                if let from = mark.year, from > 1604, let year = here.year, year > from { years = year - from }
                byDay[day, default: []].append(mark.isBirthday ? .birthday(mark.person, years: years) : .anniversary(mark.person, years: years))
            }
            day = parser.adding(days: 1, to: day)
        }
    }
}
