// Putting a complete store file in place of another so that a crash at any moment leaves one of
// the two whole: the new file is renamed over the old one (one atomic step of the file system),
// after both are settled into single files (no write-ahead log or rollback journal that SQLite
// would replay onto the wrong file) and the old store's folder of external data holds the files
// of both. A migration into a new file ends with this swap; a store another connection saved
// into while it was being migrated is left as it is, its save with it.
import CSQLite
import Foundation

extension SQLiteStore {
    /// Makes the store file `replacement` with `make` (from the store at `url`) and puts it in
    /// place of the store at `url`. Until the rename, `url` is the old store, whole; from it, the
    /// new one, whole: a crash in between leaves no file half written, only `replacement` and
    /// some external data files nothing refers to, which ``PersistentStoreCoordinator`` removes
    /// at the next migration. Throws, leaving `url` as it was, when another connection saved into
    /// the store since `make` began (what it saved would be lost), or when either file cannot be
    /// settled into a single file. The options' `busyTimeout` bounds how long a reader of either
    /// may hold the settling up.
    static func swap(_ replacement: URL, into url: URL, options: [String: any Sendable], making make: () throws -> Void,
                     crashPoint: (String) -> Void = { _ in }) throws {
        let timeout = (options["busyTimeout"] as? Double) ?? (options["busyTimeout"] as? Int).map(Double.init) ?? 10
        // Settled first, so that closing another connection (which checkpoints) changes nothing
        // the watch below would take for a save.
        try settle(url, naming: url, busyTimeout: timeout)
        let watch = try ChangeWatch(url)
        try make()
        try settle(replacement, naming: url, busyTimeout: timeout)
        if try watch.sawChange() {
            throw StoreError.io(path: url.path, reason: "another connection saved into the store while it was migrated: it is left as it is "
                                + "(with what was saved); add it again to migrate it")
        }
        try settle(url, naming: url, busyTimeout: timeout)
        let newData = SQLiteExternalData.supportDirectory(for: replacement).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
        let oldData = SQLiteExternalData.supportDirectory(for: url).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
        let kept = try joinExternalData(newData, into: oldData, naming: url)
        // The old store's files the new one lacks, listed before the rename: a crash after it
        // leaves the list for the next migration to finish (``PersistentStoreCoordinator/removeLeftovers(of:)``).
        let unreferenced = ((try? FileManager.default.contentsOfDirectory(atPath: oldData.path)) ?? []).filter { !kept.contains($0) }
        let tidyList = FileSwap.tidyList(for: replacement)
        if !unreferenced.isEmpty {
            do {
                try Data(unreferenced.joined(separator: "\n").utf8).write(to: tidyList, options: .atomic)
            } catch {
                throw StoreError.io(path: url.path, reason: "cannot list the external data files to remove after the migration: \(error.localizedDescription)")
            }
        }
        crashPoint("before-rename")
        do {
            try FileSwap.rename(replacement, over: url)
        } catch {
            // The old store stays, and refers to the files listed: the list must not outlive
            // the working file (the next migration would take the swap for done).
            try? FileManager.default.removeItem(at: tidyList)
            throw error
        }
        crashPoint("after-rename")
        // Only tidying from here on: a crash leaves files nothing refers to.
        let files = FileManager.default
        for leftover in [replacement.path + "-wal", replacement.path + "-shm", replacement.path + "-journal",
                         SQLiteExternalData.supportDirectory(for: replacement).path] where files.fileExists(atPath: leftover) {
            try? files.removeItem(atPath: leftover)
        }
        FileSwap.finishTidying(tidyList, in: oldData)
    }

