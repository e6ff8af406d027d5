// The GRDB variants' types and database: `PersonRecord` etc. subclass GRDB's `Record` (change
// tracking, the closest thing to managed objects); `PersonRow` etc. are GRDB's fastest struct
// form (columns read by index, explicit selection, inserts through one cached statement).
import Foundation
import GRDB

enum GRDBDatabase {
    /// A queue on the file at `url`, with the store's PRAGMAs (WAL, `synchronous=NORMAL`).
    static func queue(at url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    /// Creates the tables (GRDB's own idiomatic schema: no entity or version column).
    static func createSchema(at url: URL) throws {
        try queue(at: url).write { db in
            try db.create(table: "person") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
                t.column("email", .text)
                t.column("age", .integer).indexed()
                t.column("created", .double)
                t.column("score", .double)
            }
            try db.create(table: "department") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
            }
            try db.create(table: "employee") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
                t.column("departmentId", .integer).indexed().references("department")
            }
        }
    }
}

// MARK: Record classes

final class PersonRecord: Record {
    var id: Int64?
    var name: String
    var email: String
    var age: Int32
    var created: Date
    var score: Double

    override class var databaseTableName: String { "person" }

    init(_ i: Int) {
        name = PersonValues.name(i)
        email = PersonValues.email(i)
        age = PersonValues.age(i)
        created = Date(timeIntervalSinceReferenceDate: PersonValues.created(i))
        score = PersonValues.score(i)
        super.init()
    }

    required init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        email = row["email"]
        age = row["age"]
        created = Date(timeIntervalSinceReferenceDate: row["created"])
        score = row["score"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["email"] = email
        container["age"] = age
        container["created"] = created.timeIntervalSinceReferenceDate
        container["score"] = score
    }

    override func didInsert(_ inserted: InsertionSuccess) {
        super.didInsert(inserted)
        id = inserted.rowID
    }

    func read(into checksum: inout Checksum) {
        checksum.add(Int(age))
        checksum.add(created.timeIntervalSinceReferenceDate)
        checksum.add(email)
        checksum.add(name)
        checksum.add(score)
    }
}

final class DepartmentRecord: Record {
    var id: Int64
    var name: String
    /// Filled by the prefetching query.
    var employees: [EmployeeRecord] = []

    override class var databaseTableName: String { "department" }

    required init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
    }
}

final class EmployeeRecord: Record {
    var id: Int64
    var name: String
    var departmentId: Int64

    override class var databaseTableName: String { "employee" }

    required init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        departmentId = row["departmentId"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["departmentId"] = departmentId
    }
}

// MARK: Structs

struct PersonRow: FetchableRecord, PersistableRecord {
    var id: Int64
    var name: String
    var email: String
    var age: Int32
    var created: Double
    var score: Double

    static let databaseTableName = "person"
    static var databaseSelection: [any SQLSelectable] {
        [Column("id"), Column("name"), Column("email"), Column("age"), Column("created"), Column("score")]
    }

    init(_ i: Int) {
        id = Int64(i + 1)
        name = PersonValues.name(i)
        email = PersonValues.email(i)
        age = PersonValues.age(i)
        created = PersonValues.created(i)
        score = PersonValues.score(i)
    }

    init(row: Row) {
        id = row[0]
        name = row[1]
        email = row[2]
        age = row[3]
        created = row[4]
        score = row[5]
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["email"] = email
        container["age"] = age
        container["created"] = created
        container["score"] = score
    }

    /// The one statement inserts go through (GRDB's optimized insert).
    static func insertStatement(_ db: Database) throws -> Statement {
        try db.cachedStatement(sql: "INSERT INTO person (id, name, email, age, created, score) VALUES (?, ?, ?, ?, ?, ?)")
    }

    func insert(with statement: Statement) throws {
        statement.setUncheckedArguments([id, name, email, age, created, score])
        try statement.execute()
    }

    func read(into checksum: inout Checksum) {
        checksum.add(Int(age))
        checksum.add(created)
        checksum.add(email)
        checksum.add(name)
        checksum.add(score)
    }
}

struct DepartmentRow: FetchableRecord, TableRecord {
    var id: Int64
    var name: String
    var employees: [EmployeeRow] = []

    static let databaseTableName = "department"
    static var databaseSelection: [any SQLSelectable] {
        [Column("id"), Column("name")]
    }

    init(row: Row) {
        id = row[0]
        name = row[1]
    }
}

struct EmployeeRow: FetchableRecord, TableRecord {
    var id: Int64
    var name: String
    var departmentId: Int64

    static let databaseTableName = "employee"
    static var databaseSelection: [any SQLSelectable] {
        [Column("id"), Column("name"), Column("departmentId")]
    }

    init(row: Row) {
        id = row[0]
        name = row[1]
        departmentId = row[2]
    }
}
