// Review of what a context tells its observers, against Apple's Core Data documentation:
// objectsDidChange at the end of an event (inserted, updated, deleted, refreshed), refresh and
// rollback, merging another context's save, and the willSave/didSave sequence with the objects'
// willSave() hooks. The stacks are the suite's own (Stack, the organizer model, ObjectStateTests'
// hooked model) plus a small model whose objects' willSave() touch another object.
import Foundation
import XCTest
@testable import ObjectGraph

/// An object whose willSave() records the call and, when it has a partner, writes into the
/// partner's `stamp` what its own `stamp` is ("seen <stamp>"), only when that differs (so that
/// repeated willSave calls end).
final class ReviewLedger: ManagedObject {
    nonisolated(unsafe) static var willSaveCalls: [String] = []

    override func willSave() {
        super.willSave()
        Self.willSaveCalls.append(value(forKey: "name") as? String ?? "?")
        if !isDeleted, let partner = value(forKey: "partner") as? ManagedObject {
            let seen = "seen \(value(forKey: "stamp") as? String ?? "")"
            if (partner.value(forKey: "stamp") as? String) != seen { partner.setValue(seen, forKey: "stamp") }
        }
    }
}

/// An object whose willSave() records its name and, while ``armed``, deletes its `target`.
final class ReviewDemolisher: ManagedObject {
    nonisolated(unsafe) static var willSaveCalls: [String] = []
    nonisolated(unsafe) static var armed = false

    override func willSave() {
        super.willSave()
        Self.willSaveCalls.append(value(forKey: "name") as? String ?? "?")
        if Self.armed, !isDeleted, let target = value(forKey: "target") as? ManagedObject, !target.isDeleted {
            managedObjectContext?.delete(target)
        }
    }
}

final class NotificationReviewTests: XCTestCase {
    static let demolitionModel = ManagedObjectModel {
        Entity("ReviewDemolisher", class: "ReviewDemolisher") {
            Attribute("name", .string)
            Attribute("note", .string)
            Relationship("target", to: "ReviewDemolisher", inverse: "targetOf")
            Relationship("targetOf", to: "ReviewDemolisher", inverse: "target", toMany: true)
            Relationship("parts", to: "ReviewDemolisher", inverse: "whole", toMany: true, deleteRule: .cascade)
            Relationship("whole", to: "ReviewDemolisher", inverse: "parts")
        }
    }

    /// willSave(): a change made in willSave makes Core Data "invoke willSave again before saving
    /// the object"; objects a willSave deletes, and those their cascade deletes, are saved
    /// (their rows removed), so each gets its own willSave before that.
    func testObjectsACascadeFromAWillSaveDeletesGetTheirOwnWillSave() throws {
        ObjectClasses.register(ReviewDemolisher.self)
        try forEachStore(model: Self.demolitionModel) { stack in
            ReviewDemolisher.armed = false
            defer { ReviewDemolisher.armed = false }
            func make(_ name: String) -> ManagedObject { stack.insert("ReviewDemolisher", ["name": name]) }
            let trigger = make("trigger"), house = make("house"), roof = make("roof"), door = make("door")
            trigger.setValue(house, forKey: "target")
            roof.setValue(house, forKey: "whole")
            door.setValue(house, forKey: "whole")
            try stack.context.save()
            ReviewDemolisher.willSaveCalls = []
            ReviewDemolisher.armed = true
            trigger.setValue("go", forKey: "note")
            try stack.context.save()
            XCTAssertEqual(ReviewDemolisher.willSaveCalls.first, "trigger", "\(stack.storeType)")
            XCTAssertEqual(Set(ReviewDemolisher.willSaveCalls.dropFirst()), ["house", "roof", "door", "trigger"], "\(stack.storeType)")
            let names = try stack.newContext().fetch(FetchRequest<ManagedObject>(entityName: "ReviewDemolisher")).compactMap { $0.value(forKey: "name") as? String }
            XCTAssertEqual(names, ["trigger"], "\(stack.storeType)")
        }
    }

