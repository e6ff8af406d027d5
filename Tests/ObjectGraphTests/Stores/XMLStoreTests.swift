// The XML store: Core Data's file format written and read back, every attribute type and every
// kind of relationship, files in Core Data's own spelling, errors that name their line, and
// saves that change nothing when they fail. (The behaviour tests run on it too: Stack.storeTypes.)
import Foundation
import XCTest
@testable import ObjectGraph

final class XMLStoreTests: XMLStoreTestCase {
    /// A model with an attribute of every storable type, and relationships of every kind.
    static let model = ManagedObjectModel {
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

    /// A context on the store with the test model.
    private func open(options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        try open(Self.model, options: options)
    }

    /// The error opening the store throws, as text.
    private func openingError(_ model: ManagedObjectModel = XMLStoreTests.model) -> String {
        do {
            _ = try open(model)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testEveryAttributeTypeAndRelationshipReadsBackAfterReopening() throws {
        let values: [String: Any] = [
            "text": "Zoë & <friends>\n\ttab, \r carriage return, \u{1} control, trailing space ",
            "small": Int16(-7), "medium": Int32(123_456), "large": Int64.max,
            "exact": Decimal(string: "12345678901234567890.123456789")!, "real": 0.1 + 0.2, "single": Float(1.1),
            "flag": true, "when": Date(timeIntervalSinceReferenceDate: 812_345_678.123_456),
            "bytes": Data([0, 1, 2, 255]), "identifier": UUID(), "link": URL(string: "https://example.com/a?b=c&d")!,
        ]
        let writer = try open()
        let sample = writer.insertNewObject(forEntityName: "Sample")
        for (key, value) in values { sample.setValue(value, forKey: key) }
        sample.setValue("not saved", forKey: "scratch")
        let empty = writer.insertNewObject(forEntityName: "Sample")
        empty.setValue("only text", forKey: "text")
        let owner = writer.insertNewObject(forEntityName: "Owner")
        owner.setValue("Ada", forKey: "name")
        owner.setValue([empty, sample], forKey: "samples")       // ordered: empty first
        let red = writer.insertNewObject(forEntityName: "Tag")
        red.setValue("red", forKey: "name")
        let blue = writer.insertNewObject(forEntityName: "Tag")
        blue.setValue("blue", forKey: "name")
        sample.setValue(Set([red, blue]), forKey: "tags")
        empty.setValue(Set([red]), forKey: "tags")
        try writer.save()

        let reader = try open()
        let samples = try fetch("Sample", reader, sortedBy: "text")
        XCTAssertEqual(samples.count, 2)
        let read = try XCTUnwrap(samples.first { $0.value(forKey: "flag") as? Bool == true })
        for (key, value) in values {
            XCTAssertEqual(read.value(forKey: key).map { "\($0)" }, "\(value)", key)
        }
        XCTAssertNil(read.value(forKey: "scratch"), "transient values are not stored")
        let readEmpty = try XCTUnwrap(samples.first { $0.value(forKey: "text") as? String == "only text" })
        XCTAssertNil(readEmpty.value(forKey: "small"))
        XCTAssertNil(readEmpty.value(forKey: "when"))
        let readOwner = try XCTUnwrap(try fetch("Owner", reader).first)
        XCTAssertEqual((readOwner.value(forKey: "samples") as? OrderedSet<ManagedObject>)?.elements, [readEmpty, read])
        XCTAssertTrue(read.value(forKey: "owner") as? ManagedObject === readOwner)
        let tags = try fetch("Tag", reader)
        XCTAssertEqual(tags.map { $0.value(forKey: "name") as? String }, ["blue", "red"])
        XCTAssertEqual(Set(((read.value(forKey: "tags") as? Set<ManagedObject>) ?? []).map { $0.value(forKey: "name") as? String ?? "" }), ["red", "blue"])
        XCTAssertEqual(((tags[1].value(forKey: "samples") as? Set<ManagedObject>) ?? []).count, 2)

        // Core Data's spelling: entities in capitals, names in lower case, one sequence of IDs.
        let text = try fileText()
        XCTAssertTrue(text.hasPrefix("<?xml version=\"1.0\" standalone=\"no\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"))
        XCTAssertTrue(text.contains("<object type=\"OWNER\" id=\"z"), text)
        XCTAssertTrue(text.contains("<attribute name=\"identifier\" type=\"uuid\">"), text)
        XCTAssertTrue(text.contains("type=\"0/0\" destination=\"SAMPLE\""), text)
        XCTAssertFalse(text.contains("scratch"))
        XCTAssertEqual(Set([sample, empty, owner, red, blue].map { $0.objectID.primaryKey! }), [1, 2, 3, 4, 5])
    }

    func testAFileInCoreDatasSpellingLoadsWithRelationshipsListedOnOneSide() throws {
        try directory.write("""
            <?xml version="1.0" standalone="no"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

            <database>
                <databaseInfo>
                    <version>134481920</version>
                    <UUID>97F94BFE-2BD7-47E5-96D8-BACF3D4F2AF0</UUID>
                    <nextObjectID>110</nextObjectID>
                    <metadata>
                        <plist version="1.0">
                            <dict>
                                <key>NSPersistenceFrameworkVersion</key>
                                <integer>640</integer>
                            </dict>
                        </plist>
                    </metadata>
                </databaseInfo>
                <object type="SAMPLE" id="z102">
                    <attribute name="text" type="string">First</attribute>
                    <attribute name="flag" type="bool">1</attribute>
                    <attribute name="small" type="int16">3</attribute>
                    <attribute name="when" type="date">0.5</attribute>
                    <relationship name="owner" type="1/1" destination="OWNER" idrefs="z104"></relationship>
                </object>
                <object type="SAMPLE" id="z103">
                    <attribute name="text" type="string">Second</attribute>
                    <relationship name="owner" type="1/1" destination="OWNER" idrefs="z104"></relationship>
                </object>
                <object type="OWNER" id="z104">
                    <attribute name="name" type="string">Ada</attribute>
                </object>
            </database>
            """, to: "store.xml")
        let context = try open()
        XCTAssertEqual(context.persistentStoreCoordinator?.persistentStores.first?.identifier, "97F94BFE-2BD7-47E5-96D8-BACF3D4F2AF0")
        let owner = try XCTUnwrap(try fetch("Owner", context).first)
        let samples = (owner.value(forKey: "samples") as? OrderedSet<ManagedObject>)?.elements ?? []
        XCTAssertEqual(samples.map { $0.value(forKey: "text") as? String }, ["First", "Second"], "completed from the to-one side")
        XCTAssertEqual(samples.first?.value(forKey: "small") as? Int16, 3)
        XCTAssertEqual(samples.first?.value(forKey: "when") as? Date, Date(timeIntervalSinceReferenceDate: 0.5))
        XCTAssertEqual(samples.first?.objectID.primaryKey, 102)
        // New objects continue the file's sequence, and the file's metadata is kept.
        let added = context.insertNewObject(forEntityName: "Tag")
        added.setValue("new", forKey: "name")
        try context.save()
        XCTAssertEqual(added.objectID.primaryKey, 110)
        let text = try fileText()
        XCTAssertTrue(text.contains("<nextObjectID>111</nextObjectID>"), text)
        XCTAssertTrue(text.contains("<key>NSPersistenceFrameworkVersion</key>"), text)
    }

    func testBadFilesFailNamingTheLine() throws {
        let cases: [(String, String)] = [
            ("<database>\n<object type=\"SAMPLE\" id=\"z1\">\n</database>", "line 3"),
            ("<plist version=\"1.0\"/>", "expected <database>"),
            ("<database>\n<object type=\"NOPE\" id=\"z1\"></object>\n</database>", "line 2: object z1 has the type \"NOPE\""),
            ("<database>\n<object type=\"SAMPLE\" id=\"12\"></object>\n</database>", "line 2: an <object> has the id \"12\""),
            ("<database>\n<object type=\"SAMPLE\" id=\"z1\">\n<attribute name=\"small\" type=\"int16\">many</attribute>\n</object>\n</database>",
             "line 3: Sample.small: \"many\" is not an integer"),
            ("<database>\n<object type=\"SAMPLE\" id=\"z1\">\n<attribute name=\"small\" type=\"double\">1e300</attribute>\n</object>\n</database>",
             "line 3: Sample.small: \"1e300\" is not an integer"),
            ("<database>\n<object type=\"SAMPLE\" id=\"z1\">\n<attribute name=\"small\" type=\"int16\">70000</attribute>\n</object>\n</database>",
             "line 3: Sample.small: 70000 is out of the range of Integer 16"),
            ("<database>\n<object type=\"SAMPLE\" id=\"z1\">\n<attribute name=\"colour\" type=\"string\">red</attribute>\n</object>\n</database>",
             "line 3: Sample has no stored attribute \"colour\""),
            ("<database>\n<object type=\"SAMPLE\" id=\"z1\">\n<relationship name=\"owner\" type=\"1/1\" idrefs=\"z9\"></relationship>\n</object>\n</database>",
             "line 3: Sample.owner refers to z9, which is no object of the store"),
            ("<database>\n<object type=\"TAG\" id=\"z1\"></object>\n<object type=\"SAMPLE\" id=\"z2\">\n<relationship name=\"owner\" idrefs=\"z1\"></relationship>\n</object>\n</database>",
             "line 4: Sample.owner refers to z1, a Tag, not a Owner"),
            ("<database>\n<object type=\"TAG\" id=\"z1\"></object>\n<object type=\"TAG\" id=\"z1\"></object>\n</database>",
             "line 3: a second object has the id z1"),
        ]
        for (text, expected) in cases {
            try directory.write(text, to: "store.xml")
            let message = openingError()
            XCTAssertTrue(message.contains(storeURL.path) && message.contains(expected), "\(expected) in: \(message)")
        }
    }

    func testAnotherModelIsRefusedNamingWhatChanged() throws {
        let context = try open()
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

    func testAFailedSaveChangesNeitherTheFileNorTheStore() throws {
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
        let before = try fileText()

        // Refused by the rows: a duplicate.
        red.setValue("crimson", forKey: "colour")
        context.insertNewObject(forEntityName: "Tag").setValue("red", forKey: "name")
        XCTAssertThrowsError(try context.save())
        XCTAssertEqual(try fileText(), before)
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

    func testMetadataAndDeletionsPersistAndNumbersAreNotReused() throws {
        let context = try open()
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

        let reopened = try open()
        let reopenedStore = try XCTUnwrap(reopened.persistentStoreCoordinator?.persistentStores.first)
        XCTAssertEqual(reopenedStore.metadata["Owner"] as? String, "Ada")
        XCTAssertEqual(reopenedStore.metadata["Count"] as? Int, 3)
        XCTAssertEqual(reopenedStore.metadata["StoreType"] as? String, "XML")
        XCTAssertEqual(try fetch("Tag", reopened).map { $0.value(forKey: "name") as? String }, ["first"])
        let added = reopened.insertNewObject(forEntityName: "Tag")
        added.setValue("added", forKey: "name")
        try reopened.save()
        XCTAssertGreaterThan(try XCTUnwrap(added.objectID.primaryKey), lastNumber)
    }

    func testAnInMemoryStoreMovesIntoAnXMLFile() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let scratch = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let owner = context.insertNewObject(forEntityName: "Owner")
        owner.setValue("Ada", forKey: "name")
        let sample = context.insertNewObject(forEntityName: "Sample")
        sample.setValue("moved", forKey: "text")
        sample.setValue(owner, forKey: "owner")
        try context.save()
        _ = try coordinator.migratePersistentStore(scratch, to: storeURL, type: .xml)
        let reopened = try open()
        let read = try XCTUnwrap(try fetch("Sample", reopened, sortedBy: "text").first)
        XCTAssertEqual((read.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String, "Ada")
    }

    func testAReadOnlyStoreReadsAndRefusesSaves() throws {
        XCTAssertTrue("\(String(describing: try? open(options: [SQLiteStore.readOnlyOption: true])))" == "nil",
                      "a read-only store needs its file")
        let writer = try open()
        writer.insertNewObject(forEntityName: "Tag").setValue("red", forKey: "name")
        try writer.save()
        let reader = try open(options: [SQLiteStore.readOnlyOption: true])
        let tag = try XCTUnwrap(try fetch("Tag", reader).first)
        tag.setValue("blue", forKey: "name")
        XCTAssertThrowsError(try reader.save()) { error in
            XCTAssertTrue("\(error)".contains("read-only"), "\(error)")
        }
    }
}
