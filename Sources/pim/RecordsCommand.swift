// `pim records`: the record files kept for desktop search, one per contact, event and task, which
// every change rewrites. `path` prints their folder (recoll's topdirs), `sync` rebuilds them.
import ArgumentParser
import Foundation
import PIM

struct RecordsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "The record files a desktop search indexer (recoll) reads.",
        discussion: """
            Every contact, event and task has an XHTML file in $PIM_RECORDS (default: records \
            beside the store), under the store's UUID: <store UUID>/Person/p12.pimcontact. Each \
            change rewrites its records' files and each deletion removes them. \
            PIM_RECORDS=off keeps no files. Importers/recoll holds the recoll configuration.
            """,
        subcommands: [Path.self, Sync.self])

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the folder of the store's record files.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let session = try Session(global)
            guard let status = session.store.recordsStatus else { throw PIMError.usage("record files are off ($PIM_RECORDS is \"off\")") }
            if global.json {
                try session.print(RecordPresenter.json(["folder": status.folder.path, "format": status.format.rawValue,
                                                        "pending": status.pendingObjectIDs.count] as [String: Any]))
            } else {
                try session.print(status.folder.path)
            }
        }
    }

    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every missing or stale record file and remove those of deleted records.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let session = try Session(global)
            let report = try session.store.synchronizeRecordFiles()
            if global.json {
                try session.print(RecordPresenter.json(["written": report.written, "unchanged": report.unchanged,
                                                        "removed": report.removed] as [String: Any]))
            } else {
                try session.print("Wrote \(report.written), removed \(report.removed), \(report.unchanged) up to date")
            }
        }
    }
}
