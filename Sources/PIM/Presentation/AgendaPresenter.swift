// Printing the agenda: a heading per day, events with their times (or "all day") and any status
// but confirmed, due tasks beside them; as JSON, one array of days, each with its items typed
// "event" or "task".
import Foundation

/// Turns agenda days into text or JSON.
public struct AgendaPresenter {
    public let now: Date
    public let timeZone: TimeZone
    public let colored: Bool

    public init(now: Date, timeZone: TimeZone, colored: Bool) {
        self.now = now
        self.timeZone = timeZone
        self.colored = colored
    }

    /// The agenda as text: days without entries show "nothing".
    public func text(_ days: [AgendaDay]) -> String {
        var lines: [String] = []
        for day in days {
            lines.append(Emphasis.header.apply(OutputFormat.echo(day.day, timeZone: timeZone, dateOnly: true), colored: colored))
            if day.items.isEmpty { lines.append(Emphasis.muted.apply("  nothing", colored: colored)) }
            for item in day.items {
                switch item {
                case let .event(event, start, end):
                    let (time, part) = event.allDay ? ("all day    ", "") : timedSpan(start, end, on: day.day)
                    let location = event.location.map { "  @ \($0)" } ?? ""
                    let line = "  \(time)  \(event.title ?? "")\(part)\(statusMarker(event))\(location)  [\(event.number)]"
                    lines.append((event.status == "cancelled" ? Emphasis.muted : .plain).apply(line, colored: colored))
                case let .task(task):
                    // A task overdue from an earlier day shows on the first day with its own date,
                    // so that it does not read as due today (without color too).
                    let dueEarlier = task.due.map { $0 < day.day } ?? false
                    let due = task.due.map { dueEarlier ? OutputFormat.string(from: $0, format: "MM-dd", timeZone: timeZone) : clock($0) } ?? ""
                    let overdue = (task.due ?? now) < now
                    let priority = TaskPriority.letter(task.priority).map { " (\($0))" } ?? ""
                    let line = "  \(("due " + due).padded(toWidth: 11))  \(task.title ?? "")\(priority)  [\(task.number)]"
                    lines.append((overdue ? Emphasis.alert : .plain).apply(line, colored: colored))
                case let .birthday(person, years), let .anniversary(person, years):
                    let what = if case .birthday = item { "birthday" } else { "anniversary" }
                    let count = years.map { if case .birthday = item { " (turns \($0))" } else { " (\(Self.years($0)))" } } ?? ""
                    lines.append("  \(what.padded(toWidth: 11))  \(person.name ?? "")\(count)  [\(person.number)]")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The agenda as one JSON array of `{"date", "items"}`.
    public func jsonObject(_ days: [AgendaDay]) -> [Any] {
        let events = RecordPresenter(kind: .event, now: now, timeZone: timeZone, colored: false)
        let tasks = RecordPresenter(kind: .task, now: now, timeZone: timeZone, colored: false)
        return days.map { day in
            [
                "date": OutputFormat.rfc3339(day.day, timeZone: timeZone, dateOnly: true),
                "items": day.items.map { item -> [String: Any] in
                    switch item {
                    case let .event(event, start, end):
                        var object = events.jsonObject(event)
                        object["type"] = "event"
                        object["start"] = OutputFormat.rfc3339(start, timeZone: timeZone, dateOnly: event.allDay)
                        object["end"] = OutputFormat.rfc3339(event.allDay ? end.addingTimeInterval(-1) : end, timeZone: timeZone, dateOnly: event.allDay)
                        return object
                    case let .task(task):
                        var object = tasks.jsonObject(task)
                        object["type"] = "task"
                        return object
                    case let .birthday(person, years), let .anniversary(person, years):
                        var object: [String: Any] = ["name": person.name ?? "", "contact": person.number]
                        if case .birthday = item { object["type"] = "birthday" } else { object["type"] = "anniversary" }
                        if let years { object["years"] = years }
                        return object
                    }
                },
            ] as [String: Any]
        }
    }

    /// A count of years as an anniversary reads: `1 year`, `10 years`.
    public static func years(_ count: Int) -> String {
        count == 1 ? "1 year" : "\(count) years"
    }

    /// What follows an event's title in the agenda: " (tentative)" or " (cancelled)"; nothing
    /// for a confirmed event, the usual case.
    func statusMarker(_ event: Event) -> String {
        guard let status = event.status, status != "confirmed" else { return "" }
        return " (\(status))"
    }

    /// The part of a timed occurrence from `start` to `end` that falls on `day`, as the agenda
    /// shows it: its clock times on that day (an end past midnight is 24:00), and for one that
    /// spans several days which day of them this is (" (day 2/3)"): a trip from Tuesday 08:00
    /// to Thursday 20:00 reads 08:00-24:00, 00:00-24:00, 00:00-20:00.
    func timedSpan(_ start: Date, _ end: Date, on day: Date) -> (time: String, part: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let nextDay = calendar.date(byAdding: .day, value: 1, to: day) ?? day
        let from = max(start, day)
        let time = "\(clock(from))-\(end >= nextDay ? "24:00" : clock(end))"
        // An end at midnight ends the day before; a zero-length occurrence is on its start's day.
        let first = calendar.startOfDay(for: start)
        let last = calendar.startOfDay(for: max(start, end.addingTimeInterval(-1)))
        let total = (calendar.dateComponents([.day], from: first, to: last).day ?? 0) + 1
        guard total > 1 else { return (time, "") }
        let index = (calendar.dateComponents([.day], from: first, to: calendar.startOfDay(for: day)).day ?? 0) + 1
        return (time, " (day \(index)/\(total))")
    }

    func clock(_ date: Date) -> String {
        OutputFormat.string(from: date, format: "HH:mm", timeZone: timeZone)
    }
}
