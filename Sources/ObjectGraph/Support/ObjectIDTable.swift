// A map keyed by object ID for the tables that hold an entry per object in memory: a context's
// registry and the coordinator's row cache. Each fetched object is inserted into both and removed
// from both when it goes, so these tables are on every object's path.
//
// A store's keys are small integers handed out in sequence (SQLite's Z_PK, temporary IDs from a
// counter), and objects are fetched and released in runs of neighbouring keys. A hash table
// scatters such a run over its whole storage: at 100,000 objects each insertion and removal was a
// cache miss, about a fifth of a full fetch. Here the keys of one entity in one store sit in an
// array indexed by key ("run"), while they are dense enough: a fetch touches neighbouring slots,
// with no hashing and no probing. Keys that would leave a run too sparse go to an ordinary
// dictionary, so memory stays bounded for any key pattern.
//
// Invariant: a key lives in exactly one place, its run's slots while it falls in the run's range,
// the dictionary otherwise. A run that grows over keys in the dictionary takes them over.

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
        /// How many keys of the run's kind (entity, store, temporary or not) the dictionary
        /// holds: they count towards how far the run may widen, so that dense keys end up in
        /// it whichever key came first.
        var othersCount = 0

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

    /// Runs are few (one per entity and store in use), so they are searched in order.
    private var runs: [Run] = []
    private var others: [ObjectID: Value] = [:]
    /// How many keys the table holds.
    private(set) var count = 0
    /// How many times a run moved to new storage (for tests and diagnostics: moving costs the
    /// run's size, so this must stay logarithmic in the keys added and removed).
    private(set) var moves = 0
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

    /// Whether a run may hold `key`: keys near the ends of Int64 stay in the dictionary, so that
    /// run arithmetic cannot overflow.
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
            if let run = runIndex(of: id, temporary: temporary), let slot = runs[run].slot(of: key) {
                return runs[run].slots[slot]
            }
            return others.isEmpty ? nil : others[id]
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
        let inRange = Self.mayHaveRun(key)
        let run = inRange ? runIndex(of: id, temporary: temporary) : nil
        if let run, let slot = runs[run].slot(of: key) {
            let had = runs[run].slots[slot] != nil
            let result = body(&runs[run].slots[slot])
            let has = runs[run].slots[slot] != nil
            if had != has { counted(had: had, in: run) }
            return result
        }
        guard inRange, run.map({ mayWiden($0, toCover: key) }) ?? true else {
            // A key no run will take: changed in place in the dictionary, with one hash.
            let before = count
            let result = Self.change(&others[id], counting: &count, body)
            if let run { runs[run].othersCount += count - before }
            return result
        }
        var value: Value? = others.isEmpty ? nil : others[id]
        let had = value != nil
        let result = body(&value)
        switch (had, value) {
        case (false, nil):
            break
        case (true, nil):
            others[id] = nil
            count -= 1
            // A key of the ends of Int64 has no run.
            if let run { runs[run].othersCount -= 1 }
        case (true, let value?):
            others[id] = value
        case (false, let value?):
            count += 1
            let run = run ?? addRun(for: id, temporary: temporary)
            if let slot = makeSlot(for: key, in: run) {
                runs[run].slots[slot] = value
                runs[run].count += 1
            } else {
                others[id] = value
                runs[run].othersCount += 1
            }
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

    /// Keeps the counts when a slot of `run` gained (had: false) or lost a value. An emptied run
    /// gives its storage back; one mostly empty moves to a smaller range when that is much
    /// smaller.
    private mutating func counted(had: Bool, in run: Int) {
        let change = had ? -1 : 1
        count += change
        runs[run].count += change
        let held = runs[run].count
        if held == 0 {
            // Small storage stays for the next key (objects fetched one at a time would allocate
            // and free it each time); larger storage goes.
            if runs[run].slots.count > 1_024 { runs[run].slots = [] }
        } else if had, held & (held - 1) == 0, runs[run].slots.count > 256, held * 16 < runs[run].slots.count {
            // A removal that leaves the run a sixteenth full looks whether it should move to a
            // smaller range; only at powers of two, so that a sparse run that should not is not
            // scanned on every removal.
            let (first, last) = heldRange(of: run)
            let span = last - first + 1
            // Only for a range at most a quarter of the present one: moving costs its size.
            guard max(16, span * 2) <= runs[run].slots.count / 4 else { return }
            move(run, to: runs[run].base + Int64(first), span: Int64(span))
            // The smaller range may reach past the old one, over keys the dictionary holds.
            takeOthers(into: run)
        } else if !had, runs[run].othersCount > 0, runs[run].count & (runs[run].count - 1) == 0 {
            // Keys the run refused while it was sparse: each time its count doubles, it looks
            // whether it may take them now.
            absorbOthers(into: run)
        }
    }

    /// Widens `run` over the dictionary's keys of its kind when it stays dense enough.
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
        return runs.count - 1
    }

    /// The most keys `run` may span: four slots per key of its kind held (in it or in the
    /// dictionary), plus a margin.
    private func allowedSpan(of run: Int) -> Int64 {
        4 * Int64(runs[run].count + runs[run].othersCount + 1) + 64
    }

    /// The slot for `key` in `run`, its range widened (and moved) to cover it when the run stays
    /// dense enough (``allowedSpan(of:)``); nil when it would not. The range takes in the keys
    /// of the run's kind that the dictionary holds too, when it may.
    private mutating func makeSlot(for key: Int64, in run: Int) -> Int? {
        if runs[run].count == 0, !runs[run].slots.isEmpty, capacityHint <= runs[run].slots.count {
            // An empty run's storage (all empty slots) takes the key at its start.
            runs[run].base = key
            capacityHint = 0
            takeOthers(into: run)
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
        if runs[run].othersCount > 0, let (otherLow, otherHigh) = othersRange(of: run),
           max(high, otherHigh) - min(low, otherLow) + 1 <= allowed {
            low = min(low, otherLow)
            high = max(high, otherHigh)
        }
        move(run, to: low, span: high - low + 1, room: capacityHint)
        capacityHint = 0
        takeOthers(into: run)
        return Int(key - low)
    }

    /// The lowest and highest keys of `run`'s kind in the dictionary.
    private func othersRange(of run: Int) -> (low: Int64, high: Int64)? {
        var range: (low: Int64, high: Int64)?
        for id in others.keys {
            let (key, temporary) = Self.key(of: id)
            guard Self.mayHaveRun(key), runs[run].holds(id, temporary: temporary) else { continue }
            range = (min(range?.low ?? key, key), max(range?.high ?? key, key))
        }
        return range
    }

    /// The first and last slots of `run` that hold a value (it holds one).
    private func heldRange(of run: Int) -> (first: Int, last: Int) {
        // Through the buffer: iterating the array would copy each value it looks at.
        runs[run].slots.withUnsafeBufferPointer { slots in
            var first = 0, last = slots.count - 1
            while slots[first] == nil { first += 1 }
            while slots[last] == nil { last -= 1 }
            return (first, last)
        }
    }

    /// Gives `run` the range from `low` with room for twice `span` keys, so that a run sliding
    /// up (keys fetched in order while older ones go) moves once per span's worth of keys.
    /// `room`: keys expected beyond the span.
    private mutating func move(_ run: Int, to low: Int64, span: Int64, room: Int = 0) {
        moves += 1
        var old = runs[run].slots
        runs[run].slots = []
        let capacity = max(16, Int(span) * 2, Int(span) + room)
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
    }

    /// Moves the dictionary's keys that `run`'s range now covers into its slots.
    private mutating func takeOthers(into run: Int) {
        guard runs[run].othersCount > 0 else { return }
        for (id, value) in others {
            let (key, temporary) = Self.key(of: id)
            guard Self.mayHaveRun(key), runs[run].holds(id, temporary: temporary),
                  let slot = runs[run].slot(of: key) else { continue }
            others[id] = nil
            runs[run].slots[slot] = value
            runs[run].count += 1
            runs[run].othersCount -= 1
        }
    }

    /// Expects `count` more keys until ``endReservation()``: the first run to grow meanwhile
    /// makes room for them. (The dictionary grows as it needs: most keys go to runs.)
    mutating func reserveCapacity(_ count: Int) {
        capacityHint = count
    }

    /// Ends what ``reserveCapacity(_:)`` announced: a later run grows by its own measure.
    mutating func endReservation() {
        capacityHint = 0
    }

    /// Every key with its value, runs first (in key order), then the dictionary's.
    var entries: [(id: ObjectID, value: Value)] {
        var entries: [(id: ObjectID, value: Value)] = []
        entries.reserveCapacity(count)
        for run in runs where run.count > 0 {
            for (index, value) in run.slots.enumerated() {
                guard let value else { continue }
                let key = run.base + Int64(index)
                let id = run.temporary
                    ? ObjectID(entity: run.entity, storeTag: run.storeTag, key: .temporary(UInt64(bitPattern: key)))
                    : ObjectID(entity: run.entity, storeTag: run.storeTag, key: .permanent(key))
                entries.append((id, value))
            }
        }
        for (id, value) in others { entries.append((id, value)) }
        return entries
    }

    /// How many keys the dictionary holds, and how many slots each run has (for tests and
    /// diagnostics).
    var dictionaryCount: Int { others.count }
    var runCapacities: [Int] { runs.map(\.slots.count) }

    /// Every value, runs first.
    var values: [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        for run in runs where run.count > 0 {
            for case let value? in run.slots { values.append(value) }
        }
        values.append(contentsOf: others.values)
        return values
    }
}

extension ObjectIDTable: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (ObjectID, Value)...) {
        self.init()
        for (id, value) in elements { self[id] = value }
    }
}
