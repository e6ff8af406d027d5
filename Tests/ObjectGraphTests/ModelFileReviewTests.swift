// Review of reading and writing Xcode model files: each test failed on the code it was written
// against and says what is expected and what happened instead. The review's tests of the
// `objectgraph` tool are in Tests/objectgraphTests/ToolReviewTests.swift.
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

    /// Writes `<name>.xcdatamodel/contents` holding `entities`, whose first line is line 3.
    private func writeModel(_ name: String, _ entities: String) throws -> URL {
        let model = folder.url.appendingPathComponent("\(name).xcdatamodel")
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

    // MARK: Writing versions

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
}
