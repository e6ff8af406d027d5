// What the XML store tests share: a directory for the store file, and opening the store.
import Foundation
import XCTest
@testable import ObjectGraph

class XMLStoreTestCase: XCTestCase {
    var directory: TemporaryDirectory!
    /// The store file the tests open.
    var storeURL: URL { directory.url.appendingPathComponent("store.xml") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
        super.tearDown()
    }

    /// A context on a new coordinator with the XML store at `url` (default ``storeURL``), read
    /// from the file.
    func open(_ model: ManagedObjectModel, at url: URL? = nil, options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .xml, at: url ?? storeURL, options: options)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The objects of `entity` in `context`, sorted by `key`.
    func fetch(_ entity: String, _ context: ManagedObjectContext, sortedBy key: String = "name") throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.sortDescriptors = [SortDescriptor(key: key)]
        return try context.fetch(request)
    }

    /// The store file's text.
    func fileText() throws -> String {
        try String(contentsOf: storeURL, encoding: .utf8)
    }
}
