// Review of reading and writing Xcode model files and of the `objectgraph` tool: each test
// fails on the code it was written against and says what is expected and what happens instead.
// Tests of the tool run the built `objectgraph` binary (beside the test bundle) on temporary files.
import Foundation
import XCTest
@testable import ObjectGraph

final class ModelFileReviewTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory()
    }

    override func tearDown() {
        folder = nil
    }

    // MARK: Helpers

    /// What a run of the tool printed and how it exited.
    private struct ToolRun {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The built `objectgraph` executable, beside the test bundle in the products folder.
    private var objectgraphURL: URL {
        let bundle = Bundle(for: Self.self).bundleURL
        let products = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
        return products.appendingPathComponent("objectgraph")
    }

    /// Runs `objectgraph arguments...` to completion, its output going through files.
    private func objectgraph(_ arguments: String...) throws -> ToolRun {
        let tool = objectgraphURL
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            throw XCTSkip("objectgraph is not built at \(tool.path)")
        }
        let outputURL = folder.url.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errorURL = folder.url.appendingPathComponent("stderr-\(UUID().uuidString)")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        return ToolRun(status: process.terminationStatus,
                       stdout: try String(contentsOf: outputURL, encoding: .utf8),
                       stderr: try String(contentsOf: errorURL, encoding: .utf8))
    }

    /// Writes `<name>.xcdatamodel/contents` holding `entities`, whose first line is line 3.
    @discardableResult
    private func writeModel(_ name: String, _ entities: String, in directory: URL? = nil) throws -> URL {
        let model = (directory ?? folder.url).appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            \(entities)
            </model>

            """
        try Data(xml.utf8).write(to: model.appendingPathComponent("contents"))
        return model
    }

    // MARK: Validation

    /// An empty `<uniquenessConstraint/>` (no `<constraint>` in it) names no property, so it
    /// cannot be a constraint: validation should report it as an error at its line (project rule:
    /// "Every error names what and where: the file and line of a model"; the man page: "A
    /// uniqueness constraint names attributes and to-one relationships"). Instead the model
    /// validates without an issue, and adding a SQLite store for it fails later with
    /// `SQLite error 1 (near ")": syntax error) in "CREATE UNIQUE INDEX ... ON "ZA" ()"`,
    /// an error that names neither the model file nor a line.
    func testEmptyUniquenessConstraintIsAnErrorAtItsLine() throws {
        let model = try writeModel("Constraint", """
            <entity name="A" representedClassName="A">
                <attribute name="x" optional="YES" attributeType="String"/>
                <uniquenessConstraints>
                    <uniquenessConstraint/>
                </uniquenessConstraints>
            </entity>
            """)
        let result = try ModelFile(url: model).read()
        let contents = model.appendingPathComponent("contents").path
        XCTAssertTrue(result.errors.contains { $0.location?.file == contents && $0.location?.line == 6 },
                      "expected an error at \(contents):6, got \(result.issues.map(\.description))")
    }

    /// A fetch request template's `fetchLimit`, `fetchBatchSize` and `resultType` are numbers;
    /// `fetchLimit="ten"` is not one. As with `minCount="ten"` (reported as "is not a count"),
    /// it should be an error naming the file and line (project rule: "Every error names what
    /// and where"). Instead the reader drops it without a word (`Int("ten")` is nil, read as 0:
    /// no limit) and the model validates cleanly.
    func testFetchLimitThatIsNotANumberIsAnErrorAtItsLine() throws {
        let model = try writeModel("Template", """
            <entity name="A" representedClassName="A">
                <attribute name="x" optional="YES" attributeType="String"/>
            </entity>
            <fetchRequest name="FirstTen" entity="A" fetchLimit="ten"/>
            """)
        let result = try ModelFile(url: model).read()
        XCTAssertTrue(result.errors.contains { $0.location?.line == 6 && $0.message.contains("ten") },
                      "expected an error at line 6 naming \"ten\", got \(result.issues.map(\.description))")
    }

    // MARK: Bundles

    /// Xcode's versions are the `.xcdatamodel` *folders* of a bundle. A file whose name ends in
    /// `.xcdatamodel` — such as the `._Name.xcdatamodel` AppleDouble file macOS leaves when a
    /// bundle is copied through tar, zip or a network share — is not a version. The man page
    /// says a `.xcdatamodeld` holds "one .xcdatamodel folder per version", and `validate` exits
    /// 0 when "every version of every PATH is valid". Instead the file is taken for a version,
    /// and `validate` prints `error: .../._Orders.xcdatamodel/contents: no such file or
    /// directory` and exits 66 for a bundle whose only version is valid.
    func testValidateIgnoresAFileNamedLikeAVersionInABundle() throws {
        let bundle = folder.url.appendingPathComponent("Orders.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try writeModel("Orders", """
            <entity name="Order" representedClassName="Order">
                <attribute name="number" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            </entity>
            """, in: bundle)
        try Data([0x00, 0x05, 0x16, 0x07, 0x00, 0x02]).write(to: bundle.appendingPathComponent("._Orders.xcdatamodel"))
        XCTAssertEqual(try ModelFile(url: bundle).versionNames, ["Orders"])
        let run = try objectgraph("model", "validate", bundle.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "ok  \(bundle.path) (version Orders): 1 entity, 1 attribute, 0 relationships\n")
    }

    /// `write(to:versionName:)` writes the model "as version versionName"; everywhere else a
    /// version may be named with or without its `.xcdatamodel` extension (`ModelFile.version
    /// (named:)`, and the man page's `--version name`: "with or without its .xcdatamodel
    /// extension"). Writing version "V2.xcdatamodel" should make version V2. Instead it makes
    /// the folder `V2.xcdatamodel.xcdatamodel`, a version named "V2.xcdatamodel", and a
    /// `.xccurrentversion` naming `V2.xcdatamodel.xcdatamodel`.
    func testWritingAVersionNamedWithItsExtensionMakesThatVersion() throws {
        let source = try writeModel("Source", """
            <entity name="A" representedClassName="A">
                <attribute name="x" optional="YES" attributeType="String"/>
            </entity>
            """)
        let model = try ManagedObjectModel(contentsOf: source)
        let bundle = folder.url.appendingPathComponent("Written.xcdatamodeld")
        try model.write(to: bundle, versionName: "V2.xcdatamodel")
        let file = try ModelFile(url: bundle)
        XCTAssertEqual(file.versionNames, ["V2"])
        XCTAssertEqual(file.currentVersionName, "V2")
    }

    // MARK: The objectgraph tool

    /// The man page: "notes, warnings and errors go to standard error, one a line, in the form
    /// file:line: error: Entity.property: message", and "A line break in a value a message
    /// quotes is shown as \n (or \r) ... so that each diagnostic stays one line." An entity named
    /// `Bad&#10;Name` in a hand-edited file is printed raw in the `Entity.property:` part, so
    /// the diagnostic is split over two lines and the second (`Name.x: attribute type ...`)
    /// names no file or line.
    func testDiagnosticForAnEntityNameWithALineBreakStaysOneLine() throws {
        let model = try writeModel("Broken", """
            <entity name="Bad&#10;Name">
                <attribute name="x" optional="YES" attributeType="Strin"/>
            </entity>
            """)
        let run = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(run.status, 1, run.stderr)
        let contents = model.appendingPathComponent("contents").path
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let diagnostics = lines.filter { !$0.hasPrefix("invalid  ") }
        XCTAssertEqual(diagnostics.count, 1, run.stderr)
        for line in diagnostics {
            XCTAssertTrue(line.hasPrefix("\(contents):4: error: "), "a diagnostic line without its file and line: \(line)")
        }
    }

    /// The man page on `codegen`'s exit status 1: "also a property whose name the generated code
    /// cannot take ... each reported at its line", and `CodeGenerator.problems` is "Empty when
    /// the code will compile". An attribute named `first-name` cannot be a Swift property.
    /// Instead `codegen` exits 0 and writes `public var first-name: String? {`, code that does
    /// not compile, without a diagnostic.
    func testCodegenRefusesAPropertyNameThatIsNotASwiftIdentifier() throws {
        let model = try writeModel("People", """
            <entity name="Person" representedClassName="Person">
                <attribute name="first-name" optional="YES" attributeType="String"/>
            </entity>
            """)
        let output = folder.url.appendingPathComponent("Generated")
        let run = try objectgraph("codegen", model.path, "--output", output.path)
        XCTAssertEqual(run.status, 1, "stdout: \(run.stdout)")
        let contents = model.appendingPathComponent("contents").path
        XCTAssertTrue(run.stderr.contains("\(contents):4:") && run.stderr.contains("first-name"), run.stderr)
    }

    /// The brief for `store info` on a wrong store, and the tool's rule that errors say what is
    /// wrong and where: given a folder instead of a store file, the message should say that the
    /// path is a folder (not a store file) and exit 66. It exits 66, but says
    /// `objectgraph: /tmp/.../folder: SQLite error 10 (disk I/O error)`, which points at a
    /// failing disk rather than at the argument.
    func testStoreInfoOnAFolderSaysItIsNotAStoreFile() throws {
        let directory = folder.url.appendingPathComponent("folder.sqlite")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let run = try objectgraph("store", "info", directory.path)
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertTrue(run.stderr.contains(directory.path), run.stderr)
        XCTAssertFalse(run.stderr.contains("disk I/O error"), run.stderr)
        XCTAssertTrue(run.stderr.contains("folder") || run.stderr.contains("directory"), run.stderr)
    }
}
