// The SQLite store under contexts and coordinators: a graph saved and reopened in a new
// coordinator comes back whole (relationships and their order included), two coordinators on one
// file see each other's saves after a refresh and detect conflicts, faults whose rows another
// coordinator deleted, concurrent writers on one file, and failed context saves.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteContextTests: XCTestCase {
    /// A second coordinator and context on `stack`'s store file.
    private func secondContext(on stack: Stack) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func testReopeningInANewCoordinatorGivesBackTheSameGraph() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        let bob = stack.person("Bob")
        let tasks = ["third", "first", "second"].map { stack.task($0, priority: 2) }
        for task in tasks { ada.mutableOrderedSetValue(forKey: "tasks").insert(task) }
        let meeting = stack.event("Meeting")
        for person in [ada, bob] { meeting.mutableSetValue(forKey: "attendees").insert(person) }
        tasks[1].setValue(meeting, forKey: "event")
        try stack.context.save()

        let other = try secondContext(on: stack)
        let people = try stack.fetch("Person", sortedBy: "firstName", in: other)
        XCTAssertEqual(people.map { $0.value(forKey: "firstName") as? String }, ["Ada", "Bob"])
        let reopened = people[0]
        XCTAssertEqual(reopened.value(forKey: "lastName") as? String, "Lovelace")
        let reopenedTasks = try XCTUnwrap(reopened.value(forKey: "tasks") as? OrderedSet<ManagedObject>)
        XCTAssertEqual(reopenedTasks.map { $0.value(forKey: "title") as? String }, ["third", "first", "second"])
        XCTAssertTrue(reopenedTasks[0].value(forKey: "owner") as? ManagedObject === reopened)
        let event = try XCTUnwrap(reopenedTasks[1].value(forKey: "event") as? ManagedObject)
        XCTAssertEqual(event.value(forKey: "title") as? String, "Meeting")
        let attendees = try XCTUnwrap(event.value(forKey: "attendees") as? Set<ManagedObject>)
        XCTAssertEqual(Set(attendees.compactMap { $0.value(forKey: "firstName") as? String }), ["Ada", "Bob"])
        XCTAssertEqual(reopened.objectID, ada.objectID)
    }

    func testReorderingAnOrderedRelationshipIsSaved() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        let tasks = ["a", "b", "c"].map { stack.task($0) }
        for task in tasks { ada.mutableOrderedSetValue(forKey: "tasks").insert(task) }
        try stack.context.save()
        let list = ada.mutableOrderedSetValue(forKey: "tasks")
        list.remove(tasks[0])
        list.insert(tasks[0])
        try stack.context.save()
        let other = try secondContext(on: stack)
        let reopened = try stack.fetch("Person", in: other)[0]
        let titles = (reopened.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String }
        XCTAssertEqual(titles, ["b", "c", "a"])
    }

    func testMovingObjectsBetweenRelationshipsIsSavedOnBothSides() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada"), bob = stack.person("Bob")
        let tasks = ["a", "b", "c"].map { stack.task($0, owner: ada) }
        let meeting = stack.event("Meeting")
        for person in [ada, bob] { meeting.mutableSetValue(forKey: "attendees").insert(person) }
        try stack.context.save()
        tasks[1].setValue(bob, forKey: "owner")
        meeting.mutableSetValue(forKey: "attendees").remove(ada)
        try stack.context.save()

        let other = try secondContext(on: stack)
        let people = try stack.fetch("Person", sortedBy: "firstName", in: other)
        func titles(_ person: ManagedObject) -> [String?] {
            ((person.value(forKey: "tasks") as? OrderedSet<ManagedObject>) ?? []).map { $0.value(forKey: "title") as? String }
        }
        XCTAssertEqual(titles(people[0]), ["a", "c"])
        XCTAssertEqual(titles(people[1]), ["b"])
        XCTAssertEqual((people[0].value(forKey: "events") as? Set<ManagedObject>)?.count, 0)
        XCTAssertEqual((people[1].value(forKey: "events") as? Set<ManagedObject>)?.count, 1)
    }

    func testTwoCoordinatorsSeeEachOthersSavesAfterARefreshAndDetectConflicts() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        let other = try secondContext(on: stack)
        let theirs = try stack.fetch("Person", in: other)[0]
        XCTAssertEqual(theirs.value(forKey: "firstName") as? String, "Ada")

        ada.setValue("Ada L.", forKey: "firstName")
        try stack.context.save()
        other.refresh(theirs, mergeChanges: false)
        XCTAssertEqual(theirs.value(forKey: "firstName") as? String, "Ada L.")

        ada.setValue("Augusta", forKey: "firstName")
        try stack.context.save()
        theirs.setValue("Countess", forKey: "firstName")
        XCTAssertThrowsError(try other.save()) { error in
            XCTAssertTrue(error is MergeError, "\(error)")
        }
        other.mergePolicy = .mergeByPropertyObjectTrump
        try other.save()
        stack.context.refresh(ada, mergeChanges: false)
        XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Countess")
    }

    func testFaultWhoseRowWasDeletedElsewhereIsDeletedOrThrows() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        let other = try secondContext(on: stack)
        let fault = other.object(with: ada.objectID)
        stack.context.delete(ada)
        try stack.context.save()

        other.shouldDeleteInaccessibleFaults = false
        XCTAssertThrowsError(try fault.fulfill())
        other.shouldDeleteInaccessibleFaults = true
        _ = fault.value(forKey: "firstName")
        XCTAssertTrue(fault.isDeleted)
    }

    func testSavingRowsWhoseKeysLieAtTheEndsOfTheKeyRange() throws {
        // The version check keeps a save's keys in an array by key when they are dense: keys
        // from either end of Int64 must not overflow its span.
        let stack = try Stack(storeType: .sqlite)
        _ = stack.person("Low")
        _ = stack.person("High")
        try stack.context.save()
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        try store.lock.withLock {
            try store.connection.execute("UPDATE ZPERSON SET Z_PK = -9000000000000000000 WHERE ZFIRSTNAME = 'Low'")
            try store.connection.execute("UPDATE ZPERSON SET Z_PK = 9000000000000000000 WHERE ZFIRSTNAME = 'High'")
        }
        let reader = stack.newContext()
        let people = try stack.fetch("Person", sortedBy: "firstName", in: reader)
        XCTAssertEqual(people.map { $0.objectID.primaryKey }, [9_000_000_000_000_000_000, -9_000_000_000_000_000_000])
        for person in people { person.setValue("Changed", forKey: "lastName") }
        try reader.save()
        let check = stack.newContext()
        XCTAssertEqual(try stack.fetch("Person", sortedBy: "firstName", in: check).map { $0.value(forKey: "lastName") as? String },
                       ["Changed", "Changed"])
    }

    func testFailedContextSaveLeavesTheStoreFileUnchanged() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("One")
        try stack.context.save()
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
        func bytes() throws -> Data {
            try store.lock.withLock { try store.connection.executeScript("PRAGMA wal_checkpoint(TRUNCATE)") }
            return try Data(contentsOf: stack.storeURL)
        }
        let clash = stack.task("Two")
        clash.setValue(task.value(forKey: "uuid"), forKey: "uuid")
        try stack.context.obtainPermanentIDs(for: [clash])
        let before = try bytes()
        XCTAssertThrowsError(try stack.context.save())
        XCTAssertTrue(try bytes() == before, "the store file changed")
    }

    func testConcurrentWritersOnOneFileLoseNothing() throws {
        let f = try SQLiteStoreFixture()
        let g = try SQLiteStoreFixture(model: f.model, sharing: f)
        let tag = f.entity("Tag")
        let writers = [f.store, g.store]
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let store = writers[index]
            for n in 0..<100 {
                guard let id = try? store.obtainPermanentIDs(for: [ObjectID.temporary(for: tag)])[0] else { continue }
                let row = Snapshot(objectID: id, version: 0, values: [.value("\(index)-\(n)"), .objects([])])
                _ = try? store.save(StoreSaveRequest(inserted: [row]))
            }
        }
        XCTAssertEqual(try f.count(f.request("Tag")), 200)
        XCTAssertEqual(Set(try f.ids(f.request("Tag")).compactMap(\.primaryKey)), Set(1...200))
    }

    func testASaveWritesOnlyTheChangedColumns() throws {
        // As Core Data's UPDATEs: a column the save did not change keeps what the file has, here
        // a value written behind the store's back (without raising the row's version).
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        try connection.execute("UPDATE ZPERSON SET ZLASTNAME = 'Byron'")
        ada.setValue("Augusta", forKey: "firstName")
        try stack.context.save()
        func stored(_ column: String) throws -> String? {
            guard case .text(let text)? = try connection.scalar("SELECT \(column) FROM ZPERSON") else { return nil }
            return text
        }
        XCTAssertEqual(try stored("ZFIRSTNAME"), "Augusta")
        XCTAssertEqual(try stored("ZLASTNAME"), "Byron")
        XCTAssertEqual(try connection.scalar("SELECT Z_OPT FROM ZPERSON")?.integerValue, 2, "the version still rises")
        // A primitive edit marks nothing changed: the whole row is written then.
        ada.setPrimitiveValue("Ada", forKey: "firstName")
        ada.setValue("King", forKey: "lastName")
        try stack.context.save()
        XCTAssertEqual(try stored("ZFIRSTNAME"), "Ada")
        XCTAssertEqual(try stored("ZLASTNAME"), "King")
    }

    func testAnEntityWithMoreThan64AttributesTracksChangesPastTheSixtyFourthAndWritesItsRowsWhole() throws {
        // Changed slots are bits, the first 64 inline: slots past them take words of their own.
        let model = ManagedObjectModel {
            Entity("Wide") {
                for index in 0..<70 { Attribute("a\(index)", .integer64) }
            }
        }
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("wide.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let wide = context.insertNewObject(forEntityName: "Wide")
        for index in 0..<70 { wide.setValue(Int64(index), forKey: "a\(index)") }
        try context.save()
        XCTAssertFalse(wide.hasChanges)

        // A table of more columns than an UPDATE's column mask holds (64) has its rows written
        // whole: a value written behind the store's back in another column goes.
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("UPDATE ZWIDE SET ZA68 = 680")
        wide.setValue(Int64(660), forKey: "a66")
        XCTAssertTrue(wide.hasChanges)
        XCTAssertEqual(Array(wide.changedValues().keys), ["a66"])
        try context.save()
        XCTAssertFalse(wide.hasChanges)
        XCTAssertEqual(try connection.scalar("SELECT ZA66 FROM ZWIDE")?.integerValue, 660)
        XCTAssertEqual(try connection.scalar("SELECT ZA68 FROM ZWIDE")?.integerValue, 68)
        XCTAssertEqual(try connection.scalar("SELECT ZA3 FROM ZWIDE")?.integerValue, 3)
    }

    func testTheOverwritePolicyWritesTheContextsToOneRelationships() throws {
        // Saves write changed columns only; overwriting a conflict writes every value the row
        // holds, to-one relationships included.
        for type in Stack.storeTypes {
            let stack = try Stack(storeType: type)
            let one = stack.person("One"), two = stack.person("Two")
            let task = stack.task("T", owner: one)
            try stack.context.save()
            let other = stack.newContext()
            let taskElsewhere = try other.existingObject(with: task.objectID)
            taskElsewhere.setValue(try other.existingObject(with: two.objectID), forKey: "owner")
            try other.save()
            stack.context.mergePolicy = .overwrite
            task.setValue("Changed", forKey: "title")
            try stack.context.save()
            let reread = try stack.newContext().existingObject(with: task.objectID)
            XCTAssertEqual(reread.value(forKey: "title") as? String, "Changed", "\(type)")
            XCTAssertEqual((reread.value(forKey: "owner") as? ManagedObject)?.value(forKey: "firstName") as? String, "One", "\(type)")
        }
    }
}
