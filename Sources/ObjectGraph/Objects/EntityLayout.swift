// Where each property of an entity lives in a managed object's flat value storage. Built once per
// entity when its model is frozen (a coordinator starts using it), so that typed accessors and
// key-value access reach their slot by index, never by hashing through dictionaries of Any.
import Synchronization

/// The slots of an entity's objects: property `i` of `properties` lives at index `i`.
///
/// An inherited property has the same index in every sub-entity (inherited ones come first),
/// so code written against a parent entity reads its sub-entities' objects unchanged.
public final class EntityLayout: @unchecked Sendable {
    /// All properties of the entity, inherited first: index `i` is slot `i`.
    public let properties: [PropertyDescription]
    /// The slot of each property by name.
    public let indexByName: [String: Int]
    /// Each property by name (the later of two with one name), made once: what a frozen
    /// entity's ``EntityDescription/propertiesByName`` answers.
    let propertiesByName: [String: PropertyDescription]
    /// Slots of attributes (transient included).
    public let attributeIndexes: [Int]
    /// Slots of relationships.
    public let relationshipIndexes: [Int]
    /// Slots of properties a store keeps (attributes and relationships that are not transient).
    public let storedIndexes: [Int]
    /// Slots of attributes a store keeps.
    let storedAttributeIndexes: [Int]
    /// Slots of transient attributes and relationships (not fetched properties): values only the
    /// object holds, which a refresh that merges changes keeps.
    let transientSlots: [Int]
    /// Slots of derived attributes: values the store computes when the object is saved.
    let derivedSlots: [Int]
    /// Whether a store keeps each slot.
    let isStoredSlot: [Bool]
    /// Whether each slot is an attribute a store keeps: its value can be read from the row.
    @usableFromInline let isStoredAttributeSlot: [Bool]
    /// The default value of each slot (attributes' defaults; nil elsewhere).
    public let defaultValues: [(any Sendable)?]
    /// For each relationship slot, the slot of its inverse in the destination entity's layout.
    public let inverseNames: [String?]
    /// What each slot holds, decided once so that hot paths switch on it instead of casting
    /// property descriptions.
    let kinds: [SlotKind]
    /// The slots of a new object: the defaults (to-many slots get their own storage per object).
    /// Shared by every new object until it changes a value, so making an object copies nothing.
    let initialSlots: [Any?]
    /// Nil in every slot; shared the same way.
    let absentValues: [Any?]
    /// For each attribute slot whose type has one Swift type, that type (values of it are
    /// stored as they are); nil elsewhere.
    @usableFromInline let valueTypes: [ObjectIdentifier?]
    /// ``ExactValue/valueCaseTag``, kept here so that reading a value in place costs no call.
    @usableFromInline let valueCaseTag = ExactValue.valueCaseTag
    /// ``ManagedObjectContext/concurrencyDebug``, kept where an object's accessors look already:
    /// read through the static, it cost a `swift_once` call on every attribute read.
    @usableFromInline let concurrencyDebug = ManagedObjectContext.concurrencyDebug
    /// Whether some slot is a to-many relationship (a new object then needs storages of its own).
    let hasToManySlots: Bool
    /// The row of a new object: the stored attributes' defaults, no to-one destination, nothing
    /// for the rest. New objects of an entity without to-many relationships read and write their
    /// attributes in it, as fetched objects read theirs (see `ManagedObject.rowValues`).
    let initialRow: [SnapshotValue]
    /// What validating each slot's value takes.
    let validation: [SlotValidation]
    /// The class whose objects last validated, with whether it adopts `PropertyValidating` in
    /// the low bit (class pointers are aligned): a save asks the runtime once per class, not
    /// once per object.
    let validatingClass = Atomic<UInt>(0)

    init(entity: EntityDescription) {
        let all = entity.properties
        var byName: [String: Int] = [:]
        for (index, property) in all.enumerated() { byName[property.name] = index }
        properties = all
        indexByName = byName
        propertiesByName = byName.mapValues { all[$0] }
        attributeIndexes = all.indices.filter { all[$0] is AttributeDescription }
        relationshipIndexes = all.indices.filter { all[$0] is RelationshipDescription }
        storedIndexes = all.indices.filter { all[$0].isStored }
        storedAttributeIndexes = all.indices.filter { all[$0].isStored && all[$0] is AttributeDescription }
        transientSlots = all.indices.filter { !all[$0].isStored && !(all[$0] is FetchedPropertyDescription) }
        derivedSlots = all.indices.filter { (all[$0] as? AttributeDescription)?.isDerived == true && all[$0].isStored }
        isStoredSlot = all.map(\.isStored)
        isStoredAttributeSlot = all.map { $0.isStored && $0 is AttributeDescription }
        defaultValues = all.map { ($0 as? AttributeDescription)?.defaultValue }
        inverseNames = all.map { ($0 as? RelationshipDescription)?.inverseName }
        kinds = all.map(SlotKind.init)
        initialSlots = defaultValues.map { $0 }
        absentValues = Array(repeating: nil, count: all.count)
        valueTypes = kinds.map { kind in
            guard case .attribute(let type) = kind, let valueType = PropertyRules.valueType(of: type) else { return nil }
            return ObjectIdentifier(valueType)
        }
        hasToManySlots = kinds.contains { if case .toMany = $0 { return true } else { return false } }
        let slotKinds = kinds
        initialRow = all.indices.map { index in
            guard all[index].isStored else { return .unloaded }
            switch slotKinds[index] {
            // As a save converts a slot's value: a default of no storable type is no value.
            case .attribute: return (all[index] as? AttributeDescription)?.defaultValue.flatMap(StorableValues.modelValue).map { .value($0) } ?? .null
            case .toOne: return .null
            case .toMany, .fetched: return .unloaded
            }
        }
        validation = all.map(SlotValidation.init)
    }

    /// The slot of the property named `name`, or nil.
    @inlinable
    public func index(of name: String) -> Int? { indexByName[name] }
}

/// What a slot holds.
enum SlotKind {
    /// An attribute of this type (stored or transient).
    case attribute(AttributeType)
    /// A to-one relationship.
    case toOne
    /// A to-many relationship.
    case toMany(ordered: Bool)
    /// A fetched property.
    case fetched

    init(_ property: PropertyDescription) {
        switch property {
        case let attribute as AttributeDescription: self = .attribute(attribute.attributeType)
        case let relationship as RelationshipDescription:
            self = relationship.isToMany ? .toMany(ordered: relationship.isOrdered) : .toOne
        default: self = .fetched
        }
    }
}

extension EntityDescription {
    /// The entity's slot layout: built at freeze time, or computed afresh while the model is
    /// still editable.
    public var layout: EntityLayout { frozenLayout ?? EntityLayout(entity: self) }
}

extension ManagedObjectModel {
    /// Makes the model read-only and builds what the runtime needs (slot layouts). A coordinator
    /// freezes its model; changing a frozen model afterwards is a programming error.
    public func freeze() {
        guard isEditable else { return }
        for entity in entities { entity.frozenLayout = EntityLayout(entity: entity) }
        isEditable = false
    }
}
