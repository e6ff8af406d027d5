// Review of heavyweight migration with mapping models (MigrationManager, EntityMigrationPolicy,
// MappingModel read from Xcode's xcmapping.xml, mapping models given in a store's options):
// behaviour a Core Data user relies on that the feature gets wrong, and a few subtle things it
// gets right that must stay so.
import Foundation
import XCTest
@testable import ObjectGraph

/// A policy that merges tags of the same name into one destination tag (the usual way to
/// remove duplicates in a migration): the second source of a name is associated with the tag the
/// first made. It records what the manager tells it in `userInfo["log"]`.
final class MappingReviewMergingTagPolicy: EntityMigrationPolicy {
    private func log(_ entry: String, _ manager: MigrationManager) {
        manager.userInfo["log"] = (manager.userInfo["log"] as? [String] ?? []) + [entry]
    }

    override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping,
                                             manager: MigrationManager) throws {
        let name = source.value(forKey: "name") as? String ?? ""
        var tags = manager.userInfo["tags"] as? [String: ManagedObject] ?? [:]
        if let existing = tags[name] {
            manager.associate(sourceInstance: source, withDestinationInstance: existing, for: mapping)
            return
        }
        try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
        tags[name] = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]).first
        manager.userInfo["tags"] = tags
    }

    override func createRelationships(forDestination destination: ManagedObject, in mapping: EntityMapping,
                                      manager: MigrationManager) throws {
        log("relationships of \(destination.value(forKey: "name") ?? "?")", manager)
        try super.createRelationships(forDestination: destination, in: mapping, manager: manager)
    }

    override func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        let all = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: nil)
        log("made " + all.map { "\($0.value(forKey: "name") ?? "?")" }.joined(separator: " "), manager)
        for tag in all {
            let sources = manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [tag])
            log("\(tag.value(forKey: "name") ?? "?") from \(sources.count)", manager)
        }
    }
}

