// `pim import`: a web-service feed (EWS, xCard, xCal, GData, CalDAV/CardDAV, RSS/Atom events)
// read through its mapping into the store's context, records filled in as pim's own commands
// fill them, and refused records named by feed line. The command saves it as one undo group.
import FeedImport
import Foundation
import ObjectGraph

/// What importing one feed did.
public struct FeedImportSummary: Sendable {
    /// The feed's file.
    public var feed: String
    /// The mapping it was read with.
    public var format: String
    /// The source its records are matched within.
    public var source: String
    public var report: FeedImportReport
    /// The dependencies left out because each would close a circle (`--skip-invalid`, sync):
    /// their tasks were imported without them.
    public var dependenciesLeftOut: [FeedRecordIssue] = []
}

extension PIMStore {
    /// Imports the feed at `url` with `mapping` into the context (nothing is saved): records of
    /// `source` seen before are updated in place, new ones inserted, those the feed deletes
    /// deleted. Throws, naming the line, when the feed is malformed or a record is refused
    /// (unless `skipInvalid`, which leaves such records out and lists them in the summary); the
    /// context then holds part of the feed: roll it back.
    public func importFeed(at url: URL, mapping: FeedMapping, source: String?, skipInvalid: Bool) throws(PIMError) -> FeedImportSummary {
        try importFeeds(at: [url], mapping: mapping, source: source, skipInvalid: skipInvalid)[0]
    }

    /// Imports the feeds at `urls`, all with `mapping` and within `source`, as one import: a
    /// link to a record of a later file (a subtask's parent) is made once that file is read.
    public func importFeeds(at urls: [URL], mapping: FeedMapping, source: String?, skipInvalid: Bool) throws(PIMError) -> [FeedImportSummary] {
        let source = source ?? mapping.name
        guard !source.isEmpty else { throw PIMError.usage("the source is empty: give --source a name") }
        var url = urls.first ?? URL(fileURLWithPath: "")
        var summaries: [FeedImportSummary] = []
        do {
            let importer = try FeedImporter(mapping: mapping, context: context,
                                            options: FeedImportOptions(source: source, timeZone: timeZone, skipsInvalidRecords: skipInvalid,
                                                                       bookkeepingAttributes: ["uuid", "created", "modified", "number"],
                                                                       identityAttribute: "uuid"))
            importer.prepare = { [self] record, isNew throws(PIMError) in try prepareImported(record, isNew: isNew) }
            for next in urls {
                url = next
                let report = try importer.importFeed(at: next)
                summaries.append(FeedImportSummary(feed: next.path, format: mapping.name, source: source, report: report))
            }
        } catch .invalidRecords(let issues) {
            throw PIMError.invalid("\(url.path): \(issues.count) record(s) refused, nothing imported:\n"
                                   + issues.map { "  \($0)" }.joined(separator: "\n"))
        } catch {
            throw PIMError.feed(error.description)
        }
        let circles = try breakDependencyCircles(feed: url.path, refusing: !skipInvalid)
        if !circles.isEmpty, !summaries.isEmpty { summaries[summaries.count - 1].dependenciesLeftOut += circles }
        return summaries
    }

    /// Checks the dependencies of the tasks an import made or changed: a task that, through the
    /// feed's RELATED-TO;RELTYPE=DEPENDS-ON, depends on itself (directly or through others) is
    /// refused as pim's own edits refuse it, naming the tasks; with `refusing` false (`pim import
    /// --skip-invalid`, `pim sync`) the dependency that closes the circle is left out instead,
    /// and answered as an issue.
    private func breakDependencyCircles(feed: String, refusing: Bool) throws(PIMError) -> [FeedRecordIssue] {
        var issues: [FeedRecordIssue] = []
        let touched = (context.insertedObjects.union(context.updatedObjects)).compactMap { $0 as? TaskItem }
            .sorted { ($0.title ?? "", $0.uuid?.uuidString ?? "") < ($1.title ?? "", $1.uuid?.uuidString ?? "") }
        func name(_ task: TaskItem) -> String { "\"\(task.title ?? "")\"" }
        for task in touched {
            for dependency in task.dependencies.sorted(by: { ($0.title ?? "") < ($1.title ?? "") }) {
                let path = dependency === task ? [task, task] : dependencyPath(from: dependency, to: task).map { [task] + $0 }
                guard let path else { continue }
                let circle = path.map(name).joined(separator: " → ")
                if refusing {
                    throw PIMError.invalid("\(feed): a circle of dependencies is refused (\(circle)), nothing imported")
                }
                task.removeFromDependencies(dependency)
                issues.append(FeedRecordIssue(feed: feed, line: 0, entity: "Task", key: task.externalID,
                                              message: "its dependency on \(name(dependency)) is left out: it would close a circle (\(circle))"))
            }
        }
        return issues
    }

