// Review of key-value coding on managed objects against Apple's documented behaviour (Key-Value
// Coding Programming Guide, "Using Collection Operators"; NSManagedObject value(forKey:);
// NSSortDescriptor; NSUUID compare(_:)). Every test here fails on the code it was written
// against; each comment says what Foundation / Core Data does and what ObjectGraph does instead.
// The model is built in code: Owner (name, age, to-many jobs, many-to-many tags), Job (name,
// points, weight, due, done, to-one owner), Tag (label, to-many owners).
import Foundation
import XCTest
@testable import ObjectGraph

private typealias Sort = ObjectGraph.SortDescriptor

final class KeyValueCodingReviewTests: XCTestCase {
    static let model: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("Owner") {
                Attribute("name", .string)
                Attribute("age", .integer64)
                Relationship("jobs", to: "Job", inverse: "owner", toMany: true)
                Relationship("tags", to: "Tag", inverse: "owners", toMany: true)
            }
            Entity("Job") {
                Attribute("name", .string)
                Attribute("points", .integer32)
                Attribute("weight", .double)
                Attribute("due", .date)
                Attribute("done", .boolean)
                Relationship("owner", to: "Owner", inverse: "jobs")
            }
            Entity("Tag") {
                Attribute("label", .string)
                Relationship("owners", to: "Owner", inverse: "tags", toMany: true)
            }
        }
        model.freeze()
        return model
    }()

    // MARK: Collection operators

    /// Key-Value Coding Programming Guide, Using Collection Operators, @avg: "valueForKeyPath:
    /// reads the property specified by the right key path for each element of the collection,
    /// converts it to a double (substituting 0 for nil values), and computes the arithmetic
    /// average of these" (Foundation: 8 elements summing 96, one without the key, average 12).
    /// So jobs with points 2, nil and 4 average 2. ObjectGraph leaves the nil out and divides by
    /// the values present: it answers 3.
    func testAverageOperatorCountsNilValuesAsZero() throws {
        try forEachStore(model: Self.model) { stack in
            let ada = stack.insert("Owner", ["name": "Ada"])
            stack.insert("Job", ["name": "a", "points": Int32(2), "owner": ada])
            stack.insert("Job", ["name": "b", "owner": ada])
            stack.insert("Job", ["name": "c", "points": Int32(4), "owner": ada])
            let average = ada.value(forKeyPath: "jobs.@avg.points").flatMap { Number($0)?.doubleValue }
            XCTAssertEqual(average, 2.0, "\(stack.storeType): @avg substitutes 0 for the job without points")
        }
    }

    /// Key-Value Coding Programming Guide, Nesting Operators, @distinctUnionOfSets:
    /// "valueForKeyPath: creates and returns an NSSet object containing the combined distinct
    /// objects of all the collections corresponding to the property specified by the right key
    /// path ... it returns an NSSet instance." ObjectGraph answers an array (`[Any]`), so code
    /// casting the result to a set gets nil.
    func testDistinctUnionOfSetsAnswersASet() throws {
        try forEachStore(model: Self.model) { stack in
            let ada = stack.insert("Owner", ["name": "Ada"])
            let bob = stack.insert("Owner", ["name": "Bob"])
            let x = stack.insert("Tag", ["label": "x"])
            let y = stack.insert("Tag", ["label": "y"])
            ada.mutableSetValue(forKey: "tags").insert(x)
            bob.mutableSetValue(forKey: "tags").insert(x)
            bob.mutableSetValue(forKey: "tags").insert(y)
            let union = x.value(forKeyPath: "owners.@distinctUnionOfSets.tags")
            XCTAssertTrue(union is Set<AnyHashable> || union is Set<ManagedObject>,
                          "\(stack.storeType): @distinctUnionOfSets answered \(union.map { "\(type(of: $0))" } ?? "nil"), not a set")
            XCTAssertEqual(KeyValueAccess.collectionElements(union)?.count, 2)
        }
    }

    // MARK: Keys of the object itself

    /// NSManagedObject's `entity` is its NSEntityDescription, and key-value coding reads it like
    /// any property, so `value(forKeyPath: "entity.name")` is the entity's name. ObjectGraph
    /// answers the name itself (a String) for the key `entity`, so the key path `entity.name`
    /// answers nil.
    func testEntityKeyPathReachesTheEntityDescription() throws {
        try forEachStore(model: Self.model) { stack in
            let ada = stack.insert("Owner", ["name": "Ada"])
            XCTAssertEqual(ada.value(forKeyPath: "entity.name") as? String, "Owner", "\(stack.storeType)")
        }
    }

    // MARK: Unknown keys

    /// NSManagedObject value(forKey:): "If key is not a property defined by the model, the method
    /// raises an exception" (NSUndefinedKeyException), so evaluating `nmae == nil` against a
    /// managed object fails, naming the key; the SQLite store already refuses the same predicate
    /// ("the SQLite store cannot translate the key path nmae: Owner has no property nmae").
    /// Predicate.evaluate(with:) can throw, but ObjectGraph reads the misspelt key as nil and
    /// answers true: a typo silently matches every object.
    func testEvaluatingAPredicateWithAnUnknownKeyOnAManagedObjectThrows() throws {
        try forEachStore(model: Self.model) { stack in
            let ada = stack.insert("Owner", ["name": "Ada"])
            XCTAssertThrowsError(try Predicate(format: "nmae == nil").evaluate(with: ada),
                                 "\(stack.storeType): Owner has no key nmae")
        }
    }

    /// The same fetch request must not answer differently by store: with a predicate on a key the
    /// entity does not have, the SQLite store throws ("Owner has no property nmae"), as Core Data
    /// raises for an unknown key (NSManagedObject value(forKey:): "If key is not a property
    /// defined by the model, the method raises an exception"). The in-memory store instead
    /// returns every owner for `nmae == nil`.
    func testFetchingWithAnUnknownKeyThrowsInEveryStore() throws {
        try forEachStore(model: Self.model) { stack in
            stack.insert("Owner", ["name": "Ada"])
            stack.insert("Owner", ["name": "Bob"])
            try stack.context.save()
            XCTAssertThrowsError(try stack.fetch("Owner", "nmae == nil", in: stack.newContext()),
                                 "\(stack.storeType): Owner has no key nmae")
        }
    }

    // MARK: Values of another type

    /// Core Data keeps integer and Boolean attributes as NSNumber, so any number is accepted for
    /// them (Key-Value Coding Programming Guide, Representing Non-Object Values: setValue:forKey:
    /// unwraps an NSNumber with the `<type>Value` accessor the property needs), and ObjectGraph
    /// says it "converts numbers to the attribute's own type (`Int` to `Int16`...)". Only `Int`
    /// is converted: an `Int64` set on an Integer 32 attribute, or `1` on a Boolean one, is kept
    /// as it is and the save fails ("3 is not a Integer 32 (it is Int64)", "1 is not a Boolean
    /// (it is Int)").
    func testNumbersOfAnotherSwiftTypeAreConvertedToTheAttributesType() throws {
        try forEachStore(model: Self.model) { stack in
            let job = stack.insert("Job", ["name": "a"])
            job.setValue(Int64(3), forKey: "points")
            job.setValue(1, forKey: "done")
            XCTAssertEqual(job.value(forKey: "points") as? Int32, 3, "\(stack.storeType)")
            XCTAssertEqual(job.value(forKey: "done") as? Bool, true, "\(stack.storeType)")
            XCTAssertNoThrow(try stack.context.save(), "\(stack.storeType)")
        }
    }

    // MARK: Sorting

    /// NSSortDescriptor init(key:ascending:) uses "the default comparison selector (compare:)",
    /// and NSUUID answers compare(_:) (macOS 12, iOS 15); Swift's UUID is Comparable. So sorting
    /// by a UUID attribute orders by UUID. ObjectGraph finds UUIDs not orderable and leaves them
    /// in their incoming order, both in `sorted(using:)` and in both stores' fetches (the SQLite
    /// store only puts nil first).
    func testSortingByAUUIDAttributeOrdersByUUID() throws {
        try forEachStore(model: Stack.organizerModel) { stack in
            let ids = (0..<8).map { n in UUID(uuidString: String(format: "%08X-0000-4000-8000-000000000000", (n * 5) % 8 + 1))! }
            for (n, id) in ids.enumerated() { stack.insert("Task", ["title": "t\(n)", "uuid": id]) }
            let expected = ids.sorted { $0.uuidString < $1.uuidString }
            let inMemory = try stack.fetch("Task").sorted(using: [Sort(key: "uuid")]).map { $0.value(forKey: "uuid") as? UUID }
            XCTAssertEqual(inMemory, expected, "\(stack.storeType): sorted(using:) by uuid")
            try stack.context.save()
            let fetched = try stack.fetch("Task", sortedBy: "uuid", in: stack.newContext()).map { $0.value(forKey: "uuid") as? UUID }
            XCTAssertEqual(fetched, expected, "\(stack.storeType): fetch sorted by uuid")
        }
    }
}
