// Store identifiers interned as small integers. Object IDs carry a store's tag rather than its
// identifier string, so that copying one (into every registry, row cache entry and snapshot)
// retains nothing; stores compute their tag once and compare tags on every row.
import Synchronization

/// A store identifier (a UUID string) as a process-wide integer: equal identifiers give equal
/// tags on every thread, and tag 0 (``none``) stands for no store (a temporary object ID).
///
/// ```swift
/// let tag = StoreTag(interning: store.identifier)
/// tag.identifier == store.identifier   // true
/// ```
///
/// Interning and looking up take a lock: stores intern their identifier once, not per row.
struct StoreTag: Hashable, Sendable {
    let value: UInt32

    /// No store: the tag of temporary object IDs.
    static let none = StoreTag(value: 0)

    private init(value: UInt32) {
        self.value = value
    }

    /// The tag of `identifier`, the same one every time (identifiers are never forgotten; a
    /// process opens few stores).
    init(interning identifier: String) {
        self = Self.table.withLock { table in
            if let tag = table.tags[identifier] { return tag }
            let tag = StoreTag(value: UInt32(table.identifiers.count))
            table.identifiers.append(identifier)
            table.tags[identifier] = tag
            return tag
        }
    }

    /// The identifier this tag was interned from; nil for ``none``.
    var identifier: String? {
        guard self != .none else { return nil }
        return Self.table.withLock { $0.identifiers[Int(value)] }
    }

    private struct Table {
        var tags: [String: StoreTag] = [:]
        /// Indexed by tag value; slot 0 is ``none``'s and holds no identifier.
        var identifiers: [String] = [""]
    }

    private static let table = Mutex(Table())
}

/// A store's identifier with its tag, set together (a store's identifier can change once, when
/// it loads a file another process created).
struct StoreIdentity {
    let identifier: String
    let tag: StoreTag

    init(_ identifier: String) {
        self.identifier = identifier
        tag = StoreTag(interning: identifier)
    }
}
