// `pim undo` and `pim redo`: revert or replay a whole earlier command, across invocations, from
// the journal kept in the store.
import ArgumentParser
import Foundation
import PIM

struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Revert the last command that changed records (repeat to go further back).")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let session = try Session(global)
        try report(try session.store.undo(), action: "Undid", session: session)
        session.warnOfUnwrittenRecordFiles()
    }
}

struct RedoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "Replay the command undone last.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let session = try Session(global)
        try report(try session.store.redo(), action: "Redid", session: session)
        session.warnOfUnwrittenRecordFiles()
    }
}

/// Prints what undo or redo did.
func report(_ outcome: JournalOutcome, action: String, session: Session) throws(PIMError) {
    if session.options.json {
        try session.print(RecordPresenter.json([
            "action": action.lowercased(), "command": outcome.command, "records": outcome.recordCount,
            "date": OutputFormat.rfc3339(outcome.date, timeZone: session.store.timeZone),
        ] as [String: Any]))
    } else {
        try session.print("\(action) \"\(outcome.command)\" (\(outcome.recordCount) record\(outcome.recordCount == 1 ? "" : "s"), \(session.echo(outcome.date)))")
    }
}
