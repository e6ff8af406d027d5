// In-memory evaluation: Core Data's semantics for nil, numbers of mixed types, dates,
// strings with the [c], [d], [n] and [l] options, LIKE, MATCHES, BETWEEN, IN and CONTAINS,
// modifiers, SUBQUERY, aggregates, functions and variables.
import XCTest
@testable import ObjectGraph

final class PredicateEvaluationTests: XCTestCase {
    private func holds(_ format: String, _ object: Any? = nil, _ arguments: Any?..., variables: [String: Any?] = [:]) throws -> Bool {
        try Predicate(format: format, argumentArray: arguments).evaluate(with: object, substitutionVariables: variables)
    }

    private func value(_ format: String, _ object: Any? = nil, variables: [String: Any?] = [:]) throws -> Any? {
        try Expression(format: format).expressionValue(with: object, context: variables)
    }

    func testNilEqualsOnlyNilAndMissingKeysAreNil() throws {
        XCTAssertTrue(try holds("name == nil", [String: Any]()))
        XCTAssertTrue(try holds("name == nil", ["name": NSNull()]))
        XCTAssertFalse(try holds("name == nil", ["name": "Ada"]))
        XCTAssertTrue(try holds("name != nil", ["name": "Ada"]))
        XCTAssertFalse(try holds("name LIKE 'A*'", [String: Any]()))
        XCTAssertFalse(try holds("age < 3", [String: Any]()))
        XCTAssertFalse(try holds("age > 3", [String: Any]()))
    }

    func testNumbersOfMixedTypesCompareByValue() throws {
        let object: [String: Any] = ["i16": Int16(3), "d": 3.0, "f": Float(2.5), "dec": Decimal(string: "3")!, "b": true]
        XCTAssertTrue(try holds("i16 == d", object))
        XCTAssertTrue(try holds("dec == 3", object))
        XCTAssertTrue(try holds("f < i16", object))
        XCTAssertTrue(try holds("b == 1 AND b == YES", object))
        XCTAssertTrue(try holds("i16 == %@", object, Int64(3)))
        XCTAssertFalse(try holds("i16 == '3'", object))
    }

    func testOrderingAStringAgainstANumberIsAnEvaluationError() {
        XCTAssertThrowsError(try holds("foo <= 2", ["foo": "2"])) { error in
            XCTAssertEqual((error as? PredicateError)?.kind, .evaluation)
        }
    }

    func testDatesCompareChronologically() throws {
        let object: [String: Any] = ["born": Date(timeIntervalSinceReferenceDate: 150)]
        XCTAssertTrue(try holds("born > %@ AND born < %@", object, Date(timeIntervalSinceReferenceDate: 100), Date(timeIntervalSinceReferenceDate: 200)))
        XCTAssertTrue(try holds("born == CAST(150, 'NSDate')", object))
        XCTAssertTrue(try holds("born < now()", object))
    }

    func testCaseInsensitiveIsUnicodeCaseFolding() throws {
        XCTAssertTrue(try holds("SELF ==[c] 'STRASSE'", "straße"))
        XCTAssertTrue(try holds("SELF ==[c] 'ΣΊΣΥΦΟΣ'", "σίσυφος"))
        XCTAssertFalse(try holds("SELF == 'STRASSE'", "straße"))
    }

    func testDiacriticInsensitiveRemovesDiacritics() throws {
        XCTAssertTrue(try holds("SELF ==[d] 'resume'", "résumé"))
        XCTAssertFalse(try holds("SELF ==[d] 'RESUME'", "résumé"))
        XCTAssertTrue(try holds("SELF ==[cd] 'RESUME'", "résumé"))
        XCTAssertTrue(try holds("SELF BEGINSWITH[cd] 'ECO'", "École"))
    }

