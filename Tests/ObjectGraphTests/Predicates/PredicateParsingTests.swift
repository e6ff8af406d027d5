// The format-string parser: every operator and alias, modifiers, options, literals, key paths,
// variables, arithmetic, functions, format arguments, and errors with their caret.
import XCTest
@testable import ObjectGraph

final class PredicateParsingTests: XCTestCase {
    private func comparison(_ format: String, _ arguments: Any?...) throws -> ComparisonPredicate {
        guard case .comparison(let c) = try Predicate(format: format, argumentArray: arguments) else {
            XCTFail("\(format) is not a comparison")
            throw PredicateError(.syntax, "not a comparison")
        }
        return c
    }

    private func expression(_ format: String, _ arguments: Any?...) throws -> Expression {
        try Expression(format: format, argumentArray: arguments)
    }

    func testEveryComparisonOperatorAndAliasParses() throws {
        let cases: [(String, ComparisonPredicate.Operator)] = [
            ("==", .equalTo), ("=", .equalTo), ("!=", .notEqualTo), ("<>", .notEqualTo), ("<", .lessThan),
            ("<=", .lessThanOrEqualTo), ("=<", .lessThanOrEqualTo), (">", .greaterThan),
            (">=", .greaterThanOrEqualTo), ("=>", .greaterThanOrEqualTo), ("LIKE", .like), ("like", .like),
            ("MATCHES", .matches), ("BEGINSWITH", .beginsWith), ("beginsWith", .beginsWith), ("ENDSWITH", .endsWith),
            ("IN", .in), ("CONTAINS", .contains), ("BETWEEN", .between),
        ]
        for (symbol, op) in cases {
            XCTAssertEqual(try comparison("a \(symbol) b").operator, op, symbol)
        }
    }

    func testModifiersAnySomeAllAndNoneParse() throws {
        XCTAssertEqual(try comparison("ANY tags == 'x'").modifier, .any)
        XCTAssertEqual(try comparison("some tags == 'x'").modifier, .any)
        XCTAssertEqual(try comparison("ALL tags == 'x'").modifier, .all)
        XCTAssertEqual(
            try Predicate(format: "NONE tags == 'x'"),
            .not(.comparison(ComparisonPredicate(.keyPath("tags"), .equalTo, .string("x"), modifier: .any))))
    }

    func testOptionsParseAloneAndCombined() throws {
        XCTAssertEqual(try comparison("a ==[c] b").options, .caseInsensitive)
        XCTAssertEqual(try comparison("a LIKE[d] b").options, .diacriticInsensitive)
        XCTAssertEqual(try comparison("a BEGINSWITH[n] b").options, .normalized)
        XCTAssertEqual(try comparison("a <[l] b").options, .localeSensitive)
        XCTAssertEqual(try comparison("a CONTAINS[cdl] b").options, [.caseInsensitive, .diacriticInsensitive, .localeSensitive])
        XCTAssertEqual(try comparison("a MATCHES [CD] b").options, [.caseInsensitive, .diacriticInsensitive])
    }

    func testCompoundsAndTheirSpellings() throws {
        let a = try Predicate(format: "a == 1"), b = try Predicate(format: "b == 2")
        XCTAssertEqual(try Predicate(format: "a == 1 AND b == 2"), .and([a, b]))
        XCTAssertEqual(try Predicate(format: "a == 1 && b == 2"), .and([a, b]))
        XCTAssertEqual(try Predicate(format: "a == 1 or b == 2"), .or([a, b]))
        XCTAssertEqual(try Predicate(format: "a == 1 || b == 2"), .or([a, b]))
        XCTAssertEqual(try Predicate(format: "NOT a == 1"), .not(a))
        XCTAssertEqual(try Predicate(format: "!(a == 1)"), .not(a))
        XCTAssertEqual(try Predicate(format: "TRUEPREDICATE"), .truePredicate)
        XCTAssertEqual(try Predicate(format: "falsepredicate"), .falsePredicate)
    }

    func testAndBindsTighterThanOr() throws {
        let p = try Predicate(format: "a == 1 OR b == 2 AND c == 3")
        guard case .or(let operands) = p, operands.count == 2, case .and = operands[1] else {
            return XCTFail("got \(p)")
        }
    }

