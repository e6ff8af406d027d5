// Validation at save reports every failure of every object at once, with the object, property,
// rule and value of each; custom validation methods take part.
import Foundation
import XCTest
@testable import ObjectGraph

final class ValidationTests: XCTestCase {
    func testValidationReportsSeveralFailuresAtOnce() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            ada.setValue("not-an-email", forKey: "email")
            let task = stack.insert("Task", ["uuid": UUID(), "priority": 9])
            XCTAssertThrowsError(try stack.context.save()) { error in
                guard let failures = (error as? ValidationError)?.failures else { return XCTFail("\(error)") }
                let summary = Set(failures.map { "\($0.entity).\($0.property ?? ""):\($0.rule)" })
                XCTAssertEqual(summary, ["Person.email:pattern /[^@ ]+@[^@ ]+/", "Task.title:required", "Task.priority:maximum 3"])
                let priority = failures.first { $0.property == "priority" }
                XCTAssertEqual(priority?.value, "9")
                XCTAssertEqual(priority?.objectID, task.objectID)
                XCTAssertEqual(failures.first { $0.property == "email" }?.message, "\"not-an-email\" does not match /[^@ ]+@[^@ ]+/")
            }
            XCTAssertEqual(try stack.fetch("Person", in: stack.newContext()).count, 0)
        }
    }

    func testStringLengthAndTypeRulesAreChecked() throws {
        try forEachStore { stack in
            let task = stack.task("")
            task.setValue("high", forKey: "priority")
            XCTAssertThrowsError(try stack.context.save()) { error in
                let rules = (error as? ValidationError)?.failures.map(\.rule) ?? []
                XCTAssertTrue(rules.contains(.minimumLength(1)), "\(rules)")
                XCTAssertTrue(rules.contains(.type(expected: "Integer 16")), "\(rules)")
            }
        }
    }

    func testRelationshipCountsAreChecked() throws {
        let model = ManagedObjectModel {
            Entity("Team") {
                Relationship("members", to: "Member", inverse: "team", toMany: true).required().count(min: 2, max: 3)
            }
            Entity("Member") { Relationship("team", to: "Team", inverse: "members").required() }
        }
        try forEachStore(model: model) { stack in
            let team = stack.insert("Team")
            _ = stack.insert("Member", ["team": team])
            let loner = stack.insert("Member")
            XCTAssertThrowsError(try stack.context.save()) { error in
                let failures = (error as? ValidationError)?.failures ?? []
                XCTAssertTrue(failures.contains { $0.property == "members" && $0.rule == .minimumCount(2) }, "\(failures)")
                XCTAssertTrue(failures.contains { $0.property == "team" && $0.rule == .required && $0.objectID == loner.objectID }, "\(failures)")
            }
        }
    }

    func testValidationPredicatesReportTheirWarnings() throws {
        let model = ManagedObjectModel {
            Entity("Reading") {
                Attribute("celsius", .double).validated(by: "SELF >= -273.15", warning: "below absolute zero")
            }
        }
        try forEachStore(model: model) { stack in
            stack.insert("Reading", ["celsius": -300.0])
            XCTAssertThrowsError(try stack.context.save()) { error in
                XCTAssertEqual((error as? ValidationError)?.failures.first?.message, "-300.0: below absolute zero")
            }
        }
    }

    func testCustomPerPropertyValidatorTakesPart() throws {
        ObjectClasses.register(ValidatedNote.self)
        let model = ManagedObjectModel {
            Entity("ValidatedNote", class: "ValidatedNote") { Attribute("text", .string) }
        }
        try forEachStore(model: model) { stack in
            stack.insert("ValidatedNote", ["text": "TODO"])
            XCTAssertThrowsError(try stack.context.save()) { error in
                XCTAssertEqual((error as? ValidationError)?.failures.first?.message, "notes may not say TODO")
            }
        }
    }
}

/// A class with its own validation method for `text`.
final class ValidatedNote: ManagedObject, PropertyValidating {
    static var validators: [String: (ValidatedNote) -> (inout Any?) throws -> Void] { ["text": ValidatedNote.validateText] }

    func validateText(_ value: inout Any?) throws {
        if value as? String == "TODO" { throw ValidationError(object: self, property: "text", message: "notes may not say TODO") }
    }
}
