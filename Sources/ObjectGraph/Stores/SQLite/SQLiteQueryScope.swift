// One row source of a query being built: the main table (`t0`), or a to-many relationship's
// members inside a correlated subquery. It owns the LEFT JOINs that key paths through to-one
// relationships add, one per distinct path, so `owner.name` and `owner.email` share one join.
import Foundation

/// Rows of one entity under an alias, and the joins reached from them.
final class SQLiteQueryScope {
    /// The alias of the scope's rows.
    let alias: String
    /// The entity the rows are of (its sub-entities' rows included).
    let entity: EntityDescription
    /// `LEFT JOIN` clauses, in the order they were added.
    private(set) var joins: [String] = []
    /// The alias and entity reached by each to-one path (`owner`, `owner.manager`).
    private var joined: [String: (alias: String, entity: EntityDescription)] = [:]

    init(alias: String, entity: EntityDescription) {
        self.alias = alias
        self.entity = entity
    }

    /// The alias of the rows reached through the to-one path `path`, joined on first use with
    /// `makeJoin(alias)` returning the clause.
    func alias(forPath path: String, entity: EntityDescription, newAlias: () -> String, makeJoin: (String) -> String) -> String {
        if let existing = joined[path] { return existing.alias }
        let alias = newAlias()
        joins.append(makeJoin(alias))
        joined[path] = (alias, entity)
        return alias
    }
}
