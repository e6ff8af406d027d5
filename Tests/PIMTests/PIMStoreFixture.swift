// A PIM store in a temporary folder at a fixed instant (Wednesday 2026-11-25 10:30, Berlin), and
// reopening it as a later pim run would.
import Foundation
import XCTest
@testable import PIM

class PIMStoreTestCase: XCTestCase {
    var folder: URL!
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let now = Date(timeIntervalSince1970: 1_795_599_000)

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pim-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The store as a new pim run opens it.
    func open(at instant: Date? = nil) throws -> PIMStore {
        try PIMStore(url: folder.appendingPathComponent("pim.sqlite"), now: instant ?? now, timeZone: zone)
    }

    /// Runs one command on a freshly opened store and commits it.
    @discardableResult
    func run<T>(_ command: String, _ body: (PIMStore) throws -> T) throws -> T {
        let store = try open()
        let result = try body(store)
        try store.commit(command: command)
        return result
    }

    func titles(_ store: PIMStore, kind: RecordKind = .task, all: Bool = true) throws -> [String] {
        var query = RecordQuery(kind: kind)
        query.sort = ["number"]
        if kind == .task, !all { query.filters = try store.predicates(for: TaskFilter()) }
        return try store.list(query).map { $0.value(forKey: kind.nameKey) as? String ?? "" }
    }
}
