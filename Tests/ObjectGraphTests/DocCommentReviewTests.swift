// Review of the framework's documented examples (the ```swift blocks of the doc comments in
// Sources/ObjectGraph, and README.md's): each test failed on the code it was written against,
// quotes the example and states what happens instead. Examples that should compile are
// type-checked by swiftc against the built ObjectGraph module.
import Foundation
import XCTest
import ObjectGraph

final class DocCommentReviewTests: XCTestCase {
    /// The products directory, where SwiftPM puts the test bundle and the built modules.
    private var productsDirectory: URL {
        let bundle = Bundle(for: Self.self).bundleURL
        return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
    }

    /// Runs `/usr/bin/env arguments` and returns its exit status and standard error.
    private func run(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String, errors: String) {
        let outputURL = folder.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errorURL = folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: outputURL, encoding: .utf8),
                try String(contentsOf: errorURL, encoding: .utf8))
    }

    /// Type-checks `source` (Swift 6) against the built ObjectGraph and fails with swiftc's
    /// errors if it does not compile. Warnings (unused values in an example) are allowed.
    private func assertCompiles(_ source: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = try TemporaryDirectory()
        let swiftFile = try folder.write(source, to: "Example.swift")
        let cflags = try run(["pkg-config", "--cflags", "sqlite3", "libxml-2.0"], in: folder.url)
        XCTAssertEqual(cflags.status, 0, cflags.errors, file: file, line: line)
        let sources = Corpus.repositoryRoot.appendingPathComponent("Sources")
        let clangFlags = ["CSQLite", "CLibXML2"].map { "-fmodule-map-file=\(sources.appendingPathComponent("\($0)/module.modulemap").path)" }
            + cflags.output.split(whereSeparator: \.isWhitespace).map(String.init)
        let result = try run(["swiftc", "-typecheck", "-swift-version", "6", "-parse-as-library",
                              "-I", productsDirectory.appendingPathComponent("Modules").path]
                             + clangFlags.flatMap { ["-Xcc", $0] } + [swiftFile.path], in: folder.url)
        XCTAssertEqual(result.status, 0, result.errors, file: file, line: line)
    }

    /// The lines of the ```swift block of a doc comment in `path` (from the repository) that
    /// holds `marker`, without their `///`.
    private func docExample(in path: String, containing marker: String) throws -> String {
        let text = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        var block: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("///") else { block = nil; continue }
            let content = trimmed.dropFirst(3).hasPrefix(" ") ? String(trimmed.dropFirst(4)) : String(trimmed.dropFirst(3))
            if content.hasPrefix("```swift") { block = []; continue }
            guard let lines = block else { continue }
            if content.hasPrefix("```") {
                if lines.contains(where: { $0.contains(marker) }) { return lines.joined(separator: "\n") }
                block = nil
            } else {
                block = lines + [content]
            }
        }
        XCTFail("\(path) has no swift example holding \(marker)")
        return ""
    }

    /// Sources/ObjectGraph/Predicates/ConstantValue.swift, the example of `ConstantValue`, said
    /// `ConstantValue(42) == ConstantValue(42.0)`: ConstantValue has no unlabelled initializer
    /// (only `init(any:) throws`), so it did not compile ("missing argument label 'any:'").
    func testConstantValueExampleCompiles() throws {
        let example = try docExample(in: "Sources/ObjectGraph/Predicates/ConstantValue.swift", containing: "ConstantValue")
        try assertCompiles("import ObjectGraph\n\nfunc example() {\n\(example)\n}\n")
    }

    /// Sources/ObjectGraph/Predicates/Expression.swift, the example of `Expression`, called
    /// `total.value(with: order)`: Expression has no `value(with:)`; its evaluation is
    /// `expressionValue(with:context:)` ("value of type 'Expression' has no member 'value'").
    func testExpressionExampleCompiles() throws {
        let example = try docExample(in: "Sources/ObjectGraph/Predicates/Expression.swift", containing: "let total")
        try assertCompiles("import ObjectGraph\n\nfunc example(order: [String: Any]) throws {\n\(example)\n}\n")
    }

    /// The examples of the fetched results controller and of the ordered to-many proxy.
    func testFetchedResultsControllerAndOrderedProxyExamplesCompile() throws {
        let controller = try docExample(in: "Sources/ObjectGraph/Fetching/FetchedResultsController.swift", containing: "performFetch")
        try assertCompiles("import Foundation\nimport ObjectGraph\n\nfunc example(context: ManagedObjectContext) throws {\n\(controller)\n}\n")
        let proxy = try docExample(in: "Sources/ObjectGraph/Objects/ManagedObject+Relationships.swift", containing: "move(fromOffsets")
        try assertCompiles("import Foundation\nimport ObjectGraph\n\nfunc example(person: ManagedObject, task: ManagedObject) {\n\(proxy)\n}\n")
    }

    /// Sources/ObjectGraph/Objects/ObjectID.swift, the example of `ObjectID`, said `await
    /// background.perform { let same = try background.existingObject(with: id) }`: a throwing
    /// block selects `perform<T>(_:) async throws`, so the call needs `try await` ("call can
    /// throw but is not marked with 'try'").
    func testObjectIDExampleCompiles() throws {
        let example = try docExample(in: "Sources/ObjectGraph/Objects/ObjectID.swift", containing: "background.perform")
        try assertCompiles("import ObjectGraph\n\nfunc example(task: ManagedObject, background: ManagedObjectContext) async throws {\n\(example)\n}\n")
    }

    /// Sources/ObjectGraph/Model/ManagedObjectModel.swift, line 126, the example of
    /// `fetchRequestTemplate(forName:substitutionVariables:)` on Data/Organizer.xcdatamodeld:
    /// `due?.predicateFormat   // due < CAST(785000000.000000, "NSDate") AND done == NO` (and
    /// FetchRequestTemplate.swift line 59 says the same of `predicate(substitutionVariables:)`).
    /// The canonical form prints booleans as 1 and 0 (as Man/objectgraph.1 says of `predicate
    /// check`), so it is `... AND done == 0`. The doc comments are wrong.
    func testFetchRequestTemplateExamplePrintsAsDocumented() throws {
        let model = try ManagedObjectModel(contentsOf: Corpus.data.appendingPathComponent("Organizer.xcdatamodeld"))
        let date = Date(timeIntervalSinceReferenceDate: 785_000_000)
        let due = try model.fetchRequestTemplate(forName: "tasksDueBefore", substitutionVariables: ["DATE": date])
        XCTAssertEqual(due?.predicateFormat, #"due < CAST(785000000.000000, "NSDate") AND done == 0"#)
        let documented = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("Sources/ObjectGraph/Model/ManagedObjectModel.swift"), encoding: .utf8)
        XCTAssertTrue(documented.contains(#"due?.predicateFormat   // due < CAST(785000000.000000, "NSDate") AND done == 0"#))
    }

    /// README.md, "Using the framework": the context example used `firstName`, `uuid`, `done` and
    /// `due` on `model`, which the example just before it ("Models can also be built in code")
    /// had bound to a model with none of them: run in the README's order, it set unknown keys.
    /// The model the context example uses must be the Organizer one read first.
    func testReadmeContextExampleUsesTheOrganizerModel() throws {
        let readme = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let context = try XCTUnwrap(readme.range(of: "let coordinator = PersistentStoreCoordinator(managedObjectModel: model)"))
        let binding = try XCTUnwrap(readme[..<context.lowerBound].range(of: "let model = ", options: .backwards))
        let line = readme[binding.lowerBound...].prefix { $0 != "\n" }
        XCTAssertTrue(line.contains("Organizer.xcdatamodeld"), String(line))
    }
}