    func testChainedAndsFlattenButParenthesizedOnesStayNested() throws {
        guard case .and(let flat) = try Predicate(format: "a == 1 AND b == 2 AND c == 3") else { return XCTFail() }
        XCTAssertEqual(flat.count, 3)
        guard case .and(let nested) = try Predicate(format: "(a == 1 AND b == 2) AND c == 3") else { return XCTFail() }
        XCTAssertEqual(nested.count, 2)
    }

    func testLiteralsOfEveryKind() throws {
        XCTAssertEqual(try expression("'single'"), .string("single"))
        XCTAssertEqual(try expression("\"double\""), .string("double"))
        XCTAssertEqual(try expression("\"a\\\"b\\n\\u00e9\""), .string("a\"b\né"))
        XCTAssertEqual(try expression("42"), .integer(42))
        XCTAssertEqual(try expression("0x1F"), .integer(31))
        XCTAssertEqual(try expression("0o17"), .integer(15))
        XCTAssertEqual(try expression("0b101"), .integer(5))
        XCTAssertEqual(try expression("2.5"), .double(2.5))
        XCTAssertEqual(try expression("9.2e-5"), .double(9.2e-5))
        XCTAssertEqual(try expression("-3"), .integer(-3))
        for word in ["YES", "yes", "TRUE", "true"] { XCTAssertEqual(try expression(word), .constant(.bool(true))) }
        for word in ["NO", "FALSE", "false"] { XCTAssertEqual(try expression(word), .constant(.bool(false))) }
        XCTAssertEqual(try expression("nil"), .null)
        XCTAssertEqual(try expression("NULL"), .null)
        XCTAssertEqual(try expression("{1, 'a'}"), .constant(.array([.integer(1), .string("a")])))
        XCTAssertEqual(try expression("{a, 'a'}"), .aggregate([.keyPath("a"), .string("a")]))
        XCTAssertEqual(
            try expression("CAST(100, 'NSDate')"), .constant(.date(Date(timeIntervalSinceReferenceDate: 100))))
    }

    func testKeyPathsSelfEscapesAndSubscripts() throws {
        XCTAssertEqual(try expression("author.name"), .keyPath("author.name"))
        XCTAssertEqual(try expression("SELF"), .evaluatedObject)
        XCTAssertEqual(try expression("SELF.name"), .keyPath("name"))
        XCTAssertEqual(try expression("g.@max.#self"), .keyPath("g.@max.self"))
        XCTAssertEqual(try expression("#in.b"), .keyPath("in.b"))
        XCTAssertEqual(try expression("items[2]"), .subscripted(.keyPath("items"), .index(.integer(2))))
        XCTAssertEqual(try expression("items[FIRST]"), .subscripted(.keyPath("items"), .first))
        XCTAssertEqual(try expression("items[ LAST ]"), .subscripted(.keyPath("items"), .last))
        XCTAssertEqual(try expression("items[SIZE]"), .subscripted(.keyPath("items"), .size))
        XCTAssertEqual(try expression("h['A']"), .subscripted(.keyPath("h"), .index(.string("A"))))
        XCTAssertEqual(try expression("items.@count"), .keyPath("items.@count"))
        XCTAssertEqual(try expression("items.@sum.price"), .keyPath("items.@sum.price"))
    }

    func testVariablesInValuesPathsAndSubscripts() throws {
        XCTAssertEqual(try expression("$NAME"), .variable("NAME"))
        XCTAssertEqual(try expression("$a.b"), .member(.variable("a"), "b"))
        XCTAssertEqual(try expression("$a.$b"), .dynamicMember(.variable("a"), .variable("b")))
        XCTAssertEqual(try expression("$a[$b]"), .subscripted(.variable("a"), .index(.variable("b"))))
    }

    func testArithmeticIsFunctionsWithUsualPrecedence() throws {
        XCTAssertEqual(
            try expression("a + b * 2"),
            .function("add:to:", [.keyPath("a"), .function("multiply:by:", [.keyPath("b"), .integer(2)])]))
        XCTAssertEqual(
            try expression("(a + b) ** 2"),
            .function("raise:toPower:", [.function("add:to:", [.keyPath("a"), .keyPath("b")]), .integer(2)]))
        XCTAssertEqual(try expression("-a"), .function("from:subtract:", [.integer(0), .keyPath("a")]))
        XCTAssertEqual(try expression("1 << 3"), .function("leftshift:by:", [.integer(1), .integer(3)]))
        XCTAssertEqual(try expression("6 & 3 | 8 ^ 1"),
            .function("bitwiseOr:with:", [
                .function("bitwiseAnd:with:", [.integer(6), .integer(3)]),
                .function("bitwiseXor:with:", [.integer(8), .integer(1)]),
            ]))
    }

