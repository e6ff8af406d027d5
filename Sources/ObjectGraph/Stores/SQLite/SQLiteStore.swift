// The SQLite store, Core Data's NSSQLiteStoreType: one file (with its -wal and -shm) changed
// incrementally, laid out as SQLiteSchema describes, with bookkeeping tables as Core Data has
// them: Z_PRIMARYKEY (key allocation per entity), Z_METADATA (UUID, type and version hashes in a
// binary plist) and Z_MODELCACHE (the model's XML, for migration). This file holds the store's
// state, loading (schema creation, or the model check), metadata, permanent IDs, unloading and
// copying; rows are read in +Reading, written in +Saving, fetched in +Fetching.
import CSQLite
import Foundation
import Synchronization

/// A store in one SQLite file.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "pim.sqlite"))
/// ```
///
/// Each save is one transaction, checked against row versions (optimistic locking) and
/// uniqueness constraints; a save that fails leaves the file as it was. Several coordinators and
/// processes can share the file: writers wait for each other up to the busy timeout (the
/// `"busyTimeout"` option, in seconds; 10 by default).
public final class SQLiteStore: PersistentStore, StoreCopying, @unchecked Sendable {
    /// Always ``StoreType/sqlite``.
    public let type = StoreType.sqlite
    /// The store's UUID, kept in its metadata table; for a new file the `"identifier"` option
    /// or a fresh UUID (or, when another process creates the file first, the UUID it gave it).
    public var identifier: String { storedIdentity.withLock { $0.identifier } }
    /// The tag of ``identifier``: what the store's object IDs carry and its reads compare.
    var storeTag: StoreTag { storedIdentity.withLock { $0.tag } }
    private let storedIdentity: Mutex<StoreIdentity>
    /// The file.
    public var url: URL? { fileURL }
    public let configurationName: String?

    /// Metadata keys the store itself maintains.
    static let storeTypeKey = "StoreType"
    static let uuidKey = "UUID"
    static let versionHashesKey = "ModelVersionHashes"
    static let propertyVersionHashesKey = "ModelPropertyVersionHashes"

    let fileURL: URL
    /// Guards everything below; held for the whole of each call into the store.
    let lock = NSLock()
    let connection: SQLiteConnection
    /// The layout, set by `load`.
    private(set) var schema: SQLiteSchema!
    private(set) var model: ManagedObjectModel!
    var storedMetadata: [String: any Sendable]
    /// Whether the metadata changed since it was last written (it is written with the next save).
    var metadataChanged = false
    /// How rows of each entity are read, built on first use.
    var readers: [ObjectIdentifier: SQLiteRowReader] = [:]
    /// Binary values kept in files beside the store.
    let externalData: SQLiteExternalData
    /// Files the save in progress wrote (removed if it fails) and those it made obsolete
    /// (removed if it succeeds).
    var externalFilesWritten: [String] = []
    var externalFilesReplaced: [String] = []
    /// How long a call waits for another connection's lock.
    let busyTimeout: TimeInterval
    /// Whether the store was opened with ``readOnlyOption``: fetches only; saves and batch
    /// requests throw before writing.
    public let isReadOnly: Bool
    /// The option (Core Data's `NSReadOnlyPersistentStoreOption`) that opens an existing store
    /// for reading only.
    public static let readOnlyOption = "NSReadOnlyPersistentStoreOption"
    /// The option (Core Data's `NSSQLitePragmasOption`): pragma names to values (strings,
    /// integers or booleans), set when the store opens.
    public static let pragmasOption = "NSSQLitePragmasOption"
    /// The options (Core Data's `NSSQLiteAnalyzeOption`, `NSSQLiteManualVacuumOption`) that run
    /// ANALYZE, and VACUUM, when the store opens.
    public static let analyzeOption = "NSSQLiteAnalyzeOption"
    public static let manualVacuumOption = "NSSQLiteManualVacuumOption"
    /// The pragmas of ``pragmasOption``, by name, checked; and the maintenance asked for.
    let pragmas: [(name: String, value: String)]
    let analyzesOnOpen: Bool
    let vacuumsOnOpen: Bool
    /// Whether a file made with another version of the model is migrated to the store's model
    /// when it opens (``migratesAutomaticallyOption``), with a mapping inferred from the two
    /// models (``infersMappingModelOption``).
    let migratesAutomatically: Bool
    let infersMappingModel: Bool
    /// Whether the store's URL is `/dev/null`: a SQLite database in memory (as Core Data's
    /// SQLite store takes that URL), gone with the store.
    let isInMemory: Bool
    /// The path and the device and inode of the file the connection opened: a file put in its
    /// place since (a migration by another coordinator or process) is not the file the
    /// connection writes.
    let openedFile: (path: String, device: UInt64, inode: UInt64)?
    /// Whether a save's transaction is open (``prepareSave(_:)``), and whether the metadata
    /// needed writing when it began (restored if it rolls back).
    var hasPreparedSave = false
    var metadataChangedBeforeSave = false
    /// How rows of each entity are written, built on first use.
    var writePlans: [ObjectIdentifier: SQLiteWritePlan] = [:]
    /// The plan `plan(for:)` gave last.
    var lastWritePlan: SQLiteWritePlan?

