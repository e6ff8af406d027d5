// Relationships of a managed object: to-one and to-many values, loading relationship faults,
// and keeping the inverse side in step for every cardinality (one-to-one, one-to-many,
// many-to-many, ordered). Public changes maintain inverses; the primitive steps they are made of
// record undo and change tracking, so undo replays them exactly.
import Foundation

extension ManagedObject {
    // MARK: Reading

    /// The destination of the to-one relationship in slot `index`, resolving a stored ID.
    func toOneObject(atSlot index: Int) -> ManagedObject? {
        completeIfMissing(index)
        switch slots[index] {
        case let object as ManagedObject:
            return object
        case let id as ObjectID:
            guard let context = managedObjectContext else { return nil }
            let object = context.object(with: id)
            slots[index] = object
            return object
        default:
            return nil
        }
    }

    /// The ID of the destination of the to-one relationship in slot `index`, without resolving
    /// it to an object or unpacking a fetched row (prefetching groups many objects by it).
    func toOneObjectID(atSlot index: Int) -> ObjectID? {
        completeIfMissing(index)
        if !rowValues.isEmpty {
            if case .object(let id) = rowValues[index] { return id }
            return nil
        }
        switch storedSlots[index] {
        case let object as ManagedObject: return object.objectID
        case let id as ObjectID: return id
        default: return nil
        }
    }

    /// The storage of the to-many relationship in slot `index`, loading the relationship fault.
    func toManyStorage(atSlot index: Int) -> ToManyStorage {
        if let storage = slots[index] as? ToManyStorage { return storage }
        let relationship = layout.properties[index] as! RelationshipDescription
        let objects: [ManagedObject]
        if let pending = slots[index] as? PendingToMany, let context = managedObjectContext {
            objects = pending.objectIDs.map { context.object(with: $0) }
        } else {
            objects = managedObjectContext?.loadRelationship(relationship, of: self) ?? []
        }
        let storage = ToManyStorage(OrderedSet(objects))
        slots[index] = storage
        return storage
    }

    /// The objects of the to-many relationship in slot `index`, in order.
    public final func objects(atSlot index: Int) -> [ManagedObject] {
        fireFaultIfNeeded()
        return toManyStorage(atSlot: index).elements
    }

    /// ``objects(atSlot:)`` as `Destination`s, the class of the relationship's destination
    /// entity (what generated accessors return). The array is the relationship's own, checked
    /// object by object, not copied into a new one.
    public final func objects<Destination: ManagedObject>(atSlot index: Int, as _: Destination.Type) -> [Destination] {
        let objects = self.objects(atSlot: index)
        for object in objects {
            precondition(object is Destination, "\(object.objectID) in \(entity.name).\(layout.properties[index].name) is not a \(Destination.self)")
        }
        // Arrays of class references share one layout: every element is a Destination.
        return unsafeBitCast(objects, to: [Destination].self)
    }

    /// The IDs of the destinations of the relationship named `name`, without turning them into
    /// objects (nor loading a to-many relationship into memory).
    public func objectIDs(forRelationshipNamed name: String) -> [ObjectID] {
        guard let index = layout.index(of: name), let relationship = layout.properties[index] as? RelationshipDescription else {
            preconditionFailure("\(entity.name) has no relationship \"\(name)\"")
        }
        fireFaultIfNeeded()
        if relationship.isToMany {
            if let storage = slots[index] as? ToManyStorage { return storage.objects.map(\.objectID) }
            if let pending = slots[index] as? PendingToMany { return pending.objectIDs }
            return managedObjectContext?.relationshipObjectIDs(relationship, of: self) ?? []
        }
        switch slots[index] {
        case let object as ManagedObject: return [object.objectID]
        case let id as ObjectID: return [id]
        default: return []
        }
    }

