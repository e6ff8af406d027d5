// What a SQLite store file says about itself, read without a model: its metadata (UUID, type,
// version hashes), the model it was written with, how many rows each entity has and how large
// its files are. For `objectgraph store info`, migration and diagnostics; the file is opened
// read-only and never created.
import Foundation

/// A summary of a SQLite store file.
///
/// ```swift
/// let info = try SQLiteStoreInfo(url: URL(fileURLWithPath: "pim.sqlite"))
/// info.rowCounts["Task"]         // 42
/// info.differences(from: model)  // [] when `model` opens the store unchanged
/// ```
public struct SQLiteStoreInfo: Sendable {
    /// The store file.
    public let path: String
    /// The stored metadata (`StoreType`, `UUID`, `ModelVersionHashes`, user keys).
    public let metadata: [String: any Sendable]
    /// The model the store was written with, as the store keeps it; nil if it cannot be read.
    public let model: ManagedObjectModel?
    /// The number of rows of each entity (by name) that has any.
    public let rowCounts: [String: Int]
    /// Sizes in bytes of the store file, its `-wal` and `-shm` files and its external data
    /// folder, by path; files that do not exist are left out.
    public let fileSizes: [String: Int64]
    /// The SQL schema: the `CREATE` statement of every table and index, in creation order.
    public let schema: [String]

    /// Reads the store at `url`; throws ``StoreError/unknownStore(_:)`` when there is none.
    public init(url: URL) throws {
        self = try Self.reading(url) { connection, preexisting in try SQLiteStoreInfo(url: url, connection: connection, preexisting: preexisting) }
    }

    /// The metadata of the store at `url` alone (no counts, no schema); throws
    /// ``StoreError/unknownStore(_:)`` when there is no store there.
    public static func metadata(at url: URL) throws -> [String: any Sendable] {
        try reading(url) { connection, _ in try metadata(of: connection, at: url) }
    }

    /// Runs `body` on a read-only connection to the store file at `url`, given the side files
    /// (-wal, -shm) that were there before. Reading a WAL file makes SQLite create them: those it
    /// made go again once the connection is closed, so that the store is left as it was found.
    private static func reading<T>(_ url: URL, _ body: (SQLiteConnection, _ preexisting: Set<String>) throws -> T) throws -> T {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { throw StoreError.unknownStore("no SQLite store at \(url.path)") }
        guard !isFolder.boolValue else { throw StoreError.unknownStore("\(url.path) is a folder, not a SQLite store file") }
        let files = FileManager.default
        let sideFiles = [url.path + "-wal", url.path + "-shm"]
        let preexisting = Set(sideFiles.filter { files.fileExists(atPath: $0) })
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        defer {
            connection.close()
            for file in sideFiles where !preexisting.contains(file) { try? files.removeItem(atPath: file) }
        }
        return try body(connection, preexisting)
    }

    private static func metadata(of connection: SQLiteConnection, at url: URL) throws -> [String: any Sendable] {
        guard let metadata = try SQLiteStore.readMetadata(connection) else {
            throw StoreError.unknownStore("\(url.path) is not an ObjectGraph SQLite store (it has no Z_METADATA table)")
        }
        return metadata
    }

    private init(url: URL, connection: SQLiteConnection, preexisting: Set<String>) throws {
        path = url.path
        let files = FileManager.default
        let sideFiles = [url.path + "-wal", url.path + "-shm"]
        metadata = try Self.metadata(of: connection, at: url)
        var model: ManagedObjectModel?
        if case .blob(let xml)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") {
            model = try? ManagedObjectModel(xmlData: xml, path: url.path + " (Z_MODELCACHE)")
        }
        self.model = model
        var counts: [String: Int] = [:]
        if let model, let schema = try? SQLiteSchema(model: model, configuration: nil) {
            for table in schema.tables.values {
                let exists = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table.name)])
                guard exists?.integerValue == 1 else { continue }
                try connection.forEachRow("SELECT Z_ENT, count(*) FROM \(SQLiteSchema.quoted(table.name)) GROUP BY Z_ENT", []) { statement in
                    if let entity = schema.entitiesByNumber[statement.int64(0)] { counts[entity.name] = Int(statement.int64(1)) }
                }
            }
        }
        rowCounts = counts
        var statements: [String] = []
        try connection.forEachRow("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid", []) { statement in
            statements.append(statement.text(0))
        }
        schema = statements
        var sizes: [String: Int64] = [:]
        for file in [url.path] + sideFiles where file == url.path || preexisting.contains(file) {
            if let size = (try? files.attributesOfItem(atPath: file))?[.size] as? Int64 { sizes[file] = size }
        }
        let external = SQLiteExternalData(storeURL: url, threshold: 0).directory
        if let names = try? files.contentsOfDirectory(atPath: external.path) {
            sizes[external.path] = names.reduce(Int64(0)) { total, name in
                total + ((try? files.attributesOfItem(atPath: external.appendingPathComponent(name).path))?[.size] as? Int64 ?? 0)
            }
        }
        fileSizes = sizes
    }

    /// The store's UUID.
    public var identifier: String? { metadata[SQLiteStore.uuidKey] as? String }

    /// What differs between the model the store was written with and `model`, entity by entity
    /// and property by property; empty when `model` opens the store unchanged.
    public func differences(from model: ManagedObjectModel) -> [String] {
        let hashes = metadata[SQLiteStore.versionHashesKey] as? [String: Data] ?? [:]
        let properties = metadata[SQLiteStore.propertyVersionHashesKey] as? [String: [String: Data]] ?? [:]
        return model.versionHashDifferences(from: hashes, propertyHashes: properties)
    }
}
