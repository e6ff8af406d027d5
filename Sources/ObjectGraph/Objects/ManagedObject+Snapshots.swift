// Moving values between a managed object and snapshots: filling a fault from a row, making the
// row a save writes, turning the object back into a fault, and the change queries Core Data
// offers (changedValues, committedValues, persistent changes).
import Foundation

extension ManagedObject {
    /// Fills the slots from `snapshot` (the object stops being a fault). Unloaded slots keep a
    /// to-many relationship as a fault; transient attributes get their defaults.
    func apply(_ snapshot: Snapshot) {
        var missing: Set<Int>?
        let layout = self.layout
        let count = layout.kinds.count
        // Each slot initialized once, in place: transient attributes get their defaults, stored
        // slots their snapshot value.
        slots = [Any?](unsafeUninitializedCapacity: count) { buffer, initialized in
            snapshot.values.withUnsafeBufferPointer { values in
                for index in 0..<count {
                    let slot = buffer.baseAddress! + index
                    guard layout.isStoredSlot[index] else {
                        slot.initialize(to: layout.initialSlots[index])
                        continue
                    }
                    switch values[index] {
                    case .null: slot.initialize(to: nil)
                    case .value(let stored): slot.initialize(to: stored)
                    case .object(let id): slot.initialize(to: id)
                    case .objects(let ids): slot.initialize(to: PendingToMany(objectIDs: ids))
                    case .unloaded:
                        // A to-many relationship stays a fault; anything else was left out by a
                        // partial fetch and loads when read.
                        if case .toMany = layout.kinds[index] {} else { missing = (missing ?? []).union([index]) }
                        slot.initialize(to: nil)
                    }
                }
            }
            initialized = count
        }
        missingSlots = missing
        if changedSlots.count != count { changedSlots = layout.unchangedSlots }
        committedSnapshot = snapshot
        hasUntrackedEdits = false
        faulted = false
    }

    /// The row a save writes: every stored slot; to-many relationships only when changed or new.
    func makeSnapshot() -> Snapshot {
        // A fault has not changed: its row is the committed one.
        if faulted, let committedSnapshot { return committedSnapshot }
        let layout = self.layout
        let missing = missingSlots
        let count = layout.properties.count
        // An attribute not changed since the committed row still holds the row's value (unless
        // an untracked edit wrote it): the row's value is taken as it is, without converting.
        let committed = hasUntrackedEdits ? nil : committedSnapshot.flatMap { $0.values.count == count ? $0.values : nil }
        // Each value written once, in place, by what its slot holds.
        let values = [SnapshotValue](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count {
                let value: SnapshotValue
                if !layout.isStoredSlot[index] || missing?.contains(index) == true {
                    value = .unloaded
                } else {
                    switch layout.kinds[index] {
                    case .attribute(let type):
                        if let committed, !changedSlots[index], committed[index].isLoaded {
                            value = committed[index]
                        } else if let slot = slots[index] {
                            value = Self.snapshotValue(of: slot, type)
                        } else {
                            value = .null
                        }
                    case .toOne:
                        switch slots[index] {
                        case let object as ManagedObject: value = .object(object.objectID)
                        case let id as ObjectID: value = .object(id)
                        default: value = .null
                        }
                    case .toMany:
                        if isInserted || changedSlots[index], let storage = slots[index] as? ToManyStorage {
                            value = .objects(storage.objects.map(\.objectID))
                        } else {
                            value = .unloaded
                        }
                    case .fetched:
                        value = .unloaded
                    }
                }
                (buffer.baseAddress! + index).initialize(to: value)
            }
            initialized = count
        }
        return Snapshot(objectID: objectID, version: committedSnapshot?.version ?? 0, values: values)
    }

    /// An attribute slot's value as a snapshot holds it. Slots hold values of their attribute
    /// type's Swift type, so comparing types and one cast usually do where looking the type up
    /// among all storable ones takes many casts.
    private static func snapshotValue(of value: Any, _ type: AttributeType) -> SnapshotValue {
        let typed: ModelValue?
        switch type {
        case .integer16: typed = exactly(value, Int16.self)
        case .integer32: typed = exactly(value, Int32.self)
        case .integer64: typed = exactly(value, Int64.self)
        case .decimal: typed = exactly(value, Decimal.self)
        case .double: typed = exactly(value, Double.self)
        case .float: typed = exactly(value, Float.self)
        case .string: typed = exactly(value, String.self)
        case .boolean: typed = exactly(value, Bool.self)
        case .date: typed = exactly(value, Date.self)
        case .binaryData: typed = exactly(value, Data.self)
        case .uuid: typed = exactly(value, UUID.self)
        case .uri: typed = exactly(value, URL.self)
        case .objectID: typed = exactly(value, ObjectID.self)
        case .undefined, .transformable, .composite: typed = nil
        }
        return (typed ?? StorableValues.modelValue(value)).map { .value($0) } ?? .null
    }

