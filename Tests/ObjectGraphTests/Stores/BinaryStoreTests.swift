// The binary store: every attribute type and every kind of relationship written and read back,
// files that are damaged or cut short refused naming the byte (never a crash), and saves that
// change nothing when they fail. (The behaviour tests run on it too: Stack.storeTypes.)
import Foundation
import XCTest
@testable import ObjectGraph

final class BinaryStoreTests: BinaryStoreTestCase {
    static let model = AtomicStoreTestCase.sampleModel

    private func open(options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        try open(Self.model, options: options)
    }

    /// A store of the sample model with two samples, an owner and two tags, saved.
    @discardableResult
    private func writeSampleStore() throws -> ManagedObjectContext {
        let writer = try open()
        let owner = writer.insertNewObject(forEntityName: "Owner")
        owner.setValue("Ada", forKey: "name")
        let first = writer.insertNewObject(forEntityName: "Sample")
        first.setValue("first", forKey: "text")
        first.setValue(Int16(7), forKey: "small")
        first.setValue(Date(timeIntervalSinceReferenceDate: 1), forKey: "when")
        let second = writer.insertNewObject(forEntityName: "Sample")
        second.setValue("second", forKey: "text")
        owner.setValue([second, first], forKey: "samples")
        let tag = writer.insertNewObject(forEntityName: "Tag")
        tag.setValue("red", forKey: "name")
        tag.setValue(Set([first, second]), forKey: "samples")
        try writer.save()
        return writer
    }

