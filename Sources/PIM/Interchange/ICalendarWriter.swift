// `pim events export` and `pim tasks export`: events and tasks as one iCalendar object (RFC
// 5545), the file khal, Thunderbird, Apple Calendar and Google Calendar import. A repeating
// event goes with its changed occurrences (same UID, RECURRENCE-ID); every zone a time names has
// its VTIMEZONE. `pim import` reads the text back (icalendar.json).
import Foundation
import ObjectGraph

/// Writes events and tasks as an iCalendar object.
///
/// ```swift
/// let text = ICalendarWriter(timeZone: store.timeZone).calendar(events: events, tasks: [])
/// ```
public struct ICalendarWriter {
    /// The zone of events that name none, and of tasks' dates.
    public var timeZone: TimeZone
    /// When the object is written: every component's DTSTAMP.
    public var stamp: Date

    public init(timeZone: TimeZone, stamp: Date = Date()) {
        self.timeZone = timeZone
        self.stamp = stamp
    }

    /// One VCALENDAR holding `events` (with the changed occurrences of the repeating ones) and
    /// `tasks`, in order.
    public func calendar(events: [Event], tasks: [TaskItem]) -> String {
        var body = ContentLines()
        var zones: [String: Date] = [:]
        func use(_ zone: TimeZone, at date: Date?) {
            guard !Self.isUTC(zone), let date else { return }
            zones[zone.identifier] = min(zones[zone.identifier] ?? date, date)
        }
        for event in events {
            let zone = self.zone(of: event)
            if !event.allDay { use(zone, at: event.start) }
            write(event, zone: zone, to: &body)
            for changed in event.overrides.sorted(by: { ($0.recurrenceID ?? .distantPast) < ($1.recurrenceID ?? .distantPast) }) {
                // A changed occurrence may have a time of day where its series has days, and
                // names its series' zone in RECURRENCE-ID where the series has times.
                if !changed.allDay { use(self.zone(of: changed), at: changed.start) }
                if !event.allDay { use(zone, at: changed.recurrenceID) }
                write(changed, zone: self.zone(of: changed), to: &body)
            }
        }
        for task in Self.parentsFirst(tasks) {
            use(timeZone, at: [task.scheduled, task.due].compactMap { $0 }.min())
            write(task, to: &body)
        }
        var lines = ContentLines()
        lines.begin("VCALENDAR")
        lines.add("VERSION", value: "2.0")
        lines.add("PRODID", value: VCardWriter.productID)
        lines.add("CALSCALE", value: "GREGORIAN")
        for (identifier, earliest) in zones.sorted(by: { $0.key < $1.key }) {
            guard let zone = TimeZone(identifier: identifier) else { continue }
            lines.append(TimeZoneObservances(zone: zone).component(from: earliest, now: stamp))
        }
        lines.append(body)
        lines.end("VCALENDAR")
        return lines.text
    }

    // MARK: Events

