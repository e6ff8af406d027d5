// The `objectgraph` developer tool: the root command. Each group of subcommands lives in its own
// file (`ModelCommand.swift`, `PredicateCommand.swift`, `CodegenCommand.swift`); this type only
// lists them.
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
            """,
        version: objectGraphFrameworkVersion,
        subcommands: [ModelCommand.self, PredicateCommand.self, StoreCommand.self, CodegenCommand.self]
    )
}
