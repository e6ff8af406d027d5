// Review of the XML store (Core Data's NSXMLStoreType): what is specific to a store kept in one
// file written whole at each save. Edge values and relationships read back after reopening, files
// in Core Data's own format, broken files, the file's atomic replacement (permissions, temporary
// files, failed saves), and the coordinator's store operations with the `.xml` type. Tests that
// fail show where the store differs from Core Data's, or from what a user of an atomic store
// can expect: a file the store wrote always opens again.
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import ObjectGraph

final class XMLStoreReviewTests: XMLStoreTestCase {
    /// Attributes of every kind whose values have edges worth probing.
    static let valuesModel = ManagedObjectModel {
        Entity("Value") {
            Attribute("label", .string)
            Attribute("text", .string)
            Attribute("real", .double)
            Attribute("single", .float)
            Attribute("large", .integer64)
            Attribute("small", .integer16)
            Attribute("medium", .integer32)
            Attribute("exact", .decimal)
            Attribute("when", .date)
            Attribute("bytes", .binaryData)
            Attribute("big", .binaryData).allowsExternalStorage()
            Attribute("link", .uri)
            Attribute("pointer", .objectID)
            Attribute("listed", .transformable).transformed(by: XMLStoreReviewTests.jsonListTransformerName)
            Attribute("archived", .transformable).transformed(by: "NSSecureUnarchiveFromData")
            Attribute("plain", .transformable)
        }
    }