final class MappingModelReviewTests: MigrationTestCase {
    /// Makes a store of `model` at `url` holding what `fill` inserts, and lets go of it.
    private func makeStore(_ model: ManagedObjectModel, at url: URL, type: StoreType = .sqlite,
                           _ fill: (ManagedObjectContext) throws -> Void) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        try fill(context)
        try context.save()
        context.reset()
        try coordinator.remove(store)
    }

    @discardableResult
    private func insert(_ entity: String, _ values: [String: Any], in context: ManagedObjectContext) -> ManagedObject {
        let object = context.insertNewObject(forEntityName: entity)
        object.setValuesForKeys(values)
        return object
    }

    /// The files under `folder` (recursively), with their bytes.
    private func contents(of folder: URL) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        let root = folder.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [:] }
        while let path = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            let full = root + "/" + path
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            contents[path] = try Data(contentsOf: URL(fileURLWithPath: full))
        }
        return contents
    }

    // MARK: Inheritance

    /// Core Data's inferred mapping of two models with an abstract entity runs through
    /// `NSMigrationManager` as lightweight migration does: an abstract entity has no objects of
    /// its own, so its mapping simply makes none. The manager refuses the mapping instead.
    func testAnInferredMappingOfModelsWithAnAbstractParentRunsInTheManager() throws {
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Item", abstract: true) {
                    Attribute("name", .string)
                }
                Entity("Book", parent: "Item") {
                    Attribute("pages", .integer32)
                    if version == 2 { Attribute("isbn", .string) }
                }
            }
        }
        let version1 = model(1), version2 = model(2)
        try makeStore(version1, at: url) { context in
            insert("Book", ["name": "Dune", "pages": Int32(412)], in: context)
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
        XCTAssertNoThrow(try MigrationManager(sourceModel: version1, destinationModel: version2)
            .migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL))
        guard FileManager.default.fileExists(atPath: migratedURL.path) else { return XCTFail("no migrated store") }
        let books = try fetch("Book", in: try context(version2, at: migratedURL))
        XCTAssertEqual(books.map { "\($0.value(forKey: "name") ?? "nil") \($0.value(forKey: "pages") ?? "nil")" }, ["Dune 412"])
    }

    // MARK: Relationships

    /// `destinationInstancesForSourceRelationshipNamed:sourceInstances:` (what inferred mappings
    /// use, and what `MappingModel(contentsOf:)` generates for a relationship when several entity
    /// mappings read its destination entity) answers, as Core Data's does, the objects migrated
    /// from the relationship's destinations *into the destination relationship's entity*. Here
    /// each Person is split into a Person and a Card: a task's owner must be the Person; the
    /// manager hands over both, and the migration fails on the Card.
    func testDestinationsOfASourceRelationshipAreTheObjectsOfTheRelationshipsEntity() throws {
        let version1 = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("phone", .string)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
            }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "tasks")
            }
        }
        let version2 = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
            }
            Entity("Card") {
                Attribute("phone", .string)
            }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "tasks")
            }
        }
        try makeStore(version1, at: url) { context in
            let ann = insert("Person", ["name": "Ann", "phone": "555-0100"], in: context)
            insert("Task", ["title": "write", "owner": ann], in: context)
        }
        let mapping = MappingModel(entityMappings: [
            EntityMapping(name: "PersonToPerson", mappingType: .transform, sourceEntityName: "Person", destinationEntityName: "Person",
                          attributeMappings: [PropertyMapping(name: "name", sourceName: "name")], relationshipMappings: []),
            EntityMapping(name: "PersonToCard", mappingType: .transform, sourceEntityName: "Person", destinationEntityName: "Card",
                          attributeMappings: [PropertyMapping(name: "phone", sourceName: "phone")], relationshipMappings: []),
            EntityMapping(name: "TaskToTask", mappingType: .transform, sourceEntityName: "Task", destinationEntityName: "Task",
                          attributeMappings: [PropertyMapping(name: "title", sourceName: "title")],
                          relationshipMappings: [PropertyMapping(name: "owner", valueExpression: MappingModel.destinationsOfRelationship("owner"))]),
        ], sourceModel: version1, destinationModel: version2)
        XCTAssertNoThrow(try MigrationManager(sourceModel: version1, destinationModel: version2)
            .migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL))
        guard FileManager.default.fileExists(atPath: migratedURL.path) else { return XCTFail("no migrated store") }
        let migrated = try context(version2, at: migratedURL)
        XCTAssertEqual(try fetch("Task", in: migrated, sortedBy: "title").map { $0.value(forKeyPath: "owner.name") as? String }, ["Ann"])
        XCTAssertEqual(try fetch("Card", in: migrated, sortedBy: "phone").map { $0.value(forKey: "phone") as? String }, ["555-0100"])
    }

    /// An ordered to-many relationship whose inverse is an ordered to-many too, both sides
    /// mapped (as Xcode maps them): the relationships are set in stage 2 from both sides, and
    /// each list keeps its source order whichever side is set last. (Passes: guards the order.)
    func testOrderedManyToManySetFromBothSidesKeepsEachSidesOrder() throws {
        let model = ManagedObjectModel {
            Entity("Playlist") {
                Attribute("name", .string)
                Relationship("songs", to: "Song", inverse: "playlists", toMany: true, ordered: true)
            }
            Entity("Song") {
                Attribute("name", .string)
                Relationship("playlists", to: "Playlist", inverse: "songs", toMany: true, ordered: true)
            }
        }
        try makeStore(model, at: url) { context in
            let songs = ["c", "a", "b", "d"].map { insert("Song", ["name": $0], in: context) }
            let mix = insert("Playlist", ["name": "mix"], in: context)
            let rock = insert("Playlist", ["name": "rock"], in: context)
            mix.setValue(OrderedSet([songs[3], songs[0], songs[2], songs[1]]), forKey: "songs")
            rock.setValue(OrderedSet([songs[1], songs[3]]), forKey: "songs")
            // Song a lists rock before mix; song d lists mix before rock.
            songs[1].setValue(OrderedSet([rock, mix]), forKey: "playlists")
        }
        func playlists(_ context: ManagedObjectContext) throws -> [String] {
            try fetch("Playlist", in: context).map { playlist in
                let songs = (playlist.value(forKey: "songs") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "name") as? String ?? "?" }
                return "\(playlist.value(forKey: "name")!): \((songs ?? []).joined(separator: " "))"
            }
        }
        func songs(_ context: ManagedObjectContext) throws -> [String] {
            try fetch("Song", in: context).map { song in
                let lists = (song.value(forKey: "playlists") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "name") as? String ?? "?" }
                return "\(song.value(forKey: "name")!): \((lists ?? []).joined(separator: " "))"
            }
        }
        let expectedPlaylists = try playlists(try context(model, at: url))
        let expectedSongs = try songs(try context(model, at: url))
        XCTAssertEqual(expectedPlaylists, ["mix: d c b a", "rock: a d"])
        let inferred = try MappingModel.inferredMappingModel(forSourceModel: model, destinationModel: model)
        for order in [inferred.entityMappings, Array(inferred.entityMappings.reversed())] {
            let destination = directory.url.appendingPathComponent("order-\(order[0].name).sqlite")
            try MigrationManager(sourceModel: model, destinationModel: model)
                .migrateStore(from: url, mapping: MappingModel(entityMappings: order), toDestinationURL: destination)
            let migrated = try context(model, at: destination)
            XCTAssertEqual(try playlists(migrated), expectedPlaylists, "mappings run in the order \(order.map(\.name))")
            XCTAssertEqual(try songs(migrated), expectedSongs, "mappings run in the order \(order.map(\.name))")
        }
    }

    // MARK: Values

    /// Core Data's default policy sets each attribute to its value expression's value, nil
    /// included: an attribute that was nil in the source is nil in the destination, as
    /// lightweight migration leaves it, not the destination attribute's default value.
    func testANilSourceValueIsCarriedAsNilNotAsTheDefault() throws {
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Person") {
                    Attribute("name", .string)
                    Attribute("nickname", .string, default: "none")
                    Attribute("score", .integer32, default: Int32(10))
                    if version == 2 { Attribute("email", .string) }
                }
            }
        }
        let version1 = model(1), version2 = model(2)
        try makeStore(version1, at: url) { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            ann.setValue(nil, forKey: "nickname")
            ann.setValue(nil, forKey: "score")
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
        try MigrationManager(sourceModel: version1, destinationModel: version2).migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)
        let heavy = try XCTUnwrap(try fetch("Person", in: try context(version2, at: migratedURL)).first)
        XCTAssertNil(heavy.value(forKey: "nickname"), "nil in the source")
        XCTAssertNil(heavy.value(forKey: "score"), "nil in the source")
        // What lightweight migration of the same store gives.
        let light = try XCTUnwrap(try fetch("Person", in: try open(version2)).first)
        XCTAssertNil(light.value(forKey: "nickname"))
        XCTAssertNil(light.value(forKey: "score"))
    }

    private static let reversingTransformer = "MappingModelReviewReversing"

    /// Every storable kind of value goes through a default policy unchanged (`$source.key`),
    /// binary data kept in files beside the store included, between every pair of store types;
    /// and the source store is only read: every file it had is byte for byte as it was, and no
    /// file is added beside it (but the -wal and -shm files SQLite makes for any reader).
    /// (Passes: guards values and the source.)
    func testEveryKindOfValueIsCarriedBetweenStoreTypesAndTheSourceIsOnlyRead() throws {
        AttributeValueTransformer.setValueTransformer(AttributeValueTransformer(
            transform: { Data(($0 as! String).utf8.reversed()) },
            reverseTransform: { String(decoding: $0.reversed(), as: UTF8.self) }
        ), forName: Self.reversingTransformer)
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Record") {
                    Attribute("name", .string)
                    Attribute("small", .integer16)
                    Attribute("large", .integer64)
                    Attribute("exact", .decimal)
                    Attribute("real", .double)
                    Attribute("single", .float)
                    Attribute("flag", .boolean)
                    Attribute("when", .date)
                    Attribute("bytes", .binaryData)
                    Attribute("blob", .binaryData).allowsExternalStorage()
                    Attribute("id", .uuid)
                    Attribute("link", .uri)
                    Attribute("info", .transformable).transformed(by: Self.reversingTransformer)
                    Attribute("archived", .transformable).transformed(by: "NSSecureUnarchiveFromData")
                    if version == 2 { Attribute("note", .string) }
                }
            }
        }
        let version1 = model(1), version2 = model(2)
        let values: [String: Any] = [
            "name": "rec", "small": Int16(7), "large": Int64.max, "exact": Decimal(string: "12345678901234567890.123456789")!,
            "real": 0.1, "single": Float(2.5), "flag": true, "when": Date(timeIntervalSinceReferenceDate: 123_456.789),
            "bytes": Data([0, 1, 255]), "blob": Data((0..<(150 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }), "id": UUID(),
            "link": URL(string: "https://example.org/a?b=c")!, "info": "hello", "archived": ["one", "two"],
        ]
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
        for sourceType in [StoreType.sqlite, .xml, .binary] {
            let folder = directory.url.appendingPathComponent("in-\(sourceType.rawValue)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let source = folder.appendingPathComponent("records.store")
            try makeStore(version1, at: source, type: sourceType) { insert("Record", values, in: $0) }
            let before = try contents(of: folder)
            for destinationType in [StoreType.sqlite, .xml, .binary] {
                let label = "\(sourceType) to \(destinationType)"
                let destination = directory.url.appendingPathComponent("out-\(sourceType.rawValue)-\(destinationType.rawValue).store")
                do {
                    try MigrationManager(sourceModel: version1, destinationModel: version2)
                        .migrateStore(from: source, type: sourceType, mapping: mapping, toDestinationURL: destination, destinationType: destinationType)
                } catch {
                    XCTFail("\(label): \(error)")
                    continue
                }
                let record = try XCTUnwrap(try fetch("Record", in: try context(version2, at: destination, type: destinationType)).first, label)
                for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                    XCTAssertEqual(record.value(forKey: key).map { "\($0)" }, "\(value)", "\(label): \(key)")
                }
            }
            let after = try contents(of: folder)
            XCTAssertEqual(after.keys.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted(), before.keys.sorted(),
                           "\(sourceType): the files beside the source")
            for (name, bytes) in before.sorted(by: { $0.key < $1.key }) {
                XCTAssertTrue(after[name] == bytes, "\(sourceType): \(name) changed")
            }
        }
    }

    /// Value expressions with arithmetic give numbers as NSExpression does (`*` and `/` give
    /// doubles); Core Data stores any NSNumber in an integer attribute, so `$source.price * 100`
    /// fills an Integer 64 `cents` and `$source.count / 2` an Integer 32. Here the double stays
    /// a double and the save refuses it, failing the whole migration.
    func testArithmeticValueExpressionsFillIntegerAttributes() throws {
        let version1 = ManagedObjectModel {
            Entity("Item") {
                Attribute("name", .string)
                Attribute("price", .double)
                Attribute("count", .integer16)
            }
        }
        let version2 = ManagedObjectModel {
            Entity("Item") {
                Attribute("name", .string)
                Attribute("cents", .integer64)
                Attribute("half", .integer32)
                Attribute("next", .integer16)
            }
        }
        try makeStore(version1, at: url) { context in
            insert("Item", ["name": "tea", "price": 19.5, "count": Int16(8)], in: context)
        }
        let mapping = MappingModel(entityMappings: [
            EntityMapping(name: "ItemToItem", mappingType: .transform, sourceEntityName: "Item", destinationEntityName: "Item",
                          attributeMappings: [
                              PropertyMapping(name: "name", sourceName: "name"),
                              PropertyMapping(name: "cents", valueExpression: try Expression(format: "$source.price * 100")),
                              PropertyMapping(name: "half", valueExpression: try Expression(format: "$source.count / 2")),
                              PropertyMapping(name: "next", valueExpression: try Expression(format: "$source.count + 1")),
                          ], relationshipMappings: []),
        ])
        XCTAssertNoThrow(try MigrationManager(sourceModel: version1, destinationModel: version2)
            .migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL))
        guard FileManager.default.fileExists(atPath: migratedURL.path) else { return XCTFail("no migrated store") }
        let item = try XCTUnwrap(try fetch("Item", in: try context(version2, at: migratedURL)).first)
        XCTAssertEqual(item.value(forKey: "cents") as? Int64, 1950)
        XCTAssertEqual(item.value(forKey: "half") as? Int32, 4)
        XCTAssertEqual(item.value(forKey: "next") as? Int16, 9)
    }

    // MARK: Policies

    /// A policy that merges duplicates associates several source objects with one destination
    /// object. Core Data's manager keeps the association both ways: the merged object is one
    /// of the mapping's destination instances (once), its relationships are created once, and
    /// `sourceInstances(forEntityMappingName:destinationInstances:)` answers every source it was
    /// made from. Here the merged tag is listed once per source, has its relationships set once
    /// per source, and knows only its last source.
    func testAnObjectMergedFromSeveralSourcesIsOneDestinationWithAllItsSources() throws {
        let model = ManagedObjectModel {
            Entity("Note") {
                Attribute("title", .string)
                Relationship("tags", to: "Tag", inverse: "notes", toMany: true)
            }
            Entity("Tag") {
                Attribute("name", .string)
                Relationship("notes", to: "Note", inverse: "tags", toMany: true)
            }
        }
        try makeStore(model, at: url) { context in
            for (title, tag) in [("one", "swift"), ("two", "swift"), ("three", "objc")] {
                let made = insert("Tag", ["name": tag], in: context)
                insert("Note", ["title": title, "tags": Set([made])], in: context)
            }
        }
        var mapping = try MappingModel.inferredMappingModel(forSourceModel: model, destinationModel: model)
        let index = try XCTUnwrap(mapping.entityMappings.firstIndex { $0.name == "TagToTag" })
        mapping.entityMappings[index].entityMigrationPolicyClassName = String(reflecting: MappingReviewMergingTagPolicy.self)
        let manager = MigrationManager(sourceModel: model, destinationModel: model)
        try manager.migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)
        let log = manager.userInfo["log"] as? [String] ?? []
        XCTAssertEqual(log.filter { $0.hasPrefix("relationships of") }.sorted(), ["relationships of objc", "relationships of swift"],
                       "createRelationships once per destination object: \(log)")
        XCTAssertEqual(log.first { $0.hasPrefix("made") }.map { $0.split(separator: " ").dropFirst().sorted() }, ["objc", "swift"],
                       "each destination object once: \(log)")
        XCTAssertTrue(log.contains("swift from 2"), "the merged tag was made from both sources: \(log)")
        let tags = try fetch("Tag", in: try context(model, at: migratedURL))
        XCTAssertEqual(tags.map { $0.value(forKey: "name") as? String }, ["objc", "swift"])
    }

    // MARK: Stores

    /// A store added with a mapping model (and automatic migration) that holds binary data in
    /// files beside it (`allowsExternalBinaryDataStorage`) keeps its values: the migrated store
    /// that takes the original's place must come with the files its rows refer to.
    func testAStoreMigratedInPlaceWithAMappingModelKeepsItsExternalBinaryData() throws {
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Photo") {
                    Attribute("name", .string)
                    Attribute("image", .binaryData).allowsExternalStorage()
                    if version == 2 { Attribute("caption", .string) }
                }
            }
        }
        let version1 = model(1), version2 = model(2)
        let images = (1...2).map { seed in Data((0..<(150 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* seed &+ seed) }) }
        try makeStore(version1, at: url) { context in
            for (index, image) in images.enumerated() { insert("Photo", ["name": "p\(index)", "image": image], in: context) }
        }
        XCTAssertTrue(try FileManager.default.subpathsOfDirectory(atPath: directory.url.path).contains { $0.contains("_EXTERNAL_DATA/") },
                      "the images are in files beside the store")
        var options = Self.migrating
        options[MigrationManager.mappingModelsOption] = [try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)]
        let migrated = try context(version2, at: url, options: options)
        XCTAssertEqual(try fetch("Photo", in: migrated).map { $0.value(forKey: "image") as? Data }, images)
        contexts = []
        XCTAssertEqual(try fetch("Photo", in: try context(version2, at: url)).map { $0.value(forKey: "image") as? Data }, images,
                       "opened again")
    }

    /// Migrated objects that break a uniqueness constraint of the destination model stop the
    /// migration with an error that says where: the entity mapping, the entity, the constrained
    /// property and the value the objects share; no destination store is left.
    func testObjectsBreakingAUniquenessConstraintStopTheMigrationSayingWhere() throws {
        func model(_ version: Int) -> ManagedObjectModel {
            ManagedObjectModel {
                Entity("Person") {
                    Attribute("name", .string)
                    Attribute("email", .string)
                    if version == 2 { Unique("email") }
                }
            }
        }
        let version1 = model(1), version2 = model(2)
        try makeStore(version1, at: url) { context in
            insert("Person", ["name": "Ann", "email": "ann@example.org"], in: context)
            insert("Person", ["name": "Anne", "email": "ann@example.org"], in: context)
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
        XCTAssertThrowsError(try MigrationManager(sourceModel: version1, destinationModel: version2)
            .migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)) { error in
            for part in ["PersonToPerson", "Person", "email", "ann@example.org"] {
                XCTAssertTrue("\(error)".contains(part), "\(part): \(error)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: migratedURL.path))
    }

    /// With several mapping models in the store's options, the one whose source model the store
    /// was made with is used (not another, not an inferred mapping); a store already at the
    /// coordinator's model is not migrated again when it is added with the same options.
    /// (Passes: guards the choice of mapping.)
    func testAutomaticMigrationUsesOnlyTheMatchingMappingAndOnlyOnce() throws {
        let v3 = try Self.moody(3), v4 = try Self.moody(4), v5 = try Self.moody(5)
        try makeStore(v4, at: url) { context in
            let europe = insert("Continent", ["numericISO3166Code": Int16(150), "updatedAt": Date()], in: context)
            let germany = insert("Country", ["numericISO3166Code": Int16(276), "updatedAt": Date(), "continent": europe], in: context)
            insert("Mood", ["date": Date(), "rating": Int16(3), "country": germany, "continent": europe, "creatorID": "c"], in: context)
        }
        var threeToFour = try MappingModel(contentsOf: Self.moodyMappings.appendingPathComponent("Moody_3-Moody_4.xcmappingmodel"),
                                           sourceModel: v3, destinationModel: v4)
        for index in threeToFour.entityMappings.indices { threeToFour.entityMappings[index].entityMigrationPolicyClassName = "Nowhere.Policy" }
        let fourToFive = try MappingModel(contentsOf: Self.moodyMappings.appendingPathComponent("Moody_4-Moody_5.xcmappingmodel"),
                                          sourceModel: v4, destinationModel: v5)
        var options = Self.migrating
        options[MigrationManager.mappingModelsOption] = [threeToFour, fourToFive]
        let migrated = try context(v5, at: url, options: options)
        // Only the 4 to 5 mapping carries the continent's code into the country.
        XCTAssertEqual(try fetch("Country", in: migrated, sortedBy: "numericISO3166Code").map { $0.value(forKey: "isoContinent") as? Int16 }, [150])
        let identifier = try XCTUnwrap(migrated.persistentStoreCoordinator?.persistentStores.first?.identifier)
        contexts = []
        let again = try context(v5, at: url, options: options)
        XCTAssertEqual(again.persistentStoreCoordinator?.persistentStores.first?.identifier, identifier, "not migrated again")
        XCTAssertEqual(try fetch("Country", in: again, sortedBy: "numericISO3166Code").map { $0.value(forKey: "isoContinent") as? Int16 }, [150])
    }

    // MARK: Expressions

    /// A relationship's value expression naming an entity mapping the mapping model lacks (a
    /// typo, a mapping renamed) is an error naming the entity mapping and the property, as Core
    /// Data's manager raises for an unknown mapping name; here every relationship is silently
    /// left empty.
    func testAnExpressionNamingAnUnknownEntityMappingIsAnError() throws {
        let model = ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
            }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "tasks")
            }
        }
        try makeStore(model, at: url) { context in
            let ann = insert("Person", ["name": "Ann"], in: context)
            insert("Task", ["title": "write", "owner": ann], in: context)
        }
        let owner = try Expression(format: #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PeopleToPeople", $source.owner)"#)
        let mapping = MappingModel(entityMappings: [
            EntityMapping(name: "PersonToPerson", mappingType: .transform, sourceEntityName: "Person", destinationEntityName: "Person",
                          attributeMappings: [PropertyMapping(name: "name", sourceName: "name")], relationshipMappings: []),
            EntityMapping(name: "TaskToTask", mappingType: .transform, sourceEntityName: "Task", destinationEntityName: "Task",
                          attributeMappings: [PropertyMapping(name: "title", sourceName: "title")],
                          relationshipMappings: [PropertyMapping(name: "owner", valueExpression: owner)]),
        ])
        XCTAssertThrowsError(try MigrationManager(sourceModel: model, destinationModel: model)
            .migrateStore(from: url, mapping: mapping, toDestinationURL: migratedURL)) { error in
            XCTAssertTrue("\(error)".contains("TaskToTask"), "\(error)")
            XCTAssertTrue("\(error)".contains("owner"), "\(error)")
            XCTAssertTrue("\(error)".contains("PeopleToPeople"), "\(error)")
        }
    }

    /// A source key path in a mapping model file that names a property its entity lacks
    /// (`$source.country.kontinent`) is refused when the file is read (the reader has both
    /// models), naming the file and line. Here the file reads; only the first key of a path is
    /// checked, when the migration starts, and an unknown key further on answers nil, so the
    /// relationship is silently left empty (Core Data's key-value coding raises on it).
    func testAMappingFileWhoseSourceKeyPathNamesNoPropertyIsRefusedWithItsLine() throws {
        let source = try Self.moody(2), destination = try Self.moody(3)
        let original = try String(contentsOf: Self.moodyMappings.appendingPathComponent("Moody_2-Moody_3.xcmappingmodel/xcmapping.xml"), encoding: .utf8)
        let needle = "<attribute name=\"sourcekeypath\" type=\"string\">$source.country.continent</attribute>"
        let line = try XCTUnwrap(original.components(separatedBy: "\n").firstIndex { $0.contains(needle) }) + 1
        let broken = original.replacingOccurrences(of: needle, with: needle.replacingOccurrences(of: "continent<", with: "kontinent<"))
        let file = try directory.write(broken, to: "Broken.xcmappingmodel/xcmapping.xml")
        XCTAssertThrowsError(try MappingModel(contentsOf: file.deletingLastPathComponent(), sourceModel: source, destinationModel: destination)) { error in
            XCTAssertTrue("\(error)".contains("xcmapping.xml:\(line)"), "\(error)")
            XCTAssertTrue("\(error)".contains("kontinent"), "\(error)")
        }
    }
}
