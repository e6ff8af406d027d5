// Sort descriptors, the counterpart of NSSortDescriptor: a key path, a direction and a
// comparison (default, case-insensitive, localized, localized standard), used to sort arrays
// of key-value values in memory; the SQLite store translates the same descriptors to ORDER BY.
import Foundation

/// How a sort descriptor orders a key's values, named after Foundation's selectors.
public enum SortComparison: String, Sendable, Hashable, CaseIterable {
    /// `compare:`: numbers by value, strings by Unicode order, dates chronologically.
    case `default` = "compare:"
    /// `caseInsensitiveCompare:`: strings ignoring case.
    case caseInsensitive = "caseInsensitiveCompare:"
    /// `localizedCompare:`: strings in the current locale's order.
    case localized = "localizedCompare:"
    /// `localizedCaseInsensitiveCompare:`: strings in the current locale's order, ignoring case.
    case localizedCaseInsensitive = "localizedCaseInsensitiveCompare:"
    /// `localizedStandardCompare:`: as the Finder sorts names ("file2" before "file10").
    case localizedStandard = "localizedStandardCompare:"
}

/// Orders values by the value of a key path, the counterpart of `NSSortDescriptor`.
///
/// ```swift
/// let byName = SortDescriptor(key: "name", comparison: .localizedStandard)
/// let people = rows.sorted(using: [SortDescriptor(key: "age", ascending: false), byName])
/// byName.description   // (name, ascending, localizedStandardCompare:)
/// ```
///
/// nil sorts before every other value when ascending (as SQLite sorts NULL), values of
/// different kinds that have no order between them sort by kind so sorting stays total.
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The key path whose value orders the elements.
    public var key: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// How the values are compared.
    public var comparison: SortComparison

    /// Creates a descriptor ordering by `key`.
    public init(key: String, ascending: Bool = true, comparison: SortComparison = .default) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }

    /// Creates a descriptor ordering by a typed key path (see `Key` for how it is named).
    public init<Root, Value>(_ keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparison: SortComparison = .default) {
        self.init(key: Key(keyPath).path, ascending: ascending, comparison: comparison)
    }

    /// The same descriptor in the other direction.
    public var reversed: SortDescriptor {
        SortDescriptor(key: key, ascending: !ascending, comparison: comparison)
    }

    /// `(key, ascending, compare:)`, as NSSortDescriptor prints.
    public var description: String {
        "(\(key), \(ascending ? "ascending" : "descending"), \(comparison.rawValue))"
    }

    /// The order of two objects by this descriptor.
    public func compare(_ a: Any?, _ b: Any?) -> ComparisonResult {
        compareValues(KeyValueAccess.value(of: a, forKeyPath: key), KeyValueAccess.value(of: b, forKeyPath: key))
    }

    /// The order of two key values (already read) by this descriptor, direction included.
    public func compareValues(_ a: Any?, _ b: Any?) -> ComparisonResult {
        compareKeys(sortKey(a), sortKey(b))
    }

    /// A key value taken apart once, so that sorting compares typed values instead of casting
    /// `Any` at every comparison. Case-insensitive strings are folded here.
    enum SortKey {
        case null
        case number(Number)
        case string(String)
        case date(Date)
        /// UUIDs order by their bytes, as NSUUID's compare(_:) and SQLite's blobs order them.
        case uuid(UUID)
        /// Data, and a URL's string (UTF-8): byte by byte, as SQLite orders blobs and text.
        case bytes([UInt8])
        case other(Any)

        /// Values of different kinds, which have no order between them, sort by kind.
        var rank: Int {
            switch self {
            case .null: return -1
            case .number: return 0
            case .string: return 1
            case .date: return 2
            case .uuid: return 3
            case .bytes: return 4
            case .other: return 5
            }
        }
    }

    func sortKey(_ value: Any?) -> SortKey {
        guard let value = KeyValueAccess.normalized(value) else { return .null }
        if let s = ValueComparison.string(value) {
            return .string(comparison == .caseInsensitive ? s.folding(options: .caseInsensitive, locale: nil) : s)
        }
        if let n = Number(value) {
            // SQLite stores a NaN as NULL, where it sorts: the in-memory store keeps the NaN
            // it was given, which sorts with the nils too.
            if case .double(let d) = n, d.isNaN { return .null }
            return .number(n)
        }
        if let d = value as? Date { return .date(d) }
        if let u = value as? UUID { return .uuid(u) }
        if let data = value as? Data { return .bytes(Array(data)) }
        if let url = value as? URL { return .bytes(Array(url.absoluteString.utf8)) }
        return .other(value)
    }

    func compareKeys(_ a: SortKey, _ b: SortKey) -> ComparisonResult {
        let result = orderKeys(a, b)
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    private func orderKeys(_ a: SortKey, _ b: SortKey) -> ComparisonResult {
        switch (a, b) {
        case let (.string(x), .string(y)):
            switch comparison {
            case .default, .caseInsensitive: return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
            case .localized: return x.compare(y, options: [], range: nil, locale: Locale.current)
            case .localizedCaseInsensitive:
                return x.compare(y, options: .caseInsensitive, range: nil, locale: Locale.current)
            case .localizedStandard:
                return x.compare(y, options: [.caseInsensitive, .numeric], range: nil, locale: Locale.current)
            }
        case let (.number(x), .number(y)): return x.compare(y)
        case let (.date(x), .date(y)): return x.compare(y)
        case let (.uuid(x), .uuid(y)):
            // The uppercase hexadecimal form orders as the bytes do.
            let (a, b) = (x.uuidString, y.uuidString)
            return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case let (.bytes(x), .bytes(y)):
            return x == y ? .orderedSame : (x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending)
        case let (.other(x), .other(y)): return (try? ValueComparison.order(x, y)) ?? .orderedSame
        default:
            return a.rank == b.rank ? .orderedSame : (a.rank < b.rank ? .orderedAscending : .orderedDescending)
        }
    }
}

