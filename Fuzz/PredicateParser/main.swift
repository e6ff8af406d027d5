// libFuzzer entry point for the predicate format-string parser: every input is parsed as a
// predicate and as an expression; whatever parses is printed, re-parsed, and evaluated against
// a small object. Any trap, hang or leak is a bug. Built by Scripts/fuzz-predicates.sh.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicateParser(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let format = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let sample: [String: Any] = [
        "name": "Ada", "age": 36, "tags": ["a", "b"], "items": [["price": 2.5], ["price": 1]],
        "born": Date(timeIntervalSinceReferenceDate: 0),
    ]
    let arguments: [Any?] = ["name", "x*", 3, 2.5, nil, ["a", 1], "age", 7, "y"]
    if let predicate = try? Predicate(format: format, argumentArray: arguments) {
        let printed = predicate.predicateFormat
        _ = try? Predicate(format: printed)
        _ = try? predicate.evaluate(with: sample, substitutionVariables: ["x": 1, "y": "b"])
    }
    if let expression = try? Expression(format: format, argumentArray: arguments) {
        _ = expression.expressionFormat
        _ = try? expression.expressionValue(with: sample, context: ["x": 1, "y": "b"])
    }
    return 0
}
