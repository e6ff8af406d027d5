// The mapping language's reading of alarms, through mappings of its own (pim's are tested in
// PIMTests): `triggerlist` values in one form, `component` reading the properties of VALARMs,
// `having` with several filters, `unit` counting numbers as durations, values left out or
// refused, a re-import clearing alarms that are gone, and the mapping errors of the new keys.
import FeedImport
import Foundation
import ObjectGraph
import XCTest

final class AlarmMappingTests: XCTestCase {
    static let modelXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        <entity name="Item" representedClassName="Item">
            <attribute name="source" optional="YES" attributeType="String"/>
            <attribute name="externalID" optional="YES" attributeType="String"/>
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="alarms" optional="YES" attributeType="String"/>
        </entity>
    </model>
    """

    /// iCalendar files: each component's SUMMARY and the TRIGGERs of its VALARMs that `alarms`
    /// (a field's JSON) reads.
    static func calendarMapping(component: String = "VEVENT", alarms: String) -> String {
        """
        {"name": "calendar", "content": "icalendar", "detect": ["BEGIN:VCALENDAR"], "namespaces": {"c": "urn:x-objectgraph:content"},
         "records": [{"select": "c:objects/c:object", "payload": {"xpath": ".", "component": "\(component)"}, "entity": "Item", "key": "@key",
                      "attributes": {"title": {"property": "SUMMARY"}, "alarms": \(alarms)}}]}
        """
    }

    /// An event's alarms as pim's mapping reads them: related to the start, or at a date.
    static let eventAlarms = #"{"property": "TRIGGER", "component": "VALARM", "type": "triggerlist", "having": {"RELATED": ["START", ""]}}"#

    /// Reminders in `http://reminders.example/ns`: `<item id>` with `<reminder>` elements.
    static func reminderMapping(alarms: String) -> String {
        """
        {"name": "reminders", "namespaces": {"r": "http://reminders.example/ns"},
         "records": [{"select": "r:items/r:item", "entity": "Item", "key": "@id", "attributes": {"title": "r:title", "alarms": \(alarms)}}]}
        """
    }

    private var folder: URL!
    private var context: ManagedObjectContext!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("alarm-mapping-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let model = try ManagedObjectModel(xmlData: Data(Self.modelXML.utf8), path: "AlarmMappingTests.xcdatamodel")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("alarms.sqlite"))
        context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
    }

    override func tearDownWithError() throws {
        context = nil
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    @discardableResult
    private func importFeed(_ text: String, mapping json: String) throws -> FeedImportReport {
        let mapping = try FeedMapping(json: Data(json.utf8), origin: "test.json")
        let importer = try FeedImporter(mapping: mapping, context: context,
                                        options: FeedImportOptions(source: "test", timeZone: TimeZone(identifier: "Europe/Berlin")!))
        let report = try importer.importFeed(Data(text.utf8), name: "feed")
        try context.save()
        return report
    }

    /// Each item's alarms (`none` for nil), by title.
    private func alarms() throws -> [String: String] {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "title")]
        var found: [String: String] = [:]
        for item in try context.fetch(request) {
            found[item.value(forKey: "title") as? String ?? ""] = item.value(forKey: "alarms") as? String ?? "none"
        }
        return found
    }

    private func calendar(_ components: String...) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + components.joined() + "END:VCALENDAR\r\n"
    }

    private func event(_ uid: String, _ triggers: String...) -> String {
        "BEGIN:VEVENT\r\nUID:\(uid)\r\nSUMMARY:\(uid)\r\nDTSTART:20261201T090000Z\r\n"
            + triggers.map { "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:alarm\r\n\($0)\r\nEND:VALARM\r\n" }.joined() + "END:VEVENT\r\n"
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

    // MARK: triggerlist

    func testTriggerListWritesEachDurationInOneForm() throws {
        try importFeed(calendar(event("a", "TRIGGER:-PT900S", "TRIGGER:-P7D", "TRIGGER:+PT0S", "TRIGGER:-P1DT2H", "trigger:-pt1h30m",
                                      "TRIGGER:P0D", "TRIGGER;RELATED=START:PT10M")),
                       mapping: Self.calendarMapping(alarms: Self.eventAlarms))
        XCTAssertEqual(try alarms(), ["a": "-PT15M,-P1W,PT0S,-P1DT2H,-PT1H30M,PT10M"])
    }

    func testTriggerListGivesDatesAndTimesAsUTCWhateverZoneTheyAreWrittenIn() throws {
        try importFeed(calendar(event("a", "TRIGGER;VALUE=DATE-TIME:20261201T080000Z",
                                      "TRIGGER;VALUE=DATE-TIME;TZID=America/New_York:20261201T030000",
                                      "TRIGGER;VALUE=DATE-TIME:20261201T100000")),
                       mapping: Self.calendarMapping(alarms: Self.eventAlarms))
        // New York's 03:00 is 08:00 UTC, once; a floating time is in the import's zone (Berlin).
        XCTAssertEqual(try alarms(), ["a": "20261201T080000Z,20261201T090000Z"])
    }

    func testTriggerListReadsEachAlarmOnceInOrder() throws {
        try importFeed(calendar(event("a", "TRIGGER:-PT10M", "TRIGGER:-P1D", "TRIGGER:-PT600S", "TRIGGER:-PT10M")),
                       mapping: Self.calendarMapping(alarms: Self.eventAlarms))
        XCTAssertEqual(try alarms(), ["a": "-PT10M,-P1D"])
    }

    func testAComponentWithoutAlarmsHasNone() throws {
        try importFeed(calendar(event("a")), mapping: Self.calendarMapping(alarms: Self.eventAlarms))
        XCTAssertEqual(try alarms(), ["a": "none"])
    }

    func testATriggerThatIsNotOneRefusesTheRecordNamingIt() throws {
        XCTAssertThrowsError(try importFeed(calendar(event("a", "TRIGGER:-PT15M", "TRIGGER:soon")),
                                            mapping: Self.calendarMapping(alarms: Self.eventAlarms))) { error in
            guard case .invalidRecords(let issues)? = error as? FeedImportError else { return XCTFail("\(error)") }
            XCTAssertEqual(issues.map(\.message), [#"alarms: "soon" is not a trigger (a duration such as -PT15M, or a date and time)"#])
        }
    }

    func testALenientTriggerListLeavesOutOnlyWhatItCannotRead() throws {
        let lenient = Self.eventAlarms.replacingOccurrences(of: #""type": "triggerlist""#, with: #""type": "triggerlist", "lenient": true"#)
        try importFeed(calendar(event("a", "TRIGGER:-PT15M", "TRIGGER:soon", "TRIGGER;VALUE=DATE-TIME:20261201", "TRIGGER:-P1.5D", "TRIGGER:PT5M")),
                       mapping: Self.calendarMapping(alarms: lenient))
        // A date without a time and a fraction are no TRIGGER values either.
        XCTAssertEqual(try alarms(), ["a": "-PT15M,PT5M"])
    }

    func testImportingAgainWithoutTheAlarmsClearsThem() throws {
        let mapping = Self.calendarMapping(alarms: Self.eventAlarms)
        try importFeed(calendar(event("a", "TRIGGER:-PT15M"), event("b", "TRIGGER:-PT5M")), mapping: mapping)
        XCTAssertEqual(try alarms(), ["a": "-PT15M", "b": "-PT5M"])
        let report = try importFeed(calendar(event("a"), event("b", "TRIGGER:-PT5M", "TRIGGER:-P1D")), mapping: mapping)
        XCTAssertEqual(report.updated, 2)
        XCTAssertEqual(try alarms(), ["a": "none", "b": "-PT5M,-P1D"])
        XCTAssertEqual(try importFeed(calendar(event("a"), event("b", "TRIGGER:-PT300S", "TRIGGER:-PT24H")), mapping: mapping).updated, 1)
        XCTAssertEqual(try alarms(), ["a": "none", "b": "-PT5M,-PT24H"])
    }

    // MARK: component and having

    func testComponentReadsThePropertiesOfSubcomponentsNotTheComponentsOwn() throws {
        try importFeed(calendar("BEGIN:VEVENT\r\nUID:a\r\nSUMMARY:a\r\nDESCRIPTION:the event\r\n"
                                + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:first alarm\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n"
                                + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:second alarm\r\nTRIGGER:-PT1M\r\nEND:VALARM\r\nEND:VEVENT\r\n"),
                       mapping: Self.calendarMapping(alarms: #"{"property": "DESCRIPTION", "component": "valarm", "many": true, "separator": "; "}"#))
        XCTAssertEqual(try alarms(), ["a": "first alarm; second alarm"])
    }

    func testAnEventsAlarmsLeaveOutThoseRelatedToItsEnd() throws {
        try importFeed(calendar(event("a", "TRIGGER;RELATED=END:-PT5M", "TRIGGER;RELATED=start:-PT10M", "TRIGGER;related=End:PT0S")),
                       mapping: Self.calendarMapping(alarms: Self.eventAlarms))
        XCTAssertEqual(try alarms(), ["a": "-PT10M"])
    }

    func testHavingSeveralFiltersAdmitsWhatAnyOfThemAdmits() throws {
        let todoAlarms = #"{"property": "TRIGGER", "component": "VALARM", "type": "triggerlist", "having": [{"RELATED": "END"}, {"VALUE": "DATE-TIME"}]}"#
        let todo = "BEGIN:VTODO\r\nUID:t\r\nSUMMARY:t\r\nDUE:20261201T120000Z\r\n"
            + ["TRIGGER:-PT5M", "TRIGGER;RELATED=END:-PT15M", "TRIGGER;RELATED=START:-P1D", "TRIGGER;VALUE=DATE-TIME:20261130T080000Z",
               "TRIGGER;RELATED=END:-PT900S"].map { "BEGIN:VALARM\r\nACTION:AUDIO\r\n\($0)\r\nEND:VALARM\r\n" }.joined() + "END:VTODO\r\n"
        try importFeed(calendar(todo), mapping: Self.calendarMapping(component: "VTODO", alarms: todoAlarms))
        XCTAssertEqual(try alarms(), ["t": "-PT15M,20261130T080000Z"])
    }

    // MARK: unit

    func testAUnitCountsEachNumberAsThatDuration() throws {
        try importFeed("""
            <items xmlns="http://reminders.example/ns">
            <item id="1"><title>a</title><minutes>15</minutes><minutes>0</minutes><minutes>1440</minutes><minutes>15</minutes></item>
            <item id="2"><title>b</title></item>
            </items>
            """, mapping: Self.reminderMapping(alarms: #"{"xpath": "r:minutes", "type": "triggerlist", "unit": "-PT1M"}"#))
        XCTAssertEqual(try alarms(), ["a": "-PT15M,PT0S,-PT24H", "b": "none"])
    }

    func testAUnitByNodeNameCountsEachAttributeInItsOwnAndReadsOthersAsTriggers() throws {
        let field = #"""
            {"xpath": "r:reminder/@*[local-name() != 'method']", "type": "triggerlist",
             "unit": {"minutes": "-PT1M", "hours": "-PT1H", "days": "-P1D"}}
            """#
        try importFeed("""
            <items xmlns="http://reminders.example/ns"><item id="1"><title>a</title>
            <reminder minutes="10" method="alert"/><reminder minutes="10" method="email"/><reminder hours="2" method="sms"/>
            <reminder days="7"/><reminder absoluteTime="2026-12-01T09:00:00.000+01:00"/>
            </item></items>
            """, mapping: Self.reminderMapping(alarms: field))
        XCTAssertEqual(try alarms(), ["a": "-PT10M,-PT2H,-P1W,20261201T080000Z"])
    }

    func testANumberThatIsNotWholeIsNoCountOfAUnit() throws {
        XCTAssertThrowsError(try importFeed("""
            <items xmlns="http://reminders.example/ns"><item id="1"><title>a</title><minutes>1.5</minutes></item></items>
            """, mapping: Self.reminderMapping(alarms: #"{"xpath": "r:minutes", "type": "triggerlist", "unit": "-PT1M"}"#))) { error in
            guard case .invalidRecords(let issues)? = error as? FeedImportError else { return XCTFail("\(error)") }
            XCTAssertEqual(issues.map(\.message), [#"alarms: "1.5" is not a whole number"#])
        }
    }

    // MARK: Mapping errors

    func testAUnitOfAFieldThatIsNoTriggerListIsAMappingErrorWithItsPath() throws {
        XCTAssertEqual(mappingError(Self.reminderMapping(alarms: #"{"xpath": "r:minutes", "unit": "-PT1M"}"#)),
                       #"test.json: records[0].attributes.alarms.unit: unit reads numbers as durations: give "type": "triggerlist""#)
    }

    func testAUnitThatIsNoDurationIsAMappingErrorWithItsPath() throws {
        XCTAssertEqual(mappingError(Self.reminderMapping(alarms: #"{"xpath": "r:minutes", "type": "triggerlist", "unit": "minutes"}"#)),
                       #"test.json: records[0].attributes.alarms.unit: "minutes" is not a duration (-PT1M, PT1H, P1D)"#)
        XCTAssertEqual(mappingError(Self.reminderMapping(alarms: #"{"xpath": "@*", "type": "triggerlist", "unit": {"hours": "-1H"}}"#)),
                       #"test.json: records[0].attributes.alarms.unit.hours: "-1H" is not a duration (-PT1M, PT1H, P1D)"#)
        XCTAssertEqual(mappingError(Self.reminderMapping(alarms: #"{"xpath": "@*", "type": "triggerlist", "unit": {}}"#)),
                       "test.json: records[0].attributes.alarms.unit: expected a duration, or node names with theirs")
    }

    func testAComponentOfAnXPathOrOfAChildsOwnPropertyIsAMappingErrorWithItsPath() throws {
        let message = #"component reads a property of the payload's subcomponents: give property (not ".")"#
        XCTAssertEqual(mappingError(Self.reminderMapping(alarms: #"{"xpath": "r:minutes", "component": "VALARM"}"#)),
                       "test.json: records[0].attributes.alarms.component: \(message)")
        XCTAssertEqual(mappingError(Self.calendarMapping(alarms: #"{"property": ".", "component": "VALARM"}"#)),
                       "test.json: records[0].attributes.alarms.component: \(message)")
    }

    func testAFilterOfHavingThatIsNoObjectIsAMappingErrorWithItsPath() throws {
        XCTAssertEqual(mappingError(Self.calendarMapping(alarms: #"{"property": "TRIGGER", "having": [{"RELATED": "END"}, "VALUE"]}"#)),
                       "test.json: records[0].attributes.alarms.having[1]: expected an object")
        XCTAssertEqual(mappingError(Self.calendarMapping(alarms: #"{"property": "TRIGGER", "having": [{"RELATED": "END"}, {"VALUE": 1}]}"#)),
                       #"test.json: records[0].attributes.alarms.having[1].VALUE: expected a parameter value, or a list of them ("" for none)"#)
        XCTAssertEqual(mappingError(Self.calendarMapping(alarms: #"{"property": "TRIGGER", "having": []}"#)),
                       "test.json: records[0].attributes.alarms.having: expected a filter (an object), or a list of them")
    }

    func testAMisspeltKeyOfATriggerListIsAMappingErrorListingTheNewKeys() throws {
        let error = mappingError(Self.calendarMapping(alarms: #"{"property": "TRIGGER", "components": "VALARM", "type": "triggerlist"}"#))
        XCTAssertTrue(error.hasPrefix("test.json: records[0].attributes.alarms.components: unknown key (expected one of after, component, "), error)
        XCTAssertTrue(error.contains(", unit, without, xpath, yearless)"), error)
    }

    // MARK: without

    func testWithoutLeavesOutTheSubcomponentsWithThatPropertyValue() throws {
        let none = "BEGIN:VEVENT\r\nUID:b\r\nSUMMARY:b\r\nDTSTART:20261201T090000Z\r\n"
            + "BEGIN:VALARM\r\nACTION:none\r\nTRIGGER;VALUE=DATE-TIME:19760401T005545Z\r\nEND:VALARM\r\n"
            + "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n"
        let mapping = #"{"property": "TRIGGER", "component": "VALARM", "without": {"ACTION": ["NONE", "X-SILENT"]}, "type": "triggerlist"}"#
        try importFeed(calendar(event("a", "TRIGGER:-PT15M"), none), mapping: Self.calendarMapping(alarms: mapping))
        XCTAssertEqual(try alarms(), ["a": "-PT15M", "b": "-PT5M"], "Apple's ACTION:NONE placeholder (any case) is no alarm")
    }

    func testWithoutNeedsAComponentAndValues() {
        XCTAssertEqual(mappingError(Self.calendarMapping(alarms: #"{"property": "TRIGGER", "without": {"ACTION": "NONE"}}"#)),
                       "test.json: records[0].attributes.alarms.without: without leaves out subcomponents: give component")
        XCTAssertEqual(mappingError(Self.calendarMapping(alarms: #"{"property": "TRIGGER", "component": "VALARM", "without": {"ACTION": [1]}}"#)),
                       "test.json: records[0].attributes.alarms.without.ACTION: expected a property value, or a list of them")
    }
}
