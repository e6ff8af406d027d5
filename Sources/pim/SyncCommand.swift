// `pim sync`: two-way sync with CalDAV calendars and CardDAV address books. `add` names a
// collection (the server is asked what it is), `list` shows them, `remove` stops syncing one,
// and `pim sync` alone (`run`) syncs them all, each saved as its own undo group.
import ArgumentParser
import Foundation
import PIM

extension SyncPreference: ExpressibleByArgument {}

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync contacts, events and tasks with CalDAV and CardDAV servers.",
        discussion: """
            pim sync add URL names a calendar or address book collection; pim sync (or pim sync \
            run) then syncs each both ways: what changed on the server is read here, what changed \
            here is sent, deletions go both ways. A server that keeps sync tokens (RFC 6578) is \
            asked only for what changed since the last run. Contacts made here go to the first address book \
            added; events to the calendar collection whose pim calendar they are in; tasks to the \
            first calendar that holds to-dos. Records imported from files or feeds stay here.

            A resource changed here and on the server since the last sync is a conflict: it is \
            left as it is on both sides and listed (exit 5) unless --prefer server or --prefer \
            local says which wins. The password is the first line of --password-file, else \
            $PIM_SYNC_PASSWORD. A server that cannot be reached or refuses a request exits 10; \
            what was synced before it is kept.
            """,
        subcommands: [Run.self, Add.self, List.self, Remove.self],
        defaultSubcommand: Run.self)

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync every collection (or those named) both ways.",
            discussion: "One pim sync of a store runs at a time: a run started while another is going waits for it to end.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Collections to sync (URL, a unique part of it, or the pim calendar name); default all.", valueName: "collection"))
        var collections: [String] = []

        @Option(help: ArgumentHelp("Which side wins a resource changed on both: server or local.", valueName: "side"))
        var prefer: SyncPreference?

        @Flag(help: "Report what would be synced: read the server, change nothing here or there.")
        var dryRun = false

        @Option(parsing: .unconditional, help: ArgumentHelp("Give up when the server has answered none of the requests on their way for this long.", valueName: "seconds"))
        var timeout: Double = PIMStore.defaultSyncTimeout

        func validate() throws {
            guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout \(timeout): expected a number of seconds above 0") }
        }

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            let storeURL = StoreLocation.url(option: global.store, environment: environment, home: StoreLocation.home(environment: environment))
            try SyncLock.holding(for: storeURL) { try sync() }
        }

        private func sync() throws {
            let session = try Session(global)
            let store = session.store
            let chosen = try collections.isEmpty ? store.syncCollections() : collections.map { name throws(PIMError) in try store.syncCollection(named: name) }
            if chosen.isEmpty { throw PIMError.noMatch("no collections to sync: add one with pim sync add URL") }
            let environment = ProcessInfo.processInfo.environment
            var reports: [SyncReport] = []
            // A collection the server cannot list (or that fails part way) does not keep the
            // others from syncing; the first failure is the run's exit status.
            var failures: [PIMError] = []
            for collection in chosen {
                let report: SyncReport
                do {
                    let password = try store.syncPassword(for: collection, environment: environment)
                    report = try store.synchronize(collection, prefer: prefer, password: password, dryRun: dryRun, timeout: timeout)
                } catch {
                    store.context.rollback()
                    failures.append(error)
                    continue
                }
                if dryRun { store.context.rollback() } else { try session.commit() }
                reports.append(report)
                if let failure = report.failure { failures.append(failure) }
            }
            try printReports(reports)
            if let first = failures.first {
                if failures.count == 1 { throw first }
                throw PIMError.server(failures.map(\.description).joined(separator: "\n"))
            }
            let problems = reports.flatMap(\.problems)
            if !problems.isEmpty {
                throw PIMError.server("\(problems.count) request(s) failed:\n" + problems.map { "  \($0)" }.joined(separator: "\n"))
            }
            let refused = reports.flatMap(\.refused)
            if !refused.isEmpty {
                throw PIMError.invalid("\(refused.count) resource(s) refused by the store, read again next time:\n"
                                       + refused.map { "  \($0)" }.joined(separator: "\n"))
            }
            let conflicts = reports.flatMap(\.conflicts)
            if !conflicts.isEmpty {
                throw PIMError.conflict("\(conflicts.count) conflict(s) left as they are on both sides; "
                                        + "pim sync --prefer server or --prefer local settles them:\n"
                                        + conflicts.map { "  \($0)" }.joined(separator: "\n"))
            }
        }

        private func printReports(_ reports: [SyncReport]) throws(PIMError) {
            guard !reports.isEmpty else { return }
            if global.json {
                let objects: [[String: Any]] = reports.map { report in
                    var object: [String: Any] = [
                        "collection": report.collection, "added": report.added, "updated": report.updated, "deleted": report.deleted,
                        "sent": report.sent, "removed": report.removed, "conflicts": report.conflicts, "problems": report.problems,
                        "refused": report.refused]
                    switch report.listing {
                    case .whole: object["listing"] = "whole"
                    case .changes(let count):
                        object["listing"] = "changes"
                        object["listedChanges"] = count
                    }
                    return object
                }
                Console.print(RecordPresenter.json(objects))
            } else {
                for report in reports {
                    Console.print("\(report.collection): \(report.added) added, \(report.updated) updated, \(report.deleted) deleted here; "
                                  + "\(report.sent) sent, \(report.removed) deleted on the server"
                                  + (report.conflicts.isEmpty ? "" : "; \(report.conflicts.count) conflict(s)"))
                }
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a calendar or address book collection to sync.",
            discussion: """
                URL is the collection itself (https://dav.example.com/alice/calendar/); a URL \
                above collections is refused, naming those under it. Nothing is synced until \
                pim sync runs.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The collection's URL.", valueName: "url"))
        var url: String

        @Option(help: ArgumentHelp("The user name (Basic authentication).", valueName: "name"))
        var user: String?

        @Option(help: ArgumentHelp("A file whose first line is the password (default: $PIM_SYNC_PASSWORD).", valueName: "file"))
        var passwordFile: String?

        @Option(help: ArgumentHelp("The pim calendar its events are in (default: the collection's name).", valueName: "name"))
        var calendar: String?

        func run() throws {
            let session = try Session(global)
            let store = session.store
            guard let target = URL(string: url) else { throw PIMError.usage("\(url): not a URL") }
            let passwordPath = passwordFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            let password = try PIMStore.syncPassword(file: passwordPath, environment: ProcessInfo.processInfo.environment)
            let collection = try store.addSyncCollection(target, user: user, passwordFile: passwordPath, password: password,
                                                         calendarName: calendar)
            try session.commit()
            try printCollections([collection], session: session)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the collections pim syncs.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let session = try Session(global)
            let collections = try session.store.syncCollections()
            if collections.isEmpty && !global.json { throw PIMError.noMatch("no collections: add one with pim sync add URL") }
            try printCollections(collections, session: session)
            if collections.isEmpty { throw PIMError.noMatch("no collections: add one with pim sync add URL") }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop syncing a collection (its records stay here).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The collection (URL, a unique part of it, or the pim calendar name).", valueName: "collection"))
        var collection: String

        func run() throws {
            let session = try Session(global)
            let found = try session.store.syncCollection(named: collection)
            let url = found.url ?? ""
            session.store.removeSyncCollection(found)
            try session.commit()
            try session.print(global.json ? RecordPresenter.json(["removed": url]) : "Removed \(url)")
        }
    }
}

/// Prints collections: one line each (URL, kind, pim calendar, resources, last sync), or JSON.
private func printCollections(_ collections: [SyncCollection], session: Session) throws(PIMError) {
    if session.options.json {
        let objects: [[String: Any]] = collections.map { collection in
            var object: [String: Any] = ["url": collection.url ?? "", "kind": collection.collectionKind.rawValue,
                                         "resources": collection.syncedResourceCount]
            if let calendar = collection.calendar { object["calendar"] = calendar }
            if let name = collection.displayName { object["name"] = name }
            if let user = collection.user { object["user"] = user }
            if let synced = collection.lastSynced { object["synced"] = OutputFormat.echo(synced, timeZone: session.store.timeZone) }
            if let token = collection.syncToken { object["syncToken"] = token }
            if collection.syncTokensRefused { object["syncTokensRefused"] = true }
            return object
        }
        try session.print(RecordPresenter.json(objects))
        return
    }
    try session.print(collections.map { collection in
        var parts = [collection.url ?? "", collection.collectionKind == .addressBook ? "address book" : "calendar"]
        if let calendar = collection.calendar { parts.append("pim calendar \(calendar)") }
        if let user = collection.user { parts.append("user \(user)") }
        parts.append("\(collection.syncedResourceCount) synced")
        parts.append(collection.lastSynced.map { "last \(session.echo($0))" } ?? "never synced")
        return parts.joined(separator: "  ")
    }.joined(separator: "\n"))
}

/// One `pim sync` of a store at a time: a run holds an exclusive lock (`flock`) on
/// `.<store file>.sync-lock` beside the store, so that a run a timer starts while another is going
/// (or one typed meanwhile) waits for it to end, then syncs what is left, instead of reading and
/// sending the same resources twice.
enum SyncLock {
    static func holding<T>(for storeURL: URL, _ body: () throws -> T) throws -> T {
        let folder = storeURL.deletingLastPathComponent()
        // No folder yet: no store, nothing another run could be syncing.
        guard FileManager.default.fileExists(atPath: folder.path) else { return try body() }
        let path = folder.appendingPathComponent("." + storeURL.lastPathComponent + ".sync-lock").path
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw PIMError.store(path: path, reason: "cannot open the sync lock: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else { throw PIMError.store(path: path, reason: "cannot lock: \(String(cString: strerror(errno)))") }
            Console.error("pim: waiting for another pim sync of \(storeURL.path) to end")
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else { throw PIMError.store(path: path, reason: "cannot lock: \(String(cString: strerror(errno)))") }
            }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
