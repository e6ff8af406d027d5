// Review of the `objectgraph` tool on model bundles, diagnostics, codegen and store info: each
// test failed on the code it was written against and says what is expected and what happened
// instead. They run the built binary on temporary files.
import Foundation
import XCTest
import ObjectGraph

final class ToolReviewTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tool-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func objectgraph(_ arguments: String...) throws -> ProgramRun {
        try run(productsDirectory.appendingPathComponent("objectgraph"), arguments, scratch: directory)
    }

    /// Xcode's versions are the `.xcdatamodel` *folders* of a bundle. A file whose name ends in
    /// `.xcdatamodel` — such as the `._Name.xcdatamodel` AppleDouble file macOS leaves when a
    /// bundle is copied through tar, zip or a network share — is not a version. The man page
    /// says a `.xcdatamodeld` holds "one .xcdatamodel folder per version", and `validate` exits
    /// 0 when "every version of every PATH is valid". Instead the file is taken for a version,
    /// and `validate` prints `error: .../._Orders.xcdatamodel/contents: no such file or
    /// directory` and exits 66 for a bundle whose only version is valid.
    func testValidateIgnoresAFileNamedLikeAVersionInABundle() throws {
        let bundle = directory.appendingPathComponent("Orders.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        _ = try writeModel("Orders", entities: """
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

    // MARK: The objectgraph tool

    /// The man page: "notes, warnings and errors go to standard error, one a line, in the form
    /// file:line: error: Entity.property: message", and "A line break in a value a message
    /// quotes is shown as \n (or \r) ... so that each diagnostic stays one line." An entity named
    /// `Bad&#10;Name` in a hand-edited file is printed raw in the `Entity.property:` part, so
    /// the diagnostic is split over two lines and the second (`Name.x: attribute type ...`)
    /// names no file or line.
    func testDiagnosticForAnEntityNameWithALineBreakStaysOneLine() throws {
        let model = try writeModel("Broken", entities: """
            <entity name="Bad&#10;Name">
                <attribute name="x" optional="YES" attributeType="Strin"/>
            </entity>
            """, in: directory)
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
        let model = try writeModel("People", entities: """
            <entity name="Person" representedClassName="Person">
                <attribute name="first-name" optional="YES" attributeType="String"/>
            </entity>
            """, in: directory)
        let output = directory.appendingPathComponent("Generated")
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
        let storeFolder = directory.appendingPathComponent("folder.sqlite")
        try FileManager.default.createDirectory(at: storeFolder, withIntermediateDirectories: true)
        let run = try objectgraph("store", "info", storeFolder.path)
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertTrue(run.stderr.contains(storeFolder.path), run.stderr)
        XCTAssertFalse(run.stderr.contains("disk I/O error"), run.stderr)
        XCTAssertTrue(run.stderr.contains("folder") || run.stderr.contains("directory"), run.stderr)
    }
}
