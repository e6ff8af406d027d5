// Undo and redo across runs: each command is one group; undo restores deleted records with their
// links and owned values, redo replays; a record changed since is a conflict, not a silent loss.
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class JournalTests: PIMStoreTestCase {
    func testUndoRevertsAWholeCommandInALaterRun() throws {
        try run("tasks add A") { try $0.addTask(TaskDraft(title: "A")) }
        try run("tasks add B C") { store in
            _ = try store.addTask(TaskDraft(title: "B"))
            _ = try store.addTask(TaskDraft(title: "C"))
        }
        let outcome = try open().undo()
        XCTAssertEqual(outcome.command, "tasks add B C")
        XCTAssertEqual(outcome.recordCount, 2)
        XCTAssertEqual(try titles(open()), ["A"])
    }

    func testRedoReplaysTheUndoneCommand() throws {
        try run("tasks add A") { try $0.addTask(TaskDraft(title: "A")) }
        _ = try open().undo()
        XCTAssertEqual(try titles(open()), [])
        _ = try open().redo()
        XCTAssertEqual(try titles(open()), ["A"])
    }

    func testUndoOfDeleteRestoresContactWithAddressesAndLinks() throws {
        try run("contacts add") { store in
            var draft = ContactDraft(name: "Ann Lee")
            draft.emails = ["work:ann@example.org", "ann@home.example"]
            _ = try store.addContact(draft)
        }
        try run("tasks add") { store in
            var draft = TaskDraft(title: "Call")
            draft.assignee = "ann"
            _ = try store.addTask(draft)
        }
        try run("contacts delete") { store in
            store.context.delete(try RecordResolver(store: store).resolve("ann", as: .contact))
        }
        let afterDelete = try open()
        XCTAssertNil((try RecordResolver(store: afterDelete).resolve("Call", as: .task) as? TaskItem)?.assignee)

        _ = try open().undo()
        let store = try open()
        let task = try XCTUnwrap(RecordResolver(store: store).resolve("Call", as: .task) as? TaskItem)
        let ann = try XCTUnwrap(task.assignee)
        XCTAssertEqual(ann.name, "Ann Lee")
        XCTAssertEqual(ann.emailAddresses.map(\.address), ["ann@example.org", "ann@home.example"])
        XCTAssertEqual(ann.emailAddresses.first?.label, "work")
        XCTAssertEqual(ann.number, 1)
    }

    func testUndoOfTaskDeleteRestoresSubtasksAndTags() throws {
        try run("tasks add") { store in
            var parent = TaskDraft(title: "Move")
            parent.tags = ["home", "big"]
            _ = try store.addTask(parent)
        }
        try run("tasks add sub") { store in
            var child = TaskDraft(title: "Pack")
            child.parent = "1"
            _ = try store.addTask(child)
        }
        try run("tasks delete") { store in store.context.delete(try RecordResolver(store: store).resolve("1", as: .task)) }
        XCTAssertEqual(try titles(open()), [])
        _ = try open().undo()
        let store = try open()
        let move = try XCTUnwrap(RecordResolver(store: store).resolve("Move", as: .task) as? TaskItem)
        XCTAssertEqual(move.subtasks.map(\.title), ["Pack"])
        XCTAssertEqual(Set(move.tags.compactMap(\.name)), ["home", "big"])
    }

    func testUndoRefusesWhenTheRecordChangedSince() throws {
        try run("tasks add") { try $0.addTask(TaskDraft(title: "A")) }
        try run("tasks done") { store in store.complete(try XCTUnwrap(RecordResolver(store: store).resolve("1", as: .task) as? TaskItem)) }
        // A change outside the journal, as another program writing the store would make.
        let other = try open(at: now.addingTimeInterval(60))
        let task = try XCTUnwrap(RecordResolver(store: other).resolve("1", as: .task) as? TaskItem)
        task.title = "A, renamed elsewhere"
        try other.context.save()

        XCTAssertThrowsError(try open().undo()) { error in
            XCTAssertEqual((error as? PIMError)?.exitCode, .conflict)
        }
        XCTAssertEqual(try titles(open()), ["A, renamed elsewhere"])
    }

    func testNothingToUndoIsNoMatch() throws {
        XCTAssertThrowsError(try open().undo()) { XCTAssertEqual(($0 as? PIMError)?.exitCode, .noMatch) }
        XCTAssertThrowsError(try open().redo()) { XCTAssertEqual(($0 as? PIMError)?.exitCode, .noMatch) }
    }

    func testNewCommandDropsTheRedoHistory() throws {
        try run("tasks add A") { try $0.addTask(TaskDraft(title: "A")) }
        _ = try open().undo()
        try run("tasks add B") { try $0.addTask(TaskDraft(title: "B")) }
        XCTAssertThrowsError(try open().redo())
    }

    func testUndoingTwiceGoesFurtherBack() throws {
        try run("tasks add A") { try $0.addTask(TaskDraft(title: "A")) }
        try run("tasks add B") { try $0.addTask(TaskDraft(title: "B")) }
        _ = try open().undo()
        _ = try open().undo()
        XCTAssertEqual(try titles(open()), [])
        _ = try open().redo()
        XCTAssertEqual(try titles(open()), ["A"])
    }
}

