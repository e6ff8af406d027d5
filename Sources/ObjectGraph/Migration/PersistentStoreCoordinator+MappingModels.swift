// A store migrated with a mapping model when it is added (Core Data's automatic migration with a
// mapping model found in the app's bundles, which it prefers to an inferred one): the store is
// migrated into a file beside it, which then takes its place. The original is copied aside
// first and put back if the new one cannot be put in place, so that a failure at any step
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
        guard let url, let mappings = options[MigrationManager.mappingModelsOption] as? [MappingModel], !mappings.isEmpty,
              SQLiteStore.flag(options[SQLiteStore.migratesAutomaticallyOption]),
              !SQLiteStore.flag(options[SQLiteStore.readOnlyOption]),
              FileManager.default.fileExists(atPath: url.path) else { return nil }
        let plain = MigrationManager.plainOptions(options)
        var probe = plain
        probe[SQLiteStore.readOnlyOption] = true
        let hashes = managedObjectModel.entityVersionHashesByName
        for mapping in mappings {
            guard let sourceModel = mapping.sourceModel, sourceModel.entityVersionHashesByName != hashes,
                  (mapping.destinationModel?.entityVersionHashesByName ?? hashes) == hashes else { continue }
            let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
            guard let store = try? sourceCoordinator.addPersistentStore(type: type, at: url, options: probe) else { continue }
            try sourceCoordinator.remove(store)
            try replaceByMigration(storeAt: url, type: type, with: mapping, from: sourceCoordinator, options: plain)
            return store.identifier
        }
        return nil
    }

    /// Migrates the store at `url` into a file beside it and puts that file in its place.
    private func replaceByMigration(storeAt url: URL, type: StoreType, with mapping: MappingModel,
                                    from sourceCoordinator: PersistentStoreCoordinator, options: [String: any Sendable]) throws {
        // Names of their own before the extension: a store's support folder (external binary
        // data) is named after the file name without its extension.
        let directory = url.deletingLastPathComponent()
        let unique = UUID().uuidString
        let base = url.deletingPathExtension().lastPathComponent
        let suffix = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
        let migrated = directory.appendingPathComponent(".\(base)-migrated-\(unique)\(suffix)")
        let original = directory.appendingPathComponent(".\(base)-premigration-\(unique)\(suffix)")
        let manager = MigrationManager(sourceModel: sourceCoordinator.managedObjectModel, destinationModel: managedObjectModel)
        try manager.migrateStore(from: url, type: type, options: options, mapping: mapping, toDestinationURL: migrated,
                                 destinationType: type, destinationOptions: options)
        let migratedCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        defer { try? migratedCoordinator.destroyPersistentStore(at: migrated, type: type, options: options) }
        try sourceCoordinator.replacePersistentStore(at: original, withPersistentStoreFrom: url, type: type, options: options)
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
    }
}
