// The in-memory store through the store contract: identity and metadata, permanent IDs, saving
// (versions, merging of unloaded slots, optimistic locking conflicts, uniqueness constraints),
// reading rows back and relationships computed from their inverse.
import Foundation
import XCTest
@testable import ObjectGraph

final class InMemoryStoreTests: XCTestCase {
    // MARK: Identity and metadata

    func testMetadataNamesTypeIdentifierAndModelVersionHashes() throws {
        let f = try InMemoryStoreFixture()
        let metadata = f.store.metadata
        XCTAssertEqual(f.store.type, .inMemory)
        XCTAssertEqual(metadata["StoreType"] as? String, "InMemory")
        XCTAssertEqual(metadata["UUID"] as? String, f.store.identifier)
        XCTAssertNotNil(UUID(uuidString: f.store.identifier))
        let hashes = try XCTUnwrap(metadata["ModelVersionHashes"] as? [String: Data])
        XCTAssertEqual(hashes, f.model.entityVersionHashesByName)
    }

    func testIdentifierOptionFixesTheIdentifier() throws {
        let f = try InMemoryStoreFixture(options: ["identifier": "fixed-store"])
        XCTAssertEqual(f.store.identifier, "fixed-store")
        XCTAssertEqual(try f.newID("Person").storeIdentifier, "fixed-store")
    }

    func testConfigurationVersionHashesCoverOnlyItsEntities() throws {
        let f = try InMemoryStoreFixture(configuration: "People")
        let hashes = try XCTUnwrap(f.store.metadata["ModelVersionHashes"] as? [String: Data])
        XCTAssertEqual(Array(hashes.keys), ["Person"])
        XCTAssertEqual(f.store.configurationName, "People")
    }

