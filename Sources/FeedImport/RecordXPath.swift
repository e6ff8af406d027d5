// XPath 1.0 over the one record libxml2's reader has expanded: a context per document with the
// mapping's prefixes registered (each bound, record by record, to whichever of its URIs the
// document uses), expressions compiled once, results copied out as strings or nodes before the
// reader frees the subtree.
import CLibXML2
import Foundation

/// Evaluates a mapping's expressions against the records of one document.
final class RecordXPath {
    private let context: xmlXPathContextPtr
    private let document: xmlDocPtr
    private var compiled: [String: xmlXPathCompExprPtr] = [:]
    /// Prefixes with several URIs, and the one currently registered.
    private var alternatives: [(prefix: String, uris: [String])] = []
    private var bound: [String: String] = [:]
    private let mappingOrigin: String
    private let errors = XPathErrors()

    init?(document: xmlDocPtr, namespaces: [String: [String]], mappingOrigin: String) {
        guard let context = xmlXPathNewContext(document) else { return nil }
        self.context = context
        self.document = document
        self.mappingOrigin = mappingOrigin
        context.pointee.userData = Unmanaged.passUnretained(errors).toOpaque()
        context.pointee.error = { userData, error in
            guard let userData, let error else { return }
            let errors = Unmanaged<XPathErrors>.fromOpaque(userData).takeUnretainedValue()
            errors.messages.append((error.pointee.message.map { String(cString: $0) } ?? "invalid expression")
                .trimmedBlanks)
        }
        for (prefix, uris) in namespaces.sorted(by: { $0.key < $1.key }) {
            xmlChars(prefix) { prefix in xmlChars(uris[0]) { uri in _ = xmlXPathRegisterNs(context, prefix, uri) } }
            bound[prefix] = uris[0]
            if uris.count > 1 { alternatives.append((prefix, uris)) }
        }
    }

    deinit {
        for expression in compiled.values { xmlXPathFreeCompExpr(expression) }
        xmlXPathFreeContext(context)
    }

    /// Binds each prefix that has alternatives to the URI in scope at `record`.
    func bindNamespaces(at record: xmlNodePtr) {
        for (prefix, uris) in alternatives {
            guard let uri = uris.first(where: { uri in xmlChars(uri) { xmlSearchNsByHref(document, record, $0) != nil } }), bound[prefix] != uri else { continue }
            xmlChars(prefix) { prefix in xmlChars(uri) { uri in _ = xmlXPathRegisterNs(context, prefix, uri) } }
            bound[prefix] = uri
        }
    }

    private func expression(_ text: String) throws(FeedImportError) -> xmlXPathCompExprPtr {
        if let expression = compiled[text] { return expression }
        errors.messages.removeAll()
        guard let expression = xmlChars(text, { xmlXPathCtxtCompile(context, $0) }) else {
            throw FeedImportError.xpath(mapping: mappingOrigin, expression: text, message: errors.messages.first ?? "does not compile")
        }
        compiled[text] = expression
        return expression
    }

    private func evaluate(_ text: String, at node: xmlNodePtr) throws(FeedImportError) -> xmlXPathObjectPtr {
        let compiled = try expression(text)
        context.pointee.node = node
        errors.messages.removeAll()
        guard let result = xmlXPathCompiledEval(compiled, context) else {
            throw FeedImportError.xpath(mapping: mappingOrigin, expression: text, message: errors.messages.first ?? "cannot be evaluated")
        }
        return result
    }

    /// The string values of the expression's result: one per node of a node-set, else its one value.
    func strings(_ text: String, at node: xmlNodePtr) throws(FeedImportError) -> [String] {
        let result = try evaluate(text, at: node)
        defer { xmlXPathFreeObject(result) }
        switch result.pointee.type {
        case XPATH_NODESET:
            return Self.nodes(of: result).map(Self.string(of:))
        case XPATH_BOOLEAN:
            return [result.pointee.boolval != 0 ? "true" : "false"]
        case XPATH_NUMBER:
            let number = result.pointee.floatval
            if number.isNaN { return [] }
            return [number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)]
        default:
            guard let text = xmlXPathCastToString(result) else { return [] }
            defer { free(text) }  // xmlFree is free(): no other allocator is installed
            return [String(cString: text)]
        }
    }

    /// Whether the expression's result is true, by XPath's boolean() rules.
    func isTrue(_ text: String, at node: xmlNodePtr) throws(FeedImportError) -> Bool {
        let result = try evaluate(text, at: node)
        defer { xmlXPathFreeObject(result) }
        return xmlXPathCastToBoolean(result) != 0
    }

    /// The nodes the expression selects (empty unless it gives a node-set).
    func nodes(_ text: String, at node: xmlNodePtr) throws(FeedImportError) -> [xmlNodePtr] {
        let result = try evaluate(text, at: node)
        defer { xmlXPathFreeObject(result) }
        return result.pointee.type == XPATH_NODESET ? Self.nodes(of: result) : []
    }

    private static func nodes(of result: xmlXPathObjectPtr) -> [xmlNodePtr] {
        guard let set = result.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else { return [] }
        return (0..<Int(set.pointee.nodeNr)).compactMap { table[$0] }
    }

    /// A node's string value: the text of an element (its descendants' text and CDATA), an attribute's value.
    static func string(of node: xmlNodePtr) -> String {
        guard let text = xmlXPathCastNodeToString(node) else { return "" }
        defer { free(text) }  // xmlFree is free(): no other allocator is installed
        return String(cString: text)
    }
}

/// The messages libxml2 reports while compiling or evaluating one expression.
private final class XPathErrors {
    var messages: [String] = []
}

/// Calls `body` with `text` as libxml2's `const xmlChar *` (UTF-8, NUL-terminated).
func xmlChars<Result>(_ text: String, _ body: (UnsafePointer<xmlChar>) -> Result) -> Result {
    text.withCString { pointer in pointer.withMemoryRebound(to: xmlChar.self, capacity: text.utf8.count + 1, body) }
}
