// The hash table that holds the keys too sparse for an ObjectIDTable run: checked against a
// dictionary under random insertions, changes and removals (with the clusters linear probing
// makes, and removals that shift entries back across the end of the table), growth, reserved
// room, and iteration.
import XCTest
@testable import ObjectGraph

final class SparseKeyTableTests: XCTestCase {
    private func assertMatches(_ table: SparseKeyTable<String>, _ model: [Int64: String],
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(table.count, model.count, file: file, line: line)
        var seen: [Int64: String] = [:]
        table.forEach { key, value in seen[key] = value }
        XCTAssertEqual(seen, model, file: file, line: line)
        XCTAssertEqual(Set(table.allKeys), Set(model.keys), file: file, line: line)
        for (key, value) in model { XCTAssertEqual(table[key], value, file: file, line: line) }
    }

    func testRandomOperationsMatchADictionary() {
        // Few distinct keys for many operations: keys come and go many times, clusters form
        // and removals shift entries back, across the end of the table too.
        for keySpace in [8, 40, 300] {
            var generator = SplitMix(seed: UInt64(keySpace))
            var table = SparseKeyTable<String>()
            var model: [Int64: String] = [:]
            for step in 0..<6_000 {
                let key = Int64(generator.next() % UInt64(keySpace)) * 100 - 7
                switch generator.next() % 4 {
                case 0:
                    XCTAssertEqual(table.removeValue(forKey: key), model.removeValue(forKey: key))
                case 1:
                    // In place: a value may be read, changed, removed or added in one call.
                    let before = table.withValue(for: key) { value -> String? in
                        defer { value = value == nil ? "new \(step)" : nil }
                        return value
                    }
                    XCTAssertEqual(before, model[key])
                    model[key] = before == nil ? "new \(step)" : nil
                default:
                    table.withValue(for: key) { $0 = "set \(step)" }
                    model[key] = "set \(step)"
                }
                XCTAssertEqual(table[key], model[key], "step \(step)")
            }
            assertMatches(table, model)
        }
    }

    func testKeysThatShareTheirStartSlotAreAllFoundAndRemovedInAnyOrder() {
        // A small table and many keys: long clusters, then removals from their middle.
        var table = SparseKeyTable<String>()
        var model: [Int64: String] = [:]
        let keys = (0..<200).map { Int64($0) * 1_024 }
        for key in keys {
            table.withValue(for: key) { $0 = "\(key)" }
            model[key] = "\(key)"
        }
        assertMatches(table, model)
        for key in keys.enumerated().filter({ $0.offset % 3 != 1 }).map(\.element).reversed() {
            XCTAssertEqual(table.removeValue(forKey: key), "\(key)")
            model[key] = nil
            assertMatches(table, model)
        }
        XCTAssertNil(table.removeValue(forKey: keys[0]))
    }

    func testReservedRoomHoldsTheKeysWithoutLosingAny() {
        var table = SparseKeyTable<String>()
        table.withValue(for: 5) { $0 = "five" }
        table.reserveCapacity(1_000)
        XCTAssertGreaterThanOrEqual(table.capacity, 1_000)
        XCTAssertEqual(table[5], "five")
        let capacity = table.capacity
        for key in 0..<Int64(999) where key != 5 { table.withValue(for: key * 97) { $0 = "\(key)" } }
        XCTAssertEqual(table.count, 999)
        XCTAssertEqual(table.capacity, capacity, "the reserved room sufficed")
        XCTAssertEqual(table[5], "five")
        XCTAssertEqual(table[998 * 97], "998")
        XCTAssertNil(table[-1])
    }

    func testAnEmptyTableAnswersNothingAndAddsNothingForABodyThatLeavesNil() {
        var table = SparseKeyTable<String>()
        XCTAssertNil(table[3])
        XCTAssertNil(table.removeValue(forKey: 3))
        let seen = table.withValue(for: 3) { $0 }
        XCTAssertNil(seen)
        XCTAssertTrue(table.isEmpty)
        XCTAssertTrue(table.allKeys.isEmpty)
    }

    func testChangingOnlyPresentKeysLeavesAbsentOnesAloneAndRemovesWhatTheBodyEmpties() {
        var table = SparseKeyTable<String>()
        var model: [Int64: String] = [:]
        // Keys that share start slots, so that a removal shifts others back.
        for key in stride(from: Int64(0), to: 4_000, by: 100) {
            table.withValue(for: key) { $0 = "v\(key)" }
            model[key] = "v\(key)"
        }
        var ran = false
        XCTAssertNil(table.withPresentValue(for: 150) { _ in ran = true })
        XCTAssertFalse(ran, "the body runs only for a key the table holds")
        let changed = table.withPresentValue(for: 300) { value -> String? in
            defer { value = "changed" }
            return value
        }
        XCTAssertEqual(changed?.result, "v300")
        XCTAssertEqual(changed?.removed, false)
        model[300] = "changed"
        for key in stride(from: Int64(0), to: 4_000, by: 200) {
            let removal = table.withPresentValue(for: key) { $0 = nil }
            XCTAssertEqual(removal?.removed, true)
            model[key] = nil
        }
        assertMatches(table, model)
    }
}
