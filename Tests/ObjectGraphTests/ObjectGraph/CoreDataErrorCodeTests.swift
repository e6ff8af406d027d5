// The framework's errors bridged to NSError carry Core Data's domain, codes and user info keys,
// which code written for Core Data reads (`(error as NSError).code == NSValidation…Error`).
import Foundation
import XCTest
@testable import ObjectGraph

final class CoreDataErrorCodeTests: XCTestCase {
    private func saveError(_ stack: Stack) -> NSError? {
        do {
            try stack.context.save()
            return nil
        } catch {
            return error as NSError
        }
    }

    func testASingleValidationFailureHasItsCoreDataCodeAndKeys() throws {
        try forEachStore { stack in
            let task = stack.task("Plan", priority: 7)
            let error = try XCTUnwrap(saveError(stack))
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSValidationNumberTooLargeError)
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "priority")
            XCTAssertEqual(error.userInfo[NSValidationObjectErrorKey] as? ObjectID, task.objectID)
            XCTAssertEqual(error.userInfo[NSValidationValueErrorKey] as? String, "7")
            XCTAssertTrue(error.localizedDescription.contains("Task.priority"), error.localizedDescription)
        }
    }

    func testEachRuleHasCoreDataCode() throws {
        let cases: [(String, [String: Any], Int)] = [
            ("Person", [:], NSValidationMissingMandatoryPropertyError),
            ("Person", ["firstName": "Ada", "email": "not an address"], NSValidationStringPatternMatchingError),
            ("Task", ["title": "", "uuid": UUID()], NSValidationStringTooShortError),
            ("Task", ["title": String(repeating: "x", count: 201), "uuid": UUID()], NSValidationStringTooLongError),
            ("Task", ["title": "Plan", "uuid": UUID(), "priority": -1], NSValidationNumberTooSmallError),
        ]
        for (entity, values, code) in cases {
            let stack = try Stack(storeType: .inMemory)
            stack.insert(entity, values)
            XCTAssertEqual(saveError(stack)?.code, code, "\(entity) \(values)")
        }
    }

    func testSeveralFailuresAreMultipleErrorsWithEachInDetail() throws {
        try forEachStore { stack in
            _ = stack.person("Ada")  // valid
            stack.insert("Person", ["email": "nope"])  // no first name, a bad email
            let error = try XCTUnwrap(saveError(stack))
            XCTAssertEqual(error.code, NSValidationMultipleErrorsError)
            let details = try XCTUnwrap(error.userInfo[NSDetailedErrorsKey] as? [NSError])
            XCTAssertEqual(Set(details.map(\.code)), [NSValidationMissingMandatoryPropertyError, NSValidationStringPatternMatchingError])
            XCTAssertEqual(Set(details.compactMap { $0.userInfo[NSValidationKeyErrorKey] as? String }), ["firstName", "email"])
        }
    }

    func testAMergeConflictIsAMergeErrorWithItsConflictList() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        try stack.saveElsewhere("Augusta", forKey: "firstName", of: ada.objectID)
        ada.setValue("Countess", forKey: "firstName")
        let error = try XCTUnwrap(saveError(stack))
        XCTAssertEqual(error.code, NSManagedObjectMergeError)
        XCTAssertEqual((error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [MergeConflict])?.map(\.objectID), [ada.objectID])
    }

    func testAMissingObjectIsAReferentialIntegrityError() throws {
        let stack = try Stack(storeType: .sqlite)
        let ada = stack.person("Ada")
        try stack.context.save()
        let id = ada.objectID
        stack.context.delete(ada)
        try stack.context.save()
        do {
            _ = try stack.newContext().existingObject(with: id)
            XCTFail("the object was deleted")
        } catch {
            XCTAssertEqual((error as NSError).code, NSManagedObjectReferentialIntegrityError)
            XCTAssertEqual((error as NSError).domain, NSCocoaErrorDomain)
        }
    }

    func testSQLiteFailuresCarrySQLitesCode() {
        let error = SQLiteError(code: 19, message: "constraint failed", path: "/tmp/x.sqlite") as NSError
        XCTAssertEqual(error.code, NSSQLiteError)
        XCTAssertEqual(error.userInfo[NSSQLiteErrorDomain] as? Int, 19)
        XCTAssertEqual(error.userInfo[NSFilePathErrorKey] as? String, "/tmp/x.sqlite")
    }

    func testAnUnsupportedRequestHasCoreDatasCode() throws {
        let stack = try Stack(storeType: .inMemory)
        XCTAssertThrowsError(try stack.context.execute(BatchDeleteRequest(entity: stack.model.entitiesByName["Task"]!))) {
            XCTAssertEqual(($0 as NSError).code, NSPersistentStoreUnsupportedRequestTypeError)
        }
    }
}