    /// Makes the file at `url` a single file: SQLite recovers or rolls back what a crashed
    /// writer left, the write-ahead log is copied into the file and emptied, and the connection
    /// closes (the last one removes the log). Throws, naming the store at `store`, when a log or
    /// a hot journal stays: another connection still writes through it. (A rollback journal that
    /// `journal_mode = PERSIST` keeps, its header zeroed, holds nothing.)
    private static func settle(_ url: URL, naming store: URL, busyTimeout: TimeInterval) throws {
        do {
            let connection = try SQLiteConnection(path: url.path, busyTimeout: busyTimeout, readOnly: false, writeAheadLog: false)
            // A first read replays a hot journal or recovers the log; the checkpoint empties it.
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
            _ = try connection.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.close()
        } catch let error as SQLiteError where error.code & 0xff == SQLITE_READONLY {
            // A file one may not write: fine as long as nothing is waiting to be written into it.
        }
        let what = url == store ? "its" : "the migrated file's"
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal"))?[.size] as? Int, size > 0 {
            throw StoreError.io(path: store.path, reason: "\(what) -wal file still holds changes (is the store open in another process?): it cannot be replaced now")
        }
        if FileSwap.isHotJournal(url.path + "-journal") {
            throw StoreError.io(path: store.path, reason: "\(what) -journal file holds a transaction (is the store open in another process?): it cannot be replaced now")
        }
        try FileSwap.synchronize(url)
    }

    /// Gives the folder of external data `target` every file of `source` it lacks (hard links,
    /// or copies across file systems) and answers the names of `source`'s files: those the new
    /// store refers to. File names are UUIDs and a file is never rewritten, so a name in both
    /// folders is the same bytes.
    private static func joinExternalData(_ source: URL, into target: URL, naming store: URL) throws -> Set<String> {
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: source.path) else { return [] }
        do {
            for folder in [target.deletingLastPathComponent(), target] where !files.fileExists(atPath: folder.path) {
                try files.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            for name in names where !files.fileExists(atPath: target.appendingPathComponent(name).path) {
                let from = source.appendingPathComponent(name), to = target.appendingPathComponent(name)
                if link(from.path, to.path) != 0 { try files.copyItem(at: from, to: to) }
                try FileSwap.synchronize(to)
            }
        } catch {
            throw StoreError.io(path: store.path, reason: "cannot put the migrated store's external data in \(target.path): \(error.localizedDescription)")
        }
        try FileSwap.synchronizeFolder(target)
        return Set(names)
    }

    /// Tells whether another connection committed to a store file since the watch began
    /// (`PRAGMA data_version`, read on a connection of its own that holds no lock meanwhile).
    private final class ChangeWatch {
        private let connection: SQLiteConnection
        private let start: SQLiteValue?

        init(_ url: URL) throws {
            connection = try SQLiteConnection(path: url.path, readOnly: true, writeAheadLog: false)
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
            start = try connection.scalar("PRAGMA data_version")
        }

        deinit { connection.close() }

        func sawChange() throws -> Bool {
            try connection.scalar("PRAGMA data_version") != start
        }
    }
}

/// The file system steps of a swap.
enum FileSwap {
    /// Renames `file` over `destination` (atomically replacing it) and makes the rename durable.
    static func rename(_ file: URL, over destination: URL) throws {
        guard Foundation.rename(file.path, destination.path) == 0 else {
            throw StoreError.io(path: destination.path, reason: "cannot put the migrated store in its place: \(String(cString: strerror(errno)))")
        }
        try synchronizeFolder(destination.deletingLastPathComponent())
    }

    /// Writes the file's data to the disk.
    static func synchronize(_ file: URL) throws {
        let fd = open(file.path, O_RDONLY)
        guard fd >= 0 else { throw StoreError.io(path: file.path, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError.io(path: file.path, reason: "cannot write to the disk: \(String(cString: strerror(errno)))") }
    }

    /// Writes the folder's entries (a rename, a new file) to the disk.
    static func synchronizeFolder(_ folder: URL) throws {
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw StoreError.io(path: folder.path, reason: "cannot open the folder: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // Some file systems refuse fsync on a folder (EINVAL): their renames are as durable as they get.
        guard fsync(fd) == 0 || errno == EINVAL else {
            throw StoreError.io(path: folder.path, reason: "cannot write the folder to the disk: \(String(cString: strerror(errno)))")
        }
    }

    /// Whether the rollback journal at `path` holds a transaction: it starts with the journal
    /// header's magic bytes (a persisted journal's header is zeroed once its transaction ends).
    static func isHotJournal(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let magic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
        return (try? handle.read(upToCount: 8)).map { [UInt8]($0) == magic } ?? false
    }

    /// The file listing the external data files a swap into `replacement`'s store removes once
    /// the new file is in place: named after the working file, so that it is one of its leftovers.
    static func tidyList(for replacement: URL) -> URL {
        replacement.deletingLastPathComponent().appendingPathComponent(replacement.lastPathComponent + ".tidy")
    }

    /// Removes the files `list` names from `folder`, then the list.
    static func finishTidying(_ list: URL, in folder: URL) {
        guard let text = try? String(contentsOf: list, encoding: .utf8) else { return }
        for name in text.split(separator: "\n") where !name.contains("/") && name != ".." {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(String(name)))
        }
        try? FileManager.default.removeItem(at: list)
    }
}
