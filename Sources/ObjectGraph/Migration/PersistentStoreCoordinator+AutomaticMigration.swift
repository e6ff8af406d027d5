// The migrations a store goes through when it is added, before the lightweight migration the
// store itself makes: through the stages of a staged migration manager (Core Data's
// NSStagedMigrationManager), then with a mapping model (Core Data's automatic migration with a
// mapping model found in the app's bundles, which it prefers to an inferred one). Either way the
// store is migrated into a file beside it, which is then renamed over it: at every moment the
// store's path holds the old store or the new one, whole, so that a failure or a crash at any
// step leaves a store that opens. Processes migrate a folder's stores one at a time (a lock on
// the folder), and a migration first removes what a crashed one left.
import Foundation
import Synchronization

extension PersistentStoreCoordinator {
    /// The staged and mapping-model migrations of the store at `url`, when its options ask for
    /// one, holding the lock of the store's folder: another process migrating a store there
    /// finishes first, and the store is then probed as it has become. Answers whether stages ran
    /// and the UUID of the store a mapping model replaced.
    func migrateIntoNewFile(type: StoreType, configuration: String?, at url: URL?,
                            options: [String: any Sendable]) throws -> (staged: Bool, replaced: String?) {
        // A store reached through a symbolic link is migrated where it is (the link stays a link).
        guard let file = Self.migratableFile(url, options: options)?.resolvingSymlinksInPath(),
              options[StagedMigrationManager.option] != nil || (options[MigrationManager.mappingModelsOption] as? [MappingModel])?.isEmpty == false
        else { return (false, nil) }
        return try Self.withMigrationLock(of: file) {
            Self.removeLeftovers(of: file)
            let staged = try migrateWithStages(type: type, configuration: configuration, at: file, options: options)
            let replaced = try migrateWithMappingModels(type: type, at: file, options: options)
            return (staged, replaced)
        }
    }

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
    /// `sourceModel`), and puts that file in its place: renamed over it, for the built-in store
    /// types (see ``SQLiteStore/swap(_:into:options:making:crashPoint:)``); for a type registered by the
    /// application, copied over it, the original copied aside first and put back if the copy
    /// fails. A failure leaves no file behind.
    private func replaceByMigration(storeAt url: URL, type: StoreType, sourceModel: ManagedObjectModel, options: [String: any Sendable],
                                    migrate: (URL) throws -> Void) throws {
        let migrated = Self.workingFile(.migrated, for: url)
        let migratedCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        var placed = false
        defer { if !placed { try? migratedCoordinator.destroyPersistentStore(at: migrated, type: type, options: options) } }
        // The new file gets the store's permissions and owner before it is in its place (the
        // owner when this process may give it: a migration run as root keeps a user's store theirs).
        let attributes = (try? FileManager.default.attributesOfItem(atPath: url.path)) ?? [:]
        let permissions = attributes[.posixPermissions]
        func make() throws {
            try migrate(migrated)
            Self.crashPoint("migrated")
            if let permissions { try? FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: migrated.path) }
            if let owner = attributes[.ownerAccountID] as? NSNumber, let group = attributes[.groupOwnerAccountID] as? NSNumber {
                _ = chown(migrated.path, uid_t(owner.uint32Value), gid_t(group.uint32Value))
            }
        }
        if let swap = Self.swapper(for: type) {
            try swap(migrated, url, options, make, Self.crashPoint)
            placed = true
            return
        }
        try make()
        // The store is only read until the new file takes its place (opening it for writing
        // could analyze or vacuum it).
        let original = Self.workingFile(.premigration, for: url)
        let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        var readOnly = options
        readOnly[SQLiteStore.readOnlyOption] = true
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

    /// The files a migration works with beside the store.
    enum WorkingFile: String {
        /// The migrated store, until it takes the store's place.
        case migrated
        /// A copy of the store while a migrated store of a registered type is copied over it.
        case premigration
    }

