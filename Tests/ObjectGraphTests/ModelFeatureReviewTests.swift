// Review of model-level features (uniqueness constraints, derived attributes, external binary
// storage, transformable attributes) against Apple's documented Core Data behaviour, on both the
// in-memory and the SQLite store, which must also agree with each other. Every test here fails on
// the code it was written against; each comment says what Core Data does (quoting Apple) and what
// ObjectGraph does instead. Models are built in code.
import Foundation
import XCTest
@testable import ObjectGraph

final class ModelFeatureReviewTests: XCTestCase {
    static let model: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("Tag") {
                Attribute("name", .string)
                Unique("name")
            }
            Entity("Blob") {
                Attribute("name", .string)
                Attribute("data", .binaryData).allowsExternalStorage()
            }
            Entity("Fingerprint") {
                Attribute("data", .binaryData).allowsExternalStorage()
                Unique("data")
            }
            Entity("Shelf") {
                Attribute("name", .string)
                Attribute("favoriteCount", .integer64).derived(from: "favorites.@count")
                // No inverse: a one-way list of books.
                Relationship("favorites", to: "Book", toMany: true)
                Relationship("books", to: "Book", inverse: "shelf", toMany: true)
            }
            Entity("Book") {
                Attribute("title", .string)
                Attribute("shelfName", .string).derived(from: "shelf.name")
                Attribute("touched", .date).derived(from: "now()")
                Relationship("shelf", to: "Shelf", inverse: "books")
            }
            Entity("Note") {
                Attribute("title", .string)
                Attribute("tags", .transformable).transformed(by: ModelFeatureReviewTests.tagTransformerName)
            }
        }
        model.freeze()
        return model
    }()

    static let tagTransformerName = "ModelFeatureReviewTagList"

    /// A value large enough for the SQLite store to keep it in a file (its threshold is 100 KB).
    static let largeData = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    // MARK: Uniqueness constraints

    /// NSEntityDescription.uniquenessConstraints: "An array of arrays that contains one or more
    /// attributes with a value that must be unique over the instances of that entity." Core Data
    /// compares string values as NSString does, NSString.isEqual(to:): "Returns a Boolean value
    /// that indicates whether a given string is equal to the receiver using a literal
    /// Unicode-based comparison" — "café" spelled with U+00E9 and "café" spelled with e + U+0301
    /// are two different values, and both objects save.
    ///
    /// ObjectGraph: the SQLite store (a UNIQUE index, byte comparison) saves both; the in-memory
    /// store keys its constraint index with Swift's `==`/hashing, which equate canonically
    /// equivalent strings, and refuses the save with a uniqueness violation. The two stores give
    /// opposite answers for the same model and objects.
    func testUniquenessConstraintComparesStringsLiterallyOnBothStores() throws {
        try forEachStore(model: Self.model) { stack in
            stack.insert("Tag", ["name": "caf\u{E9}"])
            stack.insert("Tag", ["name": "cafe\u{301}"])
            XCTAssertNoThrow(try stack.context.save(), "\(stack.storeType): two literally different strings are two values")
            XCTAssertEqual(try stack.fetch("Tag", in: stack.newContext()).count, 2, "\(stack.storeType)")
        }
    }

    /// NSAttributeDescription.allowsExternalBinaryDataStorage: "If this value is true, the
    /// corresponding attribute may be stored in a file external to the persistent store itself" —
    /// where the bytes live, not what the value is. uniquenessConstraints: values "must be unique
    /// over the instances of that entity", and "Stores that don’t support uniqueness constraints
    /// must refuse to initialize when receiving a model that contains such constraints."
    ///
    /// ObjectGraph: the SQLite store's UNIQUE index compares the column, which for a value of
    /// 100 KB or more holds a reference to a fresh UUID-named file, so two equal large values never
    /// collide and both rows are saved (small equal values, stored inline, do collide). The
    /// in-memory store refuses the same save. The constraint silently depends on the value's size.
    func testUniquenessConstraintOnExternallyStorableDataHoldsForLargeValues() throws {
        try forEachStore(model: Self.model) { stack in
            stack.insert("Fingerprint", ["data": Data([1, 2, 3])])
            stack.insert("Fingerprint", ["data": Data([1, 2, 3])])
            XCTAssertThrowsError(try stack.context.save(), "\(stack.storeType): equal small values")
            stack.context.rollback()
            stack.insert("Fingerprint", ["data": Self.largeData])
            stack.insert("Fingerprint", ["data": Self.largeData])
            XCTAssertThrowsError(try stack.context.save(), "\(stack.storeType): equal large values break the constraint too")
            XCTAssertLessThanOrEqual(try stack.fetch("Fingerprint", in: stack.newContext()).count, 1, "\(stack.storeType)")
        }
    }

    // MARK: External binary storage

    /// allowsExternalBinaryDataStorage: the value "may be stored in a file external to the
    /// persistent store itself"; it is still the attribute's value. A fetch for `data == %@` finds
    /// the object holding those bytes.
    ///
    /// ObjectGraph: the in-memory store finds it; the SQLite store compares the constant (bound in
    /// its inline form, tag byte + bytes) with a column that holds a file reference, and answers no
    /// objects, without an error. For a small value it finds the object, so the answer depends on
    /// the value's size and on the store.
    func testEqualityPredicateOnExternallyStorableDataFindsLargeValues() throws {
        try forEachStore(model: Self.model) { stack in
            stack.insert("Blob", ["name": "small", "data": Data([1, 2, 3])])
            stack.insert("Blob", ["name": "large", "data": Self.largeData])
            try stack.context.save()
            for (name, value) in [("small", Data([1, 2, 3])), ("large", Self.largeData)] {
                var request = FetchRequest<ManagedObject>(entityName: "Blob")
                request.predicate = try Predicate(format: "data == %@", value)
                let found = try stack.newContext().fetch(request).map { $0.value(forKey: "name") as? String }
                XCTAssertEqual(found, [name], "\(stack.storeType): data == the \(name) value")
            }
        }
    }

    // MARK: Derived attributes

    /// NSDerivedAttributeDescription: "Create a derived relationshipCount attribute to reflect the
    /// number of objects in a relationship and avoid having to do a join." The count reflects the
    /// relationship: once a book of a shelf's (inverse-less) `favorites` is deleted, the shelf holds
    /// one favorite and `favorites.@count` is 1.
    ///
    /// ObjectGraph: the SQLite store (a trigger on the join table) stores 1. The in-memory store
    /// recomputes a count only for rows it finds through the relationship's inverse, and this one
    /// has none: the stored favoriteCount stays 2 while `favorites` answers one book.
    func testDerivedCountOfARelationshipWithoutInverseFollowsDeletedDestinations() throws {
        try forEachStore(model: Self.model) { stack in
            let shelf = stack.insert("Shelf", ["name": "Fiction"])
            let dune = stack.insert("Book", ["title": "Dune"])
            let emma = stack.insert("Book", ["title": "Emma"])
            shelf.setValue(Set([dune, emma]), forKey: "favorites")
            try stack.context.save()
            XCTAssertEqual(try stored(stack, shelf.objectID).value(forKey: "favoriteCount") as? Int64, 2, "\(stack.storeType)")
            let other = stack.newContext()
            other.delete(other.object(with: dune.objectID))
            try other.save()
            let read = try stored(stack, shelf.objectID)
            XCTAssertEqual((read.value(forKey: "favorites") as? Set<ManagedObject>)?.count, 1, "\(stack.storeType): favorites")
            XCTAssertEqual(read.value(forKey: "favoriteCount") as? Int64, 1, "\(stack.storeType): favorites.@count")
        }
    }

    /// A derived `now()` attribute is "When the row was last inserted or updated" (ObjectGraph's
    /// own Derivation.now); whichever reading is right, one model must mean the same thing on both
    /// stores. Renaming a shelf recomputes its books' derived `shelf.name` copy.
    ///
    /// ObjectGraph: on SQLite that recomputation is an UPDATE of the book's row, which fires the
    /// book's `now()` trigger, so `touched` moves; the in-memory store writes the new copy without
    /// touching `touched`. The same save leaves different `touched` values depending on the store.
    func testDerivedNowMeansTheSameOnBothStoresWhenADerivedCopyOfTheRowChanges() throws {
        var moved: [String] = []
        try forEachStore(model: Self.model) { stack in
            let shelf = stack.insert("Shelf", ["name": "Fiction"])
            let book = stack.insert("Book", ["title": "Dune", "shelf": shelf])
            try stack.context.save()
            let before = try XCTUnwrap(try stored(stack, book.objectID).value(forKey: "touched") as? Date)
            // The rename's time must differ from the first save's at SQLite's resolution (a
            // millisecond): wait for the clock to pass it (not for another thread).
            let later = before.addingTimeInterval(0.02)
            while Date() < later {}
            shelf.setValue("Classics", forKey: "name")
            try stack.context.save()
            let read = try stored(stack, book.objectID)
            XCTAssertEqual(read.value(forKey: "shelfName") as? String, "Classics", "\(stack.storeType)")
            let after = try XCTUnwrap(read.value(forKey: "touched") as? Date)
            moved.append("\(stack.storeType): touched \(after.timeIntervalSince(before) > 0.01 ? "moved" : "kept")")
        }
        XCTAssertEqual(Set(moved.map { $0.components(separatedBy: ": ").last! }).count, 1, "the stores disagree: \(moved)")
    }

    // MARK: Transformable attributes

    /// A transformable attribute holds the value its transformer turns into bytes and back; a fetch
    /// for `tags == %@` with the stored value finds the object. (Core Data's SQLite store compares
    /// the transformed bytes.) Whatever a store does, the two stores must answer the same, or refuse.
    ///
    /// ObjectGraph: the in-memory store finds the note; the SQLite store silently answered no
    /// objects (the array constant is not put in the attribute's stored form), without an error.
    /// Now it refuses the comparison, naming the attribute: its column holds the transformer's
    /// bytes, and SQL cannot turn them back into values to compare as the evaluator does.
    func testEqualityPredicateOnATransformableAttributeAgreesAcrossStores() throws {
        AttributeValueTransformer.setValueTransformer(AttributeValueTransformer(
            transform: { value in try JSONEncoder().encode(value as! [String]) },
            reverseTransform: { data in try JSONDecoder().decode([String].self, from: data) }
        ), forName: Self.tagTransformerName)
        defer { AttributeValueTransformer.setValueTransformer(nil, forName: Self.tagTransformerName) }
        try forEachStore(model: Self.model) { stack in
            let note = stack.insert("Note", ["title": "Groceries", "tags": ["food", "weekly"]])
            try stack.context.save()
            XCTAssertEqual(try stored(stack, note.objectID).value(forKey: "tags") as? [String], ["food", "weekly"], "\(stack.storeType)")
            var request = FetchRequest<ManagedObject>(entityName: "Note")
            request.predicate = try Predicate(format: "tags == %@", ["food", "weekly"])
            do {
                let found = try stack.newContext().fetch(request).map { $0.value(forKey: "title") as? String }
                XCTAssertEqual(found, ["Groceries"], "\(stack.storeType)")
            } catch StoreError.unsupportedRequest(let reason) where stack.storeType == .sqlite {
                XCTAssertTrue(reason.contains("Note.tags"), reason)
            }
            request.predicate = try Predicate(format: "tags != nil")
            XCTAssertEqual(try stack.newContext().fetch(request).count, 1, "\(stack.storeType): a comparison with nil is translated")
        }
    }
}
