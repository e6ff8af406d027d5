// The benchmark's model for ObjectGraph, built in code: Person (the D1 rows), and Department ↔
// Employee (W9), with classes whose accessors are what `objectgraph codegen` generates (slot
// access). Also opens a store, and creates store files for the raw variant to fill.
import Foundation
import ObjectGraph

enum BenchmarkModel {
    /// The model; built once, shared by every store of the run.
    static let model = makeModel()

    /// The same model with Person's attributes marked "Index in Spotlight", for `--records`.
    static let recordedModel: ManagedObjectModel = {
        let model = makeModel()
        for property in model.entitiesByName["Person"]?.properties ?? [] { property.isIndexedBySpotlight = true }
        return model
    }()

    private static func makeModel() -> ManagedObjectModel {
        let model = ManagedObjectModel {
            Entity("Person") {
                Attribute("age", .integer32, default: 0)
                Attribute("created", .date)
                Attribute("email", .string)
                Attribute("name", .string)
                Attribute("score", .double, default: 0.0)
                FetchIndex("byAge", on: "age")
            }
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Relationship("department", to: "Department", inverse: "employees")
            }
        }
        ObjectClasses.register(Person.self, Department.self, Employee.self)
        for (entity, slots) in [("Person", PersonSlots.byName), ("Department", DepartmentSlots.byName), ("Employee", EmployeeSlots.byName)] {
            for (name, slot) in slots {
                precondition(model.entitiesByName[entity]?.properties[slot].name == name, "\(entity).\(name) is not at slot \(slot)")
            }
        }
        return model
    }

    /// A context on the SQLite store at `url` (created when missing), of `model` (the benchmark's).
    static func context(at url: URL, model: ManagedObjectModel = BenchmarkModel.model) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Creates an empty store file at `url` (tables, metadata) and closes it.
    static func createStore(at url: URL) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        try coordinator.remove(store)
    }
}

enum PersonSlots {
    static let age = 0, created = 1, email = 2, name = 3, score = 4
    static let byName = ["age": age, "created": created, "email": email, "name": name, "score": score]
}

enum DepartmentSlots {
    static let name = 0, employees = 1
    static let byName = ["name": name, "employees": employees]
}

enum EmployeeSlots {
    static let name = 0, department = 1
    static let byName = ["name": name, "department": department]
}

final class Person: ManagedObject {
    override class var entityName: String { "Person" }

    var age: Int32 {
        get { attribute(atSlot: PersonSlots.age, as: Int32.self) ?? 0 }
        set { setAttribute(newValue, atSlot: PersonSlots.age) }
    }
    var created: Date? {
        get { attribute(atSlot: PersonSlots.created, as: Date.self) }
        set { setAttribute(newValue, atSlot: PersonSlots.created) }
    }
    var email: String? {
        get { attribute(atSlot: PersonSlots.email, as: String.self) }
        set { setAttribute(newValue, atSlot: PersonSlots.email) }
    }
    var name: String? {
        get { attribute(atSlot: PersonSlots.name, as: String.self) }
        set { setAttribute(newValue, atSlot: PersonSlots.name) }
    }
    var score: Double {
        get { attribute(atSlot: PersonSlots.score, as: Double.self) ?? 0 }
        set { setAttribute(newValue, atSlot: PersonSlots.score) }
    }

    func read(into checksum: inout Checksum) {
        checksum.addPerson(age: age, created: created?.timeIntervalSinceReferenceDate ?? 0, email: email ?? "", name: name ?? "", score: score)
    }
}

final class Department: ManagedObject {
    override class var entityName: String { "Department" }

    var name: String? {
        get { attribute(atSlot: DepartmentSlots.name, as: String.self) }
        set { setAttribute(newValue, atSlot: DepartmentSlots.name) }
    }
    var employees: [Employee] {
        objects(atSlot: DepartmentSlots.employees, as: Employee.self)
    }
}

final class Employee: ManagedObject {
    override class var entityName: String { "Employee" }

    var name: String? {
        get { attribute(atSlot: EmployeeSlots.name, as: String.self) }
        set { setAttribute(newValue, atSlot: EmployeeSlots.name) }
    }
    var department: Department? {
        get { value(atSlot: EmployeeSlots.department) as? Department }
        set { setValue(newValue, atSlot: EmployeeSlots.department) }
    }
}
