// The coordinator's side of external record files: a store added with a records folder gets a
// synchronizer, saves and batch requests keep its files in step, and a record file's path (or
// its contents) leads back to the object, as Core Data's elementsDerivedFromExternalRecordURL.
import Foundation

/// The object's URI, in a record's elements (``PersistentStoreCoordinator/elementsDerived(fromExternalRecordAt:)``).
public let NSObjectURIKey = "NSObjectURIKey"
/// The entity's name, as the record's path gives it.
public let NSEntityNameInPathKey = "NSEntityNameInPathKey"
/// The store's UUID, as the record's path gives it.
public let NSStoreUUIDInPathKey = "NSStoreUUIDInPathKey"
/// The store file's path, as the record holds it.
public let NSStorePathKey = "NSStorePathKey"

extension PersistentStoreCoordinator {
    /// Where `store`'s external records are and whether the last saves wrote them; nil for a
    /// store added without ``NSExternalRecordsDirectoryOption``.
    public func externalRecordsStatus(of store: any PersistentStore) -> ExternalRecordsStatus? {
        synchronizer(of: store)?.status
    }

    /// Rewrites every external record file of `store` that is missing or out of date, and removes
    /// those whose objects are gone: after a batch request from another process, a crash between
    /// a save and its files, or a records folder deleted by hand.
    ///
    /// ```swift
    /// let report = try coordinator.synchronizeExternalRecords(of: store)
    /// print(report.written, report.removed)
    /// ```
    @discardableResult
    public func synchronizeExternalRecords(of store: any PersistentStore) throws -> ExternalRecordsReport {
        guard let synchronizer = synchronizer(of: store) else {
            throw StoreError.unknownStore("the store \(store.identifier) was added without \(NSExternalRecordsDirectoryOption)")
        }
        let entities = managedObjectModel.entities.filter { holds(store, entity: $0) }
        return try withStores { try synchronizer.synchronize(store, entities: entities) }
    }

    /// What an external record file says of its object: its URI (``NSObjectURIKey``), entity
    /// (``NSEntityNameInPathKey``) and store UUID (``NSStoreUUIDInPathKey``), from the file's path
    /// `…/<store UUID>/<Entity>/p<key>.<extension>`, and the store's path (``NSStorePathKey``)
    /// when the file holds it. Core Data's `elementsDerivedFromExternalRecordURL:`.
    ///
    /// ```swift
    /// let elements = try PersistentStoreCoordinator.elementsDerived(fromExternalRecordAt: url)
    /// let id = coordinator.managedObjectID(forURIRepresentation: URL(string: elements[NSObjectURIKey]!)!)
    /// ```
    public static func elementsDerived(fromExternalRecordAt url: URL) throws -> [String: String] {
        let components = url.standardizedFileURL.pathComponents
        guard components.count >= 3 else {
            throw StoreError.io(path: url.path, reason: "not an external record: expected …/<store UUID>/<Entity>/p<key>.<extension>")
        }
        let fileName = components[components.count - 1]
        let entityName = components[components.count - 2]
        let storeUUID = components[components.count - 3]
        guard !fileName.hasPrefix("."), ExternalRecordsSynchronizer.isRecordFileName(fileName),
              let key = Int64(fileName.dropFirst().prefix { $0 != "." }), key > 0,
              !entityName.isEmpty, !storeUUID.isEmpty else {
            throw StoreError.io(path: url.path, reason: "not an external record: its name is not p<key>.<extension> in …/<store UUID>/<Entity>/")
        }
        var uri = URLComponents()
        uri.scheme = "x-objectgraph"
        uri.host = storeUUID
        uri.path = "/\(entityName)/p\(key)"
        guard let objectURI = uri.string else {
            throw StoreError.io(path: url.path, reason: "not an external record: \(storeUUID)/\(entityName) cannot name an object")
        }
        var elements = [NSObjectURIKey: objectURI, NSEntityNameInPathKey: entityName, NSStoreUUIDInPathKey: storeUUID]
        if let storePath = storePath(inRecordAt: url) { elements[NSStorePathKey] = storePath }
        return elements
    }

    /// The store path a record file holds, in any of the three formats.
    private static func storePath(inRecordAt url: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        if let list = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] {
            return list[NSStorePathKey] as? String
        }
        guard let text = String(data: data, encoding: .utf8),
              let meta = text.range(of: "<meta name=\"storepath\" content=\""),
              let end = text[meta.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(text[meta.upperBound..<end])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#13;", with: "\r")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    // MARK: Hooks

    /// Called after `store` committed a save, with the stores still locked.
    func storeDidSave(_ store: any PersistentStore, result: StoreSaveResult) {
        guard let synchronizer = synchronizer(of: store) else { return }
        synchronizer.storeDidSave(store, saved: result.snapshots, deleted: result.deletedObjectIDs)
    }

    /// Called after `store`'s rows changed without a save naming them (a batch request, a
    /// migration into a new store): its records are brought up to date in full. A failure is
    /// kept in the store's ``externalRecordsStatus(of:)``.
    func resynchronizeExternalRecords(of store: any PersistentStore) {
        guard let synchronizer = synchronizer(of: store) else { return }
        let entities = managedObjectModel.entities.filter { holds(store, entity: $0) }
        withStores {
            do {
                _ = try synchronizer.synchronize(store, entities: entities)
            } catch {
                synchronizer.noteFailure(error)
            }
        }
    }
}
