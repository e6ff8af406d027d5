// How a dictionary fetch becomes SQL: the properties and expressions it returns as columns of an
// inner SELECT (with each row's rank in the fetch order), then, per row or per group, an outer
// SELECT over them: group-by columns, aggregates (`sum:`, `count:`, `min:`, `max:`, `average:`,
// `@count`, `@sum.x`...) or, per row, arithmetic (`points * 2`, `due + 86400`), HAVING over the
// dictionary's keys, DISTINCT as grouping by every column.
// Results come in the in-memory store's order: rows as fetched, groups in the order of their
// first row after the sort descriptors on the dictionaries' keys; nil values are left out.
import Foundation

/// The SQL and decoding of one dictionary fetch.
struct SQLiteDictionaryPlan {
    /// How an output column becomes a dictionary value.
    enum Decoder {
        case attribute(AttributeDescription)
        /// An object ID from two columns: key, then entity number (NULL: `destination`).
        case object(EntityDescription)
        /// A number as SQLite computed it (integer or real).
        case number
        /// A decimal SQL computed (``SQLiteFunctions/arithmetic``'s text).
        case decimal
        /// A date SQL computed (seconds since 2001).
        case date
        /// A literal of the request, returned as it is (its column is a placeholder).
        case constant(any Sendable)
    }

    /// One key of the dictionaries.
    struct Output {
        var name: String
        /// Its SQL over the inner SELECT's columns (two for objects).
        var sql: [String]
        var decoder: Decoder
    }

    /// Expressions of the inner SELECT, named `c0`, `c1`...
    private(set) var inner: [String] = []
    private(set) var outputs: [Output] = []
    /// Whether rows are grouped (group-by properties, or aggregates over all rows).
    let grouped: Bool
    private(set) var groupBy: [String] = []
    private(set) var having: String?
    /// ORDER BY terms of grouped results over the outputs.
    private(set) var groupOrder: [String] = []

    private static let aggregateFunctions: [String: String] = ["sum:": "SUM", "count:": "COUNT", "min:": "MIN", "max:": "MAX", "average:": "AVG"]
    private static let collectionOperators: [String: String] = ["@sum": "SUM", "@avg": "AVG", "@min": "MIN", "@max": "MAX"]

    init(request: StoreFetchRequest, translator: SQLitePredicateTranslator) throws {
        func unsupported(_ what: String) -> StoreError {
            StoreError.unsupportedRequest("the SQLite store cannot fetch \(what) in a dictionary")
        }
        let properties = request.dictionaryProperties
        grouped = request.isGrouped
        // Properties and key paths through to-one relationships (`owner.name`) alike.
        let groupKeys = request.groupingKeys
        let groupNames = Set(groupKeys)
        var named: [String: SQLitePredicateTranslator.Operand] = [:]
        for key in groupKeys {
            let output = try column(key, translator, unsupported)
            groupBy += output.sql
            named[key] = Self.operand(of: output)
        }
        for property in properties {
            if grouped && !groupNames.contains(property.name) {
                throw unsupported("\(property.qualifiedName), which is neither grouped by nor aggregated,")
            }
            outputs.append(try column(property.name, translator, unsupported))
        }
        for description in request.expressionsToFetch {
            let output: Output
            switch description.expression {
            case .function(let name, let arguments) where Self.aggregateFunctions[name] != nil && arguments.count == 1:
                output = try aggregate(Self.aggregateFunctions[name]!, arguments[0], named: description.name, translator, unsupported)
            case .keyPath("@count"):
                output = Output(name: description.name, sql: ["COUNT(*)"], decoder: .number)
            case .keyPath(let path) where path.hasPrefix("@") && path.contains("."):
                let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
                guard let function = Self.collectionOperators[parts[0]] else { throw unsupported(path) }
                output = try aggregate(function, .keyPath(parts[1]), named: description.name, translator, unsupported)
            case .keyPath(let path) where !grouped || groupNames.contains(path):
                output = try column(path, translator, unsupported, named: description.name)
            case .evaluatedObject where !grouped:
                output = Output(name: description.name, sql: [innerColumn("t0.Z_PK"), innerColumn("t0.Z_ENT")], decoder: .object(request.entity))
            case .constant(let constant):
                // "The SELECT values must be literals, aggregates, or columns specified in
                // propertiesToGroupBy": a literal is every row's (and group's) value.
                let value: (any Sendable)?
                switch constant {
                case .null: value = nil
                case .bool(let v): value = v
                case .integer(let v): value = Int(v)
                case .double(let v): value = v
                case .decimal(let v): value = v
                case .string(let v): value = v
                case .date(let v): value = v
                case .data(let v): value = v
                case .uuid(let v): value = v
                case .url(let v): value = v
                default: throw unsupported("\(description.name) (\(description.expression.expressionFormat))")
                }
                output = Output(name: description.name, sql: ["NULL"], decoder: value.map { .constant($0) } ?? .number)
            case .function(let name, _) where !grouped && Self.aggregateFunctions[name] == nil:
                // A value computed per row (`score * 2`, `start + 3600`).
                guard case .value(let sql, let kind) = try translator.operand(description.expression) else {
                    throw unsupported("\(description.name) (\(description.expression.expressionFormat))")
                }
                let decoder: Decoder
                switch kind {
                case .number: decoder = .number
                case .decimal: decoder = .decimal
                case .date: decoder = .date
                case .string, .other: throw unsupported("\(description.name) (\(description.expression.expressionFormat))")
                }
                output = Output(name: description.name, sql: [innerColumn(sql)], decoder: decoder)
            default:
                throw unsupported("\(description.name) (\(description.expression.expressionFormat))")
            }
            outputs.append(output)
            named[description.name] = Self.operand(of: output)
        }
        guard grouped else { return }
        translator.namedValues = named.filter { name, _ in outputs.contains { $0.name == name } }
        translator.resolvesOnlyNamedValues = true
        if let predicate = request.havingPredicate { having = try translator.condition(predicate) }
        for descriptor in request.sortDescriptors {
            guard let held = translator.namedValues[descriptor.key] else { continue }
            let direction = descriptor.ascending ? "" : " DESC"
            switch held {
            case .value(let sql, .string): groupOrder.append("\(sql) COLLATE \(SQLiteFunctions.collation(for: descriptor.comparison))" + direction)
            case .value(let sql, .decimal): groupOrder.append("\(sql) COLLATE \(SQLiteFunctions.decimalCollation)" + direction)
            case .value(let sql, .number), .value(let sql, .date): groupOrder.append(sql + direction)
            case .value(let sql, .other), .object(let sql, _, _): groupOrder.append("(\(sql) IS NOT NULL)" + direction)
            default: break
            }
        }
    }

