// Review of the `objectgraph` tool against its man page (Man/objectgraph.1): each test failed on
// the code it was written against, quotes the page and states what happens instead. They run
// the built binary on temporary model files.
import Foundation
import XCTest

final class DocsReviewTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("docs-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func objectgraph(_ arguments: String...) throws -> ProgramRun {
        try run(productsDirectory.appendingPathComponent("objectgraph"), arguments, scratch: directory)
    }

    /// Man/objectgraph.1, DESCRIPTION (lines 76-78): when `.xccurrentversion` "is missing, empty,
    /// or names a version the bundle does not hold, the newest version ... is used and a note:
    /// line on standard error says so"; `--version name` (lines 188-190) reads "The version of
    /// a .xcdatamodeld to read". Asked for `--version "V 2"` of a bundle without
    /// `.xccurrentversion`, describe (and graph, codegen) read version "V 2" but still print
    /// `note: V.xcdatamodeld: .xccurrentversion names no current version; using the newest
    /// version, "V 10"`: standard error says another version was used than the one printed.
    func testNoNoteAboutTheNewestVersionWhenAVersionIsAskedFor() throws {
        let bundle = directory.appendingPathComponent("V.xcdatamodeld")
        for version in ["V 2", "V 10"] {
            _ = try writeModel(version, entities: """
                <entity name="Item">
                    <attribute name="name" optional="YES" attributeType="String"/>
                </entity>
                """, in: bundle)
        }
        let result = try objectgraph("model", "describe", bundle.path, "--version", "V 2")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("model \(bundle.path) (version V 2)"), result.stdout)
        XCTAssertFalse(result.stderr.contains("using the newest version"), result.stderr)
    }
}
