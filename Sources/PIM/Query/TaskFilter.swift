// The friendly filters of `pim tasks list`: --due-before, --due-after, --project (and its
// sub-projects), --tag, --status; by default only pending and started tasks not waiting.
import Foundation
import ObjectGraph

/// Friendly task filters as typed.
public struct TaskFilter: Sendable {
    public var dueBefore: String?
    public var dueAfter: String?
    public var project: String?
    public var tags: [String] = []
    /// Statuses to list; empty lists pending and started tasks whose wait date has passed.
    public var statuses: [String] = []
    /// List every task whatever its status.
    public var all = false

    public init() {}
}

extension PIMStore {
    /// The predicates of `filter`.
    public func predicates(for filter: TaskFilter) throws(PIMError) -> [ObjectGraph.Predicate] {
        var formats: [(String, [Any?])] = []
        if let text = filter.dueBefore { formats.append(("due < %@", [try readDate(text, with: dateParser)])) }
        if let text = filter.dueAfter { formats.append(("due > %@", [try readDate(text, with: dateParser)])) }
        if let project = filter.project?.trimmingCharacters(in: .whitespaces) {
            // An empty project means none, as Taskwarrior's `project:` does.
            formats.append(project.isEmpty ? ("project == nil", []) : ("project ==[c] %@ OR project BEGINSWITH[c] %@", [project, project + "."]))
        }
        for tag in filter.tags { formats.append(("ANY tags.name ==[c] %@", [tag])) }
        let valid = ["pending", "started", "done", "cancelled"]
        for status in filter.statuses where !valid.contains(status) {
            throw PIMError.usage("--status \"\(status)\": expected one of \(valid.joined(separator: ", "))")
        }
        if !filter.statuses.isEmpty {
            formats.append(("status IN %@", [filter.statuses]))
        } else if !filter.all {
            formats.append(("status IN %@ AND (wait == nil OR wait <= %@)", [["pending", "started"], now]))
        }
        do {
            return try formats.map { try ObjectGraph.Predicate(format: $0.0, argumentArray: $0.1) }
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
    }
}
