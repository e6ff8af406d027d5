// Importing vCard and iCalendar files (text, not XML) through mappings whose `content` key names
// the format: one record per card and per UID, keys from UID (or the fallbacks), refused records
// and malformed files named by their line in the file, detection by the BEGIN line.
import FeedImport
import Foundation
import ObjectGraph
import XCTest

final class ContentFileTests: XCTestCase {
    /// Cards and events, each with a source and key.
    static let modelXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        <entity name="Card" representedClassName="Card">
            <attribute name="source" optional="YES" attributeType="String"/>
            <attribute name="externalID" optional="YES" attributeType="String"/>
            <attribute name="name" attributeType="String" minValueString="1"/>
            <attribute name="note" optional="YES" attributeType="String"/>
            <attribute name="identity" optional="YES" attributeType="UUID"/>
        </entity>
        <entity name="Item" representedClassName="Item">
            <attribute name="source" optional="YES" attributeType="String"/>
            <attribute name="externalID" optional="YES" attributeType="String"/>
            <attribute name="summary" optional="YES" attributeType="String"/>
            <attribute name="start" optional="YES" attributeType="Date"/>
            <attribute name="instances" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
        </entity>
    </model>
    """

    static let cardMapping = """
    {"name": "cards", "content": "vcard", "detect": ["BEGIN:VCARD"], "namespaces": {"c": "urn:x-objectgraph:content"},
     "records": [{"select": "c:objects/c:object", "payload": {"xpath": ".", "component": "VCARD"}, "entity": "Card", "key": "@key",
                  "attributes": {"name": {"property": "FN"}, "note": {"property": "NOTE"}}}]}
    """

    /// Each event's summary and start; how many VEVENTs its object holds (the series and its
    /// changed occurrences) counted by an XPath on the object's text.
    static let eventMapping = """
    {"name": "events", "content": "icalendar", "detect": ["BEGIN:VCALENDAR"], "namespaces": {"c": "urn:x-objectgraph:content"},
     "records": [{"select": "c:objects/c:object", "payload": {"xpath": ".", "component": "VEVENT"}, "entity": "Item", "key": "@key",
                  "attributes": {"summary": {"property": "SUMMARY"}, "start": {"property": "DTSTART", "type": "datetime"},
                                 "instances": {"xpath": "string-length(.) - string-length(translate(., 'Ʌ', ''))", "type": "int"}}}]}
    """

    private var folder: URL!
    private var context: ManagedObjectContext!
    private var coordinator: PersistentStoreCoordinator!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("contentfile-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let model = try ManagedObjectModel(xmlData: Data(Self.modelXML.utf8), path: "ContentFileTests.xcdatamodel")
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("cards.sqlite"))
        context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
    }

    override func tearDownWithError() throws {
        context = nil
        coordinator = nil
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    @discardableResult
    private func importText(_ text: String, mapping json: String = ContentFileTests.cardMapping, skipsInvalid: Bool = false,
                            identityAttribute: String? = nil) throws -> FeedImportReport {
        let importer = try FeedImporter(mapping: try FeedMapping(json: Data(json.utf8), origin: "test.json"), context: context,
                                        options: FeedImportOptions(source: "file", timeZone: TimeZone(identifier: "Europe/Berlin")!,
                                                                   skipsInvalidRecords: skipsInvalid, identityAttribute: identityAttribute))
        let file = folder.appendingPathComponent("contacts.vcf")
        try Data(text.utf8).write(to: file)
        return try importer.importFeed(at: file)
    }

    private func objects(_ entity: String) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "externalID")]
        return try context.fetch(request)
    }

    // MARK: vCard

    func testEachCardIsARecordKeyedByItsUID() throws {
        let report = try importText("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a-1\r\nFN:Ann\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nUID:b-2\r\nFN:Bob\r\nEND:VCARD\r\n")
        XCTAssertEqual(report.inserted, 2)
        XCTAssertEqual(try objects("Card").map { $0.value(forKey: "externalID") as? String }, ["a-1", "b-2"])
        XCTAssertEqual(try objects("Card").map { $0.value(forKey: "name") as? String }, ["Ann", "Bob"])
    }

    func testFoldedEscapedAndLFOnlyLinesAreReadAsOneValue() throws {
        try importText("\u{FEFF}BEGIN:VCARD\nVERSION:3.0\nUID:a\nFN:Ann\nNOTE:first\\nsecond\\, with ünï\n cödé folded\nEND:VCARD\n")
        XCTAssertEqual(try objects("Card").first?.value(forKey: "note") as? String, "first\nsecond, with ünïcödé folded")
    }

    func testACardWithoutUIDIsKeyedByNameOrganizationAndEmailSoItIsFoundAgain() throws {
        let text = "BEGIN:VCARD\nVERSION:3.0\nFN:Ann\nORG:Acme;Lab\nEMAIL;TYPE=work:ann@acme.example\nEND:VCARD\n"
        try importText(text)
        XCTAssertEqual(try objects("Card").first?.value(forKey: "externalID") as? String, "Ann|Acme|ann@acme.example")
        try context.save()
        let again = try importText(text)
        XCTAssertEqual(again.unchanged, 1)
        XCTAssertEqual(again.inserted, 0)
    }

    func testARefusedCardIsNamedByItsLineInTheFile() throws {
        let text = "BEGIN:VCARD\nVERSION:3.0\nUID:a\nFN:Ann\nEND:VCARD\n\n\nBEGIN:VCARD\nVERSION:3.0\nUID:b\nFN:\nEND:VCARD\n"
        XCTAssertThrowsError(try importText(text)) { error in
            guard case FeedImportError.invalidRecords(let issues)? = error as? FeedImportError else { return XCTFail("\(error)") }
            XCTAssertEqual(issues.map(\.line), [8])
            XCTAssertTrue("\(issues[0])".contains("contacts.vcf:8"), "\(issues[0])")
        }
    }

    func testComponentsThatDoNotNestAreASyntaxErrorAtTheirLine() throws {
        let cases: [(String, Int, String)] = [
            ("BEGIN:VCARD\nFN:Ann\nEND:VEVENT\n", 3, "END:VEVENT closes BEGIN:VCARD of line 1"),
            ("BEGIN:VCARD\nFN:Ann\nEND:VCARD\nBEGIN:VCARD\nFN:Bob\n", 4, "BEGIN:VCARD is never ended"),
            ("BEGIN:VCARD\nFN:Ann\nEND:VCARD\nFN:Bob\n", 4, "expected BEGIN:VCARD"),
        ]
        for (text, line, message) in cases {
            XCTAssertThrowsError(try importText(text), text) { error in
                guard case FeedImportError.syntax(_, let reported, _, let said)? = error as? FeedImportError else { return XCTFail("\(error)") }
                XCTAssertEqual(reported, line, text)
                XCTAssertTrue(said.contains(message), said)
            }
        }
        XCTAssertEqual(try objects("Card").count, 0)
    }

    func testTextThatIsNotUTF8IsRefused() throws {
        let importer = try FeedImporter(mapping: try FeedMapping(json: Data(Self.cardMapping.utf8), origin: "test.json"), context: context,
                                        options: FeedImportOptions(source: "file"))
        XCTAssertThrowsError(try importer.importFeed(Data([0x42, 0x45, 0x47, 0x49, 0x4E, 0x3A, 0xFF, 0xFE]), name: "latin.vcf")) { error in
            XCTAssertTrue("\(error)".contains("not UTF-8"), "\(error)")
        }
    }

    func testMarkupInAValueIsTextNotXML() throws {
        try importText("BEGIN:VCARD\nUID:x\nFN:<b>Ann</b> & \"Bob\" ]]>\nEND:VCARD\n")
        XCTAssertEqual(try objects("Card").first?.value(forKey: "name") as? String, "<b>Ann</b> & \"Bob\" ]]>")
    }

    func testAKeyThatIsAUUIDFindsTheObjectOfThatIdentityOrBecomesANewOnesIdentity() throws {
        let own = context.insertNewObject(forEntityName: "Card")
        own.setValue("Ann", forKey: "name")
        own.setValue(UUID(uuidString: "4FBE8971-0BC3-424C-9C26-36C3E1EFF6B1"), forKey: "identity")
        try context.save()
        let report = try importText("""
            BEGIN:VCARD\nUID:urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1\nFN:Ann Changed\nEND:VCARD
            BEGIN:VCARD\nUID:0d4bc7a8-8a8e-4d0a-9d57-0e4f7e1d2a10\nFN:Bob\nEND:VCARD
            BEGIN:VCARD\nUID:not-a-uuid\nFN:Carl\nEND:VCARD
            """, identityAttribute: "identity")
        XCTAssertEqual(report.updated, 1)
        XCTAssertEqual(report.inserted, 2)
        XCTAssertEqual(own.value(forKey: "name") as? String, "Ann Changed")
        XCTAssertNil(own.value(forKey: "source"), "the object found by identity stays the store's own")
        let byName = Dictionary(uniqueKeysWithValues: try objects("Card").map { ($0.value(forKey: "name") as? String ?? "", $0) })
        XCTAssertEqual(byName["Bob"]?.value(forKey: "identity") as? UUID, UUID(uuidString: "0d4bc7a8-8a8e-4d0a-9d57-0e4f7e1d2a10"))
        XCTAssertNil(byName["Carl"]?.value(forKey: "identity") as? UUID)
    }

    func testWithoutAnIdentityAttributeAUUIDKeyIsAKeyLikeAnyOther() throws {
        let own = context.insertNewObject(forEntityName: "Card")
        own.setValue("Ann", forKey: "name")
        own.setValue(UUID(uuidString: "4FBE8971-0BC3-424C-9C26-36C3E1EFF6B1"), forKey: "identity")
        try context.save()
        XCTAssertEqual(try importText("BEGIN:VCARD\nUID:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1\nFN:Other Ann\nEND:VCARD\n").inserted, 1)
        XCTAssertEqual(own.value(forKey: "name") as? String, "Ann")
    }

    // MARK: iCalendar

    func testAnEventsChangedOccurrencesJoinItsSeriesAcrossTheFile() throws {
        let text = """
        BEGIN:VCALENDAR
        VERSION:2.0
        BEGIN:VEVENT
        UID:series
        SUMMARY:Ʌ Standup
        DTSTART:20261201T083000Z
        RRULE:FREQ=DAILY
        END:VEVENT
        BEGIN:VEVENT
        UID:other
        SUMMARY:Ʌ Lunch
        DTSTART:20261202T110000Z
        END:VEVENT
        BEGIN:VEVENT
        UID:series
        RECURRENCE-ID:20261203T083000Z
        SUMMARY:Ʌ Standup moved
        DTSTART:20261203T100000Z
        END:VEVENT
        END:VCALENDAR
        """
        let report = try importText(text, mapping: Self.eventMapping)
        XCTAssertEqual(report.inserted, 2)
        let items = try objects("Item")
        XCTAssertEqual(items.map { $0.value(forKey: "externalID") as? String }, ["other", "series"])
        // The series is read from its own VEVENT, not from the changed occurrence.
        XCTAssertEqual(items.last?.value(forKey: "summary") as? String, "Ʌ Standup")
        XCTAssertEqual(items.map { $0.value(forKey: "instances") as? Int16 }, [1, 2])
    }

    func testAZoneDefinedInTheFileGivesTheInstantOfTheEventsNamingIt() throws {
        let text = """
        BEGIN:VCALENDAR
        VERSION:2.0
        BEGIN:VTIMEZONE
        TZID:Custom Plus Five
        BEGIN:STANDARD
        DTSTART:19700101T000000
        TZOFFSETFROM:+0500
        TZOFFSETTO:+0500
        END:STANDARD
        END:VTIMEZONE
        BEGIN:VEVENT
        UID:e1
        SUMMARY:Call
        DTSTART;TZID=Custom Plus Five:20261201T100000
        END:VEVENT
        END:VCALENDAR
        """
        try importText(text, mapping: Self.eventMapping)
        XCTAssertEqual(try objects("Item").first?.value(forKey: "start") as? Date, ISO8601DateFormatter().date(from: "2026-12-01T05:00:00Z"))
    }

    func testSeveralCalendarsInOneFileAreAllRead() throws {
        let one = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nSUMMARY:A\nDTSTART:20261201T080000Z\nEND:VEVENT\nEND:VCALENDAR\n"
        let two = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:b\nSUMMARY:B\nDTSTART:20261202T080000Z\nEND:VEVENT\nEND:VCALENDAR\n"
        XCTAssertEqual(try importText(one + "\n" + two, mapping: Self.eventMapping).inserted, 2)
    }

    // MARK: Detection

    func testAContentMappingMatchesOnlyTextStartingWithItsBeginLine() throws {
        let cards = try FeedMapping(json: Data(Self.cardMapping.utf8), origin: "cards.json")
        XCTAssertTrue(cards.matches(head: Data("\u{FEFF}\r\nbegin:vcard\r\nVERSION:4.0\r\n".utf8)))
        // A CardDAV answer holds vCards, but is XML.
        XCTAssertFalse(cards.matches(head: Data("<?xml version=\"1.0\"?><d:multistatus xmlns:d=\"DAV:\">BEGIN:VCARD".utf8)))
        let dav = try FeedMapping(json: Data(#"{"name": "dav", "detect": ["DAV:"], "records": [{"select": "a", "action": "ignore", "entity": "Card"}]}"#.utf8),
                                  origin: "dav.json")
        XCTAssertFalse(dav.matches(head: Data("BEGIN:VCARD\nNOTE:see DAV: docs\nEND:VCARD\n".utf8)))
    }

    func testAnUnknownContentFormatIsAMappingError() throws {
        XCTAssertThrowsError(try FeedMapping(json: Data(#"{"name": "x", "content": "csv", "records": [{"select": "a", "action": "ignore", "entity": "Card"}]}"#.utf8),
                                             origin: "x.json")) { error in
            XCTAssertEqual("\(error)", "x.json: content: expected vcard or icalendar, not \"csv\"")
        }
    }

    /// `having` reads only the properties whose parameter has one of the values (`""`: none):
    /// here the NOTE without TYPE or of TYPE work, in any case, not the home one before them.
    func testHavingReadsOnlyPropertiesWithTheParameterValuesGiven() throws {
        let mapping = Self.cardMapping.replacingOccurrences(of: #""note": {"property": "NOTE"}"#,
                                                            with: #""note": {"property": "NOTE", "having": {"type": ["WORK", ""]}}"#)
        XCTAssertNotEqual(mapping, Self.cardMapping)
        try importText("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a\r\nFN:Ann\r\nNOTE;TYPE=home:private\r\nNOTE;type=Work:desk 4\r\nEND:VCARD\r\n"
                       + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:b\r\nFN:Bo\r\nNOTE;TYPE=home:private\r\nNOTE:plain\r\nEND:VCARD\r\n"
                       + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:c\r\nFN:Cy\r\nNOTE;TYPE=home:private\r\nEND:VCARD\r\n", mapping: mapping)
        XCTAssertEqual(try objects("Card").map { $0.value(forKey: "note") as? String ?? "none" }, ["desk 4", "plain", "none"])
    }

    func testHavingOnAnXPathOrWithoutValuesIsAMappingErrorWithItsPath() throws {
        let onXPath = Self.cardMapping.replacingOccurrences(of: #""note": {"property": "NOTE"}"#, with: #""note": {"xpath": ".", "having": {"TYPE": "work"}}"#)
        XCTAssertThrowsError(try FeedMapping(json: Data(onXPath.utf8), origin: "x.json")) { error in
            XCTAssertEqual("\(error)", "x.json: records[0].attributes.note.having: having filters payload properties: give property")
        }
        let empty = Self.cardMapping.replacingOccurrences(of: #""note": {"property": "NOTE"}"#, with: #""note": {"property": "NOTE", "having": {"TYPE": []}}"#)
        XCTAssertThrowsError(try FeedMapping(json: Data(empty.utf8), origin: "x.json")) { error in
            XCTAssertEqual("\(error)", #"x.json: records[0].attributes.note.having.TYPE: expected a parameter value, or a list of them ("" for none)"#)
        }
    }
}
