// The persistent store coordinator: the model, the stores that hold its entities, and the row
// cache its contexts share. It routes each entity to the store of its configuration, merges
// fetches across stores, and serializes calls into stores, so that contexts on any thread can
// share one coordinator.
import Foundation
import Synchronization

/// Connects contexts to stores: one model, any number of stores.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "pim.sqlite"))
/// let context = ManagedObjectContext(concurrencyType: .mainQueue)
/// context.persistentStoreCoordinator = coordinator
/// ```
public final class PersistentStoreCoordinator: @unchecked Sendable {
    /// Makes a store of a type, for a configuration, at a URL, with options.
    public typealias StoreFactory = @Sendable (_ configuration: String?, _ url: URL?, _ options: [String: any Sendable]) throws -> any PersistentStore

    /// Removes the files of a store of a type at a URL.
    public typealias StoreDestroyer = @Sendable (_ url: URL, _ options: [String: any Sendable]) throws -> Void

    /// Makes a store file of a type at the first URL (with `make`, from the store at the second
    /// URL) and puts it in place of that store in one atomic step, with the store's options,
    /// calling the last argument at named points (for crash tests).
    typealias StoreSwapper = @Sendable (_ replacement: URL, _ url: URL, _ options: [String: any Sendable],
                                        _ make: () throws -> Void, _ crashPoint: (String) -> Void) throws -> Void

    private struct Registration: Sendable {
        var factory: StoreFactory
        var destroy: StoreDestroyer?
        /// How a migrated file takes the store's place; nil: it is copied over it, the original
        /// copied aside until then (a type registered by the application).
        var swap: StoreSwapper? = nil
    }

    /// The registered store types; the in-memory, SQLite, XML and binary stores are always there.
    private static let registry = Mutex<[StoreType: Registration]>([
        .inMemory: Registration(factory: { configuration, url, options in
            InMemoryStore(configurationName: configuration, url: url, options: options)
        }, destroy: nil),
        .sqlite: Registration(factory: { configuration, url, options in
            guard let url else { throw StoreError.unknownStore("a SQLite store needs a file URL") }
            return try SQLiteStore(configurationName: configuration, url: url, options: options)
        }, destroy: { url, _ in try SQLiteStore.destroy(at: url) }, swap: { replacement, url, options, make, crashPoint in
            try SQLiteStore.swap(replacement, into: url, options: options, making: make, crashPoint: crashPoint)
        }),
        .xml: Registration(factory: { configuration, url, options in
            guard let url else { throw StoreError.unknownStore("an XML store needs a file URL") }
            return try XMLStore(configurationName: configuration, url: url, options: options)
        }, destroy: { url, _ in try AtomicStore.destroy(.xml, at: url) }, swap: { replacement, url, _, make, crashPoint in
            try AtomicStore.swap(replacement, into: url, making: make, crashPoint: crashPoint)
        }),
        .binary: Registration(factory: { configuration, url, options in
            guard let url else { throw StoreError.unknownStore("a binary store needs a file URL") }
            return try BinaryStore(configurationName: configuration, url: url, options: options)
        }, destroy: { url, _ in try AtomicStore.destroy(.binary, at: url) }, swap: { replacement, url, _, make, crashPoint in
            try AtomicStore.swap(replacement, into: url, making: make, crashPoint: crashPoint)
        }),
    ])

    /// Registers how to make stores of `type`, for ``addPersistentStore(type:configuration:at:options:)``.
    public static func registerStoreType(_ type: StoreType, factory: @escaping StoreFactory, destroy: StoreDestroyer? = nil) {
        registry.withLock { $0[type] = Registration(factory: factory, destroy: destroy) }
    }

    /// How a migrated store file of `type` takes a store's place (nil: by copying).
    static func swapper(for type: StoreType) -> StoreSwapper? {
        registry.withLock { $0[type]?.swap }
    }

    /// The model; frozen when the coordinator is made.
    public let managedObjectModel: ManagedObjectModel
    /// Snapshots shared by the contexts of this coordinator.
    let rowCache = RowCache()
    /// Serializes every call into a store.
    private let lock = NSRecursiveLock()
    private var stores: [any PersistentStore] = [] {
        didSet { storesByTag = Dictionary(stores.map { (StoreTag(interning: $0.identifier), $0) }, uniquingKeysWith: { first, _ in first }) }
    }
    /// The stores by their identifiers' tags (the first added, of stores that share one): object
    /// IDs carry tags, so routing one to its store compares no strings.
    private var storesByTag: [StoreTag: any PersistentStore] = [:]
    /// The external record files of each store added with a records folder, by store.
    private var recordSynchronizers: [ObjectIdentifier: ExternalRecordsSynchronizer] = [:]