    static let ledgerModel = ManagedObjectModel {
        Entity("ReviewLedger", class: "ReviewLedger") {
            Attribute("name", .string)
            Attribute("stamp", .string)
            Attribute("mood", .string).transient()
            Relationship("partner", to: "ReviewLedger", inverse: "partnerOf")
            Relationship("partnerOf", to: "ReviewLedger", inverse: "partner")
        }
    }

    override func setUp() {
        super.setUp()
        ObjectClasses.register(ReviewLedger.self, HookedNote.self)
        ReviewLedger.willSaveCalls = []
    }

    // MARK: Coalescing one event (processPendingChanges)

    /// `delete(_:)`: "If object has not yet been saved to a persistent store, it is simply removed
    /// from the receiver." `NSManagedObjectContextObjectsDidChange`'s inserted key is "the
    /// context's set of inserted objects" (`NotificationKey.insertedObjects`), and
    /// `processPendingChanges()` coalesces the event's changes: a new object inserted and deleted
    /// before the event ends was never in the context at the end of it, and must not be reported
    /// inserted (an observer would add a row for an object that is gone).
    func testAnObjectInsertedAndDeletedInOneEventIsNotReportedInserted() throws {
        try forEachStore { stack in
            let recorder = Recorder(stack.context)
            let ada = stack.person("Ada")
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertFalse(stack.context.insertedObjects.contains(ada))
            XCTAssertFalse(recorder.changes.contains { $0.inserted.contains(ada) },
                           "\(stack.storeType): an object inserted and deleted in one event is reported inserted")
        }
    }

