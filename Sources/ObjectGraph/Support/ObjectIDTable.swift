// A map keyed by object ID for the tables that hold an entry per object in memory: a context's
// registry and the coordinator's row cache. Each fetched object is inserted into both and removed
// from both when it goes, so these tables are on every object's path.
//
// A store's keys are small integers handed out in sequence (SQLite's Z_PK, temporary IDs from a
// counter), and objects are fetched and released in runs of neighbouring keys. A hash table
// scatters such a run over its whole storage: at 100,000 objects each insertion and removal was a
// cache miss, about a fifth of a full fetch. Here the keys of one entity in one store sit in an
// array indexed by key ("run"), while they are dense enough: a fetch touches neighbouring slots,
// with no hashing and no probing. Keys that would leave a run too sparse go to the run's own
// dictionary, so memory stays bounded for any key pattern.
//
// Invariant: a key lives in exactly one place: its run's slots while it falls in the run's range,
// the run's dictionary otherwise (keys near the ends of Int64, which have no run, in `loose`). A
// run that grows over keys in its dictionary takes them over.
//
// Cost: an operation costs O(1), plus, when a run changes storage, the size of the storage and of
// the run's dictionary. Storage changes are rare enough to amortize: a run grows by at least its
// span, and the check that may move it over its dictionary's keys is made at powers of two of its
// count, at most once per count until it moves (`Checks`). `work` counts the slots and keys those
// scans visit, so that tests can hold the table to this.
//
// Memory: as a dictionary keeps its capacity when keys are removed, a run keeps its storage when
// its keys go, emptied or not; it changes storage when a key outside its range comes (the new
// range fits the keys it holds then). A context that fetches and releases 100,000 objects over and
// over reuses one storage: shrinking it as the objects went, and allocating it afresh for the next
// fetch (fresh pages, zeroed on first touch), was a twentieth of such a fetch.

struct ObjectIDTable<Value> {
    /// The keys of one entity, in one store (or temporary ones), within `base ..< base + slots.count`.
    private struct Run {
        unowned(unsafe) let entity: EntityDescription
        let storeTag: StoreTag
        let temporary: Bool
        /// The key of `slots[0]`.
        var base: Int64 = 0
        var slots: [Value?] = []
        /// How many slots hold a value.
        var count = 0

        @inline(__always)
        func holds(_ id: ObjectID, temporary: Bool) -> Bool {
            entity === id.entity && storeTag == id.storeTag && self.temporary == temporary
        }

        /// The slot of `key`, if the run's range covers it.
        @inline(__always)
        func slot(of key: Int64) -> Int? {
            let index = key &- base
            return index >= 0 && index < Int64(slots.count) ? Int(index) : nil
        }
    }

    /// The counts at which a run last looked, in vain, whether to take its dictionary's keys:
    /// the same look at the same counts finds the same, so it is not repeated (a key added and
    /// removed again would otherwise scan on every round). Reset when the run moves. Kept beside
    /// the runs: a larger `Run` made the hot paths copy runs out of the array.
    private struct Checks {
        var absorbAt = (count: -1, others: -1)
    }

    /// Runs are few (one per entity and store in use), so they are searched in order. `others`
    /// and `checks` go with `runs`, index by index.
    private var runs: [Run] = []
    /// Each run's keys outside its range, by key (the run fixes the rest of the ID).
    private var others: [SparseKeyTable<Value>] = []
    private var checks: [Checks] = []
    /// Keys too near the ends of Int64 for a run (run arithmetic must not overflow).
    private var loose: [ObjectID: Value] = [:]
    /// How many keys the table holds.
    private(set) var count = 0
    /// How many times a run moved to new storage, and how many slots and dictionary keys the
    /// table's scans visited (for tests and diagnostics: see the cost note at the top).
    private(set) var moves = 0
    private(set) var work = 0
    /// How many keys are about to come (``reserveCapacity(_:)``): room the first run to grow makes.
    private var capacityHint = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The key of `id` and whether it is temporary.
    @inline(__always)
    private static func key(of id: ObjectID) -> (value: Int64, temporary: Bool) {
        switch id.key {
        case .permanent(let value): return (value, false)
        case .temporary(let value): return (Int64(truncatingIfNeeded: value), true)
        }
    }

