// Each validation error a model file can have comes back with a message a person can act on,
// naming the file, the line, the entity and the property; all problems of a file come together.
import Foundation
import XCTest
@testable import ObjectGraph

final class ModelValidationTests: XCTestCase {
    private let path = "/models/Test.xcdatamodel/contents"

    /// Reads `body` wrapped in a `<model>` element (the body starts on line 3) and validates it.
    private func issues(_ body: String) -> [ModelIssue] {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
            \(body)
            </model>
            """
        return ModelFileReader.readAndValidate(Data(xml.utf8), path: path).issues
    }

    private func assertSingleError(_ issues: [ModelIssue], kind: ModelIssue.Kind, line: Int, entity: String?,
                                   property: String?, message: String, file: StaticString = #filePath, lineNumber: UInt = #line) {
        let errors = issues.filter { $0.severity == .error }
        XCTAssertEqual(errors.count, 1, "\(issues)", file: file, line: lineNumber)
        guard let error = errors.first else { return }
        XCTAssertEqual(error.kind, kind, file: file, line: lineNumber)
        XCTAssertEqual(error.location, ModelSourceLocation(file: path, line: line), file: file, line: lineNumber)
        XCTAssertEqual(error.entity, entity, file: file, line: lineNumber)
        XCTAssertEqual(error.property, property, file: file, line: lineNumber)
        XCTAssertEqual(error.message, message, file: file, line: lineNumber)
    }

    func testUnknownDestinationEntityNamesFileLineEntityAndRelationship() {
        let found = issues("""
            <entity name="Person">
                <relationship name="tasks" toMany="YES" deletionRule="Cascade" destinationEntity="Tsk"/>
            </entity>
            """)
        assertSingleError(found, kind: .unknownDestinationEntity, line: 4, entity: "Person", property: "tasks",
                          message: "destination entity \"Tsk\" does not exist")
        XCTAssertEqual(found.first?.description,
                       "\(path):4: error: Person.tasks: destination entity \"Tsk\" does not exist")
    }

    func testRelationshipWithoutInverseIsAWarning() {
        let found = issues("""
            <entity name="Person">
                <relationship name="photo" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Photo"/>
            </entity>
            <entity name="Photo"/>
            """)
        XCTAssertEqual(found.map(\.severity), [.warning])
        XCTAssertEqual(found.first?.description, "\(path):4: warning: Person.photo: has no inverse relationship")
    }

    func testMissingInverseRelationshipIsReported() {
        let found = issues("""
            <entity name="Person">
                <relationship name="tasks" toMany="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="owner" inverseEntity="Task"/>
            </entity>
            <entity name="Task">
                <attribute name="title" attributeType="String"/>
            </entity>
            """)
        assertSingleError(found, kind: .unknownInverse, line: 4, entity: "Person", property: "tasks",
                          message: "inverse relationship \"Task.owner\" does not exist")
    }

    func testInverseThatDoesNotPointBackIsReported() {
        let found = issues("""
            <entity name="Person">
                <relationship name="tasks" toMany="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="owner" inverseEntity="Task"/>
                <relationship name="reviews" toMany="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="owner" inverseEntity="Task"/>
            </entity>
            <entity name="Task">
                <relationship name="owner" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="tasks" inverseEntity="Person"/>
            </entity>
            """)
        assertSingleError(found, kind: .inverseMismatch, line: 5, entity: "Person", property: "reviews",
                          message: "inverse \"Task.owner\" does not point back (its inverse is \"Person.tasks\")")
    }

    func testInversePointingAtAnUnrelatedEntityIsReported() {
        let found = issues("""
            <entity name="Person">
                <relationship name="tasks" toMany="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="owner" inverseEntity="Task"/>
            </entity>
            <entity name="Robot"/>
            <entity name="Task">
                <relationship name="owner" maxCount="1" deletionRule="Nullify" destinationEntity="Robot"/>
            </entity>
            """)
        assertSingleError(found, kind: .inverseMismatch, line: 4, entity: "Person", property: "tasks",
                          message: "inverse \"Task.owner\" does not point back (its inverse is nothing)")
    }

    func testDuplicatePropertyNameIsReportedAtTheSecondDeclaration() {
        let found = issues("""
            <entity name="Person">
                <attribute name="name" attributeType="String"/>
                <attribute name="name" attributeType="String"/>
            </entity>
            """)
        assertSingleError(found, kind: .duplicateProperty, line: 5, entity: "Person", property: "name",
                          message: "property \"name\" is declared twice")
    }

    func testSubEntityRedeclaringAnInheritedPropertyIsReported() {
        let found = issues("""
            <entity name="Contact" isAbstract="YES">
                <attribute name="name" attributeType="String"/>
            </entity>
            <entity name="Person" parentEntity="Contact">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            """)
        assertSingleError(found, kind: .redeclaredInheritedProperty, line: 7, entity: "Person", property: "name",
                          message: "redeclares \"name\", inherited from Contact")
    }

    func testDuplicateEntityNameIsReported() {
        let found = issues("""
            <entity name="Person"/>
            <entity name="Person"/>
            """)
        assertSingleError(found, kind: .duplicateEntity, line: 4, entity: "Person", property: nil,
                          message: "entity \"Person\" is declared twice (first declared at line 3)")
    }

    func testMissingParentEntityIsReported() {
        let found = issues("""
            <entity name="Person" parentEntity="Contact"/>
            """)
        assertSingleError(found, kind: .unknownParentEntity, line: 3, entity: "Person", property: nil,
                          message: "parent entity \"Contact\" does not exist")
    }

    func testInheritanceCycleIsReportedForEachEntityInIt() {
        let found = issues("""
            <entity name="A" parentEntity="B"/>
            <entity name="B" parentEntity="A"/>
            """)
        XCTAssertEqual(found.filter { $0.kind == .inheritanceCycle }.map(\.entity), ["A", "B"])
    }

    func testAttributeTypeXcodeDoesNotHaveIsReportedOnce() {
        let found = issues("""
            <entity name="Person">
                <attribute name="age" attributeType="Integer 128"/>
            </entity>
            """)
        assertSingleError(found, kind: .unknownAttributeType, line: 4, entity: "Person", property: "age",
                          message: "attribute type \"Integer 128\" is not one Xcode has (Undefined, Integer 16, Integer 32, Integer 64, Decimal, Double, Float, String, Boolean, Date, Binary, Transformable, UUID, URI, ObjectID, Composite)")
    }

    func testStoredAttributeWithoutTypeIsReportedButTransientOneIsNot() {
        let found = issues("""
            <entity name="Person">
                <attribute name="scratch" optional="YES" transient="YES"/>
                <attribute name="age" optional="YES"/>
            </entity>
            """)
        assertSingleError(found, kind: .missingAttributeType, line: 5, entity: "Person", property: "age",
                          message: "has no type; only transient attributes may be Undefined")
    }

    func testMalformedXMLReportsLibxml2LineAndColumn() {
        let found = issues("""
            <entity name="Person">
                <attribute name="age" attributeType="Integer 16">
            </entity>
            """)
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.kind, .malformedXML)
        XCTAssertEqual(found.first?.location?.file, path)
        XCTAssertEqual(found.first?.location?.line, 5)
        XCTAssertNotNil(found.first?.location?.column)
        XCTAssertTrue(found.first?.message.hasPrefix("malformed XML: Opening and ending tag mismatch: attribute") ?? false,
                      found.first?.message ?? "")
    }

    func testEveryProblemOfAFileIsReportedTogether() {
        let found = issues("""
            <entity name="Person" parentEntity="Nobody">
                <attribute name="age" attributeType="Number"/>
                <relationship name="tasks" toMany="YES" deletionRule="Cascade" destinationEntity="Tsk"/>
            </entity>
            <configuration name="Cloud">
                <memberEntity name="Ghost"/>
            </configuration>
            """)
        XCTAssertEqual(found.filter { $0.severity == .error }.map(\.kind),
                       [.unknownAttributeType, .unknownParentEntity, .unknownDestinationEntity, .unknownEntityReference])
        // The configuration's unknown member is reported at its <memberEntity> line.
        XCTAssertEqual(found.compactMap(\.location?.line), [4, 3, 5, 8])
    }

    func testLoadingAnInvalidModelThrowsWithEveryIssue() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.write("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Person">
                    <relationship name="a" maxCount="1" deletionRule="Nullify" destinationEntity="X"/>
                    <relationship name="b" maxCount="1" deletionRule="Nullify" destinationEntity="Y"/>
                </entity>
            </model>
            """, to: "Bad.xcdatamodel/contents")
        XCTAssertThrowsError(try ManagedObjectModel(contentsOf: url.deletingLastPathComponent())) { error in
            guard case let .invalidModel(path, issues)? = error as? ModelError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, url.path)
            XCTAssertEqual(issues.map(\.property), ["a", "b"])
            XCTAssertTrue("\(error)".hasPrefix("\(url.path): 2 errors\n\(url.path):4: error: Person.a:"), "\(error)")
        }
    }

    func testUnknownConstraintAndIndexPropertiesAreReported() {
        let found = issues("""
            <entity name="Person">
                <attribute name="name" attributeType="String"/>
                <fetchIndex name="byMail">
                    <fetchIndexElement property="email" type="Binary" order="ascending"/>
                </fetchIndex>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="uuid"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            """)
        XCTAssertEqual(found.map(\.message), [
            "uniqueness constraint names \"uuid\", which is not a property of Person",
            "fetch index \"byMail\" names \"email\", which is not a property of Person",
        ])
        // Each at the line of the element that names the property.
        XCTAssertEqual(found.map(\.location?.line), [10, 6])
    }

    func testFetchRequestTemplateForUnknownEntityIsReported() {
        let found = issues("""
            <entity name="Person"/>
            <fetchRequest name="all" entity="People"/>
            """)
        assertSingleError(found, kind: .unknownEntityReference, line: 4, entity: nil, property: nil,
                          message: "fetch request \"all\" fetches entity \"People\", which does not exist")
    }

    func testIntegerDefaultWrittenAsNOReadsAsZeroWithAWarning() throws {
        let found = issues("""
            <entity name="Conversation">
                <attribute name="count" optional="YES" attributeType="Integer 32" defaultValueString="NO"/>
            </entity>
            """)
        XCTAssertEqual(found.map(\.severity), [.warning])
        XCTAssertEqual(found.first?.message, "defaultValueString \"NO\" is not an Integer 32; read as 0, as Core Data does")
    }

    func testDefaultOutOfRangeForItsTypeIsAnError() {
        let found = issues("""
            <entity name="Person">
                <attribute name="age" attributeType="Integer 16" defaultValueString="70000"/>
            </entity>
            """)
        assertSingleError(found, kind: .invalidValue, line: 4, entity: "Person", property: "age",
                          message: "defaultValueString \"70000\" is not an Integer 16 (out of range or not whole)")
    }

    func testBuilderModelsAreValidatedToo() {
        let model = ManagedObjectModel {
            Entity("Person") {
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
            }
        }
        XCTAssertEqual(model.validate().map(\.description), ["error: Person.tasks: destination entity \"Task\" does not exist"])
        XCTAssertFalse(model.isValid)
    }
}
