// Keeps one store's external record files in step with its rows (talk 001: "every time you save
// changes in your context, we synchronize the external record files on disc with the state of
// your data store"). After each save the coordinator hands it the rows written and the IDs
// deleted; it reads what a record shows back from the store, rewrites the files whose contents
// changed (a temporary file, then a rename) and deletes the deleted objects' files. Files that
// could not be written are listed in the folder's `.pending` and tried again after the next save,
// in this process or a later one; `synchronize` rebuilds them all.
import Foundation

/// What a full synchronization did.
public struct ExternalRecordsReport: Sendable, Equatable {
    /// Files written because they were missing or their contents changed.
    public var written = 0
    /// Files left alone because they were up to date.
    public var unchanged = 0
    /// Files removed: their object is gone, or its entity keeps no records any more.
    public var removed = 0
}

/// A store's external records: where they are and whether the last saves could write them.
public struct ExternalRecordsStatus: Sendable {
    /// The folder of this store's records, `<records folder>/<store UUID>`.
    public var folder: URL
    /// The format of the files.
    public var format: ExternalRecordFormat
    /// The objects whose files a save could not write (they are tried again after the next
    /// save, also by a later process, and by a full synchronization).
    public var pendingObjectIDs: [ObjectID]
    /// Why the last failed write failed, naming the file.
    public var lastError: StoreError?
}

final class ExternalRecordsSynchronizer: @unchecked Sendable {
    /// How an entity's records are made, worked out once per entity.
    struct Plan {
        enum Kind {
            case attribute(AttributeType)
            case toOne(RelationshipDescription)
            case toMany(RelationshipDescription)
        }

        struct Entry {
            let slot: Int
            let property: String
            let field: String
            let kind: Kind
        }

        let fileExtension: String
        let entries: [Entry]
        let titleSlot: Int?
        /// `<folder>/<Entity>`, the folder of the entity's files.
        let folderPath: String
        /// An object's URI less its key: `x-objectgraph://<store UUID>/<Entity>/p`.
        let uriPrefix: String
    }

    let configuration: ExternalRecordsConfiguration
    let storeUUID: String
    let storePath: String?
    let modelPath: String?
    /// `<records folder>/<store UUID>`.
    let folder: URL
    private let lock = NSLock()
    private var plans: [ObjectIdentifier: Plan?] = [:]
    /// For each entity, the recorded relationships whose destinations its objects can be.
    private var showing: [ObjectIdentifier: [Showing]] = [:]
    /// The entities of the store (what a record can show, and what a full synchronization writes).
    private let entities: [EntityDescription]
    private var pending: Set<ObjectID> = []
    private var shown: [ObjectIdentifier: [Int]] = [:]
    /// Entity folders made (or found) by this synchronizer: made once, not at every file.
    private var madeFolders: Set<String> = []
    private var lastError: StoreError?

    /// A recorded relationship of `owner` (an entity with records) that can show objects of
    /// another entity; `inverseSlot` is its inverse's slot there, when it has one.
    struct Showing {
        let owner: EntityDescription
        let relationship: RelationshipDescription
        let inverseSlot: Int?
    }

    init(configuration: ExternalRecordsConfiguration, store: any PersistentStore, entities: [EntityDescription], modelPath: String?) {
        self.configuration = configuration
        self.entities = entities
        self.modelPath = modelPath
        storeUUID = store.identifier
        storePath = store.url?.path
        folder = configuration.directory.appendingPathComponent(store.identifier, isDirectory: true)
        pending = loadPendingList()
    }

    // MARK: The folder's own files

    /// `.pending`: the URIs of the objects whose files a save could not write, one per line, so
    /// that a later process (the next pim run) tries them again.
    private var pendingListURL: URL { folder.appendingPathComponent(".pending") }
    /// `.store`: the path of the store the folder's records belong to. A copy of a store file
    /// has the same UUID, so the same folder: the copy is refused rather than overwrite them.
    private var ownerURL: URL { folder.appendingPathComponent(".store") }
    /// Whether the folder's owner was checked, and the other store that owns it, if one does.
    private var ownerChecked = false
    private var otherOwner: String?

