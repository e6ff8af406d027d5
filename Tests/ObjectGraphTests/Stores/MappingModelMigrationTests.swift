// Heavyweight migration (talk 001: "you create a migration manager and you set the mapping model
// on the migration manager, feed in your source data store and out the other side comes a data
// store that's compatible with the next version"): Xcode mapping models from the corpus read
// against their models, stores migrated with them (value expressions Xcode archived, relationship
// expressions it generates, and objc.io's Moody 5 to 6 policy that makes continents out of
// countries), stores migrated when they are added, and failures that leave the store as it was.
import Foundation
import XCTest
@testable import ObjectGraph

/// objc.io's policy for Moody 5 to 6 (Core Data, the book, chapter "Migrations"): each country
/// keeps its values, and gets the continent its `isoContinent` code names, one continent object
/// per code, made the first time a code is met.
final class Country5ToCountry6Policy: EntityMigrationPolicy {
    override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping,
                                             manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
        guard let code = source.value(forKey: "isoContinent") as? Int16 else { return }
        let country = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])[0]
        var continents = manager.userInfo["continents"] as? [Int16: ManagedObject] ?? [:]
        let continent = continents[code] ?? {
            let made = country.managedObjectContext!.insertNewObject(forEntityName: "Continent")
            made.setValue(code, forKey: "numericISO3166Code")
            return made
        }()
        continents[code] = continent
        manager.userInfo["continents"] = continents
        country.setValue(continent, forKey: "continent")
    }
}

/// A policy found by its Swift name alone, with a method value expressions call.
final class InitialsPolicy: EntityMigrationPolicy {
    override func method(forSelector selector: String) -> (([Any?]) throws -> Any?)? {
        guard selector == "initialsOf:" else { return nil }
        return { arguments in
            (arguments.first as? String).map { $0.split(separator: " ").compactMap(\.first).map(String.init).joined() }
        }
    }
}

/// A policy that fails while setting relationships, after every object was made.
final class FailingPolicy: EntityMigrationPolicy {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "this country is refused" }
    }

    override func createRelationships(forDestination destination: ManagedObject, in mapping: EntityMapping,
                                      manager: MigrationManager) throws {
        try super.createRelationships(forDestination: destination, in: mapping, manager: manager)
        throw Refusal()
    }
}

/// A policy that cancels the migration at its first object.
final class CancellingPolicy: EntityMigrationPolicy {
    override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping,
                                             manager: MigrationManager) throws {
        manager.cancelMigrationWithError(MigrationError(.cancelled, "the user cancelled"))
    }
}

final class MappingModelMigrationTests: MigrationTestCase {
    // MARK: Reading Xcode's mapping models

    func testEveryCorpusMappingModelReadsAgainstItsModels() throws {
        for from in 2...5 {
            let mapping = try Self.moodyMapping(from)
            let destination = try Self.moody(from + 1)
            XCTAssertFalse(mapping.entityMappings.isEmpty, "Moody \(from)")
            for entityMapping in mapping.entityMappings {
                let entity = try XCTUnwrap(entityMapping.destinationEntityName.flatMap { destination.entitiesByName[$0] })
                for property in entityMapping.attributeMappings + entityMapping.relationshipMappings {
                    XCTAssertNotNil(entity.propertiesByName[property.name], "Moody \(from): \(entityMapping.name).\(property.name)")
                }
            }
        }
        let woo = Corpus.models.appendingPathComponent("woocommerce__woocommerce-ios__WooCommerce.xcdatamodeld")
        let file = try ModelFile(url: woo)
        let mapping = try MappingModel(
            contentsOf: Corpus.models.appendingPathComponent("woocommerce__woocommerce-ios__WooCommerce.mappings/WooCommerceModelV9toV10.xcmappingmodel"),
            sourceModel: file.load(version: "Model 9"), destinationModel: file.load(version: "Model 10"))
        XCTAssertEqual(mapping.entityMappings.count, 17)
        let statusKey = mapping.entityMappings.flatMap(\.attributeMappings).first { $0.name == "statusKey" }
        XCTAssertEqual(statusKey?.valueExpression?.expressionFormat, "$source.status")
        XCTAssertEqual(statusKey?.sourceName, "status")
    }

