// The streamable paths that select record elements: name steps matched against the end of the
// current element's ancestor chain as the reader meets each start tag, with no look-ahead (the
// subset libxml2's streaming patterns support). A leading "/" anchors the path at the root.
import Foundation

/// A path of element names, `m:Items/t:Contact` or `/a:feed/a:entry`, matched by namespace URI
/// and local name, never by the document's prefixes.
public struct FeedPath: Sendable, CustomStringConvertible {
    /// One step: the URIs its prefix stands for (empty for no namespace) and a local name (`*` for any).
    struct Step: Sendable {
        var uris: [String]
        var localName: String

        func matches(uri: String, localName name: String) -> Bool {
            (localName == "*" || localName == name) && (uris.isEmpty ? uri.isEmpty : uris.contains(uri))
        }
    }

    var steps: [Step]
    /// Whether the first step is the document's root element.
    var isAbsolute: Bool
    public let description: String

    init(_ text: String, namespaces: [String: [String]], origin: String, at path: String) throws(FeedMappingError) {
        description = text
        isAbsolute = text.hasPrefix("/")
        var steps: [Step] = []
        for step in text.split(separator: "/", omittingEmptySubsequences: false).dropFirst(isAbsolute ? 1 : 0) {
            let parts = step.split(separator: ":", maxSplits: 1).map(String.init)
            guard !step.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else {
                throw FeedMappingError(origin: origin, path: path, message: "\"\(text)\" is not a path of element names (prefix:name/prefix:name)")
            }
            if parts.count == 2 {
                guard let uris = namespaces[parts[0]] else {
                    throw FeedMappingError(origin: origin, path: path, message: "prefix \"\(parts[0])\" is not in namespaces")
                }
                steps.append(Step(uris: uris, localName: parts[1]))
            } else {
                steps.append(Step(uris: [], localName: parts[0]))
            }
        }
        self.steps = steps
    }

    /// Whether the element at the end of `chain` (root first) is selected.
    func matches(_ chain: [(uri: String, localName: String)]) -> Bool {
        guard chain.count >= steps.count, !isAbsolute || chain.count == steps.count else { return false }
        let offset = chain.count - steps.count
        for (index, step) in steps.enumerated() where !step.matches(uri: chain[offset + index].uri, localName: chain[offset + index].localName) {
            return false
        }
        return true
    }
}
