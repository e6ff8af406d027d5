// When alarms go off: every alarm of the events (each occurrence of a repeating one) and open
// tasks that goes off in a window of time, soonest first: what `pim alarms` lists, for a person
// looking ahead or for a notifier run every few minutes (`pim alarms --from -5m --to now`).
import Foundation
import ObjectGraph

/// One alarm going off.
public struct AlarmFiring {
    /// When it goes off.
    public var date: Date
    /// The alarm.
    public var alarm: Alarm
    /// The event or task it belongs to.
    public var record: ManagedObject
    /// The start of the event's occurrence, or the task's due date (nil: a task with none).
    public var base: Date?
}

extension PIMStore {
    /// The alarms that go off from `from` (included) up to `to` (excluded), soonest first: of
    /// events that are not cancelled, each occurrence of a repeating one (a changed occurrence
    /// with its own alarms), and of pending and started tasks, from their due dates.
    public func alarms(from: Date, to: Date) throws(PIMError) -> [AlarmFiring] {
        guard from < to else { return [] }
        var events = FetchRequest<Event>(entityName: "Event")
        var tasks = FetchRequest<TaskItem>(entityName: "Task")
        do {
            events.predicate = try ObjectGraph.Predicate(format: "alarms != nil AND status != %@", "cancelled")
            tasks.predicate = try ObjectGraph.Predicate(format: "alarms != nil AND status IN %@", ["pending", "started"])
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
        var firings: [AlarmFiring] = []
        for event in try fetch(events) {
            let alarms = Alarm.list(event.alarms)
            for alarm in alarms where !alarm.isRelative {
                guard let date = alarm.date(from: nil, in: calendar), date >= from, date < to else { continue }
                firings.append(AlarmFiring(date: date, alarm: alarm, record: event, base: event.start))
            }
            let relative = alarms.filter(\.isRelative)
            guard !relative.isEmpty else { continue }
            // The occurrences whose alarms can go off in the window: those starting up to the
            // longest offset after it, or before it (a day more each way for nominal days).
            var earliest = from, latest = to
            for alarm in relative {
                guard case let .relative(before, days, seconds) = alarm else { continue }
                let reach = Double(days + 1) * 86_400 + Double(seconds)
                if before { latest = max(latest, to.addingTimeInterval(reach)) } else { earliest = min(earliest, from.addingTimeInterval(-reach)) }
            }
            // Days before a timed start are days of its own zone (RFC 5545 3.3.6): 09:00 in New
            // York the day before, whatever the clocks did here.
            let zoned = event.allDay ? calendar : event.zonedCalendar(fallback: calendar)
            for start in event.occurrences(in: earliest..<latest, calendar: calendar) {
                for alarm in relative {
                    guard let date = alarm.date(from: start, in: zoned), date >= from, date < to else { continue }
                    firings.append(AlarmFiring(date: date, alarm: alarm, record: event, base: start))
                }
            }
        }
        for task in try fetch(tasks) {
            for alarm in Alarm.list(task.alarms) {
                guard let date = alarm.date(from: task.due, in: calendar), date >= from, date < to else { continue }
                firings.append(AlarmFiring(date: date, alarm: alarm, record: task, base: task.due))
            }
        }
        return firings.sorted { a, b in
            if a.date != b.date { return a.date < b.date }
            if a.record.entity !== b.record.entity { return a.record is Event }
            return (a.record.value(forKey: "number") as? Int64 ?? 0) < (b.record.value(forKey: "number") as? Int64 ?? 0)
        }
    }
}

extension PIMStore {
    /// The window `pim alarms` looks in: from `from` (default now) to `to` (default a day later),
    /// both read as `--due` reads dates; a usage error when it is empty.
    public func alarmWindow(from: String?, to: String?) throws(PIMError) -> Range<Date> {
        let parser = dateParser
        let start = try from.map { text throws(PIMError) in try readDate(text, with: parser) } ?? now
        // A day after: 25 hours on the day the clocks go back.
        let end = try to.map { text throws(PIMError) in try readDate(text, with: parser) }
            ?? calendar.pimDate(byAdding: DateComponents(day: 1), to: start) ?? start.addingTimeInterval(86_400)
        guard start < end else {
            throw PIMError.usage("--to (\(OutputFormat.local(end, timeZone: timeZone))) must come after --from (\(OutputFormat.local(start, timeZone: timeZone)))")
        }
        return start..<end
    }
}
