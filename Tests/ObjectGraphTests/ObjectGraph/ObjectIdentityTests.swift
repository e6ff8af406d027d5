// Object IDs and managed objects as dictionary and set keys: they answer hashing with a cheap
// mix of one word, which must agree with equality and keep distinct keys apart. Object IDs name
// their store by an interned tag, which must behave as the identifier string did (equal across
// threads, distinct across stores, same order) while the ID holds no reference.
import Synchronization
import XCTest
@testable import ObjectGraph

final class ObjectIdentityTests: XCTestCase {
    private static let model = NotesAndTags.model

    private func id(_ entity: String, _ key: Int64, store: String = "S") -> ObjectID {
        NotesAndTags.id(entity, key, store: store)
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

    func testObjectIDHoldsNoReference() {
        XCTAssertTrue(_isPOD(ObjectID.self))
        XCTAssertEqual(MemoryLayout<ObjectID>.size, 24)
    }

    func testStoreIdentifierRoundTrips() {
        let identifier = UUID().uuidString
        XCTAssertEqual(id("Note", 1, store: identifier).storeIdentifier, identifier)
        XCTAssertEqual(id("Note", 1, store: "").storeIdentifier, "")
        XCTAssertNil(ObjectID.temporary(for: Self.model.entitiesByName["Note"]!).storeIdentifier)
        XCTAssertEqual(StoreTag(interning: identifier).identifier, identifier)
        XCTAssertNil(StoreTag.none.identifier)
    }

    func testEqualIdentifiersInternedOnManyThreadsGiveEqualIDs() {
        let identifiers = (0..<8).map { _ in UUID().uuidString }
        let tags = Mutex<[[StoreTag]]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            // Built afresh on each thread, so that no thread shares another's string.
            let made = identifiers.map { StoreTag(interning: String(decoding: Array($0.utf8), as: UTF8.self)) }
            tags.withLock { $0.append(made) }
        }
        let all = tags.withLock { $0 }
        XCTAssertEqual(all.count, 16)
        XCTAssertTrue(all.allSatisfy { $0 == all[0] })
        XCTAssertEqual(Set(all[0]).count, identifiers.count)
        XCTAssertEqual(id("Note", 7, store: identifiers[3]), id("Note", 7, store: String(identifiers[3])))
    }

    func testIDsOfTwoStoresDiffer() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let first = try coordinator.addPersistentStore(type: .inMemory)
        let second = try coordinator.addPersistentStore(type: .inMemory)
        let note = Self.model.entitiesByName["Note"]!
        let a = try first.obtainPermanentIDs(for: [.temporary(for: note)])[0]
        let b = try second.obtainPermanentIDs(for: [.temporary(for: note)])[0]
        XCTAssertEqual(a.primaryKey, b.primaryKey)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a.storeIdentifier, first.identifier)
        XCTAssertEqual(b.storeIdentifier, second.identifier)
        XCTAssertTrue(coordinator.store(for: a) === first)
        XCTAssertTrue(coordinator.store(for: b) === second)
    }

    func testOrderIsByStoreIdentifierThenEntityNameThenKey() {
        // Interned in the opposite order to the strings', so that tag order is not string order.
        let later = "B-\(UUID().uuidString)", earlier = "A-\(UUID().uuidString)"
        let ids = [id("Note", 2, store: later), id("Tag", 1, store: later), id("Note", 1, store: later),
                   id("Tag", 5, store: earlier), id("Note", 9, store: earlier),
                   ObjectID.temporary(for: Self.model.entitiesByName["Tag"]!)]
        let expected = [ids[5], ids[4], ids[3], ids[2], ids[0], ids[1]]
        XCTAssertEqual(ids.sorted(), expected)
        XCTAssertEqual(ids.reversed().sorted(), expected)
    }
}
