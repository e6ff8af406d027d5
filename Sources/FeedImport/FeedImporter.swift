// Importing a feed into a context: each record a mapping selects becomes an object, inserted or,
// when an object imported earlier from the same source has the record's key, updated in place
// (only the values that differ: importing a feed again changes nothing); delete rules delete.
// Nothing is saved here: the caller saves once, so a feed that fails halfway leaves the store
// as it was.
import CLibXML2
import Foundation
import ObjectGraph

/// How a feed is imported.
public struct FeedImportOptions: Sendable {
    /// The name of what the feed comes from (an account, a server): records are matched to the
    /// objects imported earlier from the same source by their keys.
    public var source: String
    /// The zone of floating times, and where days (all-day events, birthdays) begin.
    public var timeZone: TimeZone
    /// Whether records the model refuses are left out and reported (``FeedImportReport/skipped``)
    /// rather than failing the import.
    public var skipsInvalidRecords: Bool
    /// The attribute that holds an imported object's source.
    public var sourceAttribute: String
    /// The attribute that holds an imported object's key within its source.
    public var keyAttribute: String
    /// Attributes that say nothing of a record's content (identity, creation and modification
    /// dates, short numbers): a child made again with the same values but a new identity is the
    /// same child, and the record is unchanged.
    public var bookkeepingAttributes: Set<String>
    /// A UUID attribute that names objects across stores (pim's `uuid`), or nil. A record whose
    /// key is a UUID (bare or `urn:uuid:`) then updates the object with that identity when its
    /// source has no object of that key (a file this store exported, changed elsewhere, imported
    /// back), and a new object takes the key as its identity when no object has it (exported
    /// again, it keeps the UID it came with).
    public var identityAttribute: String?

    public init(source: String, timeZone: TimeZone = .current, skipsInvalidRecords: Bool = false,
                sourceAttribute: String = "source", keyAttribute: String = "externalID", bookkeepingAttributes: Set<String> = [],
                identityAttribute: String? = nil) {
        self.source = source
        self.identityAttribute = identityAttribute
        self.bookkeepingAttributes = bookkeepingAttributes
        self.timeZone = timeZone
        self.skipsInvalidRecords = skipsInvalidRecords
        self.sourceAttribute = sourceAttribute
        self.keyAttribute = keyAttribute
    }
}

/// What an import did.
public struct FeedImportReport: Sendable {
    /// Records read (every element a rule took, ignored ones included).
    public var records = 0
    public var inserted = 0
    public var updated = 0
    /// Records whose object already had every value.
    public var unchanged = 0
    public var deleted = 0
    /// Records taken by `ignore` rules, and deletions of objects that were never imported.
    public var ignored = 0
    /// Records left out because the model refused them (with ``FeedImportOptions/skipsInvalidRecords``).
    public var skipped: [FeedRecordIssue] = []
}

/// Imports feeds through a mapping into a context.
///
/// ```swift
/// let mapping = try FeedMapping(contentsOf: URL(fileURLWithPath: "Importers/feeds/ews.json"))
/// let importer = try FeedImporter(mapping: mapping, context: context, options: FeedImportOptions(source: "work"))
/// let report = try importer.importFeed(at: URL(fileURLWithPath: "contacts.xml"))
/// try context.save()   // or context.rollback() after an error
/// ```
public final class FeedImporter {
    public let mapping: FeedMapping
    public let context: ManagedObjectContext
    public let options: FeedImportOptions
    /// Called with each object a record inserted (`true`) or changed (`false`), before it is
    /// validated: the place to fill what the feed does not carry.
    public var prepare: ((ManagedObject, Bool) throws -> Void)?

    /// Objects imported from the source, by entity and key, fetched when first needed.
    private var existing: [String: [String: ManagedObject]] = [:]
    /// Objects by their identity (``FeedImportOptions/identityAttribute``), by entity, fetched
    /// when a key is first a UUID.
    private var identified: [String: [UUID: ManagedObject]] = [:]
    private var insertedHere: Set<ObjectIdentifier> = []
    private var attributeTables: [String: [String: AttributeDescription]] = [:]
    /// The line of each key's record in this import, by entity.
    private var keysSeen: [String: [String: Int]] = [:]
    private var countedHere: Set<ObjectIdentifier> = []
    /// The objects this feed's report counts unchanged: a link made once the feed is read
    /// (``resolvePendingLinks()``) counts them updated instead.
    private var unchangedHere: Set<ObjectIdentifier> = []
    private let values: FeedValueReader
    /// The objects each link value found (or made), for the rest of the import.
    var linkCache: [String: [ManagedObject]] = [:]
    /// The link values of the record being read that found nothing.
    var missedLinks: [PendingLink] = []
    /// Link values that found nothing, with the objects they are for: looked up again at the end
    /// of each feed (``resolvePendingLinks()``).
    var pendingLinks: [(object: ManagedObject, link: PendingLink)] = []
    private var report = FeedImportReport()
    private var issues: [FeedRecordIssue] = []
    private(set) var feedName = ""
    /// How many refused records a failing import lists.
    static let issueLimit = 50

