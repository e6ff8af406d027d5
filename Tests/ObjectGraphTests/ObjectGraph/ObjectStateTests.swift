// A managed object's state: the inserted, updated, deleted and fault flags, its changes
// (changedValues, changedValuesForCurrentEvent, committedValues, hasPersistentChangedValues),
// relationship IDs without faulting, primitive accessors, key paths, and the hooks Core Data calls
// on subclasses, in order.
import Foundation
import XCTest
@testable import ObjectGraph

/// A class whose hooks record their calls in `HookedNote.log`.
final class HookedNote: ManagedObject {
    nonisolated(unsafe) static var log: [String] = []
    /// How many tags were still attached when prepareForDeletion ran.
    nonisolated(unsafe) static var tagsAtPrepareForDeletion: Int?
    nonisolated(unsafe) static var snapshotEvents: [SnapshotEvents] = []

    override func awakeFromInsert() {
        super.awakeFromInsert()
        Self.log.append("awakeFromInsert")
        setValue(Date(timeIntervalSinceReferenceDate: 1), forKey: "created")
    }
    override func awakeFromFetch() {
        super.awakeFromFetch()
        Self.log.append("awakeFromFetch")
        // Public setters in awakeFromFetch establish caches without dirtying the object.
        setValue("cached \(value(forKey: "text") as? String ?? "")", forKey: "display")
    }
    override func awake(fromSnapshotEvents events: SnapshotEvents) {
        super.awake(fromSnapshotEvents: events)
        Self.snapshotEvents.append(events)
        Self.log.append("awakeFromSnapshotEvents")
    }
    /// Run by every willSave, when set (a test's own hook).
    nonisolated(unsafe) static var willSaveAction: ((ManagedObject) -> Void)?

    override func willSave() {
        super.willSave()
        Self.log.append("willSave")
        Self.willSaveAction?(self)
        // Changes made in willSave are saved too (guarded so the loop ends).
        if !isDeleted, let text = value(forKey: "text") as? String, text != text.uppercased() {
            setValue(text.uppercased(), forKey: "text")
        }
    }
    override func didSave() { super.didSave(); Self.log.append("didSave") }
    override func prepareForDeletion() {
        super.prepareForDeletion()
        Self.log.append("prepareForDeletion")
        Self.tagsAtPrepareForDeletion = (value(forKey: "tags") as? Set<ManagedObject>)?.count
    }
    override func willTurnIntoFault() { super.willTurnIntoFault(); Self.log.append("willTurnIntoFault") }
    override func didTurnIntoFault() { super.didTurnIntoFault(); Self.log.append("didTurnIntoFault") }
    override func validateForInsert() throws { Self.log.append("validateForInsert"); try super.validateForInsert() }
    override func validateForUpdate() throws { Self.log.append("validateForUpdate"); try super.validateForUpdate() }
    override func validateForDelete() throws { Self.log.append("validateForDelete"); try super.validateForDelete() }

    static func resetLog() {
        log = []
        tagsAtPrepareForDeletion = nil
        snapshotEvents = []
    }
}

final class ObjectStateTests: XCTestCase {
    static let hookModel = ManagedObjectModel {
        Entity("HookedNote", class: "HookedNote") {
            Attribute("text", .string)
            Attribute("created", .date)
            Attribute("display", .string).transient()
            Relationship("tags", to: "NoteTag", inverse: "note", toMany: true, deleteRule: .cascade)
        }
        Entity("NoteTag") {
            Attribute("name", .string)
            Relationship("note", to: "HookedNote", inverse: "tags")
        }
    }

    override func setUp() {
        super.setUp()
        ObjectClasses.register(HookedNote.self)
        HookedNote.resetLog()
    }

    // MARK: Flags

