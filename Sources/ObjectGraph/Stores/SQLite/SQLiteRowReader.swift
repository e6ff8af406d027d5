// How the rows of one entity are read: which column of the table's SELECT list fills which slot
// of the entity's layout, so that turning a result row into a snapshot is a walk over an array,
// with no name lookups. To-many slots stay unloaded (faults the store fills on demand).
import Foundation

/// Reads rows of one concrete entity into snapshots.
final class SQLiteRowReader {
    /// How one slot is filled. Descriptions are held unretained (the reader's entity keeps them):
    /// reading a row copies each slot's case.
    enum Slot {
        case attribute(column: Int32, Unowned<AttributeDescription>, AttributeType)
        case toOne(column: Int32, entityColumn: Int32?, destination: Unowned<EntityDescription>)
        case unloaded
    }

    let entity: EntityDescription
    /// The entity's number (`Z_ENT`).
    let entityNumber: Int64
    /// The table's columns after Z_PK, Z_ENT and Z_OPT, in SELECT order (column 3 onwards).
    let columns: [String]
    let slots: [Slot]
    /// The table's statements selecting rows by one key and by a JSON array of keys, prepared
    /// on first use (kept, so that single faults do not look them up by their SQL).
    private var selectByKey: SQLiteStatement?
    private var selectByKeys: SQLiteStatement?
    private var selectByKeyRange: SQLiteStatement?
    private let schema: SQLiteSchema
    private let external: SQLiteExternalData

    init(entity: EntityDescription, schema: SQLiteSchema, external: SQLiteExternalData) {
        self.entity = entity
        entityNumber = schema.number(of: entity)
        self.schema = schema
        self.external = external
        let table = schema.table(of: entity)
        columns = table.columns.map(\.name)
        var positions: [String: Int32] = [:]
        for (offset, name) in columns.enumerated() { positions[name] = Int32(offset + 3) }
        slots = entity.layout.properties.map { property -> Slot in
            switch schema.storage(of: property) {
            case .attribute(let column, let attribute)?:
                return .attribute(column: positions[column]!, Unowned(attribute), attribute.attributeType)
            case .foreignKey(let column, let entityColumn, _)?:
                guard let destination = (property as? RelationshipDescription)?.destinationEntity else { return .unloaded }
                return .toOne(column: positions[column]!, entityColumn: entityColumn.map { positions[$0]! }, destination: Unowned(destination))
            default:
                return .unloaded
            }
        }
    }

    /// The statement selecting the rows of `keys` (of the reader's table): a primary-key lookup
    /// for one key, a range scan for consecutive keys in order (a batch of faults fetched in key
    /// order, as batched results read them), a JSON array otherwise; the values to bind to it.
    func selection(of keys: [Int64], on connection: SQLiteConnection) throws -> (SQLiteStatement, [SQLiteValue]) {
        let table = schema.table(of: entity)
        if keys.count == 1 {
            let statement = try selectByKey ?? connection.keptStatement(table.selectByKey)
            selectByKey = statement
            return (statement, [.integer(keys[0])])
        }
        if Self.areConsecutive(keys) { return try selection(from: keys[0], through: keys[keys.count - 1], on: connection) }
        let statement = try selectByKeys ?? connection.keptStatement(table.selectByKeys)
        selectByKeys = statement
        return (statement, [SQLiteStore.jsonArray(keys)])
    }

    /// The statement selecting the rows with keys from `first` through `last` (a range scan); the
    /// values to bind to it.
    func selection(from first: Int64, through last: Int64, on connection: SQLiteConnection) throws -> (SQLiteStatement, [SQLiteValue]) {
        let statement = try selectByKeyRange ?? connection.keptStatement(schema.table(of: entity).selectByKeyRange)
        selectByKeyRange = statement
        return (statement, [.integer(first), .integer(last)])
    }

    /// Whether `keys` are `first, first + 1, …` (every key between the first and the last, each once).
    static func areConsecutive(_ keys: [Int64]) -> Bool {
        guard let first = keys.first, let last = keys.last, last >= first else { return false }
        return keys.withUnsafeBufferPointer { keys in
            for index in keys.indices where keys[index] != first &+ Int64(index) { return false }
            return true
        }
    }

    /// The snapshot of the statement's current row (selected with the table's `selectList`),
    /// with only the slots in `loaded` filled when it is given.
    func snapshot(_ statement: SQLiteStatement, storeTag: StoreTag, loading loaded: Set<Int>? = nil) throws -> Snapshot {
        let id = ObjectID(entity: entity, storeTag: storeTag, primaryKey: statement.int64(0))
        let values = try [SnapshotValue](count: slots.count) { index -> SnapshotValue in
            if let loaded, !loaded.contains(index) { return .unloaded }
            switch slots[index] {
            case .attribute(let column, let attribute, let type):
                return try attribute.with { try SQLiteValueCoding.decode(statement, column, of: $0, type, external: external) }
            case .toOne(let column, let entityColumn, let destination):
                if statement.isNull(column) { return .null }
                let target = entityColumn.flatMap { statement.isNull($0) ? nil : schema.entitiesByNumber[statement.int64($0)] } ?? destination.object
                return .object(ObjectID(entity: target, storeTag: storeTag, primaryKey: statement.int64(column)))
            case .unloaded:
                return .unloaded
            }
        }
        return loaded == nil ? Snapshot(objectID: id, version: statement.int64(2), wholeRow: values)
            : Snapshot(objectID: id, version: statement.int64(2), values: values)
    }
}
