// Two contexts on one coordinator: merging each other's saves (keeping unsaved edits), and save
// conflicts resolved by each merge policy as Core Data resolves them.
import Foundation
import XCTest
@testable import ObjectGraph

final class MergeTests: XCTestCase {
    // MARK: Merging saves

    func testMergingAnotherContextsSaveShowsItsChanges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            let inA = try a.existingObject(with: ada.objectID)
            let inB = try b.existingObject(with: ada.objectID)
            inA.setValue("Lovelace", forKey: "lastName")
            let payload = try savePayload(of: a)
            b.mergeChanges(fromContextDidSave: payload)
            XCTAssertEqual(inB.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertFalse(b.hasChanges)
        }
    }

    func testMergingKeepsUnsavedEditsOfTheReceivingContext() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            let inA = try a.existingObject(with: ada.objectID)
            let inB = try b.existingObject(with: ada.objectID)
            inB.setValue("Augusta", forKey: "firstName")
            inA.setValue("Lovelace", forKey: "lastName")
            b.mergeChanges(fromContextDidSave: try savePayload(of: a))
            XCTAssertEqual(inB.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(inB.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertTrue(b.hasChanges)
            XCTAssertEqual(b.updatedObjects, [inB])
            // After merging, B's save is no conflict and keeps both changes.
            try b.save()
            let saved = try stored(stack, ada.objectID)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(saved.value(forKey: "lastName") as? String, "Lovelace")
        }
    }

    func testMergingAnInsertLetsTheReceivingContextSeeTheObject() throws {
        try forEachStore { stack in
            let a = stack.newContext()
            let b = stack.newContext()
            let ada = stack.person("Ada")
            try stack.context.save()
            let inB = try b.existingObject(with: ada.objectID)
            let task = stack.insert("Task", ["title": "Plan", "uuid": UUID(), "owner": try a.existingObject(with: ada.objectID)], into: a)
            b.mergeChanges(fromContextDidSave: try savePayload(of: a))
            let tasks = try XCTUnwrap(inB.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
            XCTAssertEqual(tasks.map(\.objectID), [task.objectID])
            XCTAssertEqual(tasks.first?.value(forKey: "title") as? String, "Plan")
            XCTAssertEqual(try stack.fetch("Task", in: b).count, 1)
        }
    }

    func testMergingADeleteRemovesTheObjectFromTheReceivingContext() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("Plan", owner: ada)
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            let taskInB = try b.existingObject(with: task.objectID)
            let adaInB = try b.existingObject(with: ada.objectID)
            XCTAssertEqual((adaInB.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.count, 1)
            var deleted: Set<ManagedObject> = []
            let token = b.observe { note in
                if case .objectsDidChange(let changes) = note { deleted.formUnion(changes.deleted) }
            }
            a.delete(try a.existingObject(with: task.objectID))
            b.mergeChanges(fromContextDidSave: try savePayload(of: a))
            token.cancel()
            XCTAssertEqual(deleted, [taskInB])
            XCTAssertNil(b.registeredObject(for: task.objectID))
            XCTAssertFalse(b.hasChanges)
            XCTAssertEqual(try stack.fetch("Task", in: b).count, 0)
            XCTAssertEqual((adaInB.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.count, 0, "the inverse side reflects the deletion")
        }
    }

    func testMergingPostsObjectsDidChangeWithTheRefreshedObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            let inB = try b.existingObject(with: ada.objectID)
            try a.existingObject(with: ada.objectID).setValue("Lovelace", forKey: "lastName")
            let payload = try savePayload(of: a)
            var seen: Set<ManagedObject> = []
            let token = b.observe { note in
                if case .objectsDidChange(let changes) = note { seen.formUnion(changes.refreshed.union(changes.updated)) }
            }
            b.mergeChanges(fromContextDidSave: payload)
            token.cancel()
            XCTAssertEqual(seen, [inB])
        }
    }

    func testMergingARemoteSaveIntoSeveralContexts() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let viewContext = stack.newContext()
            let background = ManagedObjectContext(concurrencyType: .privateQueue)
            background.persistentStoreCoordinator = stack.coordinator
            let inView = try viewContext.existingObject(with: ada.objectID)
            let id = ada.objectID
            // Hold the background object: contexts keep unchanged objects weakly.
            let inBackground = try background.performAndWait { try background.existingObject(with: id) }
            XCTAssertNil(background.performAndWait { inBackground.value(forKey: "lastName") })
            ada.setValue("Lovelace", forKey: "lastName")
            let payload = try savePayload(of: stack.context)
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: payload, into: [viewContext, background])
            XCTAssertEqual(inView.value(forKey: "lastName") as? String, "Lovelace")
            let merged = background.performAndWait { () -> String? in
                XCTAssertTrue(background.registeredObject(for: id) === inBackground)
                return inBackground.value(forKey: "lastName") as? String
            }
            XCTAssertEqual(merged, "Lovelace")
        }
    }

    func testMergingARemoteSaveTranslatesIDsOfAnotherCoordinator() throws {
        // Another coordinator (with its own model instance) over a store with the same identifier.
        let identifier = UUID().uuidString
        let model = Stack.organizerModel
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, options: ["identifier": identifier])
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let ada = context.insertNewObject(forEntityName: "Person")
        ada.setValue("Ada", forKey: "firstName")
        try context.save()

        let otherModel = try ManagedObjectModel(contentsOf: Corpus.data.appendingPathComponent("Organizer.xcdatamodeld"))
        let remoteCoordinator = PersistentStoreCoordinator(managedObjectModel: otherModel)
        try remoteCoordinator.addPersistentStore(type: .inMemory, options: ["identifier": identifier])
        let remote = ManagedObjectContext(concurrencyType: .mainQueue)
        remote.persistentStoreCoordinator = remoteCoordinator
        let remoteAda = remote.insertNewObject(forEntityName: "Person")
        remoteAda.setValue("Remote", forKey: "firstName")
        try remote.save()
        XCTAssertEqual(remoteAda.objectID.uriRepresentation, ada.objectID.uriRepresentation)
        XCTAssertNotEqual(remoteAda.objectID, ada.objectID, "IDs of different models differ")
        remoteAda.setValue("Remote 2", forKey: "firstName")
        let payload = try savePayload(of: remote)

        var refreshed: Set<ManagedObject> = []
        let token = context.observe { note in
            if case .objectsDidChange(let changes) = note { refreshed.formUnion(changes.refreshed.union(changes.updated)) }
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: payload, into: [context])
        token.cancel()
        XCTAssertEqual(refreshed, [ada])
    }

    // MARK: Conflicts

    /// Ada saved as Ada Lovelace; contexts A and B both read her; A changes `aChanges` and saves;
    /// B changes `bChanges` and saves under `policy`.
    private func conflict(_ stack: Stack, policy: MergePolicy, a aChanges: [String: Any], b bChanges: [String: Any]) throws
        -> (b: ManagedObjectContext, inB: ManagedObject, id: ObjectID, error: Error?) {
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let a = stack.newContext()
        let b = stack.newContext()
        b.mergePolicy = policy
        let inA = try a.existingObject(with: ada.objectID)
        let inB = try b.existingObject(with: ada.objectID)
        for (key, value) in aChanges { inA.setValue(value, forKey: key) }
        try a.save()
        for (key, value) in bChanges { inB.setValue(value, forKey: key) }
        do {
            try b.save()
            return (b, inB, ada.objectID, nil)
        } catch {
            return (b, inB, ada.objectID, error)
        }
    }

    func testErrorPolicyIsTheDefault() {
        XCTAssertEqual(ManagedObjectContext(concurrencyType: .mainQueue).mergePolicy, .error)
    }

    func testConflictUnderErrorPolicyThrowsWithBothSnapshots() throws {
        try forEachStore { stack in
            let result = try conflict(stack, policy: .error, a: ["firstName": "Augusta"], b: ["firstName": "Countess"])
            let error = try XCTUnwrap(result.error as? MergeError, "\(String(describing: result.error))")
            XCTAssertEqual(error.conflicts.count, 1)
            let conflict = try XCTUnwrap(error.conflicts.first)
            XCTAssertEqual(conflict.objectID, result.id)
            XCTAssertEqual(conflict.objectSnapshot.value(forKey: "firstName"), .value("Countess"))
            XCTAssertEqual(conflict.cachedSnapshot?.value(forKey: "firstName"), .value("Ada"))
            XCTAssertEqual(conflict.persistedSnapshot?.value(forKey: "firstName"), .value("Augusta"))
            XCTAssertEqual(conflict.persistedSnapshot?.value(forKey: "lastName"), .value("Lovelace"))
            XCTAssertGreaterThan(conflict.persistedSnapshot?.version ?? 0, conflict.cachedSnapshot?.version ?? 0)
            // Nothing was written; B keeps its change.
            XCTAssertEqual(try stored(stack, result.id).value(forKey: "firstName") as? String, "Augusta")
            XCTAssertTrue(result.b.hasChanges)
            XCTAssertEqual(result.inB.value(forKey: "firstName") as? String, "Countess")
        }
    }

    func testConflictOnDifferentPropertiesStillFailsUnderErrorPolicy() throws {
        try forEachStore { stack in
            let result = try conflict(stack, policy: .error, a: ["firstName": "Augusta"], b: ["email": "ada@example.org"])
            XCTAssertTrue(result.error is MergeError, "\(String(describing: result.error))")
        }
    }

    func testConflictWithADeletionElsewhereUnderErrorPolicy() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            a.delete(try a.existingObject(with: ada.objectID))
            let inB = try b.existingObject(with: ada.objectID)
            try a.save()
            inB.setValue("Augusta", forKey: "firstName")
            XCTAssertThrowsError(try b.save()) { error in
                let conflict = (error as? MergeError)?.conflicts.first
                XCTAssertEqual(conflict?.objectID, ada.objectID)
                XCTAssertNotNil(conflict)
                XCTAssertNil(conflict?.persistedSnapshot, "deleted in the store")
            }
        }
    }

    func testMergeByPropertyStoreTrumpKeepsTheStoresConflictingValues() throws {
        try forEachStore { stack in
            let result = try conflict(stack, policy: .mergeByPropertyStoreTrump,
                                      a: ["firstName": "Augusta", "email": "a@example.org"],
                                      b: ["firstName": "Countess", "lastName": "King"])
            XCTAssertNil(result.error)
            let saved = try stored(stack, result.id)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(saved.value(forKey: "lastName") as? String, "King")
            XCTAssertEqual(saved.value(forKey: "email") as? String, "a@example.org")
            XCTAssertEqual(result.inB.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(result.inB.value(forKey: "email") as? String, "a@example.org")
            XCTAssertFalse(result.b.hasChanges)
        }
    }

    func testMergeByPropertyObjectTrumpKeepsTheContextsConflictingValues() throws {
        try forEachStore { stack in
            let result = try conflict(stack, policy: .mergeByPropertyObjectTrump,
                                      a: ["firstName": "Augusta", "email": "a@example.org"],
                                      b: ["firstName": "Countess", "lastName": "King"])
            XCTAssertNil(result.error)
            let saved = try stored(stack, result.id)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Countess")
            XCTAssertEqual(saved.value(forKey: "lastName") as? String, "King")
            XCTAssertEqual(saved.value(forKey: "email") as? String, "a@example.org")
            XCTAssertEqual(result.inB.value(forKey: "email") as? String, "a@example.org")
            XCTAssertFalse(result.b.hasChanges)
        }
    }

    func testOverwriteWritesTheContextsWholeObject() throws {
        try forEachStore { stack in
            let result = try conflict(stack, policy: .overwrite,
                                      a: ["firstName": "Augusta", "email": "a@example.org"],
                                      b: ["firstName": "Countess", "lastName": "King"])
            XCTAssertNil(result.error)
            let saved = try stored(stack, result.id)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Countess")
            XCTAssertEqual(saved.value(forKey: "lastName") as? String, "King")
            XCTAssertNil(saved.value(forKey: "email"), "the other context's change is overwritten")
            XCTAssertFalse(result.b.hasChanges)
        }
    }

    func testRollbackPolicyDiscardsTheContextsChanges() throws {
        try forEachStore { stack in
            let result = try conflict(stack, policy: .rollback,
                                      a: ["firstName": "Augusta", "email": "a@example.org"],
                                      b: ["firstName": "Countess", "lastName": "King"])
            XCTAssertNil(result.error)
            let saved = try stored(stack, result.id)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(saved.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertEqual(saved.value(forKey: "email") as? String, "a@example.org")
            XCTAssertEqual(result.inB.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(result.inB.value(forKey: "lastName") as? String, "Lovelace")
            XCTAssertFalse(result.b.hasChanges)
        }
    }

    func testPolicyResolvesOnlyConflictingObjectsAndSavesTheRest() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            b.mergePolicy = .rollback
            let adaInA = try a.existingObject(with: ada.objectID)
            let adaInB = try b.existingObject(with: ada.objectID)
            let bobInB = try b.existingObject(with: bob.objectID)
            adaInA.setValue("Augusta", forKey: "firstName")
            try a.save()
            adaInB.setValue("Countess", forKey: "firstName")
            bobInB.setValue("Robert", forKey: "firstName")
            let carol = stack.insert("Person", ["firstName": "Carol"], into: b)
            try b.save()
            XCTAssertEqual(try stored(stack, ada.objectID).value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(try stored(stack, bob.objectID).value(forKey: "firstName") as? String, "Robert")
            XCTAssertEqual(try stored(stack, carol.objectID).value(forKey: "firstName") as? String, "Carol")
        }
    }

    func testASecondSaveAfterResolvingIsNoConflict() throws {
        try forEachStore { stack in
            let result = try conflict(stack, policy: .mergeByPropertyObjectTrump, a: ["firstName": "Augusta"], b: ["firstName": "Countess"])
            XCTAssertNil(result.error)
            result.inB.setValue("Ada", forKey: "firstName")
            XCTAssertNoThrow(try result.b.save())
            XCTAssertEqual(try stored(stack, result.id).value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testConflictingToManyChangesMergeByPropertyObjectTrump() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let first = stack.task("First", owner: ada)
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            b.mergePolicy = .mergeByPropertyObjectTrump
            let adaInA = try a.existingObject(with: ada.objectID)
            let adaInB = try b.existingObject(with: ada.objectID)
            adaInA.setValue("Augusta", forKey: "firstName")
            try a.save()
            let second = stack.insert("Task", ["title": "Second", "uuid": UUID(), "owner": adaInB], into: b)
            try b.save()
            let saved = try stored(stack, ada.objectID)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual((saved.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map(\.objectID), [first.objectID, second.objectID])
        }
    }

    func testStoreTrumpKeepsRelationshipChangesMadeElsewhere() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("First", owner: ada)
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            b.mergePolicy = .mergeByPropertyStoreTrump
            let adaInA = try a.existingObject(with: ada.objectID)
            let adaInB = try b.existingObject(with: ada.objectID)
            _ = stack.insert("Task", ["title": "Second", "uuid": UUID(), "owner": adaInA], into: a)
            try a.save()
            adaInB.setValue("Augusta", forKey: "firstName")
            try b.save()
            let saved = try stored(stack, ada.objectID)
            XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual((saved.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String }, ["First", "Second"])
            XCTAssertEqual((adaInB.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.count, 2)
        }
    }

    func testObjectTrumpLetsTheContextsDeletionWin() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            b.mergePolicy = .mergeByPropertyObjectTrump
            try a.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            let adaInB = try b.existingObject(with: ada.objectID)
            try a.save()
            b.delete(adaInB)
            try b.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0)
        }
    }

    /// A store looks up the versions of a save's rows by key in an array when the keys are
    /// dense, in a dictionary otherwise: both find the same conflicts.
    func testConflictsAmongManyRowsAreFoundWhetherTheirKeysAreDenseOrSparse() throws {
        try forEachStore { stack in
            let people = (0..<600).map { stack.person("P\($0)") }
            try stack.context.save()
            let ids = people.map(\.objectID)
            for (round, (changed, elsewhere, deletedElsewhere)) in [(Array(0..<600), [0, 299, 599], [450]),  // dense
                                                                    ([0, 599], [599], [0])].enumerated() {    // sparse
                let a = stack.newContext()
                let b = stack.newContext()
                let inB = try changed.map { try b.existingObject(with: ids[$0]) }
                for index in elsewhere { try a.existingObject(with: ids[index]).setValue("A\(round)", forKey: "lastName") }
                for index in deletedElsewhere { a.delete(try a.existingObject(with: ids[index])) }
                try a.save()
                for object in inB { object.setValue("B", forKey: "lastName") }
                XCTAssertThrowsError(try b.save(), "\(changed.count) rows") { error in
                    let conflicts = (error as? MergeError)?.conflicts ?? []
                    XCTAssertEqual(Set(conflicts.map(\.objectID)), Set((elsewhere + deletedElsewhere).map { ids[$0] }))
                    XCTAssertEqual(conflicts.filter { $0.persistedSnapshot == nil }.map(\.objectID), deletedElsewhere.map { ids[$0] })
                }
                // Nothing of B's was written.
                let check = stack.newContext()
                let lastNames = try changed.filter { !deletedElsewhere.contains($0) }.map {
                    try check.existingObject(with: ids[$0]).value(forKey: "lastName") as? String
                }
                XCTAssertFalse(lastNames.contains("B"))
            }
        }
    }

    func testDeletingAnObjectChangedElsewhereConflictsUnderErrorPolicy() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            try a.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
            let adaInB = try b.existingObject(with: ada.objectID)
            try a.save()
            b.delete(adaInB)
            XCTAssertThrowsError(try b.save()) { error in
                XCTAssertEqual((error as? MergeError)?.conflicts.first?.objectID, ada.objectID)
            }
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 1)
        }
    }

    // MARK: Uniqueness constraints (Item.uuid)

    func testUniqueConstraintViolationFailsTheSaveUnderErrorPolicy() throws {
        try forEachStore { stack in
            let uuid = UUID()
            _ = stack.insert("Task", ["title": "Old", "uuid": uuid])
            try stack.context.save()
            let other = stack.newContext()
            _ = stack.insert("Task", ["title": "New", "uuid": uuid], into: other)
            XCTAssertThrowsError(try other.save())
            XCTAssertTrue(other.hasChanges)
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).map { $0.value(forKey: "title") as? String }, ["Old"])
        }
    }

    func testUniqueConstraintSpansTheInheritanceTree() throws {
        try forEachStore { stack in
            let uuid = UUID()
            _ = stack.insert("Task", ["title": "Task", "uuid": uuid])
            _ = stack.insert("Event", ["title": "Event", "uuid": uuid, "start": Date()])
            XCTAssertThrowsError(try stack.context.save())
            XCTAssertEqual(try stack.fetch("Item", in: stack.newContext()).count, 0)
        }
    }

    func testUniqueConstraintConflictUnderObjectTrumpLeavesOneObjectWithTheNewValues() throws {
        try forEachStore { stack in
            let uuid = UUID()
            _ = stack.insert("Task", ["title": "Old", "uuid": uuid, "priority": 1])
            try stack.context.save()
            let importer = stack.newContext()
            importer.mergePolicy = .mergeByPropertyObjectTrump
            _ = stack.insert("Task", ["title": "New", "uuid": uuid, "priority": 1], into: importer)
            XCTAssertNoThrow(try importer.save())
            let tasks = try stack.fetch("Task", in: stack.newContext())
            XCTAssertEqual(tasks.map { $0.value(forKey: "title") as? String }, ["New"])
        }
    }

    func testUniqueConstraintConflictUnderStoreTrumpLeavesOneObjectWithTheStoredValues() throws {
        try forEachStore { stack in
            let uuid = UUID()
            _ = stack.insert("Task", ["title": "Old", "uuid": uuid])
            try stack.context.save()
            let importer = stack.newContext()
            importer.mergePolicy = .mergeByPropertyStoreTrump
            _ = stack.insert("Task", ["title": "New", "uuid": uuid], into: importer)
            XCTAssertNoThrow(try importer.save())
            let tasks = try stack.fetch("Task", in: stack.newContext())
            XCTAssertEqual(tasks.map { $0.value(forKey: "title") as? String }, ["Old"])
        }
    }

    func testRepeatedImportsUnderAMergePolicyLeaveNoDuplicates() throws {
        try forEachStore { stack in
            stack.context.mergePolicy = .mergeByPropertyObjectTrump
            let uuids = [UUID(), UUID()]
            for round in 0..<3 {
                for (index, uuid) in uuids.enumerated() {
                    _ = stack.insert("Task", ["title": "Recipe \(index) v\(round)", "uuid": uuid])
                }
                XCTAssertNoThrow(try stack.context.save(), "round \(round)")
            }
            let tasks = try stack.fetch("Task", sortedBy: "title", in: stack.newContext())
            XCTAssertEqual(tasks.map { $0.value(forKey: "title") as? String }, ["Recipe 0 v2", "Recipe 1 v2"])
        }
    }

    func testASaveThatBrokeAConstraintCanBeRetriedOnceFixed() throws {
        try forEachStore { stack in
            let uuid = UUID()
            _ = stack.insert("Task", ["title": "Old", "uuid": uuid])
            try stack.context.save()
            let fresh = stack.insert("Task", ["title": "New", "uuid": uuid])
            XCTAssertThrowsError(try stack.context.save())
            XCTAssertTrue(fresh.isInserted)
            fresh.setValue(UUID(), forKey: "uuid")
            try stack.context.save()
            XCTAssertFalse(fresh.objectID.isTemporaryID)
            XCTAssertEqual(try stack.fetch("Task", sortedBy: "title", in: stack.newContext()).map { $0.value(forKey: "title") as? String }, ["New", "Old"])
            XCTAssertEqual(try stack.newContext().existingObject(with: fresh.objectID).value(forKey: "title") as? String, "New")
        }
    }

    func testTwoContextsMergeEachOthersSaves() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            let a = stack.newContext()
            let b = stack.newContext()
            let adaInA = try a.existingObject(with: ada.objectID), bobInA = try a.existingObject(with: bob.objectID)
            let adaInB = try b.existingObject(with: ada.objectID), bobInB = try b.existingObject(with: bob.objectID)
            adaInA.setValue("Lovelace", forKey: "lastName")
            bobInB.setValue("Babbage", forKey: "lastName")
            let fromA = try savePayload(of: a)
            b.mergeChanges(fromContextDidSave: fromA)
            let fromB = try savePayload(of: b)
            a.mergeChanges(fromContextDidSave: fromB)
            for (person, name) in [(adaInA, "Lovelace"), (adaInB, "Lovelace"), (bobInA, "Babbage"), (bobInB, "Babbage")] {
                XCTAssertEqual(person.value(forKey: "lastName") as? String, name)
            }
            XCTAssertFalse(a.hasChanges)
            XCTAssertFalse(b.hasChanges)
            // Each can go on editing and saving without conflicts.
            adaInB.setValue("King", forKey: "lastName")
            a.mergeChanges(fromContextDidSave: try savePayload(of: b))
            XCTAssertEqual(adaInA.value(forKey: "lastName") as? String, "King")
            adaInA.setValue("Byron", forKey: "lastName")
            XCTAssertNoThrow(try a.save())
        }
    }

    // MARK: Generated conflicts

    /// Random edits of the same people in two contexts; the second save resolves the conflicts by
    /// `policy`, and every stored value is the one the policy picks.
    private func checkGeneratedConflicts(_ policy: MergePolicy) throws {
        let keys = ["firstName", "lastName", "email"]
        for seed in 1...25 {
            try forEachStore { stack in
                var state = UInt64(seed) &* 40503
                func next(_ bound: Int) -> Int {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    return Int((state >> 33) % UInt64(bound))
                }
                let people = (0..<5).map { stack.person("P\($0)", "L\($0)") }
                try stack.context.save()
                let ids = people.map(\.objectID)
                let base: [[String: String?]] = people.map { person in
                    Dictionary(uniqueKeysWithValues: keys.map { ($0, person.value(forKey: $0) as? String) })
                }
                let a = stack.newContext(), b = stack.newContext()
                b.mergePolicy = policy
                let inA = try ids.map { try a.existingObject(with: $0) }
                let inB = try ids.map { try b.existingObject(with: $0) }
                var changedA: [[String: String?]] = Array(repeating: [:], count: ids.count)
                var changedB: [[String: String?]] = Array(repeating: [:], count: ids.count)
                for (side, objects) in [("a", inA), ("b", inB)] {
                    for _ in 0..<4 {
                        let index = next(ids.count), key = keys[next(keys.count)]
                        let value: String = key == "email" ? "\(side)\(next(100))@example.org" : "\(side)\(next(100))"
                        objects[index].setValue(value, forKey: key)
                        if side == "a" { changedA[index][key] = value } else { changedB[index][key] = value }
                    }
                }
                try a.save()
                do { try b.save() } catch { return XCTFail("seed \(seed) \(policy): \(error)") }
                let check = stack.newContext()
                for index in ids.indices {
                    let bothChanged = !changedA[index].isEmpty && !changedB[index].isEmpty
                    for key in keys {
                        let aValue = changedA[index][key] ?? base[index][key]!
                        let bView = changedB[index][key] ?? base[index][key]!
                        let expected: String?
                        switch policy.standard {
                        case .mergeByPropertyObjectTrump: expected = changedB[index][key] ?? aValue
                        case .mergeByPropertyStoreTrump: expected = changedA[index][key] ?? changedB[index][key] ?? base[index][key]!
                        case .overwrite: expected = changedB[index].isEmpty ? aValue : bView
                        case .rollback: expected = bothChanged ? aValue : (changedB[index].isEmpty ? aValue : bView)
                        case .error, .custom: expected = nil
                        }
                        let stored = try check.existingObject(with: ids[index]).value(forKey: key) as? String
                        XCTAssertEqual(stored, expected, "seed \(seed) \(policy): person \(index).\(key) (a: \(changedA[index]), b: \(changedB[index]))")
                        if !changedB[index].isEmpty {   // (objects B did not change are not refreshed by its save)
                            XCTAssertEqual(inB[index].value(forKey: key) as? String, expected, "in B: seed \(seed) \(policy): person \(index).\(key)")
                        }
                    }
                }
                XCTAssertFalse(b.hasChanges, "seed \(seed) \(policy)")
            }
        }
    }

    func testGeneratedConflictsUnderMergeByPropertyObjectTrump() throws { try checkGeneratedConflicts(.mergeByPropertyObjectTrump) }
    func testGeneratedConflictsUnderMergeByPropertyStoreTrump() throws { try checkGeneratedConflicts(.mergeByPropertyStoreTrump) }
    func testGeneratedConflictsUnderOverwrite() throws { try checkGeneratedConflicts(.overwrite) }
    func testGeneratedConflictsUnderRollback() throws { try checkGeneratedConflicts(.rollback) }
    /// A custom policy that overrides nothing resolves as its base does (the conflicts of a save
    /// pass through its resolve, whose default applies the base).
    func testGeneratedConflictsUnderCustomPoliciesWithoutOverridesAreTheirBases() throws {
        try checkGeneratedConflicts(.custom(CustomMergePolicy(base: .mergeByPropertyStoreTrump)))
        try checkGeneratedConflicts(.custom(CustomMergePolicy(base: .overwrite)))
    }

    func testMergingADeleteNullifiesUnsavedReferencesToTheDeletedObject() throws {
        try forEachStore { stack in
            let bob = stack.person("Bob")
            let task = stack.task("Plan")
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let taskInB = try b.existingObject(with: task.objectID)
            let bobInB = try b.existingObject(with: bob.objectID)
            taskInB.setValue(bobInB, forKey: "owner")
            a.delete(try a.existingObject(with: bob.objectID))
            b.mergeChanges(fromContextDidSave: try savePayload(of: a))
            XCTAssertNil(taskInB.value(forKey: "owner"), "the merged deletion runs the delete rules in the receiving context")
            XCTAssertNoThrow(try b.save())
            let saved = try stored(stack, task.objectID)
            XCTAssertNil(saved.value(forKey: "owner"))
        }
    }

    func testMergingADeleteRemovesTheObjectFromUnsavedToManyChanges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let first = stack.task("First", owner: ada)
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            let adaInB = try b.existingObject(with: ada.objectID)
            let second = stack.insert("Task", ["title": "Second", "uuid": UUID(), "owner": adaInB], into: b)
            a.delete(try a.existingObject(with: first.objectID))
            b.mergeChanges(fromContextDidSave: try savePayload(of: a))
            XCTAssertEqual((adaInB.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements, [second])
            XCTAssertNoThrow(try b.save())
            let saved = try stored(stack, ada.objectID)
            XCTAssertEqual((saved.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String }, ["Second"])
        }
    }
}
