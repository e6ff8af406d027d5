// End-to-end tests of `objectgraph codegen`: they run the built executable on Data/Organizer and on
// models written to a temporary folder, check the files it writes and what it prints, and
// type-check the generated code against the built ObjectGraph module with swiftc.
import Foundation
import XCTest

final class CodegenCommandTests: XCTestCase, CodegenTesting {
    /// A folder for models and generated code, removed afterwards.
    var temporaryDirectory: URL!

    override func setUpWithError() throws {
        temporaryDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-codegen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: temporaryDirectory)
    }

    // MARK: Files

    func testWritesTwoFilesPerClassAndTheRegistrationAndPrintsTheirPaths() throws {
        let output = temporaryDirectory.appendingPathComponent("Generated")
        let result = try objectgraph("codegen", organizer, "--output", output.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        let names = ["Event", "Item", "Person", "Task"].flatMap { ["\($0)+CoreDataClass.swift", "\($0)+CoreDataProperties.swift"] }
            + ["Organizer+Classes.swift"]
        XCTAssertEqual(result.stdoutLines, names.map { output.appendingPathComponent($0).path })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).sorted(), names.sorted())
        XCTAssertEqual(result.stderr, "")
    }

    func testSingleFileHoldsEverything() throws {
        let result = try objectgraph("codegen", organizer, "--output", temporaryDirectory.path, "--single-file")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdoutLines, [temporaryDirectory.appendingPathComponent("Organizer+Generated.swift").path])
        let code = try String(contentsOfFile: result.stdoutLines[0], encoding: .utf8)
        XCTAssertTrue(code.contains("open class Task: Item {"))
        XCTAssertTrue(code.contains("extension Person {"))
        XCTAssertTrue(code.contains("public enum OrganizerClasses {"))
    }

    // MARK: Contents

    func testClassNamesItsEntityAndSubclassesItsParentEntitysClass() throws {
        let files = try generate(organizer)
        XCTAssertTrue(files["Task+CoreDataClass.swift"]!.contains("""
            open class Task: Item {
                override open class var entityName: String { "Task" }
            }
            """))
        XCTAssertTrue(files["Item+CoreDataClass.swift"]!.contains("open class Item: ManagedObject {"))
    }

    func testAttributesHaveXcodesSwiftTypes() throws {
        let task = try XCTUnwrap(try generate(organizer)["Task+CoreDataProperties.swift"])
        XCTAssertTrue(task.contains("public var priority: Int16 {\n        get { attribute(atSlot: TaskSlots.priority, as: Int16.self) ?? 0 }\n"
                                    + "        set { setAttribute(newValue, atSlot: TaskSlots.priority) }"))
        XCTAssertTrue(task.contains("public var done: Bool {\n        get { attribute(atSlot: TaskSlots.done, as: Bool.self) ?? false }"))
        XCTAssertTrue(task.contains("public var due: Date? {"))
        XCTAssertTrue(task.contains("public var owner: Person? {\n        get { value(atSlot: TaskSlots.owner) as? Person }"))
    }

    func testRequiredObjectAttributesAreOptionalsAsXcodeMakesThem() throws {
        let item = try XCTUnwrap(try generate(organizer)["Item+CoreDataProperties.swift"])
        XCTAssertTrue(item.contains("public var title: String? {"))
        XCTAssertTrue(item.contains("public var uuid: UUID? {"))
    }

    func testToManyRelationshipsAreArraysOrOrderedSetsWithHelpers() throws {
        let files = try generate(organizer)
        let person = try XCTUnwrap(files["Person+CoreDataProperties.swift"])
        XCTAssertTrue(person.contains("public var tasks: OrderedSet<Task> {"))
        XCTAssertTrue(person.contains("public func insertIntoTasks(_ value: Task, at index: Int) {"))
        XCTAssertTrue(person.contains("public func removeFromTasks(at index: Int) {"))
        XCTAssertTrue(person.contains("public var events: [Event] {\n        get { objects(atSlot: PersonSlots.events, as: Event.self) }"))
        XCTAssertTrue(person.contains("public func addToEvents(_ values: [Event]) {"))
        XCTAssertFalse(person.contains("insertIntoEvents"))
        XCTAssertFalse(person.contains("openTasks"), "fetched properties get no accessor")
    }

    func testSlotsCountInheritedPropertiesFirst() throws {
        let task = try XCTUnwrap(try generate(organizer)["Task+CoreDataProperties.swift"])
        XCTAssertTrue(task.contains("enum TaskSlots {\n    static let done = 4\n    static let due = 5\n"), task)
        let registry = try XCTUnwrap(try generate(organizer)["Organizer+Classes.swift"])
        XCTAssertTrue(registry.contains("""
            ObjectClasses.GeneratedClass(Task.self, slotNames: ["created", "notes", "title", "uuid", \
            "done", "due", "priority", "event", "owner"]),
            """))
    }

    func testScalarTypesOffMakesOptionalNumbers() throws {
        let model = try writeModel("Numbers", entities: """
            <entity name="Reading" representedClassName="MyApp.Reading">
                <attribute name="value" optional="YES" attributeType="Double" usesScalarValueType="NO"/>
                <attribute name="count" attributeType="Integer 64"/>
            </entity>
            """, in: temporaryDirectory)
        let properties = try XCTUnwrap(try generate(model.path)["Reading+CoreDataProperties.swift"])
        XCTAssertTrue(properties.contains("public var value: Double? {"))
        XCTAssertTrue(properties.contains("public var count: Int64 {"))
    }

    func testTransformableTakesASwiftCustomClassOnly() throws {
        let model = try writeModel("Places", entities: """
            <entity name="Place" representedClassName="Place">
                <attribute name="tags" optional="YES" attributeType="Transformable" customClassName="[String]"/>
                <attribute name="where" optional="YES" attributeType="Transformable" customClassName="CLLocation"/>
                <attribute name="info" optional="YES" attributeType="Transformable" customClassName="NSDictionary"/>
                <attribute name="link" optional="YES" attributeType="Transformable" customClassName="NSURL"/>
            </entity>
            """, in: temporaryDirectory)
        let properties = try XCTUnwrap(try generate(model.path)["Place+CoreDataProperties.swift"])
        XCTAssertTrue(properties.contains("public var tags: [String]? {"))
        XCTAssertTrue(properties.contains("public var `where`: Any? {"))
        XCTAssertTrue(properties.contains("public var info: Any? {"))
        XCTAssertTrue(properties.contains("public var link: URL? {"))
    }

    func testInternalAccessDropsPublicAndOpen() throws {
        let files = try generate(organizer, "--access", "internal")
        XCTAssertTrue(files["Task+CoreDataClass.swift"]!.contains("\nclass Task: Item {\n    override class var entityName"))
        XCTAssertFalse(files.values.contains { $0.contains("public ") || $0.contains("open ") })
    }

    func testEntitiesWithoutAClassGetNoFilesAndAreManagedObjectsInRelationships() throws {
        let model = try writeModel("Notes", entities: """
            <entity name="Note">
                <attribute name="text" optional="YES" attributeType="String"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="notes" inverseEntity="Author"/>
            </entity>
            <entity name="Author" representedClassName="Author">
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="author" inverseEntity="Note"/>
            </entity>
            """, in: temporaryDirectory)
        let files = try generate(model.path)
        XCTAssertEqual(files.keys.sorted(), ["Author+CoreDataClass.swift", "Author+CoreDataProperties.swift", "Notes+Classes.swift"])
        XCTAssertTrue(files["Author+CoreDataProperties.swift"]!.contains(
            "public var notes: [ManagedObject] {\n        get { objects(atSlot: AuthorSlots.notes) }"))
    }

    func testPropertiesOfAnAncestorWithoutAClassGoToTheSubclass() throws {
        let model = try writeModel("Chain", entities: """
            <entity name="Base" representedClassName="Base">
                <attribute name="base" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Middle" parentEntity="Base">
                <attribute name="middle" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Leaf" representedClassName="Leaf" parentEntity="Middle">
                <attribute name="leaf" optional="YES" attributeType="String"/>
            </entity>
            """, in: temporaryDirectory)
        let output = temporaryDirectory.appendingPathComponent("Generated")
        XCTAssertEqual(try objectgraph("codegen", model.path, "--output", output.path).status, 0)
        let leaf = try String(contentsOf: output.appendingPathComponent("Leaf+CoreDataProperties.swift"), encoding: .utf8)
        XCTAssertTrue(leaf.contains("enum LeafSlots {\n    static let middle = 1\n    static let leaf = 2\n}"), leaf)
        XCTAssertFalse(leaf.contains("var base"))
        try assertTypeChecks(try FileManager.default.contentsOfDirectory(atPath: output.path).map { output.appendingPathComponent($0) })
    }

    func testFollowModelLeavesCategoryClassesToTheUser() throws {
        let model = try writeModel("Modes", entities: """
            <entity name="Generated" representedClassName="Generated" codeGenerationType="class"/>
            <entity name="Written" representedClassName="Written" codeGenerationType="category"/>
            """, in: temporaryDirectory)
        XCTAssertNotNil(try generate(model.path)["Written+CoreDataClass.swift"])
        let followed = try generate(model.path, "--follow-model")
        XCTAssertNil(followed["Written+CoreDataClass.swift"])
        XCTAssertNotNil(followed["Written+CoreDataProperties.swift"])
        XCTAssertNotNil(followed["Generated+CoreDataClass.swift"])
    }

    // MARK: Compiling

    func testGeneratedFilesTypeCheckAgainstObjectGraphWithoutWarnings() throws {
        let output = temporaryDirectory.appendingPathComponent("Generated")
        XCTAssertEqual(try objectgraph("codegen", organizer, "--output", output.path).status, 0)
        let use = output.appendingPathComponent("Use.swift")
        try Data("""
            import ObjectGraph
            func use(_ context: ManagedObjectContext) throws -> [Task] {
                OrganizerClasses.register()
                let person = Person(context: context)
                let task = Task(context: context)
                task.priority = 2
                person.insertIntoTasks(task, at: 0)
                person.events = []
                return try context.fetch(Task.fetchRequest())
            }

            """.utf8).write(to: use)
        try assertTypeChecks(try FileManager.default.contentsOfDirectory(atPath: output.path).map { output.appendingPathComponent($0) })
    }

    /// Managed objects are Identifiable (by themselves, as NSManagedObject is); an attribute
    /// named `id`, common in real models, still type-checks and is what `thing.id` reads.
    func testAnAttributeNamedIdBesideIdentifiable() throws {
        let model = try writeModel("Ids", entities: """
            <entity name="Post" representedClassName="Post" codeGenerationType="class">
                <attribute name="id" attributeType="String"/>
            </entity>
            <entity name="Plain" representedClassName="Plain" codeGenerationType="class">
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
            """, in: temporaryDirectory)
        let output = temporaryDirectory.appendingPathComponent("Generated")
        XCTAssertEqual(try objectgraph("codegen", model.path, "--output", output.path).status, 0)
        try Data("""
            import ObjectGraph
            func use(_ post: Post, _ plain: Plain) -> (String?, ObjectIdentifier) {
                let text: String? = post.id
                let identity: ObjectIdentifier = plain.id
                return (text, identity)
            }

            """.utf8).write(to: output.appendingPathComponent("Use.swift"))
        try assertTypeChecks(try FileManager.default.contentsOfDirectory(atPath: output.path).map { output.appendingPathComponent($0) })
    }

    func testUnusualNamesTypeCheckInOneInternalFile() throws {
        let model = try writeModel("Odd Names", entities: """
            <entity name="Thing" representedClassName="App.Thing">
                <attribute name="default" optional="YES" attributeType="String"/>
                <attribute name="class" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" customClassName="[String]"/>
                <attribute name="blob" optional="YES" attributeType="Transformable" customClassName="NSDictionary"/>
                <attribute name="amount" optional="YES" attributeType="Decimal"/>
                <relationship name="in" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Thing" inverseName="of" inverseEntity="Thing"/>
                <relationship name="of" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Thing" inverseName="in" inverseEntity="Thing"/>
            </entity>
            <entity name="Sub" representedClassName="Sub" parentEntity="Thing"/>
            """, in: temporaryDirectory)
        let result = try objectgraph("codegen", model.path, "--output", temporaryDirectory.path, "--single-file", "--access", "internal")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdoutLines, [temporaryDirectory.appendingPathComponent("Odd Names+Generated.swift").path])
        let code = try String(contentsOfFile: result.stdoutLines[0], encoding: .utf8)
        XCTAssertTrue(code.contains("enum Odd_NamesClasses {"))
        try assertTypeChecks([URL(fileURLWithPath: result.stdoutLines[0])])
    }

    // MARK: Errors

    func testPropertyNamedLikeAManagedObjectMemberIsAnError() throws {
        let model = try writeModel("Clash", entities: """
            <entity name="Book" representedClassName="Book">
                <attribute name="description" optional="YES" attributeType="String"/>
            </entity>
            """, in: temporaryDirectory)
        let output = temporaryDirectory.appendingPathComponent("Generated")
        let result = try objectgraph("codegen", model.path, "--output", output.path)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "\(model.appendingPathComponent("contents").path):4: error: Book.description: "
            + "ManagedObject already has a member named \"description\"; rename the property\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }

    func testMissingModelExitsWith66() throws {
        let path = temporaryDirectory.appendingPathComponent("Missing.xcdatamodeld").path
        let result = try objectgraph("codegen", path, "--output", temporaryDirectory.path)
        XCTAssertEqual(result.status, 66)
        XCTAssertEqual(result.stderr, "error: \(path): no such file or directory\n")
    }

    func testInvalidModelExitsWith1() throws {
        let model = try writeModel("Bad", entities: """
            <entity name="Person" representedClassName="Person">
                <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Tsk"/>
            </entity>
            """, in: temporaryDirectory)
        let result = try objectgraph("codegen", model.path, "--output", temporaryDirectory.path)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("Person.tasks"), result.stderr)
    }

    func testUnwritableOutputExitsWith73() throws {
        let file = temporaryDirectory.appendingPathComponent("file")
        try Data().write(to: file)
        let result = try objectgraph("codegen", organizer, "--output", file.path)
        XCTAssertEqual(result.status, 73)
        XCTAssertTrue(result.stderr.hasPrefix("error: \(file.path): "), result.stderr)
    }

    func testMissingOutputOptionIsAUsageError() throws {
        XCTAssertEqual(try objectgraph("codegen", organizer).status, 64)
    }
}
