// The friendly filters of `pim events list` and `pim contacts list`: events in a time range (a
// repeating event is listed once if one of its occurrences, not skipped, meets the range) or of a
// calendar; contacts of a group.
import Foundation
import ObjectGraph

/// Friendly event filters as typed.
public struct EventFilter: Sendable {
    public var from: String?
    public var to: String?
    public var calendar: String?

    public init() {}
}

extension PIMStore {
    /// The predicates of `filter`, and the window its `from` and `to` make for repeating events
    /// (``RecordQuery/occurring``; nil without either). Each date is read once, so a phrase such
    /// as "now" is one instant in the predicates and the window.
    public func criteria(for filter: EventFilter) throws(PIMError) -> (predicates: [ObjectGraph.Predicate], occurring: Range<Date>?) {
        let from = try filter.from.map { text throws(PIMError) in try readDate(text, with: dateParser) }
        let to = try filter.to.map { text throws(PIMError) in try readDate(text, with: dateParser) }
        var formats: [(String, [Any?])] = []
        // Repeating and all-day events are kept for the window's own test (``RecordQuery/occurring``):
        // an occurrence may meet it, and an all-day event's days are days in any time zone, not
        // the instants of the zone it was made in.
        if let from { formats.append(("recurrenceRule != nil OR allDay == YES OR end > %@ OR start >= %@", [from, from])) }
        if let to { formats.append(("allDay == YES OR start < %@", [to])) }
        if let calendar = filter.calendar { formats.append(("calendar ==[c] %@", [calendar])) }
        let predicates: [ObjectGraph.Predicate]
        do {
            predicates = try formats.map { try ObjectGraph.Predicate(format: $0.0, argumentArray: $0.1) }
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
        guard from != nil || to != nil else { return (predicates, nil) }
        let start = from ?? .distantPast, end = to ?? .distantFuture
        return (predicates, start < end ? start..<end : start..<start)
    }

    /// The predicate of the contacts in the group `reference` names.
    public func contactsPredicate(inGroup reference: String) throws(PIMError) -> ObjectGraph.Predicate {
        try membersPredicate(of: RecordResolver(store: self).resolve(reference, as: .group))
    }
}
