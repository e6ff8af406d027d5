// Merge policies of one's own, as subclasses of Core Data's NSMergePolicy: an override sees the
// save's conflicts (optimistic locking, uniqueness), may apply the base policy through super and
// then change objects; the save writes the result, or fails with nothing written.
import Foundation
import XCTest
@testable import ObjectGraph

/// The store's values win (super), but the context's last name is kept.
private final class KeepMyLastName: CustomMergePolicy, @unchecked Sendable {
    var seen: [MergeConflict] = []

    override func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
        seen += conflicts
        try super.resolve(optimisticLockingConflicts: conflicts, in: context)
        for conflict in conflicts where conflict.persistedSnapshot != nil {
            if case .value(let name)? = conflict.objectSnapshot.value(forKey: "lastName") {
                context.object(with: conflict.objectID).setValue(name, forKey: "lastName")
            }
        }
    }
}

/// Resolves without super: takes the stored row (keeping local changes) and goes on.
private final class RefreshAndRetry: CustomMergePolicy, @unchecked Sendable {
    override func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
        for conflict in conflicts { context.refresh(context.object(with: conflict.objectID), mergeChanges: true) }
    }
}

private struct Refused: Error {}

private final class Refuse: CustomMergePolicy, @unchecked Sendable {
    override func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
        throw Refused()
    }
}

/// A duplicate on a uniqueness constraint is dropped: the stored object stays as it was.
private final class DropDuplicates: CustomMergePolicy, @unchecked Sendable {
    var seen: [ConstraintConflict] = []

    override func resolve(constraintConflict conflict: ConstraintConflict, in context: ManagedObjectContext) throws {
        seen.append(conflict)
        context.delete(context.object(with: conflict.duplicateID))
    }
}

final class CustomMergePolicyTests: XCTestCase {
    /// Ada saved here; then another coordinator changes her first and last names, and this
    /// context changes her last name.
    private func conflictingStack() throws -> (Stack, ManagedObject) {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada", "Lovelace")
        try stack.context.save()
        let elsewhere = try stack.otherProcessContext()
        let theirs = try counterpart(of: ada.objectID, in: elsewhere)
        theirs.setValue("Augusta", forKey: "firstName")
        theirs.setValue("Byron", forKey: "lastName")
        try elsewhere.save()
        ada.setValue("King", forKey: "lastName")
        return (stack, ada)
    }

    private func stored(_ key: String, of id: ObjectID, in stack: Stack) throws -> String? {
        try stack.otherProcessContext().existingObject(with: id).value(forKey: key) as? String
    }

    func testAnOverrideChangesObjectsAfterTheBasePolicy() throws {
        let (stack, ada) = try conflictingStack()
        let policy = KeepMyLastName(base: .mergeByPropertyStoreTrump)
        stack.context.mergePolicy = .custom(policy)
        try stack.context.save()
        XCTAssertEqual(policy.seen.map(\.objectID), [ada.objectID])
        XCTAssertEqual(policy.seen.first?.persistedSnapshot?.value(forKey: "lastName"), .value("Byron"))
        XCTAssertEqual(try stored("firstName", of: ada.objectID, in: stack), "Augusta", "the store's change, by the base policy")
        XCTAssertEqual(try stored("lastName", of: ada.objectID, in: stack), "King", "the override's choice")
        XCTAssertFalse(ada.hasChanges)
    }

    func testAPolicyWithoutOverridesIsItsBase() throws {
        let (stack, ada) = try conflictingStack()
        stack.context.mergePolicy = .custom(CustomMergePolicy(base: .mergeByPropertyObjectTrump))
        try stack.context.save()
        XCTAssertEqual(try stored("firstName", of: ada.objectID, in: stack), "Augusta")
        XCTAssertEqual(try stored("lastName", of: ada.objectID, in: stack), "King")

        let (other, _) = try conflictingStack()
        other.context.mergePolicy = .custom(CustomMergePolicy(base: .error))
        XCTAssertThrowsError(try other.context.save()) { XCTAssertTrue($0 is MergeError, "\($0)") }
    }

    func testAnOverrideMayResolveWithoutTheBasePolicy() throws {
        let (stack, ada) = try conflictingStack()
        stack.context.mergePolicy = .custom(RefreshAndRetry(base: .error))
        try stack.context.save()
        XCTAssertEqual(try stored("firstName", of: ada.objectID, in: stack), "Augusta")
        XCTAssertEqual(try stored("lastName", of: ada.objectID, in: stack), "King")
    }

    func testAnOverridesErrorFailsTheSaveWithNothingWritten() throws {
        let (stack, ada) = try conflictingStack()
        let carol = stack.person("Carol")
        stack.context.mergePolicy = .custom(Refuse(base: .mergeByPropertyObjectTrump))
        XCTAssertThrowsError(try stack.context.save()) { XCTAssertTrue($0 is Refused, "\($0)") }
        XCTAssertEqual(try stored("lastName", of: ada.objectID, in: stack), "Byron")
        XCTAssertEqual(try stack.fetch("Person", in: stack.otherProcessContext()).count, 1, "Carol was not written")
        XCTAssertTrue(carol.isInserted)
    }

    func testAConstraintConflictIsResolvedByTheOverride() throws {
        let model = ManagedObjectModel {
            Entity("Product") { Attribute("serial", .string); Attribute("name", .string); Unique("serial") }
        }
        let stack = try Stack(storeType: .sqlite, model: model)
        stack.insert("Product", ["serial": "A1", "name": "Lamp"])
        try stack.context.save()
        let policy = DropDuplicates(base: .error)
        stack.context.mergePolicy = .custom(policy)
        let duplicate = stack.insert("Product", ["serial": "A1", "name": "Desk lamp"])
        stack.insert("Product", ["serial": "B2", "name": "Chair"])
        try stack.context.save()
        XCTAssertEqual(policy.seen.map(\.duplicateID), [duplicate.objectID])
        XCTAssertEqual(policy.seen.first?.properties, ["serial"])
        let names = try stack.fetch("Product", sortedBy: "serial", in: stack.newContext()).map { $0.value(forKey: "name") as? String }
        XCTAssertEqual(names, ["Lamp", "Chair"])

        stack.context.mergePolicy = .custom(CustomMergePolicy(base: .mergeByPropertyObjectTrump))
        stack.insert("Product", ["serial": "B2", "name": "Armchair"])
        try stack.context.save()
        let renamed = try stack.fetch("Product", sortedBy: "serial", in: stack.newContext()).map { $0.value(forKey: "name") as? String }
        XCTAssertEqual(renamed, ["Lamp", "Armchair"], "the base policy folds the duplicate in, its values winning")
    }
}
