// A context's lifecycle: rollback, reset, refresh (discarding or merging changes),
// refreshAllObjects, looking objects up by ID, inaccessible faults, and object IDs (temporary until
// saved, permanent after, with a URI the coordinator turns back into an ID).
import Foundation
import XCTest
@testable import ObjectGraph

final class ContextLifecycleTests: XCTestCase {
    private func tasks(of person: ManagedObject) -> [ManagedObject] {
        (person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements ?? []
    }

    // MARK: Rollback

    func testRollbackDiscardsInsertsChangesAndDeletes() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let carol = stack.person("Carol")
            ada.setValue("Augusta", forKey: "firstName")
            stack.context.delete(bob)
            stack.context.processPendingChanges()
            stack.context.rollback()
            XCTAssertFalse(stack.context.hasChanges)
            XCTAssertEqual(stack.context.insertedObjects, [])
            XCTAssertEqual(stack.context.updatedObjects, [])
            XCTAssertEqual(stack.context.deletedObjects, [])
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            XCTAssertFalse(bob.isDeleted)
            XCTAssertEqual(bob.value(forKey: "firstName") as? String, "Bob")
            XCTAssertFalse(stack.context.registeredObjects.contains(carol))
            XCTAssertNil(stack.context.registeredObject(for: carol.objectID))
            XCTAssertEqual(try stack.fetch("Person", sortedBy: "firstName").map { $0.value(forKey: "firstName") as? String }, ["Ada", "Bob"])
        }
    }

    func testRollbackRestoresRelationshipsOnBothSides() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Review", owner: ada)
            try stack.context.save()
            task.setValue(bob, forKey: "owner")
            stack.context.rollback()
            XCTAssertTrue(task.value(forKey: "owner") as? ManagedObject === ada)
            XCTAssertEqual(tasks(of: ada), [task])
            XCTAssertEqual(tasks(of: bob), [])
        }
    }

    func testRollbackUndoesACascadeDelete() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("Review", owner: ada)
            try stack.context.save()
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertTrue(task.isDeleted)
            stack.context.rollback()
            XCTAssertFalse(ada.isDeleted)
            XCTAssertFalse(task.isDeleted)
            XCTAssertEqual(tasks(of: ada), [task])
            XCTAssertFalse(stack.context.hasChanges)
        }
    }

    func testRollbackOfAChangeToASavedObjectWithARelationshipToANewObject() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let task = stack.task("New", owner: ada)
            stack.context.rollback()
            XCTAssertEqual(tasks(of: ada), [])
            XCTAssertFalse(stack.context.registeredObjects.contains(task))
            XCTAssertFalse(stack.context.hasChanges)
        }
    }

    // MARK: Reset

    func testResetForgetsEveryObject() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            let bob = stack.person("Bob")
            stack.context.reset()
            XCTAssertEqual(stack.context.registeredObjects, [])
            XCTAssertFalse(stack.context.hasChanges)
            XCTAssertNil(ada.managedObjectContext)
            XCTAssertNil(bob.managedObjectContext)
            let fetched = try stack.fetch("Person")
            XCTAssertEqual(fetched.count, 1)
            XCTAssertFalse(fetched[0] === ada, "a reset context hands out new objects")
            XCTAssertEqual(fetched[0].value(forKey: "firstName") as? String, "Ada")
            XCTAssertEqual(fetched[0].objectID, ada.objectID)
        }
    }

    // MARK: Refresh

    func testRefreshWithoutMergingDiscardsChanges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            stack.context.refresh(ada, mergeChanges: false)
            XCTAssertTrue(ada.isFault)
            XCTAssertFalse(ada.hasChanges)
            XCTAssertFalse(stack.context.hasChanges)
            XCTAssertEqual(stack.context.updatedObjects, [])
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testRefreshWithoutMergingLoadsValuesSavedElsewhere() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let other = stack.newContext()
            other.object(with: ada.objectID).setValue("Lovelace", forKey: "lastName")
            try other.save()
            stack.context.refresh(ada, mergeChanges: false)
            XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Lovelace")
        }
    }

    func testRefreshMergingKeepsLocalChangesOverValuesSavedElsewhere() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            let other = stack.newContext()
            let there = other.object(with: ada.objectID)
            there.setValue("Lovelace", forKey: "lastName")
            there.setValue("ada@example.org", forKey: "email")
            try other.save()
            stack.context.refresh(ada, mergeChanges: true)
            XCTAssertFalse(ada.isFault)
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertEqual(ada.value(forKey: "email") as? String, "ada@example.org")
            XCTAssertTrue(ada.hasChanges)
            XCTAssertEqual(stack.context.updatedObjects, [ada])
            // The save writes the local change on top of the other context's.
            try stack.context.save()
            let saved = try XCTUnwrap(try stack.fetch("Person", in: stack.newContext()).first)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(saved.value(forKey: "lastName") as? String, "Lovelace")
        }
    }

    func testRefreshMergingAnUnchangedObjectMakesItAFault() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            stack.context.refresh(ada, mergeChanges: true)
            XCTAssertTrue(ada.isFault)
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testRefreshAllObjectsLoadsSavedValuesAndKeepsLocalChanges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            bob.setValue("Robert", forKey: "firstName")
            let other = stack.newContext()
            other.object(with: ada.objectID).setValue("Lovelace", forKey: "lastName")
            other.object(with: bob.objectID).setValue("Babbage", forKey: "lastName")
            try other.save()
            stack.context.refreshAllObjects()
            XCTAssertTrue(ada.isFault)
            XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertEqual(bob.value(forKey: "firstName") as? String, "Robert")
            XCTAssertEqual(bob.value(forKey: "lastName") as? String, "Babbage")
            XCTAssertEqual(stack.context.updatedObjects, [bob])
        }
    }

    func testRefreshAllObjectsKeepsInsertedObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            stack.context.refreshAllObjects()
            XCTAssertEqual(stack.context.insertedObjects, [ada])
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 1)
        }
    }

    func testRefreshOfAChangedToManyRelationshipKeepsIt() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let task = stack.task("New", owner: ada)
            stack.context.refresh(ada, mergeChanges: true)
            XCTAssertEqual(tasks(of: ada), [task])
            try stack.context.save()
            let saved = try XCTUnwrap(try stack.fetch("Person", in: stack.newContext()).first)
            XCTAssertEqual(tasks(of: saved).count, 1)
        }
    }

    // MARK: Looking objects up

    func testObjectWithIDReturnsTheRegisteredObjectOrAFault() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            XCTAssertTrue(stack.context.object(with: ada.objectID) === ada)
            let other = stack.newContext()
            XCTAssertNil(other.registeredObject(for: ada.objectID))
            let fault = other.object(with: ada.objectID)
            XCTAssertTrue(fault.isFault)
            XCTAssertTrue(other.registeredObject(for: ada.objectID) === fault)
            XCTAssertTrue(other.object(with: ada.objectID) === fault)
            XCTAssertEqual(fault.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testExistingObjectLoadsTheValuesOrThrows() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let bobID = bob.objectID
            stack.context.delete(bob)
            try stack.context.save()
            let other = stack.newContext()
            let there = try other.existingObject(with: ada.objectID)
            XCTAssertFalse(there.isFault)
            XCTAssertEqual(there.value(forKey: "firstName") as? String, "Ada")
            XCTAssertThrowsError(try other.existingObject(with: bobID)) { error in
                XCTAssertEqual(error as? ContextError, .objectNotFound(bobID))
            }
            XCTAssertNil(other.registeredObject(for: bobID), "a failed lookup registers nothing")
        }
    }

    func testExistingObjectFindsAnUnsavedObjectOfThisContext() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            XCTAssertTrue(try stack.context.existingObject(with: ada.objectID) === ada)
            XCTAssertThrowsError(try stack.newContext().existingObject(with: ada.objectID))
        }
    }

    func testRegisteredObjectsHoldsChangedObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("A", owner: ada)
            XCTAssertTrue(stack.context.registeredObjects.isSuperset(of: [ada, task]))
        }
    }

    // MARK: Inaccessible faults

    func testFiringAFaultWhoseRowWasDeletedElsewhereDeletesIt() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let id = ada.objectID
            let first = stack.newContext()
            let fault = first.object(with: id)
            XCTAssertTrue(fault.isFault)
            let second = stack.newContext()
            second.delete(second.object(with: id))
            try second.save()
            XCTAssertTrue(first.shouldDeleteInaccessibleFaults)
            XCTAssertNil(fault.value(forKey: "firstName"))
            XCTAssertFalse(fault.isFault)
            XCTAssertTrue(fault.isDeleted)
        }
    }

    func testFulfillingAFaultWhoseRowWasDeletedThrowsWhenNotDeletingInaccessibleFaults() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let id = ada.objectID
            let first = stack.newContext()
            first.shouldDeleteInaccessibleFaults = false
            let fault = first.object(with: id)
            let second = stack.newContext()
            second.delete(second.object(with: id))
            try second.save()
            XCTAssertThrowsError(try fault.fulfill()) { error in
                XCTAssertEqual(error as? ContextError, .inaccessibleFault(id))
            }
            XCTAssertTrue(fault.isFault)
        }
    }

    func testFulfillingAFaultWhoseRowWasDeletedDeletesItByDefault() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let first = stack.newContext()
            let fault = first.object(with: ada.objectID)
            let second = stack.newContext()
            second.delete(second.object(with: ada.objectID))
            try second.save()
            XCTAssertNoThrow(try fault.fulfill())
            XCTAssertTrue(fault.isDeleted)
        }
    }

    func testAFaultFetchedBeforeAnotherContextChangedItShowsTheNewValues() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let first = stack.newContext()
            let fault = try XCTUnwrap(try stack.fetch("Person", in: first).first)
            XCTAssertTrue(fault.isFault)
            let second = stack.newContext()
            second.object(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            try second.save()
            XCTAssertEqual(fault.value(forKey: "firstName") as? String, "Augusta")
        }
    }

    // MARK: Object IDs

    func testObjectIDIsTemporaryUntilSavedThenPermanent() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let temporary = ada.objectID
            XCTAssertTrue(temporary.isTemporaryID)
            XCTAssertNil(temporary.storeIdentifier)
            try stack.context.save()
            XCTAssertFalse(ada.objectID.isTemporaryID)
            XCTAssertNotEqual(ada.objectID, temporary)
            XCTAssertEqual(ada.objectID.storeIdentifier, stack.coordinator.persistentStores.first?.identifier)
            XCTAssertTrue(stack.context.registeredObject(for: ada.objectID) === ada)
            XCTAssertNil(stack.context.registeredObject(for: temporary))
        }
    }

    func testObtainPermanentIDsBeforeSaving() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.obtainPermanentIDs(for: [ada])
            let permanent = ada.objectID
            XCTAssertFalse(permanent.isTemporaryID)
            XCTAssertTrue(stack.context.registeredObject(for: permanent) === ada)
            try stack.context.save()
            XCTAssertEqual(ada.objectID, permanent)
            XCTAssertEqual(try stack.newContext().existingObject(with: permanent).value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testURIRepresentationRoundTripsThroughTheCoordinator() throws {
        try forEachStore { stack in
            let task = stack.task("Plan")
            try stack.context.save()
            let id = task.objectID
            let uri = id.uriRepresentation
            let store = try XCTUnwrap(stack.coordinator.persistentStores.first)
            XCTAssertEqual(uri.scheme, "x-objectgraph")
            XCTAssertEqual(uri.host, store.identifier)
            XCTAssertEqual(uri.absoluteString, "x-objectgraph://\(store.identifier)/Task/p\(id.primaryKey!)")
            let back = try XCTUnwrap(stack.coordinator.managedObjectID(forURIRepresentation: uri))
            XCTAssertEqual(back, id)
            XCTAssertEqual(back.hashValue, id.hashValue)
            XCTAssertEqual(try stack.newContext().existingObject(with: back).value(forKey: "title") as? String, "Plan")
            // Core Data's scheme, of the same shape (a URI an app kept on Apple's platforms).
            let coreData = try XCTUnwrap(URL(string: "x-coredata://\(store.identifier)/Task/p\(id.primaryKey!)"))
            XCTAssertEqual(stack.coordinator.managedObjectID(forURIRepresentation: coreData), id)
        }
    }

    func testURIsTheCoordinatorCannotResolveGiveNil() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let temporaryURI = ada.objectID.uriRepresentation
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: temporaryURI))
            try stack.context.save()
            let key = ada.objectID.primaryKey!
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-objectgraph://NOSUCHSTORE/Person/p\(key)")!))
            let store = stack.coordinator.persistentStores[0].identifier
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-objectgraph://\(store)/Nobody/p\(key)")!))
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-objectgraph://\(store)/Item/p\(key)")!), "abstract entity")
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "https://\(store)/Person/p\(key)")!))
            // Stores hand out keys from 1: no row can have key 0 or a negative one.
            for bad in ["p0", "p-3"] {
                XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-objectgraph://\(store)/Person/\(bad)")!), bad)
            }
        }
    }

    func testObjectIDsAreSendableAndEqualAcrossContexts() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let other = stack.newContext()
            let there = try XCTUnwrap(try stack.fetch("Person", in: other).first)
            XCTAssertEqual(there.objectID, ada.objectID)
            XCTAssertFalse(there === ada)
            let ids: Set<ObjectID> = [ada.objectID, there.objectID]
            XCTAssertEqual(ids.count, 1)
            func requireSendable<T: Sendable>(_ value: T) -> T { value }
            XCTAssertEqual(requireSendable(ada.objectID), there.objectID)
        }
    }

    // MARK: Coordinator and container

    func testStoreMetadataCanBeReadAndReplaced() throws {
        try forEachStore { stack in
            let store = try XCTUnwrap(stack.coordinator.persistentStores.first)
            XCTAssertEqual(stack.coordinator.metadata(for: store)["UUID"] as? String, store.identifier)
            var metadata = stack.coordinator.metadata(for: store)
            metadata["appVersion"] = "1.2"
            stack.coordinator.setMetadata(metadata, for: store)
            XCTAssertEqual(stack.coordinator.metadata(for: store)["appVersion"] as? String, "1.2")
        }
    }

    func testRemovingAStoreLeavesNoStoreForFetches() throws {
        try forEachStore { stack in
            let store = try XCTUnwrap(stack.coordinator.persistentStores.first)
            try stack.coordinator.remove(store)
            XCTAssertTrue(stack.coordinator.persistentStores.isEmpty)
            XCTAssertNil(stack.coordinator.persistentStore(withIdentifier: store.identifier))
            _ = stack.person("Ada")
            XCTAssertThrowsError(try stack.context.save())
        }
    }

    func testAddingAStoreAsynchronously() async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Stack.organizerModel)
        let store = try await coordinator.addPersistentStore(type: .inMemory)
        XCTAssertEqual(coordinator.persistentStores.count, 1)
        XCTAssertTrue(coordinator.persistentStores.first === store)
    }

    // MARK: Saving through faults

    func testRelationshipChangesBetweenFaultsAreSavedOnBothSides() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Plan", owner: ada)
            try stack.context.save()
            let other = stack.newContext()
            let taskThere = other.object(with: task.objectID)
            let bobThere = other.object(with: bob.objectID)
            XCTAssertTrue(taskThere.isFault && bobThere.isFault)
            taskThere.setValue(bobThere, forKey: "owner")
            XCTAssertEqual((bobThere.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements, [taskThere])
            try other.save()
            let third = stack.newContext()
            let people = try stack.fetch("Person", sortedBy: "firstName", in: third)
            XCTAssertEqual(people.map { tasks(of: $0).count }, [0, 1])
            XCTAssertEqual(tasks(of: people[1]).first?.objectID, task.objectID)
        }
    }

    func testReorderingAnOrderedRelationshipIsSaved() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let a = stack.task("A", owner: ada)
            let b = stack.task("B", owner: ada)
            let c = stack.task("C", owner: ada)
            try stack.context.save()
            ada.setValue(OrderedSet([c, a, b]), forKey: "tasks")
            XCTAssertEqual(tasks(of: ada), [c, a, b])
            XCTAssertTrue(ada.hasPersistentChangedValues)
            try stack.context.save()
            let there = try XCTUnwrap(try stack.fetch("Person", in: stack.newContext()).first)
            XCTAssertEqual(tasks(of: there).map { $0.value(forKey: "title") as? String }, ["C", "A", "B"])
        }
    }

    func testCascadeDeleteThroughAnUnloadedRelationshipDeletesTheStoredDestinations() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("A", owner: ada)
            _ = stack.task("B", owner: ada)
            try stack.context.save()
            let other = stack.newContext()
            other.delete(other.object(with: ada.objectID))
            try other.save()
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 0)
        }
    }

    func testNullifyThroughAnUnloadedManyToManyIsSaved() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            try stack.context.save()
            let other = stack.newContext()
            other.delete(other.object(with: meeting.objectID))
            try other.save()
            let there = try XCTUnwrap(try stack.fetch("Person", in: stack.newContext()).first)
            XCTAssertEqual((there.value(forKey: "events") as? Set<ManagedObject>)?.count, 0)
        }
    }

    func testMutableProxyRemoveAllClearsTheInverses() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let a = stack.task("A", owner: ada)
            let b = stack.task("B", owner: ada)
            let proxy = ada.mutableOrderedSetValue(forKey: "tasks")
            XCTAssertEqual(proxy.count, 2)
            XCTAssertTrue(proxy.contains(b))
            XCTAssertTrue(proxy[0] === a)
            proxy.removeAll()
            XCTAssertEqual(proxy.count, 0)
            XCTAssertNil(a.value(forKey: "owner"))
            XCTAssertNil(b.value(forKey: "owner"))
        }
    }

    func testPredicateOnSelfWithAnObjectOrAnObjectID() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.person("Bob")
            try stack.context.save()
            let other = stack.newContext()
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = try Predicate(format: "SELF == %@", ada.objectID)
            XCTAssertEqual(try other.fetch(request).map(\.objectID), [ada.objectID])
            request.predicate = try Predicate(format: "SELF IN %@", [other.object(with: ada.objectID)])
            XCTAssertEqual(try other.fetch(request).map(\.objectID), [ada.objectID])
        }
    }

    func testUndoOfARelationshipChangeAfterSaveIsSaved() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Plan", owner: ada)
            try stack.context.save()
            task.setValue(bob, forKey: "owner")
            try stack.context.save()
            stack.context.undo()
            try stack.context.save()
            let people = try stack.fetch("Person", sortedBy: "firstName", in: stack.newContext())
            XCTAssertEqual(people.map { tasks(of: $0).count }, [1, 0])
        }
    }

    func testRefreshAllObjectsReportsRefreshedObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            var refreshed: Set<ManagedObject> = []
            let token = stack.context.observe { note in
                if case .objectsDidChange(let changes) = note { refreshed.formUnion(changes.refreshed) }
            }
            stack.context.refreshAllObjects()
            token.cancel()
            XCTAssertEqual(refreshed, [ada, bob])
        }
    }

    func testDeletingAFaultWhoseRowWasDeletedElsewhereSavesCleanly() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.person("Bob")
            try stack.context.save()
            let first = stack.newContext()
            let fault = first.object(with: ada.objectID)
            let second = stack.newContext()
            second.delete(second.object(with: ada.objectID))
            try second.save()
            first.delete(fault)
            XCTAssertTrue(fault.isDeleted)
            XCTAssertNoThrow(try first.save(), "the row is already gone: deleting it again is no conflict")
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 1)
        }
    }

    func testDeletingAFiredInaccessibleFaultSavesCleanly() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let first = stack.newContext()
            let fault = first.object(with: ada.objectID)
            let second = stack.newContext()
            second.delete(second.object(with: ada.objectID))
            try second.save()
            XCTAssertNil(fault.value(forKey: "firstName"))
            first.delete(fault)
            XCTAssertNoThrow(try first.save())
        }
    }
}
