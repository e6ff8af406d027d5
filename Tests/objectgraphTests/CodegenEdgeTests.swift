// `objectgraph codegen`: Swift types of every attribute type, names that clash
// with Swift, Foundation or ObjectGraph, inheritance, and the CLI's options, exit codes and
// error locations. Generated code is type-checked with swiftc against the built ObjectGraph.
import Foundation
import XCTest

final class CodegenEdgeTests: XCTestCase, CodegenTesting {
    var temporaryDirectory: URL!

    override func setUpWithError() throws {
        temporaryDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-codegen-edge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: temporaryDirectory)
    }

    // MARK: Types

    private let everyType = """
        <entity name="Sample" representedClassName="MyApp.Sample" codeGenerationType="class">
            <attribute name="i16" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>
            <attribute name="i32" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
            <attribute name="i64" attributeType="Integer 64" defaultValueString="0"/>
            <attribute name="dbl" attributeType="Double" defaultValueString="1.5" usesScalarValueType="YES"/>
            <attribute name="flt" optional="YES" attributeType="Float" usesScalarValueType="NO"/>
            <attribute name="flag" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            <attribute name="maybe" optional="YES" attributeType="Boolean" usesScalarValueType="NO"/>
            <attribute name="amount" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
            <attribute name="when" optional="YES" attributeType="Date"/>
            <attribute name="blob" optional="YES" attributeType="Binary"/>
            <attribute name="ident" optional="YES" attributeType="UUID"/>
            <attribute name="link" optional="YES" attributeType="URI"/>
            <attribute name="text" attributeType="String" defaultValueString="hi"/>
            <attribute name="ref" optional="YES" attributeType="ObjectID"/>
            <attribute name="anything" optional="YES" attributeType="Undefined" transient="YES"/>
            <attribute name="map" optional="YES" attributeType="Transformable" customClassName="[String: Int]"/>
            <attribute name="point" optional="YES" attributeType="Transformable" customClassName="Point"/>
            <attribute name="import" optional="YES" attributeType="String"/>
            <attribute name="value" optional="YES" attributeType="String"/>
            <attribute name="attribute" optional="YES" attributeType="Integer 16"/>
            <attribute name="self" optional="YES" attributeType="String"/>
            <attribute name="init" optional="YES" attributeType="String"/>
            <relationship name="objects" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Child" inverseName="parent" inverseEntity="Child"/>
            <relationship name="ordered" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Plain" inverseName="sample" inverseEntity="Plain"/>
            <fetchedProperty name="recent" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Child" predicateString="TRUEPREDICATE"/>
            </fetchedProperty>
        </entity>
        <entity name="Child" representedClassName="Child" parentEntity="Middle">
            <attribute name="extra" optional="YES" attributeType="String"/>
            <relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Sample" inverseName="objects" inverseEntity="Sample"/>
        </entity>
        <entity name="Middle" parentEntity="Sample">
            <attribute name="middle" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Plain">
            <relationship name="sample" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Sample" inverseName="ordered" inverseEntity="Sample"/>
        </entity>
        """

    func testEveryAttributeTypeHasXcodesSwiftType() throws {
        let model = try writeModel("Every", entities: everyType, in: temporaryDirectory)
        let sample = try XCTUnwrap(try generate(model.path)["Sample+CoreDataProperties.swift"])
        let expected = [
            "i16": "Int16", "i32": "Int32?", "i64": "Int64", "dbl": "Double", "flt": "Float?", "flag": "Bool",
            "maybe": "Bool?", "amount": "Decimal?", "when": "Date?", "blob": "Data?", "ident": "UUID?", "link": "URL?",
            "text": "String?", "ref": "ObjectID?", "anything": "Any?", "map": "[String: Int]?", "point": "Point?",
            "`import`": "String?", "objects": "[Child]", "ordered": "OrderedSet<ManagedObject>",
        ]
        for (name, type) in expected {
            XCTAssertTrue(sample.contains("public var \(name): \(type) {"), "\(name): \(type)")
        }
        XCTAssertTrue(sample.contains("get { attribute(atSlot: SampleSlots.i16, as: Int16.self) ?? 0 }"))
        XCTAssertTrue(sample.contains("get { attribute(atSlot: SampleSlots.flag, as: Bool.self) ?? false }"))
        XCTAssertTrue(sample.contains("public func insertIntoOrdered(_ value: ManagedObject, at index: Int) {"))
        XCTAssertFalse(sample.contains("recent"), "fetched properties get no accessor")
        let child = try XCTUnwrap(try generate(model.path)["Child+CoreDataProperties.swift"])
        XCTAssertTrue(child.contains("public var middle: String? {"), "properties of a classless parent go to the subclass")
        XCTAssertTrue(child.contains("public var parent: Sample? {"))
    }

    func testEveryKindOfPropertyTypeChecksAndIsUsableWithoutWarnings() throws {
        let model = try writeModel("Every", entities: everyType, in: temporaryDirectory)
        let output = temporaryDirectory.appendingPathComponent("Generated")
        let result = try objectgraph("codegen", model.path, "--output", output.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        try Data("""
            import Foundation
            import ObjectGraph
            public struct Point: Hashable, Sendable { var x = 0 }
            func use(_ context: ManagedObjectContext) throws -> [Child] {
                EveryClasses.register()
                let sample = Sample(context: context)
                let child = Child(context: context)
                sample.i16 = 2; sample.i32 = nil; sample.flag = true; sample.maybe = false
                sample.amount = Decimal(1); sample.when = Date(); sample.blob = Data(); sample.ident = UUID()
                sample.link = URL(string: "https://example.com"); sample.map = ["a": 1]; sample.point = Point()
                sample.`import` = "x"; sample.value = "v"; sample.attribute = 3; sample.`self` = "s"
                sample.addToObjects(child); child.parent = sample; child.extra = "x"; child.middle = "m"; child.i64 = 4
                let plain: ManagedObject = child
                sample.insertIntoOrdered(plain, at: 0)
                let _: Int64 = child.i64
                let _: [Child] = sample.objects
                let _: FetchRequest<Sample> = Sample.fetchRequest()
                return try context.fetch(Child.fetchRequest())
            }

            """.utf8).write(to: output.appendingPathComponent("Use.swift"))
        try assertTypeChecks(folder: output, module: "MyApp")
    }

    // MARK: Inheritance

    /// A sub-entity that keeps its parent's class (Xcode lists entities by name, so it may come
    /// first) must not make `class Shape: Shape`.
    func testSubEntitySharingItsParentsClassDoesNotInheritFromItself() throws {
        let model = try writeModel("Shapes", entities: """
            <entity name="Circle" representedClassName="Shape" parentEntity="Shape">
                <attribute name="radius" attributeType="Double" usesScalarValueType="YES"/>
            </entity>
            <entity name="Shape" representedClassName="Shape">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            """, in: temporaryDirectory)
        let output = temporaryDirectory.appendingPathComponent("Generated")
        let result = try objectgraph("codegen", model.path, "--output", output.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        let shape = try String(contentsOf: output.appendingPathComponent("Shape+CoreDataClass.swift"), encoding: .utf8)
        XCTAssertFalse(shape.contains("class Shape: Shape"), shape)
        XCTAssertTrue(shape.contains("override open class var entityName: String { \"Shape\" }"), shape)
        try assertTypeChecks(folder: output)
    }

    // MARK: Names that clash

    /// `<Model>Classes` for a model named Object is `ObjectClasses`, which hides ObjectGraph's.
    func testModelNamedObjectTypeChecks() throws {
        let model = try writeModel("Object", entities: """
            <entity name="Thing" representedClassName="Thing">
                <attribute name="value" optional="YES" attributeType="String"/>
            </entity>
            """, in: temporaryDirectory)
        let output = temporaryDirectory.appendingPathComponent("Generated")
        XCTAssertEqual(try objectgraph("codegen", model.path, "--output", output.path).status, 0)
        try assertTypeChecks(folder: output)
    }

    /// An entity whose class is named like a type the generated code uses (`Date`, `String`)
    /// would take that type's place in the module: `Meeting.start` became the model's `Date`,
    /// and `entityName: String` did not compile. codegen refuses such a class name, at the
    /// entity's line, and writes nothing.
    func testEntityClassNamedLikeASwiftOrFoundationTypeIsRefused() throws {
        for name in ["Date", "String"] {
            let model = try writeModel("Calendar\(name)", entities: """
                <entity name="\(name)" representedClassName="\(name)">
                    <attribute name="title" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Meeting" representedClassName="Meeting">
                    <attribute name="start" optional="YES" attributeType="Date"/>
                </entity>
                """, in: temporaryDirectory)
            let output = temporaryDirectory.appendingPathComponent("Generated\(name)")
            let result = try objectgraph("codegen", model.path, "--output", output.path)
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(model.appendingPathComponent("contents").path + ":3: error: \(name): the class name"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
        }
    }

    // MARK: CLI

    func testReservedNameErrorNamesTheModelFileAndLine() throws {
        let model = try writeModel("Clash", entities: """
            <entity name="Book" representedClassName="Book">
                <attribute name="isDeleted" optional="YES" attributeType="Boolean"/>
            </entity>
            """, in: temporaryDirectory)
        let result = try objectgraph("codegen", model.path, "--output", temporaryDirectory.appendingPathComponent("G").path)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("Book.isDeleted"), result.stderr)
        // Every other model error is `FILE:LINE: error: ...`; the attribute is on line 4.
        XCTAssertTrue(result.stderr.contains(model.appendingPathComponent("contents").path + ":4"), result.stderr)
    }

    func testInvalidModelErrorNamesTheModelFileAndLine() throws {
        let model = try writeModel("Bad", entities: """
            <entity name="Person" representedClassName="Person">
                <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Tsk"/>
            </entity>
            """, in: temporaryDirectory)
        let result = try objectgraph("codegen", model.path, "--output", temporaryDirectory.path)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains(model.appendingPathComponent("contents").path + ":4: error:"), result.stderr)
    }

    func testHelpDescribesToManyRelationshipsAsTheyAreGenerated() throws {
        let help = try objectgraph("codegen", "--help")
        XCTAssertEqual(help.status, 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        // The generated unordered to-many is `[Event]` (man page: "an array of the destination's class").
        XCTAssertFalse(text.contains("To-many relationships are Set"), text)
    }

    func testRerunOverwritesTheFilesItWrote() throws {
        let output = temporaryDirectory.appendingPathComponent("Generated")
        XCTAssertEqual(try objectgraph("codegen", organizer, "--output", output.path).status, 0)
        let file = output.appendingPathComponent("Person+CoreDataProperties.swift")
        let original = try Data(contentsOf: file)
        try Data("edited".utf8).write(to: file)
        let again = try objectgraph("codegen", organizer, "--output", output.path)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try Data(contentsOf: file), original)
    }

    func testUnknownVersionExits66() throws {
        let result = try objectgraph("codegen", organizer, "--version", "Nope", "--output", temporaryDirectory.path)
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertTrue(result.stderr.contains("Nope"), result.stderr)
    }

    func testXMLFileThatIsNotAModelExits66() throws {
        let file = temporaryDirectory.appendingPathComponent("Info.plist")
        try Data("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n".utf8).write(to: file)
        let result = try objectgraph("codegen", file.path, "--output", temporaryDirectory.appendingPathComponent("G").path)
        XCTAssertEqual(result.status, 66, result.stderr)
    }

    func testUnknownAccessLevelIsAUsageError() throws {
        let result = try objectgraph("codegen", organizer, "--output", temporaryDirectory.path, "--access", "private")
        XCTAssertEqual(result.status, 64)
        XCTAssertEqual(result.stdout, "")
    }

    func testOutputFolderIsCreatedWithItsParents() throws {
        let output = temporaryDirectory.appendingPathComponent("a/b/c")
        let result = try objectgraph("codegen", organizer, "--output", output.path, "--single-file")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("Organizer+Generated.swift").path))
    }
}