    func testCoordinatorMakesInMemoryStores() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: InMemoryStoreFixture.makeModel())
        let store = try coordinator.addPersistentStore(type: .inMemory, options: ["identifier": "via-coordinator"])
        XCTAssertTrue(store is InMemoryStore)
        XCTAssertTrue(coordinator.persistentStore(withIdentifier: "via-coordinator") === store)
    }

    func testConcurrentSavesAndFetchesAreSerialized() throws {
        let f = try InMemoryStoreFixture()
        let store = f.store, tag = f.entity("Tag")
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 {
                guard let id = try? store.obtainPermanentIDs(for: [ObjectID.temporary(for: tag)])[0] else { continue }
                let row = Snapshot(objectID: id, version: 0, values: tag.layout.properties.map { _ in .null })
                _ = try? store.save(StoreSaveRequest(inserted: [row]))
                _ = try? store.execute(StoreFetchRequest(entity: tag))
            }
        }
        XCTAssertEqual(try f.count(f.request("Tag")), 400)
        XCTAssertEqual(Set(try f.ids(f.request("Tag")).compactMap(\.primaryKey)), Set(1...400))
    }

    // MARK: Permanent IDs

    func testPermanentIDsKeepTheEntityAndBelongToTheStore() throws {
        let f = try InMemoryStoreFixture()
        let temporary = ObjectID.temporary(for: f.entity("Milestone"))
        let permanent = try f.store.obtainPermanentIDs(for: [temporary])[0]
        XCTAssertFalse(permanent.isTemporaryID)
        XCTAssertTrue(permanent.entity === f.entity("Milestone"))
        XCTAssertEqual(permanent.storeIdentifier, f.store.identifier)
    }

    func testPrimaryKeysAreUniquePerInheritanceRootStartingAtOne() throws {
        let f = try InMemoryStoreFixture()
        let temporaries = ["Task", "Milestone", "Task", "Person"].map { ObjectID.temporary(for: f.entity($0)) }
        let keys = try f.store.obtainPermanentIDs(for: temporaries).map(\.primaryKey)
        XCTAssertEqual(keys, [1, 2, 3, 1])
    }

    func testPermanentIDsPassThroughUnchanged() throws {
        let f = try InMemoryStoreFixture()
        let id = try f.newID("Tag")
        XCTAssertEqual(try f.store.obtainPermanentIDs(for: [id]), [id])
    }

    // MARK: Saving

    func testInsertedRowsReadBackAtVersionOne() throws {
        let f = try InMemoryStoreFixture()
        let id = try f.newID("Person")
        try f.insert([f.row(id, ["name": .value("Ada"), "age": .value(Int64(36))])])
        let row = try XCTUnwrap(f.stored(id))
        XCTAssertEqual(row.version, 1)
        XCTAssertEqual(row.value(forKey: "name"), .value("Ada"))
        XCTAssertEqual(row.value(forKey: "age"), .value(Int64(36)))
        XCTAssertEqual(row.value(forKey: "email"), .null)
    }

    func testSaveReturnsNewSnapshotsAndDeletedIDs() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let newTag = try f.newID("Tag")
        let result = try f.store.save(StoreSaveRequest(
            inserted: [f.row(newTag, ["name": .value("new")])],
            updated: [f.row(d.cy, ["name": .value("Cyrus")], version: 1)],
            deleted: [(d.linux, 1)]))
        XCTAssertEqual(result.snapshots.map(\.objectID), [newTag, d.cy])
        XCTAssertEqual(result.snapshots.map(\.version), [1, 2])
        XCTAssertEqual(result.deletedObjectIDs, [d.linux])
    }

    func testUpdateIncrementsTheVersion() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(updated: [f.row(d.cy, ["name": .value("Cyrus")], version: 1)]))
        try f.save(StoreSaveRequest(updated: [f.row(d.cy, ["name": .value("Cy")], version: 2)]))
        XCTAssertEqual(try f.stored(d.cy)?.version, 3)
        XCTAssertEqual(try f.stored(d.cy)?.value(forKey: "name"), .value("Cy"))
    }

    func testUpdateKeepsStoredValuesOfUnloadedSlots() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        var update = try XCTUnwrap(f.stored(d.ada))
        update.values[update.layout.index(of: "tasks")!] = .unloaded
        update.values[update.layout.index(of: "age")!] = .value(Int64(37))
        try f.save(StoreSaveRequest(updated: [update]))
        let row = try XCTUnwrap(f.stored(d.ada))
        XCTAssertEqual(row.value(forKey: "age"), .value(Int64(37)))
        XCTAssertEqual(try f.list("tasks", of: d.ada), .objects([d.write, d.review]))
    }

    func testTransientSlotsAreNotStored() throws {
        let f = try InMemoryStoreFixture()
        let id = try f.newID("Person")
        try f.insert([f.row(id, ["nickname": .value("Countess")])])
        XCTAssertEqual(try f.stored(id)?.value(forKey: "nickname"), .unloaded)
    }

    func testDeleteRemovesTheRow() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(deleted: [(d.cy, 1)]))
        XCTAssertNil(try f.stored(d.cy))
        XCTAssertEqual(try f.ids(f.request("Person")), [d.ada, d.bob])
    }

    func testSnapshotsLeaveOutMissingRows() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let never = try f.newID("Person")
        let rows = try f.store.snapshots(for: [d.ada, never])
        XCTAssertEqual(Array(rows.keys), [d.ada])
    }

    func testInsertingAnIDOfAnotherStoreIsRejected() throws {
        let f = try InMemoryStoreFixture()
        let other = try InMemoryStoreFixture()
        let foreign = try other.newID("Person")
        XCTAssertThrowsError(try f.insert([f.row(foreign, [:])])) { error in
            guard case StoreError.foreignObjectID(let id) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(id, foreign)
        }
    }

    func testSavingAnEntityOutsideTheConfigurationIsRejected() throws {
        let f = try InMemoryStoreFixture(configuration: "People")
        let tag = try f.newID("Tag")
        XCTAssertThrowsError(try f.insert([f.row(tag, [:])])) { error in
            guard case StoreError.unsupportedRequest(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("Tag"), reason)
        }
    }

    func testUnloadDropsEveryRow() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        f.store.unload()
        XCTAssertTrue(try f.store.snapshots(for: [d.ada, d.write]).isEmpty)
    }

    // MARK: Optimistic locking

    func testStaleUpdateThrowsConflictWithCurrentSnapshotAndChangesNothing() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(updated: [f.row(d.cy, ["name": .value("Cyrus")], version: 1)]))
        let newTag = try f.newID("Tag")
        XCTAssertThrowsError(try f.store.save(StoreSaveRequest(
            inserted: [f.row(newTag, [:])], updated: [f.row(d.cy, ["name": .value("Cyril")], version: 1)]))
        ) { error in
            guard case StoreError.conflicts(let conflicts) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(conflicts.map(\.objectID), [d.cy])
            XCTAssertEqual(conflicts.first?.expectedVersion, 1)
            XCTAssertEqual(conflicts.first?.currentSnapshot?.version, 2)
            XCTAssertEqual(conflicts.first?.currentSnapshot?.value(forKey: "name"), .value("Cyrus"))
        }
        XCTAssertNil(try f.stored(newTag))
        XCTAssertEqual(try f.stored(d.cy)?.value(forKey: "name"), .value("Cyrus"))
    }

    func testStaleDeleteThrowsConflictAndKeepsTheRow() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        XCTAssertThrowsError(try f.store.save(StoreSaveRequest(deleted: [(d.cy, 7)]))) { error in
            guard case StoreError.conflicts(let conflicts) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(conflicts.first?.currentSnapshot?.version, 1)
        }
        XCTAssertNotNil(try f.stored(d.cy))
    }

    func testDeletingAMissingRowThrowsConflictWithoutSnapshot() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(deleted: [(d.cy, 1)]))
        XCTAssertThrowsError(try f.store.save(StoreSaveRequest(deleted: [(d.cy, 1)]))) { error in
            guard case StoreError.conflicts(let conflicts) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(conflicts.map(\.objectID), [d.cy])
            XCTAssertNil(conflicts.first?.currentSnapshot)
        }
    }

    func testConflictsListEveryStaleRow() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let request = StoreSaveRequest(updated: [f.row(d.ada, [:], version: 5), f.row(d.bob, [:], version: 1)],
                                       deleted: [(d.cy, 2)], locked: [(d.swift, 3)])
        XCTAssertThrowsError(try f.store.save(request)) { error in
            guard case StoreError.conflicts(let conflicts) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(conflicts.map(\.objectID), [d.ada, d.cy, d.swift])
        }
        XCTAssertEqual(try f.stored(d.bob)?.version, 1)
    }

    func testLockedRowAtItsVersionLetsTheSaveThrough() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(updated: [f.row(d.cy, ["age": .value(Int64(3))], version: 1)], locked: [(d.ada, 1)]))
        XCTAssertEqual(try f.stored(d.ada)?.version, 1)
        XCTAssertEqual(try f.stored(d.cy)?.value(forKey: "age"), .value(Int64(3)))
    }

    // MARK: Uniqueness constraints

    func testUniquenessViolationNamesBothObjectsAndChangesNothing() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let copy = try f.newID("Person"), newTag = try f.newID("Tag")
        let request = StoreSaveRequest(inserted: [f.row(newTag, [:]), f.row(copy, ["email": .value("ada@example.org")])])
        XCTAssertThrowsError(try f.store.save(request)) { error in
            guard case let StoreError.uniquenessViolation(entity, properties, ids) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(entity, "Person")
            XCTAssertEqual(properties, ["email"])
            XCTAssertEqual(ids, [copy, d.ada])
        }
        XCTAssertNil(try f.stored(newTag))
        XCTAssertNil(try f.stored(copy))
    }

    func testUniquenessViolationBetweenRowsOfOneSave() throws {
        let f = try InMemoryStoreFixture()
        let first = try f.newID("Person"), second = try f.newID("Person")
        let request = StoreSaveRequest(inserted: [f.row(first, ["email": .value("x@example.org")]),
                                                  f.row(second, ["email": .value("x@example.org")])])
        XCTAssertThrowsError(try f.store.save(request)) { error in
            guard case let StoreError.uniquenessViolation(_, _, ids) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(ids, [second, first])
        }
    }

    func testUpdateTakingAnotherRowsValueViolatesTheConstraint() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        var bob = try XCTUnwrap(f.stored(d.bob))
        bob.values[bob.layout.index(of: "email")!] = .value("ada@example.org")
        XCTAssertThrowsError(try f.store.save(StoreSaveRequest(updated: [bob])))
        XCTAssertEqual(try f.stored(d.bob)?.value(forKey: "email"), .value("bob@example.org"))
    }

    func testNilValuesNeverCollide() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let another = try f.newID("Person")
        try f.insert([f.row(another, ["name": .value("Dee")])])
        XCTAssertEqual(try f.stored(d.cy)?.value(forKey: "email"), .null)
        XCTAssertNotNil(try f.stored(another))
    }

    func testValuesSwappedInOneSaveDoNotCollide() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        var ada = try XCTUnwrap(f.stored(d.ada)), bob = try XCTUnwrap(f.stored(d.bob))
        ada.values[ada.layout.index(of: "email")!] = .value("bob@example.org")
        bob.values[bob.layout.index(of: "email")!] = .value("ada@example.org")
        try f.save(StoreSaveRequest(updated: [ada, bob]))
        XCTAssertEqual(try f.stored(d.ada)?.value(forKey: "email"), .value("bob@example.org"))
    }

    func testDeletedRowFreesItsUniqueValue() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let successor = try f.newID("Person")
        try f.save(StoreSaveRequest(inserted: [f.row(successor, ["email": .value("ada@example.org")])],
                                          deleted: [(d.ada, 1)]))
        XCTAssertEqual(try f.stored(successor)?.value(forKey: "email"), .value("ada@example.org"))
    }

    func testInheritedConstraintSpansTheInheritanceRoot() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let milestone = try f.newID("Milestone")
        XCTAssertThrowsError(try f.insert([f.row(milestone, ["code": .value("W")])])) { error in
            guard case let StoreError.uniquenessViolation(entity, properties, ids) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(entity, "Milestone")
            XCTAssertEqual(properties, ["code"])
            XCTAssertEqual(ids, [milestone, d.write])
        }
    }

    // MARK: Relationships

    func testOrderedToManyKeepsItsOrder() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let steps = try f.store.objectIDs(forRelationship: f.property("Task", "steps") as! RelationshipDescription, of: d.write)
        XCTAssertEqual(steps, [d.stepC, d.stepA, d.stepB])
    }

    func testManyToManyDestinationsComeFromTheStoredList() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let tags = try f.store.objectIDs(forRelationship: f.property("Task", "tags") as! RelationshipDescription, of: d.review)
        XCTAssertEqual(tags, [d.swift, d.linux])
    }

    func testDestinationsOfManyOwnersAreEachOwnersOwn() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        let tags = f.property("Task", "tags") as! RelationshipDescription
        XCTAssertEqual(try f.store.objectIDs(forRelationship: tags, of: [d.write, d.review, d.deploy]),
                       [d.write: [d.swift], d.review: [d.swift, d.linux], d.deploy: []])
        let steps = f.property("Task", "steps") as! RelationshipDescription
        XCTAssertEqual(try f.store.objectIDs(forRelationship: steps, of: [d.write]), [d.write: [d.stepC, d.stepA, d.stepB]])
    }

    func testUnloadedToManyIsComputedFromTheInverseToOne() throws {
        let f = try InMemoryStoreFixture()
        let person = try f.newID("Person"), first = try f.newID("Task"), second = try f.newID("Milestone")
        try f.insert([
            f.row(person, ["name": .value("Eve"), "tasks": .unloaded]),
            f.row(first, ["owner": .object(person)]),
            f.row(second, ["owner": .object(person)]),
        ])
        let tasks = try f.store.objectIDs(forRelationship: f.property("Person", "tasks") as! RelationshipDescription, of: person)
        XCTAssertEqual(tasks, [first, second])
        XCTAssertEqual(try f.list("tasks", of: person), .objects([first, second]))
    }

    func testMovingARowToAnotherOwnerMovesItBetweenTheOwnersListsWhenTheySendNone() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        var write = try XCTUnwrap(f.stored(d.write))
        write.values[write.layout.index(of: "owner")!] = .object(d.cy)
        try f.save(StoreSaveRequest(updated: [write]))
        XCTAssertEqual(try f.list("tasks", of: d.ada), .objects([d.review]))
        XCTAssertEqual(try f.list("tasks", of: d.cy), .objects([d.write]))
        XCTAssertEqual(try f.stored(d.ada)?.version, 1, "a list follows the inverse: no version of its own")
        XCTAssertEqual(try f.stored(d.cy)?.version, 1)
    }

    func testMovingARowKeepsTheListAnOwnerSendsWithTheSave() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        var write = try XCTUnwrap(f.stored(d.write))
        write.values[write.layout.index(of: "owner")!] = .object(d.cy)
        var cy = try XCTUnwrap(f.stored(d.cy))
        cy.values[cy.layout.index(of: "tasks")!] = .objects([d.write])
        try f.save(StoreSaveRequest(updated: [write, cy]))
        XCTAssertEqual(try f.list("tasks", of: d.cy), .objects([d.write]))
        XCTAssertEqual(try f.list("tasks", of: d.ada), .objects([d.review]))
    }

    func testDeletingARowTakesItOutOfItsOwnersListsAndOrderedLists() throws {
        let f = try InMemoryStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(deleted: [(d.deploy, 1), (d.stepA, 1)]))
        XCTAssertEqual(try f.list("tasks", of: d.bob), .objects([d.release]))
        XCTAssertEqual(try f.list("steps", of: d.write), .objects([d.stepC, d.stepB]))
        XCTAssertEqual(try f.stored(d.bob)?.version, 1)
    }

    func testRelationshipOfAMissingRowIsEmpty() throws {
        let f = try InMemoryStoreFixture()
        let never = try f.newID("Person")
        XCTAssertEqual(try f.store.objectIDs(forRelationship: f.property("Person", "tasks") as! RelationshipDescription, of: never), [])
    }
}
