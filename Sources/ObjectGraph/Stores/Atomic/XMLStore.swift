// The XML store, Core Data's NSXMLStoreType: an atomic store. The whole file is read when the
// store loads and its rows are kept in memory, where an in-memory store answers every request;
// each save writes the whole file again, to a temporary file beside it that then replaces it in
// one rename, so that the file on disk is always a whole store, the one before the save or the
// one after it.
//
// The file is Core Data's XML store format: a <database> whose <databaseInfo> holds the format
// version, the store's UUID, the next object number and the metadata as a property list, and an
// <object> per row, typed by its entity's name in capitals and named "z" and its number, holding
// an <attribute> per value that is not nil (its name in lower case, its type, the value as text)
// and a <relationship> per relationship with destinations (`idrefs`, in order).
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
public final class XMLStore: PersistentStore, StoreCopying, @unchecked Sendable {
    /// Always ``StoreType/xml``.
    public let type = StoreType.xml
    /// The store's UUID, kept in the file.
    public let identifier: String
    public let url: URL?
    public let configurationName: String?
    /// Whether the store was opened with ``SQLiteStore/readOnlyOption``: saves into it throw.
    public let isReadOnly: Bool
    /// The file.
    let fileURL: URL
    /// The rows, in memory: every request but saving goes to them.
    let rows: InMemoryStore

    /// Guards the properties below.
    let lock = NSLock()
    /// The file as read when the store was made, until ``load(model:)`` turns it into rows.
    var document: XMLTreeElement?
    /// The number of the next new object (one sequence for every entity, as Core Data's file has).
    private var nextObjectNumber: Int64 = 1
    private var storedMetadata: [String: any Sendable]
    /// A save written to a temporary file, with the rows as they were before it.
    private var prepared: (contents: RowTable.Contents, file: URL)?
    /// The model's entities that have rows here, by the names the file types objects with.
    private var entitiesByTypeName: [String: EntityDescription] = [:]
    /// The name each held entity's objects are typed with in the file, by entity.
    private var typeNames: [ObjectIdentifier: String] = [:]
    private var heldEntities: [EntityDescription] = []

    /// The `<version>` Core Data writes in its XML stores.
    static let formatVersion = "134481920"
    /// The metadata key of the model's version hashes: the in-memory and SQLite stores' key.
    static let versionHashesKey = SQLiteStore.versionHashesKey

