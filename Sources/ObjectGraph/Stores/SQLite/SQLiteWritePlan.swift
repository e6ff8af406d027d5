// What writing rows of one entity involves, worked out once per entity rather than per row: the
// columns of uniqueness-constrained and externally stored attributes, the join-table rows that
// point at its rows (to clean up on delete), and the last INSERT and UPDATE statements built.
import Foundation

/// Per-entity facts the store's save path uses for every row.
final class SQLiteWritePlan {
    /// Slots and columns of the attributes that allow external storage.
    let externalColumns: [(slot: Int, column: String)]
    /// Slots and columns of the properties in uniqueness constraints (by property name order).
    let constrainedColumns: [(slot: Int, column: String)]
    /// Join-table columns that hold keys of the entity's rows.
    let joinColumns: [(table: String, column: String)]
    /// The last statements built, with the columns they write.
    var insert: (columns: [String], sql: String)?
    var update: (columns: [String], sql: String)?

    init(entity: EntityDescription, schema: SQLiteSchema) {
        let layout = entity.layout
        externalColumns = layout.properties.indices.compactMap { slot in
            guard case .attribute(let column, let attribute)? = schema.storage(of: layout.properties[slot]),
                  attribute.allowsExternalBinaryDataStorage else { return nil }
            return (slot, column)
        }
        constrainedColumns = Set(entity.uniquenessConstraints.flatMap { $0 }).sorted().compactMap { name in
            guard let slot = layout.index(of: name), let column = schema.column(of: name, in: entity) else { return nil }
            return (slot, column)
        }
        joinColumns = schema.joinColumns(referencing: entity)
    }
}
