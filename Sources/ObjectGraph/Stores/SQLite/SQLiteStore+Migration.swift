// Lightweight migration when a SQLite store opens: a file made with another version of the model
// is migrated in place to the store's model, with a mapping inferred from the model the file was
// made with (kept in Z_MODELCACHE) and the new one, as Core Data does with
// NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption.
import Foundation

extension SQLiteStore {
    /// The option (Core Data's `NSMigratePersistentStoresAutomaticallyOption`, true) that migrates
    /// a file made with another version of the model when the store opens. A store description
    /// sets it unless told not to (``PersistentStoreDescription/shouldMigrateStoreAutomatically``).
    public static let migratesAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
    /// The option (Core Data's `NSInferMappingModelAutomaticallyOption`, true) that lets that
    /// migration infer its mapping from the two models (``MappingModel/inferredMappingModel(forSourceModel:destinationModel:)``).
    public static let infersMappingModelOption = "NSInferMappingModelAutomaticallyOption"

    /// Whether the file whose metadata is `metadata` must be migrated to `model` before it opens:
    /// false when it is compatible; throws ``StoreError/incompatibleModel(path:differences:)``
    /// when it is not and the store does not migrate (not asked to, or read-only).
    func needsMigration(_ metadata: [String: any Sendable], hashes: [String: Data], schema: SQLiteSchema,
                        model: ManagedObjectModel) throws -> Bool {
        do {
            try checkCompatibility(of: metadata, hashes: hashes, schema: schema, model: model)
            return false
        } catch StoreError.incompatibleModel where migratesAutomatically && !isReadOnly {
            return true
        }
    }

    /// Migrates the file, in the caller's write transaction, from the model it was made with to
    /// `model`, and records `model`'s hashes and XML. Lock held. Throws ``MigrationError``: the
    /// transaction then rolls back and the file is as it was.
    func migrate(to model: ManagedObjectModel, schema: SQLiteSchema, hashes: [String: Data],
                 propertyHashes: [String: [String: Data]]) throws {
        var sourceSchema: SQLiteSchema?
        let (_, mapping) = try MappingModel.inferredForStore(at: fileURL.path, infers: infersMappingModel, from: {
            let (sourceModel, schema) = try storedModel()
            sourceSchema = schema
            return sourceModel
        }, to: model)
        guard let sourceSchema else {
            throw MigrationError(.missingSourceModel, "the layout of the model the file was made with is not known", path: fileURL.path)
        }
        try SQLiteMigration(connection: connection, source: sourceSchema, destination: schema, mapping: mapping, path: fileURL.path).run()
        storedMetadata[Self.versionHashesKey] = hashes
        storedMetadata[Self.propertyVersionHashesKey] = propertyHashes
        try writeMetadata()
        try connection.execute("DELETE FROM Z_MODELCACHE")
        try connection.execute("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(Data(model.xmlString().utf8))])
    }

    /// The model the file was made with, from Z_MODELCACHE, and the layout of the entities the
    /// file holds (those of the configuration it was made for): checked against the file's hashes.
    private func storedModel() throws -> (ManagedObjectModel, SQLiteSchema) {
        guard case .blob(let xml)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") else {
            throw MigrationError(.missingSourceModel, "the file holds no copy of the model it was made with (Z_MODELCACHE is empty)", path: fileURL.path)
        }
        let model: ManagedObjectModel
        do {
            model = try ManagedObjectModel(xmlData: xml, path: fileURL.path + " (Z_MODELCACHE)")
        } catch {
            throw MigrationError(.missingSourceModel, "the copy of the model the file was made with cannot be read: \(error)", path: fileURL.path)
        }
        model.freeze()
        let stored = storedMetadata[Self.versionHashesKey] as? [String: Data] ?? [:]
        for configuration in [configurationName, nil] + model.configurations.map(\.name) {
            guard let schema = try? SQLiteSchema(model: model, configuration: configuration),
                  model.isCompatible(storedHashes: stored, entities: schema.entities) else { continue }
            return (model, schema)
        }
        throw MigrationError(.missingSourceModel, "the store was written with a different model, and the copy of a model in Z_MODELCACHE is not the one its version hashes name: no mapping can be inferred", path: fileURL.path)
    }
}