extension Sequence {
    /// The elements sorted by `descriptors`, the first deciding and the next breaking ties;
    /// the sort is stable. Each element's key values are read once.
    ///
    /// ```swift
    /// let sorted = people.sorted(using: [SortDescriptor(key: "lastName"), SortDescriptor(key: "firstName")])
    /// ```
    public func sorted(using descriptors: [SortDescriptor]) -> [Element] {
        sorted(using: descriptors) { element, key in KeyValueAccess.value(of: element, forKeyPath: key) }
    }

    /// The elements sorted as the stores sort rows: each key read as the predicate evaluator
    /// reads it (`tasks.@avg.points` averages the values there are, as SQL's AVG does, where
    /// Foundation's key-value coding counts nil as 0), and elements equal on every key in the
    /// order `precedes` gives (the SQLite store's primary key order), else as they came.
    func sortedAsStored(using descriptors: [SortDescriptor], precedes: ((Element, Element) -> Bool)? = nil) -> [Element] {
        sorted(using: descriptors, value: { element, key in KeyValueAccess.value(of: element, forKeyPath: key, .evaluation) },
               precedes: precedes)
    }

    /// ``sorted(using:)`` with each element's value for a descriptor's key read by `value` (once
    /// per element and descriptor): a dictionary fetch's results are sorted by their entries,
    /// whose keys may be dotted key paths (`owner.name`) that key-value access would walk; a
    /// program sorts by values it computes. Elements equal on every key keep their order, or take
    /// the one `precedes` gives.
    ///
    /// ```swift
    /// let byScore = people.sorted(using: [SortDescriptor(key: "score", ascending: false)]) { person, _ in score(of: person) }
    /// ```
    public func sorted(using descriptors: [SortDescriptor], value: (Element, String) -> Any?,
                       precedes: ((Element, Element) -> Bool)? = nil) -> [Element] {
        let elements = Array(self)
        guard !descriptors.isEmpty else { return elements }
        let keys: [[SortDescriptor.SortKey]] = elements.map { element in
            descriptors.map { $0.sortKey(value(element, $0.key)) }
        }
        let order = elements.indices.sorted { i, j in
            switch descriptors.compareKeys(keys[i], keys[j]) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: break
            }
            if let precedes {
                if precedes(elements[i], elements[j]) { return true }
                if precedes(elements[j], elements[i]) { return false }
            }
            return i < j
        }
        return order.map { elements[$0] }
    }

    /// The elements sorted by one descriptor.
    public func sorted(using descriptor: SortDescriptor) -> [Element] { sorted(using: [descriptor]) }
}

extension Array where Element == SortDescriptor {
    /// The order of two elements' key values (one per descriptor, taken apart by
    /// ``SortDescriptor/sortKey(_:)``): the first descriptor deciding, the next breaking ties.
    @inline(__always)
    func compareKeys(_ a: [SortDescriptor.SortKey], _ b: [SortDescriptor.SortKey]) -> ComparisonResult {
        for (n, descriptor) in enumerated() {
            let result = descriptor.compareKeys(a[n], b[n])
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }
}
