// The XML store, Core Data's NSXMLStoreType: an atomic store (``AtomicStore``), read whole when
// it loads and written whole at each save.
//
// The file is Core Data's XML store format: a <database> whose <databaseInfo> holds the format
// version, the store's UUID, the next object number and the metadata as a property list, and an
// <object> per row, typed by its entity's name in capitals and named "z" and its number, holding
// an <attribute> per value that is not nil (its name in lower case, its type, the value as text)
// and a <relationship> per relationship with destinations (`idrefs`, in order). The metadata also
// keeps, under `ObjectGraphModel`, the XML of the model the file was written with, which a
// lightweight migration reads (Core Data ignores metadata keys it does not know).
import Foundation

/// A store kept in one XML file, read whole when it loads and written whole at each save.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .xml, at: URL(fileURLWithPath: "Organizer.xml"))
/// ```
///
/// Fetches are evaluated in memory, as the in-memory store's are. A file that is not a store,
/// or that names an entity, property or object the model does not have, fails to load with the
/// line that does; a save that cannot write the file changes neither the file nor the store.
public final class XMLStore: AtomicStore, @unchecked Sendable {
    /// The file as read when the store was made, until ``load(model:)`` turns it into rows.
    var document: XMLTreeElement?
    /// The model's entities that have rows here, by the names the file types objects with.
    private var entitiesByTypeName: [String: EntityDescription] = [:]
    /// The name each held entity's objects are typed with in the file, by entity.
    private var typeNames: [ObjectIdentifier: String] = [:]

    /// The `<version>` Core Data writes in its XML stores.
    static let formatVersion = "134481920"

    /// A store for the entities of `configurationName` (nil: all) in the file at `url`, read now
    /// if it exists (a new file is written at the first save). `options` as the SQLite store
    /// takes them: ``SQLiteStore/readOnlyOption``; `"identifier"` fixes a new store's UUID.
    public init(configurationName: String? = nil, url: URL, options: [String: any Sendable] = [:]) throws {
        var header: FileHeader?
        if let data = try Self.fileData(at: url, options: options) {
            let root: XMLTreeElement
            do {
                root = try XMLTree.parse(data, path: url.path)
            } catch {
                throw StoreError.io(path: url.path, reason: "line \(error.line), column \(error.column): malformed XML: \(error.message)")
            }
            guard root.name == "database" else {
                throw StoreError.io(path: url.path, reason: "line \(root.line): the root element is <\(root.name)>, expected <database> (not an XML store)")
            }
            header = try Self.header(of: root, path: url.path)
            document = root
        }
        super.init(type: .xml, configurationName: configurationName, url: url, options: options, header: header)
    }

    /// The UUID, next object number and metadata of the file's `<databaseInfo>`.
    private static func header(of root: XMLTreeElement, path: String) throws -> FileHeader {
        var header = FileHeader()
        guard let info = root.children(named: "databaseInfo").first else { return header }
        header.identifier = info.children(named: "UUID").first.map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
        if let number = info.children(named: "nextObjectID").first {
            guard let next = Int64(number.text.trimmingCharacters(in: .whitespacesAndNewlines)), next > 0 else {
                throw StoreError.io(path: path, reason: "line \(number.line): <nextObjectID> is \"\(number.text)\", expected a positive number")
            }
            header.nextObjectNumber = next
        }
        if let list = info.children(named: "metadata").first?.children(named: "plist").first?.children.first {
            do {
                header.metadata = try PropertyListElement.dictionary(from: list)
            } catch {
                throw StoreError.io(path: path, reason: "line \(error.line): the metadata: \(error.message)")
            }
            header.model = (header.metadata.removeValue(forKey: Self.modelKey) as? String).map { Data($0.utf8) }
        }
        return header
    }

    /// The metadata key under which the file keeps the XML of the model it was written with
    /// (for migration; not part of ``metadata``).
    static let modelKey = "ObjectGraphModel"

    override func reader(configuration: String?, options: [String: any Sendable]) throws -> AtomicStore {
        try XMLStore(configurationName: configuration, url: fileURL, options: options)
    }

