// Lightweight migration of a SQLite store in SQL, as Core Data migrates its SQLite stores in place
// (talk 001): the old tables are renamed aside, the new model's tables made, every row copied
// across under its primary key (so object IDs and their URIs stay), entity numbers renumbered,
// attributes taken from the columns an inferred mapping names, relationships rebuilt from the
// pairs of keys the old storage held (a foreign key, the inverse's, or a join table) into
// whatever storage the new model gives them, and the old tables dropped. It all runs in the
// caller's transaction: a migration that fails leaves the file as it was.
import Foundation

/// One migration of a SQLite file from the schema of its stored model to the schema of a new one.
struct SQLiteMigration {
    let connection: SQLiteConnection
    let source: SQLiteSchema
    let destination: SQLiteSchema
    let mapping: MappingModel
    /// The store file, for messages.
    let path: String
    /// The source entity of each destination entity the mapping carries objects into.
    private let sourceEntities: [ObjectIdentifier: EntityDescription]

    /// The prefix old tables take while the new ones are filled.
    static let asidePrefix = "Z_MIGRATING_"

    init(connection: SQLiteConnection, source: SQLiteSchema, destination: SQLiteSchema, mapping: MappingModel, path: String) {
        self.connection = connection
        self.source = source
        self.destination = destination
        self.mapping = mapping
        self.path = path
        var sourceEntities: [ObjectIdentifier: EntityDescription] = [:]
        let sourceByName = Dictionary(source.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in destination.entities {
            if let name = mapping.entityMapping(forDestinationEntityNamed: entity.name)?.sourceEntityName, let old = sourceByName[name] {
                sourceEntities[ObjectIdentifier(entity)] = old
            }
        }
        self.sourceEntities = sourceEntities
    }

    private func failure(_ reason: String) -> MigrationError {
        MigrationError(.migration, reason, path: path)
    }

    private func q(_ name: String) -> String { SQLiteSchema.quoted(name) }

    private func aside(_ name: String) -> String { q(Self.asidePrefix + name) }

    /// The source entity of `entity`, if it has one the old file holds.
    private func sourceEntity(of entity: EntityDescription) -> EntityDescription? {
        sourceEntities[ObjectIdentifier(entity)]
    }

    /// The property of the old model that `property` (of the new model) takes its values from for
    /// objects of `entity` (the property's entity or one below it), as `entity`'s mapping says.
    private func oldProperty(of property: PropertyDescription, for entity: EntityDescription) -> PropertyDescription? {
        guard let entityMapping = mapping.entityMapping(forDestinationEntityNamed: entity.name) else { return nil }
        let mappings = property is RelationshipDescription ? entityMapping.relationshipMappings : entityMapping.attributeMappings
        guard let sourceName = mappings.first(where: { $0.name == property.name })?.sourceName else { return nil }
        return sourceEntity(of: entity)?.propertiesByName[sourceName]
    }

    /// Runs the migration; the caller holds a write transaction.
    func run() throws {
        // Objects the new model keeps, of entities the store's configuration leaves out, would
        // be dropped: that is a change of configuration, not a migration.
        for old in source.entities {
            guard let mapped = mapping.entityMappings.first(where: { $0.sourceEntityName == old.name })?.destinationEntityName,
                  !destination.entities.contains(where: { $0.name == mapped }) else { continue }
            throw failure("the file holds \(old.name) objects, and the new model keeps \(mapped), but the store's configuration leaves it out; migrating would drop them")
        }
        let tableSources = try matchTables()
        var maxima: [Int64: Int64] = [:]
        for row in try connection.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY") {
            if let entity = row[0].integerValue { maxima[entity] = row[1].integerValue ?? 0 }
        }
        // Triggers and indexes go first: indexes keep their names when their table is renamed,
        // and the new tables' may take the same ones.
        for row in try connection.rows("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'index') AND sql IS NOT NULL") {
            guard case .text(let type) = row[0], case .text(let name) = row[1] else { continue }
            try connection.execute("DROP \(type == "trigger" ? "TRIGGER" : "INDEX") IF EXISTS \(q(name))")
        }
        let oldTables = source.tables.values.map(\.name) + source.joinTables.map(\.name)
        for name in oldTables { try connection.execute("ALTER TABLE \(q(name)) RENAME TO \(aside(name))") }
        for statement in destination.creationStatements where statement.hasPrefix("CREATE TABLE") {
            try connection.execute(statement)
        }
        for table in destination.tables.values.sorted(by: { $0.name < $1.name }) {
            if let old = tableSources[table.name] { try copyRows(into: table, from: old) }
        }
        try rebuildRelationships()
        try checkRequiredValues()
        try checkUniqueness()
        try renumberKeys(maxima: maxima, tableSources: tableSources)
        for name in oldTables { try connection.execute("DROP TABLE \(aside(name))") }
        for statement in destination.creationStatements { try connection.execute(statement) }
        // Derived values are kept as stored (a `now()` stamp is when the object last changed, not
        // when the file was migrated); only new derivations, and changed ones, are computed.
        for derived in destination.derivedColumns where needsComputing(derived.attribute) {
            try connection.execute(derived.backfill)
        }
    }

