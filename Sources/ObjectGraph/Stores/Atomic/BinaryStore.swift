// The binary store, Core Data's NSBinaryStoreType: an atomic store (``AtomicStore``), read whole
// when it loads and written whole at each save, in a compact format of its own
// (``BinaryStoreFormat``): smaller and faster to read and write than the XML store's, not meant
// to be read by people.
import Foundation

/// A store kept in one binary file, read whole when it loads and written whole at each save.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .binary, at: URL(fileURLWithPath: "Organizer.store"))
/// ```
///
/// Fetches are evaluated in memory, as the in-memory store's are. A file that is not a binary
/// store, is cut short, or names an entity, property or object the model does not have, fails to
/// load naming the byte offset of what is wrong; a save that cannot write the file changes
/// neither the file nor the store.
public final class BinaryStore: AtomicStore, @unchecked Sendable {
    /// The file's reader, placed after the header, until ``load(model:)`` reads the objects.
    private var reader: BinaryReader?

    /// A store for the entities of `configurationName` (nil: all) in the file at `url`, read now
    /// if it exists (a new file is written at the first save). `options` as the SQLite store
    /// takes them: ``SQLiteStore/readOnlyOption``; `"identifier"` fixes a new store's UUID.
    public init(configurationName: String? = nil, url: URL, options: [String: any Sendable] = [:]) throws {
        var header: FileHeader?
        if let data = try Self.fileData(at: url, options: options) {
            var reader = BinaryReader(data)
            do {
                header = try Self.header(from: &reader)
            } catch {
                throw StoreError.io(path: url.path, reason: "byte \(error.offset): \(error.message)")
            }
            self.reader = reader
        }
        super.init(type: .binary, configurationName: configurationName, url: url, options: options, header: header)
    }

