// Second review of `objectgraph store migrate --mapping` (heavyweight migration with an Xcode
// mapping model), run as the built binary on temporary stores and hand-edited copies of the
// corpus's Moody mapping models: what a broken archive in a mapping file does to the process,
// what --dry-run promises, and how --source-model takes a model bundle. Each test failed on the
// code it was written against.
import Foundation
import XCTest
import ObjectGraph

final class MappingModelCommandReviewTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mapping-command-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func objectgraph(_ arguments: [String]) throws -> ProgramRun {
        try run(productsDirectory.appendingPathComponent("objectgraph"), arguments, scratch: directory)
    }

    private func makeMoody4Store(named name: String = "moody.sqlite") throws -> URL {
        try makeMoody4Store(at: directory.appendingPathComponent(name))
    }

    /// The files of the scratch folder but the output files of runs.
    private func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasPrefix("stdout-") && !$0.hasPrefix("stderr-") }.sorted()
    }

    /// A keyed archive as a property list (XML), its `$objects` given: object 1 is the root.
    private func archive(objects: String) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>$archiver</key><string>NSKeyedArchiver</string>
                <key>$version</key><integer>100000</integer>
                <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
                <key>$objects</key>
                <array>
                    <string>$null</string>
                    \(objects)
                </array>
            </dict>
            </plist>
            """.utf8)
    }

    // MARK: Archived expressions that cannot be read

    /// An archived value expression (`valueexpressiondata`) that cannot be read must be an
    /// error naming the mapping file and line (the man page: exit 1, "the reason names ...
    /// the mapping file and line"). Two corrupted archives of Moody 4 to 5's only archived
    /// expression (`isoContinent`) instead kill the process: a function expression whose
    /// operand is itself (the unarchiver recurses until the stack overflows, SIGSEGV, 139) and
    /// an object whose `$class` is a string, not a class description (Foundation's unarchiver
    /// traps, SIGILL, 132). A truncated archive is reported properly, so the decoder can check
    /// what it hands Foundation's unarchiver. (Core Data's mapping compiler rejects such a file;
    /// Foundation on Apple's platforms raises an exception it can catch.)
    func testACorruptedArchivedExpressionIsAnErrorWithTheLineNotACrash() throws {
        let store = try makeMoody4Store()
        let original = try String(contentsOf: moodyMapping(4).appendingPathComponent("xcmapping.xml"), encoding: .utf8)
        let lines = original.components(separatedBy: "\n")
        let line = try XCTUnwrap(lines.firstIndex { $0.contains(#"<attribute name="valueexpressiondata""#) }) + 1
        let start = try XCTUnwrap(original.range(of: #"<attribute name="valueexpressiondata" type="binary">"#))
        let end = try XCTUnwrap(original.range(of: "</attribute>", range: start.upperBound..<original.endIndex))
        let corruptions: [(String, Data)] = [
            // NSFunctionExpression whose NSOperand is object 1, itself.
            ("a function that is its own operand", archive(objects: """
                <dict>
                    <key>$class</key><dict><key>CF$UID</key><integer>4</integer></dict>
                    <key>NSExpressionType</key><integer>4</integer>
                    <key>NSOperand</key><dict><key>CF$UID</key><integer>1</integer></dict>
                    <key>NSSelectorName</key><dict><key>CF$UID</key><integer>2</integer></dict>
                    <key>NSArguments</key><dict><key>CF$UID</key><integer>3</integer></dict>
                </dict>
                <string>uppercaseString</string>
                <dict>
                    <key>$class</key><dict><key>CF$UID</key><integer>5</integer></dict>
                    <key>NS.objects</key><array/>
                </dict>
                <dict>
                    <key>$classname</key><string>NSFunctionExpression</string>
                    <key>$classes</key><array><string>NSFunctionExpression</string><string>NSExpression</string><string>NSObject</string></array>
                </dict>
                <dict>
                    <key>$classname</key><string>NSArray</string>
                    <key>$classes</key><array><string>NSArray</string><string>NSObject</string></array>
                </dict>
                """)),
            // A constant expression whose $class is object 2, a string.
            ("a $class that is a string", archive(objects: """
                <dict>
                    <key>$class</key><dict><key>CF$UID</key><integer>2</integer></dict>
                    <key>NSExpressionType</key><integer>0</integer>
                </dict>
                <string>NSConstantValueExpression</string>
                """)),
        ]
        for (what, data) in corruptions {
            let mapping = directory.appendingPathComponent("Corrupted.xcmappingmodel")
            try? FileManager.default.removeItem(at: mapping)
            try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
            let text = original.replacingCharacters(in: start.upperBound..<end.lowerBound, with: data.base64EncodedString())
            try text.write(to: mapping.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
            let result = try objectgraph(["store", "migrate", store.path, "--model", moodyModel(5).path, "--mapping", mapping.path, "--dry-run"])
            // A status of 11 or 4 is the signal that killed the process (SIGSEGV, SIGILL).
            XCTAssertEqual(result.status, 1, "\(what): \(result.stderr.prefix(300))")
            XCTAssertTrue(result.stderr.contains("Corrupted.xcmappingmodel/xcmapping.xml:\(line): the value expression of isoContinent"),
                          "\(what): \(result.stderr.prefix(300))")
        }
    }

    // MARK: --dry-run

    /// `--dry-run` prints the mapping and changes nothing; its exit status says whether the
    /// migration can be made (without --mapping, a mapping that cannot be inferred exits 1 with
    /// or without --dry-run). The man page says this command cannot run an entity mapping that
    /// names a policy class ("the migration fails, naming the mapping") and that exit 1 means
    /// "no migration is possible". Moody 5 to 6 names `Migrations.Country5ToCountry6Policy`: the
    /// run exits 1 for it, but --dry-run exits 0 without a word, telling a script that the
    /// migration would go through.
    func testDryRunOfAMappingNamingAPolicyClassExitsOneAsTheRunDoes() throws {
        let store = try makeMoody4Store()
        XCTAssertEqual(try objectgraph(["store", "migrate", store.path, "--model", moodyModel(5).path, "--mapping", moodyMapping(4).path]).status, 0)
        let arguments = ["store", "migrate", store.path, "--model", moodyModel(6).path, "--mapping", moodyMapping(5).path]
        let run = try objectgraph(arguments)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("no migration policy class Migrations.Country5ToCountry6Policy"), run.stderr)

        let before = try Data(contentsOf: store)
        let filesBefore = try files()
        let dry = try objectgraph(arguments + ["--dry-run"])
        XCTAssertEqual(dry.status, 1, "the dry run says the migration goes through: \(dry.stdout)")
        XCTAssertTrue(dry.stderr.contains("Migrations.Country5ToCountry6Policy"), dry.stderr)
        XCTAssertEqual(try Data(contentsOf: store), before)
        XCTAssertEqual(try files(), filesBefore)
    }

    // MARK: --source-model

    /// `--model` takes a model bundle (its current version); `--source-model` is "the model the
    /// store was made with", and a user naturally gives the same bundle, which holds that
    /// version (Moody.xcdatamodeld holds Moody 2 to 6; its current version is 6). The command
    /// takes the bundle's current version and refuses: "the store was not made with the
    /// mapping's source model (.../Moody.xcdatamodeld)", which is not so. Core Data finds a
    /// store's model among a bundle's versions by the store's metadata
    /// (`NSManagedObjectModel.mergedModel(from:forStoreMetadata:)`); the command should too.
    func testSourceModelBundleGivesTheVersionTheStoreWasMadeWith() throws {
        let store = try makeMoody4Store()
        let result = try objectgraph(["store", "migrate", store.path, "--model", moodyModel(5).path, "--mapping", moodyMapping(4).path,
                                      "--source-model", moodyBundle.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasSuffix("migrated\n"), result.stdout)
    }
}