    // MARK: Tables

    /// The old table each new table takes its rows from. Rows keep their primary keys, which are
    /// unique per table: the objects of one new table must all come from one old table. (An old
    /// table's objects may go to several new tables: an entity moved out of its inheritance tree.)
    private func matchTables() throws -> [String: SQLiteSchema.Table] {
        var sources: [String: SQLiteSchema.Table] = [:]
        for table in destination.tables.values.sorted(by: { $0.name < $1.name }) {
            for entity in table.root.selfAndDescendants where destination.holds(entity) {
                guard let old = sourceEntity(of: entity), source.holds(old) else { continue }
                let oldTable = source.table(of: old)
                if let known = sources[table.name], known !== oldTable {
                    throw failure("entity \(entity.name) would join objects of \(known.root.name)'s inheritance tree in the store with objects of \(old.rootEntity.name)'s; joining inheritance trees is not a lightweight migration")
                }
                sources[table.name] = oldTable
            }
        }
        return sources
    }

    /// Copies the rows of every entity of `table` that has a source entity in `old`, renumbering
    /// their entities and taking each attribute from the column its mapping names (or its
    /// default value). Foreign keys are written by ``rebuildRelationships()``.
    private func copyRows(into table: SQLiteSchema.Table, from old: SQLiteSchema.Table) throws {
        let pairs: [(old: EntityDescription, new: EntityDescription)] = table.root.selfAndDescendants.compactMap { entity in
            guard destination.holds(entity), let oldEntity = sourceEntity(of: entity), source.holds(oldEntity) else { return nil }
            return (oldEntity, entity)
        }
        guard !pairs.isEmpty else { return }
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"].map(q)
        var values = ["Z_PK", "CASE Z_ENT " + pairs.map { "WHEN \(source.number(of: $0.old)) THEN \(destination.number(of: $0.new))" }.joined(separator: " ") + " END", "Z_OPT"]
        var arguments: [SQLiteValue] = []
        for entity in table.root.selfAndDescendants {
            for case let attribute as AttributeDescription in entity.declaredProperties where attribute.isStored {
                guard case .attribute(let column, _)? = destination.storage(of: attribute) else { continue }
                var cases: [(entity: Int64, value: String)] = []
                for pair in pairs where pair.new.isKind(of: entity) {
                    cases.append((source.number(of: pair.old), try value(of: attribute, in: pair, arguments: &arguments)))
                }
                guard !cases.isEmpty else { continue }
                columns.append(q(column))
                if cases.count == pairs.count, Set(cases.map(\.value)).count == 1 {
                    values.append(cases[0].value)
                } else {
                    values.append("CASE Z_ENT " + cases.map { "WHEN \($0.entity) THEN \($0.value)" }.joined(separator: " ") + " END")
                }
            }
        }
        let oldNumbers = pairs.map { String(source.number(of: $0.old)) }.joined(separator: ", ")
        try connection.execute("INSERT INTO \(q(table.name)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) "
                               + "FROM \(aside(old.name)) WHERE Z_ENT IN (\(oldNumbers))", arguments)
    }

