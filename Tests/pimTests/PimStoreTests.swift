// The behaviour every pim command shares, end to end on the built binary, against pim(1): bad
// stores (a folder, a file that is not a store, a store of a different model, a corrupt page,
// a read-only file), writers at the same time (the writer lock), the exit statuses of pim(1)
// EXIT STATUS, standard output carrying only data (JSON from every write command) or failing,
// and the folder the default store is created in.
import Foundation
import XCTest

final class PimStoreTests: PimTestCase {
    // MARK: Helpers

    /// How one run ended: its status and whether it exited or was killed by a signal.
    struct Ended {
        var status: Int32
        var exited: Bool
        var stdout: String
        var stderr: String

        /// A short description for assertion messages.
        var summary: String {
            (exited ? "exit \(status)" : "killed by signal \(status)") + "; stderr: " + String(stderr.prefix(600))
        }
    }

    /// Runs the built pim with `arguments` (and `--store <store>`), in PimRun's environment
    /// (HOME and XDG_DATA_HOME in the temporary folder), with standard output going to `output`
    /// (a temporary file when nil), and as `user` (a uid; nil: as the test runs) through
    /// setpriv(1). Unlike PimRun, it tells an exit from a signal.
    func run(_ arguments: [String], output: FileHandle? = nil, user: uid_t? = nil) throws -> Ended {
        let outputURL = folder.appendingPathComponent("out-\(UUID().uuidString)")
        let errorURL = folder.appendingPathComponent("err-\(UUID().uuidString)")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let process = Process()
        let pimArguments = arguments + ["--store", store.path]
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", pimURL.path] + pimArguments
        } else {
            process.executableURL = pimURL
            process.arguments = pimArguments
        }
        process.environment = testEnvironment()
        process.standardInput = FileHandle.nullDevice
        let stdout = try output ?? FileHandle(forWritingTo: outputURL)
        let stderr = try FileHandle(forWritingTo: errorURL)
        defer {
            if output == nil { try? stdout.close() }
            try? stderr.close()
        }
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()
        return Ended(status: process.terminationStatus, exited: process.terminationReason == .exit,
                     stdout: try String(contentsOf: outputURL, encoding: .utf8),
                     stderr: try String(contentsOf: errorURL, encoding: .utf8))
    }

    /// The store file's bytes, after checking that no run left a -wal beside it (so that the
    /// file alone holds the store).
    func storeBytes(file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.path + "-wal"), "a -wal file is left beside the store",
                       file: file, line: line)
        return try Data(contentsOf: store)
    }

    /// The SQLite page size of a database file (header bytes 16-17; 1 means 65536).
    func pageSize(of data: Data) -> Int {
        let size = Int(data[data.startIndex + 16]) << 8 | Int(data[data.startIndex + 17])
        return size == 1 ? 65536 : size
    }

    // MARK: Bad stores

    /// pim(1) EXIT STATUS: "8  The store cannot be opened or written"; "Messages go to standard
    /// error; standard output carries only data". A store path that is a folder, a file that is
    /// not a SQLite database, and a pim store written with a different model (entities renamed
    /// in its metadata) must each make reads, writes and undo exit 8
    /// with a message naming the store, print nothing on stdout and leave the file as it was.
    /// (Guard: passes.)
    func testBadStoresExitEightAndAreLeftAlone() throws {
        let commands = [["tasks", "list"], ["tasks", "add", "Milk", "--json"], ["undo"], ["events", "agenda"]]

        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        for command in commands {
            let ended = try run(command)
            XCTAssertEqual(ended.status, 8, "folder as store, \(command): \(ended.summary)")
            XCTAssertEqual(ended.stdout, "", "folder as store, \(command)")
            XCTAssertTrue(ended.stderr.hasPrefix("pim: store \(store.path)"), ended.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.path), [])
        try FileManager.default.removeItem(at: store)

        let text = Data("name,email\nAnn,ann@example.org\n".utf8)
        try text.write(to: store)
        for command in commands {
            let ended = try run(command)
            XCTAssertEqual(ended.status, 8, "text file as store, \(command): \(ended.summary)")
            XCTAssertEqual(ended.stdout, "", "text file as store, \(command)")
            XCTAssertEqual(try Data(contentsOf: store), text, "text file as store, \(command) changed it")
        }
        try FileManager.default.removeItem(at: store)

        // A pim store whose metadata says it was written with another model: rename four
        // entities (Tag, Task, Group, Event: their last letter changed) where the metadata's
        // binary property list (Z_METADATA's Z_PLIST) names them: keys of its version-hash
        // dictionaries, ASCII strings written as 0x50 + length, then the bytes.
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        var bytes = try storeBytes()
        var patched = 0
        for name in ["Tag", "Task", "Group", "Event"] {
            let key = Data([UInt8(0x50 + name.utf8.count)] + Array(name.utf8))
            var searchFrom = bytes.startIndex
            while let found = bytes.range(of: key, in: searchFrom..<bytes.endIndex) {
                bytes[found.upperBound - 1] ^= 0x01
                patched += 1
                searchFrom = found.upperBound
            }
        }
        XCTAssertGreaterThan(patched, 0, "no entity names found in the store's metadata")
        try bytes.write(to: store)
        for command in commands {
            let ended = try run(command)
            XCTAssertEqual(ended.status, 8, "store of another model, \(command): \(ended.summary)")
            XCTAssertEqual(ended.stdout, "", "store of another model, \(command)")
            XCTAssertTrue(ended.stderr.contains("different model"), ended.stderr)
            XCTAssertEqual(try Data(contentsOf: store), bytes, "store of another model, \(command) changed it")
        }
    }

    /// pim(1) EXIT STATUS: "8  The store cannot be opened or written". A store with a corrupt
    /// page (here the pages holding a contact's row, overwritten with 0xFF, as a bad sector or a
    /// torn copy leaves them) opens, and the task assigned to that contact is found; showing the
    /// task or marking it done then reads the contact. That read fails ("database disk image is
    /// malformed"), and pim must report it as a store failure: exit 8 with a message. Instead
    /// ObjectGraph's fault fulfilment calls fatalError ("could not load the values of
    /// x-objectgraph://.../Person/p1") and pim dies of SIGILL with a backtrace on stderr.
    func testACorruptPageIsAStoreFailureNotACrash() throws {
        let marker = "Zqxcorruptme"
        XCTAssertEqual(try pim("contacts", "add", marker).status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Slides", "--assignee", marker).status, 0)
        var bytes = try storeBytes()
        let page = pageSize(of: bytes)
        var pages = Set<Int>()
        var searchFrom = bytes.startIndex
        while let found = bytes.range(of: Data(marker.utf8), in: searchFrom..<bytes.endIndex) {
            pages.insert(found.lowerBound / page)
            searchFrom = found.upperBound
        }
        XCTAssertFalse(pages.isEmpty)
        XCTAssertFalse(pages.contains(0), "the marker is on the first page")
        for number in pages { bytes.replaceSubrange(number * page..<(number + 1) * page, with: Data(repeating: 0xFF, count: page)) }
        try bytes.write(to: store)

        for command in [["tasks", "show", "1"], ["tasks", "show", "Slides", "--json"], ["tasks", "done", "1"]] {
            let ended = try run(command)
            XCTAssertTrue(ended.exited, "\(command): \(ended.summary)")
            XCTAssertEqual(ended.status, 8, "\(command): \(ended.summary)")
            XCTAssertTrue(ended.stderr.hasPrefix("pim: store "), "\(command): \(ended.summary)")
            XCTAssertEqual(ended.stdout, "", "\(command)")
        }
    }

    /// pim(1) EXIT STATUS: "8  The store cannot be opened or written". A store file the user
    /// may read but not write: reads work, every write (add, done, undo) exits 8 naming the
    /// store, and the records stay as they were. Run as another user (nobody, through setpriv)
    /// when the tests run as root, whom file modes do not stop. (Guard: passes.)
    func testReadOnlyStoreFileReadsButRefusesWrites() throws {
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Bread").status, 0)
        let files = FileManager.default
        var user: uid_t?
        if getuid() == 0 {
            try XCTSkipUnless(files.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv(1) is needed to run as another user")
            user = 65534
            // The other user writes the -wal and -shm files beside the store, and reads it.
            try files.setAttributes([.ownerAccountID: 65534], ofItemAtPath: folder.path)
            try files.setAttributes([.ownerAccountID: 65534], ofItemAtPath: store.path)
            let probe = try run(["tasks", "list"], user: user)
            try XCTSkipUnless(probe.exited && probe.status == 0, "pim cannot run as nobody here: \(probe.summary)")
        }
        let before = try run(["tasks", "list", "--all", "--json"], user: user)
        XCTAssertEqual(before.status, 0, before.summary)
        try files.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path)
        defer { try? files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: store.path) }

        let list = try run(["tasks", "list", "--fields", "title"], user: user)
        XCTAssertEqual(list.status, 0, list.summary)
        XCTAssertEqual(list.stdout, "TITLE\nMilk\nBread\n")
        for command in [["tasks", "add", "Eggs"], ["tasks", "done", "1", "--json"], ["undo"]] {
            let ended = try run(command, user: user)
            XCTAssertEqual(ended.status, 8, "\(command): \(ended.summary)")
            XCTAssertTrue(ended.stderr.hasPrefix("pim: store \(store.path)"), "\(command): \(ended.summary)")
            XCTAssertEqual(ended.stdout, "", "\(command)")
        }
        XCTAssertEqual(try run(["tasks", "list", "--all", "--json"], user: user).stdout, before.stdout)
    }

    // MARK: Writers at the same time

    /// A pim run started with its standard output on a pipe that is not read: a run printing
    /// more than a pipe holds (64 KiB) stops in its first write, after its save.
    struct Held {
        var process: Process
        var output: Pipe
        var error: URL
        var first: Data

        /// Reads the rest of its output and waits for it to end.
        func finish() throws -> PimRun {
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return PimRun(status: process.terminationStatus, stdout: String(decoding: first + rest, as: UTF8.self),
                          stderr: try String(contentsOf: error, encoding: .utf8))
        }
    }

    /// Starts pim with `arguments` and returns once it has printed its first byte: a write
    /// command prints only after its save, so it has saved, released its writer lock and still
    /// has the store open.
    func startHeld(_ arguments: [String]) throws -> Held {
        let errorURL = folder.appendingPathComponent("held-\(UUID().uuidString)")
        try Data().write(to: errorURL)
        let process = Process()
        process.executableURL = pimURL
        process.arguments = arguments + ["--store", store.path]
        process.environment = testEnvironment()
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        try? output.fileHandleForWriting.close()
        let first = output.fileHandleForReading.readData(ofLength: 1)
        return Held(process: process, output: output, error: errorURL, first: first)
    }

    /// pim(1) EXIT STATUS 5: "Runs that write at the same time take turns to number new
    /// records, write the journal and save (a lock on the store file), so they never give two
    /// records one number; only a change to the same records is a conflict." Here four runs
    /// add four different tasks, each succeeds, and one of the tasks is lost.
    ///
    /// The writer lock (WriterLock in PIMStore.swift) opens the store file and, on release,
    /// closes that descriptor. Closing any descriptor of a file drops every POSIX lock the
    /// process holds on it, SQLite's included (sqlite.org/howtocorrupt.html, 2.2): from its
    /// save to its exit a pim run that wrote holds no SHARED lock on the database, while its
    /// connection is still open. Other runs then take themselves for the last connection and
    /// checkpoint and delete the -wal and -shm files under it. Sequence (each step waits for
    /// the previous; the two long adds print over 64 KiB of JSON and so wait in their first
    /// write, after their save, until the test reads their output):
    ///   1. A: `tasks add <long a> --json`, held after its save;
    ///   2. `tasks list`: on closing it checkpoints and deletes A's WAL (A holds no lock);
    ///   3. D: `tasks add <long d> --json`, held after its save, in a new WAL;
    ///   4. A ends: on closing it takes itself for the last connection and deletes D's WAL by
    ///      name (D holds no lock either);
    ///   5. `tasks add New`: does not see D's task, takes the same number 3, saves, checkpoints;
    ///   6. D ends: it checkpoints its own WAL, writing its stale pages over task New's.
    /// All runs exit 0 and print what they added; afterwards task New is gone (and for longer
    /// runs the file fails `PRAGMA integrity_check`: "Rowid out of order", "wrong # of entries
    /// in index").
    func testConcurrentWritersNeverLoseAnAddedTask() throws {
        XCTAssertEqual(try pim("tasks", "add", "Seed").status, 0)
        let long = 120_000
        let first = try startHeld(["tasks", "add", String(repeating: "a", count: long), "--json"])
        XCTAssertEqual(try pim("tasks", "list", "--fields", "number").status, 0)
        let second = try startHeld(["tasks", "add", String(repeating: "d", count: long), "--json"])
        let firstRun = try first.finish()
        XCTAssertEqual(firstRun.status, 0, firstRun.stderr)
        let new = try pim("tasks", "add", "New")
        XCTAssertEqual(new.status, 0, new.stderr)
        let secondRun = try second.finish()
        XCTAssertEqual(secondRun.status, 0, secondRun.stderr)
        for run in [firstRun, secondRun] {
            XCTAssertNotNil(try? run.json() as? [String: Any], "not one JSON object: \(run.stdout.prefix(200))")
        }

        let list = try pim("tasks", "list", "--all", "--json")
        XCTAssertEqual(list.status, 0, list.stderr)
        let tasks = try XCTUnwrap(list.json() as? [[String: Any]])
        let titles = tasks.map { String(($0["title"] as? String ?? "").prefix(5)) }.sorted()
        XCTAssertEqual(titles, ["New", "Seed", "aaaaa", "ddddd"], "a task that was added (and reported added) is missing")
        let numbers = tasks.compactMap { $0["number"] as? Int }
        XCTAssertEqual(numbers.count, Set(numbers).count, "two tasks share a number: \(numbers)")
    }

    // MARK: Output

    /// pim(1) --json: "write commands print the records they changed"; "Messages go to standard
    /// error; standard output carries only data". Every write command and undo/redo with
    /// --json prints one JSON value on stdout (an object for one record, an array for several)
    /// and nothing on stderr. (Guard: passes.)
    func testEveryWriteCommandPrintsOnlyJSON() throws {
        let commands: [([String], Bool)] = [
            (["contacts", "add", "Ann", "Lee", "--email", "ann@example.org", "--birthday", "1990-04-01"], false),
            (["contacts", "add", "Bob"], false),
            (["contacts", "edit", "ann", "--phones", "mobile:+49 30 1234"], false),
            (["contacts", "group", "add", "Family", "ann", "bob"], false),
            (["events", "add", "Review", "--start", "fri 10:00", "--attendee", "ann"], false),
            (["events", "edit", "review", "--start", "fri 11:00", "--attendees", "bob"], false),
            (["tasks", "add", "Slides", "--due", "fri 9am", "--assignee", "ann", "--for-event", "review"], false),
            (["tasks", "add", "Sub", "--parent", "1"], false),
            (["tasks", "edit", "1", "--due", "sat 9am", "--tags", "work"], false),
            (["tasks", "start", "1"], false),
            (["tasks", "done", "1", "2"], true),
            (["tasks", "delete", "1", "--yes"], true),
            (["undo"], false),
            (["redo"], false),
            (["events", "delete", "review", "--yes"], false),
            (["contacts", "delete", "bob", "--yes"], false),
        ]
        for (command, many) in commands {
            let ended = try run(command + ["--json"])
            XCTAssertEqual(ended.status, 0, "\(command): \(ended.summary)")
            XCTAssertEqual(ended.stderr, "", "\(command)")
            let value = try? JSONSerialization.jsonObject(with: Data(ended.stdout.utf8))
            XCTAssertNotNil(value, "\(command) printed no JSON: \(ended.stdout)")
            if many {
                XCTAssertEqual((value as? [Any])?.count, 2, "\(command): \(ended.stdout)")
            } else {
                XCTAssertNotNil(value as? [String: Any], "\(command): \(ended.stdout)")
            }
        }
    }

    /// pim(1) EXIT STATUS and "Messages go to standard error": when standard output cannot be
    /// written (here /dev/full: "No space left on device"), pim must say so on stderr and exit
    /// with a failure status, as other tools do (`ls >/dev/full`: "write error", exit 2). Console
    /// writes with FileHandle.write(_: Data), whose failure is a `try!` inside Foundation: pim
    /// dies of SIGILL with "Fatal error: 'try!' expression unexpectedly raised an error" and a
    /// backtrace, both for a list and for an add (whose record is already saved by then).
    func testUnwritableStandardOutputIsAnErrorNotACrash() throws {
        guard let full = FileHandle(forWritingAtPath: "/dev/full") else { throw XCTSkip("/dev/full is needed") }
        defer { try? full.close() }
        XCTAssertEqual(try pim("tasks", "add", "Milk").status, 0)
        for command in [["tasks", "list"], ["tasks", "add", "Bread"]] {
            let ended = try run(command, output: full)
            XCTAssertTrue(ended.exited, "\(command): \(ended.summary)")
            XCTAssertNotEqual(ended.status, 0, "\(command): \(ended.summary)")
            XCTAssertTrue(ended.stderr.hasPrefix("pim: "), "\(command): \(ended.summary)")
        }
    }

    // MARK: The store's folder

    /// pim(1) ENVIRONMENT/FILES: the default store is $XDG_DATA_HOME/pim/pim.sqlite, "created
    /// with its folder on first use". The XDG base directory spec, which XDG_DATA_HOME comes
    /// from, says such folders are created with mode 0700, and ObjectGraph's SQLite connection
    /// means to do so ("a new file created 0600 in a directory created 0700", SQLiteConnection.
    /// createPrivately). But PIMStore.init creates the folder first with
    /// FileManager.createDirectory and no attributes, so it gets the umask's mode (0755:
    /// anyone may list it) and the connection's 0700 never applies.
    func testDefaultStoreFolderIsCreatedPrivate() throws {
        let run = try pim("tasks", "add", "Milk", useStoreOption: false)
        XCTAssertEqual(run.status, 0, run.stderr)
        let pimFolder = folder.appendingPathComponent("data/pim")
        let storeMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: pimFolder.appendingPathComponent("pim.sqlite").path)[.posixPermissions] as? Int)
        XCTAssertEqual(storeMode & 0o777, 0o600, "the store file")
        let folderMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: pimFolder.path)[.posixPermissions] as? Int)
        XCTAssertEqual(String(folderMode & 0o777, radix: 8), "700", "the store's folder \(pimFolder.path)")
    }

    /// pim(1) --store: an empty path is refused with exit 2. `--store "$UNSET"` used the default
    /// store (the user's own) and created it.
    func testAnEmptyStorePathIsRefused() throws {
        for path in ["", " "] {
            let run = try pim("tasks", "add", "Milk", "--store", path, useStoreOption: false)
            XCTAssertEqual(run.status, 2, run.stderr)
            XCTAssertTrue(run.stderr.contains("--store"), run.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/pim").path))
    }
}