    /// Whether the relationship named `name` is a fault: reading it may go to the store. Asking
    /// fires nothing (Core Data's `hasFaultForRelationshipNamed:`).
    ///
    /// Every relationship of a fault is a fault. A to-many relationship is one until its
    /// destinations are known (read, prefetched or set); a to-one relationship is one while its
    /// destination is a fault or not yet made into an object, and not when it is empty.
    ///
    /// ```swift
    /// let shelf = try context.fetch(FetchRequest<Shelf>(entityName: "Shelf"))[0]
    /// shelf.hasFault(forRelationshipNamed: "books")   // true
    /// _ = shelf.books.count
    /// shelf.hasFault(forRelationshipNamed: "books")   // false
    /// ```
    public func hasFault(forRelationshipNamed name: String) -> Bool {
        guard let index = layout.index(of: name), layout.properties[index] is RelationshipDescription else {
            preconditionFailure("\(entity.name) has no relationship \"\(name)\"")
        }
        if faulted || missingSlots?.contains(index) == true { return true }
        let value = slots[index]
        switch layout.kinds[index] {
        case .toMany:
            return !(value is ToManyStorage || value is PendingToMany)
        default:
            switch value {
            case let destination as ManagedObject:
                return destination.isFault
            case let id as ObjectID:
                return managedObjectContext?.registeredObject(for: id)?.isFault ?? true
            default:
                return false
            }
        }
    }

    /// Managed objects from a value given for a to-many relationship (a set, an ordered set,
    /// an array, or nil).
    func objects(from value: Any?) -> OrderedSet<ManagedObject> {
        switch unwrapOptional(value) {
        case nil: return []
        case let set as Set<ManagedObject>: return OrderedSet(set.sorted { $0.objectID < $1.objectID })
        case let ordered as OrderedSet<ManagedObject>: return ordered
        case let array as [ManagedObject]: return OrderedSet(array)
        case let sequence?:
            guard let items = KeyValueAccess.collectionElements(sequence) else {
                preconditionFailure("\(entity.name): a to-many relationship takes a set or an array of managed objects, not \(type(of: sequence))")
            }
            return OrderedSet(items.map { $0 as! ManagedObject })
        }
    }

    // MARK: Changing, with inverses

    /// Sets the to-one relationship in slot `index` to `target`, keeping the inverse.
    func setToOne(_ target: ManagedObject?, atSlot index: Int) {
        let relationship = layout.properties[index] as! RelationshipDescription
        let old = toOneObject(atSlot: index)
        guard old !== target else { return }
        checkSameContext(target, relationship)
        if let old, let inverse = relationship.inverseRelationship { old.unlink(self, through: inverse) }
        changePrimitive(slot: index, to: target)
        if let target, let inverse = relationship.inverseRelationship { target.link(self, through: inverse, from: relationship) }
    }

    /// Adds `object` to the to-many relationship in slot `index` (at `position` if ordered),
    /// keeping the inverse.
    public final func addObject(_ object: ManagedObject, toSlot index: Int, at position: Int? = nil) {
        fireFaultIfNeeded()
        let relationship = layout.properties[index] as! RelationshipDescription
        guard !toManyStorage(atSlot: index).objects.contains(object) else { return }
        checkSameContext(object, relationship)
        insertPrimitive(object, inSlot: index, at: position)
        if let inverse = relationship.inverseRelationship { object.link(self, through: inverse, from: relationship) }
    }

    /// Removes `object` from the to-many relationship in slot `index`, keeping the inverse.
    public final func removeObject(_ object: ManagedObject, fromSlot index: Int) {
        fireFaultIfNeeded()
        let relationship = layout.properties[index] as! RelationshipDescription
        guard toManyStorage(atSlot: index).objects.contains(object) else { return }
        removePrimitive(object, fromSlot: index)
        if let inverse = relationship.inverseRelationship { object.unlink(self, through: inverse) }
    }

    /// Replaces the contents of the to-many relationship in slot `index`, keeping inverses
    /// (and the given order, for an ordered relationship).
    func replaceObjects(in index: Int, with newObjects: OrderedSet<ManagedObject>) {
        let current = toManyStorage(atSlot: index).objects
        for object in current where !newObjects.contains(object) { removeObject(object, fromSlot: index) }
        let relationship = layout.properties[index] as! RelationshipDescription
        for (position, object) in newObjects.enumerated() {
            if !toManyStorage(atSlot: index).objects.contains(object) {
                addObject(object, toSlot: index, at: relationship.isOrdered ? position : nil)
            } else if relationship.isOrdered, toManyStorage(atSlot: index).objects.firstIndex(of: object) != position {
                removePrimitive(object, fromSlot: index)
                insertPrimitive(object, inSlot: index, at: position)
            }
        }
    }

