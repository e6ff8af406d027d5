// The failures of a feed import, each naming its place: the feed's file, line and column for
// malformed XML, the mapping file and JSON path for a bad mapping, the record's line, entity and
// property for a record the model refuses.
import Foundation

/// A record of a feed that could not be imported, and why.
public struct FeedRecordIssue: Sendable, CustomStringConvertible {
    /// The feed (file path, or the name given for data).
    public var feed: String
    /// The line of the record's start tag (0: a check of the whole feed, after it was read).
    public var line: Int
    /// The entity the record was for.
    public var entity: String
    /// The record's key, when it had one.
    public var key: String?
    public var message: String

    public init(feed: String, line: Int, entity: String, key: String?, message: String) {
        self.feed = feed
        self.line = line
        self.entity = entity
        self.key = key
        self.message = message
    }

    public var description: String {
        "\(feed)\(line > 0 ? ":\(line)" : ""): \(entity)\(key.map { " \"\($0)\"" } ?? ""): \(message)"
    }
}

/// Why a feed was not imported. Nothing of it was: the context is left to the caller, who rolls
/// it back.
public enum FeedImportError: Error, Sendable, CustomStringConvertible {
    /// The feed could not be opened.
    case unreadable(feed: String, reason: String)
    /// The feed is not well-formed XML (or not XML): libxml2's message and place.
    case syntax(feed: String, line: Int, column: Int, message: String)
    /// The mapping cannot be used (unreadable, or it names what the model does not have).
    case mapping(FeedMappingError)
    /// An XPath expression of the mapping does not compile or evaluate.
    case xpath(mapping: String, expression: String, message: String)
    /// Records the model refuses (every one found, with their lines).
    case invalidRecords([FeedRecordIssue])
    /// The feed itself reports an error (a `fail` rule took an element): its line and message.
    case reported(feed: String, line: Int, message: String)

    public var description: String {
        switch self {
        case let .unreadable(feed, reason): return "\(feed): \(reason)"
        case let .syntax(feed, line, column, message): return "\(feed):\(line):\(column): \(message)"
        case .mapping(let error): return error.description
        case let .xpath(mapping, expression, message): return "\(mapping): XPath \"\(expression)\": \(message)"
        case let .reported(feed, line, message): return "\(feed):\(line): the feed reports an error: \(message)"
        case .invalidRecords(let issues):
            return "\(issues.count) record(s) not imported:\n" + issues.map { "  \($0)" }.joined(separator: "\n")
        }
    }
}
