// The managed object context: a scratchpad of objects. It registers the objects it hands out
// (one object per ID), tracks inserts, changes and deletes, closes an event at each
// processPendingChanges (delete rules, notifications, an undo group), and saves through its
// coordinator. A context belongs to one queue; ObjectIDs, not objects, cross between contexts.
import Foundation

/// A context: the objects one task works with, their changes, and their undo history.
///
/// ```swift
/// let context = ManagedObjectContext(concurrencyType: .mainQueue)
/// context.persistentStoreCoordinator = coordinator
/// let task = ManagedObject(entity: taskEntity, insertInto: context)
/// task.setValue("Write the report", forKey: "title")
/// try context.save()
/// ```
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    /// Which queue a context's work runs on.
    public enum ConcurrencyType: Sendable {
        /// A private serial queue of the context's own; use ``perform(_:)`` to run work on it.
        case privateQueue
        /// The main queue (the main thread).
        case mainQueue
    }

    /// A registered object, not retained (the context retains only objects with changes).
    ///
    /// Not a weak reference: weak references give every managed object a side table and make
    /// each retain and release slow. The object removes its own registration in its deinit
    /// (``objectWillDeallocate(_:identity:)``), so the registry never holds a dead object.
    struct Registration {
        unowned(unsafe) let storedObject: ManagedObject
        let identity: ObjectIdentifier

        init(object: ManagedObject) {
            storedObject = object
            identity = ObjectIdentifier(object)
        }

        var object: ManagedObject? { storedObject }
    }

    public let concurrencyType: ConcurrencyType
    /// The queue the context's work runs on.
    let queue: DispatchQueue
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// Whether every access checks that it runs on the context's queue
    /// (`OBJECTGRAPH_CONCURRENCY_DEBUG=1`, like Core Data's concurrency debug flag).
    @usableFromInline static let concurrencyDebug = ProcessInfo.processInfo.environment["OBJECTGRAPH_CONCURRENCY_DEBUG"] == "1"
    /// ``concurrencyDebug``, copied: the static costs a `swift_once` call on each read.
    private let checksQueue = ManagedObjectContext.concurrencyDebug

    /// The first failure of the store while filling a fault since the context was made or last
    /// reset: firing a fault cannot throw (it happens inside a property's getter), so an object
    /// whose values could not be read (a damaged file, an I/O error) is left with empty values
    /// and the failure is kept here. Core Data raises an exception there. Every save throws it
    /// until ``reset()``, so that nothing built on values that were never read is written.
    public internal(set) var faultingError: (any Error)?

    /// The coordinator the context fetches from and saves to; for a child context (one with a
    /// ``parent``), its parent's, which the child reaches only through the parent. Setting it on
    /// a child context traps, as Core Data raises.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { storeCoordinator ?? parent?.persistentStoreCoordinator }
        set {
            precondition(parent == nil || newValue == nil, "\(self) has a parent context: it reads and saves through it, not a coordinator")
            storeCoordinator = newValue
        }
    }
    /// The coordinator the context reads and writes directly: nil for a child context, whose
    /// rows come from its parent (and whose objects are no users of the coordinator's row cache).
    @exclusivity(unchecked) var storeCoordinator: PersistentStoreCoordinator? {
        didSet {
            rowCacheReference = storeCoordinator.map { Unowned($0.rowCache) }
            if stalenessInterval > 0 { rowCacheReference?.object.trackAges() }
            if automaticallyMergesChangesFromParent, oldValue !== storeCoordinator {
                oldValue?.setMergesSaves(of: self, false)
                storeCoordinator?.setMergesSaves(of: self, true)
            }
        }
    }
    /// The context this one reads from and saves to instead of a coordinator (Core Data's nested
    /// contexts): fetches and faults see the parent's objects as they are, unsaved changes
    /// included, and ``save()`` hands the changes to the parent, which writes them when it saves.
    /// Set it once, before the context is used, on a context without a coordinator; a context
    /// holds its parent. Work on the parent runs on the parent's queue (its ``performAndWait(_:)``).
    ///
    /// ```swift
    /// let editor = ManagedObjectContext(concurrencyType: .mainQueue)
    /// editor.parent = container.viewContext
    /// let draft = editor.object(with: contact.objectID)
    /// draft.setValue("Ada", forKey: "name")
    /// try editor.save()                      // the view context now holds the change, unsaved
    /// try container.viewContext.save()       // and this writes it
    /// ```
    public var parent: ManagedObjectContext? {
        get { parentContext }
        set {
            precondition(storeCoordinator == nil || newValue == nil, "\(self) has a coordinator: a context reads from either a coordinator or a parent")
            precondition(newValue.map { !$0.hasAncestor(self) && $0 !== self } ?? true, "a context cannot be its own ancestor")
            if automaticallyMergesChangesFromParent, newValue !== parentContext {
                parentContext?.setMergesSaves(of: self, false)
                newValue?.setMergesSaves(of: self, true)
            }
            parentContext = newValue
            newValue?.adoptChild(self)
        }
    }
    @exclusivity(unchecked) var parentContext: ManagedObjectContext?
    /// The child contexts that merge this context's saves (``automaticallyMergesChangesFromParent``), unretained.
    var childrenMergingSaves: [ObjectIdentifier: WeakContext] = [:]
    /// Every context that took this one as its parent, unretained (guarded by ``childrenLock``).
    var childContexts: [WeakContext] = []
    let childrenLock = NSLock()
    /// Whether a context ever took this one as its parent: saves then look for children that
    /// merge, and keep ``permanentIDsOfSavedTemporary`` while a child lives. Set by the child,
    /// before it is used.
    @exclusivity(unchecked) var hasChildContexts = false
    /// The permanent ID each new object was given, by the temporary ID a child context may
    /// still know it by (see ``objectForChild(_:)``).
    var permanentIDsOfSavedTemporary: [ObjectID: ObjectID] = [:]
    /// Whether the saves of the coordinator's other contexts are merged into this one as they
    /// happen (Core Data's `automaticallyMergesChangesFromParent`, for a context whose parent is
    /// the coordinator): each save's changes go through ``mergeChanges(fromContextDidSave:)``,
    /// run on this context's queue with ``perform(_:)``, so a main-queue context merges when
    /// its queue next runs. Saves of other coordinators (another process) are not seen.
    ///
    /// ```swift
    /// container.viewContext.automaticallyMergesChangesFromParent = true
    /// container.performBackgroundTask { background in /* insert, save: the view context follows */ }
    /// ```
    @exclusivity(unchecked) public var automaticallyMergesChangesFromParent = false {
        didSet {
            guard oldValue != automaticallyMergesChangesFromParent else { return }
            storeCoordinator?.setMergesSaves(of: self, automaticallyMergesChangesFromParent)
            parentContext?.setMergesSaves(of: self, automaticallyMergesChangesFromParent)
        }
    }
    /// The coordinator's row cache, unretained (the coordinator, which the context holds, keeps
    /// it): the per-object paths (filling a fault, an object's deallocation) reach it without
    /// retaining and releasing the coordinator and the cache.
    @exclusivity(unchecked) var rowCacheReference: Unowned<RowCache>?
    /// A name for debugging and for history (who saved).
    public var name: String?
    /// Who makes the changes, recorded with each save.
    public var transactionAuthor: String?
    /// Records changes for undo; nil (the default) records nothing.
    @exclusivity(unchecked) public var undoManager: UndoManager?
    /// How save conflicts are resolved.
    public var mergePolicy: MergePolicy = .error
    /// Whether a fault whose row was deleted elsewhere becomes a deleted object when fired (true)
    /// or makes the access fail.
    @exclusivity(unchecked) public var shouldDeleteInaccessibleFaults = true
    /// How old, in seconds, the row a fault fires from may be: a fault whose row was read from
    /// the store longer ago than this reads it again instead (Core Data's staleness interval).
    /// Negative (the default, -1): any age, the coordinator's cached row is used; 0: no age, every
    /// fault firing reads the store. Rows already in objects are not affected (refresh them for
    /// newer values). Ages are told to a tenth of a second; rows the coordinator cached before
    /// any of its contexts had a positive interval count as old.
    @exclusivity(unchecked) public var stalenessInterval: Double = -1 {
        didSet { if stalenessInterval > 0 { rowCacheReference?.object.trackAges() } }
    }
    /// Whether registered objects are kept even when nothing else references them.
    @exclusivity(unchecked) public var retainsRegisteredObjects = false {
        didSet { retainedObjects = retainsRegisteredObjects ? Dictionary(uniqueKeysWithValues: registry.entries.compactMap { id, r in r.object.map { (id, $0) } }) : [:] }
    }

    // The collections touched per object skip dynamic exclusivity checks, as managed objects'
    // slots do (see ManagedObject): a context is confined to its queue.
    @exclusivity(unchecked) var registry = ObjectIDTable<Registration>()
    /// Objects out of the registry that still refer to the context (see ``detach(_:)``); an
    /// object leaves when it is registered again, unregistered, or deallocated.
    @exclusivity(unchecked) var detached: [ObjectIdentifier: Unowned<ManagedObject>] = [:]
    /// Registered objects kept alive while ``retainsRegisteredObjects`` is on. (Objects with
    /// unsaved changes are kept alive by the change sets below.)
    @exclusivity(unchecked) var retainedObjects: [ObjectID: ManagedObject] = [:]
    /// The inserted objects. Set an object in it with ``setInserted(_:)``, which logs it.
    @exclusivity(unchecked) var insertedByID: [ObjectKey: ManagedObject] = [:]
    /// Each object added to ``insertedByID``, unretained, in the order they came: a save orders
    /// the changed objects in one pass over memory in that order, mostly their registration order
    /// already, not in the dictionary's hash order (a cache miss per object, then a full sort).
    /// Entries of objects removed since stay (and may dangle), so a log is read only while it
    /// holds as many entries as its dictionary: every object there was logged when it came, so
    /// the log then holds exactly those objects, once each. Otherwise it is rebuilt from the
    /// dictionary.
    @exclusivity(unchecked) var insertionLog: [Unowned<ManagedObject>] = []
    /// The updated objects. Set an object in it with ``setUpdated(_:)``, which logs it.
    @exclusivity(unchecked) var updatedByID: [ObjectKey: ManagedObject] = [:]
    /// ``insertionLog``'s counterpart for ``updatedByID``.
    @exclusivity(unchecked) var updateLog: [Unowned<ManagedObject>] = []
    @exclusivity(unchecked) var deletedByID: [ObjectKey: ManagedObject] = [:]
    /// The stores new objects were assigned to (``assign(_:to:)``), by their temporary IDs.
    @exclusivity(unchecked) var assignedStores: [ObjectID: any PersistentStore] = [:]
    /// The objects marked for conflict detection at the next save (``detectConflicts(for:)``).
    @exclusivity(unchecked) var conflictDetected: [ObjectKey: ManagedObject] = [:]

    /// What happened in the current event, for objectsDidChange.
    @exclusivity(unchecked) var event = EventChanges()
    /// The event being announced to objectsDidChange observers (its old values stay readable).
    var notifiedEvent: EventChanges?
    /// The number of the current event (objects' recorded old values name the event they belong to).
    @exclusivity(unchecked) var eventSequence: UInt64 = 1
    /// The number of the event being announced, while it is (0 otherwise).
    @exclusivity(unchecked) var notifiedEventSequence: UInt64 = 0
    /// Objects deleted in this event whose delete rules have not run yet.
    @exclusivity(unchecked) var pendingDeletions: [ManagedObject] = []
    /// The faults the last merge made for objects inserted elsewhere
    /// (``mergeChanges(fromContextDidSave:)``), kept until the next event ends: nothing else
    /// holds them yet, and an object nothing holds goes at once, before the caller could find it
    /// registered. (Core Data's merge notification, autoreleased, keeps them for the rest of the
    /// run-loop turn.)
    @exclusivity(unchecked) var mergedInsertions: [ManagedObject] = []
    @exclusivity(unchecked) var observers: [UUID: (ContextNotification) -> Void] = [:]
    /// Values of objects' slots when a custom accessor called `willChangeValue(forKey:)`, until
    /// its `didChangeValue(forKey:)` records the change (by object, then slot).
    /// `depth` counts the brackets of one slot open at once.
    @exclusivity(unchecked) var valuesBeforeChange: [ObjectIdentifier: [Int: (value: Any?, depth: Int)]] = [:]
    /// Ends the context's notification sequences when it goes away.
    var streamFinishers: [UUID: () -> Void] = [:]
    /// What each notification sequence delivered and its consumer has not done with yet, by
    /// number (see ``notifications``).
    var deliveredNotifications: [UUID: [Int: ContextNotification]] = [:]
    @exclusivity(unchecked) var isProcessingPendingChanges = false
    /// While a custom merge policy resolves a save's conflicts: the store's conflicts, and the
    /// objects its `super` calls left (see ``resolve(_:by:)``).
    @exclusivity(unchecked) var storeConflictsBeingResolved: [StoreConflict] = []
    @exclusivity(unchecked) var leftByCustomResolution: [ObjectID] = []
    @exclusivity(unchecked) var nextRegistrationSequence: UInt64 = 0
    /// The class of each entity's objects, resolved once per context (the registry behind
    /// ObjectClasses takes a lock; a context's queue needs none).
    @exclusivity(unchecked) var classesByEntity: [ObjectIdentifier: ManagedObject.Type] = [:]
    /// The entity of each class `init(context:)` was used with, checked once per context (and
    /// per model, should the coordinator change).
    @exclusivity(unchecked) var entitiesByClass: [ObjectIdentifier: (model: ManagedObjectModel, entity: EntityDescription)] = [:]
    @exclusivity(unchecked) var isSaving = false
    /// The objects of the fetched properties read since their object was last refreshed, by the
    /// object's identity and the property's slot (see ``fetchedObjects(of:atSlot:for:)``).
    /// Touched when an object deallocates, hence unchecked like the registry.
    @exclusivity(unchecked) var fetchedPropertyValues: [ObjectIdentifier: [Int: [ManagedObject]]] = [:]

    /// A context whose work runs on `concurrencyType`'s queue.
    public init(concurrencyType: ConcurrencyType = .privateQueue) {
        self.concurrencyType = concurrencyType
        switch concurrencyType {
        case .mainQueue:
            queue = .main
        case .privateQueue:
            queue = DispatchQueue(label: "ObjectGraph.ManagedObjectContext")
        }
        if concurrencyType == .privateQueue {
            queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        }
    }

    deinit {
        // Objects hold the context unretained: none may refer to it once it is gone.
        for registration in registry.values { registration.object?.managedObjectContext = nil }
        for object in detached.values { object.object.managedObjectContext = nil }
        for finish in streamFinishers.values { finish() }
    }

    public var description: String {
        "<ManagedObjectContext\(name.map { " \($0)" } ?? ""): \(registry.count) objects>"
    }

    // MARK: Queue confinement

    /// Whether the caller runs on the context's queue.
    var isOnQueue: Bool {
        switch concurrencyType {
        case .mainQueue: return Thread.isMainThread
        case .privateQueue:
            return DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
                || HeldQueues.current.contexts.contains(ObjectIdentifier(self))
        }
    }

    /// In concurrency debug mode, traps when called off the context's queue.
    @inline(__always)
    func assertOnQueue(_ function: StaticString = #function) {
        if checksQueue && !isOnQueue {
            fatalError("ObjectGraph concurrency violation: \(function) called on \(self) off its queue; use perform or performAndWait")
        }
    }

    // MARK: Objects

    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { assertOnQueue(); return Set(insertedByID.values) }
    /// Objects changed since the last save (not inserted or deleted ones).
    public var updatedObjects: Set<ManagedObject> { assertOnQueue(); return Set(updatedByID.values) }
    /// Objects deleted since the last save (delete rules applied).
    public var deletedObjects: Set<ManagedObject> { assertOnQueue(); return Set(deletedByID.values.filter { !$0.isInserted }) }
    /// Every object the context holds.
    public var registeredObjects: Set<ManagedObject> { assertOnQueue(); return Set(registry.values.compactMap(\.object)) }
    /// Whether there are unsaved changes.
    public var hasChanges: Bool {
        assertOnQueue()
        return !insertedByID.isEmpty || !deletedByID.isEmpty || updatedByID.values.contains { $0.hasChanges }
    }

    /// The entity whose objects instances of `type` represent.
    func entity(forClass type: ManagedObject.Type) -> EntityDescription? {
        // The stored coordinator read in place, borrowed: the computed one (or a `??` of two)
        // retained and released its model, on every object made with init(context:).
        if let coordinator = storeCoordinator {
            return entity(forClass: type, in: coordinator.managedObjectModel)
        }
        guard let model = parentContext?.persistentStoreCoordinator?.managedObjectModel else { return nil }
        return entity(forClass: type, in: model)
    }

    /// ``entity(forClass:)`` in `model`, the context's.
    @inline(__always)
    private func entity(forClass type: ManagedObject.Type, in model: ManagedObjectModel) -> EntityDescription? {
        if let known = entitiesByClass[ObjectIdentifier(type)], known.model === model { return known.entity }
        let name = type.entityName
        let entity = model.entitiesByName[name] ?? model.entities.first { ($0.managedObjectClassName.map(Self.bareClassName)) == name }
        if let entity {
            ObjectClasses.checkSlots(of: type, against: entity)
            entitiesByClass[ObjectIdentifier(type)] = (model, entity)
        }
        return entity
    }

    /// The class that represents objects of `entity`, cached for this context.
    func managedObjectClass(for entity: EntityDescription) -> ManagedObject.Type {
        if let known = classesByEntity[ObjectIdentifier(entity)] { return known }
        let resolved = ObjectClasses.managedObjectClass(for: entity)
        classesByEntity[ObjectIdentifier(entity)] = resolved
        return resolved
    }

    static func bareClassName(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }

    /// The object registered for `objectID`, or nil.
    public func registeredObject(for objectID: ObjectID) -> ManagedObject? {
        assertOnQueue()
        return registry[objectID]?.object
    }

    /// The object for `objectID`: the registered one, or a new fault (which throws nothing now;
    /// firing it fails if the row does not exist).
    public func object(with objectID: ObjectID) -> ManagedObject {
        assertOnQueue()
        if let object = registry[objectID]?.object { return object }
        return makeFault(for: objectID, of: managedObjectClass(for: objectID.entity))
    }

    /// A new fault of class `type` for `objectID`, registered.
    func makeFault(for objectID: ObjectID, of type: ManagedObject.Type) -> ManagedObject {
        makeFault(for: objectID, of: type, entity: objectID.entity)
    }

    /// ``makeFault(for:of:)`` with the ID's entity at hand (held by the caller: an ID holds its
    /// entity unretained, and passing that on would cost a retain and a release).
    func makeFault(for objectID: ObjectID, of type: ManagedObject.Type, entity: EntityDescription) -> ManagedObject {
        let object = type.init(entity: entity, insertInto: nil)
        object.objectID = objectID
        // The slots stay the layout's shared arrays (a fault's slots are not read): clearing them
        // would cost a release now and a retain when the fault fires. An entity with to-many
        // relationships gave the object slots of its own (a storage per relationship): those go.
        object.faulted = true
        if object.layout.hasToManySlots { object.storedSlots = [] }
        register(object)
        return object
    }

    /// The object for `objectID` with its values loaded; throws when no store holds it.
    public func existingObject(with objectID: ObjectID) throws -> ManagedObject {
        assertOnQueue()
        if let object = registry[objectID]?.object, !object.isFault { return object }
        // A new object of a parent context is found there.
        guard !objectID.isTemporaryID || parentContext != nil else { throw ContextError.objectNotFound(objectID) }
        guard let snapshot = try snapshotFromStore(for: objectID) else { throw ContextError.objectNotFound(objectID) }
        let object = self.object(with: objectID)
        if object.isFault { fill(object, with: snapshot) }
        return object
    }

    /// Adds `object` to the registry (weakly held unless the context retains registered objects).
    func register(_ object: ManagedObject) {
        object.managedObjectContext = self
        object.isUnsavedOutOfContext = false
        if !detached.isEmpty { detached[ObjectIdentifier(object)] = nil }
        if object.registrationSequence == 0 {
            nextRegistrationSequence += 1
            object.registrationSequence = nextRegistrationSequence
        }
        // An object registered under the same ID before keeps referring to the context: it is
        // detached, so that the context still clears its reference when it goes.
        // The closure captures the registration (an unretained reference), not the object,
        // which it would retain.
        let new = Registration(object: object)
        let displaced = registry.withValue(for: object.objectID) { registration in
            defer { registration = new }
            guard let registered = registration, registered.identity != new.identity else { return nil as ManagedObject? }
            return registered.object
        }
        if let displaced { detached[ObjectIdentifier(displaced)] = Unowned(displaced) }
        if retainsRegisteredObjects { retainedObjects[object.objectID] = object }
    }

    /// Removes `object` from the registry and from every change set; `releasingCachedRow` false
    /// when its row cache entry is gone already (a saved deletion invalidated it).
    func unregister(_ object: ManagedObject, releasingCachedRow: Bool = true) {
        let id = object.objectID
        removeRegistration(of: object)
        // A save unregisters its deleted objects with these emptied: an empty dictionary is not
        // searched (searching hashes the key).
        if !retainedObjects.isEmpty { retainedObjects[id] = nil }
        let key = ObjectKey(object)
        if !insertedByID.isEmpty { insertedByID[key] = nil }
        if !updatedByID.isEmpty { updatedByID[key] = nil }
        if !deletedByID.isEmpty { deletedByID[key] = nil }
        if releasingCachedRow, object.hasCommittedSnapshot { storeCoordinator?.rowCache.release(id) }
        if !detached.isEmpty { detached[ObjectIdentifier(object)] = nil }
        if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: ObjectIdentifier(object)) }
        object.managedObjectContext = nil
    }

    /// Takes `object` out of the registry while it keeps referring to the context (an undone
    /// insertion, a new object deleted before a save, a merged duplicate: undo may bring it
    /// back). It is recorded among the ``detached`` objects, whose reference the context clears
    /// when it goes.
    func detach(_ object: ManagedObject) {
        removeRegistration(of: object)
        if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: ObjectIdentifier(object)) }
        // An object that left the context otherwise (a deletion merged from elsewhere) refers
        // to no context: nothing to track.
        if object.managedObjectContext === self { detached[ObjectIdentifier(object)] = Unowned(object) }
    }

    /// Removes `object`'s registration under its ID, when the registration is its own: another
    /// object may hold the ID by now (a fault made for it after the object left), and keeps it.
    /// Whether it removed one.
    @discardableResult
    private func removeRegistration(of object: ManagedObject) -> Bool {
        removeRegistration(of: ObjectIdentifier(object), under: object.objectID)
    }

    /// ``removeRegistration(of:)`` by the object's identity (a deallocating object is not passed).
    private func removeRegistration(of identity: ObjectIdentifier, under objectID: ObjectID) -> Bool {
        registry.withValue(for: objectID) { registration in
            guard registration?.identity == identity else { return false }
            registration = nil
            return true
        }
    }

    /// Called from a managed object's deinit: forgets its registration.
    func objectWillDeallocate(_ objectID: ObjectID, identity: ObjectIdentifier, retainedCache: Bool) {
        let removed = removeRegistration(of: identity, under: objectID)
        if removed, retainedCache { rowCacheReference?.with { $0.release(objectID) } }
        if !detached.isEmpty { detached[identity] = nil }
        if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: identity) }
    }

    /// Moves `object` to a new ID (a permanent one after obtainPermanentIDs).
    /// Only a registered object is registered under the new ID: a detached one stays detached,
    /// and one of no context (obtainPermanentIDs accepts any) stays out.
    func reassign(_ object: ManagedObject, to newID: ObjectID) {
        let oldID = object.objectID
        let wasRegistered = removeRegistration(of: object)
        let wasRetained = !retainedObjects.isEmpty && retainedObjects.removeValue(forKey: oldID) != nil
        object.objectID = newID
        if wasRegistered { registry[newID] = Registration(object: object) }
        // A child context may know the object by its temporary ID still; with no child left,
        // nothing does.
        if hasChildContexts, oldID.isTemporaryID {
            if hasLiveChildContexts {
                permanentIDsOfSavedTemporary[oldID] = newID
            } else if !permanentIDsOfSavedTemporary.isEmpty {
                permanentIDsOfSavedTemporary = [:]
            }
        }
        if wasRetained { retainedObjects[newID] = object }
    }

    // MARK: Inserting and deleting

    /// Specifies the store in which the new object `object` will be saved, as Core Data's
    /// `assign(_:to:)`: needed only when several writable stores hold its entity (otherwise it
    /// goes to the one that does, or to the first). The store must be one of the coordinator's
    /// and hold the object's entity; an object saved already cannot move (both trap, as Core
    /// Data raises).
    ///
    /// ```swift
    /// let archive = coordinator.persistentStore(for: archiveURL)!
    /// context.assign(note, to: archive)
    /// ```
    public func assign(_ object: ManagedObject, to store: any PersistentStore) {
        assertOnQueue()
        precondition(object.managedObjectContext === self, "\(object.objectID) does not belong to this context")
        precondition(object.objectID.isTemporaryID, "\(object.objectID) is saved already: it cannot be assigned to another store")
        precondition(persistentStoreCoordinator?.holds(store, entity: object.entity) == true,
                     "the store \(store.identifier) is not one of the context's stores holding \(object.entity.name)")
        assignedStores[object.objectID] = store
    }

    /// Marks `object` for conflict detection, as Core Data's `detectConflicts(for:)`: the next
    /// save fails with a ``MergeError`` (or its merge policy resolves the conflict) when the
    /// object's row changed in the store since the context read it, though the object itself
    /// did not change. Optimistic locking for what a change depends on: an order's total saved
    /// from its items' prices should not be saved if a price changed meanwhile. Changed and
    /// deleted objects are always checked; a new object has no row yet, and is not marked.
    ///
    /// ```swift
    /// context.detectConflicts(for: price)
    /// order.setValue(total, forKey: "total")
    /// try context.save()   // throws if price's row changed since it was read
    /// ```
    public func detectConflicts(for object: ManagedObject) {
        assertOnQueue()
        precondition(object.managedObjectContext === self, "\(object.objectID) does not belong to this context")
        guard !object.objectID.isTemporaryID else { return }
        // The version checked is the one read: a fault reads its row now.
        object.fireFaultIfNeeded()
        conflictDetected[ObjectKey(object)] = object
    }

    /// The store new objects of `object`'s kind go to: the one it was assigned to, or the
    /// coordinator's choice for its entity.
    func destinationStore(of object: ManagedObject) -> (any PersistentStore)? {
        if !assignedStores.isEmpty, let store = assignedStores[object.objectID] { return store }
        return persistentStoreCoordinator?.store(forNewObjectOf: object.entity)
    }

    /// Inserts `object` (made with no context) into this context: default values, then
    /// ``ManagedObject/awakeFromInsert()``.
    public func insert(_ object: ManagedObject) {
        assertOnQueue()
        precondition(object.managedObjectContext == nil || object.managedObjectContext === self,
                     "\(object.objectID) already belongs to another context")
        // A deleted object inserted again is undeleted (a new one deleted in an earlier event,
        // which left the context, comes back as new); one already in the context is left as it
        // is: awakeFromInsert runs once, and a saved object is not new.
        if object.isDeleted {
            undelete(object)
            return
        }
        if object.managedObjectContext === self, registry[object.objectID]?.object === object { return }
        register(object)
        object.isInserted = true
        setInserted(object)
        // Every value of a new object is a change, its defaults included. An object taking its
        // initial row still has the layout's initial slots: they are its values, read without
        // unpacking the row.
        let values = object.takesInitialRow() ? object.storedSlots : object.slots
        values.withUnsafeBufferPointer { values in
            for index in values.indices where ExactValue.dynamicType(at: values.baseAddress! + index) != nil {
                object.changedSlots[index] = true
            }
        }
        noteInserted(object)
        undoManager?.registerUndo(withTarget: self) { context in context.uninsert(object) }
        object.awakeFromInsert()
    }

    /// A new object of the entity named `entityName`, of the class registered for it, inserted
    /// into this context (Core Data's `NSEntityDescription.insertNewObject(forEntityName:into:)`).
    ///
    /// ```swift
    /// let task = context.insertNewObject(forEntityName: "Task")
    /// ```
    @discardableResult
    public func insertNewObject(forEntityName entityName: String) -> ManagedObject {
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName] else {
            preconditionFailure("the model of \(self) has no entity \"\(entityName)\"")
        }
        return ObjectClasses.managedObjectClass(for: entity).init(entity: entity, insertInto: self)
    }

    /// Records `object` in ``insertedByID`` and logs it (see ``insertionLog``).
    func setInserted(_ object: ManagedObject) {
        Self.set(object, in: &insertedByID, log: &insertionLog)
    }

    /// Records `object` in ``updatedByID`` and logs it (see ``insertionLog``).
    @inline(__always)
    func setUpdated(_ object: ManagedObject) {
        Self.set(object, in: &updatedByID, log: &updateLog)
    }

    /// Empties ``insertedByID`` and its log.
    func clearInserted() {
        insertedByID = [:]
        insertionLog = []
    }

    /// Empties ``updatedByID`` and its log.
    func clearUpdated() {
        updatedByID = [:]
        updateLog = []
    }

    @inline(__always)
    private static func set(_ object: ManagedObject, in changes: inout [ObjectKey: ManagedObject], log: inout [Unowned<ManagedObject>]) {
        guard changes.updateValue(object, forKey: ObjectKey(object)) == nil else { return }
        log.append(Unowned(object))
        // Entries of objects no longer there are let go now and then, not only by a save.
        if log.count > 2 * changes.count + 64 { log = ordered(changes) }
    }

    /// The objects of `changes` in registration order, unretained.
    private static func ordered(_ changes: [ObjectKey: ManagedObject]) -> [Unowned<ManagedObject>] {
        changes.values.sorted { $0.registrationSequence < $1.registrationSequence }.map(Unowned.init)
    }

    /// Appends each object of ``insertedByID``, then of ``updatedByID``, with its registration
    /// sequence to `keyed`, in the order they came (see ``insertionLog``).
    func appendLoggedChanges(to keyed: inout [(sequence: UInt64, object: ManagedObject)]) {
        if insertionLog.count != insertedByID.count { insertionLog = Self.ordered(insertedByID) }
        if updateLog.count != updatedByID.count { updateLog = Self.ordered(updatedByID) }
        for entry in insertionLog { entry.with { keyed.append(($0.registrationSequence, $0)) } }
        for entry in updateLog { entry.with { keyed.append(($0.registrationSequence, $0)) } }
    }

    /// Undoes an insertion: the object leaves the context (a redo inserts it again).
    func uninsert(_ object: ManagedObject) {
        let id = ObjectKey(object)
        // Undoing the insertion of an object saved since deletes it: the next save removes the row.
        if !object.isInserted && !object.objectID.isTemporaryID && registry[object.objectID]?.object === object {
            delete(object)
            return
        }
        insertedByID[id] = nil
        deletedByID[id] = nil
        updatedByID[id] = nil
        object.insertedInEvent = 0
        object.forgetEventOldValues()
        object.eventOldValuesEvent = 0
        event.deleted[id] = object
        undoManager?.registerUndo(withTarget: self) { context in context.reinsert(object) }
        object.isInserted = false
        object.isDeleted = false
        detach(object)
        object.isUnsavedOutOfContext = true
        retainedObjects[object.objectID] = nil
        object.awake(fromSnapshotEvents: .undoInsertion)
    }

    /// Redoes an insertion undone by ``uninsert(_:)``.
    func reinsert(_ object: ManagedObject) {
        register(object)
        object.isInserted = true
        setInserted(object)
        noteInserted(object)
        undoManager?.registerUndo(withTarget: self) { context in context.uninsert(object) }
    }

    /// Marks `object` deleted; its delete rules run at the end of the event
    /// (``processPendingChanges()``), and the save removes it from its store.
    ///
    /// An object of no context is ignored, as Core Data's deleteObject: ignores it: one whose
    /// deletion was saved (the save took it out of the context, and its row is gone), one
    /// deleted by another context and merged, one of a context that was reset, or one never
    /// inserted. Deleting it again is not an error, and the context records no change. An
    /// object of another context traps (Core Data raises).
    public func delete(_ object: ManagedObject) {
        assertOnQueue()
        guard object.managedObjectContext != nil else { return }
        precondition(object.managedObjectContext === self, "\(object.objectID) does not belong to this context")
        // A new object that left the context unsaved (its insertion undone) has no row: there is
        // nothing to delete.
        if !object.isInserted, object.isUnsavedOutOfContext { return }
        if object.isFault, let cached = cachedRowDeletableAsFault(object) {
            // Firing would fill it from this cached row: the save checks the row's version.
            object.committedSnapshot = cached
        } else {
            object.fireFaultIfNeeded()
        }
        guard !object.isDeleted else { return }
        object.isDeleted = true
        let key = ObjectKey(object)
        deletedByID[key] = object
        if !updatedByID.isEmpty { updatedByID[key] = nil }
        event.deleted[key] = object
        pendingDeletions.append(object)
        undoManager?.registerUndo(withTarget: self) { context in context.undelete(object) }
    }

    /// Undoes a deletion.
    func undelete(_ object: ManagedObject) {
        let id = ObjectKey(object)
        object.isDeleted = false
        deletedByID[id] = nil
        event.deleted[id] = nil
        pendingDeletions.removeAll { $0 === object }
        if registry[object.objectID]?.object !== object {
            // The deletion was saved (or the object was new and is forgotten): it comes back as
            // a new object, every value to be written again.
            register(object)
            object.isInserted = true
            setInserted(object)
            let slots = object.slots
            for index in slots.indices where slots[index] != nil { object.changedSlots[index] = true }
            noteInserted(object)
        } else if !object.isInserted {
            if !object.changedSlots.isEmpty { setUpdated(object) }
            noteInserted(object)
        } else {
            setInserted(object)
            noteInserted(object)
        }
        undoManager?.registerUndo(withTarget: self) { context in context.delete(object) }
        object.awake(fromSnapshotEvents: .undoDeletion)
    }

    /// New objects deleted before being saved leave the context at the end of their event
    /// (nothing is written for them); undo brings them back.
    func forgetDeletedNewObjects() {
        for object in deletedByID.values where object.isInserted {
            let id = ObjectKey(object)
            insertedByID[id] = nil
            deletedByID[id] = nil
            updatedByID[id] = nil
            detach(object)
            object.isUnsavedOutOfContext = true
            retainedObjects[object.objectID] = nil
            object.isInserted = false
            // Not reported inserted by the event that ends now: it "is simply removed".
            object.insertedInEvent = 0
        }
    }

    // MARK: Change tracking

    /// Records a change of `object`'s slot: marks it updated, remembers the old value for
    /// changedValuesForCurrentEvent, and registers `undo`.
    /// `undo` is only made when an undo manager records it (no closure is allocated otherwise).
    func objectDidChange(_ object: ManagedObject, slot: Int, oldValue: Any?, undo makeUndo: @autoclosure () -> (ManagedObject) -> Void) {
        guard !object.isAwakingFromFetch else {
            object.hasUntrackedEdits = true
            return
        }
        beginChange(of: object, slot: slot)
        if !object.recordsEventOldValue(ofSlot: slot) {
            if object.eventOldValues.isEmpty { object.eventOldValues = object.layout.absentValues }
            object.eventOldValues[slot] = oldValue ?? RecordedNil()
        }
        registerUndo(for: object, makeUndo())
    }

    /// Sets stored attribute slot `slot` of `object`, which reads its values from its row, to
    /// `newValue`, recording the change as ``objectDidChange(_:slot:oldValue:undo:)`` does. When
    /// the row is shared (the committed row, or the layout's initial one), which the set must
    /// copy anyway, the old value for changedValuesForCurrentEvent stays in it: the object keeps
    /// that row, and later sets in the event take their old values from it too. No value is
    /// converted or copied for them.
    func changeRow(of object: ManagedObject, slot: Int, to newValue: SnapshotValue) {
        guard !object.isAwakingFromFetch else {
            object.rowValues[slot] = newValue
            object.hasUntrackedEdits = true
            return
        }
        beginChange(of: object, slot: slot)
        if !object.recordsEventOldValue(ofSlot: slot) {
            if slot < UInt64.bitWidth, object.eventRowMask != 0 || object.rowIsShared() {
                if object.eventRowMask == 0 { object.eventOldRow = object.rowValues }
                object.eventRowMask |= 1 << UInt64(slot)
            } else {
                if object.eventOldValues.isEmpty { object.eventOldValues = object.layout.absentValues }
                object.eventOldValues[slot] = object.rowValues[slot].attributeValue ?? RecordedNil()
            }
        }
        // The old value is copied out of the row only when an undo manager records the change.
        registerUndo(for: object, { [oldValue = object.rowValues[slot]] target in
            target.changePrimitive(slot: slot, to: oldValue.attributeValue)
        })
        object.rowValues[slot] = newValue
    }

    /// The bookkeeping of every change: the slot's changed flag, the updated objects and, on the
    /// object's first change in the event, its place among the event's changes.
    @inline(__always)
    private func beginChange(of object: ManagedObject, slot: Int) {
        object.changedSlots[slot] = true
        if !event.discarded.isEmpty { event.discarded[ObjectKey(object)] = nil }
        // A new object that left the context unsaved (its insertion undone) has no row to update.
        if !object.isInserted && !object.isDeleted && !object.isUnsavedOutOfContext {
            setUpdated(object)
        }
        if object.eventOldValuesEvent != eventSequence {
            // The object's first change in this event: earlier events' old values go.
            if object.insertedInEvent != eventSequence { event.updated.append(object) }
            object.eventOldValuesEvent = eventSequence
            object.forgetEventOldValues()
        }
    }

    private func registerUndo(for object: ManagedObject, _ undo: @autoclosure () -> (ManagedObject) -> Void) {
        guard let undoManager, undoManager.isUndoRegistrationEnabled else { return }
        let undo = undo()
        // The manager keeps its actions: one holding the manager would keep it alive for good.
        // The action keeps the object: its change is undone even when nothing else holds it.
        undoManager.registerUndo(retaining: object) { [weak undoManager] target in
            // The object may have been turned into a fault since (a refresh): its values load
            // first, so that the undo sets one of them.
            target.fireFaultIfNeeded()
            undo(target)
            if undoManager?.isUndoing == true { target.awake(fromSnapshotEvents: .undoUpdate) }
        }
    }

    /// The properties `object` changed in the current event, with their earlier values.
    func eventChanges(of object: ManagedObject) -> [String: Any] {
        guard object.eventOldValuesEvent == eventSequence || object.eventOldValuesEvent == notifiedEventSequence else { return [:] }
        var changes: [String: Any] = [:]
        let isStored = object.layout.isStoredSlot
        for (index, recorded) in object.eventOldValues.enumerated() where isStored[index] {
            if let recorded { changes[object.layout.properties[index].name] = recorded is RecordedNil ? NSNull() : recorded }
        }
        for index in object.eventOldRow.indices where object.eventRowMask & (1 << UInt64(index)) != 0 && isStored[index] {
            changes[object.layout.properties[index].name] = object.eventOldRow[index].attributeValue ?? NSNull()
        }
        return changes
    }

    /// Records `object` among the current event's inserted objects.
    func noteInserted(_ object: ManagedObject) {
        guard object.insertedInEvent != eventSequence else { return }
        event.inserted.append(object)
        object.insertedInEvent = eventSequence
    }

    /// Runs the delete rules of the objects deleted since they last ran, and of the objects
    /// those rules delete.
    func propagatePendingDeletions() {
        while !pendingDeletions.isEmpty {
            let batch = pendingDeletions
            pendingDeletions = []
            for object in batch { propagateDeletion(of: object) }
        }
    }

    /// Ends the current event: runs the delete rules of objects deleted in it, posts
    /// objectsDidChange with what changed, and closes the undo group.
    public func processPendingChanges() {
        assertOnQueue()
        guard !isProcessingPendingChanges else { return }
        isProcessingPendingChanges = true
        defer { isProcessingPendingChanges = false }
        if !mergedInsertions.isEmpty { mergedInsertions = [] }
        propagatePendingDeletions()
        forgetDeletedNewObjects()
        let finishedSequence = eventSequence
        eventSequence += 1
        if !event.isEmpty {
            let finished = event
            event = EventChanges()
            // The sets are built only when someone observes.
            if !observers.isEmpty || NotificationCenterPosting.isActive {
                // Objects whose change an undone insertion took back out of the event are stale.
                // An object deleted in the event is reported deleted only; one refreshed with its
                // unsaved changes kept is reported updated (it stays dirty), not refreshed.
                var updated = Set(finished.updated.lazy.filter {
                    $0.eventOldValuesEvent == finishedSequence && finished.deleted[ObjectKey($0)] == nil
                        && finished.discarded[ObjectKey($0)] == nil
                })
                updated.formUnion(finished.refreshedDirty.lazy.filter { finished.deleted[$0.key] == nil }.map(\.value))
                let inserted = Set(finished.inserted.lazy.filter { $0.insertedInEvent == finishedSequence })
                let changes = ObjectsDidChange(inserted: inserted, updated: updated,
                                               deleted: Set(finished.deleted.values), refreshed: Set(finished.refreshed.values),
                                               invalidated: Set(finished.invalidated.values), invalidatedAll: finished.invalidatedAll,
                                               invalidatedAllObjectIDs: finished.invalidatedAllObjectIDs)
                notifiedEvent = finished
                notifiedEventSequence = finishedSequence
                post(.objectsDidChange(changes))
                notifiedEvent = nil
                notifiedEventSequence = 0
            }
        }
        undoManager?.closeEventGroup()
    }

    // MARK: Undo

    /// Undoes the last event's changes (after closing the current event, and a group opened by
    /// hand with the undo manager's beginUndoGrouping(), as the manager's undo() does).
    ///
    /// The undo's own event ends inside the undo, before the group to redo closes: what the
    /// event's end does (the delete rules of an object whose insertion was undone after a save,
    /// which deletes it) is undone by the redo with the rest, instead of becoming a new change
    /// that would empty the redo stack.
    public func undo() {
        assertOnQueue()
        processPendingChanges()
        undoManager?.undo(finishing: processPendingChanges)
    }

    /// Redoes the last undone changes, ending the redo's event inside the redo (see ``undo()``).
    public func redo() {
        assertOnQueue()
        processPendingChanges()
        undoManager?.redo(finishing: processPendingChanges)
    }

    // MARK: Discarding changes

    /// Discards every unsaved change: inserted objects leave, deleted ones come back, changed
    /// ones return to their saved values. Clears the undo history.
    public func rollback() {
        assertOnQueue()
        pendingDeletions = []
        // The pending event's changes are discarded with the rest: its notification reports the
        // discarded new objects invalidated, not inserted, and the restored ones not deleted or
        // updated.
        let discarded = Set((Array(deletedByID.values) + Array(updatedByID.values)).map(ObjectIdentifier.init))
        event.deleted = event.deleted.filter { !discarded.contains(ObjectIdentifier($0.value)) }
        event.updated.removeAll { discarded.contains(ObjectIdentifier($0)) }
        for object in insertedByID.values {
            object.insertedInEvent = 0
            event.deleted[ObjectKey(object)] = nil
            event.invalidated[ObjectKey(object)] = object
            object.isInserted = false
            object.isDeleted = false
            unregister(object)
        }
        for object in Array(deletedByID.values) + Array(updatedByID.values) {
            object.isDeleted = false
            discardChanges(of: object, event: .rollback)
            // Back to its saved values: reported refreshed (not updated, not deleted).
            event.refreshedDirty[ObjectKey(object)] = nil
            event.refreshed[ObjectKey(object)] = object
        }
        clearInserted()
        clearUpdated()
        deletedByID = [:]
        assignedStores = [:]
        retainedObjects = retainsRegisteredObjects ? retainedObjects : [:]
        undoManager?.removeAllActions()
        processPendingChanges()
    }

    /// Forgets every object: they become invalid faults with no context. Clears the undo history.
    public func reset() {
        assertOnQueue()
        faultingError = nil
        // Held strongly first: turning one object into a fault may release the last reference
        // to another registered one, which the loop would then reach freed.
        let registered = registry.values.compactMap(\.object)
        for object in registered {
            object.turnIntoFault()
            if object.hasCommittedSnapshot { storeCoordinator?.rowCache.release(object.objectID) }
            object.managedObjectContext = nil
        }
        for object in detached.values { object.object.managedObjectContext = nil }
        detached = [:]
        registry = [:]
        forgetAllFetchedProperties()
        retainedObjects = [:]
        clearInserted()
        clearUpdated()
        deletedByID = [:]
        assignedStores = [:]
        conflictDetected = [:]
        pendingDeletions = []
        event = EventChanges()
        eventSequence += 1
        event.invalidatedAll = true
        event.invalidatedAllObjectIDs = registered.map(\.objectID)
        undoManager?.removeAllActions()
        processPendingChanges()
    }

    /// Makes `object` a fault again (discarding its changes and its transient values), or, with
    /// `mergeChanges`, reloads its saved values and reapplies its unsaved changes on top, its
    /// transient values kept (Core Data: "If flag is YES, this method does not affect any
    /// transient properties; if flag is NO, transient properties are disposed of"). An object
    /// without changes becomes a fault either way, unless it holds transient values: with
    /// `mergeChanges` it then reloads its saved values at once, keeping them.
    ///
    /// A deleted object stays deleted, whether or not the event of its deletion has ended: the
    /// refresh discards its changed values, not the deletion, and the save removes its row. (If
    /// the event has not ended, its delete rules run at its end on the relationships it has as
    /// saved.)
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        assertOnQueue()
        guard object.managedObjectContext === self else { return }
        if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: ObjectIdentifier(object)) }
        if let coordinator = storeCoordinator, !object.objectID.isTemporaryID {
            coordinator.rowCache.invalidate([object.objectID])
        }
        if mergeChanges, !object.isFault, object.hasChanges || (!object.isInserted && object.holdsTransientValues) {
            if let snapshot = try? snapshotFromStore(for: object.objectID) {
                merge(snapshot, into: object, keepingLocalChanges: true)
            }
        } else if !object.isInserted {
            discardChanges(of: object, event: .refresh)
            updatedByID[ObjectKey(object)] = nil
            // Its changes are gone: it is not reported updated unless it changes again.
            if object.eventOldValuesEvent == eventSequence { event.discarded[ObjectKey(object)] = object }
        }
        // A new object has nothing stored to refresh from: it is reported inserted only.
        if !object.isInserted { reportRefreshed(object) }
    }

    /// Records `object` as refreshed in the current event: reported refreshed when it has no
    /// unsaved changes (`NSRefreshedObjectsKey`: "refreshed but were not dirtied"), updated when
    /// it has.
    func reportRefreshed(_ object: ManagedObject) {
        let key = ObjectKey(object)
        if object.hasChanges {
            event.refreshed[key] = nil
            event.refreshedDirty[key] = object
        } else {
            event.refreshedDirty[key] = nil
            event.refreshed[key] = object
        }
    }

    /// Refreshes every registered object, keeping unsaved changes and transient values (Core
    /// Data's refreshAllObjects, which refreshes merging changes): unchanged objects become faults
    /// and reload current values on access (those holding transient values reload at once).
    public func refreshAllObjects() {
        assertOnQueue()
        for object in registry.values.compactMap(\.object) { refresh(object, mergeChanges: true) }
        processPendingChanges()
    }

    /// Drops `object`'s changes: back to a fault that reloads its saved values.
    func discardChanges(of object: ManagedObject, event kind: SnapshotEvents) {
        guard !object.isFault else { return }
        object.turnIntoFault()
        if !fetchedPropertyValues.isEmpty { forgetFetchedProperties(of: ObjectIdentifier(object)) }
        updatedByID[ObjectKey(object)] = nil
        retainedObjects[object.objectID] = retainsRegisteredObjects ? object : nil
        object.awake(fromSnapshotEvents: kind)
    }
}