    /// Makes `source` (whose relationship `forward` now points here) appear in this object's
    /// side `inverse`: sets it (stealing it from a previous owner, one-to-one) or adds it.
    func link(_ source: ManagedObject, through inverse: RelationshipDescription, from forward: RelationshipDescription) {
        fireFaultIfNeeded()
        guard let index = layout.index(of: inverse.name) else { return }
        if inverse.isToMany {
            guard !toManyStorage(atSlot: index).objects.contains(source) else { return }
            insertPrimitive(source, inSlot: index, at: nil)
        } else {
            let previous = toOneObject(atSlot: index)
            guard previous !== source else { return }
            if let previous, let forwardIndex = previous.layout.index(of: forward.name) {
                previous.fireFaultIfNeeded()
                if forward.isToMany {
                    if previous.toManyStorage(atSlot: forwardIndex).objects.contains(self) {
                        previous.removePrimitive(self, fromSlot: forwardIndex)
                    }
                } else if previous.toOneObject(atSlot: forwardIndex) === self {
                    previous.changePrimitive(slot: forwardIndex, to: nil)
                }
            }
            changePrimitive(slot: index, to: source)
        }
    }

    /// Removes `source` from this object's side `inverse` (sets it to nil, or removes it).
    func unlink(_ source: ManagedObject, through inverse: RelationshipDescription) {
        fireFaultIfNeeded()
        guard let index = layout.index(of: inverse.name) else { return }
        if inverse.isToMany {
            guard toManyStorage(atSlot: index).objects.contains(source) else { return }
            removePrimitive(source, fromSlot: index)
        } else if toOneObject(atSlot: index) === source {
            changePrimitive(slot: index, to: nil)
        }
    }

    /// Inserts into a to-many slot with undo and change tracking, no inverse.
    func insertPrimitive(_ object: ManagedObject, inSlot index: Int, at position: Int?) {
        completeBeforeChange()
        let storage = toManyStorage(atSlot: index)
        recordBaseline(of: storage, slot: index)
        let old = eventOldValue(of: storage, slot: index)
        let place = min(position ?? storage.objects.count, storage.objects.count)
        storage.objects.insert(object, at: place)
        managedObjectContext?.objectDidChange(self, slot: index, oldValue: old,
                                              undo: { owner in owner.removePrimitive(object, fromSlot: index) })
    }

    /// Removes from a to-many slot with undo and change tracking, no inverse.
    func removePrimitive(_ object: ManagedObject, fromSlot index: Int) {
        completeBeforeChange()
        let storage = toManyStorage(atSlot: index)
        guard let position = storage.objects.firstIndex(of: object) else { return }
        recordBaseline(of: storage, slot: index)
        let old = eventOldValue(of: storage, slot: index)
        storage.objects.remove(at: position)
        managedObjectContext?.objectDidChange(self, slot: index, oldValue: old,
                                              undo: { owner in owner.insertPrimitive(object, inSlot: index, at: position) })
    }

    /// The to-many slot's value before its first change in the current event, as
    /// changedValuesForCurrentEvent reports it (an ordered set or a set); nil once recorded, so
    /// that later changes in the event copy nothing.
    private func eventOldValue(of storage: ToManyStorage, slot index: Int) -> Any? {
        guard let context = managedObjectContext, !isAwakingFromFetch else { return nil }
        if eventOldValuesEvent == context.eventSequence, recordsEventOldValue(ofSlot: index) { return nil }
        let objects = storage.objects
        if case .toMany(let ordered) = layout.kinds[index], ordered { return objects }
        return Set(objects.elements)
    }

