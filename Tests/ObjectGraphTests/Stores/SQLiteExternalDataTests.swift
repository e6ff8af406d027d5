// Binary values of attributes that allow external storage: large ones go to files beside the
// store (0600, written atomically), small ones stay inline; files follow their rows through
// updates, deletes, failed saves, copies and destruction.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteExternalDataTests: XCTestCase {
    private let big = Data((0..<4096).map { UInt8($0 % 251) })

    private func fixture() throws -> SQLiteStoreFixture {
        try SQLiteStoreFixture(options: ["externalStorageThreshold": 1024])
    }

    private func files(_ f: SQLiteStoreFixture) throws -> [String] {
        let directory = f.store.externalData.directory
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    private func storedColumn(_ f: SQLiteStoreFixture) throws -> SQLiteValue? {
        try f.store.lock.withLock { try f.store.connection.scalar("SELECT ZBIGDATA FROM ZSAMPLE") }
    }

    func testLargeValuesGoToPrivateFilesBesideTheStore() throws {
        let f = try fixture()
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["bigData": .value(big)])])
        let names = try files(f)
        XCTAssertEqual(names.count, 1)
        XCTAssertEqual(f.store.externalData.directory.path, f.directory.url.appendingPathComponent(".tasks_SUPPORT/_EXTERNAL_DATA").path)
        let file = f.store.externalData.directory.appendingPathComponent(names[0])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try storedColumn(f), .blob(Data([0x02]) + Data(names[0].utf8)))
        try f.reopen()
        XCTAssertEqual(try f.stored(id)?.value(forKey: "bigData"), .value(big))
    }

    func testSmallValuesStayInline() throws {
        let f = try fixture()
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["bigData": .value(Data([9, 8]))])])
        XCTAssertEqual(try files(f), [])
        XCTAssertEqual(try storedColumn(f), .blob(Data([0x01, 9, 8])))
    }

    func testUpdatingOrDeletingTheRowRemovesItsFile() throws {
        let f = try fixture()
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["bigData": .value(big)])])
        let first = try files(f)
        try f.save(StoreSaveRequest(updated: [f.row(id, ["bigData": .value(big + Data([1]))], version: 1)]))
        let second = try files(f)
        XCTAssertEqual(second.count, 1)
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(try f.stored(id)?.value(forKey: "bigData"), .value(big + Data([1])))
        try f.save(StoreSaveRequest(deleted: [(id, 2)]))
        XCTAssertEqual(try files(f), [])
    }

    func testFailedSaveRemovesTheFilesItWrote() throws {
        let f = try fixture()
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["bigData": .value(big)])])
        let before = try files(f)
        let other = try f.newID("Sample")
        let a = try f.newID("Person"), b = try f.newID("Person")
        XCTAssertThrowsError(try f.save(StoreSaveRequest(
            inserted: [f.row(other, ["bigData": .value(big)]), f.row(a, ["email": .value("x@y")]), f.row(b, ["email": .value("x@y")])],
            updated: [f.row(id, ["bigData": .value(big + big)], version: 1)])))
        XCTAssertEqual(try files(f), before)
        XCTAssertEqual(try f.stored(id)?.value(forKey: "bigData"), .value(big))
    }

    func testCopiesCarryTheirFilesAndDestroyingRemovesThem() throws {
        let f = try fixture()
        let id = try f.newID("Sample")
        try f.insert([f.row(id, ["bigData": .value(big)])])
        let copy = f.directory.url.appendingPathComponent("copy.sqlite")
        try f.store.copy(to: copy)
        let copied = try SQLiteStore(url: copy)
        try copied.load(model: f.model)
        XCTAssertEqual(try copied.snapshots(for: [id])[id]?.value(forKey: "bigData"), .value(big))
        copied.unload()
        try SQLiteStore.destroy(at: copy)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.directory.url.appendingPathComponent(".copy_SUPPORT").path))
        XCTAssertEqual(try files(f).count, 1)
    }
}
