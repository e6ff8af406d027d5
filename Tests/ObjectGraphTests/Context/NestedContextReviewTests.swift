// Review of nested contexts (Core Data's parent/child NSManagedObjectContext): where the child's
// save, fetches, faults, merges and undo behave as Core Data's do, and where they do not. Each
// test says what Core Data does. Run against every store type.
import Foundation
import XCTest
@testable import ObjectGraph

/// Logs its life-cycle hooks with the name of the context it is in.
final class NestReviewNote: ManagedObject {
    nonisolated(unsafe) static var log: [String] = []

    private var contextName: String { managedObjectContext?.name ?? "no context" }

    override func awakeFromInsert() {
        super.awakeFromInsert()
        Self.log.append("awakeFromInsert in \(contextName)")
        setPrimitiveValue("stamped in \(contextName)", forKey: "stamp")
        setPrimitiveValue("scratch of \(contextName)", forKey: "scratch")
    }

    override func willSave() {
        super.willSave()
        Self.log.append("willSave in \(contextName)")
    }

    override func didSave() {
        super.didSave()
        Self.log.append("didSave in \(contextName)")
    }
}

final class NestedContextReviewTests: NestedContextTestCase {

    override func setUp() {
        super.setUp()
        ObjectClasses.register(NestReviewNote.self)
        NestReviewNote.log = []
    }

    /// Notes with a stored stamp, a transient scratch value and a default; a keeper denies its
    /// deletion while it holds a note.
    static let notesModel = ManagedObjectModel {
        Entity("NestReviewNote", class: "NestReviewNote") {
            Attribute("text", .string)
            Attribute("stamp", .string)
            Attribute("scratch", .string).transient()
            Attribute("level", .integer16, default: Int16(7))
            Relationship("keeper", to: "NestReviewKeeper", inverse: "note")
        }
        Entity("NestReviewKeeper") {
            Attribute("name", .string)
            Relationship("note", to: "NestReviewNote", inverse: "keeper", deleteRule: .deny)
        }
    }

    private func titleSet(_ objects: some Sequence<ManagedObject>) -> Set<String> {
        Set(objects.map { $0.value(forKey: "title") as? String ?? "?" })
    }

    private func names(_ objects: some Sequence<ManagedObject>) -> Set<String> {
        Set(objects.map { $0.value(forKey: "firstName") as? String ?? "?" })
    }

    private func related(_ object: ManagedObject, _ key: String) -> [ManagedObject] {
        object.objects(atSlot: object.layout.index(of: key)!)
    }

