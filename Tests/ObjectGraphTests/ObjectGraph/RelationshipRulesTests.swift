// Relationship rules against Core Data's documented behaviour ("Core Data
// Programming Guide: Relationships and Fetched Properties", NSDeleteRule, NSRelationshipDescription
// minCount/maxCount, ordered relationships), on the in-memory and the SQLite store.
import Foundation
import XCTest
@testable import ObjectGraph

final class RelationshipRulesTests: XCTestCase {
    // MARK: Helpers

    private func ordered(_ object: ManagedObject, _ key: String) -> [ManagedObject] {
        (object.value(forKey: key) as? OrderedSet<ManagedObject>)?.elements ?? []
    }

    private func set(_ object: ManagedObject, _ key: String) -> Set<ManagedObject> {
        object.value(forKey: key) as? Set<ManagedObject> ?? []
    }

    private func names(_ objects: [ManagedObject], _ key: String = "name") -> [String] {
        objects.map { $0.value(forKey: key) as? String ?? "?" }
    }

    private func failures(_ error: Error) -> [ValidationError.Failure] {
        (error as? ValidationError)?.failures ?? []
    }

    // MARK: Models

    /// Client -cascade-> Project -deny-> Item; Item.project nullify; Project.lead to-one deny.
    private static let denyChainModel = ManagedObjectModel {
        Entity("Client") {
            Attribute("name", .string)
            Relationship("projects", to: "Project", inverse: "client", toMany: true, deleteRule: .cascade)
        }
        Entity("Project") {
            Attribute("name", .string)
            Relationship("client", to: "Client", inverse: "projects")
            Relationship("items", to: "Item", inverse: "project", toMany: true, deleteRule: .deny)
            Relationship("lead", to: "Item", inverse: "led", deleteRule: .deny)
        }
        Entity("Item") {
            Attribute("name", .string)
            Relationship("project", to: "Project", inverse: "items")
            Relationship("led", to: "Project", inverse: "lead")
        }
    }

    /// A -cascade-> B -cascade-> C -cascade-> A (to-one, three entities).
    private static let cycleModel = ManagedObjectModel {
        Entity("A") {
            Attribute("name", .string)
            Relationship("b", to: "B", inverse: "a", deleteRule: .cascade)
            Relationship("c", to: "C", inverse: "a")
        }
        Entity("B") {
            Attribute("name", .string)
            Relationship("a", to: "A", inverse: "b")
            Relationship("c", to: "C", inverse: "b", deleteRule: .cascade)
        }
        Entity("C") {
            Attribute("name", .string)
            Relationship("b", to: "B", inverse: "c")
            Relationship("a", to: "A", inverse: "c", deleteRule: .cascade)
        }
    }

    /// Team.members: to-many with 2...3 members; Member.team required; a no-action many-to-many.
    private static let countModel = ManagedObjectModel {
        Entity("Team") {
            Attribute("name", .string)
            Relationship("members", to: "Member", inverse: "team", toMany: true, ordered: true).count(min: 2, max: 3)
            Relationship("tags", to: "Tag", inverse: "teams", toMany: true)
        }
        Entity("Member") {
            Attribute("name", .string)
            Relationship("team", to: "Team", inverse: "members").required()
        }
        Entity("Tag") {
            Attribute("name", .string)
            Relationship("teams", to: "Team", inverse: "tags", toMany: true, deleteRule: .noAction)
        }
    }

    /// Self-inverse one-to-one.
    private static let partnerModel = ManagedObjectModel {
        Entity("Dancer") {
            Attribute("name", .string)
            Relationship("partner", to: "Dancer", inverse: "partner")
        }
    }

    // MARK: Deny

