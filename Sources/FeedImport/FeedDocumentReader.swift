// Streaming a feed with libxml2's xmlTextReader: the ancestor chain of each start tag is matched
// against the mapping's record paths; a matching element alone is expanded into a tree, handed
// over, then skipped, so memory stays flat however long the feed. No network, no entity
// expansion or DTD loading (XXE), no entity declarations at all (billion laughs), huge text
// nodes allowed (base64 photos and MIME content).
import CLibXML2
import Foundation

/// One record element, expanded, with the rule that took it.
struct FeedRecordElement {
    var node: xmlNodePtr
    var rule: FeedRecordRule
    /// The line of its start tag.
    var line: Int
    /// Its iCalendar/vCard payload component, for rules that read one.
    var payload: ContentComponent?
    /// The whole payload the component is part of.
    var document: ContentComponent?
    /// What the record's key is followed by when the element holds several records (one
    /// instance of a series a CalDAV expand answer gives).
    var keySuffix: String?
    let xpath: RecordXPath
}

/// Reads one document and hands each record element to a closure.
final class FeedDocumentReader {
    private let reader: xmlTextReaderPtr
    private let feedName: String
    private let mapping: FeedMapping
    private let errors = ReaderErrors()
    private var xpath: RecordXPath?
    /// A copy of an in-memory document's bytes, alive while libxml2 reads them.
    private let buffer: UnsafeMutableRawBufferPointer?

