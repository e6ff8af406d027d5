// End-to-end tests of `objectgraph predicate check|eval`: they run the built binary (next to
// the test bundle) and check its output and exit status.
import Foundation
import XCTest

final class PredicateCommandTests: XCTestCase {
    private struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    /// The products directory holds the binary: it is the test bundle's parent on macOS; on
    /// Linux the bundle URL already is that directory.
    private var binary: URL {
        let bundle = Bundle(for: Self.self).bundleURL
        let products = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
        return products.appendingPathComponent("objectgraph")
    }

    private func run(_ arguments: String...) throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
            error: String(decoding: error, as: UTF8.self))
    }

    func testBinaryIsBuilt() {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary.path), binary.path)
    }

    func testCheckPrintsTheCanonicalFormAndExitsZero() throws {
        let result = try run("predicate", "check", "name like[c] %@ and age => %d", "--arg", "\"a*\"", "--arg", "18")
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.output, "name LIKE[c] \"a*\" AND age >= 18\n")
    }

    func testCheckOfAMalformedFormatPrintsACaretAndExitsOne() throws {
        let result = try run("predicate", "check", "age == ")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(
            result.error,
            """
            predicate: expected an expression after "==" at character 7
              age == 
                     ^

            """)
    }

    func testEvalPrintsTrueOrFalse() throws {
        let yes = try run("predicate", "eval", "ANY tags ==[c] $t", "--object", #"{"tags": ["Swift", "Linux"]}"#, "--bind", "t=\"swift\"")
        XCTAssertEqual(yes.status, 0)
        XCTAssertEqual(yes.output, "true\n")
        let no = try run("predicate", "eval", "age > %d", "--object", #"{"age": 3}"#, "--arg", "5")
        XCTAssertEqual(no.status, 0)
        XCTAssertEqual(no.output, "false\n")
    }

    func testEvalUnderstandsTheCorpusTaggedValues() throws {
        let result = try run(
            "predicate", "eval", "born BETWEEN %@ AND tags CONTAINS 'a'", "--arg", #"[{"$date": 0}, {"$date": 100}]"#,
            "--object", #"{"born": {"$date": 50}, "tags": {"$set": ["a", "b"]}}"#)
        XCTAssertEqual(result.output, "true\n")
    }

    func testEvalOfAnExpressionPrintsItsValueAsJSON() throws {
        let result = try run(
            "predicate", "eval", "--expression", "items.@sum.price * 2", "--object", #"{"items": [{"price": 1}, {"price": 2.5}]}"#)
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.output, "7\n")
        let array = try run("predicate", "eval", "--expression", "mode({1, 2, 2})")
        XCTAssertEqual(array.output, "[2]\n")
    }

    func testEvaluationErrorsExitOne() throws {
        let unbound = try run("predicate", "eval", "a == $missing", "--object", "{}")
        XCTAssertEqual(unbound.status, 1)
        XCTAssertEqual(unbound.error, "predicate: no value bound for variable $missing\n")
        let types = try run("predicate", "eval", "a < 2", "--object", #"{"a": "x"}"#)
        XCTAssertEqual(types.status, 1)
        let json = try run("predicate", "eval", "a < 2", "--object", "{not json")
        XCTAssertEqual(json.status, 1)
    }

    /// An --arg the format does not use is refused as a missing one is (NSPredicate would drop
    /// it silently), for predicates and expressions; the right number still parses.
    func testAnArgumentLeftOverIsAnError() throws {
        let extra = try run("predicate", "check", "name == %@", "--arg", "\"Ada\"", "--arg", "42")
        XCTAssertEqual(extra.status, 1)
        XCTAssertEqual(extra.error, "error: the format uses 1 argument, but 2 --arg values were given\n")
        XCTAssertEqual(extra.output, "")
        let none = try run("predicate", "eval", "TRUEPREDICATE", "--arg", "1")
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.error.contains("the format uses 0 arguments, but 1 --arg was given"), none.error)
        let expression = try run("predicate", "eval", "--expression", "%@ + %@", "--arg", "1", "--arg", "2", "--arg", "3")
        XCTAssertEqual(expression.status, 1)
        XCTAssertTrue(expression.error.contains("uses 2 arguments, but 3 --arg values"), expression.error)
        let exact = try run("predicate", "eval", "--expression", "%@ + %@", "--arg", "1", "--arg", "2")
        XCTAssertEqual(exact.status, 0, exact.error)
        XCTAssertEqual(exact.output, "3\n")
    }

    func testUsageErrorsExitSixtyFour() throws {
        XCTAssertEqual(try run("predicate", "eval", "a == 1", "--bind", "novalue").status, 64)
        XCTAssertEqual(try run("predicate", "check").status, 64)
    }
}
