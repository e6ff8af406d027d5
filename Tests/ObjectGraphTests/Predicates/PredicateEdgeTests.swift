// The predicate language against NSPredicate's documented behaviour: round trips
// of subscripts by reserved-ish keys, non-finite and dictionary constants, string escapes,
// exact comparison of large unsigned integers and decimals, plus a few untested behaviours.
import Foundation
import XCTest
@testable import ObjectGraph

final class PredicateEdgeTests: XCTestCase {
    private func holds(_ format: String, _ object: Any? = nil, _ arguments: Any?...) throws -> Bool {
        try Predicate(format: format, argumentArray: arguments).evaluate(with: object)
    }

    private func assertRoundTrips(_ p: Predicate, file: StaticString = #filePath, line: UInt = #line) {
        let printed = p.predicateFormat
        do {
            let back = try Predicate(format: printed)
            XCTAssertEqual(back, p, "printed as \(printed), parsed back as \(back.predicateFormat)", file: file, line: line)
        } catch {
            XCTFail("printed form \(printed) does not parse: \(error)", file: file, line: line)
        }
    }

    // MARK: Bugs

    /// `a[#first]` subscripts by the value of the key `first`; it prints as `a[first]`, which
    /// parses back as `a[FIRST]` (the first element): the round trip changes the meaning.
    func testSubscriptByKeyNamedFirstLastOrSizeRoundTrips() throws {
        for word in ["first", "last", "size", "Size"] {
            let p = try Predicate(format: "a[#\(word)] == 1")
            guard case .comparison(let c) = p, case .subscripted(_, .index(.keyPath(word))) = c.left else {
                XCTFail("a[#\(word)] should subscript by the key \(word), got \(p)")
                continue
            }
            assertRoundTrips(p)
        }
        let object: [String: Any] = ["a": ["x": 1], "first": "x"]
        let p = try Predicate(format: "a[#first] == 1")
        XCTAssertTrue(try p.evaluate(with: object))
        XCTAssertTrue(try Predicate(format: p.predicateFormat).evaluate(with: object), p.predicateFormat)
    }

    /// An infinite constant prints as `inf`, which parses back as the key path `inf`.
    func testNonFiniteDoubleConstantsRoundTrip() throws {
        let p = try Predicate(format: "a < %@", Double.infinity)
        assertRoundTrips(p)
        XCTAssertTrue(try Predicate(format: p.predicateFormat).evaluate(with: ["a": 1.0]), p.predicateFormat)
        assertRoundTrips(try Predicate(format: "a > %@", -Double.infinity))
    }

