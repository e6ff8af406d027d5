// A small read-only XML element tree built with libxml2, for the documents the framework reads
// whole: model files, version plists, and later the XML store. Parsing never touches the
// network and never expands external entities; a syntax error carries libxml2's line and column.
import CLibXML2
import Foundation

/// An XML element: its name, attributes, text, children and the line it starts on.
struct XMLTreeElement: Sendable {
    var name: String
    /// Attributes in document order.
    var attributeList: [(name: String, value: String)]
    /// The concatenated text of the element's direct text and CDATA children.
    var text: String
    var children: [XMLTreeElement]
    /// The 1-based line of the start tag.
    var line: Int

    /// The value of the attribute named `name`.
    subscript(attribute name: String) -> String? {
        attributeList.first { $0.name == name }?.value
    }

    /// The child elements named `name`, in document order.
    func children(named name: String) -> [XMLTreeElement] {
        children.filter { $0.name == name }
    }
}

/// A syntax error libxml2 reported, with its place.
struct XMLSyntaxError: Error, Sendable {
    var message: String
    var line: Int
    var column: Int
}

/// The errors libxml2 reports while parsing one document, in order.
private final class ErrorCollector {
    var errors: [XMLSyntaxError] = []
}

enum XMLTree {
    /// Parses `data` (named `path` in messages) into its root element.
    static func parse(_ data: Data, path: String) throws(XMLSyntaxError) -> XMLTreeElement {
        guard let context = xmlNewParserCtxt() else {
            throw XMLSyntaxError(message: "libxml2 could not allocate a parser", line: 0, column: 0)
        }
        defer { xmlFreeParserCtxt(context) }
        // libxml2 keeps only the last error, which after a mismatched tag is the less helpful
        // "premature end of data"; collect them in order through this context's own handler.
        let collector = ErrorCollector()
        context.pointee._private = Unmanaged.passUnretained(collector).toOpaque()
        context.pointee.sax.pointee.serror = { userData, error in
            guard let userData, let error else { return }
            let parser = userData.assumingMemoryBound(to: xmlParserCtxt.self)
            guard let box = parser.pointee._private else { return }
            let collector = Unmanaged<ErrorCollector>.fromOpaque(box).takeUnretainedValue()
            let message = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
            collector.errors.append(XMLSyntaxError(message: message.trimmingCharacters(in: .whitespacesAndNewlines),
                                                   line: Int(error.pointee.line), column: Int(error.pointee.int2)))
        }
        // No network, no error output on stderr (errors are read from the context), line
        // numbers past 65535, and no entity substitution or DTD loading (XML_PARSE_NOENT and
        // XML_PARSE_DTDLOAD stay off), so documents cannot pull in external files.
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                            | XML_PARSE_NOWARNING.rawValue | XML_PARSE_BIG_LINES.rawValue)
        let document: xmlDocPtr? = data.withUnsafeBytes { buffer in
            let base = buffer.bindMemory(to: CChar.self).baseAddress
            return xmlCtxtReadMemory(context, base, Int32(buffer.count), path, nil, options)
        }
        guard let document, context.pointee.wellFormed != 0 else {
            if let document { xmlFreeDoc(document) }
            throw collector.errors.first ?? syntaxError(of: context)
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else {
            throw XMLSyntaxError(message: "the document has no root element", line: 1, column: 1)
        }
        return element(from: root)
    }

    private static func syntaxError(of context: xmlParserCtxtPtr) -> XMLSyntaxError {
        guard let error = xmlCtxtGetLastError(context) else {
            return XMLSyntaxError(message: "malformed XML", line: 1, column: 1)
        }
        let message = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
        return XMLSyntaxError(message: message.trimmingCharacters(in: .whitespacesAndNewlines),
                              line: Int(error.pointee.line), column: Int(error.pointee.int2))
    }

    private static func element(from node: xmlNodePtr) -> XMLTreeElement {
        var attributes: [(name: String, value: String)] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            attributes.append((String(cString: current.pointee.name), text(of: current.pointee.children)))
            attribute = current.pointee.next
        }
        var children: [XMLTreeElement] = []
        var text = ""
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE: children.append(element(from: current))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { text += String(cString: content) }
            default: break
            }
            child = current.pointee.next
        }
        return XMLTreeElement(name: String(cString: node.pointee.name), attributeList: attributes,
                              text: text, children: children, line: Int(xmlGetLineNo(node)))
    }

    private static func text(of firstChild: xmlNodePtr?) -> String {
        var result = ""
        var node = firstChild
        while let current = node {
            if let content = current.pointee.content { result += String(cString: content) }
            node = current.pointee.next
        }
        return result
    }
}
