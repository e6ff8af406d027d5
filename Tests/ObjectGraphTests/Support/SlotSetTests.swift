// SlotSet, the bits an object keeps for its changed slots: the same answers as a Set<Int>, past
// the 64 slots held inline too.
import XCTest
@testable import ObjectGraph

final class SlotSetTests: XCTestCase {
    func testRandomChangesMatchASetOfIntegersOnBothSidesOfSlot64() {
        for seed in UInt64(1)...40 {
            var generator = SplitMix(seed: seed)
            var slots = SlotSet()
            var reference = Set<Int>()
            for step in 0..<300 {
                let slot = Int(generator.next() % 200)
                let member = generator.next() % 3 != 0
                slots[slot] = member
                if member { reference.insert(slot) } else { reference.remove(slot) }
                if generator.next() % 50 == 0 {
                    slots.removeAll()
                    reference.removeAll()
                }
                XCTAssertEqual(Array(slots), reference.sorted(), "seed \(seed) step \(step)")
                XCTAssertEqual(slots.count, reference.count, "seed \(seed) step \(step)")
                XCTAssertEqual(slots.isEmpty, reference.isEmpty, "seed \(seed) step \(step)")
                XCTAssertEqual(slots[slot], reference.contains(slot), "seed \(seed) step \(step)")
                XCTAssertEqual(slots, SlotSet(reference), "seed \(seed) step \(step)")
            }
        }
    }

    func testASetEmptiedAboveSlot64IsEmptyAndEqualToANewOne() {
        var slots = SlotSet()
        slots[130] = true
        slots[3] = true
        XCTAssertEqual(Array(slots), [3, 130])
        slots[130] = false
        slots[3] = false
        // The words for slots 64 and up stay, all zero: still empty, equal, and hashed alike.
        XCTAssertTrue(slots.isEmpty)
        XCTAssertEqual(slots, SlotSet())
        XCTAssertEqual(slots.hashValue, SlotSet().hashValue)
        XCTAssertEqual(Array(slots), [])
        // Clearing a slot that was never set allocates nothing to hold it.
        var other = SlotSet()
        other[500] = false
        XCTAssertTrue(other.high.isEmpty)
    }

    func testSlotsAtTheWordEdges() {
        let edges = [0, 63, 64, 127, 128, 191]
        let slots = SlotSet(edges)
        XCTAssertEqual(Array(slots), edges)
        for slot in 0..<200 { XCTAssertEqual(slots[slot], edges.contains(slot), "slot \(slot)") }
        XCTAssertEqual(slots.description, "SlotSet([0, 63, 64, 127, 128, 191])")
    }
}
