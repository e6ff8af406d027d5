// `pim open FILE`: shows the record a record file stands for, which is what a desktop search hit
// opens (recoll's mimeview and the desktop entry in Importers/ run `pim open %f`).
import ArgumentParser
import Foundation
import PIM

struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Show the record a record file (.pimcontact, .pimevent, .pimtask) stands for.",
        discussion: """
            The file's path names its store and record (<records>/<store UUID>/<Entity>/p<number>.<ext>); \
            the record is read from the store, not from the file. A file of another store exits 8, \
            naming that store; a record deleted since exits 3.
            """)

    @Argument(help: ArgumentHelp("A record file, as a search hit names it.", valueName: "file"))
    var file: String

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let session = try Session(global)
        let url = URL(fileURLWithPath: file, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).absoluteURL
        let record = try session.store.record(atRecordFile: url)
        guard let kind = RecordKind(entity: record.entity) else { throw PIMError.usage("\(file): not a pim record file") }
        try session.printRecord(record, kind: kind)
    }
}
