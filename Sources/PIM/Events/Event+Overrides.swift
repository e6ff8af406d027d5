// One occurrence of a repeating event changed on its own (RFC 5545's RECURRENCE-ID): the
// occurrence becomes an event of its own, linked to the repeating one (its `master`) by the
// start it replaces (`recurrenceID`: the occurrence's start as the series' rule gives it, an
// all-day occurrence's first day as midnight UTC), and the repeating event skips that start.
// Moving the series moves the starts its changed occurrences replace; a series that stops
// repeating, or is deleted, loses its changed occurrences.
import Foundation
import ObjectGraph

extension PIMStore {
    /// The event that stands for the occurrence of `event` that `text` names
    /// (``occurrence(of:named:)``): the one made before for that occurrence, or a new one like
    /// `event` (title, location, notes, status, calendar, attendees, organizer, time zone) at the
    /// occurrence's start and of the event's length, which `event` then skips. Returns it, the
    /// occurrence's start, and whether it is new.
    ///
    /// Throws a usage error for an event that is itself a changed occurrence, or that does not
    /// repeat; `noOccurrence` when no occurrence matches, or the occurrence was skipped (deleted).
    public func detachOccurrence(of event: Event, named text: String) throws(PIMError) -> (event: Event, occurrence: Date, isNew: Bool) {
        if let master = event.master {
            throw PIMError.usage("event \(event.number) is a changed occurrence of event \(master.number): edit it without --occurrence")
        }
        let start = try occurrence(of: event, named: text)
        if let existing = changedOccurrence(of: event, startingAt: start) { return (existing, start, false) }
        if event.skippedOccurrences.contains(start) {
            throw PIMError.noOccurrence("the occurrence of event \(event.number) on \(describeOccurrence(start, of: event)) is skipped (deleted): bring it back with edit --skipped first")
        }
        // Skipped before the new event is linked, which would otherwise be taken for the
        // occurrence's changed event (and deleted).
        try skipOccurrence(of: event, named: text)
        guard let copy = insertRecord("Event") as? Event, let seriesStart = event.start else {
            preconditionFailure("the Event entity is not represented by its generated class")
        }
        copy.title = event.title
        copy.location = event.location
        copy.notes = event.notes
        // Alarms before or after the start go with each occurrence; one at a set time is the
        // series' own, and goes off once.
        copy.alarms = Alarm.stored(Alarm.list(event.alarms).filter(\.isRelative))
        copy.status = event.status
        copy.calendar = event.calendar
        copy.timeZone = event.timeZone
        if event.allDay {
            // Days in the event's own time zone, as long as the series' occurrences.
            copy.setDays(EventDays(first: start, count: event.coveredDays(fallback: calendar)?.count ?? 1), fallback: calendar)
        } else {
            copy.allDay = false
            copy.start = start
            copy.end = event.end.map { start.addingTimeInterval($0.timeIntervalSince(seriesStart)) }
        }
        copy.organizer = event.organizer
        for attendee in event.attendees { copy.addToAttendees(attendee) }
        copy.recurrenceID = start
        copy.master = event
        return (copy, start, true)
    }

    /// The event standing for the occurrence of `event` that starts at `start` (as
    /// ``occurrence(of:named:)`` gives it), if that occurrence was changed on its own.
    func changedOccurrence(of event: Event, startingAt start: Date) -> Event? {
        event.overrides.first { $0.recurrenceID == start && !$0.isDeleted }
    }
}

extension Event {
    /// The days of the starts the changed occurrences replace, before the series moves (as
    /// ``skippedDaysBeforeMove(fallback:)`` has them).
    func changedOccurrenceDaysBeforeMove(fallback: Calendar) -> [(Event, DateComponents)] {
        overrides.compactMap { changed in changed.recurrenceID.map { (changed, occurrenceDay($0, fallback: fallback)) } }
    }

    /// After a move, gives each changed occurrence the start the series now has on its day
    /// (``changedOccurrenceDaysBeforeMove(fallback:)``), as ``keepSkipping(_:fallback:)`` skips
    /// the series there: RFC 5545 names the replaced occurrence by its start.
    func keepChangedOccurrences(_ days: [(Event, DateComponents)], fallback: Calendar) {
        guard !days.isEmpty, let rule = allDay ? dayRule(fallback: fallback) : rule else { return }
        for (changed, day) in days {
            if let start = ruleStart(onDay: day, rule: rule, fallback: fallback) { changed.recurrenceID = start }
        }
    }
}
