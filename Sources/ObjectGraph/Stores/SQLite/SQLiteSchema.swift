// How a model maps onto SQLite tables, Core Data's layout: one table per inheritance root
// (`Z<ROOT>`) holding every sub-entity's rows, with `Z_PK` (primary key), `Z_ENT` (the row's
// entity number), `Z_OPT` (version, for optimistic locking) and a `Z<NAME>` column per attribute
// and to-one relationship. A to-many relationship whose inverse is to-one is read through that
// inverse's foreign key (ordered ones through a `Z_FOK_<INVERSE>` column beside it); many-to-many
// relationships, and to-many ones without inverse, live in join tables `Z_<ent><NAME>`.
// Names come only from the model; a clash (siblings declaring one name) gets a numeric suffix.
import Foundation

/// The tables, columns and indexes of a model's entities in a SQLite store.
final class SQLiteSchema: @unchecked Sendable {
    /// The table of one inheritance root (a class: hot paths look it up per row).
    final class Table {
        let name: String
        let root: EntityDescription
        /// Columns after Z_PK, Z_ENT and Z_OPT: name and declared type.
        var columns: [(name: String, type: String)]
        /// `CREATE INDEX` statements.
        var indexes: [String]
        /// `Z_PK, Z_ENT, Z_OPT` and every column, qualified by the alias `t0` (what row readers read).
        var selectList = ""
        /// The rows with one primary key (`?`), with the keys of a JSON array (`?`), and with
        /// the keys from `?1` to `?2` (a run of consecutive keys: a range scan of the table
        /// rather than a lookup per key).
        var selectByKey = ""
        var selectByKeys = ""
        var selectByKeyRange = ""
        /// `Z_PK, Z_ENT, Z_OPT` of the rows with the keys of a JSON array (a save's version check).
        var versionsByKeys = ""
        /// The same for one key: a keyed lookup, without `json_each`'s virtual table.
        var versionByKey = ""

        init(name: String, root: EntityDescription) {
            self.name = name
            self.root = root
            columns = []
            indexes = []
        }
    }

    /// A join table: one row per pair of related objects.
    final class JoinTable {
        let name: String
        /// The column holding the source rows' keys and the one holding the destinations' keys,
        /// seen from the relationship the table was made for.
        let sourceColumn: String
        let destinationColumn: String
        /// Order of the destinations in the source's list, and of the sources in the inverse's.
        let destinationOrderColumn: String?
        let sourceOrderColumn: String?

        init(name: String, sourceColumn: String, destinationColumn: String, destinationOrderColumn: String?, sourceOrderColumn: String?) {
            self.name = name
            self.sourceColumn = sourceColumn
            self.destinationColumn = destinationColumn
            self.destinationOrderColumn = destinationOrderColumn
            self.sourceOrderColumn = sourceOrderColumn
        }
    }

    /// Where a stored property's value lives.
    enum Storage {
        /// An attribute's column.
        case attribute(column: String, AttributeDescription)
        /// A to-one relationship's foreign key; `entityColumn` holds the destination's entity
        /// number when the destination has sub-entities (the key alone does not say which);
        /// `orderColumn` holds the row's position in its inverse's ordered to-many list.
        case foreignKey(column: String, entityColumn: String?, orderColumn: String?)
        /// A to-many relationship read through the foreign key of its to-one inverse.
        case inverseForeignKey(RelationshipDescription)
        /// A to-many relationship in a join table; `reversed` when the table was made for the
        /// inverse (the columns then swap roles).
        case joinTable(JoinTable, reversed: Bool)
    }

