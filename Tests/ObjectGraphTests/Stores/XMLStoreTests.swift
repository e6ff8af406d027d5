// The XML store: Core Data's file format written and read back, every attribute type and every
// kind of relationship, files in Core Data's own spelling, errors that name their line, and
// saves that change nothing when they fail. (The behaviour tests run on it too: Stack.storeTypes.)
import Foundation
import XCTest
@testable import ObjectGraph

final class XMLStoreTests: XMLStoreTestCase {
    static let model = AtomicStoreTestCase.sampleModel

    /// A context on the store with the test model.
    private func open(options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        try open(Self.model, options: options)
    }

    private func openingError() -> String {
        openingError(Self.model)
    }

    func testEveryAttributeTypeAndRelationshipReadsBackAfterReopening() throws {
        let values: [String: Any] = [
            "text": "Zoë & <friends>\n\ttab, \r carriage return, \u{1} control, trailing space ",
            "small": Int16(-7), "medium": Int32(123_456), "large": Int64.max,
            "exact": Decimal(string: "12345678901234567890.123456789")!, "real": 0.1 + 0.2, "single": Float(1.1),
            "flag": true, "when": Date(timeIntervalSinceReferenceDate: 812_345_678.123_456),
            "bytes": Data([0, 1, 2, 255]), "identifier": UUID(), "link": URL(string: "https://example.com/a?b=c&d")!,
        ]
        let (_, readEmpty) = try checkEveryAttributeTypeAndRelationshipReadBack(values, otherValues: ["text": "only text"])
        XCTAssertNil(readEmpty.value(forKey: "small"))
        XCTAssertNil(readEmpty.value(forKey: "when"))

        // Core Data's spelling: entities in capitals, names in lower case, one sequence of IDs.
        let text = try fileText()
        XCTAssertTrue(text.hasPrefix("<?xml version=\"1.0\" standalone=\"no\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"))
        XCTAssertTrue(text.contains("<object type=\"OWNER\" id=\"z"), text)
        XCTAssertTrue(text.contains("<attribute name=\"identifier\" type=\"uuid\">"), text)
        XCTAssertTrue(text.contains("type=\"0/0\" destination=\"SAMPLE\""), text)
        XCTAssertFalse(text.contains("<attribute name=\"scratch\""), "transient values are not written")
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
