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
    /// Slots of derived attributes: the store computes them (triggers), so a saved row reads
    /// them back rather than taking the values it was sent.
    let derivedSlots: [Int]
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
    /// The slot each of `columns` is read from, and each one's column names (by index: reading
    /// them out of `columns` would copy the cases).
    let columnSlots: [Int]
    let columnNames: [[String]]
    /// The columns (bit `i`: `columns[i]`) an update writes even when their slots did not change:
    /// uniqueness-constrained ones, which a save may clear first so that rows can swap values.
    let alwaysUpdated: UInt64

    init(entity: EntityDescription, schema: SQLiteSchema) {
        let q = SQLiteSchema.quoted
        let layout = entity.layout
        self.entity = entity
        entityNumber = schema.number(of: entity)
        columns = layout.properties.indices.compactMap { slot in
            let property = layout.properties[slot]
            switch schema.storage(of: property) {
            case .attribute(let column, let attribute)?:
                // A value a uniqueness constraint covers stays in its column, where the unique
                // index compares it (a file's name would never collide).
                let constrained = entity.uniquenessConstraints.contains { $0.contains(attribute.name) }
                return .attribute(slot: slot, column: column, Unowned(attribute), attribute.attributeType,
                                  allowsExternalStorage: attribute.allowsExternalBinaryDataStorage && !constrained)
            case .foreignKey(let column, let entityColumn, _)?:
                return (property as? RelationshipDescription).map { .toOne(slot: slot, column: column, entityColumn: entityColumn, Unowned($0)) }
            default:
                return nil
            }
        }
        unstoredSlots = layout.properties.indices.filter { !layout.properties[$0].isStored }
        derivedSlots = layout.derivedSlots
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
        let slots = columns.map(\.slot)
        columnSlots = slots
        columnNames = columns.map(\.names)
        let constrainedSlots = Set(constrainedColumns.map(\.slot))
        alwaysUpdated = slots.indices.reduce(0) { mask, index in
            constrainedSlots.contains(slots[index]) && index < 64 ? mask | (1 << UInt64(index)) : mask
        }
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

extension SQLiteWritePlan {
    /// The columns (bit `i`: `columns[i]`) an UPDATE of `row` writes when the slots `changed`
    /// changed: theirs and the always-updated ones, loaded ones only. Nil when that is every
    /// column, or when the plan has more columns than a mask holds: the row then writes all.
    func updatedColumns(_ changed: SlotSet, of row: Snapshot) -> UInt64? {
        guard columnSlots.count <= 64 else { return nil }
        var mask = alwaysUpdated
        for index in columnSlots.indices where changed[columnSlots[index]] { mask |= 1 << UInt64(index) }
        for index in columnSlots.indices where mask & (1 << UInt64(index)) != 0 && !row.values.isLoaded(at: columnSlots[index]) {
            mask &= ~(1 << UInt64(index))
        }
        let all: UInt64 = columnSlots.count == 64 ? .max : (1 << UInt64(columnSlots.count)) - 1
        return mask == all ? nil : mask
    }

    /// Whether `mask` (nil: every column) includes the column of `slot`.
    func updates(slot: Int, in mask: UInt64?) -> Bool {
        guard let mask else { return true }
        guard let index = columnSlots.firstIndex(of: slot) else { return false }
        return mask & (1 << UInt64(index)) != 0
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
    /// Statements writing some of the plan's columns, by mask (see ``run(mask:names:_:on:)``).
    private var keptByMask: [UInt64: SQLiteStatement] = [:]

    /// `sql` builds the statement writing the columns it is given, of `columns` all of them.
    init(columns: [String], sql: @escaping ([String]) -> String) {
        fullSQL = sql(columns)
        self.sql = sql
    }

    /// Runs the statement writing the columns whose bits `mask` sets (`names`: the columns'
    /// names, by index), prepared once per mask and kept; only a few masks are kept (saves
    /// change the same few properties), others run through the connection's statement cache.
    func run(mask: UInt64, names: [[String]], _ arguments: [SQLiteValue], on connection: SQLiteConnection) throws {
        if let statement = keptByMask[mask] {
            try connection.execute(statement, arguments)
            return
        }
        var columns: [String] = []
        for index in names.indices where mask & (1 << UInt64(index)) != 0 { columns += names[index] }
        guard keptByMask.count < 32 else {
            try connection.execute(sql(columns), arguments)
            return
        }
        let statement = try connection.keptStatement(sql(columns))
        keptByMask[mask] = statement
        try connection.execute(statement, arguments)
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