    /// Reads the mapping file at `url` (`pim import --mapping`).
    public static func feedMapping(at url: URL) throws(PIMError) -> FeedMapping {
        do {
            return try FeedMapping(contentsOf: url)
        } catch {
            throw PIMError.feed(error.description)
        }
    }

    /// Fills an imported record as pim's own commands would: identity and dates for a new one
    /// (and for the groups made for its categories), all-day events on their days, repeat rules
    /// checked, done tasks given their completion.
    func prepareImported(_ record: ManagedObject, isNew: Bool) throws(PIMError) {
        if isNew, RecordKind(entity: record.entity) != nil {
            // A record keyed by a UUID (a vCard's or iCalendar UID) has taken it as its own.
            if record.value(forKey: "uuid") == nil { record.setValue(UUID(), forKey: "uuid") }
            record.setValue(now, forKey: "created")
            record.setValue(now, forKey: "modified")
        }
        // A UID that is the record's own UUID as pim writes it says nothing more: not kept. Bare
        // (vCard 3.0, iCalendar) always; as vCard 4.0's `urn:uuid:` for a record that had no UID
        // of its own (its own 4.0 export coming back), while a new record keeps that form as the
        // file wrote it (RFC 6350 6.7.6).
        if RecordKind(entity: record.entity) != nil, let uid = record.value(forKey: "uid") as? String,
           let uuid = record.value(forKey: "uuid") as? UUID, FeedImporter.uuid(in: uid) == uuid,
           uid.lowercased() == uuid.uuidString.lowercased() || !isNew && !record.isInserted && record.committedValues(forKeys: ["uid"])["uid"] is NSNull {
            record.setValue(nil, forKey: "uid")
        }
        switch record {
        case let event as Event: try prepareImported(event)
        case let task as TaskItem: try prepareImported(task)
        case let contact as Contact: prepareImported(contact)
        default: break
        }
    }

    private func prepareImported(_ event: Event) throws(PIMError) {
        try prepareTimes(of: event)
        for changed in event.overrides where !changed.isDeleted {
            if changed.isInserted { try prepareImported(changed, changing: event) }
            // The series skips each start a changed occurrence replaces (as pim's own edits of
            // one occurrence do), though RFC 5545 leaves such starts out of EXDATE.
            let skipped = (event.exceptionDates ?? "").split(separator: ",").map(String.init)
            if let replaced = changed.recurrenceID, !skipped.contains(event.exceptionText(replaced)) {
                event.exceptionDates = (skipped + [event.exceptionText(replaced)]).joined(separator: ",")
            }
        }
    }