    /// Pins: a deny failure stops the whole save; other pending changes are not written either.
    func testDenyOnToOneFailsTheSaveAndWritesNothingElse() throws {
        try forEachStore(model: Self.denyChainModel) { stack in
            let project = stack.insert("Project", ["name": "Home"])
            let lead = stack.insert("Item", ["name": "Lead", "led": project])
            let other = stack.insert("Item", ["name": "Other"])
            try stack.context.save()
            other.setValue("Renamed", forKey: "name")
            stack.context.delete(project)
            XCTAssertThrowsError(try stack.context.save()) { error in
                let f = failures(error)
                XCTAssertEqual(f.map(\.rule), [.deny], "\(error)")
                XCTAssertEqual(f.first?.entity, "Project")
                XCTAssertEqual(f.first?.property, "lead")
                XCTAssertTrue(f.first?.message.contains("\(lead.objectID)") == true, "\(error)")
            }
            let fresh = stack.newContext()
            XCTAssertEqual(try stack.fetch("Project", in: fresh).count, 1, "\(stack.storeType)")
            XCTAssertEqual(Set(names(try stack.fetch("Item", in: fresh))), ["Lead", "Other"], "\(stack.storeType)")
        }
    }

    /// A cascade that reaches an object whose deny relationship is not empty fails the save
    /// (Core Data: the cascaded deletion is validated like any other).
    func testCascadeIntoADenyRuleFailsTheSave() throws {
        try forEachStore(model: Self.denyChainModel) { stack in
            let client = stack.insert("Client", ["name": "ACME"])
            let project = stack.insert("Project", ["name": "Roof", "client": client])
            _ = stack.insert("Item", ["name": "Tiles", "project": project])
            try stack.context.save()
            stack.context.delete(client)
            XCTAssertThrowsError(try stack.context.save()) { error in
                XCTAssertEqual(failures(error).map(\.property), ["items"], "\(error)")
                XCTAssertEqual(failures(error).first?.entity, "Project")
            }
            XCTAssertEqual(try stack.fetch("Client", in: stack.newContext()).count, 1)
            XCTAssertEqual(try stack.fetch("Project", in: stack.newContext()).count, 1)
        }
    }

    // MARK: Cascade

    func testCascadeCycleOfToOnesAcrossThreeEntitiesDeletesAllFromAnyStart() throws {
        try forEachStore(model: Self.cycleModel) { stack in
            let a = stack.insert("A", ["name": "a"])
            let b = stack.insert("B", ["name": "b", "a": a])
            let c = stack.insert("C", ["name": "c", "b": b])
            c.setValue(a, forKey: "a")
            XCTAssertTrue(a.value(forKey: "c") as? ManagedObject === c)
            try stack.context.save()
            // Start in the middle of the cycle, through a fresh context (faults).
            let context = stack.newContext()
            let faultB = try XCTUnwrap(stack.fetch("B", in: context).first)
            context.delete(faultB)
            context.processPendingChanges()
            XCTAssertEqual(context.deletedObjects.count, 3)
            try context.save()
            let fresh = stack.newContext()
            XCTAssertEqual(try stack.fetch("A", in: fresh).count + stack.fetch("B", in: fresh).count + stack.fetch("C", in: fresh).count, 0)
        }
    }

    // MARK: Nullify on ordered to-many

