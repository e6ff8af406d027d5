// `objectgraph model`: the commands that read model files (validate, describe, graph), the
// options they share, and how reading a model maps to exit codes and diagnostics. The commands
// live in ModelCommand+Validate/Describe/Graph.swift; the man page is Man/objectgraph.1.
import ArgumentParser
import Foundation
import ObjectGraph

/// The `model` command group: `objectgraph model validate|describe|graph`.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Validate, describe and draw model files.",
        discussion: """
            PATH is a .xcdatamodeld bundle (all versions of a model), a .xcdatamodel folder (one \
            version) or the contents file inside one. Results go to standard output; notes, \
            warnings and errors go to standard error as `file:line: error: Entity.property: message`.

            Exit codes: 0 success; 1 a model has errors; 64 usage error (bad arguments); \
            66 a file, folder or model version was not found or cannot be read, or PATH is not a \
            model.
            """,
        subcommands: [Validate.self, Describe.self, Graph.self]
    )
}

extension ExitCode {
    /// A model was read but has errors.
    static let invalidModel = ExitCode(1)
    /// A file, folder or model version was not found or cannot be read, or a path is not a model
    /// (`EX_NOINPUT`).
    static let noInput = ExitCode(66)
}

extension ModelError {
    /// The exit code that reports this error: 66 when the input is missing, 1 when it is invalid.
    var exitCode: ExitCode {
        switch self {
        case .fileNotFound, .notAModel, .unreadableFile, .unknownVersion: .noInput
        case .invalidModel, .mergeConflict, .invalidTemplate: .invalidModel
        }
    }
}

/// Standard error, where every diagnostic goes so that standard output stays parseable.
enum StandardError {
    /// Writes `line` and a newline to standard error.
    static func print(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// The options that name one version of one model file, shared by `describe` and `graph`.
struct ModelVersionOptions: ParsableArguments {
    /// The model file.
    @Argument(help: ArgumentHelp("A .xcdatamodeld bundle, a .xcdatamodel folder or a contents file.",
                                 valueName: "path"))
    var path: String

    /// The version to read; nil reads the current one.
    @Option(help: ArgumentHelp("The version of a .xcdatamodeld to read (default: its current version).",
                               valueName: "name"))
    var version: String?

    /// Reads and validates the chosen version, printing notes, warnings and errors to standard
    /// error; throws the exit code when the file is missing (66) or the model has errors (1).
    func loadModel() throws(ExitCode) -> ManagedObjectModel {
        let result: ModelFile.ReadResult
        let versionName: String
        do {
            let file = try ModelFile(url: URL(fileURLWithPath: path))
            // The notes say which version was taken as the current one: none is, when one is named.
            if version == nil { file.printNotes(path: path) }
            versionName = try file.version(named: version).name
            result = try file.read(version: versionName)
        } catch {
            StandardError.print("error: \(error)")
            throw error.exitCode
        }
        result.printIssues()
        guard let model = result.model, result.errors.isEmpty else {
            result.printFailure(path: path, version: versionName)
            throw .invalidModel
        }
        return model
    }
}

extension ModelFile {
    /// Prints what reading the bundle had to assume, as `note: PATH: ...` lines on standard error.
    func printNotes(path: String) {
        for note in notes { StandardError.print("note: \(path): \(note)") }
    }
}

extension ModelFile.ReadResult {
    /// Prints every issue, warnings included, one `file:line: severity: ...` line each.
    func printIssues() {
        for issue in issues { StandardError.print(issue.description) }
    }

    /// Prints `invalid  PATH (version V): 2 errors, 1 warning` on standard error.
    func printFailure(path: String, version: String) {
        let warnings = issues.count - errors.count
        var counts = [counted(errors.count, "error")]
        if warnings > 0 { counts.append(counted(warnings, "warning")) }
        StandardError.print("invalid  \(path) (version \(version)): \(counts.joined(separator: ", "))")
    }
}

/// `1 entity`, `3 entities`, `0 attributes`: a count and its noun, plural unless the count is 1.
func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
}
