// `--migration`: a store of N persons (W1's values) migrated to a version 2 of the benchmark's
// model that renames `email` to `mail` (renaming identifier) and adds `nickname`. Five ways:
// lightweight migration in place (the store's SQL, with an inferred mapping); the migration
// manager with the same inferred mapping (heavyweight: every object read, made anew and saved
// into a new file); the manager with `nickname = FUNCTION($source.name, 'uppercase')`; a staged
// migration whose custom stage sets the same nickname in its didMigrateHandler (fetch every
// person, set, save, after the inferred step in SQL); and raw
// SQLite copying the rows into a new file of version 2's schema with one INSERT ... SELECT
// (upper(ZNAME) for the nickname). Not one of issue 7's workloads: it shows what a mapping
// model costs against SQL.
import Foundation
import ObjectGraph

enum Migrations {
    /// Version 2 of the benchmark's model (plain managed objects: the generated classes know
    /// version 1's layout).
    static let version2 = ManagedObjectModel {
        Entity("Person", class: "NSManagedObject") {
            Attribute("age", .integer32, default: 0)
            Attribute("created", .date)
            Attribute("mail", .string).renamed(from: "email")
            Attribute("name", .string)
            Attribute("nickname", .string)
            Attribute("score", .double, default: 0.0)
            FetchIndex("byAge", on: "age")
        }
        Entity("Department", class: "NSManagedObject") {
            Attribute("name", .string)
            Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
        }
        Entity("Employee", class: "NSManagedObject") {
            Attribute("name", .string)
            Relationship("department", to: "Department", inverse: "employees")
        }
    }

    struct Result {
        var lightweight: Timing
        var inferred: Timing
        var computed: Timing
        var staged: Timing
        var raw: Timing
    }

    static func measure(_ harness: Harness) throws -> Result {
        let n = harness.scale.rows
        func fill(_ database: URL) throws {
            let context = try BenchmarkModel.context(at: database)
            FileStores.insert(n, into: context)
            try context.save()
        }
        func target(_ database: URL) -> URL { database.deletingLastPathComponent().appendingPathComponent("migrated.sqlite") }
        let lightweight = try harness.time(Runner(setUp: fill) { database in
            {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: version2)
                let store = try coordinator.addPersistentStore(type: .sqlite, at: database, options: [
                    NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                ])
                try coordinator.remove(store)
                return n
            }
        }, writes: true, in: harness.directory.appendingPathComponent("migration-lightweight"))
        let inferred = try MappingModel.inferredMappingModel(forSourceModel: BenchmarkModel.model, destinationModel: version2)
        var computed = inferred
        if let person = computed.entityMappings.firstIndex(where: { $0.destinationEntityName == "Person" }),
           let nickname = computed.entityMappings[person].attributeMappings.firstIndex(where: { $0.name == "nickname" }) {
            computed.entityMappings[person].attributeMappings[nickname].valueExpression = try Expression(format: "FUNCTION($source.name, 'uppercase')")
        }
        func manager(_ mapping: MappingModel, _ name: String) throws -> Timing {
            try harness.time(Runner(setUp: fill) { database in
                {
                    try MigrationManager(sourceModel: BenchmarkModel.model, destinationModel: version2)
                        .migrateStore(from: database, mapping: mapping, toDestinationURL: target(database))
                    return n
                }
            }, writes: true, in: harness.directory.appendingPathComponent("migration-\(name)"))
        }
        let heavy = try manager(inferred, "inferred")
        let heavyComputed = try manager(computed, "computed")
        let staged = try harness.time(Runner(setUp: fill) { database in
            {
                let stage = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: BenchmarkModel.model),
                                                 to: ManagedObjectModelReference(model: version2))
                stage.didMigrateHandler = { manager, _ in
                    guard let context = manager.container?.newBackgroundContext() else { return }
                    try context.performAndWait {
                        for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                            person.setValue((person.value(forKey: "name") as? String)?.uppercased(), forKey: "nickname")
                        }
                        try context.save()
                    }
                }
                let coordinator = PersistentStoreCoordinator(managedObjectModel: version2)
                let store = try coordinator.addPersistentStore(type: .sqlite, at: database, options: [
                    NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                    StagedMigrationManager.option: StagedMigrationManager([stage]),
                ])
                try coordinator.remove(store)
                return n
            }
        }, writes: true, in: harness.directory.appendingPathComponent("migration-staged"))
        let raw = try harness.time(Runner(setUp: { database in
            try fill(database)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: version2)
            try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: target(database)))
        }) { database in
            let connection = try RawConnection(path: database.path)
            return {
                try connection.execute("""
                    ATTACH DATABASE '\(target(database).path)' AS migrated;
                    BEGIN;
                    INSERT INTO migrated.ZPERSON (Z_PK, Z_ENT, Z_OPT, ZAGE, ZCREATED, ZMAIL, ZNAME, ZNICKNAME, ZSCORE)
                        SELECT Z_PK, Z_ENT, Z_OPT, ZAGE, ZCREATED, ZEMAIL, ZNAME, upper(ZNAME), ZSCORE FROM main.ZPERSON;
                    UPDATE migrated.Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM migrated.ZPERSON) WHERE Z_NAME = 'Person';
                    COMMIT;
                    DETACH DATABASE migrated;
                    """)
                return n
            }
        }, writes: true, in: harness.directory.appendingPathComponent("migration-raw"))
        return Result(lightweight: lightweight, inferred: heavy, computed: heavyComputed, staged: staged, raw: raw)
    }

    /// The report's lines.
    static func report(_ result: Result, rows: Int) -> String {
        func line(_ name: String, _ timing: Timing) -> String {
            String(format: "  %@ %9.1f ms [%.1f–%.1f]   ÷ raw %.2f", name.padding(toLength: 44, withPad: " ", startingAt: 0),
                   timing.median, timing.min, timing.max, timing.median / result.raw.median)
        }
        return [
            "Migration, N = \(rows) persons: email renamed to mail, nickname added",
            line("lightweight, in place (inferred mapping, SQL)", result.lightweight),
            line("migration manager, inferred mapping", result.inferred),
            line("migration manager, nickname = uppercase name", result.computed),
            line("staged, custom stage sets the nickname", result.staged),
            line("raw SQLite, INSERT ... SELECT into a new file", result.raw),
        ].joined(separator: "\n")
    }
}
