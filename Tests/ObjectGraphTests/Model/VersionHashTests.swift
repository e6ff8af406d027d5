// Version hashes are stable, independent of element order, unchanged by changes that leave
// stored data readable, and changed by exactly the changes that make it unreadable.
import Foundation
import XCTest
@testable import ObjectGraph

final class VersionHashTests: XCTestCase {
    private func model(_ edit: (ManagedObjectModel) -> Void = { _ in }) -> ManagedObjectModel {
        let model = ModelBuilderTests.organizerModel()
        edit(model)
        return model
    }

    private func entity(_ name: String, in model: ManagedObjectModel) -> EntityDescription { model.entitiesByName[name]! }

    private func assertChangesHashOf(_ entityName: String, _ edit: (ManagedObjectModel) -> Void,
                                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotEqual(model().entityVersionHashesByName[entityName], model(edit).entityVersionHashesByName[entityName],
                          file: file, line: line)
    }

    private func assertKeepsHashes(_ edit: (ManagedObjectModel) -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(model().entityVersionHashesByName, model(edit).entityVersionHashesByName, file: file, line: line)
    }

    func testHashIsAKnownStableValue() {
        // A fixed input gives a fixed digest on every machine and in every run.
        let model = ManagedObjectModel { Entity("Note") { Attribute("text", .string) } }
        XCTAssertEqual(model.entitiesByName["Note"]?.versionHash.count, 32)
        XCTAssertEqual(model.entitiesByName["Note"]?.versionHash.hexString,
                       SHA256.hash("entity=Note\nabstract=false\nparent=\nproperty{\nname=text\nkind=attribute\ntype=String\noptional=true\n}").hexString)
    }

