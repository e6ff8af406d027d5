// The common part of attributes, relationships and fetched properties: a name, optionality,
// transience, user info, renaming identifier and version hash modifier. An entity owns its
// properties; a model is editable until a coordinator starts using it, and read-only after.
import Foundation

/// A property of an entity: an attribute, a relationship or a fetched property.
///
/// Properties are reference types, as in Core Data: a property belongs to one entity
/// (`entity`), and relationships reach their destination and inverse through the model.
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible {
    /// The property's name, unique among the properties of its entity and its superentities.
    public var name: String
    /// Whether the property may be nil (or, for a to-many relationship, empty) when saved.
    public var isOptional: Bool
    /// Whether the property is kept in memory only and never stored.
    public var isTransient: Bool
    /// Free-form key-value pairs from the model editor.
    public var userInfo: [String: String]
    /// The property's name in the previous model version, for migration (Xcode's `elementID`).
    public var renamingIdentifier: String?
    /// A string that changes the property's version hash without changing the property.
    public var versionHashModifier: String?
    /// The legacy `indexed` flag of old model files (fetch indexes replace it).
    public var isIndexed: Bool
    /// Whether a desktop search indexer should see this property (Xcode's Spotlight flag).
    public var isIndexedBySpotlight: Bool
    /// Whether the value is also written to the object's external record file.
    public var isStoredInExternalRecord: Bool
    /// The entity that declares this property; set when the property is added to an entity.
    ///
    /// Not retained (the entity owns its properties) and not weak: weak references would give
    /// entities side tables, and object IDs retain their entity on every copy. A property must
    /// not be used after its entity is gone.
    public internal(set) unowned(unsafe) var entity: EntityDescription?
    /// Where the property was read from, when it came from a model file.
    public var sourceLocation: ModelSourceLocation?

    init(name: String, isOptional: Bool, isTransient: Bool) {
        self.name = name
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.userInfo = [:]
        self.isIndexed = false
        self.isIndexedBySpotlight = false
        self.isStoredInExternalRecord = false
    }

    /// `Entity.name`, or the bare name when the property belongs to no entity yet.
    public var qualifiedName: String {
        if let entity { return "\(entity.name).\(name)" }
        return name
    }

    public var description: String { qualifiedName }

    /// Whether two properties declare the same thing (compared by value; the entities they
    /// belong to and the places they were read from do not count).
    public func isEqual(to other: PropertyDescription) -> Bool {
        name == other.name && isOptional == other.isOptional && isTransient == other.isTransient
            && userInfo == other.userInfo && renamingIdentifier == other.renamingIdentifier
            && versionHashModifier == other.versionHashModifier && isIndexed == other.isIndexed
            && isIndexedBySpotlight == other.isIndexedBySpotlight
            && isStoredInExternalRecord == other.isStoredInExternalRecord
    }

    /// A copy that belongs to no entity.
    public func copy() -> PropertyDescription {
        fatalError("PropertyDescription is abstract: copy() is implemented by each subclass")
    }

    func copyCommonFields(to copy: PropertyDescription) {
        copy.userInfo = userInfo
        copy.renamingIdentifier = renamingIdentifier
        copy.versionHashModifier = versionHashModifier
        copy.isIndexed = isIndexed
        copy.isIndexedBySpotlight = isIndexedBySpotlight
        copy.isStoredInExternalRecord = isStoredInExternalRecord
        copy.sourceLocation = sourceLocation
    }
}
