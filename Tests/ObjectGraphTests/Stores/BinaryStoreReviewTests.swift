// Review of the binary store (Core Data's NSBinaryStoreType), as a demanding Core Data user would
// use it: edge values of every attribute type, inheritance and every kind of relationship read
// back in a fresh coordinator, delete rules, derived values and constraints on rows read from the
// file, several contexts, coordinators and stores on one file, the coordinator's store operations
// with the `.binary` type, metadata, and files that are damaged, foreign or odd. Tests that fail
// show where the store differs from Core Data's, or from what a user can expect of a store: a file
// it wrote always opens again, and no save silently loses data.
import Foundation
import XCTest
@testable import ObjectGraph

final class BinaryStoreReviewTests: BinaryStoreTestCase {
    // MARK: Models

    static let jsonListTransformerName = "BinaryStoreReviewJSONList"

    /// Attributes of every type, each with edges worth probing.
    static let valuesModel = ManagedObjectModel {
        Entity("Value") {
            Attribute("label", .string)
            Attribute("text", .string)
            Attribute("real", .double)
            Attribute("single", .float)
            Attribute("large", .integer64)
            Attribute("medium", .integer32)
            Attribute("small", .integer16)
            Attribute("exact", .decimal)
            Attribute("when", .date)
            Attribute("flag", .boolean)
            Attribute("bytes", .binaryData)
            Attribute("big", .binaryData).allowsExternalStorage()
            Attribute("identifier", .uuid)
            Attribute("link", .uri)
            Attribute("pointer", .objectID)
            Attribute("listed", .transformable).transformed(by: BinaryStoreReviewTests.jsonListTransformerName)
            Attribute("archived", .transformable).transformed(by: "NSSecureUnarchiveFromData")
            Attribute("plain", .transformable)
        }
    }

