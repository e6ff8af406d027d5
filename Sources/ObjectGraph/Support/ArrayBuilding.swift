// Building an array of a known count element by element. `Array(unsafeUninitializedCapacity:)`
// allocates through a standard-library function that is not specialized: it looks the storage
// class's generic metadata up at run time (a locked hash-table probe, ~300 instructions), which
// on the read path happened twice per fetched row. Reserving and appending is specialized in
// the caller and finds the metadata in a static cache.

extension Array {
    /// An array of `count` elements, element `index` being `element(index)`.
    @inline(__always)
    init(count: Int, building element: (Int) throws -> Element) rethrows {
        self.init()
        reserveCapacity(count)
        for index in 0..<count { append(try element(index)) }
    }
}
