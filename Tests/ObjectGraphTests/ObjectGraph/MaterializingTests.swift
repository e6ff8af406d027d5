// Fetched rows becoming objects: a fetch materializes its rows in chunks (see
// `ManagedObjectContext.materializingChunk`), so these fetch more rows than a chunk holds and put
// the interesting rows on both sides of chunk boundaries: objects registered before the fetch
// (loaded, faults without a row, faults with an older row), awakeFromFetch firing a fault of a
// later chunk, and the row cache's count of users afterwards.
import Foundation
import XCTest
@testable import ObjectGraph

/// Fires the fault of the row it points to (a later chunk's) from its awakeFromFetch.
final class ChainedRow: ManagedObject {
    nonisolated(unsafe) static var awakened: [Int64] = []

    override func awakeFromFetch() {
        super.awakeFromFetch()
        let number = value(forKey: "number") as? Int64 ?? -1
        Self.awakened.append(number)
        if let next = value(forKey: "next") as? ManagedObject {
            _ = next.value(forKey: "text")
        }
    }
}

final class MaterializingTests: XCTestCase {
    static let model: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("ChainedRow", class: "ChainedRow") {
                Attribute("number", .integer64)
                Attribute("text", .string)
                Relationship("next", to: "ChainedRow", inverse: "previous")
                Relationship("previous", to: "ChainedRow", inverse: "next")
            }
        }
        return model
    }()

    /// More rows than two chunks, so that a fetch spans three.
    private var rowCount: Int { 2 * ManagedObjectContext.materializingChunk + 100 }
    /// Rows at and around the chunk boundaries.
    private var boundaryRows: [Int] {
        let chunk = ManagedObjectContext.materializingChunk
        return [0, chunk - 1, chunk, chunk + 1, 2 * chunk - 1, 2 * chunk, rowCount - 1]
    }

    override func setUp() {
        super.setUp()
        ObjectClasses.register(ChainedRow.self)
    }

    /// `rowCount` saved rows numbered from 0, row n pointing to row n + 300 (when there is one).
    /// Empties the log of awakened rows.
    private func makeRows(_ stack: Stack) throws -> [ObjectID] {
        defer { ChainedRow.awakened = [] }
        var rows: [ManagedObject] = []
        for number in 0..<rowCount {
            rows.append(stack.insert("ChainedRow", ["number": Int64(number), "text": "row \(number)"]))
        }
        for number in 0..<(rowCount - 300) { rows[number].setValue(rows[number + 300], forKey: "next") }
        try stack.context.save()
        return rows.map(\.objectID)
    }

    private func fetchAll(_ context: ManagedObjectContext, asFaults: Bool) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: "ChainedRow")
        request.sortDescriptors = [SortDescriptor(key: "number")]
        request.returnsObjectsAsFaults = asFaults
        return try context.fetch(request)
    }

    func testObjectsRegisteredBeforeTheFetchAreTheOnesItReturnsOnEitherSideOfChunkBoundaries() throws {
        try forEachStore(model: Self.model) { stack in
            let ids = try makeRows(stack)
            let reader = stack.newContext()
            // Faults without a row at the boundaries; loaded objects near them.
            let chunk = ManagedObjectContext.materializingChunk
            let loadedRows = [2, chunk - 2, chunk + 2, 2 * chunk + 2]
            let faults = boundaryRows.map { reader.object(with: ids[$0]) }
            let loaded = try loadedRows.map { try reader.existingObject(with: ids[$0]) }
            XCTAssertTrue(faults.allSatisfy(\.isFault))
            XCTAssertFalse(loaded.contains(where: \.isFault))

            let fetched = try fetchAll(reader, asFaults: false)
            XCTAssertEqual(fetched.count, rowCount)
            for (index, row) in boundaryRows.enumerated() {
                XCTAssertTrue(fetched[row] === faults[index], "row \(row)")
                XCTAssertFalse(fetched[row].isFault, "row \(row)")
            }
            for (index, row) in loadedRows.enumerated() {
                XCTAssertTrue(fetched[row] === loaded[index], "row \(row)")
            }
            XCTAssertEqual(fetched.map { $0.value(forKey: "number") as? Int64 }, (0..<Int64(rowCount)).map { $0 })
            XCTAssertEqual(fetched.map { $0.value(forKey: "text") as? String }, (0..<rowCount).map { "row \($0)" })
            // Each object counts once in the row cache, whichever way it was registered.
            XCTAssertEqual(reader.registeredObjects.count, rowCount)
            XCTAssertEqual(stack.coordinator.rowCache.count, rowCount)
        }
    }

    func testFaultsHoldingAnOlderRowTakeTheFetchedOneAcrossChunks() throws {
        try forEachStore(model: Self.model) { stack in
            let ids = try makeRows(stack)
            let reader = stack.newContext()
            // Faults that hold their row: fetched as faults, never fired.
            let faults = try fetchAll(reader, asFaults: true)
            XCTAssertTrue(faults.allSatisfy(\.isFault))
            // Another context changes the boundary rows and saves: newer versions in the store.
            let writer = stack.newContext()
            for row in boundaryRows { try writer.existingObject(with: ids[row]).setValue("changed \(row)", forKey: "text") }
            try writer.save()

            let fetched = try fetchAll(reader, asFaults: false)
            XCTAssertTrue(zip(fetched, faults).allSatisfy { $0 === $1 })
            for row in 0..<rowCount {
                let expected = boundaryRows.contains(row) ? "changed \(row)" : "row \(row)"
                XCTAssertEqual(fetched[row].value(forKey: "text") as? String, expected, "row \(row)")
            }
            XCTAssertEqual(stack.coordinator.rowCache.count, rowCount)
        }
    }

    func testAwakeFromFetchFiringAFaultOfALaterChunkAwakesEachObjectOnce() throws {
        try forEachStore(model: Self.model) { stack in
            _ = try makeRows(stack)
            let reader = stack.newContext()
            let fetched = try fetchAll(reader, asFaults: false)
            XCTAssertEqual(fetched.count, rowCount)
            XCTAssertTrue(fetched.allSatisfy { !$0.isFault })
            // Row n's awakeFromFetch fired row n + 300's fault, which awoke then, before its
            // chunk came: every row awoke exactly once.
            XCTAssertEqual(ChainedRow.awakened.sorted(), (0..<Int64(rowCount)).map { $0 })
            XCTAssertEqual(ChainedRow.awakened.first, 0)
            XCTAssertEqual(ChainedRow.awakened[1], 300)
            for (number, object) in fetched.enumerated() where number + 300 < rowCount {
                XCTAssertTrue(object.value(forKey: "next") as? ManagedObject === fetched[number + 300])
            }
            XCTAssertEqual(stack.coordinator.rowCache.count, rowCount)
        }
    }

    func testFetchedFaultsFireWithTheirRowsAndTheCacheLetsGoOfThemWithTheObjects() throws {
        try forEachStore(model: Self.model) { stack in
            _ = try makeRows(stack)
            let reader = stack.newContext()
            do {
                let fetched = try fetchAll(reader, asFaults: true)
                XCTAssertTrue(fetched.allSatisfy(\.isFault))
                XCTAssertEqual(stack.coordinator.rowCache.count, rowCount)
                XCTAssertTrue(ChainedRow.awakened.isEmpty)
                for row in boundaryRows {
                    XCTAssertEqual(fetched[row].value(forKey: "text") as? String, "row \(row)")
                }
            }
            // The objects went with the array (the saving context keeps its own).
            XCTAssertEqual(reader.registeredObjects.count, 0)
        }
    }
}
