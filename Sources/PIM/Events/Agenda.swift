// The agenda: the coming days, each with its event occurrences (recurring events expanded, events
// spanning days shown on each, all-day events on their own days in any time zone) and the open
// tasks due that day beside them (not those still waiting); overdue tasks show on the first day.
import Foundation
import ObjectGraph

/// One entry of an agenda day.
public enum AgendaItem {
    /// An occurrence of an event.
    case event(Event, start: Date, end: Date)
    /// An open task due that day (or overdue, on the first day).
    case task(TaskItem)
}

/// A day of the agenda and its entries, events by start then tasks by due date.
public struct AgendaDay {
    public var day: Date
    public var items: [AgendaItem]
}

extension PIMStore {
    /// The agenda of `days` days from today.
    public func agenda(days: Int) throws(PIMError) -> [AgendaDay] {
        guard days > 0 else { throw PIMError.usage("--days must be at least 1") }
        let parser = dateParser
        let today = parser.startOfDay(now)
        let end = parser.adding(days: days, to: today)
        let window = today..<end
        // An all-day event's days are kept in its own time zone, up to 26 hours from this one:
        // the request reaches two days further each way, and occurrences(in:) keeps those that
        // meet the window.
        let (fetchFrom, fetchTo) = (parser.adding(days: -2, to: today), parser.adding(days: 2, to: end))
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
                var day = max(parser.startOfDay(start), today)
                repeat {
                    byDay[day, default: []].append(.event(event, start: start, end: occurrenceEnd))
                    day = parser.adding(days: 1, to: day)
                } while day < occurrenceEnd && day < end
            }
        }
        for task in try fetch(tasks) {
            guard let due = task.due else { continue }
            byDay[max(parser.startOfDay(due), today), default: []].append(.task(task))
        }
        return (0..<days).map { offset in
            let day = parser.adding(days: offset, to: today)
            let items = (byDay[day] ?? []).sorted { a, b in
                switch (a, b) {
                case let (.event(_, startA, _), .event(_, startB, _)): startA < startB
                case (.event, .task): true
                case (.task, .event): false
                case let (.task(taskA), .task(taskB)): (taskA.due ?? now) < (taskB.due ?? now)
                }
            }
            return AgendaDay(day: day, items: items)
        }
    }
}
