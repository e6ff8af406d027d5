// A row as stores and the coordinator know it: an object's values by slot, and the version the
// store holds them at. Snapshots are what crosses from stores to contexts (and between threads);
// managed objects never do.

/// One value of a snapshot slot.
public enum SnapshotValue: Sendable, Hashable {
    /// No value (nil attribute, empty to-one relationship).
    case null
    /// An attribute value, of the attribute type's Swift type.
    case value(ModelValue)
    /// The destination of a to-one relationship.
    case object(ObjectID)
    /// The destinations of a to-many relationship, in order for an ordered one.
    case objects([ObjectID])
    /// Not loaded: a to-many relationship left as a fault, or a property a partial fetch skipped.
    case unloaded

    public static func == (lhs: SnapshotValue, rhs: SnapshotValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null), (.unloaded, .unloaded): return true
        case let (.value(a), .value(b)): return AnyHashable(a) == AnyHashable(b)
        case let (.object(a), .object(b)): return a == b
        case let (.objects(a), .objects(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .value(let value): hasher.combine(AnyHashable(value))
        case .object(let id): hasher.combine(id)
        case .objects(let ids): hasher.combine(ids)
        case .unloaded: hasher.combine(1)
        }
    }

    /// An attribute's value as a slot holds it (nil for no value).
    var attributeValue: Any? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// Whether the slot holds something other than `.unloaded`.
    public var isLoaded: Bool {
        if case .unloaded = self { return false }
        return true
    }
}

extension Array where Element == SnapshotValue {
    /// Whether slot `index` holds something other than `.unloaded`, looked at where the row
    /// holds it: `row[index].isLoaded` copies the value first, retaining and releasing what it
    /// holds (a string's storage, say), for each slot of each row a save checks.
    @inline(__always)
    func isLoaded(at index: Int) -> Bool {
        withUnsafeBufferPointer { slots in
            if case .unloaded = slots[index] { return false }
            return true
        }
    }
}

/// An object's stored values at one version: slot `i` is property `i` of the entity's layout.
///
/// ```swift
/// let row = try store.snapshots(for: [id])[id]
/// row?.value(forKey: "title")   // .value("Buy milk")
/// ```
public struct Snapshot: Sendable, Hashable {
    /// The object the values belong to.
    public var objectID: ObjectID
    /// The version the store holds the row at; it grows with each saved change (optimistic locking).
    public var version: Int64
    /// One value per slot of the entity's layout.
    public var values: [SnapshotValue] {
        didSet { isWhole = false }
    }
    /// Whether every stored attribute and to-one slot is known to be loaded (a row read whole
    /// says so when it is made): filling an object from it then looks for no unloaded value.
    /// False when unknown; not part of the snapshot's equality.
    private(set) var isWhole = false

    public init(objectID: ObjectID, version: Int64, values: [SnapshotValue]) {
        self.objectID = objectID
        self.version = version
        self.values = values
    }

    /// A snapshot of a row read whole (only to-many slots, if any, unloaded).
    init(objectID: ObjectID, version: Int64, wholeRow values: [SnapshotValue]) {
        self.init(objectID: objectID, version: version, values: values)
        isWhole = true
    }

    /// The snapshot, moved out: `self` keeps only its object ID (no values, so nothing to release
    /// when it goes). Rows handed on along the fetch and save paths move this way: a copy costs a
    /// retain and a release of its values.
    mutating func moveOut() -> Snapshot {
        var row = Snapshot(objectID: objectID, version: 0, values: [])
        swap(&row, &self)
        return row
    }

    /// A snapshot put back together from its parts (the row cache keeps them without the ID).
    init(objectID: ObjectID, version: Int64, values: [SnapshotValue], isWhole: Bool) {
        self.init(objectID: objectID, version: version, values: values)
        self.isWhole = isWhole
    }

    public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
        lhs.objectID == rhs.objectID && lhs.version == rhs.version && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(version)
        hasher.combine(values)
    }

    /// The entity's layout, which gives the slots their meaning.
    public var layout: EntityLayout { objectID.entity.layout }

    /// The value of the property named `key`, or nil when the entity has no such property.
    public func value(forKey key: String) -> SnapshotValue? {
        layout.index(of: key).map { values[$0] }
    }

    /// The values by property name, for messages and debugging (unloaded slots left out).
    public var valuesByName: [String: SnapshotValue] {
        var result: [String: SnapshotValue] = [:]
        for (index, property) in layout.properties.enumerated() where values[index].isLoaded {
            result[property.name] = values[index]
        }
        return result
    }
}