/// Errors of a context's own (store and validation errors keep their own types).
public enum ContextError: Error, Sendable, CustomStringConvertible, Equatable {
    /// No store holds the object (or its ID is temporary).
    case objectNotFound(ObjectID)
    /// The context has no coordinator, or the coordinator no store for the entity.
    case noStore(entity: String)
    /// A fetch names an entity the model does not have.
    case unknownEntity(String)
    /// A fault's row was deleted by someone else, and the context does not delete inaccessible faults.
    case inaccessibleFault(ObjectID)
    /// willSave kept changing objects: each change calls willSave again (as in Core Data), and a
    /// hook that always sets a new value never lets the save begin. Nothing was written.
    case willSaveKeepsChanging([ObjectID])

    public var description: String {
        switch self {
        case .objectNotFound(let id): return "no store holds \(id)"
        case .noStore(let entity): return "no persistent store holds entity \(entity)"
        case .unknownEntity(let name): return "the model has no entity \"\(name)\""
        case .inaccessibleFault(let id): return "\(id) was deleted by another context or process"
        case .willSaveKeepsChanging(let ids):
            return "willSave kept changing \(ids.map(\.description).joined(separator: ", ")) after \(ManagedObjectContext.willSaveRounds) rounds; "
                + "a willSave that sets a value must first check that it differs (each change calls willSave again)"
        }
    }
}

