// A model, coordinator, store and context for behaviour tests, made for each store type the
// suite runs against (so that every store runs the same behaviour tests).
import Foundation
import XCTest
@testable import ObjectGraph

/// One Core Data stack on a fresh store.
final class Stack {
    let storeType: StoreType
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    let directory: TemporaryDirectory
    let storeURL: URL

    /// The store types every behaviour test runs against.
    static let storeTypes: [StoreType] = [.inMemory, .sqlite, .xml, .binary]

    /// Talk 000's organizer model, read once from Data/Organizer.xcdatamodeld.
    static let organizerModel: ManagedObjectModel = {
        try! ManagedObjectModel(contentsOf: Corpus.data.appendingPathComponent("Organizer.xcdatamodeld"))
    }()

    init(storeType: StoreType, model: ManagedObjectModel = Stack.organizerModel, undo: Bool = false) throws {
        self.storeType = storeType
        self.model = model
        directory = try TemporaryDirectory()
        storeURL = directory.url.appendingPathComponent("store.sqlite")
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: storeType, at: storeURL)
        context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        if undo { context.undoManager = UndoManager() }
    }

    /// Contexts made by ``newContext()``, kept for the stack's life: managed objects do not keep
    /// their context alive (as in Core Data), so a test's objects need it kept.
    private var otherContexts: [ManagedObjectContext] = []

    /// Another main-queue context on the same coordinator, alive as long as the stack.
    func newContext() -> ManagedObjectContext {
        let other = ManagedObjectContext(concurrencyType: .mainQueue)
        other.persistentStoreCoordinator = coordinator
        otherContexts.append(other)
        return other
    }

    /// A main-queue context of a second coordinator with a SQLite store on the stack's file:
    /// another process writing the same file (its saves do not pass through the stack's
    /// coordinator). Alive as long as the stack.
    func otherProcessContext() throws -> ManagedObjectContext {
        let other = PersistentStoreCoordinator(managedObjectModel: model)
        try other.addPersistentStore(type: .sqlite, at: storeURL)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = other
        otherContexts.append(context)
        return context
    }

    /// Sets `value` for `key` of the object of `id` and saves, from another process
    /// (``otherProcessContext()``): the change does not pass through this stack's coordinator.
    func saveElsewhere(_ value: Any?, forKey key: String, of id: ObjectID) throws {
        let other = try otherProcessContext()
        try counterpart(of: id, in: other).setValue(value, forKey: key)
        try other.save()
    }

    /// Runs `body` on a new private-queue context of the stack's coordinator and saves it there.
    func saveInBackground(_ body: (ManagedObjectContext) throws -> Void) throws {
        let background = ManagedObjectContext(concurrencyType: .privateQueue)
        background.persistentStoreCoordinator = coordinator
        try background.performAndWait {
            try body(background)
            try background.save()
        }
    }

    /// A new object of `entity` with `values`, in `context` (the stack's by default).
    @discardableResult
    func insert(_ entity: String, _ values: [String: Any] = [:], into context: ManagedObjectContext? = nil) -> ManagedObject {
        let target = context ?? self.context
        let object = target.insertNewObject(forEntityName: entity)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// A person with a first name.
    func person(_ firstName: String, _ lastName: String? = nil) -> ManagedObject {
        insert("Person", ["firstName": firstName, "lastName": lastName as Any])
    }

    /// A task with a title (and a fresh UUID, which the model requires).
    @discardableResult
    func task(_ title: String, priority: Int = 0, owner: ManagedObject? = nil) -> ManagedObject {
        let task = insert("Task", ["title": title, "uuid": UUID(), "priority": priority])
        if let owner { task.setValue(owner, forKey: "owner") }
        return task
    }

    /// An event with a title and a start date.
    func event(_ title: String, start: Date = Date(timeIntervalSinceReferenceDate: 800_000_000)) -> ManagedObject {
        insert("Event", ["title": title, "uuid": UUID(), "start": start])
    }

    /// All objects of `entity` in `context`, sorted by `key`.
    func fetch(_ entity: String, _ format: String? = nil, sortedBy key: String? = nil,
               in context: ManagedObjectContext? = nil) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let format { request.predicate = try Predicate(format: format) }
        if let key { request.sortDescriptors = [SortDescriptor(key: key)] }
        return try (context ?? self.context).fetch(request)
    }
}

extension XCTestCase {
    /// Waits until every block queued on `context`'s queue before now has run (a merge queued
    /// by a save, say): a block queued behind them fulfils the expectation.
    func drain(_ context: ManagedObjectContext) {
        let done = expectation(description: "the queue ran up to here")
        context.perform { done.fulfill() }
        wait(for: [done], timeout: 10)
    }

    /// Runs `body` once per store type, each on a fresh stack.
    func forEachStore(undo: Bool = false, model: ManagedObjectModel = Stack.organizerModel,
                      _ body: (Stack) throws -> Void) throws {
        for type in Stack.storeTypes {
            try body(Stack(storeType: type, model: model, undo: undo))
        }
    }
}

/// The didSave payload of the next save of `context` (which this saves).
func savePayload(of context: ManagedObjectContext) throws -> ContextDidSave {
    var payload: ContextDidSave?
    let token = context.observe { note in
        if case .didSave(let saved, _) = note { payload = saved }
    }
    defer { token.cancel() }
    try context.save()
    return try XCTUnwrap(payload)
}

/// The object of `id` (an ID of one coordinator) in `context` of another coordinator on the same
/// store file (``Stack/otherProcessContext()``).
func counterpart(of id: ObjectID, in context: ManagedObjectContext) throws -> ManagedObject {
    let local = try XCTUnwrap(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation))
    return try context.existingObject(with: local)
}

/// The object `id` as stored, read through a fresh context of `stack`.
func stored(_ stack: Stack, _ id: ObjectID) throws -> ManagedObject {
    try stack.newContext().existingObject(with: id)
}
