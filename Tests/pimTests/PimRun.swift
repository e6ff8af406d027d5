// Running the built `pim` binary (beside the test bundle) on a temporary store, at a fixed
// instant and time zone, with HOME and XDG_DATA_HOME in the temporary folder so that no run can
// touch the user's own store; what it printed and how it exited.
import Foundation
import XCTest

/// What one run of pim printed and how it exited.
struct PimRun {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8))
    }
}

class PimTestCase: XCTestCase {
    var folder: URL!
    var store: URL { folder.appendingPathComponent("pim.sqlite") }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pim-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A shell script in the temporary folder to use as $EDITOR. `steps` are shell commands run on
    /// the form file ("$1") at the first, second... call (each call's form is kept as
    /// `form-<n>.txt`); any later call empties the file, which cancels the edit, so that a form
    /// that keeps being refused cannot loop forever.
    func editor(_ steps: [String]) throws -> String {
        let counter = folder.appendingPathComponent("editor-calls").path
        var script = "n=$(cat '\(counter)' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '\(counter)'\n"
        script += "cp \"$1\" \"\(folder.path)/form-$n.txt\"\n"
        for (index, step) in steps.enumerated() {
            script += "if [ $n -eq \(index + 1) ]; then \(step); exit 0; fi\n"
        }
        script += ": > \"$1\"\n"
        let url = folder.appendingPathComponent("editor.sh")
        try Data(script.utf8).write(to: url)
        return "/bin/sh \(url.path)"
    }


    /// The built pim executable.
    var pimURL: URL {
        let bundle = Bundle(for: Self.self).bundleURL
        let products = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
        return products.appendingPathComponent("pim")
    }

    /// The environment every run gets: HOME and XDG_DATA_HOME in the temporary folder, the
    /// instant `now` in Berlin.
    func testEnvironment(now: String = "2026-11-25T10:30:00") -> [String: String] {
        ["HOME": folder.path, "XDG_DATA_HOME": folder.appendingPathComponent("data").path,
         "PIM_NOW": now, "TZ": "Europe/Berlin", "PATH": "/usr/bin:/bin"]
    }

    /// Runs `pim --store <temp> arguments` (no `--store` when `useStoreOption` is false) at
    /// Wednesday 2026-11-25 10:30 in Berlin; stdin is empty, so pim sees no terminal.
    @discardableResult
    func pim(_ arguments: String..., useStoreOption: Bool = true, environment extra: [String: String] = [:]) throws -> PimRun {
        try pim(arguments: arguments, useStoreOption: useStoreOption, environment: extra)
    }

    /// ``pim(_:useStoreOption:environment:)`` with the arguments in an array.
    @discardableResult
    func pim(arguments: [String], useStoreOption: Bool = true, environment extra: [String: String] = [:]) throws -> PimRun {
        var environment = testEnvironment()
        environment.merge(extra) { $1 }
        // Relative paths (a bad --store) land in the temporary folder, never in the repository.
        return try run(pimURL.path, arguments + (useStoreOption ? ["--store", store.path] : []), environment: environment, directory: folder)
    }

    /// Runs any program in `directory` (default: the temporary folder), stdin empty, and
    /// returns what it printed and how it exited.
    func run(_ executable: String, _ arguments: [String], environment: [String: String], directory: URL? = nil) throws -> PimRun {
        let outputURL = folder.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errorURL = folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory ?? folder
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        return PimRun(status: process.terminationStatus,
                      stdout: try String(contentsOf: outputURL, encoding: .utf8),
                      stderr: try String(contentsOf: errorURL, encoding: .utf8))
    }

    /// The event items of `pim events agenda --days <days> --json` as (day, title, start).
    func agendaEvents(days: Int, environment: [String: String] = [:]) throws -> [(day: String, title: String, start: String)] {
        let run = try pim("events", "agenda", "--days", String(days), "--json", environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(run.json() as? [[String: Any]], run.stdout)
        return json.flatMap { day in
            (day["items"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "event" }.map {
                (day["date"] as? String ?? "", $0["title"] as? String ?? "", $0["start"] as? String ?? "")
            }
        }
    }

    /// The agenda days `title` shows on.
    func agendaDays(of title: String, days: Int, environment: [String: String] = [:]) throws -> [String] {
        try agendaEvents(days: days, environment: environment).filter { $0.title == title }.map(\.day)
    }
}
