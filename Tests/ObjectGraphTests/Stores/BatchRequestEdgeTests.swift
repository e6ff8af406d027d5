// Edge cases of the batch requests (update, delete, insert) checked against Core Data's
// documented behaviour of NSBatchUpdateRequest, NSBatchDeleteRequest, NSBatchInsertRequest and
// of merging their results into contexts: values out of an attribute's range, IDs of the wrong
// entity, the coordinator's row cache after a batch, merged deletions, and upserts by merge
// policy. Real SQLite files in temporary folders.
import Foundation
import XCTest
@testable import ObjectGraph

final class BatchRequestEdgeTests: XCTestCase {
    // MARK: Update

    // A batch update skips validation, so the store itself refuses a value its attribute cannot
    // hold (Task.points is Integer 32), naming the attribute and the value, and writes nothing:
    // SQLite would keep the whole number and the row would read back narrowed.
    func testBatchUpdateRefusesAnIntegerOutsideTheAttributesRange() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var request = BatchUpdateRequest(entity: f.entity("Task"))
        request.predicate = try Predicate(format: "title == 'Write'")
        request.propertiesToUpdate = ["points": .integer(5_000_000_000)]
        XCTAssertThrowsError(try f.store.execute(request))
        XCTAssertEqual(try f.stored(d.write)?.value(forKey: "points"), .value(Int32(3)))
    }

    // MARK: Delete

    // A predicate over a to-many (Review has two tags) does not make the delete's ID list (or
    // count) name a row twice.
    func testBatchDeleteCountsEachRowOnceWhenThePredicateCrossesAToMany() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var request = BatchDeleteRequest(entity: f.entity("Task"))
        request.predicate = try Predicate(format: "ANY tags.name != 'x'")
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try f.store.execute(request) else { return XCTFail("no IDs") }
        XCTAssertEqual(ids.count, 2, "\(ids)")
        XCTAssertEqual(Set(ids), [d.write, d.review])
    }

    // A Milestone row (sub-entity sharing Task's table) deleted through a Task request loses its
    // rows in the inherited Task.tags join table.
    func testBatchDeleteOfASubentityRowRemovesItsJoinTableRows() throws {
        let f = try SQLiteStoreFixture()
        let milestone = try f.newID("Milestone"), tag = try f.newID("Tag")
        try f.insert([f.row(milestone, ["title": .value("M"), "tags": .objects([tag])]),
                      f.row(tag, ["name": .value("t"), "tasks": .objects([milestone])])])
        var request = BatchDeleteRequest(entity: f.entity("Task"))
        request.predicate = try Predicate(format: "title == 'M'")
        _ = try f.store.execute(request)
        XCTAssertEqual(try f.destinations("tasks", of: tag), [])
    }

    // Cascades follow relationships declared on a sub-entity reached through its parent's
    // relationship, report the row's real entity, and remove the external files of cascaded rows.
    func testBatchDeleteCascadesThroughRelationshipsOfSubentityRows() throws {
        // The cascade reaches Entry rows that are Reminders; Reminder's own cascade must follow,
        // and the IDs must carry the rows' real entity.
        let model = ManagedObjectModel {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("entries", to: "Entry", inverse: "folder", toMany: true, deleteRule: .cascade)
            }
            Entity("Entry") {
                Attribute("text", .string)
                Relationship("folder", to: "Folder", inverse: "entries")
            }
            Entity("Reminder", parent: "Entry") {
                Relationship("alarms", to: "Alarm", inverse: "reminder", toMany: true, deleteRule: .cascade)
            }
            Entity("Alarm") {
                Attribute("data", .binaryData).allowsExternalStorage()
                Relationship("reminder", to: "Reminder", inverse: "alarms")
            }
        }
        let f = try SQLiteStoreFixture(model: model, options: ["externalStorageThreshold": 16])
        let folder = try f.newID("Folder"), reminder = try f.newID("Reminder"), alarm = try f.newID("Alarm")
        try f.insert([f.row(folder, ["name": .value("f"), "entries": .objects([reminder])]),
                      f.row(reminder, ["text": .value("r"), "folder": .object(folder), "alarms": .objects([alarm])]),
                      f.row(alarm, ["data": .value(Data(repeating: 7, count: 64)), "reminder": .object(reminder)])])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: f.store.externalData.directory.path).count, 1)
        var request = BatchDeleteRequest(entity: f.entity("Folder"))
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try f.store.execute(request) else { return XCTFail("no IDs") }
        XCTAssertEqual(Set(ids), [folder, reminder, alarm])
        XCTAssertTrue(ids.contains { $0 == reminder && $0.entity.name == "Reminder" }, "\(ids)")
        XCTAssertNil(try f.stored(alarm))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: f.store.externalData.directory.path).count, 0)
    }

    // MARK: Insert

    // As with the update: a dictionary value that does not fit Integer 32 is refused, and no row
    // is written.
    func testBatchInsertRefusesAnIntegerOutsideTheAttributesRange() throws {
        let f = try SQLiteStoreFixture()
        let request = BatchInsertRequest(entity: f.entity("Task"), objects: [["title": "Huge", "points": 5_000_000_000]])
        XCTAssertThrowsError(try f.store.execute(request))
        XCTAssertEqual(try f.count(f.request("Task", "title == 'Huge'")), 0)
    }

    // Task.owner points at a Person: a Tag's object ID is refused, as the batch update refuses it,
    // rather than written as a key that names an unrelated Person (Tag p1 would be Ada, Person p1).
    func testBatchInsertRefusesAToOneObjectIDOfAnotherEntity() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var request = BatchInsertRequest(entity: f.entity("Task"), objects: [["title": "Tagged", "owner": d.swift]])
        request.resultType = .objectIDs
        XCTAssertThrowsError(try f.store.execute(request))
        XCTAssertEqual(try f.count(f.request("Task", "title == 'Tagged'")), 0)
        XCTAssertEqual(try f.destinations("tasks", of: d.ada), [d.write, d.review])
    }

    // Atomic across a reopen: the second row fails at encode time, inside the save, after the
    // first row's external file was written; nothing stays behind.
    func testBatchInsertFailingOnALaterRowWritesNothingAndLeavesNoExternalFile() throws {
        let f = try SQLiteStoreFixture(options: ["externalStorageThreshold": 16])
        let request = BatchInsertRequest(entity: f.entity("Sample"), objects: [
            ["string": "first", "bigData": Data(repeating: 1, count: 64)],
            ["string": "second", "date": "not a date"],
        ])
        XCTAssertThrowsError(try f.store.execute(request))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: f.store.externalData.directory.path).count, 0)
        try f.reopen()
        XCTAssertEqual(try f.count(f.request("Sample")), 0)
    }

    // MARK: Contexts

    // After context.execute(batch update) the store holds "New" at version 2. A context made
    // afterwards has nothing to merge and reads the stored row, whatever result type the request
    // asked for (here .count): the coordinator's row cache does not serve the rows it changed,
    // so the new context's first save is no conflict.
    func testAContextMadeAfterABatchUpdateThroughAContextReadsTheNewValues() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Old", priority: 1)
        try stack.context.save()
        var request = BatchUpdateRequest(entity: stack.model.entitiesByName["Task"]!)
        request.propertiesToUpdate = ["title": .string("New")]
        request.resultType = .count
        _ = try stack.context.execute(request)
        let other = stack.newContext()
        let copy = other.object(with: task.objectID)
        XCTAssertEqual(copy.value(forKey: "title") as? String, "New")
        copy.setValue("Newer", forKey: "notes")
        XCTAssertNoThrow(try other.save())
    }

    // The same for a batch delete with a .count result: the row is gone, so a new context's
    // object for it is an inaccessible fault (deleted, nil values), not one filled from the cache.
    func testAContextMadeAfterABatchDeleteThroughAContextFindsTheObjectGone() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Drop")
        try stack.context.save()
        var request = BatchDeleteRequest(entity: stack.model.entitiesByName["Task"]!)
        request.resultType = .count
        guard case .count(1) = try stack.context.execute(request) else { return XCTFail("count") }
        let other = stack.newContext()
        let copy = other.object(with: task.objectID)
        XCTAssertNil(copy.value(forKey: "title") as? String)
        XCTAssertTrue(copy.isDeleted)
    }

    // Core Data's merge "invokes delete(_:) on those which have been deleted", so a registered
    // task whose event was batch-deleted (nullify rule) loses it even though the context never
    // touched the event (no object stands for it), and takes the store's nullified row: saving
    // an edit of the task is no conflict.
    func testMergingABatchDeleteLetsAHolderOfANullifiedToOneSave() throws {
        let (stack, context, task) = try savedTaskOfAnEvent()
        XCTAssertEqual(task.value(forKey: "title") as? String, "Prepare")
        try batchDeleteEvents(in: stack, mergingInto: context)
        XCTAssertNil(task.value(forKey: "event"))
        task.setValue("Prepared", forKey: "title")
        XCTAssertNoThrow(try context.save())
        XCTAssertEqual(try stored(stack, task.objectID).value(forKey: "title") as? String, "Prepared")
    }

    // The same with the event loaded (registered, not a fault) before the merge while its own
    // Event.tasks is unloaded: the task holding the event object is found and cleared too.
    func testMergingABatchDeleteClearsALoadedHoldersToOne() throws {
        let (stack, context, task) = try savedTaskOfAnEvent()
        XCTAssertEqual((task.value(forKey: "event") as? ManagedObject)?.value(forKey: "title") as? String, "Meeting")
        try batchDeleteEvents(in: stack, mergingInto: context)
        XCTAssertNil(task.value(forKey: "event"))
        task.setValue("Prepared", forKey: "title")
        XCTAssertNoThrow(try context.save())
    }

    // Merging a batch update's IDs refreshes with mergeChanges: true (local unsaved change kept,
    // committed version raised), so the following save is no conflict.
    func testMergingABatchUpdateKeepsUnsavedChangesAndSaves() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Plan", priority: 1)
        try stack.context.save()
        task.setValue("local", forKey: "notes")
        var request = BatchUpdateRequest(entity: stack.model.entitiesByName["Task"]!)
        request.propertiesToUpdate = ["priority": .integer(2)]
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        stack.context.mergeChanges(fromContextDidSave: result.contextDidSave(updating: true))
        XCTAssertEqual(task.value(forKey: "priority") as? Int16, 2)
        XCTAssertEqual(task.value(forKey: "notes") as? String, "local")
        XCTAssertNoThrow(try stack.context.save())
        let saved = try stored(stack, task.objectID)
        XCTAssertEqual(saved.value(forKey: "priority") as? Int16, 2)
        XCTAssertEqual(saved.value(forKey: "notes") as? String, "local")
    }

    // Optimistic locking: the batch update raised the row's version, so a context that did not
    // merge it cannot overwrite the row (Core Data reports a merge conflict), and the store keeps 3.
    func testAnUnmergedBatchUpdateMakesAStaleObjectsSaveAConflict() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Plan", priority: 1)
        try stack.context.save()
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        var request = BatchUpdateRequest(entity: stack.model.entitiesByName["Task"]!)
        request.propertiesToUpdate = ["priority": .integer(3)]
        _ = try store.execute(request)
        task.setValue("Edited", forKey: "title")
        XCTAssertThrowsError(try stack.context.save())
        XCTAssertEqual(try stored(stack, task.objectID).value(forKey: "priority") as? Int16, 3)
    }

    // mergeChanges(fromRemoteContextSave:into:) with a batch result reaches a context of another
    // coordinator on the same file (its row cache is invalidated too).
    func testABatchUpdateMergesIntoAContextOfAnotherCoordinator() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Old")
        try stack.context.save()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL)
        let remote = ManagedObjectContext(concurrencyType: .mainQueue)
        remote.persistentStoreCoordinator = coordinator
        let copy = try XCTUnwrap(stack.fetch("Task", in: remote).first)
        XCTAssertEqual(copy.value(forKey: "title") as? String, "Old")
        var request = BatchUpdateRequest(entity: stack.model.entitiesByName["Task"]!)
        request.propertiesToUpdate = ["title": .string("New")]
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.contextDidSave(updating: true), into: [remote])
        XCTAssertEqual(copy.value(forKey: "title") as? String, "New")
        _ = task
    }

    // Core Data's NSBatchInsertRequest on an entity with uniqueness constraints upserts when the
    // executing context's merge policy is NSMergeByPropertyObjectTrumpMergePolicy: the existing
    // row takes the incoming values, missing ones are inserted (e.g.
    // https://augmentedcode.io/2021/01/05/importing-items-from-network-to-a-core-data-store/).
    // (With the default .error policy the refusal that SQLiteBatchTests pins is right.)
    func testBatchInsertWithAnObjectTrumpMergePolicyUpdatesTheConstrainedRow() throws {
        let (stack, _, uuid) = try stackWithSavedTask("Old")
        XCTAssertNoThrow(try insertTasks([["title": "Renamed", "uuid": uuid], ["title": "Fresh", "uuid": UUID()]],
                                         in: stack, mergePolicy: .mergeByPropertyObjectTrump))
        XCTAssertEqual(try storedTitles(stack), ["Fresh", "Renamed"])
    }

    // Store trump keeps the stored row of a colliding insert and inserts the others.
    func testBatchInsertWithAStoreTrumpMergePolicyKeepsTheConstrainedRow() throws {
        let (stack, _, uuid) = try stackWithSavedTask("Old")
        XCTAssertNoThrow(try insertTasks([["title": "Renamed", "uuid": uuid], ["title": "Fresh", "uuid": UUID()]],
                                         in: stack, mergePolicy: .mergeByPropertyStoreTrump))
        XCTAssertEqual(try storedTitles(stack), ["Fresh", "Old"])
    }

    // Under object trump, rows of one request that collide with each other end as one row, the
    // last one's.
    func testBatchInsertWithAnObjectTrumpMergePolicyKeepsTheLastOfCollidingRows() throws {
        let stack = try Stack(storeType: .sqlite)
        let uuid = UUID()
        XCTAssertNoThrow(try insertTasks([["title": "First", "uuid": uuid], ["title": "Second", "uuid": uuid]],
                                         in: stack, mergePolicy: .mergeByPropertyObjectTrump))
        XCTAssertEqual(try storedTitles(stack), ["Second"])
    }

    // An upsert through a context changes stored rows: a context made afterwards reads the new
    // values of an object another context has registered (the row cache does not serve the old).
    func testAContextMadeAfterAnUpsertReadsTheNewValues() throws {
        let (stack, existing, uuid) = try stackWithSavedTask("Old")
        try insertTasks([["title": "Renamed", "uuid": uuid]], in: stack, mergePolicy: .mergeByPropertyObjectTrump)
        let copy = stack.newContext().object(with: existing.objectID)
        XCTAssertEqual(copy.value(forKey: "title") as? String, "Renamed")
    }

    // MARK: Helpers

    /// A SQLite stack with a saved task "Prepare" of the event "Meeting", and that task fetched
    /// (its event not touched) in a new context.
    private func savedTaskOfAnEvent() throws -> (Stack, ManagedObjectContext, ManagedObject) {
        let stack = try Stack(storeType: .sqlite)
        stack.task("Prepare").setValue(stack.event("Meeting"), forKey: "event")
        try stack.context.save()
        let context = stack.newContext()
        return (stack, context, try XCTUnwrap(stack.fetch("Task", in: context).first))
    }

    /// Batch-deletes every Event through `context` and merges the deletion into it.
    private func batchDeleteEvents(in stack: Stack, mergingInto context: ManagedObjectContext) throws {
        var request = BatchDeleteRequest(entity: stack.model.entitiesByName["Event"]!)
        request.resultType = .objectIDs
        context.mergeChanges(fromContextDidSave: try context.execute(request).contextDidSave(updating: false))
    }

    /// A SQLite stack with one saved task titled `title`, and that task's uuid (constrained unique).
    private func stackWithSavedTask(_ title: String) throws -> (Stack, ManagedObject, UUID) {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task(title)
        let uuid = try XCTUnwrap(task.value(forKey: "uuid") as? UUID)
        try stack.context.save()
        return (stack, task, uuid)
    }

    /// Batch-inserts Tasks from `objects` through the stack's context, set to `mergePolicy`.
    private func insertTasks(_ objects: [[String: any Sendable]], in stack: Stack, mergePolicy: MergePolicy) throws {
        stack.context.mergePolicy = mergePolicy
        _ = try stack.context.execute(BatchInsertRequest(entity: stack.model.entitiesByName["Task"]!, objects: objects))
    }

    /// The titles of the stored Tasks, sorted, as a new context fetches them.
    private func storedTitles(_ stack: Stack) throws -> [String?] {
        try stack.fetch("Task", sortedBy: "title", in: stack.newContext()).map { $0.value(forKey: "title") as? String }
    }
}
