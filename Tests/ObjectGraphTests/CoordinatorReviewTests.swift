// Review of the persistent store coordinator and store management against Apple's documented
// Core Data behaviour (NSPersistentStoreCoordinator, NSPersistentStore, NSManagedObjectID,
// NSManagedObjectContext.assign(_:to:)), on real SQLite files in temporary folders (and the
// in-memory store where it differs). Every test here failed on the code it was written against;
// each comment says what Core Data does and what ObjectGraph did then.
import Foundation
import XCTest
@testable import ObjectGraph

final class CoordinatorReviewTests: XCTestCase {
    /// Notes and tags, a to-one `tag` with its to-many inverse `notes`; configurations put each
    /// entity in a store of its own.
    static let model: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("Note") {
                Attribute("text", .string)
                Relationship("tag", to: "Tag", inverse: "notes")
            }
            Entity("Tag") {
                Attribute("name", .string)
                Relationship("notes", to: "Note", inverse: "tag", toMany: true)
            }
            Configuration("Notes", entities: ["Note"])
            Configuration("Tags", entities: ["Tag"])
        }
        model.freeze()
        return model
    }()

    private func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func notes(in context: ManagedObjectContext) throws -> [String] {
        var request = FetchRequest<ManagedObject>(entityName: "Note")
        request.sortDescriptors = [SortDescriptor(key: "text")]
        return try context.fetch(request).compactMap { $0.value(forKey: "text") as? String }
    }

    /// Saves notes with `texts` in a new SQLite store at `url` (all entities), and closes it.
    private func makeStore(at url: URL, texts: [String]) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = context(coordinator)
        for text in texts { context.insertNewObject(forEntityName: "Note").setValue(text, forKey: "text") }
        try context.save()
        try coordinator.remove(store)
    }

    // MARK: Where new objects go

    /// Apple, NSManagedObjectContext.assign(_:to:): "It is only necessary to use this method if
    /// the receiver's persistent store coordinator manages multiple writable stores that have
    /// object's entity in their configuration. [...] If the receiver's persistent store
    /// coordinator manages only a single writable store [...] object will automatically be
    /// assigned to that store." With a read-only store added first and one writable store, a new
    /// object goes to the writable store. ObjectGraph assigns it to the first store holding its
    /// entity, the read-only one, and the save fails.
    func testNewObjectsGoToTheOnlyWritableStoreWhenAReadOnlyStoreComesFirst() throws {
        let directory = try TemporaryDirectory()
        let shipped = directory.url.appendingPathComponent("shipped.sqlite")
        try makeStore(at: shipped, texts: ["shipped"])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(type: .sqlite, at: shipped, options: [SQLiteStore.readOnlyOption: true])
        let user = try coordinator.addPersistentStore(type: .sqlite, at: directory.url.appendingPathComponent("user.sqlite"))
        let context = context(coordinator)
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue("mine", forKey: "text")
        XCTAssertNoThrow(try context.save())
        XCTAssertEqual(note.objectID.storeIdentifier, user.identifier)
        XCTAssertEqual(try notes(in: self.context(coordinator)), ["mine", "shipped"])
    }

    // MARK: Stores sharing a UUID

    /// Apple, NSManagedObjectID: "A managed object ID uniquely identifies the same managed object
    /// both between managed object contexts in a single application"; managedObjectID(for
    /// URIRepresentation:): "The URI representation contains a UUID of the store the ID is
    /// coming from, and the coordinator can match it against the stores added to it." A copy of
    /// a store file keeps its UUID; added beside the original, either the coordinator refuses it
    /// or the two stores' rows stay two objects. ObjectGraph adds it and gives row 1 of both
    /// files the same object ID (routed to the first store added): a fetch returns that one
    /// object twice, holding the copy's values, and the original's note cannot be reached.
    func testACopyOfAStoreAddedBesideItKeepsItsRowsApart() throws {
        let directory = try TemporaryDirectory()
        let original = directory.url.appendingPathComponent("original.sqlite")
        let copy = directory.url.appendingPathComponent("copy.sqlite")
        try makeStore(at: original, texts: ["original"])
        // The copy, made the store's own way, then changed on its own.
        let maker = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let source = try maker.addPersistentStore(type: .sqlite, at: original)
        try XCTUnwrap(source as? SQLiteStore).copy(to: copy)
        try maker.remove(source)
        let copyCoordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let copyStore = try copyCoordinator.addPersistentStore(type: .sqlite, at: copy)
        let copyContext = context(copyCoordinator)
        try copyContext.fetch(FetchRequest<ManagedObject>(entityName: "Note"))[0].setValue("copy", forKey: "text")
        try copyContext.save()
        try copyCoordinator.remove(copyStore)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(type: .sqlite, at: original)
        do {
            try coordinator.addPersistentStore(type: .sqlite, at: copy)
        } catch {
            return // refusing a second store with the same UUID is fine
        }
        let context = context(coordinator)
        XCTAssertEqual(try notes(in: context), ["copy", "original"], "both stores' notes, as two objects")
    }

    // MARK: Metadata

    /// Apple, NSPersistentStore.metadata: "The dictionary must include the store type
    /// (NSStoreTypeKey) and UUID (NSStoreUUIDKey)"; setMetadata(_:for:): "The store type and
    /// UUID (NSStoreTypeKey and NSStoreUUIDKey) are always added automatically". The SQLite store
    /// keeps them; the in-memory store drops them: its metadata after setMetadata is exactly the
    /// caller's dictionary.
    func testSettingInMemoryStoreMetadataKeepsItsTypeAndUUID() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try coordinator.addPersistentStore(type: .inMemory)
        coordinator.setMetadata(["Mine": "yes"], for: store)
        let metadata = coordinator.metadata(for: store)
        XCTAssertEqual(metadata["Mine"] as? String, "yes")
        XCTAssertEqual(metadata["StoreType"] as? String, StoreType.inMemory.rawValue)
        XCTAssertEqual(metadata["UUID"] as? String, store.identifier)
    }

    /// Apple, setMetadata(_:for:): "The store type and UUID (NSStoreTypeKey and NSStoreUUIDKey)
    /// are always added automatically, however NSStoreUUIDKey is only added if it is not set
    /// manually as part of the dictionary argument." A UUID the caller sets is the store's UUID
    /// in its metadata. ObjectGraph's SQLite store overwrites it with the UUID it had.
    func testSettingTheUUIDInSQLiteStoreMetadataKeepsIt() throws {
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: directory.url.appendingPathComponent("store.sqlite"))
        let custom = UUID().uuidString
        var metadata = coordinator.metadata(for: store)
        metadata["UUID"] = custom
        coordinator.setMetadata(metadata, for: store)
        XCTAssertEqual(coordinator.metadata(for: store)["UUID"] as? String, custom)
    }

    // MARK: Removing stores

    /// Apple, remove(_:): "Removes the specified persistent store from the coordinator." A store
    /// another coordinator added is not this one's: removing it from this coordinator changes
    /// nothing for the other. ObjectGraph unloads it all the same (closing its SQLite
    /// connection), and the other coordinator's fetches fail.
    func testRemovingAStoreOfAnotherCoordinatorLeavesItWorking() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("store.sqlite")
        try makeStore(at: url, texts: ["a"])
        let owner = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try owner.addPersistentStore(type: .sqlite, at: url)
        let stranger = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try? stranger.remove(store)
        XCTAssertEqual(owner.persistentStores.count, 1)
        XCTAssertEqual(try notes(in: context(owner)), ["a"])
    }

    /// The same for the in-memory store: another coordinator's remove(_:) empties it.
    func testRemovingAnInMemoryStoreOfAnotherCoordinatorKeepsItsRows() throws {
        let owner = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try owner.addPersistentStore(type: .inMemory)
        let context = context(owner)
        context.insertNewObject(forEntityName: "Note").setValue("a", forKey: "text")
        try context.save()
        let stranger = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try? stranger.remove(store)
        XCTAssertEqual(try notes(in: self.context(owner)), ["a"])
    }

    // MARK: Read-only

    /// Apple, NSReadOnlyPersistentStoreOption: "A flag that indicates whether a store is treated
    /// as read-only or not." It is a store option of every store type. The in-memory store
    /// ignores it and saves.
    func testReadOnlyInMemoryStoreRefusesASave() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(type: .inMemory, options: [SQLiteStore.readOnlyOption: true])
        let context = context(coordinator)
        context.insertNewObject(forEntityName: "Note").setValue("a", forKey: "text")
        XCTAssertThrowsError(try context.save())
    }

    // MARK: Configurations and sub-entities

    /// A store for a configuration holds the inheritance trees of its entities (SQLiteSchema:
    /// "every entity of the inheritance trees of its configuration"; the in-memory store holds
    /// each entity's descendants too), and the coordinator sends fetches of a sub-entity to the
    /// store of its root. New objects of the sub-entity find no store all the same: the
    /// coordinator picks the store for a new object by the entity itself only, and the save
    /// fails with "no persistent store holds entity Job" though the Work store holds Jobs.
    /// (Apple, assign(_:to:): "if only one store has object's entity in its model, object will
    /// automatically be assigned to that store.")
    func testNewObjectsOfASubentityGoToTheStoreOfItsParentsConfiguration() throws {
        let model = ManagedObjectModel {
            Entity("Base") { Attribute("name", .string) }
            Entity("Job", parent: "Base") { Attribute("points", .integer32) }
            Entity("Other") { Attribute("x", .string) }
            Configuration("Work", entities: ["Base"])
            Configuration("Rest", entities: ["Other"])
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let work = try coordinator.addPersistentStore(type: .sqlite, configuration: "Work", at: directory.url.appendingPathComponent("work.sqlite"))
        try coordinator.addPersistentStore(type: .sqlite, configuration: "Rest", at: directory.url.appendingPathComponent("rest.sqlite"))
        let context = context(coordinator)
        let job = context.insertNewObject(forEntityName: "Job")
        job.setValue("j", forKey: "name")
        XCTAssertNoThrow(try context.save())
        XCTAssertEqual(job.objectID.storeIdentifier, work.identifier)
        XCTAssertEqual(try self.context(coordinator).fetch(FetchRequest<ManagedObject>(entityName: "Job")).count, 1)
        XCTAssertEqual(try self.context(coordinator).fetch(FetchRequest<ManagedObject>(entityName: "Base")).count, 1)
    }

    // MARK: Replacing stores

    /// replacePersistentStore's own documentation: "The source is opened (and must be a store of
    /// this model) before the destination goes: a missing or foreign source leaves the
    /// destination as it is." An empty file holds no store. ObjectGraph opens it read-write,
    /// which creates an empty store in it (the source file goes from 0 bytes to a store),
    /// destroys the destination and copies the empty store over it: the destination's rows
    /// are gone.
    func testReplacingAStoreWithAFileHoldingNoStoreLeavesBothFilesAsTheyWere() throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("store.sqlite")
        try makeStore(at: destination, texts: ["keep"])
        let empty = directory.url.appendingPathComponent("empty.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        XCTAssertThrowsError(try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: empty, type: .sqlite))
        XCTAssertEqual(try Data(contentsOf: empty).count, 0, "the source file is left as it was")
        let reader = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try reader.addPersistentStore(type: .sqlite, at: destination)
        XCTAssertEqual(try notes(in: context(reader)), ["keep"])
    }
}
