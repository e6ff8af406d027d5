// What the atomic store tests (XML and binary) share: a directory for the store file, opening
// the store, and a model with an attribute of every storable type and relationships of every kind.
import Foundation
import XCTest
@testable import ObjectGraph

class AtomicStoreTestCase: XCTestCase {
    /// The kind of store the tests open.
    var storeType: StoreType { .xml }
    var directory: TemporaryDirectory!
    /// Contexts whose objects a test reads after the call that made them returned (objects do
    /// not keep their context alive).
    var keptContexts: [ManagedObjectContext] = []
    /// The store file the tests open.
    var storeURL: URL { directory.url.appendingPathComponent(storeType == .xml ? "store.xml" : "store.binary") }

    /// A model with an attribute of every storable type, and relationships of every kind.
    static let sampleModel = ManagedObjectModel {
        Entity("Sample") {
            Attribute("text", .string)
            Attribute("small", .integer16)
            Attribute("medium", .integer32)
            Attribute("large", .integer64)
            Attribute("exact", .decimal)
            Attribute("real", .double)
            Attribute("single", .float)
            Attribute("flag", .boolean)
            Attribute("when", .date)
            Attribute("bytes", .binaryData)
            Attribute("identifier", .uuid)
            Attribute("link", .uri)
            Attribute("scratch", .string).transient()
            Relationship("owner", to: "Owner", inverse: "samples")
            Relationship("tags", to: "Tag", inverse: "samples", toMany: true)
        }
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("samples", to: "Sample", inverse: "owner", toMany: true, ordered: true)
        }
        Entity("Tag") {
            Attribute("name", .string)
            Relationship("samples", to: "Sample", inverse: "tags", toMany: true)
        }
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        keptContexts = []
        directory = nil
        super.tearDown()
    }

    /// A context on a new coordinator with the store at `url` (default ``storeURL``), read from
    /// the file.
    func open(_ model: ManagedObjectModel, at url: URL? = nil, options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: storeType, at: url ?? storeURL, options: options)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The error opening the store at ``storeURL`` with `model` throws, as text.
    func openingError(_ model: ManagedObjectModel, options: [String: any Sendable] = [:]) -> String {
        do {
            _ = try open(model, options: options)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    /// The objects of `entity` in `context`, sorted by `key`.
    func fetch(_ entity: String, _ context: ManagedObjectContext, sortedBy key: String = "name") throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.sortDescriptors = [SortDescriptor(key: key)]
        return try context.fetch(request)
    }

    // MARK: Checks each atomic store's tests run

    /// Saves a Sample with `values` (and a transient value), a second Sample with `otherValues`,
    /// an Owner whose ordered samples are the second then the first, and the tags red (both
    /// samples) and blue (the first); reopens the store and checks every value of the first
    /// sample and every relationship. Returns the saved objects (sample, other, owner, red, blue)
    /// and the second sample as read back (its context is kept for the test's life).
    func checkEveryAttributeTypeAndRelationshipReadBack(_ values: [String: Any], otherValues: [String: Any])
        throws -> (saved: [ManagedObject], readOther: ManagedObject) {
        let writer = try open(Self.sampleModel)
        let sample = writer.insertNewObject(forEntityName: "Sample")
        for (key, value) in values { sample.setValue(value, forKey: key) }
        sample.setValue("not saved", forKey: "scratch")
        let other = writer.insertNewObject(forEntityName: "Sample")
        for (key, value) in otherValues { other.setValue(value, forKey: key) }
        let owner = writer.insertNewObject(forEntityName: "Owner")
        owner.setValue("Ada", forKey: "name")
        owner.setValue([other, sample], forKey: "samples")       // ordered: the other first
        let red = writer.insertNewObject(forEntityName: "Tag")
        red.setValue("red", forKey: "name")
        let blue = writer.insertNewObject(forEntityName: "Tag")
        blue.setValue("blue", forKey: "name")
        sample.setValue(Set([red, blue]), forKey: "tags")
        other.setValue(Set([red]), forKey: "tags")
        try writer.save()

        let reader = try open(Self.sampleModel)
        let samples = try fetch("Sample", reader, sortedBy: "text")
        XCTAssertEqual(samples.count, 2)
        let read = try XCTUnwrap(samples.first { $0.objectID.uriRepresentation == sample.objectID.uriRepresentation })
        for (key, value) in values {
            XCTAssertEqual(read.value(forKey: key).map { "\($0)" }, "\(value)", key)
        }
        XCTAssertNil(read.value(forKey: "scratch"), "transient values are not stored")
        let readOther = try XCTUnwrap(samples.first { $0 !== read })
        let readOwner = try XCTUnwrap(try fetch("Owner", reader).first)
        XCTAssertEqual((readOwner.value(forKey: "samples") as? OrderedSet<ManagedObject>)?.elements, [readOther, read])
        XCTAssertTrue(read.value(forKey: "owner") as? ManagedObject === readOwner)
        let tags = try fetch("Tag", reader)
        XCTAssertEqual(tags.map { $0.value(forKey: "name") as? String }, ["blue", "red"])
        XCTAssertEqual(Set(((read.value(forKey: "tags") as? Set<ManagedObject>) ?? []).map { $0.value(forKey: "name") as? String ?? "" }), ["red", "blue"])
        XCTAssertEqual(((tags[1].value(forKey: "samples") as? Set<ManagedObject>) ?? []).count, 2)
        let saved = [sample, other, owner, red, blue]
        XCTAssertEqual(Set(saved.map { $0.objectID.primaryKey! }), [1, 2, 3, 4, 5], "one sequence of numbers for every entity")
        keptContexts.append(reader)
        return (saved, readOther)
    }

    /// A store saved with the sample model refuses a model whose Tag has another attribute.
    func checkAnotherModelIsRefusedNamingWhatChanged() throws {
        let context = try open(Self.sampleModel)
        context.insertNewObject(forEntityName: "Tag").setValue("red", forKey: "name")
        try context.save()
        let changed = ManagedObjectModel {
            Entity("Sample") { Attribute("text", .string) }
            Entity("Owner") { Attribute("name", .string) }
            Entity("Tag") {
                Attribute("name", .string)
                Attribute("colour", .string)
            }
        }
        let message = openingError(changed)
        XCTAssertTrue(message.contains("different model") && message.contains("Tag"), message)
    }

    /// A save the rows refuse (a duplicate) and one the file system refuses (the folder gone)
    /// leave the file and the rows as they were, and the context with its changes.
    func checkAFailedSaveChangesNeitherTheFileNorTheStore() throws {
        let uniqueModel = ManagedObjectModel {
            Entity("Tag") {
                Attribute("name", .string)
                Attribute("colour", .string)
            }
        }
        uniqueModel.entitiesByName["Tag"]!.declaredUniquenessConstraints = [["name"]]
        let context = try open(uniqueModel)
        let red = context.insertNewObject(forEntityName: "Tag")
        red.setValue("red", forKey: "name")
        try context.save()
        let before = try fileData()

        // Refused by the rows: a duplicate.
        red.setValue("crimson", forKey: "colour")
        context.insertNewObject(forEntityName: "Tag").setValue("red", forKey: "name")
        XCTAssertThrowsError(try context.save())
        XCTAssertEqual(try fileData(), before)
        let other = ManagedObjectContext(concurrencyType: .mainQueue)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        XCTAssertEqual(try fetch("Tag", other).map { $0.value(forKey: "colour") as? String }, [nil])

        // Refused by the file system: its folder is gone.
        context.rollback()
        red.setValue("scarlet", forKey: "colour")
        try FileManager.default.removeItem(at: directory.url)
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertTrue("\(error)".contains("cannot write the store"), "\(error)")
        }
        other.reset()
        XCTAssertEqual(try fetch("Tag", other).map { $0.value(forKey: "colour") as? String }, [nil], "the rows are as before the save")
        XCTAssertTrue(context.hasChanges, "the context keeps its changes")
    }

    /// Metadata, identity and deletions survive reopening; deleted objects' numbers are not reused.
    func checkMetadataAndDeletionsPersistAndNumbersAreNotReused() throws {
        let context = try open(Self.sampleModel)
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        var metadata = store.metadata
        metadata["Owner"] = "Ada"
        metadata["Count"] = 3
        store.metadata = metadata
        let first = context.insertNewObject(forEntityName: "Tag")
        first.setValue("first", forKey: "name")
        let last = context.insertNewObject(forEntityName: "Tag")
        last.setValue("last", forKey: "name")
        try context.save()
        let lastNumber = try XCTUnwrap(last.objectID.primaryKey)
        context.delete(last)
        try context.save()

        let reopened = try open(Self.sampleModel)
        let reopenedStore = try XCTUnwrap(reopened.persistentStoreCoordinator?.persistentStores.first)
        XCTAssertEqual(reopenedStore.metadata["Owner"] as? String, "Ada")
        XCTAssertEqual(reopenedStore.metadata["Count"] as? Int, 3)
        XCTAssertEqual(reopenedStore.metadata["StoreType"] as? String, storeType.rawValue)
        XCTAssertEqual(reopenedStore.identifier, store.identifier)
        XCTAssertEqual(first.objectID.uriRepresentation, try fetch("Tag", reopened)[0].objectID.uriRepresentation)
        XCTAssertEqual(try fetch("Tag", reopened).map { $0.value(forKey: "name") as? String }, ["first"])
        let added = reopened.insertNewObject(forEntityName: "Tag")
        added.setValue("added", forKey: "name")
        try reopened.save()
        XCTAssertGreaterThan(try XCTUnwrap(added.objectID.primaryKey), lastNumber)
    }

    /// Lightweight migration of the store file when it opens with the next version of its
    /// model (Core Data migrates atomic stores as it does SQLite stores): a renamed entity and
    /// attribute, a widened integer, a new attribute at its default, a dropped entity whose
    /// objects and references go, every object under its number; refused (the file unchanged)
    /// without the options, or when a new required attribute has no value.
    func checkALightweightMigrationCarriesTheObjectsOver() throws {
        let version1 = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("mail", .string)
                Attribute("age", .integer16)
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true)
                Relationship("notes", to: "Note", inverse: "person", toMany: true)
            }
            Entity("Pet") {
                Attribute("name", .string)
                Relationship("owner", to: "Person", inverse: "pets")
            }
            Entity("Note") {
                Attribute("text", .string)
                Relationship("person", to: "Person", inverse: "notes")
            }
        }
        let writer = try open(version1)
        let ada = writer.insertNewObject(forEntityName: "Person")
        for (key, value) in ["name": "Ada", "mail": "ada@example.com", "age": Int16(36)] as [String: Any] { ada.setValue(value, forKey: key) }
        let rex = writer.insertNewObject(forEntityName: "Pet")
        rex.setValue("Rex", forKey: "name")
        rex.setValue(ada, forKey: "owner")
        writer.insertNewObject(forEntityName: "Note").setValue(ada, forKey: "person")
        try writer.save()
        let before = try fileData()

        let version2 = ManagedObjectModel {
            Entity("Contact") {
                Attribute("name", .string)
                Attribute("email", .string).renamed(from: "mail")
                Attribute("age", .integer64)
                Attribute("rank", .integer32, default: Int32(3))
                Relationship("pets", to: "Animal", inverse: "owner", toMany: true)
            }.renamed(from: "Person")
            Entity("Animal") {
                Attribute("name", .string)
                Relationship("owner", to: "Contact", inverse: "pets")
            }.renamed(from: "Pet")
        }
        let migrating: [String: any Sendable] = [SQLiteStore.migratesAutomaticallyOption: true, SQLiteStore.infersMappingModelOption: true]
        XCTAssertTrue(openingError(version2).contains("different model"), "no migration without the options")
        XCTAssertTrue(openingError(version2, options: [SQLiteStore.migratesAutomaticallyOption: true]).contains(SQLiteStore.infersMappingModelOption))
        let required = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("mail", .string)
                Attribute("age", .integer16)
                Attribute("badge", .string).required()
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true)
                Relationship("notes", to: "Note", inverse: "person", toMany: true)
            }
            Entity("Pet") { Attribute("name", .string); Relationship("owner", to: "Person", inverse: "pets") }
            Entity("Note") { Attribute("text", .string); Relationship("person", to: "Person", inverse: "notes") }
        }
        let refusal = openingError(required, options: migrating)
        XCTAssertTrue(refusal.contains(storeURL.path) && refusal.contains("Person.badge is required") && refusal.contains("1 Person object has no value"), refusal)
        XCTAssertEqual(try fileData(), before, "a refused migration leaves the file as it was")

        let migrated = try open(version2, options: migrating)
        let contact = try XCTUnwrap(try fetch("Contact", migrated).first)
        XCTAssertEqual(contact.value(forKey: "email") as? String, "ada@example.com")
        XCTAssertEqual(contact.value(forKey: "age") as? Int64, 36)
        XCTAssertEqual(contact.value(forKey: "rank") as? Int32, 3)
        XCTAssertEqual(contact.objectID.primaryKey, ada.objectID.primaryKey, "the object keeps its number")
        let pets = (contact.value(forKey: "pets") as? Set<ManagedObject>) ?? []
        XCTAssertEqual(pets.map { $0.value(forKey: "name") as? String }, ["Rex"])
        contact.setValue("Ada L.", forKey: "name")
        try migrated.save()

        let reopened = try open(version2)
        XCTAssertEqual(try fetch("Contact", reopened).map { $0.value(forKey: "name") as? String }, ["Ada L."])
        XCTAssertEqual(try fetch("Animal", reopened).first.flatMap { ($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "email") as? String },
                       "ada@example.com")
    }

    /// The store file's text.
    func fileText() throws -> String {
        try String(contentsOf: storeURL, encoding: .utf8)
    }

    /// The store file's bytes.
    func fileData() throws -> Data {
        try Data(contentsOf: storeURL)
    }
}

