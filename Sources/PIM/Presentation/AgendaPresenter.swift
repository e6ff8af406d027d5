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
                    let time = event.allDay ? "all day    " : "\(clock(start))-\(clock(end))"
                    let location = event.location.map { "  @ \($0)" } ?? ""
                    let line = "  \(time)  \(event.title ?? "")\(statusMarker(event))\(location)  [\(event.number)]"
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
                    }
                },
            ] as [String: Any]
        }
    }

    /// What follows an event's title in the agenda: " (tentative)" or " (cancelled)"; nothing
    /// for a confirmed event, the usual case.
    func statusMarker(_ event: Event) -> String {
        guard let status = event.status, status != "confirmed" else { return "" }
        return " (\(status))"
    }

    func clock(_ date: Date) -> String {
        OutputFormat.string(from: date, format: "HH:mm", timeZone: timeZone)
    }
}
