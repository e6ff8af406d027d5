// How old the data a context hands out may be: the context's staleness interval (how old a
// cached row a fault may fire from), a fetch request's shouldRefreshRefetchedObjects (loaded
// objects a fetch reads again take the stored values), and hasFault(forRelationshipNamed:).
// Another process is a second coordinator on the same SQLite file (Stack.otherProcessContext).
import Foundation
import XCTest
@testable import ObjectGraph

final class StalenessAndRefetchTests: XCTestCase {
    /// A saved Ada Lovelace, fetched as a fault by a new context of `stack` (its row in the
    /// coordinator's cache), and then renamed Byron by another process.
    private func faultRenamedElsewhere(_ stack: Stack) throws -> (reader: ManagedObjectContext, fault: ManagedObject) {
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let reader = stack.newContext()
        let fault = try XCTUnwrap(try stack.fetch("Person", in: reader).first)
        XCTAssertTrue(fault.isFault)
        try stack.saveElsewhere("Byron", forKey: "lastName", of: ada.objectID)
        return (reader, fault)
    }

    // MARK: stalenessInterval

    /// The default (negative: "infinite staleness") fires a fault from the row its fetch read,
    /// even when another process has changed the row since.
    func testByDefaultAFaultFiresFromTheRowItsFetchRead() throws {
        let stack = try Stack(storeType: .sqlite)
        let (reader, fault) = try faultRenamedElsewhere(stack)
        XCTAssertLessThan(reader.stalenessInterval, 0)
        XCTAssertEqual(fault.value(forKey: "lastName") as? String, "Lovelace")
    }

    /// `stalenessInterval` 0: "no staleness acceptable": firing a fault reads the store.
    func testAZeroStalenessIntervalFiresFaultsFromTheStore() throws {
        let stack = try Stack(storeType: .sqlite)
        let (reader, fault) = try faultRenamedElsewhere(stack)
        reader.stalenessInterval = 0
        XCTAssertEqual(fault.value(forKey: "lastName") as? String, "Byron")
        XCTAssertEqual(fault.value(forKey: "firstName") as? String, "Ada")
        XCTAssertFalse(fault.hasChanges)
        // The row read goes to the cache: another context's fault fires from it.
        let third = stack.newContext()
        XCTAssertEqual(try third.existingObject(with: fault.objectID).value(forKey: "lastName") as? String, "Byron")
    }

    /// A positive interval uses a row the store gave within it and reads the store again for an
    /// older one ("a value of 300.0 informs the context to utilize cached information for no more
    /// than 5 minutes after an object was originally fetched").
    func testAPositiveStalenessIntervalUsesRowsYoungerThanItAndRereadsOlderOnes() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        let bob = stack.person("Bob", "Babbage")
        try stack.context.save()
        let reader = stack.newContext()
        reader.stalenessInterval = 300
        // Rows the cache held before a context had an interval count as old; a fetch stamps the
        // rows it reads.
        let faults = try stack.fetch("Person", sortedBy: "firstName", in: reader)
        let bobFault = try XCTUnwrap(faults.last)
        XCTAssertTrue(bobFault.isFault)

        let other = try stack.otherProcessContext()
        try counterpart(of: bob.objectID, in: other).setValue("Byron", forKey: "lastName")
        try other.save()

        XCTAssertEqual(bobFault.value(forKey: "lastName") as? String, "Babbage",
                       "a row read a moment ago is within 300 seconds")
        reader.refresh(bobFault, mergeChanges: false)
        stack.coordinator.rowCache.advanceClock(by: 301)
        let refetched = try XCTUnwrap(try stack.fetch("Person", "firstName == 'Bob'", in: reader).first)
        XCTAssertTrue(refetched === bobFault)
        // The fetch above read the row again (it is Byron now): its age starts again.
        XCTAssertEqual(bobFault.value(forKey: "lastName") as? String, "Byron")

