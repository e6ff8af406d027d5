// `--stores`: the file stores side by side. For each of the SQLite, XML and binary stores: N
// persons (W1's values) inserted into a new store and saved, and the saved store opened in a new
// coordinator with every object fetched and read (W2's reads), with the file's size. Same
// protocol as the workloads (a warm-up, then the median of 5). Not one of issue 7's workloads:
// it shows what each store costs, the atomic ones reading and writing their whole file.
import Foundation
import ObjectGraph

enum FileStores {
    /// The stores compared, with their files' extensions.
    static let types: [(type: StoreType, pathExtension: String)] = [(.sqlite, "sqlite"), (.xml, "xml"), (.binary, "store")]

    /// One store's timings and file size.
    struct Result {
        var type: StoreType
        var save: Timing
        var open: Timing
        var bytes: Int
    }

    static func measure(_ harness: Harness) throws -> [Result] {
        let n = harness.scale.rows
        return try types.map { type, pathExtension in
            func file(_ database: URL) -> URL { database.deletingPathExtension().appendingPathExtension(pathExtension) }
            let save = try harness.time(Runner(setUp: { _ in }) { database in
                let context = try self.context(type, at: file(database))
                return {
                    insert(n, into: context)
                    try context.save()
                    return n
                }
            }, writes: true, in: harness.directory.appendingPathComponent("stores-save-\(type)"))
            var bytes = 0
            let open = try harness.time(Runner(setUp: { database in
                let context = try self.context(type, at: file(database))
                insert(n, into: context)
                try context.save()
            }) { database in
                let url = file(database)
                bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
                return {
                    let context = try self.context(type, at: url)
                    var checksum = Checksum()
                    for person in try context.fetch(FetchRequest<Person>(entityName: "Person")) { person.read(into: &checksum) }
                    return checksum.value
                }
            }, writes: false, in: harness.directory.appendingPathComponent("stores-open-\(type)"))
            return Result(type: type, save: save, open: open, bytes: bytes)
        }
    }

    /// A context on a new coordinator with a store of `type` at `url`.
    private static func context(_ type: StoreType, at url: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: BenchmarkModel.model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// W1's objects (`--records` makes them too).
    static func insert(_ n: Int, into context: ManagedObjectContext) {
        for i in 0..<n {
            let person = Person(context: context)
            person.age = PersonValues.age(i)
            person.created = Date(timeIntervalSinceReferenceDate: PersonValues.created(i))
            person.email = PersonValues.email(i)
            person.name = PersonValues.name(i)
            person.score = PersonValues.score(i)
        }
    }

    /// The report's lines.
    static func report(_ results: [Result], rows: Int) -> String {
        func span(_ timing: Timing) -> String {
            String(format: "%8.1f ms [%.1f–%.1f]", timing.median, timing.min, timing.max)
        }
        let lines = results.map { result in
            "  \(result.type.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) save \(span(result.save))   open and read \(span(result.open))   "
                + String(format: "%.1f MB", Double(result.bytes) / 1_048_576)
        }
        return (["File stores, N = \(rows): save N new objects; open the saved store and read every object; the file's size"] + lines)
            .joined(separator: "\n")
    }
}
