// Runs one test of this test binary in a child process, for behaviour that ends the process when
// it goes wrong (a trap), so that a failure is reported instead of crashing the whole run.
// The probed tests skip themselves unless OBJECTGRAPH_TRAP_PROBE=1 (set only for the child).
import Foundation
import XCTest

/// The outcome of a child run of one test.
struct ProbeResult {
    var status: Int32
    var reason: Process.TerminationReason
    var output: String

    /// Whether the probed test ran and passed (it did not skip, fail or crash).
    var passed: Bool {
        reason == .exit && status == 0 && !output.lowercased().contains("skipped") && output.contains("passed")
    }

    /// Whether the child ended with a crash (a trap) or a failure.
    var crashed: Bool { reason == .uncaughtSignal || status != 0 }

    /// The end of the output, for messages.
    var tail: String { String(output.suffix(2500)) }
}

enum ChildProcessProbe {
    static let variable = "OBJECTGRAPH_TRAP_PROBE"

    /// Whether this process is a child run for a probe.
    static var isProbing: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    /// Runs `ObjectGraphTests.<testClass>/<testName>` in a child process of this test binary,
    /// with `environment` added.
    static func run(_ testClass: String, _ testName: String, environment extra: [String: String] = [:]) throws -> ProbeResult {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["ObjectGraphTests.\(testClass)/\(testName)"]
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = "1"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProbeResult(status: process.terminationStatus, reason: process.terminationReason,
                           output: String(decoding: data, as: UTF8.self))
    }

    /// Skips the calling probe test unless this is a child run.
    static func skipUnlessProbing() throws {
        try XCTSkipUnless(isProbing, "probe: runs only in a child process started by another test")
    }
}
