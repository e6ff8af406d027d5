// The root of the `pim` command tree: contacts, events and tasks in one store, plus undo and redo
// of whole commands. Each subcommand parses its options and calls the PIM module.
import ArgumentParser
import PIM

struct PIMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pim",
        abstract: "Contacts, events and tasks in one store.",
        discussion: """
            The store is --store PATH, else $PIM_STORE, else $XDG_DATA_HOME/pim/pim.sqlite \
            (~/.local/share/pim/pim.sqlite); it is created on first use.

            Each contact, event and task also has a record file for desktop search \
            ($PIM_RECORDS, default records beside the store; see pim records).

            Records are named by short number (12), UUID or a unique UUID prefix (3f2a), or by a \
            unique part of their name or title (an exact match wins).

            Exit codes: 0 ok, 1 nothing matched, 2 usage or parse error, 3 not found, \
            4 ambiguous id, 5 conflicting concurrent edit, 6 not confirmed, 7 invalid data, \
            8 store error, 9 feed cannot be imported, 10 sync server unreachable or refusing.
            """,
        subcommands: [TasksCommand.self, ContactsCommand.self, EventsCommand.self, UndoCommand.self, RedoCommand.self,
                      ImportCommand.self, SyncCommand.self, AlarmsCommand.self, OpenCommand.self, RecordsCommand.self]
    )
}
