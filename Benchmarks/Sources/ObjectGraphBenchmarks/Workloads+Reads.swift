// The read workloads, on one database per variant filled before the first repetition: W2 fetch N
// and read every attribute, W3 fetch N as faults and fire them in batches of 500, W4 an indexed
// predicate returning 1%, W5 a count on an unindexed predicate, W8 single objects by ID in a fresh
// context, W11 iterating 1,000,000 rows in batches of 1,000.
import Foundation
import GRDB
import ObjectGraph

extension Workloads {
    static let fetchAll = Workload(id: "W2", summary: "fetch N and read every attribute", target: 2.5, writes: false) { variant, scale in
        let setUp = Fixtures.persons(variant, count: scale.rows)
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                return {
                    var checksum = Checksum()
                    for person in try context.fetch(FetchRequest<Person>(entityName: "Person")) { person.read(into: &checksum) }
                    return checksum.value
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                return {
                    var checksum = Checksum()
                    for row in try RawStoreSQL.rows(connection.prepare(RawStoreSQL.selectAll)) { row.read(into: &checksum) }
                    return checksum.value
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbFetchAll(GRDBDatabase.personType(variant), setUp: setUp)
        }
    }

    static let faults = Workload(id: "W3", summary: "fetch N as faults, fire them (batches of 500)", target: 3.0, writes: false) { variant, scale in
        batchedIteration(variant, rows: scale.rows, batchSize: 500)
    }

    static let iterate = Workload(id: "W11", summary: "iterate rows, fetchBatchSize 1,000", target: nil, memoryTarget: 200,
                                  writes: false) { variant, scale in
        batchedIteration(variant, rows: scale.iteratedRows, batchSize: 1_000)
    }

    /// W3 and W11: object IDs first, then rows in batches (ObjectGraph: its batched results,
    /// which keep one batch of objects; GRDB: by keys for W3's batch size, a cursor for W11's,
    /// its way of iterating with bounded memory).
    private static func batchedIteration(_ variant: Variant, rows: Int, batchSize: Int) -> Runner {
        let setUp = Fixtures.persons(variant, count: rows)
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                return {
                    var request = FetchRequest<Person>(entityName: "Person")
                    request.fetchBatchSize = batchSize
                    var checksum = Checksum()
                    for person in try context.fetchBatched(request) { person.read(into: &checksum) }
                    return checksum.value
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                return {
                    var checksum = Checksum()
                    let keys = try RawStoreSQL.keys(on: connection)
                    try RawStoreSQL.forEachRow(keys: keys, batchSize: batchSize, on: connection) { $0.read(into: &checksum) }
                    return checksum.value
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbBatchedIteration(GRDBDatabase.personType(variant), batchSize: batchSize, setUp: setUp)
        }
    }

    static let indexedPredicate = Workload(id: "W4", summary: "indexed predicate returning 1% of rows", target: 1.5, writes: false) { variant, scale in
        let setUp = Fixtures.persons(variant, count: scale.rows)
        let age = PersonValues.selectedAge
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                return {
                    var request = FetchRequest<Person>(entityName: "Person")
                    request.predicate = try Predicate(format: "age == %d", Int(age))
                    var checksum = Checksum()
                    for person in try context.fetch(request) { person.read(into: &checksum) }
                    return checksum.value
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                return {
                    let statement = try connection.prepare(RawStoreSQL.selectByAge)
                    statement.bind(1, Int64(age))
                    var checksum = Checksum()
                    for row in try RawStoreSQL.rows(statement) { row.read(into: &checksum) }
                    return checksum.value
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbIndexedPredicate(GRDBDatabase.personType(variant), age: age, setUp: setUp)
        }
    }

    static let count = Workload(id: "W5", summary: "count with an unindexed predicate", target: 1.2, writes: false) { variant, scale in
        let setUp = Fixtures.persons(variant, count: scale.rows)
        let score = PersonValues.countedScore
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let context = try BenchmarkModel.context(at: url)
                return {
                    var request = FetchRequest<Person>(entityName: "Person")
                    request.predicate = try Predicate(format: "score > %f", score)
                    return try context.count(for: request)
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                return {
                    let statement = try connection.prepare(RawStoreSQL.countByScore)
                    statement.bind(1, score)
                    guard try statement.step() else { return 0 }
                    return Int(statement.int64(0))
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbCount(GRDBDatabase.personType(variant), score: score, setUp: setUp)
        }
    }

    static let byID = Workload(id: "W8", summary: "single objects by ID in a fresh context", target: 3.5, writes: false) { variant, scale in
        let setUp = Fixtures.persons(variant, count: scale.rows)
        /// Every (rows / lookups)-th key, so that lookups spread over the table.
        let keys = stride(from: 1, through: scale.rows, by: max(1, scale.rows / scale.lookups)).prefix(scale.lookups).map(Int64.init)
        switch variant {
        case .objectgraph:
            return Runner(setUp: setUp) { url in
                let fetching = try BenchmarkModel.context(at: url)
                let all = try fetching.fetch(FetchRequest<ObjectID>(entityName: "Person"))
                let ids = keys.map { all[Int($0) - 1] }
                let coordinator = fetching.persistentStoreCoordinator!
                return {
                    let context = ManagedObjectContext(concurrencyType: .mainQueue)
                    context.persistentStoreCoordinator = coordinator
                    var checksum = Checksum()
                    for id in ids { (context.object(with: id) as! Person).read(into: &checksum) }
                    return checksum.value
                }
            }
        case .raw:
            return Runner(setUp: setUp) { url in
                let connection = try RawConnection(path: url.path)
                return {
                    let statement = try connection.prepare(RawStoreSQL.selectByKey)
                    var checksum = Checksum()
                    for key in keys {
                        statement.bind(1, key)
                        guard try statement.step() else { continue }
                        RawPerson(statement).read(into: &checksum)
                        statement.reset()
                    }
                    return checksum.value
                }
            }
        case .grdbRecord, .grdbStruct:
            return grdbLookUp(GRDBDatabase.personType(variant), keys: keys, setUp: setUp)
        }
    }

    // MARK: GRDB

    private static func grdbFetchAll<P: GRDBPerson>(_: P.Type, setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbReading(setUp: setUp) { db, checksum in
            for person in try P.fetchAll(db) { person.read(into: &checksum) }
        }
    }

    /// W3 by keys, in batches as ObjectGraph fires faults; W11 with a cursor, GRDB's way of
    /// iterating with bounded memory.
    private static func grdbBatchedIteration<P: GRDBPerson>(_: P.Type, batchSize: Int, setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbReading(setUp: setUp) { db, checksum in
            if batchSize < 1_000 {
                let keys = try Int64.fetchAll(db, sql: "SELECT id FROM person ORDER BY id")
                for start in stride(from: 0, to: keys.count, by: batchSize) {
                    for person in try P.fetchAll(db, keys: keys[start..<min(start + batchSize, keys.count)]) { person.read(into: &checksum) }
                }
            } else {
                let cursor = try P.fetchCursor(db)
                while let person = try cursor.next() { person.read(into: &checksum) }
            }
        }
    }

    private static func grdbIndexedPredicate<P: GRDBPerson>(_: P.Type, age: Int32, setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbReading(setUp: setUp) { db, checksum in
            for person in try P.filter(Column("age") == age).fetchAll(db) { person.read(into: &checksum) }
        }
    }

    private static func grdbCount<P: GRDBPerson>(_: P.Type, score: Double, setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbReading(setUp: setUp) { db, checksum in
            checksum.add(try P.filter(Column("score") > score).fetchCount(db))
        }
    }

    private static func grdbLookUp<P: GRDBPerson>(_: P.Type, keys: [Int64], setUp: @escaping (URL) throws -> Void) -> Runner {
        grdbReading(setUp: setUp) { db, checksum in
            for key in keys { try P.lookUp(key, db)?.read(into: &checksum) }
        }
    }

    /// A GRDB runner whose repetition runs `read` in one read transaction.
    static func grdbReading(setUp: @escaping (URL) throws -> Void, _ read: @escaping (Database, inout Checksum) throws -> Void) -> Runner {
        Runner(setUp: setUp) { url in
            let queue = try GRDBDatabase.queue(at: url)
            return {
                var checksum = Checksum()
                try queue.read { try read($0, &checksum) }
                return checksum.value
            }
        }
    }
}
