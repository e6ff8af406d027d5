// A hostile reading of the migration into a new file that is renamed over the store (commit
// 13bf026: SQLiteStore.swap, AtomicStore.swap, the folder's migration lock, removeLeftovers):
// the old store still open elsewhere when the new file takes its place, rollback journals,
// stores reached through a symbolic link, owners, a crash right after the rename, file names,
// atomic stores with stages, external data files under the same names, another store's
// working files, two threads and a nested migration in one folder. Each test says whether it
// failed on 13bf026 (a defect, fixed since) or passes (guards a risk).
import CSQLite
import Foundation
import Synchronization
import XCTest
@testable import ObjectGraph

final class MigrationSwapReviewTests: MigrationTestCase {
    private func model(_ version: Int) -> ManagedObjectModel {
        ManagedObjectModel {
            Entity("Photo") {
                Attribute("name", .string)
                Attribute("image", .binaryData).allowsExternalStorage()
                if version >= 2 { Attribute("caption", .string) }
            }
        }
    }

    /// Options that migrate with an inferred mapping model from version 1 to 2, plus `extra`.
    private func mappingOptions(_ extra: [String: any Sendable] = [:]) throws -> [String: any Sendable] {
        var options = Self.migrating
        options[MigrationManager.mappingModelsOption] = [try MappingModel.inferredMappingModel(forSourceModel: model(1), destinationModel: model(2))]
        options.merge(extra) { _, new in new }
        return options
    }

    /// Options that migrate through a lightweight stage from version 1 to 2.
    private func stagedOptions() -> [String: any Sendable] {
        var options = Self.migrating
        options[StagedMigrationManager.option] = StagedMigrationManager([LightweightMigrationStage(models: [model(1)])])
        return options
    }

    /// An image above the external storage threshold (a file beside the store), or a small one
    /// that stays in its row.
    private func image(_ seed: Int, small: Bool = false) -> Data {
        Data((0..<(small ? 64 : 120 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* seed &+ seed) })
    }

