// Review of relationship handling against Apple's documented Core Data behaviour (inverse
// maintenance, delete rules, validation, relationship faults, change tracking, undo, entity
// inheritance), on the in-memory and the SQLite store. The tests kept are those that failed
// before their fix: each says what Core Data does and what ObjectGraph did instead. The stacks
// are the suite's own (Stack, the organizer model); the one extra model is built here.
import Foundation
import XCTest
@testable import ObjectGraph

final class RelationshipReviewTests: XCTestCase {
    private func titles(_ object: ManagedObject, _ key: String) -> [String] {
        let value = object.value(forKey: key)
        let objects = (value as? OrderedSet<ManagedObject>)?.elements ?? (value as? Set<ManagedObject>).map(Array.init) ?? []
        return objects.map { $0.value(forKey: "title") as? String ?? "?" }
    }

    // MARK: Relationship faults after another context's save (in-memory store)

    /// Core Data ("Faulting and Uniquing", Core Data Programming Guide): a to-many relationship
    /// of a fetched object is a *relationship fault*, "a collection object that represents a
    /// relationship", whose destinations are looked up in the persistent store when it fires;
    /// `hasFault(forRelationshipNamed:)` tells whether it has fired yet. Firing the owner's own
    /// fault (reading `firstName`) does not fire its to-many relationships
    /// (FaultingReviewTests.testFiringAnOwnerLeavesItsToManyDestinationsFaults). So a
    /// relationship fault first fired after another context saved a change to that relationship
    /// lists what is stored then. ObjectGraph's SQLite store does so (the row leaves to-many
    /// slots unloaded and the fault queries the store), and so does the in-memory store when the
    /// owner is itself still a fault (CrossContextTests.testToManyContentsCachedByOneContext...).
    ///
    /// ObjectGraph, on the in-memory store, fired the relationship with the list that was copied
    /// into the owner's row when the owner fired (its rows came with every to-many list filled
    /// in): the added task was missing, the removed one still there, and the many-to-many
    /// addition missing. The in-memory store's rows now leave to-many slots unloaded, as the
    /// SQLite store's do.
    func testAToManyFaultFiredAfterAnotherContextsSaveListsWhatIsStoredThen() throws {
        let stack = try Stack(storeType: .inMemory)
        let ada = stack.person("Ada"), bob = stack.person("Bob")
        let a = stack.task("A", owner: ada)
        _ = stack.task("B", owner: ada)
        let m1 = stack.event("M1"), m2 = stack.event("M2")
        m1.setValue(Set([ada]), forKey: "attendees")
        try stack.context.save()

        let reader = stack.newContext()
        let owner = try reader.existingObject(with: ada.objectID)
        XCTAssertEqual(owner.value(forKey: "firstName") as? String, "Ada")   // fires the owner, not its relationships

        // Another context of the same coordinator: adds a task, moves one away, adds a meeting.
        let c = stack.task("C", owner: ada)
        a.setValue(bob, forKey: "owner")
        m2.mutableSetValue(forKey: "attendees").insert(ada)
        try stack.context.save()

        XCTAssertEqual(Set(owner.objectIDs(forRelationshipNamed: "tasks")), Set(ada.objectIDs(forRelationshipNamed: "tasks")),
                       "objectIDs(forRelationshipNamed:) of the unfired to-many relationship")
        XCTAssertTrue(owner.objectIDs(forRelationshipNamed: "tasks").contains(c.objectID))
        XCTAssertEqual(Set(titles(owner, "tasks")), ["B", "C"], "Ada.tasks fired after the save")
        XCTAssertEqual(Set(titles(owner, "events")), ["M1", "M2"], "Ada.events (many-to-many) fired after the save")
    }

