// Dictionary fetches from the in-memory store: requested properties and key paths, nil values
// left out, per-row expressions, grouping with aggregates, the having predicate, distinct
// results, and offset and limit over rows and over groups.
import Foundation
import XCTest
@testable import ObjectGraph

final class InMemoryStoreDictionaryTests: XCTestCase {
    private var f: InMemoryStoreFixture!
    private var d: TaskData!

    override func setUpWithError() throws {
        f = try InMemoryStoreFixture()
        d = try f.populated()
    }

    private func tasks(_ properties: [String], sortedBy key: String = "points") throws -> StoreFetchRequest {
        var request = try f.request("Task")
        request.propertiesToFetch = properties.map { f.property("Task", $0) }
        request.sortDescriptors = [SortDescriptor(key: key)]
        return request
    }

    private func expression(_ name: String, _ format: String) throws -> ExpressionDescription {
        ExpressionDescription(name: name, expression: try Expression(format: format), resultType: .integer64)
    }

    /// The tasks grouped by owner with their total points and number of titles.
    private func totalsByOwner() throws -> StoreFetchRequest {
        var request = try tasks(["owner"])
        request.propertiesToGroupBy = [f.property("Task", "owner")]
        request.expressionsToFetch = [try expression("total", "sum:(points)"), try expression("n", "count:(title)")]
        return request
    }

    func testDictionariesHoldTheRequestedPropertiesWithNilLeftOut() throws {
        let rows = try f.dictionaries(tasks(["title", "code"]))
        XCTAssertEqual(rows.map { $0["title"] as? String }, ["Write", "Review", "deploy", "Release"])
        XCTAssertEqual(rows.map { $0["code"] as? String }, ["W", "R", nil, nil])
        XCTAssertEqual(rows.map { $0.keys.count }, [2, 2, 1, 1])
    }

    func testToOneRelationshipComesAsObjectID() throws {
        let rows = try f.dictionaries(tasks(["owner"]))
        XCTAssertEqual(rows.map { $0["owner"] as? ObjectID }, [d.ada, d.ada, d.bob, d.bob])
    }

    func testKeyPathsThroughToOneRelationships() throws {
        var request = try tasks([])
        request.propertiesToFetch = [AttributeDescription(name: "owner.name", type: .string)]
        request.expressionsToFetch = [try expression("ownerAge", "owner.age")]
        let rows = try f.dictionaries(request)
        XCTAssertEqual(rows.map { $0["owner.name"] as? String }, ["Ada", "Ada", "Bob", "Bob"])
        XCTAssertEqual(rows.map { $0["ownerAge"] as? Int64 }, [36, 36, 25, 25])
    }

    func testExpressionsAreComputedPerRow() throws {
        var request = try tasks([])
        request.expressionsToFetch = [try expression("double", "points * 2"), try expression("tagCount", "tags.@count")]
        let rows = try f.dictionaries(request)
        XCTAssertEqual(rows.map { $0["double"] as? Int }, [6, 10, 16, 26])
        XCTAssertEqual(rows.map { $0["tagCount"] as? Int }, [1, 2, 0, 0])
    }

    func testGroupByAggregatesEachGroup() throws {
        let rows = try f.dictionaries(totalsByOwner())
        XCTAssertEqual(rows.map { $0["owner"] as? ObjectID }, [d.ada, d.bob])
        XCTAssertEqual(rows.map { $0["total"] as? Int }, [8, 21])
        XCTAssertEqual(rows.map { $0["n"] as? Int }, [2, 2])
    }

    func testGroupByAttributeWithCollectionOperator() throws {
        var request = try tasks(["done"])
        request.propertiesToGroupBy = [f.property("Task", "done")]
        request.expressionsToFetch = [try expression("n", "@count"), try expression("most", "max:(points)")]
        let rows = try f.dictionaries(request)
        XCTAssertEqual(rows.map { $0["done"] as? Bool }, [false, true])
        XCTAssertEqual(rows.map { $0["n"] as? Int }, [3, 1])
        XCTAssertEqual(rows.map { $0["most"] as? Int32 }, [13, 5])
    }

    func testHavingPredicateKeepsMatchingGroups() throws {
        var request = try totalsByOwner()
        request.havingPredicate = try Predicate(format: "total > 10")
        XCTAssertEqual(try f.dictionaries(request).map { $0["owner"] as? ObjectID }, [d.bob])
        request.havingPredicate = try Predicate(format: "$total < 10")
        XCTAssertEqual(try f.dictionaries(request).map { $0["owner"] as? ObjectID }, [d.ada])
    }

    func testGroupsSortByTheirAggregates() throws {
        var request = try totalsByOwner()
        request.sortDescriptors = [SortDescriptor(key: "total", ascending: false)]
        XCTAssertEqual(try f.dictionaries(request).map { $0["owner"] as? ObjectID }, [d.bob, d.ada])
    }

    func testAggregatesWithoutGroupingCoverEveryRow() throws {
        var request = try f.request("Task", "done == NO")
        request.propertiesToFetch = []
        request.expressionsToFetch = [try expression("total", "sum:(points)"), try expression("n", "count:(code)")]
        let rows = try f.dictionaries(request)
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?["total"] as? Int, 24)
        XCTAssertEqual(rows.first?["n"] as? Int, 1)
    }

    func testDistinctResultsDropDuplicates() throws {
        var request = try tasks(["done"])
        request.returnsDistinctResults = true
        XCTAssertEqual(try f.dictionaries(request).map { $0["done"] as? Bool }, [false, true])
    }

    func testOffsetAndLimitApplyAfterDistinct() throws {
        var request = try tasks(["owner"])
        request.returnsDistinctResults = true
        request.fetchOffset = 1
        XCTAssertEqual(try f.dictionaries(request).map { $0["owner"] as? ObjectID }, [d.bob])
    }

    func testOffsetAndLimitApplyToRows() throws {
        var request = try tasks(["title"])
        request.fetchOffset = 1
        request.fetchLimit = 2
        XCTAssertEqual(try f.dictionaries(request).map { $0["title"] as? String }, ["Review", "deploy"])
    }

    func testOffsetAndLimitApplyToGroups() throws {
        var request = try totalsByOwner()
        request.fetchLimit = 1
        XCTAssertEqual(try f.dictionaries(request).map { $0["owner"] as? ObjectID }, [d.ada])
    }

    func testDefaultColumnsAreTheAttributesAndToOneRelationships() throws {
        let row = try XCTUnwrap(f.dictionaries(f.request("Task", "title == 'Write'")).first)
        XCTAssertEqual(Set(row.keys), ["title", "code", "done", "points", "owner"])
    }
}
