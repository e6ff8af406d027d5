// Staged migration (Core Data's NSStagedMigrationManager): a store is taken through a chain of
// model versions one stage at a time, each stage either lightweight (inferred, in SQL for SQLite)
// or custom: the application's code runs on the store at the version before the step
// (willMigrateHandler) and at the version after it (didMigrateHandler), around a lightweight
// step between them. A change no single inferred mapping can make (splitting an attribute,
// turning values into objects, deduplicating before a uniqueness constraint) becomes a few
// small steps, with no mapping model and without loading every object, as a heavyweight
// migration does. The whole chain runs on a copy of the store (read from the store read-only),
// which replaces it only at the end: a failure at any stage leaves the store as it was. The
// handlers' container holds that copy, not the store's own file.
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

/// Model versions a store is migrated from by inference (Core Data's
/// `NSLightweightMigrationStage`): a store at one of them is migrated to the version after it,
/// which is the next version the stage names, else the first version of the next stage, else,
/// after the last stage, the coordinator's model.
///
/// ```swift
/// let early = LightweightMigrationStage([v1.versionChecksum])   // version 1 to the next stage's first
/// ```
public final class LightweightMigrationStage: MigrationStage, @unchecked Sendable {
    /// The versions, in order, by checksum: found among the models of the manager (its `models`,
    /// its custom stages' references and the coordinator's model). The last may also be the
    /// version the next (custom) stage starts from.
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
/// versions (by opening it read-only with each), and the store taken through every stage from
/// there to the coordinator's model (inferred after the last stage, if that ends short of it).
/// A store of a version no stage names is left to the other migrations (a mapping model, then
/// inference).
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

    /// What takes a version of the stages to the next one.
    private enum Exit {
        /// Inferred: the version is one a lightweight stage names.
        case inferred(MigrationStage)
        /// A custom stage starts at the version.
        case custom(CustomMigrationStage)
        /// Nothing yet: a custom stage ends at the version.
        case end
    }