    /// Opens (creating it if needed) the store file at `url` for the entities of
    /// `configurationName`. Options: `"identifier"` (String) names a new store;
    /// `"busyTimeout"` (seconds) bounds how long a call waits for another writer;
    /// `"externalStorageThreshold"` (bytes, 100 KiB by default) is the size from which values of
    /// attributes allowing external storage go to files beside the store;
    /// ``readOnlyOption`` (true) opens an existing store for reading only;
    /// ``pragmasOption`` (`["journal_mode": "DELETE", "synchronous": "FULL"]`) sets SQLite
    /// pragmas on the connection, a journal mode instead of WAL; ``analyzeOption`` and
    /// ``manualVacuumOption`` (true) run ANALYZE and VACUUM when the store opens;
    /// ``migratesAutomaticallyOption`` and ``infersMappingModelOption`` (true) migrate a file made
    /// with another version of the model, in place (lightweight migration). The URL
    /// `/dev/null` makes a SQLite database in memory, as Core Data's SQLite store does.
    public init(configurationName: String? = nil, url: URL, options: [String: any Sendable] = [:]) throws {
        fileURL = url
        // Core Data's in-memory SQLite store: the URL /dev/null.
        isInMemory = url.path == "/dev/null"
        pragmas = try Self.pragmas(from: options[Self.pragmasOption])
        analyzesOnOpen = Self.flag(options[Self.analyzeOption])
        vacuumsOnOpen = Self.flag(options[Self.manualVacuumOption])
        migratesAutomatically = Self.flag(options[Self.migratesAutomaticallyOption])
        infersMappingModel = Self.flag(options[Self.infersMappingModelOption])
        self.configurationName = configurationName
        // In memory, every value stays in its row: there is no folder to put files in.
        externalData = SQLiteExternalData(storeURL: url, threshold: isInMemory ? Int.max : options["externalStorageThreshold"] as? Int ?? 100 * 1024)
        let timeout = (options["busyTimeout"] as? Double) ?? (options["busyTimeout"] as? Int).map(Double.init) ?? 10
        // WAL is a lasting property of the file: it is switched on in load, once the file is
        // known to be new or a store (a database of another program is refused untouched).
        isReadOnly = options[Self.readOnlyOption] as? Bool ?? false
        if isReadOnly, !FileManager.default.fileExists(atPath: url.path) {
            throw StoreError.io(path: url.path, reason: "there is no store to open read-only")
        }
        connection = try SQLiteConnection(path: isInMemory ? ":memory:" : url.path, busyTimeout: timeout, readOnly: isReadOnly, writeAheadLog: false)
        connection.setExternalDataDirectory(externalData.directory)
        openedFile = isInMemory ? nil : FileStamp(of: url).map { (url.path, $0.device, $0.inode) }
        busyTimeout = timeout
        let stored = try Self.readMetadata(connection)
        let identifier = stored?[Self.uuidKey] as? String ?? options["identifier"] as? String ?? UUID().uuidString
        storedIdentity = Mutex(StoreIdentity(identifier))
        storedMetadata = stored ?? [Self.storeTypeKey: StoreType.sqlite.rawValue, Self.uuidKey: identifier]
    }

