// A feed mapping: the declarative description of how one web-service XML format (EWS, xCard,
// xCal, GData, CalDAV/CardDAV multistatus, RSS/Atom) becomes objects of a model. Mappings are
// JSON files (Importers/feeds/*.json); FeedImporter streams a document through one.
import Foundation

/// How the records of one XML feed format map to the entities of a model.
///
/// ```json
/// {"name": "ews", "namespaces": {"t": "http://schemas.microsoft.com/exchange/services/2006/types"},
///  "records": [{"select": "t:Items/t:Contact", "entity": "Person", "key": "t:ItemId/@Id",
///               "attributes": {"name": "t:DisplayName", "birthday": {"xpath": "t:Birthday", "type": "date"}}}]}
/// ```
///
/// Prefixes are the mapping's own: each names one namespace URI, or a list of URIs of which a
/// document uses one (EWS documents printed with `https://` namespaces). Record rules are tried
/// in order; the first whose `select` path, `when` test and payload component match an element
/// takes it, and the element's subtree is not looked into further.
public struct FeedMapping: Sendable {
    /// The format's short name (`ews`, `xcard`): what `--format` and the default source say.
    public var name: String
    /// One line on what the format is.
    public var summary: String
    /// What appears near the start of a document of this format (its namespace URIs), for
    /// telling formats apart: each group has one of its strings there (EWS's types namespace as
    /// `http://` or `https://`).
    public var signature: [[String]]
    /// The namespace URIs each prefix stands for.
    public var namespaces: [String: [String]]
    /// The record rules, tried in order.
    public var records: [FeedRecordRule]
    /// Where the mapping was read from, for messages.
    public var origin: String
    /// The text format the mapping reads instead of XML (`"content": "vcard"`): each object of
    /// such a file is an element `c:objects/c:object` of namespace `urn:x-objectgraph:content`,
    /// its text the payload (``ContentFile``).
    public var contentFormat: ContentFileFormat?

    /// Reads the mapping in the JSON file at `url`.
    public init(contentsOf url: URL) throws(FeedMappingError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FeedMappingError(origin: url.path, path: "", message: "cannot read the file: \(error.localizedDescription)")
        }
        try self.init(json: data, origin: url.path)
    }

    /// Reads a mapping from JSON text; `origin` names it in messages.
    public init(json: Data, origin: String) throws(FeedMappingError) {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw FeedMappingError(origin: origin, path: "", message: "not JSON: \(Self.jsonReason(error))")
        }
        let reader = MappingReader(origin: origin)
        let object = try reader.object(root, at: "")
        name = try reader.string(object["name"], at: "name")
        summary = try object["description"].map { value throws(FeedMappingError) in try reader.string(value, at: "description") } ?? ""
        var signature: [[String]] = []
        for (index, group) in (object["detect"] as? [Any] ?? (object["detect"].map { [$0] } ?? [])).enumerated() {
            signature.append(try reader.strings(group, at: "detect[\(index)]"))
        }
        self.signature = signature
        var namespaces: [String: [String]] = [:]
        for (prefix, value) in try reader.object(object["namespaces"] ?? [String: Any](), at: "namespaces") {
            let uris = try reader.strings(value, at: "namespaces.\(prefix)")
            guard !uris.isEmpty else { throw FeedMappingError(origin: origin, path: "namespaces.\(prefix)", message: "names no namespace URI") }
            namespaces[prefix] = uris
        }
        self.namespaces = namespaces
        guard let rules = object["records"] as? [Any], !rules.isEmpty else {
            throw FeedMappingError(origin: origin, path: "records", message: "expected a non-empty array of record rules")
        }
        var records: [FeedRecordRule] = []
        for (index, rule) in rules.enumerated() {
            records.append(try FeedRecordRule(rule, at: "records[\(index)]", reader: reader, namespaces: namespaces))
        }
        self.records = records
        self.origin = origin
        if let content = object["content"] {
            let text = try reader.string(content, at: "content")
            guard let format = ContentFileFormat(rawValue: text) else {
                throw FeedMappingError(origin: origin, path: "content", message: "expected vcard or icalendar, not \"\(text)\"")
            }
            contentFormat = format
        }
        try reader.refuseUnknownKeys(object, known: ["name", "description", "detect", "namespaces", "records", "content"], at: "")
    }

    private static func jsonReason(_ error: any Error) -> String {
        let described = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        return described ?? "\(error)"
    }
}

