// The GRDB variants' types and database: `PersonRecord` etc. subclass GRDB's `Record` (change
// tracking, the closest thing to managed objects); `PersonRow` etc. are GRDB's fastest struct
// form (columns read by index, explicit selection, one cached statement for inserts and lookups).
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

    /// The person type of a GRDB variant.
    static func personType(_ variant: Variant) -> any GRDBPerson.Type {
        variant == .grdbRecord ? PersonRecord.self : PersonRow.self
    }

    /// The department type of a GRDB variant.
    static func departmentType(_ variant: Variant) -> any GRDBDepartment.Type {
        variant == .grdbRecord ? DepartmentRecord.self : DepartmentRow.self
    }
}

/// What the workloads do with a GRDB person, each form its own way.
protocol GRDBPerson: FetchableRecord, PersistableRecord {
    /// Person `i`'s values.
    init(_ i: Int)
    func read(into checksum: inout Checksum)
    mutating func increaseScore()
    /// Inserts persons 0..<count.
    static func insert(count: Int, _ db: Database) throws
    /// Writes the changes (a Record its changed columns, a struct every column).
    func saveChanges(_ db: Database) throws
    /// The person whose primary key is `key`.
    static func lookUp(_ key: Int64, _ db: Database) throws -> Self?
}

/// A GRDB department with its employees, filled by a prefetching query.
protocol GRDBDepartment: FetchableRecord, TableRecord {
    associatedtype Employee: GRDBEmployee
    var id: Int64 { get }
    var name: String { get }
    var employees: [Employee] { get set }
}

protocol GRDBEmployee: FetchableRecord, TableRecord {
    var name: String { get }
    var departmentId: Int64 { get }
}

// MARK: Record classes

final class PersonRecord: Record, GRDBPerson {
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
        checksum.addPerson(age: age, created: created.timeIntervalSinceReferenceDate, email: email, name: name, score: score)
    }

    func increaseScore() { score += 1 }

    static func insert(count: Int, _ db: Database) throws {
        for i in 0..<count { try PersonRecord(i).insert(db) }
    }

    func saveChanges(_ db: Database) throws { try updateChanges(db) }

    static func lookUp(_ key: Int64, _ db: Database) throws -> PersonRecord? { try fetchOne(db, key: key) }
}

final class DepartmentRecord: Record, GRDBDepartment {
    var id: Int64
    var name: String
    var employees: [EmployeeRecord] = []

    override class var databaseTableName: String { "department" }

    required init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        try super.init(row: row)
    }
}

final class EmployeeRecord: Record, GRDBEmployee {
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
}

// MARK: Structs

struct PersonRow: GRDBPerson {
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

    func read(into checksum: inout Checksum) {
        checksum.addPerson(age: age, created: created, email: email, name: name, score: score)
    }

    mutating func increaseScore() { score += 1 }

    /// GRDB's optimized insert: one cached statement, unchecked arguments.
    static func insert(count: Int, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO person (id, name, email, age, created, score) VALUES (?, ?, ?, ?, ?, ?)")
        for i in 0..<count {
            let row = PersonRow(i)
            statement.setUncheckedArguments([row.id, row.name, row.email, row.age, row.created, row.score])
            try statement.execute()
        }
    }

    func saveChanges(_ db: Database) throws { try update(db) }

    static func lookUp(_ key: Int64, _ db: Database) throws -> PersonRow? {
        try fetchOne(db.cachedStatement(sql: "SELECT id, name, email, age, created, score FROM person WHERE id = ?"), arguments: [key])
    }
}

struct DepartmentRow: GRDBDepartment {
    var id: Int64
    var name: String
    var employees: [EmployeeRow] = []

    static let databaseTableName = "department"
    static var databaseSelection: [any SQLSelectable] { [Column("id"), Column("name")] }

    init(row: Row) {
        id = row[0]
        name = row[1]
    }
}

struct EmployeeRow: GRDBEmployee {
    var id: Int64
    var name: String
    var departmentId: Int64

    static let databaseTableName = "employee"
    static var databaseSelection: [any SQLSelectable] { [Column("id"), Column("name"), Column("departmentId")] }

    init(row: Row) {
        id = row[0]
        name = row[1]
        departmentId = row[2]
    }
}
