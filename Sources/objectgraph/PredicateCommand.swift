// `objectgraph predicate check|eval`: parse a predicate format string and print its canonical
// form, or evaluate it (or an expression) against a JSON object. Thin: parsing, printing and
// evaluation live in ObjectGraph's Predicates.
import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph predicate`: the predicate language at the command line.
struct PredicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predicate",
        abstract: "Check and evaluate predicate format strings.",
        discussion: """
            Predicates use Core Data's format-string language: comparisons (==, <, BETWEEN, IN, \
            CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES) with [cdnl] options and ANY/ALL/NONE, \
            compounds (AND, OR, NOT), key paths, $variables, functions, SUBQUERY and TERNARY. \
            JSON values may be tagged: {"$date": seconds since 2001}, {"$set": [...]}, \
            {"$orderedSet": [...]}, {"$null": true}, {"$data": base64}, {"$url": "..."}.
            """,
        subcommands: [Check.self, Eval.self]
    )

    /// Options shared by both subcommands: the format and its arguments.
    struct FormatOptions: ParsableArguments {
        @Argument(help: "The predicate format string, e.g. 'age >= %d AND name BEGINSWITH[c] %@'.")
        var format: String

        @Option(
            name: .customLong("arg"),
            help: ArgumentHelp(
                "A format argument as JSON, in order: one per %@, %K, %d... ('\"name\"', '42', 'null'); one left over is an error.",
                valueName: "json"))
        var arguments: [String] = []

        func decodedArguments() throws -> [Any?] {
            try arguments.map { try PredicateJSON.decode($0) }
        }

        /// `arguments` when `parse` uses every one of them. NSPredicate ignores arguments left
        /// over; at the command line one is a mistake (a specifier forgotten, a value given
        /// twice), reported as a missing one is: the format uses the fewest that parse.
        func allUsed(_ arguments: [Any?], by parse: ([Any?]) throws -> Void) throws -> [Any?] {
            var used = arguments.count
            while used > 0, (try? parse(Array(arguments.prefix(used - 1)))) != nil { used -= 1 }
            guard used < arguments.count else { return arguments }
            let given = arguments.count == 1 ? "1 --arg was given" : "\(arguments.count) --arg values were given"
            FileHandle.standardError.write(Data("error: the format uses \(used) argument\(used == 1 ? "" : "s"), but \(given)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// `objectgraph predicate check FORMAT [--arg JSON]...`
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse a predicate and print its canonical form.",
            discussion: """
                Prints the canonical predicateFormat and exits 0. A malformed format prints the \
                error, the format and a caret under the offending character, and exits 1.

                Example: objectgraph predicate check "name like[c] %@ and age => 18" --arg '"a*"'
                prints: name LIKE[c] "a*" AND age >= 18
                """
        )

        @OptionGroup var options: FormatOptions

        func run() throws {
            try PredicateCommand.reportingErrors {
                let arguments = try options.allUsed(try options.decodedArguments()) {
                    _ = try ObjectGraph.Predicate(format: options.format, argumentArray: $0)
                }
                let predicate = try ObjectGraph.Predicate(format: options.format, argumentArray: arguments)
                print(predicate.predicateFormat)
            }
        }
    }

    /// `objectgraph predicate eval FORMAT --object JSON [--arg JSON]... [--bind NAME=JSON]...`
    struct Eval: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evaluate a predicate (or an expression) against a JSON object.",
            discussion: """
                Prints true or false; with --expression, parses FORMAT as an expression and \
                prints its value as JSON. Exits 0 on success and 1 on a parse or evaluation \
                error (an unbound $variable, comparing a string with a number, ...).

                Example: objectgraph predicate eval "ANY tags ==[c] \\$t" \
                --object '{"tags": ["Swift", "Linux"]}' --bind 't="swift"'
                prints: true
                """
        )

        @OptionGroup var options: FormatOptions

        @Option(help: ArgumentHelp("The object evaluated (SELF), as JSON.", valueName: "json"))
        var object: String = "null"

        @Option(
            name: .customLong("bind"),
            help: ArgumentHelp("Binds the variable $NAME to a JSON value.", valueName: "NAME=json"))
        var bindings: [String] = []

        @Flag(help: "Evaluate FORMAT as an expression and print its value as JSON.")
        var expression = false

        func validate() throws {
            for binding in bindings where !binding.contains("=") {
                throw ValidationError("--bind needs NAME=JSON, got \(binding)")
            }
        }

        func run() throws {
            try PredicateCommand.reportingErrors {
                let arguments = try options.allUsed(try options.decodedArguments()) { arguments in
                    if expression {
                        _ = try ObjectGraph.Expression(format: options.format, argumentArray: arguments)
                    } else {
                        _ = try ObjectGraph.Predicate(format: options.format, argumentArray: arguments)
                    }
                }
                let target = try PredicateJSON.decode(object)
                var variables: [String: Any?] = [:]
                for binding in bindings {
                    let parts = binding.split(separator: "=", maxSplits: 1)
                    let name = parts[0].hasPrefix("$") ? String(parts[0].dropFirst()) : String(parts[0])
                    variables[name] = .some(try PredicateJSON.decode(parts.count > 1 ? String(parts[1]) : ""))
                }
                if expression {
                    let parsed = try ObjectGraph.Expression(format: options.format, argumentArray: arguments)
                    print(PredicateJSON.encode(try parsed.expressionValue(with: target, context: variables)))
                } else {
                    let parsed = try ObjectGraph.Predicate(format: options.format, argumentArray: arguments)
                    print(try parsed.evaluate(with: target, substitutionVariables: variables))
                }
            }
        }
    }

    /// Runs `body`; a predicate error is printed to standard error and exits 1.
    static func reportingErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ObjectGraph.PredicateError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode(1)
        }
    }
}
