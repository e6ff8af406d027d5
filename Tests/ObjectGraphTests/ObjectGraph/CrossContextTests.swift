// What values a context sees when several contexts (of one coordinator, or of two
// coordinators on one SQLite file) change and save the same objects: the coordinator's row
// cache, merging saves, refreshing, merge policies, deletions and to-many relationships.
import Foundation
import XCTest
@testable import ObjectGraph

final class CrossContextTests: XCTestCase {
    private func names(_ objects: Any?, _ key: String = "title") -> Set<String> {
        let set: [ManagedObject]
        if let objects = objects as? Set<ManagedObject> { set = Array(objects) }
        else if let objects = objects as? OrderedSet<ManagedObject> { set = Array(objects) }
        else { set = [] }
        return Set(set.compactMap { $0.value(forKey: key) as? String })
    }

    // MARK: Row cache

    /// Context B merges a save (which forgets the cached row with its users), A then fetches the
    /// person as a fault (a new cache entry, one user: A), S resets (its stale release takes
    /// A's entry away), and B saves a new name (`RowCache.update` finds nothing cached to
    /// replace and does not grow the generation; only the save's `invalidate` of its (here no)
    /// deleted rows does). A's fault must fire with B's saved name: the save went through A's
    /// coordinator. Guards the fast path of `fulfillFault` against stale rows.
    func testAFaultFiresWithTheNewestSavedRowAfterAStaleReleaseDroppedItsCacheEntry() throws {
        try forEachStore { stack in
            let s = stack.context
            let ada = stack.person("Ada")
            try s.save()
            let b = stack.newContext()
            let inB = try b.existingObject(with: ada.objectID)
            ada.setValue("Augusta", forKey: "firstName")
            b.mergeChanges(fromContextDidSave: try savePayload(of: s))
            XCTAssertEqual(inB.value(forKey: "firstName") as? String, "Augusta")

            let a = stack.newContext()
            let inA = try XCTUnwrap(try stack.fetch("Person", in: a).first)
            XCTAssertTrue(inA.isFault)

            s.reset()
            inB.setValue("Countess", forKey: "firstName")
            try b.save()
            XCTAssertEqual(try stored(stack, ada.objectID).value(forKey: "firstName") as? String, "Countess")
            XCTAssertEqual(inA.value(forKey: "firstName") as? String, "Countess",
                           "\(stack.storeType): a fault fired after another context of the coordinator saved shows the saved row")
        }
    }