    /// The store's metadata: `StoreType`, `UUID`, `ModelVersionHashes` (entity name to hash),
    /// `ModelPropertyVersionHashes` and user keys. Setting it writes it with the next save;
    /// values must be property-list values.
    public var metadata: [String: any Sendable] {
        get { lock.withLock { storedMetadata } }
        set {
            lock.withLock {
                // The store's own keys stay whatever the caller sets: without its model's hashes
                // the file could not be opened again.
                let hashes = storedMetadata[Self.versionHashesKey]
                let propertyHashes = storedMetadata[Self.propertyVersionHashesKey]
                storedMetadata = newValue
                // Apple, setMetadata(_:for:): "NSStoreUUIDKey is only added if it is not set
                // manually". A UUID set here is the file's from its next opening on; object IDs
                // keep the one the store was opened with until then.
                if !(storedMetadata[Self.uuidKey] is String) { storedMetadata[Self.uuidKey] = identifier }
                storedMetadata[Self.storeTypeKey] = StoreType.sqlite.rawValue
                if storedMetadata[Self.versionHashesKey] == nil, let hashes { storedMetadata[Self.versionHashesKey] = hashes }
                if storedMetadata[Self.propertyVersionHashesKey] == nil, let propertyHashes {
                    storedMetadata[Self.propertyVersionHashesKey] = propertyHashes
                }
                metadataChanged = true
            }
        }
    }

    // MARK: Loading

    /// Throws when the file, which has no metadata table, has tables: another program's database.
    private func refuseForeignDatabase() throws {
        let tables = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
        guard tables?.integerValue == 0 else {
            throw StoreError.io(path: fileURL.path, reason: "the file is a SQLite database of another program (it has tables but no Z_METADATA)")
        }
    }

