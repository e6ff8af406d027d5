// Fetching from the in-memory store: predicates evaluated over rows (key paths through to-one
// relationships, ANY over to-many ones, @count, SUBQUERY, IN, nil, BETWEEN, object ID
// arguments), sorting, offset and limit, counts, object IDs, partial snapshots, sub-entities.
import Foundation
import XCTest
@testable import ObjectGraph

final class InMemoryStoreFetchTests: XCTestCase {
    private var f: InMemoryStoreFixture!
    private var d: TaskData!

    override func setUpWithError() throws {
        f = try InMemoryStoreFixture()
        d = try f.populated()
    }

    // MARK: Predicates

    func testFetchWithoutPredicateOrSortReturnsRowsInSaveOrder() throws {
        XCTAssertEqual(try f.ids(f.request("Task")), [d.write, d.review, d.deploy, d.release])
    }

    func testRowsComeInPrimaryKeyOrderWhateverTheSaveOrder() throws {
        let first = try f.newID("Tag"), second = try f.newID("Tag")
        try f.insert([f.row(second, [:])])
        try f.insert([f.row(first, [:])])
        XCTAssertEqual(try f.ids(f.request("Tag")), [d.swift, d.linux, first, second])
    }

    func testRowsDeletedAndInsertedAgainAppearOnce() throws {
        try f.save(StoreSaveRequest(deleted: [(d.write, 1), (d.review, 1), (d.deploy, 1)]))
        try f.insert([f.row(d.review, ["title": .value("Review again")])])
        XCTAssertEqual(try f.ids(f.request("Task")), [d.review, d.release])
    }

    func testKeyPathThroughToOneRelationship() throws {
        XCTAssertEqual(try f.ids(f.request("Task", "owner.name == %@", "Ada")), [d.write, d.review])
    }

    func testAnyOverToManyRelationship() throws {
        XCTAssertEqual(try f.ids(f.request("Task", "ANY tags.name == 'linux'")), [d.review])
    }

    func testCountOfToManyRelationship() throws {
        XCTAssertEqual(try f.ids(f.request("Task", "tags.@count > 0")), [d.write, d.review])
    }

    func testSubqueryOverToManyRelationship() throws {
        let request = try f.request("Person", "SUBQUERY(tasks, $t, $t.done == NO AND $t.points > 5).@count > 0")
        XCTAssertEqual(try f.ids(request), [d.bob])
    }

    func testInWithConstantCollection() throws {
        XCTAssertEqual(try f.ids(f.request("Task", "title IN {'Write', 'deploy'}")), [d.write, d.deploy])
    }

    func testComparisonWithNil() throws {
        XCTAssertEqual(try f.ids(f.request("Person", "age == nil")), [d.cy])
        XCTAssertEqual(try f.ids(f.request("Task", "code != nil")), [d.write, d.review])
    }

    func testBetweenIsInclusive() throws {
        XCTAssertEqual(try f.ids(f.request("Task", "points BETWEEN {5, 13}")), [d.review, d.deploy, d.release])
    }

    func testNumbersOfDifferentTypesCompareByValue() throws {
        XCTAssertEqual(try f.ids(f.request("Task", "points == 5.0")), [d.review])
    }

    func testToOneComparedWithObjectIDArgument() throws {
        XCTAssertEqual(try f.ids(f.request("Task", "owner == %@", d.bob)), [d.deploy, d.release])
    }

    func testSelfInObjectIDArguments() throws {
        XCTAssertEqual(try f.ids(f.request("Person", "SELF IN %@", [d.cy, d.ada])), [d.ada, d.cy])
        XCTAssertEqual(try f.ids(f.request("Person", "SELF != %@", d.ada)), [d.bob, d.cy])
    }

    func testToManyContainsObjectIDArgument() throws {
        XCTAssertEqual(try f.ids(f.request("Tag", "tasks CONTAINS %@", d.review)), [d.swift, d.linux])
        XCTAssertEqual(try f.ids(f.request("Task", "ANY tags == %@", d.linux)), [d.review])
    }

    func testObjectIDArgumentBecomesAnOpaqueConstant() throws {
        let predicate = try Predicate(format: "owner == %@", d.ada)
        XCTAssertEqual(predicate, .comparison(ComparisonPredicate(.keyPath("owner"), .equalTo, .constant(.opaque(OpaqueValue(d.ada))))))
        XCTAssertNotEqual(ConstantValue.opaque(OpaqueValue(d.ada)), .opaque(OpaqueValue(d.bob)))
    }

    func testSubentitiesAreIncludedByDefault() throws {
        XCTAssertEqual(try f.ids(f.request("Task", "done == NO")), [d.write, d.deploy, d.release])
    }

