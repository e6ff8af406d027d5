// The migrations a store goes through when it is added, before the lightweight migration the
// store itself makes: through the stages of a staged migration manager (Core Data's
// NSStagedMigrationManager), then with a mapping model (Core Data's automatic migration with a
// mapping model found in the app's bundles, which it prefers to an inferred one). Either way the
// store is migrated into a file beside it, which then takes its place. The original is copied
// aside first and put back if the new one cannot be put in place, so that a failure at any step
// leaves the store as it was.
import Foundation

extension PersistentStoreCoordinator {
    /// Migrates the store at `url` with the first mapping model of
    /// ``MigrationManager/mappingModelsOption`` whose source model the store opens with and
    /// whose destination is this coordinator's model, when the options ask for automatic
    /// migration, and answers the UUID of the store it replaced. Does nothing otherwise (a store
    /// of this model, or one no mapping is for) and answers nil. The store is opened with the
    /// source model whole (no configuration), as the migration manager opens it.
    func migrateWithMappingModels(type: StoreType, at url: URL?, options: [String: any Sendable]) throws -> String? {
        guard let url = Self.migratableFile(url, options: options),
              let mappings = options[MigrationManager.mappingModelsOption] as? [MappingModel], !mappings.isEmpty else { return nil }
        let plain = MigrationManager.plainOptions(options)
        let hashes = managedObjectModel.entityVersionHashesByName
        for mapping in mappings {
            guard let sourceModel = mapping.sourceModel, sourceModel.entityVersionHashesByName != hashes,
                  (mapping.destinationModel?.entityVersionHashesByName ?? hashes) == hashes,
                  let identifier = Self.identifier(ofStoreAt: url, type: type, configuration: nil, openingWith: sourceModel, options: plain)
            else { continue }
            try replaceByMigration(storeAt: url, type: type, sourceModel: sourceModel, options: plain) { migrated in
                let manager = MigrationManager(sourceModel: sourceModel, destinationModel: managedObjectModel)
                try manager.migrateStore(from: url, type: type, options: plain, mapping: mapping, toDestinationURL: migrated,
                                         destinationType: type, destinationOptions: plain)
            }
            return identifier
        }
        return nil
    }

    /// Migrates the store at `url` (added for `configuration`) through the stages of
    /// ``StagedMigrationManager/option``, when the options ask for automatic migration and the
    /// store is at one of the stages' versions, and answers whether it did. The stages run on a
    /// copy of the store, read from it read-only, which then takes its place (keeping the
    /// store's UUID). Errors name the store.
    func migrateWithStages(type: StoreType, configuration: String?, at url: URL?, options: [String: any Sendable]) throws -> Bool {
        guard let url = Self.migratableFile(url, options: options),
              let manager = options[StagedMigrationManager.option] as? StagedMigrationManager else { return false }
        let plain = MigrationManager.plainOptions(options)
        var readOnly = plain
        readOnly[SQLiteStore.readOnlyOption] = true
        func opens(with model: ManagedObjectModel) -> Bool {
            Self.identifier(ofStoreAt: url, type: type, configuration: StagedMigrationManager.configuration(configuration, in: model),
                            openingWith: model, options: plain) != nil
        }
        do {
            let steps = try manager.steps(to: managedObjectModel)
            // A store already at the last version (the usual case) is found with one open.
            guard !steps.isEmpty, !opens(with: managedObjectModel),
                  let start = steps.firstIndex(where: { opens(with: $0.from) }) else { return false }
            try replaceByMigration(storeAt: url, type: type, sourceModel: steps[start].from, options: plain) { copy in
                try PersistentStoreCoordinator(managedObjectModel: steps[start].from)
                    .replacePersistentStore(at: copy, withPersistentStoreFrom: url, type: type, options: readOnly)
                try manager.run(Array(steps[start...]), type: type, configuration: configuration, at: copy, options: plain)
            }
        } catch var error as MigrationError {
            error.path = error.path ?? url.path
            throw error
        }
        return true
    }

    /// `url` when it is a store file an automatic migration may rewrite: it exists, and the
    /// options ask for automatic migration and do not open it read-only; nil otherwise.
    private static func migratableFile(_ url: URL?, options: [String: any Sendable]) -> URL? {
        guard let url, SQLiteStore.flag(options[SQLiteStore.migratesAutomaticallyOption]),
              !SQLiteStore.flag(options[SQLiteStore.readOnlyOption]),
              FileManager.default.fileExists(atPath: url.path) else { return nil }
        return url
    }

    /// The UUID of the store at `url` when it opens unchanged with `model` (read-only: nothing is
    /// written), nil when it does not.
    private static func identifier(ofStoreAt url: URL, type: StoreType, configuration: String?, openingWith model: ManagedObjectModel,
                                   options: [String: any Sendable]) -> String? {
        var readOnly = options
        readOnly[SQLiteStore.readOnlyOption] = true
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        guard let store = try? coordinator.addPersistentStore(type: type, configuration: configuration, at: url, options: readOnly) else { return nil }
        try? coordinator.remove(store)
        return store.identifier
    }

    /// Makes the migrated store with `migrate`, into a file beside the store at `url` (of
    /// `sourceModel`), and puts that file in its place. The original is copied aside first and
    /// put back if the new file cannot take its place; a failure leaves no file behind.
    private func replaceByMigration(storeAt url: URL, type: StoreType, sourceModel: ManagedObjectModel, options: [String: any Sendable],
                                    migrate: (URL) throws -> Void) throws {
        // Names of their own before the extension: a store's support folder (external binary
        // data) is named after the file name without its extension.
        let directory = url.deletingLastPathComponent()
        let unique = UUID().uuidString
        let base = url.deletingPathExtension().lastPathComponent
        let suffix = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
        let migrated = directory.appendingPathComponent(".\(base)-migrated-\(unique)\(suffix)")
        let original = directory.appendingPathComponent(".\(base)-premigration-\(unique)\(suffix)")
        let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        let migratedCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        defer { try? migratedCoordinator.destroyPersistentStore(at: migrated, type: type, options: options) }
        try migrate(migrated)
        // The store is only read until the new file takes its place (opening it for writing
        // could analyze or vacuum it); the new file gets its permissions.
        var readOnly = options
        readOnly[SQLiteStore.readOnlyOption] = true
        let permissions = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.posixPermissions]
        try sourceCoordinator.replacePersistentStore(at: original, withPersistentStoreFrom: url, type: type, options: readOnly)
        do {
            try migratedCoordinator.replacePersistentStore(at: url, withPersistentStoreFrom: migrated, type: type, options: options)
        } catch {
            // Put the original back; if even that fails, its copy stays beside the store.
            if (try? sourceCoordinator.replacePersistentStore(at: url, withPersistentStoreFrom: original, type: type, options: options)) != nil {
                try? sourceCoordinator.destroyPersistentStore(at: original, type: type, options: options)
            }
            throw MigrationError(.migration, "the migrated store could not replace the store: \(error)", path: url.path)
        }
        try? sourceCoordinator.destroyPersistentStore(at: original, type: type, options: options)
        if let permissions { try? FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: url.path) }
    }
}
