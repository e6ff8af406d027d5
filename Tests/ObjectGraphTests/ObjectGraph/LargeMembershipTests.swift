// Membership tests over many objects (`owner IN %@` with thousands of objects, and prefetching
// the to-many relationships of thousands of objects) stay one small statement in every store.
import Foundation
import XCTest
@testable import ObjectGraph

final class LargeMembershipTests: XCTestCase {
    func testInWithThousandsOfObjectsMatchesThemAll() throws {
        try forEachStore { stack in
            var people: [ManagedObject] = []
            for n in 0..<1_100 {
                let person = stack.person("P\(n)")
                _ = stack.task("T\(n)", owner: person)
                people.append(person)
            }
            try stack.context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.predicate = try Predicate(format: "owner IN %@", people)
            request.includesPendingChanges = false
            XCTAssertEqual(try stack.context.count(for: request), 1_100, "\(stack.storeType)")
        }
    }

    func testPrefetchingTheTasksOfThousandsOfPeopleWorks() throws {
        try forEachStore { stack in
            for n in 0..<1_050 { _ = stack.task("T\(n)", owner: stack.person("P\(n)")) }
            try stack.context.save()
            let other = stack.newContext()
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.relationshipKeyPathsForPrefetching = ["tasks"]
            let people = try other.fetch(request)
            XCTAssertEqual(people.count, 1_050)
            XCTAssertTrue(people.allSatisfy { ($0.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.first?.isFault == false })
        }
    }
}
