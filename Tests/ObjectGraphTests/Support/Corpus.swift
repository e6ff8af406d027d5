// Where the tests find the shared corpus (`../shared/corpus` beside the checkout, as CI lays it
// out) and the repository's own Data folder.
import Foundation

enum Corpus {
    /// The repository root (the folder holding Package.swift).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/corpus`: real models, predicate vectors and feeds from public projects.
    static let root: URL = repositoryRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/corpus", isDirectory: true)

    static let models = root.appendingPathComponent("xcdatamodels", isDirectory: true)
    static let predicates = root.appendingPathComponent("predicates", isDirectory: true)
    static let data = repositoryRoot.appendingPathComponent("Data", isDirectory: true)
}
