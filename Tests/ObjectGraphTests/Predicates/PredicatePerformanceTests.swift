// A budget for in-memory evaluation: a typical fetch predicate over 100,000 objects, parsed
// once and evaluated without re-parsing.
import XCTest
@testable import ObjectGraph

final class PredicatePerformanceTests: XCTestCase {
    func testEvaluatingOverAHundredThousandObjectsStaysWithinBudget() throws {
        let objects: [[String: Any]] = (0..<100_000).map { i in
            ["age": i % 90, "name": i % 3 == 0 ? "Ada \(i)" : "bob \(i)", "city": i % 2 == 0 ? "Paris" : "Oslo"]
        }
        let predicate = try Predicate(format: "age >= 30 AND name BEGINSWITH[c] 'a' AND city IN {'Paris', 'Rome'}")
        let start = Date()
        let matches = try objects.filter { try predicate.evaluate(with: $0) }.count
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(matches, objects.filter { ($0["age"] as! Int) >= 30 && ($0["name"] as! String).hasPrefix("Ada") && $0["city"] as! String == "Paris" }.count)
        print("performance: 100k evaluations in \(String(format: "%.3f", seconds)) s")
        XCTAssertLessThan(seconds, 10, "debug builds included")
    }
}
