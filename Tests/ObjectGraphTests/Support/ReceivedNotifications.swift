// What a NotificationCenter observer of context notifications received, for the tests of
// Core Data's notifications.
import Foundation
@testable import ObjectGraph

/// Notifications a NotificationCenter observer received, in order (posted on the test's thread).
final class ReceivedNotifications: @unchecked Sendable {
    var notes: [Notification] = []
    var tokens: [NSObjectProtocol] = []

    init(_ names: [Notification.Name], object: AnyObject?) {
        for name in names {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [unowned self] note in
                notes.append(note)
            })
        }
    }

    deinit { tokens.forEach(NotificationCenter.default.removeObserver) }

    var names: [String] { notes.map(\.name.rawValue) }

    func objects(_ key: String, in index: Int) -> Set<ManagedObject>? {
        notes[index].userInfo?[key] as? Set<ManagedObject>
    }
}
