// The coordinator's row cache: the newest snapshot of each row some context has registered,
// shared by all contexts of the coordinator. Entries are reference-counted by the contexts'
// registered objects, so memory holds what is in use and no more (talk 000: only the pieces
// currently needed stay in memory).
import Foundation
import Synchronization

/// Snapshots by object ID, counted by how many registered objects use them. Thread-safe.
final class RowCache: Sendable {
    /// A cached row without its object ID, which the table's key is: 24 bytes a slot rather
    /// than 64. The table's storage is as large as the most rows cached at once, and a large
    /// fetch that follows a released one finds it new (fresh pages, zeroed on first touch).
    private struct Entry {
        var values: [SnapshotValue]
        var version: Int64
        var users: Int32
        var isWhole: Bool

        init(_ snapshot: consuming Snapshot, users: Int32) {
            version = snapshot.version
            isWhole = snapshot.isWhole
            values = []
            swap(&values, &snapshot.values)
            self.users = users
        }

        func snapshot(for objectID: ObjectID) -> Snapshot {
            Snapshot(objectID: objectID, version: version, values: values, isWhole: isWhole)
        }
    }

    private let entries = Mutex(ObjectIDTable<Entry>())
    /// Grows whenever a cached snapshot is replaced or forgotten. An object that got its
    /// snapshot while the generation was `g` may fill its fault from that snapshot without
    /// asking the cache as long as the generation is still `g` (nothing newer can be cached).
    /// Starts at 1: an object that never recorded a generation (0) never matches.
    private let changes = Atomic<UInt64>(1)

    /// The current generation (see `changes`).
    var generation: UInt64 { changes.load(ordering: .acquiring) }

    /// The cached snapshot of `objectID`, if some context uses it.
    func snapshot(for objectID: ObjectID) -> Snapshot? {
        entries.withLock { $0[objectID]?.snapshot(for: objectID) }
    }

    /// Records `snapshot` for one more user (a newer version replaces an older one).
    func retain(_ snapshot: Snapshot) {
        entries.withLock { entries in _ = retain(snapshot, in: &entries) }
    }

    /// Records each of `snapshots` for one more user, under one lock. True when the cache now
    /// holds every one of them at its version (none had a newer version cached).
    @discardableResult
    func retain(_ snapshots: [Snapshot]) -> Bool {
        guard !snapshots.isEmpty else { return true }
        return entries.withLock { entries in
            entries.reserveCapacity(snapshots.count)
            defer { entries.endReservation() }
            var allCurrent = true
            for snapshot in snapshots where !retain(snapshot, in: &entries) { allCurrent = false }
            return allCurrent
        }
    }

    /// ``retain(_:)`` for rows the caller gives up: each is moved into the cache rather than
    /// copied (`rows` is left empty, its capacity kept). `expected` is how many rows are coming
    /// in all, these and later calls' (a fetch hands its rows over in chunks): the table grows
    /// once for them rather than once per chunk.
    @discardableResult
    func retain(taking rows: inout [Snapshot], expecting expected: Int = 0) -> Bool {
        guard !rows.isEmpty else { return true }
        defer { rows.removeAll(keepingCapacity: true) }
        return entries.withLock { entries in
            entries.reserveCapacity(max(rows.count, expected))
            defer { entries.endReservation() }
            var allCurrent = true
            for index in rows.indices {
                var taken: Snapshot? = rows[index].moveOut()
                if !retain(&taken, in: &entries) { allCurrent = false }
            }
            return allCurrent
        }
    }

    /// False when the cache keeps a newer version than `snapshot`.
    private func retain(_ snapshot: Snapshot, in entries: inout ObjectIDTable<Entry>) -> Bool {
        var taken: Snapshot? = snapshot
        return retain(&taken, in: &entries)
    }

