// `objectgraph store info`: what a SQLite store file holds, read without changing it: its UUID
// and metadata, the model it was written with, rows per entity, file sizes, the SQL schema, and
// (with --model) whether a model opens it unchanged. `objectgraph store migrate`: migration of
// a store file to a model, in place, with an inferred mapping (lightweight) or an Xcode mapping
// model (--mapping), or (--dry-run) the mapping it would use.
// Man page: Man/objectgraph.1.
import ArgumentParser
import Foundation
import ObjectGraph

/// The `store` command group: `objectgraph store info` and `objectgraph store migrate`.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Inspect and migrate store files.",
        subcommands: [Info.self, Migrate.self]
    )

    /// `objectgraph store migrate STORE --model MODEL [--mapping MAPPING [--source-model SOURCE]] [--dry-run]`.
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Migrate a SQLite, XML or binary store to a model, in place, with an inferred mapping or an Xcode mapping model.",
            discussion: """
                Without --mapping, the store's own model (kept in the store) and MODEL give the \
                mapping, as Core Data infers one for lightweight migration: entities and \
                properties are matched by name or by renaming identifier. The command prints the \
                mapping, then migrates the store (a SQLite store in one transaction; an XML or \
                binary store, known by its first bytes, is written anew and replaces the file in \
                one rename); with --dry-run it prints the mapping and changes nothing. A store \
                that MODEL opens unchanged is left alone.

                With --mapping, an Xcode mapping model (.xcmappingmodel or its xcmapping.xml) made \
                between the store's model (or --source-model) and MODEL is read and run as Core \
                Data's migration manager runs it: the store is migrated into a new file beside \
                it, which is then renamed over it, so that the command killed at any moment \
                leaves the old store or the new one, whole (the next migration removes what it \
                left beside it); a SQLite store whose log another process keeps from being \
                emptied is left as it was (exit 1). Migrations of the stores of one folder take \
                turns. Its entity mappings' policy classes cannot be loaded \
                by this command: a mapping that names one fails (exit 1), --dry-run too. Of a \
                bundle given with --source-model, the version the store was made with is used.

                Exit codes: 0 migrated, or nothing to migrate; 1 no migration is possible (the \
                reason names the entity and property, or the mapping file and line; the store is \
                as it was); 64 usage error; 66 no store at STORE, or MODEL not found.

                Examples:
                  objectgraph store migrate ~/.local/share/pim/pim.sqlite --model Data/PIM.xcdatamodeld
                  objectgraph store migrate moody.sqlite --model Moody.xcdatamodeld --mapping Moody_4-Moody_5.xcmappingmodel
                """
        )

        @Argument(help: "The SQLite, XML or binary store file.")
        var store: String

        @Option(help: "The model to migrate to (.xcdatamodeld, .xcdatamodel or contents; a bundle's current version).")
        var model: String

        @Option(help: "An Xcode mapping model (.xcmappingmodel or its xcmapping.xml) to migrate with, instead of an inferred mapping.")
        var mapping: String?

        @Option(help: "The model the store was made with, for --mapping (default: the copy the store keeps; of a bundle, the store's version).")
        var sourceModel: String?

        @Flag(help: "Print the mapping and change nothing.")
        var dryRun = false

        func validate() throws {
            if sourceModel != nil, mapping == nil {
                throw ValidationError("--source-model goes with --mapping")
            }
        }

        func run() throws {
            let url = URL(fileURLWithPath: store)
            // The store's type, the model it keeps, and whether MODEL opens it unchanged.
            let type: StoreType
            let source: ManagedObjectModel?
            let fits: (ManagedObjectModel) -> Bool
            do {
                if let atomicType = AtomicStoreInfo.storeType(at: url) {
                    let info = try AtomicStoreInfo(url: url)
                    (type, source, fits) = (atomicType, info.model, { info.check(against: $0) == nil })
                } else {
                    let info = try SQLiteStoreInfo(url: url)
                    (type, source, fits) = (.sqlite, info.model, { info.differences(from: $0).isEmpty })
                }
            } catch {
                StandardError.print("objectgraph: \(error)")
                throw ExitCode.noInput
            }
            let destination: ManagedObjectModel
            do {
                destination = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
            } catch {
                StandardError.print("\(error)")
                throw error.exitCode
            }
            if fits(destination) {
                print("\(store): the model opens the store unchanged; nothing to migrate")
                return
            }
            var storeModel = source
            if let sourceModel {
                do {
                    storeModel = try Self.model(at: sourceModel, fitting: fits)
                } catch {
                    StandardError.print("\(error)")
                    throw error.exitCode
                }
            }
            guard let storeModel else {
                StandardError.print("objectgraph: \(store): the store holds no readable copy of the model it was made with"
                    + (mapping == nil ? "" : "; give it with --source-model"))
                throw ExitCode.invalidModel
            }
            if mapping != nil, !fits(storeModel) {
                StandardError.print("objectgraph: \(store): the store was not made with the mapping's source model"
                    + (sourceModel.map { " (\($0))" } ?? ""))
                throw ExitCode.invalidModel
            }
            let plan: MappingModel
            do {
                if let mapping {
                    plan = try MappingModel(contentsOf: URL(fileURLWithPath: mapping), sourceModel: storeModel, destinationModel: destination)
                } else {
                    plan = try MappingModel.inferredMappingModel(forSourceModel: storeModel, destinationModel: destination)
                }
            } catch {
                StandardError.print("objectgraph: \(error is MigrationError && mapping != nil ? "" : store + ": ")\(error)")
                throw ExitCode.invalidModel
            }
            print("mapping")
            for entity in plan.entityMappings { print("  \(entity)") }
            // A policy class is the application's code, which this command does not have.
            let missing = plan.entityMappings.compactMap { mapping -> String? in
                guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty,
                      EntityMigrationPolicy.policyClass(named: name) == nil else { return nil }
                return "entity mapping \(mapping.name): no migration policy class \(name) (the application's code; this command cannot run it)"
            }
            if !missing.isEmpty {
                StandardError.print("objectgraph: \(store): cannot migrate the store: " + missing.joined(separator: "; "))
                throw ExitCode.invalidModel
            }
            guard !dryRun else { return }
            var options: [String: any Sendable] = [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: mapping == nil,
            ]
            if mapping != nil { options[MigrationManager.mappingModelsOption] = [plan] }
            do {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: destination)
                let migrated = try coordinator.addPersistentStore(type: type, at: url, options: options)
                try coordinator.remove(migrated)
            } catch {
                StandardError.print("objectgraph: \(error)")
                throw ExitCode.invalidModel
            }
            print("\(store): migrated")
        }
    }

}