    /// A store for the entities of `configurationName` (nil: all) in the file at `url`, read now
    /// if it exists (a new file is written at the first save). `options` as the SQLite store
    /// takes them: ``SQLiteStore/readOnlyOption``; `"identifier"` fixes a new store's UUID.
    public init(configurationName: String? = nil, url: URL, options: [String: any Sendable] = [:]) throws {
        fileURL = url
        self.url = url
        self.configurationName = configurationName
        isReadOnly = options[SQLiteStore.readOnlyOption] as? Bool ?? false
        var metadata: [String: any Sendable] = [:]
        var fileUUID: String?
        if FileManager.default.fileExists(atPath: url.path) {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw StoreError.io(path: url.path, reason: "cannot read the store: \(error.localizedDescription)")
            }
            let root: XMLTreeElement
            do {
                root = try XMLTree.parse(data, path: url.path)
            } catch {
                throw StoreError.io(path: url.path, reason: "line \(error.line), column \(error.column): malformed XML: \(error.message)")
            }
            guard root.name == "database" else {
                throw StoreError.io(path: url.path, reason: "line \(root.line): the root element is <\(root.name)>, expected <database> (not an XML store)")
            }
            if let info = root.children(named: "databaseInfo").first {
                fileUUID = info.children(named: "UUID").first.map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
                if let number = info.children(named: "nextObjectID").first {
                    guard let next = Int64(number.text.trimmingCharacters(in: .whitespacesAndNewlines)), next > 0 else {
                        throw StoreError.io(path: url.path, reason: "line \(number.line): <nextObjectID> is \"\(number.text)\", expected a positive number")
                    }
                    nextObjectNumber = next
                }
                if let list = info.children(named: "metadata").first?.children(named: "plist").first?.children.first {
                    do {
                        metadata = try PropertyListElement.dictionary(from: list)
                    } catch {
                        throw StoreError.io(path: url.path, reason: "line \(error.line): the metadata: \(error.message)")
                    }
                }
            }
            document = root
        } else if isReadOnly {
            throw StoreError.io(path: url.path, reason: "there is no store to read (the store is read-only)")
        }
        identifier = fileUUID.flatMap { $0.isEmpty ? nil : $0 } ?? options["identifier"] as? String ?? UUID().uuidString
        var rowOptions = options
        rowOptions["identifier"] = identifier
        rows = InMemoryStore(configurationName: configurationName, url: url, options: rowOptions)
        metadata["StoreType"] = StoreType.xml.rawValue
        metadata["UUID"] = identifier
        storedMetadata = metadata
    }

    /// The store's metadata: `StoreType`, `UUID`, `ModelVersionHashes` and what was set; written
    /// to the file at the next save.
    public var metadata: [String: any Sendable] {
        get { lock.withLock { storedMetadata } }
        set {
            var metadata = newValue
            metadata["StoreType"] = StoreType.xml.rawValue
            if metadata["UUID"] == nil { metadata["UUID"] = identifier }
            lock.withLock { storedMetadata = metadata }
        }
    }

    /// Checks the file's version hashes against `model`'s (a file without them passes), then
    /// reads its objects into rows.
    public func load(model: ManagedObjectModel) throws {
        try rows.load(model: model)
        let hashes = rows.metadata[Self.versionHashesKey] as? [String: Data] ?? [:]
        guard let entities = model.entities(forConfigurationName: configurationName) else {
            throw StoreError.unknownStore("the model has no configuration \"\(configurationName ?? "")\"")
        }
        try lock.withLock {
            // Only the hashes this framework wrote are compared: Core Data computes its own
            // (`NSStoreModelVersionHashes`) differently, so a file it wrote is checked object by
            // object as it is read instead, by the names of its entities and properties.
            if let stored = storedMetadata[Self.versionHashesKey] as? [String: Data],
               stored != hashes, !model.isCompatible(storedHashes: stored, entities: entities) {
                throw StoreError.incompatibleModel(path: fileURL.path, differences: model.versionHashDifferences(from: stored))
            }
            storedMetadata[Self.versionHashesKey] = hashes
            storedMetadata["NSStoreModelVersionHashes"] = nil
            var seen: Set<ObjectIdentifier> = []
            heldEntities = entities.flatMap(\.selfAndDescendants).filter { !$0.isAbstract && seen.insert(ObjectIdentifier($0)).inserted }
            typeNames = Dictionary(heldEntities.map { (ObjectIdentifier($0), XMLStoreFormat.typeName(of: $0, among: heldEntities)) },
                                   uniquingKeysWith: { first, _ in first })
            entitiesByTypeName = Dictionary(heldEntities.map { (typeNames[ObjectIdentifier($0)]!, $0) }, uniquingKeysWith: { first, _ in first })
            if let document {
                try readObjects(of: document)
                self.document = nil
            }
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
        var highest: Int64 = 0
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
            highest = max(highest, number)
        }
        var rowValues: [ObjectID: [SnapshotValue]] = [:]
        var listed: Set<RelationshipSide> = []
        for (element, id) in objects {
            let layout = id.entity.layout
            var values = [SnapshotValue](repeating: .null, count: layout.kinds.count)
            for index in layout.kinds.indices {
                if !layout.isStoredSlot[index] {
                    values[index] = .unloaded
                } else if case .toMany = layout.kinds[index] {
                    values[index] = .objects([])
                }
            }
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
        rows.lock.withLock {
            for id in objects.map(\.id) {
                rows.table.store(Snapshot(objectID: id, version: 1, values: rowValues[id]!))
            }
        }
        nextObjectNumber = max(nextObjectNumber, highest + 1)
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

    // MARK: Requests

    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try rows.execute(request)
    }

    public func snapshots(for objectIDs: [ObjectID]) throws -> [ObjectID: Snapshot] {
        try rows.snapshots(for: objectIDs)
    }

    public func objectIDs(forRelationship relationship: RelationshipDescription, of objectID: ObjectID) throws -> [ObjectID] {
        try rows.objectIDs(forRelationship: relationship, of: objectID)
    }

    /// Permanent IDs numbered from one sequence for every entity, as object names in the file are.
    public func obtainPermanentIDs(for temporaryIDs: [ObjectID]) throws -> [ObjectID] {
        lock.withLock {
            temporaryIDs.map { id in
                guard id.isTemporaryID else { return id }
                defer { nextObjectNumber += 1 }
                return ObjectID(entity: id.entity, storeTag: rows.storeTag, primaryKey: nextObjectNumber)
            }
        }
    }

    // MARK: Saving

    /// Writes the store, as it is now, to a new file at `url` (``PersistentStoreCoordinator/replacePersistentStore(at:withPersistentStoreFrom:options:type:)``).
    public func copy(to url: URL) throws {
        let text = try lock.withLock { try rows.lock.withLock { try documentText() } }
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw StoreError.io(path: url.path, reason: "cannot write the store: \(error.localizedDescription)")
        }
    }

    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        let result = try prepareSave(request)
        try commitPreparedSave()
        return result
    }

    public var supportsPreparedSaves: Bool { true }

    /// Applies the save to the rows and writes the whole store to a temporary file beside the
    /// store's; ``commitPreparedSave()`` puts it in the store's place. Nothing is changed when
    /// the rows refuse the save (conflicts, uniqueness) or the file cannot be written.
    public func prepareSave(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        if isReadOnly {
            throw StoreError.io(path: fileURL.path, reason: "the store is read-only (\(SQLiteStore.readOnlyOption)): a save cannot write to it")
        }
        return try lock.withLock {
            precondition(prepared == nil, "a save was prepared in \(identifier) and neither committed nor rolled back")
            let result = try rows.prepareSave(request)
            let before = rows.lock.withLock { rows.table.contents }
            try rows.commitPreparedSave()
            do {
                let text = try rows.lock.withLock { try documentText() }
                prepared = (before, try writeTemporaryFile(text))
            } catch {
                rows.lock.withLock { rows.table.contents = before }
                throw error
            }
            return result
        }
    }

    /// Puts the prepared file in the store's place (one rename); on failure the rows are put
    /// back as they were before the save, and the store's file is the one before it.
    public func commitPreparedSave() throws {
        try lock.withLock {
            guard let (before, file) = prepared else { return }
            prepared = nil
            if rename(file.path, fileURL.path) != 0 {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: file)
                rows.lock.withLock { rows.table.contents = before }
                throw StoreError.io(path: fileURL.path, reason: "cannot replace the store with its new version: \(reason)")
            }
        }
    }

    /// Puts the rows back as they were before the prepared save, and drops its file.
    public func rollbackPreparedSave() {
        lock.withLock {
            guard let (before, file) = prepared else { return }
            prepared = nil
            try? FileManager.default.removeItem(at: file)
            rows.lock.withLock { rows.table.contents = before }
        }
    }

    public func unload() {
        rows.unload()
    }

    /// Writes `text` to a new file beside the store's, with the store file's permissions, and
    /// returns it; a write that fails leaves no file behind.
    private func writeTemporaryFile(_ text: String) throws -> URL {
        let file = fileURL.deletingLastPathComponent()
            .appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).saving")
        do {
            try Data(text.utf8).write(to: file)
            if let permissions = try? FileManager.default.attributesOfItem(atPath: fileURL.path)[.posixPermissions] {
                try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: file.path)
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw StoreError.io(path: fileURL.path, reason: "cannot write the store: \(error.localizedDescription)")
        }
        return file
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
        out.line("<UUID>\(XMLOutput.escape(identifier))</UUID>")
        out.line("<nextObjectID>\(nextObjectNumber)</nextObjectID>")
        out.open("metadata", [])
        out.open("plist", [("version", "1.0")])
        PropertyListElement.write(storedMetadata, to: &out)
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
                    let destinations = rows.table.destinations(ofSlot: index, in: row).filter { rows.table.row(for: $0) != nil }
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
