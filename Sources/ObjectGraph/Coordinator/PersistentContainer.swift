// The persistent container: the whole stack in one object, as Core Data's NSPersistentContainer
// sets it up: a model read from a model file, a coordinator, store descriptions with a default
// location, a main-queue view context, and background contexts.
import Foundation

/// How to add one store: its type, location, configuration and options. A class, as Core
/// Data's `NSPersistentStoreDescription`, so that a container's description can be changed
/// in place before its stores are loaded:
///
/// ```swift
/// container.persistentStoreDescriptions.first?.url = URL(fileURLWithPath: "/dev/null")   // SQLite in memory
/// ```
public final class PersistentStoreDescription: @unchecked Sendable, CustomStringConvertible {
    public var type: StoreType
    public var url: URL?
    public var configuration: String?
    public var options: [String: any Sendable]

    /// A SQLite store at `url` (Core Data's `init(url:)`).
    public convenience init(url: URL) {
        self.init(type: .sqlite, url: url)
    }

    public init(type: StoreType = .sqlite, url: URL? = nil, configuration: String? = nil, options: [String: any Sendable] = [:]) {
        self.type = type
        self.url = url
        self.configuration = configuration
        self.options = options
    }

    public var description: String { "\(type) store at \(url?.path ?? "(memory)")" }

    /// Whether the store opens read-only: an existing store whose saves are refused (Core Data's
    /// `isReadOnly`, the `NSReadOnlyPersistentStoreOption` option).
    public var isReadOnly: Bool {
        get { options[SQLiteStore.readOnlyOption] as? Bool ?? false }
        set { options[SQLiteStore.readOnlyOption] = newValue }
    }

    /// How long, in seconds, a call waits for another connection's write to end before it fails
    /// (Core Data's `timeout`; the SQLite store's `"busyTimeout"` option, 10 by default).
    public var timeout: TimeInterval {
        get { (options["busyTimeout"] as? Double) ?? (options["busyTimeout"] as? Int).map(Double.init) ?? 10 }
        set { options["busyTimeout"] = newValue }
    }

    /// Whether a store made with another version of the model is migrated when it loads (Core
    /// Data's `shouldMigrateStoreAutomatically`, true unless set otherwise; the
    /// `NSMigratePersistentStoresAutomaticallyOption` option).
    public var shouldMigrateStoreAutomatically: Bool {
        get { SQLiteStore.flag(options[SQLiteStore.migratesAutomaticallyOption] ?? true) }
        set { options[SQLiteStore.migratesAutomaticallyOption] = newValue }
    }

    /// Whether that migration infers its mapping from the two models (Core Data's
    /// `shouldInferMappingModelAutomatically`, true unless set otherwise; the
    /// `NSInferMappingModelAutomaticallyOption` option).
    public var shouldInferMappingModelAutomatically: Bool {
        get { SQLiteStore.flag(options[SQLiteStore.infersMappingModelOption] ?? true) }
        set { options[SQLiteStore.infersMappingModelOption] = newValue }
    }

    /// The options a store is added with: ``options``, with the two migration options set as
    /// their properties say.
    var effectiveOptions: [String: any Sendable] {
        var effective = options
        effective[SQLiteStore.migratesAutomaticallyOption] = shouldMigrateStoreAutomatically
        effective[SQLiteStore.infersMappingModelOption] = shouldInferMappingModelAutomatically
        return effective
    }

    /// Sets the option `key` to `value`, or removes it for nil (Core Data's `setOption(_:forKey:)`).
    public func setOption(_ value: (any Sendable)?, forKey key: String) {
        options[key] = value
    }
}

/// A model, a coordinator, its stores and the contexts that use them.
///
/// ```swift
/// let container = try PersistentContainer(name: "Organizer", modelURL: URL(fileURLWithPath: "Data/Organizer.xcdatamodeld"))
/// container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
/// try container.loadPersistentStores()
/// let context = container.viewContext
/// ```
public final class PersistentContainer: @unchecked Sendable {
    /// The container's name: the default store file is `<name>.sqlite`.
    public let name: String
    public let managedObjectModel: ManagedObjectModel
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The stores ``loadPersistentStores()`` adds; by default one SQLite store in
    /// ``defaultDirectoryURL()``.
    public var persistentStoreDescriptions: [PersistentStoreDescription]
    /// The main-queue context, for the user interface (or a command-line program's main thread).
    /// Made with the container, as in Core Data (made on first use, two threads asking at once
    /// could each have made one).
    public let viewContext: ManagedObjectContext