    func testCanonicallyEquivalentStringsAreEqualButNormalizedComparesBytes() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        XCTAssertTrue(try holds("SELF == %@", composed, decomposed))
        XCTAssertFalse(try holds("SELF ==[n] %@", composed, decomposed))
        XCTAssertTrue(try holds("SELF ==[n] %@", composed, composed))
        XCTAssertFalse(try holds("SELF BEGINSWITH[n] 'C'", "cafe"))
    }

    func testLocaleSensitiveComparisonUsesTheLocaleOrder() throws {
        XCTAssertTrue(try holds("SELF <[l] 'B'", "a"))
        XCTAssertTrue(try holds("SELF ==[cl] 'ADA'", "ada"))
        XCTAssertTrue(try holds("SELF CONTAINS[cdl] 'CAFE'", "un café"))
    }

    func testLikeWildcardsAndEscapes() throws {
        XCTAssertTrue(try holds("SELF LIKE 'a*c'", "abbbc"))
        XCTAssertTrue(try holds("SELF LIKE 'a*'", "a\nb"))
        XCTAssertTrue(try holds("SELF LIKE 'a?c'", "abc"))
        XCTAssertFalse(try holds("SELF LIKE 'a?c'", "ac"))
        XCTAssertTrue(try holds("SELF LIKE %@", "a*b", "a\\*b"))
        XCTAssertFalse(try holds("SELF LIKE %@", "axb", "a\\*b"))
        XCTAssertTrue(try holds("SELF LIKE '[ab].+'", "[ab].+"))
        XCTAssertTrue(try holds("SELF LIKE[c] 'FI*'", "ﬁnal"))
        XCTAssertTrue(try holds("SELF LIKE[cd] 'RESUME'", "résumé"))
    }

    func testMatchesIsAWholeStringRegularExpression() throws {
        XCTAssertTrue(try holds("SELF MATCHES '\\\\d{3}'", "123"))
        XCTAssertFalse(try holds("SELF MATCHES '\\\\d{3}'", "1234"))
        XCTAssertTrue(try holds("SELF MATCHES 'a|ab'", "ab"))
        XCTAssertTrue(try holds("SELF MATCHES[c] 'ABC'", "abc"))
        XCTAssertTrue(try holds("SELF MATCHES 'a.b'", "a\nb"))
        XCTAssertThrowsError(try holds("SELF MATCHES '('", "x"))
    }

    func testBetweenIsInclusive() throws {
        XCTAssertTrue(try holds("SELF BETWEEN {1, 3}", 1))
        XCTAssertTrue(try holds("SELF BETWEEN {1, 3}", 3))
        XCTAssertFalse(try holds("SELF BETWEEN {1, 3}", 3.5))
        XCTAssertTrue(try holds("SELF BETWEEN %@", "b", ["a", "c"]))
        XCTAssertThrowsError(try holds("SELF BETWEEN {1}", 1))
    }

    func testInAndContainsOnStringsAndCollections() throws {
        XCTAssertTrue(try holds("SELF IN {'a', 'b'}", "b"))
        XCTAssertTrue(try holds("SELF IN %@", "b", Set(["a", "b"])))
        XCTAssertTrue(try holds("SELF IN %@", 2, ["x": 2]))
        XCTAssertTrue(try holds("SELF IN 'abc'", "bc"))
        XCTAssertTrue(try holds("SELF CONTAINS 'bc'", "abc"))
        XCTAssertTrue(try holds("SELF CONTAINS[c] 'BC'", "abc"))
        XCTAssertTrue(try holds("tags CONTAINS 'x'", ["tags": ["x", "y"]]))
        XCTAssertTrue(try holds("tags CONTAINS[c] 'X'", ["tags": ["x", "y"]]))
        XCTAssertTrue(try holds("'bc' IN tags", ["tags": OrderedSet(["abc", "bc"])]))
        XCTAssertFalse(try holds("'b' IN tags", ["tags": OrderedSet(["abc", "bc"])]))
    }

    func testAnyAllAndNoneOverCollections() throws {
        let object: [String: Any] = ["ages": [3, 10, 40]]
        XCTAssertTrue(try holds("ANY ages > 30", object))
        XCTAssertFalse(try holds("ALL ages > 30", object))
        XCTAssertTrue(try holds("ALL ages > 1", object))
        XCTAssertTrue(try holds("NONE ages > 50", object))
        XCTAssertFalse(try holds("ANY ages > 3", ["ages": [Int]()]))
        XCTAssertTrue(try holds("ALL ages > 3", ["ages": [Int]()]))
    }

    func testKeyPathsThroughCollectionsYieldCollections() throws {
        let object: [String: Any] = ["pets": [["name": "Rex", "age": 3], ["name": "Tom", "age": 5]]]
        XCTAssertTrue(try holds("ANY pets.name == 'Tom'", object))
        XCTAssertTrue(try holds("pets.name CONTAINS 'Rex'", object))
        XCTAssertTrue(try holds("pets.@count == 2 AND pets.@sum.age == 8 AND pets.@avg.age == 4", object))
        XCTAssertTrue(try holds("pets.@max.age == 5 AND pets.@min.age == 3", object))
    }

    func testSubqueryFiltersACollection() throws {
        let object: [String: Any] = ["items": [["price": 1, "qty": 2], ["price": 5, "qty": 1], ["price": 7, "qty": 0]]]
        XCTAssertTrue(try holds("SUBQUERY(items, $i, $i.price > 2 AND $i.qty > 0).@count == 1", object))
        XCTAssertTrue(try holds("SUBQUERY(items, $i, $i.price > $min)[SIZE] == 2", object, variables: ["min": 2]))
    }

    func testTernaryChoosesABranch() throws {
        XCTAssertEqual(try value("TERNARY(a > 1, 'big', 'small')", ["a": 5]) as? String, "big")
        XCTAssertEqual(try value("TERNARY(a > 1, 'big', 'small')", ["a": 0]) as? String, "small")
    }

    func testArithmeticKeepsIntegersAndDividesAsDoubles() throws {
        XCTAssertEqual(try value("1 + 2 * 3") as? Int, 7)
        XCTAssertEqual(try value("7 / 2") as? Double, 3.5)
        XCTAssertEqual(try value("2 ** 10") as? Int, 1024)
        XCTAssertEqual(try value("-a", ["a": 2]) as? Int, -2)
        XCTAssertEqual(try value("2 ^ 1") as? Int, 3)
        XCTAssertEqual(try value("~0") as? Int, -1)
        XCTAssertThrowsError(try value("'a' * 2"))
        XCTAssertThrowsError(try value("1 / 0"))
    }

    /// Arithmetic with nil is nil (SQL's NULL arithmetic, which the SQLite store computes), so a
    /// comparison with it is false rather than an error that fails a whole fetch.
    func testArithmeticWithNilIsNil() throws {
        for format in ["a + 1", "1 - a", "a * 2", "a / 2", "modulus:by:(a, 2)", "a ** 2", "nil + 1"] {
            XCTAssertNil(try value(format, ["a": NSNull()]), format)
        }
        XCTAssertFalse(try holds("a * 2 > 1", ["a": NSNull()]))
        XCTAssertTrue(try holds("a * 2 == nil", ["a": NSNull()]))
    }

    func testAggregateFunctions() throws {
        XCTAssertEqual(try value("average({1, 2, 2, 3, 4, 7, 9})") as? Double, 4)
        XCTAssertEqual(try value("median({1, 2, 2, 3, 4, 7, 9})") as? Int, 3)
        XCTAssertEqual(try value("mode({1, 2, 2, 3})") as? [Int], [2])
        XCTAssertEqual(try value("stddev({2, 4, 4, 4, 5, 5, 7, 9})") as? Double, 2)
        XCTAssertEqual(try value("count({1, 2})") as? Int, 2)
        XCTAssertEqual(try value("sum(a)", [["a": 1], ["a": 2]]) as? Int, 3)
        XCTAssertEqual(try value("min({3, 1})") as? Int, 1)
        XCTAssertEqual(try value("max({3, 1})") as? Int, 3)
    }

    func testMathFunctions() throws {
        XCTAssertEqual(try value("sqrt(16)") as? Double, 4)
        XCTAssertEqual(try value("log(100)") as? Double, 2)
        XCTAssertEqual(try value("ln(1)") as? Double, 0)
        XCTAssertEqual(try value("exp(0)") as? Double, 1)
        XCTAssertEqual(try value("ceiling(1.2)") as? Double, 2)
        XCTAssertEqual(try value("floor(-1.5)") as? Double, -2)
        XCTAssertEqual(try value("trunc(-1.5)") as? Double, -1)
        XCTAssertEqual(try value("abs(-2)") as? Int, 2)
        XCTAssertEqual(try value("modulus:by:(7, 3)") as? Int, 1)
        XCTAssertEqual(try value("raise:toPower:(2, 3)") as? Int, 8)
    }

    func testStringAndBitwiseFunctions() throws {
        XCTAssertEqual(try value("uppercase('abc')") as? String, "ABC")
        XCTAssertEqual(try value("lowercase('ABC')") as? String, "abc")
        XCTAssertEqual(try value("bitwiseAnd:with:(6, 3)") as? Int, 2)
        XCTAssertEqual(try value("bitwiseOr:with:(6, 3)") as? Int, 7)
        XCTAssertEqual(try value("bitwiseXor:with:(6, 3)") as? Int, 5)
        XCTAssertEqual(try value("leftshift:by:(1, 4)") as? Int, 16)
        XCTAssertEqual(try value("rightshift:by:(16, 4)") as? Int, 1)
        XCTAssertEqual(try value("onesComplement(0)") as? Int, -1)
        XCTAssertEqual(try value("noindex(5)") as? Int, 5)
    }

    func testRandomTimeAndCastFunctions() throws {
        XCTAssertNotNil(try value("now()") as? Date)
        let r = try XCTUnwrap(try value("random()") as? Double)
        XCTAssertTrue((0..<1).contains(r))
        let n = try XCTUnwrap(try value("random(10)") as? Int)
        XCTAssertTrue((0..<10).contains(n))
        XCTAssertEqual(try value("CAST('12', 'NSNumber')") as? Int, 12)
        XCTAssertEqual(try value("CAST(12, 'NSString')") as? String, "12")
    }

    func testFunctionCallsOnValues() throws {
        XCTAssertEqual(try value("FUNCTION('Old', 'stringByAppendingString:', 'MacDonald')") as? String, "OldMacDonald")
        XCTAssertThrowsError(try value("FUNCTION('a', 'noSuchMethod')"))
        MethodTable.register("reversedString") { receiver, _ in (receiver as? String).map { String($0.reversed()) } }
        XCTAssertTrue(try holds("FUNCTION(name, 'reversedString') == 'adA'", ["name": "Ada"]))
    }

    func testCustomSelectorIsKindOfClass() throws {
        XCTAssertTrue(try holds("SELF isKindOfClass: %@", 456, Int.self))
        XCTAssertFalse(try holds("SELF isKindOfClass: %@", "456", Int.self))
        XCTAssertTrue(try holds("SELF isKindOfClass: CAST('NSString', 'Class')", "x"))
    }

    func testSubscriptsOfArraysAndDictionaries() throws {
        let object: [String: Any] = ["a": [1, 2, 3], "h": ["A": 1]]
        XCTAssertTrue(try holds("a[FIRST] == 1 AND a[LAST] == 3 AND a[SIZE] == 3 AND a[1] == 2", object))
        XCTAssertTrue(try holds("h['A'] == 1", object))
        XCTAssertThrowsError(try holds("a[7] == 1", object))
    }

    func testVariablesResolveAtEvaluationAndUnboundOnesThrow() throws {
        XCTAssertTrue(try holds("age > $min", ["age": 30], variables: ["min": 18]))
        XCTAssertTrue(try holds("$a[$b].name == 'x'", nil, variables: ["a": ["k": ["name": "x"]], "b": "k"]))
        XCTAssertTrue(try holds("$r.Age == 34", ["R": ["Age": 34]], variables: ["r": Expression.keyPath("R")]))
        XCTAssertThrowsError(try holds("age > $min", ["age": 30])) { error in
            XCTAssertEqual((error as? PredicateError)?.kind, .unboundVariable("min"))
            XCTAssertEqual("\(error)", "predicate: no value bound for variable $min")
        }
    }

    func testCompoundsShortCircuit() throws {
        XCTAssertFalse(try holds("FALSEPREDICATE AND $unbound == 1"))
        XCTAssertTrue(try holds("TRUEPREDICATE OR $unbound == 1"))
        XCTAssertTrue(try Predicate.and([]).evaluate(with: nil))
        XCTAssertFalse(try Predicate.or([]).evaluate(with: nil))
    }

    func testPredicatesAreSendableAndHashable() throws {
        let p = try Predicate(format: "a == 1")
        let set: Set<Predicate> = [p, try Predicate(format: "a = 1.0")]
        XCTAssertEqual(set.count, 1)
        let check: @Sendable () -> Bool = { (try? p.evaluate(with: ["a": 1])) ?? false }
        XCTAssertTrue(check())
    }
}

