// What Core Data's atomic stores (NSAtomicStore: the XML and binary stores) share. The whole file
// is read when the store loads and its rows are kept in memory, where an in-memory store answers
// every request; each save writes the whole file again, to a temporary file beside it that then
// replaces it in one rename, so that the file on disk is always a whole store, the one before
// the save or the one after it. A subclass reads and writes its file format; this class does
// the rest: metadata, the model check, permanent IDs, prepared saves, copies.
import Foundation

/// A store kept in one file, read whole when it loads and written whole at each save: the base
/// of ``XMLStore`` and ``BinaryStore``.
///
/// Fetches are evaluated in memory, as the in-memory store's are. A save that cannot write the
/// file changes neither the file nor the store.
public class AtomicStore: PersistentStore, StoreCopying, @unchecked Sendable {
    /// The kind of file: ``StoreType/xml`` or ``StoreType/binary``.
    public let type: StoreType
    /// The store's UUID, kept in the file.
    public let identifier: String
    public let url: URL?
    public let configurationName: String?
    /// Whether the store was opened with ``SQLiteStore/readOnlyOption``: saves into it throw.
    public let isReadOnly: Bool
    /// The file.
    let fileURL: URL
    /// The rows, in memory: every request but saving goes to them.
    let rows: InMemoryStore

    /// Guards the properties below, and a subclass's.
    let lock = NSLock()
    /// The number of the next new object (one sequence for every entity, as Core Data's files have).
    var nextObjectNumber: Int64
    private var storedMetadata: [String: any Sendable]
    /// A save written to a temporary file, with the rows as they were before it.
    private var prepared: (contents: RowTable.Contents, file: URL)?
    /// The file as this store last read or wrote it (nil: there was none): a save refuses to
    /// overwrite a file that another coordinator or process has written (or made) since.
    private var knownFile: FileStamp?
    /// The model's concrete entities that have rows here (the configuration's and their
    /// descendants), set by ``load(model:)``.
    private(set) var heldEntities: [EntityDescription] = []

    /// What a subclass read from the head of an existing file.
    struct FileHeader {
        var identifier: String?
        var nextObjectNumber: Int64 = 1
        var metadata: [String: any Sendable] = [:]
        /// The XML of the model the file was written with, kept for migration.
        var model: Data?
    }

    /// Whether a file written with another version of the model is migrated when the store
    /// loads (``SQLiteStore/migratesAutomaticallyOption``), with an inferred mapping
    /// (``SQLiteStore/infersMappingModelOption``).
    let migratesAutomatically: Bool
    let infersMappingModel: Bool
    /// The options the store was made with.
    private let options: [String: any Sendable]
    /// The XML of the model the file was written with (from the file), then of the model the
    /// store loaded with: what the file keeps for a later migration.
    private var modelXML: Data?

    /// The metadata key of the model's version hashes: the in-memory and SQLite stores' key.
    static let versionHashesKey = SQLiteStore.versionHashesKey

    /// A store of `type` for the entities of `configurationName` (nil: all) in the file at `url`,
    /// whose head a subclass has read (`header`; nil: there is no file yet, and one is written at
    /// the first save). `options` as the SQLite store takes them: ``SQLiteStore/readOnlyOption``;
    /// `"identifier"` fixes a new store's UUID.
    init(type: StoreType, configurationName: String?, url: URL, options: [String: any Sendable], header: FileHeader?) {
        self.type = type
        fileURL = url
        self.url = url
        self.configurationName = configurationName
        isReadOnly = Self.isReadOnly(options)
        migratesAutomatically = SQLiteStore.flag(options[SQLiteStore.migratesAutomaticallyOption])
        infersMappingModel = SQLiteStore.flag(options[SQLiteStore.infersMappingModelOption])
        self.options = options
        modelXML = header?.model
        identifier = header?.identifier.flatMap { $0.isEmpty ? nil : $0 } ?? options["identifier"] as? String ?? UUID().uuidString
        nextObjectNumber = header?.nextObjectNumber ?? 1
        var rowOptions = options
        rowOptions["identifier"] = identifier
        rows = InMemoryStore(configurationName: configurationName, url: url, options: rowOptions)
        var metadata = header?.metadata ?? [:]
        metadata["StoreType"] = type.rawValue
        metadata["UUID"] = identifier
        storedMetadata = metadata
        knownFile = header == nil ? nil : FileStamp(of: url)
    }