extension StoreCommand.Migrate {
    /// The model at `path`: of a bundle (`.xcdatamodeld`), the version `fits` accepts (the one
    /// the store was made with), else its current version.
    static func model(at path: String, fitting fits: (ManagedObjectModel) -> Bool) throws(ModelError) -> ManagedObjectModel {
        let url = URL(fileURLWithPath: path)
        if url.pathExtension == "xcdatamodeld", let file = try? ModelFile(url: url) {
            for name in file.versionNames {
                if let version = try? file.load(version: name), fits(version) { return version }
            }
        }
        return try ManagedObjectModel(contentsOf: url)
    }
}

extension StoreCommand {
    /// `objectgraph store info STORE [--model MODEL] [--json]`.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a SQLite, XML or binary store's metadata, stored model, row counts and schema.",
            discussion: """
                The store is opened read-only and never created or changed. It names the version \
                checksum of the model the store was written with (the one model describe prints, \
                by which a staged migration's stages name versions). With --model, the \
                command also says whether that model opens the store unchanged, and if not, which \
                entities and properties differ and whether a lightweight migration (store migrate) \
                can carry the store over. For an XML store (a file whose first element is \
                <database>) or a binary store (a file that starts with OGBSTORE), it prints the \
                store's UUID, size, metadata and objects by type, and with --model whether the \
                model opens it, or the store's error (with its line or byte) and whether a \
                migration can carry it over.

                Exit codes: 0 success (and, with --model, the model fits); 1 the model does not \
                fit the store; 64 usage error; 66 no store at STORE (or an XML or binary store \
                that cannot be read), or MODEL not found.

                Example:
                  objectgraph store info ~/.local/share/pim/pim.sqlite --model Data/PIM.xcdatamodeld
                """
        )

        @Argument(help: "The SQLite, XML or binary store file.")
        var store: String

        @Option(help: "A model file to check against the store (.xcdatamodeld, .xcdatamodel or contents).")
        var model: String?

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            if AtomicStoreInfo.storeType(at: URL(fileURLWithPath: store)) != nil { return try runForAtomicStore() }
            let info: SQLiteStoreInfo
            do {
                info = try SQLiteStoreInfo(url: URL(fileURLWithPath: store))
            } catch {
                StandardError.print("objectgraph: \(error)")
                throw ExitCode.noInput
            }
            var differences: [String]?
            var migration: String?
            if let model {
                do {
                    let destination = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
                    differences = info.differences(from: destination)
                    if differences?.isEmpty == false { migration = Self.migration(from: info.model, to: destination) }
                } catch {
                    StandardError.print("\(error)")
                    throw error.exitCode
                }
            }
            if json {
                try printJSON(info, differences, migration)
            } else {
                printText(info, differences, migration)
            }
            if let differences, !differences.isEmpty { throw ExitCode.invalidModel }
        }

        /// Whether a lightweight migration can take the store to `destination`: "inferred", or why
        /// not.
        /// The line that says whether `store migrate` can carry the store over (nothing for nil).
        private func printMigration(_ migration: String?) {
            if migration == "inferred" {
                print("migration: inferred; objectgraph store migrate \(store) --model \(model ?? "") carries the store over")
            } else if let migration {
                print("migration: \(migration)")
            }
        }

        private static func migration(from source: ManagedObjectModel?, to destination: ManagedObjectModel) -> String {
            guard let source else { return "not possible: the store holds no readable copy of its model" }
            do {
                _ = try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
                return "inferred"
            } catch let error as MigrationError {
                return "not possible: \(error.reason)"
            } catch {
                return "not possible: \(error)"
            }
        }

        private func printText(_ info: SQLiteStoreInfo, _ differences: [String]?, _ migration: String?) {
            print("store \(info.path)")
            print("  uuid  \(info.identifier ?? "unknown")")
            print("  type  \(info.metadata["StoreType"].map { "\($0)" } ?? "SQLite")")
            if let model = info.model { print("  version checksum  \(model.versionChecksum)") }
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
                    printMigration(migration)
                }
            }
        }

        /// `store info` for an XML or binary store: its UUID, size, metadata and objects by type;
        /// with --model, whether the model opens it.
        private func runForAtomicStore() throws {
            let info: AtomicStoreInfo
            do {
                info = try AtomicStoreInfo(url: URL(fileURLWithPath: store))
            } catch {
                StandardError.print("objectgraph: \(error)")
                throw ExitCode.noInput
            }
            var problem: String??
            var migration: String?
            if let model {
                do {
                    let destination = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
                    problem = .some(info.check(against: destination))
                    if case .some(.some) = problem { migration = Self.migration(from: info.model, to: destination) }
                } catch {
                    StandardError.print("\(error)")
                    throw error.exitCode
                }
            }
            let userKeys = info.metadata.keys.filter { !Self.bookkeepingKeys.contains($0) }.sorted()
            if json {
                var object: [String: Any] = [
                    "path": info.path,
                    "uuid": info.identifier ?? NSNull(),
                    "type": info.type.rawValue,
                    "files": [(info.path as NSString).lastPathComponent: info.fileSize],
                    "objects": info.objectCounts,
                    "metadata": Dictionary(uniqueKeysWithValues: userKeys.map { ($0, "\(info.metadata[$0]!)") }),
                ]
                if let problem { object["differences"] = problem.map { [$0] } ?? [] }
                if let migration { object["migration"] = migration }
                if let model = info.model { object["versionChecksum"] = model.versionChecksum }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("store \(info.path)")
                print("  uuid  \(info.identifier ?? "unknown")")
                print("  type  \(info.type)")
                if let model = info.model { print("  version checksum  \(model.versionChecksum)") }
                print("  file  \((info.path as NSString).lastPathComponent)  \(info.fileSize) bytes")
                if !userKeys.isEmpty {
                    print("metadata")
                    for key in userKeys { print("  \(key): \(info.metadata[key].map { "\($0)" } ?? "")") }
                }
                print("objects: \(info.objectCounts.values.reduce(0, +))")
                let width = info.objectCounts.keys.map(\.count).max() ?? 0
                for (type, count) in info.objectCounts.sorted(by: { $0.key < $1.key }) {
                    print("  \(type.padding(toLength: width, withPad: " ", startingAt: 0))  \(count) object\(count == 1 ? "" : "s")")
                }
                if let problem {
                    if let problem {
                        print("model check: \(model ?? "") does not open the store: \(problem)")
                        printMigration(migration)
                    } else {
                        print("model check: \(model ?? "") opens the store unchanged")
                    }
                }
            }
            if case .some(.some) = problem { throw ExitCode.invalidModel }
        }

        private func printJSON(_ info: SQLiteStoreInfo, _ differences: [String]?, _ migration: String?) throws {
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
            if let migration { object["migration"] = migration }
            if let model = info.model { object["versionChecksum"] = model.versionChecksum }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }

        /// Metadata the store keeps for itself (printed in their own lines, or not at all).
        private static let bookkeepingKeys: Set<String> = [
            "StoreType", "UUID", "ModelVersionHashes", "ModelPropertyVersionHashes",
        ]
    }
}
