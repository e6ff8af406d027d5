// Staged migration (Core Data's NSStagedMigrationManager): a store is taken through a chain of
// model versions one stage at a time, each stage either lightweight (inferred, in SQL for SQLite)
// or custom: the application's code runs on the store at the version before the step
// (willMigrateHandler) and at the version after it (didMigrateHandler), around a lightweight
// step between them. A change no single inferred mapping can make (splitting an attribute,
// turning values into objects, deduplicating before a uniqueness constraint) becomes a few
// small steps, with no mapping model and without loading every object, as a heavyweight
// migration does. The whole chain runs on a copy of the store, which replaces it only at the
// end: a failure at any stage leaves the store as it was.
import Foundation

/// A model version named by its checksum (Core Data's `NSManagedObjectModelReference`).
public final class ManagedObjectModelReference: Sendable {
    /// The model.
    public let resolvedModel: ManagedObjectModel
    /// The checksum the model is referred to by: ``ManagedObjectModel/versionChecksum``, which a
    /// migration checks it against.
    public let versionChecksum: String

    /// A reference to `model`, expected to have `versionChecksum` (a migration through a stage
    /// whose reference does not fails, naming both checksums).
    public init(model: ManagedObjectModel, versionChecksum: String) {
        resolvedModel = model
        self.versionChecksum = versionChecksum
    }

    /// A reference to `model` by its own checksum.
    public convenience init(model: ManagedObjectModel) {
        self.init(model: model, versionChecksum: model.versionChecksum)
    }

    /// A reference to the model read from `fileURL` (a `.xcdatamodel`, or a `.xcdatamodeld`'s
    /// current version), expected to have `versionChecksum` (by default its own).
    public convenience init(fileURL: URL, versionChecksum: String? = nil) throws {
        let model = try ManagedObjectModel(contentsOf: fileURL)
        self.init(model: model, versionChecksum: versionChecksum ?? model.versionChecksum)
    }
}

/// A stage of a staged migration: ``LightweightMigrationStage`` or ``CustomMigrationStage``.
public class MigrationStage: @unchecked Sendable {
    /// A name for the stage, used in errors (by default its position in the manager's stages).
    public var label: String?

    init() {}
}

/// Model versions a store is migrated through one after the other, each step inferred (Core
/// Data's `NSLightweightMigrationStage`).
///
/// ```swift
/// let early = LightweightMigrationStage([v1.versionChecksum, v2.versionChecksum, v3.versionChecksum])
/// ```
public final class LightweightMigrationStage: MigrationStage, @unchecked Sendable {
    /// The versions, in order, by checksum: found among the models of the manager (its `models`,
    /// its custom stages' references and the coordinator's model).
    public let versionChecksums: [String]

    /// A stage through the versions with `versionChecksums`, in order.
    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
        models = []
    }

    /// A stage through `models`, in order.
    public init(models: [ManagedObjectModel]) {
        versionChecksums = models.map(\.versionChecksum)
        self.models = models
    }

    /// The models given with the stage.
    let models: [ManagedObjectModel]
}

/// One step between two model versions with the application's code around it (Core Data's
/// `NSCustomMigrationStage`): ``willMigrateHandler`` runs with the store open at
/// ``currentModel``, then the store is migrated (inferred) to ``nextModel``, then
/// ``didMigrateHandler`` runs with the store open at ``nextModel``. In each handler the
/// manager's ``StagedMigrationManager/container`` holds the store; what a handler changes it
/// saves itself.
///
/// ```swift
/// let split = CustomMigrationStage(migratingFrom: v2Reference, to: v3Reference)
/// split.willMigrateHandler = { manager, _ in
///     let context = try XCTUnwrap(manager.container).newBackgroundContext()
///     try context.performAndWait {
///         for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
///             let parts = (person.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1)
///             person.setValue(parts.first.map(String.init), forKey: "firstName")
///             person.setValue(parts.dropFirst().first.map(String.init), forKey: "lastName")
///         }
///         try context.save()
///     }
/// }
/// ```
public final class CustomMigrationStage: MigrationStage, @unchecked Sendable {
    /// What a handler is given: the manager (its ``StagedMigrationManager/container`` holds the
    /// store) and the stage.
    public typealias Handler = @Sendable (StagedMigrationManager, CustomMigrationStage) throws -> Void

