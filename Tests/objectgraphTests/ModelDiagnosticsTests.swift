// How `objectgraph model validate|describe` diagnoses bad and unusual model files: each test
// writes a real model into a temporary folder, runs the built executable on it and checks its
// exit status and diagnostics against Man/objectgraph.1 and Core Data's rules (one diagnostic a
// line, at the line of the offending element, each mistake once), and that a model written back
// reads as the same model.
import Foundation
import ObjectGraph
import XCTest

final class ModelDiagnosticsTests: XCTestCase {
    /// A folder of models written by the test, removed afterwards.
    private var temporaryDirectory: URL!

    override func setUpWithError() throws {
        temporaryDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-diagnostics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: temporaryDirectory)
    }

    // MARK: Relationships

    // Person.tasks names Task.owner as its inverse, but Task.owner names no inverse: the pair does
    // not point back at each other, so graph maintenance would be one-sided (setting person.tasks
    // sets task.owner, setting task.owner leaves person.tasks alone). Apple: "The inverse
    // relationship is the description of the current relationship from the destination entity's
    // perspective"; the man page lists inverses among the structural errors. An error (exit 1) at
    // Person.tasks, `inverse "Task.owner" does not point back (its inverse is nothing)`, as for an
    // inverse that names another relationship; Task.owner keeps its warning for having no inverse.
    func testInverseWhoseOwnInverseIsMissingIsAnError() throws {
        let model = try writeModel("OneSided", entities: """
            <entity name="Person">
                <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="owner" inverseEntity="Task"/>
            </entity>
            <entity name="Task">
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents(of: model)):4: error: Person.tasks: inverse \"Task.owner\" does not point back"),
                      result.stderr)
    }

    // MARK: Attribute values and bounds

    // A date attribute whose earliest date (minDateTimeInterval 1000) is after its latest
    // (maxDateTimeInterval 10) can never hold a valid value: an error at the attribute, as numeric
    // bounds in that state are ("minimum 10 is greater than maximum 5").
    func testEarliestDateAfterLatestDateIsAnError() throws {
        let model = try writeModel("Dates", entities: """
            <entity name="Event">
                <attribute name="when" optional="YES" attributeType="Date" minDateTimeInterval="1000" maxDateTimeInterval="10"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents(of: model)):4: error: Event.when:"), result.stderr)
    }

    // defaultValueString="12abc" on a Decimal is not a number, as the same text on a Double is not
    // ("is not a Double"): an error, `defaultValueString "12abc" is not a Decimal`, rather than a
    // default of 12 that silently drops the "abc" (Decimal(string:) alone reads the leading number).
    func testDecimalDefaultWithTrailingTextIsAnError() throws {
        let model = try writeModel("DecimalDefault", entities: """
            <entity name="Item">
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12abc"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents(of: model)):4: error: Item.price: defaultValueString \"12abc\""),
                      result.stderr)
    }

    // minValueString="5 apples" is not a number: an error, `minValueString "5 apples" is not a
    // number`, rather than a minimum of 5. A bound must be a number to its end ("1,5" and "0x10"
    // are not bounds of 1 and 0 either).
    func testBoundWithTrailingTextIsAnError() throws {
        let model = try writeModel("DecimalBound", entities: """
            <entity name="Item">
                <attribute name="price" optional="YES" attributeType="Decimal" minValueString="5 apples"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents(of: model)):4: error: Item.price: minValueString \"5 apples\""),
                      result.stderr)
    }

    // A regular expression that does not compile would make every save of the attribute fail at
    // run time ("has an invalid regular expression /[a-/ in the model"), with no file or line. It
    // is an error when the model is read, at the attribute's line, as a validation predicate that
    // does not parse is; the pattern is compiled as the save-time rule compiles it.
    func testRegularExpressionThatDoesNotCompileIsAnError() throws {
        let model = try writeModel("Regex", entities: """
            <entity name="Person">
                <attribute name="code" optional="YES" attributeType="String" regularExpressionString="[a-"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents(of: model)):4: error: Person.code:"), result.stderr)
    }

    // MARK: Constraints, indexes and composite types

    // The man page: errors are reported at "the line of the offending element", as they are for
    // a <constraint> or a <fetchIndexElement> that names a missing property: a compound index
    // naming a missing property is reported at its <index value="nope"/> line, not the entity's.
    func testCompoundIndexNamingAMissingPropertyIsReportedAtItsIndexLine() throws {
        let model = try writeModel("Compound", entities: """
            <entity name="Item">
                <attribute name="title" optional="YES" attributeType="String"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="title"/>
                        <index value="nope"/>
                    </compoundIndex>
                </compoundIndexes>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents(of: model)):8: error: Item: compound index names \"nope\""),
                      result.stderr)
    }

    // Apple (NSEntityDescription.uniquenessConstraints): each constraint holds "the names of
    // attributes on the entity" (to-one relationships are accepted too); a to-many relationship
    // has no stored value to be unique, and a store could not enforce the constraint. An error at
    // the <constraint value="tasks"/> line, as for transient attributes and fetched properties.
    func testUniquenessConstraintOnAToManyRelationshipIsAnError() throws {
        let model = try writeModel("ConstrainedToMany", entities: """
            <entity name="Person">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="owner" inverseEntity="Task"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="tasks"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Task">
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="tasks" inverseEntity="Person"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents(of: model)):8: error: Person"), result.stderr)
    }

    // Two attributes named "x" in one composite type collide exactly as two properties of one
    // entity do: `Point.x: property "x" is declared twice`, at the second declaration. (Two
    // composite types of one name are an error too.)
    func testDuplicateAttributeNameInACompositeTypeIsAnError() throws {
        let model = try writeModel("Composite", entities: """
            <entity name="Place">
                <attribute name="location" optional="YES" attributeType="Composite" composite="Point"/>
            </entity>
            <composite name="Point">
                <attribute name="x" optional="YES" attributeType="Double"/>
                <attribute name="x" optional="YES" attributeType="String"/>
            </composite>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("\(contents(of: model)):8: error: Point.x:"), result.stderr)
    }

    // MARK: Diagnostics

    // The man page: warnings and errors go to standard error "one a line, in the form
    // file:line: error: Entity.property: message", "so that editors can jump to it". A template
    // predicate that does not parse is one such line, its position given as "at character 5"
    // rather than the predicate tool's caret display: every line of standard error is a
    // `file:line:` diagnostic or the `invalid  ...` summary.
    func testPredicateErrorIsOneLineOfStandardError() throws {
        let model = try writeModel("BadTemplate", entities: """
            <entity name="Person">
                <attribute name="age" optional="YES" attributeType="Integer 16"/>
            </entity>
            <fetchRequest name="older" entity="Person" predicateString="age &gt;"/>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stderr)
        let path = contents(of: model)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertTrue(lines.contains { $0.hasPrefix("\(path):6: error: ") }, result.stderr)
        for line in lines {
            XCTAssertTrue(line.hasPrefix("\(path):") || line.hasPrefix("invalid  "), "stray line \"\(line)\" in\n\(result.stderr)")
        }
    }

    // A relationship without destinationEntity is one mistake, reported once (`has no destination
    // entity`), so the summary says "1 error", as an unknown attribute type is reported once and
    // not again as a missing one. A template or fetched property without `entity` is likewise one
    // error.
    func testRelationshipWithoutDestinationIsReportedOnce() throws {
        let model = try writeModel("NoDestination", entities: """
            <entity name="Person">
                <relationship name="pet" optional="YES" maxCount="1" deletionRule="Nullify"/>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("invalid  \(model.path) (version NoDestination): 1 error\n"), result.stderr)
    }

    // "Every error names what and where": a fetched property whose <fetchRequest> has no entity
    // is reported as Person.recent (`its fetch request names no entity`), and only once.
    func testFetchedPropertyWithoutEntityNamesTheFetchedProperty() throws {
        let model = try writeModel("FetchedNoEntity", entities: """
            <entity name="Person">
                <fetchedProperty name="recent" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" predicateString="TRUEPREDICATE"/>
                </fetchedProperty>
            </entity>
            """)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 1, result.stderr)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        XCTAssertFalse(errors.isEmpty, result.stderr)
        for error in errors {
            XCTAssertTrue(error.contains(": error: Person.recent: "), "error without the fetched property: \(error)")
        }
    }

    // MARK: Paths that are not models

    // `contents` here is a folder, not a file: it exists, so "no such file or directory" would send
    // the user looking for a missing file. Exit 66 with `.../contents: not a model: a contents file
    // must be a file, not a folder` (a contents file without read permission is likewise 66,
    // `cannot be read: permission denied`).
    func testContentsThatIsAFolderIsNotReportedAsMissing() throws {
        let model = temporaryDirectory.appendingPathComponent("Folder.xcdatamodel")
        try FileManager.default.createDirectory(at: model.appendingPathComponent("contents"), withIntermediateDirectories: true)
        let result = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertTrue(result.stderr.contains(contents(of: model)), result.stderr)
        XCTAssertFalse(result.stderr.contains("no such file or directory"), result.stderr)
    }

    // The man page: a path is a .xcdatamodeld, a .xcdatamodel or a `contents` file, and 66 is for
    // "a path is not a model". A README passed by mistake is none of these: exit 66, `error:
    // .../README.md: not a model: ...`, not a broken model with "malformed XML" (exit 1). A file
    // named otherwise than `contents` is read as a model only when it is XML.
    func testTextFileThatIsNotAContentsFileIsNotAModel() throws {
        let readme = temporaryDirectory.appendingPathComponent("README.md")
        try Data("# Notes\nThe model lives in Data/.\n".utf8).write(to: readme)
        let result = try objectgraph("model", "validate", readme.path)
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertTrue(result.stderr.contains("not a model"), result.stderr)
    }

    // MARK: Help

    // The man page gives `describe` one --version, `--version name`, the version of a bundle to
    // read, and `describe --help` lists only that one: no `--version  Show the version.` flag of
    // the root's, which could not work there. `objectgraph --version` still prints the version.
    func testDescribeHelpListsOneVersionOption() throws {
        let result = try objectgraph("model", "describe", "--help")
        XCTAssertEqual(result.status, 0, result.stderr)
        let options = result.stdout.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--version") }
        XCTAssertEqual(options.count, 1, result.stdout)
    }

    // MARK: Round trip

    // "Nothing is lost": a model read and written back reads as the same model. A value holding
    // CR LF (`&#13;&#10;` in the file, as a String default or a user info value) is written as
    // `&#13;&#10;` again, not as a raw CR LF that XML attribute normalization would read back as
    // one space ("\r\n" is one Character, so the writer escapes scalar by scalar).
    func testWritingAModelKeepsCarriageReturnLineFeedInValues() throws {
        let model = try writeModel("Notes", entities: """
            <entity name="Note">
                <attribute name="body" optional="YES" attributeType="String" defaultValueString="a&#13;&#10;b">
                    <userInfo>
                        <entry key="hint" value="x&#13;&#10;y"/>
                    </userInfo>
                </attribute>
            </entity>
            """)
        let rewritten = temporaryDirectory.appendingPathComponent("Rewritten/Notes.xcdatamodel")
        try ManagedObjectModel(contentsOf: model).write(to: rewritten)
        let before = try bodyAttribute(in: describeJSON(model))
        let after = try bodyAttribute(in: describeJSON(rewritten))
        XCTAssertEqual(before["defaultValue"] as? String, "a\r\nb")
        XCTAssertEqual((before["userInfo"] as? [String: String])?["hint"], "x\r\ny")
        XCTAssertEqual(after["defaultValue"] as? String, "a\r\nb")
        XCTAssertEqual((after["userInfo"] as? [String: String])?["hint"], "x\r\ny")
    }

    // The round trip of every unusual part Xcode writes: every attribute type (Composite and
    // ObjectID included), scalar and default values of each, a three-level inheritance with an
    // abstract root, renaming identifiers, hash modifiers, user info, a derived attribute and an
    // ordered many-to-many pair. Read, written with the public writer, and read again, `describe
    // --json` (version hashes included) is unchanged.
    func testEveryUnusualPartSurvivesAWriteAndReadBack() throws {
        let model = try writeModel("Unusual", entities: """
            <entity name="Base" representedClassName="Base" isAbstract="YES" elementID="OldBase" versionHashModifier="v2">
                <attribute name="i16" attributeType="Integer 16" defaultValueString="-3" usesScalarValueType="YES"/>
                <attribute name="i32" optional="YES" attributeType="Integer 32" minValueString="-5" maxValueString="5"/>
                <attribute name="i64" attributeType="Integer 64" defaultValueString="9223372036854775807"/>
                <attribute name="dec" optional="YES" attributeType="Decimal" defaultValueString="0.1"/>
                <attribute name="dbl" attributeType="Double" defaultValueString="1.5"/>
                <attribute name="flt" attributeType="Float" defaultValueString="0.1"/>
                <attribute name="str" attributeType="String" defaultValueString=""/>
                <attribute name="flag" attributeType="Boolean" defaultValueString="NO"/>
                <attribute name="when" optional="YES" attributeType="Date" minDateTimeInterval="-0.5" defaultDateTimeInterval="12.25"/>
                <attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="uid" optional="YES" attributeType="UUID"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <attribute name="obj" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                <attribute name="oid" optional="YES" attributeType="ObjectID"/>
                <attribute name="loc" optional="YES" attributeType="Composite" composite="Point"/>
                <userInfo>
                    <entry key="k" value="v"/>
                </userInfo>
            </entity>
            <entity name="Middle" representedClassName="Middle" parentEntity="Base">
                <attribute name="m" optional="YES" attributeType="String" elementID="oldM" versionHashModifier="x">
                    <userInfo>
                        <entry key="a" value="b"/>
                    </userInfo>
                </attribute>
            </entity>
            <entity name="Leaf" representedClassName="Leaf" parentEntity="Middle">
                <attribute name="tagCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="tags.@count"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="Tag" inverseName="leaves" inverseEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="Tag">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="leaves" optional="YES" toMany="YES" minCount="1" maxCount="5" deletionRule="Deny" destinationEntity="Leaf" inverseName="tags" inverseEntity="Leaf"/>
            </entity>
            <composite name="Point">
                <attribute name="x" optional="YES" attributeType="Double" defaultValueString="0.0"/>
                <attribute name="y" optional="YES" attributeType="Double" defaultValueString="0.0"/>
            </composite>
            """)
        let validated = try objectgraph("model", "validate", model.path)
        XCTAssertEqual(validated.status, 0, validated.stderr)
        XCTAssertEqual(validated.stdout, "ok  \(model.path) (version Unusual): 4 entities, 18 attributes, 2 relationships\n")
        let rewritten = temporaryDirectory.appendingPathComponent("Rewritten/Unusual.xcdatamodel")
        try ManagedObjectModel(contentsOf: model).write(to: rewritten)
        var before = try describeJSON(model)
        var after = try describeJSON(rewritten)
        before["path"] = nil
        after["path"] = nil
        XCTAssertEqual(before as NSDictionary, after as NSDictionary)
    }

    // MARK: Bundles and several paths

    // The man page's rule for a .xccurrentversion that names a version the bundle does not hold:
    // a `note:` on standard error naming it, and the newest version chosen with numbers compared
    // as numbers ("M 10" after "M 9"), standard output left parseable.
    func testCurrentVersionNamingAMissingVersionFallsBackToTheNewestWithANote() throws {
        let bundle = temporaryDirectory.appendingPathComponent("Versions.xcdatamodeld")
        for version in ["M", "M 2", "M 9", "M 10"] {
            _ = try writeModel(version, entities: """
                <entity name="Item">
                    <attribute name="title" optional="YES" attributeType="String"/>
                </entity>
                """, in: bundle)
        }
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t<key>_XCCurrentVersionName</key>
            \t<string>M 3.xcdatamodel</string>
            </dict>
            </plist>
            """.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let result = try objectgraph("model", "describe", bundle.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "note: \(bundle.path): .xccurrentversion names version \"M 3\", "
            + "which the bundle does not hold; using the newest version, \"M 10\"\n")
        XCTAssertTrue(result.stdout.hasPrefix("model \(bundle.path) (version M 10): 1 entity\n"), result.stdout)
    }

    // The man page's "When validate meets both a missing path and an invalid model, it exits 66",
    // with the invalid model still fully reported after the missing one.
    func testValidateOfAMissingPathAndAnInvalidModelExits66AndReportsBoth() throws {
        let missing = temporaryDirectory.appendingPathComponent("Missing.xcdatamodeld").path
        let invalid = try writeModel("Invalid", entities: """
            <entity name="Manager" parentEntity="Boss"/>
            """)
        let result = try objectgraph("model", "validate", missing, invalid.path)
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr, """
            error: \(missing): no such file or directory
            \(contents(of: invalid)):3: error: Manager: parent entity "Boss" does not exist
            invalid  \(invalid.path) (version Invalid): 1 error

            """)
    }

    // MARK: Helpers

    /// Runs the built `objectgraph` with `arguments`.
    private func objectgraph(_ arguments: String...) throws -> ProgramRun {
        try run(productsDirectory.appendingPathComponent("objectgraph"), arguments, scratch: temporaryDirectory)
    }

    /// Writes `<name>.xcdatamodel/contents` in the temporary folder; `entities` starts on line 3.
    private func writeModel(_ name: String, entities: String) throws -> URL {
        try writeModel(name, entities: entities, in: temporaryDirectory)
    }

    /// The path of the `contents` file of the `.xcdatamodel` at `model`, as diagnostics name it.
    private func contents(of model: URL) -> String {
        model.appendingPathComponent("contents").path
    }

    /// The JSON object `objectgraph model describe --json` prints for `model`.
    private func describeJSON(_ model: URL) throws -> [String: Any] {
        let result = try objectgraph("model", "describe", "--json", model.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// The attribute `body` of the first entity in a `describe --json` object.
    private func bodyAttribute(in json: [String: Any]) throws -> [String: Any] {
        let entity = try XCTUnwrap((json["entities"] as? [[String: Any]])?.first)
        return try XCTUnwrap((entity["attributes"] as? [[String: Any]])?.first { $0["name"] as? String == "body" })
    }
}
