// Saving under conflicts and merging saves, checked for consistency: optimistic locking across
// contexts and coordinators, what each merge policy leaves in the store and in the context
// (attributes, relationships and their inverses, deletions with their cascades, transient
// values), failed-save atomicity, merging other contexts' saves and refreshing, and row versions
// (Z_OPT). Each test states Core Data's documented behaviour it holds ObjectGraph to; real SQLite
// files in temporary folders, a second coordinator on the same file standing for another process.
// These pin what the wider suites (MergeTests, CrossContextTests, SQLiteSaveTests,
// SQLiteContextTests) do not: that both sides of every relationship agree, in the context and in
// each store, whatever a policy or a merge decides.
import Foundation
import XCTest
@testable import ObjectGraph

final class MergeConsistencyTests: XCTestCase {
    // MARK: Helpers

    /// The object `id` as a fresh coordinator on `stack`'s file reads it (nil when it has no row).
    private func fresh(_ stack: Stack, _ id: ObjectID) throws -> ManagedObject? {
        try? counterpart(of: id, in: try stack.otherProcessContext())
    }

    /// Z_OPT of `id`'s row in `table`, read with a connection of its own.
    private func version(_ stack: Stack, _ id: ObjectID, table: String) throws -> Int64? {
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        defer { connection.close() }
        return try connection.scalar("SELECT Z_OPT FROM \(table) WHERE Z_PK = ?", [.integer(id.primaryKey!)])?.integerValue
    }

    /// The values of `key` of the objects of a to-many relationship's value.
    private func titles(_ objects: Any?, _ key: String = "title") -> Set<String> {
        var list: [ManagedObject] = []
        if let set = objects as? Set<ManagedObject> { list = Array(set) }
        if let ordered = objects as? OrderedSet<ManagedObject> { list = Array(ordered) }
        return Set(list.compactMap { $0.value(forKey: key) as? String })
    }

    // MARK: Optimistic locking across two coordinators

    /// Another coordinator saves Ada (Z_OPT 1 -> 2); B changes her and inserts Carol. Under the
    /// error policy the save throws one conflict naming Ada with both versions (cached 1,
    /// persisted 2) and the three snapshots; the file is as the other coordinator left it
    /// (Carol not inserted); B keeps every change. Choosing a policy and saving again succeeds.
    func testErrorPolicyConflictWithAnotherCoordinatorLeavesStoreAndContextAndARetryUnderAPolicySucceeds() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let other = try stack.otherProcessContext()
        let b = stack.newContext()
        let adaInB = try b.existingObject(with: ada.objectID)
        try counterpart(of: ada.objectID, in: other).setValue("Byron", forKey: "lastName")
        try other.save()
        XCTAssertEqual(try version(stack, ada.objectID, table: "ZPERSON"), 2)

        adaInB.setValue("Augusta", forKey: "firstName")
        let carol = stack.insert("Person", ["firstName": "Carol"], into: b)
        XCTAssertThrowsError(try b.save()) { error in
            guard let merge = error as? MergeError else { return XCTFail("\(error)") }
            XCTAssertEqual(merge.conflicts.count, 1)
            let conflict = merge.conflicts[0]
            XCTAssertEqual(conflict.objectID, ada.objectID)
            XCTAssertEqual(conflict.cachedSnapshot?.version, 1, "old version")
            XCTAssertEqual(conflict.persistedSnapshot?.version, 2, "new version")
            XCTAssertEqual(conflict.objectSnapshot.value(forKey: "firstName"), .value("Augusta"))
            XCTAssertEqual(conflict.cachedSnapshot?.value(forKey: "lastName"), .value("Lovelace"))
            XCTAssertEqual(conflict.persistedSnapshot?.value(forKey: "lastName"), .value("Byron"))
        }
        XCTAssertEqual(try version(stack, ada.objectID, table: "ZPERSON"), 2)
        XCTAssertEqual(try fresh(stack, ada.objectID)?.value(forKey: "firstName") as? String, "Ada")
        XCTAssertEqual(try stack.fetch("Person", in: try stack.otherProcessContext()).count, 1, "Carol was not inserted")
        XCTAssertTrue(b.hasChanges)
        XCTAssertEqual(b.updatedObjects, [adaInB])
        XCTAssertEqual(b.insertedObjects, [carol])
        XCTAssertEqual(adaInB.value(forKey: "firstName") as? String, "Augusta")
        XCTAssertEqual(adaInB.value(forKey: "lastName") as? String, "Lovelace")

