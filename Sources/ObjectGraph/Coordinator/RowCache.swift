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
        /// When the store gave the row, as ``RowCache/now`` told it (0: unknown), shifted left
        /// once; bit 0 says whether the row is whole. One word for both keeps the entry at 24
        /// bytes.
        private var readAndWhole: UInt32

        var isWhole: Bool { readAndWhole & 1 != 0 }
        /// When the store gave the row (0: unknown, as old as the cache).
        var read: UInt32 { readAndWhole >> 1 }

        init(_ snapshot: consuming Snapshot, users: Int32, read: UInt32) {
            version = snapshot.version
            readAndWhole = read << 1 | (snapshot.isWhole ? 1 : 0)
            values = []
            swap(&values, &snapshot.values)
            self.users = users
        }

        func snapshot(for objectID: ObjectID) -> Snapshot {
            Snapshot(objectID: objectID, version: version, values: values, isWhole: isWhole)
        }

        /// Stamps the row as given by the store at `read`.
        mutating func renew(_ read: UInt32) {
            readAndWhole = read << 1 | (readAndWhole & 1)
        }
    }

    private let entries = Mutex(ObjectIDTable<Entry>())
    /// Grows whenever a cached snapshot is replaced or forgotten. An object that got its
    /// snapshot while the generation was `g` may fill its fault from that snapshot without
    /// asking the cache as long as the generation is still `g` (nothing newer can be cached).
    /// Starts at 1: an object that never recorded a generation (0) never matches.
    private let changes = Atomic<UInt64>(1)

    /// Whether rows record when the store gave them: from the first time a context of the
    /// coordinator has a positive staleness interval (``ManagedObjectContext/stalenessInterval``).
    /// Until then no row is stamped (reading the clock costs each cached row), and rows cached
    /// before count as old: a context that asks re-reads them once.
    private let tracksAge = Atomic<Bool>(false)
    /// The clock rows are stamped with, in tenths of a second.
    private let clockStart = RowCache.monotonicTenths()
    /// Tenths of a second the cache's clock runs ahead of the system's (``advanceClock(by:)``).
    private let clockSkew = Atomic<UInt64>(0)

    /// The current generation (see `changes`).
    var generation: UInt64 { changes.load(ordering: .acquiring) }

    /// The cached snapshot of `objectID`, if some context uses it.
    func snapshot(for objectID: ObjectID) -> Snapshot? {
        entries.withLock { $0[objectID]?.snapshot(for: objectID) }
    }

    /// The cached snapshot of `objectID` if the store gave it no more than `interval` seconds
    /// ago (told to a tenth of a second; a row cached before ages were tracked is too old).
    func snapshot(for objectID: ObjectID, readWithin interval: Double) -> Snapshot? {
        trackAges()
        let now = self.now
        return entries.withLock { entries in
            guard let entry = entries[objectID], entry.read > 0, Double(now - min(now, entry.read)) <= interval * 10 else { return nil }
            return entry.snapshot(for: objectID)
        }
    }

    /// Whether rows record when the store gave them (see `tracksAge`).
    var isTrackingAges: Bool { tracksAge.load(ordering: .relaxed) }

    /// Restarts the age of the cached rows of `rows` (object IDs with the versions the store just
    /// gave them again) where the cache holds that version: a fetch that reads a row it holds
    /// already renews it without replacing it (nor growing the generation).
    func renew(_ rows: [(ObjectID, Int64)]) {
        guard !rows.isEmpty else { return }
        let read = now
        guard read > 0 else { return }
        entries.withLock { entries in
            for (objectID, version) in rows {
                entries.withValue(for: objectID) { entry in
                    guard entry != nil, entry!.version == version else { return }
                    entry!.renew(read)
                }
            }
        }
    }

    /// Makes rows record when the store gave them, from now on (see `tracksAge`).
    func trackAges() {
        if !tracksAge.load(ordering: .relaxed) { tracksAge.store(true, ordering: .relaxed) }
    }

    /// The time to stamp rows with now: tenths of a second since the cache was made, from 1
    /// (0 means unknown) up to 2^31 - 1 (6.8 years, where it stays); 0 while ages are not tracked.
    private var now: UInt32 {
        guard tracksAge.load(ordering: .relaxed) else { return 0 }
        let tenths = RowCache.monotonicTenths() - clockStart + clockSkew.load(ordering: .relaxed)
        return UInt32(min(tenths + 1, UInt64(Int32.max)))
    }

    /// Moves the cache's clock `seconds` on, so that every row cached is that much older (tests
    /// of staleness, which must not wait for time to pass).
    func advanceClock(by seconds: Double) {
        clockSkew.add(UInt64(max(0, seconds * 10)), ordering: .relaxed)
    }

    /// The monotonic clock in tenths of a second.
    private static func monotonicTenths() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 10 + UInt64(time.tv_nsec) / 100_000_000
    }

    /// Records `snapshot` for one more user (a newer version replaces an older one).
    /// `fromStore`: the store just gave the row (false: it came from this cache), which makes
    /// the entry's age start again.
    func retain(_ snapshot: Snapshot, fromStore: Bool = true) {
        let read = fromStore ? now : 0
        entries.withLock { entries in _ = retain(snapshot, read: read, in: &entries) }
    }

    /// Records each of `snapshots` for one more user, under one lock. True when the cache now
    /// holds every one of them at its version (none had a newer version cached).
    @discardableResult
    func retain(_ snapshots: [Snapshot]) -> Bool {
        guard !snapshots.isEmpty else { return true }
        let read = now
        return entries.withLock { entries in
            entries.reserveCapacity(snapshots.count)
            defer { entries.endReservation() }
            var allCurrent = true
            for snapshot in snapshots where !retain(snapshot, read: read, in: &entries) { allCurrent = false }
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
        let read = now
        return entries.withLock { entries in
            entries.reserveCapacity(max(rows.count, expected))
            defer { entries.endReservation() }
            var allCurrent = true
            for index in rows.indices {
                var taken: Snapshot? = rows[index].moveOut()
                if !retain(&taken, read: read, in: &entries) { allCurrent = false }
            }
            return allCurrent
        }
    }

    /// False when the cache keeps a newer version than `snapshot`.
    private func retain(_ snapshot: Snapshot, read: UInt32, in entries: inout ObjectIDTable<Entry>) -> Bool {
        var taken: Snapshot? = snapshot
        return retain(&taken, read: read, in: &entries)
    }

    /// False when the cache keeps a newer version than `snapshot`, which a new entry takes
    /// (moved out, not copied). `read` stamps the row (see ``Entry/read``).
    private func retain(_ snapshot: inout Snapshot?, read: UInt32, in entries: inout ObjectIDTable<Entry>) -> Bool {
        // One lookup; the entry is changed in place.
        let objectID = snapshot.unsafelyUnwrapped.objectID
        return entries.withValue(for: objectID) { entry in
            guard entry != nil else {
                entry = Entry(snapshot.take().unsafelyUnwrapped, users: 1, read: read)
                return true
            }
            let version = snapshot.unsafelyUnwrapped.version
            let current = version >= entry!.version
            if current {
                if version > entry!.version { changes.add(1, ordering: .releasing) }
                let users = entry!.users
                let stamp = version > entry!.version ? read : max(read, entry!.read)
                entry = Entry(merged(entry!.snapshot(for: objectID), snapshot.unsafelyUnwrapped), users: users, read: stamp)
            }
            entry!.users += 1
            return current
        }
    }

    /// Replaces the snapshots that are cached (saves and refreshes bring newer versions); rows
    /// no context uses are not added. The rows come from the store (read or written), so the
    /// entries' ages start again.
    func update(_ snapshots: [Snapshot]) {
        var rows = snapshots
        update(taking: &rows)
    }

    /// ``update(_:)`` for rows the caller gives up: each is moved into the cache rather than
    /// copied (`rows` is left empty), and a cached row is only read where it lies.
    func update(taking rows: inout [Snapshot]) {
        guard !rows.isEmpty else { return }
        defer { rows.removeAll() }
        let read = now
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
                        entry = Entry(merged(cached, taken.unsafelyUnwrapped), users: users, read: read)
                    } else {
                        entry = Entry(taken.take().unsafelyUnwrapped, users: users, read: read)
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
