// How the rows of one entity are read: which column of the table's SELECT list fills which slot
// of the entity's layout, so that turning a result row into a snapshot is a walk over an array,
// with no name lookups. To-many slots stay unloaded (faults the store fills on demand).
import Foundation

/// Reads rows of one concrete entity into snapshots.
final class SQLiteRowReader {
    /// How one slot is filled.
    enum Slot {
        case attribute(column: Int32, AttributeDescription)
        case toOne(column: Int32, entityColumn: Int32?, destination: EntityDescription)
        case unloaded
    }

    let entity: EntityDescription
    /// The table's columns after Z_PK, Z_ENT and Z_OPT, in SELECT order (column 3 onwards).
    let columns: [String]
    let slots: [Slot]
    private let schema: SQLiteSchema
    private let external: SQLiteExternalData

    init(entity: EntityDescription, schema: SQLiteSchema, external: SQLiteExternalData) {
        self.entity = entity
        self.schema = schema
        self.external = external
        let table = schema.table(of: entity)
        columns = table.columns.map(\.name)
        var positions: [String: Int32] = [:]
        for (offset, name) in columns.enumerated() { positions[name] = Int32(offset + 3) }
        slots = entity.layout.properties.map { property -> Slot in
            switch schema.storage(of: property) {
            case .attribute(let column, let attribute)?:
                return .attribute(column: positions[column]!, attribute)
            case .foreignKey(let column, let entityColumn, _)?:
                guard let destination = (property as? RelationshipDescription)?.destinationEntity else { return .unloaded }
                return .toOne(column: positions[column]!, entityColumn: entityColumn.map { positions[$0]! }, destination: destination)
            default:
                return .unloaded
            }
        }
    }

    /// The snapshot of the statement's current row (selected with the table's `selectList`),
    /// with only the slots in `loaded` filled when it is given.
    func snapshot(_ statement: SQLiteStatement, storeIdentifier: String, loading loaded: Set<Int>? = nil) throws -> Snapshot {
        let id = ObjectID(entity: entity, storeIdentifier: storeIdentifier, primaryKey: statement.int64(0))
        var values = [SnapshotValue](repeating: .unloaded, count: slots.count)
        for (index, slot) in slots.enumerated() where loaded?.contains(index) ?? true {
            switch slot {
            case .attribute(let column, let attribute):
                values[index] = try SQLiteValueCoding.decode(statement, column, of: attribute, external: external)
            case .toOne(let column, let entityColumn, let destination):
                if statement.isNull(column) {
                    values[index] = .null
                } else {
                    let target = entityColumn.flatMap { statement.isNull($0) ? nil : schema.entitiesByNumber[statement.int64($0)] } ?? destination
                    values[index] = .object(ObjectID(entity: target, storeIdentifier: storeIdentifier, primaryKey: statement.int64(column)))
                }
            case .unloaded:
                break
            }
        }
        return Snapshot(objectID: id, version: statement.int64(2), values: values)
    }
}
