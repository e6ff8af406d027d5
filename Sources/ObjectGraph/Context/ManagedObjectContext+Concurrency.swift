// Queue confinement: a context's work runs on its queue. perform schedules a block (and ends the
// event after it, as Core Data treats a perform as one user event); performAndWait runs a block
// and waits, inline when already on the queue (so it nests).
import Foundation

extension ManagedObjectContext {
    /// Runs `block` on the context's queue, asynchronously; the event ends after it.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async {
            self.holdingQueue {
                block()
                self.processPendingChanges()
            }
        }
    }

    /// When an asynchronous ``perform(schedule:_:)`` runs its block (Core Data's
    /// `NSManagedObjectContext.ScheduledTaskType`).
    public enum ScheduledTaskType: Sendable {
        /// At once when the caller is already on the context's queue (a main-queue context
        /// from the main thread, say), else enqueued.
        case immediate
        /// Always enqueued, after the blocks queued before it.
        case enqueued
    }

    /// Runs `block` on the context's queue and returns its result; the event ends after it.
    /// As in Core Data, by default (`.immediate`) a caller already on the queue runs it at once.
    ///
    /// ```swift
    /// let count = try await background.perform { try background.count(for: request) }
    /// ```
    nonisolated(nonsending) public func perform<T: Sendable>(schedule: ScheduledTaskType = .immediate,
                                     _ block: @escaping @Sendable () throws -> T) async throws -> T {
        if schedule == .immediate, isOnQueue {
            defer { processPendingChanges() }
            return try holdingQueue(block)
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = self.holdingQueue {
                    let result = Result { try block() }
                    self.processPendingChanges()
                    return result
                }
                continuation.resume(with: result)
            }
        }
    }

    /// Runs `block` on the context's queue and waits for it; called on the queue already (or
    /// nested in another performAndWait), it runs inline.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue { return try block() }
        return try queue.sync { try holdingQueue(block) }
    }

    /// Runs `body` noting on the current thread that it holds this context's queue: a block of
    /// another context's queue run on this thread (its performAndWait) that calls back into this
    /// context then runs inline, where waiting for the queue would wait for itself.
    func holdingQueue<T>(_ body: () throws -> T) rethrows -> T {
        let held = HeldQueues.current
        held.contexts.append(ObjectIdentifier(self))
        defer { held.contexts.removeLast() }
        return try body()
    }
}

/// The contexts whose queues the current thread holds, innermost last (kept per thread).
final class HeldQueues {
    var contexts: [ObjectIdentifier] = []

    private static let key = "ObjectGraph.HeldQueues"

    /// The current thread's.
    static var current: HeldQueues {
        let dictionary = Thread.current.threadDictionary
        if let held = dictionary[key] as? HeldQueues { return held }
        let held = HeldQueues()
        dictionary[key] = held
        return held
    }
}
