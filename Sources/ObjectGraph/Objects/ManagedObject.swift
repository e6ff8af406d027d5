// The managed object: an object of any entity, its values in a flat array of slots indexed by the
// entity's layout. It fires its fault on first access, records every change with its context
// (undo, notifications, save), keeps inverse relationships, and offers Core Data's hooks to
// subclasses, which are either generated from the model or written by hand.
import Foundation

/// An object of an entity, managed by a context.
///
/// ```swift
/// let task = ManagedObject(entity: model.entitiesByName["Task"]!, insertInto: context)
/// task.setValue("Buy milk", forKey: "title")
/// task.value(forKey: "title")   // "Buy milk"
/// try context.save()
/// ```
///
/// Managed objects belong to their context's queue: never pass one to another context or
/// thread; pass its ``objectID`` and ask the other context for it.
open class ManagedObject: KeyValueCoding, Hashable, CustomStringConvertible {
    // The stored properties touched on every access skip Swift's dynamic exclusivity checks
    // (`@exclusivity(unchecked)`): an object is confined to its context's queue, and the checks
    // (a thread-local access set per read or write) were a tenth of every fetch and save.

    /// The object's entity.
    ///
    /// Not retained, as an object ID's entity is not: an entity lives as long as the process
    /// once an object or ID of it is made (`EntityLifetime`), and a retain and a release per
    /// object made and freed was a share of every fetch and insert.
    public unowned(unsafe) let entity: EntityDescription
    /// When the object was first registered with its context: orders saves and notifications
    /// deterministically without comparing object IDs. Declared here, so that it shares the
    /// object's first cache line with its reference count: a large save reads it from every
    /// changed object as it retains them.
    @exclusivity(unchecked) var registrationSequence: UInt64 = 0
    /// The object's identity; temporary until the object is first saved.
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID
    /// The context that manages the object; nil once the object is removed from it.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { contextReference?.object }
        set { contextReference = newValue.map(Unowned.init) }
    }
    /// The context, held unretained: a weak reference cost two atomic operations on every access
    /// (a set, a fault, a release), on a side table shared by all the context's objects. The
    /// context clears it when the object leaves it and, when the context goes, in every object
    /// that still refers to it: those are all in its registry or its ``ManagedObjectContext/detached``
    /// objects.
    @exclusivity(unchecked) var contextReference: Unowned<ManagedObjectContext>?

    /// The entity's slot layout.
    @usableFromInline let layout: EntityLayout
    /// Current values, one per slot: attribute values; for a to-one relationship a
    /// `ManagedObject` or (not yet resolved) an `ObjectID`; for a to-many relationship a
    /// `ToManyStorage`, or nil while the relationship is a fault. Empty while the object is a fault.
    ///
    /// An object filled from a row keeps the row's values (``rowValues``) instead, until
    /// something other than reading a stored attribute touches the slots: they are unpacked then.
    @usableFromInline final var slots: [Any?] {
        @inline(__always) _read {
            if !rowValues.isEmpty { unpackRowValues() }
            yield storedSlots
        }
        @inline(__always) set {
            rowValues = []
            storedSlots = newValue
        }
        @inline(__always) _modify {
            if !rowValues.isEmpty { unpackRowValues() }
            yield &storedSlots
        }
    }
    /// The slots' storage (see ``slots``); not read while ``rowValues`` holds the values (it is
    /// empty then, or still the layout's shared initial slots).
    @exclusivity(unchecked) @usableFromInline final var storedSlots: [Any?]
    /// The row an object was filled from, while its slots are not unpacked (empty otherwise).
    /// Filling a fault then costs no conversion per value and no array of its own; reading a
    /// stored attribute takes the value from the row.
    @exclusivity(unchecked) @usableFromInline final var rowValues: [SnapshotValue] = []
    // The flags are declared together, so that they share one word of the object.
    /// Whether the values are not loaded yet.
    @exclusivity(unchecked) @usableFromInline final var faulted: Bool
    /// Whether the context will insert the object at the next save.
    @exclusivity(unchecked) public internal(set) var isInserted = false
    /// Whether the context will delete the object at the next save.
    @exclusivity(unchecked) public internal(set) var isDeleted = false
    /// Whether the object is a new one that left the context unsaved (its insertion undone, or
    /// deleted before a save): it has no row, even when its ID was made permanent early
    /// (`obtainPermanentIDs`), so it is neither updated nor deleted, and no saved object may
    /// refer to it.
    @exclusivity(unchecked) var isUnsavedOutOfContext = false
    /// Whether awakeFromFetch is running: changes then are not tracked (as in Core Data).
    @exclusivity(unchecked) var isAwakingFromFetch = false
    /// Whether a slot was written without being marked changed (primitive setters, changes in
    /// awakeFromFetch) since the values were last applied from the committed row: a save then
    /// converts every slot instead of reusing the row's values for unchanged ones.
    @exclusivity(unchecked) var hasUntrackedEdits = false
    /// Whether the object has a committed snapshot (``committedSnapshot``): it was fetched or saved.
    @exclusivity(unchecked) var hasCommittedSnapshot = false
    /// Whether the committed snapshot is a row read whole (``Snapshot/isWhole``).
    @exclusivity(unchecked) var committedSnapshotIsWhole = false
    /// Which slots changed since the last save (or since insertion): bits, so that marking and
    /// clearing changes allocate and free nothing.
    @exclusivity(unchecked) var changedSlots = SlotSet()
    /// The committed snapshot's values (empty without one). The snapshot is kept in parts, its
    /// object ID being the object's own: 24 bytes more per object slowed every pass over many
    /// objects (making, reading, freeing them) by a few percent.
    @exclusivity(unchecked) var committedValues: [SnapshotValue] = []
    /// The committed snapshot's version (0 without one).
    @exclusivity(unchecked) var committedVersion: Int64 = 0
    /// The row cache's generation when a fetch gave this fault its `committedSnapshot`: while the
    /// cache's generation is the same, firing the fault needs no cache lookup (0: never recorded).
    @exclusivity(unchecked) var committedSnapshotGeneration: UInt64 = 0
    /// The batch this fault was fetched with: firing it loads the whole batch in one request.
    @exclusivity(unchecked) var faultBatch: FaultBatch?
    /// The fault's position in `faultBatch`.
    @exclusivity(unchecked) var faultBatchPosition = 0
    /// Slots a partial fetch (propertiesToFetch) did not load; reading one loads them.
    @exclusivity(unchecked) @usableFromInline final var missingSlots: Set<Int>?
    /// For changedValuesForCurrentEvent: the value each slot had before its first change in the
    /// context's event ``eventOldValuesEvent`` (nil: not changed in it; ``RecordedNil``: it was
    /// nil). Kept on the object, by slot, so that recording a change hashes no property name.
    @exclusivity(unchecked) var eventOldValues: [Any?] = []
    /// For changedValuesForCurrentEvent, besides `eventOldValues`: the row the object read its
    /// attributes from before its first typed set in the event (``rowValues``), and which slots
    /// take their old value from it (bit `index`).
    @exclusivity(unchecked) var eventOldRow: [SnapshotValue] = []
    @exclusivity(unchecked) var eventRowMask: UInt64 = 0
    /// The context event `eventOldValues` belongs to; other events' values are stale.
    @exclusivity(unchecked) var eventOldValuesEvent: UInt64 = 0
    /// The context event whose inserted objects include this one (0: none), so that recording a
    /// change needs no lookup in the event's inserted objects.
    @exclusivity(unchecked) var insertedInEvent: UInt64 = 0

    /// A new object of `entity`, inserted into `context` (with its default values and
    /// ``awakeFromInsert()``), or not inserted anywhere when `context` is nil.
    public required init(entity: __shared EntityDescription, insertInto context: __shared ManagedObjectContext?) {
        precondition(!entity.isAbstract, "cannot make an object of the abstract entity \(entity.name)")
        self.entity = entity
        objectID = ObjectID.temporary(for: entity)
        layout = entity.layout
        // The layout's shared arrays: nothing is copied until the object changes a value.
        storedSlots = layout.initialSlots
        faulted = false
        if layout.hasToManySlots {
            for index in layout.kinds.indices {
                if case .toMany = layout.kinds[index] { slots[index] = ToManyStorage() }
            }
        }
        if let context { context.insert(self) }
    }

    /// A new object of the entity this class represents, inserted into `context`.
    ///
    /// The entity is the one whose class name is this class's ``entityName``.
    public convenience init(context: ManagedObjectContext) {
        guard let entity = context.entity(forClass: Self.self) else {
            preconditionFailure("the model of \(context) has no entity \(Self.entityName) for class \(Self.self)")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// The name of the entity this class represents; generated classes return their entity's
    /// name. Defaults to the class's own name.
    open class var entityName: String {
        String(describing: self)
    }

    /// The values as last fetched or saved, with their version; nil for new objects.
    var committedSnapshot: Snapshot? {
        get {
            guard hasCommittedSnapshot else { return nil }
            return Snapshot(objectID: objectID, version: committedVersion, values: committedValues, isWhole: committedSnapshotIsWhole)
        }
        set {
            if let newValue {
                setCommittedSnapshot(newValue)
            } else {
                committedValues = []
                committedVersion = 0
                committedSnapshotIsWhole = false
                hasCommittedSnapshot = false
            }
        }
    }

    /// Makes `snapshot` the committed one, its values moved rather than copied.
    func setCommittedSnapshot(_ snapshot: consuming Snapshot) {
        committedVersion = snapshot.version
        committedSnapshotIsWhole = snapshot.isWhole
        var values: [SnapshotValue] = []
        swap(&values, &snapshot.values)
        committedValues = values
        hasCommittedSnapshot = true
    }

    deinit {
        contextReference?.with { context in
            context.objectWillDeallocate(objectID, identity: ObjectIdentifier(self), retainedCache: hasCommittedSnapshot)
        }
    }

    // MARK: State

    /// Whether the object's values are not loaded yet (they load on first access).
    public var isFault: Bool { faulted }

    /// Whether the object has changes not saved yet (inserted, deleted, or changed values).
    public var hasChanges: Bool { isInserted || isDeleted || !changedSlots.isEmpty }

    /// Whether the object was changed in a way a save would write: unlike ``hasChanges``, false
    /// when changed values were set back to what is stored.
    public var hasPersistentChangedValues: Bool {
        if isInserted || isDeleted { return true }
        guard !faulted else { return false }
        return !persistentChangedSlots().isEmpty
    }

    /// Whether the object was updated (changed, not inserted or deleted).
    public var isUpdated: Bool { !isInserted && !isDeleted && !changedSlots.isEmpty }

    // MARK: Identity

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Sets and dictionaries of objects (relationship contents, change sets) ask for this: the
    /// object's address, mixed cheaply (``HashMixing``).
    public func _rawHashValue(seed: Int) -> Int {
        HashMixing.mix(UInt64(UInt(bitPattern: ObjectIdentifier(self))), seed: seed)
    }

    public var description: String {
        let head = "<\(entity.name): \(objectID)>"
        if faulted { return head + " (fault)" }
        let values = layout.properties.indices.compactMap { index -> String? in
            guard let property = layout.properties[index] as? AttributeDescription, let value = slots[index] else { return nil }
            return "\(property.name): \(String(reflecting: value))"
        }
        return head + " { " + values.joined(separator: ", ") + " }"
    }

    // MARK: Key-value access

    /// The value of the property named `key`: an attribute's value, a to-one relationship's
    /// object, a to-many relationship's `Set<ManagedObject>` (`OrderedSet` when ordered), or a
    /// fetched property's objects (empty when its fetch fails: ``fetchedObjects(forKey:)``
    /// throws the error). `self` answers the object, as every object answers it in Foundation's
    /// key-value coding. Unknown keys answer nil. Fires the fault.
    open func value(forKey key: String) -> Any? {
        if let index = layout.index(of: key) { return value(atSlot: index) }
        switch key {
        case "self": return self
        case "objectID": return objectID
        case "entity": return entity
        default: return nil
        }
    }

    /// Sets the property named `key`, recording the change (undo, notifications, save) and
    /// keeping the inverse of a relationship. Traps on a key the entity does not have.
    open func setValue(_ value: Any?, forKey key: String) {
        guard let index = layout.index(of: key) else {
            preconditionFailure("\(entity.name) has no property \"\(key)\"")
        }
        setValue(value, atSlot: index)
    }

    /// The values of `keys`, nil ones as `NSNull()`, as Foundation's
    /// `dictionaryWithValues(forKeys:)` answers.
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        var values: [String: Any] = [:]
        for key in keys { values[key] = value(forKey: key) ?? NSNull() }
        return values
    }

    /// Sets the value of each key (`NSNull()` sets nil), as Foundation's `setValuesForKeys(_:)`;
    /// each is a change as ``setValue(_:forKey:)`` makes it. Traps on a key the entity does not
    /// have, before setting any.
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for key in keyedValues.keys where layout.index(of: key) == nil {
            preconditionFailure("\(entity.name) has no property \"\(key)\"")
        }
        for (key, value) in keyedValues.sorted(by: { $0.key < $1.key }) {
            setValue(value is NSNull ? nil : value, forKey: key)
        }
    }

    /// The value at the end of `keyPath` (`"owner.name"`, `"tasks.@count"`).
    open func value(forKeyPath keyPath: String) -> Any? {
        KeyValueAccess.value(of: self, forKeyPath: keyPath)
    }

    /// The value of `key` without firing a change or an access: the raw stored value (to-many
    /// relationships as sets). Fires the fault.
    open func primitiveValue(forKey key: String) -> Any? {
        guard let index = layout.index(of: key) else { return nil }
        fireFaultIfNeeded()
        completeIfMissing(index)
        return publicValue(ofSlot: index)
    }

    /// Sets `key` without recording the change (no undo, no notification, no inverse). For
    /// custom accessors and awakeFromFetch; a save writes it only if the object also changed.
    open func setPrimitiveValue(_ value: Any?, forKey key: String) {
        guard let index = layout.index(of: key) else {
            preconditionFailure("\(entity.name) has no property \"\(key)\"")
        }
        fireFaultIfNeeded()
        hasUntrackedEdits = true
        if layout.properties[index] is RelationshipDescription, let relationship = layout.properties[index] as? RelationshipDescription, relationship.isToMany {
            slots[index] = ToManyStorage(objects(from: value))
        } else {
            slots[index] = normalized(value, forSlot: index)
        }
    }

    // MARK: Custom accessors

    /// Opens a change of `key` made with ``setPrimitiveValue(_:forKey:)`` in a custom accessor,
    /// as Core Data's custom setters do:
    ///
    /// ```swift
    /// willChangeValue(forKey: "title")
    /// setPrimitiveValue(newValue.trimmingCharacters(in: .whitespaces), forKey: "title")
    /// didChangeValue(forKey: "title")
    /// ```
    ///
    /// The value before is kept until ``didChangeValue(forKey:)``, which records the change as
    /// `setValue(_:forKey:)` would have (undo, change tracking, inverse relationships,
    /// notifications). Nested brackets of one key record once, at the outermost close.
    open func willChangeValue(forKey key: String) {
        guard let index = layout.index(of: key), let context = managedObjectContext else { return }
        let object = ObjectIdentifier(self)
        if let open = context.valuesBeforeChange[object]?[index] {
            context.valuesBeforeChange[object]?[index] = (open.value, open.depth + 1)
        } else {
            context.valuesBeforeChange[object, default: [:]][index] = (primitiveValue(forKey: key), 1)
        }
    }

    /// Closes the change ``willChangeValue(forKey:)`` opened: the value set since is recorded
    /// as a change from the value then.
    open func didChangeValue(forKey key: String) {
        guard let index = layout.index(of: key), let context = managedObjectContext else { return }
        let object = ObjectIdentifier(self)
        guard let open = context.valuesBeforeChange[object]?[index] else { return }
        guard open.depth <= 1 else {
            context.valuesBeforeChange[object]?[index] = (open.value, open.depth - 1)
            return
        }
        context.valuesBeforeChange[object]?[index] = nil
        if context.valuesBeforeChange[object]?.isEmpty == true { context.valuesBeforeChange[object] = nil }
        let after = primitiveValue(forKey: key)
        setPrimitiveValue(open.value, forKey: key)
        setValue(after, atSlot: index)
    }

    /// Core Data's bracket of a custom getter's ``primitiveValue(forKey:)``: fires the fault
    /// first, so that the primitive value read is loaded.
    open func willAccessValue(forKey key: String?) {
        fireFaultIfNeeded()
    }

    /// Closes ``willAccessValue(forKey:)``; nothing is left to do.
    open func didAccessValue(forKey key: String?) {}

    // MARK: Slot access (for generated accessors)

    /// The value of slot `index` (see ``EntityLayout``), as ``value(forKey:)`` answers it.
    public final func value(atSlot index: Int) -> Any? {
        assertOnContextQueue()
        fireFaultIfNeeded()
        completeIfMissing(index)
        if !rowValues.isEmpty, layout.isStoredAttributeSlot[index] {
            switch rowValues[index] {
            case .value(let value): return value
            case .null: return nil
            default: break
            }
        }
        return publicValue(ofSlot: index)
    }

    /// The value of attribute slot `index` as a `Value`: what `value(atSlot: index) as? Value`
    /// answers, for accessors that know the attribute's Swift type (generated ones). A value of
    /// exactly that type is taken out of its box without a dynamic cast.
    @inlinable
    public final func attribute<Value>(atSlot index: Int, as _: Value.Type = Value.self) -> Value? {
        // A loaded object reading its row: the value is read where the row holds it. (A fault
        // fires first: its row is then the one it holds.)
        assertOnContextQueue()
        if faulted { fireFault() }
        if !faulted, missingSlots == nil, !rowValues.isEmpty, layout.isStoredAttributeSlot[index] {
            let stored = rowValues.withUnsafeBufferPointer { row in
                ExactValue.storedValue(at: row.baseAddress.unsafelyUnwrapped + index, as: Value.self, tag: layout.valueCaseTag)
            }
            if let stored { return stored }
        }
        guard let value = value(atSlot: index) else { return nil }
        return ExactValue.cast(value, as: Value.self)
    }

    /// Sets slot `index` as ``setValue(_:forKey:)`` does.
    public final func setValue(_ value: Any?, atSlot index: Int) {
        assertOnContextQueue()
        fireFaultIfNeeded()
        switch layout.kinds[index] {
        case .attribute(let type):
            setAttribute(value, of: type, atSlot: index)
        case .toMany:
            replaceObjects(in: index, with: objects(from: value))
        case .toOne:
            precondition(value == nil || value is ManagedObject, "\(entity.name).\(layout.properties[index].name) takes a managed object")
            setToOne(value as? ManagedObject, atSlot: index)
        case .fetched:
            preconditionFailure("\(entity.name).\(layout.properties[index].name) is a fetched property: it cannot be set")
        }
    }

    /// In concurrency debug mode, traps when called off the context's queue. Checks the flag
    /// (the layout's copy) before loading the context reference. Inlinable: generated accessors,
    /// inlined into the caller's module, made a call per access just for the flag.
    @inlinable @inline(__always)
    func assertOnContextQueue(_ function: StaticString = #function) {
        if layout.concurrencyDebug { checkContextQueue(function) }
    }

    /// ``assertOnContextQueue(_:)``'s check, with concurrency debugging on.
    @usableFromInline
    func checkContextQueue(_ function: StaticString) {
        managedObjectContext?.assertOnQueue(function)
    }

    /// Sets attribute slot `index` as ``setValue(_:atSlot:)`` does, for accessors that know the
    /// attribute's Swift type (generated ones): a value of exactly the attribute's type needs no
    /// conversion, and comparing it with the current value takes one cast. Other values take
    /// the general path.
    @inlinable
    public final func setAttribute<Value: Equatable>(_ value: Value?, atSlot index: Int) {
        guard layout.valueTypes[index] == ObjectIdentifier(Value.self) else {
            setValue(value, atSlot: index)
            return
        }
        assertOnContextQueue()
        fireFaultIfNeeded()
        setSlot(value, atSlot: index)
    }

    /// Stores `value`, of exactly slot `index`'s attribute type, in the slots when it differs.
    @inlinable
    final func setSlot<Value: Equatable>(_ value: Value?, atSlot index: Int) {
        guard let value else {
            if slots[index] != nil { changePrimitive(slot: index, to: nil) }
            return
        }
        if let current = slots[index], ExactValue.cast(current, as: Value.self) == value { return }
        changePrimitive(slot: index, to: value)
    }

    /// ``setAttribute(_:atSlot:)`` for values that snapshots hold as they are (every attribute
    /// type's Swift type): an object still reading its fetched row takes the new value into the
    /// row (`rowValues` becomes the object's current values, the committed snapshot keeping the
    /// old ones) instead of unpacking the row into slots; a save then hands that row to the store
    /// as it is.
    @inlinable
    public final func setAttribute<Value: Hashable & Sendable>(_ value: Value?, atSlot index: Int) {
        guard layout.valueTypes[index] == ObjectIdentifier(Value.self) else {
            setValue(value, atSlot: index)
            return
        }
        assertOnContextQueue()
        fireFaultIfNeeded()
        if !rowValues.isEmpty && missingSlots == nil && layout.isStoredAttributeSlot[index] {
            // The current value is compared where the row holds it, when it can be read there.
            if let current = rowValues.withUnsafeBufferPointer({
                ExactValue.storedValue(at: $0.baseAddress.unsafelyUnwrapped + index, as: Value.self, tag: layout.valueCaseTag)
            }) {
                if current == value { return }
            } else {
                switch rowValues[index] {
                case .null where value == nil: return
                case .value(let current) where value != nil && ExactValue.cast(current, as: Value.self) == value: return
                default: break
                }
            }
            setRowValue(value.map { .value($0) } ?? .null, atSlot: index)
            return
        }
        setSlot(value, atSlot: index)
    }

    /// Writes `newValue` into the row the object reads its attributes from, with undo and change
    /// tracking as ``changePrimitive(slot:to:)`` records them.
    @usableFromInline
    final func setRowValue(_ newValue: SnapshotValue, atSlot index: Int) {
        guard let context = contextReference else {
            rowValues[index] = newValue
            return
        }
        context.with { $0.changeRow(of: self, slot: index, to: newValue) }
    }

    /// Whether the old value of slot `index` in the current event is recorded already.
    func recordsEventOldValue(ofSlot index: Int) -> Bool {
        if index < UInt64.bitWidth, eventRowMask & (1 << UInt64(index)) != 0 { return true }
        return !eventOldValues.isEmpty && eventOldValues[index] != nil
    }

    /// Whether ``rowValues`` is the committed row or the layout's initial one (so a set copies it).
    func rowIsShared() -> Bool {
        rowValues.withUnsafeBufferPointer { row in
            if hasCommittedSnapshot,
               committedValues.withUnsafeBufferPointer({ $0.baseAddress == row.baseAddress }) { return true }
            return layout.initialRow.withUnsafeBufferPointer { $0.baseAddress == row.baseAddress }
        }
    }

    /// Drops the old values recorded for changedValuesForCurrentEvent.
    func forgetEventOldValues() {
        eventOldValues = []
        eventOldRow = []
        eventRowMask = 0
    }

    /// Moves the old values recorded in `eventOldRow` into `eventOldValues`: done before the
    /// row is replaced, after which later sets could not take their old values from it.
    func keepEventOldRowValues() {
        guard eventRowMask != 0 else { return }
        if eventOldValues.isEmpty { eventOldValues = layout.absentValues }
        for index in eventOldRow.indices where eventRowMask & (1 << UInt64(index)) != 0 && eventOldValues[index] == nil {
            eventOldValues[index] = eventOldRow[index].attributeValue ?? RecordedNil()
        }
        eventOldRow = []
        eventRowMask = 0
    }

    /// Loads what a partial fetch left out, if slot `index` is among it.
    @inline(__always)
    func completeIfMissing(_ index: Int) {
        if let missing = missingSlots, missing.contains(index) { managedObjectContext?.completePartialObject(self) }
    }

    /// The value of slot `index` as the public API shows it.
    func publicValue(ofSlot index: Int) -> Any? {
        switch layout.kinds[index] {
        case .attribute:
            return slots[index]
        case .toMany(let ordered):
            let objects = toManyStorage(atSlot: index).objects
            return ordered ? objects : Set(objects.elements)
        case .toOne:
            return toOneObject(atSlot: index)
        case .fetched:
            // Key-value access cannot throw: a failed fetch answers no objects (Core Data raises
            // instead); fetchedObjects(forKey:) throws its error.
            guard let fetched = layout.properties[index] as? FetchedPropertyDescription else { return nil }
            return (try? managedObjectContext?.fetchedObjects(of: fetched, atSlot: index, for: self)) ?? [ManagedObject]()
        }
    }

    /// The objects of the fetched property named `key`: the result of its fetch request, with
    /// `$FETCH_SOURCE` this object and `$FETCHED_PROPERTY` the property's description, run on
    /// first access and kept until the object is refreshed
    /// (``ManagedObjectContext/refresh(_:mergeChanges:)``) or the context reset: as in Core
    /// Data, fetched properties are not dynamic, and objects inserted or changed since do not
    /// show until then (a save keeps them too). Throws the fetch's error (a predicate the store
    /// cannot evaluate, a store that cannot be read) at every read, which ``value(forKey:)``
    /// answers as no objects. Traps when the entity has no fetched property named `key`.
    ///
    /// ```swift
    /// let namesakes = try shelf.fetchedObjects(forKey: "namesakes")
    /// ```
    public func fetchedObjects(forKey key: String) throws -> [ManagedObject] {
        guard let index = layout.index(of: key), let fetched = layout.properties[index] as? FetchedPropertyDescription else {
            preconditionFailure("\(entity.name) has no fetched property \"\(key)\"")
        }
        assertOnContextQueue()
        guard let context = managedObjectContext else { return [] }
        return try context.fetchedObjects(of: fetched, atSlot: index, for: self)
    }

    /// Stores an attribute value, recording the change when it differs.
    private func setAttribute(_ value: Any?, of type: AttributeType, atSlot index: Int) {
        let newValue = AttributeSlots.normalized(value, as: type, valueType: layout.valueTypes[index])
        guard !AttributeSlots.equal(slots[index], newValue, as: type) else { return }
        changePrimitive(slot: index, to: newValue)
    }

    /// Sets slot `index` to `value` with undo and change tracking (no inverse maintenance).
    @usableFromInline
    func changePrimitive(slot index: Int, to value: Any?) {
        completeBeforeChange()
        let oldValue = slots[index]
        slots[index] = value
        contextReference?.with { context in
            context.objectDidChange(self, slot: index, oldValue: oldValue,
                                    undo: { object in object.changePrimitive(slot: index, to: oldValue) })
        }
    }

    /// Loads the values a partial fetch left out before the object's first change (WWDC 2009,
    /// talk 001: "if you change any values on your managed object that'll cause a fetch to fill
    /// in those values too"), so that they are the values of the row the change is made to.
    @usableFromInline
    final func completeBeforeChange() {
        guard missingSlots != nil, !isAwakingFromFetch else { return }
        contextReference?.with { $0.completePartialObject(self) }
    }

    /// Converts numbers to the attribute's own type (`Int` to `Int16`...), so that stored values
    /// have one type per attribute.
    func normalized(_ value: Any?, forSlot index: Int) -> Any? {
        guard case .attribute(let type) = layout.kinds[index] else { return AttributeSlots.normalized(value, as: nil, valueType: nil) }
        return AttributeSlots.normalized(value, as: type, valueType: layout.valueTypes[index])
    }

    /// Whether two slot values are equal (objects by identity, values by value).
    static func valuesEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (a as ManagedObject, b as ManagedObject): return a === b
        case let (a as any Hashable, b as any Hashable): return AnyHashable(a) == AnyHashable(b)
        default: return false
        }
    }

    // MARK: Faulting

    /// Loads the values if the object is a fault.
    @inlinable
    public final func fireFaultIfNeeded() {
        if faulted { fireFault() }
    }

    @usableFromInline
    func fireFault() {
        guard let context = contextReference else {
            // A fault deleted without being loaded (nothing needed its values) and saved: its
            // last committed values stay readable, as those of a loaded deleted object do.
            guard isDeleted, let snapshot = committedSnapshot else {
                preconditionFailure("\(objectID) is a fault with no context: its values cannot be loaded")
            }
            apply(snapshot)
            return
        }
        context.with { $0.fulfillFault(self) }
    }

    // MARK: Hooks for subclasses

    /// Called once, when the object is inserted into a context (set initial values here).
    open func awakeFromInsert() {}
    /// Called when the object's values are first loaded from a store.
    open func awakeFromFetch() {}
    /// Called when the object's values are set from a snapshot for other reasons (undo, redo,
    /// refresh, rollback).
    open func awake(fromSnapshotEvents events: SnapshotEvents) {}
    /// Called before the object is saved (inserted, updated or deleted). A change made here (to
    /// this object or another that is saved) calls willSave again on the changed object, as in
    /// Core Data, until a round changes nothing: set a value only when it differs, or the save
    /// fails with ``ContextError/willSaveKeepsChanging(_:)``.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is about to be deleted, before delete rules run.
    open func prepareForDeletion() {}
    /// Called before the object turns into a fault (its values are released).
    open func willTurnIntoFault() {}
    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    /// Validates the object for insertion: every property's value (``validateValue(_:forKey:)``)
    /// and relationship counts. Override to add checks across properties; call super.
    open func validateForInsert() throws { try validateProperties() }
    /// Validates the object for an update, as ``validateForInsert()`` does.
    open func validateForUpdate() throws { try validateProperties() }
    /// Validates the object for deletion: a deny rule refuses while its relationship is not empty.
    open func validateForDelete() throws { try validateDeleteRules() }

    /// Validates `value` for the property `key`: coerces it to the attribute's type as
    /// ``setValue(_:forKey:)`` stores it (`2` becomes `Int16(2)` for an Integer 16 attribute,
    /// `NSNull` nil), then checks the model's rules (required, type, range, length, pattern,
    /// predicates, counts), then runs the object's own per-key validator if it adopts
    /// ``PropertyValidating``. `value` is left coerced, and a validator may replace it with a
    /// valid one.
    ///
    /// Coercing first is Core Data's order ("coercing the value into an appropriate type for the
    /// object, and validating it"): a value setValue would accept as it is is not refused for
    /// its Swift type, and a number's range is checked as the attribute's.
    ///
    /// Saves apply the same rules to every property. To validate a property of your own, give
    /// the class a validator (``PropertyValidating``); for checks across properties, override
    /// ``validateForInsert()`` and ``validateForUpdate()`` (Core Data's advice is the same: its
    /// `validateValue(_:forKey:)` is not meant to be overridden).
    public func validateValue(_ value: inout Any?, forKey key: String) throws {
        guard let index = layout.index(of: key) else { return }
        if case .attribute = layout.kinds[index] { value = normalized(value, forSlot: index) }
        if let failure = PropertyRules.check(value, for: layout.properties[index], of: self) {
            throw ValidationError(failures: [failure])
        }
        if let validating = self as? any PropertyValidating {
            try validating.runValidator(forKey: key, value: &value)
        }
    }
}

