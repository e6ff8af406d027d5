// Version hashes: a digest per entity (and per property) that changes exactly when a change to
// the model makes data stored with the old model unreadable with the new one. A store keeps the
// hashes of the model it was written with; migration compares them to find what changed.
//
// What counts, and why:
// - entity: its name, whether it is abstract (a concrete entity's rows cannot belong to an
//   abstract one), its parent's name (rows live in the root's table), its stored properties,
//   its uniqueness constraints (inherited ones included: stored rows may violate new ones), and
//   its version hash modifier.
// - attribute: name, type, optionality (stored nils may break a newly required attribute),
//   whether it is derived and from what, whether binary data may live outside the store, the
//   value transformer (it decodes the stored bytes), and the version hash modifier.
// - relationship: name, destination entity, inverse name (one-to-many and many-to-many storage
//   depends on the pair), to-many, ordered (an order column), optionality, modifier.
// What does not count: transient properties and fetched properties (never stored), default
//   values, validation rules, min/max counts, delete rules, class names, user info, renaming
//   identifiers, fetch indexes (a store rebuilds indexes without touching rows), element order.
import Foundation

extension PropertyDescription {
    /// The property's version hash (SHA-256): stable across runs and machines, and changed only
    /// by changes to how its values are stored. Transient and fetched properties hash their name.
    public var versionHash: Data { SHA256.hash(versionHashText) }

    /// The text hashed: one field a line, so the digest does not depend on how Swift prints.
    var versionHashText: String {
        var fields = ["name=\(name)"]
        switch self {
        case let attribute as AttributeDescription where !isTransient:
            fields += ["kind=attribute", "type=\(attribute.attributeType.xcodeName)", "optional=\(isOptional)"]
            if attribute.isDerived { fields.append("derived=\(attribute.derivationExpression ?? "")") }
            if attribute.allowsExternalBinaryDataStorage { fields.append("external=true") }
            if let transformer = attribute.valueTransformerName { fields.append("transformer=\(transformer)") }
            if let composite = attribute.compositeName { fields.append("composite=\(composite)") }
        case let relationship as RelationshipDescription where !isTransient:
            fields += ["kind=relationship", "destination=\(relationship.destinationEntityName)",
                       "inverse=\(relationship.inverseName ?? "")", "toMany=\(relationship.isToMany)",
                       "ordered=\(relationship.isToMany && relationship.isOrdered)", "optional=\(isOptional)"]
        default:
            fields.append("kind=unstored")
        }
        if let modifier = versionHashModifier { fields.append("modifier=\(modifier)") }
        return fields.joined(separator: "\n")
    }

    /// Whether the property is stored (not transient, not a fetched property).
    public var isStored: Bool { !isTransient && !(self is FetchedPropertyDescription) }
}

extension EntityDescription {
    /// The entity's version hash (SHA-256): equal for models whose stored data is compatible,
    /// whatever the order of elements in their files. As Core Data's, it includes the
    /// superentity's hash: a change to an ancestor changes every entity below it.
    public var versionHash: Data {
        // Root first, each hash taking its parent's (the ancestors stop at a cycle).
        var superHash: Data?
        for ancestor in ancestors.reversed() { superHash = ancestor.ownVersionHash(superentityHash: superHash) }
        return ownVersionHash(superentityHash: superHash)
    }

    /// The hash earlier versions of the framework wrote, without the superentity's: stores they
    /// made are still opened (``ManagedObjectModel/isCompatible(storedHashes:entities:)``).
    var legacyVersionHash: Data { ownVersionHash(superentityHash: nil) }

    private func ownVersionHash(superentityHash: Data?) -> Data {
        var fields = ["entity=\(name)", "abstract=\(isAbstract)", "parent=\(parentEntityName ?? "")"]
        let stored = properties.filter(\.isStored).sorted { $0.name < $1.name }
        for property in stored {
            fields.append("property{\n\(property.versionHashText)\n}")
        }
        let constraints = uniquenessConstraints.map { $0.sorted().joined(separator: ",") }.sorted()
        for constraint in constraints { fields.append("unique=\(constraint)") }
        if let modifier = versionHashModifier { fields.append("modifier=\(modifier)") }
        if let superentityHash { fields.append("super=" + superentityHash.hexString) }
        return SHA256.hash(fields.joined(separator: "\n"))
    }
}

