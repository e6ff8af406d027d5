// `pim events`: add events (one-off or repeating), list, show, edit, delete and search them, and
// show the agenda of the coming days with recurring events expanded and due tasks beside them.
import ArgumentParser
import Foundation
import PIM

struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Add, list and change events; show the agenda.",
        subcommands: [Add.self, List.self, Agenda.self, CalendarCommand.self, Show.self, Edit.self, Delete.self, Search.self, Export.self],
        aliases: ["event", "e"]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an event.", aliases: ["new"])

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The title (words are joined).") var title: [String]
        @Option(parsing: .unconditional, help: ArgumentHelp("The start: 'fri 9am', 'tomorrow 17:00', 2026-12-01T10:00; a date alone is all-day.", valueName: "when")) var start: String
        @Option(parsing: .unconditional, help: ArgumentHelp("The end.", valueName: "when")) var end: String?
        @Option(help: ArgumentHelp("The length instead of an end: 1h30m, 90m, 2d (default 1h, or a day when all-day).", valueName: "dur")) var duration: String?
        @Flag(name: .customLong("all-day"), help: "An all-day event.") var allDay = false
        @Option(help: "Where it takes place.") var location: String?
        @Option(name: .customLong("attendee"), help: ArgumentHelp("A contact attending (repeatable).", valueName: "contact")) var attendees: [String] = []
        @Option(name: .customLong("repeat"), help: ArgumentHelp("daily, weekly, biweekly, monthly, yearly, weekdays, weekends, or an RRULE (FREQ=MONTHLY;BYDAY=-1FR).", valueName: "rule")) var repeatRule: String?
        @Option(help: ArgumentHelp("The calendar it belongs to.", valueName: "name")) var calendar: String?
        @Option(help: "Notes.") var notes: String?
        @Option(help: "tentative, confirmed (the default) or cancelled.") var status: String?
        @Option(name: .customLong("alarm"), parsing: .unconditionalSingleValue,
                help: ArgumentHelp("An alarm (repeatable): 15m, 1h30m or 1d before the start, '10m after', 'at the start', or a date and time.", valueName: "when"))
        var alarms: [String] = []

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
            draft.status = status
            draft.alarms = alarms
            let event = try session.store.addEvent(draft)
            try session.commit()
            try session.printChanged([event], kind: .event, verb: "Added") { _ in
                guard let start = event.start, let end = event.end else { return [] }
                let times = event.days(fallback: session.store.calendar).map { days in
                    "all day \(OutputFormat.day(days.first, weekday: true)) to \(OutputFormat.day(days.last, weekday: true))"
                } ?? "\(session.echo(start)) to \(session.echo(end))"
                return [times] + (event.recurrenceRule.map { ["repeats \($0)"] } ?? [])
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List events by start.", aliases: ["ls"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @OptionGroup var window: EventWindowOptions

        func run() throws {
            let session = try Session(global)
            var query = list.query(.event)
            try window.select(in: &query, store: session.store)
            try session.printList(query, fieldNames: list.fieldNames)
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write events as one iCalendar file (all, those named, or those the options select).",
            discussion: "A repeating event goes with its changed occurrences, and each time zone with its VTIMEZONE. "
                + "Calendar programs (khal, Thunderbird, Apple Calendar, Google Calendar) and `pim import` read the file back.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var export: ExportOptions
        @OptionGroup var window: EventWindowOptions

        func validate() throws {
            if window.isGiven, !export.ids.isEmpty {
                throw ValidationError("--from, --to and --calendar select events: give them or event ids, not both")
            }
        }

        func run() throws {
            try RecordCommands.export(export, kind: .event, global: global) { session, query in
                try window.select(in: &query, store: session.store)
            }
        }
    }

    struct Agenda: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The coming days: contacts' birthdays and anniversaries, events (repeats expanded) and due tasks, by day.",
            discussion: """
                A tentative or cancelled event says so after its title: Review (cancelled). Overdue tasks show on the first \
                day with the date they were due; tasks still waiting are left out. A birthday says the age reached: \
                Ada Lovelace (turns 211); --no-dates leaves birthdays and anniversaries out.
                """)

        @OptionGroup var global: GlobalOptions
        // Unconditional, so that `--days -3` gets pim's own message, not "missing value".
        @Option(parsing: .unconditional, help: "How many days, from today.") var days = 7
        @Flag(name: .customLong("no-dates"), help: "Leave contacts' birthdays and anniversaries out.") var noDates = false

        func run() throws {
            let session = try Session(global)
            let agenda = try session.store.agenda(days: days, dates: !noDates)
            let presenter = AgendaPresenter(now: session.store.now, timeZone: session.store.timeZone, colored: session.colored)
            try session.print(global.json ? RecordPresenter.json(presenter.jsonObject(agenda)) : presenter.text(agenda))
        }
    }

    struct CalendarCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "calendar",
            abstract: "Whole months as cal prints them, the days with events, due tasks or birthdays marked, and those days' agenda.",
            discussion: """
                A marked day is followed by * (and bold with color); today is in reverse video with color. Up to three \
                months stand side by side. Under the months, the agenda of the marked days, as `events agenda` prints \
                it (overdue tasks on today). --json prints every day of the months as `events agenda --json` does.
                """,
            aliases: ["cal"])

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The first month: 2026-12, dec, 'December 2026', '12 2026', or a date in it (next month, 2027-03-15); default this month.", valueName: "month"))
        var month: [String] = []
        @Option(parsing: .unconditional, help: ArgumentHelp("How many months (1 to \(PIMStore.calendarMonthLimit)).", valueName: "n"))
        var months = 1
        @Option(name: .customLong("week-start"), help: ArgumentHelp("The first day of the week: monday or sunday.", valueName: "day"))
        var weekStart = "monday"
        @Flag(name: .customLong("no-agenda"), help: "Print only the months.") var noAgenda = false
        @Flag(name: .customLong("no-dates"), help: "Leave contacts' birthdays and anniversaries out.") var noDates = false

        func validate() throws {
            guard ["monday", "sunday"].contains(weekStart.lowercased()) else {
                throw ValidationError("--week-start \"\(weekStart)\": expected monday or sunday")
            }
        }

        func run() throws {
            let session = try Session(global)
            let view = try session.store.monthCalendar(month: month.isEmpty ? nil : month.joined(separator: " "), months: months, dates: !noDates)
            if global.json {
                let presenter = AgendaPresenter(now: session.store.now, timeZone: session.store.timeZone, colored: false)
                try session.print(RecordPresenter.json(presenter.jsonObject(view.days)))
            } else {
                let presenter = CalendarPresenter(now: session.store.now, timeZone: session.store.timeZone, colored: session.colored,
                                                  sundayFirst: weekStart.lowercased() == "sunday")
                try session.print(presenter.text(view, agenda: !noAgenda))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an event.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The event: number, UUID (prefix) or title.") var id: String

        func run() throws { try RecordCommands.show(id, kind: .event, global: global) }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an event: the fields given as flags, or all of them in $VISUAL or $EDITOR.",
            discussion: "A new start moves the end with it. An empty value clears a field: --repeat ''. " + Editor.help)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The event.") var id: String
        @Option(help: "The title.") var title: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("The start.", valueName: "when")) var start: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("The end.", valueName: "when")) var end: String?
        @Option(help: "Where.") var location: String?
        @Option(name: .customLong("repeat"), help: ArgumentHelp("The repeat rule.", valueName: "rule")) var repeatRule: String?
        @Option(help: "tentative, confirmed or cancelled.") var status: String?
        @Option(help: ArgumentHelp("The calendar.", valueName: "name")) var calendar: String?
        @Option(help: ArgumentHelp("Attendees, comma-separated (replaces them all).", valueName: "contacts")) var attendees: String?
        @Option(help: "Notes.") var notes: String?
        @Option(parsing: .unconditional,
                help: ArgumentHelp("The alarms, comma-separated (replaces them all; '' none): 15m, 1h before, '10m after', 'at the start', or a date and time.",
                                   valueName: "whens"))
        var alarms: String?
        @Option(parsing: .unconditional,
                help: ArgumentHelp("The occurrences a repeating event skips, comma-separated dates or dates and times (replaces them all; '' skips none).",
                                   valueName: "whens"))
        var skipped: String?
        @Option(parsing: .unconditional,
                help: ArgumentHelp("Change only the occurrence of a repeating event starting then (a date alone: that day's); it becomes an event of its own.",
                                   valueName: "when"))
        var occurrence: String?

        func run() throws {
            let values: [String: String?] = [
                "title": title, "start": start, "end": end, "location": location, "repeat": repeatRule, "status": status,
                "calendar": calendar, "attendees": attendees, "notes": notes, "skipped": skipped, "alarms": alarms,
            ]
            guard let occurrence else {
                try RecordCommands.edit(id, kind: .event, values: values.compactMapValues { $0 }, global: global)
                return
            }
            if repeatRule != nil || skipped != nil {
                throw PIMError.usage("--occurrence changes one occurrence: --repeat and --skipped belong to the repeating event")
            }
            var note = ""
            try RecordCommands.edit(kind: .event, values: values.compactMapValues { $0 }, global: global, notes: { _ in [note] },
                                    requiresChange: true) { session in
                guard let event = try RecordResolver(store: session.store).resolveRepeatingEvent(id) as? Event else {
                    throw PIMError.usage("\(id) is not an event")
                }
                let detached = try session.store.detachOccurrence(of: event, named: occurrence)
                let when = session.store.describeOccurrence(detached.occurrence, of: event)
                note = "the occurrence of event \(event.number) on \(when)" + (detached.isNew ? ", now an event of its own" : "")
                return detached.event
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete events (their tasks stay), or skip occurrences of a repeating one.",
            discussion: "With --occurrence, the event stays and only the occurrences named are skipped (RFC 5545 EXDATE): "
                + "a date and time names the occurrence starting then, a date alone the one starting that day. "
                + "`events edit N --skipped ''` brings them all back; `pim undo` the last skip.",
            aliases: ["rm"])

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The events.") var ids: [String]
        @Option(name: .customLong("occurrence"), parsing: .unconditionalSingleValue,
                help: ArgumentHelp("Skip only the occurrence starting then (repeatable; one repeating event).", valueName: "when"))
        var occurrences: [String] = []
        @Flag(name: [.long, .customShort("y")], help: "Do not ask for confirmation.") var yes = false

        func run() throws {
            if occurrences.isEmpty {
                try RecordCommands.delete(ids, kind: .event, yes: yes, global: global)
            } else {
                try skip(occurrences)
            }
        }

        /// Skips the occurrences `texts` name of the one event named, after one confirmation.
        private func skip(_ texts: [String]) throws {
            guard ids.count == 1 else { throw PIMError.usage("--occurrence skips occurrences of one event; name one, not \(ids.count)") }
            let session = try Session(global)
            guard let event = try RecordResolver(store: session.store).resolveRepeatingEvent(ids[0]) as? Event else { return }
            let skipped = try session.store.skipOccurrences(of: event, named: texts)
            let count = skipped.count
            try session.confirm("Skip \(count) \(count == 1 ? "occurrence" : "occurrences") of event \(event.number) (\(event.title ?? ""))?",
                                refusal: "not skipping \(count) \(count == 1 ? "occurrence" : "occurrences") without --yes (no terminal to ask on)",
                                yes: yes)
            try session.commit()
            try session.printChanged([event], kind: .event, verb: "Edited") { _ in
                skipped.map { "skipped \(session.store.describeOccurrence($0, of: event))" }
            }
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Events whose title, location or notes contain every word.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Argument(help: "The words.") var words: [String]

        func run() throws { try RecordCommands.search(words, kind: .event, list: list, global: global) }
    }
}

/// The options that select events by when they happen and by calendar (`list`, `export`).
struct EventWindowOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Only events not over by then (repeating ones: an occurrence).", valueName: "when")) var from: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Only events starting before then (repeating ones: an occurrence).", valueName: "when")) var to: String?
    @Option(help: ArgumentHelp("Only events of this calendar.", valueName: "name")) var calendar: String?

    /// Whether any of them is given.
    var isGiven: Bool { from != nil || to != nil || calendar != nil }

    /// Sets `query`'s filters and occurrence window to these options' (the dates read once).
    func select(in query: inout RecordQuery, store: PIMStore) throws {
        var filter = EventFilter()
        filter.from = from
        filter.to = to
        filter.calendar = calendar
        (query.filters, query.occurring) = try store.criteria(for: filter)
    }
}