    func testArchivedAndGeneratedExpressionsAreThoseXcodeMeans() throws {
        let fourToFive = try Self.moodyMapping(4)
        XCTAssertEqual(fourToFive.entityMappings.map(\.name), ["MoodToMood", "CountryToCountry"])
        let country = try XCTUnwrap(fourToFive.entityMapping(named: "CountryToCountry"))
        XCTAssertEqual(country.mappingType, .transform)
        let iso = try XCTUnwrap(country.attributeMappings.first { $0.name == "isoContinent" })
        XCTAssertEqual(iso.valueExpression?.expressionFormat, "$source.continent.numericISO3166Code")
        XCTAssertNil(iso.sourceName, "a key path, not one property carried over")
        XCTAssertEqual(country.attributeMappings.first { $0.name == "updatedAt" }?.valueExpression?.expressionFormat, "$source.updatedAt")
        let moodCountry = try XCTUnwrap(fourToFive.entityMapping(named: "MoodToMood")?.relationshipMappings.first { $0.name == "country" })
        XCTAssertEqual(moodCountry.valueExpression?.expressionFormat,
                       #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , "CountryToCountry" , $source.country)"#)

        let fiveToSix = try Self.moodyMapping(5)
        XCTAssertEqual(fiveToSix.entityMappings.map(\.name), ["AddContinent", "CountryToCountry", "MoodToMood"])
        XCTAssertEqual(fiveToSix.entityMappings.map(\.mappingType), [.add, .custom, .transform])
        XCTAssertEqual(fiveToSix.entityMapping(named: "CountryToCountry")?.entityMigrationPolicyClassName, "Migrations.Country5ToCountry6Policy")
        // Country 5 has no continent: nothing to generate from.
        XCTAssertNil(fiveToSix.entityMapping(named: "CountryToCountry")?.relationshipMappings.first { $0.name == "continent" }?.valueExpression)

        // A source key path and mapping Xcode wrote.
        let twoToThree = try Self.moodyMapping(2)
        let moods = twoToThree.entityMapping(named: "ContinentToContinent")?.relationshipMappings.first { $0.name == "moods" }
        XCTAssertEqual(moods?.valueExpression?.expressionFormat,
                       #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , "MoodToMood" , $source.countries.@distinctUnionOfSets.moods)"#)
    }

    func testErrorsInAMappingModelFileNameTheFileAndLine() throws {
        let source = try Self.moody(4), destination = try Self.moody(5)
        let original = try String(contentsOf: Self.moodyMappings.appendingPathComponent("Moody_4-Moody_5.xcmappingmodel/xcmapping.xml"), encoding: .utf8)
        func check(_ text: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let url = directory.url.appendingPathComponent("Broken.xcmappingmodel")
            try? FileManager.default.removeItem(at: url)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try text.write(to: url.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try MappingModel(contentsOf: url, sourceModel: source, destinationModel: destination), file: file, line: line) { error in
                XCTAssertEqual((error as? MigrationError)?.kind, .mappingModelFile, file: file, line: line)
                XCTAssertTrue("\(error)".contains(expected), "\(error)", file: file, line: line)
            }
        }
        func lineNumber(of needle: String) -> Int {
            original.components(separatedBy: "\n").firstIndex { $0.contains(needle) }! + 1
        }
        let destinationLine = lineNumber(of: #"<attribute name="destinationname" type="string">Country</attribute>"#)
        try check(original.replacingOccurrences(of: #"<attribute name="destinationname" type="string">Country</attribute>"#,
                                                with: #"<attribute name="destinationname" type="string">Nation</attribute>"#),
                  "xcmapping.xml:\(destinationLine): the entity mapping's destination entity Nation is not in the destination model")
        let ratingLine = lineNumber(of: #"<attribute name="name" type="string">rating</attribute>"#)
        try check(original.replacingOccurrences(of: #"<attribute name="name" type="string">rating</attribute>"#,
                                                with: #"<attribute name="name" type="string">stars</attribute>"#),
                  "xcmapping.xml:\(ratingLine): Mood in the destination model has no attribute stars")
        try check(original.replacingOccurrences(of: "</database>", with: "</databse>"), "not well-formed XML")
        try check("<model/>", "xcmapping.xml:1: not a mapping model")
        XCTAssertThrowsError(try MappingModel(contentsOf: directory.url.appendingPathComponent("None.xcmappingmodel"),
                                              sourceModel: source, destinationModel: destination)) { error in
            XCTAssertTrue("\(error)".contains("None.xcmappingmodel: cannot read the mapping model"), "\(error)")
        }
    }

    // MARK: Migrating with a mapping model

    /// A Moody 4 store: Europe (150) with Germany and France, Africa (2) with Algeria, and a
    /// mood in each country.
    private func fillMoody4(at url: URL, type: StoreType = .sqlite) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.moody(4))
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let make = maker(context)
        let europe = make("Continent", ["numericISO3166Code": Int16(150), "updatedAt": now])
        let africa = make("Continent", ["numericISO3166Code": Int16(2), "updatedAt": now])
        for (code, continent, rating) in [(Int16(276), europe, Int16(3)), (250, europe, 4), (12, africa, 5)] {
            let country = make("Country", ["numericISO3166Code": code, "updatedAt": now, "continent": continent])
            _ = make("Mood", ["date": now, "rating": rating, "country": country, "continent": continent, "creatorID": "c\(code)"])
        }
        try context.save()
    }

    private let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// A function inserting an object of an entity with values into `context`.
    private func maker(_ context: ManagedObjectContext) -> (String, [String: Any]) -> ManagedObject {
        { entity, values in
            let object = context.insertNewObject(forEntityName: entity)
            object.setValuesForKeys(values)
            return object
        }
    }

    /// Country codes with the value of `key` of each, sorted by code.
    private func countries(in context: ManagedObjectContext, _ key: String) throws -> [String] {
        try fetch("Country", in: context, sortedBy: "numericISO3166Code").map { country in
            let value = country.value(forKeyPath: key)
            return "\(country.value(forKey: "numericISO3166Code")!):\(value.map { "\($0)" } ?? "nil")"
        }
    }

    func testMoody4To5CarriesEachContinentsCodeIntoItsCountries() throws {
        try fillMoody4(at: url)
        let manager = MigrationManager(sourceModel: try Self.moody(4), destinationModel: try Self.moody(5))
        try manager.migrateStore(from: url, type: .sqlite, mapping: try Self.moodyMapping(4), toDestinationURL: migratedURL,
                                 destinationType: .sqlite)
        XCTAssertEqual(manager.migrationProgress, 1)
        XCTAssertNil(manager.destinationContext, "the manager lets go of the stores")

        let migrated = try context(try Self.moody(5), at: migratedURL)
        XCTAssertEqual(try countries(in: migrated, "isoContinent"), ["12:2", "250:150", "276:150"])
        XCTAssertEqual(try countries(in: migrated, "moods.@count"), ["12:1", "250:1", "276:1"])
        let moods = try fetch("Mood", in: migrated, sortedBy: "rating")
        XCTAssertEqual(moods.map { $0.value(forKeyPath: "country.numericISO3166Code") as? Int16 }, [276, 250, 12])
        XCTAssertEqual(moods.map { $0.value(forKey: "creatorID") as? String }, ["c276", "c250", "c12"])
        // The source is as it was.
        let original = try context(try Self.moody(4), at: url)
        XCTAssertEqual(try fetch("Continent", in: original, sortedBy: "numericISO3166Code").count, 2)
    }

    func testMoody5To6PolicyMakesOneContinentPerCode() throws {
        EntityMigrationPolicy.register(Country5ToCountry6Policy.self, as: "Migrations.Country5ToCountry6Policy")
        try fillMoody4(at: url)
        let version5 = directory.url.appendingPathComponent("moody5.sqlite")
        try MigrationManager(sourceModel: try Self.moody(4), destinationModel: try Self.moody(5))
            .migrateStore(from: url, mapping: try Self.moodyMapping(4), toDestinationURL: version5)
        try MigrationManager(sourceModel: try Self.moody(5), destinationModel: try Self.moody(6))
            .migrateStore(from: version5, mapping: try Self.moodyMapping(5), toDestinationURL: migratedURL)

        let migrated = try context(try Self.moody(6), at: migratedURL)
        XCTAssertEqual(try countries(in: migrated, "continent.numericISO3166Code"), ["12:2", "250:150", "276:150"])
        let continents = try fetch("Continent", in: migrated, sortedBy: "numericISO3166Code")
        XCTAssertEqual(continents.map { $0.value(forKey: "numericISO3166Code") as? Int16 }, [2, 150])
        XCTAssertEqual(continents.map { ($0.value(forKey: "countries") as? Set<ManagedObject>)?.count }, [1, 2])
        XCTAssertEqual(try fetch("Mood", in: migrated, sortedBy: "rating").map { $0.value(forKeyPath: "country.numericISO3166Code") as? Int16 },
                       [276, 250, 12])
    }

    func testAMoody2StoreGoesThroughEveryCorpusMappingModelToVersion6() throws {
        EntityMigrationPolicy.register(Country5ToCountry6Policy.self, as: "Migrations.Country5ToCountry6Policy")
        // Version 2: moods know their country only; continents and countries share an abstract parent.
        let context = try open(try Self.moody(2), options: [:])
        let make = maker(context)
        let europe = make("Continent", ["numericISO3166Code": Int16(150), "updatedAt": now])
        let africa = make("Continent", ["numericISO3166Code": Int16(2), "updatedAt": now])
        for (code, continent) in [(Int16(276), europe), (250, europe), (12, africa)] {
            let country = make("Country", ["numericISO3166Code": code, "updatedAt": now, "continent": continent])
            for rating in 1...2 { _ = make("Mood", ["date": now, "rating": Int16(rating), "country": country]) }
        }
        try context.save()
        contexts = []
        var current = url!
        for from in 2...5 {
            let next = directory.url.appendingPathComponent("moody\(from + 1).sqlite")
            try MigrationManager(sourceModel: try Self.moody(from), destinationModel: try Self.moody(from + 1))
                .migrateStore(from: current, mapping: try Self.moodyMapping(from), toDestinationURL: next)
            if from == 2 {
                // 2 to 3: a mood's continent is its country's; a continent's moods, its countries'.
                let three = try self.context(try Self.moody(3), at: next)
                XCTAssertEqual(try fetch("Mood", in: three, sortedBy: "rating").map { "\($0.value(forKeyPath: "continent.numericISO3166Code")!)" }.sorted(),
                               ["150", "150", "150", "150", "2", "2"])
                XCTAssertEqual(try fetch("Continent", in: three, sortedBy: "numericISO3166Code").map { $0.value(forKeyPath: "moods.@count") as? Int },
                               [2, 4])
            }
            current = next
        }
        let six = try self.context(try Self.moody(6), at: current)
        XCTAssertEqual(try countries(in: six, "continent.numericISO3166Code"), ["12:2", "250:150", "276:150"])
        XCTAssertEqual(try countries(in: six, "moods.@count"), ["12:2", "250:2", "276:2"])
        XCTAssertEqual(try fetch("Continent", in: six, sortedBy: "numericISO3166Code").count, 2)
    }

    func testAStoreAddedWithAMappingModelIsMigratedWithItInPlace() throws {
        for type in [StoreType.sqlite, .binary] {
            let url = directory.url.appendingPathComponent("added-\(type.rawValue)")
            try fillMoody4(at: url, type: type)
            var options = Self.migrating
            options[MigrationManager.mappingModelsOption] = [try Self.moodyMapping(4)]
            let migrated = try context(try Self.moody(5), at: url, type: type, options: options)
            // An inferred mapping would have left isoContinent at its default, 0.
            XCTAssertEqual(try countries(in: migrated, "isoContinent"), ["12:2", "250:150", "276:150"], "\(type)")
            XCTAssertEqual(try fetch("Mood", in: migrated, sortedBy: "rating").count, 3)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("migrat") }
            XCTAssertEqual(left, [], "no migrated or original copy is left beside the store")
            // Opened again, it is a store of version 5: nothing to migrate.
            contexts = []
            XCTAssertEqual(try countries(in: try context(try Self.moody(5), at: url, type: type, options: options), "isoContinent"),
                           ["12:2", "250:150", "276:150"])
        }
    }

    func testExternalRecordsOfAStoreMigratedWhenAddedAreWrittenForTheNewStore() throws {
        let version1 = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string).indexedBySpotlight() }
        }
        let version2 = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string).indexedBySpotlight()
                Attribute("shout", .string).indexedBySpotlight()
            }
        }
        let records = directory.url.appendingPathComponent("records", isDirectory: true)
        let recordOptions: [String: any Sendable] = [NSExternalRecordsDirectoryOption: records.path,
                                                     NSExternalRecordExtensionOption: "person"]
        let people = try context(version1, at: url, options: recordOptions)
        for name in ["Ada", "Alan"] { people.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name") }
        try people.save()
        let oldIdentifier = try XCTUnwrap(people.persistentStoreCoordinator?.persistentStores.first).identifier
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: records.appendingPathComponent(oldIdentifier).appendingPathComponent("Person").path).count, 2)
        contexts = []

        var mapping = try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
        let shout = try XCTUnwrap(mapping.entityMappings[0].attributeMappings.firstIndex { $0.name == "shout" })
        mapping.entityMappings[0].attributeMappings[shout].valueExpression = try Expression(format: "FUNCTION($source.name, 'uppercase')")
        var options = Self.migrating.merging(recordOptions) { first, _ in first }
        options[MigrationManager.mappingModelsOption] = [mapping]
        let migrated = try context(version2, at: url, options: options)
        let store = try XCTUnwrap(migrated.persistentStoreCoordinator?.persistentStores.first)
        XCTAssertNotEqual(store.identifier, oldIdentifier, "a heavyweight migration makes a new store")
        XCTAssertFalse(FileManager.default.fileExists(atPath: records.appendingPathComponent(oldIdentifier).path),
                       "the old store's records go")
        let folder = records.appendingPathComponent(store.identifier).appendingPathComponent("Person")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertEqual(written.count, 2, "\(written)")
        let texts = try written.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
        XCTAssertTrue(texts.contains { $0.contains("ADA") }, "\(texts)")
    }

    func testAFailedMigrationLeavesTheStoreAsItWasAndNoFilesBeside() throws {
        try fillMoody4(at: url)
        let before = try Data(contentsOf: url)
        var mapping = try Self.moodyMapping(4)
        let index = try XCTUnwrap(mapping.entityMappings.firstIndex { $0.name == "CountryToCountry" })
        mapping.entityMappings[index].entityMigrationPolicyClassName = "ObjectGraphTests.FailingPolicy"
        var options = Self.migrating
        options[MigrationManager.mappingModelsOption] = [mapping]
        XCTAssertThrowsError(try context(try Self.moody(5), at: url, options: options)) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .migration)
            XCTAssertTrue("\(error)".contains("entity mapping CountryToCountry, setting relationships: this country is refused"), "\(error)")
            XCTAssertTrue("\(error)".hasPrefix(self.url.path), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("migrat") }, [])
        XCTAssertEqual(try countries(in: try context(try Self.moody(4), at: url), "continent.numericISO3166Code"),
                       ["12:2", "250:150", "276:150"])
    }

    func testAValueThatFailsValidationStopsTheMigrationNamingEntityAndProperty() throws {
        try fillMoody4(at: url)
        var mapping = try Self.moodyMapping(4)
        let index = try XCTUnwrap(mapping.entityMappings.firstIndex { $0.name == "MoodToMood" })
        let date = try XCTUnwrap(mapping.entityMappings[index].attributeMappings.firstIndex { $0.name == "date" })
        mapping.entityMappings[index].attributeMappings[date].valueExpression = nil
        let manager = MigrationManager(sourceModel: try Self.moody(4), destinationModel: try Self.moody(5))
        XCTAssertThrowsError(try manager.migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)) { error in
            XCTAssertTrue("\(error)".contains("the migrated objects could not be saved"), "\(error)")
            XCTAssertTrue("\(error)".contains("Mood") && "\(error)".contains("date"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: migratedURL.path), "the new store is destroyed")
    }

    func testExpressionErrorsNameTheMappingAndProperty() throws {
        try fillMoody4(at: url)
        var mapping = try Self.moodyMapping(4)
        let index = try XCTUnwrap(mapping.entityMappings.firstIndex { $0.name == "CountryToCountry" })
        let iso = try XCTUnwrap(mapping.entityMappings[index].attributeMappings.firstIndex { $0.name == "isoContinent" })
        mapping.entityMappings[index].attributeMappings[iso].valueExpression = try Expression(format: #"FUNCTION($source, "noSuchMethod")"#)
        let manager = MigrationManager(sourceModel: try Self.moody(4), destinationModel: try Self.moody(5))
        XCTAssertThrowsError(try manager.migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)) { error in
            XCTAssertTrue("\(error)".contains(#"entity mapping CountryToCountry, Country.isoContinent = FUNCTION($source, "noSuchMethod")"#), "\(error)")
            XCTAssertTrue("\(error)".contains("unknown method \"noSuchMethod\""), "\(error)")
        }
        // A source property the source entity lacks is named before anything is read.
        mapping.entityMappings[index].attributeMappings[iso].valueExpression = try Expression(format: "$source.continentCode")
        XCTAssertThrowsError(try manager.migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)) { error in
            XCTAssertTrue("\(error)".contains("Country.isoContinent: $source.continentCode: Country has no property continentCode"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: migratedURL.path))
    }

    func testPoliciesAreFoundByTheirSwiftNameAndAnswerFunctionCalls() throws {
        let version1 = ManagedObjectModel {
            Entity("Person") { Attribute("name", .string) }
        }
        let version2 = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("initials", .string)
            }
        }
        let people = try open(version1, options: [:])
        for name in ["Ada King Lovelace", "Alan Turing"] {
            people.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name")
        }
        try people.save()
        var mapping = try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
        mapping.entityMappings[0].entityMigrationPolicyClassName = String(reflecting: InitialsPolicy.self)
        let initials = try XCTUnwrap(mapping.entityMappings[0].attributeMappings.firstIndex { $0.name == "initials" })
        mapping.entityMappings[0].attributeMappings[initials].valueExpression =
            try Expression(format: #"FUNCTION($entityPolicy, "initialsOf:", $source.name)"#)
        try MigrationManager(sourceModel: version1, destinationModel: version2)
            .migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)
        let migrated = try context(version2, at: migratedURL)
        XCTAssertEqual(try fetch("Person", in: migrated).map { $0.value(forKey: "initials") as? String }, ["AKL", "AT"])

        mapping.entityMappings[0].entityMigrationPolicyClassName = "Nowhere.NoSuchPolicy"
        XCTAssertThrowsError(try MigrationManager(sourceModel: version1, destinationModel: version2)
            .migrateStore(from: url, mapping: mapping, toDestinationURL: directory.url.appendingPathComponent("other.sqlite"))) { error in
            XCTAssertTrue("\(error)".contains("no migration policy class Nowhere.NoSuchPolicy"), "\(error)")
        }
    }

    func testACancelledMigrationThrowsTheCancellationAndMakesNoStore() throws {
        try fillMoody4(at: url)
        var mapping = try Self.moodyMapping(4)
        mapping.entityMappings[0].entityMigrationPolicyClassName = String(reflecting: CancellingPolicy.self)
        XCTAssertThrowsError(try MigrationManager(sourceModel: try Self.moody(4), destinationModel: try Self.moody(5))
            .migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .cancelled)
            XCTAssertEqual((error as NSError).code, NSMigrationCancelledError)
            XCTAssertTrue("\(error)".contains("the user cancelled"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: migratedURL.path))
    }

    func testAnInferredMappingRunByTheManagerGivesWhatLightweightMigrationGives() throws {
        let version1 = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("mail", .string)
                Attribute("age", .integer16)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true, ordered: true)
            }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "tasks")
            }
        }
        let version2 = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("email", .string).renamed(from: "mail")
                Attribute("age", .integer64)
                Relationship("todos", to: "Task", inverse: "owner", toMany: true, ordered: true).renamed(from: "tasks")
            }
            Entity("Task") {
                Attribute("title", .string)
                Attribute("done", .boolean, default: false)
                Relationship("owner", to: "Person", inverse: "todos")
            }
        }
        let people = try open(version1, options: [:])
        let ann = people.insertNewObject(forEntityName: "Person")
        ann.setValuesForKeys(["name": "Ann", "mail": "ann@example.org", "age": Int16(41)])
        for title in ["c", "a", "b"] {
            let task = people.insertNewObject(forEntityName: "Task")
            task.setValuesForKeys(["title": title, "owner": ann])
        }
        try people.save()
        contexts = []
        try MigrationManager(sourceModel: version1, destinationModel: version2)
            .migrateStore(from: url, mapping: try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2),
                          toDestinationURL: migratedURL)
        func describe(_ context: ManagedObjectContext) throws -> [String] {
            try fetch("Person", in: context).map { person in
                let todos = (person.value(forKey: "todos") as? OrderedSet<ManagedObject>)?.map { "\($0.value(forKey: "title")!)/\($0.value(forKey: "done")!)" }
                return "\(person.value(forKey: "name")!) \(person.value(forKey: "email")!) \(person.value(forKey: "age")!) \(todos ?? [])"
            }
        }
        let heavy = try describe(try context(version2, at: migratedURL))
        let light = try describe(try open(version2))
        XCTAssertEqual(heavy, light)
        XCTAssertEqual(heavy, [#"Ann ann@example.org 41 ["c/false", "a/false", "b/false"]"#])
    }
}
