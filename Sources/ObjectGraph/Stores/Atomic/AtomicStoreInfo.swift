// What an XML or binary store file holds, read without a model and without changing it: its
// UUID, its metadata, and how many objects of each type it holds; and whether a model opens it.
import Foundation

/// The contents of an XML or binary store file, as `objectgraph store info` prints them.
///
/// ```swift
/// let info = try AtomicStoreInfo(url: URL(fileURLWithPath: "Organizer.xml"))
/// info.objectCounts   // ["PERSON": 3, "TASK": 12]
/// try info.check(against: model)   // nil: the model opens the store
/// ```
public struct AtomicStoreInfo: Sendable {
    /// The file's path.
    public let path: String
    /// ``StoreType/xml`` or ``StoreType/binary``.
    public let type: StoreType
    /// The store's UUID, from the file.
    public let identifier: String?
    /// The store's metadata, from the file.
    public let metadata: [String: any Sendable]
    /// The number of objects of each type the file names: an XML file types objects by their
    /// entity's name in capitals, a binary file by the entity's name.
    public let objectCounts: [String: Int]
    /// The file's size in bytes.
    public let fileSize: Int64
    /// The model the file was written with, from the copy it keeps (nil: it keeps none, as files
    /// Core Data wrote, or the copy cannot be read).
    public let model: ManagedObjectModel?

    /// Reads the file at `url`; throws when there is none or it is not an XML or binary store.
    public init(url: URL) throws {
        let store = try Self.openStore(at: url)
        path = url.path
        type = store.type
        identifier = store.identifier
        metadata = store.metadata
        switch store {
        case let xml as XMLStore: objectCounts = xml.objectCountsInFile()
        case let binary as BinaryStore: objectCounts = try binary.objectCountsInFile()
        default: objectCounts = [:]
        }
        fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int64 ?? 0
        model = store.lock.withLock { store.modelToWrite }.flatMap { try? ManagedObjectModel(xmlData: $0, path: url.path) }
    }

    /// The store of the file at `url`, read-only and not loaded.
    private static func openStore(at url: URL) throws -> AtomicStore {
        let options: [String: any Sendable] = [SQLiteStore.readOnlyOption: true]
        return storeType(at: url) == .binary ? try BinaryStore(url: url, options: options) : try XMLStore(url: url, options: options)
    }

    /// Whether `model` opens the store: nil when it does, else why not (the store's error: the
    /// model's version hashes differ, or the file names what the model does not have, with its
    /// line or byte).
    public func check(against model: ManagedObjectModel) -> String? {
        do {
            let store = try Self.openStore(at: URL(fileURLWithPath: path))
            model.freeze()
            try store.load(model: model)
            store.unload()
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The kind of atomic store the file at `url` is, from its first bytes: ``StoreType/binary``
    /// when it starts as a binary store does, ``StoreType/xml`` when it is an XML document whose
    /// first element is `<database>` (with or without an XML declaration); nil otherwise.
    public static func storeType(at url: URL) -> StoreType? {
        if BinaryStore.isBinaryStore(at: url) { return .binary }
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 1024)) ?? Data(), as: UTF8.self)
            .drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        return head.hasPrefix("<") && !head.hasPrefix("SQLite format") && head.contains("<database") ? .xml : nil
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
