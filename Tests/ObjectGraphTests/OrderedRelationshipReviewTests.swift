// Review of ordered to-many relationships (OrderedSet, isOrdered) and many-to-many relationships
// against Apple's documented Core Data behaviour, on the in-memory and the SQLite store: merges
// of an unsaved reorder (merge policies, refresh(_:mergeChanges: true), mergeChanges(fromContextDidSave:))
// and the overwrite policy against a relationship another context changed. Each test failed when
// written: its comment says what Core Data does and what ObjectGraph did instead. The stacks are
// the suite's own (Stack, the organizer model: Person.tasks is ordered, inverse Task.owner); the
// playlist model is built here.
import Foundation
import XCTest
@testable import ObjectGraph

final class OrderedRelationshipReviewTests: XCTestCase {
    /// Playlists and songs: a many-to-many relationship, ordered on both sides (one join table
    /// with an order column per side in SQLite; a list per side in the in-memory store).
    private static let musicModel = ManagedObjectModel {
        Entity("Playlist") {
            Attribute("name", .string)
            Relationship("songs", to: "Song", inverse: "playlists", toMany: true, ordered: true)
        }
        Entity("Song") {
            Attribute("title", .string)
            Relationship("playlists", to: "Playlist", inverse: "songs", toMany: true, ordered: true)
        }
    }

    /// The `key` values of the objects of a to-many value, in order (any order for a set).
    private func titles(_ value: Any?, key: String = "title") -> [String] {
        let objects = (value as? OrderedSet<ManagedObject>)?.elements ?? (value as? Set<ManagedObject>).map(Array.init) ?? []
        return objects.map { $0.value(forKey: key) as? String ?? "?" }
    }

    private func taskTitles(_ person: ManagedObject) -> [String] { titles(person.value(forKey: "tasks")) }

    /// Ada with tasks A, B, C (in that order), saved.
    private func adaWithThreeTasks(_ stack: Stack) throws -> ManagedObject {
        let ada = stack.person("Ada")
        for title in ["A", "B", "C"] { _ = stack.task(title, owner: ada) }
        try stack.context.save()
        return ada
    }