    /// Works out the names the file types the held entities' objects with.
    override func heldEntitiesDidChange() {
        typeNames = Dictionary(heldEntities.map { (ObjectIdentifier($0), XMLStoreFormat.typeName(of: $0, among: heldEntities)) },
                               uniquingKeysWith: { first, _ in first })
        entitiesByTypeName = Dictionary(heldEntities.map { (typeNames[ObjectIdentifier($0)]!, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads the file's objects into rows.
    override func readFile() throws {
        if let document {
            try readObjects(of: document)
            self.document = nil
        }
    }

    // MARK: Reading

    /// A failure of the file at `line`.
    private func failure(_ line: Int, _ message: String) -> StoreError {
        StoreError.io(path: fileURL.path, reason: "line \(line): \(message)")
    }

    /// The entity objects typed `name` belong to: by the name the file gives, or its entity's
    /// name in any case.
    private func entity(typed name: String) -> EntityDescription? {
        entitiesByTypeName[name] ?? heldEntities.first { $0.name == name } ?? heldEntities.first { $0.name.uppercased() == name.uppercased() }
    }

    /// Reads every `<object>` of `root` into the rows: first their IDs, then their values, with
    /// each relationship the file lists on one side only completed from the other.
    private func readObjects(of root: XMLTreeElement) throws {
        var idsByName: [String: ObjectID] = [:]
        var objects: [(element: XMLTreeElement, id: ObjectID)] = []
        for element in root.children(named: "object") {
            let name = element[attribute: "id"] ?? ""
            guard name.first == "z", let number = Int64(name.dropFirst()), number > 0 else {
                throw failure(element.line, "an <object> has the id \"\(name)\", expected z followed by a positive number")
            }
            let typeName = element[attribute: "type"] ?? ""
            guard let entity = entity(typed: typeName) else {
                throw failure(element.line, "object \(name) has the type \"\(typeName)\", which is no entity of the store's model and configuration")
            }
            guard idsByName[name] == nil else { throw failure(element.line, "a second object has the id \(name)") }
            let id = ObjectID(entity: entity, storeTag: rows.storeTag, primaryKey: number)
            idsByName[name] = id
            objects.append((element, id))
        }
        var rowValues: [ObjectID: [SnapshotValue]] = [:]
        var listed: Set<RelationshipSide> = []
        for (element, id) in objects {
            let layout = id.entity.layout
            var values = Self.emptyValues(for: layout)
            for child in element.children {
                let name = child[attribute: "name"] ?? ""
                switch child.name {
                case "attribute":
                    guard let index = XMLStoreFormat.slot(named: name, in: layout), layout.isStoredSlot[index],
                          let attribute = layout.properties[index] as? AttributeDescription else {
                        throw failure(child.line, "\(id.entity.name) has no stored attribute \"\(name)\"")
                    }
                    do {
                        values[index] = try XMLStoreFormat.value(of: child, for: attribute)
                    } catch let error as XMLStoreFormat.ValueError {
                        throw failure(child.line, "\(attribute.qualifiedName): \(error.message)")
                    } catch {
                        throw failure(child.line, "\(attribute.qualifiedName): \(error)")
                    }
                case "relationship":
                    guard let index = XMLStoreFormat.slot(named: name, in: layout), layout.isStoredSlot[index],
                          let relationship = layout.properties[index] as? RelationshipDescription else {
                        throw failure(child.line, "\(id.entity.name) has no stored relationship \"\(name)\"")
                    }
                    let references = (child[attribute: "idrefs"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
                    let destinations = try references.map { reference -> ObjectID in
                        guard let destination = idsByName[reference] else {
                            throw failure(child.line, "\(relationship.qualifiedName) refers to \(reference), which is no object of the store")
                        }
                        if let expected = relationship.destinationEntity, !destination.entity.isKind(of: expected) {
                            throw failure(child.line, "\(relationship.qualifiedName) refers to \(reference), a \(destination.entity.name), not a \(expected.name)")
                        }
                        return destination
                    }
                    if relationship.isToMany {
                        values[index] = .objects(destinations)
                    } else {
                        guard destinations.count <= 1 else {
                            throw failure(child.line, "\(relationship.qualifiedName) is to-one but lists \(destinations.count) objects")
                        }
                        values[index] = destinations.first.map { .object($0) } ?? .null
                    }
                    listed.insert(RelationshipSide(object: id, slot: index))
                default:
                    throw failure(child.line, "unknown element <\(child.name)> in object \(element[attribute: "id"] ?? "")")
                }
            }
            rowValues[id] = values
        }
        completeInverses(of: &rowValues, listed: listed, objects: objects.map(\.id))
        store(objects.map { ($0.id, rowValues[$0.id]!) })
    }

    /// A relationship of one object, by slot.
    private struct RelationshipSide: Hashable {
        var object: ObjectID
        var slot: Int
    }

    /// Fills the relationships the file did not list for an object from their inverses the file
    /// lists for others (a file may list one side of a relationship only).
    private func completeInverses(of rowValues: inout [ObjectID: [SnapshotValue]], listed: Set<RelationshipSide>, objects: [ObjectID]) {
        // Destinations by (destination, inverse relationship name), in the file's order.
        var pointingAt: [String: [ObjectID]] = [:]
        for id in objects {
            let layout = id.entity.layout
            for index in layout.relationshipIndexes where listed.contains(RelationshipSide(object: id, slot: index)) {
                guard let relationship = layout.properties[index] as? RelationshipDescription,
                      let inverse = relationship.inverseRelationship else { continue }
                switch rowValues[id]![index] {
                case .object(let destination): pointingAt["\(destination.uriRepresentation) \(inverse.name)", default: []].append(id)
                case .objects(let destinations):
                    for destination in destinations { pointingAt["\(destination.uriRepresentation) \(inverse.name)", default: []].append(id) }
                default: break
                }
            }
        }
        guard !pointingAt.isEmpty else { return }
        for id in objects {
            let layout = id.entity.layout
            for index in layout.relationshipIndexes where !listed.contains(RelationshipSide(object: id, slot: index)) && layout.isStoredSlot[index] {
                guard let relationship = layout.properties[index] as? RelationshipDescription,
                      let sources = pointingAt["\(id.uriRepresentation) \(relationship.name)"] else { continue }
                rowValues[id]![index] = relationship.isToMany ? .objects(sources) : .object(sources[0])
            }
        }
    }

    // MARK: Writing

    override func fileContents() throws -> Data {
        Data(try documentText().utf8)
    }

    /// The whole store as the file's text (the rows' lock and the store's held).
    private func documentText() throws -> String {
        var out = XMLOutput()
        out.line("<?xml version=\"1.0\" standalone=\"no\"?>")
        out.line("<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">")
        out.line("")
        out.open("database", [])
        out.open("databaseInfo", [])
        out.line("<version>\(Self.formatVersion)</version>")
        out.line("<UUID>\(XMLOutput.escape(uuidToWrite))</UUID>")
        out.line("<nextObjectID>\(nextObjectNumber)</nextObjectID>")
        out.open("metadata", [])
        out.open("plist", [("version", "1.0")])
        var metadata = metadataToWrite
        if let model = modelToWrite { metadata[Self.modelKey] = String(decoding: model, as: UTF8.self) }
        PropertyListElement.write(metadata, to: &out)
        out.close("plist")
        out.close("metadata")
        out.close("databaseInfo")
        func typeName(_ entity: EntityDescription) -> String {
            typeNames[ObjectIdentifier(entity)] ?? entity.name.uppercased()
        }
        var namesByLayout: [ObjectIdentifier: [String]] = [:]
        for row in rows.table.rows(of: heldEntities) {
            guard let number = row.objectID.primaryKey else { continue }
            let layout = row.layout
            let names = namesByLayout[ObjectIdentifier(layout)] ?? XMLStoreFormat.fileNames(of: layout)
            namesByLayout[ObjectIdentifier(layout)] = names
            out.open("object", [("type", typeName(row.objectID.entity)), ("id", "z\(number)")])
            for index in layout.kinds.indices where layout.isStoredSlot[index] {
                let name = names[index]
                switch layout.kinds[index] {
                case .attribute:
                    guard let attribute = layout.properties[index] as? AttributeDescription,
                          let (type, text, base64) = try XMLStoreFormat.text(of: row.values[index], for: attribute) else { continue }
                    let encoding = base64 ? " encoding=\"base64\"" : ""
                    out.line("<attribute name=\"\(XMLOutput.escape(name))\" type=\"\(type)\"\(encoding)>\(XMLOutput.escape(text))</attribute>")
                case .toOne, .toMany:
                    guard let relationship = layout.properties[index] as? RelationshipDescription else { continue }
                    // A destination without a row (a one-way relationship's, deleted since) is not
                    // written: the file would not read back.
                    let destinations = writtenDestinations(ofSlot: index, in: row)
                    guard !destinations.isEmpty else { continue }
                    let references = destinations.compactMap { $0.primaryKey.map { "z\($0)" } }.joined(separator: " ")
                    let destination = relationship.destinationEntity.map(typeName) ?? ""
                    out.line("<relationship name=\"\(XMLOutput.escape(name))\" type=\"\(relationship.isToMany ? "0/0" : "1/1")\" "
                             + "destination=\"\(XMLOutput.escape(destination))\" idrefs=\"\(references)\"></relationship>")
                case .fetched:
                    continue
                }
            }
            out.close("object")
        }
        out.close("database")
        return out.text
    }
}
