// One open pim store: the SQLite file, its coordinator and the one context a command works in.
// A command changes records, then `commit(command:)` stamps them, gives new records their short
// numbers, journals the change for `pim undo` and saves it all in one transaction.
import Foundation
import ObjectGraph

/// The store a pim command works on.
///
/// ```swift
/// let store = try PIMStore(url: StoreLocation.url(option: nil, environment: env, home: home), now: Date())
/// let task = store.newTask(title: "Buy milk")
/// try store.commit(command: "tasks add Buy milk")
/// ```
public final class PIMStore {
    /// The store file.
    public let url: URL
    /// The context every change of the command goes through.
    public let context: ManagedObjectContext
    /// The instant the command runs at: creation and modification dates, `$NOW`, relative dates.
    public let now: Date
    /// The time zone dates are read and shown in.
    public let timeZone: TimeZone
    /// New groups and tags folded into the ones another run saved under their names meanwhile,
    /// by the record they were folded into (``survivor(of:)``).
    var folded: [ObjectIdentifier: ManagedObject] = [:]

    /// Opens the store at `url`, creating it and its folder if needed. A store written with an
    /// earlier version of the PIM model is migrated to the current one first (lightweight
    /// migration, in one transaction).
    ///
    /// With `recordsDirectory`, every contact, event and task also has a record file there
    /// (``recordsStatus``), which each save keeps up to date for a desktop search indexer; a
    /// store whose record folder is missing (new, or made before record files) gets them all
    /// written when it opens.
    public init(url: URL, now: Date, timeZone: TimeZone = .current, recordsDirectory: URL? = nil) throws(PIMError) {
        self.url = url
        self.now = now
        self.timeZone = timeZone
        do {
            // Private, as the XDG base directory rules ask of the folders they make (0700).
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let coordinator = PersistentStoreCoordinator(managedObjectModel: PIMModel.shared)
            var options: [String: any Sendable] = [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
            ]
            if let recordsDirectory { options.merge(Self.recordOptions(recordsDirectory, timeZone: timeZone)) { _, new in new } }
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            context = ManagedObjectContext(concurrencyType: .mainQueue)
            context.persistentStoreCoordinator = coordinator
            // Only a folder that is not there (not one this user may not look into). A failure
            // here is kept in recordsStatus (pim warns of it): the store itself opened.
            var folderStatus = stat()
            if let status = coordinator.externalRecordsStatus(of: store), stat(status.folder.path, &folderStatus) != 0, errno == ENOENT {
                _ = try? coordinator.synchronizeExternalRecords(of: store)
            }
        } catch {
            throw PIMError.store(path: url.path, reason: "\(error)")
        }
    }

    /// A reader of dates relative to the command's instant, in its time zone.
    public var dateParser: DateParser { DateParser(now: now, timeZone: timeZone) }

    /// The calendar of the store's time zone (weeks from Monday).
    public var calendar: Calendar { dateParser.calendar }

    /// A new record of `entityName` with a fresh UUID and creation date.
    public func insertRecord(_ entityName: String) -> ManagedObject {
        let record = context.insertNewObject(forEntityName: entityName)
        record.setValue(UUID(), forKey: "uuid")
        record.setValue(now, forKey: "created")
        record.setValue(now, forKey: "modified")
        return record
    }

    /// Saves the command's changes as one undo group: touched records get `modified`, new ones a
    /// short number, the journal an entry describing the change. Saves nothing when nothing changed.
    public func commit(command: String) throws(PIMError) {
        do {
            context.processPendingChanges()
            guard context.hasChanges else { return }
            // Numbers and the journal's sequence are read from the store and written by the save:
            // one pim run at a time does both, or two could take the same number.
            let lock = try WriterLock(storeURL: url)
            defer { lock.release() }
            try catchUpWithOtherRuns()
            let recorder = JournalRecorder(store: self)
            for record in recorder.touchedRecords() where !record.isDeleted && !record.isInserted {
                record.setValue(now, forKey: "modified")
            }
            context.processPendingChanges()
            let changes = recorder.changes()
            try NumberAllocator(context: context).assignNumbers()
            if !changes.isEmpty { try Journal(store: self).append(changes, command: command) }
            try context.save()
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
    }

    /// Saves changes that are not journaled (undo and redo themselves).
    func saveUnjournaled() throws(PIMError) {
        do {
            try NumberAllocator(context: context).assignNumbers()
            try context.save()
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
    }

    /// Runs a fetch, reporting failures as the store's.
    public func fetch<Result>(_ request: FetchRequest<Result>) throws(PIMError) -> [Result] {
        do {
            return try context.fetch(request)
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
    }
}

/// The lock pim runs hold while they read what they are about to write (record numbers, the
/// journal) and save it: `flock` on a file of its own beside the store (`<store>-lock`).
///
/// Not on the store file itself: closing any descriptor of a file drops every POSIX lock the
/// process holds on it, SQLite's own among them (sqlite.org/howtocorrupt.html, 2.2), and a run
/// that had closed its lock descriptor went on with its connection unlocked: another run could
/// then checkpoint or remove the write-ahead log under it, losing saved records.
struct WriterLock {
    private let descriptor: Int32

    /// The lock file of the store at `storeURL`.
    static func lockURL(of storeURL: URL) -> URL {
        URL(fileURLWithPath: storeURL.path + "-lock")
    }

    /// Waits until no other pim run holds the lock of the store at `storeURL`, then holds it.
    init(storeURL: URL) throws {
        let path = Self.lockURL(of: storeURL).path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.io(path: path, reason: "cannot open the store's lock file: \(String(cString: strerror(errno)))")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw StoreError.io(path: path, reason: "cannot lock the store: \(reason)")
            }
        }
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
