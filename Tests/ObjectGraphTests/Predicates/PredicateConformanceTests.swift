// Runs every row of the shared predicate corpus (`../shared/corpus/predicates/vectors.tsv`):
// every confidence-A row must pass; a B or C row may fail only when it contradicts an A row,
// and each such row is listed below with the A row it contradicts.
import XCTest
@testable import ObjectGraph

final class PredicateConformanceTests: XCTestCase {
    /// B and C rows that describe a reimplementation's behaviour contradicting an A row.
    static let contradictions: [String: (aRow: String, reason: String)] = [:]

    func testEveryCorpusRowPassesOrIsAKnownContradiction() throws {
        let vectors = try PredicateVector.load()
        XCTAssertEqual(vectors.count, 392)
        var passed: [String: Int] = [:]
        var total: [String: Int] = [:]
        for vector in vectors {
            total[vector.confidence, default: 0] += 1
            guard let failure = vector.check() else {
                passed[vector.confidence, default: 0] += 1
                XCTAssertNil(Self.contradictions[vector.id], "\(vector.id) passes: remove it from the contradictions")
                continue
            }
            if vector.confidence.hasPrefix("A") {
                XCTFail("\(vector.id) [\(vector.confidence)] \(vector.format): \(failure)")
            } else if let known = Self.contradictions[vector.id] {
                print("corpus: \(vector.id) [\(vector.confidence)] fails as expected, contradicts \(known.aRow): \(known.reason)")
            } else {
                XCTFail("\(vector.id) [\(vector.confidence)] \(vector.format): \(failure)")
            }
        }
        for level in total.keys.sorted() {
            print("corpus: confidence \(level): \(passed[level, default: 0])/\(total[level]!) passed")
        }
    }
}