        b.mergePolicy = .mergeByPropertyObjectTrump
        XCTAssertNoThrow(try b.save())
        XCTAssertFalse(b.hasChanges)
        let saved = try XCTUnwrap(try fresh(stack, ada.objectID))
        XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
        XCTAssertEqual(saved.value(forKey: "lastName") as? String, "Byron")
        XCTAssertEqual(try version(stack, ada.objectID, table: "ZPERSON"), 3)
        XCTAssertEqual(adaInB.value(forKey: "lastName") as? String, "Byron")
        XCTAssertEqual(try fresh(stack, carol.objectID)?.value(forKey: "firstName") as? String, "Carol")
    }

    // MARK: Versions

    /// The rollback policy writes nothing for the conflicting object (Z_OPT stays at the other
    /// coordinator's 2) yet leaves it at the stored version: B's next save under the error policy
    /// is no conflict and raises Z_OPT to 3, after which the other coordinator's stale object
    /// conflicts, its error naming version 3.
    func testRollbackWritesNothingButLeavesTheObjectAtTheStoredVersion() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let other = try stack.otherProcessContext()
        let b = stack.newContext()
        b.mergePolicy = .rollback
        let adaInB = try b.existingObject(with: ada.objectID)
        let theirs = try counterpart(of: ada.objectID, in: other)
        theirs.setValue("Byron", forKey: "lastName")
        try other.save()
        adaInB.setValue("Augusta", forKey: "firstName")
        XCTAssertNoThrow(try b.save())
        XCTAssertEqual(try version(stack, ada.objectID, table: "ZPERSON"), 2)
        XCTAssertEqual(adaInB.value(forKey: "firstName") as? String, "Ada")
        XCTAssertEqual(adaInB.value(forKey: "lastName") as? String, "Byron")
        XCTAssertFalse(b.hasChanges)
        b.mergePolicy = .error
        adaInB.setValue("ada@example.org", forKey: "email")
        XCTAssertNoThrow(try b.save(), "a save after resolving is no conflict")
        XCTAssertEqual(try version(stack, ada.objectID, table: "ZPERSON"), 3)
        theirs.setValue("King", forKey: "lastName")
        XCTAssertThrowsError(try other.save()) { error in
            XCTAssertEqual((error as? MergeError)?.conflicts.first?.persistedSnapshot?.version, 3)
        }
    }

    /// A change of a many-to-many relationship alone (join-table rows, no column of either
    /// row) raises both rows' versions, as Core Data's does: B, which read Ada and the meeting
    /// before, conflicts on both under the error policy.
    func testAManyToManyChangeAloneRaisesBothRowsVersions() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        let meeting = stack.event("Meeting")
        try stack.context.save()
        let b = stack.newContext()
        let adaInB = try b.existingObject(with: ada.objectID)
        let meetingInB = try b.existingObject(with: meeting.objectID)
        let other = try stack.otherProcessContext()
        try counterpart(of: meeting.objectID, in: other).mutableSetValue(forKey: "attendees").insert(try counterpart(of: ada.objectID, in: other))
        try other.save()
        XCTAssertEqual(try version(stack, ada.objectID, table: "ZPERSON"), 2)
        XCTAssertEqual(try version(stack, meeting.objectID, table: "ZITEM"), 2)
        adaInB.setValue("Augusta", forKey: "firstName")
        meetingInB.setValue("Standup", forKey: "title")
        XCTAssertThrowsError(try b.save()) { error in
            XCTAssertEqual(Set((error as? MergeError)?.conflicts.map(\.objectID) ?? []), [ada.objectID, meeting.objectID])
        }
    }

    /// A gives a new task to Ada while Ada is a fault in A: Ada's to-many changed (the inverse),
    /// so she is updated, in the didSave payload, and her version rises; B, which holds her
    /// tasks as they were, conflicts when it saves a change of her.
    func testAnInverseChangeOfAFaultMakesItUpdatedAndRaisesItsVersion() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        let a = stack.newContext(), b = stack.newContext()
        let adaInB = try b.existingObject(with: ada.objectID)
        XCTAssertEqual(titles(adaInB.value(forKey: "tasks")), [])
        let fault = a.object(with: ada.objectID)
        XCTAssertTrue(fault.isFault)
        _ = stack.insert("Task", ["title": "New", "uuid": UUID(), "owner": fault], into: a)
        XCTAssertTrue(a.updatedObjects.contains(fault))
        let payload = try savePayload(of: a)
        XCTAssertTrue(payload.updatedObjectIDs.contains(ada.objectID))
        XCTAssertEqual(try version(stack, ada.objectID, table: "ZPERSON"), 2)
        adaInB.setValue("Augusta", forKey: "firstName")
        XCTAssertThrowsError(try b.save())
    }

    // MARK: Failed saves

    /// A validation failure on the 3rd of 5 new objects, beside an update and a deletion, writes
    /// nothing (a fresh coordinator reads the old state), keeps the new objects' IDs temporary
    /// and every change in the context; the save succeeds once the value is fixed.
    func testAValidationFailureMidwayWritesNothingKeepsTemporaryIDsAndTheFixedSaveWritesAll() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada"), bob = stack.person("Bob")
        try stack.context.save()
        let people = (0..<5).map { stack.person("New \($0)") }
        people[2].setValue("not an email", forKey: "email")
        ada.setValue("Augusta", forKey: "firstName")
        stack.context.delete(bob)
        XCTAssertThrowsError(try stack.context.save()) { error in
            XCTAssertEqual((error as? ValidationError)?.failures.map(\.objectID), [people[2].objectID])
        }
        XCTAssertTrue(people.allSatisfy { $0.objectID.isTemporaryID && $0.isInserted })
        XCTAssertEqual(stack.context.deletedObjects, [bob])
        XCTAssertEqual(stack.context.updatedObjects, [ada])
        XCTAssertEqual(Set(try stack.fetch("Person", in: try stack.otherProcessContext()).compactMap { $0.value(forKey: "firstName") as? String }),
                       ["Ada", "Bob"])
        people[2].setValue("new2@example.org", forKey: "email")
        XCTAssertNoThrow(try stack.context.save())
        XCTAssertTrue(people.allSatisfy { !$0.objectID.isTemporaryID })
        XCTAssertEqual(Set(try stack.fetch("Person", in: try stack.otherProcessContext()).compactMap { $0.value(forKey: "firstName") as? String }),
                       Set(["Augusta"] + (0..<5).map { "New \($0)" }))
    }

    /// B deletes Ada, cascading to her task, which A changed and saved. Under the error policy
    /// the save fails naming the task, deletes nothing, and B keeps both deletions; under object
    /// trump the retry deletes both.
    func testACascadeDeletionConflictingElsewhereFailsWholeThenWinsUnderObjectTrump() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("T", owner: ada)
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInB = try b.existingObject(with: ada.objectID)
            let taskInB = try b.existingObject(with: task.objectID)
            try a.existingObject(with: task.objectID).setValue("T2", forKey: "title")
            try a.save()
            b.delete(adaInB)
            XCTAssertThrowsError(try b.save()) { error in
                XCTAssertEqual((error as? MergeError)?.conflicts.map(\.objectID), [task.objectID], "\(stack.storeType)")
            }
            XCTAssertEqual(b.deletedObjects, [adaInB, taskInB], "\(stack.storeType)")
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 1, "\(stack.storeType)")
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 1, "\(stack.storeType)")
            b.mergePolicy = .mergeByPropertyObjectTrump
            XCTAssertNoThrow(try b.save(), "\(stack.storeType)")
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0, "\(stack.storeType)")
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 0, "\(stack.storeType)")
        }
    }

    // MARK: Merge policies: a to-one relationship changed on both sides

    /// Task T is Ada's. A gives it to Cy and saves; B (which has Ada, Bob, Cy and their tasks
    /// loaded) gives it to Bob and saves under `policy`. Afterwards the store's two sides agree,
    /// and B's two sides agree with each other and with the store.
    private func checkToOneChangedOnBothSides(_ policy: MergePolicy, expectedOwner: String) throws {
        try forEachStore { stack in
            let ada = stack.person("Ada"), bob = stack.person("Bob"), cy = stack.person("Cy")
            let task = stack.task("T", owner: ada)
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = policy
            let inB = try [ada, bob, cy].map { try b.existingObject(with: $0.objectID) }
            for person in inB { _ = titles(person.value(forKey: "tasks")) }
            let taskInB = try b.existingObject(with: task.objectID)
            XCTAssertEqual(titles(inB[0].value(forKey: "tasks")), ["T"])
            try a.existingObject(with: task.objectID).setValue(try a.existingObject(with: cy.objectID), forKey: "owner")
            try a.save()
            taskInB.setValue(inB[1], forKey: "owner")
            XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
            let check = stack.newContext()
            let storedOwner = (try check.existingObject(with: task.objectID).value(forKey: "owner") as? ManagedObject)?.value(forKey: "firstName") as? String
            XCTAssertEqual(storedOwner, expectedOwner, "\(stack.storeType) \(policy): stored owner")
            for (index, name) in ["Ada", "Bob", "Cy"].enumerated() {
                let stored = titles(try check.existingObject(with: [ada, bob, cy][index].objectID).value(forKey: "tasks"))
                XCTAssertEqual(stored, name == expectedOwner ? ["T"] : [], "\(stack.storeType) \(policy): stored \(name).tasks")
            }
            let ownerInB = (taskInB.value(forKey: "owner") as? ManagedObject)?.value(forKey: "firstName") as? String
            XCTAssertEqual(ownerInB, expectedOwner, "\(stack.storeType) \(policy): B's task.owner")
            for (index, name) in ["Ada", "Bob", "Cy"].enumerated() {
                XCTAssertEqual(titles(inB[index].value(forKey: "tasks")), name == expectedOwner ? ["T"] : [],
                               "\(stack.storeType) \(policy): B's \(name).tasks")
            }
        }
    }

    /// Store trump: T.owner takes the stored value, Cy (NSMergeByPropertyStoreTrumpMergePolicy
    /// "merges conflicts ... by individual property, with external changes trumping in-memory
    /// changes"), and the inverse follows, as Core Data keeps inverses consistent when a
    /// relationship changes (Programming Guide, Inverse Relationships): Bob.tasks loses T, Cy.tasks
    /// gains it, in B and in each store.
    func testToOneChangedOnBothSidesUnderStoreTrumpKeepsInversesConsistent() throws {
        try checkToOneChangedOnBothSides(.mergeByPropertyStoreTrump, expectedOwner: "Cy")
    }

    /// Object trump: in-memory changes trump, T.owner is Bob, and no stored row but Bob's lists
    /// T, not even Cy's, which B never wrote: the in-memory store keeps a to-many list whose
    /// inverse is a to-one in step with the to-one, as SQLite derives it from the foreign key.
    func testToOneChangedOnBothSidesUnderObjectTrumpKeepsTheStoredSidesConsistent() throws {
        try checkToOneChangedOnBothSides(.mergeByPropertyObjectTrump, expectedOwner: "Bob")
    }

    /// Overwrite: NSOverwriteMergePolicy saves "the entire in-memory object to the persistent
    /// store": T.owner is Bob, and only Bob lists T in either store (Cy's row, which B does not
    /// write, follows T's to-one there too).
    func testToOneChangedOnBothSidesUnderOverwriteKeepsTheStoredSidesConsistent() throws {
        try checkToOneChangedOnBothSides(.overwrite, expectedOwner: "Bob")
    }

    /// A third context, C, merges both saves of the to-one race above. After A's save it lists T
    /// in Cy.tasks; B's save under `policy` takes T away from Cy in the store though B never
    /// wrote Cy, so B's save says Cy was updated, and merging it leaves C with the store's sides:
    /// Apple, mergeChanges(fromContextDidSave:): "This method refreshes any objects which have
    /// been updated in the other context".
    private func checkMergedToOneRaceLeavesAThirdContextConsistent(_ policy: MergePolicy) throws {
        try forEachStore { stack in
            let ada = stack.person("Ada"), bob = stack.person("Bob"), cy = stack.person("Cy")
            let task = stack.task("T", owner: ada)
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext(), c = stack.newContext()
            b.mergePolicy = policy
            let taskInB = try b.existingObject(with: task.objectID)
            _ = taskInB.value(forKey: "owner")
            let inC = try [ada, bob, cy].map { try c.existingObject(with: $0.objectID) }
            for person in inC { _ = titles(person.value(forKey: "tasks")) }
            try a.existingObject(with: task.objectID).setValue(try a.existingObject(with: cy.objectID), forKey: "owner")
            c.mergeChanges(fromContextDidSave: try savePayload(of: a))
            XCTAssertEqual(titles(inC[2].value(forKey: "tasks")), ["T"], "\(stack.storeType) \(policy): C's Cy.tasks after A")
            taskInB.setValue(try b.existingObject(with: bob.objectID), forKey: "owner")
            let saved = try savePayload(of: b)
            XCTAssertTrue(saved.updatedObjectIDs.contains(cy.objectID), "\(stack.storeType) \(policy): B's save names Cy")
            c.mergeChanges(fromContextDidSave: saved)
            for (index, name) in ["Ada", "Bob", "Cy"].enumerated() {
                XCTAssertEqual(titles(inC[index].value(forKey: "tasks")), name == "Bob" ? ["T"] : [],
                               "\(stack.storeType) \(policy): C's \(name).tasks")
            }
            let ownerInC = try c.existingObject(with: task.objectID).value(forKey: "owner") as? ManagedObject
            XCTAssertTrue(ownerInC === inC[1], "\(stack.storeType) \(policy): C's T.owner")
        }
    }

    func testMergedToOneRaceUnderObjectTrumpLeavesAThirdContextConsistent() throws {
        try checkMergedToOneRaceLeavesAThirdContextConsistent(.mergeByPropertyObjectTrump)
    }

    func testMergedToOneRaceUnderOverwriteLeavesAThirdContextConsistent() throws {
        try checkMergedToOneRaceLeavesAThirdContextConsistent(.overwrite)
    }

    // MARK: Merge policies: a deletion with a cascade against a change elsewhere

    /// B deletes Ada, which cascades to her task; A changed Ada and saved; B saves under
    /// `policy`. Whatever the policy decides, the outcome is whole: the deletion with its
    /// cascade, or neither. Never Ada kept while her task is gone by a cascade from a deletion
    /// that no longer happens, and never a stored Ada listing a task that has no row.
    private func checkCascadeDeletionAgainstAChangeElsewhere(_ policy: MergePolicy) throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("T", owner: ada)
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = policy
            let adaInB = try b.existingObject(with: ada.objectID)
            _ = try b.existingObject(with: task.objectID)
            try a.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            try a.save()
            b.delete(adaInB)
            XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
            let check = stack.newContext()
            let people = try stack.fetch("Person", in: check)
            let tasks = try stack.fetch("Task", in: check)
            XCTAssertEqual(people.count, tasks.count, "\(stack.storeType) \(policy): people \(people.count), tasks \(tasks.count)")
            for person in people {
                let listed = (person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map(\.objectID) ?? []
                XCTAssertEqual(Set(listed), Set(tasks.map(\.objectID)), "\(stack.storeType) \(policy): stored Ada.tasks")
            }
        }
    }

    /// Store trump: the change elsewhere wins over B's deletion of Ada, and the deletion is undone
    /// whole: a cascade deletes the destinations because the source is deleted
    /// (NSDeleteRule.cascadeDeleteRule), and the by-property policy merges property values
    /// (NSMergePolicy docs), it does not leave a half-applied deletion. Ada and her task stay,
    /// and her stored row lists the task.
    func testCascadeDeletionAgainstAChangeElsewhereUnderStoreTrumpIsWholeOrNothing() throws {
        try checkCascadeDeletionAgainstAChangeElsewhere(.mergeByPropertyStoreTrump)
    }

    /// Rollback: NSRollbackMergePolicy "discards unsaved changes" of the object in conflict, here
    /// Ada's deletion; the task goes only because she does, so it stays too.
    func testCascadeDeletionAgainstAChangeElsewhereUnderRollbackIsWholeOrNothing() throws {
        try checkCascadeDeletionAgainstAChangeElsewhere(.rollback)
    }

    /// B deletes Ada, which cascades to her three tasks; A changed the middle task and saved; B
    /// saves under `policy`. The conflict is on the task, yet its deletion is Ada's: the policy
    /// that keeps the task keeps Ada and her other tasks too, Ada listing them in their order, in
    /// B and in the store.
    private func checkCascadeDeletionAgainstAChangeOfACascadedObject(_ policy: MergePolicy) throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let tasks = ["T1", "T2", "T3"].map { stack.task($0, owner: ada) }
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = policy
            let adaInB = try b.existingObject(with: ada.objectID)
            let tasksInB = try tasks.map { try b.existingObject(with: $0.objectID) }
            try a.existingObject(with: tasks[1].objectID).setValue("T2 changed", forKey: "title")
            try a.save()
            b.delete(adaInB)
            XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
            XCTAssertFalse(adaInB.isDeleted || tasksInB.contains(where: \.isDeleted), "\(stack.storeType) \(policy)")
            let order = ["T1", "T2 changed", "T3"]
            let listed = (adaInB.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String }
            XCTAssertEqual(listed, order, "\(stack.storeType) \(policy): B's Ada.tasks")
            let check = stack.newContext()
            XCTAssertEqual(try stack.fetch("Person", in: check).count, 1, "\(stack.storeType) \(policy)")
            let stored = (try check.existingObject(with: ada.objectID).value(forKey: "tasks") as? OrderedSet<ManagedObject>)?
                .map { $0.value(forKey: "title") as? String }
            XCTAssertEqual(stored, order, "\(stack.storeType) \(policy): stored Ada.tasks")
        }
    }

    func testCascadeDeletionAgainstAChangeOfACascadedObjectUnderRollbackIsUndoneWhole() throws {
        try checkCascadeDeletionAgainstAChangeOfACascadedObject(.rollback)
    }

    func testCascadeDeletionAgainstAChangeOfACascadedObjectUnderStoreTrumpIsUndoneWhole() throws {
        try checkCascadeDeletionAgainstAChangeOfACascadedObject(.mergeByPropertyStoreTrump)
    }

    /// B deletes Ada's middle task, whose nullify rule takes it out of her tasks; A changed the
    /// task and saved; B saves under rollback, which discards the deletion: the nullification
    /// goes with it, and Ada lists the task again at its place, in B and in the store.
    func testDiscardedDeletionPutsTheObjectBackWhereItsNullifyRuleTookItFrom() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let tasks = ["T1", "T2", "T3"].map { stack.task($0, owner: ada) }
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = .rollback
            let adaInB = try b.existingObject(with: ada.objectID)
            let middle = try b.existingObject(with: tasks[1].objectID)
            try a.existingObject(with: tasks[1].objectID).setValue("T2 changed", forKey: "title")
            try a.save()
            b.delete(middle)
            b.processPendingChanges()
            XCTAssertEqual(titles(adaInB.value(forKey: "tasks")), ["T1", "T3"], "\(stack.storeType)")
            XCTAssertNoThrow(try b.save(), "\(stack.storeType)")
            XCTAssertFalse(middle.isDeleted, "\(stack.storeType)")
            let order = ["T1", "T2 changed", "T3"]
            XCTAssertEqual((adaInB.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String }, order,
                           "\(stack.storeType): B's Ada.tasks")
            let stored = try stack.newContext().existingObject(with: ada.objectID)
            XCTAssertEqual((stored.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String }, order,
                           "\(stack.storeType): stored Ada.tasks")
        }
    }

    // MARK: Merge policies: transient values

    private static let noteModel: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("Note") {
                Attribute("text", .string)
                Attribute("tag", .string)
                Attribute("mood", .string).transient()
            }
        }
        model.freeze()
        return model
    }()

    /// B sets a transient value and a stored one; A changed another stored one and saved; B
    /// saves under `policy`.
    private func checkTransientSurvivesResolving(_ policy: MergePolicy) throws {
        try forEachStore(model: Self.noteModel) { stack in
            let note = stack.insert("Note", ["text": "t", "tag": "x"])
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = policy
            let inB = try b.existingObject(with: note.objectID)
            try a.existingObject(with: note.objectID).setValue("y", forKey: "tag")
            try a.save()
            inB.setValue("happy", forKey: "mood")
            inB.setValue("t2", forKey: "text")
            XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
            XCTAssertEqual(inB.value(forKey: "text") as? String, "t2", "\(stack.storeType) \(policy)")
            XCTAssertEqual(inB.value(forKey: "tag") as? String, "y", "\(stack.storeType) \(policy)")
            XCTAssertEqual(inB.value(forKey: "mood") as? String, "happy", "\(stack.storeType) \(policy): transient value")
        }
    }

    /// The by-property policies merge "the persistent store's version of the object and the
    /// current in-memory version by individual property" (NSMergePolicy docs); a transient
    /// property has no stored version, and merging stored values into an object "does not affect
    /// any transient properties" (refresh(_:mergeChanges:) docs, flag true): B's transient value
    /// outlives the conflict, beside the merged stored ones.
    func testTransientValueSurvivesResolvingUnderObjectTrump() throws { try checkTransientSurvivesResolving(.mergeByPropertyObjectTrump) }

    /// As above, under store trump.
    func testTransientValueSurvivesResolvingUnderStoreTrump() throws { try checkTransientSurvivesResolving(.mergeByPropertyStoreTrump) }

    // MARK: Merging saves

    /// mergeChanges(fromContextDidSave:) "refreshes any objects which have been updated in the
    /// other context, faults in any newly-inserted objects, and invokes delete(_:) on those which
    /// have been deleted" (NSManagedObjectContext docs): an object inserted elsewhere, which the
    /// receiving context never registered, is registered as a fault and reported under the
    /// inserted objects of objectsDidChange (what lets a fetched results controller show another
    /// context's inserts); the receiving context has no changes of its own.
    func testMergingAnInsertFaultsTheObjectInAndReportsItInserted() throws {
        try forEachStore { stack in
            let a = stack.newContext(), b = stack.newContext()
            let carol = stack.insert("Person", ["firstName": "Carol"], into: a)
            let payload = try savePayload(of: a)
            var inserted: Set<ObjectID> = []
            let token = b.observe { note in
                if case .objectsDidChange(let changes) = note { inserted.formUnion(changes.inserted.map(\.objectID)) }
            }
            b.mergeChanges(fromContextDidSave: payload)
            token.cancel()
            XCTAssertNotNil(b.registeredObject(for: carol.objectID), "\(stack.storeType): faulted in")
            XCTAssertEqual(inserted, [carol.objectID], "\(stack.storeType): objectsDidChange inserted")
            XCTAssertFalse(b.hasChanges, "\(stack.storeType)")
            XCTAssertTrue(b.insertedObjects.isEmpty, "\(stack.storeType)")
        }
    }

    /// Merging "invokes delete(_:) on those which have been deleted"
    /// (mergeChanges(fromContextDidSave:) docs), so the receiving context's delete rules reach
    /// the new objects it linked to the deleted one: Person.tasks is Cascade, and B's new, unsaved
    /// task of Ada is deleted with her (it is not saved as an orphan). (A saved object linked to
    /// her only loses her: MergeTests.testMergingADeleteNullifiesUnsavedReferencesToTheDeletedObject.)
    func testMergingADeletionCascadesToTheReceivingContextsNewDestinations() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let old = stack.task("Old", owner: ada)
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInB = try b.existingObject(with: ada.objectID)
            let oldInB = try b.existingObject(with: old.objectID)
            let fresh = stack.insert("Task", ["title": "Fresh", "uuid": UUID(), "owner": adaInB], into: b)
            a.delete(try a.existingObject(with: ada.objectID))
            let payload = try savePayload(of: a)
            XCTAssertEqual(payload.deletedObjectIDs, [ada.objectID, old.objectID])
            b.mergeChanges(fromContextDidSave: payload)
            XCTAssertTrue(oldInB.isDeleted || oldInB.managedObjectContext == nil, "\(stack.storeType)")
            XCTAssertTrue(fresh.isDeleted || fresh.managedObjectContext == nil, "\(stack.storeType): cascade reached the new task")
            XCTAssertFalse(b.insertedObjects.contains(fresh), "\(stack.storeType)")
            XCTAssertNoThrow(try b.save())
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 0, "\(stack.storeType): no orphan task")
        }
    }

    /// The same race without the merge: B saves straight after A's deletion, under each policy
    /// that resolves. Ada's "deleted elsewhere" conflict takes B's new task with her, as the
    /// merged deletion above does, instead of saving it as the orphan her cascade rule forbids.
    func testAConflictingDeletionElsewhereCascadesToTheSavingContextsNewDestinations() throws {
        for policy in [MergePolicy.rollback, .overwrite, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump] {
            try forEachStore { stack in
                let ada = stack.person("Ada")
                _ = stack.task("Old", owner: ada)
                try stack.context.save()
                let a = stack.newContext(), b = stack.newContext()
                b.mergePolicy = policy
                b.undoManager = UndoManager()
                let adaInB = try b.existingObject(with: ada.objectID)
                adaInB.setValue("Augusta", forKey: "firstName")
                let fresh = stack.insert("Task", ["title": "Fresh", "uuid": UUID(), "owner": adaInB], into: b)
                a.delete(try a.existingObject(with: ada.objectID))
                try a.save()
                XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
                XCTAssertTrue(fresh.isDeleted || fresh.managedObjectContext == nil, "\(stack.storeType) \(policy): cascade reached the new task")
                XCTAssertFalse(b.hasChanges, "\(stack.storeType) \(policy)")
                XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 0, "\(stack.storeType) \(policy): no orphan task")
                XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0, "\(stack.storeType) \(policy)")
            }
        }
    }

    /// Merging refreshes the updated objects and re-applies the receiving context's unsaved
    /// changes on top (refresh(_:mergeChanges:) docs, flag true), and Core Data keeps inverse
    /// relationships consistent (Programming Guide, Inverse Relationships). B's unsaved
    /// T.owner = Bob is kept, so B's Cy, refreshed from the store where T is Cy's, does not list
    /// T; and B's save leaves the store's sides agreeing.
    func testMergingASaveKeepsInversesConsistentWithAnUnsavedToOneChange() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada"), bob = stack.person("Bob"), cy = stack.person("Cy")
            let task = stack.task("T", owner: ada)
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let inB = try [ada, bob, cy].map { try b.existingObject(with: $0.objectID) }
            for person in inB { _ = titles(person.value(forKey: "tasks")) }
            let taskInB = try b.existingObject(with: task.objectID)
            taskInB.setValue(inB[1], forKey: "owner")
            try a.existingObject(with: task.objectID).setValue(try a.existingObject(with: cy.objectID), forKey: "owner")
            b.mergeChanges(fromContextDidSave: try savePayload(of: a))
            XCTAssertEqual((taskInB.value(forKey: "owner") as? ManagedObject)?.objectID, bob.objectID, "\(stack.storeType): local change kept")
            XCTAssertEqual(titles(inB[1].value(forKey: "tasks")), ["T"], "\(stack.storeType): B's Bob.tasks")
            XCTAssertEqual(titles(inB[2].value(forKey: "tasks")), [], "\(stack.storeType): B's Cy.tasks")
            XCTAssertEqual(titles(inB[0].value(forKey: "tasks")), [], "\(stack.storeType): B's Ada.tasks")
            XCTAssertNoThrow(try b.save(), "\(stack.storeType)")
            let check = stack.newContext()
            for (person, expected) in zip([ada, bob, cy], [Set<String>(), ["T"], []]) {
                XCTAssertEqual(titles(try check.existingObject(with: person.objectID).value(forKey: "tasks")), expected,
                               "\(stack.storeType): stored \(person.value(forKey: "firstName") ?? "")")
            }
            XCTAssertEqual((try check.existingObject(with: task.objectID).value(forKey: "owner") as? ManagedObject)?.objectID, bob.objectID)
        }
    }

    /// B deleted Ada, unsaved; another coordinator deleted her too and B merges that
    /// save: the merged deletion takes Ada out of B's deletions, so B's save (of another change)
    /// does not try to delete a row that is gone and meets no conflict.
    func testMergingADeletionOfAnObjectDeletedLocallyLeavesNothingToConflict() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada"), bob = stack.person("Bob")
        try stack.context.save()
        let other = try stack.otherProcessContext()
        let b = stack.newContext()
        b.delete(try b.existingObject(with: ada.objectID))
        try b.existingObject(with: bob.objectID).setValue("Robert", forKey: "firstName")
        other.delete(try counterpart(of: ada.objectID, in: other))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: try savePayload(of: other), into: [b])
        XCTAssertNoThrow(try b.save())
        XCTAssertEqual(try stack.fetch("Person", in: try stack.otherProcessContext()).compactMap { $0.value(forKey: "firstName") as? String }, ["Robert"])
    }

    // MARK: Refreshing

    /// Another coordinator changed firstName and lastName; B changed firstName. After
    /// refresh(_:mergeChanges: true) B's change wins on top of the stored row, the committed
    /// values are the stored ones (Augusta), only firstName is a change, and the save is no
    /// conflict (Z_OPT 2 -> 3) and writes both.
    func testRefreshMergingChangesAfterAnotherCoordinatorChangedTheSameProperty() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let other = try stack.otherProcessContext()
        let theirs = try counterpart(of: ada.objectID, in: other)
        theirs.setValue("Byron", forKey: "lastName")
        theirs.setValue("Augusta", forKey: "firstName")
        try other.save()
        ada.setValue("Countess", forKey: "firstName")
        stack.context.refresh(ada, mergeChanges: true)
        XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Countess")
        XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Byron")
        XCTAssertEqual(ada.committedValues(forKeys: ["firstName"])["firstName"] as? String, "Augusta")
        XCTAssertEqual(Set(ada.changedValues().keys), ["firstName"])
        XCTAssertNoThrow(try stack.context.save())
        XCTAssertEqual(try version(stack, ada.objectID, table: "ZPERSON"), 3)
        let saved = try XCTUnwrap(try fresh(stack, ada.objectID))
        XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Countess")
        XCTAssertEqual(saved.value(forKey: "lastName") as? String, "Byron")
    }
}