/// A managed object's identity as a key of the context's change sets: hashed as one word
/// (``HashMixing``) where `ObjectIdentifier` would run SipHash.
struct ObjectKey: Hashable {
    let identity: ObjectIdentifier

    init(_ object: ManagedObject) { identity = ObjectIdentifier(object) }

    func _rawHashValue(seed: Int) -> Int {
        HashMixing.mix(UInt64(UInt(bitPattern: identity)), seed: seed)
    }
}

/// What changed during the current event.
struct EventChanges {
    /// Objects inserted in the event, in order (an array: appended once per insertion, without
    /// hashing). An object counts while its `insertedInEvent` is the event's: an undone
    /// insertion stays in the array, and one done again appears twice; readers filter.
    var inserted: [ManagedObject] = []
    /// Objects changed in the event that were not inserted in it, in the order of their first
    /// change (an array: appended once per object, without hashing).
    var updated: [ManagedObject] = []
    var deleted: [ObjectKey: ManagedObject] = [:]
    /// Objects refreshed without unsaved changes (Core Data's NSRefreshedObjectsKey: "refreshed
    /// but were not dirtied in the scope of this context").
    var refreshed: [ObjectKey: ManagedObject] = [:]
    /// Objects refreshed that kept unsaved changes: reported updated.
    var refreshedDirty: [ObjectKey: ManagedObject] = [:]
    /// Objects changed in the event whose changes a refresh then discarded (not changed since):
    /// not reported updated.
    var discarded: [ObjectKey: ManagedObject] = [:]
    var invalidated: [ObjectKey: ManagedObject] = [:]
    var invalidatedAll = false
    /// With `invalidatedAll`: the IDs of the objects the reset let go.
    var invalidatedAllObjectIDs: [ObjectID] = []

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && refreshedDirty.isEmpty
            && invalidated.isEmpty && !invalidatedAll
    }
}
