// Core Data's notifications through Foundation's NotificationCenter: the names and user info
// keys code written for Core Data observes (NSManagedObjectContextObjectsDidChange, WillSave,
// DidSave, DidSaveObjectIDs, DidMergeChangesObjectIDs), posted by every context on its queue,
// and the merge entry points that take such a notification or its user info.
//
// The sets a notification carries cost a pass over the changed objects per event. So that a
// program that never observes through NotificationCenter does not pay it, contexts post there
// once the program has asked for one of the names below (observing needs the name): reading
// any of them turns posting on for the process.
import Foundation
import Synchronization

/// Whether contexts post to `NotificationCenter.default`: off until a notification name of this
/// file is read.
enum NotificationCenterPosting {
    private static let active = Atomic<Bool>(false)

    static var isActive: Bool { active.load(ordering: .relaxed) }

    static let objectsDidChange = Notification.Name("NSObjectsChangedInManagingContextNotification")
    static let willSave = Notification.Name("NSManagingContextWillSaveChangesNotification")
    static let didSave = Notification.Name("NSManagingContextDidSaveChangesNotification")
    static let didSaveObjectIDs = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    static let didMergeChangesObjectIDs = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")

    /// `name`, with posting turned on.
    static func turningOn(_ name: Notification.Name) -> Notification.Name {
        active.store(true, ordering: .relaxed)
        return name
    }
}

extension Notification.Name {
    /// Posted at the end of each event of a context that changed objects (`object`: the context;
    /// user info: ``NSInsertedObjectsKey``, ``NSUpdatedObjectsKey``, ``NSDeletedObjectsKey``,
    /// ``NSRefreshedObjectsKey``, ``NSInvalidatedObjectsKey``: sets of ``ManagedObject``;
    /// ``NSInvalidatedAllObjectsKey`` after a reset: the IDs of the objects it invalidated).
    public static var NSManagedObjectContextObjectsDidChange: Notification.Name {
        NotificationCenterPosting.turningOn(NotificationCenterPosting.objectsDidChange)
    }
    /// Posted when a save starts (`object`: the context; no user info).
    public static var NSManagedObjectContextWillSave: Notification.Name {
        NotificationCenterPosting.turningOn(NotificationCenterPosting.willSave)
    }
    /// Posted after a save (`object`: the context; user info: the saved objects under
    /// ``NSInsertedObjectsKey``, ``NSUpdatedObjectsKey`` and ``NSDeletedObjectsKey``). Use the
    /// objects on the saving context's queue only; merge it elsewhere with
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(Notification)``.
    public static var NSManagedObjectContextDidSave: Notification.Name {
        NotificationCenterPosting.turningOn(NotificationCenterPosting.didSave)
    }
    /// Posted after a save with the saved objects' IDs (``NSInsertedObjectIDsKey``,
    /// ``NSUpdatedObjectIDsKey``, ``NSDeletedObjectIDsKey``: sets of ``ObjectID``), safe to
    /// capture and use on any queue.
    public static var NSManagedObjectContextDidSaveObjectIDs: Notification.Name {
        NotificationCenterPosting.turningOn(NotificationCenterPosting.didSaveObjectIDs)
    }
    /// Posted by a context after it merged another context's save (`object`: the merging
    /// context; user info: the merged IDs, as in ``NSManagedObjectContextDidSaveObjectIDs``).
    public static var NSManagedObjectContextDidMergeChangesObjectIDs: Notification.Name {
        NotificationCenterPosting.turningOn(NotificationCenterPosting.didMergeChangesObjectIDs)
    }
}

/// User info keys of the context notifications (Core Data's values).
public let NSInsertedObjectsKey = "inserted"
public let NSUpdatedObjectsKey = "updated"
public let NSDeletedObjectsKey = "deleted"
public let NSRefreshedObjectsKey = "refreshed"
public let NSInvalidatedObjectsKey = "invalidated"
public let NSInvalidatedAllObjectsKey = "invalidatedAll"
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"

extension ManagedObjectContext {
    /// The notification names in `NSManagedObjectContext`'s spelling.
    public static var didChangeObjectsNotification: Notification.Name { .NSManagedObjectContextObjectsDidChange }
    public static var willSaveObjectsNotification: Notification.Name { .NSManagedObjectContextWillSave }
    public static var didSaveObjectsNotification: Notification.Name { .NSManagedObjectContextDidSave }
    public static var didSaveObjectIDsNotification: Notification.Name { .NSManagedObjectContextDidSaveObjectIDs }
    public static var didMergeChangesObjectIDsNotification: Notification.Name { .NSManagedObjectContextDidMergeChangesObjectIDs }

    /// The user info keys in `NSManagedObjectContext.NotificationKey`'s spelling:
    /// `note.userInfo?[ManagedObjectContext.NotificationKey.insertedObjects.rawValue]`.
    public enum NotificationKey: String, Sendable {
        case insertedObjects = "inserted"
        case updatedObjects = "updated"
        case deletedObjects = "deleted"
        case refreshedObjects = "refreshed"
        case invalidatedObjects = "invalidated"
        case invalidatedAllObjects = "invalidatedAll"
        case insertedObjectIDs = "inserted_objectIDs"
        case updatedObjectIDs = "updated_objectIDs"
        case deletedObjectIDs = "deleted_objectIDs"
        case refreshedObjectIDs = "refreshed_objectIDs"
        case invalidatedObjectIDs = "invalidated_objectIDs"
    }