    /// The plain case (no merge, no reset): a fault fetched before another context's save fires
    /// with the saved values.
    func testAFaultFetchedBeforeAnotherContextsSaveFiresWithTheSavedValues() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext()
            let inA = try XCTUnwrap(try stack.fetch("Person", in: a).first)
            XCTAssertTrue(inA.isFault)
            ada.setValue("Augusta", forKey: "firstName")
            try stack.context.save()
            XCTAssertEqual(inA.value(forKey: "firstName") as? String, "Augusta")
        }
    }

    /// Refresh in one context (which forgets the cached row with its users) must not make
    /// another context's fault fire with an older row after a third context saves.
    func testRefreshElsewhereThenSaveStillFiresFaultsWithTheNewestRow() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let b = stack.newContext()
            let inB = try b.existingObject(with: ada.objectID)
            b.refresh(inB, mergeChanges: false)
            let a = stack.newContext()
            let inA = try XCTUnwrap(try stack.fetch("Person", in: a).first)
            XCTAssertTrue(inA.isFault)
            b.reset()
            ada.setValue("Augusta", forKey: "firstName")
            try stack.context.save()
            XCTAssertEqual(inA.value(forKey: "firstName") as? String, "Augusta")
        }
    }

    // MARK: Deletions seen elsewhere

    /// A fault whose row another context deleted (and saved) becomes a deleted object with no
    /// values (shouldDeleteInaccessibleFaults), never the stale row.
    func testAFaultDeletedByAnotherContextFiresAsDeletedNotStale() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext()
            let inA = try XCTUnwrap(try stack.fetch("Person", in: a).first)
            XCTAssertTrue(inA.isFault)
            stack.context.delete(ada)
            try stack.context.save()
            XCTAssertNil(inA.value(forKey: "firstName"))
            XCTAssertTrue(inA.isDeleted)
            let strict = stack.newContext()
            strict.shouldDeleteInaccessibleFaults = false
            let other = strict.object(with: ada.objectID)
            XCTAssertThrowsError(try other.fulfill()) { error in
                XCTAssertEqual(error as? ContextError, .inaccessibleFault(ada.objectID))
            }
            XCTAssertThrowsError(try stack.newContext().existingObject(with: ada.objectID))
        }
    }

    // MARK: Many-to-many across contexts

    /// A adds an event to Ada's events; B adds another and saves; A merges B's save and saves.
    /// Both events must stay: A's merge re-applies its change on top of B's.
    func testMergingKeepsBothContextsManyToManyAdditions() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let one = stack.event("One")
            let two = stack.event("Two")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInA = try a.existingObject(with: ada.objectID)
            let adaInB = try b.existingObject(with: ada.objectID)
            XCTAssertEqual(names(adaInA.value(forKey: "events")), [])
            XCTAssertEqual(names(adaInB.value(forKey: "events")), [])
            adaInA.mutableSetValue(forKey: "events").insert(try a.existingObject(with: one.objectID))
            adaInB.mutableSetValue(forKey: "events").insert(try b.existingObject(with: two.objectID))
            a.mergeChanges(fromContextDidSave: try savePayload(of: b))
            XCTAssertEqual(names(adaInA.value(forKey: "events")), ["One", "Two"], "\(stack.storeType): after the merge")
            try a.save()
            XCTAssertEqual(names(try stored(stack, ada.objectID).value(forKey: "events")), ["One", "Two"], "\(stack.storeType): stored")
        }
    }

    /// The same with a conflict instead of a merge: B saves first, A saves under object trump.
    func testObjectTrumpKeepsBothContextsManyToManyAdditions() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let one = stack.event("One")
            let two = stack.event("Two")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            a.mergePolicy = .mergeByPropertyObjectTrump
            let adaInA = try a.existingObject(with: ada.objectID)
            let adaInB = try b.existingObject(with: ada.objectID)
            XCTAssertEqual(names(adaInA.value(forKey: "events")), [])
            adaInA.mutableSetValue(forKey: "events").insert(try a.existingObject(with: one.objectID))
            adaInB.mutableSetValue(forKey: "events").insert(try b.existingObject(with: two.objectID))
            try b.save()
            try a.save()
            XCTAssertEqual(names(try stored(stack, ada.objectID).value(forKey: "events")), ["One", "Two"], "\(stack.storeType): stored")
        }
    }

    /// A one-to-many addition made in A (a task given Ada as owner) survives merging B's save of
    /// another task for her: A's Ada lists both new tasks, as the store does.
    func testMergingKeepsBothContextsOneToManyAdditionsInMemory() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("Zero", owner: ada)
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInA = try a.existingObject(with: ada.objectID)
            let adaInB = try b.existingObject(with: ada.objectID)
            XCTAssertEqual(names(adaInA.value(forKey: "tasks")), ["Zero"])
            XCTAssertEqual(names(adaInB.value(forKey: "tasks")), ["Zero"])
            _ = stack.insert("Task", ["title": "One", "uuid": UUID(), "owner": adaInA], into: a)
            _ = stack.insert("Task", ["title": "Two", "uuid": UUID(), "owner": adaInB], into: b)
            a.mergeChanges(fromContextDidSave: try savePayload(of: b))
            XCTAssertEqual(names(adaInA.value(forKey: "tasks")), ["Zero", "One", "Two"], "\(stack.storeType): after the merge")
            try a.save()
            XCTAssertEqual(names(try stored(stack, ada.objectID).value(forKey: "tasks")), ["Zero", "One", "Two"], "\(stack.storeType): stored")
            XCTAssertEqual(names(adaInA.value(forKey: "tasks")), ["Zero", "One", "Two"], "\(stack.storeType): after A's save")
        }
    }

    // MARK: Conflicts with deletions elsewhere

    /// B adds Ada to an event while A deletes Ada and saves; B saves under object trump. The
    /// conflict (Ada deleted in the store) must not leave a join row naming the deleted person,
    /// nor B's event listing her.
    func testResolvingADeletionElsewhereLeavesNoDanglingManyToManyReference() throws {
        for policy in [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback] {
            try forEachStore { stack in
                let ada = stack.person("Ada")
                let meeting = stack.event("Meeting")
                try stack.context.save()
                let a = stack.newContext(), b = stack.newContext()
                b.mergePolicy = policy
                let adaInB = try b.existingObject(with: ada.objectID)
                let meetingInB = try b.existingObject(with: meeting.objectID)
                meetingInB.mutableSetValue(forKey: "attendees").insert(adaInB)
                a.delete(try a.existingObject(with: ada.objectID))
                try a.save()
                XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
                let check = stack.newContext()
                let attendees = try check.existingObject(with: meeting.objectID).value(forKey: "attendees") as? Set<ManagedObject> ?? []
                XCTAssertEqual(attendees.map(\.objectID), [], "\(stack.storeType) \(policy): stored attendees")
                XCTAssertEqual(try stack.fetch("Person", in: check).count, 0, "\(stack.storeType) \(policy)")
                let inMemory = meetingInB.value(forKey: "attendees") as? Set<ManagedObject> ?? []
                XCTAssertFalse(inMemory.contains { $0.objectID == ada.objectID }, "\(stack.storeType) \(policy): B's event")
            }
        }
    }

    /// The same with a to-one: B makes Ada a task's owner while A deletes Ada.
    func testResolvingADeletionElsewhereLeavesNoDanglingToOneReference() throws {
        for policy in [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback] {
            try forEachStore { stack in
                let ada = stack.person("Ada")
                let task = stack.task("Plan")
                try stack.context.save()
                let a = stack.newContext(), b = stack.newContext()
                b.mergePolicy = policy
                let adaInB = try b.existingObject(with: ada.objectID)
                let taskInB = try b.existingObject(with: task.objectID)
                taskInB.setValue(adaInB, forKey: "owner")
                a.delete(try a.existingObject(with: ada.objectID))
                try a.save()
                XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
                let check = stack.newContext()
                let owner = try check.existingObject(with: task.objectID).value(forKey: "owner") as? ManagedObject
                XCTAssertNil(owner?.objectID, "\(stack.storeType) \(policy): stored owner")
                XCTAssertNil(taskInB.value(forKey: "owner"), "\(stack.storeType) \(policy): B's task")
            }
        }
    }

    // MARK: Recovering from a failed save

    /// Under the error policy a conflicting save writes nothing and changes nothing in the
    /// context; refreshing the object with mergeChanges then lets the save go through with
    /// both contexts' changes.
    func testAfterAConflictRefreshingWithMergeChangesLetsTheSaveSucceed() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInA = try a.existingObject(with: ada.objectID)
            let adaInB = try b.existingObject(with: ada.objectID)
            let bobInB = try b.existingObject(with: bob.objectID)
            adaInA.setValue("Lovelace", forKey: "lastName")
            try a.save()
            adaInB.setValue("Augusta", forKey: "firstName")
            bobInB.setValue("Babbage", forKey: "lastName")
            let carol = stack.insert("Person", ["firstName": "Carol"], into: b)
            XCTAssertThrowsError(try b.save())
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 2, "nothing inserted")
            XCTAssertNil(try stored(stack, bob.objectID).value(forKey: "lastName"), "nothing updated")
            XCTAssertEqual(Set(b.updatedObjects), [adaInB, bobInB])
            XCTAssertEqual(Set(b.insertedObjects), [carol])
            XCTAssertEqual(adaInB.value(forKey: "lastName") as? String, nil)
            b.refresh(adaInB, mergeChanges: true)
            XCTAssertEqual(adaInB.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(adaInB.value(forKey: "lastName") as? String, "Lovelace")
            try b.save()
            let saved = try stored(stack, ada.objectID)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(saved.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertEqual(try stored(stack, carol.objectID).value(forKey: "firstName") as? String, "Carol")
            XCTAssertEqual(try stored(stack, bob.objectID).value(forKey: "lastName") as? String, "Babbage")
        }
    }

    // MARK: Two coordinators on one SQLite file

    private func secondCoordinator(_ stack: Stack) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A save through another coordinator conflicts with an edit of the same row here (the
    /// store checks versions), and after merging the remote save, loaded objects and faults
    /// of the merged context show the remote values and the save goes through.
    func testTwoCoordinatorsOnOneFileDetectConflictsAndMergeRemoteSaves() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        let bob = stack.person("Bob")
        try stack.context.save()
        let remote = try secondCoordinator(stack)
        let adaRemote = try remote.existingObject(with: ada.objectID)
        let bobRemote = try remote.existingObject(with: bob.objectID)
        let here = stack.newContext()
        let adaHere = try here.existingObject(with: ada.objectID)
        let bobHere = here.object(with: bob.objectID)
        XCTAssertTrue(bobHere.isFault)
        adaRemote.setValue("Lovelace", forKey: "lastName")
        bobRemote.setValue("Babbage", forKey: "lastName")
        let payload = try savePayload(of: remote)
        adaHere.setValue("Augusta", forKey: "firstName")
        XCTAssertThrowsError(try here.save()) { error in
            XCTAssertEqual((error as? MergeError)?.conflicts.map(\.objectID), [ada.objectID])
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: payload, into: [here])
        XCTAssertEqual(adaHere.value(forKey: "lastName") as? String, "Lovelace")
        XCTAssertEqual(adaHere.value(forKey: "firstName") as? String, "Augusta")
        XCTAssertEqual(bobHere.value(forKey: "lastName") as? String, "Babbage")
        try here.save()
        let check = try secondCoordinator(stack)
        let saved = try check.existingObject(with: ada.objectID)
        XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
        XCTAssertEqual(saved.value(forKey: "lastName") as? String, "Lovelace")
    }

    /// A remote deletion merged here removes the object; a fault of it in a context that did
    /// not merge fires as deleted (its row is gone), not with the coordinator's cached row once
    /// the merge invalidated it.
    func testARemoteDeletionMergedIntoOneContextIsSeenByFaultsOfAnother() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        let remote = try secondCoordinator(stack)
        remote.delete(try remote.existingObject(with: ada.objectID))
        let other = stack.newContext()
        let fault = try XCTUnwrap(try stack.fetch("Person", in: other).first)
        XCTAssertTrue(fault.isFault)
        let payload = try savePayload(of: remote)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: payload, into: [stack.context])
        XCTAssertNil(stack.context.registeredObject(for: ada.objectID))
        XCTAssertTrue(ada.isDeleted)
        XCTAssertNil(fault.value(forKey: "firstName"))
        XCTAssertTrue(fault.isDeleted)
    }

    // MARK: Merging deletions and updates into changed objects

    /// A deletion merged into a context where the object has unsaved changes removes it: the
    /// context's save then writes nothing for it (no conflict, no resurrection).
    func testMergingADeletionOfAnObjectWithUnsavedChangesDropsItFromTheSave() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInB = try b.existingObject(with: ada.objectID)
            adaInB.setValue("Augusta", forKey: "firstName")
            try b.existingObject(with: bob.objectID).setValue("Babbage", forKey: "lastName")
            a.delete(try a.existingObject(with: ada.objectID))
            b.mergeChanges(fromContextDidSave: try savePayload(of: a))
            XCTAssertTrue(adaInB.isDeleted)
            XCTAssertNil(b.registeredObject(for: ada.objectID))
            XCTAssertFalse(b.updatedObjects.contains(adaInB))
            XCTAssertNoThrow(try b.save())
            XCTAssertEqual(try stack.fetch("Person", sortedBy: "firstName", in: stack.newContext()).map { $0.value(forKey: "firstName") as? String }, ["Bob"])
        }
    }

    /// An update merged into a context that deleted the object (unsaved) keeps the deletion,
    /// and the context's save deletes the row.
    func testMergingAnUpdateKeepsAnUnsavedDeletion() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInB = try b.existingObject(with: ada.objectID)
            b.delete(adaInB)
            b.processPendingChanges()
            try a.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            b.mergeChanges(fromContextDidSave: try savePayload(of: a))
            XCTAssertTrue(adaInB.isDeleted)
            XCTAssertEqual(b.deletedObjects, [adaInB])
            XCTAssertNoThrow(try b.save())
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0)
        }
    }

    /// refreshAllObjects brings unchanged objects (and their loaded to-many relationships) up to
    /// another context's save, keeping the unsaved changes of changed ones.
    func testRefreshAllObjectsShowsAnotherContextsSaveAndKeepsLocalChanges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInB = try b.existingObject(with: ada.objectID)
            let bobInB = try b.existingObject(with: bob.objectID)
            XCTAssertEqual(names(adaInB.value(forKey: "tasks")), [])
            bobInB.setValue("Robert", forKey: "firstName")
            let adaInA = try a.existingObject(with: ada.objectID)
            adaInA.setValue("Lovelace", forKey: "lastName")
            _ = stack.insert("Task", ["title": "Plan", "uuid": UUID(), "owner": adaInA], into: a)
            try a.existingObject(with: bob.objectID).setValue("Babbage", forKey: "lastName")
            try a.save()
            b.refreshAllObjects()
            XCTAssertEqual(adaInB.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertEqual(names(adaInB.value(forKey: "tasks")), ["Plan"])
            XCTAssertEqual(bobInB.value(forKey: "firstName") as? String, "Robert")
            XCTAssertEqual(bobInB.value(forKey: "lastName") as? String, "Babbage")
            XCTAssertNoThrow(try b.save())
        }
    }

    /// After reset, a context fetches and faults the values other contexts saved since.
    func testResetThenFetchShowsValuesSavedElsewhere() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            _ = try b.existingObject(with: ada.objectID).value(forKey: "firstName")
            try a.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            try a.save()
            b.reset()
            let again = try XCTUnwrap(try stack.fetch("Person", in: b).first)
            XCTAssertEqual(again.value(forKey: "firstName") as? String, "Augusta")
            again.setValue("Countess", forKey: "firstName")
            XCTAssertNoThrow(try b.save())
        }
    }

    // MARK: Cached to-many contents

    /// S holds Ada with her tasks loaded (the cached row has them); B gives a task to Ada while
    /// Ada is a fault there, and saves. A context that reads Ada's tasks afterwards sees the
    /// new task (from the cache or the store, never the older cached list).
    func testToManyContentsCachedByOneContextAreNotStaleAfterAnotherSavesTheInverse() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            _ = stack.task("Zero", owner: ada)
            let moved = stack.task("Moved", owner: bob)
            try stack.context.save()
            XCTAssertEqual(names(ada.value(forKey: "tasks")), ["Zero"])
            let b = stack.newContext()
            let adaInB = b.object(with: ada.objectID)
            XCTAssertTrue(adaInB.isFault)
            _ = stack.insert("Task", ["title": "New", "uuid": UUID(), "owner": adaInB], into: b)
            try b.existingObject(with: moved.objectID).setValue(adaInB, forKey: "owner")
            try b.save()
            XCTAssertEqual(names(try stored(stack, ada.objectID).value(forKey: "tasks")), ["Zero", "New", "Moved"], "\(stack.storeType): fresh context")
            let c = stack.newContext()
            let adaInC = try XCTUnwrap(try stack.fetch("Person", "firstName == 'Ada'", in: c).first)
            XCTAssertEqual(names(adaInC.value(forKey: "tasks")), ["Zero", "New", "Moved"], "\(stack.storeType): fetched fault")
            let bobInC = try XCTUnwrap(try stack.fetch("Person", "firstName == 'Bob'", in: c).first)
            XCTAssertEqual(names(bobInC.value(forKey: "tasks")), [], "\(stack.storeType): Bob")
        }
    }

    /// B adds Ada to a meeting (both sides change); A renames Ada and saves; B saves under
    /// `policy`. Whatever the policy decides, B's two sides of the relationship agree with each
    /// other and with the store afterwards.
    private func checkInverseAfterResolving(_ policy: MergePolicy) throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let meeting = stack.event("Meeting")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = policy
            let adaInB = try b.existingObject(with: ada.objectID)
            let meetingInB = try b.existingObject(with: meeting.objectID)
            XCTAssertEqual(names(adaInB.value(forKey: "events")), [])
            meetingInB.mutableSetValue(forKey: "attendees").insert(adaInB)
            try a.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            try a.save()
            XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
            let check = stack.newContext()
            let storedEvents = names(try check.existingObject(with: ada.objectID).value(forKey: "events"))
            let storedAttendees = names(try check.existingObject(with: meeting.objectID).value(forKey: "attendees"), "firstName")
            XCTAssertEqual(storedEvents.isEmpty, storedAttendees.isEmpty, "\(stack.storeType) \(policy): stored sides agree")
            let events = names(adaInB.value(forKey: "events"))
            let attendees = names(meetingInB.value(forKey: "attendees"), "firstName")
            XCTAssertEqual(events, storedEvents, "\(stack.storeType) \(policy): B's Ada.events")
            XCTAssertEqual(attendees, storedAttendees, "\(stack.storeType) \(policy): B's meeting.attendees")
        }
    }

    func testInverseAgreesAfterResolvingUnderRollback() throws { try checkInverseAfterResolving(.rollback) }
    func testInverseAgreesAfterResolvingUnderStoreTrump() throws { try checkInverseAfterResolving(.mergeByPropertyStoreTrump) }
    func testInverseAgreesAfterResolvingUnderObjectTrump() throws { try checkInverseAfterResolving(.mergeByPropertyObjectTrump) }
    func testInverseAgreesAfterResolvingUnderOverwrite() throws { try checkInverseAfterResolving(.overwrite) }
}