    /// Nullify removes deleted objects from an ordered to-many and keeps the others' order, in
    /// memory and as saved.
    func testNullifyOnOrderedToManyKeepsTheOrderOfTheRemainingMembers() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let tasks = (0..<5).map { stack.task("T\($0)") }
            ada.setValue(OrderedSet([tasks[3], tasks[0], tasks[4], tasks[1], tasks[2]]), forKey: "tasks")
            try stack.context.save()
            stack.context.delete(tasks[0])
            stack.context.delete(tasks[1])
            stack.context.processPendingChanges()
            XCTAssertEqual(names(ordered(ada, "tasks"), "title"), ["T3", "T4", "T2"])
            try stack.context.save()
            let person = try XCTUnwrap(stack.fetch("Person", in: stack.newContext()).first)
            XCTAssertEqual(names(ordered(person, "tasks"), "title"), ["T3", "T4", "T2"], "\(stack.storeType)")
        }
    }

    // MARK: No action

    // Core Data's NSNoActionDeleteRule leaves the deleting context's inverse pointing at the
    // deleted object, but the deleted row is gone from the store: a fresh context reads only the
    // remaining tags, on SQLite (its join-table rows go) and on the in-memory store alike (the
    // deleted row leaves every stored many-to-many list that names it).
    func testNoActionManyToManyLeavesNoDeletedObjectInAFreshContext() throws {
        try forEachStore(model: Self.countModel) { stack in
            let team = stack.insert("Team", ["name": "T"])
            _ = stack.insert("Member", ["name": "m1", "team": team])
            _ = stack.insert("Member", ["name": "m2", "team": team])
            let red = stack.insert("Tag", ["name": "red"])
            let blue = stack.insert("Tag", ["name": "blue"])
            team.setValue(Set([red, blue]), forKey: "tags")
            try stack.context.save()
            stack.context.delete(red)
            stack.context.processPendingChanges()
            XCTAssertEqual(set(team, "tags"), [red, blue], "no action leaves the inverse as it was")
            try stack.context.save()
            let fresh = stack.newContext()
            let stored = try XCTUnwrap(stack.fetch("Team", in: fresh).first)
            let tags = set(stored, "tags")
            XCTAssertEqual(Set(names(Array(tags))), ["blue"], "\(stack.storeType): \(tags.map { "\($0.objectID) fault=\($0.isFault) deleted=\($0.isDeleted)" })")
        }
    }

    /// The one-to-many form: Item.project is no action, so deleting an item leaves it in
    /// project.items in memory; a fresh context reads the saved store, where it is gone.
    func testNoActionToOneLeavesNoDeletedObjectInAFreshContext() throws {
        let model = ManagedObjectModel {
            Entity("Project") {
                Attribute("name", .string)
                Relationship("items", to: "Item", inverse: "project", toMany: true, ordered: true)
            }
            Entity("Item") {
                Attribute("name", .string)
                Relationship("project", to: "Project", inverse: "items", deleteRule: .noAction)
            }
        }
        try forEachStore(model: model) { stack in
            let project = stack.insert("Project", ["name": "P"])
            let gone = stack.insert("Item", ["name": "gone", "project": project])
            _ = stack.insert("Item", ["name": "kept", "project": project])
            try stack.context.save()
            stack.context.delete(gone)
            try stack.context.save()
            let fresh = stack.newContext()
            let stored = try XCTUnwrap(stack.fetch("Project", in: fresh).first)
            let items = ordered(stored, "items")
            XCTAssertEqual(names(items), ["kept"], "\(stack.storeType): \(items.map { "\($0.objectID) fault=\($0.isFault) deleted=\($0.isDeleted)" })")
        }
    }

    // MARK: Inverse maintenance

    /// Stealing in a self-inverse one-to-one: x.partner = y, where x had w and y had z, leaves
    /// w and z without a partner.
    func testSelfInverseOneToOneStealReleasesBothPreviousPartners() throws {
        try forEachStore(model: Self.partnerModel) { stack in
            let x = stack.insert("Dancer", ["name": "x"])
            let w = stack.insert("Dancer", ["name": "w"])
            let y = stack.insert("Dancer", ["name": "y"])
            let z = stack.insert("Dancer", ["name": "z"])
            x.setValue(w, forKey: "partner")
            y.setValue(z, forKey: "partner")
            try stack.context.save()
            x.setValue(y, forKey: "partner")
            XCTAssertTrue(x.value(forKey: "partner") as? ManagedObject === y)
            XCTAssertTrue(y.value(forKey: "partner") as? ManagedObject === x)
            XCTAssertNil(w.value(forKey: "partner"))
            XCTAssertNil(z.value(forKey: "partner"))
            try stack.context.save()
            let fresh = stack.newContext()
            let partners = Dictionary(uniqueKeysWithValues: try stack.fetch("Dancer", in: fresh).map {
                ($0.value(forKey: "name") as! String, ($0.value(forKey: "partner") as? ManagedObject)?.value(forKey: "name") as? String ?? "-")
            })
            XCTAssertEqual(partners, ["x": "y", "y": "x", "w": "-", "z": "-"], "\(stack.storeType)")
        }
    }

    /// Inserting an object of another owner's ordered set at a position moves it: it leaves the
    /// old owner's set (the rest keep their order) and takes the position in the new one.
    func testInsertingAnotherOwnersMemberAtAPositionMovesIt() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let a1 = stack.task("A1", owner: ada), a2 = stack.task("A2", owner: ada)
            let b1 = stack.task("B1", owner: bob), b2 = stack.task("B2", owner: bob), b3 = stack.task("B3", owner: bob)
            try stack.context.save()
            ada.mutableOrderedSetValue(forKey: "tasks").insert(b2, at: 1)
            XCTAssertEqual(ordered(ada, "tasks"), [a1, b2, a2])
            XCTAssertEqual(ordered(bob, "tasks"), [b1, b3])
            XCTAssertTrue(b2.value(forKey: "owner") as? ManagedObject === ada)
            try stack.context.save()
            let people = try stack.fetch("Person", sortedBy: "firstName", in: stack.newContext())
            XCTAssertEqual(names(ordered(people[0], "tasks"), "title"), ["A1", "B2", "A2"], "\(stack.storeType)")
            XCTAssertEqual(names(ordered(people[1], "tasks"), "title"), ["B1", "B3"], "\(stack.storeType)")
        }
    }

    /// Reordering a saved ordered to-many (setting the same members in another order) is a
    /// change that is saved.
    func testReorderingASavedOrderedToManyIsSaved() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let a = stack.task("A", owner: ada), b = stack.task("B", owner: ada), c = stack.task("C", owner: ada)
            try stack.context.save()
            ada.setValue(OrderedSet([c, a, b]), forKey: "tasks")
            XCTAssertEqual(ordered(ada, "tasks"), [c, a, b])
            XCTAssertTrue(stack.context.hasChanges)
            try stack.context.save()
            let person = try XCTUnwrap(stack.fetch("Person", in: stack.newContext()).first)
            XCTAssertEqual(names(ordered(person, "tasks"), "title"), ["C", "A", "B"], "\(stack.storeType)")
        }
    }

    /// Setting a to-one to nil removes the object from the inverse ordered set, the others
    /// keeping their order; setting the same value twice changes nothing.
    func testSettingNilAndTheSameValueTwice() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let a = stack.task("A", owner: ada), b = stack.task("B", owner: ada), c = stack.task("C", owner: ada)
            try stack.context.save()
            b.setValue(ada, forKey: "owner")
            XCTAssertFalse(stack.context.hasChanges, "setting the same destination again is no change")
            XCTAssertEqual(ordered(ada, "tasks"), [a, b, c])
            b.setValue(nil, forKey: "owner")
            XCTAssertEqual(ordered(ada, "tasks"), [a, c])
            try stack.context.save()
            let person = try XCTUnwrap(stack.fetch("Person", in: stack.newContext()).first)
            XCTAssertEqual(names(ordered(person, "tasks"), "title"), ["A", "C"], "\(stack.storeType)")
        }
    }

    /// Many-to-many changed from both sides in one event, then replaced wholesale from one side.
    func testManyToManyChangedFromBothSidesIsSavedConsistently() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada"), bob = stack.person("Bob"), cy = stack.person("Cy")
            let m1 = stack.event("M1"), m2 = stack.event("M2")
            m1.setValue(Set([ada, bob]), forKey: "attendees")
            try stack.context.save()
            bob.mutableSetValue(forKey: "events").insert(m2)
            m1.mutableSetValue(forKey: "attendees").remove(ada)
            cy.setValue(Set([m1, m2]), forKey: "events")
            bob.setValue(Set([m2]), forKey: "events")
            XCTAssertEqual(set(m1, "attendees"), [cy])
            XCTAssertEqual(set(m2, "attendees"), [bob, cy])
            XCTAssertEqual(set(ada, "events"), [])
            try stack.context.save()
            let fresh = stack.newContext()
            let events = try stack.fetch("Event", sortedBy: "title", in: fresh)
            XCTAssertEqual(Set(names(Array(set(events[0], "attendees")), "firstName")), ["Cy"], "\(stack.storeType)")
            XCTAssertEqual(Set(names(Array(set(events[1], "attendees")), "firstName")), ["Bob", "Cy"], "\(stack.storeType)")
        }
    }

    // MARK: minCount / maxCount / required

    func testMinAndMaxCountOfANewToManyFailTheSaveNamingEntityAndRelationship() throws {
        try forEachStore(model: Self.countModel) { stack in
            let small = stack.insert("Team", ["name": "small"])
            _ = stack.insert("Member", ["name": "s1", "team": small])
            let big = stack.insert("Team", ["name": "big"])
            for i in 0..<4 { _ = stack.insert("Member", ["name": "b\(i)", "team": big]) }
            XCTAssertThrowsError(try stack.context.save()) { error in
                let f = failures(error)
                XCTAssertEqual(Set(f.map(\.rule)), [.minimumCount(2), .maximumCount(3)], "\(error)")
                XCTAssertTrue(f.allSatisfy { $0.entity == "Team" && $0.property == "members" }, "\(error)")
            }
            XCTAssertEqual(try stack.fetch("Team", in: stack.newContext()).count, 0)
        }
    }

    /// A saved team falls below its minimum only through the inverse side (a member moves to
    /// another team): the team changed, so its count is validated at save.
    func testMinCountIsValidatedWhenTheToManyShrinksThroughTheInverse() throws {
        try forEachStore(model: Self.countModel) { stack in
            let red = stack.insert("Team", ["name": "red"])
            let blue = stack.insert("Team", ["name": "blue"])
            let r1 = stack.insert("Member", ["name": "r1", "team": red])
            _ = stack.insert("Member", ["name": "r2", "team": red])
            _ = stack.insert("Member", ["name": "b1", "team": blue])
            _ = stack.insert("Member", ["name": "b2", "team": blue])
            try stack.context.save()
            r1.setValue(blue, forKey: "team")
            XCTAssertThrowsError(try stack.context.save()) { error in
                let f = failures(error)
                XCTAssertEqual(f.map(\.rule), [.minimumCount(2)], "\(error)")
                XCTAssertEqual(f.first?.entity, "Team")
                XCTAssertEqual(f.first?.property, "members")
                XCTAssertEqual(f.first?.objectID, red.objectID)
            }
        }
    }

    /// Deleting a member through its delete rule (nullify) shrinks the team below minCount.
    func testMinCountIsValidatedWhenADeletionNullifiesAMember() throws {
        try forEachStore(model: Self.countModel) { stack in
            let team = stack.insert("Team", ["name": "red"])
            let m1 = stack.insert("Member", ["name": "m1", "team": team])
            _ = stack.insert("Member", ["name": "m2", "team": team])
            try stack.context.save()
            // A fresh context: the team is a fault when the member is deleted.
            let context = stack.newContext()
            let member = try context.existingObject(with: m1.objectID)
            context.delete(member)
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual(failures(error).map(\.rule), [.minimumCount(2)], "\(error)")
                XCTAssertEqual(failures(error).first?.property, "members")
            }
            XCTAssertEqual(try stack.fetch("Member", in: stack.newContext()).count, 2)
        }
    }

    /// A required to-one emptied by the destination's deletion (nullify) fails the save.
    func testRequiredToOneNullifiedByADeletionFailsTheSave() throws {
        try forEachStore(model: Self.countModel) { stack in
            let team = stack.insert("Team", ["name": "red"])
            let m1 = stack.insert("Member", ["name": "m1", "team": team])
            _ = stack.insert("Member", ["name": "m2", "team": team])
            try stack.context.save()
            stack.context.delete(team)
            XCTAssertThrowsError(try stack.context.save()) { error in
                let f = failures(error)
                XCTAssertEqual(f.map(\.rule), [.required, .required], "\(error)")
                XCTAssertTrue(f.allSatisfy { $0.entity == "Member" && $0.property == "team" }, "\(error)")
                XCTAssertTrue(f.contains { $0.objectID == m1.objectID })
            }
            XCTAssertEqual(try stack.fetch("Team", in: stack.newContext()).count, 1)
        }
    }

    // MARK: Undo / redo

    /// Undoing the deletion of two members of an ordered to-many (nullify) restores their places.
    func testUndoingNullifyOfOrderedMembersRestoresTheOrder() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada")
            let tasks = (0..<4).map { stack.task("T\($0)", owner: ada) }
            try stack.context.save()
            stack.context.delete(tasks[2])
            stack.context.delete(tasks[0])
            stack.context.processPendingChanges()
            XCTAssertEqual(ordered(ada, "tasks"), [tasks[1], tasks[3]])
            stack.context.undo()
            XCTAssertEqual(ordered(ada, "tasks"), tasks)
            XCTAssertTrue(tasks.allSatisfy { $0.value(forKey: "owner") as? ManagedObject === ada })
            stack.context.redo()
            XCTAssertEqual(ordered(ada, "tasks"), [tasks[1], tasks[3]])
            stack.context.undo()
            try stack.context.save()
            let person = try XCTUnwrap(stack.fetch("Person", in: stack.newContext()).first)
            XCTAssertEqual(names(ordered(person, "tasks"), "title"), ["T0", "T1", "T2", "T3"], "\(stack.storeType)")
        }
    }

    /// Undoing a move between owners of ordered sets restores both orders; redo replays it.
    func testUndoingAMoveBetweenOrderedOwnersRestoresBothOrders() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada"), bob = stack.person("Bob")
            let a1 = stack.task("A1", owner: ada), a2 = stack.task("A2", owner: ada), a3 = stack.task("A3", owner: ada)
            let b1 = stack.task("B1", owner: bob)
            try stack.context.save()
            bob.mutableOrderedSetValue(forKey: "tasks").insert(a2, at: 0)
            ada.setValue(OrderedSet([a3, a1]), forKey: "tasks")
            stack.context.processPendingChanges()
            XCTAssertEqual(ordered(bob, "tasks"), [a2, b1])
            stack.context.undo()
            XCTAssertEqual(ordered(ada, "tasks"), [a1, a2, a3])
            XCTAssertEqual(ordered(bob, "tasks"), [b1])
            XCTAssertTrue(a2.value(forKey: "owner") as? ManagedObject === ada)
            stack.context.redo()
            XCTAssertEqual(ordered(ada, "tasks"), [a3, a1])
            XCTAssertEqual(ordered(bob, "tasks"), [a2, b1])
            try stack.context.save()
            let people = try stack.fetch("Person", sortedBy: "firstName", in: stack.newContext())
            XCTAssertEqual(names(ordered(people[0], "tasks"), "title"), ["A3", "A1"], "\(stack.storeType)")
            XCTAssertEqual(names(ordered(people[1], "tasks"), "title"), ["A2", "B1"], "\(stack.storeType)")
        }
    }

    /// Undoing a cascade through a three-level chain restores every object and both sides.
    func testUndoingACascadeCycleRestoresEveryLink() throws {
        try forEachStore(undo: true, model: Self.cycleModel) { stack in
            let a = stack.insert("A", ["name": "a"])
            let b = stack.insert("B", ["name": "b", "a": a])
            let c = stack.insert("C", ["name": "c", "b": b, "a": a])
            try stack.context.save()
            stack.context.delete(a)
            stack.context.processPendingChanges()
            XCTAssertEqual(stack.context.deletedObjects, [a, b, c])
            stack.context.undo()
            XCTAssertEqual(stack.context.deletedObjects, [])
            XCTAssertTrue(a.value(forKey: "b") as? ManagedObject === b)
            XCTAssertTrue(b.value(forKey: "c") as? ManagedObject === c)
            XCTAssertTrue(c.value(forKey: "a") as? ManagedObject === a)
            XCTAssertTrue(b.value(forKey: "a") as? ManagedObject === a)
            XCTAssertTrue(a.value(forKey: "c") as? ManagedObject === c)
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("C", in: stack.newContext()).count, 1)
        }
    }

    // MARK: Deleting new objects, deleting both ends in one event

    /// A new task inserted in the middle of a saved ordered set and deleted before any save
    /// leaves the set as it was; the save writes nothing for it.
    func testDeletingANewMemberOfASavedOrderedSetRestoresTheSet() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let a = stack.task("A", owner: ada), b = stack.task("B", owner: ada)
            try stack.context.save()
            let fresh = stack.task("New")
            ada.mutableOrderedSetValue(forKey: "tasks").insert(fresh, at: 1)
            stack.context.delete(fresh)
            stack.context.processPendingChanges()
            XCTAssertEqual(ordered(ada, "tasks"), [a, b])
            XCTAssertEqual(stack.context.insertedObjects, [])
            XCTAssertEqual(stack.context.deletedObjects, [])
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Task", in: stack.newContext()).count, 2)
        }
    }

    /// A new person with new tasks and a saved event, deleted before any save: the cascade
    /// takes the tasks, nullify clears the event's side, and the save writes nothing.
    func testDeletingANewObjectWithRelationshipsCascadesAndNullifies() throws {
        try forEachStore { stack in
            let meeting = stack.event("Meeting")
            try stack.context.save()
            let ada = stack.person("Ada")
            let task = stack.task("T", owner: ada)
            task.setValue(meeting, forKey: "event")
            ada.setValue(Set([meeting]), forKey: "events")
            stack.context.delete(ada)
            stack.context.processPendingChanges()
            XCTAssertTrue(task.isDeleted)
            XCTAssertEqual(set(meeting, "attendees"), [])
            XCTAssertEqual(set(meeting, "preparation"), [])
            XCTAssertEqual(stack.context.insertedObjects, [])
            try stack.context.save()
            let fresh = stack.newContext()
            XCTAssertEqual(try stack.fetch("Person", in: fresh).count + stack.fetch("Task", in: fresh).count, 0)
            XCTAssertEqual(set(try XCTUnwrap(stack.fetch("Event", in: fresh).first), "attendees"), [])
        }
    }

    /// Deleting an object, then its relationship's destination, in the same event: both rules
    /// run, and the save succeeds.
    func testDeletingAnObjectAndThenItsDestinationInOneEvent() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let keep = stack.task("Keep", owner: ada)
            let task = stack.task("Gone", owner: ada)
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([ada]), forKey: "attendees")
            task.setValue(meeting, forKey: "event")
            keep.setValue(meeting, forKey: "event")
            try stack.context.save()
            stack.context.delete(task)
            stack.context.delete(meeting)
            stack.context.delete(ada)
            try stack.context.save()
            let fresh = stack.newContext()
            XCTAssertEqual(try stack.fetch("Task", in: fresh).count, 0)
            XCTAssertEqual(try stack.fetch("Event", in: fresh).count, 0)
            XCTAssertEqual(try stack.fetch("Person", in: fresh).count, 0)
            XCTAssertNil(keep.value(forKey: "event"))
        }
    }
}