final class PredicateFilteringTests: XCTestCase {
    func testFilteringASequenceKeepsTheMatchingElementsInOrder() throws {
        let people: [[String: Any]] = [["name": "Ada", "age": 36], ["name": "Tim", "age": 12], ["name": "Bea", "age": 40]]
        let adults = try people.filtered(using: Predicate(format: "age >= $min"), substitutionVariables: ["min": 18])
        XCTAssertEqual(adults.map { $0["name"] as? String }, ["Ada", "Bea"])
    }
}

final class CompiledPatternTests: XCTestCase {
    func testAConstantPatternIsCompiledOnceAndNeverAffectsEquality() throws {
        let parsed = try Predicate(format: "SELF MATCHES '[a-c]+'")
        guard case .comparison(let c) = parsed else { return XCTFail() }
        XCTAssertNotNil(c.compiledPattern.regex(for: "[a-c]+", []))
        XCTAssertEqual(parsed, .comparison(ComparisonPredicate(.evaluatedObject, .matches, .string("[a-c]+"))))
        XCTAssertTrue(try parsed.evaluate(with: "abc"))
    }

    func testAChangedPatternIsNotMatchedWithTheStaleRegex() throws {
        guard case .comparison(var c) = try Predicate(format: "SELF MATCHES 'a+'") else { return XCTFail() }
        c.right = .string("b+")
        XCTAssertTrue(try c.evaluate(with: "bbb"))
        XCTAssertFalse(try c.evaluate(with: "aaa"))
    }