    func testSubentitiesCanBeExcluded() throws {
        var request = try f.request("Task", "done == NO")
        request.includesSubentities = false
        XCTAssertEqual(try f.ids(request), [d.write, d.deploy])
    }

    func testFetchOfSubentityReturnsOnlyItsRows() throws {
        XCTAssertEqual(try f.ids(f.request("Milestone")), [d.release])
    }

    // MARK: Sorting, offset and limit

    func testSortByTwoKeysOneDescending() throws {
        var request = try f.request("Task")
        request.sortDescriptors = [SortDescriptor(key: "done"), SortDescriptor(key: "points", ascending: false)]
        XCTAssertEqual(try f.ids(request), [d.release, d.deploy, d.write, d.review])
    }

    func testCaseInsensitiveSort() throws {
        var request = try f.request("Task")
        request.sortDescriptors = [SortDescriptor(key: "title")]
        XCTAssertEqual(try f.ids(request), [d.release, d.review, d.write, d.deploy])
        request.sortDescriptors = [SortDescriptor(key: "title", comparison: .caseInsensitive)]
        XCTAssertEqual(try f.ids(request), [d.deploy, d.release, d.review, d.write])
    }

    func testSortThroughToOneWithNilFirst() throws {
        var request = try f.request("Person")
        request.sortDescriptors = [SortDescriptor(key: "age")]
        XCTAssertEqual(try f.ids(request), [d.cy, d.bob, d.ada])
        request = try f.request("Task")
        request.sortDescriptors = [SortDescriptor(key: "owner.name", ascending: false), SortDescriptor(key: "points")]
        XCTAssertEqual(try f.ids(request), [d.deploy, d.release, d.write, d.review])
    }

    func testOffsetSkipsAndLimitCaps() throws {
        var request = try f.request("Task")
        request.fetchOffset = 1
        request.fetchLimit = 2
        XCTAssertEqual(try f.ids(request), [d.review, d.deploy])
        request.fetchOffset = 10
        XCTAssertEqual(try f.ids(request), [])
    }

    // MARK: Result types

    func testCountCountsMatchingRows() throws {
        XCTAssertEqual(try f.count(f.request("Task", "done == NO")), 3)
    }

    func testCountHonorsOffsetAndLimit() throws {
        var request = try f.request("Task")
        request.fetchOffset = 1
        request.fetchLimit = 2
        XCTAssertEqual(try f.count(request), 2)
        request.fetchOffset = 3
        XCTAssertEqual(try f.count(request), 1)
    }

    /// To-many lists are read when the relationship is (as the SQLite store's are), so that a
    /// relationship lists what is stored then, not when its owner was fetched.
    func testSnapshotsAreFullRowsWithToManyUnloaded() throws {
        let rows = try f.snapshots(f.request("Person", "name == 'Ada'"))
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?.value(forKey: "email"), .value("ada@example.org"))
        XCTAssertEqual(rows.first?.value(forKey: "tasks"), .unloaded)
        XCTAssertEqual(try f.list("tasks", of: d.ada), .objects([d.write, d.review]))
        XCTAssertEqual(rows.first?.version, 1)
    }

    func testPartialSnapshotsUnloadPropertiesNotFetched() throws {
        var request = try f.request("Person", "name == 'Bob'")
        request.propertiesToFetch = [f.property("Person", "name")]
        let row = try XCTUnwrap(f.snapshots(request).first)
        XCTAssertEqual(row.value(forKey: "name"), .value("Bob"))
        XCTAssertEqual(row.value(forKey: "email"), .unloaded)
        XCTAssertEqual(row.value(forKey: "tasks"), .unloaded)
    }

    func testPredicateErrorsPropagate() throws {
        XCTAssertThrowsError(try f.ids(f.request("Task", "title > 3")))
    }

    // MARK: Scale

    func testFetchOverManyRowsStaysFast() throws {
        let big = try InMemoryStoreFixture()
        let count = 100_000
        let temporaries = (0..<count).map { _ in ObjectID.temporary(for: big.entity("Person")) }
        let ids = try big.store.obtainPermanentIDs(for: temporaries)
        try big.insert(ids.enumerated().map { n, id in
            big.row(id, ["name": .value("p\(n)"), "age": .value(Int64(n % 100)), "email": .value("p\(n)@example.org")])
        })
        let start = Date()
        var request = try big.request("Person", "age == 42")
        request.sortDescriptors = [SortDescriptor(key: "name", ascending: false)]
        request.fetchLimit = 5
        XCTAssertEqual(try big.ids(request).count, 5)
        XCTAssertEqual(try big.count(big.request("Person", "age < 10")), count / 10)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
    }
}
