// Setting one side of a relationship keeps the other side, in every cardinality.
import Foundation
import XCTest
@testable import ObjectGraph

final class InverseRelationshipTests: XCTestCase {
    func testSettingToOneAddsToTheInverseToMany() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("Write notes")
            task.setValue(ada, forKey: "owner")
            XCTAssertEqual(ada.value(forKey: "tasks") as? OrderedSet<ManagedObject>, [task])
        }
    }

    func testReassigningToOneMovesTheObjectBetweenInverseSets() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let task = stack.task("Review", owner: ada)
            task.setValue(bob, forKey: "owner")
            XCTAssertEqual((ada.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.count, 0)
            XCTAssertEqual(bob.value(forKey: "tasks") as? OrderedSet<ManagedObject>, [task])
        }
    }

    func testAddingToToManySetsTheInverseToOne() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let task = stack.task("Plan")
            ada.mutableOrderedSetValue(forKey: "tasks").insert(task)
            XCTAssertTrue(task.value(forKey: "owner") as? ManagedObject === ada)
        }
    }

    func testManyToManyKeepsBothSides() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada, bob]), forKey: "attendees")
            XCTAssertEqual(ada.value(forKey: "events") as? Set<ManagedObject>, [meeting])
            XCTAssertEqual(bob.value(forKey: "events") as? Set<ManagedObject>, [meeting])
            ada.mutableSetValue(forKey: "events").remove(meeting)
            XCTAssertEqual(meeting.value(forKey: "attendees") as? Set<ManagedObject>, [bob])
        }
    }

    func testOrderedToManyKeepsInsertionPositions() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let first = stack.task("First", owner: ada)
            let second = stack.task("Second", owner: ada)
            let zeroth = stack.task("Zeroth")
            ada.mutableOrderedSetValue(forKey: "tasks").insert(zeroth, at: 0)
            XCTAssertEqual((ada.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements, [zeroth, first, second])
            XCTAssertTrue(zeroth.value(forKey: "owner") as? ManagedObject === ada)
        }
    }

    func testOneToOneStealsTheDestinationFromItsPreviousOwner() throws {
        let model = ManagedObjectModel {
            Entity("Person") { Relationship("passport", to: "Passport", inverse: "holder") }
            Entity("Passport") { Relationship("holder", to: "Person", inverse: "passport") }
        }
        try forEachStore(model: model) { stack in
            let ada = stack.insert("Person")
            let bob = stack.insert("Person")
            let passport = stack.insert("Passport")
            ada.setValue(passport, forKey: "passport")
            XCTAssertTrue(passport.value(forKey: "holder") as? ManagedObject === ada)
            bob.setValue(passport, forKey: "passport")
            XCTAssertNil(ada.value(forKey: "passport"))
            XCTAssertTrue(passport.value(forKey: "holder") as? ManagedObject === bob)
        }
    }

    func testRelationshipsSurviveSaveAndRefetchInAnotherContext() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            _ = stack.task("A", owner: ada)
            _ = stack.task("B", owner: ada)
            try stack.context.save()
            let other = stack.newContext()
            let people = try stack.fetch("Person", in: other)
            XCTAssertEqual(people.count, 1)
            let tasks = try XCTUnwrap(people[0].value(forKey: "tasks") as? OrderedSet<ManagedObject>)
            XCTAssertEqual(tasks.map { $0.value(forKey: "title") as? String }, ["A", "B"])
            XCTAssertEqual((people[0].value(forKey: "events") as? Set<ManagedObject>)?.first?.value(forKey: "title") as? String, "Meeting")
        }
    }
}
