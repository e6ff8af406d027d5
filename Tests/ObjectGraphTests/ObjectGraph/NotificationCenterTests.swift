// Core Data's notifications through NotificationCenter: code written for Core Data observes
// NSManagedObjectContextObjectsDidChange, WillSave, DidSave and DidSaveObjectIDs by name with
// Core Data's user info keys, and merges with mergeChanges(fromContextDidSave:) given the
// notification itself.
import Foundation
import XCTest
@testable import ObjectGraph

final class NotificationCenterTests: XCTestCase {
    func testObjectsDidChangeIsPostedWithCoreDataKeysForTheContextOnly() throws {
        try forEachStore { stack in
            let other = stack.newContext()
            let received = ReceivedNotifications([.NSManagedObjectContextObjectsDidChange], object: stack.context)
            let ada = stack.person("Ada")
            _ = stack.person("Bob", nil)
            XCTAssertTrue(received.notes.isEmpty, "posted when the event ends, not before")
            stack.context.processPendingChanges()
            _ = stack.insert("Person", ["firstName": "Elsewhere"], into: other)
            other.processPendingChanges()
            XCTAssertEqual(received.notes.count, 1, "another context's event is not this context's")
            XCTAssertTrue(received.notes.first?.object as AnyObject? === stack.context)
            XCTAssertEqual(received.objects(NSInsertedObjectsKey, in: 0)?.count, 2)
            XCTAssertEqual(received.objects(NSInsertedObjectsKey, in: 0)?.contains(ada), true)
            XCTAssertNil(received.notes[0].userInfo?[NSUpdatedObjectsKey], "an empty set is left out")

            try stack.context.save()
            ada.setValue("Augusta", forKey: "firstName")
            stack.context.processPendingChanges()
            XCTAssertEqual(received.objects(NSUpdatedObjectsKey, in: received.notes.count - 1), [ada])
            XCTAssertEqual(received.objects(ManagedObjectContext.NotificationKey.updatedObjects.rawValue, in: received.notes.count - 1), [ada])
        }
    }

