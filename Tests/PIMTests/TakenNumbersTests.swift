// The taken record numbers of one kind: a run 1...n known from a count and a maximum, plus
// numbers beyond or below it with gaps; the smallest free number is the first gap.
import XCTest
@testable import PIM

final class TakenNumbersTests: XCTestCase {
    func testARunWithoutGapsGivesTheNextNumber() {
        var taken = TakenNumbers(through: 3)
        XCTAssertTrue(taken.contains(1) && taken.contains(3))
        XCTAssertFalse(taken.contains(0) || taken.contains(4))
        XCTAssertEqual(taken.smallestFree(), 4)
        taken.insert(6)
        taken.insert(4)
        XCTAssertEqual(taken.smallestFree(), 5)
        taken.insert(5)
        // 4, 5 and 6 joined the run.
        XCTAssertEqual(taken.through, 6)
        XCTAssertEqual(taken.smallestFree(), 7)
    }

    func testGapsAreFilledFirst() {
        var taken = TakenNumbers(others: [1, 2, 4, 7])
        XCTAssertEqual(taken.smallestFree(), 3)
        taken.insert(3)
        XCTAssertEqual(taken.smallestFree(), 5)
        XCTAssertFalse(taken.contains(6))
        XCTAssertTrue(taken.contains(7))
    }
}
