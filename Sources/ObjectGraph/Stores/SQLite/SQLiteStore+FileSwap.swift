// Putting a complete store file in place of another so that a crash at any moment leaves one of
// the two whole: the new file is renamed over the old one (one atomic step of the file system),
// after both are settled into single files (no write-ahead log or rollback journal that SQLite
// would replay onto the wrong file) and the old store's folder of external data holds the files
// of both. A migration into a new file ends with this swap.
import CSQLite
import Foundation

extension SQLiteStore {
    /// Puts the store file `replacement` (closed, of any connection) in place of the store file
    /// at `url`. Until the rename, `url` is the old store, whole; from it, the new one, whole:
    /// a crash in between leaves no file half written, only `replacement` and some external
    /// data files nothing refers to. Throws, leaving `url` as it was, when either file cannot be
    /// settled into a single file (another process holds it open with changes not yet in it).
    /// The options' `busyTimeout` bounds how long a reader of either may hold that up.
    static func swap(_ replacement: URL, into url: URL, options: [String: any Sendable], crashPoint: (String) -> Void = { _ in }) throws {
        let timeout = (options["busyTimeout"] as? Double) ?? (options["busyTimeout"] as? Int).map(Double.init) ?? 10
        try settle(replacement, busyTimeout: timeout)
        if FileManager.default.fileExists(atPath: url.path) { try settle(url, busyTimeout: timeout) }
        let newData = SQLiteExternalData.supportDirectory(for: replacement).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
        let oldData = SQLiteExternalData.supportDirectory(for: url).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
        let kept = try joinExternalData(newData, into: oldData)
        crashPoint("before-rename")
        try FileSwap.rename(replacement, over: url)
        crashPoint("after-rename")
        // Only tidying from here on: a crash leaves files nothing refers to.
        let files = FileManager.default
        for leftover in [replacement.path + "-wal", replacement.path + "-shm", replacement.path + "-journal",
                         SQLiteExternalData.supportDirectory(for: replacement).path] where files.fileExists(atPath: leftover) {
            try? files.removeItem(atPath: leftover)
        }
        if let names = try? files.contentsOfDirectory(atPath: oldData.path) {
            for name in names where !kept.contains(name) { try? files.removeItem(at: oldData.appendingPathComponent(name)) }
        }
    }

    /// Makes the file at `url` a single file: SQLite recovers or rolls back what a crashed
    /// writer left, the write-ahead log is copied into the file and emptied, and the connection
    /// closes (the last one removes the log). Throws when a log or journal with content stays:
    /// another connection still writes through it.
    private static func settle(_ url: URL, busyTimeout: TimeInterval) throws {
        do {
            let connection = try SQLiteConnection(path: url.path, busyTimeout: busyTimeout, readOnly: false, writeAheadLog: false)
            // A first read replays a hot journal or recovers the log; the checkpoint empties it.
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
            _ = try connection.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.close()
        } catch let error as SQLiteError where error.code & 0xff == SQLITE_READONLY {
            // A file one may not write: fine as long as nothing is waiting to be written into it.
        }
        for companion in ["-wal", "-journal"] {
            let path = url.path + companion
            guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > 0 else { continue }
            throw StoreError.io(path: url.path, reason: "its \(companion.dropFirst()) file still holds changes (is the store open in another process?): it cannot be replaced now")
        }
        try FileSwap.synchronize(url)
    }

    /// Gives the folder of external data `target` every file of `source` it lacks (hard links,
    /// or copies across file systems) and answers the names of `source`'s files: those the new
    /// store refers to. File names are UUIDs and a file is never rewritten, so a name in both
    /// folders is the same bytes.
    private static func joinExternalData(_ source: URL, into target: URL) throws -> Set<String> {
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
            throw StoreError.io(path: target.path, reason: "cannot put the migrated store's external data beside the store: \(error.localizedDescription)")
        }
        try FileSwap.synchronizeFolder(target)
        return Set(names)
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
}
