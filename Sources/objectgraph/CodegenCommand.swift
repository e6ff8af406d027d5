// `objectgraph codegen MODEL --output DIR`: writes typed managed object classes for a model's
// entities, as Xcode's "Create NSManagedObject Subclass" does (the ObjectGraphCodegen build tool
// plugin does the same at build time). The code itself comes from ObjectGraph's CodeGenerator.
import ArgumentParser
import Foundation
import ObjectGraph

extension CodeGenerator.AccessLevel: ExpressibleByArgument {}

extension ExitCode {
    /// An output file or folder could not be written (`EX_CANTCREAT`).
    static let cannotCreate = ExitCode(73)
}

/// Writes Swift classes for a model's entities.
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Generate typed managed object classes from a model.",
        discussion: """
            For each entity with a class name (representedClassName, module prefix dropped), \
            writes Xcode's two files: Class+CoreDataClass.swift (the class, which names its \
            entity) and Class+CoreDataProperties.swift (typed accessors of the properties the \
            entity declares, and add/remove helpers for to-many relationships). Model+Classes.swift \
            registers the classes: call ModelClasses.register() once at startup. Entities without \
            a class name use ManagedObject. Put your own code in extensions, in files of your own. \
            Each written path is printed on standard output.

            Numbers and booleans become non-optional scalars unless the attribute turns scalar \
            types off; strings, dates, data, UUIDs, URLs and decimals are optionals, as Xcode \
            makes them; transformable attributes take their custom class when it is a Swift type \
            ([String]), else Any?. To-many relationships are arrays of the destination's class or, when ordered, OrderedSet. \
            Typed fetch requests come from every class: Person.fetchRequest().

            Examples:
              objectgraph codegen Data/Organizer.xcdatamodeld --output Sources/App/Model
              objectgraph codegen Data/Organizer.xcdatamodeld --output Generated --single-file --access internal

            Exit codes: 0 written; 1 the model has errors, or a property or class name cannot be \
            generated; 64 usage error; 66 MODEL or the version was not found, or MODEL cannot be \
            read or is not a model; 73 a file could not be written.
            """
    )

    /// The model file and version to generate from.
    @OptionGroup var source: ModelVersionOptions

    /// The folder to write into.
    @Option(help: ArgumentHelp("The folder to write the files into (created if missing).", valueName: "dir"))
    var output: String

    /// The access level of the generated declarations.
    @Option(help: ArgumentHelp("public (open classes, public accessors) or internal.", valueName: "level"))
    var access: CodeGenerator.AccessLevel = .public

    /// Whether everything goes into one file.
    @Flag(help: "Write one file, Model+Generated.swift, instead of two files per class.")
    var singleFile = false

    /// Whether an entity's Codegen setting is honoured.
    @Flag(help: """
        Follow each entity's Codegen setting: a Category/Extension entity gets only its \
        properties (you write its class), as the build tool plugin does.
        """)
    var followModel = false

    /// Generates the files and writes them; exits 1, 66 or 73 when it cannot.
    func run() throws(ExitCode) {
        let model = try source.loadModel()
        let generator = CodeGenerator(model: model, modelName: CodeGenerator.modelName(of: URL(fileURLWithPath: source.path)),
                                      accessLevel: access, followsCodeGenerationType: followModel)
        guard generator.problems.isEmpty else {
            for (issue, problem) in zip(generator.problemIssues, generator.problems) {
                StandardError.print(issue.location == nil ? "error: \(source.path): \(problem)" : "\(issue)")
            }
            throw .invalidModel
        }
        let folder = URL(fileURLWithPath: output)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for file in singleFile ? [generator.singleFile()] : generator.files() {
                let url = folder.appendingPathComponent(file.name)
                try Data(file.contents.utf8).write(to: url)
                print(url.path)
            }
        } catch {
            StandardError.print("error: \(output): \(error.localizedDescription)")
            throw .cannotCreate
        }
    }
}
