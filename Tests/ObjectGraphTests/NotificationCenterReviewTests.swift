// Review of two features: Core Data's notifications through NotificationCenter (and the merge
// entry points that take a notification or its user info), and BatchDeleteRequest made from a
// fetch request or from object IDs. Every test here fails on the code it was written against;
// each says what Core Data does and what happens instead.
import Foundation
import XCTest
@testable import ObjectGraph

final class NotificationCenterReviewTests: XCTestCase {
    /// People with notes; a person with notes cannot be deleted (deny).
    static let denyModel: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("notes", to: "Note", inverse: "author", toMany: true, deleteRule: .deny)
            }
            Entity("Note") {
                Attribute("text", .string)
                Relationship("author", to: "Person", inverse: "notes")
            }
        }
        model.freeze()
        return model
    }()

    /// A context on a coordinator with two SQLite stores that both hold every entity (no
    /// configurations), in a temporary folder.
    private func twoStores() throws -> (ManagedObjectContext, any PersistentStore, any PersistentStore, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.denyModel)
        let a = try coordinator.addPersistentStore(type: .sqlite, at: folder.url.appendingPathComponent("first.sqlite"))
        let b = try coordinator.addPersistentStore(type: .sqlite, at: folder.url.appendingPathComponent("second.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, a, b, folder)
    }

    /// The values of `key` of the stored objects of `entity`, read through a fresh context, sorted.
    private func stored(_ entity: String, _ key: String, of context: ManagedObjectContext) throws -> [String] {
        let fresh = ManagedObjectContext(concurrencyType: .mainQueue)
        fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
        return try fresh.fetch(FetchRequest<ManagedObject>(entityName: entity)).compactMap { $0.value(forKey: key) as? String }.sorted()
    }

    // MARK: BatchDeleteRequest

    /// Core Data, `NSBatchDeleteRequest.init(fetchRequest:)`: "Creates a request that deletes the
    /// results of the specified fetch request." With several stores holding the entity, the fetch
    /// request's `fetchLimit` and `fetchOffset` apply to its results as a whole (the context's
    /// fetch of the same request returns one note, "a1"), so the batch delete must delete that
    /// one note. Instead the limit and offset are applied in each store
    /// (`BatchDeleteRequest.fetchLimit`: "in each store the request runs in"): a limit of 1
    /// deletes two notes, "a1" and "b1"; an offset of 3 over four notes (two a store) deletes
    /// none, not "b2".
    func testAFetchLimitAndOffsetChooseAmongTheFetchResultsOfEveryStore() throws {
        let (context, a, b, folder) = try twoStores()
        defer { withExtendedLifetime(folder) {} }
        func fill() throws {
            for (text, store) in [("a1", a), ("a2", a), ("b1", b), ("b2", b)] {
                let note = context.insertNewObject(forEntityName: "Note")
                note.setValue(text, forKey: "text")
                context.assign(note, to: store)
            }
            try context.save()
        }
        try fill()
        var fetch = FetchRequest<ManagedObject>(entityName: "Note")
        fetch.sortDescriptors = [SortDescriptor(key: "text")]
        fetch.fetchLimit = 1
        XCTAssertEqual(try context.fetch(fetch).compactMap { $0.value(forKey: "text") as? String }, ["a1"], "what the fetch request fetches")
        var request = BatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .count
        XCTAssertEqual(try context.execute(request), .count(1))
        XCTAssertEqual(try stored("Note", "text", of: context), ["a2", "b1", "b2"], "only the fetch request's result is deleted")

        // The offset: of a1 a2 b1 b2 (sorted) the fetch skips three and returns b2 alone.
        _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Note")))
        context.reset()
        try fill()
        fetch.fetchLimit = 0
        fetch.fetchOffset = 3
        XCTAssertEqual(try context.fetch(fetch).compactMap { $0.value(forKey: "text") as? String }, ["b2"], "what the fetch request fetches")
        request = BatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .count
        XCTAssertEqual(try context.execute(request), .count(1))
        XCTAssertEqual(try stored("Note", "text", of: context), ["a1", "a2", "b1"], "only the fetch request's result is deleted")
    }

    /// A batch delete that a deny rule refuses is refused as a whole (the store's own doc comment:
    /// "deny refuses the whole request while a destination would survive"), and a request that
    /// throws returns no result: the caller has no object IDs to merge into its contexts (Core
    /// Data's documented follow-up to a batch delete, `mergeChanges(fromRemoteContextSave:into:)`
    /// with the result's IDs). So a throwing request must leave every store as it was. Instead,
    /// with two stores holding Person, the first store's people are deleted and committed before
    /// the second store refuses its part: the request throws and "a" is gone anyway (and stays
    /// registered, undeleted, in every context).
    func testABatchDeleteRefusedInOneStoreDeletesNothingInTheOthers() throws {
        let (context, a, b, folder) = try twoStores()
        defer { withExtendedLifetime(folder) {} }
        let free = context.insertNewObject(forEntityName: "Person")
        free.setValue("a", forKey: "name")
        context.assign(free, to: a)
        let held = context.insertNewObject(forEntityName: "Person")
        held.setValue("b", forKey: "name")
        context.assign(held, to: b)
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue("kept", forKey: "text")
        note.setValue(held, forKey: "author")
        context.assign(note, to: b)
        try context.save()
        XCTAssertThrowsError(try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Person")))) {
            XCTAssertTrue("\($0)".contains("deny"), "\($0)")
        }
        XCTAssertEqual(try stored("Person", "name", of: context), ["a", "b"], "the refused request deleted nothing")
    }

    /// Added with the fix: a batch update is rehearsed in every store too. Here the second store
    /// is read-only; the first store's notes must keep their text.
    func testABatchUpdateRefusedInOneStoreChangesNothingInTheOthers() throws {
        let folder = try TemporaryDirectory()
        let second = folder.url.appendingPathComponent("second.sqlite")
        do {
            let writer = PersistentStoreCoordinator(managedObjectModel: Self.denyModel)
            try writer.addPersistentStore(type: .sqlite, at: second)
            let context = ManagedObjectContext(concurrencyType: .mainQueue)
            context.persistentStoreCoordinator = writer
            context.insertNewObject(forEntityName: "Note").setValue("b", forKey: "text")
            try context.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.denyModel)
        let first = try coordinator.addPersistentStore(type: .sqlite, at: folder.url.appendingPathComponent("first.sqlite"))
        try coordinator.addPersistentStore(type: .sqlite, at: second, options: [SQLiteStore.readOnlyOption: true])
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue("a", forKey: "text")
        context.assign(note, to: first)
        try context.save()
        var request = BatchUpdateRequest(entity: Self.denyModel.entitiesByName["Note"]!)
        request.propertiesToUpdate = ["text": .constant(.string("changed"))]
        XCTAssertThrowsError(try context.execute(request)) { XCTAssertTrue("\($0)".contains("read-only"), "\($0)") }
        XCTAssertEqual(try stored("Note", "text", of: context), ["a", "b"], "the refused request changed nothing")
    }

    /// Kept (passes): `NSBatchDeleteRequest(objectIDs:)` deletes the objects of those IDs. With two
    /// stores holding the entity the request runs in both, and the rows of the two stores have
    /// the same primary keys: the other store's row with the same key must stay.
    func testABatchDeleteByObjectIDsDeletesInTheIDsStoreOnly() throws {
        let (context, a, b, folder) = try twoStores()
        defer { withExtendedLifetime(folder) {} }
        var notes: [ManagedObject] = []
        for (text, store) in [("a1", a), ("b1", b)] {
            let note = context.insertNewObject(forEntityName: "Note")
            note.setValue(text, forKey: "text")
            context.assign(note, to: store)
            notes.append(note)
        }
        try context.save()
        XCTAssertEqual(notes[0].objectID.primaryKey, notes[1].objectID.primaryKey, "the same key in each store")
        var request = BatchDeleteRequest(objectIDs: [notes[0].objectID])
        request.resultType = .objectIDs
        XCTAssertEqual(try context.execute(request), .objectIDs([notes[0].objectID]))
        XCTAssertEqual(try stored("Note", "text", of: context), ["b1"])
    }

    // MARK: Merging user info

    /// Core Data, `mergeChanges(fromRemoteContextSave:into:)`: "The dictionary keys should be one
    /// or more from an NSManagedObjectContextObjectsDidChange: NSInsertedObjectsKey,
    /// NSUpdatedObjectsKey, NSDeletedObjectsKey. The values should be an NSArray of either
    /// NSManagedObjectID or NSURL objects": what is merged is what those keys hold. A program
    /// that merges a save together with a batch delete's IDs adds them to the save's user info
    /// under NSDeletedObjectsKey. Instead the merge takes the hidden "ObjectGraphContextDidSave"
    /// payload the notification also carries, whole, and ignores the keys: the batch-deleted
    /// object stays registered and undeleted in the context (the merge misses the change), and
    /// likewise a key removed from the user info is merged all the same.
    func testMergingAnEditedUserInfoMergesWhatItsKeysSay() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        let bob = stack.person("Bob")
        try stack.context.save()
        XCTAssertEqual(bob.value(forKey: "firstName") as? String, "Bob")
        let other = stack.newContext()
        let saves = ReceivedNotifications([.NSManagedObjectContextDidSaveObjectIDs], object: other)
        try other.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
        try other.save()
        var request = BatchDeleteRequest(objectIDs: [bob.objectID])
        request.resultType = .objectIDs
        guard case .objectIDs(let deleted) = try other.execute(request) else { return XCTFail("no object IDs") }
        XCTAssertEqual(deleted, [bob.objectID])

        var changes = try XCTUnwrap(saves.notes.first?.userInfo)
        changes[NSDeletedObjectsKey] = deleted
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [stack.context])
        XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta", "the save's update is merged")
        XCTAssertTrue(bob.isDeleted || bob.managedObjectContext == nil, "the deletion added to the user info is merged")
    }
}
