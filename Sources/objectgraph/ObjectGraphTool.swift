// The `objectgraph` developer tool: the root command. Each group of subcommands lives in its own
// file (`ModelCommand.swift`, `PredicateCommand.swift`, `CodegenCommand.swift`); this type lists
// them and answers `objectgraph --version`.
// Man page: Man/objectgraph.1.
import ArgumentParser
import ObjectGraph

@main
struct ObjectGraphTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph",
        abstract: "Developer tool for ObjectGraph models, predicates, stores and generated classes.",
        discussion: """
            Exit codes: 0 success; 1 the input was read but is invalid (a model error, a \
            predicate error); 64 usage error; 66 a file, folder or model version was not found or \
            cannot be read, or PATH is not a model; 73 an output file could not be written.

            `objectgraph --version` prints the version of the tool.
            """,
        subcommands: [ModelCommand.self, PredicateCommand.self, StoreCommand.self, CodegenCommand.self]
    )

    /// Runs the tool. `objectgraph --version` is answered here, before parsing: ArgumentParser
    /// hands the root's flags, and a `version:` in its configuration, to every subcommand, where
    /// a `--version` flag would shadow the `--version <name>` option of describe, graph and
    /// codegen.
    static func main() {
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(objectGraphFrameworkVersion)
            return
        }
        main(nil)
    }
}
