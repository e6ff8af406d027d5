// A context's notifications, collected for tests.
import Foundation
@testable import ObjectGraph

/// Collects a context's notifications through a callback.
final class Recorder {
    var notes: [ContextNotification] = []
    var token: ObservationToken?

    init(_ context: ManagedObjectContext) {
        token = context.observe { [unowned self] note in self.notes.append(note) }
    }

    var changes: [ObjectsDidChange] {
        notes.compactMap { if case .objectsDidChange(let changes) = $0 { return changes } else { return nil } }
    }

    var saves: [(ContextDidSave, ObjectsDidChange)] {
        notes.compactMap { if case .didSave(let payload, let objects) = $0 { return (payload, objects) } else { return nil } }
    }

    /// "change", "willSave" and "didSave", in order.
    var kinds: [String] {
        notes.map {
            switch $0 {
            case .objectsDidChange: return "change"
            case .willSave: return "willSave"
            case .didSave: return "didSave"
            }
        }
    }
}