    func testANewObjectIsInsertedWithATemporaryID() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            XCTAssertTrue(ada.isInserted)
            XCTAssertFalse(ada.isUpdated)
            XCTAssertFalse(ada.isDeleted)
            XCTAssertFalse(ada.isFault)
            XCTAssertTrue(ada.hasChanges)
            XCTAssertTrue(ada.objectID.isTemporaryID)
            XCTAssertEqual(ada.entity.name, "Person")
            XCTAssertTrue(ada.managedObjectContext === stack.context)
            XCTAssertEqual(stack.context.insertedObjects, [ada])
            XCTAssertTrue(stack.context.hasChanges)
        }
    }

    func testASavedObjectHasNoChangesAndAPermanentID() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            XCTAssertFalse(ada.isInserted)
            XCTAssertFalse(ada.isUpdated)
            XCTAssertFalse(ada.hasChanges)
            XCTAssertFalse(ada.hasPersistentChangedValues)
            XCTAssertFalse(ada.objectID.isTemporaryID)
            XCTAssertFalse(stack.context.hasChanges)
            XCTAssertEqual(stack.context.insertedObjects, [])
        }
    }

    func testAChangedSavedObjectIsUpdated() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            XCTAssertTrue(ada.isUpdated)
            XCTAssertTrue(ada.hasChanges)
            XCTAssertFalse(ada.isInserted)
            XCTAssertEqual(stack.context.updatedObjects, [ada])
            XCTAssertTrue(stack.context.hasChanges)
        }
    }

    func testSettingTheSameValueIsNoChange() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Ada", forKey: "firstName")
            XCTAssertFalse(ada.hasChanges)
            XCTAssertFalse(stack.context.hasChanges)
        }
    }

    func testADeletedObjectIsDeletedUntilSavedThenLeavesTheContext() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            stack.context.delete(ada)
            XCTAssertTrue(ada.isDeleted)
            XCTAssertTrue(ada.hasChanges)
            XCTAssertFalse(ada.isUpdated)
            XCTAssertEqual(stack.context.deletedObjects, [ada])
            try stack.context.save()
            XCTAssertNil(ada.managedObjectContext)
            XCTAssertNil(stack.context.registeredObject(for: ada.objectID))
            XCTAssertEqual(stack.context.deletedObjects, [])
        }
    }

    func testDeletingAnUnsavedObjectForgetsIt() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let bob = stack.person("Bob")
            stack.context.delete(bob)
            stack.context.processPendingChanges()
            XCTAssertFalse(stack.context.insertedObjects.contains(bob), "a deleted new object is no longer to be inserted")
            XCTAssertFalse(stack.context.deletedObjects.contains(bob))
            XCTAssertFalse(stack.context.hasChanges)
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).map { $0.value(forKey: "firstName") as? String }, ["Ada"])
            XCTAssertFalse(ada.hasChanges)
        }
    }

    // MARK: Changes

    func testChangedValuesOfANewObjectHoldItsValues() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            let changes = ada.changedValues()
            XCTAssertEqual(changes["firstName"] as? String, "Ada")
            XCTAssertEqual(changes["lastName"] as? String, "Lovelace")
        }
    }

    func testChangedValuesOfASavedObjectHoldOnlyTheChangedProperties() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            try stack.context.save()
            XCTAssertTrue(ada.changedValues().isEmpty)
            ada.setValue("Augusta", forKey: "firstName")
            ada.setValue(nil, forKey: "lastName")
            let changes = ada.changedValues()
            XCTAssertEqual(Set(changes.keys), ["firstName", "lastName"])
            XCTAssertEqual(changes["firstName"] as? String, "Augusta")
            XCTAssertTrue(changes["lastName"] is NSNull)
            try stack.context.save()
            XCTAssertTrue(ada.changedValues().isEmpty)
        }
    }

    func testChangedValuesIncludeRelationshipsOfBothSides() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("Plan")
            try stack.context.save()
            task.setValue(ada, forKey: "owner")
            XCTAssertEqual(Set(task.changedValues().keys), ["owner"])
            XCTAssertTrue(task.changedValues()["owner"] as? ManagedObject === ada)
            XCTAssertEqual(Set(ada.changedValues().keys), ["tasks"])
        }
    }

    /// Apple, changedValues(): "This method only reports changes to properties that are
    /// persistent properties of the receiver, not changes to transient properties"; the same for
    /// changedValuesForCurrentEvent(). The transient change still makes the object updated.
    func testChangedValuesLeaveOutTransientProperties() throws {
        try forEachStore(model: Self.hookModel) { stack in
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("draft", forKey: "text")
            note.setValue("shown", forKey: "display")
            XCTAssertEqual(note.changedValues()["text"] as? String, "draft")
            XCTAssertNil(note.changedValues()["display"], "\(stack.storeType)")
            try stack.context.save()
            note.setValue("shown again", forKey: "display")
            XCTAssertTrue(note.hasChanges)
            XCTAssertTrue(note.changedValues().isEmpty, "\(stack.storeType)")
            XCTAssertTrue(note.changedValuesForCurrentEvent().isEmpty, "\(stack.storeType)")
            note.setValue("final", forKey: "text")
            XCTAssertEqual(Set(note.changedValues().keys), ["text"])
            XCTAssertEqual(Set(note.changedValuesForCurrentEvent().keys), ["text"])
        }
    }

    func testCommittedValuesAreTheLastSavedValues() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            XCTAssertTrue(ada.committedValues(forKeys: nil).isEmpty, "a new object has no committed values")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            ada.setValue("ada@example.org", forKey: "email")
            let committed = ada.committedValues(forKeys: ["firstName", "email"])
            XCTAssertEqual(committed["firstName"] as? String, "Ada")
            XCTAssertTrue(committed["email"] is NSNull)
            let all = ada.committedValues(forKeys: nil)
            XCTAssertEqual(all["lastName"] as? String, "Lovelace")
            XCTAssertNotNil(all["birthday"])
            try stack.context.save()
            XCTAssertEqual(ada.committedValues(forKeys: ["firstName"])["firstName"] as? String, "Augusta")
        }
    }

    func testCommittedValuesOfRelationships() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Plan", owner: ada)
            try stack.context.save()
            task.setValue(bob, forKey: "owner")
            XCTAssertTrue(task.committedValues(forKeys: ["owner"])["owner"] as? ManagedObject === ada)
            XCTAssertEqual(ada.committedValues(forKeys: ["tasks"])["tasks"] as? OrderedSet<ManagedObject>, [task])
            XCTAssertEqual(bob.committedValues(forKeys: ["tasks"])["tasks"] as? OrderedSet<ManagedObject>, [])
        }
    }

    func testHasPersistentChangedValuesIsFalseWhenAChangeIsSetBack() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            XCTAssertTrue(ada.hasPersistentChangedValues)
            ada.setValue("Ada", forKey: "firstName")
            XCTAssertTrue(ada.hasChanges)
            XCTAssertFalse(ada.hasPersistentChangedValues)
        }
    }

    func testHasPersistentChangedValuesForRelationshipSetBack() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Plan", owner: ada)
            try stack.context.save()
            task.setValue(bob, forKey: "owner")
            XCTAssertTrue(task.hasPersistentChangedValues)
            XCTAssertTrue(ada.hasPersistentChangedValues)
            task.setValue(ada, forKey: "owner")
            XCTAssertFalse(task.hasPersistentChangedValues)
            XCTAssertFalse(ada.hasPersistentChangedValues)
            XCTAssertFalse(bob.hasPersistentChangedValues)
        }
    }

    func testHasPersistentChangedValuesOfNewAndDeletedObjects() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            XCTAssertTrue(ada.hasPersistentChangedValues)
            try stack.context.save()
            stack.context.delete(ada)
            XCTAssertTrue(ada.hasPersistentChangedValues)
        }
    }

    func testChangedValuesForCurrentEventHoldTheValuesBeforeTheEvent() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            ada.setValue("Countess", forKey: "firstName")
            XCTAssertEqual(ada.changedValuesForCurrentEvent()["firstName"] as? String, "Ada")
            stack.context.processPendingChanges()
            XCTAssertTrue(ada.changedValuesForCurrentEvent().isEmpty)
            ada.setValue("Lovelace", forKey: "lastName")
            let event = ada.changedValuesForCurrentEvent()
            XCTAssertEqual(Set(event.keys), ["lastName"])
            XCTAssertTrue(event["lastName"] is NSNull)
            XCTAssertEqual(ada.changedValues()["firstName"] as? String, "Countess", "changedValues spans events")
        }
    }

    // MARK: Relationship IDs

    func testObjectIDsForAToManyRelationshipWithoutFaultingIt() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let a = stack.task("A", owner: ada)
            let b = stack.task("B", owner: ada)
            try stack.context.save()
            let other = stack.newContext()
            let adaThere = other.object(with: ada.objectID)
            XCTAssertEqual(adaThere.objectIDs(forRelationshipNamed: "tasks"), [a.objectID, b.objectID])
            XCTAssertNil(other.registeredObject(for: a.objectID), "the destinations are not made into objects")
            XCTAssertNil(other.registeredObject(for: b.objectID))
            XCTAssertEqual(adaThere.objectIDs(forRelationshipNamed: "events"), [])
        }
    }

    func testObjectIDsForAToOneRelationship() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("A", owner: ada)
            let loose = stack.task("B")
            try stack.context.save()
            let other = stack.newContext()
            XCTAssertEqual(other.object(with: task.objectID).objectIDs(forRelationshipNamed: "owner"), [ada.objectID])
            XCTAssertEqual(other.object(with: loose.objectID).objectIDs(forRelationshipNamed: "owner"), [])
            XCTAssertNil(other.registeredObject(for: ada.objectID))
        }
    }

    func testObjectIDsForRelationshipReflectUnsavedChanges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let a = stack.task("A", owner: ada)
            try stack.context.save()
            let b = stack.task("B", owner: ada)
            XCTAssertEqual(ada.objectIDs(forRelationshipNamed: "tasks"), [a.objectID, b.objectID])
        }
    }

    // MARK: Accessors

    func testPrimitiveAccessorsRecordNoChange() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            var posted = 0
            let token = stack.context.observe { _ in posted += 1 }
            ada.setPrimitiveValue("Augusta", forKey: "firstName")
            XCTAssertEqual(ada.primitiveValue(forKey: "firstName") as? String, "Augusta")
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertFalse(ada.hasChanges)
            XCTAssertFalse(stack.context.hasChanges)
            stack.context.processPendingChanges()
            XCTAssertEqual(posted, 0)
            token.cancel()
        }
    }

    func testAPrimitiveEditIsSavedWithTheObjectsNextChange() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setPrimitiveValue("Augusta", forKey: "firstName")
            ada.setValue("King", forKey: "lastName")
            try stack.context.save()
            let stored = try stack.fetch("Person", in: stack.newContext())
            XCTAssertEqual(stored.map { $0.value(forKey: "firstName") as? String }, ["Augusta"])
            XCTAssertEqual(stored.map { $0.value(forKey: "lastName") as? String }, ["King"])
            // Later saves write the unchanged attributes as stored.
            ada.setValue("Lovelace", forKey: "lastName")
            try stack.context.save()
            let again = try stack.fetch("Person", in: stack.newContext())
            XCTAssertEqual(again.map { $0.value(forKey: "firstName") as? String }, ["Augusta"])
            XCTAssertEqual(again.map { $0.value(forKey: "lastName") as? String }, ["Lovelace"])
        }
    }

    func testPrimitiveValueOfARelationship() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("A", owner: ada)
            XCTAssertTrue(task.primitiveValue(forKey: "owner") as? ManagedObject === ada)
            XCTAssertEqual(ada.primitiveValue(forKey: "tasks") as? OrderedSet<ManagedObject>, [task])
        }
    }

    func testValueForKeyPathFollowsRelationships() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("A", owner: ada)
            _ = stack.task("B", owner: ada)
            XCTAssertEqual(task.value(forKeyPath: "owner.firstName") as? String, "Ada")
            XCTAssertEqual((ada.value(forKeyPath: "tasks.@count") as? Int) ?? -1, 2)
            XCTAssertNil(stack.task("C").value(forKeyPath: "owner.firstName"))
        }
    }

    func testUnknownKeyReadsNil() throws {
        try forEachStore { stack in
            XCTAssertNil(stack.person("Ada").value(forKey: "noSuchKey"))
        }
    }

    func testIntegersAreStoredInTheAttributesType() throws {
        try forEachStore { stack in
            let task = stack.task("A", priority: 2)
            XCTAssertEqual(task.value(forKey: "priority") as? Int16, 2)
            XCTAssertEqual(task.value(forKey: "done") as? Bool, false, "default value")
        }
    }

    func testValidateValueForKeyChecksTheModelRules() throws {
        try forEachStore { stack in
            let task = stack.task("A")
            var empty: Any? = ""
            XCTAssertThrowsError(try task.validateValue(&empty, forKey: "title"))
            var fine: Any? = "Fine"
            XCTAssertNoThrow(try task.validateValue(&fine, forKey: "title"))
            var tooHigh: Any? = 4
            XCTAssertThrowsError(try task.validateValue(&tooHigh, forKey: "priority"))
            var none: Any? = nil
            XCTAssertThrowsError(try task.validateValue(&none, forKey: "title"), "title is required")
        }
    }

    // MARK: Hooks

    func testAwakeFromInsertRunsOnceAndCanSetInitialValues() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            XCTAssertTrue(note is HookedNote)
            XCTAssertEqual(HookedNote.log, ["awakeFromInsert"])
            XCTAssertEqual(note.value(forKey: "created") as? Date, Date(timeIntervalSinceReferenceDate: 1))
            try stack.context.save()
            let other = stack.newContext()
            let there = other.object(with: note.objectID)
            XCTAssertEqual(there.value(forKey: "created") as? Date, Date(timeIntervalSinceReferenceDate: 1))
            XCTAssertEqual(HookedNote.log.filter { $0 == "awakeFromInsert" }.count, 1)
        }
    }

    func testSaveOfANewObjectCallsHooksInOrder() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("hello", forKey: "text")
            try stack.context.save()
            // willSave upper-cases the text: that change calls willSave again (Apple, willSave():
            // "Core Data will observe the resultant change notification and so will invoke
            // willSave again"), which changes nothing, and the save goes on.
            XCTAssertEqual(HookedNote.log, ["awakeFromInsert", "willSave", "willSave", "validateForInsert", "didSave"])
        }
    }

    /// A willSave that sets a new value every time would call willSave for ever (it hangs Core
    /// Data); the save stops after ``ManagedObjectContext/willSaveRounds`` rounds with an error
    /// naming the object, and writes nothing.
    func testAWillSaveThatAlwaysChangesItsObjectFailsTheSaveAndWritesNothing() throws {
        try forEachStore(model: Self.hookModel) { stack in
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("a", forKey: "text")
            HookedNote.willSaveAction = { object in
                object.setValue((object.value(forKey: "text") as? String ?? "") + "a", forKey: "text")
            }
            defer { HookedNote.willSaveAction = nil }
            XCTAssertThrowsError(try stack.context.save()) { error in
                XCTAssertEqual(error as? ContextError, .willSaveKeepsChanging([note.objectID]), "\(stack.storeType)")
            }
            XCTAssertEqual(try stack.newContext().count(for: FetchRequest<ManagedObject>(entityName: "HookedNote")), 0)
            XCTAssertTrue(note.isInserted)
        }
    }

    func testSaveOfAnUpdatedObjectCallsHooksInOrder() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            try stack.context.save()
            HookedNote.resetLog()
            note.setValue("HELLO", forKey: "text")
            try stack.context.save()
            XCTAssertEqual(HookedNote.log, ["willSave", "validateForUpdate", "didSave"])
        }
    }

    func testDeleteCallsPrepareForDeletionBeforeDeleteRulesThenSaveHooks() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            let tag = stack.insert("NoteTag", ["name": "x", "note": note])
            try stack.context.save()
            HookedNote.resetLog()
            stack.context.delete(note)
            stack.context.processPendingChanges()
            XCTAssertEqual(HookedNote.log, ["prepareForDeletion"])
            XCTAssertEqual(HookedNote.tagsAtPrepareForDeletion, 1, "relationships are intact in prepareForDeletion")
            XCTAssertTrue(tag.isDeleted)
            try stack.context.save()
            XCTAssertEqual(HookedNote.log, ["prepareForDeletion", "willSave", "validateForDelete", "didSave"])
        }
    }

    func testChangesMadeInWillSaveAreSaved() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("quiet", forKey: "text")
            try stack.context.save()
            XCTAssertEqual(note.value(forKey: "text") as? String, "QUIET")
            XCTAssertFalse(note.hasChanges)
            XCTAssertFalse(stack.context.hasChanges)
            let there = try XCTUnwrap(try stack.fetch("HookedNote", in: stack.newContext()).first)
            XCTAssertEqual(there.value(forKey: "text") as? String, "QUIET")
        }
    }

    func testAwakeFromFetchRunsWhenAFaultIsFilled() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            try stack.context.save()
            HookedNote.resetLog()
            let other = stack.newContext()
            let there = other.object(with: note.objectID)
            XCTAssertTrue(there.isFault)
            XCTAssertEqual(HookedNote.log, [])
            _ = there.value(forKey: "text")
            XCTAssertEqual(HookedNote.log, ["awakeFromFetch"])
        }
    }

    func testRefreshTurnsTheObjectIntoAFaultWithHooks() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("A", forKey: "text")
            try stack.context.save()
            HookedNote.resetLog()
            stack.context.refresh(note, mergeChanges: false)
            XCTAssertTrue(note.isFault)
            XCTAssertEqual(Array(HookedNote.log.prefix(2)), ["willTurnIntoFault", "didTurnIntoFault"])
            HookedNote.resetLog()
            XCTAssertEqual(note.value(forKey: "text") as? String, "A")
            XCTAssertEqual(HookedNote.log, ["awakeFromFetch"])
        }
    }

    func testUndoCallsAwakeFromSnapshotEventsWithUndoUpdate() throws {
        try forEachStore(undo: true, model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("A", forKey: "text")
            try stack.context.save()
            note.setValue("B", forKey: "text")
            stack.context.processPendingChanges()
            HookedNote.resetLog()
            stack.context.undo()
            XCTAssertEqual(note.value(forKey: "text") as? String, "A")
            XCTAssertTrue(HookedNote.snapshotEvents.contains { $0.contains(.undoUpdate) }, "\(HookedNote.snapshotEvents)")
        }
    }

    func testUndoOfInsertAndDeleteCallAwakeFromSnapshotEvents() throws {
        try forEachStore(undo: true, model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertTrue(HookedNote.snapshotEvents.contains { $0.contains(.undoInsertion) }, "\(HookedNote.snapshotEvents)")
            stack.context.redo()
            try stack.context.save()
            HookedNote.resetLog()
            stack.context.delete(note)
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertTrue(HookedNote.snapshotEvents.contains { $0.contains(.undoDeletion) }, "\(HookedNote.snapshotEvents)")
        }
    }

    func testRollbackCallsAwakeFromSnapshotEventsWithRollback() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("A", forKey: "text")
            try stack.context.save()
            note.setValue("B", forKey: "text")
            HookedNote.resetLog()
            stack.context.rollback()
            XCTAssertEqual(note.value(forKey: "text") as? String, "A")
            XCTAssertTrue(HookedNote.snapshotEvents.contains { $0.contains(.rollback) }, "\(HookedNote.snapshotEvents)")
        }
    }

    func testConvenienceInitializerInsertsAnObjectOfTheClassEntity() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = HookedNote(context: stack.context)
            XCTAssertEqual(note.entity.name, "HookedNote")
            XCTAssertTrue(note.isInserted)
            XCTAssertEqual(HookedNote.log, ["awakeFromInsert"])
        }
    }

    func testAnObjectWhoseOnlyChangeIsARelationshipIsUpdated() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let meeting = stack.event("Meeting")
            try stack.context.save()
            ada.mutableSetValue(forKey: "events").insert(meeting)
            XCTAssertTrue(ada.isUpdated)
            XCTAssertTrue(meeting.isUpdated)
            XCTAssertEqual(stack.context.updatedObjects, [ada, meeting])
        }
    }

    func testAnObjectMadeWithoutAContextAwakesWhenInserted() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let entity = try XCTUnwrap(stack.model.entitiesByName["HookedNote"])
            let note = HookedNote(entity: entity, insertInto: nil)
            XCTAssertNil(note.managedObjectContext)
            XCTAssertFalse(note.isInserted)
            XCTAssertEqual(HookedNote.log, [], "awakeFromInsert waits for the insertion")
            note.setValue("loose", forKey: "text")
            stack.context.insert(note)
            XCTAssertEqual(HookedNote.log, ["awakeFromInsert"])
            XCTAssertTrue(note.isInserted)
            XCTAssertTrue(note.managedObjectContext === stack.context)
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("HookedNote", in: stack.newContext()).first?.value(forKey: "text") as? String, "LOOSE")
        }
    }

    func testDidSaveSeesTheObjectSaved() throws {
        final class Probe: ManagedObject {
            nonisolated(unsafe) static var seen: [String] = []
            override class var entityName: String { "ProbeNote" }
            override func didSave() {
                Self.seen.append("\(isInserted) \(hasChanges) \(objectID.isTemporaryID)")
            }
        }
        ObjectClasses.register(Probe.self)
        let model = ManagedObjectModel { Entity("ProbeNote", class: "Probe") { Attribute("text", .string) } }
        try forEachStore(model: model) { stack in
            HookedNote.resetLog()
            Probe.seen = []
            let note = stack.context.insertNewObject(forEntityName: "ProbeNote")
            XCTAssertTrue(note is Probe)
            note.setValue("x", forKey: "text")
            try stack.context.save()
            XCTAssertEqual(Probe.seen, ["false false false"])
        }
    }

    // MARK: Mutable proxies on faults (probed in a child process: a failure traps)

    func testMutableProxyOfAFaultAnswersContains() throws {
        let result = try ChildProcessProbe.run("ObjectStateTests", "testProbeMutableProxyContainsOnAFault")
        XCTAssertTrue(result.passed, "contains on the proxy of a fault should fire the fault and answer; child: \(result.tail)")
    }

    func testProbeMutableProxyContainsOnAFault() throws {
        try ChildProcessProbe.skipUnlessProbing()
        let stack = try Stack(storeType: .inMemory)
        let ada = stack.person("Ada")
        let task = stack.task("Plan", owner: ada)
        try stack.context.save()
        let other = stack.newContext()
        let adaThere = other.object(with: ada.objectID)
        let taskThere = other.object(with: task.objectID)
        XCTAssertTrue(adaThere.isFault)
        XCTAssertTrue(adaThere.mutableOrderedSetValue(forKey: "tasks").contains(taskThere))
        XCTAssertFalse(adaThere.mutableSetValue(forKey: "events").contains(taskThere))
    }

    // MARK: Faults and partially fetched objects

    func testCommittedValuesOfAFaultAreItsStoredValues() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            try stack.context.save()
            let fault = stack.newContext().object(with: ada.objectID)
            XCTAssertTrue(fault.isFault)
            let committed = fault.committedValues(forKeys: ["firstName", "lastName"])
            XCTAssertEqual(committed["firstName"] as? String, "Ada")
            XCTAssertEqual(committed["lastName"] as? String, "Lovelace")
        }
    }

    func testPrimitiveValueOfAPartiallyFetchedObjectLoadsTheMissingValue() throws {
        try forEachStore { stack in
            _ = stack.person("Ada", "Lovelace")
            try stack.context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.propertiesToFetch = [.property("firstName")]
            let ada = try XCTUnwrap(try stack.newContext().fetch(request).first)
            XCTAssertEqual(ada.primitiveValue(forKey: "lastName") as? String, "Lovelace")
        }
    }

    func testCommittedValuesOfAPartiallyFetchedObjectIncludeTheMissingValues() throws {
        try forEachStore { stack in
            _ = stack.person("Ada", "Lovelace")
            try stack.context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.propertiesToFetch = [.property("firstName")]
            let ada = try XCTUnwrap(try stack.newContext().fetch(request).first)
            XCTAssertEqual(ada.committedValues(forKeys: ["lastName"])["lastName"] as? String, "Lovelace")
        }
    }

    func testSavingAChangeToAPartiallyFetchedObjectKeepsAndValidatesItsOtherValues() throws {
        try forEachStore { stack in
            _ = stack.task("Plan", priority: 1)
            try stack.context.save()
            let other = stack.newContext()
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.propertiesToFetch = [.property("priority")]
            let task = try XCTUnwrap(try other.fetch(request).first)
            task.setValue(2, forKey: "priority")
            XCTAssertNoThrow(try other.save(), "the required title and uuid are stored, only not fetched")
            let saved = try XCTUnwrap(try stack.fetch("Task", in: stack.newContext()).first)
            XCTAssertEqual(saved.value(forKey: "title") as? String, "Plan")
            XCTAssertEqual(saved.value(forKey: "priority") as? Int16, 2)
        }
    }

    func testChangesMadeInAwakeFromFetchDoNotDirtyTheObject() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("A", forKey: "text")
            try stack.context.save()
            let other = stack.newContext()
            other.undoManager = UndoManager()
            var posted = 0
            let token = other.observe { _ in posted += 1 }
            let there = other.object(with: note.objectID)
            XCTAssertEqual(there.value(forKey: "display") as? String, "cached A")
            XCTAssertFalse(there.hasChanges)
            XCTAssertFalse(there.isUpdated)
            XCTAssertFalse(other.hasChanges)
            XCTAssertEqual(other.updatedObjects, [])
            other.processPendingChanges()
            XCTAssertEqual(posted, 0, "no objectsDidChange for a fault being filled")
            XCTAssertFalse(other.undoManager!.canUndo)
            token.cancel()
        }
    }

    func testRedoingAnInsertDoesNotAwakeTheObjectAgain() throws {
        try forEachStore(undo: true, model: Self.hookModel) { stack in
            HookedNote.resetLog()
            let note = stack.context.insertNewObject(forEntityName: "HookedNote")
            stack.context.processPendingChanges()
            stack.context.undo()
            stack.context.redo()
            XCTAssertTrue(note.isInserted)
            XCTAssertEqual(HookedNote.log.filter { $0 == "awakeFromInsert" }.count, 1)
        }
    }

    func testASaveWithNothingToSaveCallsNoHooks() throws {
        try forEachStore(model: Self.hookModel) { stack in
            HookedNote.resetLog()
            _ = stack.context.insertNewObject(forEntityName: "HookedNote")
            try stack.context.save()
            HookedNote.resetLog()
            try stack.context.save()
            XCTAssertEqual(HookedNote.log, [])
        }
    }

    func testAFailedSaveCallsNoDidSave() throws {
        let model = ManagedObjectModel {
            Entity("HookedNote", class: "HookedNote") {
                Attribute("text", .string).required()
                Attribute("created", .date)
                Attribute("display", .string).transient()
            }
        }
        try forEachStore(model: model) { stack in
            HookedNote.resetLog()
            _ = stack.context.insertNewObject(forEntityName: "HookedNote")
            XCTAssertThrowsError(try stack.context.save())
            XCTAssertEqual(HookedNote.log, ["awakeFromInsert", "willSave", "validateForInsert"])
        }
    }

    func testAPartiallyFetchedObjectStillReadsItsToOneRelationship() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("Plan", owner: ada)
            try stack.context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.propertiesToFetch = [.property("title")]
            let task = try XCTUnwrap(try stack.newContext().fetch(request).first)
            XCTAssertEqual((task.value(forKey: "owner") as? ManagedObject)?.objectID, ada.objectID)
            XCTAssertEqual(task.objectIDs(forRelationshipNamed: "owner"), [ada.objectID])
        }
    }

    func testSavingAPartiallyFetchedObjectKeepsItsUnfetchedRelationships() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            _ = stack.task("Plan", owner: ada)
            try stack.context.save()
            let other = stack.newContext()
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            // Every attribute, no relationship.
            request.propertiesToFetch = ["title", "priority", "uuid", "created", "done", "due", "notes"].map { .property($0) }
            let task = try XCTUnwrap(try other.fetch(request).first)
            task.setValue("Plan B", forKey: "title")
            try other.save()
            let saved = try XCTUnwrap(try stack.fetch("Task", in: stack.newContext()).first)
            XCTAssertEqual(saved.value(forKey: "title") as? String, "Plan B")
            XCTAssertEqual((saved.value(forKey: "owner") as? ManagedObject)?.objectID, ada.objectID, "the owner was not fetched, not removed")
        }
    }
}