        // An object in another context, faulted after the clock moved on, re-reads its row.
        let second = stack.newContext()
        second.stalenessInterval = 300
        let adaFault = try XCTUnwrap(try stack.fetch("Person", "firstName == 'Ada'", in: second).first)
        try counterpart(of: ada.objectID, in: other).setValue("King", forKey: "lastName")
        try other.save()
        stack.coordinator.rowCache.advanceClock(by: 301)
        XCTAssertEqual(adaFault.value(forKey: "lastName") as? String, "King",
                       "a row read more than 300 seconds ago is stale")
    }

    /// A to-one destination is a fault like any other: with no staleness acceptable it fires from
    /// the store, not from the row another context cached.
    func testAZeroStalenessIntervalAppliesToRelationshipDestinations() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        _ = stack.task("Notes", owner: ada)
        try stack.context.save()
        // Another context of the same coordinator caches Ada's row.
        let warm = stack.newContext()
        XCTAssertEqual(try warm.existingObject(with: ada.objectID).value(forKey: "lastName") as? String, "Lovelace")

        try stack.saveElsewhere("Byron", forKey: "lastName", of: ada.objectID)

        let reader = stack.newContext()
        reader.stalenessInterval = 0
        let task = try XCTUnwrap(try stack.fetch("Task", in: reader).first)
        let owner = try XCTUnwrap(task.value(forKey: "owner") as? ManagedObject)
        XCTAssertEqual(owner.value(forKey: "lastName") as? String, "Byron")
        // The default context still fires from the cache, now holding the row just read.
        let lazy = stack.newContext()
        XCTAssertEqual(try lazy.existingObject(with: ada.objectID).value(forKey: "lastName") as? String, "Byron")
    }

    /// The in-memory store keeps its rows current: every interval reads the same values.
    func testStalenessIntervalsReadTheSameValuesFromAnInMemoryStore() throws {
        let stack = try Stack(storeType: .inMemory)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        for interval in [-1.0, 0, 300] {
            let reader = stack.newContext()
            reader.stalenessInterval = interval
            let fault = try XCTUnwrap(try stack.fetch("Person", in: reader).first)
            ada.setValue("Byron \(interval)", forKey: "lastName")
            try stack.context.save()
            XCTAssertEqual(fault.value(forKey: "lastName") as? String, "Byron \(interval)", "interval \(interval)")
        }
    }

    // MARK: shouldRefreshRefetchedObjects

    /// "the property values of fetched objects are updated with the current values in the
    /// persistent store": a loaded object takes the row another process saved, and is reported
    /// refreshed. (By default it keeps its values: FaultingReviewTests.)
    func testRefreshingRefetchedObjectsGivesLoadedObjectsTheStoredValues() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let reader = stack.newContext()
        let loaded = try reader.existingObject(with: ada.objectID)
        XCTAssertEqual(loaded.value(forKey: "lastName") as? String, "Lovelace")
        try stack.saveElsewhere("Byron", forKey: "lastName", of: ada.objectID)

        let recorder = Recorder(reader)
        for asFaults in [true, false] {
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.returnsObjectsAsFaults = asFaults
            request.shouldRefreshRefetchedObjects = true
            XCTAssertTrue(try reader.fetch(request).first === loaded)
        }
        XCTAssertEqual(loaded.value(forKey: "lastName") as? String, "Byron")
        XCTAssertFalse(loaded.hasChanges)
        reader.processPendingChanges()
        XCTAssertEqual(recorder.changes.first?.refreshed, [loaded])
        // Saving it again conflicts with nothing: its committed row is the one stored.
        loaded.setValue("Augusta", forKey: "firstName")
        XCTAssertNoThrow(try reader.save())
        let stored = try counterpart(of: ada.objectID, in: try stack.otherProcessContext())
        XCTAssertEqual(stored.value(forKey: "firstName") as? String, "Augusta")
        XCTAssertEqual(stored.value(forKey: "lastName") as? String, "Byron")
    }

    /// Unsaved changes stay on top of the refreshed values, as a merging refresh keeps them; the
    /// save that follows writes them over the new row without a conflict.
    func testRefreshingRefetchedObjectsKeepsUnsavedChanges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            try stack.context.save()
            let reader = stack.newContext()
            let loaded = try reader.existingObject(with: ada.objectID)
            loaded.setValue("Augusta", forKey: "firstName")
            ada.setValue("Byron", forKey: "lastName")
            try stack.context.save()

            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.shouldRefreshRefetchedObjects = true
            let recorder = Recorder(reader)
            XCTAssertTrue(try reader.fetch(request).first === loaded)
            XCTAssertEqual(loaded.value(forKey: "lastName") as? String, "Byron", "\(stack.storeType)")
            XCTAssertEqual(loaded.value(forKey: "firstName") as? String, "Augusta", "\(stack.storeType)")
            XCTAssertEqual(Set(loaded.changedValues().keys), ["firstName"], "\(stack.storeType)")
            reader.processPendingChanges()
            XCTAssertEqual(recorder.changes.first?.refreshed, [], "\(stack.storeType): a dirty object is not reported refreshed")
            XCTAssertEqual(recorder.changes.first?.updated, [loaded], "\(stack.storeType)")

            try reader.save()
            let stored = try ObjectGraphTests.stored(stack, ada.objectID)
            XCTAssertEqual(stored.value(forKey: "firstName") as? String, "Augusta", "\(stack.storeType)")
            XCTAssertEqual(stored.value(forKey: "lastName") as? String, "Byron", "\(stack.storeType)")
        }
    }

    /// An object whose row has not changed is left as it is (no refresh reported), and a deleted
    /// one stays deleted.
    func testRefreshingRefetchedObjectsLeavesCurrentAndDeletedObjectsAlone() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            let bob = stack.person("Bob", "Babbage")
            try stack.context.save()
            let reader = stack.newContext()
            let loadedAda = try reader.existingObject(with: ada.objectID)
            let loadedBob = try reader.existingObject(with: bob.objectID)
            _ = loadedAda.value(forKey: "firstName")
            _ = loadedBob.value(forKey: "firstName")
            reader.delete(loadedBob)
            bob.setValue("Byron", forKey: "lastName")
            try stack.context.save()
            reader.processPendingChanges()

            let recorder = Recorder(reader)
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.shouldRefreshRefetchedObjects = true
            request.includesPendingChanges = false
            let fetched = try reader.fetch(request)
            XCTAssertEqual(fetched.count, 2, "\(stack.storeType)")
            XCTAssertTrue(loadedBob.isDeleted, "\(stack.storeType)")
            reader.processPendingChanges()
            XCTAssertFalse(recorder.changes.contains { $0.refreshed.contains(loadedAda) }, "\(stack.storeType): Ada's row did not change")
        }
    }

    // MARK: hasFault(forRelationshipNamed:)

    /// "true if the relationship for key is a fault ... calling this method does not result in
    /// the fault firing."
    func testHasFaultForRelationshipNamedTellsWithoutFiring() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("Notes", owner: ada)
            let lonely = stack.task("Alone")
            try stack.context.save()
            let reader = stack.newContext()

            let person = try XCTUnwrap(try stack.fetch("Person", in: reader).first)
            XCTAssertTrue(person.isFault)
            XCTAssertTrue(person.hasFault(forRelationshipNamed: "tasks"), "\(stack.storeType): a fault's relationships are faults")
            XCTAssertTrue(person.isFault, "\(stack.storeType): asking fires nothing")

            XCTAssertEqual(person.value(forKey: "firstName") as? String, "Ada")
            XCTAssertTrue(person.hasFault(forRelationshipNamed: "tasks"), "\(stack.storeType): not read yet")
            let tasks = try XCTUnwrap(person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
            XCTAssertEqual(tasks.count, 1)
            XCTAssertFalse(person.hasFault(forRelationshipNamed: "tasks"), "\(stack.storeType)")
            XCTAssertTrue(person.hasFault(forRelationshipNamed: "events"), "\(stack.storeType): not read yet")

            let task = try XCTUnwrap(tasks.first)
            _ = task.value(forKey: "title")
            // Its owner is loaded (Ada), so the to-one is no fault; an empty to-one is none either.
            XCTAssertFalse(task.hasFault(forRelationshipNamed: "owner"), "\(stack.storeType)")
            XCTAssertFalse(task.hasFault(forRelationshipNamed: "event"), "\(stack.storeType)")

            let alone = try reader.existingObject(with: lonely.objectID)
            XCTAssertFalse(alone.hasFault(forRelationshipNamed: "owner"), "\(stack.storeType)")
        }
    }

    /// A to-one whose destination is a fault is a fault; firing the destination ends that.
    func testAToOneToAFaultIsAFault() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let notes = stack.task("Notes", owner: ada)
            try stack.context.save()
            let reader = stack.newContext()
            let task = try reader.existingObject(with: notes.objectID)
            XCTAssertTrue(task.hasFault(forRelationshipNamed: "owner"), "\(stack.storeType)")
            let owner = try XCTUnwrap(task.value(forKey: "owner") as? ManagedObject)
            XCTAssertTrue(owner.isFault, "\(stack.storeType): reading a to-one fires nothing")
            XCTAssertTrue(task.hasFault(forRelationshipNamed: "owner"), "\(stack.storeType)")
            _ = owner.value(forKey: "firstName")
            XCTAssertFalse(task.hasFault(forRelationshipNamed: "owner"), "\(stack.storeType)")
            // A new object's relationships are loaded: none is a fault.
            let fresh = stack.task("Fresh", owner: nil)
            XCTAssertFalse(fresh.hasFault(forRelationshipNamed: "owner"))
            XCTAssertFalse(stack.person("New").hasFault(forRelationshipNamed: "tasks"))
        }
    }
}
