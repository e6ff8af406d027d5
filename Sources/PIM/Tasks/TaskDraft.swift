// Adding tasks and changing their state: the values of `pim tasks add` as typed (dates, priority
// letters, contact and event references, a repeat rule), read and checked here, and the
// start/done transitions; completing a repeating task adds its next occurrence, as Taskwarrior's
// recurring tasks do.
import Foundation
import ObjectGraph

/// A task to add, as the user typed its values.
public struct TaskDraft: Sendable {
    public var title: String
    public var notes: String?
    public var due: String?
    public var scheduled: String?
    public var wait: String?
    public var priority: String?
    public var project: String?
    public var tags: [String] = []
    public var assignee: String?
    public var event: String?
    public var parent: String?
    public var dependsOn: [String] = []
    /// How the task repeats: daily, weekly, monthly, yearly, weekdays or an RRULE (needs a due date).
    public var repeatRule: String?
    /// Alarms as `--alarm` reads them: `15m` (before the due date), `10m after`, `when due`, or a
    /// date and time.
    public var alarms: [String] = []

    public init(title: String) { self.title = title }
}

/// Task priorities: iCalendar's 1 (high), 5 (medium), 9 (low), 0 (none), typed as letters or words.
public enum TaskPriority {
    /// The stored priority of `text`: `H`, `M`, `L`, `high`, `medium`, `low`, `none`, or 0–9.
    public static func value(_ text: String) throws(PIMError) -> Int16 {
        switch text.lowercased() {
        case "h", "high": return 1
        case "m", "medium": return 5
        case "l", "low": return 9
        case "", "none": return 0
        default:
            guard let number = Int16(text), (0...9).contains(number) else {
                throw PIMError.usage("priority \"\(text)\": expected H, M, L, none or 0-9")
            }
            return number
        }
    }

    /// How important a stored priority is, for sorting: 0 for none, then 1 (low, 9) to 9 (the
    /// highest, 1). iCalendar's numbers run the other way, with 0 meaning none.
    public static func importance(_ value: Int16) -> Int {
        (1...9).contains(value) ? 10 - Int(value) : 0
    }

    /// `H`, `M`, `L` or nil.
    public static func letter(_ value: Int16) -> String? {
        switch value {
        case 1...4: "H"
        case 5: "M"
        case 6...9: "L"
        default: nil
        }
    }
}

extension PIMStore {
    /// Inserts the task `draft` describes; throws naming the first value that cannot be read.
    public func addTask(_ draft: TaskDraft) throws(PIMError) -> TaskItem {
        let title = draft.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw PIMError.usage("a task needs a title") }
        let parser = dateParser
        let parsedDue = try draft.due.map { text throws(PIMError) in try readParsedDate(text, with: parser) }
        let due = parsedDue?.date
        let scheduled = try draft.scheduled.map { text throws(PIMError) in try readDate(text, with: parser) }
        let wait = try draft.wait.map { text throws(PIMError) in try readDate(text, with: parser) }
        let priority = try draft.priority.map { text throws(PIMError) in try TaskPriority.value(text) } ?? 0
        let resolver = RecordResolver(store: self)
        let assignee = try draft.assignee.map { text throws(PIMError) in try resolver.resolve(text, as: .contact) }
        let event = try draft.event.map { text throws(PIMError) in try resolver.resolve(text, as: .event) }
        let parent = try draft.parent.map { text throws(PIMError) in try resolver.resolve(text, as: .task) }
        let dependencies = try draft.dependsOn.map { text throws(PIMError) in try resolver.resolve(text, as: .task) }
        var rule = try draft.repeatRule.flatMap { $0.isEmpty ? nil : $0 }.map { text throws(PIMError) in try Self.rule(text) }
        if rule != nil, due == nil { throw PIMError.usage(Self.repeatNeedsDue) }
        // As an event's: 02:30 typed on a day that skips it is due at 03:30 that day, and at
        // 02:30 on the later days.
        if let due, let clock = parsedDue?.clock { rule?.keepTime(clock, of: due, in: calendar) }
        let alarms = try readAlarms(draft.alarms.joined(separator: ","))
        if due == nil, let relative = alarms.first(where: \.isRelative) {
            throw PIMError.usage(Self.alarmNeedsDue(relative))
        }