    /// An occurrence of `master` changed on its own, as a feed gives it (CalDAV's VEVENT with a
    /// RECURRENCE-ID, an EWS modified occurrence, a GData exception): made like
    /// ``detachOccurrence(of:named:)`` makes one, what the feed does not say taken from the
    /// series.
    private func prepareImported(_ changed: Event, changing master: Event) throws(PIMError) {
        changed.setValue(UUID(), forKey: "uuid")
        changed.setValue(now, forKey: "created")
        changed.setValue(now, forKey: "modified")
        if changed.title == nil || changed.title == "" { changed.title = master.title }
        if changed.location == nil { changed.location = master.location }
        if changed.notes == nil { changed.notes = master.notes }
        if changed.timeZone == nil { changed.timeZone = master.timeZone }
        changed.calendar = master.calendar
        changed.allDay = master.allDay
        changed.organizer = master.organizer
        for attendee in master.attendees { changed.addToAttendees(attendee) }
        guard let replaced = changed.recurrenceID else { throw PIMError.invalid("Event.recurrenceID: a changed occurrence without the start it replaces") }
        if changed.start == nil { changed.start = replaced }
        if changed.end == nil, let start = changed.start, let seriesStart = master.start, let seriesEnd = master.end {
            changed.end = start.addingTimeInterval(seriesEnd.timeIntervalSince(seriesStart))
        }
        try prepareTimes(of: changed)
        if master.allDay {
            // A changed all-day occurrence names its day as pim keeps days: midnight UTC.
            var zoned = Calendar(identifier: .gregorian)
            zoned.timeZone = master.timeZone.flatMap(TimeZone.init(identifier:)) ?? timeZone
            let parts = zoned.dateComponents([.year, .month, .day], from: replaced)
            changed.recurrenceID = Calendar.utc.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day)) ?? replaced
        }
    }

    /// An event's start and end as pim keeps them: all-day events on their days, an end always.
    private func prepareTimes(of event: Event) throws(PIMError) {
        let parser = dateParser
        if event.timeZone == nil { event.timeZone = timeZone.identifier }
        guard var start = event.start else { throw PIMError.invalid("Event.start: the record has no start") }
        var end = event.end
        if event.allDay {
            // The day the start falls on where the event is (Exchange sends an all-day event as
            // the instants of its local midnights), as pim keeps days: their midnight here.
            var zoned = Calendar(identifier: .gregorian)
            zoned.timeZone = event.timeZone.flatMap(TimeZone.init(identifier:)) ?? timeZone
            func day(_ date: Date) -> Date {
                let parts = zoned.dateComponents([.year, .month, .day], from: date)
                return parser.calendar.startOfDay(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1) ?? date
            }
            start = day(start)
            end = end.map(day)
            if let last = end, last <= start { end = parser.adding(days: 1, to: start) }
            end = end ?? parser.adding(days: 1, to: start)
        } else {
            end = end ?? start.addingTimeInterval(Self.defaultEventLength)
        }
        guard let end, end >= start else {
            throw PIMError.invalid("Event.end: \(event.end.map { "\($0)" } ?? "") comes before the start \(start)")
        }
        if event.start != start { event.start = start }
        if event.end != end { event.end = end }
        if event.master != nil { return }
        if let text = event.recurrenceRule {
            do {
                let rule = try RecurrenceRule(text)
                if event.recurrenceRule != rule.description { event.recurrenceRule = rule.description }
            } catch {
                throw PIMError.recurrence(error)
            }
        }
    }

    private func prepareImported(_ task: TaskItem) throws(PIMError) {
        if let text = task.recurrenceRule {
            guard task.due != nil else { throw PIMError.invalid("Task.recurrenceRule: a repeating task needs a due date") }
            do {
                let rule = try RecurrenceRule(text)
                if task.recurrenceRule != rule.description { task.recurrenceRule = rule.description }
            } catch {
                throw PIMError.recurrence(error)
            }
            if task.recurrenceStart == nil { task.recurrenceStart = task.due }
        }
        // When the feed does not say when, the first import's instant stays.
        if task.status == "done", task.completed == nil {
            task.completed = task.isInserted ? now : task.committedValues(forKeys: ["completed"])["completed"] as? Date ?? now
        }
        if task.status == "started", task.started == nil {
            task.started = task.isInserted ? now : task.committedValues(forKeys: ["started"])["started"] as? Date ?? now
        }
    }

    /// A person's or an organization's values as pim keeps them.
    private func prepareImported(_ contact: Contact) {
        // Groups an import made for the contact's categories: records like any other group.
        for group in contact.groups where group.isInserted && group.value(forKey: "uuid") == nil {
            group.setValue(UUID(), forKey: "uuid")
            group.setValue(now, forKey: "created")
            group.setValue(now, forKey: "modified")
        }
        // Days of no time zone, as pim keeps birthdays.
        let calendar = dateParser.calendar
        if let person = contact as? Person, let birthday = person.birthday, calendar.midnightUTC(ofDayHolding: birthday) != birthday {
            person.birthday = calendar.midnightUTC(ofDayHolding: birthday)
        }
        if let person = contact as? Person, let anniversary = person.anniversary, calendar.midnightUTC(ofDayHolding: anniversary) != anniversary {
            person.anniversary = calendar.midnightUTC(ofDayHolding: anniversary)
        }
        for email in contact.emailAddresses {
            if let address = email.address, address.lowercased().hasPrefix("mailto:") { email.address = String(address.dropFirst(7)) }
            email.label = Self.importedLabel(email.label)
        }
        for phone in contact.phoneNumbers {
            if let number = phone.number, number.lowercased().hasPrefix("tel:") { phone.number = String(number.dropFirst(4)) }
            phone.label = Self.importedLabel(phone.label, phone: true)
        }
        for address in contact.postalAddresses {
            address.label = Self.importedLabel(address.label)
        }
    }

    /// A vCard TYPE list as a label: lower case, without the types that say nothing a label
    /// would (`voice`, `pref`, `internet`, `x400`); a phone's `cell` is pim's `mobile` (as
    /// Exchange's MobilePhone is).
    static func importedLabel(_ types: String?, phone: Bool = false) -> String? {
        guard let types else { return nil }
        let kept = types.lowercased().split(whereSeparator: { $0 == "," || $0 == " " })
            .filter { !["voice", "pref", "internet", "x400"].contains($0) }
            .map { phone && $0 == "cell" ? "mobile" : $0 }
        let label = kept.map(String.init).joined(separator: " ")
        return label.isEmpty ? nil : label
    }
}