/// The XML store's tests.
class XMLStoreTestCase: AtomicStoreTestCase {}

/// The binary store's tests.
class BinaryStoreTestCase: AtomicStoreTestCase {
    override var storeType: StoreType { .binary }

    /// The bytes of a file in the binary format, with the given entity table (names, and each
    /// property's name and kind), objects (entity index, number, values) and next object
    /// number, and no metadata or model.
    func craftedFile(entities: [(String, [(String, BinaryStoreFormat.PropertyKind)])],
                     objects: [(Int, Int64, [BinaryStoreFormat.Value])], next: UInt64 = 100,
                     version: UInt64 = BinaryStoreFormat.version) throws -> Data {
        var out = BinaryWriter()
        out.raw(BinaryStoreFormat.magic)
        out.varint(version)
        out.string("5C0FFEE5-0000-4000-8000-000000000001")
        out.varint(next)
        out.bytes(try PropertyListSerialization.data(fromPropertyList: [String: Any](), format: .binary, options: 0))
        out.bytes(Data())     // no model
        out.count(entities.count)
        for (name, properties) in entities {
            out.string(name)
            out.count(properties.count)
            for (property, kind) in properties {
                out.string(property)
                out.byte(kind.rawValue)
            }
        }
        out.count(objects.count)
        for (entity, number, values) in objects {
            out.count(entity)
            out.signed(number)
            for value in values { out.value(value) }
        }
        return out.data
    }
}
