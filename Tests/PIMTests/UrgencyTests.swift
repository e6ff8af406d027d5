// Urgency as Taskwarrior computes it with its default coefficients: each term alone, then their
// sum and the order it gives.
import Foundation
import XCTest
@testable import PIM

final class UrgencyTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    func days(_ count: Double) -> Date { now.addingTimeInterval(count * 86_400) }

    func score(_ factors: UrgencyFactors) -> Double { Urgency.score(factors, now: now) }

    func testNewTaskWithNothingScoresZero() {
        XCTAssertEqual(score(UrgencyFactors(created: now)), 0)
    }

    func testDueTermRampsFromFourteenDaysAheadToSevenDaysOverdue() {
        XCTAssertEqual(score(UrgencyFactors(due: days(30), created: now)), 12 * 0.2, accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(due: days(14), created: now)), 12 * 0.2, accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(due: now, created: now)), 12 * (14 * 0.8 / 21 + 0.2), accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(due: days(-7), created: now)), 12, accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(due: days(-70), created: now)), 12, accuracy: 1e-9)
    }

    func testPriorityClasses() {
        XCTAssertEqual(score(UrgencyFactors(priority: 1, created: now)), 6)
        XCTAssertEqual(score(UrgencyFactors(priority: 5, created: now)), 3.9)
        XCTAssertEqual(score(UrgencyFactors(priority: 9, created: now)), 1.8)
    }

    func testAgeGrowsForAYear() {
        XCTAssertEqual(score(UrgencyFactors(created: days(-365 / 2))), 1, accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(created: days(-1000))), 2, accuracy: 1e-9)
    }

    func testTagsProjectAndNext() {
        XCTAssertEqual(score(UrgencyFactors(created: now, tags: ["home"])), 0.8, accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(created: now, tags: ["a", "b"])), 0.9, accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(created: now, tags: ["a", "b", "c"])), 1, accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(created: now, tags: ["next"])), 15.8, accuracy: 1e-9)
        XCTAssertEqual(score(UrgencyFactors(created: now, hasProject: true)), 1)
    }

    func testStateTerms() {
        XCTAssertEqual(score(UrgencyFactors(created: now, isStarted: true)), 4)
        XCTAssertEqual(score(UrgencyFactors(created: now, scheduled: days(-1))), 5)
        XCTAssertEqual(score(UrgencyFactors(created: now, scheduled: days(1))), 0)
        XCTAssertEqual(score(UrgencyFactors(created: now, wait: days(2))), -3)
        XCTAssertEqual(score(UrgencyFactors(created: now, wait: days(-2))), 0)
        XCTAssertEqual(score(UrgencyFactors(created: now, isBlocked: true)), -5)
        XCTAssertEqual(score(UrgencyFactors(created: now, isBlocking: true)), 8)
    }

    func testOverdueHighPriorityOutranksLaterLowPriority() {
        let overdue = score(UrgencyFactors(due: days(-1), priority: 1, created: days(-10)))
        let later = score(UrgencyFactors(due: days(10), priority: 9, created: days(-10), tags: ["home"]))
        XCTAssertGreaterThan(overdue, later)
    }
}