    /// A container for `model`.
    public init(name: String, managedObjectModel model: ManagedObjectModel) {
        self.name = name
        managedObjectModel = model
        persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: model)
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
        viewContext.name = "viewContext"
        persistentStoreDescriptions = [PersistentStoreDescription(
            type: .sqlite, url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))]
    }

    /// A container whose model is read from the model file at `modelURL`.
    public convenience init(name: String, modelURL: URL) throws {
        self.init(name: name, managedObjectModel: try ManagedObjectModel(contentsOf: modelURL))
    }

    /// A container whose model is the resource `<name>.xcdatamodeld` (or `.xcdatamodel`) of `bundle`.
    public convenience init(name: String, bundle: Bundle) throws {
        guard let url = Self.modelURL(named: name, in: [bundle]) else {
            throw ModelError.fileNotFound(path: bundle.bundleURL.appendingPathComponent("\(name).xcdatamodeld").path)
        }
        try self.init(name: name, modelURL: url)
    }

    /// A container whose model is `<name>.xcdatamodeld` (or `.xcdatamodel`), looked for as Core
    /// Data's `NSPersistentContainer(name:)` looks for `<name>.momd`: in the main bundle, then
    /// the other loaded bundles, then the resource bundles Swift packages build beside the
    /// executable (`<Package>_<Target>.resources`, a target's `.copy("<name>.xcdatamodeld")`).
    ///
    /// ```swift
    /// let container = try PersistentContainer(name: "Organizer")
    /// ```
    public convenience init(name: String) throws {
        guard let url = Self.modelURL(named: name, in: Self.modelBundles()) else {
            throw ModelError.fileNotFound(path: Bundle.main.bundleURL.appendingPathComponent("\(name).xcdatamodeld").path)
        }
        try self.init(name: name, modelURL: url)
    }

    /// The first `<name>.xcdatamodeld` or `<name>.xcdatamodel` among `bundles`' resources.
    private static func modelURL(named name: String, in bundles: [Bundle]) -> URL? {
        for bundle in bundles {
            if let url = bundle.url(forResource: name, withExtension: "xcdatamodeld")
                ?? bundle.url(forResource: name, withExtension: "xcdatamodel") {
                return url
            }
        }
        return nil
    }

    /// The bundles ``init(name:)`` searches, in order.
    private static func modelBundles() -> [Bundle] {
        var bundles = [Bundle.main] + Bundle.allBundles + Bundle.allFrameworks
        let beside = Bundle.main.bundleURL
        let names = (try? FileManager.default.contentsOfDirectory(atPath: beside.path)) ?? []
        for folder in names.sorted() where folder.hasSuffix(".resources") {
            if let bundle = Bundle(url: beside.appendingPathComponent(folder, isDirectory: true)) { bundles.append(bundle) }
        }
        return bundles
    }

    /// Where stores go by default: `$XDG_DATA_HOME`, or `$HOME/.local/share` (the XDG base
    /// directory rules: a relative `XDG_DATA_HOME` is ignored; without `$HOME`, the account's
    /// home folder).
    public class func defaultDirectoryURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share", isDirectory: true)
    }

    /// Adds every described store; throws the first failure.
    public func loadPersistentStores() throws {
        for description in persistentStoreDescriptions {
            try persistentStoreCoordinator.addPersistentStore(type: description.type, configuration: description.configuration,
                                                              at: description.url, options: description.effectiveOptions)
        }
    }

    /// Adds every described store, calling `completion` for each with its error, if any (Core
    /// Data's `loadPersistentStores(completionHandler:)`).
    public func loadPersistentStores(completionHandler completion: (PersistentStoreDescription, Error?) -> Void) {
        for description in persistentStoreDescriptions {
            do {
                try persistentStoreCoordinator.addPersistentStore(type: description.type, configuration: description.configuration,
                                                                  at: description.url, options: description.effectiveOptions)
                completion(description, nil)
            } catch {
                completion(description, error)
            }
        }
    }

    /// A new private-queue context on the container's coordinator.
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` with a new background context, on that context's queue.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` with a new background context, on that context's queue, and returns what it
    /// returns (or throws what it throws).
    ///
    /// ```swift
    /// let count = try await container.performBackgroundTask { context in
    ///     try context.count(for: FetchRequest<Int>(entityName: "Task"))
    /// }
    /// ```
    public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}
