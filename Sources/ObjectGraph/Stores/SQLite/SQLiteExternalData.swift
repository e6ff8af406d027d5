// Binary values kept in files beside the store, as Core Data keeps large values of attributes
// that allow external storage: `.<store name>_SUPPORT/_EXTERNAL_DATA/<UUID>`, the column holding
// 0x02 and the file name (0x01 and the bytes when the value is stored inline). Files are written
// atomically (a temporary file renamed), 0600 in 0700 folders; the store removes a save's new
// files when the save fails and the replaced or deleted ones when it succeeds.
import Foundation

/// The folder of a store's external binary values.
final class SQLiteExternalData {
    /// The tag before the file name of a value stored in a file.
    static let fileTag: UInt8 = 0x02

    let directory: URL
    /// Values of at least this many bytes go to files.
    let threshold: Int

    init(storeURL: URL, threshold: Int) {
        directory = Self.supportDirectory(for: storeURL).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
        self.threshold = threshold
    }

    /// `.<store name>_SUPPORT` beside the store file.
    static func supportDirectory(for storeURL: URL) -> URL {
        storeURL.deletingLastPathComponent()
            .appendingPathComponent("." + storeURL.deletingPathExtension().lastPathComponent + "_SUPPORT", isDirectory: true)
    }

    /// The file name a column value refers to, if it refers to one.
    func fileName(in stored: Data) -> String? {
        guard stored.first == Self.fileTag else { return nil }
        return String(decoding: stored.dropFirst(), as: UTF8.self)
    }

    /// Writes `data` to a new file and returns the column value that refers to it.
    func write(_ data: Data) throws -> (name: String, stored: Data) {
        let files = FileManager.default
        if !files.fileExists(atPath: directory.path) {
            do {
                for folder in [directory.deletingLastPathComponent(), directory] where !files.fileExists(atPath: folder.path) {
                    try files.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                }
            } catch {
                throw StoreError.io(path: directory.path, reason: "cannot create the folder of external data: \(error.localizedDescription)")
            }
        }
        let name = UUID().uuidString
        let file = directory.appendingPathComponent(name)
        let temporary = directory.appendingPathComponent("." + name + ".tmp")
        guard files.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]),
              rename(temporary.path, file.path) == 0 else {
            try? files.removeItem(at: temporary)
            throw StoreError.io(path: file.path, reason: "cannot write external data")
        }
        return (name, Data([Self.fileTag]) + Data(name.utf8))
    }

    /// The bytes of the file `name`.
    func read(_ name: String) throws -> Data {
        try Self.read(name, in: directory)
    }

    /// The bytes of the file `name` in `directory`.
    static func read(_ name: String, in directory: URL) throws -> Data {
        // A name from a column must not lead out of the folder.
        guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else {
            throw StoreError.io(path: directory.path, reason: "\"\(name)\" is not the name of a file of external data")
        }
        let file = directory.appendingPathComponent(name)
        do {
            return try Data(contentsOf: file)
        } catch {
            throw StoreError.io(path: file.path, reason: "cannot read external data: \(error.localizedDescription)")
        }
    }

    /// Removes the files `names` (those already gone are ignored).
    func remove(_ names: [String]) {
        for name in names { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    }
}
