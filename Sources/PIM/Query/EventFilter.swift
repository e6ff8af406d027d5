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
    /// The predicates of `filter`.
    public func predicates(for filter: EventFilter) throws(PIMError) -> [ObjectGraph.Predicate] {
        var formats: [(String, [Any?])] = []
        if let text = filter.from {
            formats.append(("recurrenceRule != nil OR end > %@ OR start >= %@", Array(repeating: try readDate(text, with: dateParser), count: 2)))
        }
        if let text = filter.to { formats.append(("start < %@", [try readDate(text, with: dateParser)])) }
        if let calendar = filter.calendar { formats.append(("calendar ==[c] %@", [calendar])) }
        do {
            return try formats.map { try ObjectGraph.Predicate(format: $0.0, argumentArray: $0.1) }
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
    }

    /// The window `filter`'s `from` and `to` make for repeating events (``RecordQuery/occurring``):
    /// nil without either.
    public func occurrenceWindow(for filter: EventFilter) throws(PIMError) -> Range<Date>? {
        guard filter.from != nil || filter.to != nil else { return nil }
        let from = try filter.from.map { text throws(PIMError) in try readDate(text, with: dateParser) } ?? .distantPast
        let to = try filter.to.map { text throws(PIMError) in try readDate(text, with: dateParser) } ?? .distantFuture
        return from < to ? from..<to : from..<from
    }

    /// The predicate of the contacts in the group `reference` names.
    public func contactsPredicate(inGroup reference: String) throws(PIMError) -> ObjectGraph.Predicate {
        try membersPredicate(of: RecordResolver(store: self).resolve(reference, as: .group))
    }
}
