// What an XML store file holds, read without a model and without changing it: its UUID, its
// metadata, and how many objects of each type it holds; and whether a model opens it.
import Foundation

/// The contents of an XML store file, as `objectgraph store info` prints them.
///
/// ```swift
/// let info = try XMLStoreInfo(url: URL(fileURLWithPath: "Organizer.xml"))
/// info.objectCounts   // ["PERSON": 3, "TASK": 12]
/// try info.check(against: model)   // nil: the model opens the store
/// ```
public struct XMLStoreInfo: Sendable {
    /// The file's path.
    public let path: String
    /// The store's UUID, from the file.
    public let identifier: String?
    /// The store's metadata, from the file.
    public let metadata: [String: any Sendable]
    /// The number of objects of each type the file names (entity names in capitals, as the
    /// file types objects).
    public let objectCounts: [String: Int]
    /// The file's size in bytes.
    public let fileSize: Int64

    /// Reads the file at `url`; throws when there is none or it is not an XML store.
    public init(url: URL) throws {
        let store = try XMLStore(url: url, options: [SQLiteStore.readOnlyOption: true])
        path = url.path
        identifier = store.identifier
        metadata = store.metadata
        objectCounts = store.objectCountsInFile()
        fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int64 ?? 0
    }

    /// Whether `model` opens the store: nil when it does, else why not (the store's error: the
    /// model's version hashes differ, or the file names what the model does not have, with its
    /// line).
    public func check(against model: ManagedObjectModel) -> String? {
        do {
            let store = try XMLStore(url: URL(fileURLWithPath: path), options: [SQLiteStore.readOnlyOption: true])
            model.freeze()
            try store.load(model: model)
            store.unload()
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Whether the file at `url` looks like an XML store (an XML document whose first element
    /// is `<database>`, with or without an XML declaration), read from its first bytes.
    public static func isXMLStore(at url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 1024)) ?? Data(), as: UTF8.self)
            .drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        return head.hasPrefix("<") && !head.hasPrefix("SQLite format") && head.contains("<database")
    }
}

extension XMLStore {
    /// The number of objects of each type the file names, before the store is loaded.
    func objectCountsInFile() -> [String: Int] {
        lock.withLock {
            var counts: [String: Int] = [:]
            for element in document?.children(named: "object") ?? [] {
                counts[element[attribute: "type"] ?? "", default: 0] += 1
            }
            return counts
        }
    }
}