/// A mapping file that cannot be used: the file, the place in it (`records[0].attributes.name`)
/// and what is wrong.
public struct FeedMappingError: Error, Sendable, CustomStringConvertible {
    /// The mapping file.
    public var origin: String
    /// The JSON path of the faulty value; empty for the whole file.
    public var path: String
    public var message: String

    public var description: String {
        path.isEmpty ? "\(origin): \(message)" : "\(origin): \(path): \(message)"
    }
}

/// What a record rule does with the records it selects.
public enum FeedRecordAction: String, Sendable {
    /// Inserts the record, or updates the object imported from the same source with the same key.
    case upsert
    /// Deletes the object imported from the same source with the key (a DAV 404, an EWS
    /// `t:Delete`, a cancelled GData event).
    case delete
    /// Takes the element and does nothing with it (items of kinds the model has no entity for).
    case ignore
    /// Fails the import with the rule's `message` (an XPath): the feed reports an error, as an
    /// EWS response message of `ResponseClass="Error"` does inside an HTTP 200.
    case fail
}

/// One kind of record in a feed: which elements are records, and how each becomes an object.
public struct FeedRecordRule: Sendable {
    /// The streamable path that selects record elements.
    public var select: FeedPath
    /// An XPath test, relative to the record, that must be true for the rule to apply.
    public var when: String?
    /// Where a record's iCalendar or vCard text is, for rules that read one.
    public var payload: FeedPayload?
    /// The entity of the objects made.
    public var entity: String
    /// The entities a delete rule looks in, in order (a DAV 404 may name an event, a task or a
    /// contact): `"entity": ["Event", "Task"]`.
    public var deletedEntities: [String]
    public var action: FeedRecordAction
    /// The record's key within its source; a record without one is an error.
    public var key: FeedField?
    /// For `fail` rules: the XPath of what the feed says went wrong.
    public var message: String?
    /// The attribute values, by attribute name.
    public var attributes: [(name: String, field: FeedField)]
    /// The to-many relationships filled with one new object per child element or property.
    public var children: [FeedChildRule]
    /// The relationships set to objects already in the store, found by value (attendees by
    /// e-mail address, tags by name).
    public var links: [FeedLinkRule]

    init(_ value: Any, at path: String, reader: MappingReader, namespaces: [String: [String]]) throws(FeedMappingError) {
        let object = try reader.object(value, at: path)
        select = try FeedPath(try reader.string(object["select"], at: "\(path).select"), namespaces: namespaces,
                              origin: reader.origin, at: "\(path).select")
        when = try object["when"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).when") }
        payload = try object["payload"].map { value throws(FeedMappingError) in try FeedPayload(value, at: "\(path).payload", reader: reader) }
        let actionName = try object["action"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).action") } ?? "upsert"
        guard let action = FeedRecordAction(rawValue: actionName) else {
            throw FeedMappingError(origin: reader.origin, path: "\(path).action", message: "\"\(actionName)\" is not upsert, delete, ignore or fail")
        }
        // Rules that make nothing need no entity.
        let entities = object["entity"] == nil && (action == .ignore || action == .fail) ? [""]
            : try reader.strings(object["entity"], at: "\(path).entity")
        guard let first = entities.first else { throw FeedMappingError(origin: reader.origin, path: "\(path).entity", message: "missing") }
        entity = first
        deletedEntities = entities
        self.action = action
        if entities.count > 1, action != .delete {
            throw FeedMappingError(origin: reader.origin, path: "\(path).entity", message: "only delete rules name several entities")
        }
        key = try object["key"].map { value throws(FeedMappingError) in try FeedField(value, at: "\(path).key", reader: reader) }
        message = try object["message"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).message") }
        if action == .fail, message == nil {
            throw FeedMappingError(origin: reader.origin, path: "\(path).message", message: "a fail rule needs a message (an XPath)")
        }
        if action == .upsert || action == .delete, key == nil {
            throw FeedMappingError(origin: reader.origin, path: "\(path).key", message: "an \(action.rawValue) rule needs a key")
        }
        attributes = try reader.fields(object["attributes"], at: "\(path).attributes")
        var children: [FeedChildRule] = []
        for (name, child) in try reader.object(object["toMany"] ?? [String: Any](), at: "\(path).toMany").sorted(by: { $0.key < $1.key }) {
            children.append(try FeedChildRule(relationship: name, child, at: "\(path).toMany.\(name)", reader: reader))
        }
        self.children = children
        var links: [FeedLinkRule] = []
        for (name, link) in try reader.object(object["links"] ?? [String: Any](), at: "\(path).links").sorted(by: { $0.key < $1.key }) {
            links.append(try FeedLinkRule(relationship: name, link, at: "\(path).links.\(name)", reader: reader))
        }
        self.links = links
        try reader.refuseUnknownKeys(object, known: ["select", "when", "payload", "entity", "action", "key", "message", "attributes", "toMany", "links"],
                                     at: path)
    }
}

