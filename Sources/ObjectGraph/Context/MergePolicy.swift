// Merge policies: how a save resolves optimistic locking conflicts (rows changed or deleted by
// another context or process since this context read them), and the error the default policy
// throws, carrying both sides' snapshots.

/// How a save resolves conflicts between the context's changes and what the store holds now.
public enum MergePolicy: Sendable, Hashable {
    /// Fail the save with a ``MergeError`` (the default).
    case error
    /// Property by property, changes made elsewhere win over the context's.
    case mergeByPropertyStoreTrump
    /// Property by property, the context's changes win over changes made elsewhere.
    case mergeByPropertyObjectTrump
    /// The context's version of each conflicting object replaces the stored one whole.
    case overwrite
    /// The context's changes to conflicting objects are discarded.
    case rollback
}

/// One object whose stored row changed since the context read it.
public struct MergeConflict: Sendable, CustomStringConvertible {
    public var objectID: ObjectID
    /// The object's values in the context (what the save tried to write).
    public var objectSnapshot: Snapshot
    /// The row as the context last read it; nil for an object it never read.
    public var cachedSnapshot: Snapshot?
    /// The row as the store holds it now; nil when it was deleted.
    public var persistedSnapshot: Snapshot?

    public var description: String {
        let stored = persistedSnapshot.map { "version \($0.version) in the store" } ?? "deleted in the store"
        return "\(objectID): changed from version \(cachedSnapshot?.version ?? 0), now \(stored)"
    }
}

/// A save failed because rows changed elsewhere since they were read; nothing was written.
public struct MergeError: Error, Sendable, CustomStringConvertible {
    public var conflicts: [MergeConflict]

    public var description: String {
        "merge conflict (\(conflicts.count) object\(conflicts.count == 1 ? "" : "s")): "
            + conflicts.map(\.description).joined(separator: "; ")
    }
}
