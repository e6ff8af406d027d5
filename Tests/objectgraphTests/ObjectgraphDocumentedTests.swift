// The `objectgraph` CLI against its man page (Man/objectgraph.1) and --help: exit
// codes, JSON output, diagnostics.
import Foundation
import XCTest

final class ObjectgraphDocumentedTests: XCTestCase {
    private var temporaryDirectory: URL!

    override func setUpWithError() throws {
        temporaryDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-documented-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: temporaryDirectory)
    }

    private var corpusDirectory: URL {
        repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/xcdatamodels")
    }

    private var executable: URL { productsDirectory.appendingPathComponent("objectgraph") }

    private func objectgraph(_ arguments: String...) throws -> ProgramRun {
        try run(executable, arguments, scratch: temporaryDirectory)
    }

    // MARK: Exit status

    func testTopLevelVersionOptionExitsZero() throws {
        // Man page, EXIT STATUS 0: "--help and --version also exit 0". The root command has no
        // version, so ArgumentParser rejects --version as an unknown option (64).
        let result = try objectgraph("--version")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.isEmpty)
    }

    func testCommandGroupWithoutSubcommandPrintsHelpAndExitsZero() throws {
        let result = try objectgraph("model")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("validate"), result.stdout)
    }

    func testValidateOfAFileThatIsNotAModelExits66() throws {
        // Man page: 66 when "a path is not a model (EX_NOINPUT)"; 1 is for "a model was read but
        // has errors". A property list is not a model (it was read as a model with one error,
        // "the root element is <plist>", and exited 1).
        let plist = temporaryDirectory.appendingPathComponent("Info.plist")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict/></plist>
            """.utf8).write(to: plist)
        let result = try objectgraph("model", "validate", plist.path)
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertTrue(result.stderr.contains("not a model"), result.stderr)
    }

    func testValidateReportsAMalformedTemplatePredicateWithFileAndLine() throws {
        // The brief and man page: errors name the file and line of the offending element. A
        // template whose predicate cannot parse passed validation (exit 0).
        let model = try writeModel("BadTemplate", entities: """
            <entity name="Person">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <fetchRequest name="byName" entity="Person" predicateString="name == == $NAME"/>
            """, in: temporaryDirectory)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(result.stderr.contains("\(model.appendingPathComponent("contents").path):6: error:"), result.stderr)
    }

    // MARK: describe --json

    func testDescribeJSONOfEveryCorpusModelHasEveryDocumentedKey() throws {
        let entityKeys: Set<String> = ["name", "className", "parent", "isAbstract", "subentities", "attributes",
                                       "relationships", "fetchedProperties", "uniquenessConstraints", "fetchIndexes",
                                       "compoundIndexes", "renamingIdentifier", "versionHashModifier", "userInfo",
                                       "versionHash"]
        let attributeKeys: Set<String> = ["name", "type", "isOptional", "isTransient", "defaultValue", "validation",
                                          "valueTransformerName", "attributeValueClassName", "compositeType",
                                          "allowsExternalBinaryDataStorage", "isDerived", "derivationExpression",
                                          "isIndexedBySpotlight", "renamingIdentifier", "versionHashModifier", "userInfo"]
        let validationKeys: Set<String> = ["minimum", "maximum", "minimumDate", "maximumDate", "regularExpression", "predicates"]
        let relationshipKeys: Set<String> = ["name", "destination", "inverse", "inverseEntity", "isToMany", "isOrdered",
                                             "isOptional", "isTransient", "minCount", "maxCount", "deleteRule",
                                             "renamingIdentifier", "versionHashModifier", "userInfo"]
        let names = try FileManager.default.contentsOfDirectory(atPath: corpusDirectory.path)
            .filter { $0.hasSuffix(".xcdatamodel") || $0.hasSuffix(".xcdatamodeld") }.sorted()
        XCTAssertEqual(names.count, 51)
        for name in names {
            let result = try objectgraph("model", "describe", corpusDirectory.appendingPathComponent(name).path, "--json")
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
                XCTFail("\(name): not a JSON object"); continue
            }
            XCTAssertEqual(Set(object.keys), ["path", "version", "versionChecksum", "versionIdentifiers", "entities", "fetchRequestTemplates",
                                              "configurations", "compositeTypes"], name)
            for entity in object["entities"] as? [[String: Any]] ?? [] {
                XCTAssertEqual(Set(entity.keys), entityKeys, name)
                XCTAssertEqual((entity["versionHash"] as? String)?.count, 64, name)
                for attribute in entity["attributes"] as? [[String: Any]] ?? [] {
                    XCTAssertEqual(Set(attribute.keys), attributeKeys, name)
                    XCTAssertEqual(Set((attribute["validation"] as? [String: Any])?.keys ?? [:].keys), validationKeys, name)
                }
                for relationship in entity["relationships"] as? [[String: Any]] ?? [] {
                    XCTAssertEqual(Set(relationship.keys), relationshipKeys, name)
                    XCTAssertTrue(["Nullify", "Cascade", "Deny", "No Action"].contains(relationship["deleteRule"] as? String), name)
                }
            }
        }
    }

    func testDescribeJSONGivesDecimalsAsNumbersAndBinaryAsBase64() throws {
        let model = try writeModel("Values", entities: """
            <entity name="Item">
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12.5" minValueString="0.25"/>
                <attribute name="blob" optional="YES" attributeType="Binary" defaultValueString="AAEC/w=="/>
            </entity>
            """, in: temporaryDirectory)
        let result = try objectgraph("model", "describe", model.path, "--json")
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let attributes = try XCTUnwrap(((object["entities"] as? [[String: Any]])?.first)?["attributes"] as? [[String: Any]])
        XCTAssertEqual((attributes[0]["defaultValue"] as? NSNumber)?.doubleValue, 12.5)
        XCTAssertEqual(((attributes[0]["validation"] as? [String: Any])?["minimum"] as? NSNumber)?.doubleValue, 0.25)
        XCTAssertEqual(attributes[1]["defaultValue"] as? String, "AAEC/w==")
    }

    func testDescribeJSONKeepsTheFractionOfADateBound() throws {
        // Xcode stores date bounds and defaults as seconds (minDateTimeInterval="-100.5"); the JSON
        // prints "2000-12-31T23:58:19Z", dropping the half second, so a program reading the bound
        // gets a different (and wrongly rounded) date than the model declares.
        let model = try writeModel("Dates", entities: """
            <entity name="Event">
                <attribute name="when" optional="YES" attributeType="Date" minDateTimeInterval="-100.5" defaultDateTimeInterval="0.25"/>
            </entity>
            """, in: temporaryDirectory)
        let result = try objectgraph("model", "describe", model.path, "--json")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("2000-12-31T23:58:19.5"), result.stdout)
        XCTAssertTrue(result.stdout.contains("2001-01-01T00:00:00.25"), result.stdout)
    }
}
