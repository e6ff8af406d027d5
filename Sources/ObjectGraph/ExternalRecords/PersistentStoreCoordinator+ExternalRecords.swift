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
/// The path of the model file, as the record holds it (when the model was read from a file).
public let NSModelPathKey = "NSModelPathKey"

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
        return try withStores {
            do {
                return try synchronizer.synchronize(store)
            } catch {
                synchronizer.noteFailure(error)
                throw error
            }
        }
    }

    /// What an external record file says of its object: its URI (``NSObjectURIKey``), entity
    /// (``NSEntityNameInPathKey``) and store UUID (``NSStoreUUIDInPathKey``), from the file's path
    /// `…/<store UUID>/<Entity>/p<key>.<extension>`, and the store's and the model's paths
    /// (``NSStorePathKey``, ``NSModelPathKey``) when the file holds them. Core Data's
    /// `elementsDerivedFromExternalRecordURL:`.
    ///
    /// ```swift
    /// let elements = try PersistentStoreCoordinator.elementsDerived(fromExternalRecordAt: url)
    /// let id = coordinator.managedObjectID(forURIRepresentation: URL(string: elements[NSObjectURIKey]!)!)
    /// ```
    public static func elementsDerived(fromExternalRecordAt url: URL) throws -> [String: String] {
        // Through symbolic links: a link to a record, or to a store's records folder.
        let components = url.standardizedFileURL.resolvingSymlinksInPath().pathComponents
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
        guard let data = FileManager.default.contents(atPath: url.path) else { return elements }
        if let list = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] {
            elements[NSStorePathKey] = list[NSStorePathKey] as? String
            elements[NSModelPathKey] = list[NSModelPathKey] as? String
        } else if let text = String(data: data, encoding: .utf8) {
            elements[NSStorePathKey] = metaContent("storepath", in: text)
            elements[NSModelPathKey] = metaContent("modelpath", in: text)
        }
        return elements
    }

    /// The content of an XHTML record's first `<meta name="name">` (the framework writes its
    /// own fields first, and no property takes their names).
    private static func metaContent(_ name: String, in text: String) -> String? {
        guard let head = text.range(of: "</head>"),
              let meta = text[..<head.lowerBound].range(of: "<meta name=\"\(name)\" content=\""),
              let end = text[meta.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(text[meta.upperBound..<end])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#13;", with: "\r")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    // MARK: Hooks

    /// Called before `store` saves `request`, with the stores locked.
    func storeWillSave(_ store: any PersistentStore, _ request: StoreSaveRequest) {
        guard !request.deleted.isEmpty, let synchronizer = synchronizer(of: store) else { return }
        synchronizer.storeWillSave(store, deleting: request.deleted.map(\.objectID))
    }

    /// Called after `store` committed `request`'s save, with the stores still locked.
    func storeDidSave(_ store: any PersistentStore, request: StoreSaveRequest, result: StoreSaveResult) {
        guard let synchronizer = synchronizer(of: store) else { return }
        var changes: [ObjectID: ExternalRecordsSynchronizer.Change] = [:]
        for row in request.inserted { changes[row.objectID] = .inserted }
        for (index, row) in request.updated.enumerated() {
            changes[row.objectID] = .updated(index < request.changedSlots.count ? request.changedSlots[index] : nil)
        }
        synchronizer.storeDidSave(store, saved: result.snapshots, changes: changes, deleted: result.deletedObjectIDs)
    }

    /// Called after `store`'s rows changed without a save naming them (a batch request, a
    /// migration into a new store): its records are brought up to date in full. A failure is
    /// kept in the store's ``externalRecordsStatus(of:)``.
    func resynchronizeExternalRecords(of store: any PersistentStore) {
        _ = try? synchronizeExternalRecords(of: store)
    }
}
