// Review of lightweight migration of SQLite stores (commit 6b52e92) against Core Data's.
//
// Each test says what Core Data does, citing Apple's documentation where it says so:
// - "Migrating your data model automatically" (formerly "Using Lightweight Migration"),
//   https://developer.apple.com/documentation/coredata/migrating-your-data-model-automatically
// - NSEntityDescription.renamingIdentifier and NSPropertyDescription.renamingIdentifier,
//   https://developer.apple.com/documentation/coredata/nsentitydescription/renamingidentifier
// - "Lightweight Migration" in the Core Data Model Versioning and Data Migration Programming Guide,
//   https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/CoreDataVersioning/Articles/vmLightweightMigration.html
//
// Eight of these failed on 6b52e92 (renaming identifiers kept across versions, relationships moved
// up into a new parent, derived values, the journal mode after a failure, a relationship into
// another configuration's store); the others guard behaviour the migration must keep.
import Foundation
import XCTest
@testable import ObjectGraph

final class MigrationReviewTests: MigrationTestCase {
    /// Runs `body` with a context of `model` on the store (not migrating), saves, and lets the
    /// coordinator and its connection go.
    private func fill(_ model: ManagedObjectModel, configuration: String? = nil, options: [String: any Sendable] = [:],
                      _ body: (ManagedObjectContext) throws -> Void) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, configuration: configuration, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        try body(context)
        try context.save()
    }

    private func insert(_ entity: String, _ values: [String: any Sendable], in context: ManagedObjectContext) -> ManagedObject {
        let object = context.insertNewObject(forEntityName: entity)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    private func ordered(_ object: ManagedObject?, _ key: String, _ name: String = "name") -> [String] {
        (object?.value(forKey: key) as? OrderedSet<ManagedObject>).map { strings(Array($0), name) } ?? ["not an ordered set"]
    }

    private func unordered(_ object: ManagedObject?, _ key: String, _ name: String = "name") -> [String] {
        (object?.value(forKey: key) as? Set<ManagedObject>).map { strings(Array($0), name).sorted() } ?? ["not a set"]
    }

    private func named(_ objects: [ManagedObject], _ value: String, key: String = "name") -> ManagedObject? {
        objects.first { $0.value(forKey: key) as? String == value }
    }

    // MARK: Renaming identifiers kept in later versions

    /// Apple ("Migrating your data model automatically"): "The renaming identifier creates a
    /// canonical name, so set the renaming identifier to the name of the property in the source
    /// model (unless that property already has a renaming identifier). This means you can rename
    /// a property in version 2 of a model, then rename it again in version 3. The renaming will
    /// work correctly going from version 2 to version 3, or from version 1 to version 3."
    /// (NSPropertyDescription.renamingIdentifier: a source and a destination property "that
    /// share the same identifier" are mapped; unset, it is the property's name.)
    ///
    /// Version 1 has `mail`; version 2 renames it `email` (identifier "mail"); version 3 renames
    /// it again to `emailAddress`, its identifier still "mail". Going from version 2 to version 3
    /// must carry the addresses over; here they are silently dropped: inference looks for a
    /// source property *named* "mail" and ignores the source's own renaming identifier.
    func testAPropertyRenamedAgainInVersion3KeepsItsValuesFromVersion2() throws {
        try fill(ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Attribute("mail", .string) }
        }) { context in
            _ = insert("Person", ["name": "Ann", "mail": "ann@example.org"], in: context)
        }
        let version2 = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Attribute("email", .string).renamed(from: "mail") }
        }
        XCTAssertEqual(strings(try fetch("Person", in: try open(version2)), "email"), ["ann@example.org"])
        let version3 = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Attribute("emailAddress", .string).renamed(from: "mail") }
        }
        XCTAssertEqual(strings(try fetch("Person", in: try open(version3)), "emailAddress"), ["ann@example.org"],
                       "version 2 -> version 3 loses the values of a property whose renaming identifier both versions share")
    }

    /// NSEntityDescription.renamingIdentifier: "a source entity and a destination entity that
    /// share the same identifier indicate that an entity mapping should be configured to migrate
    /// from the source to the destination". Xcode copies the identifier into each new version,
    /// so version 3 of an entity renamed in version 2 (Person -> Contact, identifier "Person")
    /// still says "Person", as version 2 does.
    ///
    /// Migrating version 2 to version 3 (which only adds an attribute) must keep the contacts.
    /// Here the mapping is "AddContact" + "RemoveContact": every contact is silently deleted.
    func testAnEntityRenamedInVersion2KeepsItsObjectsInTheNextMigration() throws {
        try fill(ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }) { context in
            for name in ["Ann", "Bob"] { _ = insert("Person", ["name": name], in: context) }
        }
        let version2 = ManagedObjectModel { Entity("Contact") { Attribute("name", .string) }.renamed(from: "Person") }
        XCTAssertEqual(strings(try fetch("Contact", in: try open(version2)), "name"), ["Ann", "Bob"])
        let version3 = ManagedObjectModel {
            Entity("Contact") { Attribute("name", .string); Attribute("phone", .string) }.renamed(from: "Person")
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: version2, destinationModel: version3)
        XCTAssertEqual(mapping.entityMappings.map(\.name), ["ContactToContact"])
        XCTAssertEqual(strings(try fetch("Contact", in: try open(version3)), "name"), ["Ann", "Bob"],
                       "the next migration drops every object of an entity renamed earlier")
    }

    /// The same as above with relationships to the renamed entity: Core Data migrates version 2
    /// to version 3; here inference refuses ("Task.owner: its destination Contact does not map to
    /// Contact"), so a store once migrated past a rename can never be migrated again.
    func testAnEntityRenamedInVersion2WithRelationshipsMigratesAgain() throws {
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Contact") {
                    Attribute("name", .string)
                    if version >= 3 { Attribute("phone", .string) }
                    Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
                }.renamed(from: "Person")
                Entity("Task") {
                    Attribute("title", .string)
                    Relationship("owner", to: "Contact", inverse: "tasks")
                }
            }
        }
        try fill(ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Relationship("tasks", to: "Task", inverse: "owner", toMany: true) }
            Entity("Task") { Attribute("title", .string); Relationship("owner", to: "Person", inverse: "tasks") }
        }) { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            insert("Task", ["title": "a"], in: context).setValue(ann, forKey: "owner")
        }
        XCTAssertEqual(unordered(try fetch("Contact", in: try open(model(2))).first, "tasks", "title"), ["a"])
        let context = try open(model(3))
        XCTAssertEqual(unordered(try fetch("Contact", in: context).first, "tasks", "title"), ["a"])
    }

    // MARK: Moving properties up the hierarchy

    /// Apple ("Lightweight Migration", managing changes to hierarchies): "You can also create a
    /// new parent or child entity and move properties up and down the entity hierarchy."
    /// Attributes moved up into a new parent are carried over (LightweightMigrationTests); a
    /// relationship moved up the same way loses every destination: version 2 gives Person a new
    /// abstract parent Being and moves `name` and the to-one `car` up into it.
    func testARelationshipMovedUpIntoANewParentKeepsItsDestinations() throws {
        try fill(ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Relationship("car", to: "Car") }
            Entity("Car") { Attribute("plate", .string) }
        }) { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            ann.setValue(insert("Car", ["plate": "AB-1"], in: context), forKey: "car")
        }
        let version2 = ManagedObjectModel {
            Entity("Being", abstract: true) { Attribute("name", .string); Relationship("car", to: "Car") }
            Entity("Person", parent: "Being")
            Entity("Car") { Attribute("plate", .string) }
        }
        let people = try fetch("Person", in: try open(version2))
        XCTAssertEqual(strings(people, "name"), ["Ann"], "the attribute moved up is carried over")
        XCTAssertEqual((people.first?.value(forKey: "car") as? ManagedObject)?.value(forKey: "plate") as? String, "AB-1",
                       "the relationship moved up into the new parent lost its destination")
    }

    /// The same move with an inverse: Person's `tasks` moves up into the new parent Being, so
    /// Task.owner (its inverse) now points at Being, of which every old Person is a kind. Apple
    /// lists moving properties up the hierarchy among the changes lightweight migration makes;
    /// here inference refuses ("Task.owner: its destination Being does not map to Person").
    func testARelationshipWithAnInverseMovedUpIntoANewParentIsMigrated() throws {
        try fill(ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Relationship("tasks", to: "Task", inverse: "owner", toMany: true) }
            Entity("Task") { Attribute("title", .string); Relationship("owner", to: "Person", inverse: "tasks") }
        }) { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            for title in ["a", "b"] { insert("Task", ["title": title], in: context).setValue(ann, forKey: "owner") }
        }
        let version2 = ManagedObjectModel {
            Entity("Being", abstract: true) {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
            }
            Entity("Person", parent: "Being")
            Entity("Task") { Attribute("title", .string); Relationship("owner", to: "Being", inverse: "tasks") }
        }
        let context = try open(version2)
        XCTAssertEqual(unordered(try fetch("Person", in: context).first, "tasks", "title"), ["a", "b"])
    }

    // MARK: Derived attributes

    /// A derived attribute `now()` holds the time its object was last saved (Core Data's
    /// NSDerivedAttributeDescription, https://developer.apple.com/documentation/coredata/nsderivedattributedescription:
    /// `now()`, the current time, for a last-modified date the store sets on each save). A
    /// migration saves no object: Core Data's in-place migration copies the column as it copies
    /// every stored value. Here every object's date becomes the time of the migration (the
    /// migration skips derived columns when copying rows and then recomputes every one of them,
    /// `now()` included: SQLiteMigration.copyRows / run's `derived.backfill`).
    ///
    /// (The test sets the stored date to 2001-01-01 with plain SQL, the triggers dropped, so as
    /// not to depend on the clock: the note was "last saved long ago".) Derived values computed
    /// from other values (`title` uppercased via a key path, a count) are guarded too: they pass.
    func testAMigrationKeepsTheValueOfANowDerivedAttribute() throws {
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Folder") {
                    Attribute("name", .string)
                    Attribute("noteCount", .integer64).derived(from: "notes.@count")
                    Relationship("notes", to: "Note", inverse: "folder", toMany: true)
                }
                Entity("Note") {
                    Attribute("title", .string)
                    Attribute("modified", .date).derived(from: "now()")
                    Attribute("folderName", .string).derived(from: "folder.name")
                    if version >= 2 { Attribute("body", .string) }
                    Relationship("folder", to: "Folder", inverse: "notes")
                }
            }
        }
        try fill(model(1)) { context in
            let inbox = insert("Folder", ["name": "Inbox"], in: context)
            for title in ["One", "Two"] { insert("Note", ["title": title], in: context).setValue(inbox, forKey: "folder") }
        }
        do {
            let connection = try SQLiteConnection(path: url.path)
            for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'trigger'") {
                guard case .text(let name)? = row.first else { continue }
                try connection.execute("DROP TRIGGER \(SQLiteSchema.quoted(name))")
            }
            try connection.execute("UPDATE ZNOTE SET ZMODIFIED = 0")
            connection.close()
        }
        let context = try open(model(2))
        let notes = try fetch("Note", in: context, sortedBy: "title")
        XCTAssertEqual(strings(notes, "folderName"), ["Inbox", "Inbox"])
        XCTAssertEqual(try fetch("Folder", in: context).first?.value(forKey: "noteCount") as? Int64, 2)
        XCTAssertEqual(notes.map { $0.value(forKey: "modified") as? Date }, [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 0)],
                       "the migration overwrote every object's last-saved date")
    }

    // MARK: Failures leave the file as it was

    /// The header bytes 18 and 19 of a SQLite file: 1 for a rollback journal, 2 for WAL.
    private func journalBytes() throws -> [UInt8] {
        let header = try Data(contentsOf: url).prefix(20)
        return [header[18], header[19]]
    }

    /// The commit promises that what cannot be carried over "fails with a MigrationError ...
    /// and leaves the file as it was" (Core Data leaves the source store untouched when a
    /// migration fails). A store kept in rollback-journal mode (NSSQLitePragmasOption
    /// journal_mode DELETE) is refused untouched when opened without the migration options; the
    /// same refusal by a failed migration (here inference fails on a type change) has already
    /// switched the file to WAL: the store enables WAL before it migrates, and inference, which
    /// needs no write, runs after that.
    func testAFailedMigrationLeavesTheJournalModeOfTheFileAsItWas() throws {
        let rollback: [String: any Sendable] = [NSSQLitePragmasOption: ["journal_mode": "DELETE"] as [String: any Sendable]]
        try fill(ManagedObjectModel { Entity("Person") { Attribute("name", .string); Attribute("age", .integer16) } },
                 options: rollback) { context in
            _ = insert("Person", ["name": "Ann", "age": Int16(41)], in: context)
        }
        XCTAssertEqual(try journalBytes(), [1, 1])
        let version2 = ManagedObjectModel { Entity("Person") { Attribute("name", .string); Attribute("age", .string) } }
        XCTAssertThrowsError(try open(version2, options: [:]))
        XCTAssertEqual(try journalBytes(), [1, 1], "a refused open leaves the file as it was")
        XCTAssertThrowsError(try open(version2)) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .inference, "\(error)")
        }
        XCTAssertEqual(try journalBytes(), [1, 1], "a failed migration switched the file to WAL")
    }

    /// Guard (passes): a migration that fails after rows were copied (a new required
    /// relationship some objects lack) names the entity, the relationship and the count, and the
    /// file still opens with version 1 holding every value and relationship.
    func testANewlyRequiredRelationshipFailsNamingItAndLeavesTheData() throws {
        func model(required: Bool) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Person") { Attribute("name", .string); Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true) }
                Entity("Task") {
                    Attribute("title", .string)
                    required ? Relationship("owner", to: "Person", inverse: "tasks").required() : Relationship("owner", to: "Person", inverse: "tasks")
                }
            }
        }
        try fill(model(required: false)) { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            let a = insert("Task", ["title": "a"], in: context), b = insert("Task", ["title": "b"], in: context)
            ann.mutableOrderedSetValue(forKey: "tasks").insert(contentsOf: [b, a])
            _ = insert("Task", ["title": "orphan"], in: context)
        }
        XCTAssertThrowsError(try open(model(required: true))) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.kind, .migration)
            XCTAssertTrue(error.reason.contains("Task.owner") && error.reason.contains("1 Task object"), error.reason)
        }
        let context = try open(model(required: false), options: [:])
        XCTAssertEqual(ordered(try fetch("Person", in: context).first, "tasks", "title"), ["b", "a"])
        XCTAssertEqual(strings(try fetch("Task", in: context, sortedBy: "title"), "title"), ["a", "b", "orphan"])
    }

    // MARK: Relationships

    /// Guard (passes): self-referential relationships, a symmetric many-to-many (`friends`, its
    /// own inverse) and a to-one `manager` with an ordered to-many inverse `reports`, keep every
    /// pair and order when the entity is renamed (Person -> Employee) and an entity sorting
    /// first renumbers every entity; fetching across them and deleting work afterwards.
    func testSelfReferentialRelationshipsSurviveARename() throws {
        func model(_ name: String) -> ManagedObjectModel {
            ManagedObjectModel {
                if name != "Person" { Entity("Aardvark") { Attribute("name", .string) } }
                Entity(name) {
                    Attribute("name", .string)
                    Relationship("friends", to: name, inverse: "friends", toMany: true)
                    Relationship("manager", to: name, inverse: "reports")
                    Relationship("reports", to: name, inverse: "manager", toMany: true, ordered: true)
                }.renamed(from: "Person")
            }
        }
        try fill(model("Person")) { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            let bob = insert("Person", ["name": "Bob"], in: context)
            let cid = insert("Person", ["name": "Cid"], in: context)
            let dan = insert("Person", ["name": "Dan"], in: context)
            ann.mutableOrderedSetValue(forKey: "reports").insert(contentsOf: [dan, bob, cid])
            ann.mutableSetValue(forKey: "friends").insert(bob)
            cid.mutableSetValue(forKey: "friends").insert(dan)
        }
        let context = try open(model("Employee"))
        let people = try fetch("Employee", in: context)
        let ann = named(people, "Ann"), bob = named(people, "Bob"), dan = named(people, "Dan")
        XCTAssertEqual(ordered(ann, "reports"), ["Dan", "Bob", "Cid"])
        XCTAssertEqual((dan?.value(forKey: "manager") as? ManagedObject)?.value(forKey: "name") as? String, "Ann")
        XCTAssertEqual(unordered(ann, "friends"), ["Bob"])
        XCTAssertEqual(unordered(bob, "friends"), ["Ann"])
        XCTAssertEqual(unordered(dan, "friends"), ["Cid"])
        XCTAssertEqual(strings(try fetch("Employee", in: context, where: "manager.name == 'Ann'"), "name"), ["Bob", "Cid", "Dan"])
        XCTAssertEqual(strings(try fetch("Employee", in: context, where: "ANY friends.name == 'Cid'"), "name"), ["Dan"])
        context.delete(try XCTUnwrap(ann))
        try context.save()
        let again = try open(model("Employee"), options: [:])
        let rest = try fetch("Employee", in: again)
        XCTAssertEqual(strings(rest, "name"), ["Bob", "Cid", "Dan"])
        XCTAssertTrue(rest.allSatisfy { $0.value(forKey: "manager") == nil })
        XCTAssertEqual(unordered(named(rest, "Bob"), "friends"), [])
    }

    /// Guard (passes): a many-to-many relationship ordered on both sides keeps both orders when
    /// renaming Author to Writer makes the join table belong to the other side.
    func testAManyToManyOrderedOnBothSidesKeepsBothOrders() throws {
        func model(_ author: String) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity(author) {
                    Attribute("name", .string)
                    Relationship("books", to: "Book", inverse: "authors", toMany: true, ordered: true)
                }.renamed(from: "Author")
                Entity("Book") {
                    Attribute("name", .string)
                    Relationship("authors", to: author, inverse: "books", toMany: true, ordered: true)
                }
            }
        }
        try fill(model("Author")) { context in
            let ann = insert("Author", ["name": "Ann"], in: context), bob = insert("Author", ["name": "Bob"], in: context)
            let x = insert("Book", ["name": "X"], in: context), y = insert("Book", ["name": "Y"], in: context)
            let z = insert("Book", ["name": "Z"], in: context)
            ann.mutableOrderedSetValue(forKey: "books").insert(contentsOf: [z, x, y])
            bob.mutableOrderedSetValue(forKey: "books").insert(contentsOf: [y, z])
            // Y's authors: Bob then Ann; Z's: Ann then Bob as inserted, reordered to Bob, Ann.
            let yAuthors = y.mutableOrderedSetValue(forKey: "authors")
            yAuthors.removeAll()
            yAuthors.insert(contentsOf: [bob, ann])
            let zAuthors = z.mutableOrderedSetValue(forKey: "authors")
            zAuthors.removeAll()
            zAuthors.insert(contentsOf: [bob, ann])
        }
        let before = try open(model("Author"), options: [:])
        let expectedBooks = try fetch("Author", in: before).map { ordered($0, "books") }
        let expectedAuthors = try fetch("Book", in: before).map { ordered($0, "authors") }
        let context = try open(model("Writer"))
        XCTAssertEqual(try fetch("Writer", in: context).map { ordered($0, "books") }, expectedBooks)
        XCTAssertEqual(try fetch("Book", in: context).map { ordered($0, "authors") }, expectedAuthors)
        XCTAssertEqual(expectedAuthors.last, ["Bob", "Ann"])
    }

    /// Guard (passes): Apple: "You can rename a relationship by using a renaming identifier".
    /// Person -> Contact, and both sides of each relationship renamed with it (tasks -> todos,
    /// owner -> assignee; tags -> labels, Tag -> Label, people -> contacts): every pair and the
    /// order of the ordered one are kept; saving, fetching across them and cascading deletes work.
    func testAnEntityRenamedWithItsRelationshipsAndTheirInversesKeepsEveryPair() throws {
        try fill(Self.peopleModel()) { context in try self.fillPeople(context) }
        let version2 = ManagedObjectModel {
            Entity("Contact") {
                Attribute("name", .string)
                Relationship("todos", to: "Task", inverse: "assignee", toMany: true, ordered: true, deleteRule: .cascade).renamed(from: "tasks")
                Relationship("labels", to: "Label", inverse: "contacts", toMany: true).renamed(from: "tags")
            }.renamed(from: "Person")
            Entity("Task") {
                Attribute("title", .string)
                Relationship("assignee", to: "Contact", inverse: "todos").renamed(from: "owner")
            }
            Entity("Label") {
                Attribute("name", .string)
                Relationship("contacts", to: "Contact", inverse: "labels", toMany: true).renamed(from: "people")
            }.renamed(from: "Tag")
        }
        let context = try open(version2)
        let people = try fetch("Contact", in: context)
        XCTAssertEqual(ordered(named(people, "Ann"), "todos", "title"), ["c", "a"])
        XCTAssertEqual(unordered(named(people, "Ann"), "labels"), ["home", "work"])
        XCTAssertEqual(unordered(named(try fetch("Label", in: context), "home"), "contacts"), ["Ann", "Bob"])
        XCTAssertEqual(strings(try fetch("Task", in: context, sortedBy: "title", where: "assignee.name == 'Ann'"), "title"), ["a", "c"])
        XCTAssertEqual(strings(try fetch("Contact", in: context, where: "ANY labels.name == 'work'"), "name"), ["Ann"])
        context.delete(try XCTUnwrap(named(people, "Ann")))
        try context.save()
        let again = try open(version2, options: [:])
        XCTAssertEqual(strings(try fetch("Task", in: again, sortedBy: "title"), "title"), ["b"])
        XCTAssertEqual(unordered(named(try fetch("Label", in: again), "home"), "contacts"), ["Bob"])
    }

    /// Guard (passes): a relationship renamed (tasks -> todos) whose inverse keeps its name
    /// (Task.owner, whose inverse is now "todos") keeps every pair and the order.
    func testARelationshipRenamedWhoseInverseIsNotKeepsItsPairsAndOrder() throws {
        try fill(Self.peopleModel()) { context in try self.fillPeople(context) }
        let version2 = Self.peopleModel(
            tasks: Relationship("todos", to: "Task", inverse: "owner", toMany: true, ordered: true).renamed(from: "tasks"),
            owner: Relationship("owner", to: "Person", inverse: "todos"))
        let context = try open(version2)
        let people = try fetch("Person", in: context)
        XCTAssertEqual(ordered(named(people, "Ann"), "todos", "title"), ["c", "a"])
        XCTAssertEqual(ordered(named(people, "Bob"), "todos", "title"), ["b"])
        // Appending after the migration puts the new task last.
        let d = insert("Task", ["title": "d"], in: context)
        named(people, "Ann")?.mutableOrderedSetValue(forKey: "todos").insert(d)
        try context.save()
        XCTAssertEqual(ordered(named(try fetch("Person", in: try open(version2, options: [:])), "Ann"), "todos", "title"), ["c", "a", "d"])
    }

    /// Guard (passes): Apple: lightweight migration handles "add[ing] a new relationship"; a
    /// to-one relationship without inverse (Task.owner) gains an ordered to-many inverse
    /// (Person.tasks): each person's tasks are listed, in key order (there was no order), and
    /// can be reordered and saved.
    func testAToOneRelationshipGainingAnOrderedInverseListsItsSources() throws {
        try fill(ManagedObjectModel {
            Entity("Person") { Attribute("name", .string) }
            Entity("Task") { Attribute("title", .string); Relationship("owner", to: "Person") }
        }) { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            for title in ["t1", "t2", "t3"] { insert("Task", ["title": title], in: context).setValue(ann, forKey: "owner") }
        }
        let version2 = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true) }
            Entity("Task") { Attribute("title", .string); Relationship("owner", to: "Person", inverse: "tasks") }
        }
        let context = try open(version2)
        let ann = try XCTUnwrap(try fetch("Person", in: context).first)
        XCTAssertEqual(ordered(ann, "tasks", "title"), ["t1", "t2", "t3"])
        let tasks = ann.mutableOrderedSetValue(forKey: "tasks")
        let t3 = try XCTUnwrap(named(try fetch("Task", in: context, sortedBy: "title"), "t3", key: "title"))
        tasks.remove(t3)
        tasks.insert(t3, at: 0)
        try context.save()
        XCTAssertEqual(ordered(try fetch("Person", in: try open(version2, options: [:])).first, "tasks", "title"), ["t3", "t1", "t2"])
    }

    /// Guard (passes): Apple: "delete an existing relationship" and entities can be removed.
    /// Version 2 removes Tag (the destination of Person.tags, a many-to-many) and Person.tags;
    /// the rest is kept, and saving and cascading deletes work on the migrated file.
    func testRemovingAnEntityOthersRelatedToKeepsTheRestWorking() throws {
        try fill(Self.peopleModel()) { context in try self.fillPeople(context) }
        let version2 = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true, deleteRule: .cascade)
            }
            Entity("Task") { Attribute("title", .string); Relationship("owner", to: "Person", inverse: "tasks") }
        }
        let context = try open(version2)
        let people = try fetch("Person", in: context)
        XCTAssertEqual(ordered(named(people, "Ann"), "tasks", "title"), ["c", "a"])
        let eve = insert("Person", ["name": "Eve"], in: context)
        insert("Task", ["title": "e"], in: context).setValue(eve, forKey: "owner")
        context.delete(try XCTUnwrap(named(people, "Ann")))
        try context.save()
        let again = try open(version2, options: [:])
        XCTAssertEqual(strings(try fetch("Person", in: again), "name"), ["Bob", "Eve"])
        XCTAssertEqual(strings(try fetch("Task", in: again, sortedBy: "title"), "title"), ["b", "e"])
    }

    // MARK: Inheritance

    /// Guard (passes): an abstract parent with two children sharing its table; version 2 moves
    /// `title` (declared by each child, so in two columns) up into the parent, adds a required
    /// attribute with a default to the parent, and adds a sub-entity sorting first (renumbering
    /// every entity). Values are carried over per entity, the new attribute takes its default,
    /// and a to-one relationship to the parent still leads to an object of the right entity.
    func testSubentitiesSharingATableGetTheParentsNewAttributesAndKeepTheirValues() throws {
        try fill(ManagedObjectModel {
            Entity("Item", abstract: true) { Relationship("reviews", to: "Review", inverse: "item", toMany: true) }
            Entity("Book", parent: "Item") { Attribute("title", .string); Attribute("pages", .integer32) }
            Entity("Film", parent: "Item") { Attribute("title", .string); Attribute("minutes", .integer32) }
            Entity("Review") { Attribute("text", .string); Relationship("item", to: "Item", inverse: "reviews") }
        }) { context in
            let book = insert("Book", ["title": "Dune", "pages": Int32(412)], in: context)
            let film = insert("Film", ["title": "Alien", "minutes": Int32(117)], in: context)
            insert("Review", ["text": "good"], in: context).setValue(book, forKey: "item")
            insert("Review", ["text": "scary"], in: context).setValue(film, forKey: "item")
        }
        let version2 = ManagedObjectModel {
            Entity("Item", abstract: true) {
                Attribute("title", .string)
                Attribute("rating", .integer16, default: 3).required()
                Relationship("reviews", to: "Review", inverse: "item", toMany: true)
            }
            Entity("Album", parent: "Item") { Attribute("tracks", .integer32) }
            Entity("Book", parent: "Item") { Attribute("pages", .integer32) }
            Entity("Film", parent: "Item") { Attribute("minutes", .integer32) }
            Entity("Review") { Attribute("text", .string); Relationship("item", to: "Item", inverse: "reviews") }
        }
        let context = try open(version2)
        let items = try fetch("Item", in: context, sortedBy: "title")
        XCTAssertEqual(strings(items, "title"), ["Alien", "Dune"])
        XCTAssertEqual(items.map(\.entity.name), ["Film", "Book"])
        XCTAssertEqual(items.map { $0.value(forKey: "rating") as? Int16 }, [3, 3])
        XCTAssertEqual(items[0].value(forKey: "minutes") as? Int32, 117)
        XCTAssertEqual(items[1].value(forKey: "pages") as? Int32, 412)
        let reviews = try fetch("Review", in: context, sortedBy: "text")
        XCTAssertEqual(reviews.map { ($0.value(forKey: "item") as? ManagedObject)?.entity.name }, ["Book", "Film"])
        XCTAssertEqual(strings(try fetch("Review", in: context, sortedBy: "text", where: "item.title == 'Alien'"), "text"), ["scary"])
        _ = insert("Album", ["title": "Blue", "tracks": Int32(10)], in: context)
        try context.save()
        XCTAssertEqual(strings(try fetch("Item", in: try open(version2, options: [:]), sortedBy: "title"), "title"), ["Alien", "Blue", "Dune"])
    }

    // MARK: Values

    /// Guard (passes): values of external binary storage kept in files beside the store (over
    /// 100 KiB) survive a migration that keeps external storage (the files stay referenced) and
    /// a second migration that turns it off (the bytes move into the column); small values
    /// stored inline survive both; the value can be replaced afterwards.
    func testExternallyStoredBinaryValuesSurviveTwoMigrations() throws {
        let large = Data((0..<(200 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let small = Data([0, 1, 2, 255])
        try fill(ManagedObjectModel {
            Entity("Doc") { Attribute("name", .string); Attribute("blob", .binaryData).allowsExternalStorage() }
        }) { context in
            _ = insert("Doc", ["name": "large", "blob": large], in: context)
            _ = insert("Doc", ["name": "small", "blob": small], in: context)
        }
        let folder = SQLiteExternalData.supportDirectory(for: url).appendingPathComponent("_EXTERNAL_DATA")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.count, 1,
                       "the large value is in a file")
        let version2 = ManagedObjectModel {
            Entity("Doc") {
                Attribute("name", .string)
                Attribute("blob", .binaryData).allowsExternalStorage()
                Attribute("size", .integer64, default: 0)
            }
        }
        let docs = try fetch("Doc", in: try open(version2))
        XCTAssertEqual(docs.map { $0.value(forKey: "blob") as? Data }, [large, small])
        let version3 = ManagedObjectModel {
            Entity("Doc") { Attribute("name", .string); Attribute("blob", .binaryData); Attribute("size", .integer64, default: 0) }
        }
        let context = try open(version3)
        let plain = try fetch("Doc", in: context)
        XCTAssertEqual(plain.map { $0.value(forKey: "blob") as? Data }, [large, small])
        plain[1].setValue(large, forKey: "blob")
        try context.save()
        XCTAssertEqual(try fetch("Doc", in: try open(version3, options: [:])).map { $0.value(forKey: "blob") as? Data }, [large, large])
    }

    private static let reversingTransformer = "MigrationReviewReversingTransformer"

    /// Guard (passes): Date, Decimal, UUID, URI, Boolean and transformable values (through a
    /// registered transformer) are carried over exactly, one of them renamed; new attributes of
    /// those types take their default values.
    func testDatesDecimalsUUIDsAndTransformablesAreCarriedOverAndNewOnesTakeTheirDefaults() throws {
        AttributeValueTransformer.setValueTransformer(AttributeValueTransformer(
            transform: { Data(($0 as! String).utf8.reversed()) },
            reverseTransform: { String(decoding: $0.reversed(), as: UTF8.self) }
        ), forName: Self.reversingTransformer)
        let when = Date(timeIntervalSinceReferenceDate: 123_456.789)
        let amount = Decimal(string: "12345678901234567890.123456789")!
        let id = UUID()
        let link = URL(string: "https://example.org/a?b=c")!
        try fill(ManagedObjectModel {
            Entity("Record") {
                Attribute("name", .string)
                Attribute("when", .date)
                Attribute("amount", .decimal)
                Attribute("id", .uuid)
                Attribute("link", .uri)
                Attribute("done", .boolean)
                Attribute("info", .transformable).transformed(by: Self.reversingTransformer)
            }
        }) { context in
            _ = insert("Record", ["name": "r", "when": when, "amount": amount, "id": id, "link": link, "done": true, "info": "hello"],
                       in: context)
        }
        let version2 = ManagedObjectModel {
            Entity("Record") {
                Attribute("name", .string)
                Attribute("when", .date)
                Attribute("total", .decimal).renamed(from: "amount")
                Attribute("id", .uuid)
                Attribute("link", .uri)
                Attribute("done", .boolean)
                Attribute("info", .transformable).transformed(by: Self.reversingTransformer)
                Attribute("price", .decimal, default: Decimal(string: "9.99")!).required()
                Attribute("since", .date, default: Date(timeIntervalSinceReferenceDate: 0)).required()
                Attribute("enabled", .boolean, default: true).required()
            }
        }
        let record = try XCTUnwrap(try fetch("Record", in: try open(version2)).first)
        XCTAssertEqual(record.value(forKey: "when") as? Date, when)
        XCTAssertEqual(record.value(forKey: "total") as? Decimal, amount)
        XCTAssertEqual(record.value(forKey: "id") as? UUID, id)
        XCTAssertEqual(record.value(forKey: "link") as? URL, link)
        XCTAssertEqual(record.value(forKey: "done") as? Bool, true)
        XCTAssertEqual(record.value(forKey: "info") as? String, "hello")
        XCTAssertEqual(record.value(forKey: "price") as? Decimal, Decimal(string: "9.99"))
        XCTAssertEqual(record.value(forKey: "since") as? Date, Date(timeIntervalSinceReferenceDate: 0))
        XCTAssertEqual(record.value(forKey: "enabled") as? Bool, true)
    }

    /// Guard (passes): a uniqueness constraint kept across versions still holds after the
    /// migration (its UNIQUE index is made again): a second Tag "home" cannot be saved.
    func testAUniquenessConstraintKeptAcrossVersionsStillHolds() throws {
        try fill(ManagedObjectModel { Entity("Tag") { Attribute("name", .string); Unique("name") } }) { context in
            for name in ["home", "work"] { _ = insert("Tag", ["name": name], in: context) }
        }
        let version2 = ManagedObjectModel { Entity("Tag") { Attribute("name", .string); Attribute("color", .string); Unique("name") } }
        let context = try open(version2)
        XCTAssertEqual(strings(try fetch("Tag", in: context), "name"), ["home", "work"])
        _ = insert("Tag", ["name": "home", "color": "red"], in: context)
        XCTAssertThrowsError(try context.save())
    }

    // MARK: Keys and object IDs

    /// Guard (passes): Core Data never reuses a primary key. Objects deleted before the
    /// migration (the highest keys) leave their keys unused after it: in a table kept, and in the
    /// table of an entity moved out of its inheritance tree.
    func testKeysOfObjectsDeletedBeforeTheMigrationAreNotReused() throws {
        var deleted: [String: String] = [:]
        try fill(ManagedObjectModel {
            Entity("Animal") { Attribute("name", .string) }
            Entity("Dog", parent: "Animal") { Attribute("breed", .string) }
            Entity("Person") { Attribute("name", .string) }
        }) { context in
            _ = insert("Animal", ["name": "Cat"], in: context)
            _ = insert("Dog", ["name": "Rex"], in: context)
            let fido = insert("Dog", ["name": "Fido"], in: context)
            _ = insert("Person", ["name": "Ann"], in: context)
            let bob = insert("Person", ["name": "Bob"], in: context)
            try context.save()
            deleted = ["Dog": fido.objectID.uriRepresentation.lastPathComponent, "Person": bob.objectID.uriRepresentation.lastPathComponent]
            context.delete(fido)
            context.delete(bob)
        }
        let version2 = ManagedObjectModel {
            Entity("Animal") { Attribute("name", .string) }
            Entity("Dog") { Attribute("name", .string); Attribute("breed", .string) }
            Entity("Person") { Attribute("name", .string); Attribute("age", .integer16) }
        }
        let context = try open(version2)
        let dog = insert("Dog", ["name": "Max"], in: context)
        let person = insert("Person", ["name": "Cid"], in: context)
        try context.save()
        XCTAssertNotEqual(dog.objectID.uriRepresentation.lastPathComponent, deleted["Dog"])
        XCTAssertNotEqual(person.objectID.uriRepresentation.lastPathComponent, deleted["Person"])
        XCTAssertEqual(strings(try fetch("Dog", in: try open(version2, options: [:])), "name"), ["Max", "Rex"])
    }

    /// Guard (passes): Core Data's URIs name the entity and the key; an entity that is not
    /// renamed keeps its objects' URIs across a migration that renumbers every entity, and they
    /// still find the objects.
    func testTheOldURIOfAnObjectOfAnUnrenamedEntityFindsIt() throws {
        var uri: URL?
        try fill(Self.peopleModel()) { context in
            try self.fillPeople(context)
            try context.save()
            uri = try self.fetch("Task", in: context, sortedBy: "title").first?.objectID.uriRepresentation
        }
        let version2 = Self.peopleModel()
        version2.entities.append(EntityDescription(name: "Aardvark"))
        let context = try open(version2)
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        let id = try XCTUnwrap(coordinator.managedObjectID(forURIRepresentation: XCTUnwrap(uri)))
        XCTAssertEqual(try context.existingObject(with: id).value(forKey: "title") as? String, "a")
    }

    // MARK: Coordinators, versions and configurations

    /// Guard (passes): after one coordinator migrated the file, another opens it with the new
    /// model without migrating (the options off) and sees what the first saves.
    func testASecondCoordinatorOpensTheMigratedFileAndSeesItsSaves() throws {
        try fill(Self.peopleModel()) { context in try self.fillPeople(context) }
        let version2 = Self.peopleModel()
        version2.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "nickname", type: .string))
        let first = try open(version2)
        let second = try open(version2, options: [:])
        XCTAssertEqual(strings(try fetch("Person", in: second), "name"), ["Ann", "Bob"])
        _ = insert("Person", ["name": "Cid", "nickname": "C"], in: first)
        try first.save()
        let third = try open(version2, options: [:])
        XCTAssertEqual(strings(try fetch("Person", in: third), "nickname"), ["nil", "nil", "C"])
        XCTAssertEqual(strings(try fetch("Person", in: second), "name"), ["Ann", "Bob", "Cid"])
    }

    /// Guard (passes): Apple: "The renaming will work correctly going ... from version 1 to
    /// version 3"; and a file migrated twice without renames (v1 -> v2 -> v3) keeps everything.
    func testMigratingTwiceKeepsEverything() throws {
        try fill(Self.peopleModel()) { context in try self.fillPeople(context) }
        let version2 = Self.peopleModel()
        version2.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "nickname", type: .string))
        let migrated = try open(version2)
        named(try fetch("Person", in: migrated), "Bob")?.setValue("B", forKey: "nickname")
        try migrated.save()
        let version3 = Self.peopleModel(people: Relationship("people", to: "Person", inverse: "tags", toMany: true, ordered: true))
        version3.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "nickname", type: .string))
        version3.entitiesByName["Task"]!.declaredProperties.append(AttributeDescription(name: "done", type: .boolean))
        let context = try open(version3)
        let people = try fetch("Person", in: context)
        XCTAssertEqual(strings(people, "nickname"), ["nil", "B"])
        XCTAssertEqual(ordered(named(people, "Ann"), "tasks", "title"), ["c", "a"])
        XCTAssertEqual(ordered(named(try fetch("Tag", in: context), "home"), "people"), ["Ann", "Bob"])
    }

    /// Guard (passes): a store of a configuration ("Local": Person and Task; "Cloud": Note) made
    /// and written with that configuration migrates with it, the new model adding an attribute
    /// and an entity to the configuration.
    func testAStoreOfAConfigurationMigrates() throws {
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                if version >= 2 { Entity("Aardvark") { Attribute("name", .string) } }
                Entity("Note") { Attribute("text", .string) }
                Entity("Person") {
                    Attribute("name", .string)
                    if version >= 2 { Attribute("nickname", .string) }
                    Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true)
                }
                Entity("Task") { Attribute("title", .string); Relationship("owner", to: "Person", inverse: "tasks") }
                Configuration("Local", entities: version >= 2 ? ["Aardvark", "Person", "Task"] : ["Person", "Task"])
                Configuration("Cloud", entities: ["Note"])
            }
        }
        try fill(model(1), configuration: "Local") { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            let a = insert("Task", ["title": "a"], in: context), b = insert("Task", ["title": "b"], in: context)
            ann.mutableOrderedSetValue(forKey: "tasks").insert(contentsOf: [b, a])
        }
        let context = try open(model(2), configuration: "Local")
        XCTAssertEqual(ordered(try fetch("Person", in: context).first, "tasks", "title"), ["b", "a"])
        _ = insert("Aardvark", ["name": "x"], in: context)
        try context.save()
        XCTAssertEqual(strings(try fetch("Aardvark", in: try open(model(2), configuration: "Local", options: [:])), "name"), ["x"])
    }

    /// A model whose Person (configuration "Local") has a to-one relationship `note` to Note
    /// (configuration "Cloud"): the SQLite store of "Local" opens and saves with it (the foreign
    /// key is a column of ZPERSON). Core Data keeps no relationships across stores, but a
    /// migration must never end the process: it carries the objects over, or fails with an error
    /// naming the relationship. Here adding an attribute to Person aborts the process
    /// (preconditionFailure "the SQLite store does not hold Note objects" in SQLiteSchema.table(of:),
    /// called by SQLiteMigration.pairs(of:) while rebuilding Person.note). Run in a child process
    /// (ChildProcessProbe) so that the crash is reported instead of ending the test run.
    func testAStoreWithARelationshipIntoAnotherConfigurationMigratesWithoutCrashing() throws {
        let result = try ChildProcessProbe.run("MigrationReviewTests", "testProbeMigratingAStoreWithARelationshipIntoAnotherConfiguration")
        let fatal = result.output.split(separator: "\n").first { $0.contains("Fatal error") }.map(String.init)
        XCTAssertFalse(result.crashed, "the migration ended the process: " + (fatal ?? result.tail))
        XCTAssertTrue(result.passed, result.tail)
    }

    /// The probe of the test above (skipped unless run by it).
    func testProbeMigratingAStoreWithARelationshipIntoAnotherConfiguration() throws {
        try ChildProcessProbe.skipUnlessProbing()
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Note") { Attribute("text", .string) }
                Entity("Person") {
                    Attribute("name", .string)
                    if version >= 2 { Attribute("nickname", .string) }
                    Relationship("note", to: "Note")
                }
                Configuration("Local", entities: ["Person"])
                Configuration("Cloud", entities: ["Note"])
            }
        }
        try fill(model(1), configuration: "Local") { context in _ = insert("Person", ["name": "Ann"], in: context) }
        do {
            let context = try open(model(2), configuration: "Local")
            XCTAssertEqual(strings(try fetch("Person", in: context), "name"), ["Ann"])
        } catch let error as MigrationError {
            XCTAssertTrue(error.reason.contains("Person.note"), error.reason)
        }
    }

    // MARK: Version 1: people with tasks and tags

    private static func peopleModel(
        tasks: Relationship = Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true),
        owner: Relationship = Relationship("owner", to: "Person", inverse: "tasks"),
        tags: Relationship = Relationship("tags", to: "Tag", inverse: "people", toMany: true),
        people: Relationship = Relationship("people", to: "Person", inverse: "tags", toMany: true)
    ) -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Person") { Attribute("name", .string); tasks; tags }
            Entity("Task") { Attribute("title", .string); owner }
            Entity("Tag") { Attribute("name", .string); people }
        }
    }

    /// Ann with the tasks c, a (in that order) and the tags home and work; Bob with task b and
    /// the tag home.
    private func fillPeople(_ context: ManagedObjectContext) throws {
        let ann = insert("Person", ["name": "Ann"], in: context), bob = insert("Person", ["name": "Bob"], in: context)
        let a = insert("Task", ["title": "a"], in: context), b = insert("Task", ["title": "b"], in: context)
        let c = insert("Task", ["title": "c"], in: context)
        ann.mutableOrderedSetValue(forKey: "tasks").insert(contentsOf: [c, a])
        b.setValue(bob, forKey: "owner")
        let home = insert("Tag", ["name": "home"], in: context), work = insert("Tag", ["name": "work"], in: context)
        ann.mutableSetValue(forKey: "tags").insert(contentsOf: [home, work])
        bob.mutableSetValue(forKey: "tags").insert(home)
    }
}
