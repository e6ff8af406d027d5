// `pim tasks`: add, list (by urgency), show, start, done and delete tasks.
import ArgumentParser
import Foundation
import PIM

struct TasksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tasks",
        abstract: "Add, list and finish tasks.",
        discussion: """
            `list` sorts by urgency, Taskwarrior's formula: 15 next tag + 12 due (0.2 two weeks \
            ahead rising to 1 a week overdue) + 8 blocking + 6/3.9/1.8 priority H/M/L + 5 scheduled \
            and past + 4 started + 2 age (over a year) + 1 tags + 1 project - 3 waiting - 5 blocked.
            """,
        subcommands: [Add.self, Log.self, List.self, Projects.self, Tags.self, Show.self, Edit.self, Start.self, Stop.self, Done.self, Annotate.self,
                      Denotate.self, Delete.self, Search.self, Export.self],
        aliases: ["task", "t"]
    )

    /// What `add` and `log` read of a new task.
    struct NewTaskOptions: ParsableArguments {
        @Argument(help: "The title (words are joined).") var title: [String]
        @Option(parsing: .unconditional, help: ArgumentHelp("Due date: 2026-12-01, 'tomorrow 17:00', 'next friday', 'in 3 days', eow, +2h...", valueName: "when")) var due: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("When to start working on it.", valueName: "when")) var scheduled: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Hide it from lists until then.", valueName: "when")) var wait: String?
        @Option(help: ArgumentHelp("H, M, L or 0-9.", valueName: "H|M|L")) var priority: String?
        @Option(help: ArgumentHelp("A project; dots make sub-projects (home.garden).", valueName: "name")) var project: String?
        @Option(name: .customLong("tag"), help: ArgumentHelp("A tag (repeatable).", valueName: "name")) var tags: [String] = []
        @Option(help: ArgumentHelp("The contact it is assigned to.", valueName: "contact")) var assignee: String?
        @Option(name: .customLong("for-event"), help: ArgumentHelp("The event it prepares for.", valueName: "event")) var event: String?
        @Option(help: ArgumentHelp("The task it is a subtask of.", valueName: "task")) var parent: String?
        @Option(name: .customLong("depends-on"), help: ArgumentHelp("A task that must be done first (repeatable).", valueName: "task")) var dependsOn: [String] = []
        @Option(name: .customLong("repeat"), help: ArgumentHelp("Repeat: daily, weekly, monthly, yearly, weekdays or an RRULE (needs --due); done adds the next.", valueName: "rule")) var repeatRule: String?
        @Option(help: "Notes.") var notes: String?
        @Option(name: .customLong("alarm"), parsing: .unconditionalSingleValue,
                help: ArgumentHelp("An alarm (repeatable): 15m, 1h or 1d before the due date, '10m after', 'when due', or a date and time.", valueName: "when"))
        var alarms: [String] = []

        var draft: TaskDraft {
            var draft = TaskDraft(title: title.joined(separator: " "))
            draft.repeatRule = repeatRule
            draft.due = due
            draft.scheduled = scheduled
            draft.wait = wait
            draft.priority = priority
            draft.project = project
            draft.tags = tags
            draft.assignee = assignee
            draft.event = event
            draft.parent = parent
            draft.dependsOn = dependsOn
            draft.notes = notes
            draft.alarms = alarms
            return draft
        }

        /// The lines `add` and `log` print under the task: the dates they read.
        func echoedDates(of task: TaskItem, in session: Session) -> [String] {
            [("due", task.due), ("scheduled", task.scheduled), ("wait", task.wait)].compactMap { label, date in
                date.map { "\(label) \(session.echo($0))" }
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a task.", aliases: ["new"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var task: NewTaskOptions

        func run() throws {
            let session = try Session(global)
            let added = try session.store.addTask(task.draft)
            try session.commit()
            try session.printChanged([added], kind: .task, verb: "Added") { _ in task.echoedDates(of: added, in: session) }
        }
    }

    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a task that is done already, as Taskwarrior's log does: a record of work finished.",
            discussion: """
                Takes add's options; the task is done now (its completion date), so it is in no list of open \
                tasks. A repeating rule is refused: a logged task has no next occurrence.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var task: NewTaskOptions

        func validate() throws {
            if task.repeatRule != nil { throw ValidationError("--repeat: a logged task is done and has no next occurrence; use add") }
        }

        func run() throws {
            let session = try Session(global)
            let logged = try session.store.addTask(task.draft)
            session.store.complete(logged)
            try session.commit()
            try session.printChanged([logged], kind: .task, verb: "Logged") { _ in
                task.echoedDates(of: logged, in: session) + (logged.completed.map { ["done \(session.echo($0))"] } ?? [])
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List open tasks, most urgent first.", aliases: ["ls"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @OptionGroup var filter: TaskFilterOptions

        func run() throws {
            let session = try Session(global)
            var query = list.query(.task)
            query.filters = try session.store.predicates(for: filter.filter)
            try session.printList(query, fieldNames: list.fieldNames)
        }
    }

    struct Projects: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The projects of the open tasks (or those the options select), with their numbers of tasks.",
            discussion: """
                As Taskwarrior's `projects` report: a tree, sub-projects indented under their projects, the tasks \
                with no project first as (none). A project's count takes in its sub-projects: it is the number \
                of tasks `tasks list --project` with the same options lists. Projects differing only in case are one. \
                --json prints objects with project (null for none), tasks and own (the project's own tasks). \
                Exit 1 when no task matches.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: TaskSelectionOptions

        func run() throws {
            let session = try Session(global)
            let counts = try session.store.projectCounts(selection.query(in: session))
            if global.json {
                try session.print(RecordPresenter.json(counts.map {
                    ["project": $0.project.map { $0 as Any } ?? NSNull(), "tasks": $0.tasks, "own": $0.own] as [String: Any]
                }))
            } else if !counts.isEmpty {
                var table = Table(headers: ["Project", "Tasks"])
                for count in counts {
                    table.append([String(repeating: "  ", count: count.depth) + (count.name.isEmpty ? "\"\"" : count.name), String(count.tasks)])
                }
                let projects = counts.filter { $0.project != nil }.count
                let tasks = counts.filter { $0.depth == 0 }.reduce(0) { $0 + $1.tasks }
                try session.print(table.render(colored: session.colored)
                    + "\n\(projects) project\(projects == 1 ? "" : "s") (\(tasks) task\(tasks == 1 ? "" : "s"))\n")
            }
            if counts.isEmpty { throw PIMError.noMatch("no tasks match") }
        }
    }

    struct Tags: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The tags of the open tasks (or those the options select), with their numbers of tasks.",
            discussion: """
                As Taskwarrior's `tags` report: each tag once, by name, with the number of tasks \
                `tasks list --tag` with the same options lists. Tags differing only in case are one. \
                --json prints objects with tag and tasks. Exit 1 when no matching task has a tag.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: TaskSelectionOptions

        func run() throws {
            let session = try Session(global)
            let counts = try session.store.tagCounts(selection.query(in: session))
            if global.json {
                try session.print(RecordPresenter.json(counts.map { ["tag": $0.tag, "tasks": $0.tasks] as [String: Any] }))
            } else if !counts.isEmpty {
                var table = Table(headers: ["Tag", "Tasks"])
                for count in counts { table.append([count.tag, String(count.tasks)]) }
                try session.print(table.render(colored: session.colored)
                    + "\n\(counts.count) tag\(counts.count == 1 ? "" : "s")\n")
            }
            if counts.isEmpty { throw PIMError.noMatch("no matching task has a tag") }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a task.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The task: number, UUID (prefix) or title.") var id: String

        func run() throws { try RecordCommands.show(id, kind: .task, global: global) }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a task: the fields given as flags, or all of them in $VISUAL or $EDITOR.",
            discussion: "An empty value clears a field: --due ''. " + Editor.help)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The task.") var id: String
        @Option(help: "The title.") var title: String?
        @Option(help: "pending, started, done or cancelled.") var status: String?
        @Option(help: ArgumentHelp("H, M, L or empty.", valueName: "H|M|L")) var priority: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Due date.", valueName: "when")) var due: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Scheduled date.", valueName: "when")) var scheduled: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Wait date.", valueName: "when")) var wait: String?
        @Option(name: .customLong("repeat"), help: ArgumentHelp("daily, weekly, monthly, yearly, weekdays, an RRULE, or '' for none (needs a due date).", valueName: "rule")) var repeatRule: String?
        @Option(help: ArgumentHelp("Project.", valueName: "name")) var project: String?
        @Option(help: ArgumentHelp("Tags, comma-separated (replaces them all).", valueName: "tags")) var tags: String?
        @Option(help: ArgumentHelp("The contact it is assigned to.", valueName: "contact")) var assignee: String?
        @Option(name: .customLong("for-event"), help: ArgumentHelp("The event it prepares for.", valueName: "event")) var event: String?
        @Option(help: ArgumentHelp("The task it is a subtask of.", valueName: "task")) var parent: String?
        @Option(name: .customLong("depends-on"), help: ArgumentHelp("Tasks that must be done first, comma-separated (replaces them all).", valueName: "tasks")) var dependsOn: String?
        @Option(help: "Notes.") var notes: String?
        @Option(parsing: .unconditional,
                help: ArgumentHelp("The alarms, comma-separated (replaces them all; '' none): 15m, 1h before the due date, '10m after', 'when due', or a date and time.",
                                   valueName: "whens"))
        var alarms: String?

        func run() throws {
            let values: [String: String?] = [
                "title": title, "status": status, "priority": priority, "due": due, "scheduled": scheduled, "wait": wait, "repeat": repeatRule,
                "project": project, "tags": tags, "assignee": assignee, "event": event, "parent": parent, "depends-on": dependsOn, "notes": notes,
                "alarms": alarms,
            ]
            try RecordCommands.edit(id, kind: .task, values: values.compactMapValues { $0 }, global: global)
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tasks whose title, notes, project or tags contain every word.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Argument(help: "The words.") var words: [String]

        func run() throws { try RecordCommands.search(words, kind: .task, list: list, global: global) }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write tasks as one iCalendar file of to-dos (all, those named, or those --where selects).",
            discussion: """
                Task programs (Thunderbird, Apple Reminders through CalDAV, tasks.org) and `pim import` read the file back. \
                A subtask names its parent (RELATED-TO;RELTYPE=PARENT) and a task each task it depends on \
                (RELATED-TO;RELTYPE=DEPENDS-ON, RFC 9253).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var export: ExportOptions

        func run() throws { try RecordCommands.export(export, kind: .task, global: global) }
    }

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start tasks (status started).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The tasks.") var ids: [String]

        func run() throws {
            let session = try Session(global)
            let tasks = try resolveTasks(ids, in: session)
            for task in tasks { session.store.start(task) }
            try session.commit()
            try session.printChanged(tasks, kind: .task, verb: "Started")
        }
    }

    struct Annotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a dated note to a task, as Taskwarrior's annotate does.",
            discussion: """
                The words are joined into one line, dated now. show lists a task's annotations under it, oldest \
                first; list shows them with --fields annotations; search finds their words. They are sent to \
                CalDAV servers and exported as COMMENT properties. --json prints the task.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The task.") var id: String
        @Argument(help: "The annotation (words are joined).") var words: [String] = []

        func run() throws {
            let session = try Session(global)
            let task = try resolveTask(id, in: session)
            let annotation = try session.store.annotate(task, with: words.joined(separator: " "))
            try session.commit()
            try session.printChanged([task], kind: .task, verb: "Annotated") { _ in
                [annotation.text(timeZone: session.store.timeZone)]
            }
        }
    }

    struct Denotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an annotation of a task: the one with the text given, or the only one containing it; the latest without text.",
            discussion: "Text is compared ignoring case. Exit 1 when no annotation matches, 4 when several contain the text (listed).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The task.") var id: String
        @Argument(help: "The annotation's text, or a part of it (words are joined).") var words: [String] = []

        func run() throws {
            let session = try Session(global)
            let task = try resolveTask(id, in: session)
            let removed = try session.store.denotate(task, matching: words.isEmpty ? nil : words.joined(separator: " "))
            try session.commit()
            try session.printChanged([task], kind: .task, verb: "Denotated") { _ in
                ["removed: " + removed.text(timeZone: session.store.timeZone)]
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop started tasks: pending again, their start cleared, as Taskwarrior's stop does.",
            discussion: "A task that is not started is left as it is and named on standard error; exit 1 when none of them was started.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The tasks.") var ids: [String]

        func run() throws {
            let session = try Session(global)
            let tasks = try resolveTasks(ids, in: session)
            let stopped = tasks.filter { session.store.stop($0) }
            for task in tasks where !stopped.contains(where: { $0 === task }) {
                Console.error("pim: task \(task.number) (\(task.title ?? "")) is not started")
            }
            guard !stopped.isEmpty else { throw PIMError.noMatch("no task was stopped") }
            try session.commit()
            try session.printChanged(stopped, kind: .task, verb: "Stopped")
        }
    }

    struct Done: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark tasks done.", aliases: ["finish"])

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The tasks.") var ids: [String]

        func run() throws {
            let session = try Session(global)
            let tasks = try resolveTasks(ids, in: session)
            let next = tasks.compactMap { session.store.complete($0) }
            try session.commit()
            try session.printChanged(tasks, kind: .task, verb: "Completed")
            // JSON keeps its shape (the completed tasks); `tasks list` shows the next ones.
            if !next.isEmpty, !global.json { try session.printAdded(next) }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete tasks and their subtasks (counted in the confirmation).", aliases: ["rm"])

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The tasks.") var ids: [String]
        @Flag(name: [.long, .customShort("y")], help: "Do not ask for confirmation.") var yes = false

        func run() throws { try RecordCommands.delete(ids, kind: .task, yes: yes, global: global) }
    }
}

/// The friendly filters of `tasks list`, `tasks projects` and `tasks tags`.
struct TaskFilterOptions: ParsableArguments {
    @Option(name: .customLong("due-before"), parsing: .unconditional, help: ArgumentHelp("Only tasks due before then.", valueName: "when")) var dueBefore: String?
    @Option(name: .customLong("due-after"), parsing: .unconditional, help: ArgumentHelp("Only tasks due after then.", valueName: "when")) var dueAfter: String?
    @Option(help: ArgumentHelp("Only this project and its sub-projects (\"\" for tasks with none).", valueName: "name")) var project: String?
    @Option(name: .customLong("tag"), help: ArgumentHelp("Only tasks with this tag (repeatable: all of them).", valueName: "name")) var tags: [String] = []
    @Option(name: .customLong("status"), help: ArgumentHelp("Only this status: pending, started, done, cancelled (repeatable).", valueName: "status")) var statuses: [String] = []
    @Flag(help: "All tasks, whatever their status.") var all = false

    var filter: TaskFilter {
        var filter = TaskFilter()
        filter.dueBefore = dueBefore
        filter.dueAfter = dueAfter
        filter.project = project
        filter.tags = tags
        filter.statuses = statuses
        filter.all = all
        return filter
    }
}

/// The tasks `tasks projects` and `tasks tags` count: the filters of `tasks list`, and `--where`.
struct TaskSelectionOptions: ParsableArguments {
    @OptionGroup var filter: TaskFilterOptions
    @Option(name: .customLong("where"), help: ArgumentHelp("Only tasks matching a predicate (as `tasks list --where`).", valueName: "predicate"))
    var predicate: String?

    func query(in session: Session) throws(PIMError) -> RecordQuery {
        var query = RecordQuery(kind: .task)
        query.whereClause = predicate
        query.filters = try session.store.predicates(for: filter.filter)
        return query
    }
}

/// The tasks `ids` name, each once, in the order given.
func resolveTasks(_ ids: [String], in session: Session) throws -> [TaskItem] {
    try RecordCommands.resolve(ids, kind: .task, session: session).compactMap { $0 as? TaskItem }
}

func resolveTask(_ id: String, in session: Session) throws -> TaskItem {
    guard let task = try RecordResolver(store: session.store).resolve(id, as: .task) as? TaskItem else {
        throw PIMError.notFound(kind: .task, reference: id)
    }
    return task
}
