// Object IDs and managed objects as dictionary and set keys: they answer hashing with a cheap
// mix of one word, which must agree with equality and keep distinct keys apart.
import XCTest
@testable import ObjectGraph

final class ObjectIdentityTests: XCTestCase {
    private static let model: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("Note") { Attribute("text", .string) }
            Entity("Tag") { Attribute("name", .string) }
        }
        model.freeze()
        return model
    }()

    private func id(_ entity: String, _ key: Int64, store: String = "S") -> ObjectID {
        ObjectID(entity: Self.model.entitiesByName[entity]!, storeIdentifier: store, primaryKey: key)
    }

    func testEqualIDsMadeSeparatelyHashEqually() {
        for key in [Int64(0), 1, 42, -7, .max] {
            XCTAssertEqual(id("Note", key), id("Note", key))
            XCTAssertEqual(id("Note", key).hashValue, id("Note", key).hashValue)
            XCTAssertEqual(id("Note", key)._rawHashValue(seed: 17), id("Note", key)._rawHashValue(seed: 17))
        }
    }

    func testIDsDifferingInKeyEntityKindOrStoreAreDistinctKeys() {
        var keys = Set<ObjectID>()
        for key in Int64(1)...2_000 {
            keys.insert(id("Note", key))
            keys.insert(id("Tag", key))
            keys.insert(id("Note", key, store: "T"))
        }
        keys.insert(ObjectID.temporary(for: Self.model.entitiesByName["Note"]!))
        XCTAssertEqual(keys.count, 6_001)
        XCTAssertTrue(keys.contains(id("Tag", 1_999)))
        XCTAssertFalse(keys.contains(id("Tag", 2_001)))
        // Keys spread over the table: a few thousand keys of one entity share few raw hashes.
        let hashes = Set((Int64(1)...2_000).map { id("Note", $0)._rawHashValue(seed: 0) & 0xFFF })
        XCTAssertGreaterThan(hashes.count, 1_000)
    }

    func testManagedObjectsAreKeyedByIdentity() {
        let entity = Self.model.entitiesByName["Note"]!
        let objects = (0..<1_000).map { _ in ManagedObject(entity: entity, insertInto: nil) }
        let set = Set(objects)
        XCTAssertEqual(set.count, 1_000)
        XCTAssertTrue(objects.allSatisfy(set.contains))
        XCTAssertFalse(set.contains(ManagedObject(entity: entity, insertInto: nil)))
        XCTAssertEqual(objects[3]._rawHashValue(seed: 5), objects[3]._rawHashValue(seed: 5))
    }
}