    func testReorderedFileHasEqualHashes() throws {
        let url = Corpus.data.appendingPathComponent("Organizer.xcdatamodeld/Organizer.xcdatamodel/contents")
        let original = try String(contentsOf: url, encoding: .utf8)
        var lines = original.components(separatedBy: "\n")
        // Reverse the attribute and relationship lines inside each entity, and the entities' order.
        let entityStarts = lines.indices.filter { lines[$0].hasPrefix("    <entity ") }
        for start in entityStarts {
            var end = start + 1
            while lines[end].hasPrefix("        <attribute") || lines[end].hasPrefix("        <relationship") { end += 1 }
            lines[(start + 1)..<end].reverse()
        }
        let reordered = lines.joined(separator: "\n")
        XCTAssertNotEqual(reordered, original)
        let a = try ManagedObjectModel(xmlData: Data(original.utf8))
        let b = try ManagedObjectModel(xmlData: Data(reordered.utf8))
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a.entityVersionHashesByName, b.entityVersionHashesByName)
    }

    func testChangingAnAttributeTypeChangesTheHash() {
        assertChangesHashOf("Task") { ($0.entitiesByName["Task"]!.attributesByName["priority"])!.attributeType = .integer32 }
    }

    func testAddingAStoredAttributeChangesTheHash() {
        assertChangesHashOf("Person") { model in
            model.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "nickname", type: .string))
        }
    }

    func testRenamingAnAttributeChangesTheHash() {
        assertChangesHashOf("Person") { $0.entitiesByName["Person"]!.attributesByName["email"]!.name = "mail" }
    }

    func testMakingAnOptionalAttributeRequiredChangesTheHash() {
        assertChangesHashOf("Person") { $0.entitiesByName["Person"]!.attributesByName["lastName"]!.isOptional = false }
    }

    func testChangingAParentAttributeChangesTheHashesOfSubEntities() {
        let before = model().entityVersionHashesByName
        let after = model { $0.entitiesByName["Item"]!.attributesByName["notes"]!.attributeType = .binaryData }.entityVersionHashesByName
        XCTAssertNotEqual(before["Item"], after["Item"])
        XCTAssertNotEqual(before["Task"], after["Task"])
        XCTAssertNotEqual(before["Event"], after["Event"])
        XCTAssertEqual(before["Person"], after["Person"])
    }

    func testMakingAToOneRelationshipToManyChangesTheHash() {
        assertChangesHashOf("Task") { $0.entitiesByName["Task"]!.relationshipsByName["event"]!.isToMany = true }
    }

    func testOrderingAToManyRelationshipChangesTheHash() {
        assertChangesHashOf("Event") { $0.entitiesByName["Event"]!.relationshipsByName["attendees"]!.isOrdered = true }
    }

    func testChangingARelationshipDestinationChangesTheHash() {
        assertChangesHashOf("Task") { $0.entitiesByName["Task"]!.relationshipsByName["owner"]!.destinationEntityName = "Event" }
    }

    func testAddingAUniquenessConstraintChangesTheHash() {
        assertChangesHashOf("Person") { $0.entitiesByName["Person"]!.declaredUniquenessConstraints = [["email"]] }
    }

    func testVersionHashModifierChangesTheHash() {
        assertChangesHashOf("Person") { $0.entitiesByName["Person"]!.versionHashModifier = "2" }
        assertChangesHashOf("Person") { $0.entitiesByName["Person"]!.attributesByName["email"]!.versionHashModifier = "2" }
    }

    func testMakingAnEntityAbstractOrReparentingItChangesTheHash() {
        assertChangesHashOf("Person") { $0.entitiesByName["Person"]!.isAbstract = true }
        assertChangesHashOf("Person") { $0.entitiesByName["Person"]!.parentEntityName = "Item" }
    }

    func testChangesThatLeaveStoredDataReadableKeepTheHashes() {
        assertKeepsHashes { $0.entitiesByName["Task"]!.attributesByName["priority"]!.defaultValue = Int16(2) }
        assertKeepsHashes { $0.entitiesByName["Task"]!.attributesByName["priority"]!.maximumValue = 5 }
        assertKeepsHashes { $0.entitiesByName["Person"]!.attributesByName["email"]!.regularExpression = nil }
        assertKeepsHashes { $0.entitiesByName["Person"]!.relationshipsByName["tasks"]!.deleteRule = .nullify }
        assertKeepsHashes { $0.entitiesByName["Person"]!.relationshipsByName["tasks"]!.maxCount = 10 }
        assertKeepsHashes { $0.entitiesByName["Person"]!.managedObjectClassName = "Human" }
        assertKeepsHashes { $0.entitiesByName["Person"]!.userInfo["note"] = "x" }
        assertKeepsHashes { $0.entitiesByName["Person"]!.fetchIndexes = [] }
        assertKeepsHashes { $0.entitiesByName["Person"]!.attributesByName["email"]!.renamingIdentifier = "mail" }
        assertKeepsHashes { $0.entitiesByName["Person"]!.attributesByName["email"]!.isIndexedBySpotlight = false }
    }

    func testTransientAndFetchedPropertiesDoNotCount() {
        assertKeepsHashes { model in
            model.entitiesByName["Person"]!.declaredProperties.append(
                AttributeDescription(name: "displayName", type: .string, isTransient: true))
        }
        assertKeepsHashes { model in
            model.entitiesByName["Person"]!.declaredProperties.removeAll { $0 is FetchedPropertyDescription }
        }
    }

    func testDifferencesNameTheChangedEntitiesAndProperties() {
        let old = model()
        let new = model { model in
            model.entitiesByName["Person"]!.attributesByName["email"]!.attributeType = .uri
            model.entities.removeAll { $0.name == "Event" }
            model.entities.append(EntityDescription(name: "Note"))
        }
        XCTAssertEqual(new.versionHashDifferences(from: old.entityVersionHashesByName,
                                                  propertyHashes: old.propertyVersionHashesByEntityName),
                       ["entity Event was removed", "entity Person changed: email", "entity Note was added"])
        XCTAssertFalse(new.isConfiguration(compatibleWithVersionHashes: old.entityVersionHashesByName))
        XCTAssertTrue(old.isConfiguration(compatibleWithVersionHashes: model().entityVersionHashesByName))
    }
}
