// The databases read workloads start from, filled untimed through the raw C API: ObjectGraph's
// store files (created by the store itself, then filled with the INSERTs the store issues, and
// Z_PRIMARYKEY advanced as it advances it) and GRDB's files (its own schema, same values).
import Foundation

enum Fixtures {
    /// `Z_ENT` of each entity: the model's entities in name order, from 1.
    static let departmentEntity: Int64 = 1, employeeEntity: Int64 = 2, personEntity: Int64 = 3

    /// The store's INSERT for a person (columns in the entity's slot order).
    static let insertPersonSQL = "INSERT INTO \"ZPERSON\" (Z_PK, Z_ENT, Z_OPT, \"ZAGE\", \"ZCREATED\", \"ZEMAIL\", \"ZNAME\", \"ZSCORE\") VALUES (?, ?, 1, ?, ?, ?, ?, ?)"
    /// How the store hands out primary keys (its own transaction, before the save's).
    static let allocateKeysSQL = "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX"

    /// An ObjectGraph store at `url` holding persons 0..<count (primary keys 1...count).
    static func objectGraphPersons(at url: URL, count: Int) throws {
        try BenchmarkModel.createStore(at: url)
        let connection = try RawConnection(path: url.path)
        try connection.execute("BEGIN IMMEDIATE")
        let insert = try connection.prepare(insertPersonSQL)
        for i in 0..<count {
            RawStoreSQL.bindInsert(of: i, key: Int64(i + 1), to: insert)
            try insert.run()
        }
        try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = \(personEntity)")
        try connection.execute("COMMIT")
    }

    /// An ObjectGraph store at `url` with `departments` departments of `employees` employees each.
    static func objectGraphDepartments(at url: URL, departments: Int, employees: Int) throws {
        try BenchmarkModel.createStore(at: url)
        let connection = try RawConnection(path: url.path)
        try connection.execute("BEGIN IMMEDIATE")
        let department = try connection.prepare("INSERT INTO \"ZDEPARTMENT\" (Z_PK, Z_ENT, Z_OPT, \"ZNAME\") VALUES (?, ?, 1, ?)")
        let employee = try connection.prepare("INSERT INTO \"ZEMPLOYEE\" (Z_PK, Z_ENT, Z_OPT, \"ZNAME\", \"ZDEPARTMENT\") VALUES (?, ?, 1, ?, ?)")
        for d in 0..<departments {
            department.bind(1, Int64(d + 1))
            department.bind(2, departmentEntity)
            department.bind(3, "department\(d)")
            try department.run()
            for e in 0..<employees {
                let key = d * employees + e + 1
                employee.bind(1, Int64(key))
                employee.bind(2, employeeEntity)
                employee.bind(3, "employee\(key)")
                employee.bind(4, Int64(d + 1))
                try employee.run()
            }
        }
        try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(departments) WHERE Z_ENT = \(departmentEntity)")
        try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(departments * employees) WHERE Z_ENT = \(employeeEntity)")
        try connection.execute("COMMIT")
    }

    /// A GRDB database at `url` holding persons 0..<count (ids 1...count).
    static func grdbPersons(at url: URL, count: Int) throws {
        try GRDBDatabase.createSchema(at: url)
        let connection = try RawConnection(path: url.path)
        try connection.execute("BEGIN IMMEDIATE")
        let insert = try connection.prepare("INSERT INTO person (id, name, email, age, created, score) VALUES (?, ?, ?, ?, ?, ?)")
        for i in 0..<count {
            insert.bind(1, Int64(i + 1))
            insert.bind(2, PersonValues.name(i))
            insert.bind(3, PersonValues.email(i))
            insert.bind(4, Int64(PersonValues.age(i)))
            insert.bind(5, PersonValues.created(i))
            insert.bind(6, PersonValues.score(i))
            try insert.run()
        }
        try connection.execute("COMMIT")
    }

    /// A GRDB database at `url` with `departments` departments of `employees` employees each.
    static func grdbDepartments(at url: URL, departments: Int, employees: Int) throws {
        try GRDBDatabase.createSchema(at: url)
        let connection = try RawConnection(path: url.path)
        try connection.execute("BEGIN IMMEDIATE")
        let department = try connection.prepare("INSERT INTO department (id, name) VALUES (?, ?)")
        let employee = try connection.prepare("INSERT INTO employee (id, name, departmentId) VALUES (?, ?, ?)")
        for d in 0..<departments {
            department.bind(1, Int64(d + 1))
            department.bind(2, "department\(d)")
            try department.run()
            for e in 0..<employees {
                let key = d * employees + e + 1
                employee.bind(1, Int64(key))
                employee.bind(2, "employee\(key)")
                employee.bind(3, Int64(d + 1))
                try employee.run()
            }
        }
        try connection.execute("COMMIT")
    }

    /// The fixture of persons for `variant`.
    static func persons(_ variant: Variant, count: Int) -> (URL) throws -> Void {
        switch variant {
        case .objectgraph, .raw: return { try objectGraphPersons(at: $0, count: count) }
        case .grdbRecord, .grdbStruct: return { try grdbPersons(at: $0, count: count) }
        }
    }

    /// The fixture of departments and employees for `variant`.
    static func departments(_ variant: Variant, scale: Scale) -> (URL) throws -> Void {
        switch variant {
        case .objectgraph, .raw:
            return { try objectGraphDepartments(at: $0, departments: scale.departments, employees: scale.employeesPerDepartment) }
        case .grdbRecord, .grdbStruct:
            return { try grdbDepartments(at: $0, departments: scale.departments, employees: scale.employeesPerDepartment) }
        }
    }
}
