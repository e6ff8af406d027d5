// What the sync tests share: a real Radicale server per test with a calendar
// (/alice/calendar/, pim calendar `personal`) and an address book (/alice/contacts/), two stores
// (the first, and `other`: two devices of one user), and runs of pim a minute apart (PIM_NOW), as
// separate commands are: sync tells changes here by modification times.
import Foundation
import XCTest

class SyncTestCase: PimTestCase {
    var server: RadicaleServer!
    private var minute = 0
    var other: URL { folder.appendingPathComponent("other.sqlite") }
    var calendarURL: String { server.root.absoluteString + "alice/calendar/" }
    var contactsURL: String { server.root.absoluteString + "alice/contacts/" }

    /// Whether the server logs the requests it receives (``RadicaleServer/requestCount(_:)``).
    class var logsRequests: Bool { false }
    /// Whether the server keeps sync tokens (RFC 6578), as Radicale does; without, it refuses
    /// every sync-collection report.
    class var serverKeepsSyncTokens: Bool { true }

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try RadicaleServer(folder: folder, logRequests: Self.logsRequests, syncTokens: Self.serverKeepsSyncTokens)
        try server.makeCalendar("/alice/calendar/", name: "Personal")
        try server.makeAddressBook("/alice/contacts/")
    }

    override func tearDownWithError() throws {
        server?.stop()
        try super.tearDownWithError()
    }

    /// Runs pim on the first store (or on `storeURL`'s), a minute after the previous run.
    @discardableResult
    func run(_ arguments: String..., on storeURL: URL? = nil, environment: [String: String] = [:]) throws -> PimRun {
        try run(arguments: arguments, on: storeURL, environment: environment)
    }

    func run(arguments: [String], on storeURL: URL?, environment: [String: String] = [:]) throws -> PimRun {
        minute += 1
        var extra = environment
        extra["PIM_NOW"] = String(format: "2026-11-25T%02d:%02d:00", 10 + minute / 60, minute % 60)
        extra["PIM_RECORDS"] = "off"
        return try pim(arguments: arguments + ["--store", (storeURL ?? store).path], useStoreOption: false, environment: extra)
    }

    /// Adds the calendar (as pim calendar `personal`) and the address book to `storeURL`'s store.
    func addCollections(on storeURL: URL? = nil) throws {
        let calendar = try run("sync", "add", calendarURL, "--calendar", "personal", on: storeURL)
        XCTAssertEqual(calendar.status, 0, calendar.stderr)
        let contacts = try run("sync", "add", contactsURL, on: storeURL)
        XCTAssertEqual(contacts.status, 0, contacts.stderr)
    }

    /// A resource the test expected on the server is not there.
    struct MissingResource: Error, CustomStringConvertible {
        var description: String
    }

    /// The server's copy of the to-do titled `title` in the calendar: its href and text.
    func resource(titled title: String) throws -> (href: String, text: String) {
        for href in try server.resources(in: "/alice/calendar/") {
            let text = try server.text(of: href)
            if text.contains("SUMMARY:\(title)\r\n") { return (href, text) }
        }
        throw MissingResource(description: "the server has no to-do titled \(title)")
    }

    /// The titles of the tasks the task titled `title` depends on, in `storeURL`'s store.
    func dependencies(of title: String, on storeURL: URL? = nil) throws -> [String] {
        let task = try XCTUnwrap(try list("tasks", on: storeURL).first { $0["title"] as? String == title }, "no task \(title)")
        return ((task["dependsOn"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }.sorted()
    }

    /// `pim sync --json` on `storeURL`'s store: the run, and each collection's report by URL.
    func syncRun(on storeURL: URL?, _ extra: [String]) throws -> (run: PimRun, reports: [String: [String: Any]]) {
        let done = try run(arguments: ["sync", "--json"] + extra, on: storeURL)
        let reports = (try? done.json() as? [[String: Any]]) ?? []
        return (done, Dictionary(uniqueKeysWithValues: reports.map { ($0["collection"] as? String ?? "", $0) }))
    }

    /// A count of a collection's report (-1 when missing).
    func count(_ report: [String: Any]?, _ key: String) -> Int { report?[key] as? Int ?? -1 }

    /// `pim <kind> list --json` on `storeURL`'s store (none when nothing matches).
    func list(_ kind: String, on storeURL: URL? = nil) throws -> [[String: Any]] {
        let listed = try run(kind, "list", "--json", on: storeURL)
        if listed.status == 1 { return [] }
        XCTAssertEqual(listed.status, 0, listed.stderr)
        return try XCTUnwrap(listed.json() as? [[String: Any]])
    }

    /// The titles (names for contacts) of `kind`'s records, sorted.
    func titles(_ kind: String, on storeURL: URL? = nil) throws -> [String] {
        try list(kind, on: storeURL).map { ($0["title"] ?? $0["name"]) as? String ?? "" }.sorted()
    }
}
