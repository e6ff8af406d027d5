// `objectgraph store info`: what a SQLite store file holds, read without changing it: its UUID
// and metadata, the model it was written with, rows per entity, file sizes, the SQL schema, and
// (with --model) whether a model opens it unchanged. Man page: Man/objectgraph.1.
import ArgumentParser
import Foundation
import ObjectGraph

/// The `store` command group: `objectgraph store info`.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Inspect store files.",
        subcommands: [Info.self]
    )

    /// `objectgraph store info STORE [--model MODEL] [--json]`.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a SQLite store's metadata, stored model, row counts and schema.",
            discussion: """
                The store is opened read-only and never created or changed. With --model, the \
                command also says whether that model opens the store unchanged, and if not, which \
                entities and properties differ (what a migration would have to change).

                Exit codes: 0 success (and, with --model, the model fits); 1 the model does not \
                fit the store; 64 usage error; 66 no store at STORE, or MODEL not found.

                Example:
                  objectgraph store info ~/.local/share/pim/pim.sqlite --model Data/PIM.xcdatamodeld
                """
        )

        @Argument(help: "The SQLite store file.")
        var store: String

        @Option(help: "A model file to check against the store (.xcdatamodeld, .xcdatamodel or contents).")
        var model: String?

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let info: SQLiteStoreInfo
            do {
                info = try SQLiteStoreInfo(url: URL(fileURLWithPath: store))
            } catch {
                StandardError.print("objectgraph: \(error)")
                throw ExitCode.noInput
            }
            var differences: [String]?
            if let model {
                do {
                    differences = info.differences(from: try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model)))
                } catch {
                    StandardError.print("\(error)")
                    throw error.exitCode
                }
            }
            if json {
                try printJSON(info, differences)
            } else {
                printText(info, differences)
            }
            if let differences, !differences.isEmpty { throw ExitCode.invalidModel }
        }

        private func printText(_ info: SQLiteStoreInfo, _ differences: [String]?) {
            print("store \(info.path)")
            print("  uuid  \(info.identifier ?? "unknown")")
            print("  type  \(info.metadata["StoreType"].map { "\($0)" } ?? "SQLite")")
            for (file, size) in info.fileSizes.sorted(by: { $0.key < $1.key }) {
                print("  file  \(file)  \(size) bytes")
            }
            let userKeys = info.metadata.keys.filter { !Self.bookkeepingKeys.contains($0) }.sorted()
            if !userKeys.isEmpty {
                print("metadata")
                for key in userKeys { print("  \(key): \(info.metadata[key].map { "\($0)" } ?? "")") }
            }
            if let model = info.model {
                print("model (as stored): \(model.entities.count) entities")
                let width = model.entities.map(\.name.count).max() ?? 0
                for entity in model.entities {
                    let rows = info.rowCounts[entity.name] ?? 0
                    let name = entity.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    print("  \(name)  \(rows) row\(rows == 1 ? "" : "s")\(entity.isAbstract ? "  (abstract)" : "")")
                }
            } else {
                print("model (as stored): unreadable")
            }
            print("schema")
            for statement in info.schema { print("  \(statement);") }
            if let differences {
                if differences.isEmpty {
                    print("model check: \(model ?? "") opens the store unchanged")
                } else {
                    print("model check: \(model ?? "") differs from the store's model:")
                    for difference in differences { print("  \(difference)") }
                }
            }
        }

        private func printJSON(_ info: SQLiteStoreInfo, _ differences: [String]?) throws {
            var object: [String: Any] = [
                "path": info.path,
                "uuid": info.identifier ?? NSNull(),
                "files": info.fileSizes,
                "rows": info.rowCounts,
                "schema": info.schema,
                "entities": info.model?.entities.map(\.name) ?? [],
                "metadata": Dictionary(uniqueKeysWithValues: info.metadata.keys.filter { !Self.bookkeepingKeys.contains($0) }
                    .map { ($0, "\(info.metadata[$0]!)") }),
            ]
            if let differences { object["differences"] = differences }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }

        /// Metadata the store keeps for itself (printed in their own lines, or not at all).
        private static let bookkeepingKeys: Set<String> = [
            "StoreType", "UUID", "ModelVersionHashes", "ModelPropertyVersionHashes",
        ]
    }
}
