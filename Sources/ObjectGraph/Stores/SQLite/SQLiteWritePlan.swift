// What writing rows of one entity involves, worked out once per entity rather than per row: the
// columns a row writes and the slots they come from, the statements that insert, update and
// delete a row (prepared once and kept), the columns of uniqueness-constrained and externally
// stored attributes, and the join-table rows that point at its rows (to clean up on delete).
import Foundation

/// Per-entity facts the store's save path uses for every row.
final class SQLiteWritePlan {
    /// A stored attribute or to-one relationship: the slot it is read from and the columns it
    /// writes (a to-one whose destination has sub-entities writes the entity number too).
    enum Column {
        case attribute(slot: Int, column: String, AttributeDescription, allowsExternalStorage: Bool)
        case toOne(slot: Int, column: String, entityColumn: String?, RelationshipDescription)

        var slot: Int {
            switch self {
            case .attribute(let slot, _, _, _), .toOne(let slot, _, _, _): return slot
            }
        }

        var names: [String] {
            switch self {
            case .attribute(_, let column, _, _): return [column]
            case .toOne(_, let column, let entityColumn, _): return [column] + (entityColumn.map { [$0] } ?? [])
            }
        }
    }

    /// The entity's table.
    let table: String
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
    /// The SQL of a row written with every column (the usual case), of a row's delete, and of the
    /// deletes of the join-table rows pointing at a deleted row.
    let insertSQL: String
    let updateSQL: String
    let deleteSQL: String
    let joinRowDeletes: [String]
    /// Those statements, prepared on first use.
    var insertStatement: SQLiteStatement?
    var updateStatement: SQLiteStatement?
    var deleteStatement: SQLiteStatement?
    /// The last statements built for a row with unloaded slots, with the columns they write.
    var partialInsert: (columns: [String], sql: String)?
    var partialUpdate: (columns: [String], sql: String)?

    init(entity: EntityDescription, schema: SQLiteSchema) {
        let q = SQLiteSchema.quoted
        let layout = entity.layout
        table = schema.table(of: entity).name
        entityNumber = schema.number(of: entity)
        columns = layout.properties.indices.compactMap { slot in
            let property = layout.properties[slot]
            switch schema.storage(of: property) {
            case .attribute(let column, let attribute)?:
                return .attribute(slot: slot, column: column, attribute, allowsExternalStorage: attribute.allowsExternalBinaryDataStorage)
            case .foreignKey(let column, let entityColumn, _)?:
                return (property as? RelationshipDescription).map { .toOne(slot: slot, column: column, entityColumn: entityColumn, $0) }
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
            guard case .attribute(let slot, let name, _, true) = column else { return nil }
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
        let names = columns.flatMap(\.names)
        insertSQL = Self.insertSQL(table: table, columns: names)
        updateSQL = Self.updateSQL(table: table, columns: names)
        deleteSQL = "DELETE FROM \(q(table)) WHERE Z_PK = ? AND Z_OPT = ?"
        joinRowDeletes = joinColumns.map { "DELETE FROM \(q($0.table)) WHERE \(q($0.column)) = ?" }
    }

    /// The INSERT of a row writing `columns`; its values are the key, the entity number, then
    /// the columns' (the version starts at 1).
    static func insertSQL(table: String, columns: [String]) -> String {
        let q = SQLiteSchema.quoted
        return "INSERT INTO \(q(table)) (Z_PK, Z_ENT, Z_OPT" + columns.map { ", " + q($0) }.joined()
            + ") VALUES (?, ?, 1" + String(repeating: ", ?", count: columns.count) + ")"
    }

    /// The version-checked UPDATE of a row writing `columns`; its values are the columns', then
    /// the key and the expected version.
    static func updateSQL(table: String, columns: [String]) -> String {
        let q = SQLiteSchema.quoted
        return "UPDATE \(q(table)) SET Z_OPT = Z_OPT + 1" + columns.map { ", \(q($0)) = ?" }.joined()
            + " WHERE Z_PK = ? AND Z_OPT = ?"
    }
}