/// Why an object's values were set from a snapshot (``ManagedObject/awake(fromSnapshotEvents:)``).
public struct SnapshotEvents: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let undoInsertion = SnapshotEvents(rawValue: 1 << 1)
    public static let undoDeletion = SnapshotEvents(rawValue: 1 << 2)
    public static let undoUpdate = SnapshotEvents(rawValue: 1 << 3)
    public static let rollback = SnapshotEvents(rawValue: 1 << 4)
    public static let refresh = SnapshotEvents(rawValue: 1 << 5)
    public static let mergePolicy = SnapshotEvents(rawValue: 1 << 6)
}

/// Per-property validation methods of a managed object class: `validators` maps a property name
/// to the method that checks (and may correct) its value.
///
/// ```swift
/// extension Person: PropertyValidating {
///     static var validators: [String: (Person) -> (inout Any?) throws -> Void] { ["email": Person.validateEmail] }
///     func validateEmail(_ value: inout Any?) throws { ... }
/// }
/// ```
public protocol PropertyValidating: ManagedObject {
    /// The validation method of each property that has one.
    static var validators: [String: (Self) -> (inout Any?) throws -> Void] { get }
}

extension PropertyValidating {
    func runValidator(forKey key: String, value: inout Any?) throws {
        guard let validator = Self.validators[key] else { return }
        try validator(self)(&value)
    }
}