    /// The version the step starts from.
    public let currentModel: ManagedObjectModelReference
    /// The version the step ends at.
    public let nextModel: ManagedObjectModelReference
    /// Runs before the step, with the store open at ``currentModel``.
    public var willMigrateHandler: Handler?
    /// Runs after the step, with the store open at ``nextModel``.
    public var didMigrateHandler: Handler?

    /// A step from `currentModel` to `nextModel`.
    public init(migratingFrom currentModel: ManagedObjectModelReference, to nextModel: ManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
    }
}

/// Migrates a store through its stages when the store is added (Core Data's
/// `NSStagedMigrationManager`): set it as a store's ``option`` (with automatic migration, on by
/// default in a container's descriptions). The store's version is found among the stages'
/// versions, and the store taken through every stage from there to the last version, which
/// must be the coordinator's model. A store of a version no stage names is left to the other
/// migrations (a mapping model, then inference).
///
/// ```swift
/// let manager = StagedMigrationManager([LightweightMigrationStage(models: [v1, v2]), split])
/// description.setOption(manager, forKey: StagedMigrationManager.option)
/// try container.loadPersistentStores()
/// ```
public final class StagedMigrationManager: @unchecked Sendable {
    /// The option under which a store's options hold the manager (Core Data's
    /// `NSPersistentStoreStagedMigrationManagerOptionKey`).
    public static let option = "NSPersistentStoreStagedMigrationManagerOptionKey"

    /// The stages, in order.
    public let stages: [MigrationStage]
    /// Other versions that ``LightweightMigrationStage``s name by checksum (Core Data finds them
    /// in the application's bundle).
    public let models: [ManagedObjectModel]

    private let lock = NSLock()
    private var currentContainer: PersistentContainer?

    /// The container holding the store while a handler runs (nil otherwise).
    public var container: PersistentContainer? { lock.withLock { currentContainer } }

    /// A manager of `stages`, whose lightweight stages' checksums are found among `models`, the
    /// custom stages' models and the coordinator's model.
    public init(_ stages: [MigrationStage], models: [ManagedObjectModel] = []) {
        self.stages = stages
        self.models = models
    }

    /// One step of the chain: from a version to the next, with the stage it belongs to.
    struct Step {
        var from: ManagedObjectModel
        var to: ManagedObjectModel
        var stage: MigrationStage
        var stageName: String
    }

    /// The stage's name in errors: its label, else its position.
    private func name(of stage: MigrationStage) -> String {
        if let label = stage.label { return "stage \"\(label)\"" }
        let position = (stages.firstIndex { $0 === stage } ?? 0) + 1
        return "stage \(position) (\(stage is CustomMigrationStage ? "custom" : "lightweight"))"
    }

    /// The steps of every stage, in order, ending at `destination`; throws naming the stage
    /// whose versions cannot be found, do not follow the stage before, or repeat.
    func steps(to destination: ManagedObjectModel) throws -> [Step] {
        var known: [String: ManagedObjectModel] = [:]
        for model in models + [destination] { known[model.versionChecksum] = known[model.versionChecksum] ?? model }
        for stage in stages {
            if let custom = stage as? CustomMigrationStage {
                for reference in [custom.currentModel, custom.nextModel] {
                    let actual = reference.resolvedModel.versionChecksum
                    guard actual == reference.versionChecksum else {
                        throw MigrationError(.migration, "\(name(of: stage)): a model reference names checksum \(reference.versionChecksum), but its model's checksum is \(actual)")
                    }
                    known[actual] = known[actual] ?? reference.resolvedModel
                }
            } else if let lightweight = stage as? LightweightMigrationStage {
                for model in lightweight.models { known[model.versionChecksum] = known[model.versionChecksum] ?? model }
            }
        }
        var steps: [Step] = []
        var versions: [ManagedObjectModel] = []
        for stage in stages {
            let stageName = name(of: stage)
            let models: [ManagedObjectModel]
            if let custom = stage as? CustomMigrationStage {
                models = [custom.currentModel.resolvedModel, custom.nextModel.resolvedModel]
            } else if let lightweight = stage as? LightweightMigrationStage {
                models = try lightweight.versionChecksums.map { checksum in
                    guard let model = known[checksum] else {
                        throw MigrationError(.missingSourceModel, "\(stageName): no model has the version checksum \(checksum) (give it in the manager's models)")
                    }
                    return model
                }
            } else {
                throw MigrationError(.migration, "\(stageName): not a lightweight or custom stage")
            }
            guard let first = models.first else { continue }
            if let last = versions.last, last.versionChecksum != first.versionChecksum {
                throw MigrationError(.migration, "\(stageName) starts at version \(first.versionChecksum), but the stage before it ends at \(last.versionChecksum)")
            }
            for model in versions.isEmpty ? models : Array(models.dropFirst()) {
                guard !versions.contains(where: { $0.versionChecksum == model.versionChecksum }) else {
                    throw MigrationError(.migration, "\(stageName): version \(model.versionChecksum) comes twice in the stages")
                }
                if let previous = versions.last { steps.append(Step(from: previous, to: model, stage: stage, stageName: stageName)) }
                versions.append(model)
            }
        }
        if let last = versions.last, last.versionChecksum != destination.versionChecksum {
            throw MigrationError(.migration, "the last stage ends at version \(last.versionChecksum), not at the coordinator's model (\(destination.versionChecksum))")
        }
        return steps
    }

