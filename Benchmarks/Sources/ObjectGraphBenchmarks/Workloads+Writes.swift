// The write workloads, each repetition on a fresh database: W1 insert N and save, W6 modify N
// and save, W7 delete N and save, W7b the same through a batch delete request (no objects), W10
// many one-object saves.
import Foundation
import GRDB
import ObjectGraph

extension Workloads {
    static let insert = Workload(id: "W1", summary: "insert N objects and save", target: 2.0, writes: true) { variant, scale in
        let n = scale.rows
        switch variant {
        case .objectgraph:
            return Runner(setUp: BenchmarkModel.createStore) { url in
                let context = try BenchmarkModel.context(at: url)
                return {
                    for i in 0..<n {
                        let person = Person(context: context)
                        person.age = PersonValues.age(i)
                        person.created = Date(timeIntervalSinceReferenceDate: PersonValues.created(i))
                        person.email = PersonValues.email(i)
                        person.name = PersonValues.name(i)
                        person.score = PersonValues.score(i)
                    }
                    try context.save()
                    return n
                }
            }
        case .raw:
            return Runner(setUp: BenchmarkModel.createStore) { url in
                let connection = try RawConnection(path: url.path)
                return {
                    let first = try RawStoreSQL.allocateKeys(n, entity: Fixtures.personEntity, on: connection)
                    try connection.execute("BEGIN IMMEDIATE")
                    let insert = try connection.prepare(Fixtures.insertPersonSQL)
                    for i in 0..<n {
                        RawStoreSQL.bindInsert(of: i, key: first + Int64(i), to: insert)
                        try insert.run()
                    }
                    try connection.execute("COMMIT")
                    return n
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbInsert(GRDBDatabase.personType(variant), count: n)
        }
    }

    static let modify = Workload(id: "W6", summary: "modify N objects and save", target: 2.0, writes: true) { variant, scale in
        let n = scale.rows
        let setUp = Fixtures.persons(variant, count: n)
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                var request = FetchRequest<Person>(entityName: "Person")
                request.returnsObjectsAsFaults = false
                let people = try context.fetch(request)
                return {
                    for person in people { person.score += 1 }
                    try context.save()
                    return people.count
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                var rows = try RawStoreSQL.rows(connection.prepare(RawStoreSQL.selectAll))
                return {
                    for index in rows.indices { rows[index].score += 1 }
                    try connection.execute("BEGIN IMMEDIATE")
                    try RawStoreSQL.checkVersions(of: rows, with: connection.prepare(RawStoreSQL.checkVersions))
                    let update = try connection.prepare(RawStoreSQL.update)
                    for index in rows.indices { rows[index] = try RawStoreSQL.update(rows[index], with: update, on: connection) }
                    try connection.execute("COMMIT")
                    return rows.count
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbModify(GRDBDatabase.personType(variant), setUp: setUp)
        }
    }

    static let delete = Workload(id: "W7", summary: "delete N objects and save", target: 2.0, writes: true) { variant, scale in
        let n = scale.rows
        let setUp = Fixtures.persons(variant, count: n)
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                let people = try context.fetch(FetchRequest<Person>(entityName: "Person"))
                return {
                    for person in people { context.delete(person) }
                    try context.save()
                    return people.count
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                let rows = try RawStoreSQL.rows(connection.prepare(RawStoreSQL.selectAll))
                return {
                    try connection.execute("BEGIN IMMEDIATE")
                    try RawStoreSQL.checkVersions(of: rows, with: connection.prepare(RawStoreSQL.checkVersions))
                    let delete = try connection.prepare(RawStoreSQL.delete)
                    for row in rows {
                        delete.bind(1, row.pk)
                        delete.bind(2, row.version)
                        try delete.run()
                        guard connection.changes == 1 else { throw RawSQLiteError(description: "person \(row.pk) changed meanwhile") }
                    }
                    try connection.execute("COMMIT")
                    return rows.count
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbDelete(GRDBDatabase.personType(variant), setUp: setUp)
        }
    }

    static let batchDelete = Workload(id: "W7b", summary: "delete N with a batch delete request", target: 1.3, writes: true) { variant, scale in
        let n = scale.rows
        let setUp = Fixtures.persons(variant, count: n)
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                guard let store = context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore,
                      let person = BenchmarkModel.model.entitiesByName["Person"] else {
                    throw RawSQLiteError(description: "no SQLite store holding Person at \(url.path)")
                }
                return {
                    var request = BatchDeleteRequest(entity: person)
                    request.resultType = .count
                    guard case .count(let count) = try store.execute(request) else { return 0 }
                    return count
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                return {
                    try connection.execute("BEGIN IMMEDIATE")
                    try connection.execute(RawStoreSQL.deleteAll)
                    let count = Int(connection.changes)
                    try connection.execute("COMMIT")
                    return count
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbDeleteAll(GRDBDatabase.personType(variant), setUp: setUp)
        }
    }

    static let singleSaves = Workload(id: "W10", summary: "saves of one changed object each", target: 2.0, writes: true) { variant, scale in
        let saves = scale.saves
        let setUp = Fixtures.persons(variant, count: saves)
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                var request = FetchRequest<Person>(entityName: "Person")
                request.returnsObjectsAsFaults = false
                let people = try context.fetch(request)
                return {
                    for person in people {
                        person.score += 1
                        try context.save()
                    }
                    return people.count
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                var rows = try RawStoreSQL.rows(connection.prepare(RawStoreSQL.selectAll))
                return {
                    let check = try connection.prepare(RawStoreSQL.checkVersion)
                    let update = try connection.prepare(RawStoreSQL.update)
                    for index in rows.indices {
                        rows[index].score += 1
                        try connection.execute("BEGIN IMMEDIATE")
                        try RawStoreSQL.checkVersions(of: [rows[index]], with: check)
                        rows[index] = try RawStoreSQL.update(rows[index], with: update, on: connection)
                        try connection.execute("COMMIT")
                    }
                    return rows.count
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbSingleSaves(GRDBDatabase.personType(variant), setUp: setUp)
        }
    }

    // MARK: GRDB

    private static func grdbInsert<P: GRDBPerson>(_: P.Type, count: Int) -> Runner {
        Runner(setUp: GRDBDatabase.createSchema) { url in
            let queue = try GRDBDatabase.queue(at: url)
            return {
                try queue.write { try P.insert(count: count, $0) }
                return count
            }
        }
    }

    private static func grdbModify<P: GRDBPerson>(_: P.Type, setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbChanging(P.self, setUp: setUp) { queue, people in
            try queue.write { db in
                for index in people.indices {
                    people[index].increaseScore()
                    try people[index].saveChanges(db)
                }
            }
        }
    }

    private static func grdbDelete<P: GRDBPerson>(_: P.Type, setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbChanging(P.self, setUp: setUp) { queue, people in
            try queue.write { db in
                for person in people { try person.delete(db) }
            }
        }
    }

    /// GRDB's batch delete: `deleteAll`, one `DELETE FROM person`.
    private static func grdbDeleteAll<P: GRDBPerson>(_: P.Type, setUp: @escaping (URL) throws -> Void) -> Runner {
        Runner(setUp: setUp) { url in
            let queue = try GRDBDatabase.queue(at: url)
            return { try queue.write { try P.deleteAll($0) } }
        }
    }

    private static func grdbSingleSaves<P: GRDBPerson>(_: P.Type, setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbChanging(P.self, setUp: setUp) { queue, people in
            for index in people.indices {
                people[index].increaseScore()
                let person = people[index]
                try queue.write { try person.saveChanges($0) }
            }
        }
    }

    /// A GRDB runner whose repetition changes every person, fetched before the clock starts.
    private static func grdbChanging<P: GRDBPerson>(_: P.Type, setUp: @escaping (URL) throws -> Void,
                                                    _ change: @escaping (DatabaseQueue, inout [P]) throws -> Void) -> Runner {
        Runner(setUp: setUp) { url in
            let queue = try GRDBDatabase.queue(at: url)
            var people = try queue.read { try P.fetchAll($0) }
            return {
                try change(queue, &people)
                return people.count
            }
        }
    }
}
