// `pim import`: contacts, events and tasks from web-service XML feeds (EWS, xCard, xCal, GData,
// CalDAV/CardDAV, RSS/Atom events), streamed through the mappings of Importers/feeds or one of
// the user's. All files of one run are one transaction and one undo group.
import ArgumentParser
import FeedImport
import Foundation
import PIM

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import contacts, events and tasks from web-service XML feeds.",
        discussion: """
            Formats (told from the document's namespaces, or named with --format): \
            \(FeedFormat.builtIn.map(\.name).joined(separator: ", ")). --mapping reads a mapping \
            of your own (see Importers/README.md and pim-import(1)).

            Records are matched by their key within their source (--source, default the format's \
            name): importing a feed again updates what changed and adds nothing twice; records the \
            feed deletes (a DAV 404, an EWS Delete, a cancelled GData event) are deleted.

            Nothing is imported when a file is not well-formed (its line and column are named, \
            exit 9) or when the store refuses a record (each is named with its line, exit 7), or \
            tasks that depend on each other in a circle (named, exit 7); --skip-invalid imports \
            the others, or leaves out the dependency that closes the circle, and lists what it \
            left out (exit 7). \
            pim undo takes back a whole import.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The feed files.", valueName: "file"))
    var files: [String]

    @Option(help: ArgumentHelp("The feed format, when it cannot be told from the file.", valueName: "name"))
    var format: String?

    @Option(help: ArgumentHelp("A mapping file of your own (JSON, as those of Importers/feeds).", valueName: "file"))
    var mapping: String?

    @Option(help: ArgumentHelp("What the feed comes from (an account, a server): records are matched within it.", valueName: "name"))
    var source: String?

    @Flag(help: "Import the records the store accepts, list the others.")
    var skipInvalid = false

    @Flag(help: "Report what would be imported, change nothing.")
    var dryRun = false

    func validate() throws {
        if format != nil, mapping != nil { throw ValidationError("give --format or --mapping, not both") }
        if files.isEmpty { throw ValidationError("give at least one feed file") }
    }

    func run() throws {
        let session = try Session(global)
        let store = session.store
        let ownMapping = try mapping.map { path throws(PIMError) in try PIMStore.feedMapping(at: URL(fileURLWithPath: path)) }
        var summaries: [FeedImportSummary] = []
        do {
            // Files of one format in a row are one import: a link to a record of a later file
            // (a subtask's parent) is made once that file is read.
            var run: (mapping: FeedMapping, urls: [URL])?
            for file in files {
                let url = URL(fileURLWithPath: file)
                let feedMapping = try ownMapping ?? format.map { name throws(PIMError) in try FeedFormat.named(name) } ?? FeedFormat.detect(url)
                if let current = run, current.mapping.name == feedMapping.name {
                    run?.urls.append(url)
                    continue
                }
                if let current = run {
                    summaries += try store.importFeeds(at: current.urls, mapping: current.mapping, source: source, skipInvalid: skipInvalid)
                }
                run = (feedMapping, [url])
            }
            if let current = run {
                summaries += try store.importFeeds(at: current.urls, mapping: current.mapping, source: source, skipInvalid: skipInvalid)
            }
            if dryRun { store.context.rollback() } else { try session.commit() }
        } catch {
            store.context.rollback()
            throw error
        }
        try print(summaries, session: session)
        let skipped = summaries.flatMap(\.report.skipped)
        let dependencies = summaries.flatMap(\.dependenciesLeftOut)
        var lines: [String] = []
        if !skipped.isEmpty { lines += ["\(skipped.count) record(s) left out:"] + skipped.map { "  \($0)" } }
        if !dependencies.isEmpty { lines += ["\(Self.dependencies(dependencies.count)) left out:"] + dependencies.map { "  \($0)" } }
        if !lines.isEmpty { throw PIMError.invalid(lines.joined(separator: "\n")) }
    }

    /// `1 dependency`, `2 dependencies`.
    static func dependencies(_ count: Int) -> String {
        count == 1 ? "1 dependency" : "\(count) dependencies"
    }

    private func print(_ summaries: [FeedImportSummary], session: Session) throws(PIMError) {
        if global.json {
            let objects: [[String: Any]] = summaries.map { summary in
                let report = summary.report
                return ["file": summary.feed, "format": summary.format, "source": summary.source, "records": report.records,
                        "added": report.inserted, "updated": report.updated, "unchanged": report.unchanged,
                        "deleted": report.deleted, "ignored": report.ignored, "skipped": report.skipped.count,
                        "dependenciesLeftOut": summary.dependenciesLeftOut.count, "dryRun": dryRun]
            }
            try session.print(RecordPresenter.json(objects))
        } else {
            let verb = dryRun ? "Would import" : "Imported"
            try session.print(summaries.map { summary in
                let report = summary.report
                return "\(verb) \(summary.feed) (\(summary.format), source \(summary.source)): \(report.inserted) added, "
                    + "\(report.updated) updated, \(report.unchanged) unchanged, \(report.deleted) deleted"
                    + (report.ignored > 0 ? ", \(report.ignored) ignored" : "") + (report.skipped.isEmpty ? "" : ", \(report.skipped.count) left out")
                    + (summary.dependenciesLeftOut.isEmpty ? "" : ", \(Self.dependencies(summary.dependenciesLeftOut.count)) left out")
            }.joined(separator: "\n"))
        }
    }
}
