// What the nested-context tests share: child contexts kept for the test's life, and titles.
import Foundation
import XCTest
@testable import ObjectGraph

class NestedContextTestCase: XCTestCase {
    /// Child contexts made by ``child(of:_:name:)``, kept for the test's life (objects do not
    /// keep their context alive).
    private var children: [ManagedObjectContext] = []

    override func tearDown() {
        children = []
        super.tearDown()
    }

    /// A new context whose parent is `parent`.
    func child(of parent: ManagedObjectContext, _ type: ManagedObjectContext.ConcurrencyType = .mainQueue,
               name: String? = nil) -> ManagedObjectContext {
        let child = ManagedObjectContext(concurrencyType: type)
        child.parent = parent
        child.name = name
        children.append(child)
        return child
    }

    /// Keeps `context` for the test's life.
    func keep(_ context: ManagedObjectContext) {
        children.append(context)
    }

    /// The objects' titles, "?" for an object without one.
    func titles(_ objects: [ManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "title") as? String ?? "?" }
    }
}
