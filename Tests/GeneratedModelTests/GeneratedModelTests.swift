// Tests of the classes the ObjectGraphCodegen plugin generated for GeneratedModelFixture at build
// time: typed accessors over slots, relationship helpers that keep inverses, typed fetch requests,
// the hand-written class and extension, and objects fetched from a store coming back typed.
import Foundation
import GeneratedModelFixture
import ObjectGraph
import XCTest

final class GeneratedModelTests: XCTestCase {
    private var coordinator: PersistentStoreCoordinator!
    private var context: ManagedObjectContext!

    override func setUpWithError() throws {
        ProjectsClasses.register()
        coordinator = PersistentStoreCoordinator(managedObjectModel: try ProjectsModel.load())
        try coordinator.addPersistentStore(type: .inMemory)
        context = newContext()
    }

    // MARK: Classes

    func testObjectsInsertedByEntityNameAreOfTheGeneratedClass() {
        XCTAssertTrue(type(of: context.insertNewObject(forEntityName: "Person")) == Person.self)
        XCTAssertTrue(type(of: context.insertNewObject(forEntityName: "Todo")) == Todo.self)
        XCTAssertTrue(type(of: context.insertNewObject(forEntityName: "Project")) == Project.self)
    }

    func testEntityWithoutAClassUsesManagedObject() {
        XCTAssertTrue(type(of: context.insertNewObject(forEntityName: "Note")) == ManagedObject.self)
    }

    func testInitWithContextInsertsAnObjectOfTheClassEntity() {
        let todo = Todo(context: context)
        XCTAssertEqual(todo.entity.name, "Todo")
        XCTAssertTrue(todo.isInserted)
        XCTAssertEqual(Todo.entityName, "Todo")
    }

    func testRegistrationListsEachClassWithTheSlotNamesOfItsEntity() throws {
        let model = try ProjectsModel.load()
        let registered = Dictionary(uniqueKeysWithValues: ProjectsClasses.all.map { ($0.type.entityName, $0.slotNames) })
        XCTAssertEqual(Set(registered.keys), ["Record", "Person", "Project", "Todo"])
        for (entity, names) in registered {
            XCTAssertEqual(names, model.entitiesByName[entity]?.properties.map(\.name), entity)
        }
    }

    // MARK: Attributes

    func testScalarAttributesAreNonOptionalWithTheirDefaults() {
        let person = Person(context: context)
        let todo = Todo(context: context)
        XCTAssertEqual(person.age, 0)
        XCTAssertTrue(person.isActive)
        XCTAssertEqual(todo.priority, 1)
        XCTAssertFalse(todo.done)
        XCTAssertEqual(todo.estimate, 0)
    }

    func testScalarAttributesWriteTheirSlots() {
        let person = Person(context: context)
        person.age = 42
        person.isActive = false
        let todo = Todo(context: context)
        todo.priority = 3
        todo.estimate = 1.5
        todo.done = true
        XCTAssertEqual(person.value(forKey: "age") as? Int16, 42)
        XCTAssertEqual(person.value(forKey: "isActive") as? Bool, false)
        XCTAssertEqual(todo.value(forKey: "priority") as? Int32, 3)
        XCTAssertEqual(todo.value(forKey: "estimate") as? Float, 1.5)
        XCTAssertEqual(todo.done, true)
    }

    func testObjectAttributesAreOptionalsOfTheirSwiftType() {
        let person = Person(context: context)
        XCTAssertNil(person.name)
        XCTAssertNil(person.height)
        person.name = "Ann"
        person.height = 1.72
        person.homepage = URL(string: "https://example.org/ann")
        person.photo = Data([1, 2, 3])
        person.balance = Decimal(string: "12.50")
        XCTAssertEqual(person.value(forKey: "name") as? String, "Ann")
        XCTAssertEqual(person.height, 1.72)
        XCTAssertEqual(person.homepage?.host, "example.org")
        XCTAssertEqual(person.photo, Data([1, 2, 3]))
        XCTAssertEqual(person.balance, Decimal(string: "12.5"))
        person.height = nil
        XCTAssertNil(person.value(forKey: "height"))
    }

    func testInheritedAttributesComeFromTheParentClass() {
        let todo = Todo(context: context)
        XCTAssertEqual(todo.title, "Untitled")
        todo.title = "Write tests"
        let record: Record = todo
        XCTAssertEqual(record.title, "Write tests")
    }

    func testTransformableAttributeTakesItsSwiftCustomClass() {
        let person = Person(context: context)
        person.nicknames = ["Annie", "A."]
        XCTAssertEqual(person.nicknames, ["Annie", "A."])
        XCTAssertEqual(person.value(forKey: "nicknames") as? [String], ["Annie", "A."])
        XCTAssertNil(person.location)
    }

    // MARK: Relationships

    func testToOneSetterKeepsTheInverse() {
        let ann = person("Ann")
        let todo = Todo(context: context)
        todo.owner = ann
        XCTAssertEqual(ann.todos, [todo])
        todo.owner = nil
        XCTAssertEqual(ann.todos, [])
    }

    func testSelfRelationshipIsTypedOnBothSides() {
        let boss = person("Bob")
        let ann = person("Ann")
        ann.manager = boss
        XCTAssertEqual(boss.reports, [ann])
        XCTAssertTrue(ann.manager === boss)
    }