extension ManagedObjectModel {
    /// Each entity's version hash, by entity name.
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(entities.map { ($0.name, $0.versionHash) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether data stored with a model whose entity hashes are `hashes` can be read with this
    /// model unchanged (same entities, same hashes).
    public func isConfiguration(withName configuration: String? = nil, compatibleWithVersionHashes hashes: [String: Data]) -> Bool {
        let mine = (entities(forConfigurationName: configuration) ?? entities)
        return isCompatible(storedHashes: hashes, entities: mine)
    }

    /// Whether a store whose metadata is `metadata` (``PersistentStoreCoordinator/metadataForPersistentStore(type:at:options:)``)
    /// can be opened with this model (or its configuration `configuration`) unchanged (Core
    /// Data's `isConfiguration(withName:compatibleWithStoreMetadata:)`): false for metadata
    /// without version hashes (a file Core Data wrote keeps its own, which this framework does
    /// not compute).
    ///
    /// ```swift
    /// let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    /// if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { /* migrate */ }
    /// ```
    public func isConfiguration(withName configuration: String? = nil, compatibleWithStoreMetadata metadata: [String: any Sendable]) -> Bool {
        guard let hashes = metadata[SQLiteStore.versionHashesKey] as? [String: Data] else { return false }
        return isConfiguration(withName: configuration, compatibleWithVersionHashes: hashes)
    }

    /// The first of `models` a store whose metadata is `metadata` opens with unchanged (Core
    /// Data's `mergedModel(from:forStoreMetadata:)`, given the versions instead of bundles): the
    /// model a progressive migration starts from. Nil when none is.
    public static func model(from models: [ManagedObjectModel], forStoreMetadata metadata: [String: any Sendable]) -> ManagedObjectModel? {
        models.first { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }
    }

    /// Whether `stored`, the entity hashes a store recorded, are those of `entities` (some of this
    /// model's): the current hashes, or for a store made before the hashes took the
    /// superentity's, the hashes of then.
    func isCompatible(storedHashes stored: [String: Data], entities: [EntityDescription]) -> Bool {
        stored.count == entities.count && entities.allSatisfy { entity in
            stored[entity.name] == entity.versionHash || stored[entity.name] == entity.legacyVersionHash
        }
    }

    /// What differs between this model's entity hashes and `hashes`, entity by entity: added,
    /// removed and changed entities, with the properties that changed. For error messages and
    /// migration.
    public func versionHashDifferences(from hashes: [String: Data], propertyHashes: [String: [String: Data]] = [:]) -> [String] {
        var differences: [String] = []
        let mine = entityVersionHashesByName
        for name in hashes.keys.sorted() where mine[name] == nil {
            differences.append("entity \(name) was removed")
        }
        for entity in entities {
            guard let old = hashes[entity.name] else {
                differences.append("entity \(entity.name) was added")
                continue
            }
            guard old != entity.versionHash, old != entity.legacyVersionHash else { continue }
            if let oldProperties = propertyHashes[entity.name] {
                let current = Dictionary(entity.properties.filter(\.isStored).map { ($0.name, $0.versionHash) },
                                         uniquingKeysWith: { first, _ in first })
                let names = Set(current.keys).union(oldProperties.keys).sorted()
                let changed = names.filter { current[$0] != oldProperties[$0] }
                differences.append("entity \(entity.name) changed" + (changed.isEmpty ? "" : ": \(changed.joined(separator: ", "))"))
            } else {
                differences.append("entity \(entity.name) changed")
            }
        }
        return differences
    }

    /// Each stored property's version hash, by entity name then property name (kept by stores
    /// so that a mismatch can name the properties that changed).
    public var propertyVersionHashesByEntityName: [String: [String: Data]] {
        Dictionary(entities.map { entity in
            (entity.name, Dictionary(entity.properties.filter(\.isStored).map { ($0.name, $0.versionHash) },
                                     uniquingKeysWith: { first, _ in first }))
        }, uniquingKeysWith: { first, _ in first })
    }
}
