// Sort descriptors: ascending and descending, the five comparisons, nil first, several
// descriptors breaking ties, stability, printing.
import XCTest
@testable import ObjectGraph

final class SortDescriptorTests: XCTestCase {
    private let people: [[String: Any]] = [
        ["name": "bob", "age": 30], ["name": "Alice", "age": 25], ["name": "carol", "age": 30], ["age": 40],
    ]

    private func names(_ rows: [[String: Any]]) -> [String] { rows.map { $0["name"] as? String ?? "-" } }

    func testAscendingByDefaultComparesUnicodeOrderWithNilFirst() {
        XCTAssertEqual(names(people.sorted(using: SortDescriptor(key: "name"))), ["-", "Alice", "bob", "carol"])
    }

    func testDescendingReversesTheOrder() {
        XCTAssertEqual(names(people.sorted(using: SortDescriptor(key: "name", ascending: false))), ["carol", "bob", "Alice", "-"])
        XCTAssertEqual(SortDescriptor(key: "name").reversed, SortDescriptor(key: "name", ascending: false))
    }

    func testCaseInsensitiveAndLocalizedComparisons() {
        let rows: [[String: Any]] = [["name": "b"], ["name": "A"], ["name": "a"], ["name": "C"]]
        XCTAssertEqual(names(rows.sorted(using: SortDescriptor(key: "name"))), ["A", "C", "a", "b"])
        XCTAssertEqual(names(rows.sorted(using: SortDescriptor(key: "name", comparison: .caseInsensitive))), ["A", "a", "b", "C"])
        XCTAssertEqual(names(rows.sorted(using: SortDescriptor(key: "name", comparison: .localizedCaseInsensitive))), ["A", "a", "b", "C"])
        XCTAssertEqual(names(rows.sorted(using: SortDescriptor(key: "name", comparison: .localized))).first?.lowercased(), "a")
    }

    func testLocalizedStandardSortsNumbersInNamesByValue() {
        let rows: [[String: Any]] = [["name": "file10"], ["name": "file2"], ["name": "File1"]]
        XCTAssertEqual(names(rows.sorted(using: SortDescriptor(key: "name", comparison: .localizedStandard))), ["File1", "file2", "file10"])
    }

    func testLaterDescriptorsBreakTiesAndTheSortIsStable() {
        let sorted = people.sorted(using: [SortDescriptor(key: "age", ascending: false), SortDescriptor(key: "name")])
        XCTAssertEqual(names(sorted), ["-", "bob", "carol", "Alice"])
        let stable = people.sorted(using: SortDescriptor(key: "age"))
        XCTAssertEqual(names(stable), ["Alice", "bob", "carol", "-"])
    }

    func testNumbersOfMixedTypesSortByValue() {
        let rows: [[String: Any]] = [["v": 2.5], ["v": Int16(2)], ["v": 3]]
        XCTAssertEqual(rows.sorted(using: SortDescriptor(key: "v")).map { "\($0["v"]!)" }, ["2", "2.5", "3"])
    }

    func testPrintsAsNSSortDescriptorDoes() {
        XCTAssertEqual(SortDescriptor(key: "name").description, "(name, ascending, compare:)")
        XCTAssertEqual(
            SortDescriptor(key: "name", ascending: false, comparison: .localizedStandard).description,
            "(name, descending, localizedStandardCompare:)")
    }

    func testTypedKeyPathNamesTheKey() {
        struct Row { var title: String }
        XCTAssertEqual(SortDescriptor(\Row.title).key, "title")
    }
}
