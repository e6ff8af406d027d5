// Review of faulting and refreshing against Apple's documented Core Data behaviour: faults a
// fetch returns again, partially fetched objects (propertiesToFetch) and their completion,
// refresh(_:mergeChanges:) with local and transient changes, rows deleted by another writer.
// Another process is a second coordinator on the same SQLite file (Stack.otherProcessContext);
// the stacks are the suite's own (Stack, the organizer model, ObjectStateTests' hooked model).
import Foundation
import XCTest
@testable import ObjectGraph

final class FaultingReviewTests: XCTestCase {
    override func setUp() {
        super.setUp()
        ObjectClasses.register(HookedNote.self)
        HookedNote.resetLog()
    }

    /// A Person fetch of `context` with `propertiesToFetch` `properties`.
    private func partialPeople(_ properties: [String], in context: ManagedObjectContext) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: "Person")
        request.propertiesToFetch = properties.map { .property($0) }
        return try context.fetch(request)
    }

    // MARK: Faults returned by a fetch again

    /// `NSFetchRequest.includesPropertyValues` (discussion): "During a normal fetch
    /// (includesPropertyValues is true), Core Data fetches the object ID and property data for the
    /// matching records, fills the row cache with the information, and returns managed objects as
    /// faults ... When the fault is fired, Core Data retrieves the data from the row cache."
    /// `shouldRefreshRefetchedObjects` (default false) only lets already *loaded* objects keep
    /// their values. So a fault that a fetch returns again fires with the row that fetch read:
    /// here the fetch matched `lastName == 'Byron'` (another process's save), and the object it
    /// returned must not then read "Lovelace".
    func testARefetchedFaultFiresWithTheRowTheFetchJustRead() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let reader = stack.newContext()
        let fault = try XCTUnwrap(try stack.fetch("Person", in: reader).first)
        XCTAssertTrue(fault.isFault)

        try stack.saveElsewhere("Byron", forKey: "lastName", of: ada.objectID)

        let refetched = try stack.fetch("Person", "lastName == 'Byron'", in: reader)
        XCTAssertEqual(refetched.count, 1)
        XCTAssertTrue(refetched.first === fault)
        XCTAssertTrue(fault.isFault)
        XCTAssertEqual(fault.value(forKey: "lastName") as? String, "Byron",
                       "a fault returned by a fetch that matched the new row must fire with that row")
    }

    /// Kept (passes) as the contrast to the test above: with `returnsObjectsAsFaults = false`
    /// ("objects resulting from a fetch ... are not faults") the refetched fault takes the row the
    /// fetch read. The two settings must agree on the values once the object is used.
    func testARefetchedFaultLoadedByTheFetchTakesTheRowItRead() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let reader = stack.newContext()
        let fault = try XCTUnwrap(try stack.fetch("Person", in: reader).first)
        try stack.saveElsewhere("Byron", forKey: "lastName", of: ada.objectID)
        var request = FetchRequest<ManagedObject>(entityName: "Person")
        request.returnsObjectsAsFaults = false
        XCTAssertTrue(try reader.fetch(request).first === fault)
        XCTAssertFalse(fault.isFault)
        XCTAssertEqual(fault.value(forKey: "lastName") as? String, "Byron")
    }

    /// Kept (passes): `NSFetchRequest.shouldRefreshRefetchedObjects`: "By default when you fetch
    /// objects, they maintain their current property values, even if the values in the persistent
    /// store have changed." A fix for the refetched-fault test must not refresh loaded objects.
    func testARefetchedLoadedObjectKeepsItsValues() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let reader = stack.newContext()
        let loaded = try reader.existingObject(with: ada.objectID)
        try stack.saveElsewhere("Byron", forKey: "lastName", of: ada.objectID)
        var request = FetchRequest<ManagedObject>(entityName: "Person")
        request.returnsObjectsAsFaults = false
        XCTAssertTrue(try reader.fetch(request).first === loaded)
        XCTAssertEqual(loaded.value(forKey: "lastName") as? String, "Lovelace")
        XCTAssertFalse(loaded.hasChanges)
    }

    // MARK: Partially fetched objects (propertiesToFetch)

    /// `committedValues(forKeys:)`: "A dictionary containing the last fetched or saved values of
    /// the receiver"; `changedValues()`: "persistent properties with changes since the last
    /// fetching or saving". A property that is not changed therefore reads its committed value.
    /// And under the default merge policy (`NSErrorMergePolicy`) a save "fails if there are any
    /// merge conflicts" — it never writes over a row changed since the object read it, leaving the
    /// object showing a value the store no longer has.
    ///
    /// Here the object was fetched with `firstName` only ("Ada"); another process then renamed the
    /// row to "Ann"; reading `email` loads the rest of the row.
    func testAPartialObjectCompletedAfterAnotherWriteAgreesWithItsCommittedValues() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        ada.setValue("ada@example.org", forKey: "email")
        try stack.context.save()
        let reader = stack.newContext()
        let partial = try XCTUnwrap(try partialPeople(["firstName"], in: reader).first)
        XCTAssertEqual(partial.value(forKey: "firstName") as? String, "Ada")

        try stack.saveElsewhere("Ann", forKey: "firstName", of: ada.objectID)

        _ = partial.value(forKey: "email")
        XCTAssertNil(partial.changedValues()["firstName"])
        XCTAssertEqual(partial.committedValues(forKeys: ["firstName"])["firstName"] as? String,
                       partial.value(forKey: "firstName") as? String,
                       "an unchanged property must read its committed (last fetched) value")

        partial.setValue("Byron", forKey: "lastName")
        do {
            try reader.save()
        } catch is MergeError {
            return // the row changed since the object read it: a conflict is a right answer
        }
        let saved = try counterpart(of: ada.objectID, in: try stack.otherProcessContext())
        XCTAssertEqual(partial.value(forKey: "firstName") as? String, saved.value(forKey: "firstName") as? String,
                       "after a save that reported no conflict, an unchanged property agrees with the store")
    }

    /// WWDC 2009, What's New in Core Data (seed 001), on partial faulting: "If you access
    /// properties that aren't pre-fetched, it'll cause a fetch to go to the database to populate
    /// the remaining values. Also if you change any values on your managed object that'll cause a
    /// fetch to fill in those values too." The change fills the object then, so a later write by
    /// another process does not show in values that were filled at the change.
    func testChangingAPartiallyFetchedObjectFillsInItsOtherValuesThen() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        ada.setValue("ada@example.org", forKey: "email")
        try stack.context.save()
        let reader = stack.newContext()
        let partial = try XCTUnwrap(try partialPeople(["firstName"], in: reader).first)
        partial.setValue("Augusta", forKey: "firstName")

        let other = try stack.otherProcessContext()
        try counterpart(of: ada.objectID, in: other).setValue("x@example.org", forKey: "email")
        try other.save()

        XCTAssertEqual(partial.value(forKey: "email") as? String, "ada@example.org",
                       "the change filled in email before the other process wrote it")
    }

    /// `NSManagedObjectContext.shouldDeleteInaccessibleFaults` (default true): for an
    /// "inaccessible fault — an object with no underlying data in the persistent store", the
    /// context "returns a managed object" whose "attributes ... are all set to nil or 0" and which
    /// is marked deleted. A partially fetched object whose remaining values are fetched from a row
    /// that is gone (WWDC 2009: accessing a property not pre-fetched "will cause a fetch to go to
    /// the database") is such a fault: it must read as deleted, as a whole fault does
    /// (ContextLifecycleTests.testFiringAFaultWhoseRowWasDeletedElsewhereDeletesIt), not as a live
    /// object whose other attributes happen to be nil.
    func testAPartialObjectWhoseRowWasDeletedIsAnInaccessibleFault() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            try stack.context.save()
            let reader = stack.newContext()
            let partial = try XCTUnwrap(try partialPeople(["firstName"], in: reader).first)
            XCTAssertEqual(partial.value(forKey: "firstName") as? String, "Ada")
            stack.context.delete(ada)
            try stack.context.save()

            XCTAssertNil(partial.value(forKey: "lastName"))
            XCTAssertTrue(partial.isDeleted, "\(stack.storeType): the row is gone; the object must be marked deleted")
        }
    }

    // MARK: Refreshing

    /// Kept (passes): `refresh(_:mergeChanges:)` with true reloads "from the store or the cache"
    /// and applies local changes over the loaded values; "Merging the local values into object
    /// always succeeds". With another process's write: the stored change shows, the local one
    /// wins, `committedValues(forKeys:)` ("the last fetched ... values") are the reloaded ones,
    /// `changedValues()` is the local change only, and the save is no conflict.
    func testRefreshMergingReloadsAnotherProcessesRowUnderTheLocalChange() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        ada.setValue("Augusta", forKey: "firstName")
        try stack.saveElsewhere("Byron", forKey: "lastName", of: ada.objectID)

        stack.context.refresh(ada, mergeChanges: true)
        XCTAssertFalse(ada.isFault)
        XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
        XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Byron")
        let committed = ada.committedValues(forKeys: ["firstName", "lastName"])
        XCTAssertEqual(committed["firstName"] as? String, "Ada")
        XCTAssertEqual(committed["lastName"] as? String, "Byron")
        XCTAssertEqual(Set(ada.changedValues().keys), ["firstName"])
        XCTAssertNoThrow(try stack.context.save())
    }

    /// Kept (passes): `refresh(_:mergeChanges:)` with false: "the managed object becomes a fault.
    /// Upon next access, the context reloads the object’s values from the persistent store"; the
    /// row being gone (deleted by another process, which the row cache never saw), the fault is
    /// inaccessible and `shouldDeleteInaccessibleFaults` makes it a deleted object with nil values.
    func testRefreshOfAnObjectWhoseRowAnotherProcessDeletedFiresAsDeleted() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
        let other = try stack.otherProcessContext()
        other.delete(try counterpart(of: ada.objectID, in: other))
        try other.save()

        stack.context.refresh(ada, mergeChanges: false)
        XCTAssertTrue(ada.isFault)
        XCTAssertNil(ada.value(forKey: "firstName"))
        XCTAssertTrue(ada.isDeleted)
        XCTAssertNil(stack.context.faultingError)
    }

    // MARK: Relationship faults

    /// Kept (passes): firing an object does not fire its relationship's destinations (Core Data
    /// faulting: a to-many relationship stays a fault until it is accessed, and the objects it
    /// then holds are faults until used); `objectIDs(forRelationshipNamed:)` (WWDC 2015, seed 004:
    /// "we won't materialize the entire relationship in memory rather we'll return ... object
    /// IDs") registers no destination objects.
    func testFiringAnOwnerLeavesItsToManyDestinationsFaults() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("A", owner: ada)
            _ = stack.task("B", owner: ada)
            try stack.context.save()
            let reader = stack.newContext()
            let owner = reader.object(with: ada.objectID)
            XCTAssertEqual(owner.value(forKey: "firstName") as? String, "Ada")
            let ids = owner.objectIDs(forRelationshipNamed: "tasks")
            XCTAssertEqual(ids.count, 2)
            XCTAssertTrue(ids.allSatisfy { reader.registeredObject(for: $0) == nil })
            let tasks = try XCTUnwrap(owner.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
            XCTAssertEqual(tasks.count, 2)
            XCTAssertTrue(tasks.allSatisfy(\.isFault))
        }
    }
}
