// One record's part of a journaled command: its UUID, its state before (nil: the command created
// it) and after (nil: the command deleted it). A journal entry holds a list of them as JSON.
import Foundation

/// How one command changed one record.
struct RecordChange: Codable, Equatable {
    var uuid: UUID
    var before: RecordState?
    var after: RecordState?

    /// The change that undoes this one.
    var inverted: RecordChange { RecordChange(uuid: uuid, before: after, after: before) }
}
