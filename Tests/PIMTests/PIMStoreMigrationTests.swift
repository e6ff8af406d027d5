// Stores written with earlier versions of the PIM model (Data/PIM.xcdatamodeld/PIM.xcdatamodel,
// PIM 2.xcdatamodel, PIM 3.xcdatamodel, PIM 4.xcdatamodel, PIM 5.xcdatamodel, PIM 6.xcdatamodel) opened by the current pim: migrated in place (lightweight migration), every
// record kept under its number, and the new version's fields usable at once.
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class PIMStoreMigrationTests: PIMStoreTestCase {
    /// A model version (`PIM.xcdatamodel` is the first), its entities as plain managed objects
    /// (the generated classes are the current version's).
    private func firstVersion(_ file: String = "PIM.xcdatamodel") throws -> ManagedObjectModel {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data/PIM.xcdatamodeld/\(file)")
        let model = try ManagedObjectModel(contentsOf: url)
        for entity in model.entities { entity.managedObjectClassName = nil }
        return model
    }

    /// Writes a SQLite store of `model` at `url` holding what `fill` inserts, and closes it.
    private func writeStore(of model: ManagedObjectModel, at url: URL, _ fill: (ManagedObjectContext) throws -> Void) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        try fill(context)
        try context.save()
        try coordinator.remove(store)
    }

    func testAStoreOfTheFirstModelVersionOpensMigratedWithItsRecords() throws {
        let url = folder.appendingPathComponent("pim.sqlite")
        let old = try firstVersion()
        XCTAssertNil(old.entitiesByName["Task"]?.propertiesByName["recurrenceRule"], "set-up: version 1 has no task rule")
        try writeStore(of: old, at: url) { context in
            for (number, title) in [(1, "Water plants"), (2, "Pay rent")] {
                let task = context.insertNewObject(forEntityName: "Task")
                task.setValue(title, forKey: "title")
                task.setValue(Int64(number), forKey: "number")
                task.setValue(UUID(), forKey: "uuid")
                task.setValue(now, forKey: "created")
                task.setValue(now, forKey: "modified")
                task.setValue(now.addingTimeInterval(86_400), forKey: "due")
            }
        }

        let pim = try open()
        XCTAssertEqual(try titles(pim), ["Water plants", "Pay rent"])
        let task = try XCTUnwrap(RecordResolver(store: pim).resolve("1", as: .task) as? TaskItem)
        XCTAssertNil(task.recurrenceRule)
        try pim.setRepeat("weekly", of: task)
        let next = pim.complete(task)
        XCTAssertEqual(next?.title, "Water plants")
        try pim.commit(command: "tasks done 1")
        XCTAssertEqual(try titles(try open()), ["Water plants", "Pay rent", "Water plants"])
    }

    func testAStoreOfTheSecondModelVersionOpensWithUIDsToKeep() throws {
        let url = folder.appendingPathComponent("pim.sqlite")
        let old = try firstVersion("PIM 2.xcdatamodel")
        XCTAssertNil(old.entitiesByName["Event"]?.propertiesByName["uid"], "set-up: version 2 keeps no UID")
        try writeStore(of: old, at: url) { context in
            let event = context.insertNewObject(forEntityName: "Event")
            event.setValue("Dentist", forKey: "title")
            event.setValue(Int64(1), forKey: "number")
            event.setValue(UUID(), forKey: "uuid")
            event.setValue(now, forKey: "created")
            event.setValue(now, forKey: "modified")
            event.setValue(now, forKey: "start")
            event.setValue(now.addingTimeInterval(3600), forKey: "end")
            event.setValue("google", forKey: "source")
            event.setValue("7kukuqrfedlm2f9t8sqf2f5ab4@google.com", forKey: "externalID")
        }

        let pim = try open()
        let migrated = try XCTUnwrap(RecordResolver(store: pim).resolve("1", as: .event) as? Event)
        XCTAssertEqual(migrated.title, "Dentist")
        XCTAssertNil(migrated.uid)
        migrated.uid = "7kukuqrfedlm2f9t8sqf2f5ab4@google.com"
        try pim.commit(command: "events edit 1")
        let again = try open()
        let reopened = try XCTUnwrap(RecordResolver(store: again).resolve("1", as: .event) as? Event)
        XCTAssertEqual(reopened.uid, "7kukuqrfedlm2f9t8sqf2f5ab4@google.com")
    }

    func testAStoreOfTheThirdModelVersionOpensReadyToSync() throws {
        let url = folder.appendingPathComponent("pim.sqlite")
        let old = try firstVersion("PIM 3.xcdatamodel")
        XCTAssertNil(old.entitiesByName["SyncCollection"], "set-up: version 3 has no sync collections")
        try writeStore(of: old, at: url) { context in
            let contact = context.insertNewObject(forEntityName: "Person")
            contact.setValue("Ada Lovelace", forKey: "name")
            contact.setValue(Int64(1), forKey: "number")
            contact.setValue(UUID(), forKey: "uuid")
            contact.setValue(now, forKey: "created")
            contact.setValue(now, forKey: "modified")
            contact.setValue("ada-1", forKey: "uid")
        }

        let pim = try open()
        let migrated = try XCTUnwrap(RecordResolver(store: pim).resolve("1", as: .contact) as? Person)
        XCTAssertEqual(migrated.uid, "ada-1")
        XCTAssertEqual(try pim.syncCollections().count, 0)
        let collection = SyncCollection(context: pim.context)
        collection.url = "https://dav.example.com/alice/contacts/"
        collection.kind = SyncCollectionKind.addressBook.rawValue
        collection.added = now
        try pim.commit(command: "sync add https://dav.example.com/alice/contacts/")
        let reopened = try open()
        XCTAssertEqual(try reopened.syncCollections().map(\.url), ["https://dav.example.com/alice/contacts/"])
    }

    func testAStoreOfTheFourthModelVersionKeepsItsCollectionsAndListsThemWholeOnce() throws {
        let url = folder.appendingPathComponent("pim.sqlite")
        let old = try firstVersion("PIM 4.xcdatamodel")
        XCTAssertNil(old.entitiesByName["SyncCollection"]?.propertiesByName["syncToken"], "set-up: version 4 keeps no sync token")
        try writeStore(of: old, at: url) { context in
            let collection = context.insertNewObject(forEntityName: "SyncCollection")
            collection.setValue("https://dav.example.com/alice/calendar/", forKey: "url")
            collection.setValue(SyncCollectionKind.calendar.rawValue, forKey: "kind")
            collection.setValue("personal", forKey: "calendar")
            collection.setValue(now, forKey: "added")
            let resources = Data(#"{"\/alice\/calendar\/a.ics":{"etag":"\"1\"","stamp":1}}"#.utf8)
            collection.setValue(resources, forKey: "resources")
        }

        let pim = try open()
        let migrated = try XCTUnwrap(try pim.syncCollections().first)
        XCTAssertEqual(migrated.url, "https://dav.example.com/alice/calendar/")
        XCTAssertEqual(migrated.syncedResourceCount, 1, "what the last sync left is kept")
        XCTAssertNil(migrated.syncToken, "no token yet: the next sync lists the collection whole")
        XCTAssertNil(migrated.listing)
        XCTAssertFalse(migrated.syncTokensRefused)
    }

    func testAStoreOfTheFifthModelVersionOpensWithItsRecordsAndTakesAlarms() throws {
        let url = folder.appendingPathComponent("pim.sqlite")
        let old = try firstVersion("PIM 5.xcdatamodel")
        XCTAssertNil(old.entitiesByName["Event"]?.propertiesByName["alarms"], "set-up: version 5 keeps no alarms")
        try writeStore(of: old, at: url) { context in
            let event = context.insertNewObject(forEntityName: "Event")
            event.setValue("Dentist", forKey: "title")
            event.setValue(Int64(1), forKey: "number")
            event.setValue(UUID(), forKey: "uuid")
            event.setValue(now, forKey: "created")
            event.setValue(now, forKey: "modified")
            event.setValue(now, forKey: "start")
            event.setValue(now.addingTimeInterval(3600), forKey: "end")
        }

        let pim = try open()
        let migrated = try XCTUnwrap(RecordResolver(store: pim).resolve("1", as: .event) as? Event)
        XCTAssertEqual(migrated.title, "Dentist")
        XCTAssertNil(migrated.alarms)
        migrated.alarms = Alarm.stored([.relative(before: true, days: 0, seconds: 900)])
        try pim.commit(command: "events edit 1 --alarms 15m")
        let reopened = try open()
        let event = try XCTUnwrap(RecordResolver(store: reopened).resolve("1", as: .event) as? Event)
        XCTAssertEqual(event.alarms, "-PT15M")
    }

    func testAStoreOfTheSixthModelVersionOpensWithItsTasksAndTakesAnnotations() throws {
        let url = folder.appendingPathComponent("pim.sqlite")
        let old = try firstVersion("PIM 6.xcdatamodel")
        XCTAssertNil(old.entitiesByName["Task"]?.propertiesByName["annotations"], "set-up: version 6 keeps no annotations")
        try writeStore(of: old, at: url) { context in
            let task = context.insertNewObject(forEntityName: "Task")
            task.setValue("Fix the roof", forKey: "title")
            task.setValue(Int64(1), forKey: "number")
            task.setValue(UUID(), forKey: "uuid")
            task.setValue(now, forKey: "created")
            task.setValue(now, forKey: "modified")
            task.setValue("-PT1H", forKey: "alarms")
        }

        let pim = try open()
        let migrated = try XCTUnwrap(RecordResolver(store: pim).resolve("1", as: .task) as? TaskItem)
        XCTAssertEqual(migrated.title, "Fix the roof")
        XCTAssertEqual(migrated.alarms, "-PT1H", "version 6's alarms kept")
        XCTAssertNil(migrated.annotations)
        _ = try pim.annotate(migrated, with: "called Bob")
        try pim.commit(command: "tasks annotate 1 called Bob")
        let reopened = try open()
        let task = try XCTUnwrap(RecordResolver(store: reopened).resolve("1", as: .task) as? TaskItem)
        XCTAssertEqual(Annotation.list(task.annotations).map(\.text), ["called Bob"])
    }
}