final class NumberAndResolverTests: PIMStoreTestCase {
    func testNumbersStayUntilDeletionAndAreThenReused() throws {
        for title in ["A", "B", "C"] { try run("add") { try $0.addTask(TaskDraft(title: title)) } }
        try run("delete") { store in store.context.delete(try RecordResolver(store: store).resolve("2", as: .task)) }
        let store = try open()
        XCTAssertEqual(try RecordResolver(store: store).resolve("3", as: .task).value(forKey: "title") as? String, "C")
        let added = try run("add D") { try $0.addTask(TaskDraft(title: "D")) }
        XCTAssertEqual(added.number, 2)
    }

    func testRestoredRecordWhoseNumberWasTakenGetsANewOne() throws {
        try run("add A") { try $0.addTask(TaskDraft(title: "A")) }
        try run("delete A") { store in store.context.delete(try RecordResolver(store: store).resolve("1", as: .task)) }
        let reused = try run("add B") { try $0.addTask(TaskDraft(title: "B")) }
        XCTAssertEqual(reused.number, 1)
        // Undo "add B" then "delete A": A comes back with its number 1, free again.
        _ = try open().undo()
        _ = try open().undo()
        let store = try open()
        XCTAssertEqual(try RecordResolver(store: store).resolve("1", as: .task).value(forKey: "title") as? String, "A")
    }

    func testNumbersAreCountedPerKind() throws {
        try run("add") { store in
            _ = try store.addTask(TaskDraft(title: "T"))
            _ = try store.addContact(ContactDraft(name: "Ann"))
        }
        let store = try open()
        XCTAssertEqual(try RecordResolver(store: store).resolve("1", as: .contact).value(forKey: "name") as? String, "Ann")
        XCTAssertEqual(try RecordResolver(store: store).resolve("1", as: .task).value(forKey: "title") as? String, "T")
    }

    func testUUIDPrefixResolves() throws {
        let task = try run("add") { try $0.addTask(TaskDraft(title: "T")) }
        let uuid = try XCTUnwrap(task.uuid).uuidString.lowercased()
        let store = try open()
        XCTAssertEqual(try RecordResolver(store: store).resolve(String(uuid.prefix(8)), as: .task).value(forKey: "title") as? String, "T")
        XCTAssertEqual(try RecordResolver(store: store).resolve(uuid.uppercased(), as: .task).value(forKey: "title") as? String, "T")
    }

    func testNamesResolveExactlyThenByPart() throws {
        try run("add") { store in
            _ = try store.addContact(ContactDraft(name: "Ann"))
            _ = try store.addContact(ContactDraft(name: "Annabel Smith"))
            _ = try store.addContact(ContactDraft(name: "Bob Smith"))
        }
        let resolver = RecordResolver(store: try open())
        XCTAssertEqual(try resolver.resolve("ann", as: .contact).value(forKey: "name") as? String, "Ann")
        XCTAssertEqual(try resolver.resolve("bob", as: .contact).value(forKey: "name") as? String, "Bob Smith")
        XCTAssertThrowsError(try resolver.resolve("smith", as: .contact)) { error in
            guard case let .ambiguous(_, _, candidates)? = error as? PIMError else { return XCTFail("\(error)") }
            XCTAssertEqual(candidates.count, 2)
        }
        XCTAssertThrowsError(try resolver.resolve("zed", as: .contact)) { XCTAssertEqual(($0 as? PIMError)?.exitCode, .notFound) }
    }
}

final class ConcurrentEditTests: PIMStoreTestCase {
    func testSecondOfTwoConcurrentEditsIsAConflict() throws {
        try run("add") { try $0.addTask(TaskDraft(title: "A")) }
        let first = try open()
        let second = try open()
        let mine = try XCTUnwrap(RecordResolver(store: first).resolve("1", as: .task) as? TaskItem)
        let theirs = try XCTUnwrap(RecordResolver(store: second).resolve("1", as: .task) as? TaskItem)
        mine.title = "A, first"
        theirs.title = "A, second"
        try first.commit(command: "edit first")
        XCTAssertThrowsError(try second.commit(command: "edit second")) { error in
            XCTAssertEqual((error as? PIMError)?.exitCode, .conflict, "\(error)")
        }
        XCTAssertEqual(try titles(open()), ["A, first"])
    }
}
