// Batch update, delete and insert on the SQLite store: one statement or transaction over rows,
// versions raised, delete rules applied (cascade, nullify, deny), values checked as saves check
// them, uniqueness kept, and contexts seeing the result after a refresh.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteBatchTests: XCTestCase {
    // MARK: Update

    func testBatchUpdateSetsMatchingRowsAndRaisesTheirVersions() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var request = BatchUpdateRequest(entity: f.entity("Task"))
        request.predicate = try Predicate(format: "points > 5")
        request.propertiesToUpdate = ["done": .constant(.bool(true)), "title": .constant(.string("Big"))]
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try f.store.execute(request) else { return XCTFail("no IDs") }
        XCTAssertEqual(Set(ids), [d.deploy, d.release])
        XCTAssertEqual(try f.stored(d.release)?.value(forKey: "title"), .value("Big"))
        XCTAssertEqual(try f.stored(d.release)?.value(forKey: "done"), .value(true))
        XCTAssertEqual(try f.stored(d.release)?.version, 2)
        XCTAssertEqual(try f.stored(d.write)?.version, 1)
        XCTAssertEqual(try f.stored(d.write)?.value(forKey: "title"), .value("Write"))
    }

    func testBatchUpdateSetsToOneRelationshipsAndNil() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var request = BatchUpdateRequest(entity: f.entity("Task"))
        request.predicate = try Predicate(format: "owner == %@", d.ada)
        request.propertiesToUpdate = ["owner": .constant(.opaque(OpaqueValue(d.bob))), "code": .null]
        request.resultType = .count
        guard case .count(let count) = try f.store.execute(request) else { return XCTFail("no count") }
        XCTAssertEqual(count, 2)
        XCTAssertEqual(Set(try f.destinations("tasks", of: d.bob)), [d.write, d.review, d.deploy, d.release])
        XCTAssertEqual(try f.stored(d.write)?.value(forKey: "code"), .null)
    }

    func testBatchUpdateRefusesWhatItCannotSet() throws {
        let f = try SQLiteStoreFixture()
        _ = try f.populated()
        let refused: [String: Expression] = [
            "tags": .null, "nickname": .string("x"), "missing": .integer(1),
            // Computed values: through a relationship, of another kind, not attributes.
            "points": try Expression(format: "owner.age + 1"), "done": try Expression(format: "title"),
            "owner": try Expression(format: "owner"),
        ]
        for (name, value) in refused {
            var request = BatchUpdateRequest(entity: f.entity("Task"))
            request.propertiesToUpdate = [name: value]
            XCTAssertThrowsError(try f.store.execute(request), name) { error in
                XCTAssertTrue("\(error)".contains(name) || "\(error)".contains("Task"), "\(error)")
            }
        }
        let stack = try Stack(storeType: .sqlite)
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        var required = BatchUpdateRequest(entity: stack.model.entitiesByName["Task"]!)
        required.propertiesToUpdate = ["title": .null]
        XCTAssertThrowsError(try store.execute(required)) { error in XCTAssertTrue("\(error)".contains("Item.title"), "\(error)") }
    }

    /// Core Data's batch updates take expressions: values computed from each row's own
    /// attributes (`points + 1`, another attribute, a date moved by seconds), in the store.
    func testBatchUpdateComputesValuesFromEachRow() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var request = BatchUpdateRequest(entity: f.entity("Task"))
        request.predicate = try Predicate(format: "points > 4")
        request.propertiesToUpdate = [
            "points": try Expression(format: "points * 2 + 1"), "code": try Expression(format: "title"),
        ]
        request.resultType = .count
        XCTAssertEqual(try f.store.execute(request), .count(3))
        XCTAssertEqual(try f.stored(d.review)?.value(forKey: "points"), .value(Int32(11)))
        XCTAssertEqual(try f.stored(d.release)?.value(forKey: "points"), .value(Int32(27)))
        XCTAssertEqual(try f.stored(d.release)?.value(forKey: "code"), .value("Release"))
        XCTAssertEqual(try f.stored(d.release)?.version, 2)
        XCTAssertEqual(try f.stored(d.write)?.value(forKey: "points"), .value(Int32(3)), "not matched: unchanged")

        // A real result into an integer attribute is stored as an integer; nil stays nil.
        var halve = BatchUpdateRequest(entity: f.entity("Task"))
        halve.predicate = try Predicate(format: "SELF == %@", d.write)
        halve.propertiesToUpdate = ["points": try Expression(format: "points / 2")]
        _ = try f.store.execute(halve)
        XCTAssertEqual(try f.stored(d.write)?.value(forKey: "points"), .value(Int32(1)))

        var postpone = BatchUpdateRequest(entity: f.entity("Milestone"))
        postpone.propertiesToUpdate = ["deadline": try Expression(format: "deadline + 86400")]
        _ = try f.store.execute(postpone)
        XCTAssertEqual(try f.stored(d.release)?.value(forKey: "deadline"), .value(Date(timeIntervalSince1970: 86400)))
    }

    func testBatchUpdateBreakingUniquenessChangesNothing() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var request = BatchUpdateRequest(entity: f.entity("Task"))
        request.propertiesToUpdate = ["code": .string("W")]
        XCTAssertThrowsError(try f.store.execute(request)) { error in
            guard case StoreError.uniquenessViolation(let entity, let properties, let ids) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(entity, "Task")
            XCTAssertEqual(properties, ["code"])
            XCTAssertEqual(ids, [d.write])
        }
        XCTAssertEqual(try f.stored(d.review)?.value(forKey: "code"), .value("R"))
    }

    func testContextsSeeABatchUpdateAfterARefresh() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Plan", priority: 1)
        try stack.context.save()
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        var request = BatchUpdateRequest(entity: stack.model.entitiesByName["Task"]!)
        request.propertiesToUpdate = ["priority": .integer(3)]
        _ = try store.execute(request)
        stack.context.refresh(task, mergeChanges: false)
        XCTAssertEqual(task.value(forKey: "priority") as? Int16, 3)
    }

    // MARK: Delete

    func testBatchDeleteCascadesAndCleansJoinTables() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada"), bob = stack.person("Bob")
        let tasks = ["a", "b"].map { stack.task($0, owner: ada) }
        let other = stack.task("c", owner: bob)
        let meeting = stack.event("Meeting")
        for person in [ada, bob] { meeting.mutableSetValue(forKey: "attendees").insert(person) }
        try stack.context.save()
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        var request = BatchDeleteRequest(entity: stack.model.entitiesByName["Person"]!)
        request.predicate = try Predicate(format: "firstName == 'Ada'")
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try store.execute(request) else { return XCTFail("no IDs") }
        XCTAssertEqual(Set(ids), Set([ada.objectID] + tasks.map(\.objectID)))
        XCTAssertEqual(try store.snapshots(for: ids), [:])
        XCTAssertNotNil(try store.snapshots(for: [other.objectID])[other.objectID])
        let attendees = stack.model.entitiesByName["Event"]!.relationshipsByName["attendees"]!
        XCTAssertEqual(try store.objectIDs(forRelationship: attendees, of: meeting.objectID), [bob.objectID])
    }

    func testBatchDeleteNullifiesTheInverseForeignKeys() throws {
        let stack = try Stack(storeType: .sqlite)
        let meeting = stack.event("Meeting")
        let task = stack.task("Prepare")
        task.setValue(meeting, forKey: "event")
        try stack.context.save()
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        _ = try store.execute(BatchDeleteRequest(entity: stack.model.entitiesByName["Event"]!))
        let row = try XCTUnwrap(store.snapshots(for: [task.objectID])[task.objectID])
        XCTAssertEqual(row.value(forKey: "event"), .null)
        XCTAssertEqual(row.version, 2)
    }

    func testBatchDeleteIsRefusedByDenyRules() throws {
        let model = ManagedObjectModel {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("notes", to: "Note", inverse: "folder", toMany: true, deleteRule: .deny)
            }
            Entity("Note") { Relationship("folder", to: "Folder", inverse: "notes") }
        }
        let f = try SQLiteStoreFixture(model: model)
        let full = try f.newID("Folder"), empty = try f.newID("Folder"), note = try f.newID("Note")
        try f.insert([f.row(full, ["name": .value("full"), "notes": .objects([note])]), f.row(empty, ["name": .value("empty")]),
                      f.row(note, ["folder": .object(full)])])
        XCTAssertThrowsError(try f.store.execute(BatchDeleteRequest(entity: f.entity("Folder")))) { error in
            XCTAssertTrue("\(error)".contains("Folder.notes"), "\(error)")
        }
        XCTAssertNotNil(try f.stored(empty))
        var request = BatchDeleteRequest(entity: f.entity("Folder"))
        request.predicate = try Predicate(format: "notes.@count == 0")
        request.resultType = .count
        guard case .count(let count) = try f.store.execute(request) else { return XCTFail("no count") }
        XCTAssertEqual(count, 1)
        XCTAssertNil(try f.stored(empty))
    }

    func testBatchDeleteRemovesExternalFiles() throws {
        let f = try SQLiteStoreFixture(options: ["externalStorageThreshold": 16])
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["bigData": .value(Data(repeating: 1, count: 64))])])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: f.store.externalData.directory.path).count, 1)
        _ = try f.store.execute(BatchDeleteRequest(entity: f.entity("Sample")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: f.store.externalData.directory.path).count, 0)
    }

    func testBatchDeleteOfAWholeTableCountsAndKeepsOtherTables() throws {
        // No relationships, so nothing follows the rows: deleting every row of the table is one
        // statement. A sub-entity sharing its parent's table still deletes only its own rows.
        let model = ManagedObjectModel {
            Entity("Note") { Attribute("text", .string) }
            Entity("Entry") { Attribute("text", .string) }
            Entity("Reminder", parent: "Entry") { Attribute("due", .date) }
        }
        let stack = try Stack(storeType: .sqlite, model: model)
        for index in 0..<5 { stack.insert("Note", ["text": "note \(index)"]) }
        for index in 0..<3 { stack.insert("Entry", ["text": "entry \(index)"]) }
        for index in 0..<2 { stack.insert("Reminder", ["text": "reminder \(index)"]) }
        try stack.context.save()
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        func count(_ entity: String, subentities: Bool = true) throws -> Int {
            var request = FetchRequest<ManagedObject>(entityName: entity)
            request.includesSubentities = subentities
            return try stack.newContext().count(for: request)
        }

        var reminders = BatchDeleteRequest(entity: model.entitiesByName["Reminder"]!)
        reminders.resultType = .count
        guard case .count(let deletedReminders) = try store.execute(reminders) else { return XCTFail("no count") }
        XCTAssertEqual(deletedReminders, 2)
        XCTAssertEqual(try count("Entry", subentities: false), 3)

        var notes = BatchDeleteRequest(entity: model.entitiesByName["Note"]!)
        notes.resultType = .count
        guard case .count(let deletedNotes) = try store.execute(notes) else { return XCTFail("no count") }
        XCTAssertEqual(deletedNotes, 5)
        XCTAssertEqual(try count("Note"), 0)
        XCTAssertEqual(try count("Entry"), 3)
        // The emptied table takes new rows with new keys.
        let note = stack.insert("Note", ["text": "again"])
        try stack.context.save()
        XCTAssertEqual(try count("Note"), 1)
        XCTAssertFalse(note.objectID.isTemporaryID)

        var entries = BatchDeleteRequest(entity: model.entitiesByName["Entry"]!)
        entries.resultType = .statusOnly
        guard case .status(true) = try store.execute(entries) else { return XCTFail("no status") }
        XCTAssertEqual(try count("Entry"), 0)
        XCTAssertEqual(try count("Note"), 1)
    }

    // MARK: Insert

    func testBatchInsertWritesRowsWithDefaultsAndToOneRelationships() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var request = BatchInsertRequest(entity: f.entity("Task"), objects: [
            ["title": "Imported", "points": 7, "owner": d.cy],
            ["title": "Also imported", "code": "IMP", "done": true],
        ])
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try f.store.execute(request) else { return XCTFail("no IDs") }
        XCTAssertEqual(ids.count, 2)
        let first = try XCTUnwrap(f.stored(ids[0]))
        XCTAssertEqual(first.value(forKey: "points"), .value(Int32(7)))
        XCTAssertEqual(first.value(forKey: "owner"), .object(d.cy))
        XCTAssertEqual(try f.destinations("tasks", of: d.cy), [ids[0]])
        XCTAssertEqual(try f.stored(ids[1])?.value(forKey: "done"), .value(true))
    }

    /// Core Data's handlers: the request asks for rows one call at a time until the handler
    /// says it is done (that call's row is not inserted); a managed object handler fills objects
    /// made in no context, whose values (defaults included) become the rows.
    func testBatchInsertAsksItsHandlersForRowsUntilTheySayDone() throws {
        let f = try SQLiteStoreFixture()
        _ = try f.populated()
        let titles = ["One", "Two", "Three"]
        var next = 0
        var calls = 0
        var byDictionary = BatchInsertRequest(entity: f.entity("Task")) { row in
            calls += 1
            guard next < titles.count else { return true }
            row["title"] = titles[next]
            row["points"] = next
            next += 1
            return false
        }
        byDictionary.resultType = .objectIDs
        guard case .objectIDs(let ids) = try f.store.execute(byDictionary) else { return XCTFail("no IDs") }
        XCTAssertEqual(calls, 4, "three rows, then done")
        XCTAssertEqual(try ids.map { try f.stored($0)?.value(forKey: "title") }, [.value("One"), .value("Two"), .value("Three")])
        XCTAssertEqual(try f.stored(ids[2])?.value(forKey: "points"), .value(Int32(2)))

        var made = 0
        var byObject = BatchInsertRequest(entity: f.entity("Tag")) { tag in
            XCTAssertNil(tag.managedObjectContext)
            made += 1
            guard made <= 2 else { return true }
            tag.setValue("tag \(made)", forKey: "name")
            return false
        }
        byObject.resultType = .objectIDs
        guard case .objectIDs(let tags) = try f.store.execute(byObject) else { return XCTFail("no IDs") }
        XCTAssertEqual(try tags.map { try f.stored($0)?.value(forKey: "name") }, [.value("tag 1"), .value("tag 2")])
    }

    func testBatchInsertRefusesUnknownPropertiesAndKeepsUniqueness() throws {
        let f = try SQLiteStoreFixture()
        _ = try f.populated()
        XCTAssertThrowsError(try f.store.execute(BatchInsertRequest(entity: f.entity("Tag"), objects: [["colour": "red"]]))) { error in
            XCTAssertTrue("\(error)".contains("colour"), "\(error)")
        }
        let clash = BatchInsertRequest(entity: f.entity("Person"), objects: [["name": "New"], ["name": "Copy", "email": "ada@example.org"]])
        XCTAssertThrowsError(try f.store.execute(clash)) { error in
            guard case StoreError.uniquenessViolation = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try f.count(f.request("Person")), 3)
    }
}