    /// The steps of every stage, in order, ending at `destination`. As in Core Data, a
    /// lightweight stage names the versions it migrates from: each is inferred to the version
    /// after it (the next one the stages name, or after the last stage the coordinator's model);
    /// a custom stage goes from its first version to its second. A custom stage may also start
    /// at the last version of the lightweight stage before it (that stage then ends there).
    /// Throws naming the stage whose versions cannot be found, repeat, or leave a gap after a
    /// custom stage.
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
        // The versions in order, each with what takes it on.
        var versions: [(model: ManagedObjectModel, checksum: String, exit: Exit, stageName: String)] = []
        func add(_ model: ManagedObjectModel, _ exit: Exit, stage: MigrationStage, stageName: String) throws {
            let checksum = model.versionChecksum
            if let last = versions.last, last.checksum == checksum {
                // A stage starting where the one before it ends.
                switch (last.exit, exit) {
                case (.end, _), (.inferred, .custom):
                    versions[versions.count - 1].exit = exit
                    versions[versions.count - 1].stageName = stageName
                    return
                default: break
                }
            }
            guard !versions.contains(where: { $0.checksum == checksum }) else {
                throw MigrationError(.migration, "\(stageName): version \(checksum) comes twice in the stages")
            }
            if let last = versions.last, case .end = last.exit {
                throw MigrationError(.migration, "\(stageName) starts at version \(checksum), but the stage before it ends at \(last.checksum)")
            }
            versions.append((model, checksum, exit, stageName))
        }
        for stage in stages {
            let stageName = name(of: stage)
            if let custom = stage as? CustomMigrationStage {
                try add(custom.currentModel.resolvedModel, .custom(custom), stage: stage, stageName: stageName)
                try add(custom.nextModel.resolvedModel, .end, stage: stage, stageName: stageName)
            } else if let lightweight = stage as? LightweightMigrationStage {
                for checksum in lightweight.versionChecksums {
                    guard let model = known[checksum] else {
                        throw MigrationError(.missingSourceModel, "\(stageName): no model has the version checksum \(checksum) (give it in the manager's models)")
                    }
                    try add(model, .inferred(stage), stage: stage, stageName: stageName)
                }
            } else {
                throw MigrationError(.migration, "\(stageName): not a lightweight or custom stage")
            }
        }
        let target = destination.versionChecksum
        if let index = versions.firstIndex(where: { $0.checksum == target }), index < versions.count - 1 {
            throw MigrationError(.migration, "\(versions[index].stageName) migrates from version \(target), the coordinator's model: the stages must end there")
        }
        var steps: [Step] = []
        for (index, version) in versions.enumerated() {
            let next = index + 1 < versions.count ? versions[index + 1].model : destination
            guard next.versionChecksum != version.checksum else { continue }
            switch version.exit {
            case .custom(let custom): steps.append(Step(from: version.model, to: next, stage: custom, stageName: version.stageName))
            case .inferred(let stage): steps.append(Step(from: version.model, to: next, stage: stage, stageName: version.stageName))
            case .end:
                // After a custom stage that ends short of the coordinator's model, the rest is inferred.
                steps.append(Step(from: version.model, to: next, stage: LightweightMigrationStage([version.checksum, next.versionChecksum]),
                                  stageName: "after \(version.stageName)"))
            }
        }
        return steps
    }

    /// `name` when `model` has that configuration, else nil (the whole model).
    static func configuration(_ name: String?, in model: ManagedObjectModel) -> String? {
        name.flatMap { model.entities(forConfigurationName: $0) == nil ? nil : $0 }
    }

    /// Runs `steps` on the store at `url` (a copy; added for `configuration`), calling the custom
    /// stages' handlers.
    func run(_ steps: [Step], type: StoreType, configuration: String?, at url: URL, options: [String: any Sendable]) throws {
        for step in steps {
            guard let custom = step.stage as? CustomMigrationStage else {
                try migrate(step, type: type, configuration: configuration, at: url, options: options)
                continue
            }
            if let handler = custom.willMigrateHandler {
                try runHandler(handler, "willMigrateHandler", of: custom, step: step, model: step.from, type: type,
                               configuration: configuration, at: url, options: options)
            }
            try migrate(step, type: type, configuration: configuration, at: url, options: options)
            if let handler = custom.didMigrateHandler {
                try runHandler(handler, "didMigrateHandler", of: custom, step: step, model: step.to, type: type,
                               configuration: configuration, at: url, options: options)
            }
        }
    }

    /// One inferred step: the store opened at the step's later version, migrating.
    private func migrate(_ step: Step, type: StoreType, configuration: String?, at url: URL, options: [String: any Sendable]) throws {
        var migrating = options
        migrating[SQLiteStore.migratesAutomaticallyOption] = true
        migrating[SQLiteStore.infersMappingModelOption] = true
        let coordinator = PersistentStoreCoordinator(managedObjectModel: step.to)
        do {
            try coordinator.remove(try coordinator.addPersistentStore(type: type, configuration: Self.configuration(configuration, in: step.to),
                                                                      at: url, options: migrating))
        } catch let error as MigrationError {
            throw MigrationError(error.kind, "\(step.stageName), from version \(step.from.versionChecksum) to \(step.to.versionChecksum): \(error.reason)")
        } catch {
            throw MigrationError(.migration, "\(step.stageName), from version \(step.from.versionChecksum) to \(step.to.versionChecksum): \(error)")
        }
    }

    /// A handler run with the store open at `model` in ``container``.
    private func runHandler(_ handler: CustomMigrationStage.Handler, _ handlerName: String, of stage: CustomMigrationStage, step: Step,
                            model: ManagedObjectModel, type: StoreType, configuration: String?, at url: URL,
                            options: [String: any Sendable]) throws {
        let container = PersistentContainer(name: "StagedMigration", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: type, url: url, configuration: Self.configuration(configuration, in: model),
                                                                            options: options)]
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
