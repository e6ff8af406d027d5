// What the record-file tests share: the test store's records folder and files, and the real
// recoll indexer, with a configuration folder made from Importers/recoll (what a user copies).
// Without recoll its tests are skipped, unless PIM_TESTS_REQUIRE_RECOLL=1 (.ci/run sets it, and
// installs recoll).
import Foundation
import XCTest

extension PimTestCase {
    /// The records folder of the test store (`records` beside it).
    var recordsRoot: URL { folder.appendingPathComponent("records", isDirectory: true) }

    /// The store's own records folder, `<records>/<store UUID>`, as `pim records path` prints it
    /// (with `extra` arguments instead of `--store`, when given).
    func storeRecords(_ extra: [String] = [], environment: [String: String] = [:]) throws -> URL {
        let run = try pim(arguments: ["records", "path"] + extra, useStoreOption: extra.isEmpty, environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        return URL(fileURLWithPath: run.stdout.trimmingCharacters(in: .whitespacesAndNewlines), isDirectory: true)
    }

    func text(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    func exists(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    /// The repository's root, from this file's path.
    var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A recoll configuration folder made from Importers/recoll, indexing `records`.
    func recollConfiguration(indexing records: URL) throws -> URL {
        for tool in ["recollindex", "recollq"] where !FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)") {
            if ProcessInfo.processInfo.environment["PIM_TESTS_REQUIRE_RECOLL"] == "1" {
                XCTFail("/usr/bin/\(tool) is missing (apt-get install recollcmd)")
            }
            throw XCTSkip("/usr/bin/\(tool) is not installed (apt-get install recollcmd); .ci/run installs it")
        }
        let importers = repositoryRoot.appendingPathComponent("Importers/recoll")
        let configuration = folder.appendingPathComponent("recoll", isDirectory: true)
        try FileManager.default.createDirectory(at: configuration, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: importers.path) {
            try FileManager.default.copyItem(at: importers.appendingPathComponent(name), to: configuration.appendingPathComponent(name))
        }
        let conf = configuration.appendingPathComponent("recoll.conf")
        let settings = try String(contentsOf: conf, encoding: .utf8)
            + "topdirs = \(records.path)\nlogfilename = \(configuration.path)/index.log\n"
        try Data(settings.utf8).write(to: conf)
        return configuration
    }

    /// Runs a recoll tool on `configuration` and returns what it printed; it must succeed.
    @discardableResult
    func recoll(_ tool: String, _ arguments: [String], configuration: URL) throws -> String {
        let result = try run("/usr/bin/\(tool)", ["-c", configuration.path] + arguments,
                             environment: ["HOME": folder.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
        XCTAssertEqual(result.status, 0, "\(tool) \(arguments) failed: \(result.stderr)")
        return result.stdout
    }

    /// The record files recoll finds for `query` (`recollq -b` prints one file URL per hit).
    func recollSearch(_ query: String, configuration: URL) throws -> [String] {
        try recoll("recollq", ["-b", query], configuration: configuration).split(separator: "\n")
            .filter { $0.hasPrefix("file://") }.map { String($0.dropFirst("file://".count)) }.sorted()
    }
}
