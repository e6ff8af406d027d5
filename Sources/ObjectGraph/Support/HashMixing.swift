// Cheap hashing for the keys the runtime hashes most (object IDs, managed objects): one word
// mixed with the process's hash seed by SplitMix64's finalizer. Dictionaries and sets call a
// key's `_rawHashValue(seed:)`; answering it this way costs a few instructions instead of a
// SipHash run, and the seed keeps the per-process randomization Swift's hashing has.

enum HashMixing {
    /// `word` mixed with `seed`.
    @inline(__always)
    static func mix(_ word: UInt64, seed: Int) -> Int {
        var x = word ^ UInt64(UInt(bitPattern: seed))
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 31))
    }
}
