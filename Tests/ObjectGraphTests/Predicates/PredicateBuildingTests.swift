// Building predicates in Swift: terms and typed keys compared with operators, combined with
// &&, || and !, giving the same trees as the parser.
import XCTest
@testable import ObjectGraph

final class PredicateBuildingTests: XCTestCase {
    struct Person {
        var name: String
        var age: Int
        var nickname: String?
    }

    final class Account: KeyPathNaming {
        var balance: Double { 0 }
        static func predicateKeyName(for keyPath: PartialKeyPath<Account>) -> String? {
            keyPath == \Account.balance ? "balance" : nil
        }
    }

    func testTermsBuildTheSameTreeAsTheParser() throws {
        let built = PredicateTerm.key("age") >= 18 && PredicateTerm.key("name").beginsWith("a", options: .caseInsensitive)
        XCTAssertEqual(built, try Predicate(format: "age >= 18 AND name BEGINSWITH[c] 'a'"))
    }

    func testOrAndNotCompose() throws {
        let built = !(PredicateTerm.key("a") == 1) || PredicateTerm.key("b").isNil || PredicateTerm.key("c") < 2.5
        XCTAssertEqual(built, try Predicate(format: "NOT a == 1 OR b == nil OR c < 2.5"))
    }

    func testCollectionsModifiersAndRanges() throws {
        XCTAssertEqual(PredicateTerm.key("tags").any == "x", try Predicate(format: "ANY tags == 'x'"))
        XCTAssertEqual(PredicateTerm.key("tags").all.like("x*"), try Predicate(format: "ALL tags LIKE 'x*'"))
        XCTAssertEqual(PredicateTerm.key("id").in([1, 2]), try Predicate(format: "id IN {1, 2}"))
        XCTAssertEqual(PredicateTerm.key("n").between(1, 3), try Predicate(format: "n BETWEEN {1, 3}"))
        XCTAssertEqual(PredicateTerm.key("items").count > 2, try Predicate(format: "items.@count > 2"))
    }

    func testTypedKeysAcceptOnlyTheirPropertysType() throws {
        let p = Key(\Person.age) > 30 && Key(\Person.name).contains("d", options: [.caseInsensitive, .diacriticInsensitive])
        XCTAssertEqual(p.predicateFormat, "age > 30 AND name CONTAINS[cd] \"d\"")
        XCTAssertTrue(try p.evaluate(with: ["age": 36, "name": "Ada"]))
        XCTAssertEqual((Key(\Person.nickname) == nil).predicateFormat, "nickname == nil")
    }

    func testTypesWithComputedPropertiesNameTheirKeys() {
        XCTAssertEqual((Key(\Account.balance) > 0).predicateFormat, "balance > 0")
    }

    func testArithmeticTerms() throws {
        let p = PredicateTerm.key("a") + PredicateTerm.constant(1) > PredicateTerm.key("b")
        XCTAssertEqual(p, try Predicate(format: "a + 1 > b"))
    }
}
