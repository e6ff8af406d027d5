// Key-value access: dictionaries, arrays, sets and ordered sets, key paths through
// collections, collection operators, and a class adopting KeyValueCoding.
import XCTest
@testable import ObjectGraph

final class KeyValueCodingTests: XCTestCase {
    final class Person: KeyValueCoding {
        let name: String
        let friends: [Person]
        init(name: String, friends: [Person] = []) {
            self.name = name
            self.friends = friends
        }
        func value(forKey key: String) -> Any? {
            switch key {
            case "name": return name
            case "friends": return friends
            default: return nil
            }
        }
    }

    func testDictionaryAnswersItsKeysAndNilForMissingOnes() {
        let d: [String: Any] = ["a": 1, "n": NSNull()]
        XCTAssertEqual(d.value(forKey: "a") as? Int, 1)
        XCTAssertNil(d.value(forKey: "n"))
        XCTAssertNil(d.value(forKey: "missing"))
    }

    func testKeyPathsWalkNestedValues() {
        let d: [String: Any] = ["a": ["b": ["c": 3]]]
        XCTAssertEqual(d.value(forKeyPath: "a.b.c") as? Int, 3)
        XCTAssertNil(d.value(forKeyPath: "a.x.c"))
    }

    func testKeyPathsThroughArraysAndSetsYieldCollections() {
        let d: [String: Any] = ["pets": [["age": 3], ["age": 5], ["age": 3]]]
        XCTAssertEqual(d.value(forKeyPath: "pets.age") as? [Int], [3, 5, 3])
        let set: Set<Int> = [1, 2]
        XCTAssertEqual(set.value(forKey: "self") as? Set<AnyHashable>, [1, 2])
    }

    /// NSSet and NSOrderedSet answer a set (an ordered set) of the values without nil or
    /// duplicates, NSArray an array of every value with a null object for nil.
    func testKeysThroughSetsAnswerSetsWithoutNilOrDuplicates() {
        let pets: [[String: Any]] = [["age": 3], ["age": 5], ["age": 3], [:]]
        XCTAssertEqual(Set(pets.map { AnyHashableValue($0) }).value(forKey: "age") as? Set<AnyHashable>, [3, 5])
        XCTAssertEqual(OrderedSet(pets.map { AnyHashableValue($0) }).value(forKey: "age") as? OrderedSet<AnyHashable>, [3, 5])
        XCTAssertEqual(KeyValueAccess.collectionElements(pets.value(forKey: "age"))?.count, 4)
        XCTAssertTrue(KeyValueAccess.collectionElements(pets.value(forKey: "age"))?.last is NSNull)
    }

    /// A value that is not Hashable sits in the answered set in a box that collectionElements opens.
    func testUnhashableValuesOfASetComeOutOfTheirBoxes() throws {
        let shelves: Set<AnyHashableValue> = [AnyHashableValue(["tags": ["a", 1] as [Any]])]
        let tags = try XCTUnwrap(KeyValueAccess.collectionElements(shelves.value(forKey: "tags")))
        XCTAssertEqual(tags.count, 1)
        let first = try XCTUnwrap(tags.first as? [Any])
        XCTAssertEqual(first.first as? String, "a")
        XCTAssertEqual(first.last as? Int, 1)
    }

    func testCollectionOperators() {
        let d: [String: Any] = ["pets": [["age": 3, "tags": ["a"]], ["age": 5, "tags": ["a", "b"]], ["age": 3, "tags": []]]]
        XCTAssertEqual(d.value(forKeyPath: "pets.@count") as? Int, 3)
        XCTAssertEqual(d.value(forKeyPath: "pets.@sum.age") as? Int, 11)
        XCTAssertEqual(d.value(forKeyPath: "pets.@avg.age") as? Double, 11.0 / 3)
        XCTAssertEqual(d.value(forKeyPath: "pets.@min.age") as? Int, 3)
        XCTAssertEqual(d.value(forKeyPath: "pets.@max.age") as? Int, 5)
        XCTAssertEqual(d.value(forKeyPath: "pets.@distinctUnionOfObjects.age") as? [Int], [3, 5])
        XCTAssertEqual(d.value(forKeyPath: "pets.@unionOfObjects.age") as? [Int], [3, 5, 3])
        XCTAssertEqual(d.value(forKeyPath: "pets.@unionOfArrays.tags") as? [String], ["a", "a", "b"])
        XCTAssertEqual(d.value(forKeyPath: "pets.@distinctUnionOfArrays.tags") as? [String], ["a", "b"])
        XCTAssertEqual([1, 2, 3].value(forKey: "@sum") as? Int, 6)
    }

    func testOrderedSetKeepsOrderAndDropsDuplicates() {
        var set: OrderedSet = ["b", "a", "b"]
        XCTAssertEqual(set.elements, ["b", "a"])
        XCTAssertFalse(set.append("a"))
        set.remove("b")
        XCTAssertEqual(Array(set), ["a"])
        XCTAssertEqual(OrderedSet([["n": 1], ["n": 2]].map { $0["n"]! }).value(forKey: "@count") as? Int, 2)
    }

    func testStringsAnswerLengthAndDescription() {
        XCTAssertEqual(KeyValueAccess.value(of: "héllo", forKey: "length") as? Int, 5)
        XCTAssertEqual(KeyValueAccess.value(of: "x", forKey: "description") as? String, "x")
    }

    func testAClassAdoptingTheProtocolIsEvaluated() throws {
        let ada = Person(name: "Ada", friends: [Person(name: "Tom"), Person(name: "Rex")])
        XCTAssertEqual(ada.value(forKeyPath: "friends.name") as? [String], ["Tom", "Rex"])
        XCTAssertTrue(try Predicate(format: "ANY friends.name == 'Rex' AND friends.@count == 2").evaluate(with: ada))
    }
}

final class ReflectedKeyValueTests: XCTestCase {
    struct Book {
        var title: String
        var pages: Int
    }

    func testPlainSwiftValuesAnswerTheirStoredPropertiesByReflection() throws {
        let book = Book(title: "Dune", pages: 412)
        XCTAssertEqual(KeyValueAccess.value(of: book, forKey: "title") as? String, "Dune")
        XCTAssertTrue(try (Key(\Book.pages) > 400 && Key(\Book.title).beginsWith("D")).evaluate(with: book))
        XCTAssertNil(KeyValueAccess.value(of: book, forKey: "missing"))
    }
}
