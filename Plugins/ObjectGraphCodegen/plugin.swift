// The ObjectGraphCodegen build tool plugin: for each model bundle (`.xcdatamodeld`, or a lone
// `.xcdatamodel`) among a target's files, a build command runs `objectgraph-codegen`, which writes
// the model's typed classes into one file that the target then compiles.
import Foundation
import PackagePlugin

/// Generates typed managed object classes from the model files of the target it is applied to.
///
/// ```swift
/// .target(name: "App", dependencies: ["ObjectGraph"], resources: [.copy("Model.xcdatamodeld")],
///         plugins: [.plugin(name: "ObjectGraphCodegen", package: "ObjectGraph")])
/// ```
@main
struct ObjectGraphCodegen: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "objectgraph-codegen")
        return module.sourceFiles.map(\.url).filter(isModel).map { model in
            let name = model.deletingPathExtension().lastPathComponent
            let output = context.pluginWorkDirectoryURL.appendingPathComponent("\(name)+Generated.swift")
            return .buildCommand(displayName: "Generating classes of \(model.lastPathComponent)",
                                 executable: tool.url, arguments: [model.path, output.path],
                                 inputFiles: [model] + files(in: model), outputFiles: [output])
        }
    }

    /// Whether `url` is a model: a bundle, or a version folder that is not inside one (SwiftPM
    /// lists a bundle as one file, without its versions).
    func isModel(_ url: URL) -> Bool {
        url.pathExtension == "xcdatamodeld"
            || url.pathExtension == "xcdatamodel" && url.deletingLastPathComponent().pathExtension != "xcdatamodeld"
    }

    /// The files inside a model folder, so that editing any version regenerates the classes.
    func files(in folder: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return enumerator.compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath }
    }
}
