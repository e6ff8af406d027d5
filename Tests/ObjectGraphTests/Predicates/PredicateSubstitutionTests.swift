// Substitution variables: replacing $NAME before evaluation (fetch request templates) and
// binding them at evaluation.
import XCTest
@testable import ObjectGraph

final class PredicateSubstitutionTests: XCTestCase {
    func testSubstitutedStringsBecomeConstantsNotKeyPaths() throws {
        let p = try Predicate(format: "$a == 1").withSubstitutionVariables(["a": "a"])
        XCTAssertEqual(p.predicateFormat, "\"a\" == 1")
        XCTAssertFalse(try p.evaluate(with: ["a": 1]))
    }

    func testTemplateSubstitutionPrintsTheValue() throws {
        let template = try Predicate(format: "lastName like[c] $LAST_NAME AND age > $AGE")
        XCTAssertEqual(
            try template.withSubstitutionVariables(["LAST_NAME": "Turner", "AGE": 30]).predicateFormat,
            "lastName LIKE[c] \"Turner\" AND age > 30")
        XCTAssertEqual(template.variableNames, ["LAST_NAME", "AGE"])
    }

    func testNilAndExpressionsCanBeSubstituted() throws {
        let p = try Predicate(format: "a == $x AND b == $y")
            .withSubstitutionVariables(["x": nil, "y": Expression.keyPath("c")])
        XCTAssertEqual(p.predicateFormat, "a == nil AND b == c")
    }

    func testUnboundVariableIsAClearError() {
        XCTAssertThrowsError(try Predicate(format: "a == $x").withSubstitutionVariables([:])) { error in
            XCTAssertEqual((error as? PredicateError)?.kind, .unboundVariable("x"))
            XCTAssertEqual("\(error)", "predicate: no value bound for variable $x")
        }
    }

    func testSubqueryVariablesAreNotSubstituted() throws {
        let p = try Predicate(format: "SUBQUERY(items, $i, $i.price > $min).@count > 0")
        XCTAssertEqual(p.variableNames, ["min"])
        let bound = try p.withSubstitutionVariables(["min": 5])
        XCTAssertEqual(bound.predicateFormat, "SUBQUERY(items, $i, $i.price > 5).@count > 0")
        XCTAssertTrue(try bound.evaluate(with: ["items": [["price": 6]]]))
    }

    func testEvaluationBindingsDoNotChangeThePredicate() throws {
        let p = try Predicate(format: "$a == 1")
        XCTAssertTrue(try p.evaluate(with: nil, substitutionVariables: ["a": 1]))
        XCTAssertFalse(try p.evaluate(with: nil, substitutionVariables: ["a": 2]))
        XCTAssertEqual(p.predicateFormat, "$a == 1")
    }
}