        guard let task = insertRecord("Task") as? TaskItem else {
            preconditionFailure("the Task entity is not represented by TaskItem: PIMClasses are not registered")
        }
        task.title = title
        task.notes = draft.notes.flatMap { $0.isEmpty ? nil : $0 }
        task.due = due
        task.scheduled = scheduled
        task.wait = wait
        task.priority = priority
        // Trimmed as `edit` trims it: " home " is the project home, " " none.
        task.project = draft.project.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        task.assignee = assignee as? Contact
        task.event = event as? Event
        task.parent = parent as? TaskItem
        task.recurrenceRule = rule?.description
        task.recurrenceStart = rule == nil ? nil : due
        task.alarms = Alarm.stored(alarms)
        for dependency in dependencies.compactMap({ $0 as? TaskItem }) { task.addToDependencies(dependency) }
        try setTags(draft.tags, of: task)
        return task
    }

    /// Replaces the tasks `task` depends on with the ones `references` name (as on the command
    /// line). A task cannot depend on itself, nor on a task that already depends on it, directly
    /// or through others: Taskwarrior refuses such a circle too, and no task of it could ever
    /// become unblocked.
    public func setDependencies(_ references: [String], of task: TaskItem) throws(PIMError) {
        let resolver = RecordResolver(store: self)
        var wanted: [TaskItem] = []
        for reference in references {
            guard let dependency = try resolver.resolve(reference, as: .task) as? TaskItem else { continue }
            if dependency === task { throw PIMError.usage("depends-on: task \(task.number) cannot depend on itself") }
            if let path = dependencyPath(from: dependency, to: task) {
                let circle = ([task] + path).map { "\($0.number)" }.joined(separator: " → ")
                throw PIMError.usage("depends-on: task \(dependency.number) already depends on task \(task.number) (\(circle)): a circle of dependencies is refused")
            }
            if !wanted.contains(where: { $0 === dependency }) { wanted.append(dependency) }
        }
        for old in task.dependencies where !wanted.contains(where: { $0 === old }) { task.removeFromDependencies(old) }
        let present = task.dependencies
        for dependency in wanted where !present.contains(where: { $0 === dependency }) { task.addToDependencies(dependency) }
    }

    /// The tasks from `start` to `goal` following dependencies (`start` first, `goal` last), or
    /// nil when `start` does not depend on `goal`, directly or through others.
    func dependencyPath(from start: TaskItem, to goal: TaskItem) -> [TaskItem]? {
        var previous: [ObjectIdentifier: TaskItem] = [:]
        var queue = [start]
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(start)]
        var index = 0
        while index < queue.count {
            let current = queue[index]
            index += 1
            for next in current.dependencies where seen.insert(ObjectIdentifier(next)).inserted {
                previous[ObjectIdentifier(next)] = current
                if next === goal {
                    var path = [next]
                    while let step = previous[ObjectIdentifier(path[0])] { path.insert(step, at: 0) }
                    return path
                }
                queue.append(next)
            }
        }
        return nil
    }

    /// Replaces a task's tags with `names` (each made once in the store).
    public func setTags(_ names: [String], of task: TaskItem) throws(PIMError) {
        let wanted = Set(names.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        for tag in task.tags where !wanted.contains(tag.name ?? "") { task.removeFromTags(tag) }
        let present = Set(task.tags.compactMap(\.name))
        for name in wanted.subtracting(present).sorted() {
            do {
                let existing = try RecordStateApplier(store: self).namedValue(name, entityName: "Tag")
                if let tag = existing as? Tag { task.addToTags(tag) }
            } catch {
                throw PIMError.wrapping(error, storePath: url.path)
            }
        }
    }

    /// Marks a task started now (its `started` date, status `started`).
    public func start(_ task: TaskItem) {
        task.status = "started"
        task.started = task.started ?? now
        task.completed = nil
    }

    /// Stops a started task: pending again, its start cleared (Taskwarrior's stop). Whether it
    /// was started; a task that was not is left as it is.
    public func stop(_ task: TaskItem) -> Bool {
        guard task.status == "started" else { return false }
        task.status = "pending"
        task.started = nil
        return true
    }

    /// Marks a task done now; a task already done keeps the date it was first done, as a started
    /// task keeps its start. A repeating task that becomes done gets its next occurrence, which
    /// is returned (``addNextOccurrence(of:)``), and hands its rule on to it: the done task no
    /// longer repeats, so reopening and completing it again adds no second next one.
    @discardableResult
    public func complete(_ task: TaskItem) -> TaskItem? {
        let becomesDone = task.status != "done"
        if becomesDone || task.completed == nil { task.completed = now }
        task.status = "done"
        guard becomesDone, task.recurrenceRule != nil else { return nil }
        let next = addNextOccurrence(of: task)
        task.recurrenceRule = nil
        return next
    }

    /// The usage error of a repeat rule on a task without a due date.
    static let repeatNeedsDue = "repeat: a repeating task needs a due date (--due): its occurrences follow from it"

    /// Why a task without a due date cannot have `alarm`, an alarm before or after it.
    static func alarmNeedsDue(_ alarm: Alarm) -> String {
        "alarm \"\(alarm.text(forTask: true, timeZone: .gmt))\": a task needs a due date (--due) for an alarm before or after it; give a date and time for the alarm instead"
    }

    /// Sets how `task` repeats (a `--repeat` value; empty for not at all): a series that starts
    /// at its due date, which a task that repeats needs.
    public func setRepeat(_ text: String, of task: TaskItem) throws(PIMError) {
        guard !text.isEmpty else {
            task.recurrenceRule = nil
            task.recurrenceStart = nil
            return
        }
        let rule = try Self.ruleText(text)
        guard let due = task.due else { throw PIMError.usage(Self.repeatNeedsDue) }
        task.recurrenceRule = rule
        task.recurrenceStart = due
    }

    /// Adds the next occurrence of the repeating task `task`: a new pending task like it (title,
    /// notes, priority, project, tags, assignee, event, parent, the rule and the series' start)
    /// due at the series' next date after `task`'s due date (``nextDue(after:rule:start:)``), its
    /// scheduled and wait dates as many days later, at the same time of day. Nil when the series
    /// has no date left, or the task does not repeat.
    func addNextOccurrence(of task: TaskItem) -> TaskItem? {
        guard let text = task.recurrenceRule, let due = task.due, let rule = try? RecurrenceRule(text),
              let next = nextDue(after: due, rule: rule, start: task.recurrenceStart ?? due),
              let copy = insertRecord("Task") as? TaskItem else { return nil }
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: due), to: calendar.startOfDay(for: next)).day ?? 0
        copy.title = task.title
        copy.notes = task.notes
        copy.priority = task.priority
        copy.project = task.project
        copy.due = next
        copy.scheduled = task.scheduled.flatMap { calendar.date(byAdding: .day, value: days, to: $0) }
        copy.wait = task.wait.flatMap { calendar.date(byAdding: .day, value: days, to: $0) }
        copy.assignee = task.assignee
        copy.event = task.event
        copy.parent = task.parent
        copy.recurrenceRule = text
        copy.recurrenceStart = task.recurrenceStart ?? due
        // Alarms before or after the due date move with it; one at a date of its own moves as
        // many days as the due date, as the scheduled and wait dates do.
        copy.alarms = Alarm.stored(Alarm.list(task.alarms).compactMap { alarm in
            guard case .absolute(let date) = alarm else { return alarm }
            return calendar.date(byAdding: .day, value: days, to: date).map(Alarm.absolute)
        })
        for tag in task.tags { copy.addToTags(tag) }
        return copy
    }

    /// The first date of the series `rule` makes from `start` (its first due date) after `due`.
    ///
    /// A plain monthly or yearly rule (no BYDAY, BYMONTHDAY, BYMONTH) keeps `start`'s day where a
    /// month has it and takes the month's last day where it does not, as Taskwarrior does: due
    /// the 31st, then February 28th, then March 31st; the 29th of February, then the 28th in
    /// other years. (RFC 5545 skips such months; pim's events follow it.) As RFC 5545 says, the
    /// start counts as the first of COUNT occurrences even where the rule does not name its day.
    func nextDue(after due: Date, rule: RecurrenceRule, start: Date) -> Date? {
        let until = rule.untilDate(in: calendar)
        if rule.byDay.isEmpty, rule.byMonthDay.isEmpty, rule.byMonth.isEmpty, rule.byHour == nil, rule.byMinute == nil,
           rule.frequency == .monthly || rule.frequency == .yearly {
            let unit: Calendar.Component = rule.frequency == .monthly ? .month : .year
            // Each step from the start, so that a day cut short in one month comes back in the next.
            for step in 1..<100_000 {
                if let count = rule.count, step >= count { return nil }
                guard let candidate = calendar.date(byAdding: unit, value: step * rule.interval, to: start) else { return nil }
                if let until, candidate > until { return nil }
                if candidate > due { return candidate }
            }
            return nil
        }
        var counted = rule
        let startMatches = rule.occurrences(from: start, in: start..<start.addingTimeInterval(1), calendar: calendar, maximumCount: 1).first != nil
        if let count = rule.count, !startMatches {
            guard count > 1 else { return nil }
            counted.count = count - 1
        }
        let window = due.addingTimeInterval(1)..<Date.distantFuture
        return counted.occurrences(from: start, in: window, calendar: calendar, maximumCount: 1).first
    }

    /// Reads a date typed for a record, as a usage error naming it when it is not one.
    func readDate(_ text: String, with parser: DateParser) throws(PIMError) -> Date {
        do {
            return try parser.date(text)
        } catch {
            throw PIMError.date(error)
        }
    }

    /// A day of no time zone (a birthday), read as dates are and stored as that day's midnight
    /// UTC, so that it is the same day wherever it is read (``OutputFormat/day(_:weekday:)``).
    ///
    /// A day typed without a year (`--12-01`, `12-01`, `dec 1`, `1 December`: no number of three
    /// digits or more) is a day whose year is not known, kept as 1604 as Apple's address books
    /// keep one (``OutputFormat/yearlessYear``); `pim` prints it `--12-01`.
    func readDay(_ text: String, with parser: DateParser) throws(PIMError) -> Date {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0)!
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let numbered = trimmed.split(whereSeparator: { $0 == "-" }).map(String.init)
        if numbered.count == 2, numbered.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
           let month = Int(numbered[0]), let day = Int(numbered[1]) {
            guard (1...12).contains(month), let days = utc.range(of: .day, in: .month, for: utc.date(from: DateComponents(year: OutputFormat.yearlessYear, month: month)) ?? Date()),
                  days.contains(day) else {
                throw PIMError.usage("\"\(text)\": no such day (a month and a day: 12-01)")
            }
            return utc.date(from: DateComponents(year: OutputFormat.yearlessYear, month: month, day: day)) ?? Date()
        }
        let date = try readDate(trimmed, with: parser)
        var parts = parser.calendar.dateComponents([.year, .month, .day], from: date)
        // No year typed: a phrase of a month and a day, not of a year.
        if !trimmed.contains(where: \.isNumber) || trimmed.split(whereSeparator: { !$0.isNumber }).allSatisfy({ $0.count <= 2 }),
           !Self.relativeDayWords.contains(where: trimmed.lowercased().contains) {
            parts.year = OutputFormat.yearlessYear
        }
        return utc.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day)) ?? date
    }

    /// Words of a day named from today (`today`, `in 3 days`, `next friday`), which are days of a year.
    static let relativeDayWords = ["today", "tomorrow", "yesterday", "now", "ago", "in ", "next", "last", "this", "+", "mon", "tue",
                                   "wed", "thu", "fri", "sat", "sun", "week", "eow", "eom", "eoy", "sow", "som", "soy"]
}
