// Saving into the in-memory store: all or nothing. Every check (ownership, versions, uniqueness
// constraints) runs against the rows as they are before anything is written; only when all
// pass are rows inserted at version 1, updated to their version + 1, and deleted.
import Foundation

extension InMemoryStore {
    /// Writes `request`'s changes together, or throws and writes nothing.
    ///
    /// Throws ``StoreError/conflicts(_:)`` listing every updated, deleted or locked row whose
    /// version is not the expected one (with the row as stored, or nil when it is gone), then
    /// ``StoreError/uniquenessViolation(entity:properties:objectIDs:)`` for the first constraint
    /// two rows would share. Unloaded slots of updated rows keep their stored values; transient
    /// slots are not stored; derived attributes are computed (theirs and those of the rows that
    /// read them). Returns the inserted and updated rows at their new versions.
    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try lock.withLock { apply(try checked(request)) }
    }

    /// The in-memory store holds a save open: it checks everything when the save is prepared and
    /// writes when it commits (the coordinator lets no other request in between).
    public var supportsPreparedSaves: Bool { true }

    /// Checks `request` as ``save(_:)`` does and keeps its rows until ``commitPreparedSave()``.
    public func prepareSave(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try lock.withLock {
            precondition(preparedSave == nil, "a save was prepared in \(identifier) and neither committed nor rolled back")
            let pending = try checked(request)
            preparedSave = pending
            // The rows as written; to-many slots the save left unloaded stay so (the stored
            // lists they would be filled from are not written yet), as the SQLite store answers.
            return StoreSaveResult(snapshots: pending.inserted + pending.updated, deletedObjectIDs: pending.deleted)
        }
    }

    public func commitPreparedSave() throws {
        lock.withLock {
            guard let pending = preparedSave else { return }
            preparedSave = nil
            _ = apply(pending)
        }
    }

    public func rollbackPreparedSave() {
        lock.withLock { preparedSave = nil }
    }

    /// A save checked and not written yet: its rows at their new versions, and the rows whose
    /// derived attributes it changes (at their versions).
    struct PendingSave {
        var inserted: [Snapshot]
        var updated: [Snapshot]
        var deleted: [ObjectID]
        var derived: [Snapshot] = []
    }

    /// `request`'s rows at their new versions, once every check passed. Lock held.
    private func checked(_ request: StoreSaveRequest) throws -> PendingSave {
        try checkOwnership(of: request)
        try checkVersions(of: request)
        let inserted = request.inserted.map { storable($0, version: 1, merging: nil) }
        let updated = request.updated.map { snapshot in
            let current = table.row(for: snapshot.objectID)
            return storable(snapshot, version: (current?.version ?? snapshot.version) + 1, merging: current)
        }
        let deletedIDs = request.deleted.map(\.objectID)
        try checkUniqueness(of: inserted + updated, replacing: Set(request.updated.map(\.objectID) + deletedIDs))
        return derivingValues(of: PendingSave(inserted: inserted, updated: updated, deleted: deletedIDs))
    }

    /// Writes a checked save. Lock held.
    private func apply(_ pending: PendingSave) -> StoreSaveResult {
        for id in pending.deleted { table.remove(id) }
        for row in pending.inserted + pending.updated { table.store(row) }
        for row in pending.derived { table.store(row) }
        for row in pending.inserted {
            let root = table.info(for: row.objectID.entity).root
            let key = row.objectID.primaryKey ?? 0
            if key >= nextPrimaryKeys[root, default: 1] { nextPrimaryKeys[root] = key + 1 }
        }
        return StoreSaveResult(snapshots: (pending.inserted + pending.updated).map(table.filled), deletedObjectIDs: pending.deleted)
    }

    /// Every ID must be a permanent one of this store, of an entity it holds, with one value per
    /// slot; inserted IDs must be new.
    private func checkOwnership(of request: StoreSaveRequest) throws {
        let snapshots = request.inserted + request.updated
        let ids = snapshots.map(\.objectID) + request.deleted.map(\.objectID) + request.locked.map(\.objectID)
        for id in ids {
            guard id.storeTag == storeTag, !id.isTemporaryID else { throw StoreError.foreignObjectID(id) }
            guard heldEntities.contains(ObjectIdentifier(id.entity)) else {
                throw StoreError.unsupportedRequest(
                    "the in-memory store (configuration \(configurationName ?? "default")) does not hold \(id.entity.name) objects")
            }
        }
        for snapshot in snapshots where snapshot.values.count != snapshot.layout.properties.count {
            throw StoreError.unsupportedRequest(
                "\(snapshot.objectID) has \(snapshot.values.count) values for the \(snapshot.layout.properties.count) properties of \(snapshot.objectID.entity.name)")
        }
        for snapshot in request.inserted where table.row(for: snapshot.objectID) != nil {
            throw StoreError.unsupportedRequest("\(snapshot.objectID) is inserted but already stored")
        }
    }

    /// Throws the conflicts of every updated, deleted or locked row not at its expected version.
    private func checkVersions(of request: StoreSaveRequest) throws {
        let expected = request.updated.map { (objectID: $0.objectID, version: $0.version) } + request.deleted + request.locked
        let conflicts = expected.compactMap { id, version -> StoreConflict? in
            let current = table.row(for: id)
            guard current?.version != version else { return nil }
            return StoreConflict(objectID: id, expectedVersion: version, currentSnapshot: current.map(table.filled))
        }
        if !conflicts.isEmpty { throw StoreError.conflicts(conflicts) }
    }

    /// Throws when two of `rows`, or one of them and a stored row not in `replaced` (rows this
    /// save updates or deletes, whose stored keys no longer count), share a constraint's values.
    private func checkUniqueness(of rows: [Snapshot], replacing replaced: Set<ObjectID>) throws {
        var claimed: [RowTable.UniqueKey: ObjectID] = [:]
        for row in rows {
            for key in table.uniqueKeys(of: row) {
                var holder = claimed[key]
                if holder == nil, let stored = table.holder(of: key), stored != row.objectID, !replaced.contains(stored) {
                    holder = stored
                }
                if let holder {
                    throw StoreError.uniquenessViolation(
                        entity: row.objectID.entity.name, properties: key.properties, objectIDs: [row.objectID, holder])
                }
                claimed[key] = row.objectID
            }
        }
    }

    /// `snapshot` as stored at `version`: unloaded slots take the values of `current` (the row
    /// being updated), and slots of properties that are not stored stay unloaded.
    private func storable(_ snapshot: Snapshot, version: Int64, merging current: Snapshot?) -> Snapshot {
        var row = snapshot
        row.version = version
        if let current {
            for slot in row.values.indices where !row.values[slot].isLoaded { row.values[slot] = current.values[slot] }
        }
        for slot in table.info(for: snapshot.objectID.entity).unstoredSlots { row.values[slot] = .unloaded }
        return row
    }
}
