// The whole shared corpus of real Xcode models (51 models, 315 versions) loads, validates,
// and round-trips through the writer to an equal model with equal version hashes.
import Foundation
import XCTest
@testable import ObjectGraph

final class ModelCorpusTests: XCTestCase {
    /// Every model file of the corpus (`.xcdatamodeld` bundles and `.xcdatamodel` packages).
    private func corpusModelFiles() throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: Corpus.models.path)
        return names.filter { $0.hasSuffix(".xcdatamodeld") || $0.hasSuffix(".xcdatamodel") }
            .sorted().map { Corpus.models.appendingPathComponent($0) }
    }

    func testCorpusHoldsFiftyOneModelsAndThreeHundredFifteenVersions() throws {
        let files = try corpusModelFiles().map { try ModelFile(url: $0) }
        XCTAssertEqual(files.count, 51)
        XCTAssertEqual(files.map(\.versions.count).reduce(0, +), 315)
    }

    func testEveryCorpusVersionLoadsWithoutErrors() throws {
        var loaded = 0
        for url in try corpusModelFiles() {
            let file = try ModelFile(url: url)
            for version in file.versionNames {
                let result = try file.read(version: version)
                XCTAssertNotNil(result.model, "\(url.lastPathComponent) \(version)")
                XCTAssertEqual(result.errors.map(\.description), [], "\(url.lastPathComponent) \(version)")
                loaded += 1
            }
        }
        XCTAssertEqual(loaded, 315)
    }

    func testEveryCorpusVersionRoundTripsToAnEqualModelWithEqualHashes() throws {
        for url in try corpusModelFiles() {
            let file = try ModelFile(url: url)
            for version in file.versionNames {
                let model = try file.load(version: version)
                let written = model.xmlString()
                let reread = try ManagedObjectModel(xmlData: Data(written.utf8), path: "\(url.lastPathComponent)/\(version)")
                XCTAssertEqual(model, reread, "\(url.lastPathComponent) \(version) does not round-trip")
                XCTAssertEqual(model.entityVersionHashesByName, reread.entityVersionHashesByName,
                               "\(url.lastPathComponent) \(version): hashes change in a round trip")
                XCTAssertEqual(reread.xmlString(), written, "\(url.lastPathComponent) \(version): writing is not stable")
            }
        }
    }

    func testEmptyCurrentVersionFileFallsBackToNewestVersionAndSaysSo() throws {
        let bundle = try TemporaryDirectory()
        let source = Corpus.models.appendingPathComponent("RestKit__RestKit__VersionedModel.xcdatamodeld")
        let copy = bundle.url.appendingPathComponent("Versioned.xcdatamodeld")
        try FileManager.default.copyItem(at: source, to: copy)
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict/></plist>
            """.utf8).write(to: copy.appendingPathComponent(".xccurrentversion"))
        let file = try ModelFile(url: copy)
        XCTAssertEqual(file.currentVersionName, "VersionedModel 4")
        XCTAssertEqual(file.notes.count, 1)
        XCTAssertTrue(file.notes[0].contains("names no current version; using the newest version, \"VersionedModel 4\""), file.notes[0])
    }

    func testCurrentVersionIsTheOneNamedByTheBundle() throws {
        let file = try ModelFile(url: Corpus.models.appendingPathComponent("RestKit__RestKit__VersionedModel.xcdatamodeld"))
        XCTAssertEqual(file.versionNames, ["VersionedModel", "VersionedModel 2", "VersionedModel 3", "VersionedModel 4"])
        XCTAssertTrue(file.notes.isEmpty)
        XCTAssertTrue(file.versionNames.contains(file.currentVersionName))
    }

    func testEveryVersionIsReadableByName() throws {
        let file = try ModelFile(url: Corpus.models.appendingPathComponent("objcio__core-data__Moody.xcdatamodeld"))
        for name in file.versionNames {
            XCTAssertEqual(try file.load(version: name).versionName, name)
            XCTAssertEqual(try file.load(version: name + ".xcdatamodel").versionName, name)
        }
    }

    func testUnknownVersionNameIsAnErrorListingTheVersions() throws {
        let file = try ModelFile(url: Corpus.models.appendingPathComponent("RestKit__RestKit__VersionedModel.xcdatamodeld"))
        XCTAssertThrowsError(try file.load(version: "Nope")) { error in
            XCTAssertEqual((error as? ModelError).map { "\($0)" }?.contains("no version named \"Nope\" (versions: VersionedModel, VersionedModel 2"), true, "\(error)")
        }
    }

    func testBareContentsFileLoads() throws {
        let contents = Corpus.models.appendingPathComponent("rentzsch__mogenerator__test.xcdatamodel/contents")
        let model = try ManagedObjectModel(contentsOf: contents)
        XCTAssertEqual(model.versionName, "rentzsch__mogenerator__test")
        XCTAssertFalse(model.entities.isEmpty)
    }
}