    /// Creates the tables for `model` in a new file; in an existing one, checks that the stored
    /// version hashes are `model`'s and throws ``StoreError/incompatibleModel(path:differences:)``
    /// naming the entities and properties that changed when they are not. The check and the
    /// creation run under the write lock, so processes opening a new file at once agree on it.
    /// A database of another program (tables, but no metadata table) is refused, untouched.
    public func load(model: ManagedObjectModel) throws {
        model.freeze()
        let schema = try SQLiteSchema(model: model, configuration: configurationName)
        try lock.withLock {
            let hashes = Dictionary(schema.entities.map { ($0.name, $0.versionHash) }, uniquingKeysWith: { first, _ in first })
            let propertyHashes = model.propertyVersionHashesByEntityName.filter { hashes[$0.key] != nil }
            // A store the model cannot open is refused before WAL is switched on: the file's
            // journal mode is part of it, and a refused open leaves the file as it was. (The
            // check runs again under the write lock below, for a file made meanwhile.)
            var migrating = false
            var existing = try Self.readMetadata(connection)
            if existing == nil, try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'")?.integerValue != 0 {
                // Tables but no metadata a moment ago: another process may have created the store
                // between the two reads (its creation commits tables and metadata at once).
                existing = try Self.readMetadata(connection)
            }
            if let existing {
                migrating = try needsMigration(existing, hashes: hashes, schema: schema, model: model)
            } else {
                try refuseForeignDatabase()
                if isReadOnly { throw StoreError.io(path: fileURL.path, reason: "the file holds no store to open read-only") }
            }
            if isReadOnly {
                // Nothing is created or switched on: the file is read as it is.
                try applyPragmas()
                storedMetadata = try Self.readMetadata(connection) ?? storedMetadata
                adopt(schema, model)
                return
            }
            // The other pragmas first: some (page_size, auto_vacuum) only take effect before the
            // file's first write, which switching to WAL is.
            try applyPragmas()
            if migrating {
                // Migrated before anything else changes the file (WAL is a lasting property of
                // it): a migration that fails leaves the file as it was, journal mode included.
                // The metadata is read again under the write lock: another process may have
                // migrated the file meanwhile.
                try connection.transaction {
                    guard let current = try Self.readMetadata(connection) else { return }
                    storedMetadata = current
                    if try needsMigration(current, hashes: hashes, schema: schema, model: model) {
                        try migrate(to: model, schema: schema, hashes: hashes, propertyHashes: propertyHashes)
                    }
                }
            }
            if pragmas.contains(where: { $0.name == "journal_mode" }) {
                try applyJournalMode()
            } else if !isInMemory {
                try connection.enableWriteAheadLog(within: busyTimeout)
            }
            if try openWithoutWriting(schema: schema, hashes: hashes, model: model) {
                adopt(schema, model)
                return
            }
            try connection.transaction {
                if let current = try Self.readMetadata(connection) {
                    storedMetadata = current
                    if let uuid = current[Self.uuidKey] as? String {
                        let identity = StoreIdentity(uuid)
                        storedIdentity.withLock { $0 = identity }
                    }
                }
                if storedMetadata[Self.versionHashesKey] is [String: Data] {
                    try checkCompatibility(of: storedMetadata, hashes: hashes, schema: schema, model: model)
                    // Triggers of derived attributes the file lacks are created now: their
                    // columns are computed once for the rows already stored.
                    let lacking = try schema.derivedColumns.filter { derived in
                        try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                              [.text(derived.firstTrigger)])?.integerValue == 0
                    }
                    for statement in schema.creationStatements { try connection.execute(statement) }
                    for derived in lacking { try connection.execute(derived.backfill) }
                } else {
                    try refuseForeignDatabase()
                    storedMetadata[Self.versionHashesKey] = hashes
                    storedMetadata[Self.propertyVersionHashesKey] = propertyHashes
                    for statement in schema.creationStatements { try connection.execute(statement) }
                    for entity in schema.entities {
                        try connection.execute(
                            "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                            [.integer(schema.number(of: entity)), .text(entity.name),
                             .integer(entity.superentity.map(schema.number(of:)) ?? 0)])
                    }
                    try connection.execute("DELETE FROM Z_MODELCACHE")
                    try connection.execute("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(Data(model.xmlString().utf8))])
                    try writeMetadata()
                }
            }
            adopt(schema, model)
        }
        guard !isReadOnly, analyzesOnOpen || vacuumsOnOpen else { return }
        try lock.withLock {
            if analyzesOnOpen { try connection.execute("ANALYZE") }
            if vacuumsOnOpen { try connection.execute("VACUUM") }
        }
    }

    /// The pragmas of a ``pragmasOption`` value, refusing names and values that are not plain
    /// words or numbers (they are written into the PRAGMA statement).
    private static func pragmas(from option: (any Sendable)?) throws -> [(name: String, value: String)] {
        guard let option else { return [] }
        guard let pairs = option as? [String: any Sendable] else {
            throw StoreError.unsupportedRequest("\(pragmasOption) must be a dictionary of pragma names to values, not \(Swift.type(of: option))")
        }
        func isWord(_ text: String, extra: Set<Character>) -> Bool {
            !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || extra.contains($0)) }
        }
        return try pairs.sorted { $0.key < $1.key }.map { name, value in
            guard isWord(name, extra: ["_"]) else { throw StoreError.unsupportedRequest("\(pragmasOption): \"\(name)\" is not a pragma name") }
            let text: String
            switch value {
            case let bool as Bool: text = bool ? "1" : "0"
            case let int as Int: text = String(int)
            case let string as String: text = string
            default: throw StoreError.unsupportedRequest("\(pragmasOption): the value of \(name) must be a string, an integer or a boolean")
            }
            guard isWord(text, extra: ["_", "-", "."]) else {
                throw StoreError.unsupportedRequest("\(pragmasOption): \"\(text)\" is not a value for \(name)")
            }
            return (name, text)
        }
    }

    /// Sets ``pragmas`` other than the journal mode on the connection, the page size first
    /// (SQLite keeps the default page size once `auto_vacuum` is set on a new file). Lock held.
    private func applyPragmas() throws {
        let pageSizeFirst = pragmas.filter { $0.name == "page_size" } + pragmas.filter { $0.name != "page_size" }
        for (name, value) in pageSizeFirst where name != "journal_mode" {
            _ = try connection.scalar("PRAGMA \(name) = \(value)")
        }
    }

    /// Sets the journal mode ``pragmas`` names, checking that SQLite took it. Lock held.
    private func applyJournalMode() throws {
        guard let value = pragmas.first(where: { $0.name == "journal_mode" })?.value else { return }
        let mode = try connection.scalar("PRAGMA journal_mode = \(value)")
        guard case .text(let set)? = mode, set.lowercased() == value.lowercased() else {
            throw StoreError.io(path: fileURL.path, reason: "the journal mode stays \(mode ?? .null), not \(value)")
        }
    }

    /// An option's yes or no: true, or a non-zero number (Core Data's options are NSNumbers).
    static func flag(_ option: (any Sendable)?) -> Bool {
        (option as? Bool) ?? (option as? Int).map { $0 != 0 } ?? false
    }

    /// Makes `schema` and `model` the store's, forgetting the readers and write plans made for
    /// any earlier ones. Lock held.
    private func adopt(_ schema: SQLiteSchema, _ model: ManagedObjectModel) {
        self.schema = schema
        self.model = model
        readers = [:]
        writePlans = [:]
        lastWritePlan = nil
    }

    /// Reads the metadata of a store file that already holds every table, index and trigger
    /// `schema` makes, and returns true; false (having changed nothing) when the file lacks
    /// some, or holds no store yet. It takes no write lock, so a store opens while another
    /// process saves (WAL lets readers and a writer run at once), as Core Data's does: only a
    /// file that must change waits for the writer.
    private func openWithoutWriting(schema: SQLiteSchema, hashes: [String: Data], model: ManagedObjectModel) throws -> Bool {
        try connection.readTransaction {
            guard let current = try Self.readMetadata(connection), current[Self.versionHashesKey] is [String: Data] else { return false }
            let present = Set(try connection.rows("SELECT name FROM sqlite_master").compactMap { row -> String? in
                guard case .text(let name)? = row.first else { return nil }
                return name
            })
            guard schema.createdNames.isSubset(of: present) else { return false }
            try checkCompatibility(of: current, hashes: hashes, schema: schema, model: model)
            storedMetadata = current
            if let uuid = current[Self.uuidKey] as? String {
                let identity = StoreIdentity(uuid)
                storedIdentity.withLock { $0 = identity }
            }
            return true
        }
    }

    /// Throws when the store was opened read-only, or its file was replaced since: `what` (a
    /// save, a batch update...) would write.
    func checkWritable(_ what: String) throws {
        if isReadOnly { throw StoreError.io(path: fileURL.path, reason: "the store is read-only (\(Self.readOnlyOption)): \(what) cannot write to it") }
        try refuseWritingIfReplaced()
    }

    /// Throws ``StoreError/incompatibleModel(path:differences:)`` when the version hashes in
    /// `metadata` are not `hashes` (the entities of the store's configuration in `model`),
    /// naming the entities and properties that changed, and the stored entities the
    /// configuration leaves out. Metadata without hashes passes (a new file's).
    func checkCompatibility(of metadata: [String: any Sendable], hashes: [String: Data],
                                    schema: SQLiteSchema, model: ManagedObjectModel) throws {
        guard let stored = metadata[Self.versionHashesKey] as? [String: Data],
              stored != hashes, !model.isCompatible(storedHashes: stored, entities: schema.entities) else { return }
        let held = Set(hashes.keys)
        let storedProperties = metadata[Self.propertyVersionHashesKey] as? [String: [String: Data]] ?? [:]
        var differences = model.versionHashDifferences(from: stored, propertyHashes: storedProperties).filter { line in
            !model.entities.contains { !held.contains($0.name) && line == "entity \($0.name) was added" }
        }
        let modelNames = Set(model.entities.map(\.name))
        for name in stored.keys.sorted() where !held.contains(name) && modelNames.contains(name) {
            differences.append("entity \(name) is in the store but not in configuration \(configurationName ?? "Default")")
        }
        throw StoreError.incompatibleModel(path: fileURL.path, differences: differences)
    }

    // MARK: Metadata

    /// The metadata stored in `connection`'s file, or nil for a new file.
    static func readMetadata(_ connection: SQLiteConnection) throws -> [String: any Sendable]? {
        let exists = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_METADATA'")
        guard exists?.integerValue == 1, case .blob(let plist)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        else { return nil }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: plist, format: nil)
        } catch {
            throw StoreError.io(path: connection.path, reason: "the store's metadata cannot be read: \(error.localizedDescription)")
        }
        guard let dictionary = object as? [String: Any] else {
            throw StoreError.io(path: connection.path, reason: "the store's metadata is not a dictionary")
        }
        return dictionary.compactMapValues(Self.sendablePropertyListValue)
    }

    /// A property-list value as a Sendable one.
    static func sendablePropertyListValue(_ value: Any) -> (any Sendable)? {
        switch value {
        case let v as String: return v
        case let v as Data: return v
        case let v as Date: return v
        case let v as NSNumber: return v.propertyListValue
        case let v as [Any]: return v.compactMap(sendablePropertyListValue)
        case let v as [String: Data]: return v
        case let v as [String: [String: Data]]: return v
        case let v as [String: Any]: return v.compactMapValues(sendablePropertyListValue)
        default: return nil
        }
    }

    /// Writes the metadata (inside the caller's transaction).
    func writeMetadata() throws {
        let plist: Data
        do {
            plist = try PropertyListSerialization.data(fromPropertyList: storedMetadata as [String: Any], format: .binary, options: 0)
        } catch {
            throw StoreError.unsupportedRequest("the store's metadata holds values that are not property-list values: \(error.localizedDescription)")
        }
        try connection.execute("INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                               [.text(storedMetadata[Self.uuidKey] as? String ?? identifier), .blob(plist)])
        metadataChanged = false
    }

    // MARK: Permanent IDs

    /// Permanent IDs for `temporaryIDs`: keys taken from each inheritance root's counter in
    /// `Z_PRIMARYKEY`, committed at once so that other coordinators never hand out the same.
    /// IDs that are already permanent come back unchanged.
    public func obtainPermanentIDs(for temporaryIDs: [ObjectID]) throws -> [ObjectID] {
        if isReadOnly, temporaryIDs.contains(where: \.isTemporaryID) { try checkWritable("new objects") }
        return try lock.withLock {
            // Per table (root entity), how many keys it hands out; then the first of them. IDs
            // come in runs of one entity: each run looks its table up once, by the entity's
            // identity (comparing references would retain the ID's entity each time).
            var tables: [(root: ObjectIdentifier, count: Int64, next: Int64)] = []
            var lastEntity: ObjectIdentifier?
            var table = 0
            func locate(_ id: ObjectID) throws {
                guard ObjectIdentifier(id.entity) != lastEntity else { return }
                let entity = id.entity
                guard schema.holds(entity) else { throw unheld(entity) }
                lastEntity = ObjectIdentifier(entity)
                let root = ObjectIdentifier(schema.table(of: entity).root)
                table = tables.firstIndex { $0.root == root } ?? tables.endIndex
                if table == tables.endIndex { tables.append((root, 0, 0)) }
            }
            for index in temporaryIDs.indices where temporaryIDs[index].isTemporaryID {
                try locate(temporaryIDs[index])
                tables[table].count += 1
            }
            guard !tables.isEmpty else { return temporaryIDs }
            try connection.transaction {
                for index in tables.indices {
                    let entity = schema.tables[tables[index].root]!.root
                    let max = try connection.scalar("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX",
                                                    [.integer(tables[index].count), .integer(schema.number(of: entity))])
                    guard let last = max?.integerValue else {
                        throw StoreError.io(path: fileURL.path, reason: "Z_PRIMARYKEY has no row for \(entity.name)")
                    }
                    tables[index].next = last - tables[index].count + 1
                }
            }
            let storeTag = self.storeTag
            lastEntity = nil
            var permanent: [ObjectID] = []
            permanent.reserveCapacity(temporaryIDs.count)
            for index in temporaryIDs.indices {
                let id = temporaryIDs[index]
                guard id.isTemporaryID else {
                    permanent.append(id)
                    continue
                }
                try locate(id)
                permanent.append(ObjectID(entity: id.entity, storeTag: storeTag, primaryKey: tables[table].next))
                tables[table].next += 1
            }
            return permanent
        }
    }

    /// The error for an entity the store does not hold.
    func unheld(_ entity: EntityDescription) -> StoreError {
        StoreError.unsupportedRequest("the SQLite store at \(fileURL.path) (configuration \(configurationName ?? "default")) does not hold \(entity.name) objects")
    }

    // MARK: Unloading and copying

    /// Closes the file.
    public func unload() {
        lock.withLock { connection.close() }
    }

    /// Writes a consistent copy of the store (a single file, no -wal) at `url`, created 0600,
    /// with its external data files.
    public func copy(to url: URL) throws {
        try lock.withLock {
            let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard fd >= 0 else {
                throw StoreError.io(path: url.path, reason: "cannot create the copy: \(String(cString: strerror(errno)))")
            }
            Foundation.close(fd)
            // A read-only store copies too: query_only refuses VACUUM INTO, which writes only
            // the new file.
            if isReadOnly { try connection.execute("PRAGMA query_only = OFF") }
            defer { if isReadOnly { try? connection.execute("PRAGMA query_only = ON") } }
            try connection.execute("VACUUM INTO ?", [.text(url.path)])
            let files = FileManager.default
            guard files.fileExists(atPath: externalData.directory.path) else { return }
            let destination = SQLiteExternalData(storeURL: url, threshold: externalData.threshold).directory
            do {
                try files.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true,
                                          attributes: [.posixPermissions: 0o700])
                try files.copyItem(at: externalData.directory, to: destination)
            } catch {
                throw StoreError.io(path: destination.path, reason: "cannot copy the external data: \(error.localizedDescription)")
            }
        }
    }

    /// Removes the store file at `url` with its -wal, -shm and -journal files and its external
    /// data folder.
    public static func destroy(at url: URL) throws {
        let files = FileManager.default
        let support = SQLiteExternalData.supportDirectory(for: url)
        for path in [url.path, url.path + "-wal", url.path + "-shm", url.path + "-journal", support.path] where files.fileExists(atPath: path) {
            do {
                try files.removeItem(atPath: path)
            } catch {
                throw StoreError.io(path: path, reason: "cannot remove: \(error.localizedDescription)")
            }
        }
    }
}

extension SQLiteStore {
    /// Throws when another file now stands at the store's path (another coordinator or process
    /// migrated the store into a new file): what this connection wrote would be in no file.
    func refuseWritingIfReplaced() throws {
        guard let openedFile else { return }
        // The path kept as a string: one system call per save, no URL conversion.
        let now = FileStamp(path: openedFile.path)
        guard let now, now.device == openedFile.device, now.inode == openedFile.inode else {
            throw StoreError.io(path: fileURL.path, reason: now == nil
                ? "the store file is gone since the store was added: nothing can be saved into it"
                : "another file took the store's place since it was added (a migration?): add the store again to save into it")
        }
    }
}
