// Queue confinement: a context's work runs on its queue. perform schedules a block (and ends the
// event after it, as Core Data treats a perform as one user event); performAndWait runs a block
// and waits, inline when already on the queue (so it nests).
import Foundation

extension ManagedObjectContext {
    /// Runs `block` on the context's queue, asynchronously; the event ends after it.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async {
            block()
            self.processPendingChanges()
        }
    }

    /// Runs `block` on the context's queue and returns its result; the event ends after it.
    ///
    /// ```swift
    /// let count = try await background.perform { try background.count(for: request) }
    /// ```
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = Result { try block() }
                self.processPendingChanges()
                continuation.resume(with: result)
            }
        }
    }

    /// Runs `block` on the context's queue and waits for it; called on the queue already (or
    /// nested in another performAndWait), it runs inline.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue { return try block() }
        return try queue.sync(execute: block)
    }
}