/// The contents of a to-many relationship, mutated in place.
@usableFromInline
final class ToManyStorage {
    /// The destinations while they have no index (``init(unindexed:)``; empty otherwise).
    private var list: [ManagedObject] = []
    /// The destinations with their index; nil until something needs it.
    private var index: OrderedSet<ManagedObject>?

    init(_ objects: OrderedSet<ManagedObject> = []) { index = objects }

    /// Destinations that are known to be distinct (a prefetch groups each fetched object under
    /// its one owner), kept in order without an index until one is needed: a relationship that
    /// is only read (iterated, counted) never hashes its objects.
    init(unindexed objects: [ManagedObject]) { list = objects }

    /// The destinations, indexed (the index is made on first use).
    var objects: OrderedSet<ManagedObject> {
        get {
            if let index { return index }
            let built = OrderedSet(list)
            index = built
            list = []
            return built
        }
        set {
            index = newValue
            list = []
        }
        _modify {
            if index == nil {
                index = OrderedSet(list)
                list = []
            }
            yield &index!
        }
    }

    /// The destinations in order, without making an index.
    var elements: [ManagedObject] { index?.elements ?? list }

    /// The destinations before the first change since the relationship was loaded, saved or
    /// merged (nil: not recorded, as for a new object's). A merge of a newer row makes the same
    /// additions and removals on the row's destinations, so that what another context added or
    /// removed stays (``ManagedObjectContext/mergedToMany(_:slot:of:)``).
    var baseline: [ObjectID]?
}

/// The destinations of a to-many relationship known by ID only (from a snapshot): they become
/// objects when the relationship is first read.
struct PendingToMany {
    let objectIDs: [ObjectID]
}

/// An old value of nil recorded for changedValuesForCurrentEvent (an empty struct: storing it
/// in `Any` allocates nothing).
struct RecordedNil {}
