// Review of automaticallyMergesChangesFromParent, the persistent container and how merged changes
// meet the merging context's own state: tests that failed, when written, on behaviour that
// differed from Core Data's documentation (fixed since). Waits are for blocks queued behind the
// merge on the context's queue, never time.
import Foundation
import XCTest
@testable import ObjectGraph

final class MergeReviewTests: XCTestCase {
    /// A merge must not swallow the undo registration of the context's own pending changes.
    ///
    /// Apple: `processPendingChanges()` "causes changes to registered managed objects to be
    /// recorded with the undo manager"; a delete's rules run at the end of the event
    /// (`propagatesDeletesAtEndOfEvent`, default true), and `undo()` reverses "the latest
    /// uncommitted changes applied to objects in the object graph" — a deletion and what its
    /// cascade rule deleted with it. Merged changes are not registered with the undo manager, but
    /// the user's own changes still are (Apple's pattern for unregistered changes is
    /// `processPendingChanges()` first, then `disableUndoRegistration()`).
    ///
    /// ObjectGraph: when an automatic merge (or `mergeChanges(fromContextDidSave:)`) arrives while
    /// the context has a deletion whose rules have not run yet, the merge ends the event with undo
    /// registration disabled: `mergeChanges(fromContextDidSave:)` in
    /// `Sources/ObjectGraph/Context/ManagedObjectContext+Merging.swift` calls
    /// `undoManager?.disableUndoRegistration()` and then `processPendingChanges()`, whose
    /// `propagatePendingDeletions()` runs the *user's* pending cascade unregistered. Undoing the
    /// deletion then brings the person back but leaves its task deleted (and the context dirty),
    /// where without the merge (or with Core Data) the task comes back too. The same test with
    /// `automaticallyMergesChangesFromParent` false passes.
    func testAMergeDoesNotTakeThePendingCascadeOfTheContextsOwnDeleteOutOfUndo() throws {
        try forEachStore(undo: true) { stack in
            let view = stack.context
            view.automaticallyMergesChangesFromParent = true
            let person = stack.person("Ann")
            let task = stack.task("Owned", owner: person)
            try view.save()
            view.undoManager?.removeAllActions()

            view.delete(person)  // Person.tasks cascades, at the end of the event
            try stack.saveInBackground { background in
                let other = background.insertNewObject(forEntityName: "Task")
                other.setValue("Unrelated", forKey: "title")
                other.setValue(UUID(), forKey: "uuid")
            }
            drain(view)  // the merge runs, then this block ends the event
            XCTAssertTrue(task.isDeleted, "\(stack.storeType): the cascade ran")

            view.undo()
            XCTAssertFalse(person.isDeleted, "\(stack.storeType): the deletion is undone")
            XCTAssertFalse(task.isDeleted, "\(stack.storeType): the cascade of the user's deletion is undone with it")
            XCTAssertFalse(view.hasChanges, "\(stack.storeType): nothing is left to save after undoing the only change")
        }
    }
}
