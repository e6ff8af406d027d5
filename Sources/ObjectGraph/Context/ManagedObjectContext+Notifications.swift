// What a context tells its observers: objectsDidChange at the end of each event, willSave and
// didSave around each save. Observable as callbacks and as AsyncSequences; didSave's payload
// (object IDs) is Sendable and can be merged into other contexts.
import Foundation

/// The objects an event changed (Core Data's NSManagedObjectContextObjectsDidChange).
/// Use the objects on their context's queue only.
public struct ObjectsDidChange: @unchecked Sendable {
    public var inserted: Set<ManagedObject>
    public var updated: Set<ManagedObject>
    public var deleted: Set<ManagedObject>
    public var refreshed: Set<ManagedObject>
    public var invalidated: Set<ManagedObject>
    /// Whether every object was invalidated (the context was reset).
    public var invalidatedAll: Bool
    /// With `invalidatedAll`: the IDs of the objects the reset let go.
    public var invalidatedAllObjectIDs: [ObjectID] = []
}

/// What a save wrote, by object ID (Core Data's NSManagedObjectContextDidSave): Sendable, so it
/// can be handed to contexts on other queues with ``ManagedObjectContext/mergeChanges(fromContextDidSave:)``.
public struct ContextDidSave: Sendable {
    public var insertedObjectIDs: Set<ObjectID>
    public var updatedObjectIDs: Set<ObjectID>
    public var deletedObjectIDs: Set<ObjectID>
    /// The saving context's name and transaction author.
    public var contextName: String?
    public var transactionAuthor: String?

    public init(insertedObjectIDs: Set<ObjectID> = [], updatedObjectIDs: Set<ObjectID> = [],
                deletedObjectIDs: Set<ObjectID> = [], contextName: String? = nil, transactionAuthor: String? = nil) {
        self.insertedObjectIDs = insertedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
        self.contextName = contextName
        self.transactionAuthor = transactionAuthor
    }
}

/// A notification of a context.
public enum ContextNotification: @unchecked Sendable {
    case objectsDidChange(ObjectsDidChange)
    /// A save is about to run (changes may still be made).
    case willSave
    /// A save finished; the objects saved are in `objects` (for observers on the context's
    /// queue) and their IDs in the payload.
    case didSave(ContextDidSave, objects: ObjectsDidChange)
}

/// Keeps an observation alive; ``cancel()`` (or dropping it) ends it.
public final class ObservationToken: @unchecked Sendable {
    private var onCancel: (() -> Void)?

    init(onCancel: @escaping () -> Void) { self.onCancel = onCancel }

    /// Stops delivering notifications.
    public func cancel() {
        onCancel?()
        onCancel = nil
    }

    deinit { cancel() }
}

/// The notifications of a context as an asynchronous sequence (``ManagedObjectContext/notifications``):
/// asking for the next notification tells the context the previous one is done with.
public struct ContextNotifications: AsyncSequence, Sendable {
    public typealias Element = ContextNotification

    let stream: AsyncStream<(number: Int, note: ContextNotification)>
    /// Lets the context go of the notification numbered so (on its queue).
    let done: @Sendable (Int) -> Void

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), done: done)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<(number: Int, note: ContextNotification)>.AsyncIterator
        let done: @Sendable (Int) -> Void
        var last: Int?

        public mutating func next() async -> ContextNotification? {
            if let last { done(last) }
            last = nil
            guard let (number, note) = await base.next() else { return nil }
            last = number
            return note
        }
    }
}

extension ManagedObjectContext {
    /// Calls `handler` with each notification of this context, on the context's queue.
    ///
    /// ```swift
    /// let token = context.observe { note in
    ///     if case .objectsDidChange(let changes) = note { print(changes.inserted.count) }
    /// }
    /// ```
    public func observe(_ handler: @escaping (ContextNotification) -> Void) -> ObservationToken {
        let id = UUID()
        observers[id] = handler
        return ObservationToken { [weak self] in self?.observers[id] = nil }
    }

    /// The notifications of this context as an asynchronous sequence (ends when the context goes).
    ///
    /// The objects in the notifications are the context's, to be used on its queue only (as in
    /// Core Data). The context keeps each notification it delivered through the sequence until
    /// the consumer asks for the next one (or the sequence ends), and then lets go of it on its
    /// queue: a consumer on another thread that drops a notification is then not the last to
    /// hold its objects, whose deallocation must happen where the context can take them out of
    /// its registry. A consumer must not keep objects past the notification it received them in.
    public var notifications: ContextNotifications {
        let (stream, continuation) = AsyncStream<(number: Int, note: ContextNotification)>.makeStream()
        let id = UUID()
        var delivered = 0
        let token = observe { [weak self] note in
            // Posted on the context's queue, where the context records what it delivers.
            delivered += 1
            self?.deliveredNotifications[id, default: [:]][delivered] = note
            continuation.yield((delivered, note))
        }
        streamFinishers[id] = { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            token.cancel()
            guard let context = self else { return }
            context.queue.async {
                context.streamFinishers[id] = nil
                context.deliveredNotifications[id] = nil
            }
        }
        return ContextNotifications(stream: stream) { [weak self] number in
            guard let context = self else { return }
            context.queue.async { context.deliveredNotifications[id]?[number] = nil }
        }
    }

    /// The didSave payloads of this context as an asynchronous sequence, for merging elsewhere.
    public var didSaveNotifications: AsyncStream<ContextDidSave> {
        let (stream, continuation) = AsyncStream<ContextDidSave>.makeStream()
        let token = observe { note in
            if case .didSave(let payload, _) = note { continuation.yield(payload) }
        }
        let id = UUID()
        streamFinishers[id] = { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            token.cancel()
            guard let context = self else { return }
            context.queue.async { context.streamFinishers[id] = nil }
        }
        return stream
    }

    func post(_ notification: ContextNotification) {
        for handler in observers.values { handler(notification) }
        if NotificationCenterPosting.isActive { postToNotificationCenter(notification) }
    }
}

/// What happened to one observed object in an event (``ManagedObject/observeChanges(_:)``).
public enum ObjectChange: Sendable, Hashable {
    /// Its values changed: the persistent properties that did (transient ones are not told, as
    /// `changedValuesForCurrentEvent()` leaves them out).
    case updated(Set<String>)
    /// It took the stored values again (a refresh or a merged save without unsaved changes).
    case refreshed
    /// It was deleted (its deletion saved, undone or not).
    case deleted
    /// The context let go of it (reset, or a rollback of its insertion).
    case invalidated
}

extension ManagedObject {
    /// Calls `handler` on the context's queue at the end of each event that changed this object:
    /// observing one object, where Core Data's users observe its properties by key-value
    /// observing, which Swift on Linux has not. Holds the object unretained; nil for an object
    /// with no context.
    ///
    /// ```swift
    /// let token = task.observeChanges { change in
    ///     if case .updated(let keys) = change, keys.contains("title") { redraw() }
    /// }
    /// ```
    public func observeChanges(_ handler: @escaping (ObjectChange) -> Void) -> ObservationToken? {
        guard let context = managedObjectContext else { return nil }
        return context.observe { [weak self] note in
            guard let self, case .objectsDidChange(let changes) = note else { return }
            if changes.deleted.contains(self) {
                handler(.deleted)
            } else if changes.invalidatedAll || changes.invalidated.contains(self) {
                handler(.invalidated)
            } else if changes.updated.contains(self) {
                handler(.updated(Set(changedValuesForCurrentEvent().keys)))
            } else if changes.refreshed.contains(self) {
                handler(.refreshed)
            }
        }
    }
}
