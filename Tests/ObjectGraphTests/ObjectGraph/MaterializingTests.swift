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

/// Reads its owner (a to-one relationship, another entity) from awakeFromFetch.
final class OwnedItem: ManagedObject {
    override func awakeFromFetch() {
        super.awakeFromFetch()
        _ = value(forKey: "owner")
    }
}

/// An in-memory store whose fetches answer one object's row with a value too many, as a faulty
/// custom store might.
final class PaddingStore: PersistentStore, @unchecked Sendable {
    let inner = InMemoryStore()
    /// The object whose fetched rows get the extra value.
    var padded: ObjectID?

    var type: StoreType { inner.type }
    var identifier: String { inner.identifier }
    var url: URL? { inner.url }
    var configurationName: String? { inner.configurationName }
    var metadata: [String: any Sendable] {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }
    func load(model: ManagedObjectModel) throws { try inner.load(model: model) }
    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        guard case .snapshots(var rows) = try inner.execute(request) else { return try inner.execute(request) }
        for index in rows.indices where rows[index].objectID == padded { rows[index].values.append(.null) }
        return .snapshots(rows)
    }
    func snapshots(for objectIDs: [ObjectID]) throws -> [ObjectID: Snapshot] { try inner.snapshots(for: objectIDs) }
    func objectIDs(forRelationship relationship: RelationshipDescription, of objectID: ObjectID) throws -> [ObjectID] {
        try inner.objectIDs(forRelationship: relationship, of: objectID)
    }
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult { try inner.save(request) }
    func obtainPermanentIDs(for temporaryIDs: [ObjectID]) throws -> [ObjectID] { try inner.obtainPermanentIDs(for: temporaryIDs) }
    func unload() { inner.unload() }
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

    func testObjectsAwakeFromFetchMakesAreNotSizedByTheFetch() throws {
        ObjectClasses.register(OwnedItem.self)
        let model = ManagedObjectModel {
            Entity("OwnedItem", class: "OwnedItem") {
                Attribute("number", .integer64)
                Relationship("owner", to: "Owner", inverse: "items")
            }
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("items", to: "OwnedItem", inverse: "owner", toMany: true)
            }
        }
        let stack = try Stack(storeType: .sqlite, model: model)
        let owner = stack.insert("Owner", ["name": "O"])
        let items = (0..<2_000).map { stack.insert("OwnedItem", ["number": Int64($0), "owner": owner]) }
        try stack.context.save()
        let reader = stack.newContext()
        // Registered beforehand, the fetched objects need no new registrations: the fetch's
        // announced size must not reach the owner's, which awakeFromFetch registers.
        let faults = items.map { reader.object(with: $0.objectID) }
        var request = FetchRequest<ManagedObject>(entityName: "OwnedItem")
        request.returnsObjectsAsFaults = false
        XCTAssertEqual(try reader.fetch(request).count, 2_000)
        let ownerRun = try XCTUnwrap(reader.registry.runCapacities.last)
        XCTAssertLessThanOrEqual(ownerRun, 64, "the owner's run has \(ownerRun) slots")
        withExtendedLifetime(faults) {}
    }

    func testAFaultyRowForAnObjectLoadedAlreadyIsLeftUnused() throws {
        for asFaults in [true, false] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
            let store = PaddingStore()
            try coordinator.addPersistentStore(store)
            let context = ManagedObjectContext(concurrencyType: .mainQueue)
            context.persistentStoreCoordinator = coordinator
            for number in 0..<3 { context.insertNewObject(forEntityName: "ChainedRow").setValue(Int64(number), forKey: "number") }
            try context.save()
            let reader = ManagedObjectContext(concurrencyType: .mainQueue)
            reader.persistentStoreCoordinator = coordinator
            var request = FetchRequest<ManagedObject>(entityName: "ChainedRow")
            request.sortDescriptors = [SortDescriptor(key: "number")]
            let loaded = try reader.fetch(request)
            XCTAssertEqual(loaded[1].value(forKey: "number") as? Int64, 1)
            // Fetched again, the loaded object's row comes with a value too many: it is not
            // used, and the object keeps its values.
            store.padded = loaded[1].objectID
            request.returnsObjectsAsFaults = asFaults
            let again = try reader.fetch(request)
            XCTAssertTrue(again[1] === loaded[1])
            XCTAssertEqual(again.map { $0.value(forKey: "number") as? Int64 }, [0, 1, 2])
        }
    }
}