    /// A dictionary constant (from `%@`) has no literal in the format syntax: it prints as
    /// NSPredicate prints one, `{"k": 1}`, a documented exception to the round trip, and parsing
    /// that text says where it stops.
    func testDictionaryConstantPrintsAsNSPredicatePrintsIt() throws {
        let format = try Predicate(format: "a == %@", ["k": 1]).predicateFormat
        XCTAssertEqual(format, #"a == {"k": 1}"#)
        XCTAssertThrowsError(try Predicate(format: format)) { error in
            XCTAssertTrue("\(error)".contains("character 9"), "\(error)")
        }
    }

    /// NSPredicate's strings are UTF-16: `\ud83d\ude00` is one character, 😀.
    func testSurrogatePairEscapeInAStringIsOneCharacter() throws {
        XCTAssertTrue(try holds(#"name == "\ud83d\ude00""#, ["name": "😀"]))
    }

    /// Octal escapes `\ddd` are accepted in identifiers but left as text in strings.
    func testOctalEscapeInAString() throws {
        XCTAssertTrue(try holds(#"name == "\101\102""#, ["name": "AB"]))
        XCTAssertTrue(try holds(#"name == "a\012b""#, ["name": "a\nb"]))
    }

    /// Unsigned integers beyond Int64.max become doubles, so distinct values compare equal.
    func testLargeUnsignedIntegersCompareExactly() throws {
        XCTAssertFalse(try holds("a == %@", ["a": UInt64.max - 1], UInt64.max))
        XCTAssertTrue(try holds("a < %@", ["a": UInt64.max - 1], UInt64.max))
        XCTAssertFalse(try holds("a == %@", ["a": Int64.max], UInt64(Int64.max) + 1))
    }

    /// A Decimal attribute holding 0.1 equals the literal 0.1 of the format.
    func testDecimalEqualsTheDecimalLiteralOfTheFormat() throws {
        let object: [String: Any] = ["price": Decimal(string: "0.1")!]
        XCTAssertTrue(try holds("price == 0.1", object))
        XCTAssertTrue(try holds("price == %@", object, 0.1))
        XCTAssertTrue(try holds("price <= 0.1 AND price >= 0.1", object))
    }

    /// Round trip of a decimal constant: it prints as a double literal.
    func testDecimalConstantRoundTrips() throws {
        assertRoundTrips(try Predicate(format: "price == %@", Decimal(string: "0.1")!))
    }

    /// Case-insensitive comparison is full case folding: ß folds to ss.
    func testCaseInsensitiveFoldsSharpS() throws {
        XCTAssertTrue(try holds("name ==[c] 'STRASSE'", ["name": "straße"]))
    }

    // MARK: Passing: behaviour not covered elsewhere

    func testNumberLiteralsInEveryBase() throws {
        XCTAssertTrue(try holds("a == 0x1F AND b == 0o17 AND c == 0b101", ["a": 31, "b": 15, "c": 5]))
        XCTAssertTrue(try holds("a == 1e3 AND b == -2.5e-1 AND c == .5 AND d == -0x10", ["a": 1000, "b": -0.25, "c": 0.5, "d": -16]))
    }

    func testPrecedenceOfSymbolicConnectives() throws {
        let p = try Predicate(format: "a == 1 || b == 2 && !c == 3")
        let q = try Predicate(format: "a == 1 OR (b == 2 AND (NOT c == 3))")
        XCTAssertEqual(p, q)
        XCTAssertTrue(try p.evaluate(with: ["a": 0, "b": 2, "c": 4]))
        XCTAssertFalse(try p.evaluate(with: ["a": 0, "b": 2, "c": 3]))
    }

    func testReservedWordsAsKeysRoundTrip() throws {
        let p = try Predicate(format: "#in == 1 AND a.#between.#self == 2 AND #ANY < 3")
        XCTAssertEqual(p.predicateFormat, "#in == 1 AND a.#between.#self == 2 AND #ANY < 3")
        assertRoundTrips(p)
        XCTAssertTrue(try p.evaluate(with: ["in": 1, "a": ["between": 2], "ANY": 0]))
    }

    func testStringEscapesParseAndRoundTrip() throws {
        let p = try Predicate(format: #"a == "x\n\t\"y'\\z" AND b == 'it\'s' AND c == "\u00e9\x41""#)
        XCTAssertTrue(try p.evaluate(with: ["a": "x\n\t\"y'\\z", "b": "it's", "c": "éA"]))
        assertRoundTrips(p)
    }

    func testLengthModifiedFormatSpecifiers() throws {
        XCTAssertTrue(try holds("a == %ld AND b == %lu AND c == %hd AND d == %lf AND e == %lld", ["a": 1, "b": 2, "c": 3, "d": 4.5, "e": 5],
            1, UInt(2), Int16(3), 4.5, Int64(5)))
    }

    func testModifiersAndAggregatesOnEmptyCollections() throws {
        let object: [String: Any] = ["tags": [String](), "n": [Int]()]
        XCTAssertFalse(try holds("ANY tags == 'x'", object))
        XCTAssertTrue(try holds("ALL tags == 'x'", object))
        XCTAssertTrue(try holds("NONE tags == 'x'", object))
        XCTAssertTrue(try holds("n.@count == 0 AND n.@sum == 0", object))
        XCTAssertTrue(try holds("n.@max == nil AND n.@min == nil", object))
    }

    func testErrorsNameTheCharacter() {
        for (format, offset) in [("a == 1 AND", 10), ("a ==[x] 1", 5), ("a == 'abc", 5), ("a == 1 b", 7)] {
            XCTAssertThrowsError(try Predicate(format: format), format) { error in
                XCTAssertEqual((error as? PredicateError)?.offset, offset, "\(format): \(error)")
            }
        }
    }

    func testSortNilLastWhenDescendingAndCaseInsensitiveIsStable() {
        let rows: [[String: Any]] = [["n": "b"], ["n": "A"], [:], ["n": "a"], ["n": "B"]]
        let up = rows.sorted(using: SortDescriptor(key: "n", comparison: .caseInsensitive)).map { $0["n"] as? String }
        XCTAssertEqual(up, [nil, "A", "a", "b", "B"])
        let down = rows.sorted(using: SortDescriptor(key: "n", ascending: false, comparison: .caseInsensitive)).map { $0["n"] as? String }
        XCTAssertEqual(down, ["b", "B", "A", "a", nil])
    }
}
