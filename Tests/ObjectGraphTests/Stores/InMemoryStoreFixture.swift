// The in-memory store tests' fixture: the task model (StoreFixture.swift: to-one, to-many,
// many-to-many and ordered relationships, a sub-entity, a transient attribute, uniqueness
// constraints) in an in-memory store.
import Foundation
@testable import ObjectGraph

/// An in-memory store with the task model loaded, and helpers that build rows and requests.
final class InMemoryStoreFixture: StoreFixture {
    let model: ManagedObjectModel
    let store: InMemoryStore

    /// People, their tasks (a milestone among them), tags and ordered steps.
    static func makeModel() -> ManagedObjectModel {
        let model = ManagedObjectModel {
            for component in TaskModel.components { component }
        }
        model.freeze()
        return model
    }

    init(configuration: String? = nil, options: [String: any Sendable] = [:]) throws {
        model = Self.makeModel()
        store = InMemoryStore(configurationName: configuration, options: options)
        try store.load(model: model)
    }
}
