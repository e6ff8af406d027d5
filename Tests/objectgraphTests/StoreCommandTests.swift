// `objectgraph store info` and `store migrate` run as a binary on a SQLite store made here:
// metadata, rows per entity, schema, the model check, the migration and their exit codes.
import Foundation
import XCTest
import ObjectGraph

final class StoreCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-info-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func objectgraph(_ arguments: [String]) throws -> ProgramRun {
        try run(productsDirectory.appendingPathComponent("objectgraph"), arguments, scratch: directory)
    }

    private var organizer: URL { repositoryRoot.appendingPathComponent("Data/Organizer.xcdatamodeld") }

    /// A store of the organizer model with two people and one task (SQLite, or `type`).
    private func makeStore(_ type: StoreType = .sqlite, name: String = "organizer.sqlite") throws -> URL {
        let url = directory.appendingPathComponent(name)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: organizer))
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        for name in ["Ada", "Grace"] { context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "firstName") }
        let task = context.insertNewObject(forEntityName: "Task")
        task.setValue("Write", forKey: "title")
        task.setValue(UUID(), forKey: "uuid")
        try context.save()
        return url
    }

    func testInfoPrintsRowsPerEntityAndTheSchema() throws {
        let store = try makeStore()
        let run = try objectgraph(["store", "info", store.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("  Person  2 rows"), run.stdout)
        XCTAssertTrue(run.stdout.contains("  Task    1 row"), run.stdout)
        XCTAssertTrue(run.stdout.contains("CREATE TABLE \"ZPERSON\""), run.stdout)
    }

    func testInfoNamesTheVersionChecksumOfTheStoresModel() throws {
        let store = try makeStore()
        let checksum = try ManagedObjectModel(contentsOf: organizer).versionChecksum
        let text = try objectgraph(["store", "info", store.path])
        XCTAssertTrue(text.stdout.contains("\n  version checksum  \(checksum)\n"), text.stdout)
        let json = try objectgraph(["store", "info", store.path, "--json"])
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["versionChecksum"] as? String, checksum)
        let described = try objectgraph(["model", "describe", organizer.path, "--json"])
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(described.stdout.utf8)) as? [String: Any])?["versionChecksum"] as? String,
                       checksum, "model describe names the same version")
        let binary = try objectgraph(["store", "info", try makeStore(.binary, name: "organizer.binary").path, "--json"])
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(binary.stdout.utf8)) as? [String: Any])?["versionChecksum"] as? String, checksum)
    }

    func testInfoWithTheStoresOwnModelSaysItFits() throws {
        let store = try makeStore()
        let run = try objectgraph(["store", "info", store.path, "--model", organizer.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("opens the store unchanged"), run.stdout)
    }

    func testInfoWithAnotherModelListsTheDifferencesAndExitsOne() throws {
        let store = try makeStore()
        let other = repositoryRoot.appendingPathComponent("Data/PIM.xcdatamodeld")
        let run = try objectgraph(["store", "info", store.path, "--model", other.path, "--json"])
        XCTAssertEqual(run.status, 1)
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let differences = json?["differences"] as? [String] ?? []
        XCTAssertTrue(differences.contains("entity Item was removed"), "\(differences)")
        // Removing entities and adding others is a lightweight migration (the removed entities'
        // objects are dropped), as Core Data infers it.
        XCTAssertEqual(json?["migration"] as? String, "inferred")
        XCTAssertEqual((json?["rows"] as? [String: Int])?["Person"], 2)
    }

    func testInfoOnAMissingStoreExitsSixtySix() throws {
        let run = try objectgraph(["store", "info", directory.appendingPathComponent("none.sqlite").path])
        XCTAssertEqual(run.status, 66)
        XCTAssertTrue(run.stderr.contains("no SQLite store at"), run.stderr)
    }

    /// `store info` on an atomic store of `type` (named `name`) made with the organizer model:
    /// its type, its objects by type (named `person` and `task` in the file), the model check
    /// passing and, with PIM's model, failing (exit 1) in JSON; the file is not written. Returns
    /// the store file.
    @discardableResult
    private func checkInfoCountsObjectsAndChecksAModel(_ type: StoreType, name: String, person: String, task: String) throws -> URL {
        let store = try makeStore(type, name: name)
        let before = try Data(contentsOf: store)
        let run = try objectgraph(["store", "info", store.path, "--model", organizer.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("  type  \(type)"), run.stdout)
        let width = max(person.count, task.count)
        XCTAssertTrue(run.stdout.contains("  \(person.padding(toLength: width, withPad: " ", startingAt: 0))  2 objects"), run.stdout)
        XCTAssertTrue(run.stdout.contains("  \(task.padding(toLength: width, withPad: " ", startingAt: 0))  1 object\n"), run.stdout)
        XCTAssertTrue(run.stdout.contains("opens the store unchanged"), run.stdout)

        let other = repositoryRoot.appendingPathComponent("Data/PIM.xcdatamodeld")
        let refused = try objectgraph(["store", "info", store.path, "--model", other.path, "--json"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(json?["type"] as? String, type.rawValue)
        XCTAssertEqual((json?["objects"] as? [String: Int])?[person], 2)
        let differences = json?["differences"] as? [String] ?? []
        XCTAssertTrue(differences.first?.contains("different model") == true, "\(differences)")
        XCTAssertEqual(try Data(contentsOf: store), before, "the store is read, not written")
        return store
    }

    func testInfoOnAnXMLStoreCountsObjectsAndChecksAModel() throws {
        try checkInfoCountsObjectsAndChecksAModel(.xml, name: "organizer.xml", person: "PERSON", task: "TASK")
    }

    func testInfoKnowsAnXMLStoreWithoutADeclaration() throws {
        let store = directory.appendingPathComponent("bare.xml")
        try Data("""

            <database>
                <databaseInfo><UUID>BARE</UUID></databaseInfo>
                <object type="PERSON" id="z1"><attribute name="firstname" type="string">Ada</attribute></object>
            </database>
            """.utf8).write(to: store)
        let run = try objectgraph(["store", "info", store.path, "--model", organizer.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("  uuid  BARE"), run.stdout)
        XCTAssertTrue(run.stdout.contains("  PERSON  1 object"), run.stdout)
        XCTAssertTrue(run.stdout.contains("opens the store unchanged"), run.stdout)
    }

    func testInfoOnABinaryStoreCountsObjectsChecksAModelAndNamesTheByteOfADamagedFile() throws {
        let store = try checkInfoCountsObjectsAndChecksAModel(.binary, name: "organizer.store", person: "Person", task: "Task")
        let before = try Data(contentsOf: store)
        let cut = directory.appendingPathComponent("cut.store")
        try before.prefix(before.count - 3).write(to: cut)
        let damaged = try objectgraph(["store", "info", cut.path])
        XCTAssertEqual(damaged.status, 66)
        XCTAssertTrue(damaged.stderr.contains(cut.path) && damaged.stderr.contains("byte "), damaged.stderr)
    }

    // MARK: store migrate

    /// The organizer model changed by `change`, written as a model file.
    private func changedModel(_ name: String, _ change: (ManagedObjectModel) -> Void) throws -> URL {
        let model = try ManagedObjectModel(contentsOf: organizer)
        change(model)
        let folder = directory.appendingPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(model.xmlString().utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    func testDryRunPrintsTheMappingAndMigrateMigratesInPlace() throws {
        let store = try makeStore()
        let version2 = try changedModel("v2") { model in
            model.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "nickname", type: .string))
        }
        let dry = try objectgraph(["store", "migrate", store.path, "--model", version2.path, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("PersonToPerson (transform)") && dry.stdout.contains("nickname = default"), dry.stdout)
        let check = try objectgraph(["store", "info", store.path, "--model", version2.path])
        XCTAssertEqual(check.status, 1, "a dry run changes nothing")
        XCTAssertTrue(check.stdout.contains("migration: inferred; objectgraph store migrate"), check.stdout)
        let migrate = try objectgraph(["store", "migrate", store.path, "--model", version2.path])
        XCTAssertEqual(migrate.status, 0, migrate.stderr)
        XCTAssertTrue(migrate.stdout.hasSuffix("migrated\n"), migrate.stdout)
        let info = try objectgraph(["store", "info", store.path, "--model", version2.path])
        XCTAssertEqual(info.status, 0, info.stdout)
        XCTAssertTrue(info.stdout.contains("  Person  2 rows"), info.stdout)
        let again = try objectgraph(["store", "migrate", store.path, "--model", version2.path])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("nothing to migrate"), again.stdout)
    }

    func testMigrateCarriesXMLAndBinaryStoresOverWithTheCopyOfTheModelTheyKeep() throws {
        let nicknamed = try changedModel("nicknamed") { model in
            model.entitiesByName["Person"]!.declaredProperties.append(AttributeDescription(name: "nickname", type: .string))
        }
        for (type, name) in [(StoreType.xml, "organizer.xml"), (.binary, "organizer.store")] {
            let store = try makeStore(type, name: name)
            let before = try Data(contentsOf: store)
            let dry = try objectgraph(["store", "migrate", store.path, "--model", nicknamed.path, "--dry-run"])
            XCTAssertEqual(dry.status, 0, "\(type): \(dry.stderr)")
            XCTAssertTrue(dry.stdout.contains("nickname = default"), "\(type): \(dry.stdout)")
            XCTAssertEqual(try Data(contentsOf: store), before, "\(type): a dry run writes nothing")
            let advice = try objectgraph(["store", "info", store.path, "--model", nicknamed.path])
            XCTAssertEqual(advice.status, 1, "\(type): \(advice.stdout)")
            XCTAssertTrue(advice.stdout.contains("migration: inferred; objectgraph store migrate"), "\(type): \(advice.stdout)")

            let run = try objectgraph(["store", "migrate", store.path, "--model", nicknamed.path])
            XCTAssertEqual(run.status, 0, "\(type): \(run.stderr)")
            XCTAssertTrue(run.stdout.hasSuffix("migrated\n"), "\(type): \(run.stdout)")
            let opened = try objectgraph(["store", "info", store.path, "--model", nicknamed.path])
            XCTAssertEqual(opened.status, 0, "\(type): \(opened.stdout)")
            XCTAssertTrue(opened.stdout.contains("opens the store unchanged") && opened.stdout.contains("2 objects"), "\(type): \(opened.stdout)")
            let retyped = try changedModel("retyped-\(type)") { model in
                (model.entitiesByName["Person"]!.declaredProperties.first { $0.name == "firstName" } as! AttributeDescription).attributeType = .integer64
            }
            let migrated = try Data(contentsOf: store)
            let refused = try objectgraph(["store", "migrate", store.path, "--model", retyped.path])
            XCTAssertEqual(refused.status, 1, "\(type): \(refused.stdout)")
            XCTAssertTrue(refused.stderr.contains("Person.firstName"), "\(type): \(refused.stderr)")
            XCTAssertEqual(try Data(contentsOf: store), migrated, "\(type): a refused migration writes nothing")
        }
    }

    func testAnImpossibleMigrationExitsOneNamingTheAttributeAndChangesNothing() throws {
        let store = try makeStore()
        let retyped = try changedModel("retyped") { model in
            (model.entitiesByName["Person"]!.declaredProperties.first { $0.name == "firstName" } as! AttributeDescription).attributeType = .integer64
        }
        let before = try Data(contentsOf: store)
        let info = try objectgraph(["store", "info", store.path, "--model", retyped.path])
        XCTAssertEqual(info.status, 1)
        XCTAssertTrue(info.stdout.contains("migration: not possible: Person.firstName: its type changed"), info.stdout)
        let run = try objectgraph(["store", "migrate", store.path, "--model", retyped.path])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("Person.firstName"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: store), before)
        XCTAssertEqual(try objectgraph(["store", "migrate", directory.appendingPathComponent("none.sqlite").path, "--model", retyped.path]).status, 66)
    }

    // MARK: Migrating with an Xcode mapping model

    private func makeMoody4Store() throws -> URL {
        try makeMoody4Store(at: directory.appendingPathComponent("moody.sqlite"))
    }

    func testMigrateWithAMappingModelRunsItsExpressions() throws {
        let store = try makeMoody4Store()
        let arguments = ["store", "migrate", store.path, "--model", moodyModel(5).path, "--mapping", moodyMapping(4).path]
        let dry = try objectgraph(arguments + ["--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("CountryToCountry (transform): "), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("isoContinent = $source.continent.numericISO3166Code"), dry.stdout)
        let run = try objectgraph(arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasSuffix("migrated\n"), run.stdout)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: moodyModel(5)))
        try coordinator.addPersistentStore(type: .sqlite, at: store)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        var request = FetchRequest<ManagedObject>(entityName: "Country")
        request.sortDescriptors = [SortDescriptor(key: "numericISO3166Code")]
        XCTAssertEqual(try context.fetch(request).map { $0.value(forKey: "isoContinent") as? Int16 }, [2, 150])
    }

    func testMigrateWithAMappingModelItCannotRunExitsOneAndChangesNothing() throws {
        let store = try makeMoody4Store()
        let before = try Data(contentsOf: store)
        // Moody 5 to 6 names a policy class this command cannot load (its entities are also
        // Moody 4's, so it reads against the store's own model).
        let policy = try objectgraph(["store", "migrate", store.path, "--model", moodyModel(6).path, "--mapping", moodyMapping(5).path])
        XCTAssertEqual(policy.status, 1)
        XCTAssertTrue(policy.stderr.contains("entity mapping CountryToCountry: no migration policy class Migrations.Country5ToCountry6Policy"),
                      policy.stderr)
        let wrongSource = try objectgraph(["store", "migrate", store.path, "--model", moodyModel(6).path, "--mapping", moodyMapping(5).path,
                                           "--source-model", moodyModel(5).path])
        XCTAssertEqual(wrongSource.status, 1)
        XCTAssertTrue(wrongSource.stderr.contains("the store was not made with the mapping's source model"), wrongSource.stderr)
        let broken = directory.appendingPathComponent("Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try "<database>\n<object type=\"XDDEVMAPPINGMODEL\" id=\"z1\">\n<relationship name=\"entitymappings\" idrefs=\"z9\"/>\n</object>\n</database>\n"
            .write(to: broken.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        let unreadable = try objectgraph(["store", "migrate", store.path, "--model", moodyModel(5).path, "--mapping", broken.path])
        XCTAssertEqual(unreadable.status, 1)
        XCTAssertTrue(unreadable.stderr.contains("Broken.xcmappingmodel/xcmapping.xml:2: XDDEVMAPPINGMODEL z1 refers to z9, which the file does not hold"),
                      unreadable.stderr)
        XCTAssertEqual(try Data(contentsOf: store), before)
        XCTAssertEqual(try objectgraph(["store", "migrate", store.path, "--model", moodyModel(5).path, "--source-model", moodyModel(4).path]).status, 64)
    }
}