    static func isReadOnly(_ options: [String: any Sendable]) -> Bool {
        options[SQLiteStore.readOnlyOption] as? Bool ?? false
    }

    /// The bytes of the store's file at `url`; nil when there is none (a new store), which a
    /// read-only store refuses.
    static func fileData(at url: URL, options: [String: any Sendable]) throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else {
            if isReadOnly(options) { throw StoreError.io(path: url.path, reason: "there is no store to read (the store is read-only)") }
            return nil
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw StoreError.io(path: url.path, reason: "cannot read the store: \(error.localizedDescription)")
        }
    }

    /// The store's metadata: `StoreType`, `UUID`, `ModelVersionHashes` and what was set; written
    /// to the file at the next save.
    public var metadata: [String: any Sendable] {
        get { lock.withLock { storedMetadata } }
        set {
            var metadata = newValue
            metadata["StoreType"] = type.rawValue
            if metadata["UUID"] == nil { metadata["UUID"] = identifier }
            lock.withLock { storedMetadata = metadata }
        }
    }

    /// The metadata, for a subclass writing it (the store's lock held).
    var metadataToWrite: [String: any Sendable] { storedMetadata }

    /// The XML of the store's model, for a subclass writing it (the store's lock held).
    var modelToWrite: Data? { modelXML }

    /// The UUID the file is written with: the metadata's `UUID`, which a store's metadata may
    /// set (the store's objects take it as their URIs' host once the store is added again).
    var uuidToWrite: String { storedMetadata["UUID"] as? String ?? identifier }

    /// Removes the store file of `type` at `url` (``PersistentStoreCoordinator/destroyPersistentStore(at:type:options:)``):
    /// nothing when there is none; throws, deleting nothing, when what is there is not a store
    /// of that type (a folder, another kind of file).
    static func destroy(_ type: StoreType, at url: URL) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return }
        guard !isFolder.boolValue, AtomicStoreInfo.storeType(at: url) == type else {
            throw StoreError.io(path: url.path, reason: "this is not \(type == .xml ? "an XML" : "a binary") store: nothing was deleted")
        }
        try FileManager.default.removeItem(at: url)
    }

    /// Makes the store file `replacement` with `make` and puts it in place of the one at `url`,
    /// renaming it over it (one atomic step: a crash leaves either file whole at `url`). Throws,
    /// leaving `url` as it was, when the file at `url` was written since `make` began (another
    /// coordinator saved into the store while it was migrated).
    static func swap(_ replacement: URL, into url: URL, making make: () throws -> Void, crashPoint: (String) -> Void) throws {
        let before = FileStamp(of: url)
        try make()
        try FileSwap.synchronize(replacement)
        guard FileStamp(of: url) == before else {
            throw StoreError.io(path: url.path, reason: "the store was written while it was migrated: it is left as it is "
                                + "(with what was saved); add it again to migrate it")
        }
        crashPoint("before-rename")
        try FileSwap.rename(replacement, over: url)
        crashPoint("after-rename")
    }

    /// Checks the file's version hashes against `model`'s (a file without them passes), then
    /// reads its objects into rows (``readFile()``).
    public func load(model: ManagedObjectModel) throws {
        try rows.load(model: model)
        let hashes = rows.metadata[Self.versionHashesKey] as? [String: Data] ?? [:]
        guard let entities = model.entities(forConfigurationName: configurationName) else {
            throw StoreError.unknownStore("the model has no configuration \"\(configurationName ?? "")\"")
        }
        try lock.withLock {
            // Only the hashes this framework wrote are compared: Core Data computes its own
            // (`NSStoreModelVersionHashes`) differently, so a file it wrote is checked object by
            // object as it is read instead, by the names of its entities and properties.
            var migrating = false
            if let stored = storedMetadata[Self.versionHashesKey] as? [String: Data],
               stored != hashes, !model.isCompatible(storedHashes: stored, entities: entities) {
                guard migratesAutomatically, !isReadOnly else {
                    throw StoreError.incompatibleModel(path: fileURL.path, differences: model.versionHashDifferences(from: stored))
                }
                migrating = true
            }
            var seen: Set<ObjectIdentifier> = []
            heldEntities = entities.flatMap(\.selfAndDescendants).filter { !$0.isAbstract && seen.insert(ObjectIdentifier($0)).inserted }
            heldEntitiesDidChange()
            // The file keeps the model it was written with; from now on, the store's.
            let writtenWith = modelXML
            modelXML = Data(model.xmlString().utf8)
            if migrating {
                try migrateFile(to: model, hashes: hashes, from: writtenWith)
            } else {
                // A file Core Data wrote names its model by Core Data's hashes only, and holds no
                // copy of it: a model that does not fit it cannot be told apart from a damaged
                // file until it is read, and then cannot be migrated to.
                let writtenByCoreData = storedMetadata["NSStoreModelVersionHashes"] != nil && storedMetadata[Self.versionHashesKey] == nil
                storedMetadata[Self.versionHashesKey] = hashes
                storedMetadata["NSStoreModelVersionHashes"] = nil
                do {
                    try readFile()
                } catch let error as StoreError where writtenByCoreData && migratesAutomatically {
                    throw MigrationError(.missingSourceModel, "the file was written by Core Data, with a model it does not keep, "
                                         + "and does not fit this one, so it cannot be migrated: \(error)", path: fileURL.path)
                }
            }
        }
    }

    /// Migrates the file, made with another version of the model, to `model` (whose version
    /// hashes are `hashes`): reads its objects with the model it was made with (`writtenWith`,
    /// the copy the file keeps), carries them over with an inferred mapping (``RowMigration``), and writes the file
    /// anew in one rename. The store's lock held. Throws ``MigrationError``; the file is then as
    /// it was.
    private func migrateFile(to model: ManagedObjectModel, hashes: [String: Data], from writtenWith: Data?) throws {
        let (sourceModel, mapping) = try MappingModel.inferredForStore(at: fileURL.path, infers: infersMappingModel, from: {
            guard let xml = writtenWith else {
                throw MigrationError(.missingSourceModel, "the file holds no copy of the model it was made with", path: fileURL.path)
            }
            let sourceModel: ManagedObjectModel
            do {
                sourceModel = try ManagedObjectModel(xmlData: xml, path: fileURL.path + " (the model it keeps)")
            } catch {
                throw MigrationError(.missingSourceModel, "the copy of the model the file was made with cannot be read: \(error)", path: fileURL.path)
            }
            sourceModel.freeze()
            return sourceModel
        }, to: model)
        var readerOptions = options
        readerOptions[SQLiteStore.readOnlyOption] = true
        readerOptions[SQLiteStore.migratesAutomaticallyOption] = false
        // The file was written for the store's configuration in the model it keeps, or (a model
        // that has added configurations since) for all its entities, or for another of them: the
        // one whose version hashes the file names.
        var source: AtomicStore?
        for configuration in [configurationName, nil] + sourceModel.configurations.map(\.name) {
            guard sourceModel.entities(forConfigurationName: configuration) != nil else { continue }
            let candidate = try reader(configuration: configuration, options: readerOptions)
            do {
                try candidate.load(model: sourceModel)
                source = candidate
                break
            } catch StoreError.incompatibleModel {
                continue
            }
        }
        guard let source else {
            throw MigrationError(.missingSourceModel, "the copy of the model the file keeps is not the one its version hashes name: no mapping can be inferred", path: fileURL.path)
        }
        let sourceRows = source.rows.lock.withLock { source.rows.table.rows(of: source.heldEntities) }
        source.unload()
        let migrated = try RowMigration(source: sourceRows, mapping: mapping, destinationEntities: heldEntities,
                                        storeTag: rows.storeTag, path: fileURL.path).run()
        do {
            _ = try rows.save(StoreSaveRequest(inserted: migrated.rows))
        } catch {
            throw MigrationError(.migration, "the migrated objects cannot be stored: \(error)", path: fileURL.path)
        }
        // Derived values carried over stay as they were stored (a `now()` is not taken again).
        rows.lock.withLock {
            for row in migrated.rows {
                guard let slots = migrated.carriedDerivedSlots[ObjectIdentifier(row.objectID.entity)],
                      var stored = rows.table.row(for: row.objectID) else { continue }
                for slot in slots { stored.values[slot] = row.values[slot] }
                rows.table.store(stored)
            }
        }
        nextObjectNumber = max(nextObjectNumber, source.nextObjectNumber)
        storedMetadata[Self.versionHashesKey] = hashes
        storedMetadata["NSStoreModelVersionHashes"] = nil
        let file = try writeTemporaryFile(try rows.lock.withLock { try fileContents() })
        if rename(file.path, fileURL.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: file)
            throw MigrationError(.migration, "cannot replace the store with its migrated version: \(reason)", path: fileURL.path)
        }
        knownFile = FileStamp(of: fileURL)
    }

    // MARK: What a subclass provides

    /// Reads the objects of the file the store was made from into ``rows`` (``store(_:)``), once
    /// ``heldEntities`` are known; nothing when there was no file. The store's lock is held.
    func readFile() throws {
        fatalError("\(Self.self) does not read its file")
    }

    /// The whole store as the file's bytes. The store's lock and the rows' are held.
    func fileContents() throws -> Data {
        fatalError("\(Self.self) does not write its file")
    }

    /// Called once ``heldEntities`` are known, before the file is read or migrated.
    func heldEntitiesDidChange() {}

    /// A new store of the same kind on the same file, for `configuration`, with `options`, not
    /// loaded: what a migration reads the file's objects with, under the model it was made with.
    func reader(configuration: String?, options: [String: any Sendable]) throws -> AtomicStore {
        fatalError("\(Self.self) makes no reader")
    }

    // MARK: For a subclass

    /// Puts rows read from the file into the store, each object's values by slot, and continues
    /// the numbering of new objects after the highest number read.
    func store(_ values: [(id: ObjectID, values: [SnapshotValue])]) {
        rows.lock.withLock {
            for (id, values) in values {
                rows.table.store(Snapshot(objectID: id, version: 1, values: values))
            }
        }
        let highest = values.lazy.compactMap { $0.id.primaryKey }.max() ?? 0
        nextObjectNumber = max(nextObjectNumber, highest == .max ? .max : highest + 1)
    }

    /// A new row's values for an object of `layout`, before the file's are read: nil values,
    /// empty to-many relationships, and unloaded slots for what is not stored.
    static func emptyValues(for layout: EntityLayout) -> [SnapshotValue] {
        var values = [SnapshotValue](repeating: .null, count: layout.kinds.count)
        for index in layout.kinds.indices {
            if !layout.isStoredSlot[index] {
                values[index] = .unloaded
            } else if case .toMany = layout.kinds[index] {
                values[index] = .objects([])
            }
        }
        return values
    }

    /// The destinations of relationship slot `index` of `row` that have rows (a one-way
    /// relationship's destination may have been deleted since), to write. The rows' lock held.
    func writtenDestinations(ofSlot index: Int, in row: Snapshot) -> [ObjectID] {
        rows.table.destinations(ofSlot: index, in: row).filter { rows.table.row(for: $0) != nil }
    }

    // MARK: Requests

    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try rows.execute(request)
    }

    public func snapshots(for objectIDs: [ObjectID]) throws -> [ObjectID: Snapshot] {
        try rows.snapshots(for: objectIDs)
    }

    public func objectIDs(forRelationship relationship: RelationshipDescription, of objectID: ObjectID) throws -> [ObjectID] {
        try rows.objectIDs(forRelationship: relationship, of: objectID)
    }

    /// Permanent IDs numbered from one sequence for every entity, as objects in the file are.
    public func obtainPermanentIDs(for temporaryIDs: [ObjectID]) throws -> [ObjectID] {
        try lock.withLock {
            let needed = Int64(temporaryIDs.lazy.filter(\.isTemporaryID).count)
            guard needed <= Int64.max - nextObjectNumber else {
                throw StoreError.io(path: fileURL.path, reason: "the store has no object numbers left for \(needed) new objects (the next is \(nextObjectNumber))")
            }
            return temporaryIDs.map { id in
                guard id.isTemporaryID else { return id }
                defer { nextObjectNumber += 1 }
                return ObjectID(entity: id.entity, storeTag: rows.storeTag, primaryKey: nextObjectNumber)
            }
        }
    }

    // MARK: Saving

    /// Writes the store, as it is now, to a new file at `url` (``PersistentStoreCoordinator/replacePersistentStore(at:withPersistentStoreFrom:options:type:)``).
    public func copy(to url: URL) throws {
        let contents = try lock.withLock { try rows.lock.withLock { try fileContents() } }
        do {
            try contents.write(to: url, options: .atomic)
        } catch {
            throw StoreError.io(path: url.path, reason: "cannot write the store: \(error.localizedDescription)")
        }
    }

    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        let result = try prepareSave(request)
        try commitPreparedSave()
        return result
    }

    public var supportsPreparedSaves: Bool { true }

    /// Applies the save to the rows and writes the whole store to a temporary file beside the
    /// store's; ``commitPreparedSave()`` puts it in the store's place. Nothing is changed when
    /// the rows refuse the save (conflicts, uniqueness) or the file cannot be written.
    public func prepareSave(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        if isReadOnly {
            throw StoreError.io(path: fileURL.path, reason: "the store is read-only (\(SQLiteStore.readOnlyOption)): a save cannot write to it")
        }
        return try lock.withLock {
            precondition(prepared == nil, "a save was prepared in \(identifier) and neither committed nor rolled back")
            // A file removed since is written again; one written by someone else is not overwritten.
            if let current = FileStamp(of: fileURL), current != knownFile {
                throw StoreError.io(path: fileURL.path, reason: "the file was written by another coordinator or process since this store read it; "
                                    + "nothing was saved (saving would overwrite its changes): add the store again to read them")
            }
            let result = try rows.prepareSave(request)
            let before = rows.lock.withLock { rows.table.contents }
            try rows.commitPreparedSave()
            do {
                let contents = try rows.lock.withLock { try fileContents() }
                prepared = (before, try writeTemporaryFile(contents))
            } catch {
                rows.lock.withLock { rows.table.contents = before }
                throw error
            }
            return result
        }
    }

    /// Puts the prepared file in the store's place (one rename); on failure the rows are put
    /// back as they were before the save, and the store's file is the one before it.
    public func commitPreparedSave() throws {
        try lock.withLock {
            guard let (before, file) = prepared else { return }
            prepared = nil
            if rename(file.path, fileURL.path) != 0 {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: file)
                rows.lock.withLock { rows.table.contents = before }
                throw StoreError.io(path: fileURL.path, reason: "cannot replace the store with its new version: \(reason)")
            }
            knownFile = FileStamp(of: fileURL)
        }
    }

    /// Puts the rows back as they were before the prepared save, and drops its file.
    public func rollbackPreparedSave() {
        lock.withLock {
            guard let (before, file) = prepared else { return }
            prepared = nil
            try? FileManager.default.removeItem(at: file)
            rows.lock.withLock { rows.table.contents = before }
        }
    }

    public func unload() {
        rows.unload()
    }

    /// The name of a new file beside the store file `name`: `.NAME.UUID.saving`, the name cut
    /// short (at a character) where the whole would be longer than a file name may be (255 bytes).
    static func temporaryName(for name: String) -> String {
        let suffix = ".\(UUID().uuidString).saving"
        var kept = ""
        var bytes = 1 + suffix.utf8.count
        for character in name {
            bytes += character.utf8.count
            guard bytes <= 255 else { break }
            kept.append(character)
        }
        return "." + kept + suffix
    }

    /// Writes `contents` to a new file beside the store's, with the store file's permissions,
    /// and returns it; a write that fails leaves no file behind.
    private func writeTemporaryFile(_ contents: Data) throws -> URL {
        let file = fileURL.deletingLastPathComponent().appendingPathComponent(Self.temporaryName(for: fileURL.lastPathComponent))
        do {
            try contents.write(to: file)
            if let permissions = try? FileManager.default.attributesOfItem(atPath: fileURL.path)[.posixPermissions] {
                try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: file.path)
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw StoreError.io(path: fileURL.path, reason: "cannot write the store: \(error.localizedDescription)")
        }
        return file
    }
}

/// What tells one version of a file from another: its device and inode (a save renames a new
/// file into place), size and modification time.
struct FileStamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var seconds: Int
    var nanoseconds: Int

    /// The stamp of the file at `url`; nil when there is none.
    init?(of url: URL) {
        self.init(path: url.path)
    }

    /// The stamp of the file at `path` (one system call: for paths kept as strings on hot paths);
    /// nil when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