    /// Before the first change of a to-many slot since it was loaded, saved or merged: what it
    /// holds then (see ``ToManyStorage/baseline``).
    private func recordBaseline(of storage: ToManyStorage, slot index: Int) {
        guard !changedSlots[index], !isInserted else { return }
        storage.baseline = storage.elements.map(\.objectID)
    }

    private func checkSameContext(_ object: ManagedObject?, _ relationship: RelationshipDescription) {
        guard let object else { return }
        precondition(object.managedObjectContext === managedObjectContext,
                     "\(entity.name).\(relationship.name): \(object.objectID) belongs to another context")
        if let destination = relationship.destinationEntity {
            precondition(object.entity.isKind(of: destination),
                         "\(entity.name).\(relationship.name) takes \(destination.name) objects, not \(object.entity.name)")
        }
    }

    // MARK: Mutable proxies

    /// A mutable view of the to-many relationship `key` whose changes keep inverses.
    ///
    /// ```swift
    /// person.mutableSetValue(forKey: "tasks").insert(task)   // task.owner is now person
    /// ```
    public func mutableSetValue(forKey key: String) -> MutableRelationship {
        guard let index = layout.index(of: key), (layout.properties[index] as? RelationshipDescription)?.isToMany == true else {
            preconditionFailure("\(entity.name) has no to-many relationship \"\(key)\"")
        }
        return MutableRelationship(owner: self, slot: index)
    }

    /// A mutable view of the ordered to-many relationship `key`, with positions, as Core Data's
    /// `mutableOrderedSetValue(forKey:)` (an `NSMutableOrderedSet` proxy): inserting at, removing
    /// at, replacing, exchanging and moving by position.
    ///
    /// ```swift
    /// let tasks = person.mutableOrderedSetValue(forKey: "tasks")
    /// tasks.insert(task, at: 0)                                  // first; task.owner is person
    /// tasks.move(fromOffsets: IndexSet(integer: 0), toOffset: 2)  // now second
    /// ```
    ///
    /// A relationship that is not ordered, or a position out of range, is a programming error
    /// (Core Data raises), and traps naming the relationship.
    public func mutableOrderedSetValue(forKey key: String) -> MutableRelationship {
        let proxy = mutableSetValue(forKey: key)
        precondition(proxy.isOrdered, "\(entity.name).\(key) is not ordered: use mutableSetValue(forKey:)")
        return proxy
    }
}

/// A live, mutable view of a to-many relationship: changes go through the owner, keeping
/// inverses and recording undo. Positions matter for ordered relationships, and the positional
/// operations are for ordered relationships only (as `NSMutableOrderedSet`'s are), each one
/// change of the relationship: a move or an exchange changes no inverse.
public struct MutableRelationship: Sequence {
    let owner: ManagedObject
    let slot: Int

