// Derived attributes in a SQLite store, kept as Core Data keeps them: by triggers, created with
// the tables, that recompute a derived column whenever a row it depends on is inserted, updated
// or deleted, whoever writes (a save, a batch update or delete, another process). The triggers
// use only SQLite's own functions, so that other programs can still write the file. A trigger's
// update changes no version (Z_OPT): a derived value is the store's, never a conflict.
import Foundation

extension SQLiteSchema {
    /// What keeps one derived attribute's column current.
    struct DerivedColumn {
        /// `CREATE TRIGGER` statements (idempotent); the first is created first.
        var triggers: [String]
        /// The name of the first trigger: a store that lacks it (made before the attribute had
        /// its triggers) has its values computed once, by `backfill`.
        var firstTrigger: String
        /// The statement that computes the column for every row.
        var backfill: String
        /// The derived attribute.
        var attribute: AttributeDescription
    }

    /// What keeps the derived attributes of the store's entities current. Throws for a
    /// derivation the store cannot compute (a model made in code skips the checks a model file
    /// gets at load) or whose relationship leads to an entity the store does not hold.
    func makeDerivedColumns(model: ManagedObjectModel) throws -> [DerivedColumn] {
        var columns: [DerivedColumn] = []
        var names: Set<String> = []
        for entity in entities {
            for case let attribute as AttributeDescription in entity.declaredProperties where attribute.isDerived && attribute.isStored {
                let derivation: Derivation
                do {
                    derivation = try Derivation.of(attribute, in: entity) { model.entitiesByName[$0] }
                } catch {
                    throw StoreError.unsupportedRequest("\(attribute.qualifiedName): \(error.description)")
                }
                if let column = try derivedColumn(for: attribute, of: entity, derivation, names: &names) { columns.append(column) }
            }
        }
        return columns
    }

    /// The triggers of one derived attribute: on its own table (rows inserted, the columns it
    /// depends on or the derived column itself updated) and on the table of the rows it reads.
    private func derivedColumn(for attribute: AttributeDescription, of entity: EntityDescription, _ derivation: Derivation,
                               names: inout Set<String>) throws -> DerivedColumn? {
        let q = Self.quoted
        let owner = table(of: entity).name
        guard let column = column(of: attribute.name, in: entity) else { return nil }
        let entityCondition = entityNumbers(of: entity, subentities: true).map {
            " AND \(q("Z_ENT")) IN (" + $0.map(String.init).joined(separator: ", ") + ")"
        } ?? ""
        func unsupported(_ why: String) -> StoreError {
            StoreError.unsupportedRequest("\(attribute.qualifiedName): derivation \"\(attribute.derivationExpression ?? "")\": \(why)")
        }
        /// The value for the owner's row being updated, which the statement names by its table.
        let value: String
        /// The owner's columns whose update recomputes the value (nil: any update, for `now()`).
        var ownColumns: [String]? = []
        /// Triggers on the rows the value is read from: the event, its condition, and the owner's
        /// rows to recompute.
        var sources: [(event: String, condition: String?, rows: String)] = []
        switch derivation {
        case .now:
            value = "(julianday('now') - 2451910.5) * 86400.0"
            ownColumns = nil
        case .keyPath(nil, let name):
            guard let source = self.column(of: name, in: entity) else { throw unsupported("\(name) has no column") }
            value = "\(q(owner)).\(q(source))"
            ownColumns = [source]
        case .keyPath(let relationshipName?, let name):
            guard let relationship = entity.relationshipsByName[relationshipName],
                  case .foreignKey(let foreignKey, _, _)? = storage(of: relationship),
                  let destination = relationship.destinationEntity, holds(destination),
                  let source = self.column(of: name, in: destination) else {
                throw unsupported("\(relationshipName) leads to no entity of this store")
            }
            let target = table(of: destination).name
            value = "(SELECT d.\(q(source)) FROM \(q(target)) d WHERE d.\(q("Z_PK")) = \(q(owner)).\(q(foreignKey)))"
            ownColumns = [foreignKey]
            sources = [
                ("AFTER INSERT ON \(q(target))", nil, "\(q(foreignKey)) = NEW.\(q("Z_PK"))"),
                ("AFTER UPDATE OF \(q(source)) ON \(q(target))", nil, "\(q(foreignKey)) = NEW.\(q("Z_PK"))"),
                ("AFTER DELETE ON \(q(target))", nil, "\(q(foreignKey)) = OLD.\(q("Z_PK"))"),
            ]
        case .count(let relationshipName):
            guard let relationship = entity.relationshipsByName[relationshipName] else { throw unsupported("no relationship \(relationshipName)") }
            let members: String, key: String
            switch storage(of: relationship) {
            case .inverseForeignKey(let inverse)?:
                guard let inverseEntity = inverse.entity, holds(inverseEntity),
                      case .foreignKey(let foreignKey, _, _)? = storage(of: inverse) else {
                    throw unsupported("\(relationshipName) leads to no entity of this store")
                }
                (members, key) = (table(of: inverseEntity).name, foreignKey)
            case .joinTable(let join, let reversed)?:
                (members, key) = (join.name, reversed ? join.destinationColumn : join.sourceColumn)
            default:
                throw unsupported("\(relationshipName) is not stored")
            }
            value = "(SELECT COUNT(*) FROM \(q(members)) d WHERE d.\(q(key)) = \(q(owner)).\(q("Z_PK")))"
            sources = [
                ("AFTER INSERT ON \(q(members))", "NEW.\(q(key)) IS NOT NULL", "\(q("Z_PK")) = NEW.\(q(key))"),
                ("AFTER UPDATE OF \(q(key)) ON \(q(members))", nil, "\(q("Z_PK")) IN (OLD.\(q(key)), NEW.\(q(key)))"),
                ("AFTER DELETE ON \(q(members))", "OLD.\(q(key)) IS NOT NULL", "\(q("Z_PK")) = OLD.\(q(key))"),
            ]
        }
        func recompute(_ rows: String) -> String {
            "UPDATE \(q(owner)) SET \(q(column)) = \(value) WHERE \(rows)\(entityCondition);"
        }
        var firstTrigger: String?
        func trigger(_ event: String, when condition: String? = nil) -> String {
            let name = Self.unique("Z_DA_\(owner)_\(column)", in: &names)
            if firstTrigger == nil { firstTrigger = name }
            return "CREATE TRIGGER IF NOT EXISTS \(q(name)) \(event) FOR EACH ROW" + (condition.map { " WHEN " + $0 } ?? "") + " BEGIN "
        }
        let ownRow = "\(q("Z_PK")) = NEW.\(q("Z_PK"))"
        let updated = ownColumns.map { " OF " + ([column] + $0).map(q).joined(separator: ", ") } ?? ""
        var statements = [
            trigger("AFTER INSERT ON \(q(owner))") + recompute(ownRow) + " END",
            trigger("AFTER UPDATE\(updated) ON \(q(owner))") + recompute(ownRow) + " END",
        ]
        for source in sources {
            statements.append(trigger(source.event, when: source.condition) + recompute(source.rows) + " END")
        }
        return DerivedColumn(triggers: statements, firstTrigger: firstTrigger ?? "", backfill: recompute("1"), attribute: attribute)
    }
}
