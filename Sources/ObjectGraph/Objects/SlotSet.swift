// A set of slot indexes, one bit per slot: which slots of an object changed since it was last
// saved. The first 64 slots are bits of one word kept inline, so marking a change of an ordinary
// entity, and clearing the marks after a save, allocate and free nothing.

/// A set of slot indexes of an entity's layout (``ManagedObject``'s changed slots, a save
/// request's ``StoreSaveRequest/changedSlots``).
///
/// ```swift
/// var changed = SlotSet()
/// changed[2] = true
/// changed[2]            // true
/// Array(changed)        // [2]
/// ```
public struct SlotSet: Hashable, Sendable, Sequence, CustomStringConvertible {
    /// Slots 0–63.
    @usableFromInline var low: UInt64 = 0
    /// Slots from 64 on, 64 a word; empty for entities with fewer slots.
    @usableFromInline var high: [UInt64] = []

    /// The empty set.
    public init() {}

    /// The set of `slots`.
    public init(_ slots: some Sequence<Int>) {
        for slot in slots { self[slot] = true }
    }

    /// Whether `slot` is in the set; setting adds or removes it.
    @inlinable
    public subscript(slot: Int) -> Bool {
        get {
            if slot < UInt64.bitWidth { return low & (1 << UInt64(slot)) != 0 }
            let word = slot / UInt64.bitWidth - 1
            return word < high.count && high[word] & (1 << UInt64(slot % UInt64.bitWidth)) != 0
        }
        set {
            if slot < UInt64.bitWidth {
                if newValue { low |= 1 << UInt64(slot) } else { low &= ~(1 << UInt64(slot)) }
                return
            }
            let word = slot / UInt64.bitWidth - 1
            if word >= high.count {
                guard newValue else { return }
                high += repeatElement(0, count: word - high.count + 1)
            }
            let bit: UInt64 = 1 << UInt64(slot % UInt64.bitWidth)
            if newValue { high[word] |= bit } else { high[word] &= ~bit }
        }
    }

    /// Whether no slot is in the set.
    @inlinable
    public var isEmpty: Bool {
        low == 0 && (high.isEmpty || !high.contains { $0 != 0 })
    }

    /// The number of slots in the set.
    public var count: Int {
        high.reduce(low.nonzeroBitCount) { $0 + $1.nonzeroBitCount }
    }

    /// Empties the set.
    @inlinable
    public mutating func removeAll() {
        low = 0
        if !high.isEmpty { high = [] }
    }

    /// The slots in the set, in increasing order.
    public struct Iterator: IteratorProtocol {
        private let set: SlotSet
        /// The word being read (0: `low`) and its bits not yet returned.
        private var word = 0
        private var bits: UInt64

        init(_ set: SlotSet) {
            self.set = set
            bits = set.low
        }

        public mutating func next() -> Int? {
            while bits == 0 {
                guard word < set.high.count else { return nil }
                bits = set.high[word]
                word += 1
            }
            let bit = bits.trailingZeroBitCount
            bits &= bits - 1
            return word * UInt64.bitWidth + bit
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    /// The words up to the last that has a slot in it: equal sets have equal words.
    private var significantHigh: ArraySlice<UInt64> {
        high[..<((high.lastIndex { $0 != 0 } ?? -1) + 1)]
    }

    public static func == (lhs: SlotSet, rhs: SlotSet) -> Bool {
        lhs.low == rhs.low && lhs.significantHigh == rhs.significantHigh
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(low)
        for word in significantHigh { hasher.combine(word) }
    }

    public var description: String { "SlotSet(\(Array(self)))" }
}
