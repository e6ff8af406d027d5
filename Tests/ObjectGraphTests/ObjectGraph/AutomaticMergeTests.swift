// automaticallyMergesChangesFromParent for contexts of one coordinator: a context that asks for
// it takes every other context's save in, on its own queue (inserted objects appear, changed ones
// take the saved values, deleted ones go), and a context that does not ask is left alone. Each
// wait is for a block queued behind the merge on the same serial queue, never for time.
import Foundation
import XCTest
@testable import ObjectGraph

final class AutomaticMergeTests: XCTestCase {
    func testSavesOfOtherContextsAreMergedOnTheContextsQueue() throws {
        try forEachStore { stack in
            let view = stack.context
            view.automaticallyMergesChangesFromParent = true
            let kept = stack.task("Kept"), gone = stack.task("Gone")
            try view.save()
            let (keptID, goneID) = (kept.objectID, gone.objectID)
            var merged: [ObjectsDidChange] = []
            let token = view.observe { note in
                if case .objectsDidChange(let changes) = note { merged.append(changes) }
            }
            defer { token.cancel() }

            var newID: ObjectID?
            try stack.saveInBackground { background in
                try background.existingObject(with: keptID).setValue("Renamed", forKey: "title")
                background.delete(try background.existingObject(with: goneID))
                let new = background.insertNewObject(forEntityName: "Task")
                new.setValue("New", forKey: "title")
                new.setValue(UUID(), forKey: "uuid")
                try background.obtainPermanentIDs(for: [new])
                newID = new.objectID
            }
            drain(view)
            XCTAssertTrue(Thread.isMainThread)
            XCTAssertEqual(kept.value(forKey: "title") as? String, "Renamed", "\(stack.storeType)")
            XCTAssertTrue(gone.isDeleted || gone.managedObjectContext == nil, "\(stack.storeType): the deleted task is gone here")
            let titles = try stack.fetch("Task", sortedBy: "title").map { $0.value(forKey: "title") as? String }
            XCTAssertEqual(titles, ["New", "Renamed"], "\(stack.storeType)")
            let all = merged.reduce(into: (inserted: Set<ObjectID>(), updated: Set<ObjectID>(), deleted: Set<ObjectID>())) { sets, changes in
                sets.inserted.formUnion(changes.inserted.map(\.objectID))
                sets.updated.formUnion(changes.updated.union(changes.refreshed).map(\.objectID))
                sets.deleted.formUnion(changes.deleted.map(\.objectID))
            }
            XCTAssertEqual(all.inserted, [newID!], "\(stack.storeType)")
            XCTAssertTrue(all.updated.contains(keptID), "\(stack.storeType)")
            XCTAssertEqual(all.deleted, [goneID], "\(stack.storeType)")
            XCTAssertFalse(view.hasChanges, "\(stack.storeType): a merge is not a change to save")
        }
    }

    /// Without the flag, or after it is turned off, a save elsewhere leaves the context's objects
    /// as they were (the wait is for a block queued after the save: a merge would run before it).
    func testAContextThatDoesNotAskIsLeftAlone() throws {
        let stack = try Stack(storeType: .sqlite)
        let task = stack.task("Before")
        try stack.context.save()
        let id = task.objectID
        try stack.saveInBackground { try $0.existingObject(with: id).setValue("First", forKey: "title") }
        drain(stack.context)
        XCTAssertEqual(task.value(forKey: "title") as? String, "Before")

        stack.context.automaticallyMergesChangesFromParent = true
        try stack.saveInBackground { try $0.existingObject(with: id).setValue("Second", forKey: "title") }
        drain(stack.context)
        XCTAssertEqual(task.value(forKey: "title") as? String, "Second")

        stack.context.automaticallyMergesChangesFromParent = false
        try stack.saveInBackground { try $0.existingObject(with: id).setValue("Third", forKey: "title") }
        drain(stack.context)
        XCTAssertEqual(task.value(forKey: "title") as? String, "Second")
    }

    /// The flag set before the coordinator takes effect with it; a context that goes away is
    /// simply no longer merged into.
    func testTheFlagFollowsTheCoordinatorAndGoneContextsAreSkipped() throws {
        let stack = try Stack(storeType: .inMemory)
        let view = ManagedObjectContext(concurrencyType: .privateQueue)
        view.automaticallyMergesChangesFromParent = true
        view.persistentStoreCoordinator = stack.coordinator
        do {
            let doomed = ManagedObjectContext(concurrencyType: .privateQueue)
            doomed.automaticallyMergesChangesFromParent = true
            doomed.persistentStoreCoordinator = stack.coordinator
        }
        let inserted = Box<[String]>([])
        let token = view.performAndWait {
            view.observe { note in
                guard case .objectsDidChange(let changes) = note else { return }
                inserted.value += changes.inserted.map { $0.value(forKey: "title") as? String ?? "?" }
            }
        }
        defer { token.cancel() }
        _ = stack.task("Made")
        try stack.context.save()
        drain(view)
        XCTAssertEqual(view.performAndWait { inserted.value }, ["Made"], "the inserted task was merged in")
    }

    /// A fetched results controller on an automatically merging context follows saves made in
    /// the background.
    func testAFetchedResultsControllerFollowsBackgroundSaves() throws {
        let stack = try Stack(storeType: .sqlite)
        stack.context.automaticallyMergesChangesFromParent = true
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.sortDescriptors = [SortDescriptor(key: "title")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context)
        let delegate = InsertCounter()
        controller.delegate = delegate
        try controller.performFetch()
        try stack.saveInBackground { background in
            for title in ["B", "A"] {
                let task = background.insertNewObject(forEntityName: "Task")
                task.setValue(title, forKey: "title")
                task.setValue(UUID(), forKey: "uuid")
            }
        }
        drain(stack.context)
        XCTAssertEqual(controller.fetchedObjects?.map { $0.value(forKey: "title") as? String }, ["A", "B"])
        XCTAssertEqual(delegate.inserted, 2)
    }
}

private final class InsertCounter: FetchedResultsControllerDelegate {
    typealias Object = ManagedObject
    var inserted = 0
    func controller(_ controller: FetchedResultsController<ManagedObject>, didChange object: ManagedObject, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        if type == .insert { inserted += 1 }
    }
}