    /// The objects, in order.
    public var objects: [ManagedObject] { owner.objects(atSlot: slot) }
    /// How many objects the relationship holds.
    public var count: Int { objects.count }
    /// Whether the relationship is ordered (positions are kept).
    public var isOrdered: Bool { relationship.isOrdered }
    /// Whether `object` is in the relationship.
    public func contains(_ object: ManagedObject) -> Bool {
        owner.fireFaultIfNeeded()
        return owner.toManyStorage(atSlot: slot).objects.contains(object)
    }
    /// Adds `object` (at the end of an ordered relationship); nothing if it is there already.
    public func insert(_ object: ManagedObject) { owner.addObject(object, toSlot: slot) }
    /// Adds the objects not there yet, in order (at the end of an ordered relationship).
    public func insert<Objects: Sequence>(contentsOf newObjects: Objects) where Objects.Element == ManagedObject {
        for object in newObjects { insert(object) }
    }
    /// Adds `object` at `position` (0...count) of an ordered relationship; nothing if it is there
    /// already, as `NSMutableOrderedSet.insert(_:at:)`.
    public func insert(_ object: ManagedObject, at position: Int) {
        checkPosition(position, in: 0...count)
        owner.addObject(object, toSlot: slot, at: position)
    }
    /// Inserts the objects not there yet at `position`, in order.
    public func insert<Objects: Sequence>(contentsOf newObjects: Objects, at position: Int) where Objects.Element == ManagedObject {
        checkPosition(position, in: 0...count)
        var place = position
        for object in newObjects where !contains(object) {
            owner.addObject(object, toSlot: slot, at: place)
            place += 1
        }
    }
    /// Removes `object`.
    public func remove(_ object: ManagedObject) { owner.removeObject(object, fromSlot: slot) }
    /// Removes the object at `position` of an ordered relationship, and returns it.
    @discardableResult
    public func remove(at position: Int) -> ManagedObject {
        let current = objects
        checkPosition(position, in: current.indices)
        owner.removeObject(current[position], fromSlot: slot)
        return current[position]
    }
    /// Removes the objects at `positions` of an ordered relationship.
    public func remove(atOffsets positions: IndexSet) {
        let current = objects
        for position in positions { checkPosition(position, in: current.indices) }
        for position in positions { owner.removeObject(current[position], fromSlot: slot) }
    }
    /// Removes every object.
    public func removeAll() { for object in objects { remove(object) } }
    /// The position of `object` in an ordered relationship, nil if it is not there.
    public func firstIndex(of object: ManagedObject) -> Int? {
        checkOrdered()
        owner.fireFaultIfNeeded()
        return owner.toManyStorage(atSlot: slot).objects.firstIndex(of: object)
    }
    /// The object at `position` of an ordered relationship; setting it replaces that object
    /// (``replace(at:with:)``), or at `count` appends, as `NSMutableOrderedSet`'s subscript does.
    public subscript(position: Int) -> ManagedObject {
        get {
            let current = objects
            checkPosition(position, in: current.indices)
            return current[position]
        }
        nonmutating set {
            if position == count { insert(newValue, at: position) } else { replace(at: position, with: newValue) }
        }
    }
    /// Puts `object` at `position` of an ordered relationship in place of the object there,
    /// which leaves the relationship (its inverse cleared). Nothing happens if `object` is in the
    /// relationship already, as with ``insert(_:at:)``: a set holds each object once.
    public func replace(at position: Int, with object: ManagedObject) {
        var current = objects
        checkPosition(position, in: current.indices)
        guard !current.contains(where: { $0 === object }) else { return }
        current[position] = object
        owner.replaceObjects(in: slot, with: OrderedSet(current))
    }
    /// Swaps the objects at two positions of an ordered relationship.
    public func exchange(at first: Int, with second: Int) {
        var current = objects
        checkPosition(first, in: current.indices)
        checkPosition(second, in: current.indices)
        current.swapAt(first, second)
        owner.replaceObjects(in: slot, with: OrderedSet(current))
    }
    /// Moves the objects at `positions` of an ordered relationship to stand, in their order,
    /// before the object that was at `destination` (`count` for the end), as SwiftUI's
    /// `move(fromOffsets:toOffset:)` does.
    public func move(fromOffsets positions: IndexSet, toOffset destination: Int) {
        var current = objects
        for position in positions { checkPosition(position, in: current.indices) }
        checkPosition(destination, in: 0...current.count)
        let moving = positions.map { current[$0] }
        let before = positions.filter { $0 < destination }.count
        for position in positions.reversed() { current.remove(at: position) }
        current.insert(contentsOf: moving, at: destination - before)
        owner.replaceObjects(in: slot, with: OrderedSet(current))
    }

    public func makeIterator() -> IndexingIterator<[ManagedObject]> { objects.makeIterator() }

    private var relationship: RelationshipDescription { owner.layout.properties[slot] as! RelationshipDescription }

    private func checkOrdered() {
        precondition(relationship.isOrdered, "\(owner.entity.name).\(relationship.name) is not ordered: it has no positions")
    }

    private func checkPosition<Positions: RangeExpression<Int>>(_ position: Int, in valid: Positions) {
        checkOrdered()
        precondition(valid.contains(position),
                     "\(owner.entity.name).\(relationship.name): position \(position) is out of range for \(count) objects")
    }
}
