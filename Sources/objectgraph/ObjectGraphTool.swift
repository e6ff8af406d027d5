// The `objectgraph` developer tool: the root command, which groups the subcommands (predicate
// checking and evaluation here; model and store commands elsewhere).
import ArgumentParser
import ObjectGraph

@main
struct ObjectGraphTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph",
        abstract: "Developer tool for ObjectGraph models, predicates and stores.",
        version: objectGraphFrameworkVersion,
        subcommands: [PredicateCommand.self]
    )
}
