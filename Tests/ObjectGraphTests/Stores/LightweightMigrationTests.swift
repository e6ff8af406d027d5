// Lightweight migration of SQLite stores (talk 001): a store made with one version of a model,
// opened with the next, is migrated in place with an inferred mapping: renamed, added and removed
// entities and properties, changed relationships, new parents, and the failures that leave the
// file as it was.
import Foundation
import XCTest
@testable import ObjectGraph

final class LightweightMigrationTests: MigrationTestCase {
    // MARK: Version 1: people with tasks

    private static func version1() -> ManagedObjectModel { peopleModel() }

    /// Version 1 with some of its relationships replaced.
    private static func peopleModel(
        tasks: Relationship = Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true),
        owner: Relationship = Relationship("owner", to: "Person", inverse: "tasks"),
        tags: Relationship = Relationship("tags", to: "Tag", inverse: "people", toMany: true),
        people: Relationship = Relationship("people", to: "Person", inverse: "tags", toMany: true)
    ) -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("mail", .string)
                Attribute("age", .integer16)
                Attribute("shoeSize", .integer32)
                tasks
                tags
            }
            Entity("Task") {
                Attribute("title", .string)
                owner
            }
            Entity("Tag") {
                Attribute("name", .string)
                people
            }
        }
    }

    /// Two people, three tasks (Ann's in the order c, a), and tags shared between them.
    @discardableResult
    private func fillVersion1() throws -> [String: URL] {
        let context = try open(Self.version1(), options: [:])
        func person(_ name: String, _ mail: String?, _ age: Int16) -> ManagedObject {
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue(name, forKey: "name")
            person.setValue(mail, forKey: "mail")
            person.setValue(age, forKey: "age")
            return person
        }
        func task(_ title: String) -> ManagedObject {
            let task = context.insertNewObject(forEntityName: "Task")
            task.setValue(title, forKey: "title")
            return task
        }
        func tag(_ name: String) -> ManagedObject {
            let tag = context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
            return tag
        }
        let ann = person("Ann", "ann@example.org", 41), bob = person("Bob", nil, 7)
        let a = task("a"), b = task("b"), c = task("c")
        ann.mutableOrderedSetValue(forKey: "tasks").insert(contentsOf: [c, a])
        b.setValue(bob, forKey: "owner")
        let home = tag("home"), work = tag("work")
        ann.mutableSetValue(forKey: "tags").insert(contentsOf: [home, work])
        bob.mutableSetValue(forKey: "tags").insert(home)
        try context.save()
        return ["Ann": ann.objectID.uriRepresentation, "Bob": bob.objectID.uriRepresentation, "c": c.objectID.uriRepresentation]
    }

    // MARK: Inferred changes

    /// Version 2 renames Person to Contact (renaming identifier), mail to email, adds a required
    /// attribute with a default, drops shoeSize, widens age to 64 bits, and adds an entity whose
    /// name sorts first (every entity number moves): every value and relationship is carried
    /// over, in its order, under the same object IDs; new objects take keys after the old ones.
    func testRenamesAdditionsAndRemovalsCarryEveryValueAndRelationship() throws {
        let uris = try fillVersion1()
        let version2 = ManagedObjectModel {
            Entity("Aardvark") { Attribute("name", .string) }
            Entity("Contact") {
                Attribute("name", .string)
                Attribute("email", .string).renamed(from: "mail")
                Attribute("age", .integer64)
                Attribute("status", .string, default: "active").required()
                Attribute("nickname", .string)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true)
                Relationship("tags", to: "Tag", inverse: "people", toMany: true)
            }.renamed(from: "Person")
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Contact", inverse: "tasks")
            }
            Entity("Tag") {
                Attribute("name", .string)
                Relationship("people", to: "Contact", inverse: "tags", toMany: true)
            }
        }
        let context = try open(version2)
        let people = try fetch("Contact", in: context)
        XCTAssertEqual(strings(people, "name"), ["Ann", "Bob"])
        XCTAssertEqual(strings(people, "email"), ["ann@example.org", "nil"])
        XCTAssertEqual(people.map { $0.value(forKey: "age") as? Int64 }, [41, 7])
        XCTAssertEqual(strings(people, "status"), ["active", "active"])
        XCTAssertEqual(strings(people, "nickname"), ["nil", "nil"])
        XCTAssertNil(people[0].entity.propertiesByName["shoeSize"])
        let annTasks = people[0].value(forKey: "tasks") as? OrderedSet<ManagedObject>
        XCTAssertEqual(annTasks.map { strings(Array($0), "title") }, ["c", "a"], "the ordered list keeps its order")
        let bobTasks = people[1].value(forKey: "tasks") as? OrderedSet<ManagedObject>
        XCTAssertEqual(bobTasks.map { strings(Array($0), "title") }, ["b"])
        let annTags = (people[0].value(forKey: "tags") as? Set<ManagedObject>).map { strings(Array($0), "name").sorted() }
        XCTAssertEqual(annTags, ["home", "work"])
        let home = try fetch("Tag", in: context).first { $0.value(forKey: "name") as? String == "home" }
        XCTAssertEqual((home?.value(forKey: "people") as? Set<ManagedObject>).map { strings(Array($0), "name").sorted() }, ["Ann", "Bob"])
        // The same object IDs: URIs made before the migration find the migrated objects.
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        // A renamed entity's objects keep their keys; their URIs name the new entity (Core Data's
        // URIs name the entity, so those of a renamed one change).
        let ann = people[0].objectID
        XCTAssertEqual(ann.uriRepresentation.lastPathComponent, try XCTUnwrap(uris["Ann"]).lastPathComponent)
        XCTAssertEqual(ann.uriRepresentation.pathComponents.dropLast().last, "Contact")
        let c = try XCTUnwrap(coordinator.managedObjectID(forURIRepresentation: XCTUnwrap(uris["c"])))
        XCTAssertEqual(try context.existingObject(with: c).value(forKey: "title") as? String, "c")
        // New objects take new keys, and the file opens again without migrating.
        let carl = context.insertNewObject(forEntityName: "Contact")
        carl.setValue("Carl", forKey: "name")
        carl.setValue("C", forKey: "nickname")
        try context.save()
        XCTAssertNotEqual(carl.objectID, ann)
        let again = try open(version2, options: [:])
        XCTAssertEqual(strings(try fetch("Contact", in: again), "name"), ["Ann", "Bob", "Carl"])
        XCTAssertEqual(strings(try fetch("Task", in: again, sortedBy: "title"), "title"), ["a", "b", "c"])
    }

    /// Relationships change kind: Task.owner becomes to-many (many-to-many: a join table instead
    /// of a foreign key), Person.tasks stops being ordered, and Tag.people becomes ordered
    /// (numbered by key, as an unordered list has no order). Every pair is carried over.
    func testRelationshipsThatChangeKindKeepTheirPairs() throws {
        try fillVersion1()
        let version2 = Self.peopleModel(
            tasks: Relationship("tasks", to: "Task", inverse: "owners", toMany: true),
            owner: Relationship("owners", to: "Person", inverse: "tasks", toMany: true).renamed(from: "owner"),
            people: Relationship("people", to: "Person", inverse: "tags", toMany: true, ordered: true))
        let context = try open(version2)
        let tasks = try fetch("Task", in: context, sortedBy: "title")
        XCTAssertEqual(tasks.map { ($0.value(forKey: "owners") as? Set<ManagedObject>).map { strings(Array($0), "name") } },
                       [["Ann"], ["Bob"], ["Ann"]])
        let people = try fetch("Person", in: context)
        XCTAssertEqual((people[0].value(forKey: "tasks") as? Set<ManagedObject>).map { strings(Array($0), "title").sorted() }, ["a", "c"])
        let home = try fetch("Tag", in: context).first { $0.value(forKey: "name") as? String == "home" }
        XCTAssertEqual((home?.value(forKey: "people") as? OrderedSet<ManagedObject>).map { strings(Array($0), "name") }, ["Ann", "Bob"])
    }

    /// A to-many relationship that becomes to-one is carried over when no object has more than
    /// one; otherwise the migration fails naming the relationship, and the file is as it was.
    func testAToManyRelationshipBecomingToOneFailsWhenAnObjectHasSeveral() throws {
        try fillVersion1()
        let version2 = Self.peopleModel(
            tags: Relationship("tag", to: "Tag", inverse: "people").renamed(from: "tags"),
            people: Relationship("people", to: "Person", inverse: "tag", toMany: true))
        XCTAssertThrowsError(try open(version2)) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.kind, .migration)
            XCTAssertTrue(error.reason.contains("Person.tag") && error.reason.contains("1 Person object"), error.reason)
            XCTAssertEqual((error as NSError).code, NSMigrationError)
            XCTAssertEqual(error.path, self.url.path)
        }
        try assertVersion1IsIntact()
        // Once Ann keeps one tag, the migration carries each person's tag over.
        let context = try open(Self.version1(), options: [:])
        let ann = try XCTUnwrap(fetch("Person", in: context).first)
        let work = try XCTUnwrap(fetch("Tag", in: context).first { $0.value(forKey: "name") as? String == "work" })
        ann.mutableSetValue(forKey: "tags").remove(work)
        try context.save()
        let people = try fetch("Person", in: try open(version2))
        XCTAssertEqual(people.map { ($0.value(forKey: "tag") as? ManagedObject)?.value(forKey: "name") as? String }, ["home", "home"])
    }

    /// The file still opens with version 1, every value and relationship as it was.
    private func assertVersion1IsIntact() throws {
        let context = try open(Self.version1(), options: [:])
        let people = try fetch("Person", in: context)
        XCTAssertEqual(strings(people, "name"), ["Ann", "Bob"])
        XCTAssertEqual(strings(people, "mail"), ["ann@example.org", "nil"])
        XCTAssertEqual((people[0].value(forKey: "tasks") as? OrderedSet<ManagedObject>).map { strings(Array($0), "title") }, ["c", "a"])
        XCTAssertEqual((people[0].value(forKey: "tags") as? Set<ManagedObject>)?.count, 2)
    }

    /// A new required attribute without a default value fails the migration for a store that
    /// holds objects, naming the entity, the attribute and how many objects lack it; the file
    /// is left as it was. The same model migrates an empty store.
    func testARequiredAttributeWithoutDefaultFailsAndLeavesTheFileAsItWas() throws {
        try fillVersion1()
        let version2 = Self.version1()
        version2.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "code", type: .string, isOptional: false))
        XCTAssertThrowsError(try open(version2)) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.reason.contains("Person.code") && error.reason.contains("2 Person objects"), error.reason)
        }
        try assertVersion1IsIntact()
        url = directory.url.appendingPathComponent("empty.sqlite")
        _ = try open(Self.version1(), options: [:])
        let copy = Self.version1()
        copy.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "code", type: .string, isOptional: false))
        XCTAssertNoThrow(try open(copy))
    }

    /// What an inferred mapping cannot carry over fails inference, naming the entity and the
    /// property, with Core Data's NSInferredMappingModelError; the file is left as it was.
    func testATypeChangeFailsInferenceNamingTheAttribute() throws {
        try fillVersion1()
        let version2 = Self.version1()
        (version2.entitiesByName["Person"]!.declaredProperties.first { $0.name == "age" } as! AttributeDescription).attributeType = .string
        XCTAssertThrowsError(try open(version2)) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.kind, .inference)
            XCTAssertTrue(error.reason.contains("Person.age") && error.reason.contains("Integer 16") && error.reason.contains("String"), error.reason)
            XCTAssertEqual((error as NSError).code, NSInferredMappingModelError)
        }
        try assertVersion1IsIntact()
    }

    /// Without the options, an incompatible store is refused as before (Core Data's
    /// NSPersistentStoreIncompatibleVersionHashError); with migration but without inference it
    /// fails for want of a mapping model; a store opened read-only is never migrated.
    func testMigrationNeedsItsOptionsAndAWritableStore() throws {
        try fillVersion1()
        let version2 = Self.version1()
        version2.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "nickname", type: .string))
        XCTAssertThrowsError(try open(version2, options: [:])) { error in
            guard case StoreError.incompatibleModel = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try open(version2, options: [NSMigratePersistentStoresAutomaticallyOption: true])) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .missingMappingModel, "\(error)")
            XCTAssertEqual((error as NSError).code, NSMigrationMissingMappingModelError)
        }
        var readOnly = Self.migrating
        readOnly[NSReadOnlyPersistentStoreOption] = true
        XCTAssertThrowsError(try open(version2, options: readOnly)) { error in
            guard case StoreError.incompatibleModel = error else { return XCTFail("\(error)") }
        }
        try assertVersion1IsIntact()
    }

    /// A container's store descriptions migrate by default, as Core Data's do
    /// (shouldMigrateStoreAutomatically and shouldInferMappingModelAutomatically are true).
    func testAContainerMigratesByDefaultAndCanBeToldNotTo() throws {
        try fillVersion1()
        let version2 = Self.version1()
        version2.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "nickname", type: .string))
        let refusing = PersistentContainer(name: "People", managedObjectModel: version2)
        let description = PersistentStoreDescription(url: url)
        XCTAssertTrue(description.shouldMigrateStoreAutomatically)
        XCTAssertTrue(description.shouldInferMappingModelAutomatically)
        description.shouldMigrateStoreAutomatically = false
        refusing.persistentStoreDescriptions = [description]
        XCTAssertThrowsError(try refusing.loadPersistentStores())
        let container = PersistentContainer(name: "People", managedObjectModel: version2)
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: url)]
        try container.loadPersistentStores()
        let people = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        XCTAssertEqual(Set(strings(people, "name")), ["Ann", "Bob"])
    }

    // MARK: Inheritance

    /// Version 2 gives Person and Company a new abstract parent, Party, and moves `name` up into
    /// it: both trees' rows cannot share one table (their keys overlap), so the migration is
    /// refused naming the entity; a new parent over one entity is carried over, with the
    /// attribute moved up.
    func testANewParentOverOneEntityIsCarriedOverAndMergingTreesIsRefused() throws {
        let version1 = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Attribute("age", .integer32) }
            Entity("Company") { Attribute("name", .string) }
        }
        let context = try open(version1, options: [:])
        for name in ["Ann", "Bob"] { context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name") }
        context.insertNewObject(forEntityName: "Company").setValue("Acme", forKey: "name")
        try context.save()
        let merged = ManagedObjectModel {
            Entity("Party", abstract: true) { Attribute("name", .string) }
            Entity("Person", parent: "Party") { Attribute("age", .integer32) }
            Entity("Company", parent: "Party")
        }
        XCTAssertThrowsError(try open(merged)) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.reason.contains("inheritance tree"), error.reason)
        }
        let lifted = ManagedObjectModel {
            Entity("Being", abstract: true) { Attribute("name", .string) }
            Entity("Person", parent: "Being") { Attribute("age", .integer32) }
            Entity("Company") { Attribute("name", .string) }
        }
        let migrated = try open(lifted)
        XCTAssertEqual(strings(try fetch("Being", in: migrated), "name"), ["Ann", "Bob"])
        XCTAssertEqual(strings(try fetch("Company", in: migrated), "name"), ["Acme"])
        let added = migrated.insertNewObject(forEntityName: "Person")
        added.setValue("Cid", forKey: "name")
        try migrated.save()
        XCTAssertEqual(strings(try fetch("Person", in: try open(lifted, options: [:])), "name"), ["Ann", "Bob", "Cid"])
    }

    /// Core Data's "moving entities out of a hierarchy": Dog leaves Animal's tree for a table of
    /// its own, keeping its objects, their keys and the inherited attribute, which it now declares;
    /// the store's metadata keys stay.
    func testAnEntityMovedOutOfItsInheritanceTreeKeepsItsObjects() throws {
        let version1 = ManagedObjectModel {
            Entity("Animal") { Attribute("name", .string) }
            Entity("Dog", parent: "Animal") { Attribute("breed", .string) }
        }
        let context = try open(version1, options: [:])
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        context.persistentStoreCoordinator?.setMetadata(["Owner": "Ann"], for: store)
        context.insertNewObject(forEntityName: "Animal").setValue("Cat", forKey: "name")
        let rex = context.insertNewObject(forEntityName: "Dog")
        rex.setValue("Rex", forKey: "name")
        rex.setValue("Collie", forKey: "breed")
        try context.save()
        XCTAssertEqual(try open(version1, options: [:]).persistentStoreCoordinator?.persistentStores.first?.metadata["Owner"] as? String, "Ann")
        let version2 = ManagedObjectModel {
            Entity("Animal") { Attribute("name", .string) }
            Entity("Dog") { Attribute("name", .string); Attribute("breed", .string) }
        }
        let migrated = try open(version2)
        XCTAssertEqual(strings(try fetch("Animal", in: migrated), "name"), ["Cat"])
        let dogs = try fetch("Dog", in: migrated)
        XCTAssertEqual(strings(dogs, "name"), ["Rex"])
        XCTAssertEqual(strings(dogs, "breed"), ["Collie"])
        XCTAssertEqual(dogs[0].objectID.uriRepresentation.lastPathComponent, rex.objectID.uriRepresentation.lastPathComponent)
        let migratedStore = try XCTUnwrap(migrated.persistentStoreCoordinator?.persistentStores.first)
        XCTAssertEqual(migratedStore.metadata["Owner"] as? String, "Ann")
        let fido = migrated.insertNewObject(forEntityName: "Dog")
        fido.setValue("Fido", forKey: "name")
        try migrated.save()
        XCTAssertEqual(strings(try fetch("Dog", in: try open(version2, options: [:])), "name"), ["Fido", "Rex"])
    }

    // MARK: Storage details

    /// A new uniqueness constraint the stored objects break fails the migration; a new derived
    /// attribute is computed for the stored objects; binary data that may now go to files keeps
    /// its bytes.
    func testConstraintsDerivedAttributesAndExternalStorage() throws {
        let version1 = ManagedObjectModel {
            Entity("Note") { Attribute("title", .string); Attribute("body", .binaryData); Attribute("code", .string) }
        }
        let context = try open(version1, options: [:])
        for (title, code) in [("One", "x"), ("Two", "x")] {
            let note = context.insertNewObject(forEntityName: "Note")
            note.setValue(title, forKey: "title")
            note.setValue(code, forKey: "code")
            note.setValue(Data(title.utf8) + Data([0, 255]), forKey: "body")
        }
        try context.save()
        let unique = ManagedObjectModel {
            Entity("Note") { Attribute("title", .string); Attribute("body", .binaryData); Attribute("code", .string); Unique("code") }
        }
        XCTAssertThrowsError(try open(unique)) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.reason.contains("Note's (code) unique") && error.reason.contains("1 value is shared"), error.reason)
        }
        let version2 = ManagedObjectModel {
            Entity("Note") {
                Attribute("title", .string)
                Attribute("body", .binaryData).allowsExternalStorage()
                Attribute("code", .string)
                Attribute("folderName", .string).derived(from: "folder.name")
                Relationship("folder", to: "Folder", inverse: "notes")
            }
            Entity("Folder") {
                Attribute("name", .string)
                Attribute("noteCount", .integer64).derived(from: "notes.@count")
                Relationship("notes", to: "Note", inverse: "folder", toMany: true)
            }
        }
        let migrated = try open(version2)
        let notes = try fetch("Note", in: migrated, sortedBy: "title")
        XCTAssertEqual(notes.map { $0.value(forKey: "body") as? Data }, [Data("One".utf8) + Data([0, 255]), Data("Two".utf8) + Data([0, 255])])
        XCTAssertEqual(strings(notes, "folderName"), ["nil", "nil"])
        let folder = migrated.insertNewObject(forEntityName: "Folder")
        folder.setValue("Inbox", forKey: "name")
        notes[0].setValue(folder, forKey: "folder")
        try migrated.save()
        let reread = try open(version2, options: [:])
        XCTAssertEqual(try fetch("Folder", in: reread).first?.value(forKey: "noteCount") as? Int64, 1, "the derived count's triggers run")
        let back = ManagedObjectModel {
            Entity("Note") { Attribute("title", .string); Attribute("body", .binaryData); Attribute("code", .string) }
        }
        let plain = try open(back)
        XCTAssertEqual(try fetch("Note", in: plain, sortedBy: "title").map { $0.value(forKey: "body") as? Data },
                       [Data("One".utf8) + Data([0, 255]), Data("Two".utf8) + Data([0, 255])])
    }

    // MARK: The mapping model

    /// The inferred mapping names each entity mapping as Core Data does, and says where each
    /// property comes from.
    func testTheInferredMappingModelDescribesEachEntityAndProperty() throws {
        let version2 = ManagedObjectModel {
            Entity("Contact") {
                Attribute("name", .string)
                Attribute("email", .string).renamed(from: "mail")
                Attribute("age", .integer16)
                Attribute("shoeSize", .integer32)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true)
            }.renamed(from: "Person")
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Contact", inverse: "tasks")
            }
            Entity("Label") { Attribute("name", .string) }
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: Self.version1(), destinationModel: version2)
        XCTAssertEqual(mapping.entityMappings.map(\.name), ["PersonToContact", "AddLabel", "TaskToTask", "RemoveTag"])
        let contact = try XCTUnwrap(mapping.entityMapping(forDestinationEntityNamed: "Contact"))
        XCTAssertEqual(contact.mappingType, .transform)
        XCTAssertEqual(contact.attributeMappings.first { $0.name == "email" }?.sourceName, "mail")
        XCTAssertEqual(contact.relationshipMappings.map(\.name), ["tasks"])
        XCTAssertEqual(mapping.entityMapping(forDestinationEntityNamed: "Label")?.attributeMappings.count, 0)
        XCTAssertEqual(mapping.entityMapping(forDestinationEntityNamed: "Task")?.mappingType, .transform,
                       "Task's owner now points at Contact: its hash changed")
    }
}
