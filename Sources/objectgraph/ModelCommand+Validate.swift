// `objectgraph model validate PATH...`: reads every version of every model given, prints one
// summary line per valid version on standard output and every issue on standard error, so that
// a build script can check all the models of a project in one run.
import ArgumentParser
import Foundation
import ObjectGraph

extension ModelCommand {
    /// Checks model files: every version of a bundle, every issue of a version.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that model files are valid.",
            discussion: """
                Every version of a .xcdatamodeld is read and validated, not only the current one. \
                For each valid version one line goes to standard output:

                  ok  Data/Organizer.xcdatamodeld (version Organizer): 4 entities, 14 attributes, 6 relationships

                Every warning and error goes to standard error, one a line, in the form \
                `file:line: error: Entity.property: message`, followed by \
                `invalid  PATH (version V): N errors` for each invalid version.

                Examples:
                  objectgraph model validate Data/Organizer.xcdatamodeld
                  objectgraph model validate Models/*.xcdatamodeld Legacy.xcdatamodel/contents

                Exit codes: 0 every version of every PATH is valid (warnings allowed); 1 some \
                version has errors; 64 usage error; 66 some PATH (or a version's contents file) \
                was not found, cannot be read or is not a model, which wins over 1.
                """
        )

        /// The model files to check, in the order given.
        @Argument(help: ArgumentHelp("The models: .xcdatamodeld bundles, .xcdatamodel folders or contents files.",
                                     valueName: "path"))
        var paths: [String]

        /// Checks every version of every path; exits 66 if a path is missing, else 1 if a
        /// version has errors.
        func run() throws(ExitCode) {
            var missing = false
            var invalid = false
            for path in paths {
                let file: ModelFile
                do {
                    file = try ModelFile(url: URL(fileURLWithPath: path))
                } catch {
                    StandardError.print("error: \(error)")
                    missing = true
                    continue
                }
                file.printNotes(path: path)
                for version in file.versions {
                    do {
                        let result = try file.read(version: version.name)
                        result.printIssues()
                        if let model = result.model, result.errors.isEmpty {
                            print("ok  \(path) (version \(version.name)): \(Self.summary(of: model))")
                        } else {
                            result.printFailure(path: path, version: version.name)
                            invalid = true
                        }
                    } catch {
                        StandardError.print("error: \(error)")
                        missing = true
                    }
                }
            }
            if missing { throw .noInput }
            if invalid { throw .invalidModel }
        }

        /// `4 entities, 14 attributes, 6 relationships`: what the model declares (inherited
        /// properties are counted once, in the entity that declares them).
        static func summary(of model: ManagedObjectModel) -> String {
            let properties = model.entities.flatMap(\.declaredProperties)
            let attributes = properties.count { $0 is AttributeDescription }
            let relationships = properties.count { $0 is RelationshipDescription }
            return [counted(model.entities.count, "entity", plural: "entities"),
                    counted(attributes, "attribute"),
                    counted(relationships, "relationship")].joined(separator: ", ")
        }
    }
}
