// External record files (talk 001's Spotlight integration): a file per object of an entity with
// properties marked "Index in Spotlight" or "Store in External Record File", written after each
// save, rewritten when the object (or an object its record shows) changes, deleted with it, and
// mapped back to the object from its path. Real files, real SQLite, XML and binary stores.
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import ObjectGraph

final class ExternalRecordsTests: XCTestCase {
    static let modelXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Contact" representedClassName="Contact" isAbstract="YES">
                <attribute name="name" attributeType="String" spotlightIndexingEnabled="YES">
                    <userInfo><entry key="externalRecordField" value="title"/></userInfo>
                </attribute>
                <attribute name="notes" attributeType="String" optional="YES" storedInTruthFile="YES"/>
                <attribute name="secret" attributeType="String" optional="YES"/>
                <relationship name="emails" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Email" inverseName="contact" inverseEntity="Email" spotlightIndexingEnabled="YES">
                    <userInfo><entry key="externalRecordField" value="email"/></userInfo>
                </relationship>
                <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="assignee" inverseEntity="Task"/>
            </entity>
            <entity name="Person" representedClassName="Person" parentEntity="Contact">
                <attribute name="birthday" attributeType="Date" optional="YES" spotlightIndexingEnabled="YES"/>
                <attribute name="age" attributeType="Integer 16" optional="YES" usesScalarValueType="YES" spotlightIndexingEnabled="YES"/>
            </entity>
            <entity name="Email" representedClassName="Email">
                <attribute name="address" attributeType="String" spotlightIndexingEnabled="YES"/>
                <relationship name="contact" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Contact" inverseName="emails" inverseEntity="Contact"/>
            </entity>
            <entity name="Task" representedClassName="Task">
                <attribute name="title" attributeType="String" spotlightIndexingEnabled="YES"/>
                <attribute name="done" attributeType="Boolean" optional="YES" usesScalarValueType="YES" spotlightIndexingEnabled="YES"/>
                <relationship name="assignee" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Contact" inverseName="tasks" inverseEntity="Contact" spotlightIndexingEnabled="YES"/>
            </entity>
            <entity name="Setting" representedClassName="Setting">
                <attribute name="key" attributeType="String"/>
            </entity>
        </model>
        """

    private var directory: TemporaryDirectory!
    private var recordsURL: URL { directory.url.appendingPathComponent("records", isDirectory: true) }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(xmlData: Data(Self.modelXML.utf8), path: "Records.xcdatamodel")
    }

    private func options(format: String = XHTMLExternalRecordType,
                         extensions: any Sendable = ["Contact": "contact", "Task": "task"]) -> [String: any Sendable] {
        [NSExternalRecordsDirectoryOption: recordsURL.path, NSExternalRecordExtensionOption: extensions,
         NSExternalRecordsFileFormatOption: format]
    }

    private func open(_ type: StoreType = .sqlite, name: String = "store", options: [String: any Sendable]? = nil,
                      model: ManagedObjectModel? = nil) throws -> (ManagedObjectContext, any PersistentStore) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model ?? self.model())
        let store = try coordinator.addPersistentStore(type: type, at: directory.url.appendingPathComponent(name),
                                                       options: options ?? self.options())
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }

    private func recordURL(of object: ManagedObject, store: any PersistentStore, extension ext: String) -> URL {
        recordsURL.appendingPathComponent(store.identifier).appendingPathComponent(object.objectID.entity.name)
            .appendingPathComponent("p\(object.objectID.primaryKey!).\(ext)")
    }

    private func text(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    private func insertPerson(_ context: ManagedObjectContext, name: String, emails: [String] = []) -> ManagedObject {
        let person = context.insertNewObject(forEntityName: "Person")
        person.setValue(name, forKey: "name")
        person.setValue(emails.map { address in
            let email = context.insertNewObject(forEntityName: "Email")
            email.setValue(address, forKey: "address")
            return email
        }, forKey: "emails")
        return person
    }

    // MARK: Writing

    func testSaveWritesAnXHTMLRecordWithTheMarkedPropertiesOnly() throws {
        let (context, store) = try open()
        let ada = insertPerson(context, name: "Ada <Lovelace> & Co", emails: ["ada@example.com", "countess@example.org"])
        ada.setValue("Analytical engine", forKey: "notes")
        ada.setValue("never written", forKey: "secret")
        ada.setValue(Date(timeIntervalSince1970: 1_234_567_890), forKey: "birthday")
        ada.setValue(Int16(36), forKey: "age")
        try context.save()

        let page = try text(recordURL(of: ada, store: store, extension: "contact"))
        XCTAssertTrue(page.contains("<title>Ada &lt;Lovelace&gt; &amp; Co</title>"), page)
        XCTAssertTrue(page.contains("<meta name=\"objecturi\" content=\"\(ada.objectID.uriRepresentation.absoluteString)\"/>"), page)
        XCTAssertTrue(page.contains("<meta name=\"entity\" content=\"Person\"/>"), page)
        XCTAssertTrue(page.contains("<meta name=\"email\" content=\"ada@example.com, countess@example.org\"/>"), page)
        XCTAssertTrue(page.contains("<meta name=\"notes\" content=\"Analytical engine\"/>"), page)
        XCTAssertTrue(page.contains("<meta name=\"birthday\" content=\"20090213233130\"/>"), page)
        XCTAssertTrue(page.contains("<meta name=\"age\" content=\"36\"/>"), page)
        XCTAssertFalse(page.contains("never written"), "an unmarked property stays out of the record")
        XCTAssertTrue(XMLParser(data: Data(page.utf8)).parse(), "the record is well-formed XML")
    }

    func testEntitiesWithoutMarkedPropertiesOrExtensionHaveNoFiles() throws {
        let (context, store) = try open()
        let setting = context.insertNewObject(forEntityName: "Setting")
        setting.setValue("theme", forKey: "key")
        let email = context.insertNewObject(forEntityName: "Email")
        email.setValue("loose@example.com", forKey: "address")
        try context.save()
        let storeFolder = recordsURL.appendingPathComponent(store.identifier)
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeFolder.path),
                       "Setting has no marked property; Email has no extension in the dictionary")
    }

    func testOneExtensionForEveryEntityRecordsEachEntityWithMarkedProperties() throws {
        let (context, store) = try open(options: options(extensions: "rec"))
        let email = context.insertNewObject(forEntityName: "Email")
        email.setValue("loose@example.com", forKey: "address")
        let setting = context.insertNewObject(forEntityName: "Setting")
        setting.setValue("theme", forKey: "key")
        try context.save()
        XCTAssertTrue(FileManager.default.fileExists(atPath: recordURL(of: email, store: store, extension: "rec").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: recordsURL.appendingPathComponent(store.identifier)
            .appendingPathComponent("Setting").path))
    }

    func testUpdateRewritesTheRecordAndDeleteRemovesIt() throws {
        let (context, store) = try open()
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue("Write the report", forKey: "title")
        try context.save()
        let url = recordURL(of: task, store: store, extension: "task")
        XCTAssertTrue(try text(url).contains("<title>Write the report</title>"))

        task.setValue("Send the report", forKey: "title")
        task.setValue(true, forKey: "done")
        try context.save()
        let page = try text(url)
        XCTAssertTrue(page.contains("<title>Send the report</title>"), page)
        XCTAssertTrue(page.contains("<meta name=\"done\" content=\"true\"/>"), page)
        XCTAssertFalse(page.contains("Write the report"))

        context.delete(task)
        try context.save()
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        XCTAssertEqual(leftovers, [], "no temporary file is left beside the records")
    }

    func testChangingARelatedObjectRewritesTheRecordsThatShowIt() throws {
        let (context, store) = try open()
        let ada = insertPerson(context, name: "Ada", emails: ["ada@example.com"])
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue("Review", forKey: "title")
        task.setValue(ada, forKey: "assignee")
        try context.save()
        let taskURL = recordURL(of: task, store: store, extension: "task")
        let adaURL = recordURL(of: ada, store: store, extension: "contact")
        XCTAssertTrue(try text(taskURL).contains("<meta name=\"assignee\" content=\"Ada\"/>"), "the assignee shows by her marked attributes")

        // Only the email changes: the contact is not saved, but its record shows the address.
        let email = try XCTUnwrap((ada.value(forKey: "emails") as? OrderedSet<ManagedObject>)?.first)
        email.setValue("lovelace@example.com", forKey: "address")
        try context.save()
        XCTAssertTrue(try text(adaURL).contains("content=\"lovelace@example.com\""))

        // Only the contact's name changes: the task's record shows the new name.
        ada.setValue("Ada King", forKey: "name")
        try context.save()
        XCTAssertTrue(try text(taskURL).contains("<meta name=\"assignee\" content=\"Ada King\"/>"))

        // Deleting the contact nullifies the assignee: the task's record no longer names her.
        context.delete(ada)
        try context.save()
        XCTAssertFalse(FileManager.default.fileExists(atPath: adaURL.path))
        XCTAssertFalse(try text(taskURL).contains("Ada King"))
    }

    func testUnchangedRecordIsNotRewritten() throws {
        let (context, store) = try open()
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue("Same", forKey: "title")
        let ada = insertPerson(context, name: "Ada")
        try context.save()
        let url = recordURL(of: task, store: store, extension: "task")
        let before = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int

        ada.setValue("unrelated note", forKey: "secret")
        task.setValue("Same", forKey: "title")
        try context.save()
        let after = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int
        XCTAssertEqual(before, after, "a rename would give the file a new inode: the same contents are left alone")
    }

    func testPropertyListFormatsHoldTheValuesAndTheObjectsKeys() throws {
        for format in [NSXMLExternalRecordType, NSBinaryExternalRecordType] {
            let (context, store) = try open(name: "store-\(format)", options: options(format: format))
            let ada = insertPerson(context, name: "Ada", emails: ["a@example.com", "b@example.com"])
            try context.save()
            let data = try Data(contentsOf: recordURL(of: ada, store: store, extension: "contact"))
            var read = PropertyListSerialization.PropertyListFormat.xml
            let list = try XCTUnwrap(PropertyListSerialization.propertyList(from: data, format: &read) as? [String: Any])
            XCTAssertEqual(read, format == NSXMLExternalRecordType ? .xml : .binary)
            XCTAssertEqual(list["name"] as? String, "Ada")
            XCTAssertEqual(list["emails"] as? [String], ["a@example.com", "b@example.com"])
            XCTAssertEqual(list[NSObjectURIKey] as? String, ada.objectID.uriRepresentation.absoluteString)
            XCTAssertEqual(list[NSEntityNameInPathKey] as? String, "Person")
            XCTAssertEqual(list[NSStoreUUIDInPathKey] as? String, store.identifier)
            XCTAssertEqual(list[NSStorePathKey] as? String, store.url?.path)
        }
    }

    func testXMLAndBinaryStoresKeepRecordsToo() throws {
        for type in [StoreType.xml, .binary, .inMemory] {
            let (context, store) = try open(type, name: "store-\(type)")
            let task = context.insertNewObject(forEntityName: "Task")
            task.setValue("Stored in \(type)", forKey: "title")
            try context.save()
            XCTAssertTrue(try text(recordURL(of: task, store: store, extension: "task")).contains("<title>Stored in \(type)</title>"))
        }
    }

    // MARK: From a record back to its object

    func testElementsDerivedFromARecordLeadBackToItsObject() throws {
        let (context, store) = try open()
        let ada = insertPerson(context, name: "Ada")
        try context.save()
        let url = recordURL(of: ada, store: store, extension: "contact")
        let elements = try PersistentStoreCoordinator.elementsDerived(fromExternalRecordAt: url)
        XCTAssertEqual(elements[NSEntityNameInPathKey], "Person")
        XCTAssertEqual(elements[NSStoreUUIDInPathKey], store.identifier)
        XCTAssertEqual(elements[NSStorePathKey], store.url?.path)
        let uri = try XCTUnwrap(elements[NSObjectURIKey].flatMap(URL.init(string:)))
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        XCTAssertEqual(coordinator.managedObjectID(forURIRepresentation: uri), ada.objectID)
    }

    func testElementsOfAFileThatIsNoRecordAreAnErrorNamingIt() throws {
        for path in ["/tmp/notes.txt", "/p12.contact", "/x/Store/Person/.p12.contact.tmp", "/x/Store/Person/p0.contact", "/x/S/P/pabc.contact"] {
            XCTAssertThrowsError(try PersistentStoreCoordinator.elementsDerived(fromExternalRecordAt: URL(fileURLWithPath: path))) { error in
                XCTAssertTrue("\(error)".contains(path), "\(error)")
            }
        }
    }

    // MARK: Batch requests, failures, full synchronization

    func testBatchDeleteAndUpdateBringTheRecordsUpToDate() throws {
        let (context, store) = try open()
        let tasks = (1...3).map { number -> ManagedObject in
            let task = context.insertNewObject(forEntityName: "Task")
            task.setValue("Task \(number)", forKey: "title")
            return task
        }
        try context.save()
        let urls = tasks.map { recordURL(of: $0, store: store, extension: "task") }

        let model = try XCTUnwrap(context.persistentStoreCoordinator?.managedObjectModel)
        var update = BatchUpdateRequest(entity: try XCTUnwrap(model.entitiesByName["Task"]))
        update.predicate = try Predicate(format: "title == 'Task 2'")
        update.propertiesToUpdate = ["title": .constant(.string("Renamed"))]
        _ = try context.execute(update)
        XCTAssertTrue(try text(urls[1]).contains("<title>Renamed</title>"))

        var delete = BatchDeleteRequest(entity: try XCTUnwrap(model.entitiesByName["Task"]))
        delete.predicate = try Predicate(format: "title == 'Task 1'")
        _ = try context.execute(delete)
        XCTAssertFalse(FileManager.default.fileExists(atPath: urls[0].path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: urls[2].path))
    }

    func testAFileThatCannotBeWrittenIsReportedAndWrittenAfterTheNextSave() throws {
        let (context, store) = try open()
        let first = context.insertNewObject(forEntityName: "Task")
        first.setValue("First", forKey: "title")
        try context.save()
        let folder = recordURL(of: first, store: store, extension: "task").deletingLastPathComponent()
        // A file where the Task folder should be: the folder cannot be made, so no record can be written.
        try FileManager.default.removeItem(at: folder)
        try Data("in the way".utf8).write(to: folder)

        let second = context.insertNewObject(forEntityName: "Task")
        second.setValue("Second", forKey: "title")
        XCTAssertNoThrow(try context.save(), "the store saved: the records are derived data")
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        let status = try XCTUnwrap(coordinator.externalRecordsStatus(of: store))
        XCTAssertEqual(status.pendingObjectIDs, [second.objectID])
        XCTAssertTrue("\(String(describing: status.lastError))".contains(folder.path), "\(String(describing: status.lastError))")

        try FileManager.default.removeItem(at: folder)
        let third = context.insertNewObject(forEntityName: "Task")
        third.setValue("Third", forKey: "title")
        try context.save()
        XCTAssertEqual(coordinator.externalRecordsStatus(of: store)?.pendingObjectIDs, [])
        XCTAssertTrue(try text(recordURL(of: second, store: store, extension: "task")).contains("<title>Second</title>"))
        XCTAssertTrue(try text(recordURL(of: third, store: store, extension: "task")).contains("<title>Third</title>"))
    }

    func testFullSynchronizationRewritesMissingAndStaleFilesAndRemovesOrphans() throws {
        let (context, store) = try open()
        let kept = context.insertNewObject(forEntityName: "Task")
        kept.setValue("Kept", forKey: "title")
        let stale = context.insertNewObject(forEntityName: "Task")
        stale.setValue("Stale", forKey: "title")
        let ada = insertPerson(context, name: "Ada")
        try context.save()
        let keptURL = recordURL(of: kept, store: store, extension: "task")
        let staleURL = recordURL(of: stale, store: store, extension: "task")
        let adaURL = recordURL(of: ada, store: store, extension: "contact")
        try FileManager.default.removeItem(at: adaURL)
        try Data("old".utf8).write(to: staleURL)
        let orphan = keptURL.deletingLastPathComponent().appendingPathComponent("p999.task")
        let crashLeftover = keptURL.deletingLastPathComponent().appendingPathComponent(".p998.task.4242.tmp")
        let userFile = keptURL.deletingLastPathComponent().appendingPathComponent("README")
        for url in [orphan, crashLeftover, userFile] { try Data("x".utf8).write(to: url) }

        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        let report = try coordinator.synchronizeExternalRecords(of: store)
        XCTAssertEqual(report, ExternalRecordsReport(written: 2, unchanged: 1, removed: 1))
        XCTAssertTrue(try text(adaURL).contains("<title>Ada</title>"))
        XCTAssertTrue(try text(staleURL).contains("<title>Stale</title>"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: orphan.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: crashLeftover.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: userFile.path), "files the store did not make are left alone")
        XCTAssertEqual(try coordinator.synchronizeExternalRecords(of: store), ExternalRecordsReport(written: 0, unchanged: 3, removed: 0))
    }

    func testMigratingTheStoreWritesTheRecordsUnderTheNewStore() throws {
        let (context, store) = try open(.inMemory, name: "scratch")
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue("Moved", forKey: "title")
        try context.save()
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        let moved = try coordinator.migratePersistentStore(store, to: directory.url.appendingPathComponent("moved.sqlite"),
                                                           options: options(), type: .sqlite)
        let folder = recordsURL.appendingPathComponent(moved.identifier).appendingPathComponent("Task")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertEqual(names.count, 1)
        XCTAssertTrue(try text(folder.appendingPathComponent(names[0])).contains("<title>Moved</title>"))
    }

    // MARK: Options

    func testBadOptionsAreRefusedNamingTheOptionAndAddNoStore() throws {
        let cases: [([String: any Sendable], String)] = [
            ([NSExternalRecordsDirectoryOption: "relative/path", NSExternalRecordExtensionOption: "x"], NSExternalRecordsDirectoryOption),
            ([NSExternalRecordsDirectoryOption: recordsURL.path], NSExternalRecordExtensionOption),
            ([NSExternalRecordsDirectoryOption: recordsURL.path, NSExternalRecordExtensionOption: "a/b"], NSExternalRecordExtensionOption),
            ([NSExternalRecordsDirectoryOption: recordsURL.path, NSExternalRecordExtensionOption: "x",
              NSExternalRecordsFileFormatOption: "json"], NSExternalRecordsFileFormatOption),
        ]
        for (options, named) in cases {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
            XCTAssertThrowsError(try coordinator.addPersistentStore(type: .inMemory, options: options)) { error in
                XCTAssertTrue("\(error)".contains(named), "\(error)")
            }
            XCTAssertTrue(coordinator.persistentStores.isEmpty)
        }
    }

    func testAStoreWithoutTheOptionKeepsNoRecords() throws {
        let (context, store) = try open(options: [:])
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue("Nowhere", forKey: "title")
        try context.save()
        XCTAssertFalse(FileManager.default.fileExists(atPath: recordsURL.path))
        XCTAssertNil(context.persistentStoreCoordinator?.externalRecordsStatus(of: store))
    }

    func testTheTimeZoneOptionWritesDatesInItsWallClockTime() throws {
        var zoned = options()
        zoned[ExternalRecordsTimeZoneOption] = "Europe/Berlin"
        let (context, store) = try open(options: zoned)
        let ada = insertPerson(context, name: "Ada")
        ada.setValue(Date(timeIntervalSince1970: 1_234_567_890), forKey: "birthday")
        try context.save()
        let page = try text(recordURL(of: ada, store: store, extension: "contact"))
        XCTAssertTrue(page.contains("<meta name=\"birthday\" content=\"20090214003130\"/>"), page)
        XCTAssertTrue(page.contains("<dd>2009-02-14 00:31:30</dd>"), page)

        zoned[ExternalRecordsTimeZoneOption] = "Mars/Olympus"
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        XCTAssertThrowsError(try coordinator.addPersistentStore(type: .inMemory, options: zoned)) { error in
            XCTAssertTrue("\(error)".contains("Mars/Olympus"), "\(error)")
        }
    }

    func testDatesAreWrittenSortableInUTCOrTheGivenZone() {
        let berlin = TimeZone(identifier: "Europe/Berlin")
        XCTAssertEqual(ExternalRecord.dateText(Date(timeIntervalSince1970: 0), in: berlin), "19700101010000")
        XCTAssertEqual(ExternalRecord.dateText(Date(timeIntervalSince1970: 0), in: berlin, sortable: false), "1970-01-01 01:00:00")
        XCTAssertEqual(ExternalRecord.dateText(Date(timeIntervalSince1970: 0), sortable: false), "1970-01-01 00:00:00 UTC")
        XCTAssertEqual(ExternalRecord.dateText(Date(timeIntervalSince1970: 0)), "19700101000000")
        XCTAssertEqual(ExternalRecord.dateText(Date(timeIntervalSince1970: -1)), "19691231235959")
        XCTAssertEqual(ExternalRecord.dateText(Date(timeIntervalSince1970: 951_782_400)), "20000229000000")
        XCTAssertEqual(ExternalRecord.dateText(Date(timeIntervalSince1970: 4_102_444_799)), "20991231235959")
    }
}
