// `pim tasks projects` and `pim tasks tags`: how many of the tasks a query selects each project
// and each tag has, as Taskwarrior's `projects` and `tags` reports give them. A project's count
// takes in its sub-projects (home.garden is in home), so that it is the number of tasks
// `tasks list --project home` lists; projects and tags are told apart ignoring case, as those
// filters match them.
import Foundation
import ObjectGraph

/// One project of the tree `projectCounts` returns.
public struct ProjectCount: Sendable, Equatable {
    /// The dotted path (`home.garden`); nil for the tasks with no project.
    public var project: String?
    /// The path's last part (`garden`), or `(none)`.
    public var name: String
    /// How many parts above it the path has: 0 for a top-level project.
    public var depth: Int
    /// The tasks of the project and of its sub-projects.
    public var tasks: Int
    /// The tasks of the project itself (0 for a project only its sub-projects name).
    public var own: Int
}

/// One tag and the number of tasks that carry it.
public struct TagCount: Sendable, Equatable {
    public var tag: String
    public var tasks: Int
}

extension PIMStore {
    /// The projects of the tasks `query` selects, as a tree in depth-first order (each level by
    /// name, ignoring case), the tasks with no project first. A project only its sub-projects
    /// name (home for home.garden) is in the tree with `own` 0. Each project is spelled as
    /// most of its tasks spell it (the first by code point among equals).
    public func projectCounts(_ query: RecordQuery) throws(PIMError) -> [ProjectCount] {
        let tasks = try list(taskQuery(query, loading: [])).compactMap { $0 as? TaskItem }
        final class Node {
            var spellings: [String: Int] = [:]
            var own = 0
            var tasks = 0
            var children: [String: Node] = [:]
        }
        let root = Node()
        var unfiled = 0
        for task in tasks {
            // Split as `tasks list --project` matches: home. and home..garden are in home.
            let parts = (task.project ?? "").split(separator: ".").map(String.init)
            guard !parts.isEmpty else {
                unfiled += 1
                continue
            }
            var node = root
            for part in parts {
                let key = part.lowercased()
                let child = node.children[key] ?? Node()
                node.children[key] = child
                child.spellings[part, default: 0] += 1
                child.tasks += 1
                node = child
            }
            node.own += 1
        }
        var counts = unfiled > 0 ? [ProjectCount(project: nil, name: "(none)", depth: 0, tasks: unfiled, own: unfiled)] : []
        func visit(_ node: Node, path: String?, depth: Int) {
            let named = node.children.values.map { child -> (String, Node) in
                let spelling = child.spellings.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
                return (spelling, child)
            }
            for (name, child) in named.sorted(by: { ($0.0.lowercased(), $0.0) < ($1.0.lowercased(), $1.0) }) {
                let childPath = path.map { $0 + "." + name } ?? name
                counts.append(ProjectCount(project: childPath, name: name, depth: depth, tasks: child.tasks, own: child.own))
                visit(child, path: childPath, depth: depth + 1)
            }
        }
        visit(root, path: nil, depth: 0)
        return counts
    }

    /// The tags of the tasks `query` selects, by name (ignoring case), each spelled as most of
    /// its tasks' tags are.
    public func tagCounts(_ query: RecordQuery) throws(PIMError) -> [TagCount] {
        let tasks = try list(taskQuery(query, loading: ["tags"])).compactMap { $0 as? TaskItem }
        var spellings: [String: [String: Int]] = [:]
        var counts: [String: Int] = [:]
        for task in tasks {
            // A task tagged twice in different cases counts once.
            var seen: Set<String> = []
            for name in task.tags.compactMap(\.name) where !name.isEmpty {
                let key = name.lowercased()
                spellings[key, default: [:]][name, default: 0] += 1
                if seen.insert(key).inserted { counts[key, default: 0] += 1 }
            }
        }
        return counts.map { key, count in
            let spelling = spellings[key]?.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? key
            return TagCount(tag: spelling, tasks: count)
        }
        .sorted { ($0.tag.lowercased(), $0.tag) < ($1.tag.lowercased(), $1.tag) }
    }

    /// `query` for tasks, unsorted and unlimited, loading `keyPaths` with the tasks.
    private func taskQuery(_ query: RecordQuery, loading keyPaths: [String]) -> RecordQuery {
        var query = query
        query.kind = .task
        query.sort = ["number"]
        query.limit = nil
        query.relationshipKeyPaths = keyPaths
        return query
    }
}
