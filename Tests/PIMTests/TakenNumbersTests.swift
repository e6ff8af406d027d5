// The taken record numbers of one kind: a run 1...n known from a count and a maximum, plus
// numbers beyond or below it with gaps; the smallest free number is the first gap.
import ObjectGraph
import XCTest
@testable import PIM

final class TakenNumbersTests: XCTestCase {
    func testARunWithoutGapsGivesTheNextNumber() {
        var taken = TakenNumbers(through: 3)
        XCTAssertTrue(taken.contains(1) && taken.contains(3))
        XCTAssertFalse(taken.contains(0) || taken.contains(4))
        XCTAssertEqual(taken.smallestFree(), 4)
        taken.insert(6)
        taken.insert(4)
        XCTAssertEqual(taken.smallestFree(), 5)
        taken.insert(5)
        // 4, 5 and 6 joined the run.
        XCTAssertEqual(taken.through, 6)
        XCTAssertEqual(taken.smallestFree(), 7)
    }

    func testGapsAreFilledFirst() {
        var taken = TakenNumbers(others: [1, 2, 4, 7])
        XCTAssertEqual(taken.smallestFree(), 3)
        taken.insert(3)
        XCTAssertEqual(taken.smallestFree(), 5)
        XCTAssertFalse(taken.contains(6))
        XCTAssertTrue(taken.contains(7))
    }
}

/// The numbers a save gives, whichever way the allocator asks the store (a count and a maximum,
/// the number index gap by gap, every number at once): always the smallest free ones, with the
/// numbers of records deleted in the same save free again.
final class NumberAllocatorTests: PIMStoreTestCase {
    private func numbers(_ store: PIMStore) throws -> [Int64: ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: RecordKind.task.entityName)
        request.includesPendingChanges = false
        var byNumber: [Int64: ManagedObject] = [:]
        for task in try store.context.fetch(request) { byNumber[(task as! TaskItem).number] = task }
        return byNumber
    }

    func testGapsAndDeletedNumbersGoFirstThenNumbersPastTheHighest() throws {
        try run("add 30") { store in for index in 1...30 { _ = try store.addTask(TaskDraft(title: "t\(index)")) } }
        try run("delete 3 7 20") { store in
            let held = try numbers(store)
            for number in [3, 7, 20] as [Int64] { store.context.delete(held[number]!) }
        }
        // Two new tasks take the two lowest gaps, through the index.
        let two = try run("add 2") { store in try (0..<2).map { _ in try store.addTask(TaskDraft(title: "new")) } }
        XCTAssertEqual(Set(two.map(\.number)), [3, 7])
        // Deleting 25 while adding three: the gap 20, the freed 25, then past the highest (30).
        let three = try run("delete 25, add 3") { store in
            store.context.delete(try numbers(store)[25]!)
            return try (0..<3).map { _ in try store.addTask(TaskDraft(title: "new")) }
        }
        XCTAssertEqual(Set(three.map(\.number)), [20, 25, 31])
    }

    func testRandomSavesGiveTheSmallestFreeNumbersEveryWay() throws {
        var random = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0...UInt64.max, using: &random)
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        let start = seed
        for round in 0..<12 {
            // Up to 30 adds: some saves ask the index, some read every number.
            let (deletes, adds) = (next(4), next(31))
            let (before, given) = try run("round \(round)") { store -> ([Int64], [Int64]) in
                let held = try numbers(store)
                var remaining = held.keys.sorted()
                for _ in 0..<min(deletes, remaining.count) {
                    let number = remaining.remove(at: next(remaining.count))
                    store.context.delete(held[number]!)
                }
                let tasks = try (0..<adds).map { _ in try store.addTask(TaskDraft(title: "r\(round)")) }
                try NumberAllocator(context: store.context).assignNumbers()
                return (remaining, tasks.map(\.number))
            }
            let taken = Set(before)
            let expected = (1...Int64(before.count + adds + 1)).filter { !taken.contains($0) }.prefix(adds)
            XCTAssertEqual(given.sorted(), Array(expected), "round \(round) (seed \(start)): \(deletes) deletes, \(adds) adds")
        }
    }
}
