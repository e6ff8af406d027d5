// The kinds of records a user names on the command line (contacts, events, tasks, groups): each
// is the root entity of its own table, with the common record attributes (uuid, number, created,
// modified, source, externalID) declared on it.
import Foundation
import ObjectGraph

/// A kind of record and the entity that holds it.
public enum RecordKind: String, Sendable, CaseIterable {
    case contact, event, task, group

    /// The root entity of the kind (sub-entities such as Person belong to it).
    public var entityName: String {
        switch self {
        case .contact: "Contact"
        case .event: "Event"
        case .task: "Task"
        case .group: "Group"
        }
    }

    public var singular: String { rawValue }
    public var plural: String { rawValue + "s" }

    /// The attribute that names a record of the kind for people and for name matching.
    public var nameKey: String {
        switch self {
        case .contact, .group: "name"
        case .event, .task: "title"
        }
    }

    /// The kind of a record's entity, through its parents (Person is a contact).
    public init?(entity: EntityDescription) {
        var current: EntityDescription? = entity
        while let entity = current {
            if let kind = RecordKind.allCases.first(where: { $0.entityName == entity.name }) {
                self = kind
                return
            }
            current = entity.superentity
        }
        return nil
    }
}