    /// Whether the file at `url` starts as a binary store does.
    public static func isBinaryStore(at url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: BinaryStoreFormat.magic.count)) == BinaryStoreFormat.magic
    }

    /// The magic bytes, the format version, the UUID, the next object number and the metadata.
    private static func header(from reader: inout BinaryReader) throws(BinaryStoreFormat.ReadError) -> FileHeader {
        let magic = BinaryStoreFormat.magic
        guard (try? reader.raw(magic.count, "the magic bytes")) == magic else {
            throw BinaryStoreFormat.ReadError(offset: 0, message: "the file does not start with \"OGBSTORE\" (not a binary store)")
        }
        let versionOffset = reader.offset
        let version = try reader.varint("the format version")
        guard version == BinaryStoreFormat.version else {
            throw reader.failure("the format version is \(version); this build reads version \(BinaryStoreFormat.version)", at: versionOffset)
        }
        var header = FileHeader()
        header.identifier = try reader.string("the store's UUID")
        let numberOffset = reader.offset
        let next = try reader.varint("the next object number")
        guard next > 0, next <= UInt64(Int64.max) else { throw reader.failure("the next object number is \(next), expected a positive number", at: numberOffset) }
        header.nextObjectNumber = Int64(next)
        let metadataOffset = reader.offset
        let plist = try reader.bytes("the metadata")
        guard let object = try? PropertyListSerialization.propertyList(from: plist, format: nil), let dictionary = object as? [String: Any] else {
            throw reader.failure("the metadata is not a property-list dictionary", at: metadataOffset)
        }
        header.metadata = dictionary.compactMapValues(SQLiteStore.sendablePropertyListValue)
        let model = try reader.bytes("the model")
        header.model = model.isEmpty ? nil : model
        return header
    }

    // MARK: Reading

    /// One object as the file holds it: its entity, number, and values by slot of its layout,
    /// with relationships still as object numbers.
    private struct ReadObject {
        var id: ObjectID
        var offset: Int
        var values: [SnapshotValue]
        var relationships: [(slot: Int, value: BinaryStoreFormat.Value, offset: Int)]
    }

    /// A property of the file's entity table: the slot of the model's property it is (nil: the
    /// model has none of that name and kind), and its kind.
    private struct FileProperty {
        var slot: Int
        var kind: BinaryStoreFormat.PropertyKind
    }

    override func reader(configuration: String?, options: [String: any Sendable]) throws -> AtomicStore {
        try BinaryStore(configurationName: configuration, url: fileURL, options: options)
    }

    override func readFile() throws {
        guard var reader else { return }
        self.reader = nil
        do {
            try readObjects(from: &reader)
        } catch let error as BinaryStoreFormat.ReadError {
            throw StoreError.io(path: fileURL.path, reason: "byte \(error.offset): \(error.message)")
        }
    }

    /// Reads the entity table and every object into rows: first the objects with their
    /// destinations as numbers, then the destinations as IDs, checked against the model.
    private func readObjects(from reader: inout BinaryReader) throws {
        let held = Dictionary(heldEntities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var tables: [(entity: EntityDescription, properties: [FileProperty])] = []
        for entry in try reader.entityTable() {
            guard let entity = held[entry.name] else {
                throw reader.failure("the entity \"\(entry.name)\" is no concrete entity of the store's model and configuration", at: entry.offset)
            }
            let layout = entity.layout
            let properties = try entry.properties.map { property in
                guard let slot = layout.index(of: property.name), layout.isStoredSlot[slot], Self.kind(of: layout.kinds[slot]) == property.kind else {
                    throw reader.failure("\(entry.name) has no stored \(Self.name(of: property.kind)) \"\(property.name)\"", at: property.offset)
                }
                return FileProperty(slot: slot, kind: property.kind)
            }
            tables.append((entity, properties))
        }
        var objects: [ReadObject] = []
        var idsByNumber: [Int64: ObjectID] = [:]
        for _ in 0..<(try reader.count("the number of objects")) {
            let offset = reader.offset
            let tableIndex = try reader.varint("an object's entity")
            guard tableIndex < UInt64(tables.count) else {
                throw reader.failure("an object's entity is number \(tableIndex) of a table of \(tables.count)", at: offset)
            }
            let (entity, properties) = tables[Int(tableIndex)]
            let numberOffset = reader.offset
            let number = try reader.signed("the number of a \(entity.name)")
            guard number > 0 else { throw reader.failure("a \(entity.name) has the number \(number), expected a positive number", at: numberOffset) }
            let id = ObjectID(entity: entity, storeTag: rows.storeTag, primaryKey: number)
            guard idsByNumber.updateValue(id, forKey: number) == nil else {
                throw reader.failure("a second object has the number \(number)", at: numberOffset)
            }
            let layout = entity.layout
            var object = ReadObject(id: id, offset: offset, values: Self.emptyValues(for: layout), relationships: [])
            for property in properties {
                let valueOffset = reader.offset
                let propertyDescription = layout.properties[property.slot]
                let value = try reader.value("\(propertyDescription.qualifiedName) of object \(number)")
                switch (property.kind, value) {
                case (.attribute, .stored(let stored)):
                    guard let attribute = propertyDescription as? AttributeDescription else { continue }
                    if case .integer(let integer) = stored, let range = Self.integerRange(of: attribute.attributeType), !range.contains(integer) {
                        throw reader.failure("\(attribute.qualifiedName) of object \(number): \(integer) is out of the range of \(attribute.attributeType.xcodeName)", at: valueOffset)
                    }
                    do {
                        object.values[property.slot] = try SQLiteValueCoding.decode(stored, of: attribute)
                    } catch {
                        throw reader.failure("\(error)", at: valueOffset)
                    }
                case (.toOne, .stored(.null)):
                    break
                case (.toOne, .object), (.toMany, .objects):
                    object.relationships.append((property.slot, value, valueOffset))
                default:
                    throw reader.failure("\(propertyDescription.qualifiedName) of object \(number) holds a value of the wrong kind", at: valueOffset)
                }
            }
            objects.append(object)
        }
        guard reader.isAtEnd else { throw reader.failure("there are bytes after the last object") }
        for index in objects.indices {
            let layout = objects[index].id.entity.layout
            for (slot, value, offset) in objects[index].relationships {
                guard let relationship = layout.properties[slot] as? RelationshipDescription else { continue }
                func destination(_ number: Int64) throws -> ObjectID {
                    guard let id = idsByNumber[number] else {
                        throw BinaryStoreFormat.ReadError(offset: offset, message: "\(relationship.qualifiedName) refers to object \(number), which is no object of the store")
                    }
                    if let expected = relationship.destinationEntity, !id.entity.isKind(of: expected) {
                        throw BinaryStoreFormat.ReadError(offset: offset, message: "\(relationship.qualifiedName) refers to object \(number), a \(id.entity.name), not a \(expected.name)")
                    }
                    return id
                }
                switch value {
                case .object(let number): objects[index].values[slot] = .object(try destination(number))
                case .objects(let numbers): objects[index].values[slot] = .objects(try numbers.map(destination))
                case .stored: break
                }
            }
        }
        store(objects.map { ($0.id, $0.values) })
    }

    /// The values an integer attribute of `type` takes, for the types narrower than 64 bits.
    private static func integerRange(of type: AttributeType) -> ClosedRange<Int64>? {
        switch type {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        default: return nil
        }
    }

    private static func kind(of kind: SlotKind) -> BinaryStoreFormat.PropertyKind? {
        switch kind {
        case .attribute: return .attribute
        case .toOne: return .toOne
        case .toMany: return .toMany
        case .fetched: return nil
        }
    }

    private static func name(of kind: BinaryStoreFormat.PropertyKind) -> String {
        switch kind {
        case .attribute: return "attribute"
        case .toOne: return "to-one relationship"
        case .toMany: return "to-many relationship"
        }
    }

    // MARK: Writing

    override func fileContents() throws -> Data {
        var out = BinaryWriter()
        out.raw(BinaryStoreFormat.magic)
        out.varint(BinaryStoreFormat.version)
        out.string(uuidToWrite)
        out.varint(UInt64(nextObjectNumber))
        do {
            out.bytes(try PropertyListSerialization.data(fromPropertyList: metadataToWrite as [String: Any], format: .binary, options: 0))
        } catch {
            throw StoreError.unsupportedRequest("the store's metadata holds values that are not property-list values: \(error.localizedDescription)")
        }
        out.bytes(modelToWrite ?? Data())
        // The entity table: each held entity's stored properties, by slot.
        var tableIndex: [ObjectIdentifier: Int] = [:]
        var slots: [[Int]] = []
        out.count(heldEntities.count)
        for entity in heldEntities {
            let layout = entity.layout
            let stored = layout.kinds.indices.filter { layout.isStoredSlot[$0] && Self.kind(of: layout.kinds[$0]) != nil }
            tableIndex[ObjectIdentifier(entity)] = slots.count
            slots.append(stored)
            out.string(entity.name)
            out.count(stored.count)
            for slot in stored {
                out.string(layout.properties[slot].name)
                out.byte(Self.kind(of: layout.kinds[slot])!.rawValue)
            }
        }
        let all = rows.table.rows(of: heldEntities).filter { $0.objectID.primaryKey != nil }
        out.count(all.count)
        for row in all {
            guard let index = tableIndex[ObjectIdentifier(row.objectID.entity)], let number = row.objectID.primaryKey else { continue }
            out.count(index)
            out.signed(number)
            let layout = row.layout
            for slot in slots[index] {
                switch layout.kinds[slot] {
                case .attribute:
                    guard let attribute = layout.properties[slot] as? AttributeDescription else { continue }
                    guard SQLiteValueCoding.isStorable(attribute.attributeType) else {
                        throw StoreError.unsupportedRequest("\(attribute.qualifiedName): \(attribute.attributeType.xcodeName) attributes cannot be stored in a binary store")
                    }
                    out.value(.stored(try Self.storedForm(of: row.values[slot], for: attribute)))
                case .toOne:
                    let destination = writtenDestinations(ofSlot: slot, in: row).first?.primaryKey
                    out.value(destination.map { .object($0) } ?? .stored(.null))
                case .toMany:
                    out.value(.objects(writtenDestinations(ofSlot: slot, in: row).compactMap(\.primaryKey)))
                case .fetched:
                    continue
                }
            }
        }
        return out.data
    }

    /// `value` of `attribute` as the file holds it: the SQLite store's form, with floating-point
    /// values taken as they are (NaN too, which no comparison matches).
    private static func storedForm(of value: SnapshotValue, for attribute: AttributeDescription) throws -> SQLiteValue {
        if case .value(let stored) = value {
            switch attribute.attributeType {
            case .double: if let double = stored as? Double { return .double(double) }
            case .float: if let float = stored as? Float { return .double(Double(float)) }
            default: break
            }
        }
        return try SQLiteValueCoding.encode(value, of: attribute)
    }

    /// The number of objects of each entity the file holds, before the store is loaded (for
    /// ``AtomicStoreInfo``); throws where the file cannot be read.
    func objectCountsInFile() throws -> [String: Int] {
        try lock.withLock {
            guard var reader else { return [:] }
            do throws(BinaryStoreFormat.ReadError) {
                let table = try reader.entityTable()
                let names = table.map(\.name)
                let tables = table.map(\.properties)
                var counts: [String: Int] = [:]
                for _ in 0..<(try reader.count("the number of objects")) {
                    let index = try reader.varint("an object's entity")
                    guard index < UInt64(tables.count) else { throw reader.failure("an object's entity is number \(index) of a table of \(tables.count)") }
                    _ = try reader.signed("an object's number")
                    for _ in tables[Int(index)] { _ = try reader.value("a value") }
                    counts[names[Int(index)], default: 0] += 1
                }
                return counts
            } catch {
                throw StoreError.io(path: fileURL.path, reason: "byte \(error.offset): \(error.message)")
            }
        }
    }
}
