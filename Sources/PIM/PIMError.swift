// Every failure a pim command reports, and the exit code of each: the one place where exit codes
// are defined (pim(1) lists them). Messages name the record, the text or the file at fault.
import Foundation
import ObjectGraph

/// The exit codes of `pim`.
///
/// | code | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | nothing matched (an empty list, nothing to undo or redo) |
/// | 2 | usage or parse error (bad option, date, duration, rule, predicate) |
/// | 3 | no record has that id, number or name; no occurrence of a repeating event starts then |
/// | 4 | the id, number or name matches several records |
/// | 5 | conflict: the record changed in another pim run since this one read it |
/// | 6 | not confirmed: a delete or merge without `--yes` and no terminal to ask on, or answered no |
/// | 7 | invalid data: the store refused the values (each failure is listed) |
/// | 8 | the store cannot be opened or written |
/// | 9 | a feed cannot be imported: not well-formed XML (line and column named), unreadable, or a bad mapping |
/// | 10 | a sync server cannot be reached, refused the request, or answered what pim cannot read |
public enum PIMExitCode: Int32, Sendable, CaseIterable {
    case success = 0
    case noMatch = 1
    case usage = 2
    case notFound = 3
    case ambiguous = 4
    case conflict = 5
    case notConfirmed = 6
    case invalidData = 7
    case storeFailure = 8
    case feedFailure = 9
    case serverFailure = 10
}

/// A failure of a pim command, with what to tell the user.
public enum PIMError: Error, CustomStringConvertible {
    case noMatch(String)
    case usage(String)
    case date(DateParseError)
    case recurrence(RecurrenceRuleError)
    case predicate(ObjectGraph.PredicateError, option: String)
    case notFound(kind: RecordKind, reference: String)
    case ambiguous(kind: RecordKind, reference: String, candidates: [String])
    /// A text that names several parts of a record (`denotate`'s annotation), listed.
    case ambiguousText(String)
    /// No occurrence of a repeating event starts when the text said (or it is skipped already).
    case noOccurrence(String)
    case conflict(String)
    case notConfirmed(String)
    case invalid(String)
    case store(path: String, reason: String)
    /// A file a command writes (an export's `--output`) that cannot be written.
    case output(path: String, reason: String)
    /// A feed that cannot be imported (its file, line and column), or a mapping that cannot be used.
    case feed(String)
    /// A CalDAV or CardDAV server that cannot be reached, refused a request, or answered what
    /// pim cannot read (the request and the URL named).
    case server(String)

    /// The exit code this failure ends the command with.
    public var exitCode: PIMExitCode {
        switch self {
        case .noMatch: .noMatch
        case .usage, .date, .recurrence, .predicate: .usage
        case .notFound, .noOccurrence: .notFound
        case .ambiguous, .ambiguousText: .ambiguous
        case .conflict: .conflict
        case .notConfirmed: .notConfirmed
        case .invalid: .invalidData
        case .store, .output: .storeFailure
        case .feed: .feedFailure
        case .server: .serverFailure
        }
    }

    public var description: String {
        switch self {
        case .noMatch(let message), .usage(let message), .conflict(let message), .notConfirmed(let message), .invalid(let message),
             .noOccurrence(let message), .feed(let message), .server(let message), .ambiguousText(let message):
            return message
        case .date(let error): return error.description
        case .recurrence(let error): return error.description
        case .predicate(let error, let option): return "\(option): \(error)"
        case let .notFound(kind, reference): return "no \(kind.singular) \"\(reference)\""
        case let .ambiguous(kind, reference, candidates):
            return "\"\(reference)\" names \(candidates.count) \(kind.plural):\n" + candidates.map { "  \($0)" }.joined(separator: "\n")
        case let .store(path, reason): return "store \(path): \(reason)"
        case let .output(path, reason): return "\(path): \(reason)"
        }
    }

    /// The PIM error that a framework or parser error means for the user.
    public static func wrapping(_ error: any Error, storePath: String) -> PIMError {
        switch error {
        case let error as PIMError: return error
        case let error as DateParseError: return .date(error)
        case let error as RecurrenceRuleError: return .recurrence(error)
        case let error as ValidationError: return .invalid(error.description)
        case let error as MergeError:
            return .conflict("another pim run changed these records since this one read them; run the command again (\(error))")
        case let error as StoreError:
            switch error {
            case .conflicts: return .conflict("another pim run changed these records since this one read them; run the command again (\(error))")
            case .uniquenessViolation: return .conflict(error.description)
            default: return .store(path: storePath, reason: error.description)
            }
        default: return .store(path: storePath, reason: "\(error)")
        }
    }
}
