// `objectgraph store info` on files that are not stores, stores of other
// programs, missing and non-model --model files, JSON output with application metadata, and
// the man page's promise that the store is never created or changed.
import Foundation
import XCTest
import ObjectGraph

final class StoreCommandEdgeTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-edge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func objectgraph(_ arguments: [String]) throws -> ProgramRun {
        try run(productsDirectory.appendingPathComponent("objectgraph"), arguments, scratch: directory)
    }

    private var organizer: URL { repositoryRoot.appendingPathComponent("Data/Organizer.xcdatamodeld") }

    /// A closed SQLite store of the organizer model (in its own folder) with one person and
    /// `metadata` set by the application.
    private func makeStore(metadata: [String: any Sendable] = [:]) throws -> URL {
        let folder = directory.appendingPathComponent("stores")
        let url = folder.appendingPathComponent("organizer.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: organizer))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        if !metadata.isEmpty {
            var current = coordinator.metadata(for: store)
            for (key, value) in metadata { current[key] = value }
            coordinator.setMetadata(current, for: store)
        }
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
        try context.save()
        try coordinator.remove(store)
        return url
    }

    private func contents(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    func testInfoOnATextFileExitsSixtySixNamingItAndLeavesIt() throws {
        let text = directory.appendingPathComponent("notes.sqlite")
        try Data("just text, not a database".utf8).write(to: text)
        let run = try objectgraph(["store", "info", text.path])
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertTrue(run.stderr.contains(text.path), run.stderr)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(try String(contentsOf: text, encoding: .utf8), "just text, not a database")
    }

    func testInfoOnAnEmptyFileExitsSixtySix() throws {
        let empty = directory.appendingPathComponent("empty.sqlite")
        try Data().write(to: empty)
        let run = try objectgraph(["store", "info", empty.path])
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertTrue(run.stderr.contains(empty.path), run.stderr)
        XCTAssertEqual(try Data(contentsOf: empty).count, 0)
    }

    func testInfoOnAMissingModelExitsSixtySix() throws {
        let store = try makeStore()
        let run = try objectgraph(["store", "info", store.path, "--model", directory.appendingPathComponent("none.xcdatamodeld").path])
        XCTAssertEqual(run.status, 66, run.stderr)
    }

    /// A --model file that cannot be read as a model fails naming it, and prints no report
    /// (the tool exits 1 for malformed model XML, as `model validate` does).
    func testInfoWithAModelPathThatIsNotAModelFailsNamingIt() throws {
        let store = try makeStore()
        let notModel = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: notModel)
        let run = try objectgraph(["store", "info", store.path, "--model", notModel.path])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains(notModel.path), run.stderr)
        XCTAssertEqual(run.stdout, "")
    }

    func testInfoWithoutAStoreArgumentIsAUsageError() throws {
        let run = try objectgraph(["store", "info"])
        XCTAssertEqual(run.status, 64, run.stderr)
    }

    /// The man page: the store "is never created or changed": no -wal or -shm left beside it.
    func testInfoLeavesNoFilesBesideTheStore() throws {
        let store = try makeStore()
        let folder = store.deletingLastPathComponent()
        XCTAssertEqual(try contents(of: folder), ["organizer.sqlite"])
        let before = try Data(contentsOf: store)
        let run = try objectgraph(["store", "info", store.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try contents(of: folder), ["organizer.sqlite"], "store info left files beside the store")
        XCTAssertEqual(try Data(contentsOf: store), before)
    }

    /// --json is one valid object with the documented keys, with application metadata of any
    /// property-list type.
    func testInfoJSONIsValidWithApplicationMetadata() throws {
        let store = try makeStore(metadata: ["Owner": "ada", "Count": 3, "Ratio": 0.25, "Since": Date(timeIntervalSince1970: 0),
                                             "Tags": ["a", "b"], "Blob": Data([1, 2, 3])])
        let run = try objectgraph(["store", "info", store.path, "--json", "--model", organizer.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(Set(json?.keys.map { $0 } ?? []), ["path", "uuid", "versionChecksum", "files", "metadata", "entities", "rows", "schema", "differences"])
        let metadata = json?["metadata"] as? [String: Any] ?? [:]
        XCTAssertEqual(Set(metadata.keys), ["Owner", "Count", "Ratio", "Since", "Tags", "Blob"], "\(metadata)")
        XCTAssertEqual(json?["differences"] as? [String], [])
        XCTAssertEqual((json?["rows"] as? [String: Int])?["Person"], 1)
    }

    /// A closed store copied with cp (no -wal) is read as the store it is, under its new path.
    func testInfoOnAFileCopiedStoreReadsIt() throws {
        let store = try makeStore()
        let other = directory.appendingPathComponent("other.db")
        try FileManager.default.copyItem(at: store, to: other)
        let run = try objectgraph(["store", "info", other.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("store \(other.path)"), run.stdout)
    }
}