    private func request(_ entity: String, _ format: String? = nil, _ arguments: Any?..., sortedBy keys: [String] = []) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let format { request.predicate = try Predicate(format: format, argumentArray: arguments) }
        request.sortDescriptors = keys.map { SortDescriptor(key: $0) }
        return request
    }

    // MARK: Notifications and hooks

    /// Core Data: a child's save posts willSave and didSave in the child (didSave lists the new
    /// objects by their permanent IDs, the changed ones, among them the inverse side of a new
    /// link, and the deleted ones); the parent saves nothing, so it posts no willSave or didSave,
    /// only objectsDidChange for the changes it now holds (the new object inserted, not updated).
    func testAChildsSaveIsItsDidSaveAndOnlyObjectsDidChangeInTheParent() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let kept = stack.task("Kept", owner: ada)
            let doomed = stack.task("Doomed")
            try stack.context.save()
            let editor = child(of: stack.context)

            var parentSaves: [String] = []
            var parentInserted: Set<ObjectID> = []
            var parentUpdated: Set<ObjectID> = []
            var parentDeleted: Set<ObjectID> = []
            let parentToken = stack.context.observe { note in
                switch note {
                case .willSave: parentSaves.append("willSave")
                case .didSave: parentSaves.append("didSave")
                case .objectsDidChange(let changes):
                    parentInserted.formUnion(changes.inserted.map(\.objectID))
                    parentUpdated.formUnion(changes.updated.map(\.objectID))
                    parentDeleted.formUnion(changes.deleted.map(\.objectID))
                }
            }
            defer { parentToken.cancel() }
            var childSaves: [String] = []
            var payload: ContextDidSave?
            let childToken = editor.observe { note in
                switch note {
                case .willSave: childSaves.append("willSave")
                case .didSave(let saved, _):
                    childSaves.append("didSave")
                    payload = saved
                case .objectsDidChange: break
                }
            }
            defer { childToken.cancel() }

            let owner = editor.object(with: ada.objectID)
            XCTAssertEqual(owner.value(forKey: "firstName") as? String, "Ada")
            let added = stack.insert("Task", ["title": "Added", "uuid": UUID()], into: editor)
            added.setValue(owner, forKey: "owner")
            editor.object(with: kept.objectID).setValue("Kept, edited", forKey: "title")
            editor.delete(try editor.existingObject(with: doomed.objectID))
            try editor.save()

            let saved = try XCTUnwrap(payload, "\(stack.storeType)")
            XCTAssertEqual(childSaves, ["willSave", "didSave"])
            XCTAssertFalse(added.objectID.isTemporaryID)
            XCTAssertEqual(saved.insertedObjectIDs, [added.objectID], "\(stack.storeType)")
            XCTAssertEqual(saved.updatedObjectIDs, [kept.objectID, ada.objectID], "\(stack.storeType)")
            XCTAssertEqual(saved.deletedObjectIDs, [doomed.objectID], "\(stack.storeType)")
            XCTAssertEqual(parentSaves, [], "the parent did not save")
            XCTAssertEqual(parentInserted, [added.objectID], "\(stack.storeType)")
            XCTAssertTrue(parentUpdated.isSuperset(of: [kept.objectID, ada.objectID]), "\(parentUpdated)")
            XCTAssertFalse(parentUpdated.contains(added.objectID), "a new object is reported inserted only")
            XCTAssertEqual(parentDeleted, [doomed.objectID], "\(stack.storeType)")
        }
    }

    /// Core Data: awakeFromInsert runs when the object is inserted in the child and again when
    /// the child's save inserts it into the parent; the child's stored values win over what the
    /// parent's awakeFromInsert set, transient values stay in the context that set them (a save
    /// hands on persistent properties only), defaults hold in both; willSave/didSave run in the
    /// context that saves, each time it saves.
    func testHooksRunInTheContextThatSavesAndTransientValuesStayInTheChild() throws {
        try forEachStore(model: Self.notesModel) { stack in
            NestReviewNote.log = []
            stack.context.name = "parent"
            let editor = child(of: stack.context, name: "child")
            let note = stack.insert("NestReviewNote", ["text": "hello"], into: editor)
            XCTAssertEqual(NestReviewNote.log, ["awakeFromInsert in child"])
            XCTAssertEqual(note.value(forKey: "level") as? Int16, 7)
            note.setValue("scratch set in the child", forKey: "scratch")
            NestReviewNote.log = []
            try editor.save()
            XCTAssertEqual(NestReviewNote.log.filter { $0.hasSuffix("child") }, ["willSave in child", "didSave in child"], "\(stack.storeType)")
            XCTAssertEqual(NestReviewNote.log.filter { $0.hasSuffix("parent") }, ["awakeFromInsert in parent"], "\(stack.storeType)")
            XCTAssertEqual(note.value(forKey: "scratch") as? String, "scratch set in the child", "the child's object keeps its transient value")

            let inParent = try XCTUnwrap(stack.context.registeredObject(for: note.objectID))
            XCTAssertEqual(inParent.value(forKey: "text") as? String, "hello")
            XCTAssertEqual(inParent.value(forKey: "stamp") as? String, "stamped in child", "the child's stored values win")
            XCTAssertEqual(inParent.value(forKey: "level") as? Int16, 7)
            XCTAssertEqual(inParent.value(forKey: "scratch") as? String, "scratch of parent", "transient values are not handed on")

            NestReviewNote.log = []
            try stack.context.save()
            XCTAssertEqual(NestReviewNote.log, ["willSave in parent", "didSave in parent"], "\(stack.storeType)")
            XCTAssertEqual(try stored(stack, note.objectID).value(forKey: "stamp") as? String, "stamped in child")
        }
    }

    /// Core Data: a deny rule refuses the child's deletion when the child validates its save
    /// (validateForDelete reads the relationship, which the child fills from the parent); the
    /// parent is left as it was.
    func testADenyRuleRefusesTheChildsSaveAndLeavesTheParentAlone() throws {
        try forEachStore(model: Self.notesModel) { stack in
            let keeper = stack.insert("NestReviewKeeper", ["name": "K"])
            let note = stack.insert("NestReviewNote", ["text": "kept"])
            keeper.setValue(note, forKey: "note")
            try stack.context.save()
            let editor = child(of: stack.context)
            editor.delete(try editor.existingObject(with: keeper.objectID))
            XCTAssertThrowsError(try editor.save(), "\(stack.storeType)") { error in
                XCTAssertTrue(error is ValidationError, "\(error)")
            }
            XCTAssertFalse(stack.context.hasChanges)
            XCTAssertFalse(keeper.isDeleted)
        }
    }

    // MARK: Relationships across the boundary

    /// Core Data: relationship changes saved by the child show on both sides in the parent and
    /// reach the store when the parent saves: a many-to-many change (Event.attendees and
    /// Person.events), and a task moved from one owner to another (off Ada's ordered tasks,
    /// onto the end of Bob's).
    func testRelationshipChangesReachTheParentOnBothSides() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let meeting = stack.event("Meeting")
            meeting.mutableSetValue(forKey: "attendees").insert(ada)
            let moving = stack.task("Moving", owner: ada)
            stack.task("Ada's", owner: ada)
            stack.task("Bob's", owner: bob)
            try stack.context.save()
            let editor = child(of: stack.context)
            let attendees = editor.object(with: meeting.objectID).mutableSetValue(forKey: "attendees")
            attendees.remove(editor.object(with: ada.objectID))
            attendees.insert(editor.object(with: bob.objectID))
            XCTAssertEqual(titles(related(editor.object(with: bob.objectID), "tasks")), ["Bob's"])
            editor.object(with: moving.objectID).setValue(editor.object(with: bob.objectID), forKey: "owner")
            try editor.save()

            XCTAssertEqual(names(related(meeting, "attendees")), ["Bob"], "\(stack.storeType)")
            XCTAssertTrue(related(ada, "events").isEmpty)
            XCTAssertEqual(titles(related(bob, "events")), ["Meeting"])
            XCTAssertTrue(moving.value(forKey: "owner") as? ManagedObject === bob, "\(stack.storeType)")
            XCTAssertEqual(titles(related(ada, "tasks")), ["Ada's"])
            XCTAssertEqual(titles(related(bob, "tasks")), ["Bob's", "Moving"])
            try stack.context.save()
            XCTAssertEqual(names(related(try stored(stack, meeting.objectID), "attendees")), ["Bob"])
            XCTAssertEqual(titles(related(try stored(stack, bob.objectID), "tasks")), ["Bob's", "Moving"])
        }
    }

    /// A child's save hands on what the child changed; what it did not change keeps the parent's
    /// values (the change's own claim, and what Core Data's push of a child's changes does: the
    /// parent's pending changes are kept on top). The child read Ada's (ordered) tasks before
    /// the parent gave Ada another task, unsaved; the child then adds a task of its own to Ada.
    /// The parent's task must stay Ada's.
    func testAChildsStaleToManyDoesNotUndoTheParentsPendingAddition() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            stack.task("Saved", owner: ada)
            let loose = stack.task("Loose")
            try stack.context.save()
            let editor = child(of: stack.context)
            let owner = editor.object(with: ada.objectID)
            XCTAssertEqual(titles(related(owner, "tasks")), ["Saved"])
            // Meanwhile the parent gives Ada the loose task.
            loose.setValue(ada, forKey: "owner")
            let added = stack.insert("Task", ["title": "From the child", "uuid": UUID()], into: editor)
            added.setValue(owner, forKey: "owner")
            try editor.save()
            XCTAssertTrue(loose.value(forKey: "owner") as? ManagedObject === ada,
                          "the parent's pending change was undone by the child's save (\(stack.storeType))")
            XCTAssertEqual(titleSet(related(ada, "tasks")), ["Saved", "Loose", "From the child"], "\(stack.storeType)")
        }
    }

    /// The same for a many-to-many relationship: the parent adds Bob to the meeting (unsaved)
    /// after the child read its attendees; the child adds Cy. Both stay attendees in the parent.
    func testAChildsStaleManyToManyDoesNotUndoTheParentsPendingAddition() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let cy = stack.person("Cy")
            let meeting = stack.event("Meeting")
            meeting.mutableSetValue(forKey: "attendees").insert(ada)
            try stack.context.save()
            let editor = child(of: stack.context)
            let inChild = editor.object(with: meeting.objectID)
            XCTAssertEqual(names(related(inChild, "attendees")), ["Ada"])
            meeting.mutableSetValue(forKey: "attendees").insert(bob)
            inChild.mutableSetValue(forKey: "attendees").insert(editor.object(with: cy.objectID))
            try editor.save()
            XCTAssertEqual(names(related(meeting, "attendees")), ["Ada", "Bob", "Cy"], "\(stack.storeType)")
            XCTAssertEqual(titles(related(bob, "events")), ["Meeting"], "\(stack.storeType)")
        }
    }

    /// Core Data: the child's deletions run their delete rules in the child, on relationships it
    /// reads from the parent: nullify takes a deleted person and task out of the meeting's
    /// attendees and preparation, and cascade takes the owner's tasks, the parent's unsaved new
    /// one among them. The parent, deleting the same objects, agrees, and writes it when it saves.
    func testDeleteRulesAcrossTheBoundary() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let meeting = stack.event("Meeting")
            meeting.mutableSetValue(forKey: "attendees").insert(contentsOf: [ada, bob])
            let preparing = stack.task("Prepare")
            let other = stack.task("Other")
            preparing.setValue(meeting, forKey: "event")
            other.setValue(meeting, forKey: "event")
            stack.task("Bob's", owner: bob)
            try stack.context.save()
            let unsaved = stack.task("Bob's, unsaved", owner: bob)
            let editor = child(of: stack.context)
            editor.delete(try editor.existingObject(with: ada.objectID))
            editor.delete(try editor.existingObject(with: preparing.objectID))
            editor.delete(try editor.existingObject(with: bob.objectID))
            try editor.save()
            XCTAssertTrue(related(meeting, "attendees").isEmpty, "\(stack.storeType)")
            XCTAssertEqual(titles(related(meeting, "preparation")), ["Other"], "\(stack.storeType)")
            XCTAssertFalse(stack.context.insertedObjects.contains(unsaved), "the cascade took the parent's new task")
            try stack.context.save()
            let read = try stored(stack, meeting.objectID)
            XCTAssertTrue(related(read, "attendees").isEmpty)
            XCTAssertEqual(titles(related(read, "preparation")), ["Other"])
            XCTAssertEqual(titles(try stack.fetch("Task", sortedBy: "title", in: stack.newContext())), ["Other"])
        }
    }

    /// Core Data: deleting in the child an object new in the parent removes the parent's insert
    /// (it is not reported deleted there and nothing is written); an object inserted and deleted
    /// again in the child reaches the parent not at all.
    func testDeletingTheParentsNewObjectInTheChildDropsItsInsertion() throws {
        try forEachStore { stack in
            let draft = stack.task("Draft")
            let editor = child(of: stack.context)
            editor.delete(try editor.existingObject(with: draft.objectID))
            let gone = stack.insert("Task", ["title": "Gone", "uuid": UUID()], into: editor)
            editor.delete(gone)
            try editor.save()
            XCTAssertTrue(stack.context.insertedObjects.isEmpty, "\(stack.storeType)")
            XCTAssertTrue(stack.context.deletedObjects.isEmpty)
            XCTAssertFalse(stack.context.hasChanges)
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 0)
        }
    }

    // MARK: Undo, rollback and reset

    /// Core Data: a save does not clear the child's undo stack. Undoing a saved change in the
    /// child makes it a change again (of the child; the parent keeps the saved value until the
    /// child saves again); undoing a saved insertion deletes the object, which the next save
    /// takes out of the parent.
    func testTheChildCanUndoASavedEditAndInsertion() throws {
        try forEachStore { stack in
            let task = stack.task("Write")
            try stack.context.save()
            let editor = child(of: stack.context)
            editor.undoManager = UndoManager()
            let draft = editor.object(with: task.objectID)
            draft.setValue("Edited", forKey: "title")
            editor.processPendingChanges()
            let added = stack.insert("Task", ["title": "Added", "uuid": UUID()], into: editor)
            editor.processPendingChanges()
            try editor.save()
            XCTAssertEqual(task.value(forKey: "title") as? String, "Edited")

            editor.undo()       // the insertion
            editor.undo()       // the edit
            XCTAssertEqual(draft.value(forKey: "title") as? String, "Write", "\(stack.storeType)")
            XCTAssertTrue(editor.hasChanges)
            XCTAssertEqual(task.value(forKey: "title") as? String, "Edited", "the parent holds what the child saved")
            try editor.save()
            XCTAssertEqual(task.value(forKey: "title") as? String, "Write", "\(stack.storeType)")
            XCTAssertNil(stack.context.registeredObject(for: added.objectID).flatMap { $0.isDeleted ? nil : $0 },
                         "the undone insertion leaves the parent")
            try stack.context.save()
            XCTAssertEqual(titles(try stack.fetch("Task", in: stack.newContext())), ["Write"])
        }
    }

    /// Core Data: undoing a saved deletion brings the object back (as a root context here does:
    /// ObjectLifecycleTests' testACascadeDeleteSavedThenUndoneAndRedoneIsSavedAsAWhole); the
    /// next save hands it to the parent again, which then writes it.
    func testTheChildCanUndoASavedDeletion() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let editor = child(of: stack.context)
            editor.undoManager = UndoManager()
            let inChild = try editor.existingObject(with: ada.objectID)
            editor.delete(inChild)
            editor.processPendingChanges()
            try editor.save()
            XCTAssertTrue(ada.isDeleted)
            editor.undo()
            XCTAssertFalse(inChild.isDeleted, "\(stack.storeType)")
            XCTAssertTrue(editor.hasChanges, "the undone deletion is a change to save (\(stack.storeType))")
            try editor.save()
            XCTAssertFalse(ada.isDeleted, "the parent takes the object back (\(stack.storeType))")
            XCTAssertTrue(stack.context.deletedObjects.isEmpty, "\(stack.storeType)")
            try stack.context.save()
            XCTAssertEqual(names(try stack.fetch("Person", in: stack.newContext())), ["Ada"], "\(stack.storeType)")
        }
    }

    /// Core Data: after a save, the child's rollback has nothing to discard (its objects keep the
    /// values it saved); before one, rollback returns its objects to what the parent holds now;
    /// reset forgets the child's objects, not what it saved into the parent. The parent's
    /// rollback discards what the child saved into it; the child's objects keep their values
    /// until refreshed, then read the parent's (the store's again).
    func testRollbackAndResetAroundAChildsSave() throws {
        try forEachStore { stack in
            let task = stack.task("Write")
            try stack.context.save()
            let editor = child(of: stack.context)
            let draft = editor.object(with: task.objectID)
            draft.setValue("Saved by the child", forKey: "title")
            try editor.save()
            editor.rollback()
            XCTAssertEqual(draft.value(forKey: "title") as? String, "Saved by the child", "\(stack.storeType)")

            task.setValue("Changed by the parent", forKey: "title")
            draft.setValue("Discarded", forKey: "title")
            editor.rollback()
            XCTAssertEqual(draft.value(forKey: "title") as? String, "Changed by the parent", "\(stack.storeType)")
            XCTAssertFalse(editor.hasChanges)
            editor.reset()
            XCTAssertEqual(titles(try stack.fetch("Task", in: editor)), ["Changed by the parent"])
            XCTAssertTrue(stack.context.hasChanges)

            let again = try XCTUnwrap(try stack.fetch("Task", in: editor).first)
            again.setValue("Edited", forKey: "title")
            stack.insert("Task", ["title": "Added", "uuid": UUID()], into: editor)
            try editor.save()
            stack.context.rollback()
            XCTAssertFalse(stack.context.hasChanges, "\(stack.storeType)")
            XCTAssertEqual(titles(try stack.fetch("Task")), ["Write"])
            XCTAssertEqual(again.value(forKey: "title") as? String, "Edited", "the child keeps what it has")
            editor.refresh(again, mergeChanges: false)
            XCTAssertEqual(again.value(forKey: "title") as? String, "Write", "\(stack.storeType)")
            XCTAssertEqual(titles(try stack.fetch("Task", in: editor)), ["Write"])
        }
    }

    // MARK: Fetching in a child

    /// Core Data: predicates in a child may name the child's own new objects: `SELF IN %@` finds
    /// them with the saved ones, and `owner == %@` for a new person finds the child's tasks and
    /// nothing of the parent's (which cannot know the person), whether or not the parent has
    /// unsaved changes of its own.
    func testPredicatesNamingTheChildsNewObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let saved = stack.task("Saved", owner: ada)
            try stack.context.save()
            let editor = child(of: stack.context)
            let cy = stack.insert("Person", ["firstName": "Cy"], into: editor)
            let cys = stack.insert("Task", ["title": "Cy's", "uuid": UUID()], into: editor)
            cys.setValue(cy, forKey: "owner")
            let selfIn = try request("Task", "SELF IN %@", [editor.object(with: saved.objectID), cys], sortedBy: ["title"])
            XCTAssertEqual(titles(try editor.fetch(selfIn)), ["Cy's", "Saved"], "\(stack.storeType)")
            XCTAssertEqual(try editor.count(for: selfIn), 2)
            let owned = try request("Task", "owner == %@", cy, sortedBy: ["title"])
            XCTAssertEqual(titles(try editor.fetch(owned)), ["Cy's"], "\(stack.storeType)")
            stack.task("The parent's, unsaved", owner: ada)
            XCTAssertEqual(titles(try editor.fetch(owned)), ["Cy's"], "\(stack.storeType)")
            XCTAssertEqual(try editor.count(for: owned), 1)
        }
    }

    /// Core Data: a sort through a relationship in a child orders by the child's values (a
    /// pending rename of an owner included), and the window applies after it.
    func testASortThroughARelationshipSeesTheChildsPendingRename() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            stack.task("a1", owner: ada)
            stack.task("b1", owner: bob)
            try stack.context.save()
            let editor = child(of: stack.context)
            editor.object(with: ada.objectID).setValue("Zoe", forKey: "firstName")
            var request = try request("Task", sortedBy: ["owner.firstName"])
            XCTAssertEqual(titles(try editor.fetch(request)), ["b1", "a1"], "\(stack.storeType)")
            request.fetchLimit = 1
            XCTAssertEqual(titles(try editor.fetch(request)), ["b1"], "\(stack.storeType)")
        }
    }

    /// Core Data: object-ID and count fetches in a child see the parent's unsaved state (its new
    /// objects by their temporary IDs, without its deleted ones) and the child's changes on top;
    /// the abstract Item returns its sub-entities' objects (saved, new in the parent, new in the
    /// child), and none without sub-entities.
    func testIDCountAndSubentityFetchesInAChild() throws {
        try forEachStore { stack in
            let doomed = stack.task("Doomed", priority: 2)
            let kept = stack.task("Kept", priority: 2)
            try stack.context.save()
            stack.context.delete(doomed)
            let new = stack.task("New in the parent", priority: 2)
            _ = stack.event("Parent's event")
            let editor = child(of: stack.context)
            var ids = FetchRequest<ObjectID>(entityName: "Task")
            ids.resultType = .managedObjectID
            ids.predicate = try Predicate(format: "priority == 2")
            XCTAssertEqual(Set(try editor.fetch(ids)), [kept.objectID, new.objectID], "\(stack.storeType)")
            let mine = stack.insert("Task", ["title": "New in the child", "uuid": UUID(), "priority": 2], into: editor)
            editor.object(with: kept.objectID).setValue(1, forKey: "priority")
            XCTAssertEqual(Set(try editor.fetch(ids)), [new.objectID, mine.objectID], "\(stack.storeType)")
            var count = FetchRequest<ManagedObject>(entityName: "Task")
            count.predicate = ids.predicate
            XCTAssertEqual(try editor.count(for: count), 2)

            var items = try request("Item", sortedBy: ["title"])
            XCTAssertEqual(titles(try editor.fetch(items)), ["Kept", "New in the child", "New in the parent", "Parent's event"], "\(stack.storeType)")
            XCTAssertEqual(try editor.count(for: items), 4)
            items.includesSubentities = false
            XCTAssertEqual(try editor.fetch(items).count, 0, "\(stack.storeType)")
            XCTAssertEqual(try editor.count(for: items), 0)
        }
    }

    /// Core Data: prefetching a relationship in a child loads it from the parent as the parent
    /// holds it (its unsaved changes included): the to-many is no fault and its objects are
    /// filled, in the relationship's order.
    func testPrefetchingInAChildLoadsTheParentsState() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            stack.task("one", owner: ada)
            let two = stack.task("two", owner: ada)
            try stack.context.save()
            two.setValue("two, renamed", forKey: "title")
            stack.task("three", owner: ada)
            let editor = child(of: stack.context)
            var request = try request("Person")
            request.relationshipKeyPathsForPrefetching = ["tasks"]
            let people = try editor.fetch(request)
            let person = try XCTUnwrap(people.first)
            XCTAssertFalse(person.hasFault(forRelationshipNamed: "tasks"), "\(stack.storeType)")
            let tasks = related(person, "tasks")
            XCTAssertTrue(tasks.allSatisfy { !$0.isFault }, "prefetched objects are filled")
            XCTAssertEqual(titles(tasks), ["one", "two, renamed", "three"], "\(stack.storeType)")
        }
    }

    /// Core Data: a fetched results controller on a child shows the parent's unsaved objects and
    /// tells of the child's own changes, and of a sibling's save the child merges; one on the
    /// parent (talk 003's asynchronous saving) tells of what a child saves into it, before the
    /// parent saves.
    func testFetchedResultsControllersOnTheChildAndTheParent() throws {
        try forEachStore { stack in
            let kept = stack.task("b")
            try stack.context.save()
            stack.task("d")
            let onParent = FetchedResultsController(fetchRequest: try request("Task", sortedBy: ["title"]), managedObjectContext: stack.context)
            let parentRecorder = ChangeRecorder()
            onParent.delegate = parentRecorder
            try onParent.performFetch()
            let viewer = child(of: stack.context)
            viewer.automaticallyMergesChangesFromParent = true
            let onChild = FetchedResultsController(fetchRequest: try request("Task", sortedBy: ["title"]), managedObjectContext: viewer)
            let childRecorder = ChangeRecorder()
            onChild.delegate = childRecorder
            try onChild.performFetch()
            XCTAssertEqual(titles(onChild.fetchedObjects ?? []), ["b", "d"], "\(stack.storeType)")
            stack.insert("Task", ["title": "a", "uuid": UUID()], into: viewer)
            viewer.processPendingChanges()
            XCTAssertEqual(titles(onChild.fetchedObjects ?? []), ["a", "b", "d"], "\(stack.storeType)")

            let sibling = child(of: stack.context)
            stack.insert("Task", ["title": "c", "uuid": UUID()], into: sibling)
            sibling.object(with: kept.objectID).setValue("e", forKey: "title")
            try sibling.save()
            XCTAssertEqual(titles(onParent.fetchedObjects ?? []), ["c", "d", "e"], "\(stack.storeType)")
            drain(viewer)
            XCTAssertEqual(titles(onChild.fetchedObjects ?? []), ["a", "c", "d", "e"], "\(stack.storeType)")
        }
    }

    // MARK: Faults and IDs

    /// Core Data: existingObject(with:) in a child throws for an object the parent deleted,
    /// saved or not, and for an object of no store (a row another context inserted and deleted,
    /// never read by the parent); asking changes nothing in either context.
    func testExistingObjectForObjectsTheParentDoesNotHave() throws {
        try forEachStore { stack in
            let deletedUnsaved = stack.task("Deleted, unsaved")
            let deletedSaved = stack.task("Deleted, saved")
            try stack.context.save()
            stack.context.delete(deletedSaved)
            try stack.context.save()
            let other = stack.newContext()
            let deletedElsewhere = stack.insert("Task", ["title": "Deleted elsewhere", "uuid": UUID()], into: other)
            try other.save()
            other.delete(deletedElsewhere)
            try other.save()
            stack.context.delete(deletedUnsaved)
            stack.context.processPendingChanges()
            let editor = child(of: stack.context)
            XCTAssertThrowsError(try editor.existingObject(with: deletedUnsaved.objectID), "\(stack.storeType)")
            XCTAssertThrowsError(try editor.existingObject(with: deletedSaved.objectID), "\(stack.storeType)")
            XCTAssertThrowsError(try editor.existingObject(with: deletedElsewhere.objectID), "\(stack.storeType)")
            XCTAssertEqual(stack.context.deletedObjects, [deletedUnsaved], "\(stack.storeType)")
            XCTAssertFalse(editor.hasChanges)
        }
    }

    /// Core Data: refreshAllObjects in a child reloads its objects from the parent as it is now,
    /// keeping the child's unsaved changes; a fetch with shouldRefreshRefetchedObjects does the
    /// same for the objects it finds (a fetch without it leaves loaded objects as they are).
    func testRefreshingInAChildReadsTheParentsCurrentValues() throws {
        try forEachStore { stack in
            let task = stack.task("Write", priority: 1)
            let other = stack.task("Read", priority: 1)
            try stack.context.save()
            let editor = child(of: stack.context)
            let draft = editor.object(with: task.objectID)
            let otherDraft = editor.object(with: other.objectID)
            XCTAssertEqual(draft.value(forKey: "title") as? String, "Write")
            XCTAssertEqual(otherDraft.value(forKey: "title") as? String, "Read")
            draft.setValue(3, forKey: "priority")
            task.setValue("Write, by the parent", forKey: "title")
            other.setValue("Read, by the parent", forKey: "title")

            // The fetch runs in the parent, on the parent's values.
            var request = try request("Task", "title BEGINSWITH 'Read'")
            request.returnsObjectsAsFaults = false
            XCTAssertEqual(try editor.fetch(request), [otherDraft])
            XCTAssertEqual(otherDraft.value(forKey: "title") as? String, "Read", "a plain fetch leaves loaded objects alone")
            request.shouldRefreshRefetchedObjects = true
            XCTAssertEqual(try editor.fetch(request), [otherDraft])
            XCTAssertEqual(otherDraft.value(forKey: "title") as? String, "Read, by the parent", "\(stack.storeType)")

            editor.refreshAllObjects()
            XCTAssertEqual(draft.value(forKey: "title") as? String, "Write, by the parent", "\(stack.storeType)")
            XCTAssertEqual(draft.value(forKey: "priority") as? Int16, 3, "the child's unsaved change stays")
        }
    }

    /// Core Data: obtainPermanentIDs in a child gives its new object the ID it keeps in the
    /// parent and in the store; the child can go on changing the object after saving it, and
    /// each save reaches the store through the parent.
    func testPermanentIDsObtainedInAChildHoldThroughBothSaves() throws {
        try forEachStore { stack in
            let editor = child(of: stack.context)
            let task = stack.insert("Task", ["title": "New", "uuid": UUID()], into: editor)
            try editor.obtainPermanentIDs(for: [task])
            let id = task.objectID
            XCTAssertFalse(id.isTemporaryID)
            try editor.save()
            XCTAssertEqual(task.objectID, id)
            XCTAssertTrue(stack.context.registeredObject(for: id)?.isInserted == true, "\(stack.storeType)")
            try stack.context.save()
            XCTAssertEqual(try stored(stack, id).value(forKey: "title") as? String, "New")
            task.setValue("New, again", forKey: "title")
            try editor.save()
            try stack.context.save()
            XCTAssertEqual(try stored(stack, id).value(forKey: "title") as? String, "New, again", "\(stack.storeType)")
        }
    }

    /// Calling obtainPermanentIDs in a child for an object new in the parent (which the child
    /// reads by its temporary ID) is what Core Data users do to avoid temporary-ID trouble; it
    /// must not cost the child's later changes to the object. Here the child's edit, saved, never
    /// reaches the parent, silently.
    func testObtainingAPermanentIDInTheChildForTheParentsNewObjectKeepsTheChildsEdits() throws {
        try forEachStore { stack in
            let new = stack.task("New in the parent")
            let editor = child(of: stack.context)
            let inChild = try editor.existingObject(with: new.objectID)
            try editor.obtainPermanentIDs(for: [inChild])
            inChild.setValue("Edited in the child", forKey: "title")
            try editor.save()
            XCTAssertEqual(new.value(forKey: "title") as? String, "Edited in the child", "\(stack.storeType)")
            try stack.context.save()
            XCTAssertEqual(titles(try stack.fetch("Task", in: stack.newContext())), ["Edited in the child"], "\(stack.storeType)")
        }
    }

    // MARK: Concurrency and levels

    /// Core Data (talk 003): a main-queue child of a private-queue parent reads and saves through
    /// the parent's queue, and the parent writes with perform; a private-queue child saves into a
    /// main-queue parent from its own queue with perform (asynchronously), the parent holding the
    /// changes once the block has run.
    func testNestingAcrossQueues() throws {
        try forEachStore { stack in
            stack.task("Write")
            try stack.context.save()
            let writer = ManagedObjectContext(concurrencyType: .privateQueue)
            writer.persistentStoreCoordinator = stack.coordinator
            let editor = child(of: writer)
            let found = try stack.fetch("Task", in: editor)
            XCTAssertEqual(titles(found), ["Write"], "\(stack.storeType)")
            found[0].setValue("Edited", forKey: "title")
            stack.insert("Task", ["title": "Added", "uuid": UUID()], into: editor)
            try editor.save()
            XCTAssertTrue(writer.performAndWait { writer.hasChanges })
            let failure = Box<String?>(nil)
            writer.perform {
                do { try writer.save() } catch { failure.value = "\(error)" }
            }
            drain(writer)
            XCTAssertNil(failure.value)
            XCTAssertEqual(titleSet(try stack.fetch("Task", in: stack.newContext())), ["Edited", "Added"], "\(stack.storeType)")

            let importer = child(of: stack.context, .privateQueue)
            let done = expectation(description: "imported")
            importer.perform {
                for index in 0..<10 {
                    let task = importer.insertNewObject(forEntityName: "Task")
                    task.setValue("Imported \(index)", forKey: "title")
                    task.setValue(UUID(), forKey: "uuid")
                }
                do { try importer.save() } catch { failure.value = "\(error)" }
                done.fulfill()
            }
            wait(for: [done], timeout: 10)
            XCTAssertNil(failure.value)
            XCTAssertEqual(stack.context.insertedObjects.count, 10, "\(stack.storeType)")
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 12)
        }
    }

    /// Core Data (talk 003: objectWithID "pulls as few levels as necessary"): a grandchild finds
    /// by ID an object new in the root context, which the middle context does not hold.
    func testAGrandchildFindsAnObjectNewInTheRootByID() throws {
        try forEachStore { stack in
            let new = stack.task("New in the root")
            let middle = child(of: stack.context)
            let inner = child(of: middle)
            let found = try? inner.existingObject(with: new.objectID)
            XCTAssertEqual(found?.value(forKey: "title") as? String, "New in the root", "\(stack.storeType)")
            XCTAssertEqual(inner.object(with: new.objectID).value(forKey: "title") as? String, "New in the root", "\(stack.storeType)")
        }
    }

    /// Core Data (talk 003: "fetching will pull data down through all levels"): a grandchild sees
    /// the root's and the middle context's unsaved changes, and its own on top.
    func testAGrandchildFetchSeesEveryLevelsUnsavedChanges() throws {
        try forEachStore { stack in
            let renamed = stack.task("Saved")
            let doomed = stack.task("Doomed")
            try stack.context.save()
            stack.task("Root's")
            renamed.setValue("Renamed by the root", forKey: "title")
            let middle = child(of: stack.context)
            stack.insert("Task", ["title": "Middle's", "uuid": UUID()], into: middle)
            middle.delete(try middle.existingObject(with: doomed.objectID))
            let inner = child(of: middle)
            stack.insert("Task", ["title": "Inner's", "uuid": UUID()], into: inner)
            XCTAssertEqual(titles(try stack.fetch("Task", sortedBy: "title", in: inner)),
                           ["Inner's", "Middle's", "Renamed by the root", "Root's"], "\(stack.storeType)")
            try inner.save()
            try middle.save()
            XCTAssertEqual(titleSet(try stack.fetch("Task")), ["Inner's", "Middle's", "Renamed by the root", "Root's"])
        }
    }

    /// Core Data: a child that merges changes from its parent (the flag set before the parent)
    /// takes in deletions: the parent's saved deletion and a sibling's deletion saved into the
    /// parent take the objects out of the child and its fetches, reported deleted; and a
    /// sibling's relationship change shows in the child's loaded to-many.
    func testAMergingChildTakesInDeletionsAndRelationshipChanges() throws {
        try forEachStore { stack in
            let byParent = stack.task("Deleted by the parent")
            let bySibling = stack.task("Deleted by a sibling")
            let ada = stack.person("Ada")
            stack.task("Ada's", owner: ada)
            let loose = stack.task("Loose")
            try stack.context.save()
            let viewer = ManagedObjectContext(concurrencyType: .mainQueue)
            viewer.automaticallyMergesChangesFromParent = true
            viewer.parent = stack.context
            keep(viewer)
            // Held: a merge reports the objects the child holds.
            let shown = try stack.fetch("Task", in: viewer)
            XCTAssertEqual(shown.count, 4)
            let owner = viewer.object(with: ada.objectID)
            XCTAssertEqual(titles(related(owner, "tasks")), ["Ada's"])
            var deleted: Set<ObjectID> = []
            let token = viewer.observe { note in
                if case .objectsDidChange(let changes) = note { deleted.formUnion(changes.deleted.map(\.objectID)) }
            }
            defer { token.cancel() }

            stack.context.delete(byParent)
            try stack.context.save()
            drain(viewer)
            let sibling = child(of: stack.context)
            sibling.delete(try sibling.existingObject(with: bySibling.objectID))
            sibling.object(with: loose.objectID).setValue(sibling.object(with: ada.objectID), forKey: "owner")
            try sibling.save()
            drain(viewer)
            XCTAssertEqual(deleted, [byParent.objectID, bySibling.objectID], "\(stack.storeType)")
            XCTAssertNil(viewer.registeredObject(for: byParent.objectID))
            XCTAssertNil(viewer.registeredObject(for: bySibling.objectID))
            XCTAssertEqual(titleSet(try stack.fetch("Task", in: viewer)), ["Ada's", "Loose"], "\(stack.storeType)")
            XCTAssertEqual(titles(related(owner, "tasks")), ["Ada's", "Loose"], "\(stack.storeType)")
            withExtendedLifetime(shown) {}
        }
    }

    /// A merging child that shows an object new in the parent (read by its temporary ID) should
    /// show it once when the parent saves it, and follow its later saved changes: the change
    /// promises the child "keeps reaching objects new in the parent after the parent saves
    /// them". Here the merge of the parent's save makes a second object for the same row (a
    /// fetched results controller on the child lists the task twice) and later saves of it never
    /// reach the object the child shows.
    func testAMergingChildShowsTheParentsNewObjectOnceAfterTheParentSaves() throws {
        try forEachStore { stack in
            let new = stack.task("New")
            let viewer = child(of: stack.context)
            viewer.automaticallyMergesChangesFromParent = true
            let controller = FetchedResultsController(fetchRequest: try request("Task", sortedBy: ["title"]), managedObjectContext: viewer)
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            let shown = try XCTUnwrap(controller.fetchedObjects?.first)
            try stack.context.save()
            drain(viewer)
            XCTAssertEqual(titles(controller.fetchedObjects ?? []), ["New"], "\(stack.storeType)")
            new.setValue("Renamed and saved", forKey: "title")
            try stack.context.save()
            drain(viewer)
            XCTAssertEqual(shown.value(forKey: "title") as? String, "Renamed and saved", "\(stack.storeType)")
        }
    }

    // MARK: Uniqueness and API

    /// Core Data checks uniqueness constraints in the store: a child's duplicate saves into the
    /// parent, and the parent's save fails under the error policy (writing nothing); under an
    /// object-trump policy it folds the duplicate into the stored object, the child's values
    /// winning.
    func testAChildsDuplicateIsTheParentsConflictWhenItSaves() throws {
        try forEachStore { stack in
            let uuid = UUID()
            stack.insert("Task", ["title": "Original", "uuid": uuid])
            try stack.context.save()
            let editor = child(of: stack.context)
            stack.insert("Task", ["title": "Duplicate", "uuid": uuid], into: editor)
            XCTAssertNoThrow(try editor.save(), "\(stack.storeType)")
            XCTAssertThrowsError(try stack.context.save(), "\(stack.storeType)")
            XCTAssertEqual(titles(try stack.fetch("Task", in: stack.newContext())), ["Original"])
            stack.context.mergePolicy = .mergeByPropertyObjectTrump
            try stack.context.save()
            XCTAssertEqual(titles(try stack.fetch("Task", in: stack.newContext())), ["Duplicate"], "\(stack.storeType)")
        }
    }

    /// Core Data: a child's parent is the context it was given, its coordinator the parent's;
    /// insertNewObject(forEntityName:into: child) makes a new object of the child only (a
    /// temporary ID, the child's, defaults set), which the parent does not see until the child
    /// saves.
    func testInsertNewObjectInAChild() throws {
        try forEachStore { stack in
            let middle = child(of: stack.context)
            let editor = child(of: middle)
            XCTAssertTrue(editor.parent === middle)
            XCTAssertTrue(middle.parent === stack.context)
            XCTAssertNil(stack.context.parent)
            XCTAssertTrue(editor.persistentStoreCoordinator === stack.coordinator)
            let task = editor.insertNewObject(forEntityName: "Task")
            XCTAssertTrue(task.managedObjectContext === editor)
            XCTAssertTrue(task.objectID.isTemporaryID)
            XCTAssertTrue(task.isInserted)
            XCTAssertEqual(task.value(forKey: "priority") as? Int16, 0, "defaults apply")
            XCTAssertEqual(editor.insertedObjects, [task])
            XCTAssertFalse(middle.hasChanges, "\(stack.storeType)")
            XCTAssertFalse(stack.context.hasChanges)
            XCTAssertTrue(try stack.fetch("Task", in: middle).isEmpty)
        }
    }
}
