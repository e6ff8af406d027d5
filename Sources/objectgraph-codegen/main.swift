// `objectgraph-codegen MODEL OUTPUT`: the tool the ObjectGraphCodegen build tool plugin runs. It
// writes a model's classes into the one file OUTPUT (the plugin declares it before the tool runs),
// following each entity's Codegen setting. Kept apart from `objectgraph` so builds stay light.
import Foundation
import ObjectGraph

/// Writes `line` to standard error, where the build shows it.
func report(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let modelPath = arguments.first, let outputPath = arguments.last else {
    report("usage: objectgraph-codegen MODEL OUTPUT")
    exit(64)
}

let modelURL = URL(fileURLWithPath: modelPath)
let model: ManagedObjectModel
do {
    model = try ModelFile(url: modelURL).load()
} catch {
    report("error: \(error)")
    switch error {
    case .fileNotFound, .notAModel, .unreadableFile, .unknownVersion: exit(66)
    case .invalidModel, .mergeConflict, .invalidTemplate: exit(1)
    }
}
let generator = CodeGenerator(model: model, modelName: CodeGenerator.modelName(of: modelURL),
                              followsCodeGenerationType: true)
guard generator.problems.isEmpty else {
    for (issue, problem) in zip(generator.problemIssues, generator.problems) {
        report(issue.location == nil ? "error: \(modelPath): \(problem)" : "\(issue)")
    }
    exit(1)
}
let contents = Data(generator.singleFile().contents.utf8)
let outputURL = URL(fileURLWithPath: outputPath)
guard (try? Data(contentsOf: outputURL)) != contents else { exit(0) }
do {
    try contents.write(to: outputURL)
} catch {
    report("error: \(outputPath): \(error.localizedDescription)")
    exit(73)
}
