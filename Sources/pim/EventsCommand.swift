// `pim events`: add events (one-off or repeating), list them, and show the agenda of the coming
// days with recurring events expanded and due tasks beside them.
import ArgumentParser
import Foundation
import PIM

struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Add and list events; show the agenda.",
        subcommands: [Add.self, List.self, Agenda.self],
        aliases: ["event", "e"]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an event.", aliases: ["new"])

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The title (words are joined).") var title: [String]
        @Option(help: ArgumentHelp("The start: 'fri 9am', 'tomorrow 17:00', 2026-12-01T10:00; a date alone is all-day.", valueName: "when")) var start: String
        @Option(help: ArgumentHelp("The end.", valueName: "when")) var end: String?
        @Option(help: ArgumentHelp("The length instead of an end: 1h30m, 90m, 2d (default 1h, or a day when all-day).", valueName: "dur")) var duration: String?
        @Flag(name: .customLong("all-day"), help: "An all-day event.") var allDay = false
        @Option(help: "Where it takes place.") var location: String?
        @Option(name: .customLong("attendee"), help: ArgumentHelp("A contact attending (repeatable).", valueName: "contact")) var attendees: [String] = []
        @Option(name: .customLong("repeat"), help: ArgumentHelp("daily, weekly, biweekly, monthly, yearly, weekdays, weekends, or an RRULE (FREQ=MONTHLY;BYDAY=-1FR).", valueName: "rule")) var repeatRule: String?
        @Option(help: ArgumentHelp("The calendar it belongs to.", valueName: "name")) var calendar: String?
        @Option(help: "Notes.") var notes: String?

        func run() throws {
            let session = try Session(global)
            var draft = EventDraft(title: title.joined(separator: " "), start: start)
            draft.end = end
            draft.duration = duration
            draft.allDay = allDay
            draft.location = location
            draft.attendees = attendees
            draft.repeatRule = repeatRule
            draft.calendar = calendar
            draft.notes = notes
            let event = try session.store.addEvent(draft)
            try session.commit()
            session.printChanged([event], kind: .event, verb: "Added") { _ in
                guard let start = event.start, let end = event.end else { return [] }
                let times = event.allDay
                    ? "all day \(session.echo(start, dateOnly: true)) to \(session.echo(end.addingTimeInterval(-1), dateOnly: true))"
                    : "\(session.echo(start)) to \(session.echo(end))"
                return [times] + (event.recurrenceRule.map { ["repeats \($0)"] } ?? [])
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List events by start.", aliases: ["ls"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions

        func run() throws {
            let session = try Session(global)
            try session.printList(try session.store.list(list.query(.event)), kind: .event, fieldNames: list.fieldNames)
        }
    }

    struct Agenda: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The coming days: events (repeats expanded) and due tasks, by day.")

        @OptionGroup var global: GlobalOptions
        @Option(help: "How many days, from today.") var days = 7

        func run() throws {
            let session = try Session(global)
            let agenda = try session.store.agenda(days: days)
            let presenter = AgendaPresenter(now: session.store.now, timeZone: session.store.timeZone, colored: session.colored)
            Console.print(global.json ? RecordPresenter.json(presenter.jsonObject(agenda)) : presenter.text(agenda))
        }
    }
}
