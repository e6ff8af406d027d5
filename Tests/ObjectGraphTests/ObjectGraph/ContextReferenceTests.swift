// Managed objects do not keep their context alive (as in Core Data) and hold it unretained: when a
// context goes, every object that still refers to it, registered or not (an undone insertion, a
// new object deleted before a save, a merged duplicate, an object the registry no longer names),
// must see no context, and its values must stay readable.
import Foundation
import XCTest
@testable import ObjectGraph

/// A context on `stack`'s coordinator that no one else keeps.
private func unkeptContext(on stack: Stack, undo: Bool = false) -> ManagedObjectContext {
    let context = ManagedObjectContext(concurrencyType: .mainQueue)
    context.persistentStoreCoordinator = stack.coordinator
    if undo { context.undoManager = UndoManager() }
    return context
}

final class ContextReferenceTests: XCTestCase {
    func testUndoneInsertionsAndForgottenNewObjectsSeeNoContextOnceItIsGone() throws {
        try forEachStore { stack in
            var undone: ManagedObject?
            var forgotten: ManagedObject?
            var fetched: ManagedObject?
            weak var weakContext: ManagedObjectContext?
            do {
                let context = unkeptContext(on: stack, undo: true)
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

    func testAContextWithUndoHistoryIsFreedWithItsUndoManager() throws {
        // The context owns its undo manager and the manager's actions name the context: the
        // manager must not retain it (as Foundation's does not), or neither is ever freed.
        try forEachStore { stack in
            weak var weakContext: ManagedObjectContext?
            weak var weakUndoManager: UndoManager?
            weak var weakObject: ManagedObject?
            do {
                let context = unkeptContext(on: stack, undo: true)
                weakContext = context
                weakUndoManager = context.undoManager
                let ada = stack.insert("Person", ["firstName": "Ada"], into: context)
                let bob = stack.insert("Person", ["firstName": "Bob"], into: context)
                weakObject = bob
                try context.save()
                context.processPendingChanges()
                ada.setValue("Ada L.", forKey: "firstName")
                context.delete(bob)
                context.processPendingChanges()
                let carol = stack.insert("Person", ["firstName": "Carol"], into: context)
                context.processPendingChanges()
                context.undoManager!.undo()
                XCTAssertTrue(context.registeredObject(for: carol.objectID) == nil, "the insertion was undone")
                XCTAssertTrue(context.undoManager!.canUndo && context.undoManager!.canRedo)
            }
            XCTAssertNil(weakContext, "undo history does not keep the context alive")
            XCTAssertNil(weakUndoManager, "the context's undo manager goes with it")
            XCTAssertNil(weakObject, "nor the objects its actions held")
        }
    }

    func testAnUndoManagerThatOutlivesItsContextDoesNotKeepItAlive() throws {
        try forEachStore { stack in
            weak var weakContext: ManagedObjectContext?
            let undoManager = UndoManager()
            var changed: ManagedObject?
            do {
                let context = unkeptContext(on: stack)
                context.undoManager = undoManager
                weakContext = context
                let ada = stack.insert("Person", ["firstName": "Ada"], into: context)
                try context.save()
                context.processPendingChanges()
                ada.setValue("Ada L.", forKey: "firstName")
                _ = stack.insert("Person", ["firstName": "Bob"], into: context)
                context.processPendingChanges()
                changed = ada
            }
            XCTAssertNil(weakContext, "an undo manager kept elsewhere does not keep the context alive")
            XCTAssertNil(changed?.managedObjectContext)
            // Undoing the gone context's group runs nothing against it, and does not trap.
            XCTAssertTrue(undoManager.canUndo)
            undoManager.undo()
            undoManager.redo()
            XCTAssertNil(changed?.managedObjectContext)
        }
    }

    func testAMergedDuplicateSeesNoContextOnceItIsGone() throws {
        try forEachStore { stack in
            var objects: [ManagedObject] = []
            weak var weakContext: ManagedObjectContext?
            do {
                let context = unkeptContext(on: stack)
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
            let context = unkeptContext(on: stack, undo: true)
            let bob = stack.insert("Person", ["firstName": "Bob"], into: context)
            context.processPendingChanges()
            context.undoManager!.undo()
            XCTAssertTrue(bob.managedObjectContext === context, "undo may bring it back: it still names the context")
            context.reset()
            XCTAssertNil(bob.managedObjectContext)
        }
    }
}

/// Found in review: the context must track (in its registry under the object's own identity, or
/// among its detached objects) every object that still refers to it, and no object that is gone.
/// Each test once broke one of the two. Assertions on these references test a Bool: a failing
/// `XCTAssertNil` would describe the value, reflecting a freed object.
final class ContextReferenceTrackingTests: XCTestCase {
    /// Contexts and objects kept for the process's life when a test finds the invariant broken:
    /// releasing them would touch freed memory and take the whole run down.
    nonisolated(unsafe) private static var keptAlive: [AnyObject] = []

    /// Another context deletes the row of `id`; `context` merges that save (the object leaves it).
    private func deleteElsewhere(_ id: ObjectID, in stack: Stack, mergingInto context: ManagedObjectContext) throws {
        let other = stack.newContext()
        var payload: ContextDidSave?
        let token = other.observe { note in
            if case .didSave(let saved, _) = note { payload = saved }
        }
        defer { token.cancel() }
        other.delete(try other.existingObject(with: id))
        try other.save()
        context.mergeChanges(fromContextDidSave: try XCTUnwrap(payload))
    }

    /// Releases `object` (the last reference to it) and checks that `context` tracks it no
    /// more: a detached entry would outlive it, and the context's deinit or reset would touch
    /// freed memory.
    private func releaseAndCheckNotDetached(_ object: inout ManagedObject?, in context: ManagedObjectContext,
                                            file: StaticString = #filePath, line: UInt = #line) {
        let identity = ObjectIdentifier(object!)
        weak let released = object
        object = nil
        XCTAssertNil(released, file: file, line: line)
        XCTAssertFalse(context.detached[identity] != nil, "detached holds a deallocated object", file: file, line: line)
        if context.detached[identity] != nil { Self.keptAlive.append(context) }
    }

    func testUndoingTheInsertionOfAnObjectDeletedElsewhereLeavesNoDeadDetachedEntry() throws {
        try forEachStore { stack in
            let context = unkeptContext(on: stack, undo: true)
            var bob: ManagedObject? = stack.insert("Person", ["firstName": "Bob"], into: context)
            try context.save()
            try self.deleteElsewhere(bob!.objectID, in: stack, mergingInto: context)
            XCTAssertNil(bob!.managedObjectContext, "the merged deletion took it out of the context")
            context.undo()  // the insertion
            XCTAssertNil(bob!.managedObjectContext)
            context.undoManager = nil  // its redo action holds bob
            releaseAndCheckNotDetached(&bob, in: context)
        }
    }

    func testUndoingTheInsertionOfAnObjectDeletedElsewhereKeepsTheObjectNowRegisteredUnderItsID() throws {
        try forEachStore { stack in
            var bob: ManagedObject?
            var ghost: ManagedObject?
            weak var weakContext: ManagedObjectContext?
            do {
                let context = unkeptContext(on: stack, undo: true)
                weakContext = context
                bob = stack.insert("Person", ["firstName": "Bob"], into: context)
                try context.save()
                let id = bob!.objectID
                try self.deleteElsewhere(id, in: stack, mergingInto: context)
                ghost = context.object(with: id)  // any use of the ID registers a fault for it
                XCTAssertTrue(ghost !== bob)
                context.undo()  // the insertion of bob
                XCTAssertTrue(context.registeredObject(for: id) === ghost, "undoing bob's insertion leaves another object's registration")
                context.undoManager = nil
            }
            XCTAssertNil(weakContext)
            XCTAssertFalse(ghost!.contextReference != nil, "the context is gone and the object still points at it")
            if ghost!.contextReference != nil { Self.keptAlive.append(ghost!) }
            _ = bob
        }
    }

    func testObtainingAPermanentIDForAnUndoneInsertionLeavesNoDeadDetachedEntry() throws {
        try forEachStore { stack in
            let context = unkeptContext(on: stack, undo: true)
            var bob: ManagedObject? = stack.insert("Person", ["firstName": "Bob"], into: context)
            context.processPendingChanges()
            context.undo()
            XCTAssertTrue(bob!.managedObjectContext === context)
            try context.obtainPermanentIDs(for: [bob!])
            XCTAssertNil(context.registeredObject(for: bob!.objectID), "an undone insertion stays out of the registry")
            context.undoManager = nil  // its redo action holds bob
            releaseAndCheckNotDetached(&bob, in: context)
        }
    }

    func testObtainingAPermanentIDForANewObjectDeletedBeforeASaveLeavesNoDeadDetachedEntry() throws {
        try forEachStore { stack in
            let context = unkeptContext(on: stack)
            var carol: ManagedObject? = stack.insert("Person", ["firstName": "Carol"], into: context)
            context.delete(carol!)
            context.processPendingChanges()  // forgotten: detached
            try context.obtainPermanentIDs(for: [carol!])
            releaseAndCheckNotDetached(&carol, in: context)
        }
    }

    func testObtainingAPermanentIDForAnObjectOfNoContextRegistersNothing() throws {
        try forEachStore { stack in
            let context = unkeptContext(on: stack)
            var loose: ManagedObject? = ManagedObject(entity: stack.model.entitiesByName["Person"]!, insertInto: nil)
            try context.obtainPermanentIDs(for: [loose!])
            XCTAssertNil(loose!.managedObjectContext)
            XCTAssertFalse(loose!.objectID.isTemporaryID)
            weak let weakLoose = loose
            loose = nil
            XCTAssertNil(weakLoose)
            XCTAssertEqual(context.registry.count, 0, "the registry holds a deallocated object")
            if context.registry.count != 0 { Self.keptAlive.append(context) }
        }
    }

    func testResetFaultingAnObjectThatHoldsTheOnlyReferenceToAnotherRegisteredOne() throws {
        try forEachStore { stack in
            let context = unkeptContext(on: stack)
            let task = stack.insert("Task", ["title": "Write", "uuid": UUID()], into: context)
            do {
                let owner = stack.insert("Person", ["firstName": "Ada"], into: context)
                task.setValue(owner, forKey: "owner")
                try context.save()
            }
            // Allocations that would reuse a freed owner's memory.
            let filler = (0..<64).map { _ in ManagedObject(entity: stack.model.entitiesByName["Person"]!, insertInto: nil) }
            context.reset()
            withExtendedLifetime(filler) {}
            XCTAssertNil(task.managedObjectContext)
            XCTAssertEqual(context.registry.count, 0)
        }
    }
}
