// New objects of entities without to-many relationships read and set their attributes in a row
// of their defaults, as fetched objects read theirs: what they report as changed, undo and redo,
// inverse relationships, deletion before a save, and objects made outside a context and inserted
// later behave as for objects holding slots, in both stores.
import Foundation
import XCTest
@testable import ObjectGraph

final class NewObjectRowTests: XCTestCase {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Item") {
                Attribute("title", .string)
                Attribute("count", .integer32, default: 3)
                Attribute("note", .string, default: "none").transient()
                Relationship("partner", to: "Item", inverse: "partner")
            }
            Entity("Box") {
                Attribute("note", .string, default: "none").transient()
                Relationship("things", to: "Thing", inverse: "box", toMany: true)
            }
            Entity("Thing") { Attribute("name", .string); Relationship("box", to: "Box", inverse: "things") }
        }
    }

    /// A new object's persistent defaults are its changed values; its transient ones are not
    /// (Apple, changedValues(): "only reports changes to properties that are persistent
    /// properties"), though they are its values.
    func testANewObjectsPersistentDefaultsAreChangedValues() throws {
        for type in Stack.storeTypes {
            let stack = try Stack(storeType: type, model: Self.model())
            let item = stack.context.insertNewObject(forEntityName: "Item")
            let box = stack.context.insertNewObject(forEntityName: "Box")
            XCTAssertEqual(Set(box.changedValues().keys), ["things"])
            XCTAssertEqual(Set(item.changedValues().keys), ["count"], "\(type)")
            XCTAssertEqual(item.value(forKey: "note") as? String, "none")
        }
    }

    func testTypedSetsOnANewObjectAreUndoneRedoneAndSaved() throws {
        for type in Stack.storeTypes {
            let stack = try Stack(storeType: type, model: Self.model(), undo: true)
            let item = stack.context.insertNewObject(forEntityName: "Item")
            let title = item.layout.index(of: "title")!, count = item.layout.index(of: "count")!
            stack.context.processPendingChanges()
            item.setAttribute("A", atSlot: title)
            item.setAttribute(Int32(9), atSlot: count)
            stack.context.processPendingChanges()
            XCTAssertEqual(item.changedValuesForCurrentEvent().count, 0)
            stack.context.undoManager!.undo()
            XCTAssertNil(item.value(forKey: "title"))
            XCTAssertEqual(item.value(forKey: "count") as? Int32, 3)
            stack.context.undoManager!.redo()
            XCTAssertEqual(item.value(forKey: "title") as? String, "A")
            XCTAssertEqual(item.value(forKey: "count") as? Int32, 9)
            try stack.context.save()
            let fetched = try stack.fetch("Item", in: stack.newContext())
            XCTAssertEqual(fetched.first?.value(forKey: "count") as? Int32, 9)
            // Undoing the sets and the insertion leaves nothing to save.
            stack.context.undoManager!.undo()
            stack.context.undoManager!.undo()
            stack.context.processPendingChanges()
            try stack.context.save()
        }
    }

    func testNewObjectsKeepInversesAndSaveTypedSetsAfterDeletesAndPermanentIDs() throws {
        for type in Stack.storeTypes {
            let stack = try Stack(storeType: type, model: Self.model())
            let a = stack.context.insertNewObject(forEntityName: "Item")
            let b = stack.context.insertNewObject(forEntityName: "Item")
            a.setValue(b, forKey: "partner")
            XCTAssertTrue(b.value(forKey: "partner") as? ManagedObject === a)
            XCTAssertNotNil(b.changedValues()["partner"])
            let box = stack.context.insertNewObject(forEntityName: "Box")
            let thing = stack.context.insertNewObject(forEntityName: "Thing")
            box.mutableSetValue(forKey: "things").insert(thing)
            XCTAssertTrue(thing.value(forKey: "box") as? ManagedObject === box)
            try stack.context.obtainPermanentIDs(for: [a, b, thing])
            b.setAttribute(Int32(5), atSlot: b.layout.index(of: "count")!)
            let c = stack.context.insertNewObject(forEntityName: "Item")
            stack.context.delete(c)
            try stack.context.save()
            let other = stack.newContext()
            let items = try stack.fetch("Item", in: other)
            XCTAssertEqual(items.count, 2)
            let fb = items.first { $0.objectID == b.objectID }
            XCTAssertEqual(fb?.value(forKey: "count") as? Int32, 5)
            XCTAssertEqual((fb?.value(forKey: "partner") as? ManagedObject)?.objectID, a.objectID)
            let things = try stack.fetch("Thing", in: other)
            XCTAssertEqual((things.first?.value(forKey: "box") as? ManagedObject)?.objectID, box.objectID)
            // A change after the save goes through the row too, and only it is written.
            b.setAttribute("T", atSlot: b.layout.index(of: "title")!)
            XCTAssertEqual(Set(b.changedValues().keys), ["title"])
            try stack.context.save()
            other.refreshAllObjects()
            XCTAssertEqual(fb?.value(forKey: "title") as? String, "T")
        }
    }

    func testAnObjectMadeOutsideAContextAndInsertedLaterIsSaved() throws {
        for type in Stack.storeTypes {
            let stack = try Stack(storeType: type, model: Self.model())
            let loose = ManagedObject(entity: stack.model.entitiesByName["Item"]!, insertInto: nil)
            stack.context.insert(loose)
            XCTAssertEqual(Set(loose.changedValues().keys), ["count"], "\(type)")
            loose.setAttribute("x", atSlot: loose.layout.index(of: "title")!)
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Item", in: stack.newContext()).first?.value(forKey: "title") as? String, "x")
        }
    }
}