    /// A new working file for the store at `url`: hidden, named after the store and a UUID, with
    /// the store's extension (a store's support folder is named after its file name without it).
    static func workingFile(_ kind: WorkingFile, for url: URL) -> URL {
        let base = url.deletingPathExtension().lastPathComponent
        let suffix = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
        return url.deletingLastPathComponent().appendingPathComponent(".\(base)-\(kind.rawValue)-\(UUID().uuidString)\(suffix)")
    }

    /// Removes the working files of migrations of the store at `url` that crashed (with their
    /// -wal, -shm and support folders). Called holding the folder's migration lock: no migration
    /// of this framework's is running there. A copy of the store set aside for a registered store
    /// type (`premigration`) stays: a crash while the new file was copied over the store may have
    /// left it the only whole copy.
    static func removeLeftovers(of url: URL) {
        let folder = url.deletingLastPathComponent()
        let base = url.deletingPathExtension().lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        // A swap that crashed after its rename (its working file is gone: it is the store now)
        // left the old store's external data files for its list to remove.
        let externalData = SQLiteExternalData.supportDirectory(for: url).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
        for name in names where name.hasPrefix(".\(base)-\(WorkingFile.migrated.rawValue)-") && name.hasSuffix(".tidy") {
            let list = folder.appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: String(list.path.dropLast(5))) { FileSwap.finishTidying(list, in: externalData) }
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            // The file (`.<base>-migrated-<UUID>…`) and its support folder (`..<base>-migrated-<UUID>_SUPPORT`).
            for prefix in [".\(base)-\(WorkingFile.migrated.rawValue)-", "..\(base)-\(WorkingFile.migrated.rawValue)-"] where name.hasPrefix(prefix) {
                guard UUID(uuidString: String(name.dropFirst(prefix.count).prefix(36))) != nil else { continue }
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }

    /// The folders whose migration lock a thread of this process holds, with the thread and how
    /// many times it took it: a stage's handler may add another store of the folder.
    private static let heldMigrationLocks = Mutex<[String: (thread: pthread_t, depth: Int)]>([:])

    /// Runs `body` holding an exclusive lock (`flock`) on the folder of the store at `url`,
    /// waiting for a migration another process or thread is making there to finish. The thread
    /// that holds it may take it again (a stage's handler opening another store of the folder).
    static func withMigrationLock<T>(of url: URL, _ body: () throws -> T) throws -> T {
        let folder = url.deletingLastPathComponent()
        let me = pthread_self()
        let reentered = heldMigrationLocks.withLock { held in
            guard let holder = held[folder.path], pthread_equal(holder.thread, me) != 0 else { return false }
            held[folder.path]?.depth += 1
            return true
        }
        if reentered {
            defer { heldMigrationLocks.withLock { $0[folder.path]?.depth -= 1 } }
            return try body()
        }
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else {
            throw MigrationError(.migration, "cannot open the store's folder \(folder.path) to lock it: \(String(cString: strerror(errno)))", path: url.path)
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw MigrationError(.migration, "cannot lock the store's folder \(folder.path): \(String(cString: strerror(errno)))", path: url.path)
            }
        }
        heldMigrationLocks.withLock { $0[folder.path] = (me, 1) }
        defer {
            heldMigrationLocks.withLock { $0[folder.path] = nil }
            flock(fd, LOCK_UN)
        }
        return try body()
    }

    /// Fault injection for the crash tests: with `OBJECTGRAPH_MIGRATION_CRASH_AT` naming `point`
    /// (`migrated`: the new file is made; `before-rename`, `after-rename`), the process kills
    /// itself there (SIGKILL: no clean-up runs, as in a crash or a power cut).
    static func crashPoint(_ point: String) {
        guard ProcessInfo.processInfo.environment["OBJECTGRAPH_MIGRATION_CRASH_AT"] == point else { return }
        kill(getpid(), SIGKILL)
    }
}
