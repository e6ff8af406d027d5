// Managed objects do not keep their context alive (as in Core Data) and hold it unretained: when a
// context goes, every object that still refers to it, registered or not (an undone insertion, a
// new object deleted before a save, a merged duplicate, an object the registry no longer names),
// must see no context, and its values must stay readable.
import Foundation
import XCTest
@testable import ObjectGraph

final class ContextReferenceTests: XCTestCase {
    /// A context on `stack`'s coordinator that no one else keeps.
    private func context(on stack: Stack, undo: Bool = false) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = stack.coordinator
        if undo { context.undoManager = UndoManager() }
        return context
    }

    func testUndoneInsertionsAndForgottenNewObjectsSeeNoContextOnceItIsGone() throws {
        try forEachStore { stack in
            var undone: ManagedObject?
            var forgotten: ManagedObject?
            var fetched: ManagedObject?
            weak var weakContext: ManagedObjectContext?
            do {
                let context = self.context(on: stack, undo: true)
                weakContext = context
                let ada = stack.insert("Person", ["firstName": "Ada"], into: context)
                try context.save()
                fetched = ada
                context.processPendingChanges()
                let bob = stack.insert("Person", ["firstName": "Bob"], into: context)
                context.processPendingChanges()
                context.undoManager!.undo()
                XCTAssertTrue(context.registeredObject(for: bob.objectID) == nil, "an undone insertion leaves the registry")
                undone = bob
                let carol = stack.insert("Person", ["firstName": "Carol"], into: context)
                context.delete(carol)
                context.processPendingChanges()
                XCTAssertTrue(context.registeredObject(for: carol.objectID) == nil)
                forgotten = carol
                // The undo manager holds the undone object: drop its history with the context.
                context.undoManager = nil
            }
            XCTAssertNil(weakContext, "objects and undo actions do not keep the context alive")
            for object in [undone, forgotten, fetched] {
                let object = try XCTUnwrap(object)
                XCTAssertNil(object.managedObjectContext)
            }
            XCTAssertNil(undone?.value(forKey: "firstName"), "undoing the insertion undid the event's sets too")
            XCTAssertEqual(forgotten?.value(forKey: "firstName") as? String, "Carol")
            XCTAssertEqual(fetched?.value(forKey: "firstName") as? String, "Ada")
        }
    }

    func testAMergedDuplicateSeesNoContextOnceItIsGone() throws {
        try forEachStore { stack in
            var objects: [ManagedObject] = []
            weak var weakContext: ManagedObjectContext?
            do {
                let context = self.context(on: stack)
                weakContext = context
                context.mergePolicy = .mergeByPropertyObjectTrump
                let uuid = UUID()
                objects.append(stack.insert("Task", ["title": "First", "uuid": uuid], into: context))
                objects.append(stack.insert("Task", ["title": "Second", "uuid": uuid], into: context))
                try context.save()
                XCTAssertEqual(objects.filter { context.registeredObject(for: $0.objectID) === $0 }.count, 1,
                               "one of the two is merged into the other")
            }
            XCTAssertNil(weakContext)
            for object in objects { XCTAssertNil(object.managedObjectContext) }
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 1)
        }
    }

    func testResetClearsTheContextOfDetachedObjectsToo() throws {
        try forEachStore { stack in
            let context = self.context(on: stack, undo: true)
            let bob = stack.insert("Person", ["firstName": "Bob"], into: context)
            context.processPendingChanges()
            context.undoManager!.undo()
            XCTAssertTrue(bob.managedObjectContext === context, "undo may bring it back: it still names the context")
            context.reset()
            XCTAssertNil(bob.managedObjectContext)
        }
    }
}
