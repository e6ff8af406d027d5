// The SQLite store through the store contract: the file (modes, WAL, schema), metadata and the
// model check, permanent IDs, saving (versions, unloaded slots, conflicts, uniqueness, failed
// saves leaving the file as it was), reading rows and relationships back, and reopening.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteStoreTests: XCTestCase {
    // MARK: The file

    func testNewStoreFileIsPrivateInAPrivateDirectory() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("new/nested/store.sqlite")
        let store = try SQLiteStore(url: url)
        try store.load(model: SQLiteStoreFixture.makeModel())
        let files = FileManager.default
        XCTAssertEqual(try files.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try files.attributesOfItem(atPath: url.deletingLastPathComponent().path)[.posixPermissions] as? Int, 0o700)
        XCTAssertEqual(try files.attributesOfItem(atPath: url.path + "-wal")[.posixPermissions] as? Int, 0o600)
    }

    func testStoreUsesWriteAheadLogging() throws {
        let f = try SQLiteStoreFixture()
        let mode = try f.store.lock.withLock { try f.store.connection.scalar("PRAGMA journal_mode") }
        XCTAssertEqual(mode, .text("wal"))
    }

    func testSchemaHasCoreDataTablesAndColumns() throws {
        let f = try SQLiteStoreFixture()
        let tables = try f.store.lock.withLock {
            try f.store.connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { $0[0] }
        }
        XCTAssertEqual(tables, ["ZPERSON", "ZSAMPLE", "ZSTEP", "ZTAG", "ZTASK", "Z_5TASKS", "Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"].map { .text($0) })
        let columns = try f.store.lock.withLock {
            try f.store.connection.rows("SELECT name FROM pragma_table_info('ZTASK')").map { $0[0] }
        }
        XCTAssertEqual(columns, ["Z_PK", "Z_ENT", "Z_OPT", "ZCODE", "ZDONE", "ZOWNER", "ZPOINTS", "ZTITLE", "ZDEADLINE"].map { .text($0) })
        let stepColumns = try f.store.lock.withLock {
            try f.store.connection.rows("SELECT name FROM pragma_table_info('ZSTEP')").map { $0[0] }
        }
        XCTAssertEqual(stepColumns, ["Z_PK", "Z_ENT", "Z_OPT", "ZTASK", "Z_TASK_ENT", "Z_FOK_TASK", "ZTEXT"].map { .text($0) })
    }

    func testUniquenessConstraintsAndForeignKeysAreIndexed() throws {
        let f = try SQLiteStoreFixture()
        let indexes = try f.store.lock.withLock {
            try f.store.connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZTASK' AND sql IS NOT NULL")
        }
        let sql = indexes.compactMap { row -> String? in if case .text(let text) = row[1] { return text } else { return nil } }
        XCTAssertTrue(sql.contains { $0.hasPrefix("CREATE UNIQUE INDEX") && $0.contains("(\"ZCODE\")") }, "\(sql)")
        XCTAssertTrue(sql.contains { $0.contains("(\"ZOWNER\")") }, "\(sql)")
    }

    // MARK: Metadata and the model

    func testMetadataNamesTypeIdentifierAndModelVersionHashes() throws {
        let f = try SQLiteStoreFixture()
        let metadata = f.store.metadata
        XCTAssertEqual(metadata["StoreType"] as? String, "SQLite")
        XCTAssertEqual(metadata["UUID"] as? String, f.store.identifier)
        XCTAssertEqual(metadata["ModelVersionHashes"] as? [String: Data], f.model.entityVersionHashesByName)
    }

    func testReopenedStoreKeepsItsIdentifierAndUserMetadata() throws {
        let f = try SQLiteStoreFixture()
        let identifier = f.store.identifier
        var metadata = f.store.metadata
        metadata["Owner"] = "ada"
        f.store.metadata = metadata
        try f.save(StoreSaveRequest())
        try f.reopen()
        XCTAssertEqual(f.store.identifier, identifier)
        XCTAssertEqual(f.store.metadata["Owner"] as? String, "ada")
    }

    func testModelIsKeptInTheStore() throws {
        let f = try SQLiteStoreFixture()
        let xml = try f.store.lock.withLock { try f.store.connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") }
        guard case .blob(let data)? = xml else { return XCTFail("no model in Z_MODELCACHE") }
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("<entity name=\"Milestone\""))
    }

    func testOpeningWithAChangedModelNamesTheChangedEntityAndProperty() throws {
        let f = try SQLiteStoreFixture()
        let changed = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("email", .string)
                Attribute("age", .integer32)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
                Unique("email")
            }
            Entity("Task") { Relationship("owner", to: "Person", inverse: "tasks") }
        }
        XCTAssertThrowsError(try f.reopen(model: changed)) { error in
            guard case StoreError.incompatibleModel(let path, let differences) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, f.url.path)
            XCTAssertTrue(differences.contains("entity Person changed: age"), "\(differences)")
            XCTAssertTrue(differences.contains("entity Tag was removed"), "\(differences)")
        }
    }

    func testFilesThatAreNotStoresAreRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let text = try directory.write("not a database, just text", to: "notes.sqlite")
        XCTAssertThrowsError(try SQLiteStore(url: text)) { error in
            XCTAssertTrue("\(error)".contains(text.path), "\(error)")
        }
        let other = directory.url.appendingPathComponent("other.sqlite")
        let connection = try SQLiteConnection(path: other.path)
        try connection.executeScript("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)")
        connection.close()
        let store = try SQLiteStore(url: other)
        XCTAssertThrowsError(try store.load(model: SQLiteStoreFixture.makeModel())) { error in
            XCTAssertTrue("\(error)".contains("another program"), "\(error)")
        }
        store.unload()
        let check = try SQLiteConnection(path: other.path)
        XCTAssertEqual(try check.rows("SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0] }, [.text("accounts")])
    }

    // MARK: Permanent IDs

    func testPrimaryKeysAreUniquePerInheritanceRootStartingAtOne() throws {
        let f = try SQLiteStoreFixture()
        let temporaries = ["Task", "Milestone", "Task", "Person"].map { ObjectID.temporary(for: f.entity($0)) }
        let ids = try f.store.obtainPermanentIDs(for: temporaries)
        XCTAssertEqual(ids.map(\.primaryKey), [1, 2, 3, 1])
        XCTAssertTrue(ids[1].entity === f.entity("Milestone"))
        XCTAssertEqual(ids[0].storeIdentifier, f.store.identifier)
    }

    func testPrimaryKeysAreNotReusedAfterReopening() throws {
        let f = try SQLiteStoreFixture()
        _ = try f.newID("Tag")
        try f.reopen()
        XCTAssertEqual(try f.newID("Tag").primaryKey, 2)
    }

    // MARK: Saving and reading

    func testInsertedRowsReadBackAtVersionOne() throws {
        let f = try SQLiteStoreFixture()
        let id = try f.newID("Person")
        try f.insert([f.row(id, ["name": .value("Ada"), "age": .value(Int64(36)), "nickname": .value("A")])])
        let row = try XCTUnwrap(f.stored(id))
        XCTAssertEqual(row.version, 1)
        XCTAssertEqual(row.value(forKey: "name"), .value("Ada"))
        XCTAssertEqual(row.value(forKey: "age"), .value(Int64(36)))
        XCTAssertEqual(row.value(forKey: "email"), .null)
        XCTAssertEqual(row.value(forKey: "nickname"), .unloaded)
    }

    func testEveryAttributeTypeRoundTrips() throws {
        let f = try SQLiteStoreFixture()
        let id = try f.newID("Sample")
        let values: [String: SnapshotValue] = [
            "int16": .value(Int16(-12)), "int32": .value(Int32(1 << 30)), "int64": .value(Int64.max),
            "decimal": .value(Decimal(string: "12345678901234567890.123456789")!), "double": .value(0.1),
            "float": .value(Float(2.5)), "string": .value("café ☕︎"), "flag": .value(true),
            "date": .value(Date(timeIntervalSinceReferenceDate: 123_456.789)), "data": .value(Data([0, 1, 2])),
            "bigData": .value(Data(repeating: 7, count: 300)), "uuid": .value(UUID()),
            "uri": .value(URL(string: "https://example.org/a?b=c")!), "thing": .value("plain text"),
        ]
        try f.insert([f.row(id, values)])
        try f.reopen()
        let row = try XCTUnwrap(f.stored(id))
        for (name, value) in values { XCTAssertEqual(row.value(forKey: name), value, name) }
    }

    func testADecimalNaNReadsBack() throws {
        let f = try SQLiteStoreFixture()
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["decimal": .value(Decimal.nan)])])
        try f.reopen()
        guard case .value(let value)? = try f.stored(id)?.value(forKey: "decimal") else { return XCTFail("no decimal read back") }
        XCTAssertEqual((value as? Decimal)?.isNaN, true)
    }

    func testDatesAreStoredAsSecondsSince2001AndUUIDsAs16Bytes() throws {
        let f = try SQLiteStoreFixture()
        let id = try f.newID("Sample")
        let uuid = UUID()
        try f.insert([f.row(id, ["date": .value(Date(timeIntervalSinceReferenceDate: 42.5)), "uuid": .value(uuid)])])
        let row = try f.store.lock.withLock { try f.store.connection.rows("SELECT ZDATE, ZUUID FROM ZSAMPLE")[0] }
        XCTAssertEqual(row[0], .double(42.5))
        XCTAssertEqual(row[1], .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) }))
    }

    func testTransformableValuesGoThroughTheirRegisteredTransformer() throws {
        let model = ManagedObjectModel {
            Entity("Note") {
                Attribute("tags", .transformable)
            }
        }
        model.entitiesByName["Note"]!.attributesByName["tags"]!.valueTransformerName = "SQLiteTestTagList"
        AttributeValueTransformer.setValueTransformer(AttributeValueTransformer(
            transform: { value in Data(((value as? [String]) ?? []).joined(separator: ",").utf8) },
            reverseTransform: { data in String(decoding: data, as: UTF8.self).split(separator: ",").map(String.init) }
        ), forName: "SQLiteTestTagList")
        defer { AttributeValueTransformer.setValueTransformer(nil, forName: "SQLiteTestTagList") }
        let f = try SQLiteStoreFixture(model: model)
        let id = try f.newID("Note")
        try f.insert([f.row(id, ["tags": .value(["a", "b"])])])
        XCTAssertEqual(try f.stored(id)?.value(forKey: "tags"), .value(["a", "b"]))
    }

    /// Core Data's default transformer, named "NSSecureUnarchiveFromData" in 1,391 attributes of
    /// the corpus's models, is built in: property-list values and typed collections of them are
    /// stored as keyed archives (the bytes Core Data writes) and read back equal; other values are
    /// refused naming their type; a String stored as text before it existed reads back.
    func testCoreDatasDefaultTransformerIsBuiltIn() throws {
        let model = ManagedObjectModel {
            Entity("Note") { Attribute("info", .transformable).transformed(by: "NSSecureUnarchiveFromData") }
        }
        let f = try SQLiteStoreFixture(model: model)
        let values: [any Hashable & Sendable] = [
            ["a", "b"], [1, 2, 3], Set(["x", "y"]), ["due": Date(timeIntervalSinceReferenceDate: 86400)],
            ["count": 3], "plain", 2.5, true, URL(string: "https://example.org/a")!, Data([0, 1, 2]), [String](),
        ]
        for value in values {
            let id = try f.newID("Note")
            try f.insert([f.row(id, ["info": .value(value)])])
            XCTAssertEqual(try f.stored(id)?.value(forKey: "info"), .value(value), "\(value)")
            let stored = try f.store.lock.withLock {
                try f.store.connection.rows("SELECT ZINFO FROM ZNOTE WHERE Z_PK = ?", [.integer(id.primaryKey!)])[0][0]
            }
            guard case .blob(let bytes) = stored else { return XCTFail("\(value): \(stored)") }
            XCTAssertTrue(bytes.starts(with: Array("bplist00".utf8)), "a keyed archive: \(value)")
        }
        let nested = try f.newID("Note")
        try f.insert([f.row(nested, ["info": .value([["a", "b"], ["c"]])])])
        XCTAssertEqual(try f.stored(nested)?.value(forKey: "info"), .value([["a", "b"], ["c"]]), "nested, typed")
        let foreign = try f.newID("Note")
        XCTAssertThrowsError(try f.insert([f.row(foreign, ["info": .value(Coordinates(latitude: 1, longitude: 2))])])) { error in
            XCTAssertTrue("\(error)".contains("Note.info") && "\(error)".contains("property lists"), "\(error)")
        }
        let old = try f.newID("Note")
        try f.insert([f.row(old, ["info": .null])])
        try f.store.lock.withLock {
            try f.store.connection.execute("UPDATE ZNOTE SET ZINFO = 'kept as text' WHERE Z_PK = \(old.primaryKey!)")
        }
        XCTAssertEqual(try f.stored(old)?.value(forKey: "info"), .value("kept as text"))
    }

    func testTransformableValueWithoutTransformerIsRefusedNamingTheAttribute() throws {
        let f = try SQLiteStoreFixture()
        let id = try f.newID("Sample")
        XCTAssertThrowsError(try f.insert([f.row(id, ["thing": .value(["a", "b"])])])) { error in
            XCTAssertTrue("\(error)".contains("Sample.thing"), "\(error)")
            XCTAssertTrue("\(error)".contains("value transformer"), "\(error)")
        }
    }

    func testSaveReturnsNewSnapshotsAndDeletedIDs() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let newTag = try f.newID("Tag")
        let result = try f.store.save(StoreSaveRequest(
            inserted: [f.row(newTag, ["name": .value("new")])],
            updated: [f.row(d.cy, ["name": .value("Cyrus")], version: 1)],
            deleted: [(d.linux, 1)]))
        XCTAssertEqual(result.snapshots.map(\.objectID), [newTag, d.cy])
        XCTAssertEqual(result.snapshots.map(\.version), [1, 2])
        XCTAssertEqual(result.deletedObjectIDs, [d.linux])
        XCTAssertNil(try f.stored(d.linux))
        XCTAssertEqual(try f.destinations("tags", of: d.review), [d.swift])
    }

    func testUpdateKeepsStoredValuesOfUnloadedSlots() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        var update = try XCTUnwrap(f.stored(d.ada))
        update.values[update.layout.index(of: "email")!] = .unloaded
        update.values[update.layout.index(of: "name")!] = .value("Ada L.")
        let result = try f.save(StoreSaveRequest(updated: [update]))
        XCTAssertEqual(result.snapshots[0].value(forKey: "email"), .value("ada@example.org"))
        let row = try XCTUnwrap(f.stored(d.ada))
        XCTAssertEqual(row.version, 2)
        XCTAssertEqual(row.value(forKey: "name"), .value("Ada L."))
        XCTAssertEqual(row.value(forKey: "email"), .value("ada@example.org"))
    }

    func testStaleUpdateAndDeleteOfGoneRowAreConflictsThatChangeNothing() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(updated: [f.row(d.cy, ["name": .value("Cyrus")], version: 1)], deleted: [(d.linux, 1)]))
        let newTag = try f.newID("Tag")
        XCTAssertThrowsError(try f.save(StoreSaveRequest(
            inserted: [f.row(newTag, ["name": .value("new")])],
            updated: [f.row(d.cy, ["name": .value("Cy again")], version: 1)],
            deleted: [(d.linux, 1)]))) { error in
            guard case StoreError.conflicts(let conflicts) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(conflicts.map(\.objectID), [d.cy, d.linux])
            XCTAssertEqual(conflicts[0].currentSnapshot?.version, 2)
            XCTAssertEqual(conflicts[0].currentSnapshot?.value(forKey: "name"), .value("Cyrus"))
            XCTAssertNil(conflicts[1].currentSnapshot)
        }
        XCTAssertNil(try f.stored(newTag))
    }

    func testLockedRowsAreCheckedWithoutBeingWritten() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        XCTAssertThrowsError(try f.save(StoreSaveRequest(locked: [(d.bob, 7)])))
        XCTAssertNoThrow(try f.save(StoreSaveRequest(locked: [(d.bob, 1)])))
        XCTAssertEqual(try f.stored(d.bob)?.version, 1)
    }

    func testUniquenessViolationNamesEntityPropertiesAndBothObjects() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let copy = try f.newID("Milestone")
        XCTAssertThrowsError(try f.insert([f.row(copy, ["title": .value("Copy"), "code": .value("W")])])) { error in
            guard case StoreError.uniquenessViolation(let entity, let properties, let ids) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(entity, "Milestone")
            XCTAssertEqual(properties, ["code"])
            XCTAssertEqual(ids, [copy, d.write])
        }
    }

    func testUniquenessAmongTheRowsOfOneSave() throws {
        let f = try SQLiteStoreFixture()
        let a = try f.newID("Person"), b = try f.newID("Person")
        XCTAssertThrowsError(try f.insert([f.row(a, ["email": .value("x@y")]), f.row(b, ["email": .value("x@y")])])) { error in
            guard case StoreError.uniquenessViolation(_, _, let ids) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(ids, [b, a])
        }
        XCTAssertNil(try f.stored(a))
    }

    func testNilValuesNeverCollideAndFreedValuesCanBeReused() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let other = try f.newID("Task")
        try f.save(StoreSaveRequest(inserted: [f.row(other, ["title": .value("Other"), "code": .value("R")])],
                                    updated: [f.row(d.review, ["title": .value("Review"), "code": .value("R2")], version: 1)]))
        XCTAssertEqual(try f.stored(other)?.value(forKey: "code"), .value("R"))
        let nils = try (0..<2).map { _ in try f.newID("Task") }
        XCTAssertNoThrow(try f.insert(nils.map { f.row($0, [:]) }))
    }

    func testRowsOfOneSaveCanSwapConstrainedValues() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(updated: [
            f.row(d.write, ["title": .value("Write"), "code": .value("R"), "owner": .object(d.ada)], version: 1),
            f.row(d.review, ["title": .value("Review"), "code": .value("W"), "owner": .object(d.ada)], version: 1),
        ]))
        XCTAssertEqual(try f.stored(d.write)?.value(forKey: "code"), .value("R"))
        XCTAssertEqual(try f.stored(d.review)?.value(forKey: "code"), .value("W"))
    }

    func testFailedSaveLeavesTheFileExactlyAsItWas() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let fresh = try f.newID("Tag")
        let clash = try f.newID("Person")
        let before = try f.checkpointedBytes()
        XCTAssertThrowsError(try f.save(StoreSaveRequest(
            inserted: [f.row(fresh, ["name": .value("new")]), f.row(clash, ["email": .value("ada@example.org")])],
            updated: [f.row(d.cy, ["name": .value("Cyrus")], version: 1)],
            deleted: [(d.swift, 1)])))
        let after = try f.checkpointedBytes()
        XCTAssertEqual(before.count, after.count)
        XCTAssertTrue(before == after, "the store file changed")
        XCTAssertEqual(try f.stored(d.cy)?.value(forKey: "name"), .value("Cy"))
    }

    // MARK: Relationships

    func testToManyThroughTheInverseForeignKeyKeepsItsOrder() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        XCTAssertEqual(try f.destinations("steps", of: d.write), [d.stepC, d.stepA, d.stepB])
        XCTAssertEqual(try f.destinations("tasks", of: d.ada), [d.write, d.review])
        try f.save(StoreSaveRequest(updated: [f.row(d.write, ["title": .value("Write"), "code": .value("W"), "owner": .object(d.ada),
                                                              "steps": .objects([d.stepB, d.stepC, d.stepA])], version: 1)]))
        XCTAssertEqual(try f.destinations("steps", of: d.write), [d.stepB, d.stepC, d.stepA])
    }

    func testManyToManyReadsFromBothSides() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        XCTAssertEqual(try f.destinations("tags", of: d.review), [d.swift, d.linux])
        XCTAssertEqual(try f.destinations("tasks", of: d.swift), [d.write, d.review])
        try f.save(StoreSaveRequest(updated: [
            f.row(d.review, ["title": .value("Review"), "code": .value("R"), "owner": .object(d.ada), "tags": .objects([d.linux])], version: 1),
            f.row(d.swift, ["name": .value("swift"), "tasks": .objects([d.write])], version: 1),
        ]))
        XCTAssertEqual(try f.destinations("tags", of: d.review), [d.linux])
        XCTAssertEqual(try f.destinations("tasks", of: d.swift), [d.write])
    }

    func testJoinTablesForToManyWithoutInverseAndSelfRelationships() throws {
        let model = ManagedObjectModel {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("favorites", to: "Note", toMany: true, ordered: true)
                Relationship("children", to: "Folder", inverse: "parents", toMany: true)
                Relationship("parents", to: "Folder", inverse: "children", toMany: true)
            }
            Entity("Note") {
                Attribute("title", .string)
                Relationship("related", to: "Note", inverse: "related", toMany: true)
            }
        }
        let f = try SQLiteStoreFixture(model: model)
        let root = try f.newID("Folder"), child = try f.newID("Folder")
        let first = try f.newID("Note"), second = try f.newID("Note")
        try f.insert([
            f.row(root, ["name": .value("root"), "favorites": .objects([second, first]), "children": .objects([child])]),
            f.row(child, ["name": .value("child"), "parents": .objects([root])]),
            f.row(first, ["title": .value("first"), "related": .objects([second])]),
            f.row(second, ["title": .value("second"), "related": .objects([first])]),
        ])
        XCTAssertEqual(try f.destinations("favorites", of: root), [second, first])
        XCTAssertEqual(try f.destinations("children", of: root), [child])
        XCTAssertEqual(try f.destinations("parents", of: child), [root])
        XCTAssertEqual(try f.destinations("related", of: first), [second])
        XCTAssertEqual(try f.destinations("related", of: second), [first])
        try f.save(StoreSaveRequest(updated: [f.row(first, ["title": .value("first"), "related": .objects([])], version: 1)],
                                    deleted: [(second, 1)]))
        XCTAssertEqual(try f.destinations("favorites", of: root), [first])
        XCTAssertEqual(try f.destinations("related", of: first), [])
        let tables = try f.store.lock.withLock {
            try f.store.connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\' ORDER BY name").map { $0[0] }
        }
        XCTAssertEqual(tables, ["Z_1CHILDREN", "Z_1FAVORITES", "Z_2RELATED", "Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"].map { .text($0) })
    }

    func testDestinationsOfManyOwnersComeFromOneStatementAsEachOwnersWould() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        // Many-to-many from both sides (release is a Milestone, deploy has no tag), one-to-many
        // through the inverse's foreign key (Cy has no task), and ordered.
        let cases: [(entity: String, name: String, owners: [ObjectID])] = [
            ("Task", "tags", [d.write, d.review, d.deploy, d.release]),
            ("Tag", "tasks", [d.swift, d.linux]),
            ("Person", "tasks", [d.ada, d.bob, d.cy]),
            ("Task", "steps", [d.write, d.review]),
        ]
        for (entity, name, owners) in cases {
            let relationship = f.relationship(entity, name)
            let before = f.store.lock.withLock { f.store.connection.statementsRun }
            let all = try f.store.objectIDs(forRelationship: relationship, of: owners)
            XCTAssertEqual(f.store.lock.withLock { f.store.connection.statementsRun } - before, 1, "\(entity).\(name)")
            XCTAssertEqual(Set(all.keys), Set(owners), "\(entity).\(name)")
            for owner in owners {
                XCTAssertEqual(all[owner], try f.store.objectIDs(forRelationship: relationship, of: owner), "\(entity).\(name) of \(owner)")
            }
        }
        XCTAssertEqual(try f.store.objectIDs(forRelationship: f.relationship("Task", "steps"), of: [d.write, d.review]),
                       [d.write: [d.stepC, d.stepA, d.stepB], d.review: []])
        XCTAssertEqual(try f.store.objectIDs(forRelationship: f.relationship("Task", "tags"), of: [d.review, d.release]),
                       [d.review: [d.swift, d.linux], d.release: []])
        XCTAssertThrowsError(try f.store.objectIDs(forRelationship: f.relationship("Task", "tags"), of: [d.ada]))
    }

    func testToOneToASubEntityKeepsTheDestinationEntity() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let step = try f.newID("Step")
        try f.insert([f.row(step, ["text": .value("ship"), "task": .object(d.release)])])
        let stored = try XCTUnwrap(f.stored(step))
        guard case .object(let task) = stored.value(forKey: "task") else { return XCTFail("no task") }
        XCTAssertEqual(task, d.release)
        XCTAssertTrue(task.entity === f.entity("Milestone"))
    }

    func testDeletingARowRemovesItsJoinTableRows() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        try f.save(StoreSaveRequest(deleted: [(d.review, 1)]))
        XCTAssertEqual(try f.destinations("tasks", of: d.linux), [])
        XCTAssertEqual(try f.destinations("tasks", of: d.swift), [d.write])
    }

    func testSnapshotsOfManyRowsComeFromOneStatementPerTable() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let rows = try f.store.snapshots(for: [d.ada, d.write, d.release, d.swift, d.stepA])
        XCTAssertEqual(Set(rows.keys), [d.ada, d.write, d.release, d.swift, d.stepA])
        XCTAssertEqual(rows[d.release]?.value(forKey: "deadline"), .value(Date(timeIntervalSince1970: 0)))
        XCTAssertEqual(rows[d.write]?.value(forKey: "steps"), .unloaded)
    }

    func testSnapshotsInOrderOfConsecutiveKeysComeFromARangeInTheIDsOrder() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        // write, review, deploy and release are keys 1 to 4 of the Task table (release is a Milestone).
        XCTAssertEqual(try f.store.snapshotsInOrder(for: [d.write, d.review, d.deploy]).map { $0?.value(forKey: "title") },
                       [.value("Write"), .value("Review"), .value("deploy")])
        // Key 4 named as a Task: the row is a Milestone's, so the ID has no row, as in snapshots(for:).
        let wrong = ObjectID(entity: f.entity("Task"), storeIdentifier: f.store.identifier, primaryKey: d.release.primaryKey!)
        XCTAssertEqual(try f.store.snapshotsInOrder(for: [d.write, d.review, d.deploy, wrong]).map { $0 == nil }, [false, false, false, true])
        try f.save(StoreSaveRequest(deleted: [(d.review, 1)]))
        let rows = try f.store.snapshotsInOrder(for: [d.write, d.review, d.deploy])
        XCTAssertEqual(rows.map { $0?.objectID }, [d.write, nil, d.deploy], "a deleted row leaves its place empty")
        XCTAssertEqual(rows[0], try f.store.snapshots(for: [d.write])[d.write], "the same snapshot as snapshots(for:)")
    }

    func testSnapshotsInOrderOfOtherKeysKeepTheIDsOrder() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let ids = [d.deploy, d.write, d.ada, d.release, d.deploy]
        let byID = try f.store.snapshots(for: ids)
        XCTAssertEqual(try f.store.snapshotsInOrder(for: ids), ids.map { byID[$0] })
        XCTAssertEqual(try f.store.snapshotsInOrder(for: []), [])
    }

    func testConsecutiveKeysAreEveryKeyFromTheFirstToTheLastOnce() {
        XCTAssertTrue(SQLiteRowReader.areConsecutive([3, 4, 5]))
        XCTAssertTrue(SQLiteRowReader.areConsecutive([7]))
        XCTAssertFalse(SQLiteRowReader.areConsecutive([]))
        XCTAssertFalse(SQLiteRowReader.areConsecutive([3, 5, 4]))
        XCTAssertFalse(SQLiteRowReader.areConsecutive([3, 4, 4]))
        XCTAssertFalse(SQLiteRowReader.areConsecutive([Int64.max, Int64.min]), "keys wrapping around are not a range")
    }

    func testSnapshotOfAnIDWithAnotherEntityIsMissing() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let wrong = ObjectID(entity: f.entity("Milestone"), storeIdentifier: f.store.identifier, primaryKey: d.write.primaryKey!)
        XCTAssertTrue(try f.store.snapshots(for: [wrong]).isEmpty)
    }

    // MARK: Sharing and copying

    func testTwoStoresOnOneFileSeeEachOthersSavesAndConflicts() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        let g = try SQLiteStoreFixture(model: f.model, sharing: f)
        XCTAssertEqual(g.store.identifier, f.store.identifier)
        try f.save(StoreSaveRequest(updated: [f.row(d.cy, ["name": .value("Cyrus")], version: 1)]))
        XCTAssertEqual(try g.stored(d.cy)?.value(forKey: "name"), .value("Cyrus"))
        XCTAssertThrowsError(try g.save(StoreSaveRequest(updated: [g.row(d.cy, ["name": .value("C")], version: 1)]))) { error in
            guard case StoreError.conflicts = error else { return XCTFail("\(error)") }
        }
        XCTAssertNotEqual(try f.newID("Tag").primaryKey, try g.newID("Tag").primaryKey)
    }

    func testCoordinatorCopiesAndDestroysSQLiteStores() throws {
        let f = try SQLiteStoreFixture()
        let d = try f.populated()
        f.store.unload()
        let copy = f.directory.url.appendingPathComponent("copy.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: f.model)
        try coordinator.replacePersistentStore(at: copy, withPersistentStoreFrom: f.url, type: .sqlite)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: copy)
        XCTAssertEqual(try store.snapshots(for: [d.ada])[d.ada.withStore(store.identifier)]?.value(forKey: "name"), .value("Ada"))
        try coordinator.destroyPersistentStore(at: copy, type: .sqlite)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path + "-wal"))
    }
}

private extension ObjectID {
    /// The same row's ID in the store `identifier` (a copy keeps its UUID; this states it).
    func withStore(_ identifier: String) -> ObjectID {
        ObjectID(entity: entity, storeIdentifier: identifier, primaryKey: primaryKey!)
    }
}

/// A value of one's own type: storable, but no property list.
private struct Coordinates: StorableValue {
    var latitude: Double
    var longitude: Double
}