    /// Bookkeeping table names a model's tables may not take.
    static let reservedTableNames: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]

    /// The entities the store holds: every entity of the inheritance trees of its configuration.
    let entities: [EntityDescription]
    // The maps below are filled by the initializer and only read afterwards, per row on hot
    // paths: they skip Swift's dynamic exclusivity checks.

    /// Tables by root entity.
    @exclusivity(unchecked) private(set) var tables: [ObjectIdentifier: Table] = [:]
    /// Join tables, in creation order.
    @exclusivity(unchecked) private(set) var joinTables: [JoinTable] = []
    /// Entity numbers (`Z_ENT`): the model's entities in name order, from 1.
    @exclusivity(unchecked) private(set) var entityNumbers: [ObjectIdentifier: Int64] = [:]
    @exclusivity(unchecked) private(set) var entitiesByNumber: [Int64: EntityDescription] = [:]
    /// Where each stored property lives, by property.
    @exclusivity(unchecked) private var storage: [ObjectIdentifier: Storage] = [:]
    /// The table of each entity the store holds (so hot paths need not walk up to the root).
    @exclusivity(unchecked) private var tablesByEntity: [ObjectIdentifier: Table] = [:]
    /// What keeps derived attributes current (``makeDerivedColumns(model:)``).
    private(set) var derivedColumns: [DerivedColumn] = []

    /// The layout of `model`'s entities of `configuration` (nil: all).
    init(model: ManagedObjectModel, configuration: String?) throws {
        for (offset, entity) in model.entities.sorted(by: { $0.name < $1.name }).enumerated() {
            entityNumbers[ObjectIdentifier(entity)] = Int64(offset + 1)
            entitiesByNumber[Int64(offset + 1)] = entity
        }
        guard let members = model.entities(forConfigurationName: configuration) else {
            throw StoreError.unknownStore("the model has no configuration \"\(configuration ?? "")\"")
        }
        var roots: [EntityDescription] = []
        for entity in members where !roots.contains(where: { $0 === entity.rootEntity }) { roots.append(entity.rootEntity) }
        roots.sort { $0.name < $1.name }
        entities = roots.flatMap(\.selfAndDescendants)
        var tableNames = Self.reservedTableNames
        for root in roots {
            let name = Self.unique("Z" + Self.sqlName(root.name), in: &tableNames)
            tables[ObjectIdentifier(root)] = Table(name: name, root: root)
        }
        for root in roots { try mapColumns(of: root) }
        for entity in entities.sorted(by: { number(of: $0) < number(of: $1) }) {
            for relationship in entity.relationships where relationship.entity === entity && relationship.isStored && relationship.isToMany {
                mapToMany(relationship, tableNames: &tableNames)
            }
        }
        for root in roots {
            addIndexes(of: root)
            guard let table = tables[ObjectIdentifier(root)] else { continue }
            table.selectList = (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)).map { "t0." + Self.quoted($0) }.joined(separator: ", ")
            let select = "SELECT \(table.selectList) FROM \(Self.quoted(table.name)) t0 WHERE t0.Z_PK "
            table.selectByKey = select + "= ?"
            table.selectByKeys = select + "IN (SELECT value FROM json_each(?))"
            table.selectByKeyRange = select + "BETWEEN ?1 AND ?2"
            table.versionsByKeys = "SELECT Z_PK, Z_ENT, Z_OPT FROM \(Self.quoted(table.name)) WHERE Z_PK IN (SELECT value FROM json_each(?))"
            table.versionByKey = "SELECT Z_PK, Z_ENT, Z_OPT FROM \(Self.quoted(table.name)) WHERE Z_PK = ?"
        }
        for entity in entities { tablesByEntity[ObjectIdentifier(entity)] = tables[ObjectIdentifier(entity.rootEntity)] }
        derivedColumns = try makeDerivedColumns(model: model)
    }

    // MARK: Lookup

    /// The entity number (`Z_ENT`) of `entity`.
    func number(of entity: EntityDescription) -> Int64 { entityNumbers[ObjectIdentifier(entity)] ?? 0 }

    /// The table holding `entity`'s rows.
    func table(of entity: EntityDescription) -> Table {
        guard let table = tablesByEntity[ObjectIdentifier(entity)] else {
            preconditionFailure("the SQLite store does not hold \(entity.name) objects")
        }
        return table
    }

    /// Whether the store holds rows of `entity`.
    func holds(_ entity: EntityDescription) -> Bool { tablesByEntity[ObjectIdentifier(entity)] != nil }

    /// Where `property` is stored; nil for transient and fetched properties.
    func storage(of property: PropertyDescription) -> Storage? { storage[ObjectIdentifier(property)] }

    /// The entity numbers of `entity` (and its sub-entities when `subentities`), or nil when they
    /// are all the numbers of its table (no `Z_ENT` condition needed).
    func entityNumbers(of entity: EntityDescription, subentities: Bool) -> [Int64]? {
        let wanted = (subentities ? entity.selfAndDescendants : [entity]).map(number(of:))
        let all = entity.rootEntity.selfAndDescendants.filter { !$0.isAbstract }.map(number(of:))
        let concrete = (subentities ? entity.selfAndDescendants : [entity]).filter { !$0.isAbstract }.map(number(of:))
        return Set(concrete) == Set(all) ? nil : wanted
    }

    // MARK: Building

    /// The SQL spelling of a model name (upper case, as Core Data writes it).
    static func sqlName(_ name: String) -> String { name.uppercased() }

    /// `base`, or `base1`, `base2`... whichever `used` does not hold yet; records it.
    static func unique(_ base: String, in used: inout Set<String>) -> String {
        var candidate = base
        var suffix = 1
        while used.contains(candidate.uppercased()) {
            candidate = base + String(suffix)
            suffix += 1
        }
        used.insert(candidate.uppercased())
        return candidate
    }

    /// `"name"`: an identifier quoted for SQL.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Columns for the attributes and to-one relationships declared in `root`'s tree: the root's
    /// first, then each sub-entity's, entities and properties in name order so the layout does
    /// not depend on the order of the model file.
    private func mapColumns(of root: EntityDescription) throws {
        guard let table = tables[ObjectIdentifier(root)] else { return }
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        let tree = [root] + root.selfAndDescendants.dropFirst().sorted { $0.name < $1.name }
        for entity in tree {
            for property in entity.declaredProperties.sorted(by: { $0.name < $1.name }) where property.isStored {
                if let attribute = property as? AttributeDescription {
                    guard SQLiteValueCoding.isStorable(attribute.attributeType) else {
                        throw StoreError.unsupportedRequest(
                            "\(attribute.qualifiedName): \(attribute.attributeType.xcodeName) attributes cannot be stored in a SQLite store")
                    }
                    let column = Self.unique("Z" + Self.sqlName(attribute.name), in: &used)
                    table.columns.append((column, SQLiteValueCoding.columnType(of: attribute.attributeType)))
                    storage[ObjectIdentifier(attribute)] = .attribute(column: column, attribute)
                } else if let relationship = property as? RelationshipDescription, !relationship.isToMany {
                    let column = Self.unique("Z" + Self.sqlName(relationship.name), in: &used)
                    table.columns.append((column, "INTEGER"))
                    var entityColumn: String?
                    if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                        entityColumn = Self.unique("Z_" + Self.sqlName(relationship.name) + "_ENT", in: &used)
                        table.columns.append((entityColumn!, "INTEGER"))
                    }
                    var orderColumn: String?
                    if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered {
                        orderColumn = Self.unique("Z_FOK_" + Self.sqlName(relationship.name), in: &used)
                        table.columns.append((orderColumn!, "INTEGER"))
                    }
                    storage[ObjectIdentifier(relationship)] = .foreignKey(column: column, entityColumn: entityColumn, orderColumn: orderColumn)
                }
            }
        }
    }

    /// The storage of a to-many relationship: its inverse's foreign key, the join table made for
    /// its inverse, or a new join table.
    private func mapToMany(_ relationship: RelationshipDescription, tableNames: inout Set<String>) {
        guard storage[ObjectIdentifier(relationship)] == nil, let source = relationship.entity,
              let destination = relationship.destinationEntity else { return }
        let inverse = relationship.inverseRelationship
        if let inverse, !inverse.isToMany {
            storage[ObjectIdentifier(relationship)] = .inverseForeignKey(inverse)
            return
        }
        let sourceNumber = number(of: source), destinationNumber = number(of: destination)
        let name = Self.unique("Z_\(sourceNumber)" + Self.sqlName(relationship.name), in: &tableNames)
        var columns: Set<String> = []
        let sourceColumn = Self.unique("Z_\(sourceNumber)" + Self.sqlName(inverse?.name ?? "SOURCE"), in: &columns)
        let destinationColumn = Self.unique("Z_\(destinationNumber)" + Self.sqlName(relationship.name), in: &columns)
        let join = JoinTable(
            name: name, sourceColumn: sourceColumn, destinationColumn: destinationColumn,
            destinationOrderColumn: relationship.isOrdered ? "Z_FOK_" + destinationColumn : nil,
            sourceOrderColumn: inverse?.isOrdered == true ? "Z_FOK_" + sourceColumn : nil)
        joinTables.append(join)
        storage[ObjectIdentifier(relationship)] = .joinTable(join, reversed: false)
        if let inverse, inverse !== relationship {
            storage[ObjectIdentifier(inverse)] = .joinTable(join, reversed: true)
        }
    }

    /// Indexes of a root's table: foreign keys, `Z_ENT` (several concrete entities), fetch
    /// indexes, legacy indexed properties and compound indexes, and one UNIQUE index per
    /// uniqueness constraint limited to the entities that have it. Fetch index elements that are
    /// expressions are left out: an index changes no result, and SQL cannot index them.
    private func addIndexes(of root: EntityDescription) {
        guard let table = tables[ObjectIdentifier(root)] else { return }
        let q = Self.quoted
        var names: Set<String> = []
        func add(_ base: String, unique: Bool = false, columns: [String], where condition: String? = nil) {
            let name = Self.unique(table.name + "_" + base, in: &names)
            table.indexes.append("CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(q(name)) ON \(q(table.name)) ("
                + columns.joined(separator: ", ") + ")" + (condition.map { " WHERE " + $0 } ?? ""))
        }
        let tree = root.selfAndDescendants
        if tree.filter({ !$0.isAbstract }).count > 1 { add("Z_ENT", columns: [q("Z_ENT")]) }
        for entity in tree {
            for property in entity.declaredProperties {
                switch storage(of: property) {
                case .foreignKey(let column, _, _)?:
                    add(column, columns: [q(column)])
                case .attribute(let column, _)? where property.isIndexed:
                    add(column, columns: [q(column)])
                default: break
                }
            }
            for index in entity.fetchIndexes {
                let columns = index.elements.compactMap { element -> String? in
                    guard let name = element.propertyName, let column = column(of: name, in: entity) else { return nil }
                    return q(column) + (element.isAscending ? " ASC" : " DESC")
                }
                if !columns.isEmpty, columns.count == index.elements.count { add(Self.sqlName(entity.name + "_" + index.name), columns: columns) }
            }
            for names in entity.compoundIndexes {
                let columns = names.compactMap { column(of: $0, in: entity) }.map(q)
                if !columns.isEmpty, columns.count == names.count { add(Self.sqlName(entity.name) + "_COMPOUND", columns: columns) }
            }
        }
        // A constraint spans the entity that declares it and that entity's sub-entities: siblings
        // that each declare the same properties unique get an index each.
        let all = tree.filter { !$0.isAbstract }
        for owner in tree {
            for names in owner.declaredUniquenessConstraints where owner.uniquenessConstraintOwner(of: names) === owner {
                let holders = owner.selfAndDescendants.filter { !$0.isAbstract }
                guard let first = holders.first else { continue }
                let columns = names.compactMap { column(of: $0, in: first) }
                guard columns.count == names.count else { continue }
                let condition = holders.count == all.count ? nil
                    : "\(q("Z_ENT")) IN (" + holders.map { String(number(of: $0)) }.joined(separator: ", ") + ")"
                add("UNIQUE_" + names.map(Self.sqlName).joined(separator: "_"), unique: true, columns: columns.map(q), where: condition)
            }
        }
    }

    /// The join tables whose rows point at rows of `entity` or its sub-entities, with the column
    /// that holds those keys (what deleting such a row must clean up).
    func joinColumns(referencing entity: EntityDescription) -> [(table: String, column: String)] {
        var result: [(table: String, column: String)] = []
        for relationship in entities.flatMap(\.relationships) {
            guard case .joinTable(let join, let reversed)? = storage(of: relationship), let source = relationship.entity,
                  let destination = relationship.destinationEntity else { continue }
            for (side, column) in [(source, reversed ? join.destinationColumn : join.sourceColumn),
                                   (destination, reversed ? join.sourceColumn : join.destinationColumn)]
            where entity.isKind(of: side) {
                if !result.contains(where: { $0.table == join.name && $0.column == column }) {
                    result.append((join.name, column))
                }
            }
        }
        return result
    }

    /// The column of the attribute or to-one relationship `name` of `entity`.
    func column(of name: String, in entity: EntityDescription) -> String? {
        guard let property = entity.propertiesByName[name] else { return nil }
        switch storage(of: property) {
        case .attribute(let column, _)?, .foreignKey(let column, _, _)?: return column
        default: return nil
        }
    }

    // MARK: DDL

    /// The names of the tables, indexes and triggers ``creationStatements`` create: a file
    /// holding all of them needs none of the statements run.
    var createdNames: Set<String> {
        Set(creationStatements.compactMap { statement -> String? in
            guard let marker = statement.range(of: "IF NOT EXISTS ") else { return nil }
            let rest = statement[marker.upperBound...]
            guard rest.first == "\"" else { return rest.prefix { $0 != " " && $0 != "(" }.description }
            // A quoted identifier ends at a quote not doubled (``quoted(_:)``).
            var name = ""
            var characters = rest.dropFirst().makeIterator()
            while let character = characters.next() {
                if character == "\"" {
                    guard let following = characters.next(), following == "\"" else { return name }
                }
                name.append(character)
            }
            return name
        })
    }

    /// The statements that create every table, index and trigger (idempotent).
    var creationStatements: [String] {
        let q = Self.quoted
        var statements = [
            "CREATE TABLE IF NOT EXISTS Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE IF NOT EXISTS Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB)",
        ]
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            let columns = ["\(q("Z_PK")) INTEGER PRIMARY KEY", "\(q("Z_ENT")) INTEGER NOT NULL", "\(q("Z_OPT")) INTEGER NOT NULL"]
                + table.columns.map { "\(q($0.name)) \($0.type)" }
            statements.append("CREATE TABLE IF NOT EXISTS \(q(table.name)) (" + columns.joined(separator: ", ") + ")")
            statements += table.indexes
        }
        for join in joinTables {
            var columns = ["\(q(join.sourceColumn)) INTEGER NOT NULL", "\(q(join.destinationColumn)) INTEGER NOT NULL"]
            if let order = join.destinationOrderColumn { columns.append("\(q(order)) INTEGER") }
            if let order = join.sourceOrderColumn { columns.append("\(q(order)) INTEGER") }
            columns.append("PRIMARY KEY (\(q(join.sourceColumn)), \(q(join.destinationColumn)))")
            statements.append("CREATE TABLE IF NOT EXISTS \(q(join.name)) (" + columns.joined(separator: ", ") + ")")
            statements.append("CREATE INDEX IF NOT EXISTS \(q(join.name + "_" + join.destinationColumn)) ON \(q(join.name)) (\(q(join.destinationColumn)))")
        }
        return statements + derivedColumns.flatMap(\.triggers)
    }
}
