// What the codegen tests share: running `objectgraph codegen` and type-checking what it writes
// against the built ObjectGraph, in a test's temporary folder.
import Foundation
import XCTest

/// A test case with a temporary folder that runs the built `objectgraph`.
protocol CodegenTesting: XCTestCase {
    var temporaryDirectory: URL! { get }
}

extension CodegenTesting {
    /// Data/Organizer.xcdatamodeld.
    var organizer: String { repositoryRoot.appendingPathComponent("Data/Organizer.xcdatamodeld").path }

    /// Runs `objectgraph` with `arguments`.
    func objectgraph(_ arguments: String...) throws -> ProgramRun {
        try run(productsDirectory.appendingPathComponent("objectgraph"), arguments, scratch: temporaryDirectory)
    }

    /// The files `objectgraph codegen MODEL OPTIONS...` writes, by name.
    func generate(_ model: String, _ options: String...) throws -> [String: String] {
        let output = temporaryDirectory.appendingPathComponent("Generated-\(UUID().uuidString)")
        let result = try run(productsDirectory.appendingPathComponent("objectgraph"),
                             ["codegen", model, "--output", output.path] + options, scratch: temporaryDirectory)
        XCTAssertEqual(result.status, 0, result.stderr)
        var files: [String: String] = [:]
        for path in result.stdoutLines {
            files[URL(fileURLWithPath: path).lastPathComponent] = try String(contentsOfFile: path, encoding: .utf8)
        }
        return files
    }

    /// Type-checks `files` as module `module` importing the built ObjectGraph (Swift 6), and
    /// fails on any error or warning.
    func assertTypeChecks(_ files: [URL], module: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let cflags = try run(env, ["pkg-config", "--cflags", "sqlite3", "libxml-2.0"], scratch: temporaryDirectory)
        XCTAssertEqual(cflags.status, 0, cflags.stderr, file: file, line: line)
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let moduleMaps = ["CSQLite", "CLibXML2"].map { "-fmodule-map-file=\(sources.appendingPathComponent("\($0)/module.modulemap").path)" }
        let clangFlags = moduleMaps + cflags.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        let arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-parse-as-library"]
            + (module.map { ["-module-name", $0] } ?? [])
            + ["-I", productsDirectory.appendingPathComponent("Modules").path]
            + clangFlags.flatMap { ["-Xcc", $0] } + files.map(\.path)
        let result = try run(env, arguments, scratch: temporaryDirectory)
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        XCTAssertFalse(result.stderr.contains("warning:"), result.stderr, file: file, line: line)
    }

    /// ``assertTypeChecks(_:module:file:line:)`` for the Swift files of `folder`.
    func assertTypeChecks(folder: URL, module: String = "App", file: StaticString = #filePath, line: UInt = #line) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            .map { folder.appendingPathComponent($0) }
        try assertTypeChecks(files, module: module, file: file, line: line)
    }
}
