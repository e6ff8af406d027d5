// The undo manager records actions in groups, undoes a group as a whole in reverse order, and
// redoes it; limits, disabling and clearing behave as Foundation's NSUndoManager does.
import XCTest
@testable import ObjectGraph

final class UndoManagerTests: XCTestCase {
    /// A value with undoable edits, as a context's objects register them.
    private final class Document {
        let undo: UndoManager
        var log: [String] = []
        var title = "" {
            didSet {
                let old = oldValue
                undo.registerUndo(withTarget: self) { $0.title = old }
            }
        }
        init(undo: UndoManager) { self.undo = undo }
    }

    func testUndoRevertsEveryChangeOfTheEventGroupAtOnce() {
        let undo = UndoManager()
        let document = Document(undo: undo)
        document.title = "a"
        document.title = "ab"
        undo.closeEventGroup()
        XCTAssertTrue(undo.canUndo)
        undo.undo()
        XCTAssertEqual(document.title, "")
        XCTAssertFalse(undo.canUndo)
    }

    func testRedoReplaysTheUndoneGroup() {
        let undo = UndoManager()
        let document = Document(undo: undo)
        document.title = "first"
        undo.closeEventGroup()
        document.title = "second"
        undo.closeEventGroup()
        undo.undo()
        XCTAssertEqual(document.title, "first")
        XCTAssertTrue(undo.canRedo)
        undo.redo()
        XCTAssertEqual(document.title, "second")
        undo.undo()
        undo.undo()
        XCTAssertEqual(document.title, "")
        undo.redo()
        undo.redo()
        XCTAssertEqual(document.title, "second")
        XCTAssertFalse(undo.canRedo)
    }

    func testUndoClosesTheOpenEventGroupFirst() {
        let undo = UndoManager()
        let document = Document(undo: undo)
        document.title = "typed"
        undo.undo()
        XCTAssertEqual(document.title, "")
        XCTAssertEqual(undo.groupingLevel, 0)
    }

    func testANewChangeAfterUndoClearsRedo() {
        let undo = UndoManager()
        let document = Document(undo: undo)
        document.title = "a"
        undo.closeEventGroup()
        undo.undo()
        document.title = "b"
        undo.closeEventGroup()
        XCTAssertFalse(undo.canRedo)
    }

    func testActionsOfAGroupRunInReverseOrder() {
        let undo = UndoManager()
        var order: [Int] = []
        undo.beginUndoGrouping()
        undo.registerUndo { order.append(1) }
        undo.registerUndo { order.append(2) }
        undo.registerUndo { order.append(3) }
        undo.endUndoGrouping()
        undo.undo()
        XCTAssertEqual(order, [3, 2, 1])
    }

    func testNestedGroupsAreUndoneWithTheirOuterGroup() {
        let undo = UndoManager()
        let document = Document(undo: undo)
        undo.beginUndoGrouping()
        document.title = "outer"
        undo.beginUndoGrouping()
        document.title = "inner"
        undo.endUndoGrouping()
        XCTAssertEqual(undo.groupingLevel, 1)
        undo.endUndoGrouping()
        undo.undo()
        XCTAssertEqual(document.title, "")
    }

    func testLevelsOfUndoKeepsOnlyTheNewestGroups() {
        let undo = UndoManager()
        undo.levelsOfUndo = 2
        let document = Document(undo: undo)
        for title in ["a", "b", "c"] {
            document.title = title
            undo.closeEventGroup()
        }
        undo.undo()
        undo.undo()
        XCTAssertEqual(document.title, "a")
        XCTAssertFalse(undo.canUndo)
    }

    func testDisabledRegistrationRecordsNothing() {
        let undo = UndoManager()
        let document = Document(undo: undo)
        undo.disableUndoRegistration()
        document.title = "silent"
        undo.enableUndoRegistration()
        XCTAssertFalse(undo.canUndo)
        XCTAssertTrue(undo.isUndoRegistrationEnabled)
    }

    func testRemoveAllActionsWithTargetForgetsOnlyThatTarget() {
        let undo = UndoManager()
        let first = Document(undo: undo)
        let second = Document(undo: undo)
        first.title = "one"
        second.title = "two"
        undo.closeEventGroup()
        undo.removeAllActions(withTarget: first)
        undo.undo()
        XCTAssertEqual(first.title, "one")
        XCTAssertEqual(second.title, "")
    }

    func testTheManagerDoesNotKeepItsTargetsAlive() {
        // Foundation's manager holds a target unowned, so that a target owning its manager (a
        // context, a document) is not kept alive by its own actions; here a gone target's
        // actions do nothing.
        let undo = UndoManager()
        weak var gone: Document?
        var log: [String] = []
        do {
            let document = Document(undo: undo)
            gone = document
            document.title = "draft"
            undo.registerUndo(withTarget: document) { _ in log.append("ran") }
        }
        undo.closeEventGroup()
        XCTAssertNil(gone, "the manager's actions do not retain their target")
        XCTAssertTrue(undo.canUndo)
        undo.undo()
        XCTAssertEqual(log, [], "an action whose target is gone does nothing")
        XCTAssertFalse(undo.canUndo)
    }

    func testAnOwnerWithUndoHistoryIsFreedWithItsManager() {
        weak var gone: Document?
        weak var goneManager: UndoManager?
        do {
            let document = Document(undo: UndoManager())
            gone = document
            goneManager = document.undo
            document.title = "a"
            document.undo.closeEventGroup()
            document.title = "b"
            document.undo.closeEventGroup()
            document.undo.undo()
            XCTAssertTrue(document.undo.canUndo && document.undo.canRedo)
        }
        XCTAssertNil(gone, "a document that owns its undo manager is not kept alive by its actions")
        XCTAssertNil(goneManager)
    }

    func testActionNamesFollowTheirGroupsToRedo() {
        let undo = UndoManager()
        let document = Document(undo: undo)
        document.title = "x"
        undo.setActionName("Rename")
        undo.closeEventGroup()
        XCTAssertEqual(undo.undoActionName, "Rename")
        undo.undo()
        XCTAssertEqual(undo.redoActionName, "Rename")
    }

    func testIsUndoingIsTrueOnlyWhileUndoing() {
        let undo = UndoManager()
        var seen: [Bool] = []
        undo.registerUndo { seen.append(undo.isUndoing) }
        undo.undo()
        XCTAssertEqual(seen, [true])
        XCTAssertFalse(undo.isUndoing)
    }
}