    /// `value` when it is of type `Value` exactly (not bridged or converted).
    private static func exactly<Value: Hashable & Sendable>(_ value: Any, _: Value.Type) -> ModelValue? {
        guard type(of: value) == Value.self else { return nil }
        return value as! Value
    }

    /// Releases the values and makes the object a fault again (they reload on next access).
    func turnIntoFault() {
        guard !faulted else { return }
        willTurnIntoFault()
        slots = []
        changedSlots = []
        faulted = true
        didTurnIntoFault()
    }

    /// Marks every slot unchanged (after a save or a refresh).
    func clearChanges() {
        // The layout's shared array: writing `false` into each slot would copy it per object.
        if changedSlots.contains(true) { changedSlots = layout.unchangedSlots }
    }

    // MARK: Change queries

    /// The changed properties and their new values, since the last save (all set properties of
    /// a new object). Nil values are `NSNull()`, as in Core Data.
    public func changedValues() -> [String: Any] {
        guard !faulted else { return [:] }
        var result: [String: Any] = [:]
        for index in changedSlots.indices where changedSlots[index] {
            result[layout.properties[index].name] = publicValue(ofSlot: index) ?? NSNull()
        }
        return result
    }

    /// The properties changed in the current event (since the last processPendingChanges) and
    /// their values before it. Nil values are `NSNull()`.
    public func changedValuesForCurrentEvent() -> [String: Any] {
        managedObjectContext?.eventChanges(of: self) ?? [:]
    }

    /// The values as last fetched or saved, for `keys` (all properties when nil). A new object
    /// has none. Nil values are `NSNull()`.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        fireFaultIfNeeded()
        if missingSlots != nil { managedObjectContext?.completePartialObject(self) }
        guard let snapshot = committedSnapshot else { return [:] }
        let names = keys ?? layout.properties.filter(\.isStored).map(\.name)
        var result: [String: Any] = [:]
        for name in names {
            guard let index = layout.index(of: name) else { continue }
            switch snapshot.values[index] {
            case .null: result[name] = NSNull()
            case .value(let value): result[name] = value
            case .object(let id): result[name] = managedObjectContext?.object(with: id) ?? id
            case .objects(let ids):
                let objects = ids.compactMap { managedObjectContext?.object(with: $0) }
                let relationship = layout.properties[index] as? RelationshipDescription
                result[name] = relationship?.isOrdered == true ? OrderedSet(objects) as Any : Set(objects) as Any
            case .unloaded:
                if let relationship = layout.properties[index] as? RelationshipDescription, relationship.isToMany,
                   let ids = managedObjectContext?.storedObjectIDs(relationship, of: self) {
                    let objects = ids.compactMap { managedObjectContext?.object(with: $0) }
                    result[name] = relationship.isOrdered ? OrderedSet(objects) as Any : Set(objects) as Any
                }
            }
        }
        return result
    }

    /// The slots whose current value differs from the committed one.
    func persistentChangedSlots() -> [Int] {
        guard let snapshot = committedSnapshot else { return layout.storedIndexes }
        let currentValues = makeSnapshot().values
        return layout.storedIndexes.filter { index in
            guard changedSlots[index] else { return false }
            let current = currentValues[index]
            switch snapshot.values[index] {
            case .unloaded:
                guard case .objects(let ids) = current,
                      let relationship = layout.properties[index] as? RelationshipDescription,
                      let stored = managedObjectContext?.storedObjectIDs(relationship, of: self) else { return true }
                return relationship.isOrdered ? ids != stored : Set(ids) != Set(stored)
            case .objects(let stored):
                guard case .objects(let ids) = current else { return false }
                let ordered = (layout.properties[index] as? RelationshipDescription)?.isOrdered ?? false
                return ordered ? ids != stored : Set(ids) != Set(stored)
            case let committed:
                return committed != current
            }
        }
    }
}
