// W9, the object graph: 1,000 departments with 100 employees each, fetched with their employees
// prefetched (one request for the departments, one for all their employees) and read. GRDB does
// the same two queries and groups the employees by department itself.
import Foundation
import GRDB
import ObjectGraph

extension Workloads {
    static let prefetch = Workload(id: "W9", summary: "departments, prefetching 100 employees each", target: 3.0, writes: false) { variant, scale in
        let setUp = Fixtures.departments(variant, scale: scale)
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                return {
                    var request = FetchRequest<Department>(entityName: "Department")
                    request.relationshipKeyPathsForPrefetching = ["employees"]
                    var checksum = Checksum()
                    for department in try context.fetch(request) {
                        checksum.add(department.name ?? "")
                        for employee in department.employees { checksum.add(employee.name ?? "") }
                    }
                    return checksum.value
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                return {
                    var departments: [(key: Int64, name: String)] = []
                    let select = try connection.prepare(RawGraphSQL.selectDepartments)
                    while try select.step() { departments.append((select.int64(0), select.text(3))) }
                    let members = try connection.prepare(RawGraphSQL.selectEmployees)
                    members.bind(1, "[" + departments.map { String($0.key) }.joined(separator: ",") + "]")
                    var employees: [Int64: [String]] = [:]
                    while try members.step() { employees[members.int64(3), default: []].append(members.text(4)) }
                    var checksum = Checksum()
                    for department in departments {
                        checksum.add(department.name)
                        for name in employees[department.key] ?? [] { checksum.add(name) }
                    }
                    return checksum.value
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbPrefetch(GRDBDatabase.departmentType(variant), setUp: setUp)
        }
    }

    /// The departments, then all their employees in one query, grouped by department.
    private static func grdbPrefetch<D: GRDBDepartment>(_: D.Type, setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbReading(setUp: setUp) { db, checksum in
            var departments = try D.fetchAll(db)
            let employees = try D.Employee.filter(departments.map(\.id).contains(Column("departmentId"))).fetchAll(db)
            let byDepartment = Dictionary(grouping: employees, by: \.departmentId)
            for index in departments.indices { departments[index].employees = byDepartment[departments[index].id] ?? [] }
            for department in departments {
                checksum.add(department.name)
                for employee in department.employees { checksum.add(employee.name) }
            }
        }
    }
}

/// The store's statements for W9.
enum RawGraphSQL {
    static let selectDepartments = "SELECT t0.\"Z_PK\", t0.\"Z_ENT\", t0.\"Z_OPT\", t0.\"ZNAME\" FROM \"ZDEPARTMENT\" t0 ORDER BY t0.Z_PK"
    /// The store's prefetch of the employees of the departments: its translation of
    /// `department IN %@`, the departments' keys bound as one JSON array.
    static let selectEmployees = "SELECT t0.\"Z_PK\", t0.\"Z_ENT\", t0.\"Z_OPT\", t0.\"ZDEPARTMENT\", t0.\"ZNAME\" FROM \"ZEMPLOYEE\" t0 "
        + "WHERE (t0.\"ZDEPARTMENT\" IN (SELECT value FROM json_each(?1))) ORDER BY t0.Z_PK"
}