    func testEveryAttributeTypeAndRelationshipReadsBackAfterReopening() throws {
        let values: [String: Any] = [
            "text": "Zoë & <friends>\n\ttab, \u{0} nul, \u{1} control, 🦊, trailing space ",
            "small": Int16.min, "medium": Int32.max, "large": Int64.min,
            "exact": Decimal(string: "12345678901234567890.123456789")!, "real": 0.1 + 0.2, "single": Float(1.1),
            "flag": true, "when": Date(timeIntervalSinceReferenceDate: -812_345_678.123_456),
            "bytes": Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }), "identifier": UUID(),
            "link": URL(string: "https://example.com/a?b=c&d")!,
        ]
        let edges: [String: Any] = ["text": "", "bytes": Data(), "real": Double.infinity, "single": Float.nan, "exact": Decimal.nan, "flag": false]
        let (_, readEdges) = try checkEveryAttributeTypeAndRelationshipReadBack(values, otherValues: edges)
        XCTAssertEqual(readEdges.value(forKey: "text") as? String, "")
        XCTAssertEqual(readEdges.value(forKey: "bytes") as? Data, Data())
        XCTAssertEqual(readEdges.value(forKey: "real") as? Double, .infinity)
        XCTAssertEqual((readEdges.value(forKey: "single") as? Float)?.isNaN, true)
        XCTAssertEqual((readEdges.value(forKey: "exact") as? Decimal)?.isNaN, true)
        XCTAssertEqual(readEdges.value(forKey: "flag") as? Bool, false)
        XCTAssertNil(readEdges.value(forKey: "small"))
        XCTAssertNil(readEdges.value(forKey: "identifier"))

        let data = try fileData()
        XCTAssertEqual(data.prefix(8), Data("OGBSTORE".utf8))
        XCTAssertTrue(BinaryStore.isBinaryStore(at: storeURL))
        XCTAssertFalse(data.range(of: Data("not saved".utf8)) != nil, "transient values are not written")
    }

    func testTheFileIsSmallerThanTheXMLStoresForTheSameObjects() throws {
        let writer = try open()
        for index in 0..<200 {
            let sample = writer.insertNewObject(forEntityName: "Sample")
            sample.setValue("sample \(index)", forKey: "text")
            sample.setValue(Int64(index) * 1_000, forKey: "large")
            sample.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "when")
            sample.setValue(Data(repeating: UInt8(index % 256), count: 64), forKey: "bytes")
        }
        try writer.save()
        let xml = directory.url.appendingPathComponent("same.xml")
        let coordinator = try XCTUnwrap(writer.persistentStoreCoordinator)
        _ = try coordinator.migratePersistentStore(try XCTUnwrap(coordinator.persistentStores.first), to: xml, type: .xml)
        let binarySize = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: storeURL.path)[.size] as? Int)
        let xmlSize = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: xml.path)[.size] as? Int)
        XCTAssertLessThan(binarySize * 2, xmlSize, "binary \(binarySize) bytes, XML \(xmlSize)")
        XCTAssertEqual(try fetch("Sample", open(Self.model), sortedBy: "text").count, 200)
    }

    func testEveryShortenedOrDamagedFileIsRefusedNamingTheByteAndNeverCrashes() throws {
        try writeSampleStore()
        let whole = try fileData()
        // The copy of the model (XML text, read only by a migration) is cut and changed at its
        // ends only; every other byte is tried.
        let modelStart = try XCTUnwrap(whole.range(of: Data("<?xml".utf8))).lowerBound
        let modelEnd = try XCTUnwrap(whole.range(of: Data("</model>".utf8), options: .backwards)).upperBound
        let offsets = Array(0..<(modelStart + 8)) + Array((modelEnd - 8)..<whole.count)
        // Every prefix of the file: refused, naming the file and a byte offset.
        for length in offsets {
            try whole.prefix(length).write(to: storeURL)
            let message = openingError(Self.model)
            XCTAssertTrue(message.contains(storeURL.path) && message.contains("byte "), "cut at \(length): \(message)")
        }
        // Every byte changed: the store opens (a changed value) or is refused with the file's
        // name; it never crashes and never reads past the end.
        var refused = 0
        for offset in offsets {
            var damaged = whole
            damaged[offset] ^= 0xA5
            try damaged.write(to: storeURL)
            let message = openingError(Self.model)
            if message != "no error" {
                refused += 1
                XCTAssertTrue(message.contains(storeURL.path), "byte \(offset) changed: \(message)")
            }
        }
        XCTAssertGreaterThan(refused, offsets.count / 2)
        // The file put back opens with every object.
        try whole.write(to: storeURL)
        XCTAssertEqual(try fetch("Sample", open(Self.model), sortedBy: "text").count, 2)
    }

    func testBadFilesFailNamingTheByteAndWhat() throws {
        let sample: [(String, BinaryStoreFormat.PropertyKind)] = [("text", .attribute), ("small", .attribute), ("owner", .toOne)]
        let cases: [(Data, String)] = [
            (Data("<database></database>".utf8), "byte 0: the file does not start with \"OGBSTORE\""),
            (try craftedFile(entities: [], objects: [], version: 2), "byte 8: the format version is 2"),
            (try craftedFile(entities: [("Ghost", [])], objects: []), "the entity \"Ghost\" is no concrete entity"),
            (try craftedFile(entities: [("Sample", [("colour", .attribute)])], objects: []), "Sample has no stored attribute \"colour\""),
            (try craftedFile(entities: [("Sample", [("owner", .toMany)])], objects: []), "Sample has no stored to-many relationship \"owner\""),
            (try craftedFile(entities: [("Sample", [("scratch", .attribute)])], objects: []), "Sample has no stored attribute \"scratch\""),
            (try craftedFile(entities: [("Sample", sample)], objects: [(0, 1, [.stored(.integer(5)), .stored(.null), .stored(.null)])]),
             "Sample.text (String): cannot read the stored value 5"),
            (try craftedFile(entities: [("Sample", sample)], objects: [(0, 1, [.stored(.null), .stored(.integer(70_000)), .stored(.null)])]),
             "Sample.small of object 1: 70000 is out of the range of Integer 16"),
            (try craftedFile(entities: [("Sample", sample)], objects: [(0, 1, [.stored(.null), .stored(.null), .object(9)])]),
             "Sample.owner refers to object 9, which is no object of the store"),
            (try craftedFile(entities: [("Sample", sample), ("Tag", [])],
                             objects: [(1, 1, []), (0, 2, [.stored(.null), .stored(.null), .object(1)])]),
             "Sample.owner refers to object 1, a Tag, not a Owner"),
            (try craftedFile(entities: [("Sample", sample)], objects: [(0, 1, [.stored(.null), .stored(.null), .objects([])])]),
             "Sample.owner of object 1 holds a value of the wrong kind"),
            (try craftedFile(entities: [("Tag", [])], objects: [(0, 1, []), (0, 1, [])]), "a second object has the number 1"),
            (try craftedFile(entities: [("Tag", [])], objects: [(0, 0, [])]), "a Tag has the number 0"),
            (try craftedFile(entities: [("Tag", [])], objects: [(3, 1, [])]), "an object's entity is number 3 of a table of 1"),
            (try craftedFile(entities: [("Tag", [])], objects: []) + Data([0]), "there are bytes after the last object"),
        ]
        for (data, expected) in cases {
            try data.write(to: storeURL)
            let message = openingError(Self.model)
            XCTAssertTrue(message.contains(storeURL.path) && message.contains(expected), "\(expected) in: \(message)")
        }
        // A crafted file that is right opens, relationships completed from their inverses' lists.
        try craftedFile(entities: [("Owner", [("name", .attribute), ("samples", .toMany)]), ("Sample", sample)],
                        objects: [(0, 1, [.stored(.text("Ada")), .objects([2])]),
                                  (1, 2, [.stored(.text("kept")), .stored(.integer(-3)), .object(1)])]).write(to: storeURL)
        let context = try open(Self.model)
        let read = try XCTUnwrap(try fetch("Sample", context, sortedBy: "text").first)
        XCTAssertEqual(read.value(forKey: "small") as? Int16, -3)
        XCTAssertEqual((read.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String, "Ada")
        let added = context.insertNewObject(forEntityName: "Tag")
        try context.save()
        XCTAssertEqual(added.objectID.primaryKey, 100, "new objects continue the file's numbering")
    }

    func testAnotherModelIsRefusedNamingWhatChanged() throws {
        try checkAnotherModelIsRefusedNamingWhatChanged()
    }

    func testAFailedSaveChangesNeitherTheFileNorTheStore() throws {
        try checkAFailedSaveChangesNeitherTheFileNorTheStore()
    }

    func testALightweightMigrationCarriesTheObjectsOver() throws {
        try checkALightweightMigrationCarriesTheObjectsOver()
    }

    func testMetadataAndDeletionsPersistAndNumbersAreNotReused() throws {
        try checkMetadataAndDeletionsPersistAndNumbersAreNotReused()
        let context = try open()
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first as? BinaryStore)
        var metadata = store.metadata
        metadata["Nested"] = ["a": [1, 2], "b": Data([1])] as [String: any Sendable]
        store.metadata = metadata
        context.insertNewObject(forEntityName: "Tag").setValue("nested", forKey: "name")
        try context.save()
        let reopened = try XCTUnwrap(try open().persistentStoreCoordinator?.persistentStores.first)
        XCTAssertEqual((reopened.metadata["Nested"] as? [String: any Sendable])?["b"] as? Data, Data([1]))
        XCTAssertEqual(((reopened.metadata["Nested"] as? [String: any Sendable])?["a"] as? [any Sendable])?.count, 2)
    }

    func testAMetadataValueNoPropertyListHoldsFailsTheSaveAndASaveKeepsTheFilesPermissions() throws {
        let context = try writeSampleStore()
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: storeURL.path)
        let before = try fileData()
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        var metadata = store.metadata
        metadata["Bad"] = URL(fileURLWithPath: "/tmp")
        store.metadata = metadata
        let tag = try XCTUnwrap(try fetch("Tag", context).first)
        tag.setValue("scarlet", forKey: "name")
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertTrue("\(error)".contains("metadata"), "\(error)")
        }
        XCTAssertEqual(try fileData(), before)
        metadata["Bad"] = nil
        store.metadata = metadata
        try context.save()
        XCTAssertNotEqual(try fileData(), before)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: storeURL.path)[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), [storeURL.lastPathComponent],
                       "no temporary file is left")
        XCTAssertEqual(try fetch("Tag", open()).count, 1)
    }

    func testStoresMoveBetweenSQLiteXMLAndBinaryFiles() throws {
        let sqlite = directory.url.appendingPathComponent("store.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let original = try coordinator.addPersistentStore(type: .sqlite, at: sqlite)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let owner = context.insertNewObject(forEntityName: "Owner")
        owner.setValue("Ada", forKey: "name")
        for text in ["b", "a"] {
            let sample = context.insertNewObject(forEntityName: "Sample")
            sample.setValue(text, forKey: "text")
            sample.setValue(owner, forKey: "owner")
        }
        try context.save()
        let binary = try coordinator.migratePersistentStore(original, to: storeURL, type: .binary)
        let xml = try coordinator.migratePersistentStore(binary, to: directory.url.appendingPathComponent("store.xml"), type: .xml)
        let back = directory.url.appendingPathComponent("again.binary")
        _ = try coordinator.migratePersistentStore(xml, to: back, type: .binary)

        let reopened = try open(Self.model, at: back)
        let readOwner = try XCTUnwrap(try fetch("Owner", reopened).first)
        XCTAssertEqual(((readOwner.value(forKey: "samples") as? OrderedSet<ManagedObject>)?.elements ?? []).map { $0.value(forKey: "text") as? String },
                       ["b", "a"], "the ordered relationship keeps its order through three stores")

        // Replacing one binary store's file with another's, then destroying it.
        try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: back, type: .binary)
        let replaced = try open(Self.model)
        XCTAssertEqual(try fetch("Sample", replaced, sortedBy: "text").map { $0.value(forKey: "text") as? String }, ["a", "b"])
        try coordinator.destroyPersistentStore(at: storeURL, type: .binary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeURL.path))
    }

    func testAReadOnlyStoreReadsAndRefusesSaves() throws {
        XCTAssertTrue(openingError(Self.model, options: [SQLiteStore.readOnlyOption: true]).contains("there is no store to read"))
        try writeSampleStore()
        let before = try fileData()
        let reader = try open(options: [SQLiteStore.readOnlyOption: true])
        let tag = try XCTUnwrap(try fetch("Tag", reader).first)
        XCTAssertEqual((tag.value(forKey: "samples") as? Set<ManagedObject>)?.count, 2)
        tag.setValue("blue", forKey: "name")
        XCTAssertThrowsError(try reader.save()) { error in
            XCTAssertTrue("\(error)".contains("read-only"), "\(error)")
        }
        XCTAssertEqual(try fileData(), before)
    }

    func testAConfigurationsEntitiesLiveInABinaryStoreBesideASQLiteStore() throws {
        let model = ManagedObjectModel {
            Entity("Note") { Attribute("text", .string) }
            Entity("Setting") { Attribute("key", .string) }
            Configuration("Notes", entities: ["Note"])
            Configuration("Settings", entities: ["Setting"])
        }
        func stack() throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, configuration: "Notes", at: directory.url.appendingPathComponent("notes.sqlite"))
            try coordinator.addPersistentStore(type: .binary, configuration: "Settings", at: storeURL)
            let context = ManagedObjectContext(concurrencyType: .mainQueue)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let context = try stack()
        context.insertNewObject(forEntityName: "Note").setValue("hello", forKey: "text")
        context.insertNewObject(forEntityName: "Setting").setValue("theme", forKey: "key")
        try context.save()
        XCTAssertNil(try fileData().range(of: Data("hello".utf8)), "the note is not in the binary store")
        let reopened = try stack()
        XCTAssertEqual(try fetch("Setting", reopened, sortedBy: "key").map { $0.value(forKey: "key") as? String }, ["theme"])
        XCTAssertEqual(try fetch("Note", reopened, sortedBy: "text").map { $0.value(forKey: "text") as? String }, ["hello"])
    }
}