    /// The contexts that merge the saves of the others (``ManagedObjectContext/automaticallyMergesChangesFromParent``),
    /// unretained.
    private var mergingContexts: [ObjectIdentifier: WeakContext] = [:]

    /// A coordinator for `model`, which becomes read-only.
    public init(managedObjectModel model: ManagedObjectModel) {
        model.freeze()
        managedObjectModel = model
    }

    /// The stores, in the order they were added.
    public var persistentStores: [any PersistentStore] { lock.withLock { stores } }

    // MARK: Adding and removing stores

    /// Opens (creating it if needed) a store of `type` at `url` for the entities of
    /// `configuration` (nil: all), and adds it.
    @discardableResult
    public func addPersistentStore(type: StoreType, configuration: String? = nil, at url: URL? = nil,
                                   options: [String: any Sendable] = [:]) throws -> any PersistentStore {
        guard let registration = Self.registry.withLock({ $0[type] }) else {
            throw StoreError.unknownStore("no store type \"\(type)\" is registered")
        }
        if let configuration, managedObjectModel.entities(forConfigurationName: configuration) == nil {
            throw StoreError.unknownStore("the model has no configuration \"\(configuration)\"")
        }
        let records = try ExternalRecordsConfiguration(options: options)
        let (staged, replaced) = try migrateIntoNewFile(type: type, configuration: configuration, at: url, options: options)
        let store = try registration.factory(configuration, url, options)
        try addPersistentStore(store)
        if let records {
            keepExternalRecords(of: store, records)
            // A store migrated with a mapping model is a new store, with a UUID of its own: its
            // objects' records are written anew, and the old store's go. One migrated through
            // stages keeps its UUID, but handlers may have changed any of its objects.
            if let replaced {
                ExternalRecordsSynchronizer.removeFolder(records.directory.appendingPathComponent(replaced, isDirectory: true))
                resynchronizeExternalRecords(of: store)
            } else if staged {
                resynchronizeExternalRecords(of: store)
            }
        }
        return store
    }

