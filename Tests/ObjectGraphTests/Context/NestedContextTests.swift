// Nested contexts: a child context reads from its parent (unsaved changes there included) and saves
// into it; nothing reaches the store until the parent saves. Run against every store type.
import Foundation
import XCTest
@testable import ObjectGraph

final class NestedContextTests: NestedContextTestCase {
    func testChildReadsTheParentsObjectsAsTheyAreUnsavedChangesIncluded() throws {
        try forEachStore { stack in
            let kept = stack.task("kept", priority: 1)
            let changed = stack.task("changed", priority: 1)
            let deleted = stack.task("deleted", priority: 1)
            try stack.context.save()
            changed.setValue("changed, unsaved", forKey: "title")
            stack.context.delete(deleted)
            stack.task("new, unsaved", priority: 1)
            let editor = child(of: stack.context)
            XCTAssertTrue(editor.persistentStoreCoordinator === stack.coordinator, "\(stack.storeType)")
            XCTAssertTrue(editor.parent === stack.context)

            let found = try stack.fetch("Task", "priority == 1", sortedBy: "title", in: editor)
            XCTAssertEqual(titles(found), ["changed, unsaved", "kept", "new, unsaved"], "\(stack.storeType)")
            XCTAssertTrue(found.allSatisfy { $0.managedObjectContext === editor })
            XCTAssertFalse(found.contains { $0 === kept }, "the child has objects of its own")
            var count = FetchRequest<ManagedObject>(entityName: "Task")
            count.predicate = try Predicate(format: "priority == 1")
            XCTAssertEqual(try editor.count(for: count), 3, "\(stack.storeType)")
            // An object by ID, and a new one of the parent's, which only the parent knows.
            XCTAssertEqual(editor.object(with: changed.objectID).value(forKey: "title") as? String, "changed, unsaved")
            let new = try XCTUnwrap(stack.context.insertedObjects.first)
            XCTAssertEqual(try editor.existingObject(with: new.objectID).value(forKey: "title") as? String, "new, unsaved")
            XCTAssertFalse(editor.hasChanges)
        }
    }

    func testAChildsChangesReachTheParentWhenItSavesAndTheStoreWhenTheParentSaves() throws {
        try forEachStore { stack in
            let owner = stack.person("Ada")
            let task = stack.task("Write", priority: 1, owner: owner)
            try stack.context.save()
            let editor = child(of: stack.context)
            let draft = editor.object(with: task.objectID)
            draft.setValue("Write the notes", forKey: "title")
            let added = stack.insert("Task", ["title": "Read", "uuid": UUID(), "priority": 2], into: editor)
            added.setValue(editor.object(with: owner.objectID), forKey: "owner")
            XCTAssertEqual(task.value(forKey: "title") as? String, "Write", "the parent does not see unsaved child changes")
            XCTAssertFalse(stack.context.hasChanges)

            try editor.save()
            XCTAssertFalse(editor.hasChanges, "\(stack.storeType)")
            XCTAssertFalse(added.objectID.isTemporaryID, "a child's new object takes its permanent ID when it saves")
            XCTAssertTrue(stack.context.hasChanges)
            XCTAssertEqual(task.value(forKey: "title") as? String, "Write the notes")
            let inParent = try XCTUnwrap(stack.context.registeredObject(for: added.objectID))
            XCTAssertTrue(inParent.isInserted)
            XCTAssertTrue(inParent.value(forKey: "owner") as? ManagedObject === owner)
            XCTAssertEqual(Set(titles(owner.objects(atSlot: owner.layout.index(of: "tasks")!))), ["Write the notes", "Read"],
                           "the parent keeps the inverse")
            // Nothing is stored yet.
            XCTAssertEqual(try stored(stack, task.objectID).value(forKey: "title") as? String, "Write")
            XCTAssertThrowsError(try stored(stack, added.objectID))

            try stack.context.save()
            XCTAssertEqual(try stored(stack, task.objectID).value(forKey: "title") as? String, "Write the notes")
            let read = try stored(stack, added.objectID)
            XCTAssertEqual(read.value(forKey: "title") as? String, "Read")
            XCTAssertEqual((read.value(forKey: "owner") as? ManagedObject)?.objectID, owner.objectID)
        }
    }

