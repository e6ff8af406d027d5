// Custom accessors as Core Data writes them: willChangeValue(forKey:), setPrimitiveValue(_:forKey:),
// didChangeValue(forKey:). The bracketed change is recorded as setValue(_:forKey:) records one:
// the object is updated, notified, undoable and saved, and a to-one keeps its inverse. Without the
// bracket a primitive set stays untracked, as before.
import Foundation
import XCTest
@testable import ObjectGraph

/// A note whose `text` setter trims, and whose `owner` setter goes through the bracket too.
final class TrimmedNote: ManagedObject {
    override class var entityName: String { "TrimmedNote" }

    var text: String? {
        get {
            willAccessValue(forKey: "text")
            defer { didAccessValue(forKey: "text") }
            return primitiveValue(forKey: "text") as? String
        }
        set {
            willChangeValue(forKey: "text")
            setPrimitiveValue(newValue?.trimmingCharacters(in: .whitespaces), forKey: "text")
            didChangeValue(forKey: "text")
        }
    }

    var owner: ManagedObject? {
        get { primitiveValue(forKey: "owner") as? ManagedObject }
        set {
            willChangeValue(forKey: "owner")
            willChangeValue(forKey: "owner")   // nested: recorded once, at the outer close
            setPrimitiveValue(newValue, forKey: "owner")
            didChangeValue(forKey: "owner")
            didChangeValue(forKey: "owner")
        }
    }
}

final class CustomAccessorTests: XCTestCase {
    private static let model = ManagedObjectModel {
        Entity("TrimmedNote", class: "TrimmedNote") {
            Attribute("text", .string)
            Relationship("owner", to: "Writer", inverse: "notes")
        }
        Entity("Writer") {
            Attribute("name", .string)
            Relationship("notes", to: "TrimmedNote", inverse: "owner", toMany: true)
        }
    }

    override func setUp() {
        ObjectClasses.register(TrimmedNote.self)
    }

    func testABracketedPrimitiveChangeIsRecordedAsAChange() throws {
        try forEachStore(undo: true, model: Self.model) { stack in
            let note = try XCTUnwrap(stack.context.insertNewObject(forEntityName: "TrimmedNote") as? TrimmedNote)
            note.text = "  first  "
            let writer = stack.context.insertNewObject(forEntityName: "Writer")
            try stack.context.save()
            stack.context.undoManager?.removeAllActions()

            var changed: [Set<String>] = []
            let token = stack.context.observe { note in
                if case .objectsDidChange(let changes) = note {
                    changed.append(Set(changes.updated.compactMap { ($0 as? TrimmedNote)?.text }))
                }
            }
            defer { token.cancel() }
            note.text = "  second "
            note.owner = writer
            XCTAssertTrue(note.hasChanges, "\(stack.storeType)")
            XCTAssertEqual(Set(note.changedValues().keys), ["text", "owner"])
            XCTAssertEqual((writer.value(forKey: "notes") as? Set<ManagedObject>)?.count, 1, "\(stack.storeType): the inverse is kept")
            stack.context.processPendingChanges()
            XCTAssertEqual(changed, [["second"]])

            stack.context.undoManager?.undo()
            XCTAssertEqual(note.text, "first", "\(stack.storeType): undone")
            XCTAssertNil(note.owner)
            XCTAssertEqual((writer.value(forKey: "notes") as? Set<ManagedObject>)?.count, 0)
            stack.context.undoManager?.redo()
            try stack.context.save()
            let saved = try XCTUnwrap(stack.newContext().existingObject(with: note.objectID) as? TrimmedNote)
            XCTAssertEqual(saved.text, "second", "\(stack.storeType): saved")
            XCTAssertEqual(saved.owner?.objectID, writer.objectID)
        }
    }

    /// A primitive set without the bracket is not a change (Core Data's primitive accessors
    /// record nothing either).
    func testAPrimitiveSetAloneRecordsNothing() throws {
        let stack = try Stack(storeType: .sqlite, model: Self.model)
        let note = stack.context.insertNewObject(forEntityName: "TrimmedNote")
        note.setValue("kept", forKey: "text")
        try stack.context.save()
        note.setPrimitiveValue("quiet", forKey: "text")
        XCTAssertFalse(note.hasChanges)
        XCTAssertTrue(stack.context.updatedObjects.isEmpty)
    }
}
