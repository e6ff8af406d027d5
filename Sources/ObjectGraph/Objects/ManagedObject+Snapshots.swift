// Moving values between a managed object and snapshots: filling a fault from a row, making the
// row a save writes, turning the object back into a fault, and the change queries Core Data
// offers (changedValues, committedValues, persistent changes).
import Foundation

extension ManagedObject {
    /// Fills the object from `snapshot` (it stops being a fault). The row's values stay as they
    /// are (``rowValues``) until the slots are needed; a partial fetch's left-out attributes are
    /// noted as missing (they load when read).
    func apply(_ snapshot: Snapshot) {
        setCommittedSnapshot(snapshot)
        applyCommittedSnapshot()
    }

    /// ``apply(_:)`` with the committed snapshot the object holds already (a fault fetched with
    /// its row): its values become the object's, unchanged.
    func applyCommittedSnapshot() {
        // Values are read from the row in place, by slot: a row must have one per slot (a store
        // that answers otherwise is stopped here, not read past its end).
        precondition(committedValues.count == layout.kinds.count,
                     "\(objectID) has \(committedValues.count) values for the \(layout.kinds.count) properties of \(entity.name)")
        // A fault's slots are the layout's shared arrays: they stay (unpacking replaces them). A
        // loaded object's go now: they may hold objects (relationships) that must not outlive them.
        if !faulted { storedSlots = [] }
        keepEventOldRowValues()
        rowValues = committedValues
        // A row read whole lacks nothing; any other may lack what a partial fetch left out.
        missingSlots = committedSnapshotIsWhole ? nil : Self.missingSlots(in: committedValues, layout)
        hasUntrackedEdits = false
        faulted = false
    }

    /// The stored slots `values` leaves unloaded, to-many relationships apart (they stay faults).
    private static func missingSlots(in values: [SnapshotValue], _ layout: EntityLayout) -> Set<Int>? {
        var missing: Set<Int>?
        for index in values.indices where layout.isStoredSlot[index] && !values.isLoaded(at: index) {
            if case .toMany = layout.kinds[index] { continue }
            missing = (missing ?? []).union([index])
        }
        return missing
    }

    /// For an object being inserted that still has its layout's initial slots (nothing set them
    /// yet) and no to-many relationship: takes the layout's initial row as its values, so that
    /// its attributes are read and set in a row, as a fetched object's are. Whether it did.
    func takesInitialRow() -> Bool {
        guard rowValues.isEmpty, !faulted, !layout.hasToManySlots, !hasUntrackedEdits else { return false }
        let initial = layout.initialSlots
        let shares = storedSlots.withUnsafeBufferPointer { slots in
            initial.withUnsafeBufferPointer { $0.baseAddress == slots.baseAddress }
        }
        guard shares else { return false }
        rowValues = layout.initialRow
        return true
    }

    /// Makes ``slots`` from ``rowValues``: transient attributes get their defaults, stored slots
    /// their row's value.
    @usableFromInline
    func unpackRowValues() {
        let layout = self.layout
        storedSlots = rowValues.withUnsafeBufferPointer { values in
            [Any?](count: layout.kinds.count) { index -> Any? in
                guard layout.isStoredSlot[index] else { return layout.initialSlots[index] }
                switch values[index] {
                case .null, .unloaded: return nil
                case .value(let stored): return stored
                case .object(let id): return id
                case .objects(let ids): return PendingToMany(objectIDs: ids)
                }
            }
        }
        rowValues = []
    }