    func testPatternsFromKeyPathsAndSubstitutionsAreCompiledToo() throws {
        XCTAssertTrue(try Predicate(format: "name MATCHES pattern").evaluate(with: ["name": "abc", "pattern": "a.c"]))
        let p = try Predicate(format: "SELF MATCHES[c] $p").withSubstitutionVariables(["p": "A+"])
        XCTAssertTrue(try p.evaluate(with: "aaa"))
    }
}

final class EmptyStringSearchTests: XCTestCase {
    func testAnEmptyStringIsFoundNowhereAsInFoundation() throws {
        for format in ["SELF CONTAINS ''", "SELF BEGINSWITH ''", "SELF ENDSWITH ''", "'' IN SELF"] {
            XCTAssertFalse(try Predicate(format: format).evaluate(with: "abc"), format)
        }
        XCTAssertTrue(try Predicate(format: "SELF LIKE ''").evaluate(with: ""))
    }
}

final class NULCharacterTests: XCTestCase {
    /// Found by the fuzzer: Foundation's `String.range(of:)` traps on Linux for such strings.
    func testStringsHoldingNULCharactersAreSearchedWithoutTrapping() throws {
        let haystack = String(decoding: Array("\0\0\0".utf8) + [0xc2] + Array("ecodabl\0\0#ell".utf8), as: UTF8.self)
        for format in ["SELF CONTAINS %@", "SELF CONTAINS[l] %@", "SELF CONTAINS[cd] %@", "SELF BEGINSWITH[cdl] %@", "SELF ENDSWITH[l] %@"] {
            XCTAssertFalse(try Predicate(format: format, "ll\0\0\0").evaluate(with: haystack), format)
        }
        XCTAssertTrue(try Predicate(format: "SELF CONTAINS %@", "ell").evaluate(with: haystack))
        XCTAssertEqual(
            try Expression(format: "FUNCTION(%@, 'stringByReplacingOccurrencesOfString:withString:', 'll', 'LL')", haystack)
                .expressionValue(with: nil) as? String,
            haystack.replacing("ll", with: "LL"))
    }
}

final class VariableCycleTests: XCTestCase {
    func testAVariableBoundToAnExpressionUsingItselfIsAnErrorNotARecursion() {
        let p = try? Predicate(format: "$x == 1")
        XCTAssertThrowsError(try p?.evaluate(with: nil, substitutionVariables: ["x": Expression.variable("x")])) { error in
            XCTAssertEqual((error as? PredicateError)?.kind, .unboundVariable("x"))
        }
        XCTAssertThrowsError(
            try p?.evaluate(with: nil, substitutionVariables: ["x": Expression.variable("y"), "y": Expression.variable("x")]))
    }
}