    func testASavePostsWillSaveDidSaveAndDidSaveObjectIDsInOrder() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let carol = stack.person("Carol")
            try stack.context.save()
            let received = ReceivedNotifications([ManagedObjectContext.willSaveObjectsNotification, ManagedObjectContext.didSaveObjectsNotification,
                                     ManagedObjectContext.didSaveObjectIDsNotification], object: stack.context)
            let dan = stack.person("Dan")
            ada.setValue("Augusta", forKey: "firstName")
            let carolID = carol.objectID
            stack.context.delete(carol)
            try stack.context.save()
            XCTAssertEqual(received.names, [Notification.Name.NSManagedObjectContextWillSave, .NSManagedObjectContextDidSave,
                                            .NSManagedObjectContextDidSaveObjectIDs].map(\.rawValue))
            XCTAssertNil(received.notes[0].userInfo)
            XCTAssertEqual(received.objects(NSInsertedObjectsKey, in: 1), [dan])
            XCTAssertEqual(received.objects(NSUpdatedObjectsKey, in: 1), [ada])
            XCTAssertEqual(received.objects(NSDeletedObjectsKey, in: 1), [carol])
            let ids = received.notes[2].userInfo
            XCTAssertEqual(ids?[NSInsertedObjectIDsKey] as? Set<ObjectID>, [dan.objectID])
            XCTAssertFalse(dan.objectID.isTemporaryID)
            XCTAssertEqual(ids?[NSUpdatedObjectIDsKey] as? Set<ObjectID>, [ada.objectID])
            XCTAssertEqual(ids?[NSDeletedObjectIDsKey] as? Set<ObjectID>, [carolID])
        }
    }

    func testResetPostsInvalidatedAll() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let id = ada.objectID
            let received = ReceivedNotifications([.NSManagedObjectContextObjectsDidChange], object: stack.context)
            stack.context.reset()
            XCTAssertEqual(received.notes.count, 1)
            XCTAssertEqual(received.notes.first?.userInfo?[NSInvalidatedAllObjectsKey] as? [ObjectID], [id])
        }
    }

    /// The pattern of Core Data's documentation: a background context's didSave merged into the
    /// view context from a NotificationCenter observer.
    func testAnObserverMergesABackgroundSaveWithTheNotification() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            try stack.context.save()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada")
            let background = ManagedObjectContext(concurrencyType: .privateQueue)
            background.persistentStoreCoordinator = stack.coordinator
            let view = stack.context
            let merged = ReceivedNotifications([.NSManagedObjectContextDidMergeChangesObjectIDs], object: view)
            let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: background,
                                                                  queue: nil) { note in
                let saved = ContextDidSave(note)  // on the saving queue: a Notification is not Sendable
                view.perform { view.mergeChanges(fromContextDidSave: saved) }
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            let (adaID, bobID) = (ada.objectID, bob.objectID)
            var carolID: ObjectID?
            try background.performAndWait {
                try background.existingObject(with: adaID).setValue("Augusta", forKey: "firstName")
                background.delete(try background.existingObject(with: bobID))
                let carol = background.insertNewObject(forEntityName: "Person")
                carol.setValue("Carol", forKey: "firstName")
                try background.save()
                carolID = carol.objectID
            }
            drain(view)
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta", "the update was merged")
            XCTAssertTrue(bob.isDeleted || bob.managedObjectContext == nil, "the deletion was merged")
            XCTAssertEqual(merged.notes.count, 1)
            XCTAssertEqual(merged.notes.first?.userInfo?[NSInsertedObjectIDsKey] as? Set<ObjectID>, [try XCTUnwrap(carolID)])
            XCTAssertEqual(merged.notes.first?.userInfo?[NSUpdatedObjectIDsKey] as? Set<ObjectID>, [adaID])
            XCTAssertEqual(merged.notes.first?.userInfo?[NSDeletedObjectIDsKey] as? Set<ObjectID>, [bobID])
        }
    }

    /// The other common pattern: observers on the main queue merge the notification itself.
    func testAnObserverOnTheMainQueueMergesTheNotificationItself() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let view = stack.context
            let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil,
                                                                  queue: .main) { note in
                guard note.object as AnyObject? !== view else { return }
                view.mergeChanges(fromContextDidSave: note)  // delivered on the main queue, the view context's
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            let adaID = ada.objectID
            try stack.saveInBackground { background in
                try background.existingObject(with: adaID).setValue("Augusta", forKey: "firstName")
            }
            drain(view)
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
        }
    }

    /// Core Data's mergeChanges(fromRemoteContextSave:into:) with object URIs, as a process that
    /// kept them (from history, say) hands them over.
    func testRemoteChangesGivenAsURIsAreMerged() throws {
        try forEachStore { stack in
            guard stack.storeType == .sqlite else { return }  // another process needs a file
            let ada = stack.person("Ada")
            try stack.context.save()
            let elsewhere = try stack.otherProcessContext()
            let remote = try elsewhere.existingObject(with: elsewhere.persistentStoreCoordinator!
                .managedObjectID(forURIRepresentation: ada.objectID.uriRepresentation)!)
            remote.setValue("Augusta", forKey: "firstName")
            try elsewhere.save()
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Ada", "not merged yet")
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [remote.objectID.uriRepresentation]],
                                              into: [stack.context])
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
        }
    }

    /// A notification built by hand in Core Data's older form (sets of objects) merges too.
    func testANotificationWithObjectSetsMerges() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            try stack.context.save()
            let other = stack.newContext()
            let there = try other.existingObject(with: ada.objectID)
            there.setValue("Augusta", forKey: "firstName")
            try other.save()
            let note = Notification(name: .NSManagedObjectContextDidSave, object: other,
                                    userInfo: [NSUpdatedObjectsKey: Set([there])])
            stack.context.mergeChanges(fromContextDidSave: note)
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
        }
    }
}