    /// The row a save writes: every stored slot; to-many relationships only when changed or new.
    func makeSnapshot() -> Snapshot {
        // A fault has not changed: its row is the committed one.
        if faulted, hasCommittedSnapshot { return committedSnapshot.unsafelyUnwrapped }
        let layout = self.layout
        // An object reading its row, changed by the typed setter or not, holds the row a save
        // writes: to-one destinations as IDs, nothing unloaded but to-many relationships (which,
        // unchanged, are left out) and transients.
        if !rowValues.isEmpty && missingSlots == nil && !layout.hasToManySlots {
            return Snapshot(objectID: objectID, version: committedVersion, values: rowValues)
        }
        let missing = missingSlots
        let count = layout.properties.count
        // An attribute not changed since the committed row still holds the row's value (unless
        // an untracked edit wrote it): the row's value is taken as it is, without converting.
        let committed = hasUntrackedEdits || committedValues.count != count ? nil : committedValues
        // Each value made once, by what its slot holds.
        let values = [SnapshotValue](count: count) { index -> SnapshotValue in
            if !layout.isStoredSlot[index] || missing?.contains(index) == true { return .unloaded }
            switch layout.kinds[index] {
            case .attribute(let type):
                if let committed, !changedSlots[index], committed[index].isLoaded { return committed[index] }
                guard let slot = slots[index] else { return .null }
                return Self.snapshotValue(of: slot, type)
            case .toOne:
                switch slots[index] {
                case let object as ManagedObject: return .object(object.objectID)
                case let id as ObjectID: return .object(id)
                default: return .null
                }
            case .toMany:
                if isInserted || changedSlots[index], let storage = slots[index] as? ToManyStorage {
                    return .objects(storage.objects.map(\.objectID))
                }
                return .unloaded
            case .fetched:
                return .unloaded
            }
        }
        return Snapshot(objectID: objectID, version: committedVersion, values: values)
    }

    /// An attribute slot's value as a snapshot holds it. Slots hold values of their attribute
    /// type's Swift type, so unboxing as that type usually does where looking the type up among
    /// all storable ones takes many casts.
    static func snapshotValue(of value: Any, _ type: AttributeType) -> SnapshotValue {
        let typed = PropertyRules.valueType(of: type).flatMap { exactly(value, $0) }
        return (typed ?? StorableValues.modelValue(value)).map { .value($0) } ?? .null
    }

    /// `value` when it is of type `Value` exactly (not bridged or converted).
    private static func exactly<Value: Hashable & Sendable>(_ value: Any, _: Value.Type) -> ModelValue? {
        ExactValue.unbox(value, as: Value.self)
    }

    /// Takes the values of the derived attributes from the committed row, without recording a
    /// change: after a save, the values the store computed. (Objects the save did not write see
    /// a derived value change when they are refreshed or fetched again, as in Core Data.)
    func takeDerivedValues() {
        guard !faulted else { return }
        for slot in layout.derivedSlots where committedValues.isLoaded(at: slot) {
            if rowValues.isEmpty {
                storedSlots[slot] = committedValues[slot].attributeValue
            } else if rowValues[slot] != committedValues[slot] {
                rowValues[slot] = committedValues[slot]
            }
        }
    }

    /// Whether a transient property holds a value (not nil, not an empty relationship): a
    /// refresh that merges changes keeps it, so the object cannot simply become a fault. Objects
    /// still reading their row hold none (setting one unpacks the row).
    var holdsTransientValues: Bool {
        guard !layout.transientSlots.isEmpty, !faulted, rowValues.isEmpty else { return false }
        return layout.transientSlots.contains { slot in
            switch storedSlots[slot] {
            case nil: return false
            case let storage as ToManyStorage: return !storage.elements.isEmpty
            default: return true
            }
        }
    }

    /// Releases the values and makes the object a fault again (they reload on next access).
    func turnIntoFault() {
        guard !faulted else { return }
        willTurnIntoFault()
        slots = []
        changedSlots.removeAll()
        faulted = true
        didTurnIntoFault()
    }

    /// Marks every slot unchanged (after a save or a refresh).
    func clearChanges() {
        changedSlots.removeAll()
    }

    // MARK: Change queries

    /// The changed persistent properties and their new values, since the last save (all set
    /// persistent properties of a new object). Nil values are `NSNull()`, as in Core Data.
    /// Transient properties are not reported, as Apple documents: their changes still make the
    /// object updated, and undo still records them.
    public func changedValues() -> [String: Any] {
        guard !faulted else { return [:] }
        var result: [String: Any] = [:]
        for index in changedSlots where layout.isStoredSlot[index] {
            result[layout.properties[index].name] = publicValue(ofSlot: index) ?? NSNull()
        }
        return result
    }

    /// The persistent properties changed in the current event (since the last
    /// processPendingChanges) and their values before it. Nil values are `NSNull()`. Transient
    /// properties are not reported, as with `changedValues()`.
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
