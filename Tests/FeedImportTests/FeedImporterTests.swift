// Importing XML feeds through JSON mappings into a SQLite-backed context: values converted by
// type, children from `foreach`, upserts matched by (source, key) that change nothing when a
// feed is imported again, delete rules, syntax errors with their place, records the model
// refuses, mapping and XPath errors, namespace alternatives, field alternatives, defaults and
// tables, iCalendar payloads, the date syntaxes feeds use, and telling formats apart.
import FeedImport
import Foundation
import ObjectGraph
import XCTest

final class FeedImporterTests: XCTestCase {
    // MARK: Fixtures

    /// People with ordered, cascading e-mail addresses, and events.
    static let modelXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        <entity name="Person" representedClassName="Person">
            <attribute name="source" optional="YES" attributeType="String"/>
            <attribute name="externalID" optional="YES" attributeType="String"/>
            <attribute name="name" attributeType="String"/>
            <attribute name="status" optional="YES" attributeType="String"/>
            <attribute name="birthday" optional="YES" attributeType="Date"/>
            <attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
            <relationship name="emails" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Email" inverseName="person" inverseEntity="Email"/>
        </entity>
        <entity name="Email" representedClassName="Email">
            <attribute name="address" attributeType="String"/>
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="person" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="emails" inverseEntity="Person"/>
        </entity>
        <entity name="Event" representedClassName="Event">
            <attribute name="source" optional="YES" attributeType="String"/>
            <attribute name="externalID" optional="YES" attributeType="String"/>
            <attribute name="summary" optional="YES" attributeType="String"/>
            <attribute name="start" optional="YES" attributeType="Date"/>
            <attribute name="day" optional="YES" attributeType="Date"/>
        </entity>
    </model>
    """

    /// People in `http://people.example/ns`: `<person id>` upserts, `<gone id>` deletes.
    static let peopleMapping = """
    {"name": "people", "description": "test people", "detect": ["http://people.example/ns"],
     "namespaces": {"p": "http://people.example/ns"},
     "records": [
      {"select": "p:people/p:person", "entity": "Person", "key": "@id",
       "attributes": {"name": "p:name", "birthday": {"xpath": "p:born", "type": "datetime"}, "age": {"xpath": "p:age", "type": "int"}},
       "toMany": {"emails": {"entity": "Email", "foreach": "p:email", "attributes": {"address": ".", "label": "@type"}}}},
      {"select": "p:people/p:gone", "entity": "Person", "action": "delete", "key": "@id"}
     ]}
    """

    static let peopleFeed = """
    <?xml version="1.0" encoding="UTF-8"?>
    <people xmlns="http://people.example/ns">
      <person id="p1">
        <name>Ada Lovelace</name>
        <born>2024-06-10T09:30:00+02:00</born>
        <age>36</age>
        <email type="home">ada@example.org</email>
        <email type="work">ada@work.example</email>
      </person>
      <person id="p2">
        <name>Alan Turing</name>
        <age>41</age>
      </person>
    </people>
    """

    /// Events with a start instant, a day and a summary read by plain XPaths.
    static let eventMapping = """
    {"name": "events", "namespaces": {"p": "http://people.example/ns"},
     "records": [{"select": "p:events/p:event", "entity": "Event", "key": "@id",
                  "attributes": {"summary": "p:summary", "start": {"xpath": "p:start", "type": "datetime"},
                                 "day": {"xpath": "p:day", "type": "date"}}}]}
    """

    private var folder: URL!
    private var coordinator: PersistentStoreCoordinator!
    private var context: ManagedObjectContext!
    /// Contexts made by ``freshContext()``, kept for the test's life: objects do not keep their context alive.
    private var otherContexts: [ManagedObjectContext] = []

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedimport-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let model = try ManagedObjectModel(xmlData: Data(Self.modelXML.utf8), path: "FeedImporterTests.xcdatamodel")
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("feeds.sqlite"))
        context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
    }

    override func tearDownWithError() throws {
        otherContexts = []
        context = nil
        coordinator = nil
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// The repository root (the folder holding Package.swift).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `../shared/corpus/feeds` beside the checkout.
    static let corpusFeeds = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/feeds", isDirectory: true)

    private func mapping(_ json: String) throws -> FeedMapping {
        try FeedMapping(json: Data(json.utf8), origin: "test.json")
    }

    private func importer(_ json: String, source: String = "work", timeZone: TimeZone = TimeZone(identifier: "Europe/Berlin")!,
                          skipsInvalidRecords: Bool = false) throws -> FeedImporter {
        try FeedImporter(mapping: try mapping(json), context: context,
                         options: FeedImportOptions(source: source, timeZone: timeZone, skipsInvalidRecords: skipsInvalidRecords))
    }

    @discardableResult
    private func importFeed(_ xml: String, mapping json: String = FeedImporterTests.peopleMapping, source: String = "work",
                            timeZone: TimeZone = TimeZone(identifier: "Europe/Berlin")!,
                            skipsInvalidRecords: Bool = false) throws -> FeedImportReport {
        try importer(json, source: source, timeZone: timeZone, skipsInvalidRecords: skipsInvalidRecords)
            .importFeed(Data(xml.utf8), name: "feed.xml")
    }

    private func fetch(_ entity: String, source: String? = nil, in other: ManagedObjectContext? = nil) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let source { request.predicate = try ObjectGraph.Predicate(format: "source == %@", source) }
        request.sortDescriptors = entity == "Email" ? [ObjectGraph.SortDescriptor(key: "address")]
            : [ObjectGraph.SortDescriptor(key: "externalID"), ObjectGraph.SortDescriptor(key: "source")]
        return try (other ?? context).fetch(request)
    }

    private func freshContext() -> ManagedObjectContext {
        let other = ManagedObjectContext(concurrencyType: .mainQueue)
        other.persistentStoreCoordinator = coordinator
        otherContexts.append(other)
        return other
    }

    private func date(_ iso: String) -> Date {
        ISO8601DateFormatter().date(from: iso)!
    }

    private func int(_ value: Any?) -> Int? {
        if let integer = value as? any BinaryInteger { return Int(integer) }
        return (value as? NSNumber)?.intValue
    }

    private func string(_ object: ManagedObject?, _ key: String) -> String? {
        object?.value(forKey: key) as? String
    }

    private func emails(of person: ManagedObject?) -> [ManagedObject] {
        person?.mutableSetValue(forKey: "emails").objects ?? []
    }

    /// The event mapping's single record, imported with `start`, `day` and `summary` as given.
    private func importEvent(start: String? = nil, day: String? = nil, mapping json: String = FeedImporterTests.eventMapping,
                             timeZone: TimeZone = TimeZone(identifier: "Europe/Berlin")!) throws -> ManagedObject? {
        let xml = """
        <events xmlns="http://people.example/ns"><event id="e1">\(start.map { "<start>\($0)</start>" } ?? "")\
        \(day.map { "<day>\($0)</day>" } ?? "")<summary>Meeting</summary></event></events>
        """
        try importFeed(xml, mapping: json, timeZone: timeZone)
        return try fetch("Event").first
    }

    private func feedImportError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> FeedImportError? {
        do {
            try body()
            XCTFail("expected a FeedImportError", file: file, line: line)
            return nil
        } catch let error as FeedImportError {
            return error
        } catch {
            XCTFail("expected a FeedImportError, got \(error)", file: file, line: line)
            return nil
        }
    }

    private func mappingError(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> FeedMappingError? {
        do {
            _ = try FeedMapping(json: Data(json.utf8), origin: "test.json")
            XCTFail("expected a FeedMappingError", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Importing

    func testFeedImportsRecordsAsObjectsWithConvertedValues() throws {
        let report = try importFeed(Self.peopleFeed)
        XCTAssertEqual(report.records, 2)
        XCTAssertEqual(report.inserted, 2)
        let people = try fetch("Person")
        XCTAssertEqual(people.count, 2)
        let ada = people.first
        XCTAssertEqual(string(ada, "externalID"), "p1")
        XCTAssertEqual(string(ada, "source"), "work")
        XCTAssertEqual(string(ada, "name"), "Ada Lovelace")
        XCTAssertEqual(ada?.value(forKey: "birthday") as? Date, date("2024-06-10T07:30:00Z"))
        XCTAssertEqual(int(ada?.value(forKey: "age")), 36)
        XCTAssertEqual(string(people.last, "name"), "Alan Turing")
        XCTAssertNil(people.last?.value(forKey: "birthday") as? Date)
        XCTAssertEqual(int(people.last?.value(forKey: "age")), 41)
    }

    func testToManyForeachMakesOneChildPerElementInOrder() throws {
        try importFeed(Self.peopleFeed)
        try context.save()
        let ada = try fetch("Person", in: freshContext()).first
        XCTAssertEqual(emails(of: ada).map { string($0, "address") }, ["ada@example.org", "ada@work.example"])
        XCTAssertEqual(emails(of: ada).map { string($0, "label") }, ["home", "work"])
        XCTAssertEqual(try fetch("Email").count, 2)
    }

    func testImportingTheSameFeedAgainReportsEveryRecordUnchangedAndChangesNothing() throws {
        try importFeed(Self.peopleFeed)
        try context.save()
        let report = try importFeed(Self.peopleFeed)
        XCTAssertEqual(report.records, 2)
        XCTAssertEqual(report.unchanged, 2)
        XCTAssertEqual(report.inserted, 0)
        XCTAssertEqual(report.updated, 0)
        XCTAssertFalse(context.hasChanges, "inserted \(context.insertedObjects.count), updated \(context.updatedObjects.count), deleted \(context.deletedObjects.count)")
    }

    func testChangingOneValueReportsOneUpdated() throws {
        try importFeed(Self.peopleFeed)
        try context.save()
        let report = try importFeed(Self.peopleFeed.replacingOccurrences(of: "<age>36</age>", with: "<age>37</age>"))
        XCTAssertEqual(report.updated, 1)
        XCTAssertEqual(report.unchanged, 1)
        XCTAssertEqual(report.inserted, 0)
        try context.save()
        XCTAssertEqual(int(try fetch("Person", in: freshContext()).first?.value(forKey: "age")), 37)
    }

    func testDeleteRuleDeletesTheObjectWithTheKeyFromTheSameSourceOnly() throws {
        try importFeed(Self.peopleFeed, source: "work")
        try importFeed(Self.peopleFeed, source: "home")
        try context.save()
        let report = try importFeed("""
            <people xmlns="http://people.example/ns"><gone id="p1"/></people>
            """, source: "work")
        XCTAssertEqual(report.deleted, 1)
        try context.save()
        let store = freshContext()
        XCTAssertEqual(try fetch("Person", source: "work", in: store).map { string($0, "externalID") }, ["p2"])
        XCTAssertEqual(try fetch("Person", source: "home", in: store).map { string($0, "externalID") }, ["p1", "p2"])
    }

    func testRecordsAreMatchedWithinTheirSource() throws {
        try importFeed(Self.peopleFeed, source: "work")
        try context.save()
        let report = try importFeed(Self.peopleFeed, source: "home")
        XCTAssertEqual(report.inserted, 2)
        XCTAssertEqual(report.unchanged, 0)
        try context.save()
        let people = try fetch("Person", in: freshContext())
        XCTAssertEqual(people.count, 4)
        XCTAssertEqual(people.map { "\(string($0, "source") ?? "-")/\(string($0, "externalID") ?? "-")" },
                       ["home/p1", "work/p1", "home/p2", "work/p2"])
    }

    func testImportFromCorpusEWSContactsThroughAnInlineMapping() throws {
        let json = """
        {"name": "ews-test",
         "namespaces": {"m": "http://schemas.microsoft.com/exchange/services/2006/messages",
                        "t": ["http://schemas.microsoft.com/exchange/services/2006/types", "https://schemas.microsoft.com/exchange/services/2006/types"]},
         "records": [{"select": "m:Items/t:Contact", "entity": "Person", "key": "t:ItemId/@Id",
                      "attributes": {"name": "t:DisplayName", "birthday": {"xpath": "t:Birthday", "type": "datetime"}},
                      "toMany": {"emails": {"entity": "Email", "foreach": "t:EmailAddresses/t:Entry",
                                            "attributes": {"address": ".", "label": "@Key"}}}}]}
        """
        let report = try importer(json, source: "exchange").importFeed(at: Self.corpusFeeds.appendingPathComponent("ews-getitem-contact-response.xml"))
        XCTAssertEqual(report.inserted, 2)
        try context.save()
        let people = try fetch("Person", in: freshContext())
        XCTAssertEqual(people.map { string($0, "externalID") }, ["AAAtAEA=", "AAAtAEB="])
        XCTAssertEqual(people.map { string($0, "name") }, ["Tanja Plate", "Zoë Müller"])
        XCTAssertEqual(people.last?.value(forKey: "birthday") as? Date, date("1985-02-03T11:59:00Z"))
        XCTAssertEqual(emails(of: people.first).map { string($0, "address") }, ["tplate@example.com"])
        XCTAssertEqual(emails(of: people.last).map { string($0, "address") }, ["zoe.mueller@example.com", "zoe@example.org"])
        XCTAssertEqual(emails(of: people.last).map { string($0, "label") }, ["EmailAddress1", "EmailAddress2"])
    }

    // MARK: Failures

    func testMalformedDocumentThrowsSyntaxWithLineAndColumnAndRollbackKeepsTheStore() throws {
        try importFeed(Self.peopleFeed)
        try context.save()
        // Line 5 has the mismatched end tag </nam> in columns 26-31: libxml2 finds the mismatch
        // once it has read the tag, in column 32.
        let malformed = """
        <?xml version="1.0"?>
        <people xmlns="http://people.example/ns">
          <person id="p3"><name>Grace Hopper</name></person>
          <person id="p1"><name>Ada King</name></person>
          <person id="p4"><name>X</nam></person>
        </people>
        """
        let error = feedImportError { try self.importFeed(malformed) }
        guard case let .syntax(feed, line, column, message)? = error else {
            return XCTFail("expected .syntax, got \(String(describing: error))")
        }
        XCTAssertEqual(feed, "feed.xml")
        XCTAssertEqual(line, 5, message)
        XCTAssertEqual(column, 32, message)
        XCTAssertTrue(message.contains("mismatch"), message)
        context.rollback()
        XCTAssertFalse(context.hasChanges)
        let people = try fetch("Person", in: freshContext())
        XCTAssertEqual(people.map { string($0, "externalID") }, ["p1", "p2"])
        XCTAssertEqual(people.map { string($0, "name") }, ["Ada Lovelace", "Alan Turing"])
        XCTAssertEqual(try fetch("Email", in: freshContext()).count, 2)
    }

    func testRecordTheModelRefusesThrowsInvalidRecordsNamingItsLine() throws {
        let feed = """
        <people xmlns="http://people.example/ns">
          <person id="p1"><name>Ada</name></person>
          <person id="p2"><age>41</age></person>
        </people>
        """
        let error = feedImportError { try self.importFeed(feed) }
        guard case let .invalidRecords(issues)? = error else {
            return XCTFail("expected .invalidRecords, got \(String(describing: error))")
        }
        XCTAssertEqual(issues.count, 1)
        XCTAssertEqual(issues.first?.line, 3)
        XCTAssertEqual(issues.first?.feed, "feed.xml")
        XCTAssertEqual(issues.first?.entity, "Person")
        XCTAssertEqual(issues.first?.key, "p2")
    }

    func testSkipsInvalidRecordsImportsTheOthersAndReportsTheSkippedLine() throws {
        let feed = """
        <people xmlns="http://people.example/ns">
          <person id="p1"><name>Ada</name></person>
          <person id="p2"><age>41</age></person>
          <person id="p3"><name>Grace</name></person>
        </people>
        """
        let report = try importFeed(feed, skipsInvalidRecords: true)
        XCTAssertEqual(report.inserted, 2)
        XCTAssertEqual(report.skipped.map(\.line), [3])
        XCTAssertEqual(report.skipped.first?.key, "p2")
        try context.save()
        XCTAssertEqual(try fetch("Person", in: freshContext()).map { string($0, "externalID") }, ["p1", "p3"])
    }

    func testUnknownAttributeIsAMappingErrorWithItsPath() throws {
        let json = """
        {"name": "bad", "namespaces": {"p": "http://people.example/ns"},
         "records": [{"select": "p:people/p:person", "entity": "Person", "key": "@id", "attributes": {"name": "p:name", "nope": "p:nope"}}]}
        """
        let error = feedImportError { _ = try self.importer(json) }
        guard case let .mapping(mappingError)? = error else { return XCTFail("expected .mapping, got \(String(describing: error))") }
        XCTAssertEqual(mappingError.path, "records[0].attributes.nope")
        XCTAssertEqual(mappingError.origin, "test.json")
    }

    func testUnknownJSONKeyIsAMappingErrorWithItsPath() throws {
        let error = mappingError("""
            {"name": "bad", "namespaces": {"p": "http://people.example/ns"},
             "records": [{"select": "p:people/p:person", "entity": "Person", "key": "@id", "atributes": {"name": "p:name"}}]}
            """)
        XCTAssertEqual(error?.path, "records[0].atributes")
    }

    func testPrefixNotInNamespacesIsAMappingErrorAtTheSelect() throws {
        let error = mappingError("""
            {"name": "bad", "namespaces": {"p": "http://people.example/ns"},
             "records": [{"select": "q:people/q:person", "entity": "Person", "key": "@id"}]}
            """)
        XCTAssertEqual(error?.path, "records[0].select")
        XCTAssertTrue(error?.message.contains("\"q\"") ?? false, error?.message ?? "")
    }

    func testTextThatIsNotJSONIsAMappingErrorOfTheWholeFile() throws {
        let error = mappingError("this is not { json")
        XCTAssertEqual(error?.path, "")
        XCTAssertEqual(error?.origin, "test.json")
        XCTAssertTrue(error?.message.hasPrefix("not JSON") ?? false, error?.message ?? "")
    }

    func testXPathThatDoesNotCompileIsAnXPathErrorNamingTheExpression() throws {
        let json = """
        {"name": "bad", "namespaces": {"p": "http://people.example/ns"},
         "records": [{"select": "p:people/p:person", "entity": "Person", "key": "@id", "attributes": {"name": "p:name[("}}]}
        """
        let error = feedImportError { try self.importFeed(Self.peopleFeed, mapping: json) }
        guard case let .xpath(mapping, expression, _)? = error else { return XCTFail("expected .xpath, got \(String(describing: error))") }
        XCTAssertEqual(expression, "p:name[(")
        XCTAssertEqual(mapping, "test.json")
    }

    // MARK: Namespaces and fields

    func testPrefixWithTwoURIsMatchesADocumentUsingTheSecond() throws {
        let json = """
        {"name": "alt", "namespaces": {"a": ["http://a.example/ns", "https://a.example/ns"]},
         "records": [{"select": "a:people/a:person", "entity": "Person", "key": "@id", "attributes": {"name": "a:name"}}]}
        """
        let report = try importFeed("""
            <people xmlns="https://a.example/ns"><person id="s1"><name>Secure</name></person></people>
            """, mapping: json)
        XCTAssertEqual(report.inserted, 1)
        XCTAssertEqual(try fetch("Person").map { string($0, "name") }, ["Secure"])
    }

    static let alternativesMapping = """
    {"name": "alternatives", "namespaces": {"p": "http://people.example/ns"},
     "records": [{"select": "p:people/p:person", "entity": "Person", "key": "@id",
                  "attributes": {"name": [{"xpath": "p:nick"}, {"xpath": "p:name"}],
                                 "status": [{"xpath": "p:status", "map": {"A": "active", "I": "inactive"}, "mapOnly": true},
                                            {"default": "unknown"}]}}]}
    """

    func testFirstAlternativeThatYieldsAValueWins() throws {
        try importFeed("""
            <people xmlns="http://people.example/ns">
              <person id="p1"><nick>Ada</nick><name>Ada Lovelace</name></person>
              <person id="p2"><nick>  </nick><name>Alan Turing</name></person>
            </people>
            """, mapping: Self.alternativesMapping)
        XCTAssertEqual(try fetch("Person").map { string($0, "name") }, ["Ada", "Alan Turing"])
    }

    func testDefaultGivesTheValueWhenNothingElseDoes() throws {
        try importFeed("""
            <people xmlns="http://people.example/ns"><person id="p1"><name>Ada</name></person></people>
            """, mapping: Self.alternativesMapping)
        XCTAssertEqual(string(try fetch("Person").first, "status"), "unknown")
    }

    func testMapReplacesListedValuesAndMapOnlyDropsOthers() throws {
        try importFeed("""
            <people xmlns="http://people.example/ns">
              <person id="p1"><name>Ada</name><status> A </status></person>
              <person id="p2"><name>Alan</name><status>Z</status></person>
            </people>
            """, mapping: Self.alternativesMapping)
        // Z is not in the table: mapOnly makes it no value, so the default alternative applies.
        XCTAssertEqual(try fetch("Person").map { string($0, "status") }, ["active", "unknown"])
    }

    func testMapWithoutMapOnlyKeepsUnlistedValues() throws {
        let json = """
        {"name": "map", "namespaces": {"p": "http://people.example/ns"},
         "records": [{"select": "p:people/p:person", "entity": "Person", "key": "@id",
                      "attributes": {"name": "p:name", "status": {"xpath": "p:status", "map": {"A": "active"}}}}]}
        """
        try importFeed("""
            <people xmlns="http://people.example/ns">
              <person id="p1"><name>Ada</name><status>A</status></person>
              <person id="p2"><name>Alan</name><status>Z</status></person>
            </people>
            """, mapping: json)
        XCTAssertEqual(try fetch("Person").map { string($0, "status") }, ["active", "Z"])
    }

    func testPayloadRuleReadsICalendarTextInsideAnElement() throws {
        let json = """
        {"name": "caldav-ish", "namespaces": {"p": "http://people.example/ns"},
         "records": [{"select": "p:events/p:event", "entity": "Event", "key": "@id",
                      "payload": {"xpath": "p:data", "component": "VEVENT"},
                      "attributes": {"summary": {"property": "SUMMARY"}, "start": {"property": "DTSTART", "type": "datetime"}}}]}
        """
        let report = try importFeed("""
            <events xmlns="http://people.example/ns"><event id="e1"><data>BEGIN:VCALENDAR
            VERSION:2.0
            BEGIN:VEVENT
            UID:e1@example.org
            SUMMARY:Team meeting\\, weekly
            DTSTART;TZID=Europe/Berlin:20240610T093000
            END:VEVENT
            END:VCALENDAR
            </data></event></events>
            """, mapping: json)
        XCTAssertEqual(report.inserted, 1)
        let event = try fetch("Event").first
        XCTAssertEqual(string(event, "summary"), "Team meeting, weekly")
        XCTAssertEqual(event?.value(forKey: "start") as? Date, date("2024-06-10T07:30:00Z"))
    }

    func testPayloadWithoutTheComponentDoesNotMatchTheRule() throws {
        let json = """
        {"name": "caldav-ish", "namespaces": {"p": "http://people.example/ns"},
         "records": [{"select": "p:events/p:event", "entity": "Event", "key": "@id",
                      "payload": {"xpath": "p:data", "component": "VEVENT"}, "attributes": {"summary": {"property": "SUMMARY"}}}]}
        """
        let report = try importFeed("""
            <events xmlns="http://people.example/ns"><event id="t1"><data>BEGIN:VCALENDAR
            BEGIN:VTODO
            SUMMARY:A task
            END:VTODO
            END:VCALENDAR</data></event></events>
            """, mapping: json)
        XCTAssertEqual(report.records, 0)
        XCTAssertEqual(try fetch("Event").count, 0)
    }

    // MARK: Dates

    func testBasicISO8601UTCDateTime() throws {
        let event = try importEvent(start: "20240610T093000Z")
        XCTAssertEqual(event?.value(forKey: "start") as? Date, date("2024-06-10T09:30:00Z"))
    }

    func testRFC822DateTimeWithOffset() throws {
        let event = try importEvent(start: "Mon, 10 Jun 2024 09:30:00 +0200")
        XCTAssertEqual(event?.value(forKey: "start") as? Date, date("2024-06-10T07:30:00Z"))
    }

    func testFloatingTimeIsInTheImportersTimeZone() throws {
        let event = try importEvent(start: "2024-06-10T09:30:00", timeZone: TimeZone(identifier: "America/New_York")!)
        XCTAssertEqual(event?.value(forKey: "start") as? Date, date("2024-06-10T13:30:00Z"))
    }

    func testDateTypeYieldsMidnightInTheImportersTimeZone() throws {
        let event = try importEvent(day: "2024-06-10", timeZone: TimeZone(identifier: "America/New_York")!)
        XCTAssertEqual(event?.value(forKey: "day") as? Date, date("2024-06-10T04:00:00Z"))
    }

    func testDateTypeOfAnInstantIsTheDayItFallsOnInTheImportersTimeZone() throws {
        // 23:30 UTC on the 10th is 01:30 on the 11th in Berlin.
        let event = try importEvent(day: "2024-06-10T23:30:00Z", timeZone: TimeZone(identifier: "Europe/Berlin")!)
        XCTAssertEqual(event?.value(forKey: "day") as? Date, date("2024-06-10T22:00:00Z"))
    }

    func testLenientFieldGivesNoValueForTextThatIsNotADate() throws {
        let json = """
        {"name": "lenient", "namespaces": {"p": "http://people.example/ns"},
         "records": [{"select": "p:people/p:person", "entity": "Person", "key": "@id",
                      "attributes": {"name": "p:name", "birthday": {"xpath": "p:born", "type": "date", "lenient": true}}}]}
        """
        let report = try importFeed("""
            <people xmlns="http://people.example/ns"><person id="p1"><name>Ada</name><born>--0203</born></person></people>
            """, mapping: json)
        XCTAssertEqual(report.inserted, 1)
        let ada = try fetch("Person").first
        XCTAssertEqual(string(ada, "name"), "Ada")
        XCTAssertNil(ada?.value(forKey: "birthday") as? Date)
    }

    /// `yearless` reads a day written without a year (RFC 6350's `--0203` and `--02-03`) in the
    /// year it gives; other text is read as before (a whole date; nothing, when lenient).
    func testYearlessFieldReadsADayWithoutAYearInItsYear() throws {
        let json = """
        {"name": "yearless", "namespaces": {"p": "http://people.example/ns"},
         "records": [{"select": "p:people/p:person", "entity": "Person", "key": "@id",
                      "attributes": {"name": "p:name", "birthday": {"xpath": "p:born", "type": "date", "yearless": 1604, "lenient": true}}}]}
        """
        let report = try importFeed("""
            <people xmlns="http://people.example/ns">
            <person id="p1"><name>Ada</name><born>--0203</born></person>
            <person id="p2"><name>Bo</name><born>--02-29</born></person>
            <person id="p3"><name>Cy</name><born>1990-04-12</born></person>
            <person id="p4"><name>Di</name><born>--1304</born></person>
            <person id="p5"><name>Ed</name><born>--02-30</born></person>
            <person id="p6"><name>Fe</name><born>--0-203</born></person>
            </people>
            """, mapping: json)
        XCTAssertEqual(report.inserted, 6)
        // Days are midnight in the importer's zone (Berlin).
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let birthdays = try fetch("Person").sorted { string($0, "name") ?? "" < string($1, "name") ?? "" }.map { person -> String in
            guard let day = person.value(forKey: "birthday") as? Date else { return "none" }
            let parts = berlin.dateComponents([.year, .month, .day, .hour], from: day)
            return String(format: "%04d-%02d-%02d %02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? -1)
        }
        // 1604 is a leap year: 29 February is a day of it; 13th months and 30 February are not.
        XCTAssertEqual(birthdays, ["1604-02-03 00", "1604-02-29 00", "1990-04-12 00", "none", "none", "none"])
    }

    func testYearlessOnAFieldThatIsNotADateOrWithoutAYearIsAMappingError() throws {
        for (field, message) in [(#"{"xpath": "p:name", "yearless": 1604}"#, "only a date field reads days without a year"),
                                 (#"{"xpath": "p:born", "type": "date", "yearless": "1604"}"#, "expected a year (1 to 9999)"),
                                 (#"{"xpath": "p:born", "type": "date", "yearless": 0}"#, "expected a year (1 to 9999)")] {
            let json = """
            {"name": "bad", "namespaces": {"p": "http://people.example/ns"},
             "records": [{"select": "p:people/p:person", "entity": "Person", "key": "@id", "attributes": {"birthday": \(field)}}]}
            """
            XCTAssertThrowsError(try FeedMapping(json: Data(json.utf8), origin: "x.json"), field) { error in
                XCTAssertEqual("\(error)", "x.json: records[0].attributes.birthday.yearless: \(message)")
            }
        }
    }

    func testNonLenientFieldWithTextThatIsNotADateIsAnInvalidRecord() throws {
        let error = feedImportError {
            try self.importFeed("""
                <people xmlns="http://people.example/ns"><person id="p1"><name>Ada</name><born>--0203</born></person></people>
                """)
        }
        guard case let .invalidRecords(issues)? = error else { return XCTFail("expected .invalidRecords, got \(String(describing: error))") }
        XCTAssertEqual(issues.first?.line, 1)
        XCTAssertTrue(issues.first?.message.contains("--0203") ?? false, issues.first?.message ?? "")
    }

    // MARK: Detection

    private func candidateNames(for file: String) throws -> [String] {
        let folder = Self.repositoryRoot.appendingPathComponent("Importers/feeds", isDirectory: true)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
        let mappings = try files.map { url throws -> FeedMapping in try FeedMapping(contentsOf: url) }
        XCTAssertGreaterThanOrEqual(mappings.count, 9)
        let head = try Data(contentsOf: Self.corpusFeeds.appendingPathComponent(file)).prefix(FeedMapping.detectionLength)
        return FeedMapping.candidates(forHead: Data(head), among: mappings).map(\.name)
    }

    func testAtomFeedOfXCalEventsPicksAtomXCal() throws {
        XCTAssertEqual(try candidateNames(for: "atom-xcal-embedded-events.xml"), ["atom-xcal"])
    }

    func testXCalDocumentPicksXCal() throws {
        XCTAssertEqual(try candidateNames(for: "xcal-rfc6321.xml"), ["xcal"])
    }

    func testEWSTaskResponsePicksEWS() throws {
        XCTAssertEqual(try candidateNames(for: "ews-getitem-task-response.xml"), ["ews"])
    }

    // MARK: Exchange recurrence

    /// The RRULE an EWS `t:Recurrence` element becomes (read into an event's summary).
    private func exchangeRule(_ recurrence: String) throws -> String? {
        let json = """
            {"name": "ews", "namespaces": {"t": "http://schemas.microsoft.com/exchange/services/2006/types"},
             "records": [{"select": "t:CalendarItem", "entity": "Event", "key": "@id",
                          "attributes": {"summary": {"xpath": "t:Recurrence", "type": "exchange-recurrence"}}}]}
            """
        let xml = """
            <t:Items xmlns:t="http://schemas.microsoft.com/exchange/services/2006/types">\
            <t:CalendarItem id="1"><t:Recurrence>\(recurrence)</t:Recurrence></t:CalendarItem></t:Items>
            """
        try importFeed(xml, mapping: json)
        return string(try fetch("Event").first, "summary")
    }

    func testExchangeWeeklyRecurrenceWithACountIsAnRRule() throws {
        XCTAssertEqual(try exchangeRule("""
            <t:WeeklyRecurrence><t:Interval>2</t:Interval><t:DaysOfWeek>Monday Wednesday</t:DaysOfWeek></t:WeeklyRecurrence>\
            <t:NumberedRecurrence><t:StartDate>2024-06-03+02:00</t:StartDate><t:NumberOfOccurrences>8</t:NumberOfOccurrences></t:NumberedRecurrence>
            """), "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;COUNT=8")
    }

    func testExchangeRelativeMonthlyRecurrenceUntilADateIsAnRRule() throws {
        XCTAssertEqual(try exchangeRule("""
            <t:RelativeMonthlyRecurrence><t:Interval>1</t:Interval><t:DaysOfWeek>Tuesday</t:DaysOfWeek>\
            <t:DayOfWeekIndex>Last</t:DayOfWeekIndex></t:RelativeMonthlyRecurrence>\
            <t:EndDateRecurrence><t:StartDate>2024-01-30</t:StartDate><t:EndDate>2024-12-31+01:00</t:EndDate></t:EndDateRecurrence>
            """), "FREQ=MONTHLY;BYDAY=-1TU;UNTIL=20241231")
    }

    func testExchangeYearlyRecurrencesAreRRules() throws {
        XCTAssertEqual(try exchangeRule("""
            <t:AbsoluteYearlyRecurrence><t:DayOfMonth>10</t:DayOfMonth><t:Month>December</t:Month></t:AbsoluteYearlyRecurrence>\
            <t:NoEndRecurrence><t:StartDate>2024-12-10</t:StartDate></t:NoEndRecurrence>
            """), "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=10")
    }

    func testExchangeWeekdayGroupWithAnIndexIsASetPosition() throws {
        XCTAssertEqual(try exchangeRule("""
            <t:RelativeMonthlyRecurrence><t:Interval>1</t:Interval><t:DaysOfWeek>Weekday</t:DaysOfWeek>\
            <t:DayOfWeekIndex>First</t:DayOfWeekIndex></t:RelativeMonthlyRecurrence>
            """), "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1")
    }

    func testExchangeRecurrenceWithoutAKnownPatternIsNoValue() throws {
        XCTAssertNil(try exchangeRule("<t:NoEndRecurrence><t:StartDate>2024-12-10</t:StartDate></t:NoEndRecurrence>"))
    }

    // MARK: Keys, failures, zones

    func testTwoRecordsWithOneKeyInOneFeedAreRefusedNamingTheFirstLine() throws {
        let feed = """
            <?xml version="1.0"?>
            <people xmlns="http://people.example/ns">
              <person id="p1"><name>Ada</name></person>
              <person id="p1"><name>Grace</name></person>
            </people>
            """
        XCTAssertThrowsError(try importFeed(feed)) { error in
            guard case FeedImportError.invalidRecords(let issues) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(issues.map(\.line), [4])
            XCTAssertTrue(issues[0].message.contains("line 3"), issues[0].message)
        }
    }

    func testAFailRuleFailsTheImportWithWhatTheFeedSays() throws {
        let json = """
            {"name": "people", "namespaces": {"p": "http://people.example/ns"},
             "records": [{"select": "p:people/p:error", "action": "fail", "message": "concat(@code, ': ', .)"},
                         {"select": "p:people/p:person", "entity": "Person", "key": "@id", "attributes": {"name": "p:name"}}]}
            """
        let feed = """
            <people xmlns="http://people.example/ns"><person id="p1"><name>Ada</name></person>
            <error code="E42">quota exceeded</error></people>
            """
        XCTAssertThrowsError(try importFeed(feed, mapping: json)) { error in
            guard case let FeedImportError.reported(_, line, message) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 2)
            XCTAssertEqual(message, "E42: quota exceeded")
        }
    }

    func testAnElementNoRuleTakesIsLookedInto() throws {
        let json = """
            {"name": "people", "namespaces": {"p": "http://people.example/ns"},
             "records": [{"select": "p:group", "when": "@failed = 'true'", "action": "fail", "message": "@name"},
                         {"select": "p:group/p:person", "entity": "Person", "key": "@id", "attributes": {"name": "p:name"}}]}
            """
        let feed = """
            <people xmlns="http://people.example/ns"><group name="a" failed="false"><person id="p1"><name>Ada</name></person></group></people>
            """
        XCTAssertEqual(try importFeed(feed, mapping: json).inserted, 1)
    }

    func testAPayloadsOwnTimeZoneDefinitionGivesTheInstant() throws {
        let json = """
            {"name": "cal", "namespaces": {"p": "http://people.example/ns"},
             "records": [{"select": "p:events/p:event", "entity": "Event", "key": "@id",
                          "payload": {"xpath": "p:data", "component": "VEVENT"},
                          "attributes": {"start": {"property": "DTSTART", "type": "datetime"}}}]}
            """
        func event(_ start: String) -> String {
            """
            <events xmlns="http://people.example/ns"><event id="e"><data>BEGIN:VCALENDAR
            BEGIN:VTIMEZONE
            TZID:Customized Time Zone
            BEGIN:STANDARD
            DTSTART:16010101T030000
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0100
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:16010101T020000
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0200
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
            END:DAYLIGHT
            END:VTIMEZONE
            BEGIN:VEVENT
            DTSTART;TZID=Customized Time Zone:\(start)
            END:VEVENT
            END:VCALENDAR</data></event></events>
            """
        }
        try importFeed(event("20240610T150000"), mapping: json)
        XCTAssertEqual(try fetch("Event").first?.value(forKey: "start") as? Date, date("2024-06-10T13:00:00Z"), "summer: +02:00")
        context.rollback()
        try importFeed(event("20241210T150000"), mapping: json)
        XCTAssertEqual(try fetch("Event").first?.value(forKey: "start") as? Date, date("2024-12-10T14:00:00Z"), "winter: +01:00")
    }

    func testADocumentDeclaringEntitiesIsRefusedBeforeAnyRecord() throws {
        let feed = """
            <?xml version="1.0"?>
            <!DOCTYPE people [
             <!ENTITY lol "lol">
             <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            ]>
            <people xmlns="http://people.example/ns"><person id="p1"><name>&lol1;</name></person></people>
            """
        XCTAssertThrowsError(try importFeed(feed)) { error in
            guard case let FeedImportError.syntax(_, line, _, message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("declares entities"), message)
            XCTAssertLessThanOrEqual(line, 6)
        }
        XCTAssertEqual(try fetch("Person").count, 0)
    }
}