    /// People, their one-way favourite, a tree, an ordered many-to-many, an abstract parent
    /// entity, cascades and derived attributes.
    static let graphModel = ManagedObjectModel {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("petCount", .integer64).derived(from: "pets.@count")
            // No inverse: Core Data allows it (with a warning); nothing points back.
            Relationship("favorite", to: "Pet")
            Relationship("pets", to: "Pet", inverse: "owner", toMany: true, deleteRule: .cascade)
        }
        Entity("Pet") {
            Attribute("name", .string)
            Attribute("ownerName", .string).derived(from: "owner.name")
            Relationship("owner", to: "Person", inverse: "pets")
        }
        Entity("Node") {
            Attribute("name", .string)
            Relationship("parent", to: "Node", inverse: "children")
            Relationship("children", to: "Node", inverse: "parent", toMany: true, ordered: true, deleteRule: .cascade)
        }
        Entity("Playlist") {
            Attribute("name", .string)
            Relationship("songs", to: "Song", inverse: "playlists", toMany: true, ordered: true)
        }
        Entity("Song") {
            Attribute("name", .string)
            Relationship("playlists", to: "Playlist", inverse: "songs", toMany: true, ordered: true)
        }
        Entity("Item", abstract: true) {
            Attribute("name", .string)
            Relationship("folder", to: "Folder", inverse: "items")
        }
        Entity("Note", parent: "Item") {
            Attribute("body", .string)
        }
        Entity("Photo", parent: "Item") {
            Attribute("pixels", .binaryData)
        }
        Entity("Folder") {
            Attribute("name", .string)
            Relationship("items", to: "Item", inverse: "folder", toMany: true, ordered: true)
        }
    }

    /// Tags whose names are unique.
    static let uniqueModel = ManagedObjectModel {
        Entity("Tag") {
            Attribute("name", .string)
            Attribute("colour", .string)
            Unique("name")
        }
    }

    /// Drafts kept in the XML store, labels in another store.
    static let splitModel = ManagedObjectModel {
        Entity("Draft") { Attribute("title", .string) }
        Entity("Label") {
            Attribute("name", .string)
            Unique("name")
        }
        Configuration("Local", entities: ["Draft"])
        Configuration("Shared", entities: ["Label"])
    }

    /// Xcode's mapping model entities, as the XML stores of the corpus hold them (camel-case
    /// names the file spells in lower case; an abstract parent of the property mappings).
    static let mappingModel = ManagedObjectModel {
        Entity("XDDevMappingModel") {
            Attribute("sourceModelPath", .string)
            Attribute("sourceModelData", .binaryData)
            Attribute("destinationModelPath", .string)
            Attribute("destinationModelData", .binaryData)
            Relationship("entityMappings", to: "XDDevEntityMapping", inverse: "mappingModel", toMany: true)
        }
        Entity("XDDevEntityMapping") {
            Attribute("migrationPolicyClassName", .string)
            Attribute("sourceName", .string)
            Attribute("mappingTypeName", .string)
            Attribute("mappingNumber", .integer16)
            Attribute("destinationName", .string)
            Attribute("autoGenerateExpression", .boolean)
            Relationship("mappingModel", to: "XDDevMappingModel", inverse: "entityMappings")
            Relationship("attributeMappings", to: "XDDevAttributeMapping", inverse: "entityMapping", toMany: true)
            Relationship("relationshipMappings", to: "XDDevRelationshipMapping", inverse: "entityMapping", toMany: true)
        }
        Entity("XDDevPropertyMapping", abstract: true) {
            Attribute("name", .string)
            Attribute("autoGenerateExpression", .boolean)
        }
        Entity("XDDevAttributeMapping", parent: "XDDevPropertyMapping") {
            Relationship("entityMapping", to: "XDDevEntityMapping", inverse: "attributeMappings")
        }
        Entity("XDDevRelationshipMapping", parent: "XDDevPropertyMapping") {
            Attribute("sourceKeyPath", .string)
            Attribute("sourceMappingName", .string)
            Relationship("entityMapping", to: "XDDevEntityMapping", inverse: "relationshipMappings")
        }
    }

    static let jsonListTransformerName = "XMLStoreReviewJSONList"

    override func setUpWithError() throws {
        try super.setUpWithError()
        AttributeValueTransformer.setValueTransformer(AttributeValueTransformer(
            transform: { value in try JSONEncoder().encode(value as? [String] ?? []) },
            reverseTransform: { data in try JSONDecoder().decode([String].self, from: data) }
        ), forName: Self.jsonListTransformerName)
    }

    // MARK: Helpers

    private func context(on coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The objects of `entity` by their value for `key`.
    private func byKey(_ entity: String, _ context: ManagedObjectContext, key: String = "label") throws -> [String: ManagedObject] {
        Dictionary(try fetch(entity, context, sortedBy: key).map { ($0.value(forKey: key) as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The names of `objects`, in order.
    private func names(_ objects: Any?) -> [String] {
        let list: [ManagedObject]
        switch objects {
        case let ordered as OrderedSet<ManagedObject>: list = ordered.elements
        case let set as Set<ManagedObject>: list = set.sorted { ($0.value(forKey: "name") as? String ?? "") < ($1.value(forKey: "name") as? String ?? "") }
        default: list = []
        }
        return list.map { $0.value(forKey: "name") as? String ?? "?" }
    }

    /// The names of the files in the store's directory.
    private func filesBesideTheStore() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    /// The error opening the store at `storeURL` with `model` throws, as text; nil if it opens.
    private func openingError(_ model: ManagedObjectModel) -> String? {
        do {
            _ = try open(model)
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: Edge values

    /// Edge values read back exactly, as Core Data's XML store keeps them. Strings: an empty
    /// string is not nil, and whitespace, line breaks (`\r\n` included, which an XML parser
    /// turns into `\n` unless escaped), emoji, markup-looking text and very long strings read back
    /// as saved. Numbers and dates bit for bit: NaN, infinities, -0.0, the smallest and largest
    /// doubles and floats, Int64.min, dates long before 2001 and far in the future, and decimals
    /// at the ends of Decimal's range (written as exact text).
    func testEdgeValuesReadBackExactly() throws {
        do {
            let strings: [String: String] = [
                "empty": "", "space": " ", "blanks": " \t  \t", "newline": "\n", "crlf": "a\r\nb", "lone crlf": "\r\n",
                "padded": "\n\n  padded  \n\n", "emoji": "👩‍👩‍👧‍👦 Zoë 🇳🇴", "markup": "]]> <![CDATA[ x ]]> &amp; <b/>",
                "long": String(repeating: "long text, ", count: 50_000),
            ]
            let writer = try open(Self.valuesModel)
            for (label, text) in strings {
                let value = writer.insertNewObject(forEntityName: "Value")
                value.setValue(label, forKey: "label")
                value.setValue(text, forKey: "text")
            }
            writer.insertNewObject(forEntityName: "Value").setValue("nil", forKey: "label")
            try writer.save()

            let reopened = try open(Self.valuesModel)
            let read = try byKey("Value", reopened)
            for (label, text) in strings {
                XCTAssertEqual(read[label]?.value(forKey: "text") as? String, text, label)
            }
            XCTAssertNotNil(read["nil"])
            XCTAssertNil(read["nil"]?.value(forKey: "text"), "nil stays nil, not an empty string")
        }
        try FileManager.default.removeItem(at: storeURL)
        do {
            let doubles: [String: Double] = [
                "nan": .nan, "inf": .infinity, "-inf": -.infinity, "-0": -0.0, "tiny": .leastNonzeroMagnitude,
                "huge": .greatestFiniteMagnitude, "third": 1.0 / 3.0,
            ]
            let floats: [String: Float] = ["inf": .infinity, "-inf": -.infinity, "tiny": .leastNonzeroMagnitude, "huge": .greatestFiniteMagnitude]
            let dates: [String: Date] = [
                "nan": .distantPast, "inf": .distantFuture, "-0": Date(timeIntervalSince1970: 0),
                "tiny": Date(timeIntervalSinceReferenceDate: -0.000_123), "huge": Date(timeIntervalSinceReferenceDate: 1e12 + 0.5),
            ]
            let decimals: [String: Decimal] = [
                "nan": .greatestFiniteMagnitude, "inf": .leastFiniteMagnitude, "tiny": .leastNonzeroMagnitude,
                "huge": Decimal(string: "99999999999999999999999999999999999999")!, "-0": Decimal(string: "-0.000000000000000000000000000001")!,
            ]
            let writer = try open(Self.valuesModel)
            for label in Set(doubles.keys).union(floats.keys).union(dates.keys).union(decimals.keys) {
                let value = writer.insertNewObject(forEntityName: "Value")
                value.setValue(label, forKey: "label")
                if let double = doubles[label] { value.setValue(double, forKey: "real") }
                if let float = floats[label] { value.setValue(float, forKey: "single") }
                if let date = dates[label] { value.setValue(date, forKey: "when") }
                if let decimal = decimals[label] { value.setValue(decimal, forKey: "exact") }
            }
            let extremes = writer.insertNewObject(forEntityName: "Value")
            extremes.setValue("integers", forKey: "label")
            extremes.setValue(Int64.min, forKey: "large")
            extremes.setValue(Int16.min, forKey: "small")
            extremes.setValue(Int32.max, forKey: "medium")
            try writer.save()

            let reopened = try open(Self.valuesModel)
            let read = try byKey("Value", reopened)
            for (label, double) in doubles {
                XCTAssertEqual((read[label]?.value(forKey: "real") as? Double)?.bitPattern, double.bitPattern, "double \(label)")
            }
            for (label, float) in floats {
                XCTAssertEqual((read[label]?.value(forKey: "single") as? Float)?.bitPattern, float.bitPattern, "float \(label)")
            }
            for (label, date) in dates {
                XCTAssertEqual(read[label]?.value(forKey: "when") as? Date, date, "date \(label)")
            }
            for (label, decimal) in decimals {
                XCTAssertEqual(read[label]?.value(forKey: "exact") as? Decimal, decimal, "decimal \(label)")
            }
            XCTAssertEqual(read["integers"]?.value(forKey: "large") as? Int64, Int64.min)
            XCTAssertEqual(read["integers"]?.value(forKey: "small") as? Int16, Int16.min)
            XCTAssertEqual(read["integers"]?.value(forKey: "medium") as? Int32, Int32.max)
        }
    }

    /// A Float attribute holding NaN: Core Data stores it as it stores any float (the SQLite
    /// store here does too). The XML store must save it and read it back.
    func testAFloatNaNIsSavedAndReadBack() throws {
        let writer = try open(Self.valuesModel)
        let value = writer.insertNewObject(forEntityName: "Value")
        value.setValue("nan", forKey: "label")
        value.setValue(Float.nan, forKey: "single")
        value.setValue(Double.nan, forKey: "real")
        XCTAssertNoThrow(try writer.save())

        let reader = try open(Self.valuesModel)
        let read = try byKey("Value", reader)
        XCTAssertTrue((read["nan"]?.value(forKey: "single") as? Float)?.isNaN == true)
        XCTAssertTrue((read["nan"]?.value(forKey: "real") as? Double)?.isNaN == true)
    }

    /// Core Data's NSDecimalNumber.notANumber is a decimal value like any other: the XML store
    /// writes it and reads it back. Whatever the store does with it, a file it wrote must open.
    func testADecimalNaNDoesNotMakeTheFileUnreadable() throws {
        let writer = try open(Self.valuesModel)
        let value = writer.insertNewObject(forEntityName: "Value")
        value.setValue("nan", forKey: "label")
        value.setValue(Decimal.nan, forKey: "exact")
        writer.insertNewObject(forEntityName: "Value").setValue("other", forKey: "label")
        do { try writer.save() } catch { return }   // refusing the value is acceptable too

        let reader: ManagedObjectContext
        do {
            reader = try open(Self.valuesModel)
        } catch {
            return XCTFail("the store wrote a file it cannot open: \(error)")
        }
        let read = try byKey("Value", reader)
        XCTAssertEqual(read.count, 2)
        XCTAssertTrue((read["nan"]?.value(forKey: "exact") as? Decimal)?.isNaN == true)
    }

    /// Binary data: empty data is a value, not nil; data of an attribute that allows external
    /// storage stays inside the file (Core Data keeps external records for SQLite stores only,
    /// so no file appears beside the store); and a photo of eight megabytes, ordinary binary
    /// data with no size limit in Core Data's XML store, reads back after reopening.
    func testBinaryValuesEmptyExternalAndOfEightMegabytesReadBack() throws {
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let photo = Data((0..<8_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        let writer = try open(Self.valuesModel)
        let empty = writer.insertNewObject(forEntityName: "Value")
        empty.setValue("empty", forKey: "label")
        empty.setValue(Data(), forKey: "bytes")
        empty.setValue(Data(), forKey: "big")
        let large = writer.insertNewObject(forEntityName: "Value")
        large.setValue("large", forKey: "label")
        large.setValue(big, forKey: "big")
        let picture = writer.insertNewObject(forEntityName: "Value")
        picture.setValue("photo", forKey: "label")
        picture.setValue(photo, forKey: "bytes")
        try writer.save()
        XCTAssertEqual(try filesBesideTheStore(), ["store.xml"])

        let reader = try open(Self.valuesModel)
        let read = try byKey("Value", reader)
        XCTAssertEqual(read["empty"]?.value(forKey: "bytes") as? Data, Data())
        XCTAssertEqual(read["empty"]?.value(forKey: "big") as? Data, Data())
        XCTAssertEqual(read["large"]?.value(forKey: "big") as? Data, big)
        XCTAssertNil(read["large"]?.value(forKey: "bytes"))
        XCTAssertEqual(read["photo"]?.value(forKey: "bytes") as? Data, photo)
    }

    /// Transformable values: through a registered transformer, through Core Data's default
    /// NSSecureUnarchiveFromData (arrays and dictionaries of property-list values), and without
    /// a transformer (Strings and Data kept as they are).
    func testTransformableValuesReadBack() throws {
        let writer = try open(Self.valuesModel)
        let value = writer.insertNewObject(forEntityName: "Value")
        value.setValue("all", forKey: "label")
        value.setValue(["red", "green", "<blue & \"white\">"], forKey: "listed")
        value.setValue(["one", "two", "three"], forKey: "archived")
        value.setValue("plain text\r\n", forKey: "plain")
        let data = writer.insertNewObject(forEntityName: "Value")
        data.setValue("data", forKey: "label")
        data.setValue(["a": 1, "b": 2] as [String: Int], forKey: "archived")
        data.setValue(Data([0, 255, 10, 13]), forKey: "plain")
        try writer.save()

        let reopened = try open(Self.valuesModel)
        let read = try byKey("Value", reopened)
        XCTAssertEqual(read["all"]?.value(forKey: "listed") as? [String], ["red", "green", "<blue & \"white\">"])
        XCTAssertEqual(read["all"]?.value(forKey: "archived") as? [String], ["one", "two", "three"])
        XCTAssertEqual(read["all"]?.value(forKey: "plain") as? String, "plain text\r\n")
        XCTAssertEqual(read["data"]?.value(forKey: "archived") as? [String: Int], ["a": 1, "b": 2])
        XCTAssertEqual(read["data"]?.value(forKey: "plain") as? Data, Data([0, 255, 10, 13]))
    }

    /// Object IDs and their URIs are stable across reopening (the store's UUID and the object
    /// numbers are in the file): a URI kept before resolves afterwards, and object-ID and URI
    /// attributes name the same objects.
    func testObjectIDsURIsAndObjectIDAttributesSurviveReopening() throws {
        let writer = try open(Self.valuesModel)
        let target = writer.insertNewObject(forEntityName: "Value")
        target.setValue("target", forKey: "label")
        try writer.save()
        let pointing = writer.insertNewObject(forEntityName: "Value")
        pointing.setValue("pointing", forKey: "label")
        pointing.setValue(target.objectID, forKey: "pointer")
        pointing.setValue(target.objectID.uriRepresentation, forKey: "link")
        try writer.save()
        let uri = target.objectID.uriRepresentation

        let reader = try open(Self.valuesModel)
        let coordinator = try XCTUnwrap(reader.persistentStoreCoordinator)
        let id = try XCTUnwrap(coordinator.managedObjectID(forURIRepresentation: uri), "a URI kept before reopening")
        XCTAssertEqual(try reader.existingObject(with: id).value(forKey: "label") as? String, "target")
        let read = try byKey("Value", reader)
        let pointer = try XCTUnwrap(read["pointing"]?.value(forKey: "pointer") as? ObjectID)
        XCTAssertEqual(pointer, id)
        XCTAssertEqual(read["pointing"]?.value(forKey: "link") as? URL, uri)
        XCTAssertEqual(read["target"]?.objectID.uriRepresentation, uri)
    }

    /// Saves made after reopening work on the rows read from the file as on rows saved in this
    /// session. Derived attributes are stored values in Core Data (computed when their sources
    /// are saved): they read back and keep following later saves. A cascade delete removes the
    /// whole tree from the file, and the numbers of deleted objects are not handed out again.
    func testDerivedValuesAndCascadeDeletesFollowSavesAfterReopening() throws {
        do {
            let writer = try open(Self.graphModel)
            let ada = writer.insertNewObject(forEntityName: "Person")
            ada.setValue("Ada", forKey: "name")
            for name in ["Rex", "Tom"] {
                let pet = writer.insertNewObject(forEntityName: "Pet")
                pet.setValue(name, forKey: "name")
                pet.setValue(ada, forKey: "owner")
            }
            try writer.save()

            let reader = try open(Self.graphModel)
            let person = try XCTUnwrap(try fetch("Person", reader).first)
            XCTAssertEqual(person.value(forKey: "petCount") as? Int64, 2)
            XCTAssertEqual(try fetch("Pet", reader).map { $0.value(forKey: "ownerName") as? String }, ["Ada", "Ada"])
            person.setValue("Augusta", forKey: "name")
            let pet = reader.insertNewObject(forEntityName: "Pet")
            pet.setValue("Zed", forKey: "name")
            pet.setValue(person, forKey: "owner")
            try reader.save()

            let again = try open(Self.graphModel)
            XCTAssertEqual(try fetch("Person", again).first?.value(forKey: "petCount") as? Int64, 3)
            XCTAssertEqual(try fetch("Pet", again).map { $0.value(forKey: "ownerName") as? String }, ["Augusta", "Augusta", "Augusta"])
        }
        try FileManager.default.removeItem(at: storeURL)
        do {
            let writer = try open(Self.graphModel)
            let ada = writer.insertNewObject(forEntityName: "Person")
            ada.setValue("Ada", forKey: "name")
            let keep = writer.insertNewObject(forEntityName: "Person")
            keep.setValue("Bob", forKey: "name")
            for name in ["Rex", "Tom"] {
                let pet = writer.insertNewObject(forEntityName: "Pet")
                pet.setValue(name, forKey: "name")
                pet.setValue(ada, forKey: "owner")
            }
            let root = writer.insertNewObject(forEntityName: "Node")
            root.setValue("root", forKey: "name")
            let child = writer.insertNewObject(forEntityName: "Node")
            child.setValue("child", forKey: "name")
            child.setValue(root, forKey: "parent")
            try writer.save()
            let highest = writer.registeredObjects.compactMap { $0.objectID.primaryKey }.max() ?? 0

            let reader = try open(Self.graphModel)
            reader.delete(try XCTUnwrap(try fetch("Person", reader).first { $0.value(forKey: "name") as? String == "Ada" }))
            reader.delete(try XCTUnwrap(try fetch("Node", reader).first { $0.value(forKey: "name") as? String == "root" }))
            try reader.save()
            let text = try String(contentsOf: storeURL, encoding: .utf8)
            XCTAssertFalse(text.contains(">Rex<") || text.contains(">child<") || text.contains(">Ada<"), text)

            let again = try open(Self.graphModel)
            XCTAssertEqual(try fetch("Person", again).map { $0.value(forKey: "name") as? String }, ["Bob"])
            XCTAssertEqual(try fetch("Pet", again).count, 0)
            XCTAssertEqual(try fetch("Node", again).count, 0)
            let added = again.insertNewObject(forEntityName: "Pet")
            try again.save()
            XCTAssertGreaterThan(try XCTUnwrap(added.objectID.primaryKey), highest)
        }
    }

    // MARK: Relationships

    /// Relationships read back after reopening: a tree in one entity (ordered children); an
    /// ordered many-to-many whose two sides have different orders (each side's order is its own
    /// in Core Data); and objects of sub-entities of an abstract entity in an ordered relationship
    /// to it, each keeping its own entity, all found by a fetch of the parent entity.
    func testSelfReferentialOrderedManyToManyAndSubEntityRelationshipsReadBack() throws {
        do {
            let writer = try open(Self.graphModel)
            func node(_ name: String) -> ManagedObject {
                let node = writer.insertNewObject(forEntityName: "Node")
                node.setValue(name, forKey: "name")
                return node
            }
            let root = node("root")
            let b = node("b"), a = node("a"), c = node("c")
            root.setValue([b, a, c], forKey: "children")
            let leaf = node("leaf")
            a.setValue([leaf], forKey: "children")
            let mix = writer.insertNewObject(forEntityName: "Playlist")
            mix.setValue("mix", forKey: "name")
            let best = writer.insertNewObject(forEntityName: "Playlist")
            best.setValue("best", forKey: "name")
            let songs = ["x", "y", "z"].map { name -> ManagedObject in
                let song = writer.insertNewObject(forEntityName: "Song")
                song.setValue(name, forKey: "name")
                return song
            }
            mix.setValue([songs[2], songs[0], songs[1]], forKey: "songs")
            best.setValue([songs[1], songs[2]], forKey: "songs")
            try writer.save()
            songs[2].setValue([best, mix], forKey: "playlists")      // z's own order: best first
            try writer.save()

            let reader = try open(Self.graphModel)
            let nodes = try byKey("Node", reader, key: "name")
            XCTAssertEqual(names(nodes["root"]?.value(forKey: "children")), ["b", "a", "c"])
            XCTAssertEqual((nodes["leaf"]?.value(forKey: "parent") as? ManagedObject)?.value(forKey: "name") as? String, "a")
            XCTAssertEqual(names(nodes["a"]?.value(forKey: "children")), ["leaf"])
            XCTAssertNil(nodes["root"]?.value(forKey: "parent"))
            let lists = try byKey("Playlist", reader, key: "name")
            XCTAssertEqual(names(lists["mix"]?.value(forKey: "songs")), ["z", "x", "y"])
            XCTAssertEqual(names(lists["best"]?.value(forKey: "songs")), ["y", "z"])
            let read = try byKey("Song", reader, key: "name")
            XCTAssertEqual(names(read["z"]?.value(forKey: "playlists")), ["best", "mix"])
            XCTAssertEqual(names(read["x"]?.value(forKey: "playlists")), ["mix"])
        }
        try FileManager.default.removeItem(at: storeURL)
        do {
            let writer = try open(Self.graphModel)
            let folder = writer.insertNewObject(forEntityName: "Folder")
            folder.setValue("docs", forKey: "name")
            let note = writer.insertNewObject(forEntityName: "Note")
            note.setValue("n1", forKey: "name")
            note.setValue("text", forKey: "body")
            let photo = writer.insertNewObject(forEntityName: "Photo")
            photo.setValue("p1", forKey: "name")
            photo.setValue(Data([1, 2, 3]), forKey: "pixels")
            folder.setValue([photo, note], forKey: "items")
            try writer.save()

            let reader = try open(Self.graphModel)
            let items = try fetch("Item", reader)
            XCTAssertEqual(items.map { $0.entity.name }, ["Note", "Photo"])
            let read = try XCTUnwrap(try fetch("Folder", reader).first)
            let ordered = (read.value(forKey: "items") as? OrderedSet<ManagedObject>)?.elements ?? []
            XCTAssertEqual(ordered.map { $0.entity.name }, ["Photo", "Note"])
            XCTAssertEqual(ordered.last?.value(forKey: "body") as? String, "text")
            XCTAssertEqual(ordered.first?.value(forKey: "pixels") as? Data, Data([1, 2, 3]))
            XCTAssertTrue((ordered.first?.value(forKey: "folder") as? ManagedObject) === read)
        }
    }

    /// A one-way to-one relationship (no inverse, which Core Data allows) whose destination is
    /// deleted: nothing tells the holder, so its row still names the deleted object. The store
    /// saved that without complaint; the file it wrote must open again, with the holder in it.
    func testAOneWayToOneToADeletedObjectDoesNotMakeTheFileUnreadable() throws {
        let writer = try open(Self.graphModel)
        let ada = writer.insertNewObject(forEntityName: "Person")
        ada.setValue("Ada", forKey: "name")
        let stray = writer.insertNewObject(forEntityName: "Pet")
        stray.setValue("Stray", forKey: "name")
        ada.setValue(stray, forKey: "favorite")
        try writer.save()
        writer.delete(stray)
        try writer.save()

        let reader: ManagedObjectContext
        do {
            reader = try open(Self.graphModel)
        } catch {
            return XCTFail("the store wrote a file it cannot open: \(error)")
        }
        XCTAssertEqual(try fetch("Person", reader).map { $0.value(forKey: "name") as? String }, ["Ada"])
        XCTAssertEqual(try fetch("Pet", reader).count, 0)
    }

    // MARK: Files

    /// Entities and properties whose names differ only by case: Core Data's spelling (entity
    /// names in capitals, property names in lower case) would give them one name; each must
    /// still read back into its own entity and property.
    func testNamesThatDifferOnlyByCaseReadBackApart() throws {
        let model = ManagedObjectModel {
            Entity("Note") {
                Attribute("title", .string)
                Attribute("Title", .string)
                Relationship("link", to: "NOTE", inverse: "Link")
            }
            Entity("NOTE") {
                Attribute("title", .string)
                Relationship("Link", to: "Note", inverse: "link")
            }
        }
        let writer = try open(model)
        let lower = writer.insertNewObject(forEntityName: "Note")
        lower.setValue("lower", forKey: "title")
        lower.setValue("Upper-case property", forKey: "Title")
        let upper = writer.insertNewObject(forEntityName: "NOTE")
        upper.setValue("upper entity", forKey: "title")
        lower.setValue(upper, forKey: "link")
        try writer.save()

        let reader = try open(model)
        let notes = try fetch("Note", reader, sortedBy: "title")
        XCTAssertEqual(notes.map { $0.value(forKey: "title") as? String }, ["lower"])
        XCTAssertEqual(notes.first?.value(forKey: "Title") as? String, "Upper-case property")
        let shouting = try fetch("NOTE", reader, sortedBy: "title")
        XCTAssertEqual(shouting.map { $0.value(forKey: "title") as? String }, ["upper entity"])
        XCTAssertTrue((notes.first?.value(forKey: "link") as? ManagedObject) === shouting.first)
    }

    /// A file in the exact form of the corpus's XML stores (Xcode mapping models saved by Core
    /// Data). Core Data always writes `NSStoreModelVersionHashes` (its own hashes) in the
    /// metadata; this store cannot compute Apple's hashes, so it must not take their difference
    /// from its own for a model change: the file is Core Data's, for this model, and must open.
    func testAFileCoreDataWroteWithItsVersionHashesLoads() throws {
        try directory.write(Self.coreDataFile(withVersionHashes: true), to: "store.xml")
        let context: ManagedObjectContext
        do {
            context = try open(Self.mappingModel)
        } catch {
            return XCTFail("Core Data's file does not open: \(error)")
        }
        XCTAssertEqual(try fetch("XDDevPropertyMapping", context).count, 3)
    }

    /// The same file without the version hashes: every detail of Core Data's form reads (names
    /// in lower case, base64 wrapped over two lines, an empty string, a relationship with
    /// no `idrefs`, relationships listed on both sides, sub-entities of an abstract entity), and
    /// a save keeps the UUID and continues the numbering.
    func testAFileInCoreDatasFormReadsEveryDetail() throws {
        try directory.write(Self.coreDataFile(withVersionHashes: false), to: "store.xml")
        let context = try open(Self.mappingModel)
        let mapping = try XCTUnwrap(try fetch("XDDevEntityMapping", context, sortedBy: "sourceName").first)
        XCTAssertEqual(mapping.objectID.primaryKey, 107)
        XCTAssertEqual(mapping.value(forKey: "migrationPolicyClassName") as? String, "", "an empty string, not nil")
        XCTAssertEqual(mapping.value(forKey: "mappingNumber") as? Int16, 3)
        XCTAssertEqual(mapping.value(forKey: "autoGenerateExpression") as? Bool, true)
        XCTAssertEqual(names(mapping.value(forKey: "attributeMappings")), ["markedForRemoteDeletion"])
        XCTAssertEqual(names(mapping.value(forKey: "relationshipMappings")), ["countries"])
        let model = try XCTUnwrap(mapping.value(forKey: "mappingModel") as? ManagedObject)
        XCTAssertEqual(model.value(forKey: "sourceModelData") as? Data, Self.coreDataBinary)
        XCTAssertEqual(model.value(forKey: "sourceModelPath") as? String, "Migrations/Moody.xcdatamodeld/Moody 2.xcdatamodel")
        XCTAssertNil(model.value(forKey: "destinationModelData"))
        let properties = try fetch("XDDevPropertyMapping", context)
        XCTAssertEqual(properties.map { $0.entity.name }, ["XDDevRelationshipMapping", "XDDevAttributeMapping", "XDDevRelationshipMapping"])
        XCTAssertNil(properties.last?.value(forKey: "entityMapping"), "moods lists no entity mapping")

        let added = context.insertNewObject(forEntityName: "XDDevAttributeMapping")
        added.setValue("added", forKey: "name")
        try context.save()
        XCTAssertEqual(added.objectID.primaryKey, 133)
        let text = try String(contentsOf: storeURL, encoding: .utf8)
        XCTAssertTrue(text.contains("<UUID>0E82928F-05F0-40AF-851B-1FA617A37DB3</UUID>"), text)
        XCTAssertTrue(text.contains("<nextObjectID>134</nextObjectID>"), text)
    }

    /// Files that are no store are refused with an error naming the file, never read as an
    /// empty store (which the next save would write over) and never changed: an empty file, a
    /// truncated one, a directory, an unknown element in an object, an object without a type.
    /// An attribute without a `type` reads by the model's type.
    func testBrokenFilesAreRefusedAndLeftAlone() throws {
        let writer = try open(Self.graphModel)
        for name in ["Ada", "Bob", "Cy"] { writer.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name") }
        try writer.save()
        let whole = try Data(contentsOf: storeURL)
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("truncated", whole.prefix(whole.count * 2 / 3)),
            ("unknown element", Data("<database>\n<object type=\"PERSON\" id=\"z1\">\n<colour>red</colour>\n</object>\n</database>".utf8)),
            ("no type", Data("<database>\n<object id=\"z1\"></object>\n</database>".utf8)),
        ]
        for (label, data) in cases {
            try data.write(to: storeURL)
            let message = openingError(Self.graphModel)
            XCTAssertTrue(message?.contains(storeURL.path) == true, "\(label): \(message ?? "opened")")
            XCTAssertEqual(try Data(contentsOf: storeURL), data, label)
        }
        try FileManager.default.removeItem(at: storeURL)
        try FileManager.default.createDirectory(at: storeURL, withIntermediateDirectories: false)
        let message = openingError(Self.graphModel)
        XCTAssertTrue(message?.contains(storeURL.path) == true, "directory: \(message ?? "opened")")
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: storeURL.path, isDirectory: &isDirectory) && isDirectory.boolValue)

        try FileManager.default.removeItem(at: storeURL)
        try directory.write("<database>\n<object type=\"PERSON\" id=\"z4\">\n<attribute name=\"name\">Untyped</attribute>\n</object>\n</database>", to: "store.xml")
        let reopened = try open(Self.graphModel)
        XCTAssertEqual(try fetch("Person", reopened).map { $0.value(forKey: "name") as? String }, ["Untyped"])
    }

    // MARK: Atomic writes

    /// An atomic write leaves nothing behind when it fails: Foundation's atomic write (what
    /// Core Data's atomic stores write with) unlinks its temporary file when writing it fails.
    /// Here the write fails part-way (the file size limit is reached): the store's file must be
    /// as before, byte for byte, and no temporary file may stay in the directory.
    func testAWriteThatFailsPartWayLeavesNoTemporaryFileBehind() throws {
        let context = try open(Self.uniqueModel)
        let tag = context.insertNewObject(forEntityName: "Tag")
        tag.setValue("red", forKey: "name")
        try context.save()
        let before = try Data(contentsOf: storeURL)
        tag.setValue(String(repeating: "crimson ", count: 50_000), forKey: "colour")

        // Writes past `before.count + 4096` bytes fail with EFBIG (SIGXFSZ ignored) while the
        // save runs; both are put back before anything else happens.
        #if !canImport(Glibc)
        throw XCTSkip("the file size limit is set through Glibc")
        #else
        var saved = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &saved), 0)
        var limited = saved
        limited.rlim_cur = rlim_t(before.count + 4096)
        let handler = signal(SIGXFSZ, SIG_IGN)
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limited), 0)
        let result = Result { try context.save() }
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &saved)
        signal(SIGXFSZ, handler)
        #endif

        XCTAssertThrowsError(try result.get())
        XCTAssertEqual(try Data(contentsOf: storeURL), before, "the store's file is as before")
        XCTAssertEqual(try filesBesideTheStore(), ["store.xml"], "a temporary file was left behind")
        let other = self.context(on: try XCTUnwrap(context.persistentStoreCoordinator))
        XCTAssertEqual(try fetch("Tag", other).map { $0.value(forKey: "colour") as? String }, [nil], "the rows are as before")
    }

    /// Replacing the file at each save must not change who may read it: Foundation's atomic
    /// write on Apple's platforms gives the new file the mode of the one it replaces, so a store
    /// the user made private (0600) stays private after a save.
    func testASaveKeepsTheFilesPermissions() throws {
        let context = try open(Self.uniqueModel)
        context.insertNewObject(forEntityName: "Tag").setValue("red", forKey: "name")
        try context.save()
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: storeURL.path)
        context.insertNewObject(forEntityName: "Tag").setValue("blue", forKey: "name")
        try context.save()
        let mode = (try FileManager.default.attributesOfItem(atPath: storeURL.path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode.map { String($0, radix: 8) }, "600")
    }

    /// A save into the XML store and another store that the other store refuses (a uniqueness
    /// conflict) changes neither: the XML file byte for byte, its rows, and no temporary file.
    func testASaveAnotherStoreRefusesLeavesTheXMLFileAndRowsAsBefore() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.splitModel)
        try coordinator.addPersistentStore(type: .xml, configuration: "Local", at: storeURL)
        try coordinator.addPersistentStore(type: .sqlite, configuration: "Shared", at: directory.url.appendingPathComponent("shared.sqlite"))
        let context = context(on: coordinator)
        let draft = context.insertNewObject(forEntityName: "Draft")
        draft.setValue("first", forKey: "title")
        context.insertNewObject(forEntityName: "Label").setValue("a", forKey: "name")
        try context.save()
        let before = try Data(contentsOf: storeURL)
        let filesBefore = try filesBesideTheStore()

        draft.setValue("changed", forKey: "title")
        context.insertNewObject(forEntityName: "Draft").setValue("second", forKey: "title")
        context.insertNewObject(forEntityName: "Label").setValue("a", forKey: "name")
        XCTAssertThrowsError(try context.save())
        XCTAssertEqual(try Data(contentsOf: storeURL), before)
        XCTAssertEqual(try filesBesideTheStore(), filesBefore)
        let other = self.context(on: coordinator)
        XCTAssertEqual(try fetch("Draft", other, sortedBy: "title").map { $0.value(forKey: "title") as? String }, ["first"])
    }

    /// Many objects in one save (with relationships) are all in the file and read back.
    func testASaveOfManyObjectsReadsBack() throws {
        let writer = try open(Self.graphModel)
        for index in 0..<2_000 {
            let person = writer.insertNewObject(forEntityName: "Person")
            person.setValue(String(format: "person %05d", index), forKey: "name")
            for pet in 0..<3 {
                let object = writer.insertNewObject(forEntityName: "Pet")
                object.setValue("pet \(index)-\(pet)", forKey: "name")
                object.setValue(person, forKey: "owner")
            }
        }
        try writer.save()

        let reader = try open(Self.graphModel)
        let people = try fetch("Person", reader)
        XCTAssertEqual(people.count, 2_000)
        XCTAssertEqual(try fetch("Pet", reader).count, 6_000)
        XCTAssertEqual(names(people[1_234].value(forKey: "pets")), ["pet 1234-0", "pet 1234-1", "pet 1234-2"])
        XCTAssertEqual(people.last?.value(forKey: "petCount") as? Int64, 3)
    }

    // MARK: Stores

    /// An atomic store is read when it is added: a second coordinator that added the file
    /// before the first saved does not see that save (as with Core Data's atomic stores) until
    /// it adds the store again, when it sees all of it under the same object IDs.
    func testASecondCoordinatorSeesTheFileAsItWasWhenItAddedTheStore() throws {
        let first = try open(Self.graphModel)
        first.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
        try first.save()
        let second = try open(Self.graphModel)
        let bob = first.insertNewObject(forEntityName: "Person")
        bob.setValue("Bob", forKey: "name")
        try first.save()
        XCTAssertEqual(try fetch("Person", second).map { $0.value(forKey: "name") as? String }, ["Ada"])

        let coordinator = try XCTUnwrap(second.persistentStoreCoordinator)
        try coordinator.remove(try XCTUnwrap(coordinator.persistentStores.first))
        try coordinator.addPersistentStore(type: .xml, at: storeURL)
        let again = context(on: coordinator)
        XCTAssertEqual(try fetch("Person", again).map { $0.value(forKey: "name") as? String }, ["Ada", "Bob"])
        XCTAssertEqual(try again.existingObject(with: bob.objectID).value(forKey: "name") as? String, "Bob")
    }

    /// Core Data's replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:
    /// sourceOptions:type:) works for every store type (an atomic store is copied as its file):
    /// the destination then holds the source's objects.
    func testReplacePersistentStoreWithTheXMLType() throws {
        let sourceURL = directory.url.appendingPathComponent("source.xml")
        let source = try open(Self.graphModel, at: sourceURL)
        source.insertNewObject(forEntityName: "Person").setValue("From the source", forKey: "name")
        try source.save()
        let destination = try open(Self.graphModel)
        destination.insertNewObject(forEntityName: "Person").setValue("Replaced", forKey: "name")
        try destination.save()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.graphModel)

        XCTAssertNoThrow(try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: sourceURL, type: .xml))
        let reopened = try open(Self.graphModel)
        XCTAssertEqual(try fetch("Person", reopened).map { $0.value(forKey: "name") as? String }, ["From the source"])
    }

    /// destroyPersistentStore with the XML type removes the store from its coordinator and its
    /// file; adding the store again starts empty.
    func testDestroyPersistentStoreRemovesTheXMLStore() throws {
        let context = try open(Self.graphModel)
        context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
        try context.save()
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        try coordinator.destroyPersistentStore(at: storeURL, type: .xml)
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeURL.path))
        let reopened = try open(Self.graphModel)
        XCTAssertEqual(try fetch("Person", reopened).count, 0)
    }

    /// migratePersistentStore from XML to SQLite and back to XML keeps every object, its
    /// values, its relationships (ordered ones in order) and its sub-entity.
    func testMigratingFromXMLToSQLiteAndBackKeepsTheGraph() throws {
        let writer = try open(Self.graphModel)
        let folder = writer.insertNewObject(forEntityName: "Folder")
        folder.setValue("docs", forKey: "name")
        let note = writer.insertNewObject(forEntityName: "Note")
        note.setValue("n", forKey: "name")
        let photo = writer.insertNewObject(forEntityName: "Photo")
        photo.setValue("p", forKey: "name")
        folder.setValue([photo, note], forKey: "items")
        let ada = writer.insertNewObject(forEntityName: "Person")
        ada.setValue("Ada", forKey: "name")
        let rex = writer.insertNewObject(forEntityName: "Pet")
        rex.setValue("Rex", forKey: "name")
        rex.setValue(ada, forKey: "owner")
        ada.setValue(rex, forKey: "favorite")
        try writer.save()

        let coordinator = try XCTUnwrap(writer.persistentStoreCoordinator)
        let sqlite = try coordinator.migratePersistentStore(try XCTUnwrap(coordinator.persistentStores.first),
                                                            to: directory.url.appendingPathComponent("moved.sqlite"), type: .sqlite)
        let backURL = directory.url.appendingPathComponent("back.xml")
        _ = try coordinator.migratePersistentStore(sqlite, to: backURL, type: .xml)

        let reader = try open(Self.graphModel, at: backURL)
        let read = try XCTUnwrap(try fetch("Folder", reader).first)
        XCTAssertEqual((read.value(forKey: "items") as? OrderedSet<ManagedObject>)?.elements.map { $0.entity.name }, ["Photo", "Note"])
        let person = try XCTUnwrap(try fetch("Person", reader).first)
        XCTAssertEqual(names(person.value(forKey: "pets")), ["Rex"])
        XCTAssertEqual((person.value(forKey: "favorite") as? ManagedObject)?.value(forKey: "name") as? String, "Rex")
        XCTAssertEqual(person.value(forKey: "petCount") as? Int64, 1)
    }

    /// An XML store for one configuration beside a store for another: each entity's objects go
    /// to their configuration's store, the XML file holds only its own, and both read back.
    func testAnXMLStoreForOneConfigurationBesideAnotherStore() throws {
        let sharedURL = directory.url.appendingPathComponent("shared.sqlite")
        func stack() throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.splitModel)
            try coordinator.addPersistentStore(type: .sqlite, configuration: "Shared", at: sharedURL)
            try coordinator.addPersistentStore(type: .xml, configuration: "Local", at: storeURL)
            return context(on: coordinator)
        }
        let writer = try stack()
        let draft = writer.insertNewObject(forEntityName: "Draft")
        draft.setValue("letter", forKey: "title")
        writer.insertNewObject(forEntityName: "Label").setValue("urgent", forKey: "name")
        try writer.save()
        let xml = try XCTUnwrap(writer.persistentStoreCoordinator?.persistentStores.first { $0.type == .xml })
        XCTAssertEqual(draft.objectID.storeIdentifier, xml.identifier)
        let text = try String(contentsOf: storeURL, encoding: .utf8)
        XCTAssertTrue(text.contains("letter"), text)
        XCTAssertFalse(text.contains("urgent") || text.contains("LABEL"), text)

        let reader = try stack()
        XCTAssertEqual(try fetch("Draft", reader, sortedBy: "title").map { $0.value(forKey: "title") as? String }, ["letter"])
        XCTAssertEqual(try fetch("Label", reader).map { $0.value(forKey: "name") as? String }, ["urgent"])
    }

    /// Core Data reads a store's metadata without adding it (metadataForPersistentStore(ofType:
    /// at:)): here a store made for the file and not loaded has the file's metadata, property
    /// list values of every kind included.
    func testMetadataReadsWithoutAddingTheStore() throws {
        let context = try open(Self.graphModel)
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        var metadata = store.metadata
        metadata["Owner"] = "Ada & <Bob>"
        metadata["Count"] = 3
        metadata["Ratio"] = 0.25
        metadata["Flag"] = true
        metadata["Blob"] = Data([1, 2, 3])
        metadata["When"] = Date(timeIntervalSinceReferenceDate: 800_000_000)
        metadata["List"] = ["a", "b"]
        metadata["Nested"] = ["inner": "value"]
        store.metadata = metadata
        context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
        try context.save()

        let unloaded = try XMLStore(url: storeURL)
        let read = unloaded.metadata
        XCTAssertEqual(read["UUID"] as? String, store.identifier)
        XCTAssertEqual(read["StoreType"] as? String, "XML")
        XCTAssertEqual(read["Owner"] as? String, "Ada & <Bob>")
        XCTAssertEqual(read["Count"] as? Int, 3)
        XCTAssertEqual(read["Ratio"] as? Double, 0.25)
        XCTAssertEqual(read["Flag"] as? Bool, true)
        XCTAssertEqual(read["Blob"] as? Data, Data([1, 2, 3]))
        XCTAssertEqual(read["When"] as? Date, Date(timeIntervalSinceReferenceDate: 800_000_000))
        XCTAssertEqual((read["List"] as? [any Sendable])?.compactMap { $0 as? String }, ["a", "b"])
        XCTAssertEqual((read["Nested"] as? [String: any Sendable])?["inner"] as? String, "value")
        XCTAssertNotNil(read[XMLStore.versionHashesKey] as? [String: Data])
    }

    /// Metadata is the user's (setMetadata(_:for:)): a string in it may hold any character. A
    /// save that succeeds must leave a file that opens; refusing the save would do too.
    func testMetadataWithACharacterXMLCannotHoldDoesNotMakeTheFileUnreadable() throws {
        let context = try open(Self.graphModel)
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        var metadata = store.metadata
        metadata["Separator"] = "fields\u{1F}separated\u{1}by control characters"
        store.metadata = metadata
        context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
        do { try context.save() } catch { return }

        do {
            let reader = try open(Self.graphModel)
            XCTAssertEqual(try fetch("Person", reader).count, 1)
            XCTAssertEqual(reader.persistentStoreCoordinator?.persistentStores.first?.metadata["Separator"] as? String,
                           "fields\u{1F}separated\u{1}by control characters")
        } catch {
            XCTFail("the store wrote a file it cannot open: \(error)")
        }
    }

    /// Uniqueness constraints and optimistic locking hold on rows read from the file: a
    /// duplicate of a stored value is refused (the file unchanged), and two contexts changing
    /// one object conflict. Batch requests, which Core Data runs in SQLite stores only, are
    /// refused and leave the file alone.
    func testConstraintsLockingAndBatchRequestsOnRowsReadFromTheFile() throws {
        do {
            let writer = try open(Self.uniqueModel)
            writer.insertNewObject(forEntityName: "Tag").setValue("red", forKey: "name")
            try writer.save()

            let reader = try open(Self.uniqueModel)
            let before = try Data(contentsOf: storeURL)
            reader.insertNewObject(forEntityName: "Tag").setValue("red", forKey: "name")
            XCTAssertThrowsError(try reader.save(), "a duplicate of a value read from the file")
            XCTAssertEqual(try Data(contentsOf: storeURL), before)
            reader.rollback()

            let coordinator = try XCTUnwrap(reader.persistentStoreCoordinator)
            let one = self.context(on: coordinator), two = self.context(on: coordinator)
            let inOne = try XCTUnwrap(try fetch("Tag", one).first)
            let inTwo = try XCTUnwrap(try fetch("Tag", two).first)
            XCTAssertEqual(inTwo.value(forKey: "name") as? String, "red")
            inOne.setValue("scarlet", forKey: "colour")
            try one.save()
            inTwo.setValue("crimson", forKey: "colour")
            XCTAssertThrowsError(try two.save(), "an optimistic locking conflict")
            let reopened = try open(Self.uniqueModel)
            XCTAssertEqual(try fetch("Tag", reopened).map { $0.value(forKey: "colour") as? String }, ["scarlet"])
        }
        try FileManager.default.removeItem(at: storeURL)
        do {
            let context = try open(Self.graphModel)
            context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
            try context.save()
            let before = try Data(contentsOf: storeURL)
            let entity = try XCTUnwrap(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"])
            XCTAssertThrowsError(try context.execute(BatchDeleteRequest(entity: entity)))
            XCTAssertEqual(try Data(contentsOf: storeURL), before)
            let reopened = try open(Self.graphModel)
            XCTAssertEqual(try fetch("Person", reopened).count, 1)
        }
    }

    // MARK: Core Data's file

    /// The bytes of the binary attribute in the Core Data file (written over two lines).
    static let coreDataBinary = Data("bplist00\u{0}\u{1}\u{2}mapping model data".utf8)

    /// A store file in Core Data's exact form (from the corpus's Moody mapping models, cut
    /// down): metadata with or without Core Data's version hashes.
    static func coreDataFile(withVersionHashes: Bool) -> String {
        let base64 = coreDataBinary.base64EncodedString()
        let split = base64.index(base64.startIndex, offsetBy: 16)
        let hashes = withVersionHashes ? """
                                <key>NSStoreModelVersionHashes</key>
                                <dict>
                                    <key>XDDevAttributeMapping</key>
                                    <data>
            \t\t0plcXXRN7XHKl5CcF+fwriFmUpON3ZtcI/AfK748aWc=
            \t\t</data>
                                    <key>XDDevEntityMapping</key>
                                    <data>
            \t\tqeN1Ym3TkWN1G6dU9RfX6Kd2ccEvcDVWHpd3LpLgboI=
            \t\t</data>
                                    <key>XDDevMappingModel</key>
                                    <data>
            \t\tEqtMzvRnVZWkXwBHu4VeVGy8UyoOe+bi67KC79kphlQ=
            \t\t</data>
                                    <key>XDDevPropertyMapping</key>
                                    <data>
            \t\tXN33V44TTGY4JETlMoOB5yyTKxB+u4slvDIinv0rtGA=
            \t\t</data>
                                    <key>XDDevRelationshipMapping</key>
                                    <data>
            \t\takYY9LhehVA/mCb4ATLWuI9XGLcjpm14wWL1oEBtIcs=
            \t\t</data>
                                </dict>

            """ : ""
        return """
            <?xml version="1.0" standalone="no"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

            <database>
                <databaseInfo>
                    <version>134481920</version>
                    <UUID>0E82928F-05F0-40AF-851B-1FA617A37DB3</UUID>
                    <nextObjectID>133</nextObjectID>
                    <metadata>
                        <plist version="1.0">
                            <dict>
                                <key>NSPersistenceFrameworkVersion</key>
                                <integer>640</integer>
            \(hashes)                    <key>NSStoreModelVersionHashesVersion</key>
                                <integer>3</integer>
                                <key>NSStoreModelVersionIdentifiers</key>
                                <array>
                                    <string></string>
                                </array>
                            </dict>
                        </plist>
                    </metadata>
                </databaseInfo>
                <object type="XDDEVATTRIBUTEMAPPING" id="z102">
                    <attribute name="name" type="string">markedForRemoteDeletion</attribute>
                    <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z107"></relationship>
                </object>
                <object type="XDDEVRELATIONSHIPMAPPING" id="z104">
                    <attribute name="autogenerateexpression" type="bool">1</attribute>
                    <attribute name="name" type="string">countries</attribute>
                    <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z107"></relationship>
                </object>
                <object type="XDDEVRELATIONSHIPMAPPING" id="z106">
                    <attribute name="autogenerateexpression" type="bool">1</attribute>
                    <attribute name="name" type="string">moods</attribute>
                    <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING"></relationship>
                </object>
                <object type="XDDEVENTITYMAPPING" id="z107">
                    <attribute name="migrationpolicyclassname" type="string"></attribute>
                    <attribute name="sourcename" type="string">Continent</attribute>
                    <attribute name="mappingtypename" type="string">Undefined</attribute>
                    <attribute name="mappingnumber" type="int16">3</attribute>
                    <attribute name="destinationname" type="string">Continent</attribute>
                    <attribute name="autogenerateexpression" type="bool">1</attribute>
                    <relationship name="mappingmodel" type="1/1" destination="XDDEVMAPPINGMODEL" idrefs="z126"></relationship>
                    <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z102"></relationship>
                    <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z104"></relationship>
                </object>
                <object type="XDDEVMAPPINGMODEL" id="z126">
                    <attribute name="sourcemodelpath" type="string">Migrations/Moody.xcdatamodeld/Moody 2.xcdatamodel</attribute>
                    <attribute name="sourcemodeldata" type="binary">\(base64[..<split])
            \(base64[split...])
            </attribute>
                    <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z107"></relationship>
                </object>
            </database>
            """
    }
}
