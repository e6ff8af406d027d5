// Dictionary fetches from the SQLite store give what the in-memory store gives for the same
// rows: properties and key paths per row, distinct rows, groups with aggregates and a having
// predicate, in the same order, nil values left out.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteDictionaryTests: XCTestCase {
    private typealias Pair = SQLitePredicateEquivalenceTests.Pair

    /// The dictionaries of `request` from both stores, values made comparable.
    private func answers(_ pair: Pair, _ request: StoreFetchRequest) throws -> (memory: [[String: AnyHashable]], sqlite: [[String: AnyHashable]]) {
        var request = request
        request.resultType = .dictionaries
        func comparable(_ result: StoreFetchResult) -> [[String: AnyHashable]] {
            guard case .dictionaries(let rows) = result else { return [] }
            return rows.map { $0.mapValues { value in (value as? any Hashable).map { AnyHashable($0) } ?? AnyHashable("\(value)") } }
        }
        return (comparable(try pair.memory.execute(request)), comparable(try pair.sqlite.store.execute(request)))
    }

    private func request(_ pair: Pair, _ entity: String, properties: [String]? = nil, expressions: [(String, String)] = [],
                         groupBy: [String] = [], having: String? = nil, sortedBy sort: [ObjectGraph.SortDescriptor] = []) throws -> StoreFetchRequest {
        let described = pair.entity(entity)
        var request = StoreFetchRequest(entity: described)
        request.propertiesToFetch = properties.map { $0.map { described.propertiesByName[$0]! } }
        request.expressionsToFetch = try expressions.map { ExpressionDescription(name: $0.0, expression: try Expression(format: $0.1), resultType: .undefined) }
        request.propertiesToGroupBy = groupBy.map { described.propertiesByName[$0]! }
        request.havingPredicate = try having.map { try Predicate(format: $0) }
        request.sortDescriptors = sort
        return request
    }

    private func assertSame(_ pair: Pair, _ request: StoreFetchRequest, file: StaticString = #filePath, line: UInt = #line) throws {
        let (memory, sqlite) = try answers(pair, request)
        XCTAssertFalse(memory.isEmpty, file: file, line: line)
        XCTAssertEqual(sqlite, memory, file: file, line: line)
    }

    func testPropertiesOfEveryRowInFetchOrder() throws {
        let pair = try Pair()
        try assertSame(pair, request(pair, "Task", properties: ["title", "points", "owner"], sortedBy: [.init(key: "title")]))
        try assertSame(pair, request(pair, "Sample"))
    }

    func testKeyPathsThroughToOneRelationshipsAndSelf() throws {
        let pair = try Pair()
        try assertSame(pair, request(pair, "Task", properties: ["title"], expressions: [("ownerName", "owner.name"), ("id", "SELF")],
                                     sortedBy: [.init(key: "points", ascending: false)]))
    }

    func testDistinctRowsInTheOrderOfTheirFirstRow() throws {
        let pair = try Pair()
        var distinct = try request(pair, "Task", properties: ["done"], sortedBy: [.init(key: "title")])
        distinct.returnsDistinctResults = true
        try assertSame(pair, distinct)
        distinct.fetchLimit = 1
        distinct.fetchOffset = 1
        try assertSame(pair, distinct)
    }

    func testGroupsWithAggregates() throws {
        let pair = try Pair()
        try assertSame(pair, request(pair, "Task", properties: ["owner"],
                                     expressions: [("n", "count:(title)"), ("total", "sum:(points)"), ("mean", "@avg.points"),
                                                   ("top", "max:(points)"), ("first", "min:(title)"), ("rows", "@count")],
                                     groupBy: ["owner"]))
        try assertSame(pair, request(pair, "Task", properties: ["done"], expressions: [("total", "sum:(points)")], groupBy: ["done"],
                                     sortedBy: [.init(key: "total", ascending: false)]))
    }

    func testHavingFiltersGroupsByTheirDictionaries() throws {
        let pair = try Pair()
        try assertSame(pair, request(pair, "Task", properties: ["owner"], expressions: [("total", "sum:(points)")], groupBy: ["owner"],
                                     having: "total > 10"))
        try assertSame(pair, request(pair, "Task", properties: ["owner"], expressions: [("total", "sum:(points)")], groupBy: ["owner"],
                                     having: "$total BETWEEN {5, 30}"))
    }

    func testAggregatesOverAllRowsMakeOneGroup() throws {
        let pair = try Pair()
        try assertSame(pair, request(pair, "Task", properties: [], expressions: [("total", "sum:(points)"), ("n", "count:(code)"), ("low", "min:(title)")]))
        var none = try request(pair, "Task", properties: [], expressions: [("total", "sum:(points)"), ("mean", "average:(points)")])
        none.predicate = .falsePredicate
        try assertSame(pair, none)
    }

    func testPropertiesNeitherGroupedNorAggregatedAreRefused() throws {
        let pair = try Pair()
        var request = try request(pair, "Task", properties: ["title"], expressions: [("total", "sum:(points)")], groupBy: ["owner"])
        request.resultType = .dictionaries
        XCTAssertThrowsError(try pair.sqlite.store.execute(request)) { error in
            XCTAssertTrue("\(error)".contains("Task.title"), "\(error)")
        }
    }
}