/// The iCalendar or vCard text inside a record (CalDAV `calendar-data`, CardDAV `address-data`,
/// GData `gd:recurrence`), and the component of it the record's fields read.
public struct FeedPayload: Sendable {
    /// XPath, relative to the record, of the element holding the text.
    public var xpath: String
    /// The component the fields read (`VEVENT`, `VTODO`, `VCARD`); a payload without one does
    /// not match the rule. Nil reads the lines outside any component (GData's `gd:recurrence`).
    public var component: String?
    /// A property that marks instances (`RECURRENCE-ID`): a payload whose every component has it
    /// (a CalDAV `<C:expand>` answer: a series as its occurrences, no rule) gives one record
    /// per component, keyed by the record's key, `#`, and the property's value.
    public var instances: String?

    init(_ value: Any, at path: String, reader: MappingReader) throws(FeedMappingError) {
        let object = try reader.object(value, at: path)
        xpath = try reader.string(object["xpath"], at: "\(path).xpath")
        instances = try object["instances"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).instances").uppercased() }
        component = try object["component"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).component").uppercased() }
        try reader.refuseUnknownKeys(object, known: ["xpath", "component", "instances"], at: path)
    }
}

/// A to-many relationship filled from a record: one object per element that `foreach` selects,
/// per payload property named `property` (every `EMAIL` of a vCard), or per payload component
/// named `components` that has the property `with` (the overridden occurrences of a CalDAV
/// event: `"components": "VEVENT", "with": "RECURRENCE-ID"`).
public struct FeedChildRule: Sendable {
    public var relationship: String
    public var entity: String
    /// XPath, relative to the record, of the child elements.
    public var foreach: String?
    /// The payload property each child stands for.
    public var property: String?
    /// The payload components each child stands for (their properties are the child's fields).
    public var components: String?
    /// The property a component needs to be a child.
    public var with: String?
    /// The child's attribute values; their XPaths are relative to the child element, their
    /// `property` fields read the child's own property (`"property": "."`, `"parameter": "TYPE"`).
    public var attributes: [(name: String, field: FeedField)]

    init(relationship: String, _ value: Any, at path: String, reader: MappingReader) throws(FeedMappingError) {
        self.relationship = relationship
        let object = try reader.object(value, at: path)
        entity = try reader.string(object["entity"], at: "\(path).entity")
        foreach = try object["foreach"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).foreach") }
        property = try object["property"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).property").uppercased() }
        components = try object["components"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).components").uppercased() }
        with = try object["with"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).with").uppercased() }
        guard [foreach, property, components].compactMap({ $0 }).count == 1 else {
            throw FeedMappingError(origin: reader.origin, path: path,
                                   message: "give one of foreach (an XPath), property (a payload property) or components (payload components)")
        }
        attributes = try reader.fields(object["attributes"], at: "\(path).attributes")
        try reader.refuseUnknownKeys(object, known: ["entity", "foreach", "property", "components", "with", "attributes"], at: path)
    }
}

/// A relationship set to the objects of the store that match a record's values: each value
/// (every node or payload property of `value`) finds the objects `match` selects with it as
/// `$value`; a value nothing matches makes an object from `create`, or is left out.
///
/// ```json
/// "links": {"attendees": {"value": {"property": "ATTENDEE", "stripPrefix": "mailto:"},
///                         "match": "ANY emailAddresses.address ==[c] $value"},
///           "tags": {"value": {"property": "CATEGORIES", "split": ","}, "match": "name ==[c] $value",
///                    "create": {"name": "$value"}}}
/// ```
public struct FeedLinkRule: Sendable {
    public var relationship: String
    /// Where the values are: every node or property, each one value.
    public var value: FeedField
    /// A predicate in the framework's format on the destination entity, with `$value`.
    public var match: String
    /// The attributes of the object made for a value nothing matches (`"$value"` for the value).
    public var create: [String: String]?