    /// Runs `steps` on the store at `url` (a copy), calling the custom stages' handlers.
    func run(_ steps: [Step], type: StoreType, at url: URL, options: [String: any Sendable]) throws {
        for step in steps {
            guard let custom = step.stage as? CustomMigrationStage else {
                try migrate(step, type: type, at: url, options: options)
                continue
            }
            if let handler = custom.willMigrateHandler {
                try runHandler(handler, "willMigrateHandler", of: custom, step: step, model: step.from, type: type, at: url, options: options)
            }
            try migrate(step, type: type, at: url, options: options)
            if let handler = custom.didMigrateHandler {
                try runHandler(handler, "didMigrateHandler", of: custom, step: step, model: step.to, type: type, at: url, options: options)
            }
        }
    }

    /// One inferred step: the store opened at the step's later version, migrating.
    private func migrate(_ step: Step, type: StoreType, at url: URL, options: [String: any Sendable]) throws {
        var migrating = options
        migrating[SQLiteStore.migratesAutomaticallyOption] = true
        migrating[SQLiteStore.infersMappingModelOption] = true
        let coordinator = PersistentStoreCoordinator(managedObjectModel: step.to)
        do {
            try coordinator.remove(try coordinator.addPersistentStore(type: type, at: url, options: migrating))
        } catch let error as MigrationError {
            throw MigrationError(error.kind, "\(step.stageName), from version \(step.from.versionChecksum) to \(step.to.versionChecksum): \(error.reason)")
        } catch {
            throw MigrationError(.migration, "\(step.stageName), from version \(step.from.versionChecksum) to \(step.to.versionChecksum): \(error)")
        }
    }

    /// A handler run with the store open at `model` in ``container``.
    private func runHandler(_ handler: CustomMigrationStage.Handler, _ handlerName: String, of stage: CustomMigrationStage, step: Step,
                            model: ManagedObjectModel, type: StoreType, at url: URL, options: [String: any Sendable]) throws {
        let container = PersistentContainer(name: "StagedMigration", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: type, url: url, options: options)]
        try container.loadPersistentStores()
        lock.withLock { currentContainer = container }
        defer {
            lock.withLock { currentContainer = nil }
            let coordinator = container.persistentStoreCoordinator
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
        do {
            try handler(self, stage)
        } catch {
            throw MigrationError(.migration, "\(step.stageName): its \(handlerName) failed: \(error)")
        }
    }
}

extension ManagedObjectModel {
    /// A checksum of the model's version: a Base64 SHA-256 of its entities' names and version
    /// hashes, so that two models a store cannot tell apart have the same one (Core Data's
    /// `versionChecksum`; the digest is this framework's, not Xcode's).
    public var versionChecksum: String {
        let fields = entityVersionHashesByName.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.base64EncodedString())" }
        return SHA256.hash(fields.joined(separator: "\n")).base64EncodedString()
    }
}
