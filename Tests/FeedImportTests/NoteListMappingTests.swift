// The mapping language's `notelist` type (pim's task annotations from iCalendar COMMENTs and
// xCal comments), through mappings of its own: each note a line, dated by its `stamp` parameter
// when that is an instant in iCalendar's basic UTC form; line breaks and tabs inside a note as
// spaces; empty notes left out; a re-import clearing notes that are gone; and `stamp`'s errors.
import FeedImport
import Foundation
import ObjectGraph
import XCTest

final class NoteListMappingTests: XCTestCase {
    static let modelXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        <entity name="Item" representedClassName="Item">
            <attribute name="source" optional="YES" attributeType="String"/>
            <attribute name="externalID" optional="YES" attributeType="String"/>
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="notes" optional="YES" attributeType="String"/>
        </entity>
    </model>
    """

    static func calendarMapping(notes: String) -> String {
        """
        {"name": "calendar", "content": "icalendar", "detect": ["BEGIN:VCALENDAR"], "namespaces": {"c": "urn:x-objectgraph:content"},
         "records": [{"select": "c:objects/c:object", "payload": {"xpath": ".", "component": "VTODO"}, "entity": "Item", "key": "@key",
                      "attributes": {"title": {"property": "SUMMARY"}, "notes": \(notes)}}]}
        """
    }

    static func xmlMapping(notes: String) -> String {
        """
        {"name": "items", "namespaces": {"r": "http://items.example/ns"},
         "records": [{"select": "r:items/r:item", "entity": "Item", "key": "@id", "attributes": {"title": "r:title", "notes": \(notes)}}]}
        """
    }

    static let comments = #"{"property": "COMMENT", "type": "notelist", "stamp": "X-PIM-ENTRY"}"#

    private var folder: URL!
    private var context: ManagedObjectContext!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("notelist-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let model = try ManagedObjectModel(xmlData: Data(Self.modelXML.utf8), path: "NoteListMappingTests.xcdatamodel")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("notes.sqlite"))
        context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
    }

    override func tearDownWithError() throws {
        context = nil
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private func importFeed(_ text: String, mapping json: String) throws {
        let mapping = try FeedMapping(json: Data(json.utf8), origin: "test.json")
        let importer = try FeedImporter(mapping: mapping, context: context,
                                        options: FeedImportOptions(source: "test", timeZone: TimeZone(identifier: "Europe/Berlin")!))
        _ = try importer.importFeed(Data(text.utf8), name: "feed")
        try context.save()
    }

    private func notes() throws -> [String: String] {
        var found: [String: String] = [:]
        for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
            found[item.value(forKey: "title") as? String ?? ""] = item.value(forKey: "notes") as? String ?? "none"
        }
        return found
    }

    private func todo(_ uid: String, _ lines: String...) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:\(uid)\r\nSUMMARY:\(uid)\r\n" + lines.map { $0 + "\r\n" }.joined()
            + "END:VTODO\r\nEND:VCALENDAR\r\n"
    }

    private func mappingError(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try FeedMapping(json: Data(json.utf8), origin: "test.json")
            XCTFail("expected a mapping error", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testEachCommentIsALineDatedByItsStamp() throws {
        try importFeed(todo("a", "COMMENT;X-PIM-ENTRY=20261125T093000Z:called Bob\\, twice", "COMMENT:two\\nlines\tand a tab",
                            "COMMENT;X-PIM-ENTRY=2026-11-25:not the basic form", "COMMENT;X-PIM-ENTRY=20261125T0930:no zone", "COMMENT: ",
                            "comment;x-pim-entry=20261126T080000z:any case"),
                       mapping: Self.calendarMapping(notes: Self.comments))
        XCTAssertEqual(try notes(), ["a": "20261125T093000Z\tcalled Bob, twice\n\ttwo lines and a tab\n\tnot the basic form\n\tno zone\n\tany case"])
    }

    func testNotesGoneFromARecordAreClearedWhenItIsImportedAgain() throws {
        try importFeed(todo("a", "COMMENT:first"), mapping: Self.calendarMapping(notes: Self.comments))
        XCTAssertEqual(try notes(), ["a": "\tfirst"])
        try importFeed(todo("a"), mapping: Self.calendarMapping(notes: Self.comments))
        XCTAssertEqual(try notes(), ["a": "none"])
    }

    func testAnXPathNoteListHasUndatedNotes() throws {
        let feed = #"<items xmlns="http://items.example/ns"><item id="1"><title>a</title><note>one</note><note>  </note><note>two</note></item></items>"#
        try importFeed(feed, mapping: Self.xmlMapping(notes: #"{"xpath": "r:note", "type": "notelist"}"#))
        XCTAssertEqual(try notes(), ["a": "\tone\n\ttwo"])
    }

    func testAStampOutsideAPropertyNoteListIsAMappingErrorWithItsPath() throws {
        let expected = #"test.json: records[0].attributes.notes.stamp: stamp names the parameter that dates a note: give "type": "notelist" and property"#
        XCTAssertEqual(mappingError(Self.calendarMapping(notes: #"{"property": "COMMENT", "stamp": "X-PIM-ENTRY"}"#)), expected)
        XCTAssertEqual(mappingError(Self.xmlMapping(notes: #"{"xpath": "r:note", "type": "notelist", "stamp": "X-PIM-ENTRY"}"#)), expected)
    }
}
