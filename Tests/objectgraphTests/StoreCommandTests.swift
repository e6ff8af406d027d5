// `objectgraph store info` run as a binary on a SQLite store made here: metadata, rows per
// entity, schema, the model check and its exit codes.
import Foundation
import XCTest
import ObjectGraph

final class StoreCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-info-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func objectgraph(_ arguments: [String]) throws -> ProgramRun {
        try run(productsDirectory.appendingPathComponent("objectgraph"), arguments, scratch: directory)
    }

    private var organizer: URL { repositoryRoot.appendingPathComponent("Data/Organizer.xcdatamodeld") }

    /// A SQLite store of the organizer model with two people and one task.
    private func makeStore() throws -> URL {
        let url = directory.appendingPathComponent("organizer.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: organizer))
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        for name in ["Ada", "Grace"] { context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "firstName") }
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue("Write", forKey: "title")
        task.setValue(UUID(), forKey: "uuid")
        try context.save()
        return url
    }

    func testInfoPrintsRowsPerEntityAndTheSchema() throws {
        let store = try makeStore()
        let run = try objectgraph(["store", "info", store.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("  Person  2 rows"), run.stdout)
        XCTAssertTrue(run.stdout.contains("  Task    1 row"), run.stdout)
        XCTAssertTrue(run.stdout.contains("CREATE TABLE \"ZPERSON\""), run.stdout)
    }

    func testInfoWithTheStoresOwnModelSaysItFits() throws {
        let store = try makeStore()
        let run = try objectgraph(["store", "info", store.path, "--model", organizer.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("opens the store unchanged"), run.stdout)
    }

    func testInfoWithAnotherModelListsTheDifferencesAndExitsOne() throws {
        let store = try makeStore()
        let other = repositoryRoot.appendingPathComponent("Data/PIM.xcdatamodeld")
        let run = try objectgraph(["store", "info", store.path, "--model", other.path, "--json"])
        XCTAssertEqual(run.status, 1)
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let differences = json?["differences"] as? [String] ?? []
        XCTAssertTrue(differences.contains("entity Item was removed"), "\(differences)")
        XCTAssertEqual((json?["rows"] as? [String: Int])?["Person"], 2)
    }

    func testInfoOnAMissingStoreExitsSixtySix() throws {
        let run = try objectgraph(["store", "info", directory.appendingPathComponent("none.sqlite").path])
        XCTAssertEqual(run.status, 66)
        XCTAssertTrue(run.stderr.contains("no SQLite store at"), run.stderr)
    }
}
