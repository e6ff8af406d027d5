// What a save writes to the SQLite file: values of every type at their limits read back
// from a new coordinator, changed columns only, inheritance and relationships, uniqueness
// constraints, and failed saves (validation, conflicts, uniqueness, I/O, a second store) that must
// leave the file's rows as they were and let the context fix the problem and save again.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteSaveTests: XCTestCase {
    // MARK: Helpers

    /// A coordinator with one SQLite store at `url` and a main-queue context on it.
    private func open(_ model: ManagedObjectModel, at url: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func fetch(_ entity: String, in context: ManagedObjectContext, _ format: String? = nil,
                       sortedBy key: String? = nil) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let format { request.predicate = try Predicate(format: format) }
        if let key { request.sortDescriptors = [SortDescriptor(key: key)] }
        return try context.fetch(request)
    }

    /// Every row of every table of the file at `url` (read with a connection of its own), as text.
    private func dump(_ url: URL) throws -> [String] {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        var lines: [String] = []
        let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        for table in tables {
            guard case .text(let name) = table[0] else { continue }
            lines += try connection.rows("SELECT * FROM \(SQLiteSchema.quoted(name))").map {
                name + ": " + $0.map { "\($0)" }.joined(separator: " | ")
            }.sorted()
        }
        return lines
    }

    // MARK: Values at their limits

    /// An entity with an attribute of each type (binary data twice: inline and external).
    private func valuesModel() -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Value") {
                Attribute("key", .string)
                Attribute("i16", .integer16)
                Attribute("i32", .integer32)
                Attribute("i64", .integer64)
                Attribute("dbl", .double)
                Attribute("flt", .float)
                Attribute("dec", .decimal)
                Attribute("date", .date)
                Attribute("uuid", .uuid)
                Attribute("uri", .uri)
                Attribute("flag", .boolean)
                Attribute("text", .string)
                Attribute("data", .binaryData)
                Attribute("big", .binaryData).allowsExternalStorage()
            }
        }
    }

    /// Saves one object per element of `values` (each setting `key` to its value), reads them back
    /// from a new coordinator and returns what they hold, in order.
    private func roundTrip(_ key: String, _ values: [Any?]) throws -> [Any?] {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("values.sqlite")
        let model = valuesModel()
        let context = try open(model, at: url)
        for (index, value) in values.enumerated() {
            let object = context.insertNewObject(forEntityName: "Value")
            object.setValue(String(format: "%04d", index), forKey: "key")
            object.setValue(value, forKey: key)
        }
        try context.save()
        let reader = try open(model, at: url)
        return try fetch("Value", in: reader, sortedBy: "key").map { $0.value(forKey: key) }
    }

    func testIntegersAtTheirLimitsRoundTrip() throws {
        XCTAssertEqual(try roundTrip("i16", [Int16.min, Int16.max, Int16(0), nil]).map { $0 as? Int16 },
                       [Int16.min, Int16.max, 0, nil])
        XCTAssertEqual(try roundTrip("i32", [Int32.min, Int32.max]).map { $0 as? Int32 }, [Int32.min, Int32.max])
        XCTAssertEqual(try roundTrip("i64", [Int64.min, Int64.max, Int64(-1)]).map { $0 as? Int64 }, [Int64.min, Int64.max, -1])
        XCTAssertEqual(try roundTrip("flag", [true, false, nil]).map { $0 as? Bool }, [true, false, nil])
    }

    func testFloatingPointSpecialValuesRoundTrip() throws {
        let doubles: [Double] = [.infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNormalMagnitude, 0.1, 1e300]
        XCTAssertEqual(try roundTrip("dbl", doubles).map { $0 as? Double }, doubles)
        let floats: [Float] = [.infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1, -3.25]
        XCTAssertEqual(try roundTrip("flt", floats).map { $0 as? Float }, floats)
    }

    func testDecimalsRoundTripExactly() throws {
        let decimals: [Decimal] = [
            Decimal(string: "12345678901234567890.123456789012345678")!,
            Decimal(string: "-0.000000000000000000000000000001")!,
            Decimal(string: "0.1")!,
            Decimal(sign: .plus, exponent: 100, significand: 7),
            Decimal(sign: .minus, exponent: -100, significand: 3),
            Decimal(0),
        ]
        XCTAssertEqual(try roundTrip("dec", decimals).map { $0 as? Decimal }, decimals)
    }

    func testDatesRoundTripWithSubSecondPrecisionAndFarFromNow() throws {
        let dates = [Date.distantPast, Date.distantFuture, Date(timeIntervalSinceReferenceDate: 0.000_001),
                     Date(timeIntervalSinceReferenceDate: -0.5), Date(timeIntervalSinceReferenceDate: 789_012_345.678_9),
                     Date(timeIntervalSince1970: -5_000_000_000.25)]
        XCTAssertEqual(try roundTrip("date", dates).map { $0 as? Date }, dates)
    }

    func testStringsDataUUIDsAndURIsRoundTripKeepingNilApartFromEmpty() throws {
        let long = String(repeating: "0123456789abcdef", count: 100_000)
        let strings: [String?] = ["a\u{0}b\u{0}", "👩‍👩‍👧‍👦 e\u{301}", "", nil, long, "'; DROP TABLE ZVALUE; --"]
        XCTAssertEqual(try roundTrip("text", strings).map { $0 as? String }, strings)
        let blobs: [Data?] = [Data(), nil, Data([0, 1, 2, 0]), Data(repeating: 0xAB, count: 3_000_000)]
        XCTAssertEqual(try roundTrip("data", blobs).map { $0 as? Data }, blobs)
        XCTAssertEqual(try roundTrip("big", blobs).map { $0 as? Data }, blobs)
        let uuids: [UUID?] = [UUID(), UUID(uuidString: "00000000-0000-0000-0000-000000000000"), nil]
        XCTAssertEqual(try roundTrip("uuid", uuids).map { $0 as? UUID }, uuids)
        let uris: [URL?] = [URL(string: "https://example.org/a%20b?q=1&r=%C3%BC#frag"), URL(string: "file:///tmp/x"),
                            URL(string: "x-objectgraph://ABC/Value/p1"), nil]
        XCTAssertEqual(try roundTrip("uri", uris).map { $0 as? URL }, uris)
    }

    // MARK: Changed columns

    func testChangedAndChangedBackValuesAndEveryLaterChangeAreWhatTheFileHolds() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("values.sqlite")
        let model = valuesModel()
        let context = try open(model, at: url)
        let object = context.insertNewObject(forEntityName: "Value")
        object.setValue("k", forKey: "key")
        object.setValue("first", forKey: "text")
        object.setValue(Int64(1), forKey: "i64")
        try context.save()
        // Changed and changed back in one save, with another change.
        object.setValue("second", forKey: "text")
        object.setValue("first", forKey: "text")
        object.setValue(Int64(2), forKey: "i64")
        try context.save()
        // Changed in one save, back in the next.
        object.setValue(nil, forKey: "text")
        try context.save()
        object.setValue("first", forKey: "text")
        object.setValue(Int16(3), forKey: "i16")
        try context.save()
        let keeper = try open(model, at: url)
        let reread = try fetch("Value", in: keeper)[0]
        XCTAssertEqual(reread.value(forKey: "text") as? String, "first")
        XCTAssertEqual(reread.value(forKey: "i64") as? Int64, 2)
        XCTAssertEqual(reread.value(forKey: "i16") as? Int16, 3)
    }

    func testAnEntityWhoseStoredSlotsLiePastTheSixtyFourthWritesOnlyTheChangedColumn() throws {
        // 60 columns (an UPDATE's mask holds them) but the stored attributes take slots 10...69:
        // ten transient attributes sort first.
        let model = ManagedObjectModel {
            Entity("Wide") {
                for index in 0..<10 { Attribute(String(format: "a%02d", index), .string).transient() }
                for index in 0..<60 { Attribute(String(format: "b%02d", index), .integer64) }
            }
        }
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("wide.sqlite")
        let context = try open(model, at: url)
        let wide = context.insertNewObject(forEntityName: "Wide")
        for index in 0..<60 { wide.setValue(Int64(index), forKey: String(format: "b%02d", index)) }
        wide.setValue("transient", forKey: "a03")
        try context.save()
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        try connection.execute("UPDATE ZWIDE SET ZB57 = 5700")
        wide.setValue(Int64(5800), forKey: "b58")
        wide.setValue(Int64(-3), forKey: "b03")
        try context.save()
        XCTAssertEqual(try connection.scalar("SELECT ZB58 FROM ZWIDE")?.integerValue, 5800)
        XCTAssertEqual(try connection.scalar("SELECT ZB03 FROM ZWIDE")?.integerValue, -3)
        XCTAssertEqual(try connection.scalar("SELECT ZB57 FROM ZWIDE")?.integerValue, 5700, "an unchanged column was written")
        let keeper = try open(model, at: url)
        let reread = try fetch("Wide", in: keeper)[0]
        XCTAssertEqual(reread.value(forKey: "b58") as? Int64, 5800)
        XCTAssertNil(reread.value(forKey: "a03"))
    }

    func testWideEntityConflictMergedByPropertyKeepsBothCoordinatorsColumns() throws {
        let model = ManagedObjectModel {
            Entity("Wide") { for index in 0..<70 { Attribute("a\(index)", .integer64) } }
        }
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("wide.sqlite")
        let context = try open(model, at: url)
        let wide = context.insertNewObject(forEntityName: "Wide")
        for index in 0..<70 { wide.setValue(Int64(index), forKey: "a\(index)") }
        try context.save()
        let other = try open(model, at: url)
        let theirs = try fetch("Wide", in: other)[0]
        theirs.setValue(Int64(670), forKey: "a67")
        try other.save()
        wide.setValue(Int64(680), forKey: "a68")
        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.save()
        let keeper = try open(model, at: url)
        let reread = try fetch("Wide", in: keeper)[0]
        XCTAssertEqual(reread.value(forKey: "a67") as? Int64, 670)
        XCTAssertEqual(reread.value(forKey: "a68") as? Int64, 680)
        XCTAssertEqual(reread.value(forKey: "a1") as? Int64, 1)
    }

    // MARK: Conflicts with another coordinator

    func testConflictUnderTheErrorPolicyChangesNoRowAndARefreshedRetrySucceeds() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        let task = stack.task("T", owner: ada)
        try stack.context.save()
        let other = try open(stack.model, at: stack.storeURL)
        let theirs = try other.existingObject(with: ada.objectID)
        theirs.setValue("Byron", forKey: "lastName")
        try other.save()
        // A stale update, a new object and an update of a current row, in one save.
        ada.setValue("Augusta", forKey: "firstName")
        let newTask = stack.task("New", owner: ada)
        task.setValue("T2", forKey: "title")
        let before = try dump(stack.storeURL)
        XCTAssertThrowsError(try stack.context.save()) { error in
            XCTAssertTrue(error is MergeError, "\(error)")
        }
        // The new task's ID was made permanent (Z_PRIMARYKEY may move on), but no row changed.
        XCTAssertEqual(try dump(stack.storeURL).filter { !$0.hasPrefix("Z_PRIMARYKEY") },
                       before.filter { !$0.hasPrefix("Z_PRIMARYKEY") })
        stack.context.refresh(ada, mergeChanges: true)
        try stack.context.save()
        let reader = try open(stack.model, at: stack.storeURL)
        let person = try reader.existingObject(with: ada.objectID)
        XCTAssertEqual(person.value(forKey: "firstName") as? String, "Augusta")
        XCTAssertEqual(person.value(forKey: "lastName") as? String, "Byron")
        let titles = (person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String }
        XCTAssertEqual(titles, ["T2", "New"])
        XCTAssertEqual(try reader.existingObject(with: newTask.objectID).value(forKey: "title") as? String, "New")
    }

    func testDeletingAnUnfiredFaultFromAnotherCoordinatorDeletesTheRow() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        let other = try open(stack.model, at: stack.storeURL)
        let fault = other.object(with: ada.objectID)
        other.delete(fault)
        try other.save()
        XCTAssertEqual(try fetch("Person", in: open(stack.model, at: stack.storeURL)).count, 0)
    }

    // MARK: Failed saves

    func testUniquenessFailureAmongUpdatesRollsBackEveryRowAndTheFixedSaveWritesAll() throws {
        let stack = try Stack(storeType: .sqlite)
        let tasks = (0..<3).map { stack.task("t\($0)") }
        try stack.context.save()
        for task in tasks { task.setValue("changed " + (task.value(forKey: "title") as! String), forKey: "title") }
        // Two stored tasks swap their UUIDs (allowed) while a new one takes a third's (not).
        let first = tasks[0].value(forKey: "uuid"), second = tasks[1].value(forKey: "uuid")
        tasks[0].setValue(second, forKey: "uuid")
        tasks[1].setValue(first, forKey: "uuid")
        let clash = stack.task("clash")
        clash.setValue(tasks[2].value(forKey: "uuid"), forKey: "uuid")
        try stack.context.obtainPermanentIDs(for: [clash])
        let before = try dump(stack.storeURL)
        XCTAssertThrowsError(try stack.context.save()) { error in
            guard case StoreError.uniquenessViolation(let entity, let properties, _)? = error as? StoreError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(entity, "Task")
            XCTAssertEqual(properties, ["uuid"])
        }
        XCTAssertEqual(try dump(stack.storeURL), before)
        clash.setValue(UUID(), forKey: "uuid")
        try stack.context.save()
        let reader = try open(stack.model, at: stack.storeURL)
        let stored = try fetch("Task", in: reader, sortedBy: "title")
        XCTAssertEqual(stored.map { $0.value(forKey: "title") as? String }, ["changed t0", "changed t1", "changed t2", "clash"])
        XCTAssertEqual(stored[0].value(forKey: "uuid") as? UUID, second as? UUID)
        XCTAssertEqual(stored[1].value(forKey: "uuid") as? UUID, first as? UUID)
    }

    func testExternalDataWriteFailureChangesNoRowAndTheSaveSucceedsOnceTheFolderIsWritable() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("values.sqlite")
        let model = valuesModel()
        let context = try open(model, at: url)
        let object = context.insertNewObject(forEntityName: "Value")
        object.setValue("k", forKey: "key")
        object.setValue(Data(repeating: 1, count: 2_000_000), forKey: "big")
        try context.save()
        let support = SQLiteExternalData.supportDirectory(for: url)
        let external = support.appendingPathComponent("_EXTERNAL_DATA")
        // A file where the folder must be: every new external value fails to write.
        try FileManager.default.moveItem(at: external, to: support.appendingPathComponent("saved"))
        try Data("blocked".utf8).write(to: external)
        object.setValue(Data(repeating: 2, count: 2_000_000), forKey: "big")
        object.setValue("changed", forKey: "text")
        let added = context.insertNewObject(forEntityName: "Value")
        added.setValue("l", forKey: "key")
        let before = try dump(url)
        XCTAssertThrowsError(try context.save())
        XCTAssertEqual(try dump(url).filter { !$0.hasPrefix("Z_PRIMARYKEY") }, before.filter { !$0.hasPrefix("Z_PRIMARYKEY") })
        try FileManager.default.removeItem(at: external)
        try FileManager.default.moveItem(at: support.appendingPathComponent("saved"), to: external)
        try context.save()
        let keeper = try open(model, at: url)
        let rows = try fetch("Value", in: keeper, sortedBy: "key")
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows[0].value(forKey: "big") as? Data, Data(repeating: 2, count: 2_000_000))
        XCTAssertEqual(rows[0].value(forKey: "text") as? String, "changed")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: external.path).filter { !$0.hasPrefix(".") }.count, 1,
                       "the replaced file is removed, the new one kept")
    }

    /// Notes and tags in two SQLite stores (one per configuration), each unique by its text.
    func testASaveThatFailsInTheSecondStoreCanBeFixedAndSavedAgain() throws {
        let (context, _, stores, directory) = try twoStores()
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue("a", forKey: "text")
        let tag = context.insertNewObject(forEntityName: "Tag")
        tag.setValue("a", forKey: "text")
        try context.save()
        // The stores are written in identifier order: the clash goes to the one written last.
        let last = stores.max { $0.identifier < $1.identifier }!
        let lastEntity = last === stores[0] ? "Note" : "Tag", firstEntity = last === stores[0] ? "Tag" : "Note"
        let firstURL = directory.url.appendingPathComponent(firstEntity == "Note" ? "notes.sqlite" : "tags.sqlite")
        let fresh = context.insertNewObject(forEntityName: firstEntity)
        fresh.setValue("b", forKey: "text")
        let existing = firstEntity == "Note" ? note : tag
        existing.setValue("a2", forKey: "text")
        let clash = context.insertNewObject(forEntityName: lastEntity)
        clash.setValue("a", forKey: "text")
        let before = try dump(firstURL).filter { !$0.hasPrefix("Z_PRIMARYKEY") }
        XCTAssertThrowsError(try context.save())
        XCTAssertEqual(try dump(firstURL).filter { !$0.hasPrefix("Z_PRIMARYKEY") }, before,
                       "the first store kept the rows of a save that failed")
        // Fixed, the save goes through, and each row is written once.
        clash.setValue("c", forKey: "text")
        XCTAssertNoThrow(try context.save())
        let reader = ManagedObjectContext(concurrencyType: .mainQueue)
        reader.persistentStoreCoordinator = context.persistentStoreCoordinator
        XCTAssertEqual(Set(try fetch(firstEntity, in: reader).compactMap { $0.value(forKey: "text") as? String }), ["a2", "b"])
        XCTAssertEqual(Set(try fetch(lastEntity, in: reader).compactMap { $0.value(forKey: "text") as? String }), ["a", "c"])
    }

    func testAFailedSaveAcrossInMemoryAndSQLiteStoresLeavesEveryStoreAsItWas() throws {
        let pairs: [(StoreType, StoreType)] = [(.inMemory, .inMemory), (.sqlite, .inMemory), (.inMemory, .sqlite)]
        for (notesType, tagsType) in pairs {
            for clashIn in ["Note", "Tag"] {
                let label = "notes \(notesType), tags \(tagsType), clash in \(clashIn)"
                // The folder lives as long as the stores: a store whose file is gone saves nothing.
                let (context, _, _, directory) = try twoStores(notesType, tagsType)
                defer { withExtendedLifetime(directory) {} }
                let note = context.insertNewObject(forEntityName: "Note")
                note.setValue("a", forKey: "text")
                let tag = context.insertNewObject(forEntityName: "Tag")
                tag.setValue("a", forKey: "text")
                try context.save()
                let other = clashIn == "Note" ? "Tag" : "Note"
                (other == "Note" ? note : tag).setValue("a2", forKey: "text")
                context.insertNewObject(forEntityName: other).setValue("b", forKey: "text")
                let clash = context.insertNewObject(forEntityName: clashIn)
                clash.setValue("a", forKey: "text")
                XCTAssertThrowsError(try context.save(), label)
                let reader = ManagedObjectContext(concurrencyType: .mainQueue)
                reader.persistentStoreCoordinator = context.persistentStoreCoordinator
                XCTAssertEqual(Set(try fetch(other, in: reader).compactMap { $0.value(forKey: "text") as? String }), ["a"],
                               "\(label): the other store kept a save that failed")
                clash.setValue("c", forKey: "text")
                XCTAssertNoThrow(try context.save(), label)
                let after = ManagedObjectContext(concurrencyType: .mainQueue)
                after.persistentStoreCoordinator = context.persistentStoreCoordinator
                XCTAssertEqual(Set(try fetch(other, in: after).compactMap { $0.value(forKey: "text") as? String }), ["a2", "b"], label)
                XCTAssertEqual(Set(try fetch(clashIn, in: after).compactMap { $0.value(forKey: "text") as? String }), ["a", "c"], label)
            }
        }
    }

    private func twoStores(_ notesType: StoreType = .sqlite, _ tagsType: StoreType = .sqlite) throws
        -> (ManagedObjectContext, ManagedObjectModel, [any PersistentStore], TemporaryDirectory) {
        let model = ManagedObjectModel {
            Entity("Note") { Attribute("text", .string); Unique("text") }
            Entity("Tag") { Attribute("text", .string); Unique("text") }
            Configuration("Notes", entities: ["Note"])
            Configuration("Tags", entities: ["Tag"])
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let notes = try coordinator.addPersistentStore(type: notesType, configuration: "Notes",
                                                       at: notesType == .sqlite ? directory.url.appendingPathComponent("notes.sqlite") : nil)
        let tags = try coordinator.addPersistentStore(type: tagsType, configuration: "Tags",
                                                      at: tagsType == .sqlite ? directory.url.appendingPathComponent("tags.sqlite") : nil)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, model, [notes, tags], directory)
    }

    /// Books and films, sub-entities of an abstract item, each declaring its own constraint on the
    /// title it inherits.
    private func siblingsModel() -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Item", abstract: true) { Attribute("title", .string) }
            Entity("Book", parent: "Item") { Attribute("isbn", .string); Unique("title") }
            Entity("Film", parent: "Item") { Attribute("minutes", .integer32); Unique("title") }
        }
    }

    func testSiblingEntitiesOwnConstraintsOnAnInheritedAttributeDoNotCollide() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("items.sqlite")
        let model = siblingsModel()
        let context = try open(model, at: url)
        context.insertNewObject(forEntityName: "Book").setValue("Dune", forKey: "title")
        try context.save()
        // A film may have a book's title: each entity's constraint is among its own instances.
        context.insertNewObject(forEntityName: "Film").setValue("Dune", forKey: "title")
        XCTAssertNoThrow(try context.save())
        // A second book may not (a new context: the film may still be pending in the first).
        let second = try open(model, at: url)
        second.insertNewObject(forEntityName: "Book").setValue("Dune", forKey: "title")
        XCTAssertThrowsError(try second.save()) { error in
            guard case StoreError.uniquenessViolation(let entity, let properties, _)? = error as? StoreError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(entity, "Book")
            XCTAssertEqual(properties, ["title"])
        }
    }

    func testAStoreRecordedWithTheEarlierEntityHashesStillOpens() throws {
        // Entity hashes now take the superentity's (as Core Data's do); a store whose metadata
        // holds the earlier hashes, without it, is the same data and opens.
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("items.sqlite")
        let model = siblingsModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let legacy = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name, $0.legacyVersionHash) })
        XCTAssertNotEqual(legacy["Book"], model.entitiesByName["Book"]?.versionHash, "a sub-entity's hash takes its parent's")
        var metadata = store.metadata
        metadata["ModelVersionHashes"] = legacy
        store.metadata = metadata
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        context.insertNewObject(forEntityName: "Book").setValue("Dune", forKey: "title")
        try context.save()
        let reader = try open(siblingsModel(), at: url)
        XCTAssertEqual(try fetch("Book", in: reader).compactMap { $0.value(forKey: "title") as? String }, ["Dune"])
    }

    func testTheInMemoryStoreScopesSiblingConstraintsToTheirEntitiesToo() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: siblingsModel())
        try coordinator.addPersistentStore(type: .inMemory, at: nil)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        context.insertNewObject(forEntityName: "Book").setValue("Dune", forKey: "title")
        try context.save()
        context.insertNewObject(forEntityName: "Film").setValue("Dune", forKey: "title")
        XCTAssertNoThrow(try context.save(), "a film may have a book's title")
        context.insertNewObject(forEntityName: "Film").setValue("Dune", forKey: "title")
        XCTAssertThrowsError(try context.save()) { error in
            guard case StoreError.uniquenessViolation(let entity, let properties, _)? = error as? StoreError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(entity, "Film")
            XCTAssertEqual(properties, ["title"])
        }
    }

    func testAConstraintOfTheParentSpansSubEntitiesAndAMergeNeverCopiesABooksValuesIntoAFilm() throws {
        // The parent's uuid constraint holds across books and films. A new book that takes a
        // stored film's UUID, saved under a merge policy, is folded into the film: the book's
        // author must not become the film's director (the properties only share a slot number).
        let model = ManagedObjectModel {
            Entity("Item", abstract: true) { Attribute("uuid", .uuid); Unique("uuid") }
            Entity("Book", parent: "Item") { Attribute("author", .string) }
            Entity("Film", parent: "Item") { Attribute("director", .string) }
        }
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("items.sqlite")
        let context = try open(model, at: url)
        let id = UUID()
        let film = context.insertNewObject(forEntityName: "Film")
        film.setValue(id, forKey: "uuid")
        film.setValue("Villeneuve", forKey: "director")
        try context.save()
        let book = context.insertNewObject(forEntityName: "Book")
        book.setValue(id, forKey: "uuid")
        book.setValue("Herbert", forKey: "author")
        context.mergePolicy = .mergeByPropertyObjectTrump
        do {
            try context.save()
        } catch {
            // Refusing the merge would be acceptable; changing the film is not.
            guard case StoreError.uniquenessViolation? = error as? StoreError else { return XCTFail("unexpected error: \(error)") }
        }
        XCTAssertEqual(film.value(forKey: "director") as? String, "Villeneuve", "the book's author was copied into the film")
        let reader = try open(model, at: url)
        let films = try fetch("Film", in: reader)
        XCTAssertEqual(films.count, 1)
        XCTAssertEqual(films.first?.value(forKey: "director") as? String, "Villeneuve", "the book's author was saved as the film's director")
    }

    func testAMergeAcrossSubEntitiesIsNotRefusedForAPropertyTheUserNeverTouched() throws {
        // Organizer: a new task taking a stored event's UUID. Merging copies the task's slots
        // into the event by number: the task's `done` (a Bool) lands in the event's `end`.
        let stack = try Stack(storeType: .sqlite)
        let event = stack.event("Meeting")
        try stack.context.save()
        let task = stack.task("Clash", priority: 2)
        task.setValue(event.value(forKey: "uuid"), forKey: "uuid")
        task.setValue(true, forKey: "done")
        stack.context.mergePolicy = .mergeByPropertyObjectTrump
        do {
            try stack.context.save()
        } catch {
            XCTAssertFalse("\(error)".contains("Event.end"), "the error blames a property nobody set: \(error)")
        }
        let end = event.value(forKey: "end")
        XCTAssertTrue(end == nil || end is Date, "the event's end holds \(String(describing: end))")
        let reader = try open(stack.model, at: stack.storeURL)
        let events = try fetch("Event", in: reader)
        XCTAssertEqual(events.count, 1)
        XCTAssertNil(events.first?.value(forKey: "end"))
    }

    func testANewDuplicateMergesIntoTheStoredObjectUnderObjectTrumpAndItsRelationshipMovesWithIt() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        let stored = stack.task("Old title", priority: 1)
        try stack.context.save()
        let duplicate = stack.task("New title", owner: ada)
        duplicate.setValue(stored.value(forKey: "uuid"), forKey: "uuid")
        stack.context.mergePolicy = .mergeByPropertyObjectTrump
        try stack.context.save()
        let reader = try open(stack.model, at: stack.storeURL)
        let tasks = try fetch("Task", in: reader)
        XCTAssertEqual(tasks.count, 1)
        XCTAssertEqual(tasks.first?.objectID, stored.objectID)
        XCTAssertEqual(tasks.first?.value(forKey: "title") as? String, "New title")
        XCTAssertEqual(tasks.first?.value(forKey: "priority") as? Int16, 0, "the new object's value wins")
        XCTAssertEqual((tasks.first?.value(forKey: "owner") as? ManagedObject)?.objectID, ada.objectID)
        let person = try reader.existingObject(with: ada.objectID)
        XCTAssertEqual((person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map(\.objectID), [stored.objectID])
    }

    func testValidationFailuresOfInheritedAttributesNameTheSubEntitiesAndChangeNoRow() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("T")
        let event = stack.event("E")
        try stack.context.save()
        let before = try dump(stack.storeURL)
        task.setValue("", forKey: "title")
        event.setValue(String(repeating: "x", count: 201), forKey: "title")
        let added = stack.person("New")
        XCTAssertThrowsError(try stack.context.save()) { error in
            guard let validation = error as? ValidationError else { return XCTFail("\(error)") }
            XCTAssertEqual(Set(validation.failures.map { "\($0.entity).\($0.property ?? "-")" }), ["Task.title", "Event.title"])
            XCTAssertEqual(Set(validation.failures.compactMap(\.objectID)), [task.objectID, event.objectID])
        }
        XCTAssertEqual(try dump(stack.storeURL), before)
        task.setValue("T2", forKey: "title")
        event.setValue("E2", forKey: "title")
        try stack.context.save()
        let reader = try open(stack.model, at: stack.storeURL)
        XCTAssertEqual(try fetch("Item", in: reader, sortedBy: "title").map { $0.value(forKey: "title") as? String }, ["E2", "T2"])
        XCTAssertEqual(try reader.existingObject(with: added.objectID).value(forKey: "firstName") as? String, "New")
    }

    func testAnUpdateOfARowAnotherCoordinatorDeletedResolvesUnderObjectTrumpAndTheRestOfTheSaveIsWritten() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada"), bob = stack.person("Bob")
        try stack.context.save()
        let other = try open(stack.model, at: stack.storeURL)
        other.delete(try other.existingObject(with: ada.objectID))
        try other.save()
        ada.setValue("Augusta", forKey: "firstName")
        bob.setValue("Robert", forKey: "firstName")
        stack.context.mergePolicy = .mergeByPropertyObjectTrump
        try stack.context.save()
        let reader = try open(stack.model, at: stack.storeURL)
        XCTAssertEqual(try fetch("Person", in: reader).compactMap { $0.value(forKey: "firstName") as? String }, ["Robert"])
        XCTAssertFalse(stack.context.hasChanges)
    }

    func testToOneToASubEntityIsRewrittenWhenItMovesToASiblingEntity() throws {
        let model = ManagedObjectModel {
            Entity("Item", abstract: true) { Attribute("title", .string); Relationship("notes", to: "Note", inverse: "item", toMany: true) }
            Entity("Book", parent: "Item") { Attribute("isbn", .string) }
            Entity("Film", parent: "Item") { Attribute("minutes", .integer32) }
            Entity("Note") { Attribute("text", .string); Relationship("item", to: "Item", inverse: "notes") }
        }
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("items.sqlite")
        let context = try open(model, at: url)
        let book = context.insertNewObject(forEntityName: "Book")
        book.setValue("Dune", forKey: "title")
        let film = context.insertNewObject(forEntityName: "Film")
        film.setValue("Dune (film)", forKey: "title")
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue(book, forKey: "item")
        try context.save()
        note.setValue(film, forKey: "item")
        try context.save()
        let reader = try open(model, at: url)
        let reread = try fetch("Note", in: reader)[0]
        let item = try XCTUnwrap(reread.value(forKey: "item") as? ManagedObject)
        XCTAssertEqual(item.entity.name, "Film")
        XCTAssertEqual(item.value(forKey: "title") as? String, "Dune (film)")
        XCTAssertEqual((try reader.existingObject(with: book.objectID).value(forKey: "notes") as? Set<ManagedObject>)?.count, 0)
    }

    // MARK: Delete rules

    private func ownersModel(_ rule: DeleteRule) -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("things", to: "Thing", inverse: "owner", toMany: true, deleteRule: rule)
                Relationship("tags", to: "Label", inverse: "owners", toMany: true)
            }
            Entity("Thing") { Attribute("name", .string); Relationship("owner", to: "Owner", inverse: "things") }
            Entity("Label") { Attribute("name", .string); Relationship("owners", to: "Owner", inverse: "tags", toMany: true) }
        }
    }

    func testDeletingAnOwnerFetchedAloneNullifiesTheForeignKeysAndJoinRowsOfItsUnloadedDestinations() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("owners.sqlite")
        let model = ownersModel(.nullify)
        let context = try open(model, at: url)
        let owner = context.insertNewObject(forEntityName: "Owner")
        owner.setValue("o", forKey: "name")
        let label = context.insertNewObject(forEntityName: "Label")
        label.setValue("l", forKey: "name")
        owner.mutableSetValue(forKey: "tags").insert(label)
        for name in ["a", "b"] {
            let thing = context.insertNewObject(forEntityName: "Thing")
            thing.setValue(name, forKey: "name")
            thing.setValue(owner, forKey: "owner")
        }
        try context.save()
        let other = try open(model, at: url)
        other.delete(try fetch("Owner", in: other)[0])
        try other.save()
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        XCTAssertEqual(try connection.scalar("SELECT COUNT(*) FROM ZTHING WHERE ZOWNER IS NOT NULL")?.integerValue, 0)
        let reader = try open(model, at: url)
        let things = try fetch("Thing", in: reader, sortedBy: "name")
        XCTAssertEqual(things.count, 2)
        XCTAssertTrue(things.allSatisfy { $0.value(forKey: "owner") == nil })
        XCTAssertEqual((try fetch("Label", in: reader)[0].value(forKey: "owners") as? Set<ManagedObject>)?.count, 0)
    }

    func testDenyRuleRefusesTheSaveNamingOwnerAndRelationshipAndTheFixedSaveDeletes() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("owners.sqlite")
        let model = ownersModel(.deny)
        let context = try open(model, at: url)
        let owner = context.insertNewObject(forEntityName: "Owner")
        owner.setValue("o", forKey: "name")
        let thing = context.insertNewObject(forEntityName: "Thing")
        thing.setValue("t", forKey: "name")
        thing.setValue(owner, forKey: "owner")
        try context.save()
        let before = try dump(url)
        context.delete(owner)
        XCTAssertThrowsError(try context.save()) { error in
            guard let validation = error as? ValidationError else { return XCTFail("\(error)") }
            XCTAssertEqual(validation.failures.map(\.entity), ["Owner"])
            XCTAssertEqual(validation.failures.map(\.property), ["things"])
            XCTAssertEqual(validation.failures.first?.objectID, owner.objectID)
        }
        XCTAssertEqual(try dump(url), before)
        context.delete(thing)
        try context.save()
        let reader = try open(model, at: url)
        XCTAssertEqual(try fetch("Owner", in: reader).count, 0)
        XCTAssertEqual(try fetch("Thing", in: reader).count, 0)
    }

    func testCascadeFromAStoredOwnerDeletesRowsItNeverLoaded() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("owners.sqlite")
        let model = ownersModel(.cascade)
        let context = try open(model, at: url)
        let owner = context.insertNewObject(forEntityName: "Owner")
        owner.setValue("o", forKey: "name")
        for name in ["a", "b", "c"] {
            let thing = context.insertNewObject(forEntityName: "Thing")
            thing.setValue(name, forKey: "name")
            thing.setValue(owner, forKey: "owner")
        }
        try context.save()
        let other = try open(model, at: url)
        other.delete(try fetch("Owner", in: other)[0])
        try other.save()
        XCTAssertEqual(try fetch("Thing", in: open(model, at: url)).count, 0)
    }

    // MARK: To-many relationships

    func testOrderedManyToManyKeepsItsOrderAcrossEditsAndTheOtherSideReadsTheSameRows() throws {
        let model = ManagedObjectModel {
            Entity("Playlist") { Attribute("name", .string); Relationship("songs", to: "Song", inverse: "playlists", toMany: true, ordered: true) }
            Entity("Song") { Attribute("title", .string); Relationship("playlists", to: "Playlist", inverse: "songs", toMany: true) }
        }
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("music.sqlite")
        let context = try open(model, at: url)
        let list = context.insertNewObject(forEntityName: "Playlist")
        list.setValue("mix", forKey: "name")
        let songs = ["a", "b", "c", "d"].map { title -> ManagedObject in
            let song = context.insertNewObject(forEntityName: "Song")
            song.setValue(title, forKey: "title")
            list.mutableOrderedSetValue(forKey: "songs").insert(song)
            return song
        }
        try context.save()
        let ordered = list.mutableOrderedSetValue(forKey: "songs")
        ordered.remove(songs[0])
        ordered.insert(songs[0], at: 2)
        ordered.remove(songs[3])
        // Added from the unordered side: it goes to the end of the ordered one.
        let extra = context.insertNewObject(forEntityName: "Song")
        extra.setValue("e", forKey: "title")
        extra.mutableSetValue(forKey: "playlists").insert(list)
        try context.save()
        XCTAssertEqual((list.value(forKey: "songs") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String },
                       ["b", "c", "a", "e"])
        let reader = try open(model, at: url)
        let reread = try fetch("Playlist", in: reader)[0]
        XCTAssertEqual((reread.value(forKey: "songs") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String },
                       ["b", "c", "a", "e"])
        let d = try fetch("Song", in: reader, "title == 'd'")[0]
        XCTAssertEqual((d.value(forKey: "playlists") as? Set<ManagedObject>)?.count, 0)
    }

    func testAddingToAnOrderedToManyOfAFaultFromTheToOneSideAppendsAfterTheStoredOnes() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        for title in ["a", "b", "c"] { _ = stack.task(title, owner: ada) }
        try stack.context.save()
        let other = try open(stack.model, at: stack.storeURL)
        let fault = other.object(with: ada.objectID)
        let task = other.insertNewObject(forEntityName: "Task")
        task.setValue("d", forKey: "title")
        task.setValue(UUID(), forKey: "uuid")
        task.setValue(fault, forKey: "owner")
        try other.save()
        let keeper = try open(stack.model, at: stack.storeURL)
        let reread = try keeper.existingObject(with: ada.objectID)
        XCTAssertEqual((reread.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String },
                       ["a", "b", "c", "d"])
    }
}