    func testFunctionsParseWithOrWithoutTheColon() throws {
        XCTAssertEqual(try expression("sum({1, 2})"), try expression("sum:({1, 2})"))
        XCTAssertEqual(try expression("modulus:by:(7, 3)"), .function("modulus:by:", [.integer(7), .integer(3)]))
        XCTAssertEqual(try expression("now()"), .function("now", []))
        XCTAssertEqual(try expression("random:(10)"), .function("random:", [.integer(10)]))
        let names = [
            "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:", "sqrt:", "log:", "ln:", "exp:",
            "ceiling:", "abs:", "trunc:", "floor:", "uppercase:", "lowercase:", "onesComplement:", "noindex:",
        ]
        for name in names { XCTAssertEqual(try expression("\(name)(1)"), .function(name, [.integer(1)])) }
        for name in [
            "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "raise:toPower:", "bitwiseAnd:with:",
            "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
        ] {
            XCTAssertEqual(try expression("\(name)(1, 2)"), .function(name, [.integer(1), .integer(2)]))
        }
    }

    func testUnknownFunctionIsAParseError() {
        XCTAssertThrowsError(try expression("frobnicate(1)"))
        XCTAssertThrowsError(try expression("sqrt(1, 2)"))
    }

    func testSubqueryTernaryCastAndFunctionCalls() throws {
        XCTAssertEqual(
            try expression("SUBQUERY(items, $x, $x.price > 1)"),
            .subquery(.keyPath("items"), variable: "x", try Predicate(format: "$x.price > 1")))
        XCTAssertEqual(
            try expression("TERNARY(a == 1, 'one', 'other')"),
            .conditional(try Predicate(format: "a == 1"), .string("one"), .string("other")))
        XCTAssertEqual(try expression("CAST('12', 'NSNumber')"), .function("castObject:toType:", [.string("12"), .string("NSNumber")]))
        XCTAssertEqual(try expression("FUNCTION(name, 'uppercase')"), .method(.keyPath("name"), "uppercase", []))
    }

    func testFormatArgumentsOfEveryConversion() throws {
        XCTAssertEqual(try comparison("%K == %@", "name", "Ada"), ComparisonPredicate(.keyPath("name"), .equalTo, .string("Ada")))
        XCTAssertEqual(try comparison("a == %d", 42).right, .integer(42))
        XCTAssertEqual(try comparison("a == %i", Int16(7)).right, .integer(7))
        XCTAssertEqual(try comparison("a == %u", UInt32(7)).right, .integer(7))
        XCTAssertEqual(try comparison("a == %ld", 7).right, .integer(7))
        XCTAssertEqual(try comparison("a == %lld", Int64(7)).right, .integer(7))
        XCTAssertEqual(try comparison("a == %hd", Int16(7)).right, .integer(7))
        XCTAssertEqual(try comparison("a == %qd", Int64(7)).right, .integer(7))
        XCTAssertEqual(try comparison("a == %f", 2.5).right, .double(2.5))
        XCTAssertEqual(try comparison("a == %lf", 2).right, .double(2))
        XCTAssertEqual(try comparison("a == %e", 2.5).right, .double(2.5))
        XCTAssertEqual(try comparison("a == %g", 2.5).right, .double(2.5))
        XCTAssertEqual(try comparison("a == %x", 255).right, .integer(255))
        XCTAssertEqual(try comparison("a == %o", 8).right, .integer(8))
        XCTAssertEqual(try comparison("a == %c", "A").right, .integer(65))
        XCTAssertEqual(try comparison("a == %@", nil).right, .null)
        XCTAssertEqual(try comparison("a LIKE %%").right, .string("%"))
        XCTAssertEqual(try comparison("a == %@", Expression.keyPath("b")).right, .keyPath("b"))
    }

    func testQuotedSpecifiersAreLiteralText() throws {
        XCTAssertEqual(try comparison("%K LIKE '%@'", "name").right, .string("%@"))
    }