    /// ``addPersistentStore(type:configuration:at:options:)`` off the caller's thread.
    @discardableResult
    public func addPersistentStore(type: StoreType, configuration: String? = nil, at url: URL? = nil,
                                   options: [String: any Sendable] = [:]) async throws -> any PersistentStore {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.addPersistentStore(type: type, configuration: configuration, at: url, options: options) })
            }
        }
    }

    /// Loads and adds a store made by the caller (a store type of one's own).
    public func addPersistentStore(_ store: any PersistentStore) throws {
        try lock.withLock {
            if let url = store.url, stores.contains(where: { $0.url?.resolvingSymlinksInPath().standardizedFileURL == url.resolvingSymlinksInPath().standardizedFileURL }) {
                throw StoreError.unknownStore("a store at \(url.path) is already added")
            }
            try store.load(model: managedObjectModel)
            // A copy of a store file keeps its UUID: beside the original, the two stores' rows
            // would have the same object IDs.
            if let twin = stores.first(where: { $0.identifier == store.identifier }) {
                store.unload()
                throw StoreError.unknownStore("a store with UUID \(store.identifier) is already added"
                    + (twin.url.map { " (at \($0.path)): \(store.url?.path ?? "this store") is a copy of it" } ?? ""))
            }
            stores.append(store)
        }
    }

    /// Removes `store`, one of this coordinator's stores; its objects can no longer be fetched
    /// or saved. A store this coordinator does not hold is refused and left as it is.
    public func remove(_ store: any PersistentStore) throws {
        try lock.withLock {
            guard stores.contains(where: { $0 === store }) else {
                throw StoreError.unknownStore("the store \(store.identifier) is not one of this coordinator's stores")
            }
            stores.removeAll { $0 === store }
            recordSynchronizers[ObjectIdentifier(store)] = nil
            store.unload()
        }
    }

    /// The store at `url`, if added.
    public func persistentStore(for url: URL) -> (any PersistentStore)? {
        lock.withLock { stores.first { $0.url?.resolvingSymlinksInPath().standardizedFileURL == url.resolvingSymlinksInPath().standardizedFileURL } }
    }

    /// The store with the identifier `identifier`, if added.
    public func persistentStore(withIdentifier identifier: String) -> (any PersistentStore)? {
        lock.withLock { stores.first { $0.identifier == identifier } }
    }

    // MARK: Metadata

    /// The metadata of `store`.
    public func metadata(for store: any PersistentStore) -> [String: any Sendable] {
        lock.withLock { store.metadata }
    }

    /// The metadata of the store of `type` at `url`, read without a model and without adding or
    /// changing the store (Core Data's `metadataForPersistentStore(type:at:options:)`): its
    /// `StoreType`, `UUID`, the model's version hashes (``SQLiteStore/versionHashesKey``) and the
    /// application's keys. Throws when there is no store of that type at `url`.
    public static func metadataForPersistentStore(type: StoreType, at url: URL, options: [String: any Sendable] = [:]) throws -> [String: any Sendable] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError.io(path: url.path, reason: "there is no store to read the metadata of")
        }
        switch type {
        case .sqlite:
            return try SQLiteStoreInfo.metadata(at: url)
        case .xml, .binary:
            let info = try AtomicStoreInfo(url: url)
            guard info.type == type else { throw StoreError.unknownStore("\(url.path) is \(info.type == .xml ? "an XML" : "a binary") store, not \(type == .xml ? "an XML" : "a binary") one") }
            return info.metadata
        default:
            guard let registration = registry.withLock({ $0[type] }) else {
                throw StoreError.unknownStore("no store type \"\(type)\" is registered")
            }
            var readOnly = options
            readOnly[SQLiteStore.readOnlyOption] = true
            let store = try registration.factory(nil, url, readOnly)
            defer { store.unload() }
            return store.metadata
        }
    }

    /// Replaces the metadata of `store` (written with its next save).
    public func setMetadata(_ metadata: [String: any Sendable], for store: any PersistentStore) {
        lock.withLock { store.metadata = metadata }
    }

    // MARK: Destroying and replacing

    /// Removes the store at `url` of `type` and its files (`-wal`, `-shm`, external data), first
    /// removing it from this coordinator if it is added. With ``NSExternalRecordsDirectoryOption``
    /// its external record files go too.
    public func destroyPersistentStore(at url: URL, type: StoreType, options: [String: any Sendable] = [:]) throws {
        guard let registration = Self.registry.withLock({ $0[type] }) else {
            throw StoreError.unknownStore("no store type \"\(type)\" is registered")
        }
        let records = try ExternalRecordsConfiguration(options: options)
        var identifier: String?
        if let store = persistentStore(for: url) {
            identifier = store.identifier
            try remove(store)
        } else if records != nil, FileManager.default.fileExists(atPath: url.path) {
            // The store's UUID names its records' folder: read it from the store, if it opens.
            var readOptions = options
            readOptions[SQLiteStore.readOnlyOption] = true
            if let store = try? registration.factory(nil, url, readOptions), (try? store.load(model: managedObjectModel)) != nil {
                identifier = store.identifier
                store.unload()
            }
        }
        try registration.destroy?(url, options)
        if let records, let identifier {
            ExternalRecordsSynchronizer.removeFolder(records.directory.appendingPathComponent(identifier, isDirectory: true))
        }
    }

    /// Replaces the store at `destination` with a copy of the store at `source` (both of `type`).
    public func replacePersistentStore(at destination: URL, withPersistentStoreFrom source: URL, type: StoreType,
                                       options: [String: any Sendable] = [:]) throws {
        guard let registration = Self.registry.withLock({ $0[type] }) else {
            throw StoreError.unknownStore("no store type \"\(type)\" is registered")
        }
        // The source is opened (and must be a store of this model) before the destination goes:
        // a missing or foreign source leaves the destination as it is.
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw StoreError.io(path: source.path, reason: "there is no store to replace \(destination.path) with")
        }
        // Checked read-only first: opening a file that holds no store must not write one into it.
        // A store made for one of the model's configurations holds only its entities.
        var checkOptions = options
        checkOptions[SQLiteStore.readOnlyOption] = true
        var configuration: String?
        var failure: (any Error)?
        for candidate in [nil] + managedObjectModel.configurations.map(\.name) {
            let check = try registration.factory(candidate, source, checkOptions)
            defer { check.unload() }
            do {
                try check.load(model: managedObjectModel)
                configuration = candidate
                failure = nil
                break
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        let sourceStore = try registration.factory(configuration, source, options)
        defer { sourceStore.unload() }
        try sourceStore.load(model: managedObjectModel)
        guard let copier = sourceStore as? any StoreCopying else {
            throw StoreError.unsupportedRequest("\(type) stores cannot be copied")
        }
        try destroyPersistentStore(at: destination, type: type, options: options)
        try copier.copy(to: destination)
    }

    /// Moves the data of `store`, one of this coordinator's stores, into a new store of `type`
    /// at `url` and puts the new store in its place (Core Data's
    /// `migratePersistentStore(_:to:options:type:)`): every row is copied with its values and
    /// relationships, under new object IDs (the new store has its own UUID), and the store's
    /// own metadata keys are kept. `store` is then removed; objects that contexts hold from it
    /// are no longer valid (reset those contexts, or fetch again). The copy is one save of the
    /// new store: a failure destroys the new store and leaves `store` in place.
    ///
    /// ```swift
    /// let onDisk = try coordinator.migratePersistentStore(scratch, to: fileURL, type: .sqlite)
    /// ```
    @discardableResult
    public func migratePersistentStore(_ store: any PersistentStore, to url: URL?, options: [String: any Sendable] = [:],
                                       type: StoreType) throws -> any PersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw StoreError.unknownStore("the store \(store.identifier) is not one of this coordinator's stores")
        }
        guard let registration = Self.registry.withLock({ $0[type] }) else {
            throw StoreError.unknownStore("no store type \"\(type)\" is registered")
        }
        if let url, FileManager.default.fileExists(atPath: url.path) {
            throw StoreError.io(path: url.path, reason: "a file is already there: a store is migrated into a new file")
        }
        let records = try ExternalRecordsConfiguration(options: options)
        let destination = try registration.factory(store.configurationName, url, options)
        do {
            try destination.load(model: managedObjectModel)
            try withStores { try copyRows(of: store, into: destination) }
        } catch {
            destination.unload()
            if let url { try? registration.destroy?(url, options) }
            throw error
        }
        lock.withLock {
            if let index = stores.firstIndex(where: { $0 === store }) { stores[index] = destination } else { stores.append(destination) }
        }
        store.unload()
        // The migrated objects have new URIs: their records are written under the new store's
        // UUID, and the old store's go (an indexer would find every object twice).
        if let old = synchronizer(of: store) { old.removeAll() }
        lock.withLock { recordSynchronizers[ObjectIdentifier(store)] = nil }
        if let records {
            keepExternalRecords(of: destination, records)
            resynchronizeExternalRecords(of: destination)
        }
        return destination
    }

    /// Writes every row of `source` into `destination` (new, empty) in one save, under new IDs.
    private func copyRows(of source: any PersistentStore, into destination: any PersistentStore) throws {
        // Every concrete entity the store holds: a configuration's entities and their sub-entities.
        let entities = managedObjectModel.entities.filter { !$0.isAbstract && holds(source, entity: $0) }
        var rows: [Snapshot] = []
        for entity in entities {
            var request = StoreFetchRequest(entity: entity)
            request.includesSubentities = false
            var result = try source.execute(request)
            var snapshots = result.takeSnapshots() ?? []
            // To-many relationships the fetch left unloaded are read, all owners at once.
            let ids = snapshots.map(\.objectID)
            for (slot, property) in entity.layout.properties.enumerated() {
                guard let relationship = property as? RelationshipDescription, relationship.isToMany, relationship.isStored,
                      snapshots.contains(where: { !$0.values[slot].isLoaded }) else { continue }
                let destinations = try source.objectIDs(forRelationship: relationship, of: ids)
                for index in snapshots.indices where !snapshots[index].values[slot].isLoaded {
                    snapshots[index].values[slot] = .objects(destinations[snapshots[index].objectID] ?? [])
                }
            }
            rows += snapshots
        }
        let newIDs = try destination.obtainPermanentIDs(for: rows.map { ObjectID.temporary(for: $0.objectID.entity) })
        var renamed: [ObjectID: ObjectID] = [:]
        for (old, new) in zip(rows, newIDs) { renamed[old.objectID] = new }
        // A reference to an object of another store stays as it is.
        func moved(_ value: SnapshotValue) -> SnapshotValue {
            switch value {
            case .object(let id): return .object(renamed[id] ?? id)
            case .objects(let ids): return .objects(ids.map { renamed[$0] ?? $0 })
            default: return value
            }
        }
        let inserted = zip(rows, newIDs).map { row, id in Snapshot(objectID: id, version: 0, values: row.values.map(moved)) }
        var metadata = destination.metadata
        for (key, value) in source.metadata where metadata[key] == nil { metadata[key] = value }
        destination.metadata = metadata
        _ = try destination.save(StoreSaveRequest(inserted: inserted))
    }

    // MARK: Object IDs

    /// The object ID a URI names (`x-objectgraph://<store-uuid>/<Entity>/p<key>`, or Core Data's
    /// `x-coredata://` of the same shape, which an app kept from Apple's platforms names a row of
    /// a store with that UUID by), or nil when
    /// no added store has that UUID, the model has no such entity, or the key is not positive.
    public func managedObjectID(forURIRepresentation uri: URL) -> ObjectID? {
        guard uri.scheme == "x-objectgraph" || uri.scheme == "x-coredata", let host = uri.host, !host.isEmpty else { return nil }
        let parts = uri.path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        // Keys start at 1 (SQLite's Z_PK and the in-memory store's counter alike).
        guard parts.count == 2, parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()), key > 0,
              let entity = managedObjectModel.entitiesByName[parts[0]], !entity.isAbstract,
              persistentStore(withIdentifier: host) != nil else { return nil }
        return ObjectID(entity: entity, storeIdentifier: host, primaryKey: key)
    }

    // MARK: Routing (used by contexts)

    /// The store that holds new objects of `entity` unless a context assigns them
    /// (``ManagedObjectContext/assign(_:to:)``): the first writable store whose configuration
    /// includes it.
    func store(forNewObjectOf entity: EntityDescription) -> (any PersistentStore)? {
        lock.withLock {
            let holding = stores.filter { store in holdsLocked(store, entity) }
            // As in Core Data, an object goes to the one writable store that holds its entity:
            // a read-only store is chosen only when no other holds it (the save then says so).
            return holding.first { !$0.isReadOnly } ?? holding.first
        }
    }

    /// Whether `store` is one of the coordinator's stores and may hold objects of `entity`.
    func holds(_ store: any PersistentStore, entity: EntityDescription) -> Bool {
        stores(for: entity).contains { $0 === store }
    }

    /// The stores that can hold objects of `entity`.
    func stores(for entity: EntityDescription) -> [any PersistentStore] {
        lock.withLock { stores.filter { store in holdsLocked(store, entity) } }
    }

    /// Whether `store` holds objects of `entity`: it has no configuration, or its configuration
    /// names the entity or one of its ancestors (a store holds the inheritance trees of its
    /// configuration's entities). Called with the lock held.
    private func holdsLocked(_ store: any PersistentStore, _ entity: EntityDescription) -> Bool {
        guard let configuration = store.configurationName else { return true }
        guard let members = managedObjectModel.entities(forConfigurationName: configuration) else { return false }
        return ([entity] + entity.ancestors).contains { candidate in members.contains { $0 === candidate } }
    }

    /// The store holding `objectID`.
    func store(for objectID: ObjectID) -> (any PersistentStore)? {
        lock.withLock { storesByTag[objectID.storeTag] }
    }

    /// Adds `context` to the contexts that merge the others' saves, or takes it out.
    func setMergesSaves(of context: ManagedObjectContext, _ merges: Bool) {
        lock.withLock {
            mergingContexts = mergingContexts.filter { $0.value.context != nil }
            mergingContexts[ObjectIdentifier(context)] = merges ? WeakContext(context: context) : nil
        }
    }

    /// The contexts other than `saver` that merge the saves of the others.
    func contextsMergingSaves(of saver: ManagedObjectContext) -> [ManagedObjectContext] {
        lock.withLock {
            guard !mergingContexts.isEmpty else { return [] }
            return mergingContexts.values.compactMap(\.context).filter { $0 !== saver }
        }
    }

    /// Keeps `store`'s external record files from now on.
    private func keepExternalRecords(of store: any PersistentStore, _ records: ExternalRecordsConfiguration) {
        let synchronizer = ExternalRecordsSynchronizer(configuration: records, store: store,
                                                       entities: managedObjectModel.entities.filter { holds(store, entity: $0) },
                                                       modelPath: managedObjectModel.sourceURL?.path)
        lock.withLock { recordSynchronizers[ObjectIdentifier(store)] = synchronizer }
    }

    /// The external record files of `store`, when it was added with a records folder.
    func synchronizer(of store: any PersistentStore) -> ExternalRecordsSynchronizer? {
        lock.withLock { recordSynchronizers.isEmpty ? nil : recordSynchronizers[ObjectIdentifier(store)] }
    }

    /// Runs `body` with the stores locked (one request at a time into stores).
    func withStores<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock(body)
    }
}

/// A store that can write a copy of itself elsewhere (for replacePersistentStore).
public protocol StoreCopying {
    /// Writes a copy of the store's data at `url`.
    func copy(to url: URL) throws
}