    /// The SQL value of `attribute` for the rows of `pair.old`: its source column (converted when
    /// the attribute's external storage changed), its default value where it has no source or
    /// became required, or NULL. Parameters are numbered into `arguments`.
    private func value(of attribute: AttributeDescription, in pair: (old: EntityDescription, new: EntityDescription),
                       arguments: inout [SQLiteValue]) throws -> String {
        var value = "NULL"
        if let oldAttribute = oldProperty(of: attribute, for: pair.new) as? AttributeDescription,
           case .attribute(let oldColumn, _)? = source.storage(of: oldAttribute) {
            value = q(oldColumn)
            if attribute.attributeType == .binaryData, oldAttribute.allowsExternalBinaryDataStorage != attribute.allowsExternalBinaryDataStorage {
                // External storage tags each value (0x01 and the bytes inline, 0x02 and a file
                // name); plain binary columns hold the bytes alone.
                value = attribute.allowsExternalBinaryDataStorage
                    ? "CAST(X'01' || \(value) AS BLOB)"
                    : "substr(\(SQLiteFunctions.externalData)(\(value)), 2)"
            }
        }
        if let defaultValue = attribute.defaultValue, value == "NULL" || !attribute.isOptional {
            arguments.append(try SQLiteValueCoding.encode(defaultValue, of: attribute))
            value = value == "NULL" ? "?\(arguments.count)" : "COALESCE(\(value), ?\(arguments.count))"
        }
        return value
    }

    /// Whether the derived attribute `attribute` (of the new model) has no stored values to keep:
    /// some entity that has it takes it from no attribute derived the same way.
    private func needsComputing(_ attribute: AttributeDescription) -> Bool {
        guard let owner = attribute.entity else { return true }
        for entity in owner.selfAndDescendants where destination.holds(entity) {
            guard sourceEntity(of: entity) != nil else { continue }
            guard let oldAttribute = oldProperty(of: attribute, for: entity) as? AttributeDescription, oldAttribute.isDerived,
                  oldAttribute.derivationExpression == attribute.derivationExpression else { return true }
        }
        return false
    }

    // MARK: Relationships

    /// The pairs of keys `relationship` (of the old model) held, as a subquery with the columns
    /// `s` (the owner's key), `d` (the destination's key), `o1` (the destination's position in the
    /// owner's ordered list) and `o2` (the owner's position in the destination's ordered inverse).
    /// Nil when the old file keeps no pairs of it (its rows live in another store).
    private func oldPairs(of relationship: RelationshipDescription) -> String? {
        guard let owner = relationship.entity else { return nil }
        func numbers(_ entity: EntityDescription) -> String {
            entity.selfAndDescendants.filter { source.holds($0) }.map { String(source.number(of: $0)) }.joined(separator: ", ")
        }
        switch source.storage(of: relationship) {
        case .foreignKey(let column, _, let order)? where source.holds(owner):
            return "SELECT Z_PK AS s, \(q(column)) AS d, NULL AS o1, \(order.map(q) ?? "NULL") AS o2 FROM \(aside(source.table(of: owner).name)) "
                + "WHERE \(q(column)) IS NOT NULL AND Z_ENT IN (\(numbers(owner)))"
        case .inverseForeignKey(let inverse)?:
            guard case .foreignKey(let column, _, let order)? = source.storage(of: inverse), let inverseOwner = inverse.entity,
                  source.holds(inverseOwner) else { return nil }
            return "SELECT \(q(column)) AS s, Z_PK AS d, \(order.map(q) ?? "NULL") AS o1, NULL AS o2 FROM \(aside(source.table(of: inverseOwner).name)) "
                + "WHERE \(q(column)) IS NOT NULL AND Z_ENT IN (\(numbers(inverseOwner)))"
        case .joinTable(let join, let reversed)?:
            let (s, d) = reversed ? (join.destinationColumn, join.sourceColumn) : (join.sourceColumn, join.destinationColumn)
            let (o1, o2) = reversed ? (join.sourceOrderColumn, join.destinationOrderColumn) : (join.destinationOrderColumn, join.sourceOrderColumn)
            return "SELECT \(q(s)) AS s, \(q(d)) AS d, \(o1.map(q) ?? "NULL") AS o1, \(o2.map(q) ?? "NULL") AS o2 FROM \(aside(join.name))"
        default:
            return nil
        }
    }

    /// The old relationships `relationship` (of the new model) takes its pairs from: for each
    /// entity that has it (the declaring one and those below, which may come from different old
    /// entities, when it moved up into a new parent), the one that entity's mapping names.
    private func oldRelationships(of relationship: RelationshipDescription) -> [RelationshipDescription] {
        guard let owner = relationship.entity else { return [] }
        var found: [RelationshipDescription] = []
        for entity in owner.selfAndDescendants where destination.holds(entity) {
            guard let old = oldProperty(of: relationship, for: entity) as? RelationshipDescription,
                  !found.contains(where: { $0 === old }) else { continue }
            found.append(old)
        }
        return found
    }

