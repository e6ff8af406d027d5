// Undo and redo, validation and delete rules checked against Core Data's (and Foundation's
// NSUndoManager's) documented behaviour: the undo manager's open groups, removeAllActions and
// redo; undo and redo in a context across saves and cascades; a model's regular expressions,
// validateValue(_:forKey:) and validators' own errors. Each test names the documentation it
// relies on.
import Foundation
import XCTest
@testable import ObjectGraph

final class UndoValidationTests: XCTestCase {
    /// The failures `body` throws (a ValidationError's); another error fails the test.
    private func failures(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> [ValidationError.Failure] {
        do {
            try body()
            return []
        } catch let error as ValidationError {
            return error.failures
        } catch {
            XCTFail("expected a ValidationError, got \(error)", file: file, line: line)
            return []
        }
    }

    private final class Box {
        var value = 0

        /// Sets `value` and registers the change's inverse, as a context's changes do: undoing it
        /// registers the redo.
        func set(_ newValue: Int, undo: UndoManager) {
            let old = value
            value = newValue
            undo.registerUndo(withTarget: self) { [unowned undo] box in box.set(old, undo: undo) }
        }
    }

    // MARK: UndoManager

    /// Foundation, UndoManager.canUndo: "A Boolean value that indicates whether the manager has
    /// any actions to undo. [...] The return value doesn't mean you can safely invoke undo() or
    /// undoNestedGroup() — you may have to close open undo groups first."
    /// So actions recorded in a group still open count, in a group opened with
    /// beginUndoGrouping() too (only an automatically opened event group counted).
    func testCanUndoCountsActionsInAGroupOpenedByHand() {
        let undo = UndoManager()
        let box = Box()
        undo.beginUndoGrouping()
        box.value = 1
        undo.registerUndo(withTarget: box) { $0.value = 0 }
        XCTAssertEqual(undo.groupingLevel, 1)
        XCTAssertTrue(undo.canUndo, "an action is recorded in the open group")
    }

    /// Foundation, UndoManager.undo(): "Closes the top-level undo group if necessary, and then
    /// performs undo operations on the group. [...] This method also invokes endUndoGrouping()
    /// if the nesting level is 1. Raises an NSInternalInconsistencyException if more than one
    /// undo group is open." With one group open (level 1), undo() closes it and undoes it (it
    /// trapped on the open group).
    func testUndoClosesAGroupOpenedByHandAtTheTopLevel() {
        let undo = UndoManager()
        let box = Box()
        undo.beginUndoGrouping()
        box.set(1, undo: undo)
        undo.undo()
        XCTAssertEqual(box.value, 0)
        XCTAssertEqual(undo.groupingLevel, 0)
        XCTAssertTrue(undo.canRedo)
        undo.redo()
        XCTAssertEqual(box.value, 1)
    }

    /// A new action clears the redo stack as soon as it is registered, not when its group
    /// closes (Foundation's registerUndo(withTarget:handler:) empties the redo stack when it is
    /// not undoing or redoing): redo() called while the new action's event group is still open
    /// has nothing to redo and does nothing, where it trapped on the open group.
    func testRedoAfterANewUnprocessedActionDoesNothing() {
        let undo = UndoManager()
        let box = Box()
        box.set(1, undo: undo)
        undo.closeEventGroup()
        undo.undo()
        XCTAssertTrue(undo.canRedo)
        box.set(2, undo: undo)
        XCTAssertFalse(undo.canRedo, "the new action empties the redo stack")
        undo.redo()
        XCTAssertEqual(box.value, 2)
        XCTAssertEqual(undo.groupingLevel, 1, "the new action's event group stays open")
        undo.undo()
        XCTAssertEqual(box.value, 0)
    }

    /// removeAllActions() forgets every action, those of the groups still open too, but leaves
    /// those groups open: the code that opened one still closes it with endUndoGrouping(),
    /// which trapped once removeAllActions() had dropped the group.
    func testRemoveAllActionsKeepsAGroupOpenedByHandOpenAndEmpty() {
        let undo = UndoManager()
        let box = Box()
        undo.beginUndoGrouping()
        box.set(1, undo: undo)
        undo.removeAllActions()
        XCTAssertEqual(undo.groupingLevel, 1)
        XCTAssertFalse(undo.canUndo, "the open group's action is forgotten")
        undo.endUndoGrouping()
        XCTAssertEqual(undo.groupingLevel, 0)
        XCTAssertFalse(undo.canUndo, "the emptied group is dropped when it closes")

        undo.beginUndoGrouping()
        box.set(2, undo: undo)
        undo.removeAllActions()
        box.set(3, undo: undo)
        undo.endUndoGrouping()
        undo.undo()
        XCTAssertEqual(box.value, 2, "only the action registered after removeAllActions() is undone")
        XCTAssertFalse(undo.canUndo)
    }

    /// Foundation, UndoManager.removeAllActions(): "Clears the undo and redo stacks and
    /// reenables the manager." (removeAllActions(withTarget:), by contrast, "Doesn't re-enable
    /// the manager if it's disabled.") Registration stayed disabled. The context's rollback()
    /// and reset() call removeAllActions(), so after either one a context whose registration
    /// was disabled records changes again.
    func testRemoveAllActionsReenablesRegistration() {
        let undo = UndoManager()
        undo.disableUndoRegistration()
        undo.removeAllActions()
        XCTAssertTrue(undo.isUndoRegistrationEnabled)
        let box = Box()
        box.value = 1
        undo.registerUndo(withTarget: box) { $0.value = 0 }
        undo.undo()
        XCTAssertEqual(box.value, 0, "the action registered after removeAllActions() is recorded")
    }

    // MARK: Undo and redo in a context

    /// NSManagedObjectContext.undo(): "Sends an undo message to the context's undo manager,
    /// asking it to reverse the latest uncommitted changes applied to objects in the object
    /// graph"; UndoManager: "When undoing an action, UndoManager saves the operations you revert
    /// to so that you can call redo() automatically."
    ///
    /// Undoing the insertion of a saved object deletes it. Here the person also has a task that
    /// another context added and that was merged in (so no undo action of this context links
    /// them). The person's deletion is propagated (cascade to the task) in the
    /// processPendingChanges that ends the undo's event, which runs inside the undo: the
    /// cascade is undone by the redo with the rest. (It ran after the undo manager's undo(), and
    /// the cascade was recorded as a new, ordinary undo group that emptied the redo stack.)
    func testAnUndoneSavedInsertWhoseDeletionCascadesCanBeRedone() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let other = stack.newContext()
            let adaThere = try other.existingObject(with: ada.objectID)
            let taskThere = stack.insert("Task", ["title": "Plan", "uuid": UUID(), "owner": adaThere], into: other)
            stack.context.mergeChanges(fromContextDidSave: try savePayload(of: other))
            let undoManager = try XCTUnwrap(stack.context.undoManager)

            stack.context.undo()
            XCTAssertTrue(ada.isDeleted, "\(stack.storeType): undoing a saved insertion deletes the object")
            let task = try XCTUnwrap(stack.context.registeredObject(for: taskThere.objectID))
            XCTAssertTrue(task.isDeleted, "\(stack.storeType): the cascade rule deletes the task")
            XCTAssertTrue(undoManager.canRedo, "\(stack.storeType): the undo can be redone")
            XCTAssertFalse(undoManager.canUndo, "\(stack.storeType): the only group was undone; nothing is left to undo")

            stack.context.redo()
            XCTAssertFalse(ada.isDeleted, "\(stack.storeType): redo inserts the person again")
            XCTAssertFalse(task.isDeleted, "\(stack.storeType): and her task with her")
        }
    }

    /// NSManagedObjectContext.undo() sends undo() to the context's undo manager, which closes a
    /// group opened by hand at the top level first (see above): the context's undo undoes the
    /// changes made in that group, where it trapped on the open group.
    func testContextUndoClosesAGroupOpenedByHandAndUndoesIt() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let undoManager = try XCTUnwrap(stack.context.undoManager)
            undoManager.beginUndoGrouping()
            ada.setValue("Bea", forKey: "firstName")
            stack.context.processPendingChanges()
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada", "\(stack.storeType)")
            XCTAssertEqual(undoManager.groupingLevel, 0, "\(stack.storeType)")
            stack.context.redo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Bea", "\(stack.storeType)")
        }
    }

    /// The undo manager's redo() called directly (not through the context) after a new change
    /// that no processPendingChanges has ended yet: the change emptied the redo stack, so
    /// redo() does nothing (it trapped on the change's open event group), and the change stays
    /// to undo.
    func testRedoCalledOnTheUndoManagerAfterANewUnprocessedChangeDoesNothing() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            ada.setValue("Bea", forKey: "firstName")
            stack.context.undo()
            ada.setValue("Cleo", forKey: "firstName")
            let undoManager = try XCTUnwrap(stack.context.undoManager)
            XCTAssertFalse(undoManager.canRedo, "\(stack.storeType)")
            undoManager.redo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Cleo", "\(stack.storeType)")
            stack.context.undo()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada", "\(stack.storeType)")
        }
    }

    /// A cascade through several levels and a cycle (talk 000: "you can kind
    /// of cascade the delete so that's the ripple effect"), saved, undone and saved again,
    /// brings every row and relationship back to the store, including an object inserted
    /// after the last save; redo and save delete them all again.
    func testACascadeThroughLevelsAndACycleUndoneAcrossASaveRestoresTheStore() throws {
        let model = ManagedObjectModel {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("children", to: "Folder", inverse: "parent", toMany: true, deleteRule: .cascade)
                Relationship("parent", to: "Folder", inverse: "children")
                Relationship("partner", to: "Folder", inverse: "partner", deleteRule: .cascade)
            }
        }
        try forEachStore(undo: true, model: model) { stack in
            let root = stack.insert("Folder", ["name": "root"])
            let child = stack.insert("Folder", ["name": "child", "parent": root])
            let grandchild = stack.insert("Folder", ["name": "grandchild", "parent": child])
            let partner = stack.insert("Folder", ["name": "partner"])
            grandchild.setValue(partner, forKey: "partner")
            try stack.context.save()
            let leaf = stack.insert("Folder", ["name": "leaf", "parent": partner])
            stack.context.processPendingChanges()
            stack.context.delete(root)
            stack.context.processPendingChanges()
            XCTAssertTrue([root, child, grandchild, partner, leaf].allSatisfy(\.isDeleted))
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Folder", in: stack.newContext()).count, 0)

            stack.context.undo()
            try stack.context.save()
            let folders = try stack.fetch("Folder", sortedBy: "name", in: stack.newContext())
            XCTAssertEqual(folders.map { $0.value(forKey: "name") as? String }, ["child", "grandchild", "leaf", "partner", "root"])
            let byName = Dictionary(uniqueKeysWithValues: folders.map { ($0.value(forKey: "name") as! String, $0) })
            XCTAssertTrue(byName["child"]?.value(forKey: "parent") as? ManagedObject === byName["root"])
            XCTAssertTrue(byName["grandchild"]?.value(forKey: "parent") as? ManagedObject === byName["child"])
            XCTAssertTrue(byName["grandchild"]?.value(forKey: "partner") as? ManagedObject === byName["partner"])
            XCTAssertTrue(byName["partner"]?.value(forKey: "partner") as? ManagedObject === byName["grandchild"])
            XCTAssertTrue(byName["leaf"]?.value(forKey: "parent") as? ManagedObject === byName["partner"])

            stack.context.redo()
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Folder", in: stack.newContext()).count, 0)
        }
    }

    // MARK: Delete rules

    /// A deny rule reached through a cascade refuses the save, naming the
    /// object cascaded to (talk 000: "you can deny delete"; NSDeleteRule.denyDeleteRule: "If
    /// there is at least one object at the relationship destination, then the source object
    /// cannot be deleted"), and undoing the delete lets the save succeed.
    func testADenyRuleReachedThroughACascadeRefusesTheSaveAndUndoClearsIt() throws {
        let model = ManagedObjectModel {
            Entity("Owner") { Relationship("projects", to: "Project", inverse: "owner", toMany: true, deleteRule: .cascade) }
            Entity("Project") {
                Relationship("owner", to: "Owner", inverse: "projects")
                Relationship("items", to: "Item", inverse: "project", toMany: true, deleteRule: .deny)
            }
            Entity("Item") { Relationship("project", to: "Project", inverse: "items") }
        }
        try forEachStore(undo: true, model: model) { stack in
            let owner = stack.insert("Owner")
            let project = stack.insert("Project", ["owner": owner])
            stack.insert("Item", ["project": project])
            try stack.context.save()
            stack.context.delete(owner)
            let found = failures { try stack.context.save() }
            XCTAssertEqual(found.map(\.objectID), [project.objectID])
            XCTAssertEqual(found.map(\.entity), ["Project"])
            XCTAssertEqual(found.map(\.property), ["items"])
            XCTAssertEqual(found.map(\.rule), [.deny])
            stack.context.undo()
            XCTAssertNoThrow(try stack.context.save())
            XCTAssertFalse(owner.isDeleted || project.isDeleted)
            XCTAssertEqual(try stack.fetch("Project", in: stack.newContext()).count, 1)
        }
    }

    /// Deleting an object again once its deletion was saved does nothing, as in Core Data
    /// (the object has left the context: its managedObjectContext is nil, and deleteObject:
    /// ignores an object of no context): it trapped as an object of another context. The
    /// context has no change, and the row stays deleted.
    func testDeletingAnObjectAgainAfterItsDeletionWasSavedDoesNothing() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            stack.context.delete(ada)
            try stack.context.save()
            XCTAssertNil(ada.managedObjectContext, "\(stack.storeType)")
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertFalse(stack.context.hasChanges, "\(stack.storeType)")
            XCTAssertNoThrow(try stack.context.save(), "\(stack.storeType)")
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0, "\(stack.storeType)")
        }
    }

    // MARK: Validation

    /// A model's regular expression must match the whole string. Talk 000 lists "the regular
    /// expression a string has to match" among the model's validation rules; Core Data checks
    /// it as a MATCHES comparison ("The left hand expression equals the right hand expression
    /// using a regex-style comparison according to ICU v3", Predicate Programming Guide), and
    /// the project's own builder says "A regular expression valid strings match in whole".
    /// "category" matches /cat|category/ in whole (this project's own Predicate
    /// "SELF MATCHES 'cat|category'" says so too). PropertyRules took the first anchored match
    /// ("cat") and compared its range with the whole string, refusing the value; it now matches
    /// as MATCHES does.
    func testARegularExpressionRuleAcceptsAWholeStringMatchOfAnyAlternative() throws {
        let model = ManagedObjectModel {
            Entity("Tag") { Attribute("kind", .string).matching("cat|category") }
        }
        XCTAssertEqual(try Predicate(format: "SELF MATCHES 'cat|category'").evaluate(with: "category"), true)
        try forEachStore(model: model) { stack in
            stack.insert("Tag", ["kind": "category"])
            stack.insert("Tag", ["kind": "cat"])
            // A string that only starts with a match is refused, and it alone.
            let cats = stack.insert("Tag", ["kind": "cats"])
            let found = failures { try stack.context.save() }
            XCTAssertEqual(found.map(\.value), ["\"cats\""], "\(stack.storeType): \(found)")
            XCTAssertEqual(found.map(\.objectID), [cats.objectID], "\(stack.storeType)")
        }
    }

    /// NSManagedObject.validateValue(_:forKey:): "This method is responsible for two things:
    /// coercing the value into an appropriate type for the object, and validating it according
    /// to the object's rules. The default implementation provided by NSManagedObject consults
    /// the object's entity description to coerce the value and to check for basic errors".
    /// The talk (000) gives the same order: "first check whether the value is actually of a
    /// value type and then maybe check the length".
    /// setValue(2, forKey: "priority") stores Int16(2); validateValue refused the Int 2 as
    /// "not a Integer 16", and reported 9 as a type error instead of "greater than the maximum 3".
    func testValidateValueCoercesANumberToTheAttributeTypeBeforeCheckingItsRange() throws {
        try forEachStore { stack in
            let task = stack.task("Plan")
            var two: Any? = 2
            XCTAssertEqual(failures { try task.validateValue(&two, forKey: "priority") }.map(\.message), [], "\(stack.storeType)")
            XCTAssertTrue(two is Int16, "coerced to the attribute's type, got \(two.map { type(of: $0) } as Any)")
            var nine: Any? = 9
            XCTAssertEqual(failures { try task.validateValue(&nine, forKey: "priority") }.map(\.rule), [.maximum(3)], "\(stack.storeType)")
            // A number too large for the attribute's type is not converted (that would trap):
            // it is refused as of the wrong type.
            var huge: Any? = 100_000
            XCTAssertEqual(failures { try task.validateValue(&huge, forKey: "priority") }.map(\.rule),
                           [.type(expected: "Integer 16")], "\(stack.storeType)")
        }
    }

    /// NSManagedObject.validateValue(_:forKey:) validates "according to the object's rules"
    /// (see above), here the minimum and maximum count of a to-many relationship. An array of
    /// objects is a value setValue(_:forKey:) takes for a to-many relationship (it sets two
    /// members from a two-element array). PropertyRules counted any value that was not a Set
    /// or an OrderedSet as one object: two members were refused as fewer than the minimum 2,
    /// and five as fewer than the minimum 2 as well, instead of more than the maximum 3.
    func testValidateValueCountsTheObjectsOfAnArrayForAToManyRelationship() throws {
        let model = ManagedObjectModel {
            Entity("Team") {
                Relationship("members", to: "Member", inverse: "team", toMany: true).required().count(min: 2, max: 3)
            }
            Entity("Member") { Relationship("team", to: "Team", inverse: "members") }
        }
        try forEachStore(model: model) { stack in
            let team = stack.insert("Team")
            let members = (0..<5).map { _ in stack.insert("Member") }
            var two: Any? = Array(members.prefix(2))
            XCTAssertEqual(failures { try team.validateValue(&two, forKey: "members") }.map(\.message), [], "\(stack.storeType)")
            var five: Any? = members
            XCTAssertEqual(failures { try team.validateValue(&five, forKey: "members") }.map(\.rule), [.maximumCount(3)], "\(stack.storeType)")
            // The same two-element array, set, makes a valid team.
            team.setValue(Array(members.prefix(2)), forKey: "members")
            XCTAssertEqual(failures { try stack.context.save() }.map(\.message), [], "\(stack.storeType)")
        }
    }

    /// NSDetailedErrorsKey: "If multiple validation errors occur in one operation, they are
    /// collected in an array and added with this key to the 'top-level error' of the
    /// operation"; ARCHITECTURE.md: "Validation reports every failure of a save at once".
    /// A validate<Key> method may fail with any error (Key-Value Coding Programming Guide:
    /// "set the error parameter to an NSError object that indicates the reason for failure").
    /// Such an error is one failure among the others (rule .custom named after its type,
    /// message its description). validateProperties() caught only ValidationError from a
    /// validator: any other error escaped it, dropping the failures already found for the
    /// object (here the required zTitle) and skipping the properties after it.
    func testAValidatorFailingWithItsOwnErrorDoesNotHideTheObjectsOtherFailures() throws {
        ObjectClasses.register(CheckedNote.self)
        let model = ManagedObjectModel {
            Entity("CheckedNote", class: "CheckedNote") {
                Attribute("aText", .string)
                Attribute("zTitle", .string).required()
            }
        }
        try forEachStore(model: model) { stack in
            let note = stack.insert("CheckedNote", ["aText": "TODO"])
            let found = failures { try stack.context.save() }
            XCTAssertEqual(found.count, 2, "\(stack.storeType): \(found)")
            XCTAssertTrue(found.contains { $0.property == "zTitle" && $0.rule == .required && $0.objectID == note.objectID },
                          "\(stack.storeType): the missing title is reported too: \(found)")
            XCTAssertTrue(found.contains { $0.message.contains("NoteError") }, "\(stack.storeType): \(found)")
        }
    }
}

/// An error of a validator's own (not a ValidationError).
struct NoteError: Error, CustomStringConvertible {
    var description: String { "NoteError: notes may not say TODO" }
}

/// A class whose validator for `aText` fails with an error of its own.
final class CheckedNote: ManagedObject, PropertyValidating {
    static var validators: [String: (CheckedNote) -> (inout Any?) throws -> Void] { ["aText": CheckedNote.validateAText] }

    func validateAText(_ value: inout Any?) throws {
        if value as? String == "TODO" { throw NoteError() }
    }
}
