// Reading, validating, writing and hashing model files: each test states what Xcode, Core Data or
// the man page says, with a model written inline.
import Foundation
import XCTest
@testable import ObjectGraph

final class ModelFileChecksTests: XCTestCase {
    private let path = "/models/Checks.xcdatamodel/contents"

    /// Reads `body` wrapped in a `<model>` element (the body starts on line 3) and validates it.
    private func read(_ body: String) -> ModelFile.ReadResult {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
            \(body)
            </model>
            """
        return ModelFileReader.readAndValidate(Data(xml.utf8), path: path)
    }

    private func errors(_ body: String) -> [ModelIssue] { read(body).errors }

    /// Flags are read whatever their case (Xcode writes YES; a hand-edited file may say yes).
    func testFlagsAreReadWhateverTheirCase() throws {
        let result = read("""
            <entity name="Item">
                <attribute name="a" optional="yes" attributeType="String"/>
                <attribute name="b" optional="True" transient="YES" attributeType="String"/>
                <attribute name="c" optional="NO" attributeType="String"/>
            </entity>
            """)
        XCTAssertEqual(result.errors.count, 0, "\(result.errors)")
        let item = try XCTUnwrap(result.model?.entitiesByName["Item"])
        XCTAssertEqual(["a", "b", "c"].map { item.attributesByName[$0]?.isOptional }, [true, true, false])
        XCTAssertEqual(item.attributesByName["b"]?.isTransient, true)
    }

    /// A control character in a model string cannot be written as XML 1.0 (not even as a
    /// character reference): writing refuses it, naming it, and leaves no unreadable file.
    func testWritingAControlCharacterIsRefused() throws {
        let model = ManagedObjectModel { Entity("Item") { Attribute("title", .string, default: "bell\u{7}") } }
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("Bell.xcdatamodel")
        XCTAssertThrowsError(try model.write(to: url)) { error in
            XCTAssertTrue("\(error)".contains("U+0007"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.appendingPathComponent("contents").path))
    }

    /// A to-one relationship holds one object at most: a minimum count above 1 can never be met,
    /// so it is an error at its line (as a to-many minimum above its maximum is).
    func testAToOneMinimumCountAboveOneIsAnErrorAtItsLine() {
        let found = errors("""
            <entity name="Item">
                <relationship name="owner" optional="YES" minCount="2" deletionRule="Nullify" destinationEntity="Item"/>
            </entity>
            """)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first?.location, ModelSourceLocation(file: path, line: 4), "\(found)")
        XCTAssertTrue(found.first?.message.contains("to-one") == true, "\(found)")
    }

    // MARK: Bad predicates are errors at load, with their line

    func testMalformedFetchRequestTemplatePredicateIsAnErrorAtItsLine() {
        // Xcode's model editor and momc refuse a template whose predicate does not parse; here the
        // model loads and the error only surfaces at fetch time, with no file or line.
        let found = errors("""
            <entity name="Person">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <fetchRequest name="byName" entity="Person" predicateString="name == $NAME AND"/>
            """)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first?.location, ModelSourceLocation(file: path, line: 6), "\(found)")
    }

    func testMalformedFetchedPropertyPredicateIsAnErrorAtItsLine() {
        let found = errors("""
            <entity name="Person">
                <attribute name="name" optional="YES" attributeType="String"/>
                <fetchedProperty name="namesakes" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Person" predicateString="name ==== $FETCH_SOURCE.name"/>
                </fetchedProperty>
            </entity>
            """)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first?.entity, "Person")
        XCTAssertEqual(found.first?.property, "namesakes")
        XCTAssertTrue([5, 6].contains(found.first?.location?.line ?? 0), "\(found)")
    }

    func testMalformedValidationRuleIsAnErrorAtItsAttribute() {
        let found = errors("""
            <entity name="Person">
                <attribute name="name" optional="YES" attributeType="String">
                    <validationPredicate predicateString="SELF.length >" warning="too short"/>
                </attribute>
            </entity>
            """)
        XCTAssertEqual(found.map(\.kind), [.invalidPredicate], "\(found)")
        XCTAssertEqual(found.first?.property, "name")
        XCTAssertEqual(found.first?.location?.line, 4, "\(found)")
    }

    func testLoadingAModelWithAMalformedTemplatePredicateFails() {
        // "A model that fails must not half-load": it loaded, and the broken template was only
        // found by the first fetch that used it.
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Person"><attribute name="name" optional="YES" attributeType="String"/></entity>
                <fetchRequest name="broken" entity="Person" predicateString="name ==="/>
            </model>
            """
        XCTAssertThrowsError(try ManagedObjectModel(xmlData: Data(xml.utf8), path: path))
    }

