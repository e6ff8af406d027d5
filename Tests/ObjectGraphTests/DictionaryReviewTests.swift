// Review of dictionary-result fetches, aggregates and counts against Apple's documented Core Data
// behaviour (NSFetchRequest propertiesToFetch / propertiesToGroupBy / havingPredicate /
// returnsDistinctResults, NSExpressionDescription, NSExpression's aggregate functions), on both
// the in-memory and the SQLite store, which must also agree with each other. Every test here
// failed on the code it was written against; each comment says what Core Data does and what
// ObjectGraph did then (all fixed since). The model is built in code: an abstract Base with two sub-entities
// (Job with every numeric type, a date and a to-one owner; Memo), and Owner with a to-many
// `jobs` and a transient `nick`.
import Foundation
import XCTest
@testable import ObjectGraph

private typealias Sort = ObjectGraph.SortDescriptor

final class DictionaryReviewTests: XCTestCase {
    static let model: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("Base", abstract: true) {
                Attribute("name", .string)
            }
            Entity("Job", parent: "Base") {
                Attribute("points", .integer32)
                Attribute("weight", .double)
                Attribute("cost", .decimal)
                Attribute("due", .date)
                Attribute("done", .boolean)
                Relationship("owner", to: "Owner", inverse: "jobs")
            }
            Entity("Memo", parent: "Base") {
                Attribute("text", .string)
            }
            Entity("Owner") {
                Attribute("name", .string)
                Attribute("age", .integer64)
                Attribute("nick", .string).transient()
                Relationship("jobs", to: "Job", inverse: "owner", toMany: true)
            }
        }
        model.freeze()
        return model
    }()

    static let d1 = Date(timeIntervalSinceReferenceDate: 700_000_000)
    static let d2 = Date(timeIntervalSinceReferenceDate: 710_000_000)

    /// Saves owners Ada (36) and Bob (no age); jobs (name, points, weight, cost, due, done, owner):
    /// a (3, 1.5, 2.25, d1, no, Ada), b (5, nil, 1.5, d2, yes, Ada), c (nil, 2.0, nil, nil, no,
    /// Bob), d (7, 0.5, 10, d1, no, no owner); a memo m.
    private func seed(_ stack: Stack) throws {
        let ada = stack.insert("Owner", ["name": "Ada", "age": Int64(36)])
        let bob = stack.insert("Owner", ["name": "Bob"])
        stack.insert("Job", ["name": "a", "points": Int32(3), "weight": 1.5, "cost": Decimal(string: "2.25")!, "due": Self.d1,
                             "done": false, "owner": ada])
        stack.insert("Job", ["name": "b", "points": Int32(5), "cost": Decimal(string: "1.5")!, "due": Self.d2, "done": true, "owner": ada])
        stack.insert("Job", ["name": "c", "weight": 2.0, "done": false, "owner": bob])
        stack.insert("Job", ["name": "d", "points": Int32(7), "weight": 0.5, "cost": Decimal(10), "due": Self.d1, "done": false])
        stack.insert("Memo", ["name": "m", "text": "hello"])
        try stack.context.save()
    }

    /// Runs `body` on a seeded stack of each store type.
    private func forEachSeededStore(_ body: (Stack) throws -> Void) throws {
        try forEachStore(model: Self.model) { stack in
            try seed(stack)
            try body(stack)
        }
    }

    private func expression(_ name: String, _ format: String, _ type: AttributeType = .undefined) throws -> PropertyToFetch {
        .expression(ExpressionDescription(name: name, expression: try Expression(format: format), resultType: type))
    }

    private func dictionaryRequest(_ properties: [PropertyToFetch], entity: String = "Job", groupBy: [String] = [],
                         having: String? = nil, sortedBy sort: [Sort] = [], distinct: Bool = false) throws -> FetchRequest<[String: Any]> {
        var request = FetchRequest<[String: Any]>(entityName: entity)
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy
        request.havingPredicate = try having.map { try Predicate(format: $0) }
        request.sortDescriptors = sort
        request.returnsDistinctResults = distinct
        return request
    }

    /// What a store answers, comparable across stores: "refused" for an error, else each
    /// dictionary's entries (keys sorted, values printed).
    private func outcome(_ stack: Stack, _ request: FetchRequest<[String: Any]>) -> String {
        do {
            return try stack.newContext().fetch(request).map { row in
                "{" + row.keys.sorted().map { "\($0)=\(row[$0]!)" }.joined(separator: ", ") + "}"
            }.joined(separator: " ")
        } catch {
            return "refused"
        }
    }

    /// The outcome of `make()` on a seeded stack of each store: [in-memory, SQLite].
    private func outcomes(_ make: () throws -> FetchRequest<[String: Any]>) throws -> [String] {
        var results: [String] = []
        try forEachSeededStore { stack in results.append(outcome(stack, try make())) }
        return results
    }

    // MARK: Aggregates

    /// NSExpression's `sum:`, `min:`, `max:`, `average:` take numbers, and a Decimal attribute is
    /// one (the classic Core Data example sums a Decimal `amount` with `sum:` and
    /// `expressionResultType = NSDecimalAttributeType`). The in-memory store answers 13.75,
    /// 1.5, 10 and the mean; the SQLite store refuses every one of them ("cannot fetch s (SUM over
    /// Job.cost) in a dictionary"): SQLiteDictionaryPlan.aggregate has no case for the `.decimal`
    /// kind (the predicate translator's to-many `@min`/`@max` has one).
    func testSumMinMaxAndAverageOfADecimalAttribute() throws {
        try forEachSeededStore { stack in
            let request = try dictionaryRequest([try expression("s", "sum:(cost)", .decimal), try expression("mn", "min:(cost)", .decimal),
                                       try expression("mx", "max:(cost)", .decimal), try expression("avg", "average:(cost)", .decimal)])
            do {
                let rows = try stack.context.fetch(request)
                XCTAssertEqual(rows.count, 1, "\(stack.storeType)")
                XCTAssertEqual(doubleValue(rows.first?["s"]), 13.75, "\(stack.storeType)")
                XCTAssertEqual(doubleValue(rows.first?["mn"]), 1.5, "\(stack.storeType)")
                XCTAssertEqual(doubleValue(rows.first?["mx"]), 10, "\(stack.storeType)")
                XCTAssertEqual(doubleValue(rows.first?["avg"]) ?? 0, 13.75 / 3, accuracy: 1e-9, "\(stack.storeType)")
            } catch {
                XCTFail("\(stack.storeType): aggregates of a Decimal attribute refused: \(error)")
            }
        }
    }

    /// NSExpression's `sum:` and `average:` (and the `@sum`/`@avg` operators) compute over
    /// numbers; over a String attribute a fetch must fail, with an error naming the attribute
    /// (ARCHITECTURE.md: errors say "which property"). The SQLite store does ("cannot fetch s
    /// (SUM over Base.name)"). The in-memory store answers `@sum.name` with 0 (Aggregates.sum
    /// counts non-numbers as zero, via KeyValueAccess.collectionOperator), and fails `sum:(name)`
    /// and `average:(name)` with `sum: needs numbers, got "a"`, which names a value, not the
    /// property (BuiltinFunction / Aggregates.checkedNumbers).
    func testAggregatesOfAStringAttributeFailNamingIt() throws {
        try forEachSeededStore { stack in
            for format in ["@sum.name", "sum:(name)", "average:(name)"] {
                let request = try dictionaryRequest([try expression("s", format, .double)])
                XCTAssertThrowsError(try stack.context.fetch(request), "\(stack.storeType): \(format) over strings answered") { error in
                    XCTAssertTrue("\(error)".contains("name"), "\(stack.storeType): \(format): \(error) does not name the attribute")
                }
            }
        }
    }

    /// NSExpressionDescription.expressionResultType: "The attribute type of the expression's
    /// result." A `sum:(points)` declared `.double` is a Double in Core Data's dictionary; both
    /// stores ignore the declared type (ExpressionDescription.resultType is never read) and
    /// return an Int, so `row["total"] as? Double` is nil on Linux.
    func testAnExpressionsResultTypeIsTheTypeOfItsValue() throws {
        try forEachSeededStore { stack in
            let rows = try stack.context.fetch(try dictionaryRequest([try expression("total", "sum:(points)", .double)]))
            XCTAssertEqual(rows.first?["total"] as? Double, 15, "\(stack.storeType): got \(String(describing: rows.first?["total"].map { type(of: $0) }))")
        }
    }

    /// `count:(owner)` (the number of jobs that have an owner) is COUNT over the to-one's
    /// column in SQL; the stores disagree: the in-memory store answers 3, the SQLite store refuses
    /// ("cannot fetch n (COUNT over owner)": SQLiteDictionaryPlan.aggregate accepts only
    /// attribute columns).
    func testCountOfAToOneRelationshipAgreesAcrossStores() throws {
        let answers = try outcomes { try dictionaryRequest([try expression("n", "count:(owner)", .integer64)]) }
        XCTAssertEqual(answers.first, "{n=3}")
        XCTAssertEqual(answers.first, answers.last, "in-memory vs SQLite")
    }

    // MARK: Expressions and key paths in propertiesToFetch

    /// NSFetchRequest.propertiesToGroupBy: "the SELECT values must be literals, aggregates, or
    /// columns specified in propertiesToGroupBy" — a literal is a valid value of a dictionary
    /// (grouped or not). The in-memory store returns it; the SQLite store refuses any constant
    /// expression ("cannot fetch k (42) in a dictionary"): SQLiteDictionaryPlan.init has no
    /// `.constant` case.
    func testLiteralExpressionsAreFetched() throws {
        try forEachSeededStore { stack in
            do {
                let grouped = try stack.context.fetch(try dictionaryRequest([.property("done"), try expression("k", "42", .integer64),
                                                                   try expression("n", "@count", .integer64)],
                                                                  groupBy: ["done"], sortedBy: [Sort(key: "done")]))
                XCTAssertEqual(grouped.map { doubleValue($0["k"]) }, [42, 42], "\(stack.storeType)")
                let rows = try stack.context.fetch(try dictionaryRequest([.property("name"), try expression("k", "'x'", .string)],
                                                               sortedBy: [Sort(key: "name")]))
                XCTAssertEqual(rows.map { $0["k"] as? String }, ["x", "x", "x", "x"], "\(stack.storeType)")
            } catch {
                XCTFail("\(stack.storeType): a literal expression was refused: \(error)")
            }
        }
    }

    /// A key path in propertiesToFetch that does not exist in the entity: Core Data raises (the
    /// key path is not found in the entity); the SQLite store throws naming it ("Owner has no
    /// property nope"). The in-memory store silently returns a dictionary without it for each
    /// row ({} {} {} {}), and `sum:(nope)` answers 0: ManagedObjectContext.makeStoreRequest passes
    /// any dotted name on unchecked, and InMemoryStore+Dictionaries.checkColumns never checks
    /// that key paths exist.
    func testUnknownKeyPathsAreRefusedNamingThem() throws {
        try forEachSeededStore { stack in
            let cases: [(PropertyToFetch, String)] = [
                (.property("owner.nope"), "nope"), (.property("nope.name"), "nope"),
                (try expression("x", "nope"), "nope"), (try expression("x", "sum:(nope)", .integer64), "nope"),
            ]
            for (property, name) in cases {
                XCTAssertThrowsError(try stack.context.fetch(try dictionaryRequest([property])), "\(stack.storeType): \(property) accepted") { error in
                    XCTAssertTrue("\(error)".contains(name), "\(stack.storeType): \(error)")
                }
            }
        }
    }

    /// NSFetchRequest.propertiesToFetch: "The property descriptions may represent attributes,
    /// to-one relationships, or expressions" — a key path through a to-many relationship
    /// (`jobs.name`) is none of those. The SQLite store refuses it; the in-memory store returns an
    /// array of names per owner: InMemoryStore+Dictionaries.checkColumns' isToMany looks only at
    /// the last step of the key path (`name`, an attribute).
    func testAKeyPathThroughAToManyRelationshipIsRefused() throws {
        try forEachSeededStore { stack in
            let request = try dictionaryRequest([.property("name"), .property("jobs.name")], entity: "Owner")
            XCTAssertThrowsError(try stack.context.fetch(request), "\(stack.storeType): jobs.name fetched into a dictionary")
        }
    }

    /// A per-row count of a to-many relationship (`jobs.@count`, the expression Core Data's own
    /// derived attributes document as `friends.@count`): the in-memory store answers 2 and 1
    /// (InMemoryStoreDictionaryTests tests it), the SQLite store refuses ("cannot fetch
    /// jobs.@count in a dictionary": SQLiteDictionaryPlan.column accepts only attribute columns,
    /// though the translator builds the correlated COUNT subquery). The stores must agree.
    func testAPerRowCountOfAToManyRelationshipAgreesAcrossStores() throws {
        let answers = try outcomes { try dictionaryRequest([.property("name"), try expression("n", "jobs.@count", .integer64)], entity: "Owner",
                                                 sortedBy: [Sort(key: "name")]) }
        XCTAssertEqual(answers.first, "{n=2, name=Ada} {n=1, name=Bob}")
        XCTAssertEqual(answers.first, answers.last, "in-memory vs SQLite")
    }

    /// A transient attribute has no stored value to fetch: the SQLite store refuses it ("Owner.nick
    /// is not stored (transient)"); the in-memory store silently leaves it out of every
    /// dictionary. The stores must agree (and an unsupported property must not be dropped
    /// silently).
    func testATransientAttributeInPropertiesToFetchAgreesAcrossStores() throws {
        let answers = try outcomes { try dictionaryRequest([.property("name"), .property("nick")], entity: "Owner", sortedBy: [Sort(key: "name")]) }
        XCTAssertEqual(answers.first, answers.last, "in-memory vs SQLite")
    }

    // MARK: Arithmetic per row

    /// NSExpression's arithmetic (`multiply:by:`, `divide:by:`, `add:to:`) in propertiesToFetch
    /// is computed for each row. The SQLite store refused it ("cannot fetch double (points * 2)
    /// in a dictionary"), and the in-memory store failed the whole fetch on job c, which has no
    /// points. Both now give each row its value and leave the key out where an operand is nil,
    /// as they leave out a nil attribute: integers stay integers, a quotient is a real, a decimal
    /// stays exact, and a date takes seconds added to it.
    func testPerRowArithmeticAgreesAcrossStores() throws {
        let answers = try outcomes {
            try dictionaryRequest([.property("name"), try expression("double", "points * 2"), try expression("half", "points / 2"),
                                   try expression("mixed", "points + weight"), try expression("more", "cost + 1"),
                                   try expression("later", "due + 86400")], sortedBy: [Sort(key: "name")])
        }
        let a = "{double=6, half=1.5, later=\(Self.d1 + 86400), mixed=4.5, more=3.25, name=a}"
        XCTAssertEqual(answers.first?.hasPrefix(a + " {double=10, half=2.5, later=\(Self.d2 + 86400), more=2.5, name=b} {name=c} "), true, answers.first ?? "")
        XCTAssertEqual(answers.first, answers.last, "in-memory vs SQLite")
    }

    // MARK: Sorting

    /// NSFetchRequest.sortDescriptors: the descriptors "specify how the objects returned ...
    /// should be ordered". A dictionary fetch sorted by the name of an expression it fetches
    /// (`on` = `owner.name`, descending) is returned unsorted by both stores:
    /// StoreFetchRequest.rowSortDescriptors drops the descriptor from the row order, and only
    /// grouped results are sorted by expression names (SQLiteDictionaryPlan.groupOrder,
    /// InMemoryStore.groupDictionaries). Core Data either sorts or refuses; it must not be
    /// ignored silently.
    func testSortingByAnExpressionNameIsNotIgnored() throws {
        try forEachSeededStore { stack in
            let request = try dictionaryRequest([.property("name"), .expression(ExpressionDescription(name: "on", expression: .keyPath("owner.name"),
                                                                                            resultType: .string))],
                                      sortedBy: [Sort(key: "on", ascending: false), Sort(key: "name")])
            do {
                let rows = try stack.context.fetch(request)
                XCTAssertEqual(rows.map { $0["name"] as? String }, ["c", "a", "b", "d"], "\(stack.storeType): sort by `on` ignored")
            } catch {
                // Refusing the sort key is acceptable; ignoring it is not.
            }
        }
    }

    // MARK: Grouping, having, distinct

    /// NSFetchRequest.returnsDistinctResults: the fetch "returns only distinct values for the
    /// fields specified by propertiesToFetch". Grouped by owner (not fetched), the counts are
    /// {n: 2} (Ada), {n: 1} (Bob), {n: 1} (no owner): two distinct dictionaries. The in-memory
    /// store returns 2; the SQLite store ignores returnsDistinctResults once rows are grouped
    /// (SQLiteDictionaryPlan.sql: `if grouped` never looks at `distinct`) and returns 3, and
    /// count(for:) says 3.
    func testDistinctResultsOfAGroupedFetchAreDistinct() throws {
        try forEachSeededStore { stack in
            let request = try dictionaryRequest([try expression("n", "count:(name)", .integer64)], groupBy: ["owner"], distinct: true)
            let rows = try stack.context.fetch(request)
            XCTAssertEqual(rows.map { doubleValue($0["n"]) }, [2, 1], "\(stack.storeType)")
            XCTAssertEqual(try stack.context.count(for: request), 2, "\(stack.storeType): count(for:)")
        }
    }

    /// NSFetchRequest.propertiesToGroupBy takes key paths, and the having predicate filters the
    /// groups by the dictionaries' values. Grouped by `owner.name` with having
    /// `owner.name == 'Ada'`, Ada's group is kept (the SQLite store does). The in-memory store
    /// keeps no group: it evaluates the predicate with key-value access on the dictionary, which
    /// walks `owner` then `name` instead of reading the entry "owner.name"
    /// (InMemoryStore.groupDictionaries); count(for:) answers 0 too.
    func testHavingOnAGroupedToOneKeyPath() throws {
        try forEachSeededStore { stack in
            let request = try dictionaryRequest([.property("owner.name"), try expression("n", "count:(name)", .integer64)],
                                      groupBy: ["owner.name"], having: "owner.name == 'Ada'")
            let rows = try stack.context.fetch(request)
            XCTAssertEqual(rows.map { $0["owner.name"] as? String }, ["Ada"], "\(stack.storeType)")
            XCTAssertEqual(rows.map { doubleValue($0["n"]) }, [2], "\(stack.storeType)")
            XCTAssertEqual(try stack.context.count(for: request), 1, "\(stack.storeType): count(for:)")
        }
    }

    /// A having predicate over a grouped property that is not fetched (`done == YES`, grouped by
    /// done) or over an aggregate function (`count:(name) > 1`) is valid SQL HAVING. The SQLite
    /// store refuses both (the dictionaries do not hold them); the in-memory store evaluates them
    /// against the group's dictionary, where they are nil, and silently returns no group at all.
    /// Either the right groups or a refusal is acceptable; an empty answer is wrong.
    func testHavingTermsTheDictionariesDoNotHoldAreNotSilentlyFalse() throws {
        try forEachSeededStore { stack in
            let byDone = try dictionaryRequest([try expression("n", "@count", .integer64)], groupBy: ["done"], having: "done == YES")
            if let rows = try? stack.context.fetch(byDone) {
                XCTAssertEqual(rows.map { doubleValue($0["n"]) }, [1], "\(stack.storeType): having done == YES")
            }
            let byCount = try dictionaryRequest([.property("done"), try expression("n", "count:(name)", .integer64)], groupBy: ["done"],
                                      having: "count:(name) > 1")
            if let rows = try? stack.context.fetch(byCount) {
                XCTAssertEqual(rows.map { doubleValue($0["n"]) }, [3], "\(stack.storeType): having count:(name) > 1")
            }
        }
    }

    /// NSFetchRequest.havingPredicate: "Specifying a havingPredicate requires that
    /// propertiesToGroupBy also be specified." Both stores silently ignore a having predicate
    /// without group-by properties and return every row (a, b, c, d for `name == 'a'`). It must
    /// be refused (or, at the least, applied).
    func testAHavingPredicateWithoutGroupingIsNotIgnored() throws {
        try forEachSeededStore { stack in
            let request = try dictionaryRequest([.property("name")], having: "name == 'a'", sortedBy: [Sort(key: "name")])
            if let rows = try? stack.context.fetch(request) {
                XCTAssertEqual(rows.map { $0["name"] as? String }, ["a"], "\(stack.storeType): havingPredicate without propertiesToGroupBy ignored")
            }
        }
    }
}
