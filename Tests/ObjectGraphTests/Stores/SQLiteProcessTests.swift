// Two processes writing one SQLite store: this test binary runs itself twice as writers on the
// same (new) file at once; every row of both must be there, under the one UUID the store got.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteProcessTests: XCTestCase {
    /// The store the writer test writes to when a parent test launches it.
    private static let storeVariable = "OBJECTGRAPH_TEST_WRITER_STORE"
    private static let rowsPerWriter = 150

    /// Saves `rowsPerWriter` tags one save at a time, each named after the store's UUID, into the
    /// store the parent names (or a store of its own), then checks they are all there.
    func testWriterSavesEveryRowOneSaveAtATime() throws {
        let directory = try TemporaryDirectory()
        let path = ProcessInfo.processInfo.environment[Self.storeVariable] ?? directory.url.appendingPathComponent("writer.sqlite").path
        let model = SQLiteStoreFixture.makeModel()
        let store = try SQLiteStore(url: URL(fileURLWithPath: path))
        try store.load(model: model)
        let tag = model.entitiesByName["Tag"]!
        var written: [ObjectID] = []
        for n in 0..<Self.rowsPerWriter {
            let id = try store.obtainPermanentIDs(for: [ObjectID.temporary(for: tag)])[0]
            _ = try store.save(StoreSaveRequest(inserted: [Snapshot(objectID: id, version: 0, values: [.value("\(store.identifier) \(n)"), .objects([])])]))
            written.append(id)
        }
        XCTAssertEqual(try store.snapshots(for: written).count, Self.rowsPerWriter)
    }

    func testTwoProcessesWritingOneNewStoreLoseNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("shared.sqlite")
        let writers = try (0..<2).map { n -> (process: Process, log: URL) in
            let log = directory.url.appendingPathComponent("writer\(n).log")
            XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["ObjectGraphTests.SQLiteProcessTests/testWriterSavesEveryRowOneSaveAtATime"]
            process.environment = ProcessInfo.processInfo.environment.merging([Self.storeVariable: url.path]) { _, new in new }
            process.standardOutput = try FileHandle(forWritingTo: log)
            process.standardError = process.standardOutput
            try process.run()
            return (process, log)
        }
        for (process, log) in writers {
            process.waitUntilExit()
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            XCTAssertEqual(process.terminationStatus, 0, output.split(separator: "\n").filter { $0.contains("error") }.joined(separator: "\n"))
        }
        let info = try SQLiteStoreInfo(url: url)
        XCTAssertEqual(info.rowCounts["Tag"], 2 * Self.rowsPerWriter)
        let store = try SQLiteStore(url: url)
        try store.load(model: SQLiteStoreFixture.makeModel())
        let request = StoreFetchRequest(entity: store.model.entitiesByName["Tag"]!)
        guard case .snapshots(let rows) = try store.execute(request) else { return XCTFail("no rows") }
        let names = rows.compactMap { row -> String? in
            if case .value(let name as String)? = row.value(forKey: "name") { return name }
            return nil
        }
        XCTAssertEqual(names.count, 2 * Self.rowsPerWriter)
        XCTAssertTrue(names.allSatisfy { $0.hasPrefix(store.identifier + " ") }, "rows were written under another UUID")
        XCTAssertEqual(Set(rows.compactMap(\.objectID.primaryKey)), Set(1...Int64(2 * Self.rowsPerWriter)))
    }
}