    /// The options every feed is read with.
    private static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue | XML_PARSE_BIG_LINES.rawValue
                                       | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)

    /// A reader of the file at `path`.
    init(path: String, mapping: FeedMapping) throws(FeedImportError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .unreadable(feed: path, reason: String(cString: strerror(errno))) }
        guard (status.st_mode & S_IFMT) != S_IFDIR else { throw .unreadable(feed: path, reason: "is a folder") }
        guard let reader = xmlReaderForFile(path, nil, Self.options) else { throw .unreadable(feed: path, reason: "cannot be opened") }
        self.reader = reader
        feedName = path
        self.mapping = mapping
        buffer = nil
        installErrorHandler()
    }

    /// A reader of a document in memory, named `name` in messages.
    init(data: Data, name: String, mapping: FeedMapping) throws(FeedImportError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 1)
        data.copyBytes(to: buffer)
        guard let reader = xmlReaderForMemory(buffer.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(data.count), name, nil, Self.options) else {
            buffer.deallocate()
            throw .unreadable(feed: name, reason: "cannot be read")
        }
        self.reader = reader
        feedName = name
        self.mapping = mapping
        self.buffer = buffer
        installErrorHandler()
    }

    deinit {
        xpath = nil
        xmlFreeTextReader(reader)
        buffer?.deallocate()
    }

    private func installErrorHandler() {
        xmlTextReaderSetStructuredErrorHandler(reader, { userData, error in
            guard let userData, let error else { return }
            let errors = Unmanaged<ReaderErrors>.fromOpaque(userData).takeUnretainedValue()
            guard error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            errors.errors.append((line: Int(error.pointee.line), column: Int(error.pointee.int2),
                                  message: (error.pointee.message.map { String(cString: $0) } ?? "malformed XML").trimmedBlanks))
        }, Unmanaged.passUnretained(errors).toOpaque())
    }

    /// Reads the document to its end, calling `body` with each record element a rule takes.
    /// Throws at the first well-formedness error, with its line and column.
    func forEachRecord(_ body: (FeedRecordElement) throws(FeedImportError) -> Void) throws(FeedImportError) {
        var chain: [(uri: String, localName: String)] = []
        var status = xmlTextReaderRead(reader)
        while status == 1 {
            let type = xmlTextReaderNodeType(reader)
            if type == Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue), declaresEntities() {
                // Never needed by a feed, and a reference to nested entities expands without
                // bound when a field's text is read ("billion laughs"): refused outright.
                throw .syntax(feed: feedName, line: Int(xmlTextReaderGetParserLineNumber(reader)), column: Int(xmlTextReaderGetParserColumnNumber(reader)),
                              message: "the document declares entities in its DTD, which no feed needs: refused")
            }
            guard type == Int32(XML_READER_TYPE_ELEMENT.rawValue) else {
                status = xmlTextReaderRead(reader)
                continue
            }
            let depth = Int(xmlTextReaderDepth(reader))
            if chain.count > depth { chain.removeLast(chain.count - depth) }
            chain.append((Self.string(xmlTextReaderConstNamespaceUri(reader)), Self.string(xmlTextReaderConstLocalName(reader))))
            let candidates = mapping.records.filter { $0.select.matches(chain) }
            guard !candidates.isEmpty else {
                status = xmlTextReaderRead(reader)
                continue
            }
            guard let node = xmlTextReaderExpand(reader) else { break }
            let xpath = try recordXPath()
            xpath.bindNamespaces(at: node)
            guard let elements = try take(node, candidates: candidates, xpath: xpath) else {
                // No rule takes it: what it holds may be records (an EWS response message that
                // did not fail holds the items).
                status = xmlTextReaderRead(reader)
                continue
            }
            for element in elements { try body(element) }
            status = xmlTextReaderNext(reader)
        }
        if status != 0 || !errors.errors.isEmpty { throw syntaxError() }
    }

    /// The records of the first candidate rule whose test and payload component match, with the
    /// payload read; nil when no rule takes the element.
    private func take(_ node: xmlNodePtr, candidates: [FeedRecordRule], xpath: RecordXPath) throws(FeedImportError) -> [FeedRecordElement]? {
        let line = Int(xmlGetLineNo(node))
        var payloads: [String: ContentComponent] = [:]
        for rule in candidates {
            if let test = rule.when, try !xpath.isTrue(test, at: node) { continue }
            guard let payloadRule = rule.payload else { return [FeedRecordElement(node: node, rule: rule, line: line, payload: nil, document: nil, xpath: xpath)] }
            let document: ContentComponent
            if let parsed = payloads[payloadRule.xpath] {
                document = parsed
            } else {
                document = ContentComponent.parse(try xpath.strings(payloadRule.xpath, at: node).joined(separator: "\n"))
                payloads[payloadRule.xpath] = document
            }
            guard let component = payloadRule.component.map({ document.recordComponent(named: $0) }) ?? document else { continue }
            if let marker = payloadRule.instances, let name = payloadRule.component, component.property(marker) != nil {
                // No component without the marker: every component is an instance of its own.
                return document.components(named: name, having: marker).map { instance in
                    var element = FeedRecordElement(node: node, rule: rule, line: line, payload: instance, document: document, xpath: xpath)
                    element.keySuffix = "#" + (instance.property(marker)?.value ?? "")
                    return element
                }
            }
            return [FeedRecordElement(node: node, rule: rule, line: line, payload: component, document: document, xpath: xpath)]
        }
        return nil
    }

    /// Whether the document's internal DTD subset declares entities.
    private func declaresEntities() -> Bool {
        guard let document = xmlTextReaderCurrentDoc(reader), let subset = document.pointee.intSubset else { return false }
        return subset.pointee.entities != nil || subset.pointee.pentities != nil
    }

    private func recordXPath() throws(FeedImportError) -> RecordXPath {
        if let xpath { return xpath }
        guard let document = xmlTextReaderCurrentDoc(reader),
              let made = RecordXPath(document: document, namespaces: mapping.namespaces, mappingOrigin: mapping.origin) else {
            throw syntaxError()
        }
        xpath = made
        return made
    }

    private func syntaxError() -> FeedImportError {
        if let first = errors.errors.first {
            return .syntax(feed: feedName, line: first.line, column: first.column, message: first.message)
        }
        return .syntax(feed: feedName, line: Int(xmlTextReaderGetParserLineNumber(reader)),
                       column: Int(xmlTextReaderGetParserColumnNumber(reader)), message: "not a well-formed XML document")
    }

    private static func string(_ text: UnsafePointer<xmlChar>?) -> String {
        guard let text else { return "" }
        return String(cString: text)
    }
}

/// The errors libxml2 reported while reading, in order.
private final class ReaderErrors {
    var errors: [(line: Int, column: Int, message: String)] = []
}