    /// The same stale list, with a worse consequence: Person.tasks has the Cascade rule
    /// (`NSCascadeDeleteRule`, "A rule that deletes the referenced managed objects"). Core Data
    /// runs delete rules on the relationship's destinations as the store has them: deleting an
    /// object whose to-many relationship is still a fault fires that fault (its destinations are
    /// fetched) and cascades to every object in it, here the task another context added.
    ///
    /// ObjectGraph on the in-memory store cascaded only to the tasks listed when the owner was
    /// fired (the same stale list), so task B was not deleted and, once saved, pointed at a
    /// deleted owner. (SQLite passed.)
    func testCascadingFromAnOwnerLoadedBeforeAnotherContextsSaveReachesEveryStoredDestination() throws {
        let stack = try Stack(storeType: .inMemory)
        let ada = stack.person("Ada")
        let a = stack.task("A", owner: ada)
        try stack.context.save()

        let reader = stack.newContext()
        let owner = try reader.existingObject(with: ada.objectID)
        XCTAssertEqual(owner.value(forKey: "firstName") as? String, "Ada")
        let b = stack.task("B", owner: ada)
        try stack.context.save()

        reader.delete(owner)
        reader.processPendingChanges()
        XCTAssertEqual(Set(reader.deletedObjects.map(\.objectID)), [ada.objectID, a.objectID, b.objectID],
                       "the cascade must reach the task the other context added")
    }

    // MARK: To-many relationships without an inverse (in-memory store)

    /// Links: a to-many relationship with no inverse (a unidirectional relationship).
    private static let linkModel = ManagedObjectModel {
        Entity("Node") {
            Attribute("name", .string)
            Relationship("links", to: "Node", toMany: true)
            Relationship("bookmarks", to: "Node", toMany: true, ordered: true)
        }
    }

    /// A deleted row leaves the store: Core Data's SQLite store keeps a to-many relationship
    /// without an inverse in a join table and deletes the deleted row's join-table rows, so a
    /// context that reads the relationship afterwards does not find the deleted object in it
    /// (for unidirectional relationships Core Data only leaves the *deleting context's* in-memory
    /// source object pointing at it; Apple asks for inverses precisely because nothing else
    /// clears it). ObjectGraph's SQLite store does the same (`SQLiteWritePlan.joinRowDeletes`,
    /// built from `SQLiteSchema.joinColumns(referencing:)`, covers join tables of relationships
    /// without inverse), and its in-memory store promises to agree: "Takes each deleted row out
    /// of the stored many-to-many lists that name it ... as the SQLite store deletes its
    /// join-table rows: whatever the delete rule" (InMemoryStore+Saving.swift), pinned by
    /// RelationshipRulesTests.testNoActionManyToManyLeavesNoDeletedObjectInAFreshContext.
    ///
    /// ObjectGraph's in-memory store left the deleted row in the stored lists of to-many
    /// relationships without an inverse (it cleaned only many-to-many lists, which a deleted row
    /// names from its own side). A fresh context then read a relationship holding the ID of a
    /// row that does not exist. The store now looks through the one-way lists that may name it
    /// (`InMemoryStore.dropDeletedFromOneWayLists`).
    func testDeletingTheDestinationOfAToManyWithoutInverseLeavesItInNoStoredList() throws {
        try forEachStore(model: Self.linkModel) { stack in
            let source = stack.insert("Node", ["name": "source"])
            let gone = stack.insert("Node", ["name": "gone"]), kept = stack.insert("Node", ["name": "kept"])
            source.setValue(Set([gone, kept]), forKey: "links")
            source.setValue(OrderedSet([gone, kept]), forKey: "bookmarks")
            try stack.context.save()
            stack.context.delete(gone)
            try stack.context.save()

            let fresh = try XCTUnwrap(try stack.fetch("Node", "name == 'source'", in: stack.newContext()).first)
            XCTAssertEqual(fresh.objectIDs(forRelationshipNamed: "links"), [kept.objectID], "\(stack.storeType): links")
            XCTAssertEqual(fresh.objectIDs(forRelationshipNamed: "bookmarks"), [kept.objectID], "\(stack.storeType): bookmarks")
            let links = try XCTUnwrap(fresh.value(forKey: "links") as? Set<ManagedObject>)
            XCTAssertFalse(links.contains { $0.objectID == gone.objectID || $0.isDeleted }, "\(stack.storeType)")
        }
    }
}
