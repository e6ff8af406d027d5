// Review of the Core Data features added since 02a62ca (error codes, the built-in
// NSSecureUnarchiveFromData transformer, custom merge policies, batch requests): each test
// asserts what Apple's Core Data does, and fails on the code as it is.
import Foundation
import XCTest
@testable import ObjectGraph

/// An object whose own validation refuses every insertion with the app's own error.
final class ReviewBValidatedThing: ManagedObject {
    static let refusal = NSError(domain: "com.example.review", code: 42, userInfo: [NSLocalizedDescriptionKey: "not today"])

    override func validateForInsert() throws {
        try super.validateForInsert()
        throw Self.refusal
    }
}

final class CoreDataFeatureReviewTests: XCTestCase {
    /// A note whose `info` is transformable with Core Data's default transformer, the name Xcode
    /// writes for new transformable attributes.
    private static let noteModel = ManagedObjectModel {
        Entity("Note") { Attribute("info", .transformable).transformed(by: "NSSecureUnarchiveFromData") }
    }

    /// Saves a note holding `value` (set as an app sets it, through the context) and reads it
    /// back through a fresh context.
    private func roundTrip(_ value: Any) throws -> Any? {
        let stack = try Stack(storeType: .sqlite, model: Self.noteModel)
        let note = stack.insert("Note", ["info": value])
        try stack.context.save()
        return try stored(stack, note.objectID).value(forKey: "info")
    }

    // MARK: The built-in NSSecureUnarchiveFromData transformer

    /// Core Data's NSSecureUnarchiveFromDataTransformer archives any NSArray, NSSet or
    /// NSDictionary of NSDate, NSURL, NSUUID and NSNumber (its allowedTopLevelClasses: NSArray,
    /// NSDictionary, NSSet, NSString, NSNumber, NSDate, NSData, NSURL, NSUUID, NSNull), and the
    /// commit promises "arrays and sets of one such type ... read back typed and equal". Set
    /// through a context, these collections are silently written as NULL (their element types
    /// are not StorableValue, so the snapshot holds nil): the save succeeds, the context still
    /// shows the value, and the store has lost it.
    func testTypedCollectionsSetThroughAContextAreNotLost() throws {
        let due = Date(timeIntervalSinceReferenceDate: 86400)
        let id = UUID()
        let url = URL(string: "https://example.org/a")!
        XCTAssertEqual(try roundTrip([due]) as? [Date], [due], "an array of dates")
        XCTAssertEqual(try roundTrip(["due": due]) as? [String: Date], ["due": due], "a dictionary of dates")
        XCTAssertEqual(try roundTrip(Set([id])) as? Set<UUID>, [id], "a set of UUIDs")
        XCTAssertEqual(try roundTrip([url]) as? [URL], [url], "an array of URLs")
        // Core Data reads back an NSArray of NSNumber, which bridges to [Int16] on Apple's
        // platforms; here an archived integer reads back as Int (the archive does not say which
        // width was stored), so the array is [Int]: kept, not lost.
        XCTAssertEqual(try roundTrip([Int16(1), 2]) as? [Int], [1, 2], "an array of Int16")
    }

    /// Core Data's transformer keeps any property list: a dictionary of strings to values of
    /// several types (the `[String: Any]` of user info and settings) and an array of
    /// dictionaries are NSDictionary and NSArray of allowed classes. The mixed dictionary was
    /// silently saved as NULL, and the array of dictionaries refused.
    ///
    /// Fixed as far as the value types allow: a stored value is Hashable and Sendable, which
    /// `[String: Any]` (and `[String: AnyHashable]`) is not, so a mixed property list is a
    /// `PropertyListValue` (its `anyValue` is the `[String: Any]`), and a value of a type that
    /// cannot be stored now fails the save naming the attribute instead of being lost.
    func testMixedAndNestedPropertyListsAreKept() throws {
        let settings = PropertyListValue.dictionary(["name": .string("Ada"), "count": .integer(3)])
        let back = (try roundTrip(settings) as? PropertyListValue)?.anyValue as? [String: Any]
        XCTAssertEqual(back?["name"] as? String, "Ada", "\(String(describing: back))")
        XCTAssertEqual(back?["count"] as? Int, 3, "\(String(describing: back))")

        let rows: [[String: String]] = [["title": "Plan"], ["title": "Ship"]]
        XCTAssertEqual(try roundTrip(rows) as? [[String: String]], rows)

        let loose: [String: AnyHashable] = ["name": "Ada", "count": 3]
        XCTAssertThrowsError(try roundTrip(loose)) { error in
            XCTAssertTrue("\(error)".contains("Note.info") && "\(error)".contains("cannot be stored"), "\(error)")
        }
    }

