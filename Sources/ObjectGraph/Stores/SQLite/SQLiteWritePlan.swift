// What writing rows of one entity involves, worked out once per entity rather than per row: the
// columns a row writes and the slots they come from, the statements that insert, update and
// delete a row (prepared once and kept), the columns of uniqueness-constrained and externally
// stored attributes, and the join-table rows that point at its rows (to clean up on delete).
import Foundation

/// Per-entity facts the store's save path uses for every row.
final class SQLiteWritePlan {
    /// A stored attribute or to-one relationship: the slot it is read from and the columns it
    /// writes (a to-one whose destination has sub-entities writes the entity number too).
    /// An attribute's type is kept beside it: rows encode every value by it. Descriptions are
    /// held unretained (the plan's entity keeps them): writing a row copies each column's case.
    enum Column {
        case attribute(slot: Int, column: String, Unowned<AttributeDescription>, AttributeType, allowsExternalStorage: Bool)
        case toOne(slot: Int, column: String, entityColumn: String?, Unowned<RelationshipDescription>)

        var slot: Int {
            switch self {
            case .attribute(let slot, _, _, _, _), .toOne(let slot, _, _, _): return slot
            }
        }

        var names: [String] {
            switch self {
            case .attribute(_, let column, _, _, _): return [column]
            case .toOne(_, let column, let entityColumn, _): return [column] + (entityColumn.map { [$0] } ?? [])
            }
        }
    }

    /// The entity the plan writes.
    let entity: EntityDescription

    /// The entity's number (`Z_ENT`).
    let entityNumber: Int64
    /// The columns rows write, in slot order.
    let columns: [Column]
    /// Slots of properties that are not stored (a saved row leaves them unloaded), and of those a
    /// saved row must hold (attributes and to-one relationships: unloaded ones are read back).
    let unstoredSlots: [Int]
    let requiredSlots: [Int]
    /// Slots of to-many relationships (written to join tables or order columns after the rows).
    let toManySlots: [Int]
    /// Slots and columns of the attributes that allow external storage.
    let externalColumns: [(slot: Int, column: String)]
    /// Slots and columns of the properties in uniqueness constraints (by property name order).
    let constrainedColumns: [(slot: Int, column: String)]
    /// Join-table columns that hold keys of the entity's rows.
    let joinColumns: [(table: String, column: String)]
    /// Whether deleting rows of the entity follows cascade or deny rules to other rows.
    let followsDeleteRules: Bool
    /// Whether deleting rows of the entity does more than delete them: clears foreign keys
    /// (nullify rules), notes external files, removes join-table rows.
    let cleansUpOnDelete: Bool
    /// The statements inserting, updating (version-checked) and deleting a row, and the SQL of
    /// the deletes of the join-table rows pointing at a deleted row.
    let insert: RowStatement
    let update: RowStatement
    let delete: RowStatement
    let joinRowDeletes: [String]

    init(entity: EntityDescription, schema: SQLiteSchema) {
        let q = SQLiteSchema.quoted
        let layout = entity.layout
        self.entity = entity
        entityNumber = schema.number(of: entity)
        columns = layout.properties.indices.compactMap { slot in
            let property = layout.properties[slot]
            switch schema.storage(of: property) {
            case .attribute(let column, let attribute)?:
                return .attribute(slot: slot, column: column, Unowned(attribute), attribute.attributeType,
                                  allowsExternalStorage: attribute.allowsExternalBinaryDataStorage)
            case .foreignKey(let column, let entityColumn, _)?:
                return (property as? RelationshipDescription).map { .toOne(slot: slot, column: column, entityColumn: entityColumn, Unowned($0)) }
            default:
                return nil
            }
        }
        unstoredSlots = layout.properties.indices.filter { !layout.properties[$0].isStored }
        requiredSlots = layout.properties.indices.filter {
            layout.properties[$0].isStored && (layout.properties[$0] as? RelationshipDescription)?.isToMany != true
        }
        toManySlots = layout.properties.indices.filter { (layout.properties[$0] as? RelationshipDescription)?.isToMany == true }
        externalColumns = columns.compactMap { column in
            guard case .attribute(let slot, let name, _, _, true) = column else { return nil }
            return (slot, name)
        }
        constrainedColumns = Set(entity.uniquenessConstraints.flatMap { $0 }).sorted().compactMap { name in
            guard let slot = layout.index(of: name), let column = schema.column(of: name, in: entity) else { return nil }
            return (slot, column)
        }
        joinColumns = schema.joinColumns(referencing: entity)
        let stored = entity.relationships.filter(\.isStored)
        followsDeleteRules = stored.contains { $0.deleteRule == .cascade || $0.deleteRule == .deny }
        cleansUpOnDelete = stored.contains { $0.deleteRule == .nullify } || !externalColumns.isEmpty || !joinColumns.isEmpty
        let table = q(schema.table(of: entity).name)
        // An INSERT's values are the key, the entity number, then the columns' (the version
        // starts at 1); an UPDATE's the columns', then the key and the expected version.
        insert = RowStatement(columns: columns.flatMap(\.names)) { columns in
            "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT" + columns.map { ", " + q($0) }.joined()
                + ") VALUES (?, ?, 1" + String(repeating: ", ?", count: columns.count) + ")"
        }
        update = RowStatement(columns: columns.flatMap(\.names)) { columns in
            "UPDATE \(table) SET Z_OPT = Z_OPT + 1" + columns.map { ", \(q($0)) = ?" }.joined() + " WHERE Z_PK = ? AND Z_OPT = ?"
        }
        delete = RowStatement(columns: []) { _ in "DELETE FROM \(table) WHERE Z_PK = ? AND Z_OPT = ?" }
        joinRowDeletes = joinColumns.map { "DELETE FROM \(q($0.table)) WHERE \(q($0.column)) = ?" }
    }
}

/// One kind of row write: its statement for rows that write every column (the usual case)
/// prepared once and kept, and for rows that write fewer, the statement for those columns
/// (the last one built remembered, as rows of one save tend to leave the same slots unloaded).
final class RowStatement {
    private let fullSQL: String
    private let sql: ([String]) -> String
    private var kept: SQLiteStatement?
    private var partial: (columns: [String], sql: String)?

    /// `sql` builds the statement writing the columns it is given, of `columns` all of them.
    init(columns: [String], sql: @escaping ([String]) -> String) {
        fullSQL = sql(columns)
        self.sql = sql
    }

    /// Runs the statement writing `columns` (nil: all of them) with `arguments` bound.
    func run(columns: [String]?, _ arguments: [SQLiteValue], on connection: SQLiteConnection) throws {
        if let columns {
            if partial?.columns != columns { partial = (columns, sql(columns)) }
            try connection.execute(partial!.sql, arguments)
        } else {
            let statement = try kept ?? connection.keptStatement(fullSQL)
            kept = statement
            try connection.execute(statement, arguments)
        }
    }
}
