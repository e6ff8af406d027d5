// Runs workloads: for each variant one warm-up and five timed repetitions (a fresh database per
// repetition for writes, one filled database per variant for reads), median, min and max; and the
// ObjectGraph variant again in a child process of this binary, whose peak RSS is the workload's.
import Foundation

/// The timings of one variant of one workload, in milliseconds.
struct Timing {
    var median: Double
    var min: Double
    var max: Double
    /// What the repetitions read or wrote (the same in every repetition).
    var checksum: Int
}

/// A workload's results.
struct WorkloadResult {
    var workload: Workload
    var timings: [Variant: Timing]
    /// Why a variant has no timing, when it failed (the run goes on with the others).
    var failures: [Variant: String]
    /// Peak resident memory of a process running only the ObjectGraph variant.
    var peakRSSMegabytes: Double?

    func ratio(of variant: Variant, to denominator: Variant) -> Double? {
        guard let numerator = timings[variant]?.median, let denominator = timings[denominator]?.median, denominator > 0 else { return nil }
        return numerator / denominator
    }
}

/// Times workloads at one scale, in a temporary folder.
struct Harness {
    var scale: Scale
    var repetitions = 5
    /// Where databases go; removed at the end.
    var directory: URL
    /// The scale options this run was given, passed on to child processes.
    var scaleArguments: [String]

    /// Times every variant of `workload`, then measures the ObjectGraph variant's peak memory.
    func run(_ workload: Workload) throws -> WorkloadResult {
        var timings: [Variant: Timing] = [:]
        var failures: [Variant: String] = [:]
        for variant in Variant.allCases {
            do {
                timings[variant] = try time(workload.runner(variant, scale), writes: workload.writes, in: directory.appendingPathComponent("\(workload.id)-\(variant.rawValue)"))
            } catch {
                failures[variant] = "\(error)"
            }
        }
        let checksums = Set(timings.values.map(\.checksum))
        if checksums.count > 1 {
            FileHandle.standardError.write(Data("warning: \(workload.id): variants disagree on what they read: \(timings.mapValues(\.checksum))\n".utf8))
        }
        let peak = timings[.objectgraph] != nil ? try peakRSS(of: workload) : nil
        return WorkloadResult(workload: workload, timings: timings, failures: failures, peakRSSMegabytes: peak)
    }

    /// One warm-up, then `repetitions` timed runs.
    func time(_ runner: Runner, writes: Bool, in folder: URL) throws -> Timing {
        defer { try? FileManager.default.removeItem(at: folder) }
        let shared = folder.appendingPathComponent("shared.sqlite")
        if !writes {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try runner.setUp(shared)
        }
        var samples: [Double] = []
        var checksum = 0
        for repetition in 0...repetitions {
            var database = shared
            if writes {
                let own = folder.appendingPathComponent("run\(repetition)")
                try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
                database = own.appendingPathComponent("db.sqlite")
                try runner.setUp(database)
            }
            let (milliseconds, result) = try Self.timed(try runner.prepare(database))
            if repetition > 0 { samples.append(milliseconds) }
            checksum = result
            if writes { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        }
        samples.sort()
        return Timing(median: samples[samples.count / 2], min: samples[0], max: samples[samples.count - 1], checksum: checksum)
    }

    /// Runs `body` once; its duration in milliseconds and its checksum. The body (and whatever
    /// it holds, a context among them) is released after the clock stops.
    private static func timed(_ body: () throws -> Int) throws -> (Double, Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000, result)
    }

    /// Runs `workload`'s ObjectGraph variant alone in a child process (see ``runSingle``).
    private func peakRSS(of workload: Workload) throws -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--single", workload.id, "--variant", Variant.objectgraph.rawValue, "--no-warm-up"] + scaleArguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The child process's job: one measured repetition of one variant (after a warm-up on its
    /// own database when `warmUp`); prints the peak RSS in MB.
    func runSingle(_ workload: Workload, variant: Variant, warmUp: Bool) throws {
        let runner = workload.runner(variant, scale)
        for repetition in (warmUp ? 0 : 1)...1 {
            let folder = directory.appendingPathComponent("\(workload.id)-single\(repetition)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let database = folder.appendingPathComponent("db.sqlite")
            try runner.setUp(database)
            let body = try runner.prepare(database)
            _ = try repetition == 0 ? body() : Self.profiledRun(body)
        }
        print(String(format: "%.1f", Self.peakRSSMegabytes() ?? 0))
    }

    /// Runs one repetition's body: the function to name in `valgrind --tool=callgrind
    /// --toggle-collect='*profiledRun*'`, so that a profile counts the body alone.
    @inline(never)
    static func profiledRun(_ body: () throws -> Int) throws -> Int {
        try body()
    }

    /// `VmHWM` of this process, in MB.
    static func peakRSSMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes / 1024
    }
}
