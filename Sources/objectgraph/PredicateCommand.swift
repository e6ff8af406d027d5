// `objectgraph predicate check|eval`: parse a predicate format string and print its canonical
// form, or evaluate it against a JSON object.
import ArgumentParser
import ObjectGraph

struct PredicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predicate",
        abstract: "Check and evaluate predicate format strings."
    )
}