    /// False when the cache keeps a newer version than `snapshot`, which a new entry takes
    /// (moved out, not copied).
    private func retain(_ snapshot: inout Snapshot?, in entries: inout ObjectIDTable<Entry>) -> Bool {
        // One lookup; the entry is changed in place.
        let objectID = snapshot.unsafelyUnwrapped.objectID
        return entries.withValue(for: objectID) { entry in
            guard entry != nil else {
                entry = Entry(snapshot.take().unsafelyUnwrapped, users: 1)
                return true
            }
            let version = snapshot.unsafelyUnwrapped.version
            let current = version >= entry!.version
            if current {
                if version > entry!.version { changes.add(1, ordering: .releasing) }
                let users = entry!.users
                entry = Entry(merged(entry!.snapshot(for: objectID), snapshot.unsafelyUnwrapped), users: users)
            }
            entry!.users += 1
            return current
        }
    }

    /// Replaces the snapshots that are cached (saves and refreshes bring newer versions); rows
    /// no context uses are not added.
    func update(_ snapshots: [Snapshot]) {
        var rows = snapshots
        update(taking: &rows)
    }

    /// ``update(_:)`` for rows the caller gives up: each is moved into the cache rather than
    /// copied (`rows` is left empty), and a cached row is only read where it lies.
    func update(taking rows: inout [Snapshot]) {
        guard !rows.isEmpty else { return }
        defer { rows.removeAll() }
        entries.withLock { entries in
            for index in rows.indices {
                var taken: Snapshot? = rows[index].moveOut()
                let objectID = taken.unsafelyUnwrapped.objectID
                entries.withValue(for: objectID) { entry in
                    guard entry != nil, taken.unsafelyUnwrapped.version >= entry!.version else { return }
                    changes.add(1, ordering: .releasing)
                    let users = entry!.users
                    let cached = entry!.snapshot(for: objectID)
                    if needsMerge(cached, taken.unsafelyUnwrapped) {
                        entry = Entry(merged(cached, taken.unsafelyUnwrapped), users: users)
                    } else {
                        entry = Entry(taken.take().unsafelyUnwrapped, users: users)
                    }
                }
            }
        }
    }

    /// One user fewer; the entry goes when none is left.
    func release(_ objectID: ObjectID) {
        entries.withLock { entries in
            // One lookup, the count changed in place (no copy of the entry's snapshot).
            entries.withValue(for: objectID) { entry in
                guard entry != nil else { return }
                entry!.users -= 1
                if entry!.users <= 0 { entry = nil }
            }
        }
    }

    /// Forgets the snapshots of `objectIDs` (deleted rows, stale data) with their users.
    ///
    /// An object that used a forgotten row releases it later and finds no entry, which it
    /// ignores; if the row was cached again meanwhile, that release counts against the new
    /// entry, which may then go while an object still uses it. That costs a later fetch a read
    /// from the store, never a wrong value: objects keep their own rows, and the generation
    /// grows here, so no fault fills from a row it recorded before.
    func invalidate(_ objectIDs: [ObjectID]) {
        changes.add(1, ordering: .releasing)
        entries.withLock { entries in
            for id in objectIDs { entries[id] = nil }
        }
    }

    /// How many rows are cached (for tests and diagnostics).
    var count: Int { entries.withLock { $0.count } }

    /// Whether ``merged(_:_:)`` takes anything of `old`.
    private func needsMerge(_ old: Snapshot, _ new: Snapshot) -> Bool {
        guard old.version == new.version, old.values.count == new.values.count else { return false }
        return new.values.indices.contains { !new.values.isLoaded(at: $0) }
    }

    /// A newer snapshot keeps the older one's loaded to-many slots when it left them unloaded
    /// and its version is the same.
    private func merged(_ old: Snapshot, _ new: Snapshot) -> Snapshot {
        guard needsMerge(old, new) else { return new }
        var result = new
        for index in result.values.indices where !result.values[index].isLoaded {
            result.values[index] = old.values[index]
        }
        return result
    }
}