    // MARK: Duplicate names

    func testDuplicateFetchRequestTemplateNamesAreAnError() {
        // Core Data keeps templates in fetchRequestTemplatesByName: a second one of the same name
        // is silently unreachable.
        let found = errors("""
            <entity name="Person"><attribute name="name" optional="YES" attributeType="String"/></entity>
            <fetchRequest name="byName" entity="Person" predicateString="name == $NAME"/>
            <fetchRequest name="byName" entity="Person" predicateString="name BEGINSWITH $NAME"/>
            """)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first?.location?.line, 5, "\(found)")
    }

    func testDuplicateConfigurationNamesAreAnError() {
        let found = errors("""
            <entity name="Person"><attribute name="name" optional="YES" attributeType="String"/></entity>
            <configuration name="Cloud"><memberEntity name="Person"/></configuration>
            <configuration name="Cloud"/>
            """)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first?.location?.line, 5, "\(found)")
    }

    func testTwoCompositeTypesOfOneNameAreAnError() {
        // An attribute names its composite type: a second of the same name would be unreachable.
        let found = errors("""
            <composite name="Point"><attribute name="x" optional="YES" attributeType="Double"/></composite>
            <composite name="Point"><attribute name="y" optional="YES" attributeType="Double"/></composite>
            """)
        XCTAssertEqual(found.map(\.kind), [.duplicateName], "\(found)")
        XCTAssertEqual(found.first?.location?.line, 4, "\(found)")
    }

    // MARK: Each mistake reported once

    func testTemplateAndFetchedPropertyWithoutEntityAreEachOneErrorNamingThem() {
        let found = errors("""
            <entity name="Person">
                <fetchedProperty name="recent" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" predicateString="TRUEPREDICATE"/>
                </fetchedProperty>
            </entity>
            <fetchRequest name="everyone" predicateString="TRUEPREDICATE"/>
            """)
        XCTAssertEqual(found.map(\.description), [
            "\(path):5: error: Person.recent: its fetch request names no entity",
            "\(path):8: error: fetch request \"everyone\" names no entity",
        ])
    }

    // MARK: Bounds, patterns and constraints that cannot work

    func testBoundsThatOnlyStartWithANumberAreErrors() {
        let found = errors("""
            <entity name="Item">
                <attribute name="a" optional="YES" attributeType="Integer 32" minValueString="1,5"/>
                <attribute name="b" optional="YES" attributeType="Integer 32" maxValueString="0x10"/>
                <attribute name="c" optional="YES" attributeType="Double" minValueString="-.5" maxValueString="1e3"/>
            </entity>
            """)
        XCTAssertEqual(found.map(\.message), ["minValueString \"1,5\" is not a number", "maxValueString \"0x10\" is not a number"])
    }

    func testUniquenessConstraintOnATransientAttributeOrAFetchedPropertyIsAnError() {
        // Core Data's constraints name attributes and to-one relationships: stored values that a
        // store can compare. A to-one relationship is accepted.
        let found = errors("""
            <entity name="Person">
                <attribute name="draft" optional="YES" transient="YES" attributeType="String"/>
                <relationship name="team" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="team" inverseEntity="Person"/>
                <fetchedProperty name="namesakes" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Person" predicateString="TRUEPREDICATE"/>
                </fetchedProperty>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="draft"/>
                        <constraint value="team"/>
                        <constraint value="namesakes"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            """)
        XCTAssertEqual(found.map(\.kind), [.unsupportedConstraint, .unsupportedConstraint], "\(found)")
        XCTAssertEqual(found.map { $0.location?.line ?? 0 }, [11, 13], "\(found)")
    }

    func testIssueWithALineBreakInItsValueIsOneLine() {
        let found = read("""
            <entity name="Item">
                <attribute name="count" optional="YES" attributeType="Integer 32" defaultValueString="x&#10;y"/>
            </entity>
            """).issues
        XCTAssertEqual(found.map(\.description),
                       ["\(path):4: warning: Item.count: defaultValueString \"x\\ny\" is not an Integer 32; read as 0, as Core Data does"])
    }

    // MARK: Lines of the offending element

    func testUnknownUniquenessConstraintPropertyIsReportedAtTheConstraintLine() {
        let found = errors("""
            <entity name="Person">
                <attribute name="name" optional="YES" attributeType="String"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="name"/>
                        <constraint value="emial"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            """)
        XCTAssertEqual(found.count, 1, "\(found)")
        // The entity starts on line 3; the offending <constraint> is on line 8.
        XCTAssertEqual(found.first?.location?.line, 8, "\(found)")
    }

    func testUnknownFetchIndexPropertyIsReportedAtTheElementLine() {
        let found = errors("""
            <entity name="Person">
                <attribute name="name" optional="YES" attributeType="String"/>
                <fetchIndex name="byName">
                    <fetchIndexElement property="name" type="Binary" order="ascending"/>
                    <fetchIndexElement property="nmae" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            """)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first?.location?.line, 7, "\(found)")
    }

    func testUnknownConfigurationMemberIsReportedAtTheMemberLine() {
        let found = errors("""
            <entity name="Person"><attribute name="name" optional="YES" attributeType="String"/></entity>
            <configuration name="Local">
                <memberEntity name="Person"/>
                <memberEntity name="Ghost"/>
            </configuration>
            """)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first?.location?.line, 6, "\(found)")
    }

    // MARK: Inheritance

    func testEntityBelowAnInheritanceCycleIsNotSaidToInheritFromItself() {
        // D's parent A is in the cycle A -> B -> A; D itself is not. D was told it
        // "inherits from itself through \"A\"", which is false and sends the reader to the wrong place.
        let found = errors("""
            <entity name="A" parentEntity="B"/>
            <entity name="B" parentEntity="A"/>
            <entity name="D" parentEntity="A"/>
            """)
        XCTAssertEqual(Set(found.filter { $0.kind == .inheritanceCycle }.compactMap(\.entity)).isSuperset(of: ["A", "B"]), true)
        for issue in found where issue.entity == "D" {
            XCTAssertFalse(issue.message.contains("inherits from itself"), issue.description)
        }
    }

    // MARK: Version hashes

    private func hashes(_ body: String) throws -> [String: Data] {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            \(body)
            </model>
            """
        return try ManagedObjectModel(xmlData: Data(xml.utf8), path: path).entityVersionHashesByName
    }

    func testSubEntityHashIncludesItsSuperentitysHash() throws {
        // Apple: an entity's version hash uses "the version hash of the superentity (if present)".
        // A version hash modifier on the parent changes the parent's hash, so it must change the
        // child's too (only the parent's name was hashed into the child).
        let before = try hashes("""
            <entity name="Item" isAbstract="YES"><attribute name="title" optional="YES" attributeType="String"/></entity>
            <entity name="Task" parentEntity="Item"><attribute name="done" attributeType="Boolean" defaultValueString="NO"/></entity>
            """)
        let after = try hashes("""
            <entity name="Item" isAbstract="YES" versionHashModifier="2"><attribute name="title" optional="YES" attributeType="String"/></entity>
            <entity name="Task" parentEntity="Item"><attribute name="done" attributeType="Boolean" defaultValueString="NO"/></entity>
            """)
        XCTAssertNotEqual(before["Item"], after["Item"])
        XCTAssertNotEqual(before["Task"], after["Task"], "the sub-entity's hash ignores its superentity's hash")
    }

    func testGrandchildHashChangesWhenItsRootEntityChanges() throws {
        // Rows of Task live in the root's table: moving Item under a different root (same
        // properties) changes where Task's rows are, and Core Data's hash (superentity's hash,
        // recursively) changes (Task's hash stayed the same).
        let before = try hashes("""
            <entity name="Base"><attribute name="created" optional="YES" attributeType="Date"/></entity>
            <entity name="Item" parentEntity="Base"/>
            <entity name="Task" parentEntity="Item"/>
            """)
        let after = try hashes("""
            <entity name="Record"><attribute name="created" optional="YES" attributeType="Date"/></entity>
            <entity name="Item" parentEntity="Record"/>
            <entity name="Task" parentEntity="Item"/>
            """)
        XCTAssertNotEqual(before["Item"], after["Item"])
        XCTAssertNotEqual(before["Task"], after["Task"])
    }

    func testUserInfoRenamingIdentifierAndDefaultsDoNotChangeTheHashButTypeDoes() throws {
        let base = try hashes("""
            <entity name="Person"><attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="0"/></entity>
            """)
        let cosmetic = try hashes("""
            <entity name="Person" representedClassName="PersonMO" elementID="Human">
                <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="7" minValueString="0" elementID="years" indexed="YES">
                    <userInfo><entry key="k" value="v"/></userInfo>
                </attribute>
                <userInfo><entry key="a" value="b"/></userInfo>
            </entity>
            """)
        let retyped = try hashes("""
            <entity name="Person"><attribute name="age" optional="YES" attributeType="Integer 32" defaultValueString="0"/></entity>
            """)
        XCTAssertEqual(base, cosmetic)
        XCTAssertNotEqual(base["Person"], retyped["Person"])
    }

    // MARK: Reading every option and writing it back

    private let everyOption = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="v7">
            <entity name="Item" representedClassName="Item" isAbstract="YES" elementID="OldItem" versionHashModifier="m1" codeGenerationType="class">
                <attribute name="created" attributeType="Date" minDateTimeInterval="-100.5" maxDateTimeInterval="1000000.25" defaultDateTimeInterval="694224000.5"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12.345" minValueString="0.01" maxValueString="99999.99"/>
                <attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" defaultValueString="AAEC/w=="/>
                <attribute name="ratio" attributeType="Double" defaultValueString="0.1" usesScalarValueType="YES"/>
                <attribute name="weight" attributeType="Float" defaultValueString="2.5" usesScalarValueType="NO"/>
                <attribute name="count" attributeType="Integer 64" defaultValueString="-9223372036854775808" minValueString="-9223372036854775808" maxValueString="9223372036854775807"/>
                <attribute name="flag" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="uid" optional="YES" attributeType="UUID" defaultValueString="6B29FC40-CA47-1067-B31D-00DD010662DA"/>
                <attribute name="home" optional="YES" attributeType="URI" defaultValueString="https://example.com/a?b=c&amp;d=e"/>
                <attribute name="title" optional="YES" attributeType="String" defaultValueString="a &quot;b&quot; &lt;c&gt;&#10;d" minValueString="1" maxValueString="80" regularExpressionString="^[A-Z].*$" spotlightIndexingEnabled="YES" elementID="heading" versionHashModifier="t2" indexed="YES">
                    <userInfo>
                        <entry key="key with space" value="line1&#10;line2"/>
                        <entry key="empty" value=""/>
                    </userInfo>
                </attribute>
                <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
                <attribute name="ownerName" optional="YES" attributeType="String" derived="YES" derivationExpression="owner.name"/>
                <attribute name="place" optional="YES" attributeType="Composite" composite="Place"/>
                <attribute name="kept" optional="YES" attributeType="String" preserveAfterDeletion="YES" storedInTruthFile="YES"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="items" inverseEntity="Person" elementID="holder">
                    <userInfo><entry key="r" value="1"/></userInfo>
                </relationship>
                <fetchedProperty name="similar" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Item" predicateString="title == $FETCH_SOURCE.title" fetchLimit="5"/>
                    <userInfo><entry key="f" value="2"/></userInfo>
                </fetchedProperty>
                <fetchIndex name="byCreated">
                    <fetchIndexElement property="created" type="Binary" order="descending"/>
                    <fetchIndexElement expression="title.length" expressionType="Integer 32" type="Binary" order="ascending"/>
                </fetchIndex>
                <compoundIndexes>
                    <compoundIndex><index value="title"/><index value="price"/></compoundIndex>
                </compoundIndexes>
                <uniquenessConstraints>
                    <uniquenessConstraint><constraint value="uid"/></uniquenessConstraint>
                    <uniquenessConstraint><constraint value="title"/><constraint value="owner"/></uniquenessConstraint>
                </uniquenessConstraints>
                <userInfo><entry key="entityKey" value="entityValue"/></userInfo>
            </entity>
            <entity name="Task" representedClassName=".Task" parentEntity="Item" codeGenerationType="category">
                <attribute name="done" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            </entity>
            <entity name="Person" representedClassName="Person">
                <attribute name="name" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" minCount="1" maxCount="10" deletionRule="Cascade" ordered="YES" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
                <relationship name="friends" optional="YES" toMany="YES" deletionRule="No Action" destinationEntity="Person" inverseName="friends" inverseEntity="Person"/>
                <relationship name="boss" optional="YES" maxCount="1" deletionRule="Deny" destinationEntity="Person" inverseName="reports" inverseEntity="Person"/>
                <relationship name="reports" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="boss" inverseEntity="Person"/>
                <relationship name="cache" optional="YES" transient="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person"/>
            </entity>
            <composite name="Place">
                <attribute name="lat" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="label" optional="YES" attributeType="String"/>
            </composite>
            <fetchRequest name="recent" entity="Item" predicateString="created &gt; $SINCE AND title BEGINSWITH[cd] &quot;A&quot;" fetchLimit="20" fetchBatchSize="10" resultType="2" includesSubentities="NO" returnsDistinctResults="YES"/>
            <configuration name="Local" usedWithCloudKit="YES">
                <memberEntity name="Item"/>
                <memberEntity name="Task"/>
            </configuration>
            <configuration name="People">
                <memberEntity name="Person"/>
            </configuration>
        </model>
        """

    func testEveryXcodeOptionIsReadWithoutErrors() throws {
        let result = ModelFileReader.readAndValidate(Data(everyOption.utf8), path: path)
        XCTAssertEqual(result.errors.map(\.description), [])
        let model = try XCTUnwrap(result.model)
        let item = try XCTUnwrap(model.entitiesByName["Item"])
        let created = try XCTUnwrap(item.attributesByName["created"])
        XCTAssertEqual(created.minimumDate, Date(timeIntervalSinceReferenceDate: -100.5))
        XCTAssertEqual(created.maximumDate, Date(timeIntervalSinceReferenceDate: 1_000_000.25))
        XCTAssertEqual(created.defaultValue as? Date, Date(timeIntervalSinceReferenceDate: 694_224_000.5))
        XCTAssertEqual(item.attributesByName["price"]?.defaultValue as? Decimal, Decimal(string: "12.345"))
        XCTAssertEqual(item.attributesByName["blob"]?.defaultValue as? Data, Data([0, 1, 2, 255]))
        XCTAssertEqual(item.attributesByName["count"]?.defaultValue as? Int64, Int64.min)
        XCTAssertEqual(item.attributesByName["title"]?.defaultValue as? String, "a \"b\" <c>\nd")
        XCTAssertEqual(item.attributesByName["title"]?.userInfo["key with space"], "line1\nline2")
        XCTAssertEqual(item.attributesByName["tags"]?.valueTransformerName, "NSSecureUnarchiveFromData")
        XCTAssertEqual(item.attributesByName["ownerName"]?.derivationExpression, "owner.name")
        XCTAssertEqual(item.uniquenessConstraints, [["uid"], ["title", "owner"]])
        XCTAssertEqual(model.entitiesByName["Task"]?.uniquenessConstraints, [["uid"], ["title", "owner"]])
        let items = try XCTUnwrap(model.entitiesByName["Person"]?.relationshipsByName["items"])
        XCTAssertEqual([items.minCount, items.maxCount], [1, 10])
        XCTAssertTrue(items.isOrdered)
        XCTAssertEqual(model.fetchRequestTemplates.first?.resultType, 2)
        XCTAssertEqual(model.fetchRequestTemplates.first?.includesSubentities, false)
        XCTAssertEqual(model.configurations.map(\.usedWithCloudKit), [true, false])
    }

    func testEveryXcodeOptionSurvivesAWriteAndReadBack() throws {
        let model = try ManagedObjectModel(xmlData: Data(everyOption.utf8), path: path)
        let written = model.xmlString()
        let reread = try ManagedObjectModel(xmlData: Data(written.utf8), path: "rewritten")
        XCTAssertEqual(model, reread, written)
        XCTAssertEqual(model.entityVersionHashesByName, reread.entityVersionHashesByName)
        XCTAssertEqual(reread.xmlString(), written)
        XCTAssertEqual(reread.documentInfo.lastSavedToolsVersion, "22522")
        XCTAssertEqual(reread.documentInfo.sourceLanguage, "Swift")
        XCTAssertEqual(reread.versionIdentifiers, ["v7"])
    }

    func testBadDefaultValuesAreErrorsAtTheirLinesAndTheModelDoesNotLoad() throws {
        let body = """
            <entity name="Person">
                <attribute name="ratio" attributeType="Double" defaultValueString="half"/>
                <attribute name="uid" attributeType="UUID" defaultValueString="not-a-uuid"/>
                <attribute name="born" attributeType="Date" defaultDateTimeInterval="yesterday"/>
                <attribute name="small" attributeType="Integer 16" defaultValueString="40000"/>
                <attribute name="blob" attributeType="Binary" defaultValueString="%%%"/>
            </entity>
            """
        let result = read(body)
        XCTAssertEqual(result.errors.map { $0.location?.line ?? 0 }, [4, 5, 6, 7, 8], "\(result.issues)")
        XCTAssertEqual(result.errors.map { $0.property ?? "" }, ["ratio", "uid", "born", "small", "blob"])
        XCTAssertTrue(result.errors.allSatisfy { $0.location?.file == path })
        let xml = "<?xml version=\"1.0\"?>\n<model>\n\(body)\n</model>"
        XCTAssertThrowsError(try ManagedObjectModel(xmlData: Data(xml.utf8), path: path))
    }
}