    /// Whether a run may hold `key`.
    @inline(__always)
    private static func mayHaveRun(_ key: Int64) -> Bool {
        key > -Int64.max / 4 && key < Int64.max / 4
    }

    @inline(__always)
    private func runIndex(of id: ObjectID, temporary: Bool) -> Int? {
        // Through the buffer: a run copied out of the array would retain its slots.
        runs.withUnsafeBufferPointer { runs in
            for index in runs.indices where runs[index].holds(id, temporary: temporary) { return index }
            return nil
        }
    }

    subscript(id: ObjectID) -> Value? {
        get {
            let (key, temporary) = Self.key(of: id)
            guard Self.mayHaveRun(key) else { return loose.isEmpty ? nil : loose[id] }
            guard let run = runIndex(of: id, temporary: temporary) else { return nil }
            if let slot = runs[run].slot(of: key) { return runs[run].slots[slot] }
            return others[run][key]
        }
        set {
            withValue(for: id) { $0 = newValue }
        }
    }

    /// Removes the value of `id`, answering it.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> Value? {
        withValue(for: id) { value in
            defer { value = nil }
            return value
        }
    }

    /// Runs `body` on the value of `id` in place (nil: none); what `body` leaves is the new value.
    /// A key is given a slot only when `body` stores a value.
    mutating func withValue<Result>(for id: ObjectID, _ body: (inout Value?) -> Result) -> Result {
        let (key, temporary) = Self.key(of: id)
        guard Self.mayHaveRun(key) else { return Self.change(&loose[id], counting: &count, body) }
        let run = runIndex(of: id, temporary: temporary) ?? addRun(for: id, temporary: temporary)
        if runs[run].count == 0, runs[run].base != key, others[run].isEmpty, !runs[run].slots.isEmpty,
           capacityHint <= runs[run].slots.count {
            // An empty run's storage (all empty slots) starts at the key that comes, so that the
            // keys after it (a fetch's, in order) find room without moving it. Only when its
            // dictionary is empty too: moving the dictionary's keys in costs their number, which
            // must not be paid on every call while the run stays empty (keys removed one by one).
            rebase(run, at: key)
        }
        if let slot = runs[run].slot(of: key) {
            let had = runs[run].slots[slot] != nil
            let result = body(&runs[run].slots[slot])
            let has = runs[run].slots[slot] != nil
            if had != has { counted(had: had, in: run) }
            return result
        }
        guard mayWiden(run, toCover: key) else {
            // A key the run will not take: changed in place in its table, with one search. The
            // keys announced (``reserveCapacity(_:)``) are likely as sparse: the table makes room
            // for them at once rather than doubling its way there.
            if capacityHint > 0 {
                others[run].reserveCapacity(others[run].count + capacityHint)
                capacityHint = 0
            }
            var change = 0
            let result = others[run].withValue(for: key) { value -> Result in
                let had = value != nil
                let result = body(&value)
                change = (value != nil ? 1 : 0) - (had ? 1 : 0)
                return result
            }
            count += change
            return result
        }
        // A key the run may take: changed in place in the run's table when it is there (one
        // search; a run left empty by its keys going takes this path for every removal).
        if let (result, removed) = others[run].withPresentValue(for: key, body) {
            if removed { count -= 1 }
            return result
        }
        // A new key: the run's slots take it when it may widen over it, its table otherwise.
        var value: Value?
        let result = body(&value)
        guard let value else { return result }
        count += 1
        if let slot = makeSlot(for: key, in: run) {
            runs[run].slots[slot] = value
            runs[run].count += 1
        } else {
            others[run].withValue(for: key) { $0 = value }
        }
        return result
    }

    /// Runs `body` on `value`, counting a value it adds or removes.
    @inline(__always)
    private static func change<Result>(_ value: inout Value?, counting count: inout Int,
                                       _ body: (inout Value?) -> Result) -> Result {
        let had = value != nil
        let result = body(&value)
        switch (had, value != nil) {
        case (false, true): count += 1
        case (true, false): count -= 1
        default: break
        }
        return result
    }

    /// Whether `run` may widen its range to `key` (``makeSlot(for:in:)`` decides for sure).
    /// The held keys lie within the run's slots, so a key this far from them is refused
    /// without looking at them.
    private func mayWiden(_ run: Int, toCover key: Int64) -> Bool {
        guard runs[run].count > 0 else { return true }
        let base = runs[run].base
        let end = base + Int64(runs[run].slots.count)
        return (key < base ? base - key : key - end + 1) < allowedSpan(of: run)
    }

    /// Keeps the counts when a slot of `run` gained (had: false) or lost a value, and looks
    /// whether the run should move (see the cost note at the top).
    private mutating func counted(had: Bool, in run: Int) {
        let change = had ? -1 : 1
        count += change
        runs[run].count += change
        let held = runs[run].count
        guard held & (held - 1) == 0 else { return }
        if held == 0 {
            // The storage stays for the next keys (see Memory at the top): an empty run's
            // storage takes the next key at its start (``rebase(_:at:)``).
            checks[run] = Checks()
        } else if !had, !others[run].isEmpty, checks[run].absorbAt != (held, others[run].count) {
            // Keys the run refused while it was sparse: each time its count doubles, it looks
            // whether it may take them now.
            checks[run].absorbAt = (held, others[run].count)
            absorbOthers(into: run)
        }
    }

    /// Widens `run` over its dictionary's keys when it stays dense enough.
    private mutating func absorbOthers(into run: Int) {
        guard let (otherLow, otherHigh) = othersRange(of: run) else { return }
        let (first, last) = heldRange(of: run)
        let low = min(runs[run].base + Int64(first), otherLow)
        let high = max(runs[run].base + Int64(last), otherHigh)
        guard high - low + 1 <= allowedSpan(of: run) else { return }
        move(run, to: low, span: high - low + 1)
        takeOthers(into: run)
    }

    private mutating func addRun(for id: ObjectID, temporary: Bool) -> Int {
        runs.append(Run(entity: id.entity, storeTag: id.storeTag, temporary: temporary))
        others.append(SparseKeyTable())
        checks.append(Checks())
        return runs.count - 1
    }

    /// The most keys `run` may span: four slots per key of its kind held (in it or in its
    /// dictionary), plus a margin.
    private func allowedSpan(of run: Int) -> Int64 {
        4 * Int64(runs[run].count + others[run].count + 1) + 64
    }

    /// The slot for `key` in `run`, its range widened (and moved) to cover it when the run stays
    /// dense enough (``allowedSpan(of:)``); nil when it would not. The range takes in the keys
    /// of the run's dictionary too, when it may.
    private mutating func makeSlot(for key: Int64, in run: Int) -> Int? {
        if runs[run].count == 0, !runs[run].slots.isEmpty, capacityHint <= runs[run].slots.count {
            rebase(run, at: key)
            return 0
        }
        var low = key, high = key
        if runs[run].count > 0 {
            let (first, last) = heldRange(of: run)
            low = min(runs[run].base + Int64(first), key)
            high = max(runs[run].base + Int64(last), key)
        }
        let allowed = allowedSpan(of: run)
        guard high - low + 1 <= allowed else { return nil }
        if !others[run].isEmpty, let (otherLow, otherHigh) = othersRange(of: run),
           max(high, otherHigh) - min(low, otherLow) + 1 <= allowed {
            low = min(low, otherLow)
            high = max(high, otherHigh)
        }
        move(run, to: low, span: high - low + 1, room: capacityHint)
        capacityHint = 0
        takeOthers(into: run)
        return Int(key - low)
    }

    /// Starts the range of `run`, which is empty, at `key`: its storage (all empty slots) takes
    /// the key at its start, and the keys of its dictionary that the new range covers.
    private mutating func rebase(_ run: Int, at key: Int64) {
        runs[run].base = key
        capacityHint = 0
        takeOthers(into: run)
    }

    /// The lowest and highest keys in `run`'s dictionary.
    private mutating func othersRange(of run: Int) -> (low: Int64, high: Int64)? {
        work += others[run].count
        var range: (low: Int64, high: Int64)?
        others[run].forEach { key, _ in
            range = (min(range?.low ?? key, key), max(range?.high ?? key, key))
        }
        return range
    }

    /// The first and last slots of `run` that hold a value (it holds one).
    private mutating func heldRange(of run: Int) -> (first: Int, last: Int) {
        // Through the buffer: iterating the array would copy each value it looks at.
        let range = runs[run].slots.withUnsafeBufferPointer { slots in
            var first = 0, last = slots.count - 1
            while slots[first] == nil { first += 1 }
            while slots[last] == nil { last -= 1 }
            return (first, last)
        }
        work += range.0 + runs[run].slots.count - range.1
        return range
    }

    /// Gives `run` the range from `low` with room for twice `span` keys, so that a run sliding
    /// up (keys fetched in order while older ones go) moves once per span's worth of keys.
    /// `room`: keys expected beyond the span.
    private mutating func move(_ run: Int, to low: Int64, span: Int64, room: Int = 0) {
        moves += 1
        var old = runs[run].slots
        runs[run].slots = []
        let capacity = max(16, Int(span) * 2, Int(span) + room)
        work += old.count + capacity
        var moved = [Value?](repeating: nil, count: capacity)
        let offset = Int(runs[run].base - low)
        // The old storage is no longer shared: values move out of it without being copied.
        old.withUnsafeMutableBufferPointer { old in
            moved.withUnsafeMutableBufferPointer { moved in
                for index in old.indices where old[index] != nil {
                    moved[index + offset] = old[index].take()
                }
            }
        }
        runs[run].base = low
        runs[run].slots = moved
        checks[run] = Checks()
    }

    /// Moves the keys of `run`'s dictionary that its range now covers into its slots.
    private mutating func takeOthers(into run: Int) {
        guard !others[run].isEmpty else { return }
        work += others[run].count
        for key in others[run].allKeys {
            guard let slot = runs[run].slot(of: key), let value = others[run].removeValue(forKey: key) else { continue }
            runs[run].slots[slot] = value
            runs[run].count += 1
        }
    }

    /// Expects `count` more keys until ``endReservation()``: the first run to grow meanwhile
    /// makes room for them. (Dictionaries grow as they need: most keys go to runs.)
    mutating func reserveCapacity(_ count: Int) {
        capacityHint = count
    }

    /// Ends what ``reserveCapacity(_:)`` announced: a later run grows by its own measure.
    mutating func endReservation() {
        capacityHint = 0
    }

    /// The ID of key `key` of `run`'s kind.
    private static func id(_ key: Int64, of run: Run) -> ObjectID {
        run.temporary
            ? ObjectID(entity: run.entity, storeTag: run.storeTag, key: .temporary(UInt64(bitPattern: key)))
            : ObjectID(entity: run.entity, storeTag: run.storeTag, key: .permanent(key))
    }

    /// Every key with its value, runs first (in key order), then the runs' other keys, then
    /// the loose ones.
    var entries: [(id: ObjectID, value: Value)] {
        var entries: [(id: ObjectID, value: Value)] = []
        entries.reserveCapacity(count)
        for run in runs where run.count > 0 {
            for (index, value) in run.slots.enumerated() {
                guard let value else { continue }
                entries.append((Self.id(run.base + Int64(index), of: run), value))
            }
        }
        for (run, table) in zip(runs, others) {
            table.forEach { key, value in entries.append((Self.id(key, of: run), value)) }
        }
        for (id, value) in loose { entries.append((id, value)) }
        return entries
    }

    /// How many keys the runs' tables of other keys and the loose keys' dictionary hold, and
    /// how many slots each run has (for tests and diagnostics).
    var dictionaryCount: Int { others.reduce(loose.count) { $0 + $1.count } }
    var runCapacities: [Int] { runs.map(\.slots.count) }

    /// Every value, runs first.
    var values: [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        for run in runs where run.count > 0 {
            for case let value? in run.slots { values.append(value) }
        }
        for table in others { table.forEach { _, value in values.append(value) } }
        values.append(contentsOf: loose.values)
        return values
    }
}

extension ObjectIDTable: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (ObjectID, Value)...) {
        self.init()
        for (id, value) in elements { self[id] = value }
    }
}
