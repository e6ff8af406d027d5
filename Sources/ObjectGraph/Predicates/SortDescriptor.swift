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
        let result = orderValues(KeyValueAccess.normalized(a), KeyValueAccess.normalized(b))
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    private func orderValues(_ a: Any?, _ b: Any?) -> ComparisonResult {
        guard let a else { return b == nil ? .orderedSame : .orderedAscending }
        guard let b else { return .orderedDescending }
        if let x = ValueComparison.string(a), let y = ValueComparison.string(b) {
            switch comparison {
            case .default: return x.compare(y)
            case .caseInsensitive: return x.compare(y, options: .caseInsensitive)
            case .localized: return x.compare(y, options: [], range: nil, locale: Locale.current)
            case .localizedCaseInsensitive:
                return x.compare(y, options: .caseInsensitive, range: nil, locale: Locale.current)
            case .localizedStandard:
                return x.compare(y, options: [.caseInsensitive, .numeric], range: nil, locale: Locale.current)
            }
        }
        if let order = try? ValueComparison.order(a, b) { return order }
        let kindA = Self.kindRank(a), kindB = Self.kindRank(b)
        if kindA != kindB { return kindA < kindB ? .orderedAscending : .orderedDescending }
        return .orderedSame
    }

    private static func kindRank(_ value: Any) -> Int {
        if Number(value) != nil { return 0 }
        if ValueComparison.string(value) != nil { return 1 }
        if value is Date { return 2 }
        return 3
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
        let elements = Array(self)
        guard !descriptors.isEmpty else { return elements }
        let keys: [[Any?]] = elements.map { element in
            descriptors.map { KeyValueAccess.value(of: element, forKeyPath: $0.key) }
        }
        let order = elements.indices.sorted { i, j in
            for (n, descriptor) in descriptors.enumerated() {
                switch descriptor.compareValues(keys[i][n], keys[j][n]) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return i < j
        }
        return order.map { elements[$0] }
    }

    /// The elements sorted by one descriptor.
    public func sorted(using descriptor: SortDescriptor) -> [Element] { sorted(using: [descriptor]) }
}
