// The builder API makes the same model as the model file for the same definition, and the
// model's API answers what Core Data's does: inheritance, constraints, configurations, templates,
// merging.
import Foundation
import XCTest
@testable import ObjectGraph

final class ModelBuilderTests: XCTestCase {
    private let organizerURL = Corpus.data.appendingPathComponent("Organizer.xcdatamodeld")

    /// Talk 000's persons, events and tasks, as Data/Organizer.xcdatamodeld declares them.
    static func organizerModel() -> ManagedObjectModel {
        let model = ManagedObjectModel {
            Entity("Event", class: "Event", parent: "Item") {
                Attribute("end", .date).scalar(false)
                Attribute("location", .string).indexedBySpotlight()
                Attribute("start", .date).required().scalar(false)
                Relationship("attendees", to: "Person", inverse: "events", toMany: true)
                Relationship("preparation", to: "Task", inverse: "event", toMany: true)
                FetchIndex("byStart", on: "start")
            }
            Entity("Item", class: "Item", abstract: true) {
                Attribute("created", .date, default: Date(timeIntervalSinceReferenceDate: 0)).required().scalar(false)
                Attribute("notes", .string).indexedBySpotlight()
                Attribute("title", .string).required().minimum(1).maximum(200).indexedBySpotlight()
                Attribute("uuid", .uuid).required().scalar(false)
                Unique("uuid")
            }
            Entity("Person", class: "Person") {
                Attribute("birthday", .date).scalar(false)
                Attribute("email", .string).matching("[^@ ]+@[^@ ]+").indexedBySpotlight()
                Attribute("firstName", .string).required().indexedBySpotlight()
                Attribute("lastName", .string).indexedBySpotlight()
                Relationship("events", to: "Event", inverse: "attendees", toMany: true)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true, deleteRule: .cascade)
                FetchedProperty("openTasks", entity: "Task", predicate: "owner == $FETCH_SOURCE AND done == NO")
                FetchIndex("byName", on: "lastName", "firstName")
            }
            Entity("Task", class: "Task", parent: "Item") {
                Attribute("done", .boolean, default: false).required().scalar()
                Attribute("due", .date).scalar(false)
                Attribute("priority", .integer16, default: 0).required().minimum(0).maximum(3).scalar()
                Relationship("event", to: "Event", inverse: "preparation")
                Relationship("owner", to: "Person", inverse: "tasks")
                FetchIndex("byDue", elements: [FetchIndexElement(property: "due"),
                                               FetchIndexElement(property: "priority", ascending: false)])
            }
            FetchTemplate("tasksDueBefore", entity: "Task", predicate: "due < $DATE AND done == NO")
            FetchTemplate("peopleNamed", entity: "Person", predicate: "lastName ==[c] $NAME")
            Configuration("Planning", entities: ["Event", "Item", "Person", "Task"])
        }
        model.versionIdentifiers = ["1"]
        return model
    }

    func testBuilderAndFileReaderMakeEqualModelsForTheSameDefinition() throws {
        let fromFile = try ManagedObjectModel(contentsOf: organizerURL)
        let built = Self.organizerModel()
        XCTAssertTrue(built.isValid, "\(built.validate())")
        XCTAssertEqual(built, fromFile)
        XCTAssertEqual(built.entityVersionHashesByName, fromFile.entityVersionHashesByName)
    }

    func testBuiltModelWrittenAndReadBackIsEqual() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("Built.xcdatamodeld")
        let built = Self.organizerModel()
        try built.write(to: url, versionName: "Built 1")
        let file = try ModelFile(url: url)
        XCTAssertEqual(file.currentVersionName, "Built 1")
        XCTAssertEqual(try file.load(), built)
    }

    func testWritingANewVersionKeepsTheBundlesOtherVersionsAndMakesItCurrent() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("Organizer.xcdatamodeld")
        try FileManager.default.copyItem(at: organizerURL, to: url)
        let next = try ManagedObjectModel(contentsOf: url)
        next.entitiesByName["Task"]?.declaredProperties.append(AttributeDescription(name: "estimate", type: .double))
        try next.write(to: url, versionName: "Organizer 2")
        let file = try ModelFile(url: url)
        XCTAssertEqual(file.versionNames, ["Organizer", "Organizer 2"])
        XCTAssertEqual(file.currentVersionName, "Organizer 2")
        XCTAssertNotNil(try file.load().entitiesByName["Task"]?.attributesByName["estimate"])
        XCTAssertNil(try file.load(version: "Organizer").entitiesByName["Task"]?.attributesByName["estimate"])
    }

    func testBuilderConvertsDefaultValuesToTheAttributeType() {
        let model = ManagedObjectModel {
            Entity("Sample") {
                Attribute("small", .integer16, default: 7)
                Attribute("big", .integer64, default: 7)
                Attribute("ratio", .float, default: 0.5)
                Attribute("price", .decimal, default: 2)
                Attribute("home", .uri, default: "https://example.org/")
            }
        }
        let attributes = model.entitiesByName["Sample"]!.attributesByName
        XCTAssertEqual(attributes["small"]?.defaultValue as? Int16, 7)
        XCTAssertEqual(attributes["big"]?.defaultValue as? Int64, 7)
        XCTAssertEqual(attributes["ratio"]?.defaultValue as? Float, 0.5)
        XCTAssertEqual(attributes["price"]?.defaultValue as? Decimal, Decimal(2))
        XCTAssertEqual(attributes["home"]?.defaultValue as? URL, URL(string: "https://example.org/"))
    }

    func testSubEntitiesInheritPropertiesInheritedFirstInAStableOrder() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        let task = try XCTUnwrap(model.entitiesByName["Task"])
        XCTAssertEqual(task.properties.map(\.name),
                       ["created", "notes", "title", "uuid", "done", "due", "priority", "event", "owner"])
        XCTAssertEqual(task.superentity?.name, "Item")
        XCTAssertEqual(task.rootEntity.name, "Item")
        XCTAssertEqual(model.entitiesByName["Item"]?.subentities.map(\.name), ["Event", "Task"])
        XCTAssertTrue(task.isKind(of: model.entitiesByName["Item"]!))
        XCTAssertFalse(model.entitiesByName["Item"]!.isKind(of: task))
        XCTAssertEqual(task.propertiesByName["title"]?.entity?.name, "Item")
    }

    func testUniquenessConstraintsAreInheritedBySubEntities() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        XCTAssertEqual(model.entitiesByName["Task"]?.declaredUniquenessConstraints, [])
        XCTAssertEqual(model.entitiesByName["Task"]?.uniquenessConstraints, [["uuid"]])
        XCTAssertEqual(model.entitiesByName["Event"]?.uniquenessConstraints, [["uuid"]])
    }

    func testRelationshipsResolveTheirDestinationAndInverse() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        let tasks = try XCTUnwrap(model.entitiesByName["Person"]?.relationshipsByName["tasks"])
        XCTAssertEqual(tasks.destinationEntity?.name, "Task")
        XCTAssertEqual(tasks.inverseRelationship?.name, "owner")
        XCTAssertEqual(tasks.inverseRelationship?.inverseRelationship === tasks, true)
        XCTAssertTrue(tasks.isToMany)
        XCTAssertTrue(tasks.isOrdered)
        XCTAssertEqual(tasks.deleteRule, .cascade)
        XCTAssertEqual(tasks.inverseRelationship?.maxCount, 1)
    }

    func testAttributesCarryTheirTypesDefaultsAndRules() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        let task = try XCTUnwrap(model.entitiesByName["Task"])
        XCTAssertEqual(task.attributesByName["priority"]?.attributeType, .integer16)
        XCTAssertEqual(task.attributesByName["priority"]?.defaultValue as? Int16, 0)
        XCTAssertEqual(task.attributesByName["priority"]?.maximumValue, 3)
        XCTAssertEqual(task.attributesByName["done"]?.defaultValue as? Bool, false)
        XCTAssertEqual(task.attributesByName["created"]?.defaultValue as? Date, Date(timeIntervalSinceReferenceDate: 0))
        XCTAssertEqual(model.entitiesByName["Person"]?.attributesByName["email"]?.regularExpression, "[^@ ]+@[^@ ]+")
        XCTAssertEqual(model.entitiesByName["Person"]?.attributesByName["email"]?.isIndexedBySpotlight, true)
    }

    func testFetchedPropertyKeepsItsRequest() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        let openTasks = try XCTUnwrap(model.entitiesByName["Person"]?.fetchedPropertiesByName["openTasks"])
        XCTAssertEqual(openTasks.fetchRequest.entityName, "Task")
        XCTAssertEqual(openTasks.fetchRequest.predicateFormat, "owner == $FETCH_SOURCE AND done == NO")
    }

    func testFetchRequestTemplatesAndConfigurationsAreLookedUpByName() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        XCTAssertEqual(model.fetchRequestTemplate(forName: "tasksDueBefore")?.predicateFormat, "due < $DATE AND done == NO")
        XCTAssertNil(model.fetchRequestTemplate(forName: "missing"))
        XCTAssertEqual(model.configurationNames, ["Planning"])
        XCTAssertEqual(model.entities(forConfigurationName: "Planning")?.map(\.name), ["Event", "Item", "Person", "Task"])
        XCTAssertEqual(model.entities(forConfigurationName: nil)?.count, 4)
        XCTAssertNil(model.entities(forConfigurationName: "Elsewhere"))
    }

    func testFetchRequestTemplateSubstitutesItsVariables() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        let template = try model.fetchRequestTemplate(forName: "peopleNamed", substitutionVariables: ["NAME": "Turner"])
        XCTAssertEqual(template?.entityName, "Person")
        XCTAssertEqual(template?.predicateFormat, "lastName ==[c] \"Turner\"")
        XCTAssertEqual(try template?.predicate()?.evaluate(with: ["lastName": "TURNER"]), true)
        XCTAssertNil(try model.fetchRequestTemplate(forName: "missing", substitutionVariables: [:]))
    }

    func testFetchRequestTemplateWithAnUnboundVariableNamesTheTemplate() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        XCTAssertThrowsError(try model.fetchRequestTemplate(forName: "tasksDueBefore", substitutionVariables: [:])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("fetch request template \"tasksDueBefore\": "), text)
            XCTAssertTrue(text.contains("DATE"), text)
        }
    }

    func testMergingModelsUnitesTheirEntities() throws {
        let people = ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
        let places = ManagedObjectModel {
            Entity("Place") { Attribute("name", .string) }
            Configuration("Maps", entities: ["Place"])
        }
        let merged = try ManagedObjectModel(byMerging: [people, places])
        XCTAssertEqual(merged.entities.map(\.name), ["Person", "Place"])
        XCTAssertEqual(merged.configurationNames, ["Maps"])
        XCTAssertTrue(merged.entitiesByName["Place"]?.model === merged)
        XCTAssertTrue(places.entitiesByName["Place"]?.model === places)
    }

    func testMergingModelsThatShareAnEntityNameFails() {
        let first = ManagedObjectModel { Entity("Person") }
        let second = ManagedObjectModel { Entity("Person") }
        XCTAssertThrowsError(try ManagedObjectModel(byMerging: [first, second])) { error in
            XCTAssertEqual(error as? ModelError, .mergeConflict(entity: "Person"))
        }
    }

    func testCopyIsIndependentOfTheOriginal() throws {
        let model = try ManagedObjectModel(contentsOf: organizerURL)
        let copy = model.copy()
        XCTAssertEqual(copy, model)
        copy.entitiesByName["Person"]?.name = "Human"
        XCTAssertNotEqual(copy, model)
        XCTAssertNotNil(copy.entitiesByName["Human"])
        XCTAssertNotNil(model.entitiesByName["Person"])
    }
}
