// `--records`: what external record files (a file per object for a desktop search indexer) cost
// a save. N persons (W1's values) saved into a new SQLite store without records and with XHTML
// records; N of them changed and saved again, with records; a full synchronization of an
// up-to-date records folder (every file made and compared). Same protocol as the workloads (a
// warm-up, then the median of 5). Not one of issue 7's workloads: the ratio that counts here is
// to the save without records.
import Foundation
import ObjectGraph

enum RecordFiles {
    struct Result {
        var name: String
        var timing: Timing
    }

    static func measure(_ harness: Harness) throws -> [Result] {
        let n = harness.scale.rows
        func folder(_ name: String) -> URL { harness.directory.appendingPathComponent("records-\(name)") }
        let plain = try harness.time(Runner(setUp: { _ in }) { database in
            let context = try self.context(at: database, records: false)
            return {
                FileStores.insert(n, into: context)
                try context.save()
                return n
            }
        }, writes: true, in: folder("plain"))
        let recorded = try harness.time(Runner(setUp: { _ in }) { database in
            let context = try self.context(at: database, records: true)
            return {
                FileStores.insert(n, into: context)
                try context.save()
                return n
            }
        }, writes: true, in: folder("insert"))
        let modified = try harness.time(Runner(setUp: { database in
            let context = try self.context(at: database, records: true)
            FileStores.insert(n, into: context)
            try context.save()
        }) { database in
            let context = try self.context(at: database, records: true)
            let people = try context.fetch(FetchRequest<Person>(entityName: "Person"))
            return {
                for person in people { person.name = (person.name ?? "") + "!" }
                try context.save()
                return people.count
            }
        }, writes: true, in: folder("modify"))
        let synchronized = try harness.time(Runner(setUp: { database in
            let context = try self.context(at: database, records: true)
            FileStores.insert(n, into: context)
            try context.save()
        }) { database in
            let context = try self.context(at: database, records: true)
            let coordinator = context.persistentStoreCoordinator!
            let store = coordinator.persistentStores[0]
            return {
                let report = try coordinator.synchronizeExternalRecords(of: store)
                return report.unchanged
            }
        }, writes: false, in: folder("sync"))
        return [Result(name: "save, no records", timing: plain), Result(name: "save, records", timing: recorded),
                Result(name: "modify and save, records", timing: modified), Result(name: "full sync, up to date", timing: synchronized)]
    }

    /// A context on the SQLite store at `database`, keeping XHTML records beside it when `records`.
    private static func context(at database: URL, records: Bool) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: records ? BenchmarkModel.recordedModel : BenchmarkModel.model)
        let options: [String: any Sendable] = records ? [
            NSExternalRecordsDirectoryOption: database.deletingLastPathComponent().appendingPathComponent("records").path,
            NSExternalRecordExtensionOption: "person", NSExternalRecordsFileFormatOption: XHTMLExternalRecordType,
        ] : [:]
        try coordinator.addPersistentStore(type: .sqlite, at: database, options: options)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The report's lines: each timing, per record, and against the save without records.
    static func report(_ results: [Result], rows: Int) -> String {
        let base = results.first?.timing.median ?? 1
        let lines = results.map { result in
            "  " + result.name.padding(toLength: 26, withPad: " ", startingAt: 0)
                + String(format: "%9.1f ms [%.1f–%.1f]  %6.1f µs per object  %5.2f × save without records",
                         result.timing.median, result.timing.min, result.timing.max,
                         result.timing.median * 1_000 / Double(max(rows, 1)), result.timing.median / base)
        }
        return (["Record files, N = \(rows): XHTML external records of N persons (a file each) on a SQLite store"] + lines)
            .joined(separator: "\n")
    }
}
