// Reading what a SQLite store file holds without a model: metadata, the stored model, row
// counts per entity, file sizes, and the differences to another model.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteStoreInfoTests: XCTestCase {
    func testInfoCountsRowsPerEntityAndKeepsTheModel() throws {
        let f = try SQLiteStoreFixture()
        _ = try f.populated()
        let info = try SQLiteStoreInfo(url: f.url)
        XCTAssertEqual(info.identifier, f.store.identifier)
        XCTAssertEqual(info.rowCounts, ["Person": 3, "Task": 3, "Milestone": 1, "Tag": 2, "Step": 3])
        XCTAssertEqual(info.model?.entities.map(\.name).sorted(), f.model.entities.map(\.name).sorted())
        XCTAssertEqual(info.differences(from: f.model), [])
        XCTAssertNotNil(info.fileSizes[f.url.path])
    }

    func testInfoNamesWhatAnotherModelChanges() throws {
        let f = try SQLiteStoreFixture()
        let other = ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
        let differences = try SQLiteStoreInfo(url: f.url).differences(from: other)
        XCTAssertTrue(differences.contains("entity Task was removed"), "\(differences)")
        XCTAssertTrue(differences.contains { $0.hasPrefix("entity Person changed") }, "\(differences)")
    }

    func testInfoOfAMissingFileIsAnErrorAndCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("none.sqlite")
        XCTAssertThrowsError(try SQLiteStoreInfo(url: url)) { error in
            guard case StoreError.unknownStore = error else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    }
}