    /// Checks the mapping against the context's model: every entity, attribute and relationship
    /// it names must exist, with the source and key attributes on each entity it imports.
    public init(mapping: FeedMapping, context: ManagedObjectContext, options: FeedImportOptions) throws(FeedImportError) {
        self.mapping = mapping
        self.context = context
        self.options = options
        values = FeedValueReader(timeZone: options.timeZone)
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
            throw .mapping(FeedMappingError(origin: mapping.origin, path: "", message: "the context has no persistent store coordinator"))
        }
        for (index, rule) in mapping.records.enumerated() where rule.action == .upsert || rule.action == .delete {
            try Self.check(rule, at: "records[\(index)]", model: model, options: options, origin: mapping.origin)
        }
    }

    private static func check(_ rule: FeedRecordRule, at path: String, model: ManagedObjectModel, options: FeedImportOptions,
                              origin: String) throws(FeedImportError) {
        func fail(_ where: String, _ message: String) -> FeedImportError {
            .mapping(FeedMappingError(origin: origin, path: "\(path)\(`where`)", message: message))
        }
        for name in rule.deletedEntities where model.entitiesByName[name] == nil {
            throw fail(".entity", "the model has no entity \(name)")
        }
        guard let entity = model.entitiesByName[rule.entity] else { throw fail(".entity", "the model has no entity \(rule.entity)") }
        for checked in rule.deletedEntities.compactMap({ model.entitiesByName[$0] }) {
            for name in [options.sourceAttribute, options.keyAttribute] where checked.attributesByName[name]?.attributeType != .string {
                throw fail(".entity", "\(checked.name) has no String attribute \(name) to keep the record's source and key in")
            }
        }
        try checkAttributes(rule.attributes, of: entity, at: "\(path).attributes", origin: origin)
        for child in rule.children {
            guard let relationship = entity.relationshipsByName[child.relationship], relationship.isToMany else {
                throw fail(".toMany.\(child.relationship)", "\(entity.name) has no to-many relationship \(child.relationship)")
            }
            guard let childEntity = model.entitiesByName[child.entity], let destination = relationship.destinationEntity,
                  childEntity.isKind(of: destination), !childEntity.isAbstract else {
                throw fail(".toMany.\(child.relationship).entity", "\(child.entity) is not a concrete entity \(entity.name).\(child.relationship) holds")
            }
            if child.property != nil || child.components != nil, rule.payload == nil {
                throw fail(".toMany.\(child.relationship).property", "payload properties need a payload")
            }
            try checkAttributes(child.attributes, of: childEntity, at: "\(path).toMany.\(child.relationship).attributes", origin: origin)
        }
        if rule.attributes.contains(where: { $0.field.alternatives.contains { if case .property = $0.source { true } else { false } } }), rule.payload == nil {
            throw fail(".attributes", "payload properties need a payload")
        }
        if rule.action == .upsert, entity.isAbstract { throw fail(".entity", "\(entity.name) is abstract: name a concrete entity") }
        try checkLinks(rule, of: entity, at: path, origin: origin)
    }

    private static func checkAttributes(_ fields: [(name: String, field: FeedField)], of entity: EntityDescription, at path: String,
                                        origin: String) throws(FeedImportError) {
        let names = Set(fields.map(\.name))
        for (name, field) in fields {
            guard entity.attributesByName[name] != nil else {
                throw .mapping(FeedMappingError(origin: origin, path: "\(path).\(name)", message: "\(entity.name) has no attribute \(name)"))
            }
            for alternative in field.alternatives {
                if let after = alternative.after, !names.contains(after) {
                    throw .mapping(FeedMappingError(origin: origin, path: "\(path).\(name).after", message: "\(after) is not mapped"))
                }
            }
        }
    }

    /// Imports the feed in the file at `url`. On error the context holds part of the feed:
    /// roll it back.
    public func importFeed(at url: URL) throws(FeedImportError) -> FeedImportReport {
        guard mapping.contentFormat != nil else { return try run(FeedDocumentReader(path: url.path, mapping: mapping), name: url.path) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(feed: url.path, reason: (error as NSError).localizedFailureReason ?? error.localizedDescription)
        }
        return try importFeed(data, name: url.path)
    }

    /// Imports a feed held in memory, named `name` in messages.
    public func importFeed(_ data: Data, name: String) throws(FeedImportError) -> FeedImportReport {
        let document = try mapping.contentFormat.map { format throws(FeedImportError) in try ContentFile.document(data, name: name, format: format) } ?? data
        return try run(FeedDocumentReader(data: document, name: name, mapping: mapping), name: name)
    }

    private func run(_ reader: FeedDocumentReader, name: String) throws(FeedImportError) -> FeedImportReport {
        feedName = name
        report = FeedImportReport()
        issues = []
        keysSeen = [:]
        unchangedHere = []
        try reader.forEachRecord { element throws(FeedImportError) in
            report.records += 1
            try self.importRecord(element)
        }
        try resolvePendingLinks()
        if !issues.isEmpty { throw .invalidRecords(issues) }
        return report
    }

    // MARK: Records

    /// Counts `object`, changed by a link made once the feed was read, as updated (and no longer
    /// unchanged, when this feed's report counted it so).
    func countLinkedLate(_ object: ManagedObject) {
        let identifier = ObjectIdentifier(object)
        guard !insertedHere.contains(identifier), !countedHere.contains(identifier) else { return }
        if unchangedHere.remove(identifier) != nil { report.unchanged -= 1 }
        countedHere.insert(identifier)
        report.updated += 1
    }

    private func importRecord(_ element: FeedRecordElement) throws(FeedImportError) {
        let rule = element.rule
        if rule.action == .fail, let message = rule.message {
            let said = try element.xpath.strings(message, at: element.node).joined(separator: " ").trimmedBlanks
            throw .reported(feed: feedName, line: element.line, message: said.isEmpty ? "(no message)" : said)
        }
        guard rule.action != .ignore, let keyField = rule.key else {
            report.ignored += 1
            return
        }
        let keyValue: FeedValue?
        do throws(FeedImportError) {
            keyValue = try value(of: keyField, in: element, at: element.node, child: nil, entity: rule.entity, key: nil, name: "key")
        } catch .invalidRecords(let found) {
            found.forEach(note)
            return
        }
        guard case .text(let ownKey)? = keyValue else {
            refuse(element, key: nil, "the record has no key (\(Self.describe(keyField)))")
            return
        }
        let key = ownKey + (element.keySuffix ?? "")
        if rule.action == .delete {
            for entityName in rule.deletedEntities {
                guard let object = try existingObjects(of: entityName)[key] else { continue }
                context.delete(object)
                existing[entityName]?[key] = nil
                report.deleted += 1
                return
            }
            report.ignored += 1
            return
        }
        // Two records of one feed with one key would silently be one object: the second is refused.
        if let first = keysSeen[rule.entity]?[key] {
            refuse(element, key: key, "the record at line \(first) has the same key")
            return
        }
        keysSeen[rule.entity, default: [:]][key] = element.line
        // Only the one object: holding the whole table while adding to it would copy it each time.
        var found = try existingObjects(of: rule.entity)[key]
        var identity: UUID?
        if found == nil, element.keySuffix == nil, options.identityAttribute != nil, let named = Self.uuid(in: ownKey) {
            found = try identifiedObject(named, of: rule.entity)
            if found == nil { identity = named }
        }
        guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[rule.entity] else { return }
        let attributesByName = attributes(of: entity)
        var attributeValues: [(String, Any?)] = []
        var failed = false
        var read: [String: FeedValue] = [:]
        for (name, field) in rule.attributes {
            do throws(FeedImportError) {
                if let value = try value(of: field, in: element, at: element.node, child: nil, entity: rule.entity, key: key, name: name) {
                    read[name] = value
                }
            } catch .invalidRecords(let found) {
                found.forEach(note)
                failed = true
            }
        }
        if failed { return }
        for (name, field) in rule.attributes {
            let value = Self.resolvingDuration(read[name], of: field, in: read)
            guard let attribute = attributesByName[name] else { continue }
            do {
                // A value the feed does not give is the model's default, as for a new object.
                attributeValues.append((name, try Self.stored(value, as: attribute) ?? attribute.defaultValue))
            } catch let error as FeedValueError {
                refuse(element, key: key, "\(rule.entity).\(name): \(error.message)")
                failed = true
            } catch {}
        }
        if failed { return }
        var childValues: [(rule: FeedChildRule, rows: [[(String, Any?)]])] = []
        for childRule in rule.children {
            do throws(FeedImportError) {
                childValues.append((childRule, try children(of: childRule, in: element, key: key)))
            } catch .invalidRecords(let found) {
                found.forEach(note)
                failed = true
            }
        }
        if failed { return }
        let links = try linkTargets(of: element, entity: entity)
        let missed = missedLinks
        if let object = apply(element, key: key, entity: entity, attributes: attributeValues, children: childValues, links: links,
                              found: found, identity: identity) {
            pendingLinks += missed.map { (object, $0) }
        }
    }

    /// The UUID a key is (`6ba7b810-...`, `urn:uuid:6ba7b810-...`), or nil.
    public static func uuid(in key: String) -> UUID? {
        let bare = key.lowercased().hasPrefix("urn:uuid:") ? String(key.dropFirst(9)) : key
        return bare.count == 36 ? UUID(uuidString: bare) : nil
    }

    /// The object of `entityName` whose identity is `uuid`, in the store or imported here.
    private func identifiedObject(_ uuid: UUID, of entityName: String) throws(FeedImportError) -> ManagedObject? {
        guard let attribute = options.identityAttribute else { return nil }
        if let known = identified[entityName] { return known[uuid] }
        var request = FetchRequest<ManagedObject>(entityName: entityName)
        var known: [UUID: ManagedObject] = [:]
        do {
            request.predicate = try ObjectGraph.Predicate(format: "%K != nil", attribute)
            for object in try context.fetch(request) {
                if let identity = object.value(forKey: attribute) as? UUID { known[identity] = object }
            }
        } catch {
            throw .unreadable(feed: feedName, reason: "cannot read the identities of the stored \(entityName) objects: \(error)")
        }
        identified[entityName] = known
        return known[uuid]
    }

    /// Sets the record's values on its object (a new one, or the one imported before), replacing
    /// children only when they differ, then prepares and validates it. Returns the object, or nil
    /// when it was refused.
    @discardableResult
    private func apply(_ element: FeedRecordElement, key: String, entity: EntityDescription, attributes: [(String, Any?)],
                       children: [(rule: FeedChildRule, rows: [[(String, Any?)]])], links: [(String, [ManagedObject])],
                       found: ManagedObject?, identity: UUID?) -> ManagedObject? {
        let isNew = found == nil
        let object: ManagedObject
        if let found {
            object = found
        } else {
            object = context.insertNewObject(forEntityName: entity.name)
            object.setValue(options.source, forKey: options.sourceAttribute)
            object.setValue(key, forKey: options.keyAttribute)
            existing[element.rule.entity]?[key] = object
            insertedHere.insert(ObjectIdentifier(object))
            if let identity, let attribute = options.identityAttribute {
                object.setValue(identity, forKey: attribute)
                identified[element.rule.entity]?[identity] = object
            }
        }
        var changed = false
        for (name, value) in attributes {
            // A new object takes every value the feed gives; a stored one only those that differ.
            if isNew ? value == nil : Self.same(object.value(forKey: name), value) { continue }
            object.setValue(value, forKey: name)
            changed = true
        }
        let linksChanged = applyLinks(links, to: object)
        if linksChanged { changed = true }
        var replacements: [(relationship: String, old: [ManagedObject], new: [ManagedObject])] = []
        for (rule, rows) in children {
            let current = object.mutableSetValue(forKey: rule.relationship).objects
            let currentRows = current.map { child in rows.first.map { $0.map { ($0.0, child.value(forKey: $0.0)) } } ?? [] }
            guard current.count != rows.count || !zip(currentRows, rows).allSatisfy({ Self.sameRow($0, $1) }) else { continue }
            var made: [ManagedObject] = []
            for row in rows {
                let child = context.insertNewObject(forEntityName: rule.entity)
                for (name, value) in row { child.setValue(value, forKey: name) }
                object.mutableSetValue(forKey: rule.relationship).insert(child)
                made.append(child)
            }
            replacements.append((rule.relationship, current, made))
            changed = true
        }
        let added = replacements.flatMap(\.new)
        do {
            if changed || isNew { try prepare?(object, isNew) }
            for child in added { try child.validateForInsert() }
            if isNew { try object.validateForInsert() } else if changed { try object.validateForUpdate() }
        } catch {
            refuse(element, key: key, "\(error)")
            guard options.skipsInvalidRecords else { return nil }
            for child in added { context.delete(child) }
            if isNew {
                context.delete(object)
                existing[element.rule.entity]?[key] = nil
                if let identity { identified[element.rule.entity]?[identity] = nil }
            } else {
                context.refresh(object, mergeChanges: false)
            }
            return nil
        }
        let identifier = ObjectIdentifier(object)
        if changed, !isNew, !linksChanged, !insertedHere.contains(identifier), !countedHere.contains(identifier),
           isUnchanged(object, replacements: replacements) {
            // What the feed says differs only in what `prepare` fills the same way again.
            for child in added { context.delete(child) }
            context.refresh(object, mergeChanges: false)
            changed = false
        } else {
            for child in replacements.flatMap(\.old) { context.delete(child) }
        }
        if insertedHere.contains(identifier) {
            if isNew { report.inserted += 1 }
        } else if changed, !countedHere.contains(identifier) {
            countedHere.insert(identifier)
            report.updated += 1
        } else if !changed, !countedHere.contains(identifier) {
            report.unchanged += 1
            unchangedHere.insert(identifier)
        }
        return object
    }

    /// Whether a stored object, once prepared, holds the values it had: every attribute as
    /// saved, and each replaced relationship's new children with the old ones' values in order.
    private func isUnchanged(_ object: ManagedObject, replacements: [(relationship: String, old: [ManagedObject], new: [ManagedObject])]) -> Bool {
        let names = attributes(of: object.entity).keys.filter { !options.bookkeepingAttributes.contains($0) }
        let committed = object.committedValues(forKeys: names)
        guard names.allSatisfy({ Self.same(committed[$0], object.value(forKey: $0)) }) else { return false }
        for (_, old, new) in replacements {
            guard old.count == new.count else { return false }
            for (before, after) in zip(old, new) {
                let childNames = attributes(of: after.entity).keys.filter { !options.bookkeepingAttributes.contains($0) }
                guard before.entity === after.entity, childNames.allSatisfy({ Self.same(before.value(forKey: $0), after.value(forKey: $0)) }) else {
                    return false
                }
            }
        }
        return true
    }

    /// Notes a refused record: listed in the error, or among the skipped.
    private func refuse(_ element: FeedRecordElement, key: String?, _ message: String) {
        note(FeedRecordIssue(feed: feedName, line: element.line, entity: element.rule.entity, key: key, message: message))
    }

    private func note(_ issue: FeedRecordIssue) {
        if options.skipsInvalidRecords {
            report.skipped.append(issue)
        } else if issues.count < Self.issueLimit {
            issues.append(issue)
        }
    }

    /// An entity's attributes by name, worked out once per import (the model computes them each time).
    private func attributes(of entity: EntityDescription) -> [String: AttributeDescription] {
        if let known = attributeTables[entity.name] { return known }
        let table = entity.attributesByName
        attributeTables[entity.name] = table
        return table
    }

    private func existingObjects(of entityName: String) throws(FeedImportError) -> [String: ManagedObject] {
        if let known = existing[entityName] { return known }
        var request = FetchRequest<ManagedObject>(entityName: entityName)
        request.returnsObjectsAsFaults = false
        // The children and links a record is compared with, fetched together rather than one
        // object at a time.
        let rules = mapping.records.filter { $0.entity == entityName && $0.action == .upsert }
        request.relationshipKeyPathsForPrefetching = Array(Set(rules.flatMap { $0.children.map(\.relationship) + $0.links.map(\.relationship) })).sorted()
        var known: [String: ManagedObject] = [:]
        do {
            request.predicate = try ObjectGraph.Predicate(format: "%K == %@", options.sourceAttribute, options.source)
            for object in try context.fetch(request) {
                if let key = object.value(forKey: options.keyAttribute) as? String { known[key] = object }
            }
        } catch {
            throw .unreadable(feed: feedName, reason: "cannot read the objects imported from \(options.source): \(error)")
        }
        existing[entityName] = known
        return known
    }

    // MARK: Children

    private func children(of rule: FeedChildRule, in element: FeedRecordElement, key: String) throws(FeedImportError) -> [[(String, Any?)]] {
        guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[rule.entity] else { return [] }
        let attributesByName = attributes(of: entity)
        var rows: [[(String, Any?)]] = []
        var sources: [(node: xmlNodePtr, property: ContentProperty?, element: FeedRecordElement)] = []
        if let foreach = rule.foreach {
            sources = try element.xpath.nodes(foreach, at: element.node).map { ($0, nil, element) }
        } else if let name = rule.property, let payload = element.payload {
            sources = payload.properties(named: name).map { (element.node, $0, element) }
        } else if let name = rule.components, let document = element.document, element.keySuffix == nil {
            sources = document.components(named: name, having: rule.with).map { component in
                var part = element
                part.payload = component
                return (element.node, nil, part)
            }
        }
        for (node, property, source) in sources {
            var row: [(String, Any?)] = []
            var empty = true
            var read: [String: FeedValue] = [:]
            for (name, field) in rule.attributes {
                read[name] = try value(of: field, in: source, at: node, child: property, entity: rule.entity, key: key, name: name)
            }
            for (name, field) in rule.attributes {
                guard let attribute = attributesByName[name] else { continue }
                let value = Self.resolvingDuration(read[name], of: field, in: read)
                do {
                    let stored = try Self.stored(value, as: attribute)
                    if stored != nil { empty = false }
                    row.append((name, stored ?? attribute.defaultValue))
                } catch let error as FeedValueError {
                    throw .invalidRecords([FeedRecordIssue(feed: feedName, line: element.line, entity: element.rule.entity, key: key,
                                                           message: "\(rule.entity).\(name): \(error.message)")])
                } catch {}
            }
            // An entry with nothing in it (an empty <t:Entry/>) is no child.
            if !empty { rows.append(row) }
        }
        return rows
    }

    // MARK: Values

    /// The value of a field: its first alternative that yields one, or its default.
    private func value(of field: FeedField, in element: FeedRecordElement, at node: xmlNodePtr, child: ContentProperty?,
                       entity: String, key: String?, name: String) throws(FeedImportError) -> FeedValue? {
        for alternative in field.alternatives {
            var zone: String?
            var texts: [String]
            switch alternative.source {
            case .none:
                texts = []
            case .xpath(let expression) where alternative.namedValues:
                var pairs: [(name: String, values: [String])] = []
                for found in try element.xpath.nodes(expression, at: node) {
                    let name = found.pointee.name.map { String(cString: $0) }?.uppercased() ?? ""
                    let text = RecordXPath.string(of: found).trimmedBlanks
                    // xCal writes UNTIL in the extended form; an RRULE takes the basic one.
                    let value = name == "UNTIL" ? text.filter { $0 != "-" && $0 != ":" } : text
                    if let index = pairs.firstIndex(where: { $0.name == name }) { pairs[index].values.append(value) } else { pairs.append((name, [value])) }
                }
                texts = pairs.isEmpty ? [] : [pairs.map { "\($0.name)=\($0.values.joined(separator: ","))" }.joined(separator: ";")]
            case .property where alternative.type == .datelist:
                let list = try dateList(properties(read: alternative, in: element, child: child, all: true).flatMap { property in
                    property.value.split(separator: ",").map { (String($0), property.parameters["TZID"]) }
                }, element: element, entity: entity, key: key, name: name)
                if let list { return .text(list) }
                continue
            case .property where alternative.type == .triggerlist:
                let triggers = properties(read: alternative, in: element, child: child, all: true).map { property in
                    TriggerText(text: property.value, node: property.name, zone: property.parameters["TZID"])
                }
                if let list = try triggerList(triggers, alternative, element: element, entity: entity, key: key, name: name) { return .text(list) }
                continue
            case .xpath(let expression) where alternative.type == .triggerlist:
                let zone = try alternative.timeZone.flatMap { timeZone throws(FeedImportError) in try element.xpath.strings(timeZone, at: node).first }
                let triggers: [TriggerText]
                if case .byNodeName? = alternative.unit {
                    triggers = try element.xpath.nodes(expression, at: node).map { found in
                        TriggerText(text: RecordXPath.string(of: found), node: found.pointee.name.map { String(cString: $0) } ?? "", zone: zone)
                    }
                } else {
                    triggers = try element.xpath.strings(expression, at: node).map { TriggerText(text: $0, node: "", zone: zone) }
                }
                if let list = try triggerList(triggers, alternative, element: element, entity: entity, key: key, name: name) { return .text(list) }
                continue
            case .property where alternative.type == .notelist:
                let notes = properties(read: alternative, in: element, child: child, all: true).map { property in
                    (stamp: alternative.stamp.flatMap { property.parameters[$0] }, text: property.value)
                }
                if let list = Self.noteList(notes) { return .text(list) }
                continue
            case .xpath(let expression) where alternative.type == .notelist:
                if let list = Self.noteList(try element.xpath.strings(expression, at: node).map { (nil, $0) }) { return .text(list) }
                continue
            case .xpath(let expression) where alternative.type == .exchangeRecurrence:
                texts = try element.xpath.nodes(expression, at: node).prefix(1).compactMap(ExchangeRecurrence.rule(from:))
            case .xpath(let expression) where alternative.type == .datelist:
                var zone: String?
                if let timeZone = alternative.timeZone { zone = try element.xpath.strings(timeZone, at: node).first }
                let texts = try element.xpath.strings(expression, at: node).flatMap { $0.split(separator: ",").map(String.init) }
                if let list = try dateList(texts.map { ($0, zone) }, element: element, entity: entity, key: key, name: name) { return .text(list) }
                continue
            case .xpath(let expression):
                texts = try element.xpath.strings(expression, at: node)
            case .property:
                (texts, zone) = sourceTexts(alternative, in: element, child: child, all: alternative.many)
            }
            if case .xpath = alternative.source, let part = alternative.part {
                texts = texts.map { ContentProperty(name: "", parameters: [:], rawValue: $0).parts(part, joinedBy: alternative.separator) }
            }
            if let prefix = alternative.stripPrefix { texts = texts.map { Self.stripping(prefix, from: $0) } }
            if let timeZone = alternative.timeZone {
                zone = try element.xpath.strings(timeZone, at: node).first.map { $0.trimmedBlanks }
            }
            var text = alternative.many ? texts.map { $0.trimmedBlanks }.filter { !$0.isEmpty }
                .joined(separator: alternative.separator) : texts.first
            if let table = alternative.table, let found = text {
                let trimmed = found.trimmedBlanks
                text = table[trimmed] ?? (alternative.tableOnly ? nil : found)
            }
            if text.map({ $0.trimmedBlanks.isEmpty }) ?? true { text = alternative.defaultValue }
            guard let text else { continue }
            if let year = alternative.yearless, let day = values.yearlessDay(text, year: year) { return day }
            do {
                if let value = try values.value(of: text, as: alternative.type, zone: zone,
                                                fixedZone: definedZone(zone, at: text, in: element)) { return value }
            } catch {
                if alternative.lenient { continue }
                throw .invalidRecords([FeedRecordIssue(feed: feedName, line: element.line, entity: entity, key: key, message: "\(name): \(error.message)")])
            }
        }
        return nil
    }

    /// The payload properties a property alternative reads (all of them, or the first): the
    /// child's own (`"."`), else the record component's or, with `component`, its
    /// subcomponents', those ``FeedField/Alternative/having`` admits.
    private func properties(read alternative: FeedField.Alternative, in element: FeedRecordElement, child: ContentProperty?,
                            all: Bool) -> [ContentProperty] {
        guard case let .property(propertyName, _) = alternative.source else { return [] }
        if propertyName == "." { return child.map { [$0] }?.filter { alternative.admits($0.parameters) } ?? [] }
        guard let payload = element.payload else { return [] }
        if alternative.component == nil, alternative.having.isEmpty {
            return all ? payload.properties(named: propertyName) : payload.property(propertyName).map { [$0] } ?? []
        }
        let holders = alternative.component.map { name in
            payload.components.filter { component in
                component.name == name && !alternative.without.contains { property, values in
                    component.properties(named: property).contains { values.contains($0.value.uppercased()) }
                }
            }
        } ?? [payload]
        let admitted = holders.flatMap { $0.properties(named: propertyName) }.filter { alternative.admits($0.parameters) }
        return all ? admitted : Array(admitted.prefix(1))
    }

    /// The texts of a payload-property alternative (all of them, or the first property's), and
    /// the zone its TZID names.
    private func sourceTexts(_ alternative: FeedField.Alternative, in element: FeedRecordElement, child: ContentProperty?,
                             all: Bool) -> (texts: [String], zone: String?) {
        guard case let .property(_, parameter) = alternative.source else { return ([], nil) }
        let properties = self.properties(read: alternative, in: element, child: child, all: all)
        let texts = properties.flatMap { property -> [String] in
            if let parameter { return property.parameters[parameter].map { [$0] } ?? [] }
            if let part = alternative.part { return [property.parts(part, joinedBy: alternative.separator)] }
            // A list value (CATEGORIES) splits at its separators, not at escaped ones (`Friends\, close`).
            if let separator = alternative.split, separator.count == 1, let character = separator.first {
                return property.values(separatedBy: character)
            }
            return [property.value]
        }
        return (texts, properties.first?.parameters["TZID"])
    }

    /// Each value of a link's field: every node or property of its first alternative that has
    /// any, split, stripped, trimmed and looked up in its table.
    func linkValues(of field: FeedField, in element: FeedRecordElement) throws(FeedImportError) -> [String] {
        for alternative in field.alternatives {
            var texts: [String]
            switch alternative.source {
            case .none: texts = alternative.defaultValue.map { [$0] } ?? []
            case .xpath(let expression): texts = try element.xpath.strings(expression, at: element.node)
            case .property: texts = sourceTexts(alternative, in: element, child: nil, all: true).texts
            }
            if let separator = alternative.split, !alternative.splitsPropertyValues { texts = texts.flatMap { $0.components(separatedBy: separator) } }
            if let prefix = alternative.stripPrefix { texts = texts.map { Self.stripping(prefix, from: $0) } }
            var values: [String] = []
            for text in texts {
                let trimmed = text.trimmedBlanks
                guard let value = alternative.table.map({ $0[trimmed] ?? (alternative.tableOnly ? nil : trimmed) }) ?? trimmed,
                      !value.isEmpty, !values.contains(value) else { continue }
                values.append(value)
            }
            if !values.isEmpty { return values }
        }
        return []
    }

    /// The zone of a TZID no zone database knows, at the local time `text`, from the payload's
    /// own VTIMEZONE of that TZID; nil for a known or absent TZID.
    private func definedZone(_ name: String?, at text: String, in element: FeedRecordElement) -> TimeZone? {
        guard let name, !name.isEmpty, FeedValueReader.timeZone(named: name) == nil,
              let definition = element.document?.components(named: "VTIMEZONE", having: "TZID").first(where: { $0.property("TZID")?.value == name }),
              let local = TimeZoneDefinition.local(text) else { return nil }
        if let location = definition.property("X-LIC-LOCATION").flatMap({ FeedValueReader.timeZone(named: $0.value) }) { return location }
        return TimeZoneDefinition(definition)?.zone(at: local)
    }

    /// `text` without `prefix` (in any case) at its start, after leading blanks.
    static func stripping(_ prefix: String, from text: String) -> String {
        let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        guard trimmed.lowercased().hasPrefix(prefix.lowercased()) else { return text }
        return String(trimmed.dropFirst(prefix.count))
    }

    /// Instants and days as iCalendar's basic UTC form, comma-separated; nil for none.
    private func dateList(_ texts: [(String, String?)], element: FeedRecordElement, entity: String, key: String?,
                          name: String) throws(FeedImportError) -> String? {
        var written: [String] = []
        for (text, zone) in texts {
            // A date has no blanks: what follows one is other lines run together (GData).
            let trimmed = text.trimmedBlanks.split(separator: " ").first.map(String.init) ?? ""
            if trimmed.isEmpty { continue }
            let zoneValue = definedZone(zone, at: trimmed, in: element) ?? zone.flatMap { FeedValueReader.timeZone(named: $0) } ?? options.timeZone
            guard let parsed = FeedDateParser.parse(trimmed, floatingIn: zoneValue) else {
                throw .invalidRecords([FeedRecordIssue(feed: feedName, line: element.line, entity: entity, key: key,
                                                       message: "\(name): \"\(trimmed)\" is not a date")])
            }
            if parsed.isDate {
                let parts = parsed.components
                written.append(String(format: "%04d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0))
            } else {
                written.append(Self.utcText(parsed.date))
            }
        }
        return written.isEmpty ? nil : written.joined(separator: ",")
    }

    /// The text of a `notelist` field: a line per note with text, its stamp (when it is an
    /// instant in iCalendar's basic UTC form) and a tab before it; nil when no note has text.
    public static func noteList(_ notes: [(stamp: String?, text: String)]) -> String? {
        let lines = notes.compactMap { note -> String? in
            let text = note.text.map { $0.isNewline || $0 == "\t" ? " " : $0 }.reduce(into: "") { $0.append($1) }.trimmedBlanks
            guard !text.isEmpty else { return nil }
            let stamp = note.stamp?.trimmedBlanks ?? ""
            let dated = stamp.count == 16 && stamp.hasSuffix("Z") && stamp.dropLast().enumerated().allSatisfy { index, character in
                index == 8 ? character == "T" : character.isASCII && character.isNumber
            }
            return (dated ? stamp : "") + "\t" + text
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// One TRIGGER text of a `triggerlist` field: the local name of the node (or the property)
    /// it is from, for a `unit` by node name, and the zone of a floating date and time.
    private struct TriggerText {
        var text: String
        var node: String
        var zone: String?
    }

    /// Triggers in their canonical form (``TriggerOffset``, or a UTC date and time),
    /// comma-separated, each once, in order; nil for none. A text that is no trigger refuses the
    /// record, or, when the alternative is lenient, is left out alone.
    private func triggerList(_ triggers: [TriggerText], _ alternative: FeedField.Alternative, element: FeedRecordElement, entity: String,
                             key: String?, name: String) throws(FeedImportError) -> String? {
        var written: [String] = []
        for trigger in triggers {
            let text = trigger.text.trimmedBlanks
            if text.isEmpty { continue }
            let unit: TriggerOffset?
            switch alternative.unit {
            case .each(let offset)?: unit = offset
            case .byNodeName(let table)?: unit = table[trigger.node]
            case nil: unit = nil
            }
            var value: String?
            if let unit {
                value = Int(text).map { unit.times($0).text }
            } else if let offset = TriggerOffset(text) {
                value = offset.text
            } else {
                let zone = definedZone(trigger.zone, at: text, in: element) ?? trigger.zone.flatMap { FeedValueReader.timeZone(named: $0) } ?? options.timeZone
                if let parsed = FeedDateParser.parse(text, floatingIn: zone), !parsed.isDate { value = Self.utcText(parsed.date) }
            }
            guard let value else {
                if alternative.lenient { continue }
                let expected = unit == nil ? "a trigger (a duration such as -PT15M, or a date and time)" : "a whole number"
                throw .invalidRecords([FeedRecordIssue(feed: feedName, line: element.line, entity: entity, key: key,
                                                       message: "\(name): \"\(text)\" is not \(expected)")])
            }
            if !written.contains(value) { written.append(value) }
        }
        return written.isEmpty ? nil : written.joined(separator: ",")
    }

    /// An instant in iCalendar's basic UTC form: `20261201T080000Z`.
    public static func utcText(_ date: Date) -> String {
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// A duration read for `field` as the instant it ends at, counted from the attribute its
    /// `after` names (no value without one); any other value as it is.
    static func resolvingDuration(_ value: FeedValue?, of field: FeedField, in read: [String: FeedValue]) -> FeedValue? {
        guard case .duration(let seconds)? = value else { return value }
        guard let after = field.alternatives.compactMap(\.after).first, case .instant(let start, _)? = read[after] else { return nil }
        return .instant(start.addingTimeInterval(seconds), isDate: false)
    }

    static func describe(_ field: FeedField) -> String {
        field.alternatives.map { alternative in
            switch alternative.source {
            case .xpath(let expression): return expression
            case let .property(name, parameter): return parameter.map { "\(name);\($0)" } ?? name
            case .none: return "its default"
            }
        }.joined(separator: " or ")
    }

    /// A read value as the attribute stores it.
    static func stored(_ value: FeedValue?, as attribute: AttributeDescription) throws -> Any? {
        guard let value else { return nil }
        switch (attribute.attributeType, value) {
        case (.string, .text(let text)): return text
        case (.string, .integer(let number)): return String(number)
        case (.string, .number(let number)): return String(number)
        case (.string, .boolean(let flag)): return flag ? "true" : "false"
        case (.string, .instant(let date, _)): return ISO8601DateFormatter().string(from: date)
        case (.date, .instant(let date, _)): return date
        case (.boolean, .boolean(let flag)): return flag
        case (.boolean, .integer(let number)): return number != 0
        case (.integer16, .integer(let number)), (.integer32, .integer(let number)), (.integer64, .integer(let number)): return number
        case (.integer16, .boolean(let flag)), (.integer32, .boolean(let flag)), (.integer64, .boolean(let flag)): return Int64(flag ? 1 : 0)
        case (.integer16, .number(let number)), (.integer32, .number(let number)), (.integer64, .number(let number)):
            guard number.rounded() == number, abs(number) < 9e18 else { throw FeedValueError(message: "\(number) is not a whole number") }
            return Int64(number)
        case (.integer16, .text(let text)), (.integer32, .text(let text)), (.integer64, .text(let text)):
            guard let number = Int64(text) else { throw FeedValueError(message: "\"\(text)\" is not a whole number") }
            return number
        case (.double, .number(let number)), (.float, .number(let number)): return number
        case (.double, .integer(let number)), (.float, .integer(let number)): return Double(number)
        case (.decimal, .number(let number)): return Decimal(number)
        case (.decimal, .integer(let number)): return Decimal(number)
        case (.double, .text(let text)), (.float, .text(let text)), (.decimal, .text(let text)):
            guard let number = Double(text) else { throw FeedValueError(message: "\"\(text)\" is not a number") }
            return attribute.attributeType == .decimal ? Decimal(number) : number
        case (.boolean, .text(let text)):
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw FeedValueError(message: "\"\(text)\" is not true or false")
            }
        case (.uri, .text(let text)):
            guard let url = URL(string: text) else { throw FeedValueError(message: "\"\(text)\" is not a URI") }
            return url
        case (.uuid, .text(let text)):
            guard let uuid = UUID(uuidString: text) else { throw FeedValueError(message: "\"\(text)\" is not a UUID") }
            return uuid
        case (.binaryData, .text(let text)): return Data(text.utf8)
        case (.binaryData, .data(let data)): return data
        case (.date, .text(let text)): throw FeedValueError(message: "\"\(text)\" is not a date (give the field \"type\": \"datetime\")")
        default: throw FeedValueError(message: "\(value) cannot be stored in a \(attribute.attributeType.rawValue) attribute")
        }
    }

    static func same(_ current: Any?, _ new: Any?) -> Bool {
        // The common case first, with one cast each.
        if let new = new as? String { return (current as? String) == new }
        switch (current is NSNull ? nil : current, new is NSNull ? nil : new) {
        case (nil, nil): return true
        case let (current as String, new as String): return current == new
        case let (current as Date, new as Date): return current == new
        case let (current as Bool, new as Bool): return current == new
        case let (current as URL, new as URL): return current == new
        case let (current as UUID, new as UUID): return current == new
        case let (current as Data, new as Data): return current == new
        case let (current as Double, new as Double): return current == new
        case let (current as Decimal, new as Decimal): return current == new
        case let (current as any BinaryInteger, new as any BinaryInteger): return Int64(current) == Int64(new)
        default: return false
        }
    }

    static func sameRow(_ current: [(String, Any?)], _ new: [(String, Any?)]) -> Bool {
        current.count == new.count && zip(current, new).allSatisfy { $0.0 == $1.0 && same($0.1, $1.1) }
    }
}
