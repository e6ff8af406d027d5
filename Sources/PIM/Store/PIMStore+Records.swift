// pim's record files: one XHTML file per contact, event and task, which ObjectGraph's external
// records keep in step with the store (`<records>/<store UUID>/<Entity>/p<key>.pimcontact`), for
// recoll to index (Importers/recoll), and the way back from a file to its record (`pim open`).
import Foundation
import ObjectGraph

/// What a full synchronization of the record files did (`pim records sync`).
public typealias RecordFilesReport = ExternalRecordsReport

extension PIMStore {
    /// The extension of each kind's record files: what recoll's `mimemap` and the desktop's
    /// MIME package (Importers/) recognize.
    public static let recordExtensions: [String: String] = ["Contact": "pimcontact", "Event": "pimevent", "Task": "pimtask"]

    /// The store options that turn record files on, in `directory`, with dates in `timeZone`
    /// (users search by their own days: an all-day event is on its day).
    static func recordOptions(_ directory: URL, timeZone: TimeZone) -> [String: any Sendable] {
        [NSExternalRecordsDirectoryOption: directory.path, NSExternalRecordExtensionOption: recordExtensions,
         NSExternalRecordsFileFormatOption: XHTMLExternalRecordType, ExternalRecordsTimeZoneOption: timeZone]
    }

    private var persistentStore: (any PersistentStore)? { context.persistentStoreCoordinator?.persistentStores.first }

    /// Where the store's record files are and whether the last save wrote them all; nil when the
    /// store was opened without a records folder.
    public var recordsStatus: ExternalRecordsStatus? {
        guard let store = persistentStore else { return nil }
        return context.persistentStoreCoordinator?.externalRecordsStatus(of: store)
    }

    /// Writes every record file that is missing or out of date and removes the files of records
    /// that are gone.
    public func synchronizeRecordFiles() throws(PIMError) -> RecordFilesReport {
        guard let store = persistentStore, let coordinator = context.persistentStoreCoordinator,
              coordinator.externalRecordsStatus(of: store) != nil else {
            throw PIMError.usage("record files are off ($PIM_RECORDS is \"off\")")
        }
        do {
            return try coordinator.synchronizeExternalRecords(of: store)
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
    }

    /// The record a record file stands for (`pim open`): the file's path names the store and the
    /// object (`…/<store UUID>/<Entity>/p<key>.<extension>`).
    public func record(atRecordFile file: URL) throws(PIMError) -> ManagedObject {
        let notARecord = PIMError.usage("\(file.path): not a pim record file (expected …/<store UUID>/<Entity>/p<number>.pimcontact, .pimevent or .pimtask)")
        guard let elements = try? PersistentStoreCoordinator.elementsDerived(fromExternalRecordAt: file),
              let entity = elements[NSEntityNameInPathKey].flatMap({ PIMModel.shared.entitiesByName[$0] }),
              let kind = RecordKind(entity: entity), kind != .group,
              file.resolvingSymlinksInPath().pathExtension == Self.recordExtensions[kind.entityName] else { throw notARecord }
        guard let store = persistentStore, elements[NSStoreUUIDInPathKey] == store.identifier else {
            let elsewhere = elements[NSStorePathKey].map { " (\($0))" } ?? ""
            throw PIMError.store(path: url.path, reason: "\(file.path) is a record of another store\(elsewhere): open it with --store")
        }
        guard let uri = elements[NSObjectURIKey].flatMap(URL.init(string:)),
              let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri),
              let record = try? context.existingObject(with: id) else {
            throw PIMError.notFound(kind: kind, reference: file.path)
        }
        return record
    }
}
