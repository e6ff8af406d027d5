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
    /// A policy of your own (Core Data's `NSMergePolicy` subclass): ``CustomMergePolicy``.
    case custom(CustomMergePolicy)

    /// The standard policy this one applies: itself, or a custom policy's ``CustomMergePolicy/base``.
    var standard: MergePolicy {
        if case .custom(let policy) = self { return policy.base }
        return self
    }

    /// Whether new values win over stored ones where both changed (object trump, overwrite).
    var newValuesWin: Bool { standard == .mergeByPropertyObjectTrump || standard == .overwrite }
}

/// A merge policy of your own, as a subclass of Core Data's `NSMergePolicy`: override
/// ``resolve(optimisticLockingConflicts:in:)`` or ``resolve(constraintConflict:in:)``, call
/// `super` to apply the ``base`` policy first (or do not, to resolve otherwise), then change
/// the objects as you need. The save writes what the objects then hold, and tries again (three
/// times at most); an error thrown fails the save, with nothing written.
///
/// ```swift
/// /// The store's values win, but this context's notes are kept.
/// final class KeepMyNotes: CustomMergePolicy, @unchecked Sendable {
///     override func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
///         try super.resolve(optimisticLockingConflicts: conflicts, in: context)
///         for conflict in conflicts where conflict.persistedSnapshot != nil {
///             if case .value(let notes)? = conflict.objectSnapshot.value(forKey: "notes") {
///                 context.object(with: conflict.objectID).setValue(notes, forKey: "notes")
///             }
///         }
///     }
/// }
/// context.mergePolicy = .custom(KeepMyNotes(base: .mergeByPropertyStoreTrump))
/// ```
open class CustomMergePolicy: Hashable, @unchecked Sendable {
    /// The standard policy `super`'s implementations apply (Core Data's `init(merge:)`); a custom
    /// base is replaced by its own base.
    public let base: MergePolicy

    public init(base: MergePolicy) { self.base = base.standard }

    /// Resolves objects whose rows changed, or went, since the context read them. The default
    /// applies ``base`` (which, for `.error`, throws the ``MergeError``).
    open func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
        try context.applyStandardPolicy(base, to: conflicts)
    }

    /// Resolves a new object that duplicates another on a uniqueness constraint. The default
    /// applies ``base``: `.error` throws ``StoreError/uniquenessViolation(entity:properties:objectIDs:)``,
    /// the others fold the duplicate into the original (its values winning with object trump and
    /// overwrite). Resolve it yourself by deleting one of them, say, or changing a value.
    open func resolve(constraintConflict conflict: ConstraintConflict, in context: ManagedObjectContext) throws {
        try context.applyStandardPolicy(base, to: conflict)
    }

    public static func == (lhs: CustomMergePolicy, rhs: CustomMergePolicy) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A new object whose values of a uniqueness constraint another object (stored, or new in the
/// same save) already has (Core Data's `NSConstraintConflict`).
public struct ConstraintConflict: Sendable, CustomStringConvertible {
    public var entity: String
    /// The constraint's properties.
    public var properties: [String]
    /// The new object that duplicates ``originalID``.
    public var duplicateID: ObjectID
    public var originalID: ObjectID

    public var description: String {
        "\(duplicateID) duplicates \(originalID) on (\(properties.joined(separator: ", "))) of \(entity)"
    }
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