    func testOrderedToManyHelpersKeepTheOrderAndTheInverse() {
        let ann = person("Ann")
        let first = todo("First"), second = todo("Second"), third = todo("Third")
        ann.addToTodos(first)
        ann.addToTodos(third)
        ann.insertIntoTodos(second, at: 1)
        XCTAssertEqual(ann.todos.elements, [first, second, third])
        XCTAssertTrue(second.owner === ann)
        ann.removeFromTodos(at: 0)
        XCTAssertEqual(ann.todos.elements, [second, third])
        XCTAssertNil(first.owner)
        ann.removeFromTodos(third)
        XCTAssertEqual(ann.todos.elements, [second])
        XCTAssertNil(third.owner)
    }

    func testOrderedToManySetterReplacesInTheGivenOrder() {
        let ann = person("Ann")
        let first = todo("First"), second = todo("Second")
        ann.todos = [second, first]
        XCTAssertEqual(ann.todos.elements, [second, first])
        XCTAssertTrue(first.owner === ann)
        ann.todos = [first]
        XCTAssertNil(second.owner)
    }

    func testManyToManyHelpersKeepBothSides() {
        let ann = person("Ann"), bob = person("Bob")
        let launch = Project(context: context), audit = Project(context: context)
        ann.addToProjects([launch, audit])
        launch.addToMembers(bob)
        XCTAssertEqual(ann.projects, [launch, audit])
        XCTAssertEqual(launch.members, [ann, bob])
        ann.removeFromProjects([launch])
        XCTAssertEqual(launch.members, [bob])
        XCTAssertEqual(audit.members, [ann])
    }

    func testUnorderedToManySetterKeepsInverses() {
        let launch = Project(context: context)
        let write = todo("Write"), ship = todo("Ship")
        launch.todos = [write, ship]
        XCTAssertTrue(write.project === launch)
        launch.todos = [ship]
        XCTAssertNil(write.project)
        XCTAssertTrue(ship.project === launch)
    }

    func testRelationshipToAnEntityWithoutAClassHoldsManagedObjects() {
        let ann = person("Ann")
        let note = context.insertNewObject(forEntityName: "Note")
        ann.addToNotes(note)
        XCTAssertTrue(note.value(forKey: "person") as? Person === ann)
        XCTAssertEqual(ann.notes, [note])
    }

    // MARK: Hand-written code

    func testHandWrittenClassOverridesHooks() {
        let project = Project(context: context)
        XCTAssertNotNil(project.created)
        XCTAssertNotNil(project.uuid)
        project.budget = 10_000
        XCTAssertEqual(project.value(forKey: "budget") as? Int64, 10_000)
    }

    func testHandWrittenExtensionUsesTheTypedAccessors() {
        let ann = person("Ann")
        ann.manager = person("Bob")
        let done = todo("Done"), open = todo("Open")
        done.done = true
        ann.todos = [done, open]
        XCTAssertEqual(ann.openTodos, [open])
        XCTAssertEqual(ann.nameWithManager, "Ann (Bob)")
    }

    // MARK: Fetching

    func testFetchRequestIsTypedByTheClassAndNamesItsEntity() {
        let request = Todo.fetchRequest()
        XCTAssertEqual(request.entityName, "Todo")
        XCTAssertTrue(type(of: request) == FetchRequest<Todo>.self)
        XCTAssertEqual(Project.fetchRequest().entityName, "Project")
    }

    func testTypedFetchReturnsObjectsOfTheClass() throws {
        for name in ["Cid", "Ann", "Bob"] { person(name) }
        var request = Person.fetchRequest()
        request.predicate = try Predicate(format: "name != %@", "Bob")
        request.sortDescriptors = [SortDescriptor(key: "name")]
        let people: [Person] = try context.fetch(request)
        XCTAssertEqual(people.map(\.name), ["Ann", "Cid"])
    }

    func testParentFetchReturnsSubEntitiesAsTheirClasses() throws {
        todo("Write")
        _ = Project(context: context)
        let records = try context.fetch(Record.fetchRequest())
        XCTAssertEqual(Set(records.map { String(describing: type(of: $0)) }), ["Todo", "Project"])
    }

    func testObjectsFetchedFromTheStoreAreFaultsOfTheGeneratedClass() throws {
        let ann = person("Ann")
        ann.age = 30
        ann.nicknames = ["Annie"]
        ann.todos = [todo("First"), todo("Second")]
        try context.save()

        let other = newContext()
        var request = Person.fetchRequest()
        request.returnsObjectsAsFaults = true
        request.includesPendingChanges = false
        let fetched = try XCTUnwrap(other.fetch(request).first)
        XCTAssertTrue(fetched.isFault)
        XCTAssertTrue(type(of: fetched) == Person.self)
        XCTAssertEqual(fetched.age, 30)
        XCTAssertEqual(fetched.nicknames, ["Annie"])
        XCTAssertEqual(fetched.todos.map(\.title), ["First", "Second"])
        XCTAssertTrue(fetched.todos.allSatisfy { $0.owner === fetched })
    }

    // MARK: Helpers

    private func newContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @discardableResult
    private func person(_ name: String) -> Person {
        let person = Person(context: context)
        person.name = name
        return person
    }

    @discardableResult
    private func todo(_ title: String) -> Todo {
        let todo = Todo(context: context)
        todo.title = title
        return todo
    }
}
