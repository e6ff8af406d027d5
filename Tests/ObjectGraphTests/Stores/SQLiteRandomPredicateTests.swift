// Random predicates, from a fixed seed, through the SQLite store and the in-memory evaluator on
// the same rows: every operator and option over every kind of key path (attributes, to-one
// paths, ANY/ALL/NONE over to-many ones, counts), nil and mismatched constants, nested under
// AND, OR and NOT. Both must find the same rows for every one.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteRandomPredicateTests: XCTestCase {
    /// A small deterministic generator (a linear congruential one), so failures reproduce.
    private struct Generator {
        var state: UInt64

        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }

        mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }
    }

    private static let stringPaths = ["title", "code", "owner.name", "owner.email"]
    private static let toManyStringPaths = ["tags.name", "steps.text"]
    private static let numberPaths = ["points", "owner.age", "done", "tags.@count", "steps.@count", "owner.tasks.@count", "owner.tasks.@sum.points"]
    private static let strings = ["'Write'", "'write'", "'W'", "'e'", "'E'", "'é'", "'cafe'", "'CAFÉ'", "'ada'", "'Ada'", "''", "nil",
                                  "'deploy'", "'Release'", "'swift'", "'linux'", "'a'", "'c'", "'line two'", "'%'", "'_'", "'100'", "'Zoë'"]
    private static let numbers = ["-4", "0", "1", "2.5", "3", "5", "5.0", "8", "13", "21", "36", "nil", "YES", "NO", "'5'"]
    private static let patterns = ["'*e*'", "'W*'", "'?a*'", "'*\\\\**'", "'*'", "'c?f?'", "'*E'", "'%*'"]
    private static let expressions = ["'.*e.*'", "'[A-Z].*'", "'r.*'", "'.*\\\\d.*'", "'(?i)c.*'"]
    private static let options = ["", "[c]", "[d]", "[cd]", "[n]", "[l]"]

    private func comparison(_ g: inout Generator) -> String {
        switch g.next(4) {
        case 0:
            let path = g.pick(Self.stringPaths)
            return stringTest(path, &g)
        case 1:
            let path = g.pick(Self.toManyStringPaths)
            return g.pick(["ANY", "ALL", "NONE"]) + " " + stringTest(path, &g)
        case 2:
            let path = g.pick(Self.numberPaths)
            switch g.next(4) {
            case 0: return "\(path) BETWEEN {\(g.pick(Self.numbers.filter { $0 != "nil" && $0 != "'5'" })), \(g.pick(["3", "8", "40", "100"]))}"
            case 1: return "\(path) IN {\(g.pick(Self.numbers)), \(g.pick(Self.numbers))}"
            default: return "\(path) \(g.pick(["==", "!=", "<", "<=", ">", ">="])) \(g.pick(Self.numbers.filter { $0 != "'5'" }))"
            }
        default:
            return g.pick(["owner == nil", "owner != nil", "deadline == nil", "deadline != nil", "tags.@count == 0",
                           "SUBQUERY(tags, $t, $t.tasks.@count > 1).@count > 0", "SUBQUERY(tags, $t, $t.name BEGINSWITH 's').@count > 0",
                           "SUBQUERY(steps, $s, $s.text != nil).@count >= 2", "TRUEPREDICATE", "FALSEPREDICATE"])
        }
    }

    private func stringTest(_ path: String, _ g: inout Generator) -> String {
        let option = g.pick(Self.options)
        switch g.next(9) {
        case 0, 1: return "\(path) \(g.pick(["==", "!="]))\(option) \(g.pick(Self.strings))"
        case 2: return "\(path) \(g.pick(["<", "<=", ">", ">="]))\(option) \(g.pick(Self.strings))"
        case 3: return "\(path) \(g.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS"]))\(option) \(g.pick(Self.strings))"
        case 4: return "\(path) LIKE\(option) \(g.pick(Self.patterns))"
        case 5: return "\(path) MATCHES\(option) \(g.pick(Self.expressions))"
        case 6: return "\(path) IN\(option) {\(g.pick(Self.strings)), \(g.pick(Self.strings))}"
        case 7: return "\(path) BETWEEN\(option) {\(g.pick(["'A'", "'a'", "'c'"])), \(g.pick(["'m'", "'Z'", "'é'"]))}"
        default: return "\(path) IN\(option) 'Write Review deploy'"
        }
    }

    private func predicate(_ g: inout Generator, depth: Int) -> String {
        guard depth > 0, g.next(3) != 0 else { return comparison(&g) }
        switch g.next(3) {
        case 0: return "(\(predicate(&g, depth: depth - 1)) AND \(predicate(&g, depth: depth - 1)))"
        case 1: return "(\(predicate(&g, depth: depth - 1)) OR \(predicate(&g, depth: depth - 1)))"
        default: return "NOT \(predicate(&g, depth: depth - 1))"
        }
    }

    func testRandomPredicatesFindTheSameRowsInBothStores() throws {
        let pair = try SQLitePredicateEquivalenceTests.Pair()
        var generator = Generator(state: 20_261_121)
        var failures: [String] = []
        var compared = 0
        for _ in 0..<1500 {
            let format = predicate(&generator, depth: 2)
            var request = StoreFetchRequest(entity: pair.entity("Task"))
            request.predicate = try Predicate(format: format)
            let expected: [ObjectID]
            do {
                expected = try pair.ids(request, from: pair.memory)
            } catch {
                continue
            }
            compared += 1
            do {
                let actual = try pair.ids(request, from: pair.sqlite.store)
                if Set(actual) != Set(expected) { failures.append("\(format): in memory \(expected.count) rows, SQLite \(actual.count)") }
            } catch {
                failures.append("\(format): \(error)")
            }
        }
        XCTAssertGreaterThan(compared, 1200)
        XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(compared) differ:\n" + failures.prefix(25).joined(separator: "\n"))
    }
}