    /// The old pairs of `relationship` (of the new model), keeping only those whose owner and
    /// destination were carried over as objects of the entities the relationship joins (the
    /// destination's when this store holds it), with both orders numbered from 1 (by key where
    /// the old list was not ordered). Nil for a relationship with no source.
    private func pairs(of relationship: RelationshipDescription) -> String? {
        guard let owner = relationship.entity, let target = relationship.destinationEntity else { return nil }
        let old = oldRelationships(of: relationship).compactMap(oldPairs(of:))
        guard !old.isEmpty else { return nil }
        func keys(_ entity: EntityDescription) -> String {
            let numbers = entity.selfAndDescendants.filter { destination.holds($0) }.map { String(destination.number(of: $0)) }
            return "SELECT Z_PK FROM \(q(destination.table(of: entity).name)) WHERE Z_ENT IN (\(numbers.joined(separator: ", ")))"
        }
        let targets = destination.holds(target) ? " AND d IN (\(keys(target)))" : ""
        return "SELECT s, d, ROW_NUMBER() OVER (PARTITION BY s ORDER BY o1, d) AS o1, ROW_NUMBER() OVER (PARTITION BY d ORDER BY o2, s) AS o2 "
            + "FROM (\(old.joined(separator: " UNION ALL "))) WHERE s IN (\(keys(owner)))\(targets)"
    }

    /// Writes every relationship of the new model into its storage: to-one foreign keys (with
    /// the destination's entity number and the position in an ordered inverse) and join tables.
    /// To-many relationships kept by their inverse's foreign key are written through it.
    private func rebuildRelationships() throws {
        for entity in destination.entities {
            for relationship in entity.relationships where relationship.entity === entity && relationship.isStored {
                switch destination.storage(of: relationship) {
                case .foreignKey(let column, let entityColumn, let order)?:
                    // A to-one relationship taking a to-many one's pairs holds one of them only
                    // when each owner has at most one.
                    guard let pairs = pairs(of: relationship) ?? inversePairs(of: relationship) else { continue }
                    let crowded = try connection.scalar("SELECT count(*) FROM (SELECT s FROM (\(pairs)) GROUP BY s HAVING count(*) > 1)")?.integerValue ?? 0
                    if crowded > 0 {
                        throw failure("\(relationship.qualifiedName) is to-one, but \(crowded) \(entity.name) object\(crowded == 1 ? "" : "s") in the store relate\(crowded == 1 ? "s" : "") to several")
                    }
                    let table = q(destination.table(of: entity).name)
                    var sets = ["\(q(column)) = p.d"]
                    if let entityColumn, let target = relationship.destinationEntity, destination.holds(target) {
                        sets.append("\(q(entityColumn)) = (SELECT Z_ENT FROM \(q(destination.table(of: target).name)) WHERE Z_PK = p.d)")
                    }
                    if let order { sets.append("\(q(order)) = p.o2") }
                    try connection.execute("UPDATE \(table) SET \(sets.joined(separator: ", ")) FROM (\(pairs)) AS p WHERE \(table).Z_PK = p.s")
                case .joinTable(let join, false)?:
                    guard let pairs = pairs(of: relationship) ?? inversePairs(of: relationship) else { continue }
                    var columns = [q(join.sourceColumn), q(join.destinationColumn)]
                    var values = ["s", "d"]
                    if let order = join.destinationOrderColumn { columns.append(q(order)); values.append("o1") }
                    if let order = join.sourceOrderColumn { columns.append(q(order)); values.append("o2") }
                    try connection.execute("INSERT OR IGNORE INTO \(q(join.name)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM (\(pairs))")
                default:
                    continue
                }
            }
        }
    }

    /// The pairs of `relationship` taken from its inverse's mapping (owner and destination
    /// swapped), for a relationship whose own mapping has no source but whose inverse's has.
    private func inversePairs(of relationship: RelationshipDescription) -> String? {
        guard let inverse = relationship.inverseRelationship, inverse !== relationship, let pairs = pairs(of: inverse) else { return nil }
        return "SELECT d AS s, s AS d, o2 AS o1, o1 AS o2 FROM (\(pairs))"
    }

