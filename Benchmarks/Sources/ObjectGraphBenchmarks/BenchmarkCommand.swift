// The benchmark command: runs the workloads (all, or `--only`), prints the table, writes JSON
// (`--json`); `--quick` for a smoke run at N = 10,000; `--single` is the child process that
// measures one variant's peak memory; `--floor` times what W2's objects cost with no store;
// `--stores` times saving and opening each file store (SQLite, XML, binary); `--records` times
// external record files; `--feed` times importing an XML feed; `--migration` times migrating a
// store to a new model version, lightweight and with a mapping model.
import ArgumentParser
import Foundation

@main
struct BenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph-benchmarks",
        abstract: "Times ObjectGraph's SQLite store against raw SQLite and GRDB.",
        discussion: """
            Each workload runs through ObjectGraph, through the SQLite C API issuing the store's SQL, \
            and through GRDB (Record class and fastest struct form): one warm-up, then the median \
            of 5 with min and max. See BENCHMARKS.md.
            """)

    @Flag(help: "N = 10,000 instead of 100,000 (and the other counts a tenth): a smoke run.")
    var quick = false

    @Option(help: ArgumentHelp("Run only these workloads, comma-separated (W1,W2).", valueName: "ids"))
    var only: String?

    @Option(help: ArgumentHelp("Write the results as JSON to this file.", valueName: "path"))
    var json: String?

    @Option(help: ArgumentHelp("Override N (W1–W7's row count; the other counts scale with it), for profiling.", valueName: "n"))
    var rows: Int?

    @Option(help: ArgumentHelp("Run one variant of one workload alone (a warm-up, then the measured repetition, which callgrind's --toggle-collect='*profiledRun*' isolates) and print the peak RSS in MB.", valueName: "id"))
    var single: String?

    @Option(help: "The variant --single runs: objectgraph, raw, grdb-record or grdb-struct.")
    var variant: String = Variant.objectgraph.rawValue

    @Flag(inversion: .prefixedNo, help: "Whether --single warms up first (for profiles; peak memory needs no warm-up).")
    var warmUp = true

    @Flag(help: "Time W2's floor instead of the workloads: N managed objects and their rows made, read and freed with no store, beside W2's raw variant.")
    var floor = false

    @Flag(help: "Time the file stores instead of the workloads: N objects saved into a new SQLite, XML and binary store, and each store opened and read.")
    var stores = false

    @Flag(help: "Time external record files instead of the workloads: N objects saved with and without a file each, changed and saved again, and a full synchronization.")
    var records = false

    @Flag(help: "Time importing an XML feed of N contacts instead of the workloads: libxml2's reader alone, a raw import (reader, XPath, SQLite C API), FeedImport into a new store, and again into the store holding them.")
    var feed = false

    @Flag(help: "Time migrating a store of N persons to a new model version instead of the workloads: lightweight in place, the migration manager with an inferred mapping and with a computed value, a staged migration computing it in a custom stage, and raw SQLite's INSERT ... SELECT.")
    var migration = false

    func run() throws {
        var scale = quick ? Scale.quick : Scale.full
        if let rows { scale = scale.withRows(rows) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-benchmarks-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = Harness(scale: scale, directory: directory,
                              scaleArguments: (quick ? ["--quick"] : []) + (rows.map { ["--rows", String($0)] } ?? []))
        if let single {
            guard let workload = Workloads.all.first(where: { $0.id == single }), let variant = Variant(rawValue: variant) else {
                throw ValidationError("no workload \(single) or variant \(variant)")
            }
            try harness.runSingle(workload, variant: variant, warmUp: warmUp)
            return
        }
        if floor {
            print(Floor.report(try Floor.measure(harness), rows: scale.rows))
            return
        }
        if stores {
            print(FileStores.report(try FileStores.measure(harness), rows: scale.rows))
            return
        }
        if records {
            print(RecordFiles.report(try RecordFiles.measure(harness), rows: scale.rows))
            return
        }
        if migration {
            print(Migrations.report(try Migrations.measure(harness), rows: scale.rows))
            return
        }
        if feed {
            print(FeedImports.report(try FeedImports.measure(harness), rows: scale.rows))
            return
        }
        let wanted = only.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }) }
        let workloads = Workloads.all.filter { wanted?.contains($0.id.uppercased()) ?? true }
        guard !workloads.isEmpty else { throw ValidationError("no workload among \(only ?? "")") }
        let machine = Machine.current()
        print("ObjectGraph benchmarks, \(quick ? "quick" : "full") run: \(scale.summary)\non \(machine.summary)")
        fflush(nil)
        var results: [WorkloadResult] = []
        for workload in workloads {
            let result = try harness.run(workload)
            results.append(result)
            print(Report.line(result))
            fflush(nil)
        }
        print("")
        print(Report.table(results))
        if let json {
            try Report.json(results, machine: machine, scale: scale).write(to: URL(fileURLWithPath: json))
            print("wrote \(json)")
        }
    }
}

/// Every workload, in the issue's order.
enum Workloads {
    static let all: [Workload] = [insert, fetchAll, faults, indexedPredicate, count, modify, delete, batchDelete, byID, prefetch, singleSaves, iterate]
}