    init(relationship: String, _ value: Any, at path: String, reader: MappingReader) throws(FeedMappingError) {
        self.relationship = relationship
        let object = try reader.object(value, at: path)
        self.value = try FeedField(object["value"] as Any, at: "\(path).value", reader: reader)
        match = try reader.string(object["match"], at: "\(path).match")
        if let create = object["create"] {
            var attributes: [String: String] = [:]
            for (name, text) in try reader.object(create, at: "\(path).create") {
                attributes[name] = try reader.string(text, at: "\(path).create.\(name)")
            }
            self.create = attributes
        }
        try reader.refuseUnknownKeys(object, known: ["value", "match", "create"], at: path)
    }
}

/// Reads the JSON values of a mapping, naming the place of anything wrong.
struct MappingReader {
    let origin: String

    func object(_ value: Any?, at path: String) throws(FeedMappingError) -> [String: Any] {
        guard let object = value as? [String: Any] else { throw FeedMappingError(origin: origin, path: path, message: "expected an object") }
        return object
    }

    func string(_ value: Any?, at path: String) throws(FeedMappingError) -> String {
        guard let string = value as? String, !string.isEmpty else {
            throw FeedMappingError(origin: origin, path: path, message: value == nil ? "missing" : "expected a non-empty string")
        }
        return string
    }

    func strings(_ value: Any?, at path: String) throws(FeedMappingError) -> [String] {
        if let single = value as? String { return [single] }
        guard let list = value as? [Any] else { throw FeedMappingError(origin: origin, path: path, message: "expected a string or an array of strings") }
        var strings: [String] = []
        for (index, item) in list.enumerated() { strings.append(try string(item, at: "\(path)[\(index)]")) }
        return strings
    }

    /// A JSON boolean (JSONSerialization gives NSNumber on Linux, which `as? Bool` does not always take).
    func flag(_ value: Any?, at path: String) throws(FeedMappingError) -> Bool {
        guard let value else { return false }
        if let flag = value as? Bool { return flag }
        if let number = value as? NSNumber, number.intValue == 0 || number.intValue == 1 { return number.boolValue }
        throw FeedMappingError(origin: origin, path: path, message: "expected true or false")
    }

    func fields(_ value: Any?, at path: String) throws(FeedMappingError) -> [(name: String, field: FeedField)] {
        var fields: [(name: String, field: FeedField)] = []
        for (name, field) in try object(value ?? [String: Any](), at: path).sorted(by: { $0.key < $1.key }) {
            fields.append((name, try FeedField(field, at: "\(path).\(name)", reader: self)))
        }
        return fields
    }

    /// Refuses keys the format does not know: a misspelt `"atributes"` would otherwise map nothing, silently.
    func refuseUnknownKeys(_ object: [String: Any], known: Set<String>, at path: String) throws(FeedMappingError) {
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw FeedMappingError(origin: origin, path: path.isEmpty ? unknown : "\(path).\(unknown)",
                                   message: "unknown key (expected one of \(known.sorted().joined(separator: ", ")))")
        }
    }
}

extension FeedMapping {
    /// How much of a document's start ``matches(head:)`` looks at.
    public static let detectionLength = 65_536

    /// Whether each signature group has a string in `head` (a document's first bytes); a
    /// mapping without a signature matches nothing.
    public func matches(head: Data) -> Bool {
        // An XML document starts with markup; a vCard or iCalendar file with its BEGIN line.
        let unmarked = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
        let text = unmarked.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if let contentFormat {
            return String(decoding: text.prefix(contentFormat.beginLine.utf8.count), as: UTF8.self).uppercased() == contentFormat.beginLine
        }
        guard text.first == UInt8(ascii: "<") else { return false }
        return !signature.isEmpty && signature.allSatisfy { group in group.contains { head.range(of: Data($0.utf8)) != nil } }
    }

    /// The mappings whose signatures the document starting with `head` matches, the most
    /// specific (longest signature) first: an Atom feed of xCal events matches both `xcal` and
    /// `atom-xcal`, and is the latter.
    public static func candidates(forHead head: Data, among mappings: [FeedMapping]) -> [FeedMapping] {
        let matching = mappings.filter { $0.matches(head: head) }
        let most = matching.map(\.signature.count).max() ?? 0
        return matching.filter { $0.signature.count == most }
    }
}
