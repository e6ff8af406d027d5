// What the staged migration tests share: a store of people whose full names become first and
// last names in three versions. Version 1 has `name`; version 2 adds `firstName` and `lastName`
// (lightweight); version 3 drops `name` and adds `initials`, a custom stage whose
// willMigrateHandler splits the names at version 2 and whose didMigrateHandler fills the
// initials at version 3. No single inferred mapping can carry the names over.
import Foundation
import XCTest
@testable import ObjectGraph

class StagedMigrationTestCase: MigrationTestCase {
    let v1 = ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
    let v2 = ManagedObjectModel {
        Entity("Person") { Attribute("name", .string); Attribute("firstName", .string); Attribute("lastName", .string) }
    }
    let v3 = ManagedObjectModel {
        Entity("Person") { Attribute("firstName", .string); Attribute("lastName", .string); Attribute("initials", .string) }
    }

    /// What the handlers did, from any thread, and the checksum of the model each one's
    /// container had.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        private var checksums: [String] = []
        func append(_ call: String, model: ManagedObjectModel? = nil) {
            lock.withLock {
                list.append(call)
                if let model { checksums.append(model.versionChecksum) }
            }
        }
        var all: [String] { lock.withLock { list } }
        var models: [String] { lock.withLock { checksums } }
    }

    struct HandlerFailure: Error, CustomStringConvertible {
        var description: String { "the handler gave up" }
    }

    /// The custom stage from `from` to `to` (version 2 to 3 by default): willMigrateHandler splits
    /// the names, didMigrateHandler fills the initials, both on background contexts of the
    /// manager's container, each saving; `failing` names a handler that throws after saving.
    func splitStage(_ calls: Calls, from: ManagedObjectModel? = nil, to: ManagedObjectModel? = nil,
                            failing: String? = nil) -> CustomMigrationStage {
        let stage = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: from ?? v2),
                                         to: ManagedObjectModelReference(model: to ?? v3))
        stage.label = "split names"
        stage.willMigrateHandler = { manager, _ in
            let container = try XCTUnwrap(manager.container)
            calls.append("will", model: container.managedObjectModel)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    let parts = (person.value(forKey: "name") as? String ?? "").split(separator: " ")
                    person.setValue(parts.dropLast().joined(separator: " "), forKey: "firstName")
                    person.setValue(parts.last.map(String.init), forKey: "lastName")
                }
                try context.save()
            }
            if failing == "will" { throw HandlerFailure() }
        }
        stage.didMigrateHandler = { manager, _ in
            let container = try XCTUnwrap(manager.container)
            calls.append("did", model: container.managedObjectModel)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    let initials = [person.value(forKey: "firstName"), person.value(forKey: "lastName")]
                        .compactMap { ($0 as? String)?.first.map(String.init) }.joined()
                    person.setValue(initials, forKey: "initials")
                }
                try context.save()
            }
            if failing == "did" { throw HandlerFailure() }
        }
        return stage
    }

    func manager(_ calls: Calls, failing: String? = nil) -> StagedMigrationManager {
        StagedMigrationManager([LightweightMigrationStage(models: [v1, v2]), splitStage(calls, failing: failing)])
    }

    func options(_ manager: StagedMigrationManager) -> [String: any Sendable] {
        var options = Self.migrating
        options[StagedMigrationManager.option] = manager
        return options
    }

    /// A store of `model` at `url` holding people named `names`.
    func people(_ names: [String], at url: URL, model: ManagedObjectModel, type: StoreType = .sqlite,
                        configuration: String? = nil, options: [String: any Sendable] = [:]) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, configuration: configuration, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for name in names { context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name") }
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    /// "first last initials" of every person, sorted by last name.
    func names(in context: ManagedObjectContext) throws -> [String] {
        try fetch("Person", in: context, sortedBy: "lastName").map { person in
            ["firstName", "lastName", "initials"].map { person.value(forKey: $0) as? String ?? "nil" }.joined(separator: " ")
        }
    }
}
