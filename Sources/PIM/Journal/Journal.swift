// The persistent undo history: one JournalEntry per command that changed records, in the store
// itself, so `pim undo` and `pim redo` work across invocations. Undo applies an entry's states
// before, redo its states after, each only if the records still are as the entry left them.
import Foundation
import ObjectGraph

/// What `pim undo` or `pim redo` did.
public struct JournalOutcome: Sendable {
    /// The command line of the entry undone or redone.
    public var command: String
    /// When that command ran.
    public var date: Date
    /// How many records it changed.
    public var recordCount: Int
}

/// The undo journal of a store.
///
/// Entries are numbered by `sequence`. Undo takes the newest entry not undone; redo the oldest
/// undone one; a new command drops the undone entries (as an editor's redo stack does). Only the
/// newest ``limit`` entries are kept.
struct Journal {
    let store: PIMStore
    /// How many entries the journal keeps.
    static let limit = 200

    var context: ManagedObjectContext { store.context }

    /// Adds the entry of a command's changes, dropping undone entries and the oldest beyond the limit.
    func append(_ changes: [RecordChange], command: String) throws {
        for entry in try entries(undone: true) { context.delete(entry) }
        let kept = try entries(undone: false)
        for entry in kept.dropLast(Self.limit - 1) { context.delete(entry) }
        let entry = JournalEntry(context: context)
        entry.sequence = (kept.last?.sequence ?? 0) + 1
        entry.date = store.now
        entry.command = command
        entry.changes = try JSONEncoder().encode(changes)
    }

    /// Reverts the newest command not undone (`undoing`), or replays the one undone last.
    func step(undoing: Bool) throws(PIMError) -> JournalOutcome {
        // The entry to take back is read, applied and saved by one pim run at a time.
        let lock: WriterLock
        do {
            lock = try WriterLock(storeURL: store.url)
        } catch {
            throw PIMError.wrapping(error, storePath: store.url.path)
        }
        defer { lock.release() }
        let entry: JournalEntry
        do {
            let candidates = try entries(undone: !undoing)
            guard let next = undoing ? candidates.last : candidates.first else {
                throw PIMError.noMatch(undoing ? "nothing to undo" : "nothing to redo")
            }
            entry = next
        } catch {
            throw PIMError.wrapping(error, storePath: store.url.path)
        }
        return try apply(entry, undoing: undoing)
    }

    /// The entries undone or not, oldest first.
    func entries(undone: Bool) throws -> [JournalEntry] {
        var request = FetchRequest<JournalEntry>(entityName: "JournalEntry")
        request.predicate = try ObjectGraph.Predicate(format: "isUndone == %@", undone)
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "sequence")]
        return try context.fetch(request)
    }

    /// Applies one entry backwards (undo) or forwards (redo) and saves.
    private func apply(_ entry: JournalEntry, undoing: Bool) throws(PIMError) -> JournalOutcome {
        let command = entry.command ?? ""
        do {
            let recorded = try JSONDecoder().decode([RecordChange].self, from: entry.changes ?? Data())
            let changes = undoing ? recorded.map(\.inverted) : recorded
            try RecordStateApplier(store: store).apply(changes, command: command)
            entry.isUndone = undoing
            try store.saveUnjournaled()
            return JournalOutcome(command: command, date: entry.date ?? store.now, recordCount: changes.count)
        } catch {
            context.rollback()
            throw PIMError.wrapping(error, storePath: store.url.path)
        }
    }
}

extension PIMStore {
    /// Reverts the newest command not undone yet, as one group.
    public func undo() throws(PIMError) -> JournalOutcome {
        try Journal(store: self).step(undoing: true)
    }

    /// Replays the command undone last.
    public func redo() throws(PIMError) -> JournalOutcome {
        try Journal(store: self).step(undoing: false)
    }
}