    func testMissingOrWrongArgumentsThrow() {
        XCTAssertThrowsError(try Predicate(format: "a == %@")) { error in
            XCTAssertEqual((error as? PredicateError)?.kind, .argument)
        }
        XCTAssertThrowsError(try Predicate(format: "%K == 1", 5))
        XCTAssertThrowsError(try Predicate(format: "a == %d", "x"))
        XCTAssertThrowsError(try Predicate(format: "a == %@", try Predicate(format: "b == 1")))
        XCTAssertThrowsError(try Predicate(format: "%k == 1", "a"))
    }

    func testExpressionsAloneAreNotPredicates() {
        for format in ["", "age", "1", "TRUE", "0 || 1", "age * 25", "age === 25", ",", "()", "x CONATINS 0", "SELF like[c] %@*"] {
            XCTAssertThrowsError(try Predicate(format: format, "prefix"), format)
        }
    }

    func testSyntaxErrorNamesTheCharacterAndDrawsACaret() {
        XCTAssertThrowsError(try Predicate(format: "name == 'Ada' AND age == ")) { error in
            let error = error as! PredicateError
            XCTAssertEqual(error.kind, .syntax)
            XCTAssertEqual(error.offset, 25)
            XCTAssertEqual(
                error.description,
                """
                predicate: expected an expression after "==" at character 25
                  name == 'Ada' AND age == 
                                           ^
                """)
        }
    }

    func testUnknownOperatorIsReportedWhereItStands() {
        XCTAssertThrowsError(try Predicate(format: "anyCol CONATINS 0")) { error in
            XCTAssertEqual((error as! PredicateError).offset, 7)
        }
    }

    func testUnterminatedStringPointsAtItsQuote() {
        XCTAssertThrowsError(try Predicate(format: "a == 'abc")) { error in
            XCTAssertEqual((error as! PredicateError).offset, 5)
        }
    }

    func testDeepNestingThrowsInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "(", count: 5000) + "a == 1" + String(repeating: ")", count: 5000)
        XCTAssertThrowsError(try Predicate(format: deep))
        let fine = String(repeating: "(", count: 50) + "a == 1" + String(repeating: ")", count: 50)
        XCTAssertNoThrow(try Predicate(format: fine))
    }

    func testParenthesesMayOpenAnExpressionOrAPredicate() throws {
        XCTAssertEqual(try comparison("(a + 1) * 2 > 3").operator, .greaterThan)
        XCTAssertEqual(try comparison("(SELF.g)[0] == 2").left, .subscripted(.keyPath("g"), .index(.integer(0))))
        XCTAssertEqual(try Predicate(format: "((a == 1))"), try Predicate(format: "a == 1"))
    }

    func testCustomSelectorComparisonParses() throws {
        XCTAssertEqual(try comparison("SELF isKindOfClass: %@", Int.self).operator, .customSelector("isKindOfClass:"))
    }
}

final class PredicateErrorMessageTests: XCTestCase {
    private func message(_ format: String, _ arguments: Any?...) -> String? {
        do {
            _ = try Predicate(format: format, argumentArray: arguments)
            return nil
        } catch {
            return (error as? PredicateError).map { "\($0.message) at \($0.offset ?? -1)" }
        }
    }

    func testMessagesNameWhatWasExpectedAndWhere() {
        XCTAssertEqual(message("a == 1 AND"), "expected a predicate after \"AND\" at 10")
        XCTAssertEqual(message("NOT"), "expected a predicate after \"NOT\" at 3")
        XCTAssertEqual(message("a ==[x] 1"), "unknown comparison option \"x\" (expected c, d, n or l) at 5")
        XCTAssertEqual(message("(a == 1"), "expected \")\" to close the parenthesis, found end of format at 7")
        XCTAssertEqual(message("a IN {1, 2"), "expected \"}\" to close the array, found end of format at 10")
        XCTAssertEqual(message("a == 'abc"), "unterminated string starting at 5")
        XCTAssertEqual(message("a == %@"), "missing argument for %@ at 5")
        XCTAssertEqual(message("a == 1)"), "unexpected \")\" at 6")
        XCTAssertEqual(message("a == frob(1)"), "unknown function \"frob\" with 1 argument(s) at 5")
        XCTAssertEqual(message("SUBQUERY(a, x, x == 1).@count > 0"), "expected a variable ($x) as the second argument of SUBQUERY at 12")
    }

    func testOffsetsCountCharactersNotBytes() {
        XCTAssertEqual(message("prénom == "), "expected an expression after \"==\" at 10")
    }
}
