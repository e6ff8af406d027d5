// What the migration tests share: a store file in a temporary folder, opened by a new coordinator
// of a model version (migrating, by default), and fetches sorted by a key.
import Foundation
import XCTest
@testable import ObjectGraph

class MigrationTestCase: XCTestCase {
    /// Contexts opened by the test, kept alive for it (objects do not keep their context alive).
    var contexts: [ManagedObjectContext] = []
    var directory: TemporaryDirectory!
    /// The store file.
    var url: URL!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        url = directory.url.appendingPathComponent("store.sqlite")
    }

    override func tearDown() {
        contexts = []
        super.tearDown()
    }

    /// The options of a store that migrates with an inferred mapping.
    static let migrating: [String: any Sendable] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                                    NSInferMappingModelAutomaticallyOption: true]

    /// A context on a new coordinator of `model` with the store at `url` (migrating by default),
    /// kept alive for the test.
    func open(_ model: ManagedObjectModel, configuration: String? = nil,
              options: [String: any Sendable] = migrating) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, configuration: configuration, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        contexts.append(context)
        return context
    }

    /// The objects of `entity`, sorted by `key`, matching `format` when given.
    func fetch(_ entity: String, in context: ManagedObjectContext, sortedBy key: String = "name",
               where format: String? = nil) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.sortDescriptors = [SortDescriptor(key: key)]
        if let format { request.predicate = try Predicate(format: format) }
        return try context.fetch(request)
    }

    /// The string values of `key`, "nil" for none.
    func strings(_ objects: [ManagedObject], _ key: String) -> [String] {
        objects.map { $0.value(forKey: key) as? String ?? "nil" }
    }

    /// The file a heavyweight migration writes, beside ``url``.
    var migratedURL: URL { directory.url.appendingPathComponent("migrated.sqlite") }

    /// A context on a new coordinator of `model` with the store of `type` at `url` (no migration
    /// unless `options` ask), kept alive for the test.
    func context(_ model: ManagedObjectModel, at url: URL, type: StoreType = .sqlite,
                 options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        contexts.append(context)
        return context
    }

    // MARK: objc.io's Moody models and mapping models (the corpus)

    static let moody = Corpus.models.appendingPathComponent("objcio__core-data__Moody.xcdatamodeld")
    static let moodyMappings = Corpus.models.appendingPathComponent("objcio__core-data__Moody.mappings")

    /// Version `version` of Moody's model.
    static func moody(_ version: Int) throws -> ManagedObjectModel {
        let model = try ModelFile(url: moody).load(version: "Moody \(version)")
        model.freeze()
        return model
    }

    /// Moody's mapping model from version `from` to the next, read against both.
    static func moodyMapping(_ from: Int) throws -> MappingModel {
        try MappingModel(contentsOf: moodyMappings.appendingPathComponent("Moody_\(from)-Moody_\(from + 1).xcmappingmodel"),
                         sourceModel: moody(from), destinationModel: moody(from + 1))
    }
}
