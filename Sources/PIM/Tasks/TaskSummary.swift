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
    /// The path without its parent project's and the dot after it (`garden`), or `(none)`.
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
    /// name, ignoring case), the tasks with no project first. A project's sub-projects are the
    /// projects that begin with its name and a dot, as `tasks list --project` takes them in; the
    /// part of the name before each dot is a project of the tree too (home for home.garden),
    /// with `own` 0 when no task has it. Each project is spelled as most of its tasks spell it
    /// (the first by code point among equals); case is ignored as the store's `==[c]` ignores it.
    public func projectCounts(_ query: RecordQuery) throws(PIMError) -> [ProjectCount] {
        let tasks = try list(taskQuery(query, loading: [])).compactMap { $0 as? TaskItem }
        final class Node {
            var spellings: [String: Int] = [:]
            var own = 0
            var tasks = 0
            var children: [Node] = []
            var path = ""
        }
        var nodes: [String: Node] = [:]
        var unfiled = 0
        for task in tasks {
            guard let project = task.project, !project.isEmpty else {
                unfiled += 1
                continue
            }
            // The project and each part of it before a dot (an empty one names no project).
            var paths = project.indices.filter { project[$0] == "." }.map { String(project[..<$0]) }.filter { !$0.isEmpty }
            paths.append(project)
            for path in paths {
                let key = Self.folded(path)
                let node = nodes[key] ?? Node()
                nodes[key] = node
                node.spellings[path, default: 0] += 1
                node.tasks += 1
                if path.count == project.count { node.own += 1 }
            }
        }
        // Each project under the longest other project it begins with, followed by a dot.
        let root = Node()
        for (key, node) in nodes {
            node.path = node.spellings.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? key
            var parent = root
            var prefix = key
            while let dot = prefix.lastIndex(of: ".") {
                prefix = String(prefix[..<dot])
                if let found = nodes[prefix], !prefix.isEmpty {
                    parent = found
                    break
                }
            }
            parent.children.append(node)
        }
        var counts = unfiled > 0 ? [ProjectCount(project: nil, name: "(none)", depth: 0, tasks: unfiled, own: unfiled)] : []
        func visit(_ node: Node, depth: Int, parentDots: Int?) {
            // A sub-project's name: its path after the dot that ends its parent's (the parent's
            // spelling may be longer or shorter: ß against ss).
            let named = node.children.map { child -> (String, Node, Int) in
                let dots = child.path.indices.filter { child.path[$0] == "." }
                guard let parentDots else { return (child.path, child, dots.count) }
                return (String(child.path[child.path.index(after: dots[parentDots])...]), child, dots.count)
            }
            for (name, child, dots) in named.sorted(by: { (Self.folded($0.0), $0.0) < (Self.folded($1.0), $1.0) }) {
                counts.append(ProjectCount(project: child.path, name: name, depth: depth, tasks: child.tasks, own: child.own))
                visit(child, depth: depth + 1, parentDots: dots)
            }
        }
        visit(root, depth: 0, parentDots: nil)
        return counts
    }

    /// `text` case-folded as the store's `==[c]` folds it (ß as ss).
    static func folded(_ text: String) -> String {
        text.folding(options: .caseInsensitive, locale: nil)
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
                let key = Self.folded(name)
                spellings[key, default: [:]][name, default: 0] += 1
                if seen.insert(key).inserted { counts[key, default: 0] += 1 }
            }
        }
        return counts.map { key, count in
            let spelling = spellings[key]?.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? key
            return TagCount(tag: spelling, tasks: count)
        }
        .sorted { (Self.folded($0.tag), $0.tag) < (Self.folded($1.tag), $1.tag) }
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