    /// An abstract parent with sub-entities (one two levels down), a concrete parent with a
    /// sub-entity, ordered relationships to parents, one-way relationships, delete rules of every
    /// kind and derived attributes.
    static let graphModel = ManagedObjectModel {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("folderCount", .integer64).derived(from: "folders.@count")
            Relationship("folders", to: "Folder", inverse: "owner", toMany: true, deleteRule: .deny)
            // One-way (no inverse), to the abstract parent.
            Relationship("favorite", to: "Item")
            Relationship("watchlist", to: "Item", toMany: true, ordered: true)
        }
        Entity("Folder") {
            Attribute("name", .string)
            Attribute("itemCount", .integer64).derived(from: "items.@count")
            Relationship("owner", to: "Person", inverse: "folders")
            Relationship("items", to: "Item", inverse: "folder", toMany: true, ordered: true, deleteRule: .cascade)
        }
        Entity("Item", abstract: true) {
            Attribute("name", .string)
            Attribute("folderName", .string).derived(from: "folder.name")
            Relationship("folder", to: "Folder", inverse: "items")
        }
        Entity("Note", parent: "Item") {
            Attribute("body", .string)
            Relationship("attachments", to: "Photo", inverse: "note", toMany: true, deleteRule: .cascade)
        }
        Entity("Photo", parent: "Item") {
            Attribute("pixels", .binaryData)
            Relationship("note", to: "Note", inverse: "attachments")
        }
        Entity("Album", parent: "Photo") {
            Attribute("title", .string)
        }
        Entity("Vehicle") {
            Attribute("serial", .string)
            Relationship("garage", to: "Garage", inverse: "vehicles")
            Unique("serial")
        }
        Entity("Car", parent: "Vehicle") {
            Attribute("seats", .integer16)
        }
        Entity("Truck", parent: "Vehicle") {
            Attribute("load", .double)
        }
        Entity("Garage") {
            Attribute("name", .string)
            Relationship("vehicles", to: "Vehicle", inverse: "garage", toMany: true, ordered: true)
        }
    }

    /// A relationship that is its own inverse, a tree of mentors, and an ordered many-to-many.
    static let socialModel = ManagedObjectModel {
        Entity("Person") {
            Attribute("name", .string)
            Relationship("friends", to: "Person", inverse: "friends", toMany: true)
            Relationship("mentor", to: "Person", inverse: "mentees")
            Relationship("mentees", to: "Person", inverse: "mentor", toMany: true, ordered: true)
        }
        Entity("Playlist") {
            Attribute("name", .string)
            Relationship("songs", to: "Song", inverse: "playlists", toMany: true, ordered: true)
        }
        Entity("Song") {
            Attribute("name", .string)
            Relationship("playlists", to: "Playlist", inverse: "songs", toMany: true, ordered: true)
        }
    }

    /// Drafts kept in the binary store, labels (unique) in a SQLite store.
    static let splitModel = ManagedObjectModel {
        Entity("Draft") { Attribute("title", .string) }
        Entity("Label") {
            Attribute("name", .string)
            Unique("name")
        }
        Configuration("Local", entities: ["Draft"])
        Configuration("Shared", entities: ["Label"])
    }

    /// Tags, in the first version of a model.
    static let tagModel = ManagedObjectModel {
        Entity("Tag") { Attribute("name", .string) }
    }

    /// The environment variables the subprocess of the crash test reads.
    private static let crashFileVariable = "OBJECTGRAPH_BINARY_REVIEW_FILE"
    private static let crashCaseVariable = "OBJECTGRAPH_BINARY_REVIEW_CASE"

    override func setUpWithError() throws {
        try super.setUpWithError()
        AttributeValueTransformer.setValueTransformer(AttributeValueTransformer(
            transform: { value in try JSONEncoder().encode(value as? [String] ?? []) },
            reverseTransform: { data in try JSONDecoder().decode([String].self, from: data) }
        ), forName: Self.jsonListTransformerName)
    }

    // MARK: Helpers

    /// The base class's context on a new coordinator, kept for the test's life (objects do not
    /// keep their context alive, and tests read objects of contexts they made inline).
    override func open(_ model: ManagedObjectModel, at url: URL? = nil, options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        let context = try super.open(model, at: url, options: options)
        keptContexts.append(context)
        return context
    }

    private func context(on coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        keptContexts.append(context)
        return context
    }

    /// The objects of `entity` by their value for `key`.
    private func byKey(_ entity: String, _ context: ManagedObjectContext, key: String = "label") throws -> [String: ManagedObject] {
        Dictionary(try fetch(entity, context, sortedBy: key).map { ($0.value(forKey: key) as? String ?? "", $0) },
                   uniquingKeysWith: { first, _ in first })
    }

    /// The names of `objects` (ordered relationships in order, sets sorted).
    private func names(_ objects: Any?, key: String = "name") -> [String] {
        let list: [ManagedObject]
        switch objects {
        case let ordered as OrderedSet<ManagedObject>: list = ordered.elements
        case let set as Set<ManagedObject>:
            list = set.sorted { ($0.value(forKey: key) as? String ?? "") < ($1.value(forKey: key) as? String ?? "") }
        case let array as [ManagedObject]: list = array
        default: list = []
        }
        return list.map { $0.value(forKey: key) as? String ?? "?" }
    }

    private func filesBesideTheStore() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    @discardableResult
    private func insert(_ entity: String, _ values: [String: Any], into context: ManagedObjectContext) -> ManagedObject {
        let object = context.insertNewObject(forEntityName: entity)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    // MARK: Values

    /// Every attribute type's edge values read back exactly in a fresh coordinator: integers at
    /// their limits and zero (not nil), -0.0, subnormals, infinities and the largest finite
    /// doubles and floats bit for bit, dates far off and fractional, decimals at their limits,
    /// strings with NUL, decomposed accents (not normalized), a BOM, U+10FFFF and five megabytes,
    /// UUIDs of all zeros and all ones, and URIs of several schemes.
    func testEdgeValuesOfEveryAttributeTypeReadBackBitForBit() throws {
        let doubles: [String: Double] = [
            "-0": -0.0, "subnormal": .leastNonzeroMagnitude, "normal": .leastNormalMagnitude,
            "max": .greatestFiniteMagnitude, "-inf": -.infinity, "third": 1.0 / 3.0,
        ]
        let floats: [String: Float] = [
            "-0": -0.0, "subnormal": .leastNonzeroMagnitude, "max": .greatestFiniteMagnitude, "-inf": -.infinity, "third": 1 / 3,
        ]
        let dates: [String: Date] = [
            "-0": .distantPast, "max": .distantFuture, "subnormal": Date(timeIntervalSinceReferenceDate: -0.000_123),
            "third": Date(timeIntervalSinceReferenceDate: 1e12 + 0.5), "normal": Date(timeIntervalSince1970: 0),
        ]
        let decimals: [String: Decimal] = [
            "max": .greatestFiniteMagnitude, "-inf": .leastFiniteMagnitude, "subnormal": .leastNonzeroMagnitude,
            "third": Decimal(string: "-12345678901234567890.123456789")!, "-0": Decimal(string: "-0.000000000000000000000000000001")!,
        ]
        let strings: [String: String] = [
            "empty": "", "nul": "\u{0}", "nuls": "a\u{0}b\u{0}", "decomposed": "e\u{301}", "composed": "\u{E9}",
            "bom": "\u{FEFF}bom", "last": "\u{10FFFF}", "crlf": "a\r\nb\r", "huge": String(repeating: "0123456789abcdé", count: 350_000),
        ]
        let links: [String: URL] = [
            "file": URL(fileURLWithPath: "/tmp/a b/ü #1.txt"), "mail": URL(string: "mailto:ada@example.com")!,
            "urn": URL(string: "urn:isbn:0451450523")!, "web": URL(string: "https://example.com/p%20q?x=1&y=%26#frag")!,
        ]
        let writer = try open(Self.valuesModel)
        for label in Set(doubles.keys).union(floats.keys).union(dates.keys).union(decimals.keys) {
            let value = insert("Value", ["label": label], into: writer)
            if let double = doubles[label] { value.setValue(double, forKey: "real") }
            if let float = floats[label] { value.setValue(float, forKey: "single") }
            if let date = dates[label] { value.setValue(date, forKey: "when") }
            if let decimal = decimals[label] { value.setValue(decimal, forKey: "exact") }
        }
        for (label, text) in strings { insert("Value", ["label": "string \(label)", "text": text], into: writer) }
        for (label, link) in links { insert("Value", ["label": "link \(label)", "link": link], into: writer) }
        insert("Value", ["label": "min", "large": Int64.min, "medium": Int32.min, "small": Int16.min, "flag": false,
                         "identifier": UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))], into: writer)
        insert("Value", ["label": "maxint", "large": Int64.max, "medium": Int32.max, "small": Int16.max, "flag": true,
                         "identifier": UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")!], into: writer)
        insert("Value", ["label": "zero", "large": Int64(0), "medium": Int32(0), "small": Int16(0), "real": 0.0, "exact": Decimal(0)], into: writer)
        insert("Value", ["label": "nil"], into: writer)
        try writer.save()

        let reader = try open(Self.valuesModel)
        let read = try byKey("Value", reader)
        for (label, double) in doubles {
            XCTAssertEqual((read[label]?.value(forKey: "real") as? Double)?.bitPattern, double.bitPattern, "double \(label)")
        }
        for (label, float) in floats {
            XCTAssertEqual((read[label]?.value(forKey: "single") as? Float)?.bitPattern, float.bitPattern, "float \(label)")
        }
        for (label, date) in dates {
            XCTAssertEqual((read[label]?.value(forKey: "when") as? Date)?.timeIntervalSinceReferenceDate.bitPattern,
                           date.timeIntervalSinceReferenceDate.bitPattern, "date \(label)")
        }
        for (label, decimal) in decimals {
            XCTAssertEqual(read[label]?.value(forKey: "exact") as? Decimal, decimal, "decimal \(label)")
        }
        for (label, text) in strings {
            let back = read["string \(label)"]?.value(forKey: "text") as? String
            XCTAssertEqual(back.map { Array($0.utf8) }, Array(text.utf8), "string \(label), byte for byte")
        }
        for (label, link) in links {
            XCTAssertEqual((read["link \(label)"]?.value(forKey: "link") as? URL)?.absoluteString, link.absoluteString, "link \(label)")
        }
        XCTAssertEqual(read["min"]?.value(forKey: "large") as? Int64, Int64.min)
        XCTAssertEqual(read["min"]?.value(forKey: "medium") as? Int32, Int32.min)
        XCTAssertEqual(read["min"]?.value(forKey: "small") as? Int16, Int16.min)
        XCTAssertEqual(read["min"]?.value(forKey: "flag") as? Bool, false)
        XCTAssertEqual(read["min"]?.value(forKey: "identifier") as? UUID, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        XCTAssertEqual(read["maxint"]?.value(forKey: "large") as? Int64, Int64.max)
        XCTAssertEqual(read["maxint"]?.value(forKey: "medium") as? Int32, Int32.max)
        XCTAssertEqual(read["maxint"]?.value(forKey: "small") as? Int16, Int16.max)
        XCTAssertEqual(read["maxint"]?.value(forKey: "flag") as? Bool, true)
        XCTAssertEqual(read["maxint"]?.value(forKey: "identifier") as? UUID, UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"))
        XCTAssertEqual(read["zero"]?.value(forKey: "large") as? Int64, 0, "zero is not nil")
        XCTAssertEqual(read["zero"]?.value(forKey: "small") as? Int16, 0)
        XCTAssertEqual(read["zero"]?.value(forKey: "exact") as? Decimal, 0)
        for key in ["text", "real", "single", "large", "small", "exact", "when", "flag", "bytes", "identifier", "link", "pointer", "plain"] {
            XCTAssertNil(read["nil"]?.value(forKey: key), "nil \(key) stays nil")
        }
        XCTAssertEqual(read["string empty"]?.value(forKey: "text") as? String, "", "an empty string is not nil")
    }

    /// Binary data of ten megabytes, inline and in an attribute that allows external storage
    /// (which an atomic store keeps inside its file: nothing appears beside it), data that starts
    /// with the bytes the SQLite store uses to tag external data, and empty data (not nil).
    func testTenMegabyteAndTagLookingBinaryValuesReadBackWithNothingBesideTheFile() throws {
        let tenMegabytes = Data((0..<10_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        let tagged: [String: Data] = [
            "inline tag": Data([0x01, 0x01, 0x02]), "file tag": Data([0x02]) + Data("store.binary".utf8) + Data([0]),
            "empty": Data(), "one": Data([0x01]), "two": Data([0x02]),
        ]
        let writer = try open(Self.valuesModel)
        insert("Value", ["label": "ten", "bytes": tenMegabytes, "big": tenMegabytes], into: writer)
        for (label, data) in tagged { insert("Value", ["label": label, "bytes": data, "big": data], into: writer) }
        try writer.save()
        XCTAssertEqual(try filesBesideTheStore(), ["store.binary"])

        let reader = try open(Self.valuesModel)
        let read = try byKey("Value", reader)
        XCTAssertEqual((read["ten"]?.value(forKey: "bytes") as? Data) == tenMegabytes, true, "ten megabytes inline")
        XCTAssertEqual((read["ten"]?.value(forKey: "big") as? Data) == tenMegabytes, true, "ten megabytes allowing external storage")
        for (label, data) in tagged {
            XCTAssertEqual(read[label]?.value(forKey: "bytes") as? Data, data, "inline \(label)")
            XCTAssertEqual(read[label]?.value(forKey: "big") as? Data, data, "external-storage \(label)")
        }
        // A second save (a small change) rewrites the file whole; the values are still there.
        read["one"]?.setValue("changed", forKey: "text")
        try reader.save()
        let again = try byKey("Value", try open(Self.valuesModel))
        XCTAssertEqual((again["ten"]?.value(forKey: "big") as? Data)?.count, tenMegabytes.count)
        XCTAssertEqual(again["one"]?.value(forKey: "big") as? Data, Data([0x01]))
    }

    /// Transformable values: through a registered transformer, through Core Data's default
    /// NSSecureUnarchiveFromData, and without a transformer (Strings and Data as they are). A
    /// value no transformer can store fails the save naming the attribute, and changes neither
    /// the file nor the rows.
    func testTransformableValuesReadBackAndAnUnstorableOneFailsTheSaveAlone() throws {
        let writer = try open(Self.valuesModel)
        insert("Value", ["label": "all", "listed": ["red", "", "ü\u{0}"], "archived": ["one", "two"], "plain": "text\r\n"], into: writer)
        insert("Value", ["label": "data", "archived": ["a": 1, "b": 2] as [String: Int], "plain": Data([0, 255])], into: writer)
        try writer.save()
        let before = try fileData()

        let read = try byKey("Value", try open(Self.valuesModel))
        XCTAssertEqual(read["all"]?.value(forKey: "listed") as? [String], ["red", "", "ü\u{0}"])
        XCTAssertEqual(read["all"]?.value(forKey: "archived") as? [String], ["one", "two"])
        XCTAssertEqual(read["all"]?.value(forKey: "plain") as? String, "text\r\n")
        XCTAssertEqual(read["data"]?.value(forKey: "archived") as? [String: Int], ["a": 1, "b": 2])
        XCTAssertEqual(read["data"]?.value(forKey: "plain") as? Data, Data([0, 255]))

        let context = try open(Self.valuesModel)
        let value = try XCTUnwrap(try byKey("Value", context)["all"])
        value.setValue(["not", "text"], forKey: "plain")
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertTrue("\(error)".contains("plain"), "\(error)")
        }
        XCTAssertEqual(try fileData(), before, "the file is as before")
        XCTAssertEqual(try filesBesideTheStore(), ["store.binary"], "no temporary file is left")
        XCTAssertEqual(try byKey("Value", self.context(on: try XCTUnwrap(context.persistentStoreCoordinator)))["all"]?.value(forKey: "plain") as? String,
                       "text\r\n", "the rows are as before")
    }

    // MARK: Relationships

    /// Sub-entities of an abstract parent (one two levels down) and of a concrete parent read
    /// back as their own entities: fetched through the parent with and without sub-entities, in
    /// an ordered relationship to the parent in order, with their own attributes.
    func testSubEntitiesOfAbstractAndConcreteParentsReadBackAsThemselves() throws {
        let writer = try open(Self.graphModel)
        let folder = insert("Folder", ["name": "docs"], into: writer)
        let note = insert("Note", ["name": "n", "body": "text"], into: writer)
        let photo = insert("Photo", ["name": "p", "pixels": Data([1, 2, 3])], into: writer)
        let album = insert("Album", ["name": "a", "title": "Summer", "pixels": Data([9])], into: writer)
        folder.setValue([album, note, photo], forKey: "items")
        let garage = insert("Garage", ["name": "home"], into: writer)
        let plain = insert("Vehicle", ["serial": "V1"], into: writer)
        let car = insert("Car", ["serial": "C1", "seats": Int16(5)], into: writer)
        let truck = insert("Truck", ["serial": "T1", "load": 7.5], into: writer)
        garage.setValue([truck, plain, car], forKey: "vehicles")
        try writer.save()

        let reader = try open(Self.graphModel)
        XCTAssertEqual(try fetch("Item", reader).map(\.entity.name), ["Album", "Note", "Photo"])
        XCTAssertEqual(try fetch("Photo", reader).map(\.entity.name), ["Album", "Photo"])
        var onlyPhotos = FetchRequest<ManagedObject>(entityName: "Photo")
        onlyPhotos.includesSubentities = false
        XCTAssertEqual(try reader.fetch(onlyPhotos).map { $0.value(forKey: "name") as? String }, ["p"])
        XCTAssertEqual(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Vehicle")), 3)
        let readFolder = try XCTUnwrap(try fetch("Folder", reader).first)
        let items = (readFolder.value(forKey: "items") as? OrderedSet<ManagedObject>)?.elements ?? []
        XCTAssertEqual(items.map(\.entity.name), ["Album", "Note", "Photo"])
        XCTAssertEqual(items.first?.value(forKey: "title") as? String, "Summer")
        XCTAssertEqual(items.first?.value(forKey: "pixels") as? Data, Data([9]))
        XCTAssertEqual(items.dropFirst().first?.value(forKey: "body") as? String, "text")
        XCTAssertEqual(items.first?.value(forKey: "folderName") as? String, "docs")
        let readGarage = try XCTUnwrap(try fetch("Garage", reader).first)
        let vehicles = (readGarage.value(forKey: "vehicles") as? OrderedSet<ManagedObject>)?.elements ?? []
        XCTAssertEqual(vehicles.map(\.entity.name), ["Truck", "Vehicle", "Car"])
        XCTAssertEqual(vehicles.last?.value(forKey: "seats") as? Int16, 5)
        XCTAssertEqual(vehicles.first?.value(forKey: "load") as? Double, 7.5)
        XCTAssertTrue(vehicles.first?.value(forKey: "garage") as? ManagedObject === readGarage)
        var byTitle = FetchRequest<ManagedObject>(entityName: "Item")
        byTitle.predicate = try Predicate(format: "title == %@", "Summer")
        let albums = try reader.fetch(byTitle)
        XCTAssertEqual(albums.map(\.entity.name), ["Album"], "a sub-entity's attribute in a predicate on the parent")
    }

    /// A relationship that is its own inverse (friends), a tree of ordered mentees, and an
    /// ordered many-to-many read back with both sides in step, after changes made in a fresh
    /// context from one side only (the other side never loaded): a mentee moved to another
    /// mentor, a friend added and one removed, a playlist reordered.
    func testSelfInverseTreeAndOrderedManyToManyKeepBothSidesAfterOneSidedChanges() throws {
        do {
            let writer = try open(Self.socialModel)
            let people = ["ada", "bob", "cy", "dee"].map { insert("Person", ["name": $0], into: writer) }
            people[0].setValue(Set([people[1], people[2]]), forKey: "friends")
            people[0].setValue([people[2], people[1]], forKey: "mentees")
            let songs = ["x", "y", "z"].map { insert("Song", ["name": $0], into: writer) }
            let mix = insert("Playlist", ["name": "mix"], into: writer)
            let best = insert("Playlist", ["name": "best"], into: writer)
            mix.setValue([songs[2], songs[0], songs[1]], forKey: "songs")
            best.setValue([songs[1], songs[2]], forKey: "songs")
            try writer.save()
        }
        do {
            let reader = try open(Self.socialModel)
            let people = try byKey("Person", reader, key: "name")
            XCTAssertEqual(names(people["bob"]?.value(forKey: "friends")), ["ada"], "the inverse of a self-inverse relationship")
            XCTAssertEqual(names(people["ada"]?.value(forKey: "friends")), ["bob", "cy"])
            XCTAssertEqual(names(people["ada"]?.value(forKey: "mentees")), ["cy", "bob"])
            XCTAssertEqual((people["cy"]?.value(forKey: "mentor") as? ManagedObject)?.value(forKey: "name") as? String, "ada")
            XCTAssertEqual(names(try byKey("Song", reader, key: "name")["z"]?.value(forKey: "playlists")), ["mix", "best"])
        }
        do {
            // One side only, in a context that has not loaded the other side.
            let changer = try open(Self.socialModel)
            let people = try byKey("Person", changer, key: "name")
            people["bob"]?.setValue(people["dee"], forKey: "mentor")
            people["dee"]?.setValue(Set([try XCTUnwrap(people["bob"])]), forKey: "friends")
            people["cy"]?.setValue(Set<ManagedObject>(), forKey: "friends")
            let lists = try byKey("Playlist", changer, key: "name")
            let songs = try byKey("Song", changer, key: "name")
            lists["mix"]?.setValue([try XCTUnwrap(songs["y"]), try XCTUnwrap(songs["z"]), try XCTUnwrap(songs["x"])], forKey: "songs")
            try changer.save()
        }
        let reader = try open(Self.socialModel)
        let people = try byKey("Person", reader, key: "name")
        XCTAssertEqual(names(people["ada"]?.value(forKey: "mentees")), ["cy"], "bob left ada's mentees")
        XCTAssertEqual(names(people["dee"]?.value(forKey: "mentees")), ["bob"])
        XCTAssertEqual(names(people["ada"]?.value(forKey: "friends")), ["bob"], "cy unfriended ada on both sides")
        XCTAssertEqual(names(people["bob"]?.value(forKey: "friends")), ["ada", "dee"])
        XCTAssertEqual(names(people["cy"]?.value(forKey: "friends")), [])
        XCTAssertEqual(names(try byKey("Playlist", reader, key: "name")["mix"]?.value(forKey: "songs")), ["y", "z", "x"])
        XCTAssertEqual(names(try byKey("Song", reader, key: "name")["x"]?.value(forKey: "playlists")), ["mix"])
    }

    /// One-way relationships (no inverse, which Core Data allows) to a sub-entity object
    /// deleted in a later session, in a context that never loaded the holder: the file must open,
    /// the to-one read back nil and the ordered to-many without it, and a fetch for `favorite ==
    /// nil` find the holder.
    func testOneWayRelationshipsToAnObjectDeletedLaterReadBackWithoutIt() throws {
        do {
            let writer = try open(Self.graphModel)
            let ada = insert("Person", ["name": "Ada"], into: writer)
            let first = insert("Note", ["name": "first"], into: writer)
            let photo = insert("Album", ["name": "gone"], into: writer)
            let last = insert("Note", ["name": "last"], into: writer)
            ada.setValue(photo, forKey: "favorite")
            ada.setValue([first, photo, last], forKey: "watchlist")
            try writer.save()
        }
        do {
            let deleter = try open(Self.graphModel)
            deleter.delete(try XCTUnwrap(try fetch("Album", deleter).first))
            try deleter.save()
        }
        let reader: ManagedObjectContext
        do {
            reader = try open(Self.graphModel)
        } catch {
            return XCTFail("the store wrote a file it cannot open: \(error)")
        }
        let ada = try XCTUnwrap(try fetch("Person", reader).first)
        XCTAssertNil(ada.value(forKey: "favorite"))
        XCTAssertEqual(names(ada.value(forKey: "watchlist")), ["first", "last"])
        var noFavorite = FetchRequest<ManagedObject>(entityName: "Person")
        noFavorite.predicate = try Predicate(format: "favorite == nil")
        XCTAssertEqual(try reader.count(for: noFavorite), 1)
        XCTAssertEqual(try fetch("Item", reader).map { $0.value(forKey: "name") as? String }, ["first", "last"])
    }

    /// Delete rules and derived values on rows read from the file: a deny rule refuses (the file
    /// unchanged), a derived value follows a rename, a cascade removes two levels (folder, notes,
    /// their photos), nullify takes the deleted objects out of the lists that held them, and
    /// derived counts follow.
    func testDeleteRulesAndDerivedValuesFollowSavesAfterReopening() throws {
        do {
            let writer = try open(Self.graphModel)
            let ada = insert("Person", ["name": "Ada"], into: writer)
            let docs = insert("Folder", ["name": "docs", "owner": ada], into: writer)
            let misc = insert("Folder", ["name": "misc", "owner": ada], into: writer)
            let note = insert("Note", ["name": "n1"], into: writer)
            note.setValue(Set(["p2", "p3"].map { insert("Photo", ["name": $0], into: writer) }), forKey: "attachments")
            docs.setValue([note, insert("Photo", ["name": "p1"], into: writer)], forKey: "items")
            misc.setValue([insert("Note", ["name": "n2"], into: writer)], forKey: "items")
            try writer.save()
        }
        do {
            let reader = try open(Self.graphModel)
            let folders = try byKey("Folder", reader, key: "name")
            XCTAssertEqual(folders["docs"]?.value(forKey: "itemCount") as? Int64, 2)
            XCTAssertEqual(try fetch("Person", reader).first?.value(forKey: "folderCount") as? Int64, 2)
            let before = try fileData()
            reader.delete(try XCTUnwrap(try fetch("Person", reader).first))
            XCTAssertThrowsError(try reader.save(), "a deny rule with folders left")
            XCTAssertEqual(try fileData(), before)
            reader.rollback()
            folders["docs"]?.setValue("papers", forKey: "name")
            try reader.save()
        }
        do {
            let reader = try open(Self.graphModel)
            XCTAssertEqual(try byKey("Item", reader, key: "name")["n1"]?.value(forKey: "folderName") as? String, "papers")
            reader.delete(try XCTUnwrap(try byKey("Folder", reader, key: "name")["papers"]))
            try reader.save()
        }
        do {
            let reader = try open(Self.graphModel)
            XCTAssertEqual(try fetch("Item", reader).map { $0.value(forKey: "name") as? String }, ["n2"], "the cascade reached two levels")
            let ada = try XCTUnwrap(try fetch("Person", reader).first)
            XCTAssertEqual(names(ada.value(forKey: "folders")), ["misc"])
            XCTAssertEqual(ada.value(forKey: "folderCount") as? Int64, 1)
            reader.delete(try XCTUnwrap(try fetch("Item", reader).first))
            try reader.save()
        }
        let reader = try open(Self.graphModel)
        let misc = try XCTUnwrap(try fetch("Folder", reader).first)
        XCTAssertEqual(names(misc.value(forKey: "items")), [])
        XCTAssertEqual(misc.value(forKey: "itemCount") as? Int64, 0)
    }

    // MARK: Contexts, coordinators and stores

    /// Constraints and conflicts hold on rows read from the file. A uniqueness constraint
    /// declared on a concrete parent holds across its sub-entities: a Truck may not take a Car's
    /// serial, nor a Car a Vehicle's (the file unchanged); a save that frees a serial and takes
    /// it at once passes; with mergeByPropertyObjectTrump a duplicate updates the stored object.
    /// Two contexts of one coordinator changing one object conflict under the default policy
    /// (the file as the first save left it), then merge property by property.
    func testConstraintsAndConflictsHoldOnRowsReadFromTheFile() throws {
        do {
            let writer = try open(Self.graphModel)
            insert("Vehicle", ["serial": "V1"], into: writer)
            insert("Car", ["serial": "C1"], into: writer)
            insert("Truck", [:], into: writer)
            insert("Truck", [:], into: writer)
            insert("Person", ["name": "Ada"], into: writer)
            insert("Folder", ["name": "docs"], into: writer)
            try writer.save()
        }
        do {
            let context = try open(Self.graphModel)
            let before = try fileData()
            insert("Truck", ["serial": "C1"], into: context)
            XCTAssertThrowsError(try context.save(), "a Truck with a Car's serial")
            context.rollback()
            insert("Car", ["serial": "V1"], into: context)
            XCTAssertThrowsError(try context.save(), "a Car with a Vehicle's serial")
            XCTAssertEqual(try fileData(), before)
            context.rollback()
            let car = try XCTUnwrap(try fetch("Car", context, sortedBy: "serial").first)
            car.setValue("C2", forKey: "serial")
            insert("Truck", ["serial": "C1"], into: context)
            try context.save()
            let merging = try open(Self.graphModel)
            merging.mergePolicy = .mergeByPropertyObjectTrump
            insert("Car", ["serial": "C2", "seats": Int16(7)], into: merging)
            try merging.save()
            let reader = try open(Self.graphModel)
            XCTAssertEqual(try fetch("Vehicle", reader, sortedBy: "serial").map { "\($0.entity.name) \($0.value(forKey: "serial") as? String ?? "nil")" },
                           ["Truck nil", "Truck nil", "Truck C1", "Car C2", "Vehicle V1"])
            XCTAssertEqual(try fetch("Car", reader, sortedBy: "serial").first?.value(forKey: "seats") as? Int16, 7, "the duplicate merged into the stored Car")
        }
        let coordinator = try XCTUnwrap(try open(Self.graphModel).persistentStoreCoordinator)
        let one = context(on: coordinator), two = context(on: coordinator)
        let inOne = try XCTUnwrap(try fetch("Folder", one).first)
        let inTwo = try XCTUnwrap(try fetch("Folder", two).first)
        XCTAssertEqual(inTwo.value(forKey: "name") as? String, "docs")
        inOne.setValue("papers", forKey: "name")
        try one.save()
        let afterOne = try fileData()
        inTwo.setValue(try XCTUnwrap(try fetch("Person", two).first), forKey: "owner")
        XCTAssertThrowsError(try two.save(), "an optimistic locking conflict")
        XCTAssertEqual(try fileData(), afterOne)
        two.mergePolicy = .mergeByPropertyObjectTrump
        try two.save()

        let reader = try open(Self.graphModel)
        let folder = try XCTUnwrap(try fetch("Folder", reader).first)
        XCTAssertEqual(folder.value(forKey: "name") as? String, "papers", "the first save's change is kept")
        XCTAssertEqual((folder.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String, "Ada")
        XCTAssertEqual(try fetch("Person", reader).first?.value(forKey: "folderCount") as? Int64, 1)
    }

    /// Two coordinators (two apps, or two stacks in one) open one binary file; each saves a new
    /// object. The second save writes the whole file from what its coordinator read, so it must
    /// not silently discard the object the first coordinator saved meanwhile (nor give its own
    /// new object the same number): it either fails, leaving the file as the first save left
    /// it, or keeps both.
    func testASecondCoordinatorsSaveDoesNotSilentlyDropTheFirstsSave() throws {
        let first = try open(Self.tagModel)
        insert("Tag", ["name": "kept"], into: first)
        try first.save()
        let second = try open(Self.tagModel)
        let added = insert("Tag", ["name": "first's"], into: first)
        try first.save()
        let afterFirst = try fileData()
        let own = insert("Tag", ["name": "second's"], into: second)
        do {
            try second.save()
        } catch {
            XCTAssertEqual(try fileData(), afterFirst, "a refused save leaves the file alone")
            return
        }
        XCTAssertNotEqual(added.objectID.uriRepresentation, own.objectID.uriRepresentation,
                          "two objects saved to one file under one URI")
        let reader = try open(Self.tagModel)
        XCTAssertEqual(try fetch("Tag", reader).map { $0.value(forKey: "name") as? String }, ["first's", "kept", "second's"],
                       "the first coordinator's saved object is gone from the file")
    }

    /// Saves into a binary store and a SQLite store at once (prepared saves): when the SQLite
    /// store refuses (a duplicate label) the binary file, its rows and its directory are as
    /// before; when the binary store refuses (opened read-only) the SQLite store keeps nothing.
    func testASaveEitherStoreRefusesLeavesTheOtherAsBefore() throws {
        let sqliteURL = directory.url.appendingPathComponent("shared.sqlite")
        func stack(readOnlyBinary: Bool = false) throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.splitModel)
            try coordinator.addPersistentStore(type: .binary, configuration: "Local", at: storeURL,
                                               options: [SQLiteStore.readOnlyOption: readOnlyBinary])
            try coordinator.addPersistentStore(type: .sqlite, configuration: "Shared", at: sqliteURL)
            return self.context(on: coordinator)
        }
        let context = try stack()
        let draft = insert("Draft", ["title": "first"], into: context)
        insert("Label", ["name": "a"], into: context)
        try context.save()
        let before = try fileData()
        let filesBefore = try filesBesideTheStore()

        draft.setValue("changed", forKey: "title")
        insert("Draft", ["title": "second"], into: context)
        insert("Label", ["name": "a"], into: context)
        XCTAssertThrowsError(try context.save(), "the SQLite store refuses a duplicate")
        XCTAssertEqual(try fileData(), before)
        XCTAssertEqual(try filesBesideTheStore(), filesBefore)
        let other = self.context(on: try XCTUnwrap(context.persistentStoreCoordinator))
        XCTAssertEqual(try fetch("Draft", other, sortedBy: "title").map { $0.value(forKey: "title") as? String }, ["first"])

        let readOnly = try stack(readOnlyBinary: true)
        try XCTUnwrap(try fetch("Draft", readOnly, sortedBy: "title").first).setValue("changed", forKey: "title")
        insert("Label", ["name": "b"], into: readOnly)
        XCTAssertThrowsError(try readOnly.save()) { error in
            XCTAssertTrue("\(error)".contains("read-only"), "\(error)")
        }
        XCTAssertEqual(try fileData(), before)
        XCTAssertEqual(try fetch("Label", try stack()).map { $0.value(forKey: "name") as? String }, ["a"], "the SQLite store kept nothing")
    }

    /// Core Data does not allow relationships between objects of different stores, and the
    /// SQLite store here refuses a save that makes one ("does not belong to this store"). The
    /// binary store must not report the save done and then drop the relationship from its file:
    /// the save fails (the file as before), or the relationship reads back.
    func testARelationshipToAnObjectOfAnotherStoreIsRefusedNotSilentlyDropped() throws {
        let model = ManagedObjectModel {
            Entity("Draft") {
                Attribute("title", .string)
                Relationship("label", to: "Label")
            }
            Entity("Label") { Attribute("name", .string) }
            Configuration("Local", entities: ["Draft"])
            Configuration("Shared", entities: ["Label"])
        }
        func stack(drafts: StoreType, labels: StoreType) throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: drafts, configuration: "Local",
                                               at: directory.url.appendingPathComponent("drafts.\(drafts.rawValue)"))
            try coordinator.addPersistentStore(type: labels, configuration: "Shared",
                                               at: directory.url.appendingPathComponent("labels.\(labels.rawValue)"))
            return context(on: coordinator)
        }
        let inSQLite = try stack(drafts: .sqlite, labels: .binary)
        insert("Draft", ["title": "sqlite", "label": insert("Label", ["name": "a"], into: inSQLite)], into: inSQLite)
        XCTAssertThrowsError(try inSQLite.save(), "the SQLite store refuses a relationship to another store's object")

        let writer = try stack(drafts: .binary, labels: .sqlite)
        let draft = insert("Draft", ["title": "binary"], into: writer)
        draft.setValue(insert("Label", ["name": "b"], into: writer), forKey: "label")
        let binaryURL = directory.url.appendingPathComponent("drafts.\(StoreType.binary.rawValue)")
        do {
            try writer.save()
        } catch {
            XCTAssertFalse(FileManager.default.fileExists(atPath: binaryURL.path), "a refused save writes no file")
            return
        }
        let reader = try stack(drafts: .binary, labels: .sqlite)
        let read = try XCTUnwrap(try fetch("Draft", reader, sortedBy: "title").first)
        XCTAssertEqual((read.value(forKey: "label") as? ManagedObject)?.value(forKey: "name") as? String, "b",
                       "the save succeeded and the relationship is gone from the file")
    }

    /// Batch requests (which Core Data runs in SQLite stores only) against a binary store, alone
    /// or beside a SQLite store holding the same entity, are refused before any store changes:
    /// the file, and the SQLite store's rows, are as before.
    func testBatchRequestsAreRefusedAndChangeNeitherStore() throws {
        let context = try open(Self.tagModel)
        for name in ["a", "b"] { insert("Tag", ["name": name], into: context) }
        try context.save()
        let before = try fileData()
        let tag = try XCTUnwrap(Self.tagModel.entitiesByName["Tag"])
        XCTAssertThrowsError(try context.execute(BatchDeleteRequest(entity: tag)))
        var update = BatchUpdateRequest(entity: tag)
        update.propertiesToUpdate = ["name": try Expression(format: "'z'")]
        XCTAssertThrowsError(try context.execute(update))
        XCTAssertThrowsError(try context.execute(BatchInsertRequest(entity: tag, objects: [["name": "c"]])))
        XCTAssertEqual(try fileData(), before)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.tagModel)
        let sqliteURL = directory.url.appendingPathComponent("beside.sqlite")
        let sqlite = try coordinator.addPersistentStore(type: .sqlite, at: sqliteURL)
        try coordinator.addPersistentStore(type: .binary, at: storeURL)
        let both = self.context(on: coordinator)
        let inSQLite = insert("Tag", ["name": "in sqlite"], into: both)
        both.assign(inSQLite, to: sqlite)
        try both.save()
        XCTAssertThrowsError(try both.execute(BatchDeleteRequest(entity: tag)))
        XCTAssertEqual(try fileData(), before)
        let reopened = PersistentStoreCoordinator(managedObjectModel: Self.tagModel)
        try reopened.addPersistentStore(type: .sqlite, at: sqliteURL)
        try reopened.addPersistentStore(type: .binary, at: storeURL)
        XCTAssertEqual(try fetch("Tag", self.context(on: reopened)).map { $0.value(forKey: "name") as? String }, ["a", "b", "in sqlite"])
    }

    /// migratePersistentStore from SQLite to binary and on to another binary file keeps the
    /// graph (sub-entities, ordered lists, one-way relationships, derived values); replacing a
    /// binary store with another puts the other's objects in its place; a source that is no
    /// binary store leaves the destination alone.
    func testMigrateAndReplaceWithTheBinaryTypeKeepTheGraph() throws {
        let sqliteURL = directory.url.appendingPathComponent("start.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.graphModel)
        let original = try coordinator.addPersistentStore(type: .sqlite, at: sqliteURL)
        let context = context(on: coordinator)
        let ada = insert("Person", ["name": "Ada"], into: context)
        let folder = insert("Folder", ["name": "docs", "owner": ada], into: context)
        let album = insert("Album", ["name": "a", "title": "T"], into: context)
        let note = insert("Note", ["name": "n"], into: context)
        folder.setValue([album, note], forKey: "items")
        ada.setValue(album, forKey: "favorite")
        ada.setValue([note, album], forKey: "watchlist")
        try context.save()
        // Data the SQLite store keeps in a file beside it (external storage) moves too.
        let valuesCoordinator = PersistentStoreCoordinator(managedObjectModel: Self.valuesModel)
        let valuesSQLite = try valuesCoordinator.addPersistentStore(type: .sqlite, at: directory.url.appendingPathComponent("values.sqlite"))
        let big = Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let values = self.context(on: valuesCoordinator)
        insert("Value", ["label": "big", "big": big], into: values)
        try values.save()
        let valuesURL = directory.url.appendingPathComponent("values.binary")
        _ = try valuesCoordinator.migratePersistentStore(valuesSQLite, to: valuesURL, type: .binary)
        XCTAssertEqual(try fetch("Value", try open(Self.valuesModel, at: valuesURL), sortedBy: "label").first?.value(forKey: "big") as? Data, big,
                       "externally stored data moved into the binary file")
        let binary = try coordinator.migratePersistentStore(original, to: storeURL, type: .binary)
        let movedURL = directory.url.appendingPathComponent("moved.binary")
        _ = try coordinator.migratePersistentStore(binary, to: movedURL, type: .binary)

        let reader = try open(Self.graphModel, at: movedURL)
        let person = try XCTUnwrap(try fetch("Person", reader).first)
        XCTAssertEqual((person.value(forKey: "favorite") as? ManagedObject)?.entity.name, "Album")
        XCTAssertEqual(names(person.value(forKey: "watchlist")), ["n", "a"])
        XCTAssertEqual(person.value(forKey: "folderCount") as? Int64, 1)
        let readFolder = try XCTUnwrap(try fetch("Folder", reader).first)
        XCTAssertEqual((readFolder.value(forKey: "items") as? OrderedSet<ManagedObject>)?.elements.map(\.entity.name), ["Album", "Note"])
        XCTAssertEqual(readFolder.value(forKey: "itemCount") as? Int64, 2)

        let target = directory.url.appendingPathComponent("target.binary")
        let targetContext = try open(Self.graphModel, at: target)
        insert("Person", ["name": "Replaced"], into: targetContext)
        try targetContext.save()
        let replacer = PersistentStoreCoordinator(managedObjectModel: Self.graphModel)
        try replacer.replacePersistentStore(at: target, withPersistentStoreFrom: movedURL, type: .binary)
        XCTAssertEqual(try fetch("Person", try open(Self.graphModel, at: target)).map { $0.value(forKey: "name") as? String }, ["Ada"])
        let targetBefore = try Data(contentsOf: target)
        XCTAssertThrowsError(try replacer.replacePersistentStore(at: target, withPersistentStoreFrom: sqliteURL, type: .binary))
        XCTAssertEqual(try Data(contentsOf: target), targetBefore, "a source that is no binary store leaves the destination alone")
    }

    /// destroyPersistentStore with the binary type at a path that holds no binary store (a
    /// folder of the user's files, given by mistake) must not delete it.
    func testDestroyingABinaryStoreWhereThereIsAFolderDeletesNothing() throws {
        try FileManager.default.createDirectory(at: storeURL, withIntermediateDirectories: false)
        let kept = storeURL.appendingPathComponent("thesis.txt")
        try Data("years of work".utf8).write(to: kept)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.tagModel)
        _ = try? coordinator.destroyPersistentStore(at: storeURL, type: .binary)
        XCTAssertEqual(try? Data(contentsOf: kept), Data("years of work".utf8), "a folder that is no binary store was deleted")
    }

    /// Core Data migrates binary stores lightweight as it does SQLite stores: with
    /// NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption,
    /// a file written with one version of the model opens with the next (an optional attribute
    /// added), its objects kept. (The SQLite store here does it; the binary store must too.)
    func testALightweightModelChangeMigratesAutomatically() throws {
        let next = ManagedObjectModel {
            Entity("Tag") {
                Attribute("name", .string)
                Attribute("colour", .string)
            }
        }
        let options: [String: any Sendable] = [SQLiteStore.migratesAutomaticallyOption: true, SQLiteStore.infersMappingModelOption: true]
        let sqliteURL = directory.url.appendingPathComponent("tags.sqlite")
        for url in [sqliteURL, storeURL] {
            let type: StoreType = url == storeURL ? .binary : .sqlite
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.tagModel)
            try coordinator.addPersistentStore(type: type, at: url)
            let writer = context(on: coordinator)
            for name in ["a", "b"] { insert("Tag", ["name": name], into: writer) }
            try writer.save()
        }
        func openNext(_ type: StoreType, _ url: URL) throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: next)
            try coordinator.addPersistentStore(type: type, at: url, options: options)
            return context(on: coordinator)
        }
        XCTAssertEqual(try fetch("Tag", try openNext(.sqlite, sqliteURL)).map { $0.value(forKey: "name") as? String }, ["a", "b"],
                       "the SQLite store migrates")
        let migrated: ManagedObjectContext
        do {
            migrated = try openNext(.binary, storeURL)
        } catch {
            return XCTFail("the binary store does not migrate: \(error)")
        }
        let tags = try fetch("Tag", migrated)
        XCTAssertEqual(tags.map { $0.value(forKey: "name") as? String }, ["a", "b"])
        tags.first?.setValue("red", forKey: "colour")
        try migrated.save()
        XCTAssertEqual(try fetch("Tag", try openNext(.binary, storeURL)).first?.value(forKey: "colour") as? String, "red")
    }

    /// Metadata of every property-list type reads back, without adding the store, as set.
    func testMetadataOfEveryPropertyListTypeReadsBackWithoutAddingTheStore() throws {
        let context = try open(Self.tagModel)
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        let store = try XCTUnwrap(coordinator.persistentStores.first)
        var metadata = coordinator.metadata(for: store)
        let values: [String: any Sendable] = [
            "String": "Zoë 🦊 \u{0} end", "Empty": "", "Zero": 0, "Negative": -42, "Min": Int.min, "Max": Int.max,
            "Whole": 3.0, "Ratio": 0.1, "Tiny": Double.leastNonzeroMagnitude, "True": true, "False": false,
            "Date": Date(timeIntervalSinceReferenceDate: -1_234.5), "Data": Data([0, 1, 255]), "NoData": Data(),
            "List": ["a", 1, true] as [any Sendable], "NoList": [String](), "Nested": ["inner": ["deep": [1, 2]]] as [String: any Sendable],
            "Records": [["id": 1], ["id": 2]] as [[String: Int]],
        ]
        for (key, value) in values { metadata[key] = value }
        coordinator.setMetadata(metadata, for: store)
        insert("Tag", ["name": "a"], into: context)
        try context.save()

        let read = try BinaryStore(url: storeURL).metadata
        XCTAssertEqual(read["UUID"] as? String, store.identifier)
        XCTAssertEqual(read["StoreType"] as? String, StoreType.binary.rawValue)
        XCTAssertEqual(read["String"] as? String, "Zoë 🦊 \u{0} end")
        XCTAssertEqual(read["Empty"] as? String, "")
        XCTAssertEqual(read["Zero"] as? Int, 0)
        XCTAssertEqual(read["Negative"] as? Int, -42)
        XCTAssertEqual(read["Min"] as? Int, Int.min)
        XCTAssertEqual(read["Max"] as? Int, Int.max)
        XCTAssertEqual(read["Whole"] as? Double, 3.0)
        XCTAssertEqual(read["Ratio"] as? Double, 0.1)
        XCTAssertEqual(read["Tiny"] as? Double, .leastNonzeroMagnitude)
        XCTAssertEqual(read["True"] as? Bool, true)
        XCTAssertEqual(read["False"] as? Bool, false)
        XCTAssertEqual(read["Date"] as? Date, Date(timeIntervalSinceReferenceDate: -1_234.5))
        XCTAssertEqual(read["Data"] as? Data, Data([0, 1, 255]))
        XCTAssertEqual(read["NoData"] as? Data, Data())
        let list = read["List"] as? [any Sendable]
        XCTAssertEqual(list?.count, 3)
        XCTAssertEqual(list?.first as? String, "a")
        XCTAssertEqual(list?.last as? Bool, true)
        XCTAssertEqual((read["NoList"] as? [any Sendable])?.count, 0)
        let deep = ((read["Nested"] as? [String: any Sendable])?["inner"] as? [String: any Sendable])?["deep"] as? [any Sendable]
        XCTAssertEqual(deep?.compactMap { $0 as? Int }, [1, 2])
        XCTAssertEqual((read["Records"] as? [any Sendable])?.compactMap { ($0 as? [String: any Sendable])?["id"] as? Int }, [1, 2])
    }

    /// Core Data's setMetadata(_:for:): "NSStoreUUIDKey is only added if it is not set manually"
    /// — a UUID set in the metadata (a copied store given an identity of its own) is the store's
    /// UUID once saved and reopened, as the SQLite store here keeps it.
    func testAUUIDSetInTheMetadataIsTheStoresUUIDAfterReopening() throws {
        var reopenedIdentifiers: [StoreType: String] = [:]
        let newUUID = UUID().uuidString
        for (type, url) in [(StoreType.sqlite, directory.url.appendingPathComponent("uuid.sqlite")), (.binary, storeURL)] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.tagModel)
            let store = try coordinator.addPersistentStore(type: type, at: url)
            let context = context(on: coordinator)
            var metadata = coordinator.metadata(for: store)
            metadata["UUID"] = newUUID
            coordinator.setMetadata(metadata, for: store)
            insert("Tag", ["name": "a"], into: context)
            try context.save()
            let reopened = PersistentStoreCoordinator(managedObjectModel: Self.tagModel)
            reopenedIdentifiers[type] = try reopened.addPersistentStore(type: type, at: url).identifier
        }
        XCTAssertEqual(reopenedIdentifiers[.sqlite], newUUID, "the SQLite store keeps the UUID set")
        XCTAssertEqual(reopenedIdentifiers[.binary], newUUID, "the binary store keeps the UUID set")
    }

    // MARK: Fetching

    /// Fetches on rows read back from a binary file answer as the SQLite store answers for the
    /// same objects: predicates on every kind of value and through relationships, sorts with nil
    /// values, limits and offsets, counts and dictionaries grouped with an aggregate.
    func testFetchesOnRowsReadFromTheFileAgreeWithTheSQLiteStore() throws {
        let model = ManagedObjectModel {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("priority", .integer16)
                Attribute("due", .date)
                Attribute("cost", .decimal)
                Attribute("ratio", .double)
                Attribute("done", .boolean)
                Attribute("code", .uuid)
                Relationship("owner", to: "Person", inverse: "tasks")
                Relationship("tags", to: "Tag", inverse: "tasks", toMany: true)
            }
            Entity("Person") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
            }
            Entity("Tag") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "tags", toMany: true)
            }
        }
        let code = UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!
        func seed(_ context: ManagedObjectContext) throws {
            let ada = insert("Person", ["name": "Ada"], into: context)
            let bob = insert("Person", ["name": "bob"], into: context)
            let tags = ["red", "Blue", "green"].map { insert("Tag", ["name": $0], into: context) }
            let titles = ["Alpha", "beta", "Gamma", "délta", "Epsilon", "zeta", "Eta", "theta", "", "Iota"]
            for (index, title) in titles.enumerated() {
                let task = insert("Task", ["title": title], into: context)
                if index % 4 != 3 { task.setValue(Int16(index % 3 - 1), forKey: "priority") }
                if index % 3 != 2 { task.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 86_400 - 1e5), forKey: "due") }
                if index % 5 != 4 { task.setValue(Decimal(string: "\(index).\(index)5")!, forKey: "cost") }
                task.setValue(index % 2 == 0 ? Double(index) / 3 : -0.0, forKey: "ratio")
                task.setValue(index % 3 == 0, forKey: "done")
                if index == 4 { task.setValue(code, forKey: "code") }
                if index % 3 != 1 { task.setValue(index % 2 == 0 ? ada : bob, forKey: "owner") }
                task.setValue(Set(tags.enumerated().filter { (index + $0.offset) % 3 != 0 }.map(\.element)), forKey: "tags")
            }
            try context.save()
        }
        let sqliteCoordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try sqliteCoordinator.addPersistentStore(type: .sqlite, at: directory.url.appendingPathComponent("same.sqlite"))
        let sqlite = context(on: sqliteCoordinator)
        try seed(sqlite)
        try seed(try open(model))
        let binary = try open(model)

        let queries: [(String, [Any?])] = [
            ("priority == 0", []), ("priority != 0", []), ("priority == nil", []), ("priority > -1", []),
            ("due < %@", [Date(timeIntervalSinceReferenceDate: 300_000)]), ("due == nil", []),
            ("cost >= %@", [Decimal(string: "4.45")!]), ("cost BETWEEN {1, 6}", []), ("ratio == 0", []), ("ratio < 0", []),
            ("done == YES", []), ("done == NO AND priority != nil", []), ("code == %@", [code]),
            ("title BEGINSWITH[c] 'e'", []), ("title CONTAINS[cd] 'DELTA'", []), ("title LIKE '*ta'", []),
            ("title MATCHES '[A-Z].*'", []), ("title IN {'Alpha', 'zeta', 'nothing'}", []), ("title == ''", []),
            ("title < 'E'", []), ("owner.name ==[c] 'BOB'", []), ("owner == nil", []), ("ANY tags.name == 'red'", []),
            ("tags.@count == 2", []), ("SUBQUERY(tags, $t, $t.name BEGINSWITH[c] 'b').@count > 0", []),
            ("NOT (priority == 1 OR owner.name == 'Ada')", []), ("ALL tags.name != 'green'", []),
        ]
        func titles(_ context: ManagedObjectContext, _ format: String, _ arguments: [Any?]) throws -> [String] {
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.predicate = try Predicate(format: format, argumentArray: arguments)
            return try context.fetch(request).map { $0.value(forKey: "title") as? String ?? "nil" }.sorted()
        }
        for (format, arguments) in queries {
            XCTAssertEqual(try titles(binary, format, arguments), try titles(sqlite, format, arguments), format)
        }
        func sorted(_ context: ManagedObjectContext, offset: Int, limit: Int) throws -> [String] {
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.sortDescriptors = [SortDescriptor(key: "priority", ascending: false), SortDescriptor(key: "due"), SortDescriptor(key: "title")]
            request.fetchOffset = offset
            request.fetchLimit = limit
            return try context.fetch(request).map { $0.value(forKey: "title") as? String ?? "nil" }
        }
        XCTAssertEqual(try sorted(binary, offset: 0, limit: 0), try sorted(sqlite, offset: 0, limit: 0), "sorted with nils")
        XCTAssertEqual(try sorted(binary, offset: 3, limit: 4), try sorted(sqlite, offset: 3, limit: 4), "a page")
        var count = FetchRequest<ManagedObject>(entityName: "Task")
        count.predicate = try Predicate(format: "done == NO")
        XCTAssertEqual(try binary.count(for: count), try sqlite.count(for: count))
        func groups(_ context: ManagedObjectContext) throws -> [String] {
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            let total = ExpressionDescription(name: "total", expression: try Expression(format: "sum:(cost)"), resultType: .decimal)
            let number = ExpressionDescription(name: "number", expression: try Expression(format: "count:(title)"), resultType: .integer64)
            request.propertiesToFetch = [.property("owner.name"), .expression(total), .expression(number)]
            request.propertiesToGroupBy = ["owner.name"]
            request.sortDescriptors = [SortDescriptor(key: "owner.name")]
            return try context.fetch(request).map { row in
                "\(row["owner.name"] as? String ?? "nil") \(row["total"].map { "\($0)" } ?? "nil") \(row["number"].map { "\($0)" } ?? "nil")"
            }
        }
        XCTAssertEqual(try groups(binary), try groups(sqlite), "dictionaries grouped by owner")
    }

    /// A child context (and its child) saves into a parent on a binary store: new objects related
    /// to objects read from the file, an edit and a delete reach the file at the parent's save,
    /// under permanent IDs whose URIs resolve after reopening.
    func testNestedContextsSaveThroughTheParentIntoTheFile() throws {
        do {
            let writer = try open(Self.graphModel)
            let docs = insert("Folder", ["name": "docs"], into: writer)
            docs.setValue([insert("Note", ["name": "old"], into: writer), insert("Note", ["name": "gone"], into: writer)], forKey: "items")
            try writer.save()
        }
        let parent = try open(Self.graphModel)
        let child = ManagedObjectContext(concurrencyType: .mainQueue)
        child.parent = parent
        keptContexts.append(child)
        let grandchild = ManagedObjectContext(concurrencyType: .mainQueue)
        grandchild.parent = child
        keptContexts.append(grandchild)

        let folder = try XCTUnwrap(try fetch("Folder", grandchild).first)
        let added = insert("Album", ["name": "new", "title": "T"], into: grandchild)
        let items = try XCTUnwrap(folder.value(forKey: "items") as? OrderedSet<ManagedObject>)
        folder.setValue([added] + items.elements, forKey: "items")
        try XCTUnwrap(items.elements.first).setValue("edited", forKey: "name")
        grandchild.delete(try XCTUnwrap(items.elements.last))
        try grandchild.save()
        try child.save()
        XCTAssertEqual(try byKey("Item", try open(Self.graphModel), key: "name").keys.sorted(), ["gone", "old"], "nothing written before the parent saves")
        try parent.save()

        let inParent = try XCTUnwrap(try fetch("Item", parent).first { $0.value(forKey: "name") as? String == "new" })
        XCTAssertFalse(inParent.objectID.isTemporaryID)
        let uri = inParent.objectID.uriRepresentation
        let reader = try open(Self.graphModel)
        let readFolder = try XCTUnwrap(try fetch("Folder", reader).first)
        XCTAssertEqual(names(readFolder.value(forKey: "items")), ["new", "edited"])
        XCTAssertEqual(readFolder.value(forKey: "itemCount") as? Int64, 2)
        let id = try XCTUnwrap(reader.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
        XCTAssertEqual(try reader.existingObject(with: id).value(forKey: "title") as? String, "T")
    }

    /// Twenty thousand objects in one save, with to-one, ordered to-many and many-to-many
    /// relationships, all read back in a fresh coordinator; a later small save keeps them all.
    func testTwentyThousandObjectsRoundTrip() throws {
        let writer = try open(Self.sampleModel)
        let tags = (0..<10).map { index -> ManagedObject in insert("Tag", ["name": "tag \(index)"], into: writer) }
        for owner in 0..<1_999 {
            let object = insert("Owner", ["name": String(format: "owner %05d", owner)], into: writer)
            var samples: [ManagedObject] = []
            for index in 0..<9 {
                let sample = insert("Sample", ["text": "sample \(owner)-\(index)", "large": Int64(owner * 9 + index)], into: writer)
                sample.setValue(Set([tags[(owner + index) % 10]]), forKey: "tags")
                samples.append(sample)
            }
            object.setValue(Array(samples.reversed()), forKey: "samples")
        }
        try writer.save()

        let reader = try open(Self.sampleModel)
        XCTAssertEqual(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Sample")), 17_991)
        XCTAssertEqual(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Owner")), 1_999)
        XCTAssertEqual(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Tag")), 10)
        let owners = try fetch("Owner", reader)
        XCTAssertEqual(names(owners[1_234].value(forKey: "samples"), key: "text"), (0..<9).reversed().map { "sample 1234-\($0)" })
        let tag = try XCTUnwrap(try byKey("Tag", reader, key: "name")["tag 3"])
        XCTAssertEqual((tag.value(forKey: "samples") as? Set<ManagedObject>)?.count, 1_799)
        var request = FetchRequest<ManagedObject>(entityName: "Sample")
        request.predicate = try Predicate(format: "large >= 17980 AND owner.name == 'owner 01998'")
        XCTAssertEqual(try reader.count(for: request), 9)

        insert("Tag", ["name": "one more"], into: reader)
        try reader.save()
        let again = try open(Self.sampleModel)
        XCTAssertEqual(try again.count(for: FetchRequest<ManagedObject>(entityName: "Sample")), 17_991)
        XCTAssertEqual(try again.count(for: FetchRequest<ManagedObject>(entityName: "Tag")), 11)
    }

    // MARK: Files

    /// Files that are no whole binary store are refused naming the file (and, for the format's
    /// own faults, the byte), and left as they were: cut short, with garbage after the last
    /// object (the byte named is the first one of it), from a newer format version, empty, an
    /// XML store, a SQLite store, a folder. A binary store opened as XML or SQLite is left alone.
    func testFilesThatAreNoWholeBinaryStoreAreRefusedAndLeftAlone() throws {
        let writer = try open(Self.sampleModel)
        for name in ["Ada", "Bob"] { insert("Tag", ["name": name], into: writer) }
        try writer.save()
        let whole = try fileData()
        let xmlURL = directory.url.appendingPathComponent("other.xml")
        let sqliteURL = directory.url.appendingPathComponent("other.sqlite")
        for (type, url) in [(StoreType.xml, xmlURL), (.sqlite, sqliteURL)] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.sampleModel)
            try coordinator.addPersistentStore(type: type, at: url)
            let other = context(on: coordinator)
            insert("Tag", ["name": "x"], into: other)
            try other.save()
        }
        var newer = whole
        newer[8] = 2
        let cases: [(String, Data, String)] = [
            ("cut short", whole.prefix(whole.count - 3), "byte "),
            ("garbage after", whole + Data("garbage".utf8), "byte \(whole.count): there are bytes after the last object"),
            ("newer version", newer, "byte 8: the format version is 2"),
            ("empty", Data(), "byte 0"),
            ("an XML store", try Data(contentsOf: xmlURL), "byte 0"),
            ("a SQLite store", try Data(contentsOf: sqliteURL), "byte 0"),
        ]
        for (label, data, expected) in cases {
            try data.write(to: storeURL)
            let message = openingError(Self.sampleModel)
            XCTAssertTrue(message.contains(storeURL.path) && message.contains(expected), "\(label): \(message)")
            XCTAssertEqual(try fileData(), data, "\(label): the file is left alone")
        }
        try FileManager.default.removeItem(at: storeURL)
        try FileManager.default.createDirectory(at: storeURL, withIntermediateDirectories: false)
        let message = openingError(Self.sampleModel)
        XCTAssertTrue(message.contains(storeURL.path), "a folder: \(message)")
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: storeURL.path, isDirectory: &isDirectory) && isDirectory.boolValue)

        for (type, name) in [(StoreType.xml, "binary.xml"), (.sqlite, "binary.sqlite")] {
            let url = directory.url.appendingPathComponent(name)
            try whole.write(to: url)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.sampleModel)
            XCTAssertThrowsError(try coordinator.addPersistentStore(type: type, at: url), "a binary store opened as \(type)")
            XCTAssertEqual(try Data(contentsOf: url), whole, "a binary store opened as \(type) is left alone")
        }
    }

    /// A store file the user may not read is refused naming the file (it is not taken for a new
    /// store that the next save would write over). Root reads any file, so the check is skipped
    /// when the tests run as root.
    func testAnUnreadableFileIsRefusedNamingTheFile() throws {
        let writer = try open(Self.tagModel)
        insert("Tag", ["name": "secret"], into: writer)
        try writer.save()
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: storeURL.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: storeURL.path) }
        if FileManager.default.isReadableFile(atPath: storeURL.path) {
            throw XCTSkip("the tests run as root, who reads any file")
        }
        let message = openingError(Self.tagModel)
        XCTAssertTrue(message.contains(storeURL.path) && message.contains("cannot read"), message)
    }

    /// Entity, property and relationship names in any script, with spaces, markup, quotes and
    /// Swift keywords, and entities whose names differ only by case, read back; their objects'
    /// URIs (the entity name percent-encoded) resolve after reopening, and object-ID and URI
    /// attributes name the same objects.
    func testUnicodeAndUnsafeNamesReadBackAndTheirURIsResolve() throws {
        let model = ManagedObjectModel {
            Entity("Ünïcødé Ëntité") {
                Attribute("naïve name", .string)
                Attribute("日本語", .integer64)
                Attribute("<tag a=\"1\">&amp;", .string)
                Attribute("class", .string)
                Attribute("self", .string)
                Attribute("emoji🦊", .boolean)
                Attribute("pointer", .objectID)
                Attribute("link", .uri)
                Relationship("自分", to: "Ünïcødé Ëntité", inverse: "逆")
                Relationship("逆", to: "Ünïcødé Ëntité", inverse: "自分", toMany: true)
            }
            Entity("entity") { Attribute("name", .string) }
            Entity("Entity") { Attribute("name", .string) }
        }
        let writer = try open(model)
        let first = insert("Ünïcødé Ëntité", ["naïve name": "first", "日本語": Int64(42), "<tag a=\"1\">&amp;": "markup",
                                              "class": "c", "self": "s", "emoji🦊": true], into: writer)
        let second = insert("Ünïcødé Ëntité", ["naïve name": "second"], into: writer)
        second.setValue(first, forKey: "自分")
        insert("entity", ["name": "lower"], into: writer)
        insert("Entity", ["name": "upper"], into: writer)
        try writer.save()
        second.setValue(first.objectID, forKey: "pointer")
        second.setValue(first.objectID.uriRepresentation, forKey: "link")
        try writer.save()
        let uri = first.objectID.uriRepresentation

        let reader = try open(model)
        let read = try byKey("Ünïcødé Ëntité", reader, key: "naïve name")
        XCTAssertEqual(read["first"]?.value(forKey: "日本語") as? Int64, 42)
        XCTAssertEqual(read["first"]?.value(forKey: "<tag a=\"1\">&amp;") as? String, "markup")
        XCTAssertEqual(read["first"]?.value(forKey: "class") as? String, "c")
        XCTAssertEqual(read["first"]?.value(forKey: "self") as? String, "s")
        XCTAssertEqual(read["first"]?.value(forKey: "emoji🦊") as? Bool, true)
        XCTAssertTrue(read["second"]?.value(forKey: "自分") as? ManagedObject === read["first"])
        XCTAssertEqual(names(read["first"]?.value(forKey: "逆"), key: "naïve name"), ["second"])
        XCTAssertEqual(try fetch("entity", reader).map { $0.value(forKey: "name") as? String }, ["lower"])
        XCTAssertEqual(try fetch("Entity", reader).map { $0.value(forKey: "name") as? String }, ["upper"])
        let coordinator = try XCTUnwrap(reader.persistentStoreCoordinator)
        let id = try XCTUnwrap(coordinator.managedObjectID(forURIRepresentation: uri), "a URI kept before reopening: \(uri)")
        XCTAssertEqual(try reader.existingObject(with: id).value(forKey: "naïve name") as? String, "first")
        XCTAssertEqual(read["second"]?.value(forKey: "pointer") as? ObjectID, id)
        XCTAssertEqual(read["second"]?.value(forKey: "link") as? URL, uri)
    }

    /// A store whose file name is long but allowed (237 bytes of the 255 a name may have) is
    /// created and saved: the save's temporary file must fit the file system's limit too.
    func testAStoreWithALongButValidFileNameSaves() throws {
        let url = directory.url.appendingPathComponent(String(repeating: "s", count: 230) + ".binary")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data()), "the name is a valid file name")
        try FileManager.default.removeItem(at: url)
        let context = try open(Self.tagModel, at: url)
        insert("Tag", ["name": "long"], into: context)
        XCTAssertNoThrow(try context.save())
        XCTAssertEqual(try fetch("Tag", try open(Self.tagModel, at: url)).map { $0.value(forKey: "name") as? String }, ["long"])
    }

    /// A file holding an object numbered Int64.max, or whose next object number is Int64.max
    /// (numbers the reader accepts), is refused or used — never a crash (the existing tests
    /// promise a damaged file never crashes). Each case runs in a child process of this test
    /// binary, so that a crash fails this test instead of ending the run.
    func testFilesWithTheLargestObjectNumbersNeverCrash() throws {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[Self.crashFileVariable], let which = environment[Self.crashCaseVariable] {
            // The child: open the file, add a Tag and save; refusals are fine, crashes are not.
            let url = URL(fileURLWithPath: path)
            do {
                let context = try open(Self.tagModel, at: url)
                insert("Tag", ["name": "added"], into: context)
                try context.save()
                XCTAssertEqual(try fetch("Tag", try open(Self.tagModel, at: url)).count, 2, which)
            } catch {
                XCTAssertTrue("\(error)".contains(path), "\(which): \(error)")
            }
            return
        }
        let tag: [(String, [(String, BinaryStoreFormat.PropertyKind)])] = [("Tag", [("name", .attribute)])]
        let cases: [(String, Data)] = [
            ("an object numbered Int64.max", try craftedFile(entities: tag, objects: [(0, Int64.max, [.stored(.text("last"))])], next: 1)),
            ("the next number Int64.max", try craftedFile(entities: tag, objects: [(0, 1, [.stored(.text("first"))])], next: UInt64(Int64.max))),
        ]
        for (index, (label, data)) in cases.enumerated() {
            let url = directory.url.appendingPathComponent("case\(index).binary")
            try data.write(to: url)
            let log = directory.url.appendingPathComponent("case\(index).log")
            XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["ObjectGraphTests.BinaryStoreReviewTests/testFilesWithTheLargestObjectNumbersNeverCrash"]
            process.environment = environment.merging([Self.crashFileVariable: url.path, Self.crashCaseVariable: label]) { _, new in new }
            process.standardOutput = try FileHandle(forWritingTo: log)
            process.standardError = process.standardOutput
            try process.run()
            process.waitUntilExit()
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let lines = output.split(separator: "\n").filter { $0.contains("error") || $0.contains("Fatal") || $0.contains("fault") || $0.contains("overflow") }
            XCTAssertTrue(process.terminationReason == .exit && process.terminationStatus == 0,
                          "\(label): the child ended by \(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus): "
                            + lines.prefix(3).joined(separator: " | "))
        }
    }
}
