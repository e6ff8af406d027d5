// The errors of reading, validating and merging models. Each names the file, and for an
// invalid model carries every issue found, so that one run reports all the problems of a file.
import Foundation

/// Why a model could not be read, validated or merged.
public enum ModelError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The model has errors; every issue found (warnings included) is listed.
    case invalidModel(path: String?, issues: [ModelIssue])
    /// No file or folder at the path.
    case fileNotFound(path: String)
    /// The path is not a `.xcdatamodeld`, a `.xcdatamodel` or a `contents` file.
    case notAModel(path: String, reason: String)
    /// The file is there but cannot be read (no permission, say).
    case unreadableFile(path: String, reason: String)
    /// A model bundle has no version of that name.
    case unknownVersion(path: String, name: String, available: [String])
    /// Two merged models declare an entity of the same name.
    case mergeConflict(entity: String)
    /// A fetch request template's predicate is malformed or has a variable with no value.
    case invalidTemplate(name: String, reason: String)

    /// The issues of an invalid model, or an empty list.
    public var issues: [ModelIssue] {
        if case .invalidModel(_, let issues) = self { return issues }
        return []
    }

    public var description: String {
        switch self {
        case let .invalidModel(path, issues):
            let errors = issues.filter { $0.severity == .error }.count
            let head = "\(path ?? "model"): \(errors) error\(errors == 1 ? "" : "s")"
            return ([head] + issues.map(\.description)).joined(separator: "\n")
        case let .fileNotFound(path):
            return "\(path): no such file or directory"
        case let .notAModel(path, reason):
            return "\(path): not a model: \(reason)"
        case let .unreadableFile(path, reason):
            return "\(path): cannot be read: \(reason)"
        case let .unknownVersion(path, name, available):
            return "\(path): no version named \"\(name)\" (versions: \(available.joined(separator: ", ")))"
        case let .mergeConflict(entity):
            return "cannot merge models: both declare an entity named \"\(entity)\""
        case let .invalidTemplate(name, reason):
            return "fetch request template \"\(name)\": \(reason)"
        }
    }
}