    /// The inner column named for `sql`, added on first use.
    private mutating func innerColumn(_ sql: String) -> String {
        if let index = inner.firstIndex(of: sql) { return "c\(index)" }
        inner.append(sql)
        return "c\(inner.count - 1)"
    }

    /// The output of the attribute or to-one relationship at `path`.
    private mutating func column(_ path: String, _ translator: SQLitePredicateTranslator, _ unsupported: (String) -> StoreError,
                                 named name: String? = nil) throws -> Output {
        switch try translator.operand(.keyPath(path)) {
        case .value(let sql, let kind):
            if let attribute = translator.attributesBySQL[sql] {
                return Output(name: name ?? path, sql: [innerColumn(sql)], decoder: .attribute(attribute))
            }
            // A number computed per row (`jobs.@count`, a subquery).
            guard case .number = kind else { throw unsupported(path) }
            return Output(name: name ?? path, sql: [innerColumn(sql)], decoder: .number)
        case .object(let key, let entity, let destination):
            return Output(name: name ?? path, sql: [innerColumn(key), innerColumn(entity ?? "NULL")], decoder: .object(destination))
        default:
            throw unsupported("\(path) (a to-many relationship)")
        }
    }

    /// `function` over the values of `argument` in each group.
    private mutating func aggregate(_ function: String, _ argument: Expression, named name: String,
                                    _ translator: SQLitePredicateTranslator, _ unsupported: (String) -> StoreError) throws -> Output {
        let operand = try translator.operand(argument)
        if function == "COUNT", case .object(let key, _, _) = operand {
            // The rows with a destination.
            return Output(name: name, sql: ["COUNT(\(innerColumn(key)))"], decoder: .number)
        }
        guard case .value(let sql, let kind) = operand, let attribute = translator.attributesBySQL[sql] else {
            throw unsupported("\(name) (\(function) over \(argument.expressionFormat))")
        }
        let column = innerColumn(sql)
        switch (function, kind) {
        case ("COUNT", _): return Output(name: name, sql: ["COUNT(\(column))"], decoder: .number)
        case ("SUM", .decimal):
            return Output(name: name, sql: ["COALESCE(\(SQLiteFunctions.decimalSum)(\(column)), '0')"], decoder: .attribute(attribute))
        case ("AVG", .decimal):
            return Output(name: name, sql: ["\(SQLiteFunctions.decimalAverage)(\(column))"], decoder: .attribute(attribute))
        case ("MIN", .decimal), ("MAX", .decimal):
            return Output(name: name, sql: ["\(function)(\(column) COLLATE \(SQLiteFunctions.decimalCollation))"], decoder: .attribute(attribute))
        case ("SUM", .number): return Output(name: name, sql: ["COALESCE(\(SQLiteFunctions.sum)(\(column)), 0)"], decoder: .number)
        case ("AVG", .number): return Output(name: name, sql: ["AVG(\(column))"], decoder: .number)
        case ("MIN", .number), ("MAX", .number), ("MIN", .date), ("MAX", .date):
            return Output(name: name, sql: ["\(function)(\(column))"], decoder: .attribute(attribute))
        case ("MIN", .string), ("MAX", .string):
            return Output(name: name, sql: ["\(function)(\(column) COLLATE \(SQLiteFunctions.collation(for: .default)))"], decoder: .attribute(attribute))
        default:
            throw unsupported("\(name) (\(function) over \(attribute.qualifiedName))")
        }
    }