    // MARK: Checks and keys

    /// Throws, naming the entity, property and count, when rows lack a value the new model
    /// requires (a required attribute with no default, a required to-one relationship), or are of
    /// an entity the new model makes abstract.
    private func checkRequiredValues() throws {
        for table in destination.tables.values.sorted(by: { $0.name < $1.name }) {
            for entity in table.root.selfAndDescendants where destination.holds(entity) {
                let numbers = entity.selfAndDescendants.filter { destination.holds($0) }.map { String(destination.number(of: $0)) }.joined(separator: ", ")
                if entity.isAbstract {
                    let count = try connection.scalar("SELECT count(*) FROM \(q(table.name)) WHERE Z_ENT = \(destination.number(of: entity))")?.integerValue ?? 0
                    if count > 0 { throw failure("entity \(entity.name) is abstract in the new model, but the store holds \(count) of its objects") }
                }
                for property in entity.declaredProperties where property.isStored && !property.isOptional {
                    if let attribute = property as? AttributeDescription, attribute.isDerived { continue }
                    guard let column = destination.column(of: property.name, in: entity) else { continue }
                    let count = try connection.scalar("SELECT count(*) FROM \(q(table.name)) WHERE \(q(column)) IS NULL AND Z_ENT IN (\(numbers))")?.integerValue ?? 0
                    if count > 0 {
                        let what = property is AttributeDescription ? "has no default value" : "is a relationship"
                        throw failure("\(property.qualifiedName) is required in the new model and \(what), but \(count) \(entity.name) object\(count == 1 ? " has" : "s have") no value for it in the store")
                    }
                }
            }
        }
    }

    /// Throws, naming the entity and its properties, when stored objects share the values of a
    /// uniqueness constraint of the new model (before its UNIQUE index is made).
    private func checkUniqueness() throws {
        for table in destination.tables.values.sorted(by: { $0.name < $1.name }) {
            for owner in table.root.selfAndDescendants where destination.holds(owner) {
                for names in owner.declaredUniquenessConstraints where owner.uniquenessConstraintOwner(of: names) === owner {
                    let columns = names.compactMap { destination.column(of: $0, in: owner) }.map(q)
                    guard columns.count == names.count, !columns.isEmpty else { continue }
                    let numbers = owner.selfAndDescendants.filter { destination.holds($0) }.map { String(destination.number(of: $0)) }
                    let present = columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
                    let shared = try connection.scalar("SELECT count(*) FROM (SELECT 1 FROM \(q(table.name)) WHERE Z_ENT IN (\(numbers.joined(separator: ", "))) AND \(present) "
                                                       + "GROUP BY \(columns.joined(separator: ", ")) HAVING count(*) > 1)")?.integerValue ?? 0
                    if shared > 0 {
                        throw failure("the new model makes \(owner.name)'s (\(names.joined(separator: ", "))) unique, but \(shared) value\(shared == 1 ? " is" : "s are") shared by several \(owner.name) objects in the store")
                    }
                }
            }
        }
    }

    /// Rebuilds Z_PRIMARYKEY for the new model's entities: each root's next key after the
    /// largest its table holds or its old root had given.
    private func renumberKeys(maxima: [Int64: Int64], tableSources: [String: SQLiteSchema.Table]) throws {
        // Each root's next key (its Z_MAX) also covers the keys its old root gave, so that an
        // object deleted before the migration never has its key reused.
        try connection.execute("DELETE FROM Z_PRIMARYKEY")
        for entity in destination.entities {
            var maximum: Int64 = 0
            if let old = sourceEntity(of: entity), source.holds(old) { maximum = maxima[source.number(of: old)] ?? 0 }
            if entity.superentity == nil {
                let table = destination.table(of: entity)
                if let old = tableSources[table.name] { maximum = max(maximum, maxima[source.number(of: old.root)] ?? 0) }
                maximum = max(maximum, try connection.scalar("SELECT coalesce(max(Z_PK), 0) FROM \(q(table.name))")?.integerValue ?? 0)
            }
            try connection.execute("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                                   [.integer(destination.number(of: entity)), .text(entity.name),
                                    .integer(entity.superentity.map(destination.number(of:)) ?? 0), .integer(maximum)])
        }
    }
}