    private func loadPendingList() -> Set<ObjectID> {
        guard let text = try? String(contentsOf: pendingListURL, encoding: .utf8) else { return [] }
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var ids: Set<ObjectID> = []
        for line in text.split(separator: "\n") {
            guard let uri = URL(string: String(line)), uri.host == storeUUID else { continue }
            let parts = uri.path.split(separator: "/")
            guard parts.count == 2, let entity = byName[String(parts[0])], !entity.isAbstract,
                  parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()), key > 0 else { continue }
            ids.insert(ObjectID(entity: entity, storeIdentifier: storeUUID, primaryKey: key))
        }
        return ids
    }

    /// Writes (or removes) `.pending`; a folder that cannot be written keeps the list in memory only.
    private func savePendingList() {
        if pending.isEmpty {
            unlink(pendingListURL.path)
            return
        }
        let text = pending.sorted().map { $0.uriRepresentation.absoluteString + "\n" }.joined()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? Self.writeAtomically(Data(text.utf8), to: pendingListURL)
    }

    /// Whether this store may write the folder's records: no other existing store file claims it.
    private func mayWrite() -> Bool {
        if !ownerChecked {
            ownerChecked = true
            if let storePath {
                let claimed = (try? String(contentsOf: ownerURL, encoding: .utf8))?.trimmingCharacters(in: .newlines)
                if let claimed, claimed != storePath, FileManager.default.fileExists(atPath: claimed) {
                    otherOwner = claimed
                } else if claimed != storePath {
                    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                    try? Self.writeAtomically(Data((storePath + "\n").utf8), to: ownerURL)
                }
            }
        }
        if let otherOwner {
            lastError = .io(path: folder.path, reason: "the records there belong to the store at \(otherOwner), of which this store is a copy (the same UUID): give it another records folder")
            return false
        }
        return true
    }

    var status: ExternalRecordsStatus {
        lock.withLock {
            ExternalRecordsStatus(folder: folder, format: configuration.format, pendingObjectIDs: pending.sorted(), lastError: lastError)
        }
    }

    /// Keeps `error` as the last failure (a full synchronization that could not finish).
    func noteFailure(_ error: any Error) {
        lock.withLock { lastError = error as? StoreError ?? .io(path: folder.path, reason: "\(error)") }
    }

    // MARK: What entities record

    /// Whether a property is one an external record shows.
    static func isRecorded(_ property: PropertyDescription) -> Bool {
        (property.isIndexedBySpotlight || property.isStoredInExternalRecord) && property.isStored
    }

    /// The plan of `entity`'s records, or nil when its objects have no record file.
    func plan(for entity: EntityDescription) -> Plan? {
        if let known = plans[ObjectIdentifier(entity)] { return known }
        var plan: Plan?
        if let fileExtension = configuration.fileExtension(of: entity) {
            var entries: [Plan.Entry] = []
            var titleSlot: Int?
            for (slot, property) in entity.layout.properties.enumerated() where Self.isRecorded(property) {
                let kind: Plan.Kind
                switch property {
                case let attribute as AttributeDescription: kind = .attribute(attribute.attributeType)
                case let relationship as RelationshipDescription: kind = relationship.isToMany ? .toMany(relationship) : .toOne(relationship)
                default: continue
                }
                let field = Self.fieldName(of: property)
                if field == "title" { titleSlot = slot }
                entries.append(Plan.Entry(slot: slot, property: property.name, field: field, kind: kind))
            }
            if titleSlot == nil {
                titleSlot = entries.first { if case .attribute(.string) = $0.kind { return true } else { return false } }?.slot
            }
            if !entries.isEmpty {
                let uri = ObjectID(entity: entity, storeIdentifier: storeUUID, primaryKey: 1).uriRepresentation.absoluteString
                plan = Plan(fileExtension: fileExtension, entries: entries, titleSlot: titleSlot,
                            folderPath: folder.appendingPathComponent(entity.name, isDirectory: true).path,
                            uriPrefix: String(uri.dropLast()))
            }
        }
        plans[ObjectIdentifier(entity)] = .some(plan)
        return plan
    }

    /// The field names the framework's own `<meta>` fields take; a property gets another.
    static let reservedFieldNames: Set<String> = ["objecturi", "entity", "storepath", "modelpath"]

    /// The field name indexers see: the property's `externalRecordField` user info, else its
    /// name in lowercase ASCII letters, digits spelled out (recoll takes only letters in a
    /// field's name: `line1` and `line2` become `lineone` and `linetwo`). A name the framework's
    /// own fields use gets `field` after it.
    static func fieldName(of property: PropertyDescription) -> String {
        var name = property.userInfo["externalRecordField"] ?? ""
        if name.isEmpty {
            let digits = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
            for scalar in property.name.lowercased().unicodeScalars {
                if ("a"..."z").contains(scalar) {
                    name.unicodeScalars.append(scalar)
                } else if ("0"..."9").contains(scalar) {
                    name += digits[Int(scalar.value - 48)]
                }
            }
            if name.isEmpty { name = "field" }
        }
        return reservedFieldNames.contains(name) ? name + "field" : name
    }

    /// The recorded relationships that can show objects of `entity`: a change of one of them
    /// (or its deletion) rewrites the records that show it.
    private func relationshipsShowing(_ entity: EntityDescription) -> [Showing] {
        if let known = showing[ObjectIdentifier(entity)] { return known }
        var found: [Showing] = []
        var seen: Set<String> = []
        for owner in entities where !owner.isAbstract {
            guard let plan = plan(for: owner) else { continue }
            for entry in plan.entries {
                let relationship: RelationshipDescription
                switch entry.kind {
                case .toOne(let r), .toMany(let r): relationship = r
                case .attribute: continue
                }
                guard let destination = relationship.destinationEntity, entity.isKind(of: destination),
                      seen.insert("\(owner.name).\(relationship.name)").inserted else { continue }
                let inverseSlot = relationship.inverseName.flatMap { entity.layout.index(of: $0) }
                found.append(Showing(owner: owner, relationship: relationship, inverseSlot: inverseSlot))
            }
        }
        showing[ObjectIdentifier(entity)] = found
        return found
    }

    /// The objects whose records show `ids` (objects of one entity) through `showing`, as the
    /// store has them now: `relationship IN ids`, `ANY relationship IN ids` for a to-many one.
    private func owners(of ids: [ObjectID], through showing: Showing, in store: any PersistentStore) throws -> [ObjectID] {
        var request = StoreFetchRequest(entity: showing.owner)
        request.includesSubentities = false
        request.resultType = .objectIDs
        request.predicate = try Predicate(format: showing.relationship.isToMany ? "ANY %K IN %@" : "%K IN %@",
                                          showing.relationship.name, ids)
        guard case .objectIDs(let owners) = try store.execute(request) else { return [] }
        return owners
    }

    // MARK: After a save

    /// Before a save that deletes `deleted`: the records that show them are rewritten after the
    /// next save (a deletion can take the link with the row, as a to-one kept in the deleted
    /// row does, so the owners are found while the store still has it).
    func storeWillSave(_ store: any PersistentStore, deleting deleted: [ObjectID]) {
        lock.withLock {
            var lookUp = OwnerLookUp()
            for id in deleted { lookUp.add(id, through: relationshipsShowing(id.entity)) }
            for (showing, ids) in lookUp.requests {
                if let owners = try? owners(of: ids, through: showing, in: store) { pending.formUnion(owners) }
            }
        }
    }

    /// Objects whose owners (the objects whose records show them) are asked of the store, by
    /// owner entity and relationship: one query each.
    private struct OwnerLookUp {
        private var byRelationship: [String: (showing: Showing, ids: [ObjectID])] = [:]

        mutating func add(_ id: ObjectID, through showings: [Showing]) {
            for showing in showings { add(id, through: showing) }
        }

        mutating func add(_ id: ObjectID, through showing: Showing) {
            byRelationship["\(showing.owner.name).\(showing.relationship.name)", default: (showing, [])].ids.append(id)
        }

        var requests: [(showing: Showing, ids: [ObjectID])] { Array(byRelationship.values) }
    }

    /// What a save did to one row, as far as records care.
    enum Change {
        /// A new row: its own record is written. The records that show it are rewritten anyway:
        /// linking it changed their relationships (a context keeps inverses).
        case inserted
        /// A changed row, with the slots that changed when the context knows them.
        case updated(SlotSet?)
    }

    /// Brings the files of the objects a save wrote or deleted (and of the objects whose records
    /// show them) up to date. Called with the coordinator's stores locked, after the commit.
    func storeDidSave(_ store: any PersistentStore, saved: [Snapshot], changes: [ObjectID: Change], deleted: [ObjectID]) {
        lock.withLock {
            var rewrite = pending
            let hadPending = !pending.isEmpty
            pending = []
            var lookUp = OwnerLookUp()
            for row in saved {
                let entity = row.objectID.entity
                let plan = plan(for: entity)
                var showsChanged = true
                switch changes[row.objectID] {
                case .inserted?:
                    if plan != nil { rewrite.insert(row.objectID) }
                    continue
                case .updated(let slots?)?:
                    // Only what a record shows: its own entries, and what other records show of it.
                    if let plan, plan.entries.contains(where: { slots[$0.slot] }) { rewrite.insert(row.objectID) }
                    showsChanged = shownSlots(of: entity).contains { slots[$0] }
                case .updated(nil)?, nil:
                    if plan != nil { rewrite.insert(row.objectID) }
                }
                guard showsChanged else { continue }
                for showing in relationshipsShowing(entity) {
                    // The inverse, when the row holds it, names the owners; otherwise the store is asked.
                    switch showing.inverseSlot.map({ row.values[$0] }) {
                    case .object(let id)?: rewrite.insert(id)
                    case .objects(let ids)?: rewrite.formUnion(ids)
                    case .null?: break
                    case .unloaded?, .value?, nil:
                        lookUp.add(row.objectID, through: showing)
                    }
                }
            }
            // A deleted object's owners: under Nullify they were saved anyway; under No Action
            // (or without an inverse) only the store still names them.
            for id in deleted {
                rewrite.remove(id)
                removeFile(of: id)
                lookUp.add(id, through: relationshipsShowing(id.entity))
            }
            for (showing, ids) in lookUp.requests {
                do {
                    rewrite.formUnion(try owners(of: ids, through: showing, in: store))
                } catch {
                    lastError = error as? StoreError ?? .io(path: folder.path, reason: "cannot find the records showing \(showing.owner.name).\(showing.relationship.name): \(error)")
                }
            }
            for id in deleted { rewrite.remove(id) }
            write(rewrite.sorted(), from: store)
            if hadPending || !pending.isEmpty { savePendingList() }
        }
    }

    /// Writes the records of `ids`, reading their rows from `store`; an object the store no
    /// longer has loses its file.
    private func write(_ ids: [ObjectID], from store: any PersistentStore) {
        let recorded = ids.filter { !$0.isTemporaryID && plan(for: $0.entity) != nil }
        guard !recorded.isEmpty else { return }
        guard mayWrite() else {
            pending.formUnion(recorded)
            return
        }
        do {
            let records = try self.records(of: recorded, in: store)
            for id in recorded {
                guard let record = records[id] else {
                    removeFile(of: id)
                    continue
                }
                do {
                    _ = try writeFile(record, for: id)
                } catch let error as StoreError {
                    pending.insert(id)
                    lastError = error
                } catch {
                    pending.insert(id)
                    lastError = .io(path: filePath(of: id) ?? folder.path, reason: "\(error)")
                }
            }
        } catch {
            pending.formUnion(recorded)
            lastError = error as? StoreError ?? .io(path: folder.path, reason: "cannot read the records' rows: \(error)")
        }
    }

    // MARK: Making records

    /// The records of `ids` (objects of recorded entities in `store`), from the store's rows.
    func records(of ids: [ObjectID], in store: any PersistentStore) throws -> [ObjectID: ExternalRecord] {
        let rows = try store.snapshots(for: ids)
        // To-many relationships a record shows, read for all owners at once.
        var destinations: [ObjectIdentifier: [ObjectID: [ObjectID]]] = [:]
        var related: Set<ObjectID> = []
        for row in rows.values {
            guard let plan = plan(for: row.objectID.entity) else { continue }
            for entry in plan.entries {
                switch entry.kind {
                case .toMany(let relationship):
                    if case .objects(let ids) = row.values[entry.slot] {
                        destinations[ObjectIdentifier(relationship), default: [:]][row.objectID] = ids
                        related.formUnion(ids)
                    }
                case .toOne:
                    if case .object(let id) = row.values[entry.slot] { related.insert(id) }
                case .attribute: break
                }
            }
        }
        // Unloaded to-many slots: ask the store, per relationship.
        var unloaded: [ObjectIdentifier: (RelationshipDescription, [ObjectID])] = [:]
        for row in rows.values {
            guard let plan = plan(for: row.objectID.entity) else { continue }
            for entry in plan.entries {
                guard case .toMany(let relationship) = entry.kind, !row.values[entry.slot].isLoaded else { continue }
                unloaded[ObjectIdentifier(relationship), default: (relationship, [])].1.append(row.objectID)
            }
        }
        for (key, (relationship, owners)) in unloaded {
            let found = try store.objectIDs(forRelationship: relationship, of: owners)
            for owner in owners {
                let ids = found[owner] ?? []
                destinations[key, default: [:]][owner] = ids
                related.formUnion(ids)
            }
        }
        let relatedRows = related.isEmpty ? [:] : try store.snapshots(for: related.sorted())
        // A destination the store no longer has (deleted under No Action) is left out.
        func shown(_ id: ObjectID) -> ExternalRecord.Value? {
            relatedRows[id] == nil ? nil : .text(text(of: id, rows: relatedRows))
        }
        var records: [ObjectID: ExternalRecord] = [:]
        for (id, row) in rows {
            guard let plan = plan(for: id.entity) else { continue }
            var fields: [ExternalRecord.Field] = []
            var title: String?
            for entry in plan.entries {
                var values: [ExternalRecord.Value] = []
                var isList = false
                switch entry.kind {
                case .attribute(let type):
                    if case .value(let value) = row.values[entry.slot], let recorded = ExternalRecord.value(of: value, type: type) {
                        values = [recorded]
                    }
                case .toOne:
                    if case .object(let destination) = row.values[entry.slot], let value = shown(destination) { values = [value] }
                case .toMany(let relationship):
                    values = (destinations[ObjectIdentifier(relationship)]?[id] ?? []).compactMap(shown)
                    isList = true
                }
                if entry.slot == plan.titleSlot { title = values.first?.text }
                fields.append(ExternalRecord.Field(property: entry.property, name: entry.field, values: values, isList: isList))
            }
            records[id] = ExternalRecord(objectURI: plan.uriPrefix + String(id.primaryKey ?? 0), entityName: id.entity.name,
                                         storeUUID: storeUUID, storePath: storePath, modelPath: modelPath, title: title, fields: fields,
                                         timeZone: configuration.timeZone)
        }
        return records
    }

    /// The attribute slots that show an object of `entity` in another object's record, in order:
    /// those its entity's user info `externalRecordDisplay` names (comma- or space-separated),
    /// else its title attribute (user info `externalRecordField = title`), else its recorded
    /// attributes.
    func shownSlots(of entity: EntityDescription) -> [Int] {
        if let known = shown[ObjectIdentifier(entity)] { return known }
        let layout = entity.layout
        var slots: [Int]
        var current: EntityDescription? = entity
        var display: String?
        while let candidate = current, display == nil {
            display = candidate.userInfo["externalRecordDisplay"]
            current = candidate.superentity
        }
        if let display {
            slots = display.split(whereSeparator: { $0 == "," || $0 == " " }).compactMap { layout.index(of: String($0)) }
                .filter { layout.properties[$0] is AttributeDescription }
        } else {
            let recorded = layout.properties.indices.filter { layout.properties[$0] is AttributeDescription && Self.isRecorded(layout.properties[$0]) }
            let titled = recorded.filter { Self.fieldName(of: layout.properties[$0]) == "title" }
            slots = titled.isEmpty ? recorded : titled
        }
        shown[ObjectIdentifier(entity)] = slots
        return slots
    }

    /// How a related object reads in a record: its shown attributes (``shownSlots(of:)``)
    /// joined by spaces, or its URI when it has none.
    private func text(of id: ObjectID, rows: [ObjectID: Snapshot]) -> String {
        guard let row = rows[id] else { return id.uriRepresentation.absoluteString }
        let properties = id.entity.layout.properties
        var parts: [String] = []
        for slot in shownSlots(of: id.entity) {
            guard let attribute = properties[slot] as? AttributeDescription,
                  case .value(let value) = row.values[slot], let recorded = ExternalRecord.value(of: value, type: attribute.attributeType),
                  !recorded.text.isEmpty else { continue }
            parts.append(recorded.text)
        }
        return parts.isEmpty ? id.uriRepresentation.absoluteString : parts.joined(separator: " ")
    }

    // MARK: Files

    /// `<folder>/<Entity>/p<key>.<extension>`, or nil for an object whose entity keeps no records.
    /// (Paths, not URLs: a URL is parsed again at each step, which cost more than the file's write.)
    func filePath(of id: ObjectID) -> String? {
        guard let key = id.primaryKey, let plan = plan(for: id.entity) else { return nil }
        return plan.folderPath + "/p\(key).\(plan.fileExtension)"
    }

    /// The name of `id`'s file.
    func fileName(of id: ObjectID) -> String? {
        guard let key = id.primaryKey, let plan = plan(for: id.entity) else { return nil }
        return "p\(key).\(plan.fileExtension)"
    }

    /// Writes `record` as `id`'s file unless the file already holds it; true when it wrote.
    func writeFile(_ record: ExternalRecord, for id: ObjectID) throws -> Bool {
        guard let path = filePath(of: id), let plan = plan(for: id.entity) else { return false }
        let bytes: Data
        do {
            bytes = try record.contents(in: configuration.format)
        } catch {
            throw StoreError.io(path: path, reason: "cannot encode the record: \(error)")
        }
        if let existing = Self.contents(atPath: path, expecting: bytes.count), existing == bytes { return false }
        if !madeFolders.contains(plan.folderPath) {
            do {
                // Private, as the store's own data: records hold names, addresses and notes.
                try FileManager.default.createDirectory(atPath: plan.folderPath, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError.io(path: path, reason: "cannot make its folder \(plan.folderPath): \(error.localizedDescription)")
            }
            madeFolders.insert(plan.folderPath)
        }
        do {
            try Self.writeAtomically(bytes, toPath: path)
        } catch {
            // The folder went since it was made (removed by hand): made again, once.
            guard errno == ENOENT else { throw error }
            madeFolders.remove(plan.folderPath)
            try FileManager.default.createDirectory(atPath: plan.folderPath, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            madeFolders.insert(plan.folderPath)
            try Self.writeAtomically(bytes, toPath: path)
        }
        return true
    }

    /// The bytes of the file at `path` when it holds exactly `count` of them (else nil: it
    /// cannot hold what is about to be written).
    static func contents(atPath path: String, expecting count: Int) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int(status.st_size) == count else { return nil }
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < count {
                let read = Foundation.read(descriptor, buffer.baseAddress! + offset, count - offset)
                if read < 0, errno == EINTR { continue }
                guard read > 0 else { return false }
                offset += read
            }
            return true
        }
        return complete ? data : nil
    }

    /// Writes `bytes` to `url` (see ``writeAtomically(_:toPath:)``).
    static func writeAtomically(_ bytes: Data, to url: URL) throws {
        try writeAtomically(bytes, toPath: url.path)
    }

    /// Writes `bytes` to `path` through a dot-named temporary file beside it (which indexers
    /// skip), replaced in one rename: an indexer never reads half a file. On failure `errno`
    /// is the call's.
    static func writeAtomically(_ bytes: Data, toPath path: String) throws {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        // The process's own temporary name: two processes saving one store never write into
        // each other's temporary file.
        let temporary = String(path[..<slash]) + "." + String(path[slash...]) + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            let reason = String(cString: strerror(code))
            errno = code
            throw StoreError.io(path: path, reason: "cannot write the record: \(reason)")
        }
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw StoreError.io(path: path, reason: "cannot write the record: \(failure)")
        }
    }

    /// Deletes `id`'s file, if it has one.
    private func removeFile(of id: ObjectID) {
        guard let path = filePath(of: id) else { return }
        if unlink(path) != 0, errno != ENOENT {
            pending.insert(id)
            lastError = .io(path: path, reason: "cannot remove the record: \(String(cString: strerror(errno)))")
        }
    }

    // MARK: Full synchronization

    /// Writes every recorded object's file that is missing or out of date, and removes the files
    /// of objects the store no longer has (and of entities that keep no records any more).
    func synchronize(_ store: any PersistentStore) throws -> ExternalRecordsReport {
        try lock.withLock {
            guard mayWrite() else { throw lastError ?? .io(path: folder.path, reason: "the records belong to another store") }
            var report = ExternalRecordsReport()
            var kept: [String: Set<String>] = [:]
            for entity in entities where !entity.isAbstract {
                guard plan(for: entity) != nil else { continue }
                var request = StoreFetchRequest(entity: entity)
                request.includesSubentities = false
                request.resultType = .objectIDs
                guard case .objectIDs(let ids) = try store.execute(request) else {
                    throw StoreError.unsupportedRequest("the store answered a fetch of \(entity.name)'s object IDs with something else")
                }
                var names = Set<String>()
                for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                    let records = try self.records(of: chunk, in: store)
                    for id in chunk {
                        guard let record = records[id], let name = fileName(of: id) else { continue }
                        names.insert(name)
                        if try writeFile(record, for: id) { report.written += 1 } else { report.unchanged += 1 }
                        pending.remove(id)
                    }
                }
                kept[entity.name] = names
            }
            // Files of objects that are gone, temporary files left by a crash, folders of
            // entities that keep no records: only names this synchronizer makes are touched.
            let entityFolders = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for entityName in entityFolders {
                let entityFolder = folder.appendingPathComponent(entityName, isDirectory: true)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: entityFolder.path)) ?? []
                let keep = kept[entityName] ?? []
                for name in names where !keep.contains(name) && Self.isRecordFileName(name) {
                    if unlink(entityFolder.appendingPathComponent(name).path) == 0, !name.hasPrefix(".") { report.removed += 1 }
                }
                if keep.isEmpty { rmdir(entityFolder.path) }
            }
            if pending.isEmpty { lastError = nil }
            savePendingList()
            return report
        }
    }

    /// Removes every record file of the store, and its folder: the store is gone, or moved.
    func removeAll() {
        lock.withLock {
            Self.removeFolder(folder)
            pending = []
        }
    }

    /// Removes the record files (and their temporary files) in a store's records `folder`, its
    /// entity folders once empty, and the folder itself once empty; other files are left.
    static func removeFolder(_ folder: URL) {
        for entityName in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let entityFolder = folder.appendingPathComponent(entityName, isDirectory: true)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: entityFolder.path)) ?? [] where isRecordFileName(name) {
                unlink(entityFolder.appendingPathComponent(name).path)
            }
            rmdir(entityFolder.path)
        }
        unlink(folder.appendingPathComponent(".pending").path)
        unlink(folder.appendingPathComponent(".store").path)
        rmdir(folder.path)
    }

    /// Whether `name` is a record file's name (`p<digits>.<extension>`) or one of their
    /// temporary files (`.p<digits>.<extension>.<pid>.tmp`).
    static func isRecordFileName(_ name: String) -> Bool {
        var base = Substring(name)
        if base.hasPrefix(".") {
            guard base.hasSuffix(".tmp") else { return false }
            base = base.dropFirst().dropLast(4)
        }
        guard base.hasPrefix("p"), let dot = base.firstIndex(of: ".") else { return false }
        let digits = base[base.index(after: base.startIndex)..<dot]
        return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) && dot < base.index(before: base.endIndex)
    }
}
