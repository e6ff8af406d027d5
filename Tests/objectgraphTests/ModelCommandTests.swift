// End-to-end tests of `objectgraph model validate|describe|graph`: they run the built executable
// on corpus models and on models written to a temporary folder, and check its exit status, its
// standard output (summary lines, text, JSON, DOT) and its diagnostics on standard error.
import Foundation
import XCTest

final class ModelCommandTests: XCTestCase {
    /// A folder of models written by the test, removed afterwards.
    private var temporaryDirectory: URL!

    override func setUpWithError() throws {
        temporaryDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: temporaryDirectory)
    }

    // MARK: validate

    func testValidatePrintsOneSummaryLineForAValidModel() throws {
        let path = corpusModel("rentzsch__mogenerator__test.xcdatamodel")
        let result = try objectgraph("model", "validate", path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "ok  \(path) (version rentzsch__mogenerator__test): "
            + "9 entities, 24 attributes, 4 relationships\n")
    }

    func testValidateChecksEveryVersionOfABundle() throws {
        let path = corpusModel("RestKit__RestKit__VersionedModel.xcdatamodeld")
        let result = try objectgraph("model", "validate", path)
        XCTAssertEqual(result.status, 0, result.stderr)
        let versions = result.stdoutLines.map { line in
            line.range(of: #"\(version [^)]*\)"#, options: .regularExpression).map { String(line[$0]) }
        }
        XCTAssertEqual(versions, ["(version VersionedModel)", "(version VersionedModel 2)",
                                  "(version VersionedModel 3)", "(version VersionedModel 4)"])
    }

    func testValidateAcceptsEveryCorpusModel() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: corpusDirectory.path)
            .filter { $0.hasSuffix(".xcdatamodel") || $0.hasSuffix(".xcdatamodeld") }.sorted()
        let result = try objectgraph(["model", "validate"] + names.map(corpusModel))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThanOrEqual(result.stdoutLines.count, names.count)
        XCTAssertTrue(result.stdoutLines.allSatisfy { $0.hasPrefix("ok  ") })
    }

    func testValidateReportsAnUnknownDestinationEntityWithFileAndLine() throws {
        let model = try writeModel("Bad", entities: """
            <entity name="Person">
                <attribute name="name" attributeType="String"/>
                <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Tsk"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains(
            "\(model.appendingPathComponent("contents").path):5: error: Person.tasks: destination entity \"Tsk\""),
                      result.stderr)
        XCTAssertTrue(result.stderr.contains("invalid  \(model.path) (version Bad): 1 error\n"), result.stderr)
    }

    func testValidateReportsEveryErrorOfAModel() throws {
        let model = try writeModel("TwoErrors", entities: """
            <entity name="Person">
                <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Tsk"/>
            </entity>
            <entity name="Manager" parentEntity="Boss"/>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1)
        let contents = model.appendingPathComponent("contents").path
        XCTAssertTrue(result.stderr.contains("\(contents):4: error: Person.tasks:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents):6: error: Manager:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("(version TwoErrors): 2 errors"), result.stderr)
    }

    func testValidateReportsMalformedXMLWithFileAndLine() throws {
        let model = temporaryDirectory.appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data("<?xml version=\"1.0\"?>\n<model>\n  <entity name=\"A\">\n</model>\n".utf8)
            .write(to: model.appendingPathComponent("contents"))
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        let pattern = "\(NSRegularExpression.escapedPattern(for: model.path))/contents:[0-9]+(:[0-9]+)?: error: malformed XML"
        XCTAssertNotNil(result.stderr.range(of: pattern, options: .regularExpression), result.stderr)
    }

    func testValidatePrintsWarningsAndStillSucceeds() throws {
        let model = try writeModel("Warned", entities: """
            <entity name="Conversation">
                <attribute name="mutedStatus" optional="YES" attributeType="Integer 32" defaultValueString="NO"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("ok  \(model.path) (version Warned): 1 entity, 1 attribute"))
        XCTAssertTrue(result.stderr.contains("contents:4: warning: Conversation.mutedStatus:"), result.stderr)
    }

    func testValidatePrintsANoteWhenABundleNamesNoCurrentVersion() throws {
        let path = corpusModel("JohnEstropia__CoreStore__Advanced.EvolutionDemo.xcdatamodeld")
        let result = try objectgraph("model", "validate", path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("note: \(path): .xccurrentversion names no current version"),
                      result.stderr)
    }

    func testValidateExitsWith66WhenAPathDoesNotExist() throws {
        let path = temporaryDirectory.appendingPathComponent("Missing.xcdatamodeld").path
        let result = try objectgraph("model", "validate", path)
        XCTAssertEqual(result.status, 66)
        XCTAssertEqual(result.stderr, "error: \(path): no such file or directory\n")
    }

    func testValidateChecksTheRemainingPathsAfterAMissingOne() throws {
        let missing = temporaryDirectory.appendingPathComponent("Missing.xcdatamodel").path
        let valid = corpusModel("rentzsch__mogenerator__test.xcdatamodel")
        let result = try objectgraph("model", "validate", missing, valid)
        XCTAssertEqual(result.status, 66)
        XCTAssertTrue(result.stdout.hasPrefix("ok  \(valid) "), result.stdout)
    }

    func testValidateExitsWith66WhenAPathIsNotAModel() throws {
        let result = try objectgraph("model", "validate", temporaryDirectory.path)
        XCTAssertEqual(result.status, 66)
        XCTAssertTrue(result.stderr.contains("not a model"), result.stderr)
    }

    func testValidateWithoutAPathIsAUsageError() throws {
        let result = try objectgraph("model", "validate")
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.contains("Missing expected argument"), result.stderr)
    }

    func testAnUnknownOptionIsAUsageError() throws {
        let result = try objectgraph("model", "describe", "--colour", corpusModel("rentzsch__mogenerator__test.xcdatamodel"))
        XCTAssertEqual(result.status, 64)
        XCTAssertEqual(result.stdout, "")
    }

    // MARK: describe

    func testDescribeShowsEachEntityWithItsParentAndAbstractness() throws {
        let result = try objectgraph("model", "describe", try writeLibraryModel().path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdoutLines.contains("entity Item (abstract, class Item)"), result.stdout)
        XCTAssertTrue(result.stdoutLines.contains("entity Book : Item (class Book)"), result.stdout)
        XCTAssertTrue(result.stdoutLines.contains("  subentities: Book"), result.stdout)
    }

    func testDescribeShowsAttributeTypeOptionalityDefaultAndValidation() throws {
        let result = try objectgraph("model", "describe", try writeLibraryModel().path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdoutLines.contains(
            "    title  String, required, min length 1, max length 80, matches /^\\S.*$/"), result.stdout)
        XCTAssertTrue(result.stdoutLines.contains("    pages  Integer 32, optional, default 100, min 1"), result.stdout)
        XCTAssertTrue(result.stdoutLines.contains("    added  Date, required, default 2001-01-01T00:00:00Z"), result.stdout)
    }

    func testDescribeShowsRelationshipDestinationCardinalityInverseAndDeleteRule() throws {
        let result = try objectgraph("model", "describe", try writeLibraryModel().path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdoutLines.contains(
            "    books  -> Book (to-many, ordered, optional) inverse: author, delete: Cascade"), result.stdout)
        XCTAssertTrue(result.stdoutLines.contains(
            "    shelf   -> Shelf (to-one, required) inverse: none, delete: Deny"), result.stdout)
    }

    func testDescribeShowsFetchedPropertiesConstraintsIndexesTemplatesAndConfigurations() throws {
        let result = try objectgraph("model", "describe", try writeLibraryModel().path)
        XCTAssertEqual(result.status, 0, result.stderr)
        for line in ["    longBooks  -> Book where author == $FETCH_SOURCE AND pages > 500",
                     "  unique: (title)",
                     "    byPages  pages descending",
                     "  booksByAuthor  Book where author.name == $NAME, limit 10",
                     "  Catalog  Author, Book"] {
            XCTAssertTrue(result.stdoutLines.contains(line), "missing \(line) in\n\(result.stdout)")
        }
    }

    func testDescribeReadsTheVersionAskedFor() throws {
        let path = corpusModel("RestKit__RestKit__VersionedModel.xcdatamodeld")
        let result = try objectgraph("model", "describe", path, "--version", "VersionedModel 2")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("model \(path) (version VersionedModel 2): "), result.stdout)
    }

    func testDescribeExitsWith66ForAnUnknownVersion() throws {
        let path = corpusModel("RestKit__RestKit__VersionedModel.xcdatamodeld")
        let result = try objectgraph("model", "describe", path, "--version", "Nope")
        XCTAssertEqual(result.status, 66)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("no version named \"Nope\" (versions: VersionedModel, VersionedModel 2"),
                      result.stderr)
    }

    func testDescribeOfAnInvalidModelExitsWith1AndPrintsOnlyErrors() throws {
        let model = try writeModel("Bad", entities: """
            <entity name="Person">
                <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Tsk"/>
            </entity>
            """)
        let result = try objectgraph("model", "describe", "--json", model.path)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("contents:4: error: Person.tasks:"), result.stderr)
    }

    func testDescribeJSONNamesEveryPartOfTheModel() throws {
        let library = try writeLibraryModel()
        let json = try describeJSON(library)
        XCTAssertEqual(Set(json.keys), ["compositeTypes", "configurations", "entities", "fetchRequestTemplates",
                                        "path", "version", "versionChecksum", "versionIdentifiers"])
        let checksum = try XCTUnwrap(json["versionChecksum"] as? String)
        XCTAssertEqual(Data(base64Encoded: checksum)?.count, 32, "a Base64 SHA-256: \(checksum)")
        let text = try objectgraph("model", "describe", library.path)
        XCTAssertEqual(text.stdout.split(separator: "\n").dropFirst().first.map(String.init), "version checksum \(checksum)")
        let book = try XCTUnwrap(entity("Book", in: json))
        XCTAssertEqual(Set(book.keys), ["attributes", "className", "compoundIndexes", "fetchIndexes",
                                        "fetchedProperties", "isAbstract", "name", "parent", "relationships",
                                        "renamingIdentifier", "subentities", "uniquenessConstraints", "userInfo",
                                        "versionHash", "versionHashModifier"])
        let pages = try XCTUnwrap(member("pages", of: book, in: "attributes"))
        XCTAssertEqual(Set(pages.keys), ["allowsExternalBinaryDataStorage", "attributeValueClassName",
                                         "compositeType", "defaultValue", "derivationExpression", "isDerived",
                                         "isIndexedBySpotlight", "isOptional", "isTransient", "name",
                                         "renamingIdentifier", "type", "userInfo", "validation",
                                         "valueTransformerName", "versionHashModifier"])
        XCTAssertTrue(pages["valueTransformerName"] is NSNull, "unset values are null, not left out")
    }

    func testDescribeJSONGivesEntityParentClassAndAbstractness() throws {
        let json = try describeJSON(try writeLibraryModel())
        let item = try XCTUnwrap(entity("Item", in: json))
        XCTAssertEqual(item["isAbstract"] as? Bool, true)
        XCTAssertEqual(item["subentities"] as? [String], ["Book"])
        XCTAssertTrue(item["parent"] is NSNull)
        let book = try XCTUnwrap(entity("Book", in: json))
        XCTAssertEqual(book["parent"] as? String, "Item")
        XCTAssertEqual(book["className"] as? String, "Book")
    }

    func testDescribeJSONGivesAttributeTypesDefaultsAndValidation() throws {
        let json = try describeJSON(try writeLibraryModel())
        let item = try XCTUnwrap(entity("Item", in: json))
        let title = try XCTUnwrap(member("title", of: item, in: "attributes"))
        XCTAssertEqual(title["type"] as? String, "String")
        XCTAssertEqual(title["isOptional"] as? Bool, false)
        let validation = try XCTUnwrap(title["validation"] as? [String: Any])
        XCTAssertEqual(validation["minimum"] as? Int, 1)
        XCTAssertEqual(validation["maximum"] as? Int, 80)
        XCTAssertEqual(validation["regularExpression"] as? String, "^\\S.*$")
        let added = try XCTUnwrap(member("added", of: item, in: "attributes"))
        XCTAssertEqual(added["defaultValue"] as? String, "2001-01-01T00:00:00Z")
        let book = try XCTUnwrap(entity("Book", in: json))
        XCTAssertEqual(try XCTUnwrap(member("pages", of: book, in: "attributes"))["defaultValue"] as? Int, 100)
        XCTAssertEqual(try XCTUnwrap(member("price", of: book, in: "attributes"))["defaultValue"] as? Double, 9.5)
    }

    func testDescribeJSONGivesRelationshipDestinationInverseCardinalityAndDeleteRule() throws {
        let json = try describeJSON(try writeLibraryModel())
        let author = try XCTUnwrap(entity("Author", in: json))
        let books = try XCTUnwrap(member("books", of: author, in: "relationships"))
        XCTAssertEqual(books["destination"] as? String, "Book")
        XCTAssertEqual(books["inverse"] as? String, "author")
        XCTAssertEqual(books["isToMany"] as? Bool, true)
        XCTAssertEqual(books["isOrdered"] as? Bool, true)
        XCTAssertEqual(books["maxCount"] as? Int, 0)
        XCTAssertEqual(books["deleteRule"] as? String, "Cascade")
        let shelf = try XCTUnwrap(member("shelf", of: try XCTUnwrap(entity("Book", in: json)), in: "relationships"))
        XCTAssertTrue(shelf["inverse"] is NSNull)
        XCTAssertEqual(shelf["deleteRule"] as? String, "Deny")
    }

    func testDescribeJSONGivesFetchedPropertiesConstraintsAndIndexes() throws {
        let json = try describeJSON(try writeLibraryModel())
        let longBooks = try XCTUnwrap(member("longBooks", of: try XCTUnwrap(entity("Author", in: json)),
                                            in: "fetchedProperties"))
        XCTAssertEqual(longBooks["entity"] as? String, "Book")
        XCTAssertEqual(longBooks["predicate"] as? String, "author == $FETCH_SOURCE AND pages > 500")
        XCTAssertEqual(try XCTUnwrap(entity("Item", in: json))["uniquenessConstraints"] as? [[String]], [["title"]])
        let index = try XCTUnwrap(member("byPages", of: try XCTUnwrap(entity("Book", in: json)), in: "fetchIndexes"))
        let element = try XCTUnwrap((index["elements"] as? [[String: Any]])?.first)
        XCTAssertEqual(element["property"] as? String, "pages")
        XCTAssertEqual(element["isAscending"] as? Bool, false)
    }

    func testDescribeJSONGivesFetchRequestTemplatesAndConfigurations() throws {
        let json = try describeJSON(try writeLibraryModel())
        let template = try XCTUnwrap((json["fetchRequestTemplates"] as? [[String: Any]])?.first)
        XCTAssertEqual(template["name"] as? String, "booksByAuthor")
        XCTAssertEqual(template["entity"] as? String, "Book")
        XCTAssertEqual(template["predicate"] as? String, "author.name == $NAME")
        XCTAssertEqual(template["fetchLimit"] as? Int, 10)
        let configuration = try XCTUnwrap((json["configurations"] as? [[String: Any]])?.first)
        XCTAssertEqual(configuration["name"] as? String, "Catalog")
        XCTAssertEqual(configuration["entities"] as? [String], ["Author", "Book"])
        XCTAssertEqual(json["versionIdentifiers"] as? [String], ["v1"])
    }

    func testDescribeJSONGivesEachEntityVersionHashInHex() throws {
        let json = try describeJSON(try writeLibraryModel())
        let hashes = (json["entities"] as? [[String: Any]] ?? []).compactMap { $0["versionHash"] as? String }
        XCTAssertEqual(hashes.count, 4)
        XCTAssertTrue(hashes.allSatisfy { $0.range(of: "^[0-9a-f]{64}$", options: .regularExpression) != nil }, "\(hashes)")
        XCTAssertEqual(Set(hashes).count, 4)
    }

    func testDescribeJSONSortsItsKeys() throws {
        let result = try objectgraph("model", "describe", "--json", try writeLibraryModel().path)
        XCTAssertEqual(result.status, 0, result.stderr)
        let topLevelKeys = result.stdoutLines.filter { $0.hasPrefix("  \"") }
            .map { $0.dropFirst(3).prefix { $0 != "\"" } }
        XCTAssertEqual(topLevelKeys, topLevelKeys.sorted())
        XCTAssertEqual(topLevelKeys.count, 8)
    }

    // MARK: graph

    func testGraphIsADigraphWithOneNodePerEntity() throws {
        let result = try objectgraph("model", "graph", try writeLibraryModel().path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("digraph \"Library\" {\n"), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("}\n"))
        let nodes = result.stdoutLines.filter { $0.contains("[label=<") }.map { $0.split(separator: " ")[0] }
        XCTAssertEqual(nodes, ["\"Item\"", "\"Book\"", "\"Author\"", "\"Shelf\""])
    }

    func testGraphNodesListTheirAttributes() throws {
        let result = try objectgraph("model", "graph", try writeLibraryModel().path)
        let book = try XCTUnwrap(result.stdoutLines.first { $0.hasPrefix("  \"Book\" [label=<") })
        XCTAssertTrue(book.contains("pages: Integer 32?<BR/>price: Decimal?"), book)
    }

    func testGraphDrawsInheritanceAsADashedEdgeWithAnEmptyArrowhead() throws {
        let result = try objectgraph("model", "graph", try writeLibraryModel().path)
        XCTAssertTrue(result.stdoutLines.contains("  \"Item\" -> \"Book\" [dir=back, arrowtail=empty, style=dashed];"),
                      result.stdout)
    }

    func testGraphDrawsARelationshipAndItsInverseAsOneEdgeWithCardinalityAtBothEnds() throws {
        let result = try objectgraph("model", "graph", try writeLibraryModel().path)
        let edges = result.stdoutLines.filter { $0.contains("\"Author\"") && $0.contains("->") }
        XCTAssertEqual(edges, ["  \"Book\" -> \"Author\" [dir=both, arrowhead=normal, headlabel=\"author (0..1)\", "
            + "arrowtail=normalnormal, taillabel=\"books (0..*, ordered)\"];"])
    }

    func testGraphDrawsARelationshipWithoutInverseWithItsCardinality() throws {
        let result = try objectgraph("model", "graph", try writeLibraryModel().path)
        XCTAssertTrue(result.stdoutLines.contains("  \"Book\" -> \"Shelf\" [arrowhead=normal, headlabel=\"shelf (1)\"];"),
                      result.stdout)
    }

    func testGraphIsAcceptedByGraphvizWhenItIsInstalled() throws {
        let candidates = ["/usr/bin/dot", "/usr/local/bin/dot", "/opt/homebrew/bin/dot"]
        guard let dot = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw XCTSkip("Graphviz's dot is not installed")
        }
        let graph = try objectgraph("model", "graph", corpusModel("ChristianKienle__Core-Data-Editor__iOS_Example.xcdatamodel"))
        XCTAssertEqual(graph.status, 0, graph.stderr)
        let input = temporaryDirectory.appendingPathComponent("model.dot")
        try Data(graph.stdout.utf8).write(to: input)
        let rendered = try run(URL(fileURLWithPath: dot), ["-Tsvg", input.path], scratch: temporaryDirectory)
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        XCTAssertEqual(rendered.stderr, "")
        XCTAssertTrue(rendered.stdout.contains("<svg"))
    }

    // MARK: Helpers

    /// The shared corpus of Xcode models, beside the repository.
    private var corpusDirectory: URL {
        repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/xcdatamodels")
    }

    /// The path of the corpus model named `name`.
    private func corpusModel(_ name: String) -> String {
        corpusDirectory.appendingPathComponent(name).path
    }

    /// The built `objectgraph`, beside the test bundle in the products directory.
    private var executable: URL { productsDirectory.appendingPathComponent("objectgraph") }

    /// Runs `objectgraph` with `arguments`.
    private func objectgraph(_ arguments: String...) throws -> ProgramRun {
        try objectgraph(arguments)
    }

    /// Runs `objectgraph` with `arguments`.
    private func objectgraph(_ arguments: [String]) throws -> ProgramRun {
        try run(executable, arguments, scratch: temporaryDirectory)
    }

    /// Writes `<name>.xcdatamodel/contents` holding `entities`, whose first line is line 3.
    private func writeModel(_ name: String, entities: String) throws -> URL {
        try writeModel(name, entities: entities, in: temporaryDirectory)
    }

    /// A valid model using every part `describe` and `graph` show: an abstract parent with a
    /// uniqueness constraint, validation rules and defaults, an inverse pair, a relationship
    /// without inverse, a fetched property, a fetch index, a template and a configuration.
    private func writeLibraryModel() throws -> URL {
        try writeModel("Library", entities: """
            <entity name="Item" representedClassName="Item" isAbstract="YES">
                <attribute name="title" attributeType="String" minValueString="1" maxValueString="80" regularExpressionString="^\\S.*$"/>
                <attribute name="added" attributeType="Date" defaultDateTimeInterval="0"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="title"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Book" representedClassName="Book" parentEntity="Item">
                <attribute name="pages" optional="YES" attributeType="Integer 32" minValueString="1" defaultValueString="100"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="9.5"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                <relationship name="shelf" maxCount="1" deletionRule="Deny" destinationEntity="Shelf"/>
                <fetchIndex name="byPages">
                    <fetchIndexElement property="pages" type="Binary" order="descending"/>
                </fetchIndex>
            </entity>
            <entity name="Author" representedClassName="Author">
                <attribute name="name" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
                <fetchedProperty name="longBooks" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="author == $FETCH_SOURCE AND pages > 500"/>
                </fetchedProperty>
            </entity>
            <entity name="Shelf">
                <attribute name="label" attributeType="String" defaultValueString="New"/>
            </entity>
            <fetchRequest name="booksByAuthor" entity="Book" predicateString="author.name == $NAME" fetchLimit="10"/>
            <configuration name="Catalog">
                <memberEntity name="Author"/>
                <memberEntity name="Book"/>
            </configuration>
            """)
    }

    /// The JSON object `describe --json` prints for `model`.
    private func describeJSON(_ model: URL) throws -> [String: Any] {
        let result = try objectgraph("model", "describe", "--json", model.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// The entity named `name` in a `describe --json` object.
    private func entity(_ name: String, in json: [String: Any]) -> [String: Any]? {
        (json["entities"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    /// The member named `name` of the list `key` (attributes, relationships...) of an entity.
    private func member(_ name: String, of entity: [String: Any], in key: String) -> [String: Any]? {
        (entity[key] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }
}
