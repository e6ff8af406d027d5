// The keys of one run of an `ObjectIDTable` that are too sparse for its slots: a hash table keyed
// by the integer key alone (the run fixes the entity, store and kind of ID). Open addressing with
// linear probing, a power-of-two capacity filled at most three quarters, and deletion that shifts
// the following entries back (no tombstones). A fetch of every hundredth row of a table puts all
// its objects here, in the registry and in the row cache: a standard dictionary keyed by object
// ID cost about 900 instructions per insertion or removal, most of a sparse fetch's own work.

struct SparseKeyTable<Value> {
    /// `keys[i]` is the key in slot `i`, or `empty`; `values[i]` its value (nil when empty).
    private var keys: [Int64] = []
    private var values: [Value?] = []
    /// How many keys the table holds.
    private(set) var count = 0
    /// The number of bits of a slot index (capacity is `1 << bits`).
    private var bits = 0

    /// No key is this one: `ObjectIDTable` keeps keys this far out of its runs.
    static var empty: Int64 { .min }

    init() {}

    var isEmpty: Bool { count == 0 }

    /// How many keys the table holds room for before it grows.
    var capacity: Int { keys.count - keys.count / 4 }

    /// The slot where the search for `key` starts (Fibonacci hashing: the high bits of the key
    /// times 2^64 / φ, which spreads keys in arithmetic progression over the table).
    @inline(__always)
    private func home(of key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits))
    }

    /// The slot holding `key`, or the empty slot where it would go.
    @inline(__always)
    private func slot(of key: Int64) -> (index: Int, found: Bool) {
        let mask = keys.count - 1
        var index = home(of: key)
        while true {
            let held = keys[index]
            if held == key { return (index, true) }
            if held == Self.empty { return (index, false) }
            index = (index + 1) & mask
        }
    }

    subscript(key: Int64) -> Value? {
        guard count > 0 else { return nil }
        let (index, found) = slot(of: key)
        return found ? values[index] : nil
    }

    /// Runs `body` on the value of `key` in place (nil: none); what `body` leaves is the new
    /// value. One search, whatever `body` does.
    mutating func withValue<Result>(for key: Int64, _ body: (inout Value?) -> Result) -> Result {
        precondition(key != Self.empty, "the key \(key) cannot be held")
        guard !keys.isEmpty else {
            var value: Value?
            let result = body(&value)
            if let value { insertNew(key, value) }
            return result
        }
        let (index, found) = slot(of: key)
        if found {
            let result = body(&values[index])
            // Matched in place: comparing with nil would copy the value.
            if case .none = values[index] { remove(at: index) }
            return result
        }
        var value: Value?
        let result = body(&value)
        guard let value else { return result }
        if count + 1 > capacity {
            insertNew(key, value)
        } else {
            keys[index] = key
            values[index] = value
            count += 1
        }
        return result
    }

    /// Runs `body` on the value of `key` in place when the table holds the key (removing it when
    /// `body` leaves nil), with one search; nil, and `body` not run, when it does not.
    mutating func withPresentValue<Result>(for key: Int64, _ body: (inout Value?) -> Result) -> (result: Result, removed: Bool)? {
        guard count > 0 else { return nil }
        let (index, found) = slot(of: key)
        guard found else { return nil }
        let result = body(&values[index])
        // Matched in place: comparing with nil would copy the value.
        if case .none = values[index] {
            remove(at: index)
            return (result, true)
        }
        return (result, false)
    }

    /// Removes the value of `key`, answering it.
    @discardableResult
    mutating func removeValue(forKey key: Int64) -> Value? {
        guard count > 0 else { return nil }
        let (index, found) = slot(of: key)
        guard found else { return nil }
        let value = values[index].take()
        remove(at: index)
        return value
    }

    /// Makes room for `count` keys in all.
    mutating func reserveCapacity(_ count: Int) {
        guard count > capacity else { return }
        var bits = max(self.bits, 3)
        while (1 << bits) - (1 << bits) / 4 < count { bits += 1 }
        rehash(bits: bits)
    }

    /// Every key with its value, in slot order.
    func forEach(_ body: (Int64, Value) throws -> Void) rethrows {
        for index in keys.indices where keys[index] != Self.empty {
            try body(keys[index], values[index].unsafelyUnwrapped)
        }
    }

    /// Every key.
    var allKeys: [Int64] {
        var all: [Int64] = []
        all.reserveCapacity(count)
        for key in keys where key != Self.empty { all.append(key) }
        return all
    }

    /// Adds `key`, known to be absent, growing the table when it is full.
    private mutating func insertNew(_ key: Int64, _ value: Value) {
        if count + 1 > capacity { rehash(bits: max(bits + 1, 3)) }
        let (index, _) = slot(of: key)
        keys[index] = key
        values[index] = value
        count += 1
    }

    /// Empties slot `index` and shifts back the entries after it that would no longer be found
    /// (those whose search starts at or before the hole).
    private mutating func remove(at index: Int) {
        let mask = keys.count - 1
        var hole = index
        var next = index
        while true {
            next = (next + 1) & mask
            let key = keys[next]
            if key == Self.empty { break }
            let start = home(of: key)
            // The entry stays when its start lies cyclically in (hole, next].
            let stays = hole <= next ? (hole < start && start <= next) : (hole < start || start <= next)
            if stays { continue }
            keys[hole] = key
            values.swapAt(hole, next)
            hole = next
        }
        keys[hole] = Self.empty
        values[hole] = nil
        count -= 1
    }

    /// Moves every entry to a table of `1 << bits` slots.
    private mutating func rehash(bits newBits: Int) {
        let oldKeys = keys
        var oldValues = values
        bits = newBits
        keys = Array(repeating: Self.empty, count: 1 << newBits)
        values = Array(repeating: nil, count: 1 << newBits)
        for index in oldKeys.indices where oldKeys[index] != Self.empty {
            let (slot, _) = self.slot(of: oldKeys[index])
            keys[slot] = oldKeys[index]
            values[slot] = oldValues[index].take()
        }
    }
}