    /// What the having predicate and sorting see for an output.
    private static func operand(of output: Output) -> SQLitePredicateTranslator.Operand {
        switch output.decoder {
        case .attribute(let attribute):
            return .value(output.sql[0], SQLitePredicateTranslator.kind(of: attribute))
        case .object(let destination):
            return .object(key: output.sql[0], entity: output.sql[1] == "NULL" ? nil : output.sql[1], destination: destination)
        case .number:
            return .value(output.sql[0], .number)
        case .decimal:
            return .value(output.sql[0], .decimal)
        case .date:
            return .value(output.sql[0], .date)
        case .constant:
            return .value(output.sql[0], .number)
        }
    }

    /// The statement: rows (`from` is FROM ... WHERE ..., `order` the fetch order) or groups.
    func sql(from: String, order: [String], window: String, distinct: Bool) -> String {
        if grouped && groupBy.isEmpty && having == nil && !distinct {
            // One group of every row: it has no order to keep, so the rows get no rank, and
            // SQLite flattens the subquery: `max:(number)` reads the last entry of an index
            // instead of numbering and sorting every row.
            let columns = outputs.flatMap(\.sql)
            let innerColumns = inner.enumerated().map { "\($1) AS c\($0)" }
            let innerSelect = "SELECT " + (innerColumns.isEmpty ? "1" : innerColumns.joined(separator: ", ")) + from
            return "SELECT \(columns.isEmpty ? "NULL" : columns.joined(separator: ", ")) FROM (\(innerSelect))" + window
        }
        let innerList = inner.enumerated().map { "\($1) AS c\($0)" } + ["ROW_NUMBER() OVER (ORDER BY \(order.joined(separator: ", "))) AS og_rank"]
        let innerSelect = "SELECT " + innerList.joined(separator: ", ") + from
        let columns = outputs.flatMap(\.sql)
        let list = columns.isEmpty ? "NULL" : columns.joined(separator: ", ")
        if grouped {
            let grouping = (groupBy.isEmpty ? "" : " GROUP BY " + groupBy.joined(separator: ", ")) + (having.map { " HAVING " + $0 } ?? "")
            let order = (groupOrder + ["MIN(og_rank)"]).joined(separator: ", ")
            guard distinct, !columns.isEmpty else {
                return "SELECT \(list) FROM (\(innerSelect))" + grouping + " ORDER BY " + order + window
            }
            // Distinct groups: equal dictionaries once, each where its first group comes.
            let named = columns.enumerated().map { "\($1) AS d\($0)" }.joined(separator: ", ")
            let outer = columns.indices.map { "d\($0)" }.joined(separator: ", ")
            return "SELECT \(outer) FROM (SELECT \(named), ROW_NUMBER() OVER (ORDER BY \(order)) AS og_group FROM (\(innerSelect))"
                + grouping + ") GROUP BY \(outer) ORDER BY MIN(og_group)" + window
        }
        if distinct {
            return "SELECT \(list) FROM (\(innerSelect)) GROUP BY \(list) ORDER BY MIN(og_rank)" + window
        }
        return "SELECT \(list) FROM (\(innerSelect)) ORDER BY og_rank" + window
    }

    /// The dictionary of the statement's current row (nil values left out).
    func dictionary(_ statement: SQLiteStatement, storeTag: StoreTag, schema: SQLiteSchema,
                    external: SQLiteExternalData) throws -> [String: any Sendable] {
        var result: [String: any Sendable] = [:]
        var index: Int32 = 0
        for output in outputs {
            defer { index += Int32(output.sql.count) }
            if case .constant(let value) = output.decoder {
                result[output.name] = value
                continue
            }
            if statement.isNull(index) { continue }
            switch output.decoder {
            case .attribute(let attribute):
                if case .value(let value) = try SQLiteValueCoding.decode(statement, index, of: attribute, attribute.attributeType, external: external) {
                    result[output.name] = value
                }
            case .object(let destination):
                let entity = statement.isNull(index + 1) ? destination : schema.entitiesByNumber[statement.int64(index + 1)] ?? destination
                result[output.name] = ObjectID(entity: entity, storeTag: storeTag, primaryKey: statement.int64(index))
            case .number:
                switch statement.value(index) {
                case .integer(let v): result[output.name] = Int(v)
                case .double(let v): result[output.name] = v
                default: break
                }
            case .decimal:
                switch statement.value(index) {
                case .integer(let v): result[output.name] = Decimal(v)
                case .double(let v): result[output.name] = v
                case .text(let v): result[output.name] = SQLiteValueCoding.decimal(v)
                default: break
                }
            case .date:
                if case .double(let v) = statement.value(index) { result[output.name] = Date(timeIntervalSinceReferenceDate: v) }
                if case .integer(let v) = statement.value(index) { result[output.name] = Date(timeIntervalSinceReferenceDate: Double(v)) }
            case .constant:
                break
            }
        }
        return result
    }
}