    /// A version 1 store of `type` at `store` with photos p1… (images in files beside a SQLite
    /// store unless `small`), closed again.
    private func makeStore(at store: URL, type: StoreType = .sqlite, photos: Int, small: Bool = false,
                           options: [String: any Sendable] = [:]) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model(1))
        try coordinator.addPersistentStore(type: type, at: store, options: options)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        for index in 1...photos {
            context.insertNewObject(forEntityName: "Photo").setValuesForKeys(["name": "p\(index)", "image": image(index, small: small)])
        }
        try context.save()
    }

    /// The names of the photos of `context`, sorted.
    private func names(_ context: ManagedObjectContext) throws -> [String] {
        strings(try fetch("Photo", in: context), "name")
    }

    /// The images of the photos of the store at `store` (sorted by name), read through a
    /// coordinator of `model` that is done with the store afterwards (its connection closed).
    private func images(at store: URL, _ model: ManagedObjectModel, type: StoreType = .sqlite,
                        options: [String: any Sendable] = [:]) throws -> [Data?] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let added = try coordinator.addPersistentStore(type: type, at: store, options: options)
        defer { try? coordinator.remove(added) }
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return try fetch("Photo", in: context).map { $0.value(forKey: "image") as? Data }
    }

    /// The names in `folder` (hidden ones too), sorted; [] when it does not exist.
    private func list(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    private func externalData(of store: URL) -> URL {
        SQLiteExternalData.supportDirectory(for: store).appendingPathComponent("_EXTERNAL_DATA")
    }

    // MARK: The old store still open elsewhere

    /// Passes (guards a risk). Another coordinator of this process keeps the version 1 store
    /// open (idle: it fetched, no transaction open), as a window still showing the old data
    /// would. The migration settles the store (its log emptied, but the -wal and -shm stay:
    /// that connection still holds them) and renames the new file over it, so the new store
    /// shares the old connection's log and shared memory. The old coordinator's save is
    /// refused, naming the store; and when it closes, SQLite does not checkpoint the log into
    /// the moved file nor delete it (databaseIsUnmoved), so the photo saved into the new store
    /// since stays. A migration may also refuse, naming the store and leaving it as it was.
    func testAnotherCoordinatorHoldingTheOldStoreOpenLosesNothingSavedIntoTheNewOne() throws {
        try makeStore(at: url, photos: 2)
        let oldCoordinator = PersistentStoreCoordinator(managedObjectModel: model(1))
        try oldCoordinator.addPersistentStore(type: .sqlite, at: url, options: [:])
        var old: ManagedObjectContext? = ManagedObjectContext(concurrencyType: .mainQueue)
        old?.persistentStoreCoordinator = oldCoordinator
        XCTAssertEqual(try names(XCTUnwrap(old)), ["p1", "p2"])

        let migrated: ManagedObjectContext
        do {
            migrated = try open(model(2), options: try mappingOptions())
        } catch {
            // Refusing is a fix too, when it names the store and leaves it as it was.
            XCTAssertTrue("\(error)".contains(url.path), "\(error)")
            old = nil
            XCTAssertEqual(try names(try context(model(1), at: url)), ["p1", "p2"])
            return
        }
        migrated.insertNewObject(forEntityName: "Photo").setValuesForKeys(["name": "p3", "image": image(3), "caption": "after"])
        try migrated.save()

        let stale = try XCTUnwrap(old)
        stale.insertNewObject(forEntityName: "Photo").setValuesForKeys(["name": "stale", "image": image(9)])
        XCTAssertThrowsError(try stale.save(), "the old coordinator wrote into a file that is no longer the store") { error in
            XCTAssertTrue("\(error)".contains(url.path), "the refusal names the store: \(error)")
        }
        old = nil
        XCTAssertEqual(try names(try context(model(2), at: url)), ["p1", "p2", "p3"], "opened again once the old coordinator is gone")
        contexts = []
        XCTAssertEqual(try names(try context(model(2), at: url)), ["p1", "p2", "p3"], "opened again once every coordinator is gone")
    }

    /// Passes (guards a risk), as above with another process: `sqlite3` holds the store open (it
    /// read it, then waits on its input), the way an application keeps its store open while
    /// `objectgraph store migrate` runs. Its log is empty, so the migration goes ahead; what is
    /// saved into the new store before that process exits must still be there after it exits
    /// (its connection closing must not checkpoint the shared log into the old file and delete
    /// it).
    func testAnotherProcessHoldingTheOldStoreOpenLosesNothingSavedIntoTheNewOne() throws {
        let shell = URL(fileURLWithPath: "/usr/bin/sqlite3")
        guard FileManager.default.isExecutableFile(atPath: shell.path) else {
            return XCTFail("this test runs SQLite's own shell: install it (apt-get install sqlite3; .ci/run does)")
        }
        try makeStore(at: url, photos: 2)
        let process = Process()
        process.executableURL = shell
        process.arguments = [url.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("SELECT count(*) FROM ZPHOTO;\n".utf8))
        // The answer means the other process has the store open and its shared memory mapped.
        var answer = Data()
        while !answer.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            answer.append(chunk)
        }
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "2\n")

        var failure: (any Error)?
        do {
            let migrated = try open(model(2), options: try mappingOptions())
            migrated.insertNewObject(forEntityName: "Photo").setValuesForKeys(["name": "p3", "image": image(3), "caption": "after"])
            try migrated.save()
        } catch {
            failure = error
        }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        contexts = []
        if let failure {
            // Refusing is a fix too, when it names the store and leaves it as it was.
            XCTAssertTrue("\(failure)".contains(url.path), "\(failure)")
            XCTAssertEqual(try names(try context(model(1), at: url)), ["p1", "p2"])
        } else {
            XCTAssertEqual(try names(try context(model(2), at: url)), ["p1", "p2", "p3"], "the photo saved after the migration")
        }
    }

    /// Failed on 13bf026 (data loss). Another coordinator (as another process would) saves a photo into the
    /// store while it is being migrated — here from a custom stage's willMigrateHandler, that
    /// is after the migration copied the store and before the new file is renamed over it. The
    /// save succeeds (the store is still the old file, nothing refuses it), and the rename then
    /// throws the photo away: the migrated file was made from the store as it was before. The
    /// folder's lock only excludes other migrations, not the store's writers, and the swap
    /// does not check that the store is still what was migrated. Either the save must fail (the
    /// migration holding the store's write lock from before it reads it until the rename) or
    /// the migration must see the change (a change stamp taken before the copy, compared after
    /// settling) and fail or start again — never report both as done and lose the photo.
    func testASaveIntoTheStoreDuringItsMigrationIsNotLost() throws {
        try makeStore(at: url, photos: 2, small: true)
        let writer = PersistentStoreCoordinator(managedObjectModel: model(1))
        try writer.addPersistentStore(type: .sqlite, at: url, options: [:])
        let saved = Mutex<Result<Void, any Error>?>(nil)
        let stage = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: model(1)),
                                         to: ManagedObjectModelReference(model: model(2)))
        let photo3 = image(3, small: true)
        stage.willMigrateHandler = { _, _ in
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = writer
            let result = Result<Void, any Error> {
                try context.performAndWait {
                    context.insertNewObject(forEntityName: "Photo").setValuesForKeys(["name": "p3", "image": photo3])
                    try context.save()
                }
            }
            saved.withLock { $0 = result }
        }
        var options = Self.migrating
        options[StagedMigrationManager.option] = StagedMigrationManager([stage])
        var migration: (any Error)?
        do { _ = try open(model(2), options: options) } catch { migration = error }
        contexts = []
        let save = try XCTUnwrap(saved.withLock { $0 }, "the stage's handler ran")
        switch (save, migration) {
        case (.success, nil):
            XCTAssertEqual(try images(at: url, model(2)).count, 3, "the photo saved during the migration, whose save succeeded, is gone")
        case (.success, let error?):
            XCTAssertTrue("\(error)".contains(url.path), "the migration that failed names the store: \(error)")
            XCTAssertEqual(try images(at: url, model(1)).count, 3, "the store as it was, with the photo saved")
        case (.failure(let error), _):
            XCTAssertTrue("\(error)".contains(url.path), "the save refused names the store: \(error)")
        }
    }

    // MARK: Rollback journals

    /// Failed on 13bf026. A store the application opens with `journal_mode = PERSIST` (a rollback journal
    /// kept between transactions, its header zeroed: NSSQLitePragmasOption) can never be
    /// migrated into a new file: the migrated file, written with the same pragmas, keeps a
    /// -journal of nonzero size, which `settle` takes for "changes not yet in the file". The
    /// error names the hidden working file (deleted by then), not the store, and the working
    /// file's -journal is left beside the store (destroy removes -wal and -shm only).
    func testAStoreWithAPersistentRollbackJournalIsMigrated() throws {
        let persist: [String: any Sendable] = [SQLiteStore.pragmasOption: ["journal_mode": "PERSIST"]]
        try makeStore(at: url, photos: 2, options: persist)
        do {
            let context = try open(model(2), options: try mappingOptions(persist))
            XCTAssertEqual(try fetch("Photo", in: context).map { $0.value(forKey: "image") as? Data }, [image(1), image(2)])
        } catch {
            XCTFail("a PERSIST store is not migrated: \(error)")
            XCTAssertTrue("\(error)".contains(url.path), "the error names the store: \(error)")
        }
        contexts = []
        let working = list(directory.url).filter { $0.contains("-migrated-") }
        XCTAssertEqual(working, [], "working files left beside the store")
    }

    /// Passes (guards a risk). A store opened with `journal_mode = DELETE` (no log, a rollback
    /// journal removed after each transaction) is migrated, with its external data; afterwards
    /// no -wal, -shm or -journal and no working file is left beside it, and it opens again in
    /// the same mode with every image.
    func testAStoreWithARollbackJournalIsMigratedAndLeavesNoCompanionFiles() throws {
        let delete: [String: any Sendable] = [SQLiteStore.pragmasOption: ["journal_mode": "DELETE"]]
        try makeStore(at: url, photos: 2, options: delete)
        let migrated = try open(model(2), options: try mappingOptions(delete))
        XCTAssertEqual(try fetch("Photo", in: migrated).map { $0.value(forKey: "image") as? Data }, [image(1), image(2)])
        contexts = []
        XCTAssertEqual(list(directory.url), [".store_SUPPORT", "store.sqlite"])
        XCTAssertEqual(list(externalData(of: url)).count, 2)
        XCTAssertEqual(try names(try context(model(2), at: url, options: delete)), ["p1", "p2"])
    }

    /// Passes (guards a risk). With nothing else holding the old store, the swap leaves none of
    /// its -wal or -shm beside the new file: only the store, its log and shared memory of the
    /// coordinator that has it open now, and its support folder.
    func testNoLogOrSharedMemoryOfTheOldStoreIsLeftBesideTheNewOne() throws {
        try makeStore(at: url, photos: 1)
        XCTAssertEqual(try images(at: url, model(1)), [image(1)])
        XCTAssertEqual(list(directory.url), [".store_SUPPORT", "store.sqlite"], "a store closed leaves no log")
        XCTAssertEqual(try images(at: url, model(2), options: try mappingOptions()), [image(1)])
        XCTAssertEqual(list(directory.url), [".store_SUPPORT", "store.sqlite"])
    }

    // MARK: Paths, owners and names

    /// Failed on 13bf026. A store reached through a symbolic link (the store in another folder, the link
    /// where the application looks for it): the rename replaces the link with the new file, so
    /// the link is gone and the real store, which the link pointed to, stays at version 1.
    /// The path should be resolved (`resolvingSymlinksInPath`) before the working file is made
    /// beside it and renamed over it.
    func testAStoreReachedThroughASymbolicLinkIsMigratedWhereItIs() throws {
        let elsewhere = directory.url.appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let real = elsewhere.appendingPathComponent("store.sqlite")
        try makeStore(at: real, photos: 2, small: true)
        try FileManager.default.createSymbolicLink(at: url, withDestinationURL: real)

        XCTAssertEqual(try names(try open(model(2), options: try mappingOptions())), ["p1", "p2"])
        contexts = []
        XCTAssertEqual(try? FileManager.default.destinationOfSymbolicLink(atPath: url.path), real.path, "the link is still a link to the store")
        XCTAssertNotNil(try? context(model(2), at: real), "the store the link points to is migrated")
    }

    /// Failed on 13bf026 (run as root, as a service or `sudo objectgraph store migrate` is). The store
    /// belongs to another user; the migration gives the new file the store's mode (0600) but
    /// not its owner, so afterwards the store belongs to root and its owner can no longer open
    /// it. (`replaceByMigration` copies `.posixPermissions` only; `.ownerAccountID` and
    /// `.groupOwnerAccountID` should follow, as a chown allowed to fail.)
    func testTheMigratedStoreKeepsItsOwner() throws {
        guard getuid() == 0 else { throw XCTSkip("only root can give the store another owner") }
        try makeStore(at: url, photos: 1)
        XCTAssertEqual(chown(url.path, 4321, 4321), 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        XCTAssertEqual(try names(try open(model(2), options: try mappingOptions())), ["p1"])
        contexts = []
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual((attributes[.ownerAccountID] as? NSNumber)?.intValue, 4321, "the store's owner")
        XCTAssertEqual((attributes[.groupOwnerAccountID] as? NSNumber)?.intValue, 4321, "the store's group")
    }

    /// Passes (guards a risk). Stores whose file name has no extension, or several dots: the
    /// working file and its support folder are named so that the mapping migration's images
    /// land in the store's own support folder (`.store_SUPPORT`, `.my.photo.store_SUPPORT`),
    /// which holds exactly the new store's files, and no working file is left.
    func testStoresWithoutAnExtensionOrWithSeveralDotsAreMigratedWithTheirExternalData() throws {
        for name in ["store", "my.photo.store.sqlite", "v1.2"] {
            let store = directory.url.appendingPathComponent(name)
            try makeStore(at: store, photos: 2)
            let before = Set(list(externalData(of: store)))
            XCTAssertEqual(before.count, 2, name)
            let context = try context(model(2), at: store, options: try mappingOptions())
            XCTAssertEqual(try fetch("Photo", in: context).map { $0.value(forKey: "image") as? Data }, [image(1), image(2)], name)
            contexts = []
            let after = Set(list(externalData(of: store)))
            XCTAssertEqual(after.count, 2, "\(name): \(after)")
            XCTAssertTrue(after.isDisjoint(with: before), name)
            XCTAssertEqual(list(directory.url).filter { $0.contains("-migrated-") }, [], name)
            try SQLiteStore.destroy(at: store)
        }
    }

    // MARK: A crash right after the rename

    /// The environment variable that makes a test run the migration it names in this folder
    /// (in a child process the test starts: the one that gets killed).
    private static let childFolder = "OBJECTGRAPH_SWAP_REVIEW_CHILD_FOLDER"

    /// Failed on 13bf026 (files leaked for good). The process is killed right after the rename
    /// (OBJECTGRAPH_MIGRATION_CRASH_AT=after-rename), before the old store's external data
    /// files are removed from the folder the new store shares. The store is the new one, whole;
    /// but nothing ever removes the old files: the next opening has nothing to migrate, and
    /// removeLeftovers only knows the working files' names. Every image stays on the disk
    /// twice, for good. (The list of files to remove should be written down before the rename
    /// — a `.<name>-migrated-<UUID>.tidy` file — and removeLeftovers should finish it.)
    func testKilledRightAfterTheRenameTheOldExternalDataIsRemovedLater() throws {
        if let folder = ProcessInfo.processInfo.environment[Self.childFolder] {
            // The child: migrates the store and is killed after the rename.
            url = URL(fileURLWithPath: folder).appendingPathComponent("store.sqlite")
            _ = try open(model(2), options: try mappingOptions())
            XCTFail("the child was not killed after the rename")
            return
        }
        try makeStore(at: url, photos: 3)
        XCTAssertEqual(list(externalData(of: url)).count, 3)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        child.arguments = ["ObjectGraphTests.MigrationSwapReviewTests/testKilledRightAfterTheRenameTheOldExternalDataIsRemovedLater"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childFolder] = directory.url.path
        environment["OBJECTGRAPH_MIGRATION_CRASH_AT"] = "after-rename"
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal)
        XCTAssertEqual(child.terminationStatus, SIGKILL)

        // The store is the new one, whole.
        XCTAssertEqual(try fetch("Photo", in: try context(model(2), at: url)).map { $0.value(forKey: "image") as? Data }, (1...3).map { image($0) })
        contexts = []
        // The application opens it again, as it always does.
        XCTAssertEqual(try names(try open(model(2), options: try mappingOptions())), ["p1", "p2", "p3"])
        contexts = []
        XCTAssertEqual(list(directory.url).filter { $0.contains("-migrated-") }, [], "working files")
        XCTAssertEqual(list(externalData(of: url)).count, 3, "one file per image, the old store's gone: \(list(externalData(of: url)))")
    }

    // MARK: Atomic stores and stages

    /// Passes (guards a risk). XML and binary stores go through a lightweight stage: renamed
    /// over the store, which keeps its mode, with every photo and no working file left.
    func testAtomicStoresGoThroughStagesAndAreRenamedOverTheStore() throws {
        for type in [StoreType.xml, .binary] {
            let store = directory.url.appendingPathComponent("photos.\(type.rawValue.lowercased())")
            try makeStore(at: store, type: type, photos: 2, small: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: store.path)
            let inode = try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? Int
            let context = try context(model(2), at: store, type: type, options: stagedOptions())
            XCTAssertEqual(try fetch("Photo", in: context).map { $0.value(forKey: "image") as? Data }, [image(1, small: true), image(2, small: true)], "\(type)")
            contexts = []
            let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
            XCTAssertNotEqual(attributes[.systemFileNumber] as? Int, inode, "\(type): renamed over the store")
            XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o640, "\(type)")
            XCTAssertEqual(list(directory.url), [store.lastPathComponent], "\(type)")
            XCTAssertNotNil(try? self.context(model(2), at: store, type: type), "\(type): opens at version 2")
            contexts = []
            try FileManager.default.removeItem(at: store)
        }
    }

    /// Passes (guards a risk). A staged migration copies the store's external data files under
    /// the same names; a custom stage deletes one photo. Afterwards the folder holds exactly the
    /// files of the photos left, under their old names, and the deleted photo's file is gone.
    func testAStageThatDeletesAPhotoLeavesExactlyTheFilesOfThePhotosLeft() throws {
        try makeStore(at: url, photos: 3)
        let before = Set(list(externalData(of: url)))
        let stage = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: model(1)),
                                         to: ManagedObjectModelReference(model: model(2)))
        stage.willMigrateHandler = { manager, _ in
            let context = try XCTUnwrap(manager.container).newBackgroundContext()
            try context.performAndWait {
                var request = FetchRequest<ManagedObject>(entityName: "Photo")
                request.predicate = try Predicate(format: "name == 'p2'")
                for photo in try context.fetch(request) { context.delete(photo) }
                try context.save()
            }
        }
        var options = Self.migrating
        options[StagedMigrationManager.option] = StagedMigrationManager([stage])
        XCTAssertEqual(try images(at: url, model(2), options: options), [image(1), image(3)])
        let after = Set(list(externalData(of: url)))
        XCTAssertEqual(after.count, 2, "\(after)")
        XCTAssertTrue(after.isSubset(of: before), "the files keep their names")
        XCTAssertEqual(list(directory.url), [".store_SUPPORT", "store.sqlite"])
    }

    // MARK: Other stores in the folder, and the lock

    /// Passes (guards a risk). removeLeftovers, migrating the store `a`, leaves alone the store
    /// `a-migrated-x` beside it: its file, its support folder with its images, and the working
    /// file its own crashed migration left (`.a-migrated-x-migrated-<UUID>.sqlite`, which is
    /// that store's to remove).
    func testRemovingLeftoversOfOneStoreLeavesAnotherStoresFilesAlone() throws {
        let a = directory.url.appendingPathComponent("a.sqlite")
        let other = directory.url.appendingPathComponent("a-migrated-x.sqlite")
        try makeStore(at: a, photos: 1)
        try makeStore(at: other, photos: 2)
        let othersLeftover = ".a-migrated-x-migrated-\(UUID().uuidString).sqlite"
        try Data("left".utf8).write(to: directory.url.appendingPathComponent(othersLeftover))
        let othersImages = list(externalData(of: other))
        let aLeftover = ".a-migrated-\(UUID().uuidString).sqlite"
        try Data("left".utf8).write(to: directory.url.appendingPathComponent(aLeftover))

        XCTAssertEqual(try names(try context(model(2), at: a, options: try mappingOptions())), ["p1"])
        contexts = []
        let left = list(directory.url)
        XCTAssertFalse(left.contains(aLeftover), "\(left)")
        XCTAssertTrue(left.contains(othersLeftover), "\(left)")
        XCTAssertEqual(list(externalData(of: other)), othersImages)
        XCTAssertEqual(try fetch("Photo", in: try context(model(1), at: other)).map { $0.value(forKey: "image") as? Data }, [image(1), image(2)])
    }

    /// Passes (guards a risk). Two threads of one process add two stores of one folder at once,
    /// each migrating (the folder's lock takes them in turn: separate descriptors, so flock
    /// excludes them): both open at version 2 with their images and leave no working file.
    func testTwoThreadsMigratingStoresOfOneFolderAtOnceBothSucceed() throws {
        let stores = (1...2).map { directory.url.appendingPathComponent("s\($0).sqlite") }
        for store in stores { try makeStore(at: store, photos: 2) }
        let options = try mappingOptions()
        let model2 = model(2)
        let results = Mutex<[Int: Result<[Data?], any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let result = Result<[Data?], any Error> {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model2)
                try coordinator.addPersistentStore(type: .sqlite, at: stores[index], options: options)
                let context = ManagedObjectContext(concurrencyType: .privateQueue)
                context.persistentStoreCoordinator = coordinator
                return try context.performAndWait {
                    try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo")).map { $0.value(forKey: "image") as? Data }
                }
            }
            results.withLock { $0[index] = result }
        }
        for index in 0..<2 {
            switch results.withLock({ $0[index] }) {
            case .success(let images)?: XCTAssertEqual(Set(images.compactMap { $0 }), [image(1), image(2)], "store \(index + 1)")
            case .failure(let error)?: XCTFail("store \(index + 1): \(error)")
            case nil: XCTFail("store \(index + 1) did not finish")
            }
        }
        XCTAssertEqual(list(directory.url).filter { $0.contains("-migrated-") }, [])
    }

    /// Failed on 13bf026 (deadlock). A custom stage's handler opens another store of the same folder with
    /// a staged migration manager in its options (a second store of the application, opened
    /// with the application's usual options): `migrateIntoNewFile` takes the folder's lock
    /// again, on a new descriptor, and flock makes the thread wait for itself, for ever.
    /// (Checked on another thread, for at most a minute.) The lock should be re-entrant within
    /// the process: taken once per folder, a nested migration of the same thread going on.
    func testAStageHandlerOpeningAnotherStoreOfTheFolderDoesNotDeadlock() throws {
        try makeStore(at: url, photos: 1, small: true)
        let sibling = directory.url.appendingPathComponent("sibling.sqlite")
        try makeStore(at: sibling, photos: 1, small: true)
        let siblingOptions = stagedOptions()
        let siblingModel = model(1)
        let stage = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: model(1)),
                                         to: ManagedObjectModelReference(model: model(2)))
        stage.didMigrateHandler = { _, _ in
            // The sibling is at version 1, its stages' last: nothing to migrate, only opened.
            let coordinator = PersistentStoreCoordinator(managedObjectModel: siblingModel)
            try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: sibling, options: siblingOptions))
        }
        var staged = Self.migrating
        staged[StagedMigrationManager.option] = StagedMigrationManager([stage])
        let options = staged
        let model2 = model(2)
        let store = url!
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result<Void, any Error> {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model2)
                try coordinator.addPersistentStore(type: .sqlite, at: store, options: options)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + 60) == .success else {
            XCTFail("adding the store did not finish in a minute: the stage's handler waits for the folder's lock its own migration holds")
            return
        }
        if case .failure(let error)? = outcome.withLock({ $0 }) { XCTFail("\(error)") }
    }
}