    /// Posts `notification` to `NotificationCenter.default` in Core Data's form (on this queue).
    func postToNotificationCenter(_ notification: ContextNotification) {
        let center = NotificationCenter.default
        switch notification {
        case .willSave:
            center.post(name: NotificationCenterPosting.willSave, object: self)
        case .objectsDidChange(let changes):
            var info: [AnyHashable: Any] = [:]
            func add(_ objects: Set<ManagedObject>, _ key: String) { if !objects.isEmpty { info[key] = objects } }
            add(changes.inserted, NSInsertedObjectsKey)
            add(changes.updated, NSUpdatedObjectsKey)
            add(changes.deleted, NSDeletedObjectsKey)
            add(changes.refreshed, NSRefreshedObjectsKey)
            add(changes.invalidated, NSInvalidatedObjectsKey)
            if changes.invalidatedAll { info[NSInvalidatedAllObjectsKey] = changes.invalidatedAllObjectIDs }
            center.post(name: NotificationCenterPosting.objectsDidChange, object: self, userInfo: info)
        case .didSave(let payload, let objects):
            let objectsInfo: [AnyHashable: Any] = [
                NSInsertedObjectsKey: objects.inserted, NSUpdatedObjectsKey: objects.updated, NSDeletedObjectsKey: objects.deleted,
            ]
            center.post(name: NotificationCenterPosting.didSave, object: self, userInfo: objectsInfo)
            center.post(name: NotificationCenterPosting.didSaveObjectIDs, object: self,
                        userInfo: Self.objectIDsInfo(payload))
        }
    }

    /// Posts didMergeChangesObjectIDs for a merged save (IDs as this context knows them).
    func postMerged(_ merged: ContextDidSave) {
        guard NotificationCenterPosting.isActive else { return }
        NotificationCenter.default.post(name: NotificationCenterPosting.didMergeChangesObjectIDs,
                                        object: self, userInfo: Self.objectIDsInfo(merged))
    }

    private static func objectIDsInfo(_ payload: ContextDidSave) -> [AnyHashable: Any] {
        [NSInsertedObjectIDsKey: payload.insertedObjectIDs, NSUpdatedObjectIDsKey: payload.updatedObjectIDs,
         NSDeletedObjectIDsKey: payload.deletedObjectIDs]
    }

    /// Merges a save told by a NotificationCenter notification, as Core Data's
    /// `mergeChanges(fromContextDidSave:)` does: a didSave or didSaveObjectIDs notification of
    /// a context (of this coordinator or another on the same store), or one built from user
    /// info in either form (sets or arrays of objects, IDs or their URIs).
    ///
    /// ```swift
    /// let observer = NotificationCenter.default.addObserver(
    ///     forName: .NSManagedObjectContextDidSave, object: background, queue: nil) { note in
    ///     viewContext.performAndWait { viewContext.mergeChanges(fromContextDidSave: note) }
    /// }
    /// ```
    public func mergeChanges(fromContextDidSave notification: Notification) {
        mergeChanges(fromContextDidSave: contextDidSave(from: notification.userInfo ?? [:]))
    }

    /// Merges a save made elsewhere, told by user info in Core Data's form (the keys of a didSave
    /// or didSaveObjectIDs notification; values: sets or arrays of ``ObjectID``s or their URIs),
    /// into each context, on its queue: Core Data's `mergeChanges(fromRemoteContextSave:into:)`.
    public static func mergeChanges(fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [ManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeChanges(fromContextDidSave: context.contextDidSave(from: changes)) }
        }
    }

    func contextDidSave(from info: [AnyHashable: Any]) -> ContextDidSave {
        ContextDidSave(userInfo: info, resolvingURIsWith: persistentStoreCoordinator)
    }
}

extension ContextDidSave {
    /// The IDs a didSave or didSaveObjectIDs notification names (under its keys, as sets or
    /// arrays of objects or IDs; URIs need a coordinator: merge such a notification with
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(Notification)``). Taken on the
    /// posting queue, the value can go to another queue (a `Notification` cannot: it is not
    /// `Sendable`).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave,
    ///                                        object: background, queue: nil) { note in
    ///     let saved = ContextDidSave(note)
    ///     viewContext.perform { viewContext.mergeChanges(fromContextDidSave: saved) }
    /// }
    /// ```
    public init(_ notification: Notification) {
        self.init(userInfo: notification.userInfo ?? [:], resolvingURIsWith: nil)
    }

    /// The IDs user info in Core Data's forms names under its keys: sets or arrays of objects,
    /// IDs, or URIs that `coordinator` knows. (What the keys hold is what merges: a program may
    /// add a batch request's IDs to a save's user info, or take some out.)
    init(userInfo info: [AnyHashable: Any], resolvingURIsWith coordinator: PersistentStoreCoordinator?) {
        func ids(_ keys: [String]) -> Set<ObjectID> {
            var result = Set<ObjectID>()
            for key in keys {
                guard let value = info[key] else { continue }
                let items: [Any] = (value as? Set<ManagedObject>).map(Array.init) ?? (value as? Set<ObjectID>).map(Array.init)
                    ?? (value as? Set<URL>).map(Array.init) ?? (value as? [Any]) ?? []
                for item in items {
                    switch item {
                    case let id as ObjectID: result.insert(id)
                    case let object as ManagedObject: result.insert(object.objectID)
                    case let uri as URL:
                        if let id = coordinator?.managedObjectID(forURIRepresentation: uri) { result.insert(id) }
                    default: continue
                    }
                }
            }
            return result
        }
        self.init(insertedObjectIDs: ids([NSInsertedObjectsKey, NSInsertedObjectIDsKey]),
                  updatedObjectIDs: ids([NSUpdatedObjectsKey, NSUpdatedObjectIDsKey]),
                  deletedObjectIDs: ids([NSDeletedObjectsKey, NSDeletedObjectIDsKey]))
    }
}
