// Objects marked immortal live as long as the process: entity layouts once their entity does.
import Foundation
import XCTest
@testable import ObjectGraph

final class ImmortalTests: XCTestCase {
    private final class Probe {}

    func testAMarkedObjectOutlivesItsLastReference() {
        weak var marked: Probe?
        weak var unmarked: Probe?
        do {
            let probe = Probe(), other = Probe()
            Immortal.mark(probe)
            marked = probe
            unmarked = other
        }
        XCTAssertNotNil(marked, "the runtime's immortalize entry point was not found, or did not mark")
        XCTAssertNil(unmarked)
    }

    func testAFrozenLayoutIsMarkedWhenItsEntityIsKeptAlive() throws {
        let model = ManagedObjectModel { Entity("Probe") { Attribute("name", .string) } }
        model.freeze()
        let entity = try XCTUnwrap(model.entitiesByName["Probe"])
        weak let layout = entity.frozenLayout
        weak let slots = unsafeBitCast(try XCTUnwrap(entity.frozenLayout).initialRow, to: AnyObject.self)
        _ = ObjectID.temporary(for: entity)  // the entity lives as long as the process from here
        entity.frozenLayout = nil
        XCTAssertNotNil(layout, "the layout of an entity kept alive is immortal")
        XCTAssertNotNil(slots, "so is the row it shares with new objects")
    }

    func testALayoutFrozenAfterItsEntityIsKeptAliveIsMarkedToo() throws {
        let model = ManagedObjectModel { Entity("Probe") { Attribute("name", .string) } }
        let entity = try XCTUnwrap(model.entitiesByName["Probe"])
        _ = ObjectID.temporary(for: entity)
        model.freeze()
        weak let layout = entity.frozenLayout
        entity.frozenLayout = nil
        XCTAssertNotNil(layout)
    }

    func testALayoutOfAnEntityNotKeptAliveIsNotMarked() throws {
        let model = ManagedObjectModel { Entity("Probe") { Attribute("name", .string) } }
        model.freeze()
        let entity = try XCTUnwrap(model.entitiesByName["Probe"])
        weak let layout = entity.frozenLayout
        entity.frozenLayout = nil
        XCTAssertNil(layout, "a model dropped before any object of it leaves nothing behind")
    }
}