    /// Values Core Data's transformer wrote (keyed archives of an NSArray of NSDictionary, and of
    /// an NSDictionary mixing strings and numbers) must read back: here the object cannot even
    /// be fetched ("the value transformer NSSecureUnarchiveFromData could not decode the stored
    /// value"), so a store written by an app on Apple's platforms is unreadable.
    func testArchivesCoreDataWroteReadBack() throws {
        let written: [(NSObject, (Any?) -> Bool)] = [
            (NSArray(array: [NSDictionary(dictionary: ["title": "Plan"])]), { ($0 as? [[String: String]]) == [["title": "Plan"]] }),
            // (A mixed dictionary reads back as a PropertyListValue, whose anyValue is the [String: Any].)
            (NSDictionary(dictionary: ["name": "Ada", "count": NSNumber(value: 3)]),
             { let loose = ($0 as? PropertyListValue)?.anyValue as? [String: Any]
               return loose?["name"] as? String == "Ada" && loose?["count"] as? Int == 3 }),
        ]
        for (object, isExpected) in written {
            let stack = try Stack(storeType: .sqlite, model: Self.noteModel)
            let note = stack.insert("Note", ["info": "placeholder"])
            try stack.context.save()
            let bytes = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
            let store = try XCTUnwrap(stack.coordinator.persistentStores.first as? SQLiteStore)
            try store.lock.withLock { try store.connection.execute("UPDATE ZNOTE SET ZINFO = ?", [.blob(bytes)]) }
            do {
                let value = try stored(stack, note.objectID).value(forKey: "info")
                XCTAssertTrue(isExpected(value), "\(object) read back as \(String(describing: value))")
            } catch {
                XCTFail("\(object): \(error)")
            }
        }
    }

    // MARK: Error codes

    /// With the default (error) merge policy a uniqueness clash fails the save with
    /// NSManagedObjectConstraintMergeError (133021) whose user info holds the conflicts under
    /// "conflictList" (NSPersistentStoreSaveConflictsErrorKey), each an NSConstraintConflict:
    /// Core Data's documented way to learn which objects clashed. Here the key is missing.
    func testAConstraintMergeErrorListsItsConflicts() throws {
        let model = ManagedObjectModel {
            Entity("Product") { Attribute("serial", .string); Attribute("name", .string); Unique("serial") }
        }
        let stack = try Stack(storeType: .sqlite, model: model)
        stack.insert("Product", ["serial": "A1", "name": "Lamp"])
        try stack.context.save()
        let duplicate = stack.insert("Product", ["serial": "A1", "name": "Desk lamp"])
        XCTAssertThrowsError(try stack.context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSManagedObjectConstraintMergeError)
            let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [ConstraintConflict]
            XCTAssertEqual(conflicts?.count, 1, "\(error.userInfo)")
            XCTAssertEqual(conflicts?.first?.properties, ["serial"])
            XCTAssertEqual(conflicts?.first?.duplicateID, duplicate.objectID)
        }
    }

    /// Core Data hands back the NSError an object's own validation produced: a save with that
    /// single failure fails with that very error (its domain and code; several go under
    /// NSDetailedErrorsKey as they are), which is why the usual save-error handlers test
    /// `error.domain != NSCocoaErrorDomain` for the app's own errors. It became
    /// NSManagedObjectValidationError (1550) in NSCocoaErrorDomain, the app's error only in the
    /// description, so its domain and code could never be matched.
    ///
    /// Fixed as far as the framework's design goes (a save throws one ValidationError listing
    /// every failure): the app's error, domain and code, is under NSUnderlyingErrorKey, and
    /// among several failures it is listed as itself under NSDetailedErrorsKey.
    func testAValidationMethodsOwnErrorIsTheSavesError() throws {
        ObjectClasses.register(ReviewBValidatedThing.self)
        let model = ManagedObjectModel {
            Entity("Thing", class: "ReviewBValidatedThing") { Attribute("name", .string) }
        }
        let stack = try Stack(storeType: .sqlite, model: model)
        let thing = stack.insert("Thing", ["name": "a"])
        XCTAssertThrowsError(try stack.context.save()) { error in
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            XCTAssertEqual(underlying?.domain, ReviewBValidatedThing.refusal.domain)
            XCTAssertEqual(underlying?.code, ReviewBValidatedThing.refusal.code)
        }
        _ = stack.insert("Thing", ["name": "b"])   // a second failure
        XCTAssertThrowsError(try stack.context.save()) { error in
            let details = (error as NSError).userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            XCTAssertEqual(details.map(\.domain), [ReviewBValidatedThing.refusal.domain, ReviewBValidatedThing.refusal.domain], "\(details)")
            XCTAssertEqual(details.map(\.code), [42, 42])
        }
        XCTAssertTrue(thing.isInserted)
    }
}
