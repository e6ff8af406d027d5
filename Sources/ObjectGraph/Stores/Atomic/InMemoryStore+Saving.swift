// Saving into the in-memory store: all or nothing. Every check (ownership, versions, uniqueness
// constraints) runs against the rows as they are before anything is written; only when all
// pass are rows inserted at version 1, updated to their version + 1, and deleted. The store keeps
// both sides of a relationship; a to-many list whose inverse is a to-one follows that to-one, as
// the SQLite store's lists follow their foreign keys.
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
        try refuseWritingIfReadOnly()
        return try lock.withLock { apply(try checked(request)) }
    }

    /// Throws when the store is read-only (a save that writes nothing passes).
    private func refuseWritingIfReadOnly() throws {
        guard isReadOnly else { return }
        throw StoreError.io(path: url?.path ?? identifier,
                            reason: "the store is read-only (\(SQLiteStore.readOnlyOption)): a save cannot write to it")
    }

    /// The in-memory store holds a save open: it checks everything when the save is prepared and
    /// writes when it commits (the coordinator lets no other request in between).
    public var supportsPreparedSaves: Bool { true }

    /// Checks `request` as ``save(_:)`` does and keeps its rows until ``commitPreparedSave()``.
    public func prepareSave(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try refuseWritingIfReadOnly()
        return try lock.withLock {
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

    /// A save checked and not written yet: its rows at their new versions, the rows out of the
    /// save whose to-many lists it changes through their inverse to-ones, and the rows whose
    /// derived attributes it changes (both at their versions).
    struct PendingSave {
        var inserted: [Snapshot]
        var updated: [Snapshot]
        var deleted: [ObjectID]
        var relisted: [Snapshot] = []
        var derived: [Snapshot] = []

        /// The position of each saved row: inserted rows at their index, updated ones after them.
        var positions: [ObjectID: Int] {
            var positions: [ObjectID: Int] = [:]
            positions.reserveCapacity(inserted.count + updated.count)
            for (index, row) in inserted.enumerated() { positions[row.objectID] = index }
            for (index, row) in updated.enumerated() { positions[row.objectID] = inserted.count + index }
            return positions
        }
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
        var pending = PendingSave(inserted: inserted, updated: updated, deleted: deletedIDs)
        keepInverseLists(of: &pending, sent: request)
        keepSentListsInStep(of: &pending, sent: request)
        dropDeletedMembers(of: &pending)
        dropDeletedFromOneWayLists(of: &pending)
        return derivingValues(of: pending)
    }

    /// Writes a checked save. Lock held.
    private func apply(_ pending: PendingSave) -> StoreSaveResult {
        for id in pending.deleted { table.remove(id) }
        for row in pending.inserted + pending.updated { table.store(row) }
        for row in pending.relisted { table.store(row) }
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
        // Relationships stay within the store, as the SQLite store's keys do (Core Data has no
        // relationships across stores).
        for snapshot in snapshots {
            for slot in snapshot.layout.relationshipIndexes {
                switch snapshot.values[slot] {
                case .object(let id) where id.storeTag != storeTag || id.isTemporaryID:
                    throw StoreError.foreignObjectID(id)
                case .objects(let ids):
                    if let id = ids.first(where: { $0.storeTag != storeTag || $0.isTemporaryID }) { throw StoreError.foreignObjectID(id) }
                default:
                    break
                }
            }
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

    // MARK: Inverse lists

    /// Keeps each stored to-many list whose inverse is a to-one (``RowTable/EntityInfo/listedToOnes``)
    /// in step with the to-one values: a row the save inserts with a destination, moves to
    /// another or deletes joins its new destination's list and leaves its old one's, as the
    /// SQLite store's lists, read from foreign keys, do. A list the save sends stands as sent (the
    /// context changed both sides: the usual case); the row of a destination out of the save
    /// changes in `relisted`, at its version (its list is no column of its own: on SQLite the
    /// write does not touch it either, and it is no conflict). Without this, a save that writes
    /// one side only (a merge policy that kept a to-one another context changed) would leave the
    /// old destination listing a row that points elsewhere, or one that is gone. Lock held.
    private func keepInverseLists(of pending: inout PendingSave, sent request: StoreSaveRequest) {
        var moves: [(member: ObjectID, inverse: String, from: ObjectID?, to: ObjectID?)] = []
        func noteMoves(of row: Snapshot?, replacing old: Snapshot?) {
            guard let id = (row ?? old)?.objectID else { return }
            for (slot, inverse) in table.info(for: id.entity).listedToOnes {
                let from = old.flatMap { Self.destination(in: $0.values[slot]) }
                let to = row.flatMap { Self.destination(in: $0.values[slot]) }
                if from != to { moves.append((id, inverse, from, to)) }
            }
        }
        for row in pending.inserted { noteMoves(of: row, replacing: nil) }
        // Only rows of entities with such to-ones need their stored row.
        for row in pending.updated where !table.info(for: row.objectID.entity).listedToOnes.isEmpty {
            noteMoves(of: row, replacing: table.row(for: row.objectID))
        }
        for id in pending.deleted where !table.info(for: id.entity).listedToOnes.isEmpty {
            noteMoves(of: nil, replacing: table.row(for: id))
        }
        guard !moves.isEmpty else { return }
        let saved = pending.positions
        let deleted = Set(pending.deleted)
        var relisted: [ObjectID: Snapshot] = [:]
        for move in moves {
            for (destination, joins) in [(move.from, false), (move.to, true)] {
                guard let destination, !deleted.contains(destination) else { continue }
                if let index = saved[destination] {
                    let inserted = index < pending.inserted.count
                    let sent = inserted ? request.inserted[index] : request.updated[index - pending.inserted.count]
                    guard let slot = sent.layout.index(of: move.inverse), !sent.values[slot].isLoaded else { continue }
                    if inserted {
                        Self.relist(move.member, joining: joins, in: &pending.inserted[index], slot: slot)
                    } else {
                        Self.relist(move.member, joining: joins, in: &pending.updated[index - pending.inserted.count], slot: slot)
                    }
                } else if var row = relisted[destination] ?? table.row(for: destination), let slot = row.layout.index(of: move.inverse) {
                    Self.relist(move.member, joining: joins, in: &row, slot: slot)
                    relisted[destination] = row
                }
            }
        }
        pending.relisted = relisted.keys.sorted().compactMap { relisted[$0] }
    }

    /// Keeps each to-many list an updated row sends in step with the other side, as the SQLite
    /// store's are by construction (a list read from foreign keys, one join table for both sides
    /// of a many-to-many). A save that writes one side only (the overwrite policy writing the
    /// context's whole list over one another context changed) would otherwise leave the sides
    /// disagreeing:
    /// - a list whose inverse is a to-one lists exactly the rows whose to-one names its row after
    ///   the save: members sent that point elsewhere leave it, rows stored in it that still point
    ///   here stay, after the members sent;
    /// - each member a many-to-many list gains or loses gains or loses the row in its own list,
    ///   unless the save sends that list too (the context changed both sides). Lock held.
    private func keepSentListsInStep(of pending: inout PendingSave, sent request: StoreSaveRequest) {
        var positions: [ObjectID: Int]?
        var deleted: Set<ObjectID>?
        var relisted: [ObjectID: Snapshot]?
        /// The row `id` will hold after the save, if it is in it or stored (nil when deleted).
        func rowAfterSave(_ id: ObjectID) -> Snapshot? {
            if positions == nil { positions = pending.positions }
            if let position = positions.unsafelyUnwrapped[id] {
                return position < pending.inserted.count ? pending.inserted[position] : pending.updated[position - pending.inserted.count]
            }
            if deleted == nil { deleted = Set(pending.deleted) }
            return deleted.unsafelyUnwrapped.contains(id) ? nil : table.row(for: id)
        }
        for index in pending.updated.indices {
            let sent = request.updated[index]
            let layout = sent.layout
            guard layout.hasToManySlots, let stored = table.row(for: sent.objectID) else { continue }
            for slot in sent.values.indices {
                guard case .objects(let list) = sent.values[slot], case .objects(let before) = stored.values[slot],
                      let relationship = layout.properties[slot] as? RelationshipDescription, relationship.isToMany,
                      let inverse = relationship.inverseRelationship, inverse.isStored else { continue }
                let owner = sent.objectID
                if !inverse.isToMany {
                    func pointsHere(_ member: ObjectID) -> Bool {
                        guard let row = rowAfterSave(member), let inverseSlot = row.layout.index(of: inverse.name) else { return false }
                        return Self.destination(in: row.values[inverseSlot]) == owner
                    }
                    let sentMembers = Set(list)
                    let kept = list.filter(pointsHere) + before.filter { !sentMembers.contains($0) && pointsHere($0) }
                    if kept != list { pending.updated[index].values[slot] = .objects(kept) }
                    continue
                }
                let old = Set(before), new = Set(list)
                for member in list.filter({ !old.contains($0) }) + before.filter({ !new.contains($0) }) {
                    let joins = new.contains(member)
                    if positions == nil { positions = pending.positions }
                    if let position = positions.unsafelyUnwrapped[member] {
                        let row = position < pending.inserted.count ? request.inserted[position] : request.updated[position - pending.inserted.count]
                        // The save sends that side too: it stands as the context made it.
                        if let inverseSlot = row.layout.index(of: inverse.name), row.values[inverseSlot].isLoaded { continue }
                        if position < pending.inserted.count {
                            if let inverseSlot = row.layout.index(of: inverse.name) {
                                Self.relist(owner, joining: joins, in: &pending.inserted[position], slot: inverseSlot)
                            }
                        } else if let inverseSlot = row.layout.index(of: inverse.name) {
                            Self.relist(owner, joining: joins, in: &pending.updated[position - pending.inserted.count], slot: inverseSlot)
                        }
                    } else {
                        // A row the save deletes leaves every list (dropDeletedMembers), and is not stored again.
                        if deleted == nil { deleted = Set(pending.deleted) }
                        if deleted.unsafelyUnwrapped.contains(member) { continue }
                        if relisted == nil { relisted = Dictionary(pending.relisted.map { ($0.objectID, $0) }, uniquingKeysWith: { $1 }) }
                        guard var row = relisted.unsafelyUnwrapped[member] ?? table.row(for: member),
                              let inverseSlot = row.layout.index(of: inverse.name) else { continue }
                        Self.relist(owner, joining: joins, in: &row, slot: inverseSlot)
                        relisted![member] = row
                    }
                }
            }
        }
        if let relisted { pending.relisted = relisted.keys.sorted().compactMap { relisted[$0] } }
    }

    /// Takes each deleted row out of the stored many-to-many lists that name it
    /// (``RowTable/EntityInfo/listedToManys``), as the SQLite store deletes its join-table rows:
    /// whatever the delete rule, and also from a list the save sends (a no-action rule leaves
    /// the deleted object in the context's list, never in the store's). The rows out of the save
    /// change in `relisted`, at their versions. Lock held.
    private func dropDeletedMembers(of pending: inout PendingSave) {
        var relisted: [ObjectID: Snapshot] = [:]
        for row in pending.relisted { relisted[row.objectID] = row }
        var saved: [ObjectID: Int]?
        var deleted: Set<ObjectID>?
        var changed = false
        for id in pending.deleted {
            let listed = table.info(for: id.entity).listedToManys
            guard !listed.isEmpty, let old = table.row(for: id) else { continue }
            for (slot, inverse) in listed {
                guard case .objects(let members) = old.values[slot] else { continue }
                if deleted == nil { deleted = Set(pending.deleted) }
                for member in members where !deleted.unsafelyUnwrapped.contains(member) {
                    if saved == nil { saved = pending.positions }
                    if let position = saved?[member] {
                        if position < pending.inserted.count {
                            Self.drop(id, from: &pending.inserted[position], listNamed: inverse)
                        } else {
                            Self.drop(id, from: &pending.updated[position - pending.inserted.count], listNamed: inverse)
                        }
                    } else if var row = relisted[member] ?? table.row(for: member) {
                        Self.drop(id, from: &row, listNamed: inverse)
                        relisted[member] = row
                        changed = true
                    }
                }
            }
        }
        if changed { pending.relisted = relisted.keys.sorted().compactMap { relisted[$0] } }
    }

    /// Takes each deleted row out of the stored lists of to-many relationships without a stored
    /// inverse (``InMemoryStore/oneWayLists``), as the SQLite store deletes their join-table rows:
    /// a deleted row does not know which lists name it, so the rows of each entity with such a
    /// relationship to a deleted row's entity are looked through, and the lists the save sends
    /// too. The rows out of the save change in `relisted`, at their versions. Lock held.
    private func dropDeletedFromOneWayLists(of pending: inout PendingSave) {
        guard !pending.deleted.isEmpty, !oneWayLists.isEmpty else { return }
        let deleted = Set(pending.deleted)
        var relisted: [ObjectID: Snapshot] = [:]
        for row in pending.relisted { relisted[row.objectID] = row }
        let saved = pending.positions
        var changed = false
        func dropped(from row: inout Snapshot, slot: Int) -> Bool {
            guard case .objects(let ids) = row.values[slot], ids.contains(where: deleted.contains) else { return false }
            row.values[slot] = .objects(ids.filter { !deleted.contains($0) })
            return true
        }
        for list in oneWayLists where pending.deleted.contains(where: { $0.entity.isKind(of: list.destination) }) {
            for stored in table.rows(of: [list.entity]) where !deleted.contains(stored.objectID) {
                if let position = saved[stored.objectID] {
                    if position < pending.inserted.count {
                        _ = dropped(from: &pending.inserted[position], slot: list.slot)
                    } else {
                        _ = dropped(from: &pending.updated[position - pending.inserted.count], slot: list.slot)
                    }
                } else {
                    var row = relisted[stored.objectID] ?? stored
                    if dropped(from: &row, slot: list.slot) {
                        relisted[stored.objectID] = row
                        changed = true
                    }
                }
            }
            // New rows are not in the table yet.
            for position in pending.inserted.indices where pending.inserted[position].objectID.entity === list.entity {
                _ = dropped(from: &pending.inserted[position], slot: list.slot)
            }
        }
        if changed { pending.relisted = relisted.keys.sorted().compactMap { relisted[$0] } }
    }

    /// Takes `member` out of the list named `name` in `row`, if it is there.
    private static func drop(_ member: ObjectID, from row: inout Snapshot, listNamed name: String) {
        guard let slot = row.layout.index(of: name) else { return }
        relist(member, joining: false, in: &row, slot: slot)
    }

    /// The destination a to-one value names, if any.
    private static func destination(in value: SnapshotValue) -> ObjectID? {
        if case .object(let id) = value { return id }
        return nil
    }

    /// Adds `member` to (or removes it from) the list in `slot` of `row`. A list never stored
    /// stays unloaded: it is read from the inverse values (``RowTable/destinations(ofSlot:in:)``).
    private static func relist(_ member: ObjectID, joining: Bool, in row: inout Snapshot, slot: Int) {
        guard case .objects(var ids) = row.values[slot] else { return }
        if joining {
            guard !ids.contains(member) else { return }
            ids.append(member)
        } else {
            guard let position = ids.firstIndex(of: member) else { return }
            ids.remove(at: position)
        }
        row.values[slot] = .objects(ids)
    }
}