    /// `NotificationKey.updatedObjects`: "A key for the context's set of updated objects";
    /// `NSDeletedObjectsKey`: "the set of objects that were marked for deletion during the
    /// previous event". A deleted object is not among the context's updated objects
    /// (`isUpdated` is false, `updatedObjects` leaves it out): an object changed and then deleted
    /// in one event (directly, or by a cascade rule) is reported deleted only.
    func testObjectsUpdatedThenDeletedInOneEventAreReportedDeletedNotUpdated() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("Plan", owner: ada)
            try stack.context.save()
            let recorder = Recorder(stack.context)
            ada.setValue("Lovelace", forKey: "lastName")
            task.setValue("Plan B", forKey: "title")
            stack.context.delete(ada)   // cascades to task
            stack.context.processPendingChanges()
            XCTAssertEqual(stack.context.updatedObjects, [])
            XCTAssertEqual(recorder.changes.count, 1)
            XCTAssertEqual(recorder.changes.first?.deleted, [ada, task])
            XCTAssertEqual(recorder.changes.first?.updated, [],
                           "\(stack.storeType): objects deleted in the event are also reported updated")
        }
    }

    // MARK: refresh(_:mergeChanges:), refreshAllObjects(), rollback()

    /// `refresh(_:mergeChanges:)`, flag false: "the context discards pending changes and the
    /// managed object becomes a fault"; `NSRefreshedObjectsKey`: "objects that were refreshed but
    /// were not dirtied in the scope of this context". The change made earlier in the event is
    /// gone when the event ends: the object is reported refreshed, not updated (rollback(), which
    /// also discards pending changes, already takes them out of the event).
    func testRefreshDiscardingPendingChangesReportsTheObjectRefreshedNotUpdated() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            ada.setValue("Augusta", forKey: "firstName")
            stack.context.refresh(ada, mergeChanges: false)
            stack.context.processPendingChanges()
            XCTAssertFalse(ada.hasChanges)
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            XCTAssertEqual(recorder.changes.first?.refreshed, [ada])
            XCTAssertEqual(recorder.changes.first?.updated, [],
                           "\(stack.storeType): an object whose pending change was discarded is reported updated")
        }
    }

    /// `refreshAllObjects()`: "Refreshes all of the registered managed objects in the context"
    /// (keeping unsaved changes, WWDC 2015, talk 004); `NSRefreshedObjectsKey`: "A key for the set
    /// of objects that were refreshed but were not dirtied in the scope of this context". An
    /// object with unsaved changes (updated, or inserted) is dirtied in this context: it must not
    /// be in the refreshed set; only the clean one is.
    func testRefreshAllObjectsReportsOnlyObjectsWithoutUnsavedChangesAsRefreshed() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            bob.setValue("Robert", forKey: "firstName")
            let carol = stack.person("Carol")
            stack.context.processPendingChanges()
            let recorder = Recorder(stack.context)
            stack.context.refreshAllObjects()
            XCTAssertEqual(bob.value(forKey: "firstName") as? String, "Robert")
            XCTAssertTrue(carol.isInserted)
            XCTAssertEqual(recorder.changes.count, 1)
            XCTAssertEqual(recorder.changes.first?.refreshed, [ada],
                           "\(stack.storeType): objects with unsaved changes are reported refreshed")
        }
    }

    /// `rollback()`: "discards all insertions and deletions, and restores updated objects to their
    /// last committed values"; `NSManagedObjectContextObjectsDidChange`: "A notification that
    /// posts when there are changes to context's registered managed objects". The objects whose
    /// values a rollback restores (an update undone, a deletion undone) change: the notification
    /// must name them (refreshed, updated or inserted), or an observer keeps showing the discarded
    /// value and the deleted row.
    func testRollbackReportsTheObjectsItRestores() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            stack.context.delete(bob)
            stack.context.processPendingChanges()
            let recorder = Recorder(stack.context)
            stack.context.rollback()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            XCTAssertFalse(bob.isDeleted)
            let reported = recorder.changes.reduce(into: Set<ManagedObject>()) {
                $0.formUnion($1.refreshed.union($1.updated).union($1.inserted))
            }
            XCTAssertEqual(reported, [ada, bob],
                           "\(stack.storeType): rollback restores objects without reporting them")
        }
    }

    // MARK: Merging another context's save

    /// `mergeChanges(fromContextDidSave:)`: "This method refreshes any objects which have been
    /// updated in the other context"; `NSRefreshedObjectsKey`: "objects that were refreshed but
    /// were not dirtied in the scope of this context"; `NSUpdatedObjectsKey`: "objects that were
    /// updated". An object the receiving context has unsaved changes to is dirtied there: it takes
    /// the other context's values (its own changes kept on top) and is reported updated, not
    /// refreshed.
    func testMergingIntoAnObjectWithUnsavedChangesReportsItUpdatedNotRefreshed() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let writer = stack.newContext()
            let reader = stack.newContext()
            let adaInReader = try reader.existingObject(with: ada.objectID)
            adaInReader.setValue("Augusta", forKey: "firstName")
            reader.processPendingChanges()
            try writer.existingObject(with: ada.objectID).setValue("Lovelace", forKey: "lastName")
            let payload = try savePayload(of: writer)
            let recorder = Recorder(reader)
            reader.mergeChanges(fromContextDidSave: payload)
            XCTAssertEqual(adaInReader.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(adaInReader.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertTrue(adaInReader.hasChanges)
            XCTAssertEqual(recorder.changes.count, 1)
            let changes = recorder.changes.first
            XCTAssertEqual(changes?.refreshed, [],
                           "\(stack.storeType): an object with unsaved changes is reported refreshed")
            XCTAssertEqual(changes?.updated, [adaInReader])
        }
    }

    /// `NSRefreshedObjectsKey`: objects "refreshed but were not dirtied in the scope of this
    /// context". An object refreshed clean and then, in the same event, changed and refreshed
    /// keeping its change is dirty when the event ends: reported updated, not refreshed. One
    /// refreshed keeping its change and then deleted is reported deleted only.
    func testAnObjectRefreshedCleanThenDirtyInOneEventIsReportedUpdatedOnly() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let recorder = Recorder(stack.context)
            stack.context.refresh(ada, mergeChanges: true)
            ada.setValue("Augusta", forKey: "firstName")
            stack.context.refresh(ada, mergeChanges: true)
            bob.setValue("Robert", forKey: "firstName")
            stack.context.refresh(bob, mergeChanges: true)
            stack.context.delete(bob)
            stack.context.processPendingChanges()
            let changes = recorder.changes.last
            XCTAssertEqual(changes?.refreshed, [], "\(stack.storeType)")
            XCTAssertEqual(changes?.updated, [ada], "\(stack.storeType)")
            XCTAssertEqual(changes?.deleted, [bob], "\(stack.storeType)")
        }
    }

    /// Kept (passes): `mergeChanges(fromContextDidSave:)` "refreshes any objects which have been
    /// updated in the other context, faults in any newly-inserted objects, and invokes delete(_:)
    /// on those which have been deleted", and the receiving context posts objectsDidChange with
    /// them: one notification, the clean updated object refreshed, the new one inserted (as this
    /// context's own fault), the deleted one deleted.
    func testMergingPostsOneObjectsDidChangeWithTheMergedObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let writer = stack.newContext()
            let reader = stack.newContext()
            let adaInReader = try reader.existingObject(with: ada.objectID)
            let bobInReader = try reader.existingObject(with: bob.objectID)
            try writer.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            writer.delete(try writer.existingObject(with: bob.objectID))
            let carol = stack.insert("Person", ["firstName": "Carol"], into: writer)
            let payload = try savePayload(of: writer)
            let recorder = Recorder(reader)
            reader.mergeChanges(fromContextDidSave: payload)
            XCTAssertEqual(recorder.changes.count, 1)
            let changes = recorder.changes.first
            XCTAssertEqual(changes?.refreshed, [adaInReader])
            XCTAssertEqual(changes?.updated, [])
            XCTAssertEqual(changes?.deleted, [bobInReader])
            XCTAssertEqual(changes?.inserted.map(\.objectID), [carol.objectID])
            XCTAssertTrue(changes?.inserted.allSatisfy { $0.managedObjectContext === reader } == true)
            XCTAssertFalse(reader.hasChanges)
        }
    }

    // MARK: What is and is not a change

    /// Kept (passes): to-many changes keep inverses ("the context ... inverse relationship
    /// handling", `NSManagedObjectContext` overview), and every object whose relationship changed
    /// is updated: moving a task into Ada's `tasks` updates Ada, the task (its `owner`) and Bob
    /// (who loses it), even when all three were faults.
    func testAToManyChangeOnFaultsReportsTheOwnerTheDestinationAndItsOldOwner() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Plan", owner: bob)
            try stack.context.save()
            let other = stack.newContext()
            let adaThere = other.object(with: ada.objectID)
            let bobThere = other.object(with: bob.objectID)
            let taskThere = other.object(with: task.objectID)
            let recorder = Recorder(other)
            adaThere.mutableOrderedSetValue(forKey: "tasks").insert(taskThere)
            other.processPendingChanges()
            XCTAssertEqual(recorder.changes.count, 1)
            XCTAssertEqual(recorder.changes.first?.updated, [adaThere, bobThere, taskThere])
        }
    }

    /// Kept (passes): `NSUpdatedObjectsKey`: "objects that were updated"; a change to a transient
    /// attribute is a change of the object (`hasChanges`; WWDC 2015: hasChanges is "a rather basic
    /// dirty flag, if you touch the object, we would mark it dirty"), reported updated.
    func testATransientOnlyChangeIsReportedUpdated() throws {
        try forEachStore(model: Self.ledgerModel) { stack in
            let ledger = stack.insert("ReviewLedger", ["name": "a"])
            try stack.context.save()
            let recorder = Recorder(stack.context)
            ledger.setValue("happy", forKey: "mood")
            stack.context.processPendingChanges()
            XCTAssertEqual(recorder.changes.first?.updated, [ledger])
        }
    }

    /// Kept (passes): `NSManagedObjectContextObjectsDidChange`: "It doesn't post when a fetch adds
    /// managed objects to the context", and changes made in awakeFromFetch() are not tracked: a
    /// fetch that loads objects at once (returnsObjectsAsFaults false), whose awakeFromFetch sets
    /// a value, posts nothing and leaves no changes.
    func testAFetchWhoseAwakeFromFetchSetsValuesPostsNothing() throws {
        try forEachStore(model: ObjectStateTests.hookModel) { stack in
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("A", forKey: "text")
            try stack.context.save()
            let other = stack.newContext()
            let recorder = Recorder(other)
            var request = FetchRequest<ManagedObject>(entityName: "HookedNote")
            request.returnsObjectsAsFaults = false
            let fetched = try other.fetch(request)
            XCTAssertEqual(fetched.first?.value(forKey: "display") as? String, "cached A")
            other.processPendingChanges()
            XCTAssertEqual(recorder.notes.count, 0)
            XCTAssertFalse(other.hasChanges)
        }
    }

    // MARK: willSave and didSave

    /// Kept (passes): `NSManagedObjectContextWillSave`: "Only use the notification to operate on
    /// the in-process save operation. For example, to insert additional managed objects." An
    /// object an observer inserts then is part of that save: its willSave() runs (the hooks come
    /// after the notification), it is in didSave's inserted objects with a permanent ID, and
    /// nothing is left unsaved.
    func testAnObjectInsertedByAWillSaveObserverIsSavedInThatSave() throws {
        try forEachStore(model: Self.ledgerModel) { stack in
            var extra: ManagedObject?
            let token = stack.context.observe { note in
                if case .willSave = note, extra == nil { extra = stack.insert("ReviewLedger", ["name": "extra"]) }
            }
            _ = stack.insert("ReviewLedger", ["name": "first"])
            let recorder = Recorder(stack.context)
            try stack.context.save()
            token.cancel()
            let inserted = try XCTUnwrap(extra)
            XCTAssertEqual(Set(ReviewLedger.willSaveCalls), ["first", "extra"])
            XCTAssertEqual(recorder.saves.count, 1)
            XCTAssertTrue(recorder.saves.first?.1.inserted.contains(inserted) == true)
            XCTAssertFalse(inserted.objectID.isTemporaryID)
            XCTAssertTrue(recorder.saves.first?.0.insertedObjectIDs.contains(inserted.objectID) == true)
            XCTAssertFalse(stack.context.hasChanges)
        }
    }

    /// `NSManagedObject.willSave()`: "Provides an opportunity to add code into the life cycle of
    /// the managed object before saving it ... If you change property values using standard
    /// accessor methods, Core Data will observe the resultant change notification and so invoke
    /// willSave again before saving the object's managed object context." Object `b`, unchanged
    /// when the save starts, is changed by `a`'s willSave() and saved (it is in didSave): its own
    /// willSave() must run before it is saved.
    func testAnObjectChangedInAnotherObjectsWillSaveGetsItsOwnWillSave() throws {
        try forEachStore(model: Self.ledgerModel) { stack in
            let a = stack.insert("ReviewLedger", ["name": "a"])
            let b = stack.insert("ReviewLedger", ["name": "b"])
            a.setValue(b, forKey: "partner")
            try stack.context.save()
            XCTAssertEqual(b.value(forKey: "stamp") as? String, "seen ")
            ReviewLedger.willSaveCalls = []
            a.setValue("x", forKey: "stamp")   // only a is changed; a.willSave() changes b
            let recorder = Recorder(stack.context)
            try stack.context.save()
            XCTAssertEqual(b.value(forKey: "stamp") as? String, "seen x")
            XCTAssertEqual(recorder.saves.first?.1.updated, [a, b], "b is saved")
            XCTAssertTrue(ReviewLedger.willSaveCalls.contains("b"),
                          "\(stack.storeType): b was saved without its willSave() (calls: \(ReviewLedger.willSaveCalls))")
        }
    }
}
