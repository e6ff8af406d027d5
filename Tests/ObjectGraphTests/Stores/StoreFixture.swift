// What the in-memory and SQLite store fixtures share: the task model's entities by name, rows
// built by property name, saves, and the known data set both store test suites query.
import Foundation
@testable import ObjectGraph

/// The task model both fixtures load: people, their tasks (a milestone among them), tags, ordered
/// steps, and a configuration of people alone.
enum TaskModel {
    @ModelBuilder static var components: [any ModelComponent] {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("email", .string)
            Attribute("age", .integer64)
            Attribute("nickname", .string).transient()
            Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
            Unique("email")
        }
        Entity("Task") {
            Attribute("title", .string)
            Attribute("code", .string)
            Attribute("done", .boolean)
            Attribute("points", .integer32)
            Relationship("owner", to: "Person", inverse: "tasks")
            Relationship("tags", to: "Tag", inverse: "tasks", toMany: true)
            Relationship("steps", to: "Step", inverse: "task", toMany: true, ordered: true)
            Unique("code")
        }
        Entity("Milestone", parent: "Task") {
            Attribute("deadline", .date)
        }
        Entity("Tag") {
            Attribute("name", .string)
            Relationship("tasks", to: "Task", inverse: "tags", toMany: true)
        }
        Entity("Step") {
            Attribute("text", .string)
            Relationship("task", to: "Task", inverse: "steps")
        }
        Configuration("People", entities: ["Person"])
    }
}

/// A store with the task model loaded.
protocol StoreFixture {
    associatedtype Store: PersistentStore
    var model: ManagedObjectModel { get }
    var store: Store { get }
}

extension StoreFixture {
    func entity(_ name: String) -> EntityDescription { model.entitiesByName[name]! }

    func property(_ entity: String, _ name: String) -> PropertyDescription {
        self.entity(entity).propertiesByName[name]!
    }

    /// A permanent ID for a new object of `entity`.
    func newID(_ entity: String) throws -> ObjectID {
        try store.obtainPermanentIDs(for: [ObjectID.temporary(for: self.entity(entity))])[0]
    }

    /// A snapshot of `id` with `values` by name; other attributes and to-one relationships are
    /// nil, other to-many relationships empty.
    func row(_ id: ObjectID, _ values: [String: SnapshotValue], version: Int64 = 0) -> Snapshot {
        let slots = id.entity.layout.properties.map { property -> SnapshotValue in
            if let value = values[property.name] { return value }
            if let relationship = property as? RelationshipDescription, relationship.isToMany { return .objects([]) }
            return .null
        }
        return Snapshot(objectID: id, version: version, values: slots)
    }

    /// Saves `request`.
    @discardableResult
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult { try store.save(request) }

    /// Inserts `rows` in one save.
    @discardableResult
    func insert(_ rows: [Snapshot]) throws -> StoreSaveResult { try save(StoreSaveRequest(inserted: rows)) }

    /// The stored row of `id`.
    func stored(_ id: ObjectID) throws -> Snapshot? { try store.snapshots(for: [id])[id] }

    /// The stored destinations of the to-many relationship `name` of `id` (rows leave to-many
    /// slots unloaded: the store answers the list when it is asked).
    func list(_ name: String, of id: ObjectID) throws -> SnapshotValue {
        .objects(try store.objectIDs(forRelationship: property(id.entity.name, name) as! RelationshipDescription, of: id))
    }

    /// A fetch of `entity` matching `format` (nil: all).
    func request(_ entity: String, _ format: String? = nil, _ arguments: Any?...) throws -> StoreFetchRequest {
        var request = StoreFetchRequest(entity: self.entity(entity))
        if let format { request.predicate = try Predicate(format: format, argumentArray: arguments) }
        return request
    }

    /// The result of `request` asked for as `resultType`.
    func execute(_ request: StoreFetchRequest, as resultType: StoreFetchResultType) throws -> StoreFetchResult {
        var request = request
        request.resultType = resultType
        return try store.execute(request)
    }