    func testAChildThrownAwayLeavesTheParentAsItWas() throws {
        try forEachStore { stack in
            let task = stack.task("Write", priority: 1)
            try stack.context.save()
            var editor: ManagedObjectContext? = ManagedObjectContext(concurrencyType: .mainQueue)
            editor!.parent = stack.context
            editor!.object(with: task.objectID).setValue("Discarded", forKey: "title")
            editor!.delete(try editor!.existingObject(with: task.objectID))
            stack.insert("Task", ["title": "Also discarded", "uuid": UUID()], into: editor!)
            editor = nil
            XCTAssertFalse(stack.context.hasChanges, "\(stack.storeType)")
            XCTAssertEqual(titles(try stack.fetch("Task")), ["Write"])
        }
    }

    func testAChildSavesOnlyWhatItChangedAndTheParentsOtherChangesStay() throws {
        try forEachStore { stack in
            let task = stack.task("Write", priority: 1)
            try stack.context.save()
            let editor = child(of: stack.context)
            editor.object(with: task.objectID).setValue("Write more", forKey: "title")
            // Meanwhile the parent changes another property.
            task.setValue(3, forKey: "priority")
            try editor.save()
            XCTAssertEqual(task.value(forKey: "title") as? String, "Write more", "\(stack.storeType)")
            XCTAssertEqual(task.value(forKey: "priority") as? Int16, 3)
        }
    }

    func testAChildsDeletionIsTheParentsWithItsDeleteRules() throws {
        try forEachStore { stack in
            let owner = stack.person("Ada")
            let task = stack.task("Write", owner: owner)
            let other = stack.task("Other")
            try stack.context.save()
            let editor = child(of: stack.context)
            // Person.tasks cascades.
            editor.delete(try editor.existingObject(with: owner.objectID))
            editor.processPendingChanges()
            XCTAssertTrue(editor.object(with: task.objectID).isDeleted, "\(stack.storeType)")
            try editor.save()
            XCTAssertTrue(owner.isDeleted)
            XCTAssertTrue(task.isDeleted)
            XCTAssertNil(editor.registeredObject(for: owner.objectID), "a saved deletion leaves the child")
            XCTAssertEqual(titles(try stack.fetch("Task", in: editor)), ["Other"], "the child reads the parent's deletion")
            try stack.context.save()
            XCTAssertThrowsError(try stored(stack, owner.objectID))
            XCTAssertThrowsError(try stored(stack, task.objectID))
            XCTAssertNoThrow(try stored(stack, other.objectID))
        }
    }

    func testAChildsFetchMergesItsOwnUnsavedChangesSortsAndWindows() throws {
        try forEachStore { stack in
            for (title, priority) in [("b", 1), ("d", 1), ("f", 2)] { stack.task(title, priority: priority) }
            try stack.context.save()
            stack.task("c", priority: 1)              // the parent's, unsaved
            let editor = child(of: stack.context)
            stack.insert("Task", ["title": "a", "uuid": UUID(), "priority": 1], into: editor)
            let f = try XCTUnwrap(try stack.fetch("Task", "title == 'f'", in: editor).first)
            f.setValue(1, forKey: "priority")          // now matches
            let d = try XCTUnwrap(try stack.fetch("Task", "title == 'd'", in: editor).first)
            editor.delete(d)

            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.predicate = try Predicate(format: "priority == 1")
            request.sortDescriptors = [SortDescriptor(key: "title")]
            XCTAssertEqual(titles(try editor.fetch(request)), ["a", "b", "c", "f"], "\(stack.storeType)")
            XCTAssertEqual(try editor.count(for: request), 4)
            request.fetchOffset = 1
            request.fetchLimit = 2
            XCTAssertEqual(titles(try editor.fetch(request)), ["b", "c"])
            XCTAssertEqual(try editor.count(for: request), 2)
            var ids = FetchRequest<ObjectID>(entityName: "Task")
            ids.resultType = .managedObjectID
            ids.predicate = request.predicate
            XCTAssertEqual(try editor.fetch(ids).count, 4)
            // Without its own pending changes the child still sees the parent's.
            request.includesPendingChanges = false
            request.fetchOffset = 0
            request.fetchLimit = 0
            XCTAssertEqual(titles(try editor.fetch(request)), ["b", "c", "d"])
        }
    }

