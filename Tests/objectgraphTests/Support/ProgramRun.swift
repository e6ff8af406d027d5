// Running built executables from end-to-end tests: where SwiftPM puts them (beside the test
// bundle), where the repository is, what a run printed and how it exited, and model files to run
// them on.
import Foundation
import XCTest

/// What a run of a program printed and how it exited.
struct ProgramRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// Whether a signal ended the run (`status` is then its number).
    var killed = false
    /// Standard output split into lines, without the final newline.
    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

extension XCTestCase {
    /// The repository's root: `Tests/objectgraphTests/Support/<this file>` is four levels below it.
    var repositoryRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }

    /// The products directory, where SwiftPM puts the executables and the test bundle.
    var productsDirectory: URL {
        let bundle = Bundle(for: Self.self).bundleURL
        return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
    }

    /// Runs `program` to completion, with `environment` added to this process's; its output goes
    /// through files in `scratch` so that a large output cannot fill a pipe and block it.
    func run(_ program: URL, _ arguments: [String], scratch: URL, environment: [String: String] = [:]) throws -> ProgramRun {
        let outputURL = scratch.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errorURL = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = error
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        try process.run()
        process.waitUntilExit()
        return ProgramRun(status: process.terminationStatus,
                          stdout: try String(contentsOf: outputURL, encoding: .utf8),
                          stderr: try String(contentsOf: errorURL, encoding: .utf8),
                          killed: process.terminationReason == .uncaughtSignal)
    }

    /// Writes `<name>.xcdatamodel/contents` in `folder` holding `entities`, whose first line is
    /// line 3.
    func writeModel(_ name: String, entities: String, in folder: URL) throws -> URL {
        let model = folder.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="v1">
            \(entities)
            </model>

            """
        try Data(xml.utf8).write(to: model.appendingPathComponent("contents"))
        return model
    }
}