    /// Reverses `person`'s ordered tasks (a reorder, no member added or removed).
    private func reverseTasks(of person: ManagedObject) {
        let tasks = (person.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.elements ?? []
        person.setValue(OrderedSet(tasks.reversed()), forKey: "tasks")
    }

    // MARK: Merging an unsaved reorder

    /// Context B reverses Ada's ordered tasks; context A changes only Ada's first name and saves
    /// first; B saves under a by-property merge policy. Apple, NSMergePolicy: both policies merge
    /// "by individual property"; mergeByPropertyObjectTrump with "in-memory changes trumping
    /// external changes", mergeByPropertyStoreTrump with "external changes trumping in-memory
    /// changes". `tasks` changed only in B (A did not touch it), so under either policy B's
    /// order is the one saved, with A's first name beside it. Talk 003 (ordered relationships):
    /// a merge of ordered relationships merges "both the existence of objects in the
    /// relationship as well as the positions of those objects", and "we try to preserve the
    /// relative ordering".
    ///
    /// ObjectGraph saves without error but drops B's reorder: Ada.tasks is A, B, C again, in B
    /// and in the store (both stores, both policies). `ManagedObjectContext.mergedToMany`
    /// (ManagedObjectContext+Faulting.swift), which `resolve(_:)` uses for every changed to-many
    /// slot, builds the result from the *stored* order (kept members) followed by the local
    /// additions; the positions of the context's own list are never consulted, so a change that
    /// is only a reorder merges to nothing.
    func testByPropertyMergePoliciesKeepTheContextsReorderOfAnOrderedToMany() throws {
        for policy in [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump] {
            try forEachStore { stack in
                let ada = try adaWithThreeTasks(stack)
                let a = stack.newContext(), b = stack.newContext()
                b.mergePolicy = policy
                let adaInB = try b.existingObject(with: ada.objectID)
                reverseTasks(of: adaInB)
                try a.existingObject(with: ada.objectID).setValue("Augusta", forKey: "firstName")
                try a.save()
                XCTAssertNoThrow(try b.save(), "\(stack.storeType) \(policy)")
                XCTAssertEqual(taskTitles(adaInB), ["C", "B", "A"], "\(stack.storeType) \(policy): B's Ada.tasks")
                let saved = try stored(stack, ada.objectID)
                XCTAssertEqual(saved.value(forKey: "firstName") as? String, "Augusta", "\(stack.storeType) \(policy)")
                XCTAssertEqual(taskTitles(saved), ["C", "B", "A"], "\(stack.storeType) \(policy): stored Ada.tasks")
            }
        }
    }

    /// Context B inserts a new task at index 0 of Ada's tasks (mutableOrderedSetValue(forKey:),
    /// insert at a position); context A appends task C and saves first; B saves under
    /// mergeByPropertyObjectTrump. Both additions are kept (they do not conflict), and B's new
    /// task stays where B put it, first: the in-memory change trumps (NSMergePolicy), and the
    /// merge of an ordered relationship merges positions too and keeps relative order (talk 003).
    ///
    /// ObjectGraph moves B's task to the end: Ada.tasks is A, B, C, Zero in B and in the store
    /// (both stores). `mergedToMany` appends every local addition after the stored members
    /// (`for destination in mine where !before.contains(...) { result.append(destination) }`),
    /// whatever position it had.
    func testObjectTrumpKeepsThePositionOfAMemberInsertedAtTheFront() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            for title in ["A", "B"] { _ = stack.task(title, owner: ada) }
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = .mergeByPropertyObjectTrump
            let adaInB = try b.existingObject(with: ada.objectID)
            let zero = stack.insert("Task", ["title": "Zero", "uuid": UUID()], into: b)
            adaInB.mutableOrderedSetValue(forKey: "tasks").insert(zero, at: 0)
            _ = stack.insert("Task", ["title": "C", "uuid": UUID(), "owner": try a.existingObject(with: ada.objectID)], into: a)
            try a.save()
            XCTAssertNoThrow(try b.save(), "\(stack.storeType)")
            XCTAssertEqual(taskTitles(adaInB), ["Zero", "A", "B", "C"], "\(stack.storeType): B's Ada.tasks")
            XCTAssertEqual(taskTitles(try stored(stack, ada.objectID)), ["Zero", "A", "B", "C"], "\(stack.storeType): stored Ada.tasks")
        }
    }

    /// Context B reverses Ada's tasks (unsaved); another context renames Ada and saves; B calls
    /// refresh(ada, mergeChanges: true). Apple, refresh(_:mergeChanges:): "If flag is true, the
    /// context reloads the object's property values from the store or the cache. Then the
    /// context applies local changes over the newly loaded values." B's local change is the new
    /// order: B sees the new first name and its own order, and still has changes to save.
    ///
    /// ObjectGraph loses the reorder: Ada.tasks in B is A, B, C after the refresh (both stores),
    /// so B's next save writes nothing of it. `ManagedObjectContext.merge(_:into:keepingLocalChanges:)`
    /// re-applies each changed slot through `mergedToMany`, which rebuilds an ordered list in
    /// the stored order.
    func testRefreshMergingChangesKeepsAnUnsavedReorder() throws {
        try forEachStore { stack in
            let ada = try adaWithThreeTasks(stack)
            let b = stack.newContext()
            let adaInB = try b.existingObject(with: ada.objectID)
            reverseTasks(of: adaInB)
            ada.setValue("Augusta", forKey: "firstName")
            try stack.context.save()
            b.refresh(adaInB, mergeChanges: true)
            XCTAssertEqual(adaInB.value(forKey: "firstName") as? String, "Augusta", "\(stack.storeType)")
            XCTAssertEqual(taskTitles(adaInB), ["C", "B", "A"], "\(stack.storeType): B's Ada.tasks after the refresh")
        }
    }

    /// The same through mergeChanges(fromContextDidSave:): Apple, "This method refreshes any
    /// objects which have been updated in the other context" — a refresh that keeps the
    /// receiving context's unsaved changes (MergeTests.testMergingKeepsUnsavedEditsOfTheReceivingContext
    /// pins that for attributes). B's unsaved reorder of Ada's tasks survives merging a save that
    /// renamed Ada.
    ///
    /// ObjectGraph: B's Ada.tasks is back to A, B, C after the merge (both stores), the same
    /// `mergedToMany` rebuild as in the refresh above.
    func testMergingAnotherContextsSaveKeepsAnUnsavedReorder() throws {
        try forEachStore { stack in
            let ada = try adaWithThreeTasks(stack)
            let b = stack.newContext()
            let adaInB = try b.existingObject(with: ada.objectID)
            reverseTasks(of: adaInB)
            ada.setValue("Augusta", forKey: "firstName")
            let payload = try savePayload(of: stack.context)
            b.mergeChanges(fromContextDidSave: payload)
            XCTAssertEqual(adaInB.value(forKey: "firstName") as? String, "Augusta", "\(stack.storeType)")
            XCTAssertEqual(taskTitles(adaInB), ["C", "B", "A"], "\(stack.storeType): B's Ada.tasks after the merge")
        }
    }

    // MARK: The overwrite policy against a relationship changed elsewhere

    /// Context B reverses Ada's tasks; context A adds task D with `owner` = Ada and saves first;
    /// B saves under the overwrite policy ("saving the entire in-memory object to the persistent
    /// store", NSOverwriteMergePolicy). D's row is not B's to overwrite (B never changed D), so
    /// D stays owned by Ada, and Ada's tasks, the inverse, list it: Core Data keeps the to-many
    /// side of a one-to-many in the destination's foreign key, and ObjectGraph's in-memory store
    /// promises to agree ("a to-many list whose inverse is a to-one follows that to-one, as the
    /// SQLite store's lists follow their foreign keys", InMemoryStore+Saving.swift).
    ///
    /// The SQLite store does so (Ada.tasks is C, B, A, D). The in-memory store stores B's list as
    /// sent, C, B, A, while D.owner is Ada: a fresh context reads a task whose owner does not
    /// list it. `InMemoryStore.keepInverseLists` lets "a list the save sends stand as sent"; it
    /// relists only rows whose to-one moves in this save, and D's does not.
    func testOverwriteKeepsAMemberAddedElsewhereInItsOwnersOrderedList() throws {
        try forEachStore { stack in
            let ada = try adaWithThreeTasks(stack)
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = .overwrite
            let adaInB = try b.existingObject(with: ada.objectID)
            reverseTasks(of: adaInB)
            let d = stack.insert("Task", ["title": "D", "uuid": UUID(), "owner": try a.existingObject(with: ada.objectID)], into: a)
            try a.save()
            XCTAssertNoThrow(try b.save(), "\(stack.storeType)")
            let fresh = stack.newContext()
            let storedAda = try fresh.existingObject(with: ada.objectID)
            XCTAssertTrue(try fresh.existingObject(with: d.objectID).value(forKey: "owner") as? ManagedObject === storedAda,
                          "\(stack.storeType): D.owner")
            XCTAssertEqual(taskTitles(storedAda), ["C", "B", "A", "D"], "\(stack.storeType): stored Ada.tasks")
        }
    }

    /// Context B loads playlist P (no songs) and adds song T; context A adds song S to P and saves
    /// first; B saves under the overwrite policy: B's P (songs = T) replaces the stored one
    /// whole. Whatever P keeps, both sides of a many-to-many relationship are one set of links
    /// (one join table in Core Data's SQLite store): S lists P if and only if P lists S.
    ///
    /// The SQLite store agrees with itself (P.songs = T, S.playlists empty: B's write deleted the
    /// join row). The in-memory store stores P.songs = T but keeps S.playlists = P, as A saved
    /// it: a fresh context sees S in a playlist that does not contain it. The in-memory store
    /// keeps a list per side and the overwrite writes only P's (`InMemoryStore.save`; nothing
    /// takes S out of P's inverse, as `reconcileInverses` does for the rollback and store-trump
    /// policies).
    func testOverwriteOfAManyToManyKeepsBothSidesInStep() throws {
        try forEachStore(model: Self.musicModel) { stack in
            let p = stack.insert("Playlist", ["name": "P"])
            let s = stack.insert("Song", ["title": "S"]), t = stack.insert("Song", ["title": "T"])
            try stack.context.save()
            let a = stack.newContext(), b = stack.newContext()
            b.mergePolicy = .overwrite
            let pInB = try b.existingObject(with: p.objectID)
            XCTAssertEqual(titles(pInB.value(forKey: "songs")), [])
            try a.existingObject(with: p.objectID).mutableOrderedSetValue(forKey: "songs").insert(try a.existingObject(with: s.objectID))
            try a.save()
            pInB.mutableOrderedSetValue(forKey: "songs").insert(try b.existingObject(with: t.objectID))
            XCTAssertNoThrow(try b.save(), "\(stack.storeType)")
            let fresh = stack.newContext()
            let songs = titles(try fresh.existingObject(with: p.objectID).value(forKey: "songs"))
            let playlistsOfS = titles(try fresh.existingObject(with: s.objectID).value(forKey: "playlists"), key: "name")
            XCTAssertEqual(songs.contains("S"), playlistsOfS.contains("P"),
                           "\(stack.storeType): P.songs \(songs), S.playlists \(playlistsOfS)")
        }
    }
}
