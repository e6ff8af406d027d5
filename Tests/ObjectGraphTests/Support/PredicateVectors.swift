// Reads `../shared/corpus/predicates/vectors.tsv` into typed rows for the conformance tests.
import Foundation
@testable import ObjectGraph

/// One row of the predicate corpus.
struct PredicateVector {
    let id: String
    let format: String
    let arguments: [Any?]
    let bindings: [String: Any?]
    let substitute: [String: Any?]?
    let object: Any?
    let expected: String
    let canonical: String
    let kind: String
    /// `A`, `A-`, `B`, `B-` or `C`.
    let confidence: String
    let notes: String

    static func load() throws -> [PredicateVector] {
        let url = Corpus.predicates.appendingPathComponent("vectors.tsv")
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows: [PredicateVector] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).dropFirst() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 9 else { continue }
            let argumentJSON = try JSONSerialization.jsonObject(with: Data(columns[2].utf8)) as? [String: Any] ?? [:]
            let arguments = try (argumentJSON["args"] as? [Any] ?? []).map { try PredicateJSON.convert($0) }
            func dictionary(_ key: String) throws -> [String: Any?]? {
                guard let raw = argumentJSON[key] as? [String: Any] else { return nil }
                var result: [String: Any?] = [:]
                for (name, value) in raw { result[name] = .some(try PredicateJSON.convert(value)) }
                return result
            }
            let confidence = String(columns[8].prefix { $0 != "(" })
            rows.append(
                PredicateVector(
                    id: columns[0], format: columns[1], arguments: arguments,
                    bindings: try dictionary("bindings") ?? [:], substitute: try dictionary("substitute"),
                    object: try PredicateJSON.decode(columns[3]), expected: columns[4], canonical: columns[5],
                    kind: columns[7], confidence: confidence, notes: columns.count > 9 ? columns[9] : ""))
        }
        return rows
    }

    /// Runs the row; nil when it passes, otherwise what went wrong.
    func check() -> String? {
        do {
            if kind == "expression" { return try checkExpression() }
            return try checkPredicate()
        } catch {
            return "unexpected error: \(error)"
        }
    }

    private func checkPredicate() throws -> String? {
        var predicate: Predicate
        do {
            predicate = try Predicate(format: format, argumentArray: arguments)
        } catch {
            return expected == "error(parse)" ? nil : "parse failed: \(error)"
        }
        if expected == "error(parse)" { return "parsed, expected a parse error: \(predicate.predicateFormat)" }
        if let substitute { predicate = try predicate.withSubstitutionVariables(substitute) }
        if !canonical.isEmpty, predicate.predicateFormat != canonical {
            return "printed \(predicate.predicateFormat), expected \(canonical)"
        }
        switch expected {
        case "parses": return nil
        case "error(eval)":
            do {
                let result = try predicate.evaluate(with: object, substitutionVariables: bindings)
                return "evaluated to \(result), expected an evaluation error"
            } catch {
                return nil
            }
        case "true", "false":
            let result = try predicate.evaluate(with: object, substitutionVariables: bindings)
            return String(result) == expected ? nil : "evaluated to \(result), expected \(expected)"
        default:
            return "unknown expectation \(expected)"
        }
    }

    private func checkExpression() throws -> String? {
        let expression: Expression
        do {
            expression = try Expression(format: format, argumentArray: arguments)
        } catch {
            return expected == "error(parse)" ? nil : "parse failed: \(error)"
        }
        if !canonical.isEmpty, expression.expressionFormat != canonical {
            return "printed \(expression.expressionFormat), expected \(canonical)"
        }
        guard expected.hasPrefix("value:") else { return "unknown expectation \(expected)" }
        let want = try PredicateJSON.decode(String(expected.dropFirst("value:".count)))
        let got = try expression.expressionValue(with: object, context: bindings)
        return ValueComparison.equal(got, want) ? nil : "value \(PredicateJSON.encode(got)), expected \(PredicateJSON.encode(want))"
    }
}
