// The results as the run prints them (a Markdown table, the one BENCHMARKS.md shows) and as JSON
// (`--json`), with the machine they ran on.
import Foundation
import GRDBSQLite

/// The machine a run measured.
struct Machine {
    var cpu: String
    var cores: Int
    var swift: String
    var sqlite: String
    var system: String

    static func current() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        return Machine(cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount, swift: swiftVersion(),
                       sqlite: String(cString: sqlite3_libversion()), system: ProcessInfo.processInfo.operatingSystemVersionString)
    }

    var summary: String { "\(cpu), \(cores) cores, \(swift), SQLite \(sqlite)" }

    /// `swift --version`'s first line, or "unknown" when no toolchain is on the PATH.
    private static func swiftVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        guard (try? process.run()) != nil else { return "unknown" }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.contains("Swift version") }
        return line.map { $0.replacingOccurrences(of: "Swift version ", with: "Swift ").components(separatedBy: " (")[0] } ?? "unknown"
    }

    var json: [String: Any] {
        ["cpu": cpu, "cores": cores, "swift": swift, "sqlite": sqlite, "system": system]
    }
}

enum Report {
    /// One workload's progress line.
    static func line(_ result: WorkloadResult) -> String {
        let times = Variant.allCases.map { variant in
            "\(variant.rawValue) " + (result.timings[variant].map { String(format: "%.1f ms", $0.median) } ?? "failed")
        }
        let failures = result.failures.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\n  \($0.key.rawValue) failed: \($0.value.prefix(300))" }
        return "\(result.workload.id): " + times.joined(separator: ", ") + failures.joined()
    }

    /// The Markdown table.
    static func table(_ results: [WorkloadResult]) -> String {
        var lines = [
            "| ID | Workload | ObjectGraph ms | raw ms | GRDB Record ms | GRDB struct ms | ÷ raw (target) | ÷ GRDB Record | peak RSS MB |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for result in results {
            let workload = result.workload
            func cell(_ variant: Variant) -> String {
                guard let timing = result.timings[variant] else { return "failed" }
                return String(format: "%.1f [%.1f–%.1f]", timing.median, timing.min, timing.max)
            }
            var toRaw = result.ratio(of: .objectgraph, to: .raw).map { String(format: "%.2f", $0) } ?? "n/a"
            if let target = workload.target {
                let met = result.ratio(of: .objectgraph, to: .raw).map { $0 <= target }
                toRaw += String(format: " (≤ %.1f%@)", target, met == nil ? "" : met! ? " ✓" : " ✗")
            }
            var toRecord = result.ratio(of: .objectgraph, to: .grdbRecord).map { String(format: "%.2f", $0) } ?? "n/a"
            if let ratio = result.ratio(of: .objectgraph, to: .grdbRecord) { toRecord += ratio < 1 ? " ✓" : " ✗" }
            var memory = result.peakRSSMegabytes.map { String(format: "%.0f", $0) } ?? "n/a"
            if let limit = workload.memoryTarget {
                memory += String(format: " (≤ %.0f%@)", limit, result.peakRSSMegabytes.map { $0 <= limit ? " ✓" : " ✗" } ?? "")
            }
            lines.append("| \(workload.id) | \(workload.summary) | \(cell(.objectgraph)) | \(cell(.raw)) | \(cell(.grdbRecord)) | "
                         + "\(cell(.grdbStruct)) | \(toRaw) | \(toRecord) | \(memory) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The JSON document: the fields, plus min, max and target.
    static func json(_ results: [WorkloadResult], machine: Machine, scale: Scale) throws -> Data {
        func number(_ value: Double?) -> Any { value.map { ($0 * 1000).rounded() / 1000 } ?? NSNull() }
        let workloads: [[String: Any]] = results.map { result in
            var entry: [String: Any] = [
                "id": result.workload.id,
                "summary": result.workload.summary,
                "ratio_to_raw": number(result.ratio(of: .objectgraph, to: .raw)),
                "ratio_to_grdb_record": number(result.ratio(of: .objectgraph, to: .grdbRecord)),
                "target_ratio_to_raw": number(result.workload.target),
                "target_peak_rss_mb": number(result.workload.memoryTarget),
                "peak_rss_mb": number(result.peakRSSMegabytes),
            ]
            for variant in Variant.allCases {
                let key = variant.rawValue.replacingOccurrences(of: "-", with: "_")
                if let failure = result.failures[variant] { entry[key + "_error"] = failure }
                entry[key + "_ms"] = number(result.timings[variant]?.median)
                entry[key + "_min_ms"] = number(result.timings[variant]?.min)
                entry[key + "_max_ms"] = number(result.timings[variant]?.max)
            }
            return entry
        }
        let document: [String: Any] = [
            "machine": machine.json,
            "scale": scale.json,
            "workloads": workloads,
        ]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    }
}
