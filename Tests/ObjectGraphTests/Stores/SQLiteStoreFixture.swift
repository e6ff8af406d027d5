// The SQLite store tests' fixture: the task model (StoreFixture.swift) plus an entity with an
// attribute of every storable type, in a SQLite store in a temporary directory.
import Foundation
@testable import ObjectGraph

/// A SQLite store with the task model loaded, and helpers that build rows and requests.
final class SQLiteStoreFixture: StoreFixture {
    let model: ManagedObjectModel
    let directory: TemporaryDirectory
    let url: URL
    private(set) var store: SQLiteStore

    /// People, their tasks (a milestone among them), tags, ordered steps, and every attribute type.
    static func makeModel() -> ManagedObjectModel {
        let model = ManagedObjectModel {
            for component in TaskModel.components { component }
            Entity("Sample") {
                Attribute("int16", .integer16)
                Attribute("int32", .integer32)
                Attribute("int64", .integer64)
                Attribute("decimal", .decimal)
                Attribute("double", .double)
                Attribute("float", .float)
                Attribute("string", .string)
                Attribute("flag", .boolean)
                Attribute("date", .date)
                Attribute("data", .binaryData)
                Attribute("bigData", .binaryData).allowsExternalStorage()
                Attribute("uuid", .uuid)
                Attribute("uri", .uri)
                Attribute("thing", .transformable)
            }
        }
        model.freeze()
        return model
    }

    /// A fixture on a new store file (or on the file of `sharing`, with another connection).
    init(model: ManagedObjectModel = SQLiteStoreFixture.makeModel(), configuration: String? = nil,
         options: [String: any Sendable] = [:], sharing other: SQLiteStoreFixture? = nil) throws {
        self.model = model
        if let other { directory = other.directory } else { directory = try TemporaryDirectory() }
        url = other?.url ?? directory.url.appendingPathComponent("tasks.sqlite")
        store = try SQLiteStore(configurationName: configuration, url: url, options: options)
        try store.load(model: model)
    }

    /// Closes the store and opens the file again with `model` (this fixture's by default).
    func reopen(model: ManagedObjectModel? = nil) throws {
        store.unload()
        store = try SQLiteStore(url: url)
        try store.load(model: model ?? self.model)
    }

    func relationship(_ entity: String, _ name: String) -> RelationshipDescription {
        self.entity(entity).relationshipsByName[name]!
    }

    /// The stored destinations of the to-many relationship `name` of `id`.
    func destinations(_ name: String, of id: ObjectID) throws -> [ObjectID] {
        try store.objectIDs(forRelationship: relationship(id.entity.name, name), of: id)
    }

    /// The bytes of the store file after folding the write-ahead log into it.
    func checkpointedBytes() throws -> Data {
        try store.lock.withLock { try store.connection.executeScript("PRAGMA wal_checkpoint(TRUNCATE)") }
        return try Data(contentsOf: url)
    }
}