    private func write(_ event: Event, zone: TimeZone, to lines: inout ContentLines) {
        lines.begin("VEVENT")
        // A changed occurrence carries its series' UID (RFC 5545 3.8.4.4).
        if let uid = Self.uid(of: event.master ?? event) { lines.add("UID", text: uid) }
        lines.add("DTSTAMP", value: Self.utcText(stamp))
        if let created = event.created { lines.add("CREATED", value: Self.utcText(created)) }
        if let modified = event.modified { lines.add("LAST-MODIFIED", value: Self.utcText(modified)) }
        if let replaced = event.recurrenceID {
            let master = event.master
            if master?.allDay ?? event.allDay {
                // pim keeps a changed all-day occurrence's day as midnight UTC.
                lines.add("RECURRENCE-ID", ["VALUE": "DATE"], value: Self.dayText(replaced, in: Self.utc))
            } else {
                add("RECURRENCE-ID", replaced, zone: master.map(self.zone(of:)) ?? zone, to: &lines)
            }
        }
        lines.add("SUMMARY", text: event.title ?? "")
        if let start = event.start {
            if let days = event.days(fallback: calendar) {
                // Days of no time zone: DTEND is the day after the last (RFC 5545 3.6.1).
                lines.add("DTSTART", ["VALUE": "DATE"], value: Self.dayText(days.first, in: Self.utc))
                lines.add("DTEND", ["VALUE": "DATE"], value: Self.dayText(days.end, in: Self.utc))
            } else {
                add("DTSTART", start, zone: zone, to: &lines)
                if let end = event.end { add("DTEND", end, zone: zone, to: &lines) }
            }
        }
        if event.master == nil, let rule = event.recurrenceRule, !rule.isEmpty {
            lines.add("RRULE", value: event.allDay ? rule : Self.utcUntil(rule, zone: zone))
            // pim skips the starts its changed occurrences replace; RFC 5545 leaves those out of
            // EXDATE (a reader would hide the changed occurrence too).
            let replaced = Set(event.overrides.compactMap(\.recurrenceID))
            let skipped = event.skippedOccurrences.filter { !replaced.contains($0) }
            if !skipped.isEmpty {
                if event.allDay {
                    lines.add("EXDATE", ["VALUE": "DATE"], value: skipped.map { Self.dayText($0, in: Self.utc) }.joined(separator: ","))
                } else if Self.isUTC(zone) {
                    lines.add("EXDATE", value: skipped.map(Self.utcText).joined(separator: ","))
                } else {
                    lines.add("EXDATE", ["TZID": zone.identifier], value: skipped.map { Self.localText($0, in: zone) }.joined(separator: ","))
                }
            }
        }
        if let location = event.location, !location.isEmpty { lines.add("LOCATION", text: location) }
        if let notes = event.notes, !notes.isEmpty { lines.add("DESCRIPTION", text: notes) }
        if let url = event.url { lines.add("URL", value: url.absoluteString) }
        if let status = event.status { lines.add("STATUS", value: status.uppercased()) }
        if let calendar = event.calendar, calendar != "default" { lines.add("X-PIM-CALENDAR", text: calendar) }
        if let organizer = event.organizer, let address = Self.address(of: organizer) {
            lines.add("ORGANIZER", ["CN": organizer.name ?? ""], value: "mailto:" + address)
        }
        for attendee in event.attendees.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            guard let address = Self.address(of: attendee) else { continue }
            lines.add("ATTENDEE", ["CN": attendee.name ?? ""], value: "mailto:" + address)
        }
        Self.addAlarms(of: event.alarms, summary: event.title ?? "", relatedToEnd: false, to: &lines)
        lines.end("VEVENT")
    }

    /// The zone an event's times are written in: its own, else the store's.
    private func zone(of event: Event) -> TimeZone {
        event.timeZone.flatMap(TimeZone.init(identifier:)) ?? timeZone
    }

    // MARK: Tasks

    private func write(_ task: TaskItem, to lines: inout ContentLines) {
        lines.begin("VTODO")
        if let uid = Self.uid(of: task) { lines.add("UID", text: uid) }
        lines.add("DTSTAMP", value: Self.utcText(stamp))
        if let created = task.created { lines.add("CREATED", value: Self.utcText(created)) }
        if let modified = task.modified { lines.add("LAST-MODIFIED", value: Self.utcText(modified)) }
        lines.add("SUMMARY", text: task.title ?? "")
        let rule = task.recurrenceRule.flatMap { $0.isEmpty ? nil : $0 }
        // A repeating component needs a DTSTART (RFC 5545 3.8.2.4): a repeating task without a
        // scheduled date repeats from its due date, which `pim import` reads back as no schedule.
        if let start = task.scheduled ?? (rule != nil ? task.due : nil) { add("DTSTART", start, zone: timeZone, to: &lines) }
        if let due = task.due { add("DUE", due, zone: timeZone, to: &lines) }
        if let rule { lines.add("RRULE", value: Self.utcUntil(rule, zone: timeZone)) }
        let status = ["pending": "NEEDS-ACTION", "started": "IN-PROCESS", "done": "COMPLETED", "cancelled": "CANCELLED"]
        if let value = task.status.flatMap({ status[$0] }) { lines.add("STATUS", value: value) }
        if let completed = task.completed { lines.add("COMPLETED", value: Self.utcText(completed)) }
        if task.percentComplete > 0 { lines.add("PERCENT-COMPLETE", value: "\(task.percentComplete)") }
        if task.priority > 0 { lines.add("PRIORITY", value: "\(task.priority)") }
        let tags = task.tags.compactMap(\.name).sorted()
        if !tags.isEmpty { lines.add("CATEGORIES", value: tags.map(ContentLines.escaped).joined(separator: ",")) }
        if let notes = task.notes, !notes.isEmpty { lines.add("DESCRIPTION", text: notes) }
        if let project = task.project, !project.isEmpty { lines.add("X-PIM-PROJECT", text: project) }
        if let wait = task.wait { lines.add("X-PIM-WAIT", value: Self.utcText(wait)) }
        // Annotations as RFC 5545's COMMENT ("non-processing information intended to provide a
        // comment to the calendar user"), each dated in an X- parameter when pim knows its date.
        for annotation in Annotation.list(task.annotations) {
            if let entry = annotation.entry {
                lines.add("COMMENT", ["X-PIM-ENTRY": Annotation.entryText(entry)], text: annotation.text)
            } else {
                lines.add("COMMENT", text: annotation.text)
            }
        }
        if let parent = task.parent.flatMap(Self.uid(of:)) { lines.add("RELATED-TO", ["RELTYPE": "PARENT"], text: parent) }
        // RFC 9253's DEPENDS-ON: "a task may be blocked waiting on the other, referenced, task".
        for dependency in Set(task.dependencies.compactMap(Self.uid(of:))).sorted() {
            lines.add("RELATED-TO", ["RELTYPE": "DEPENDS-ON"], text: dependency)
        }
        // An alarm before or after the due date is RELATED=END (RFC 5545 3.8.6.3), which needs a
        // DUE: without one it goes nowhere.
        Self.addAlarms(of: task.alarms, summary: task.title ?? "", relatedToEnd: true, keepRelative: task.due != nil, to: &lines)
        lines.end("VTODO")
    }

    /// The VALARM components of an `alarms` attribute: display alarms (their DESCRIPTION the
    /// record's summary, as RFC 5545 3.6.6 asks of one) at each TRIGGER, a relative one from the
    /// start, or from the end when `relatedToEnd` (a to-do's DUE).
    static func addAlarms(of stored: String?, summary: String, relatedToEnd: Bool, keepRelative: Bool = true, to lines: inout ContentLines) {
        for alarm in Alarm.list(stored) where keepRelative || !alarm.isRelative {
            lines.begin("VALARM")
            lines.add("ACTION", value: "DISPLAY")
            lines.add("DESCRIPTION", text: summary)
            switch alarm {
            case .absolute:
                lines.add("TRIGGER", ["VALUE": "DATE-TIME"], value: alarm.triggerText)
            case .relative:
                if relatedToEnd {
                    lines.add("TRIGGER", ["RELATED": "END"], value: alarm.triggerText)
                } else {
                    lines.add("TRIGGER", value: alarm.triggerText)
                }
            }
            lines.end("VALARM")
        }
    }

    /// The UID a record is written with: the one it was imported with (RFC 5545 3.8.4.7 and RFC
    /// 6350 6.7.6 ask that a UID stay), else its own UUID.
    static func uid(of record: ManagedObject) -> String? {
        if let uid = record.value(forKey: "uid") as? String, !uid.isEmpty { return uid }
        return (record.value(forKey: "uuid") as? UUID)?.uuidString.lowercased()
    }

    /// Tasks in their order, each parent before its subtasks: `pim import` links a subtask to a
    /// parent it has already read.
    static func parentsFirst(_ tasks: [TaskItem]) -> [TaskItem] {
        let included = Set(tasks.map(ObjectIdentifier.init))
        var placed: Set<ObjectIdentifier> = []
        var ordered: [TaskItem] = []
        func place(_ task: TaskItem) {
            guard !placed.contains(ObjectIdentifier(task)) else { return }
            placed.insert(ObjectIdentifier(task))
            if let parent = task.parent, included.contains(ObjectIdentifier(parent)) { place(parent) }
            ordered.append(task)
        }
        tasks.forEach(place)
        return ordered
    }

    /// `rule` with an UNTIL that names no zone (`UNTIL=20261231`: the end of that day where the
    /// event is) as the UTC instant it stands for, as RFC 5545 3.3.10 requires beside a DTSTART
    /// with a TZID.
    static func utcUntil(_ rule: String, zone: TimeZone) -> String {
        guard rule.contains("UNTIL="), let parsed = try? RecurrenceRule(rule), let local = parsed.localUntil else { return rule }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let end = local.last(in: calendar) else { return rule }
        return rule.split(separator: ";").map { part in
            part.uppercased().hasPrefix("UNTIL=") ? "UNTIL=" + RecurrenceRule.untilText(end) : String(part)
        }.joined(separator: ";")
    }

    // MARK: Values

    /// A date and time in `zone`: UTC's `Z` form, else the zone's wall-clock time with its TZID.
    private func add(_ name: String, _ date: Date, zone: TimeZone, to lines: inout ContentLines) {
        if Self.isUTC(zone) {
            lines.add(name, value: Self.utcText(date))
        } else {
            lines.add(name, ["TZID": zone.identifier], value: Self.localText(date, in: zone))
        }
    }

    /// The first e-mail address of a contact, which names it in ORGANIZER and ATTENDEE.
    private static func address(of contact: Contact) -> String? {
        contact.emailAddresses.lazy.compactMap(\.address).first { !$0.isEmpty }
    }

    static let utc = TimeZone(secondsFromGMT: 0)!

    /// The store's calendar, which days of events naming no zone are read in.
    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    static func isUTC(_ zone: TimeZone) -> Bool {
        ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Z", "Zulu"].contains(zone.identifier)
    }

    /// `20261204T090000Z`.
    static func utcText(_ date: Date) -> String {
        OutputFormat.string(from: date, format: "yyyyMMdd'T'HHmmss'Z'", timeZone: Self.utc)
    }

    /// `20261204T100000`, on `zone`'s clock.
    static func localText(_ date: Date, in zone: TimeZone) -> String {
        OutputFormat.string(from: date, format: "yyyyMMdd'T'HHmmss", timeZone: zone)
    }

    /// `20261204`, the day holding `date` in `zone`.
    static func dayText(_ date: Date, in zone: TimeZone) -> String {
        OutputFormat.string(from: date, format: "yyyyMMdd", timeZone: zone)
    }
}
