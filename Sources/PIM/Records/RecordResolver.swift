// Finding the record a user names: by short number (`12`), by UUID or a unique prefix of it
// (`3f2a`; digits of four or more that are no record's number are read as a prefix too), and for contacts and events (and tasks, groups) by a unique name: an exact match
// first (ignoring case), then a part of the name. Several matches are an error listing them.
import Foundation
import ObjectGraph

/// Resolves record references of one store.
public struct RecordResolver {
    let store: PIMStore

    public init(store: PIMStore) { self.store = store }

    /// The record of `kind` that `reference` names.
    public func resolve(_ reference: String, as kind: RecordKind, byName: Bool = true) throws(PIMError) -> ManagedObject {
        let text = reference.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw PIMError.usage("an empty \(kind.singular) id") }
        if let number = Int64(text), number > 0 {
            let numbered = try fetch(kind, "number == %@", number)
            if !numbered.isEmpty || text.count < 4 { return try unique(numbered, kind: kind, reference: text) }
        }
        let hex = text.lowercased()
        if hex.count >= 4, hex.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
            let matches = try records(kind, uuidPrefix: hex)
            if !matches.isEmpty || !byName { return try unique(matches, kind: kind, reference: text) }
        }
        guard byName else { throw PIMError.notFound(kind: kind, reference: text) }
        let exact = try fetch(kind, "%K ==[c] %@", kind.nameKey, text)
        if !exact.isEmpty { return try unique(withoutChangedOccurrences(exact), kind: kind, reference: text) }
        return try unique(withoutChangedOccurrences(fetch(kind, "%K CONTAINS[cd] %@", kind.nameKey, text)), kind: kind, reference: text)
    }

    /// `matches` without the changed occurrences of a repeating event among them: they share
    /// its title, which names the series.
    private func withoutChangedOccurrences(_ matches: [ManagedObject]) -> [ManagedObject] {
        matches.filter { match in
            guard let master = (match as? Event)?.master else { return true }
            return !matches.contains { $0 === master }
        }
    }

    /// The repeating event `reference` names: as ``resolve(_:as:byName:)``, but a title several
    /// events share names the one of them that repeats, when only one does (a repeating event
    /// shares its title with its changed occurrences).
    public func resolveRepeatingEvent(_ reference: String) throws(PIMError) -> ManagedObject {
        do {
            return try resolve(reference, as: .event)
        } catch {
            guard case .ambiguous = error else { throw error }
            let text = reference.trimmingCharacters(in: .whitespaces)
            var repeating = try fetch(.event, "title ==[c] %@ AND recurrenceRule != nil", text)
            if repeating.isEmpty { repeating = try fetch(.event, "title CONTAINS[cd] %@ AND recurrenceRule != nil", text) }
            guard repeating.count == 1 else { throw error }
            return repeating[0]
        }
    }

    /// The records of `kind` whose UUID starts with `prefix` (hexadecimal, dashes ignored), by
    /// number: the prefix is a range of UUIDs (`1bea` is 1bea0000-… up to, not including,
    /// 1beb0000-…), which the store finds on the UUID's unique index. Reading every UUID of the
    /// kind to compare its text took a quarter of a second with 20,000 tasks.
    func records(_ kind: RecordKind, uuidPrefix prefix: String) throws(PIMError) -> [ManagedObject] {
        guard let range = Self.uuidRange(ofPrefix: prefix) else { return [] }
        if let upper = range.upper {
            return try fetch(kind, "uuid >= %@ AND uuid < %@", range.lower, upper)
        }
        return try fetch(kind, "uuid >= %@", range.lower)
    }

    /// The UUIDs a hexadecimal prefix stands for: from the prefix padded with zeros up to the
    /// prefix plus one padded with zeros (none past `ffff…`); nil when the prefix, dashes
    /// removed, is not 1–32 hexadecimal digits.
    static func uuidRange(ofPrefix prefix: String) -> (lower: UUID, upper: UUID?)? {
        var digits = prefix.lowercased().filter { $0 != "-" }.map { $0.hexDigitValue ?? -1 }
        guard !digits.isEmpty, digits.count <= 32, !digits.contains(-1) else { return nil }
        func uuid(_ digits: [Int]) -> UUID {
            let padded = digits + Array(repeating: 0, count: 32 - digits.count)
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in 0..<16 { bytes[index] = UInt8(padded[2 * index] << 4 | padded[2 * index + 1]) }
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
        let lower = uuid(digits)
        // The next prefix: the last digit that is not f goes up by one, the f's after it drop.
        while let last = digits.last, last == 15 { digits.removeLast() }
        guard !digits.isEmpty else { return (lower, nil) }
        digits[digits.count - 1] += 1
        return (lower, uuid(digits))
    }

    /// The records of `kind` matching a predicate format (all when nil).
    func fetch(_ kind: RecordKind, _ format: String?, _ arguments: Any?...) throws(PIMError) -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: kind.entityName)
        do {
            if let format { request.predicate = try ObjectGraph.Predicate(format: format, argumentArray: arguments) }
        } catch {
            throw PIMError.wrapping(error, storePath: store.url.path)
        }
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "number")]
        return try store.fetch(request)
    }

    func unique(_ matches: [ManagedObject], kind: RecordKind, reference: String) throws(PIMError) -> ManagedObject {
        guard let first = matches.first else { throw PIMError.notFound(kind: kind, reference: reference) }
        guard matches.count == 1 else {
            throw PIMError.ambiguous(kind: kind, reference: reference, candidates: matches.map { record in
                let number = record.value(forKey: "number") as? Int64 ?? 0
                let uuid = (record.value(forKey: "uuid") as? UUID)?.uuidString.lowercased() ?? ""
                return "\(number)  \(uuid)  \(record.value(forKey: kind.nameKey) as? String ?? "")"
            })
        }
        return first
    }
}
