// A frozen two-entity model (Note, Tag) and object IDs of it by key, for the tests of object IDs
// and of the tables keyed by them.
@testable import ObjectGraph

enum NotesAndTags {
    static let model: ManagedObjectModel = {
        let model = ManagedObjectModel {
            Entity("Note") { Attribute("text", .string) }
            Entity("Tag") { Attribute("name", .string) }
        }
        model.freeze()
        return model
    }()

    /// The permanent ID of the `entity` row with primary key `key` in the store `store`.
    static func id(_ entity: String, _ key: Int64, store: String = "S") -> ObjectID {
        ObjectID(entity: model.entitiesByName[entity]!, storeIdentifier: store, primaryKey: key)
    }
}
