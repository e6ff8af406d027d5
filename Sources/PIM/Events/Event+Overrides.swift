// One occurrence of a repeating event changed on its own (RFC 5545's RECURRENCE-ID): the
// occurrence becomes an event of its own, linked to the repeating one (its `master`) by the
// start it replaces (`recurrenceID`), and the repeating event skips that start. Deleting the
// repeating event deletes its changed occurrences.
import Foundation
import ObjectGraph

extension PIMStore {
    /// The event that stands for the occurrence of `event` that `text` names
    /// (``occurrence(of:named:)``): the one made before for that occurrence, or a new one like
    /// `event` (title, location, notes, status, calendar, attendees, organizer, time zone) at the
    /// occurrence's start and of the event's length, which `event` then skips. Returns it, the
    /// occurrence's start as ``occurrence(of:named:)`` gives it, and whether it is new.
    ///
    /// Throws a usage error for an event that is itself a changed occurrence, or that does not
    /// repeat; `noOccurrence` when no occurrence matches, or the occurrence was skipped (deleted).
    public func detachOccurrence(of event: Event, named text: String) throws(PIMError) -> (event: Event, occurrence: Date, isNew: Bool) {
        if let master = event.master {
            throw PIMError.usage("event \(event.number) is a changed occurrence of event \(master.number): edit it without --occurrence")
        }
        let start = try occurrence(of: event, named: text)
        let startDate = event.allDay ? localMidnight(ofUTCDay: start) : start
        if let existing = changedOccurrence(of: event, startingAt: start) { return (existing, start, false) }
        if event.skippedOccurrences.contains(start) {
            throw PIMError.noOccurrence("the occurrence of event \(event.number) on \(describeOccurrence(start, of: event)) is skipped (deleted): bring it back with edit --skipped first")
        }
        // Skipped before the new event is linked, which would otherwise be taken for the
        // occurrence's changed event (and deleted).
        try skipOccurrence(of: event, named: text)
        guard let copy = insertRecord("Event") as? Event, let masterStart = event.start else {
            preconditionFailure("the Event entity is not represented by its generated class")
        }
        copy.title = event.title
        copy.location = event.location
        copy.notes = event.notes
        copy.status = event.status
        copy.calendar = event.calendar
        copy.timeZone = event.timeZone
        copy.allDay = event.allDay
        copy.start = startDate
        if let end = event.end {
            if event.allDay {
                let days = calendar.dateComponents([.day], from: masterStart, to: end).day ?? 1
                copy.end = calendar.date(byAdding: .day, value: days, to: startDate)
            } else {
                copy.end = startDate.addingTimeInterval(end.timeIntervalSince(masterStart))
            }
        }
        copy.organizer = event.organizer
        for attendee in event.attendees { copy.addToAttendees(attendee) }
        copy.recurrenceID = startDate
        copy.master = event
        return (copy, start, true)
    }

    /// The event standing for the occurrence of `event` that starts at `start` (as
    /// ``occurrence(of:named:)`` gives it), if that occurrence was changed on its own.
    func changedOccurrence(of event: Event, startingAt start: Date) -> Event? {
        let startDate = event.allDay ? localMidnight(ofUTCDay: start) : start
        return event.overrides.first { $0.recurrenceID == startDate && !$0.isDeleted }
    }

    /// Midnight UTC of the day that starts at `midnight` in the store's time zone (the inverse of
    /// ``localMidnight(ofUTCDay:)``).
    func midnightUTC(ofLocalDay midnight: Date) -> Date {
        calendar.midnightUTC(ofDayHolding: midnight)
    }

    /// Midnight in the store's time zone of the day whose midnight UTC is `day` (how all-day
    /// occurrences are named).
    private func localMidnight(ofUTCDay day: Date) -> Date {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = utc.dateComponents([.year, .month, .day], from: day)
        return calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day)) ?? day
    }
}
