// A PROPFIND or REPORT answer (207 Multi-Status, RFC 4918 13) read into its members: each href
// with the properties pim asks for (entity tag, resource type, display name, calendar components),
// and a sync-collection report's new sync token (RFC 6578 3.2). The calendar and address data of
// a multiget are kept as text: they go through FeedImport's dav mapping, as an imported feed does.
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One `response` of a multi-status answer.
struct DAVMember: Equatable {
    var href: String
    var etag: String?
    /// The resource types, as `namespace localname` (`DAV: collection`, `urn:ietf:params:xml:ns:caldav calendar`).
    var resourceTypes: Set<String> = []
    var displayName: String?
    /// The calendar components a calendar collection holds (`VEVENT`, `VTODO`).
    var components: [String] = []
    /// The status of the whole response, when it has one instead of property statuses (a 404).
    var status: Int?
    /// The resource's text, when asked for (calendar-data, address-data).
    var data: String?

    static let davNamespace = "DAV:"
    static let calDAVNamespace = "urn:ietf:params:xml:ns:caldav"
    static let cardDAVNamespace = "urn:ietf:params:xml:ns:carddav"

    var isCollection: Bool { resourceTypes.contains("\(Self.davNamespace) collection") }
    var isCalendar: Bool { resourceTypes.contains("\(Self.calDAVNamespace) calendar") }
    var isAddressBook: Bool { resourceTypes.contains("\(Self.cardDAVNamespace) addressbook") }
}

/// The reader of a multi-status answer.
final class DAVMultistatus: NSObject, XMLParserDelegate {
    private(set) var members: [DAVMember] = []
    private var member: DAVMember?
    private var path: [String] = []
    private var text = ""
    private var propstatStatus: Int?
    private var pending = DAVMember(href: "")

    /// The members of `data`; throws, naming `url` and the line, when it is not a multi-status
    /// document.
    static func members(of data: Data, from url: URL) throws(PIMError) -> [DAVMember] {
        try read(data, from: url).members
    }

    /// The members of `data` and the sync token it ends with (a sync-collection report's; nil in
    /// other answers); throws as ``members(of:from:)`` does.
    static func read(_ data: Data, from url: URL) throws(PIMError) -> (members: [DAVMember], syncToken: String?) {
        let reader = DAVMultistatus()
        let parser = reader.parser(of: data)
        guard parser.parse() else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed"
            throw PIMError.server("\(url.absoluteString): the answer is not well-formed XML (line \(parser.lineNumber), column \(parser.columnNumber)): \(reason)")
        }
        guard reader.sawMultistatus else {
            throw PIMError.server("\(url.absoluteString): the answer is not a WebDAV multi-status document")
        }
        return (reader.members, reader.syncToken)
    }

    /// The `sync-token` element of the multi-status (RFC 6578 6.2).
    private(set) var syncToken: String?

    private var sawMultistatus = false
    /// With ``hrefs(in:inside:)``: the local names of the properties whose hrefs are wanted.
    private var wantedProperties: Set<String> = []
    private var insideWanted = 0
    private(set) var wantedHrefs: [String] = []

    /// The hrefs inside the properties `names` (local names, as `calendar-home-set`) of a
    /// multi-status answer; none when it cannot be read.
    static func hrefs(in data: Data, inside names: Set<String>) -> [String] {
        let reader = DAVMultistatus()
        reader.wantedProperties = names
        return reader.parser(of: data).parse() ? reader.wantedHrefs : []
    }

    /// A parser of `data` reporting to this reader: namespaces resolved, no external entities.
    private func parser(of data: Data) -> XMLParser {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = self
        return parser
    }

    private static func name(_ element: String, _ namespace: String?) -> String { "\(namespace ?? "") \(element)" }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        let name = Self.name(elementName, namespaceURI)
        let parent = path.last
        path.append(name)
        text = ""
        if wantedProperties.contains(elementName) { insideWanted += 1 }
        switch name {
        case "DAV: multistatus": sawMultistatus = true
        case "DAV: response": member = DAVMember(href: "")
        case "DAV: propstat":
            pending = DAVMember(href: "")
            propstatStatus = nil
        default:
            if parent == "DAV: resourcetype" { pending.resourceTypes.insert(name) }
            if name == "\(DAVMember.calDAVNamespace) comp", parent == "\(DAVMember.calDAVNamespace) supported-calendar-component-set",
               let component = attributes["name"] {
                pending.components.append(component.uppercased())
            }
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let name = Self.name(elementName, namespaceURI)
        path.removeLast()
        let parent = path.last
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if wantedProperties.contains(elementName) { insideWanted -= 1 }
        if insideWanted > 0, name == "DAV: href", !value.isEmpty { wantedHrefs.append(value) }
        switch name {
        case "DAV: href" where parent == "DAV: response": member?.href = value
        case "DAV: status" where parent == "DAV: response": member?.status = Self.statusCode(value)
        case "DAV: sync-token" where parent == "DAV: multistatus": syncToken = value
        case "DAV: status" where parent == "DAV: propstat": propstatStatus = Self.statusCode(value)
        case "DAV: getetag": pending.etag = value
        case "DAV: displayname": pending.displayName = value.isEmpty ? nil : value
        case "\(DAVMember.calDAVNamespace) calendar-data", "\(DAVMember.cardDAVNamespace) address-data": pending.data = text
        case "DAV: propstat":
            // Only properties the server has: a 404 propstat lists those it has not.
            if let status = propstatStatus, (200..<300).contains(status), var current = member {
                current.etag = pending.etag ?? current.etag
                current.displayName = pending.displayName ?? current.displayName
                current.resourceTypes.formUnion(pending.resourceTypes)
                current.components += pending.components
                current.data = pending.data ?? current.data
                member = current
            }
        case "DAV: response":
            if let member, !member.href.isEmpty { members.append(member) }
            member = nil
        default: break
        }
        text = ""
    }

    /// The code of an HTTP status line (`HTTP/1.1 404 Not Found`).
    private static func statusCode(_ line: String) -> Int? {
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }
}