    func testAPredicateNamingAChildsObjectFindsThroughTheParent() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            stack.task("Saved", owner: ada)
            try stack.context.save()
            stack.task("Unsaved", owner: ada)
            let editor = child(of: stack.context)
            let owner = editor.object(with: ada.objectID)
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.predicate = try Predicate(format: "owner == %@", owner)
            request.sortDescriptors = [SortDescriptor(key: "title")]
            XCTAssertEqual(titles(try editor.fetch(request)), ["Saved", "Unsaved"], "\(stack.storeType)")
            // Read from the child's object, the relationship is the parent's too.
            let tasks = owner.objects(atSlot: owner.layout.index(of: "tasks")!)
            XCTAssertEqual(Set(titles(tasks)), ["Saved", "Unsaved"])
            XCTAssertTrue(tasks.allSatisfy { $0.managedObjectContext === editor })
        }
    }

    func testAFailedValidationSavesNothingIntoTheParent() throws {
        try forEachStore { stack in
            let task = stack.task("Write", priority: 1)
            try stack.context.save()
            let editor = child(of: stack.context)
            editor.object(with: task.objectID).setValue(9, forKey: "priority")   // at most 3
            stack.insert("Task", ["title": "Read", "uuid": UUID()], into: editor)
            XCTAssertThrowsError(try editor.save()) { error in
                guard let validation = error as? ValidationError else { return XCTFail("\(error)") }
                XCTAssertTrue(validation.failures.contains { $0.property == "priority" }, "\(validation)")
            }
            XCTAssertFalse(stack.context.hasChanges, "\(stack.storeType)")
            XCTAssertTrue(editor.hasChanges, "the child keeps its changes to correct them")
            editor.object(with: task.objectID).setValue(2, forKey: "priority")
            try editor.save()
            XCTAssertEqual(task.value(forKey: "priority") as? Int16, 2)
            XCTAssertEqual(stack.context.insertedObjects.count, 1)
        }
    }

    func testAnObjectNewInTheParentStaysReachableFromTheChildAfterTheParentSaves() throws {
        try forEachStore { stack in
            let new = stack.task("New", priority: 1)
            let editor = child(of: stack.context)
            let inChild = try XCTUnwrap(try stack.fetch("Task", in: editor).first)
            XCTAssertTrue(inChild.objectID.isTemporaryID)
            editor.refresh(inChild, mergeChanges: false)      // a fault again
            try stack.context.save()
            XCTAssertFalse(new.objectID.isTemporaryID)
            XCTAssertEqual(inChild.value(forKey: "title") as? String, "New", "\(stack.storeType)")
            inChild.setValue("Renamed", forKey: "title")
            try editor.save()
            XCTAssertEqual(new.value(forKey: "title") as? String, "Renamed")
            try stack.context.save()
            XCTAssertEqual(try stored(stack, new.objectID).value(forKey: "title") as? String, "Renamed")
        }
    }

    func testAChildLinksItsNewObjectsToTheParentsNewObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")                 // new in the parent, unsaved
            let editor = child(of: stack.context)
            let owner = try XCTUnwrap(try stack.fetch("Person", in: editor).first)
            let task = stack.insert("Task", ["title": "Write", "uuid": UUID()], into: editor)
            task.setValue(owner, forKey: "owner")
            try editor.save()
            let inParent = try XCTUnwrap(stack.context.registeredObject(for: task.objectID))
            XCTAssertTrue(inParent.value(forKey: "owner") as? ManagedObject === ada, "\(stack.storeType)")
            try stack.context.save()
            let read = try stored(stack, task.objectID)
            XCTAssertEqual((read.value(forKey: "owner") as? ManagedObject)?.objectID, ada.objectID)
        }
    }

    func testAChildsChangeToAnObjectTheParentDeletedMeanwhileIsDropped() throws {
        try forEachStore { stack in
            let task = stack.task("Write")
            let kept = stack.task("Kept")
            try stack.context.save()
            let editor = child(of: stack.context)
            editor.object(with: task.objectID).setValue("Edited", forKey: "title")
            editor.object(with: kept.objectID).setValue("Kept, edited", forKey: "title")
            stack.context.delete(task)
            try stack.context.save()
            try editor.save()
            XCTAssertEqual(kept.value(forKey: "title") as? String, "Kept, edited", "\(stack.storeType)")
            XCTAssertNoThrow(try stack.context.save())
            XCTAssertEqual(titles(try stack.fetch("Task", in: stack.newContext())), ["Kept, edited"])
        }
    }

    func testAParentForgetsTemporaryIDsOnceItHasNoChildren() throws {
        try forEachStore { stack in
            var editor: ManagedObjectContext? = ManagedObjectContext(concurrencyType: .mainQueue)
            editor!.parent = stack.context
            stack.task("New while the editor lives")
            try stack.context.save()
            XCTAssertEqual(stack.context.permanentIDsOfSavedTemporary.count, 1, "\(stack.storeType)")
            editor = nil
            stack.task("New after it went")
            try stack.context.save()
            XCTAssertTrue(stack.context.permanentIDsOfSavedTemporary.isEmpty, "\(stack.storeType)")
        }
    }

    func testAChildThatMergesSeesItsParentsSavesAndItsSiblingsSaves() throws {
        try forEachStore { stack in
            let task = stack.task("Write", priority: 1)
            try stack.context.save()
            let viewer = child(of: stack.context)
            viewer.automaticallyMergesChangesFromParent = true
            let shown = viewer.object(with: task.objectID)
            XCTAssertEqual(shown.value(forKey: "title") as? String, "Write")

            task.setValue("Saved by the parent", forKey: "title")
            try stack.context.save()
            drain(viewer)
            XCTAssertEqual(shown.value(forKey: "title") as? String, "Saved by the parent", "\(stack.storeType)")

            var inserted: Set<ObjectID> = []
            let token = viewer.observe { note in
                if case .objectsDidChange(let changes) = note { inserted.formUnion(changes.inserted.map(\.objectID)) }
            }
            defer { token.cancel() }
            let sibling = child(of: stack.context)
            sibling.object(with: task.objectID).setValue("Saved by a sibling", forKey: "title")
            let added = stack.insert("Task", ["title": "Added by a sibling", "uuid": UUID()], into: sibling)
            try sibling.save()
            drain(viewer)
            XCTAssertEqual(shown.value(forKey: "title") as? String, "Saved by a sibling")
            XCTAssertEqual(inserted, [added.objectID], "the merge reports the sibling's new object inserted")

            // Without merging, a child keeps what it read until it refreshes.
            let still = child(of: stack.context)
            let old = still.object(with: task.objectID)
            XCTAssertEqual(old.value(forKey: "title") as? String, "Saved by a sibling")
            task.setValue("Changed again", forKey: "title")
            try stack.context.save()
            drain(still)
            XCTAssertEqual(old.value(forKey: "title") as? String, "Saved by a sibling")
            still.refresh(old, mergeChanges: false)
            XCTAssertEqual(old.value(forKey: "title") as? String, "Changed again")
        }
    }

    func testAPrivateQueueChildImportsForAMainQueueParent() throws {
        try forEachStore { stack in
            let importer = child(of: stack.context, .privateQueue)
            try importer.performAndWait {
                for index in 0..<50 {
                    stack.insert("Task", ["title": "Imported \(index)", "uuid": UUID(), "priority": index % 4], into: importer)
                }
                try importer.save()
            }
            XCTAssertEqual(stack.context.insertedObjects.count, 50, "\(stack.storeType)")
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Task", "priority == 3", in: stack.newContext()).count, 12)
        }
    }

    func testThreeLevelsSaveUpwardOneLevelAtATime() throws {
        try forEachStore { stack in
            let middle = child(of: stack.context)
            let inner = child(of: middle)
            XCTAssertTrue(inner.persistentStoreCoordinator === stack.coordinator)
            let person = stack.insert("Person", ["firstName": "Ada"], into: inner)
            let task = stack.insert("Task", ["title": "Deep", "uuid": UUID()], into: inner)
            task.setValue(person, forKey: "owner")
            try inner.save()
            XCTAssertFalse(stack.context.hasChanges, "\(stack.storeType)")
            XCTAssertEqual(titles(try stack.fetch("Task", in: middle)), ["Deep"])
            try middle.save()
            XCTAssertEqual(titles(try stack.fetch("Task")), ["Deep"])
            try stack.context.save()
            let read = try stored(stack, task.objectID)
            XCTAssertEqual((read.value(forKey: "owner") as? ManagedObject)?.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testTheParentCanUndoAChildsSave() throws {
        try forEachStore(undo: true) { stack in
            let task = stack.task("Write", priority: 1)
            try stack.context.save()
            stack.context.undoManager?.removeAllActions()
            let editor = child(of: stack.context)
            editor.object(with: task.objectID).setValue("Edited", forKey: "title")
            stack.insert("Task", ["title": "Added", "uuid": UUID()], into: editor)
            try editor.save()
            XCTAssertEqual(Set(titles(try stack.fetch("Task"))), ["Edited", "Added"], "\(stack.storeType)")
            stack.context.undo()
            XCTAssertEqual(titles(try stack.fetch("Task")), ["Write"])
            XCTAssertTrue(stack.context.insertedObjects.isEmpty)
            stack.context.redo()
            XCTAssertEqual(Set(titles(try stack.fetch("Task"))), ["Edited", "Added"])
        }
    }

    func testOrderedRelationshipChangesKeepTheirOrderThroughTheParent() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            for title in ["one", "two", "three"] { stack.task(title, owner: ada) }
            try stack.context.save()
            let editor = child(of: stack.context)
            let owner = editor.object(with: ada.objectID)
            let tasks = owner.mutableOrderedSetValue(forKey: "tasks")
            tasks.move(fromOffsets: IndexSet(integer: 2), toOffset: 0)
            try editor.save()
            let slot = ada.layout.index(of: "tasks")!
            XCTAssertEqual(titles(ada.objects(atSlot: slot)), ["three", "one", "two"], "\(stack.storeType)")
            try stack.context.save()
            let read = try stored(stack, ada.objectID)
            XCTAssertEqual(titles(read.objects(atSlot: slot)), ["three", "one", "two"])
        }
    }

    func testBatchedAndLoadedFetchesInAChild() throws {
        try forEachStore { stack in
            for index in 0..<30 { stack.task(String(format: "t%02d", index), priority: index % 2) }
            try stack.context.save()
            stack.task("t99", priority: 0)
            let editor = child(of: stack.context)
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.predicate = try Predicate(format: "priority == 0")
            request.sortDescriptors = [SortDescriptor(key: "title", ascending: false)]
            request.returnsObjectsAsFaults = false
            let loaded = try editor.fetch(request)
            XCTAssertEqual(loaded.count, 16, "\(stack.storeType)")
            XCTAssertTrue(loaded.allSatisfy { !$0.isFault })
            XCTAssertEqual(loaded.first?.value(forKey: "title") as? String, "t99")
            let batchedContext = child(of: stack.context)
            request.returnsObjectsAsFaults = true
            request.fetchBatchSize = 5
            let batched = try batchedContext.fetch(request)
            XCTAssertTrue(batched.allSatisfy(\.isFault))
            XCTAssertEqual(batched[7].value(forKey: "title") as? String, "t16")
            XCTAssertEqual(batched.filter { !$0.isFault }.count, 5, "firing one fault fills its batch")
        }
    }
}
