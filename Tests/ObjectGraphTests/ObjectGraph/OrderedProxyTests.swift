// The ordered to-many proxy, `mutableOrderedSetValue(forKey:)`, as Core Data's NSMutableOrderedSet
// proxy: inserting, removing, replacing, exchanging and moving by position, each saved in order on
// both stores, undone in one step, and a move changing no inverse. A position out of range and an
// unordered relationship are programming errors that trap (probed in a child process).
import Foundation
import XCTest
@testable import ObjectGraph

final class OrderedProxyTests: XCTestCase {
    private func titles(_ objects: [ManagedObject]) -> [String] { objects.map { $0.value(forKey: "title") as? String ?? "?" } }

    private func storedTitles(_ stack: Stack, _ person: ManagedObject) throws -> [String] {
        let fresh = try stack.newContext().existingObject(with: person.objectID)
        return titles((fresh.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements ?? [])
    }

    /// Ada with tasks A through E, in that order, saved; and her proxy.
    private func ada(_ stack: Stack) throws -> (ManagedObject, MutableRelationship, [ManagedObject]) {
        let ada = stack.person("Ada")
        let tasks = ["A", "B", "C", "D", "E"].map { stack.task($0, owner: ada) }
        try stack.context.save()
        return (ada, ada.mutableOrderedSetValue(forKey: "tasks"), tasks)
    }

    func testPositionalChangesKeepTheOrderAndTheInverseAndAreSaved() throws {
        try forEachStore { stack in
            let (ada, list, tasks) = try ada(stack)
            XCTAssertTrue(list.isOrdered)
            XCTAssertEqual(list.firstIndex(of: tasks[2]), 2)
            XCTAssertIdentical(list[4], tasks[4])

            let removed = list.remove(at: 1)
            XCTAssertIdentical(removed, tasks[1])
            XCTAssertNil(tasks[1].value(forKey: "owner"), "\(stack.storeType): the removed task leaves Ada")
            XCTAssertEqual(titles(list.objects), ["A", "C", "D", "E"])

            let fresh = stack.task("F"), other = stack.task("G")
            list[0] = fresh
            XCTAssertIdentical(fresh.value(forKey: "owner") as? ManagedObject, ada)
            XCTAssertNil(tasks[0].value(forKey: "owner"), "\(stack.storeType): the replaced task leaves Ada")
            list.replace(at: 1, with: fresh)   // already there: nothing
            XCTAssertEqual(titles(list.objects), ["F", "C", "D", "E"])

            list.exchange(at: 0, with: 3)
            XCTAssertEqual(titles(list.objects), ["E", "C", "D", "F"])
            list.insert(contentsOf: [other, tasks[2], tasks[0]], at: 1)   // C is there already
            XCTAssertEqual(titles(list.objects), ["E", "G", "A", "C", "D", "F"])
            list.remove(atOffsets: IndexSet([0, 5]))
            XCTAssertEqual(titles(list.objects), ["G", "A", "C", "D"])
            try stack.context.save()
            XCTAssertEqual(try storedTitles(stack, ada), ["G", "A", "C", "D"], "\(stack.storeType)")
            XCTAssertNil(tasks[4].value(forKey: "owner"))
        }
    }

    /// SwiftUI's `move(fromOffsets:toOffset:)`: the moved objects, in their order, stand
    /// before the object that was at the offset.
    func testMovesFollowMoveFromOffsetsToOffset() throws {
        let cases: [(IndexSet, Int, [String])] = [
            ([0], 2, ["B", "A", "C", "D", "E"]), ([0], 5, ["B", "C", "D", "E", "A"]), ([4], 0, ["E", "A", "B", "C", "D"]),
            ([1, 3], 0, ["B", "D", "A", "C", "E"]), ([0, 2], 4, ["B", "D", "A", "C", "E"]),
            ([1, 2], 2, ["A", "B", "C", "D", "E"]), ([3], 3, ["A", "B", "C", "D", "E"]), ([], 1, ["A", "B", "C", "D", "E"]),
        ]
        for (positions, destination, expected) in cases {
            try forEachStore { stack in
                let (ada, list, _) = try ada(stack)
                list.move(fromOffsets: positions, toOffset: destination)
                XCTAssertEqual(titles(list.objects), expected, "\(stack.storeType) \(Array(positions)) → \(destination)")
                try stack.context.save()
                XCTAssertEqual(try storedTitles(stack, ada), expected, "\(stack.storeType) saved \(Array(positions)) → \(destination)")
            }
        }
    }

    /// A move or an exchange is a change of the list only: no task is changed (their owner is
    /// the same), and one undo puts the order back.
    func testAMoveChangesNoInverseAndUndoesInOneStep() throws {
        try forEachStore(undo: true) { stack in
            let (ada, list, tasks) = try ada(stack)
            stack.context.undoManager?.removeAllActions()
            list.move(fromOffsets: IndexSet([0, 1]), toOffset: 5)
            XCTAssertEqual(titles(list.objects), ["C", "D", "E", "A", "B"])
            XCTAssertEqual(stack.context.updatedObjects, [ada], "\(stack.storeType): only Ada changed")
            XCTAssertTrue(tasks.allSatisfy { !$0.hasChanges })
            stack.context.processPendingChanges()
            stack.context.undoManager?.undo()
            XCTAssertEqual(titles(list.objects), ["A", "B", "C", "D", "E"], "\(stack.storeType) after undo")
            list.exchange(at: 0, with: 4)
            try stack.context.save()
            XCTAssertEqual(try storedTitles(stack, ada), ["E", "B", "C", "D", "A"], "\(stack.storeType)")
        }
    }

    // MARK: Programming errors (probed in a child process: they trap)

    func testAnInsertPastTheEndTraps() throws {
        let result = try ChildProcessProbe.run("OrderedProxyTests", "testProbeInsertPastTheEnd")
        XCTAssertTrue(result.crashed, "an insert past the end should trap, as NSMutableOrderedSet raises; child: \(result.tail)")
        XCTAssertTrue(result.output.contains("Person.tasks: position 4 is out of range for 3 objects"), result.tail)
    }

    func testProbeInsertPastTheEnd() throws {
        try ChildProcessProbe.skipUnlessProbing()
        let stack = try Stack(storeType: .inMemory)
        let ada = stack.person("Ada")
        for title in ["A", "B", "C"] { _ = stack.task(title, owner: ada) }
        ada.mutableOrderedSetValue(forKey: "tasks").insert(stack.task("D"), at: 4)
    }

    func testAnOrderedProxyOfAnUnorderedRelationshipTraps() throws {
        let result = try ChildProcessProbe.run("OrderedProxyTests", "testProbeOrderedProxyOfUnorderedRelationship")
        XCTAssertTrue(result.crashed, "child: \(result.tail)")
        XCTAssertTrue(result.output.contains("Person.events is not ordered"), result.tail)
    }

    func testProbeOrderedProxyOfUnorderedRelationship() throws {
        try ChildProcessProbe.skipUnlessProbing()
        let stack = try Stack(storeType: .inMemory)
        _ = stack.person("Ada").mutableOrderedSetValue(forKey: "events")
    }
}
