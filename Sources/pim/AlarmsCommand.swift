// `pim alarms`: the alarms of events and tasks that go off in a window of time, soonest first;
// for looking ahead, and for a notifier that cron runs every few minutes.
import ArgumentParser
import Foundation
import PIM

struct AlarmsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarms",
        abstract: "The alarms of events and tasks that go off from --from to --to (default: the next 24 hours), soonest first.",
        discussion: """
            Events have alarms before or after their start (each occurrence of a repeating one), tasks before or \
            after their due date, and either at a date and time of their own: `events add --alarm 15m`, \
            `tasks add --due fri --alarm 1h`. Cancelled events and finished tasks are left out. A notifier run \
            every five minutes: `pim alarms --from -5m --to now`. --json prints objects with at, trigger \
            (iCalendar's: -PT15M, or a UTC time 20261201T080000Z), kind, id, number, title, and start or due. \
            Exit 1 when no alarm goes off in the window.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: ArgumentHelp("From when: now (the default), -5m, 'today 08:00', 2026-12-01...", valueName: "when"))
    var from: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Up to when (not included; default a day after --from).", valueName: "when"))
    var to: String?

    func run() throws {
        let session = try Session(global)
        let store = session.store
        let window = try store.alarmWindow(from: from, to: to)
        let firings = try store.alarms(from: window.lowerBound, to: window.upperBound)
        let zone = store.timeZone
        if global.json {
            try session.print(RecordPresenter.json(firings.map { firing -> [String: Any] in
                let isTask = firing.record is TaskItem
                var object: [String: Any] = [
                    "at": OutputFormat.rfc3339(firing.date, timeZone: zone), "trigger": firing.alarm.triggerText,
                    "kind": isTask ? "task" : "event", "number": firing.record.value(forKey: "number") as? Int64 ?? 0,
                    "title": firing.record.value(forKey: "title") as? String ?? "",
                ]
                if let id = firing.record.value(forKey: "uuid") as? UUID { object["id"] = id.uuidString.lowercased() }
                if let base = firing.base { object[isTask ? "due" : "start"] = OutputFormat.rfc3339(base, timeZone: zone) }
                return object
            }))
        } else if !firings.isEmpty {
            var table = Table(headers: ["WHEN", "ALARM", "KIND", "#", "TITLE", "START/DUE"])
            for firing in firings {
                let isTask = firing.record is TaskItem
                table.append([OutputFormat.echo(firing.date, timeZone: zone),
                              firing.alarm.isRelative ? firing.alarm.text(forTask: isTask, timeZone: zone) : "set time",
                              isTask ? "task" : "event", String(firing.record.value(forKey: "number") as? Int64 ?? 0),
                              firing.record.value(forKey: "title") as? String ?? "",
                              firing.base.map { OutputFormat.local($0, timeZone: zone) } ?? ""],
                             emphasis: firing.date <= store.now ? .active : .plain)
            }
            try session.print(table.render(colored: session.colored))
        }
        if firings.isEmpty {
            throw PIMError.noMatch("no alarm goes off from \(OutputFormat.local(window.lowerBound, timeZone: zone)) to \(OutputFormat.local(window.upperBound, timeZone: zone))")
        }
    }
}
