// The class registry: generated classes are found for their entity, and the slot names they were
// generated with are checked against the entity's layout (a mismatch names the first bad slot).
import Foundation
import XCTest
@testable import ObjectGraph

final class ObjectClassesTests: XCTestCase {
    /// A class as the code generator writes one, for an entity no other test uses.
    final class Gadget: ManagedObject {
        override class var entityName: String { "Gadget" }
    }

    /// The Gadget entity with string attributes named `names`.
    private func gadgetEntity(_ names: [String]) -> EntityDescription {
        EntityDescription(name: "Gadget", managedObjectClassName: "Gadget",
                          properties: names.map { AttributeDescription(name: $0, type: .string) })
    }

    func testRegisteredGeneratedClassIsUsedForItsEntity() {
        ObjectClasses.register([ObjectClasses.GeneratedClass(Gadget.self, slotNames: ["name", "color"])])
        XCTAssertTrue(ObjectClasses.managedObjectClass(for: gadgetEntity(["name", "color"])) == Gadget.self)
    }

    func testSameSlotNamesMatch() {
        XCTAssertNil(ObjectClasses.slotMismatch(of: Gadget.self, generatedWith: ["name", "color"],
                                                against: gadgetEntity(["name", "color"])))
    }

    func testPropertiesAfterTheGeneratedSlotsMatch() {
        XCTAssertNil(ObjectClasses.slotMismatch(of: Gadget.self, generatedWith: ["name"],
                                                against: gadgetEntity(["name", "color"])))
    }

    func testReorderedPropertiesNameTheFirstDifferingSlot() {
        let mismatch = ObjectClasses.slotMismatch(of: Gadget.self, generatedWith: ["name", "color", "size"],
                                                  against: gadgetEntity(["name", "size", "color"]))
        XCTAssertEqual(mismatch, "class Gadget was generated from another version of entity Gadget: slot 1 is "
            + "\"color\" in the generated code but \"size\" in the model; regenerate the classes")
    }

    func testMissingPropertyIsAMismatch() {
        let mismatch = ObjectClasses.slotMismatch(of: Gadget.self, generatedWith: ["name", "color"],
                                                  against: gadgetEntity(["name"]))
        XCTAssertEqual(mismatch, "class Gadget was generated from another version of entity Gadget: slot 1 is "
            + "\"color\" in the generated code but no property in the model; regenerate the classes")
    }

    /// A class of the same name generated from another model.
    final class Widget: ManagedObject {
        override class var entityName: String { "Widget" }
    }

    func testClassGeneratedForAnotherModelOfTheSameNameIsNotUsed() {
        ObjectClasses.register([ObjectClasses.GeneratedClass(Widget.self, slotNames: ["serial"])])
        let otherModelsWidget = EntityDescription(name: "Widget", managedObjectClassName: "Widget",
                                                  properties: [AttributeDescription(name: "label", type: .string)])
        XCTAssertTrue(ObjectClasses.managedObjectClass(for: otherModelsWidget) == ManagedObject.self)
        let ownModelsWidget = EntityDescription(name: "Widget", managedObjectClassName: "Widget",
                                                properties: [AttributeDescription(name: "serial", type: .string)])
        XCTAssertTrue(ObjectClasses.managedObjectClass(for: ownModelsWidget) == Widget.self)
    }

    func testFetchRequestOfAClassNamesItsEntity() {
        let request = Gadget.fetchRequest()
        XCTAssertEqual(request.entityName, "Gadget")
        XCTAssertEqual(request.resultType, .managedObject)
    }
}