    /// The object IDs `request` returns.
    func ids(_ request: StoreFetchRequest) throws -> [ObjectID] {
        let result = try execute(request, as: .objectIDs)
        guard case .objectIDs(let ids) = result else { throw UnexpectedResult(result: result) }
        return ids
    }

    /// The snapshots `request` returns.
    func snapshots(_ request: StoreFetchRequest) throws -> [Snapshot] {
        let result = try execute(request, as: .snapshots)
        guard case .snapshots(let rows) = result else { throw UnexpectedResult(result: result) }
        return rows
    }

    /// The dictionaries `request` returns.
    func dictionaries(_ request: StoreFetchRequest) throws -> [[String: any Sendable]] {
        let result = try execute(request, as: .dictionaries)
        guard case .dictionaries(let rows) = result else { throw UnexpectedResult(result: result) }
        return rows
    }

    /// The count `request` returns.
    func count(_ request: StoreFetchRequest) throws -> Int {
        let result = try execute(request, as: .count)
        guard case .count(let count) = result else { throw UnexpectedResult(result: result) }
        return count
    }
}

/// A fetch answered with another kind of result than asked for.
struct UnexpectedResult: Error {
    var result: StoreFetchResult
}

/// The known rows of `populated()`, by name.
struct TaskData {
    var ada, bob, cy: ObjectID
    var write, review, deploy, release: ObjectID
    var swift, linux: ObjectID
    var stepA, stepB, stepC: ObjectID
}

extension StoreFixture {
    /// Saves three people (Ada 36, Bob 25, Cy of unknown age), four tasks (Ada's "Write" and
    /// "Review", Bob's "deploy" and milestone "Release"), two tags and Write's steps in the order
    /// C, A, B; both sides of every relationship are sent, as a context sends them.
    func populated() throws -> TaskData {
        let d = TaskData(
            ada: try newID("Person"), bob: try newID("Person"), cy: try newID("Person"),
            write: try newID("Task"), review: try newID("Task"), deploy: try newID("Task"), release: try newID("Milestone"),
            swift: try newID("Tag"), linux: try newID("Tag"),
            stepA: try newID("Step"), stepB: try newID("Step"), stepC: try newID("Step"))
        try insert([
            row(d.ada, ["name": .value("Ada"), "email": .value("ada@example.org"), "age": .value(Int64(36)),
                        "tasks": .objects([d.write, d.review])]),
            row(d.bob, ["name": .value("Bob"), "email": .value("bob@example.org"), "age": .value(Int64(25)),
                        "tasks": .objects([d.deploy, d.release])]),
            row(d.cy, ["name": .value("Cy")]),
            row(d.write, ["title": .value("Write"), "code": .value("W"), "done": .value(false), "points": .value(Int32(3)),
                          "owner": .object(d.ada), "tags": .objects([d.swift]), "steps": .objects([d.stepC, d.stepA, d.stepB])]),
            row(d.review, ["title": .value("Review"), "code": .value("R"), "done": .value(true), "points": .value(Int32(5)),
                           "owner": .object(d.ada), "tags": .objects([d.swift, d.linux])]),
            row(d.deploy, ["title": .value("deploy"), "done": .value(false), "points": .value(Int32(8)),
                           "owner": .object(d.bob)]),
            row(d.release, ["title": .value("Release"), "done": .value(false), "points": .value(Int32(13)),
                            "owner": .object(d.bob), "deadline": .value(Date(timeIntervalSince1970: 0))]),
            row(d.swift, ["name": .value("swift"), "tasks": .objects([d.write, d.review])]),
            row(d.linux, ["name": .value("linux"), "tasks": .objects([d.review])]),
            row(d.stepA, ["text": .value("a"), "task": .object(d.write)]),
            row(d.stepB, ["text": .value("b"), "task": .object(d.write)]),
            row(d.stepC, ["text": .value("c"), "task": .object(d.write)]),
        ])
        return d
    }
}
