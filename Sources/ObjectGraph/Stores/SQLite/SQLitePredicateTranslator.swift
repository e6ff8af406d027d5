// Predicates and expressions to SQL, with the evaluator's semantics: every translated condition
// is 0 or 1, never NULL (so NOT stays right when values are nil); nil compares as the evaluator
// compares it; strings with [c], [d], [n], [l], BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES
// go through the functions SQLiteFunctions registers, which call the evaluator's own code. Key
// paths through to-one relationships become LEFT JOINs; ANY, ALL, NONE, to-many membership,
// @count, @sum, @avg, @min, @max, SUBQUERY(...).@count and the members of an ordered to-many
// relationship at a place (`steps[FIRST].text`, `[LAST]`, `[2]`) become correlated subqueries.
// Arithmetic over numbers (`+`, `-`, `*` in SQL; `/`, modulus:by:, `**` and anything decimal
// through og_arithmetic, the evaluator's code) is NULL for nil, as the evaluator's is; a date
// takes seconds added to it. Values are always bound (`?N`); what cannot be translated throws,
// naming the construct.
import Foundation

/// Translates the predicates and sort keys of one fetch into SQL over its scopes.
final class SQLitePredicateTranslator {
    /// What a translated expression stands for.
    enum Operand {
        /// A scalar SQL expression (NULL for nil) holding values of a kind.
        case value(String, Kind)
        /// An object: its primary-key expression, its entity-number expression (nil when it can
        /// only be `destination`) and the entity it is of.
        case object(key: String, entity: String?, destination: EntityDescription)
        /// The members of a to-many relationship, with the rest of the key path after it.
        case toMany(ToMany)
        /// A constant of the predicate.
        case constant(ConstantValue)
    }

    /// How values of an operand compare.
    enum Kind {
        case number, decimal, string, date
        /// Values compared only for equality, in their stored form (UUIDs, data, URIs...).
        case other(AttributeDescription)
    }

    /// A to-many relationship reached from a scope.
    struct ToMany {
        var owner: String
        var relationship: RelationshipDescription
        var rest: [String]
        /// The condition that the owner exists (a to-one path led to it), if it may not.
        var ownerGuard: String?
        var path: String
    }

    let schema: SQLiteSchema
    let storeTag: StoreTag
    /// The main rows (`t0`).
    let root: SQLiteQueryScope
    /// Bound values, `?1` being the first.
    private(set) var arguments: [SQLiteValue] = []
    private var aliasCount = 0
    /// How many negations enclose the condition being translated, up to the nearest WHERE (a
    /// subquery's starts afresh): where none does, a comparison may be NULL for nil values, as
    /// WHERE takes NULL for false (see `nonNull`).
    private(set) var enclosingNegations = 0
    /// The scopes of SUBQUERY variables in effect.
    private var variables: [String: SQLiteQueryScope] = [:]
    /// The attribute behind each column expression resolved so far (to decode what it selects).
    private(set) var attributesBySQL: [String: AttributeDescription] = [:]
    /// Names that stand for computed values (a dictionary fetch's columns, which its having
    /// predicate reads as key paths or as variables).
    var namedValues: [String: Operand] = [:]
    /// Whether key paths and variables must be among `namedValues` (a having predicate sees only
    /// its dictionaries).
    var resolvesOnlyNamedValues = false

    init(schema: SQLiteSchema, storeTag: StoreTag, entity: EntityDescription) {
        self.schema = schema
        self.storeTag = storeTag
        root = SQLiteQueryScope(alias: "t0", entity: entity)
    }

    func unsupported(_ what: String) -> StoreError {
        StoreError.unsupportedRequest("the SQLite store cannot translate \(what)")
    }

    private func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    /// `?N` for a new bound value.
    func bind(_ value: SQLiteValue) -> String {
        arguments.append(value)
        return "?\(arguments.count)"
    }

    // MARK: Predicates

    /// The SQL condition (0 or 1) of `predicate`.
    func condition(_ predicate: Predicate) throws -> String {
        switch predicate {
        case .truePredicate: return "1"
        case .falsePredicate: return "0"
        case .and(let operands):
            guard !operands.isEmpty else { return "1" }
            return "(" + (try operands.map(condition)).joined(separator: " AND ") + ")"
        case .or(let operands):
            guard !operands.isEmpty else { return "0" }
            return "(" + (try operands.map(condition)).joined(separator: " OR ") + ")"
        case .not(let operand):
            return "NOT " + (try negated { try condition(operand) })
        case .comparison(let comparison):
            return try condition(comparison)
        }
    }

    private func condition(_ comparison: ComparisonPredicate) throws -> String {
        if case .customSelector(let selector) = comparison.operator {
            throw unsupported("the custom selector comparison \(selector)")
        }
        let left = try operand(comparison.left)
        let right = try operand(comparison.right)
        switch comparison.modifier {
        case .direct:
            return try compare(left, comparison.operator, right, comparison.options)
        case .any, .all:
            guard case .toMany(let members) = left else {
                throw unsupported("ANY or ALL over \(comparison.left.expressionFormat), which is not a to-many key path")
            }
            return try quantified(members, all: comparison.modifier == .all) { member in
                try self.compare(member, comparison.operator, right, comparison.options)
            }
        }
    }

    /// `EXISTS` (ANY) or `NOT EXISTS ... NOT` (ALL) over the members of `members`, each seen as
    /// the operand the rest of its key path reaches.
    func quantified(_ members: ToMany, all: Bool, _ test: (Operand) throws -> String) throws -> String {
        let (source, scope) = try memberSource(members)
        let member: Operand
        if members.rest.isEmpty {
            member = .object(key: "\(scope.alias).Z_PK", entity: "\(scope.alias).Z_ENT", destination: scope.entity)
        } else {
            // `ALL attendees.tasks.@count >= 2`: the evaluator (Foundation's key-value coding)
            // reads `attendees.tasks.@count` as one number, the count of the collection of the
            // members' collections, which no quantifier takes; SQL would count per member.
            if members.rest.contains(where: { $0.hasPrefix("@") }) {
                throw unsupported("the key path \(members.path) under ANY, ALL or NONE: a collection operator after a to-many relationship is no collection")
            }
            member = try resolve(members.rest, from: scope, path: members.path)
            if case .toMany = member { throw unsupported("the key path \(members.path): it crosses more than one to-many relationship") }
        }
        // The test is the WHERE of a subquery of its own: negated only by ALL's NOT.
        let test = try negated(all ? 1 : 0, { try test(member) })
        let body = "SELECT 1 FROM \(source.from)" + scope.joins.map { " " + $0 }.joined() + " WHERE \(source.correlation) AND "
        if all {
            let none = "NOT EXISTS (\(body)NOT \(test))"
            return members.ownerGuard.map { "(\($0) AND \(none))" } ?? none
        }
        return "EXISTS (\(body)\(test))"
    }

    /// `body`'s result, translated with `count` negations enclosing it (one more than now when nil).
    private func negated(_ count: Int? = nil, _ body: () throws -> String) rethrows -> String {
        let saved = enclosingNegations
        enclosingNegations = count ?? saved + 1
        defer { enclosingNegations = saved }
        return try body()
    }

    // MARK: Operands

    /// The arithmetic functions and their SQL operators; nil where the evaluator's result differs
    /// from SQL's (a quotient of integers is a real, and a division by zero an error), which
    /// ``SQLiteFunctions/arithmetic`` computes with the evaluator's code.
    private static let arithmeticOperators: [String: String?] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*",
        "divide:by:": nil, "modulus:by:": nil, "raise:toPower:": nil,
    ]

    /// `a + b`, `a - b`, `a * b`, `a / b`, `a % b`, `a ** b` over numbers (NULL for nil, as the
    /// evaluator's arithmetic is nil), and a date plus seconds. Integers and reals use SQL's
    /// operators, which keep integers and turn to reals on overflow, as the evaluator does.
    private func arithmetic(_ name: String, _ arguments: [Expression], in expression: Expression) throws -> Operand {
        var sql: [String] = []
        var kinds: [Kind?] = []
        for argument in arguments {
            switch try operand(argument) {
            case .value(let value, let kind):
                switch kind {
                case .number, .decimal, .date: break
                case .string, .other: throw unsupported("\(argument.expressionFormat) in \(expression.expressionFormat): arithmetic needs numbers")
                }
                sql.append(value)
                kinds.append(kind)
            case .constant(.null):
                sql.append("NULL")
                kinds.append(nil)
            case .constant(.integer(let value)):
                sql.append(bind(.integer(value)))
                kinds.append(.number)
            case .constant(.double(let value)):
                sql.append(bind(.double(value)))
                kinds.append(.number)
            case .constant(.decimal(let value)):
                sql.append(bind(.text(SQLiteValueCoding.text(of: value))))
                kinds.append(.decimal)
            case .constant(.date(let value)):
                // `$NOW + 86400`: dates are stored as seconds since 2001.
                sql.append(bind(.double(value.timeIntervalSinceReferenceDate)))
                kinds.append(.date)
            default:
                throw unsupported("\(argument.expressionFormat) in \(expression.expressionFormat): arithmetic needs numbers")
            }
        }
        let isDate = kinds.map { if case .date? = $0 { return true } else { return false } }
        if isDate[0] || isDate[1] {
            // The evaluator adds seconds to a date (either way round) and takes them from it,
            // nothing else.
            let seconds = isDate[0] ? 1 : 0
            guard isDate[0] != isDate[1], name == "add:to:" || (name == "from:subtract:" && isDate[0]) else {
                throw unsupported("\(expression.expressionFormat): dates take only seconds added to or subtracted from them")
            }
            if case .decimal? = kinds[seconds] { throw unsupported("\(expression.expressionFormat): seconds added to a date must be an integer or a real") }
            return .value("(\(sql[0]) \(name == "add:to:" ? "+" : "-") \(sql[1]))", .date)
        }
        let isDecimal = kinds.contains { if case .decimal? = $0 { return true } else { return false } }
        if !isDecimal, let op = Self.arithmeticOperators[name] ?? nil {
            return .value("(\(sql[0]) \(op) \(sql[1]))", .number)
        }
        let call = "\(SQLiteFunctions.arithmetic)(\(bind(.text(name))), \(sql[0]), \(sql[1]))"
        // Decimal arithmetic gives decimal text (a quotient of decimals, say), the rest numbers.
        return .value(call, isDecimal ? .decimal : .number)
    }

    /// Whether `expression` is computed from constants alone, the same at every evaluation.
    static func isClosed(_ expression: Expression) -> Bool {
        switch expression {
        case .constant: return true
        case .aggregate(let elements): return elements.allSatisfy(isClosed)
        case .function(let name, let arguments):
            return !["now", "random", "random:"].contains(name) && arguments.allSatisfy(isClosed)
        default: return false
        }
    }

    /// The operand `expression` stands for.
    func operand(_ expression: Expression) throws -> Operand {
        switch expression {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return .object(key: "t0.Z_PK", entity: "t0.Z_ENT", destination: root.entity)
        case .keyPath(let path):
            if let named = namedValues[path] { return named }
            if resolvesOnlyNamedValues { throw unsupported("\(path), which is not a key of the dictionaries") }
            return try resolve(path.split(separator: ".").map(String.init), from: root, path: path)
        case .variable(let name):
            if variables[name] == nil, let named = namedValues[name] { return named }
            if resolvesOnlyNamedValues { throw unsupported("$\(name), which is not a key of the dictionaries") }
            guard let scope = variables[name] else { throw unsupported("the variable $\(name), which no SUBQUERY binds (substitute it first)") }
            return .object(key: "\(scope.alias).Z_PK", entity: "\(scope.alias).Z_ENT", destination: scope.entity)
        case .member(.variable(let name), let path):
            guard let scope = variables[name] else { throw unsupported("the variable $\(name), which no SUBQUERY binds (substitute it first)") }
            return try resolve(path.split(separator: ".").map(String.init), from: scope, path: "$\(name).\(path)")
        case .member(.evaluatedObject, let path):
            return try resolve(path.split(separator: ".").map(String.init), from: root, path: path)
        case .member(.subquery(let collection, let variable, let predicate), "@count"),
             .subscripted(.subquery(let collection, let variable, let predicate), .size):
            return try subqueryCount(collection, variable, predicate)
        case .subscripted(let base, let position) where Self.place(position) != nil:
            return try member(at: Self.place(position)!, of: base, path: [], in: expression)
        case .member(.subscripted(let base, let position), let path) where Self.place(position) != nil:
            return try member(at: Self.place(position)!, of: base, path: path.split(separator: ".").map(String.init), in: expression)
        case .subscripted(let base, .size):
            guard case .toMany(var members) = try operand(base), members.rest.isEmpty else {
                throw unsupported("\(expression.expressionFormat): [SIZE] of something other than a to-many relationship")
            }
            members.rest = ["@count"]
            return try collectionOperator(members)
        case .function("noindex:", let arguments) where arguments.count == 1:
            return try operand(arguments[0])
        case .aggregate(let elements):
            let constants = try elements.map { element -> ConstantValue in
                if case .constant(let value) = element { return value }
                // An element computed from constants alone (`$NOW + 604800`) is one.
                if Self.isClosed(element), let value = try? ConstantValue(any: element.expressionValue(with: nil)) {
                    return value
                }
                throw unsupported("the collection \(expression.expressionFormat), whose elements are not all constants")
            }
            return .constant(.array(constants))
        case .function(let name, let arguments) where Self.arithmeticOperators[name] != nil && arguments.count == 2:
            return try arithmetic(name, arguments, in: expression)
        case .function(let name, _):
            throw unsupported("the function \(name) in \(expression.expressionFormat)")
        case .method(_, let selector, _):
            throw unsupported("FUNCTION(..., \"\(selector)\") in \(expression.expressionFormat)")
        case .conditional:
            throw unsupported("TERNARY in \(expression.expressionFormat)")
        case .setOperation(let operation, _, _):
            throw unsupported("the set operation \(operation.rawValue) in \(expression.expressionFormat)")
        case .subquery:
            throw unsupported("\(expression.expressionFormat): a SUBQUERY is only translated followed by .@count or [SIZE]")
        case .subscripted, .member, .dynamicMember:
            throw unsupported("the expression \(expression.expressionFormat)")
        }
    }

    /// What `components` reach from `scope`'s rows: an attribute's column, a to-one
    /// relationship's destination (earlier to-one steps joined), or a to-many relationship.
    func resolve(_ components: [String], from scope: SQLiteQueryScope, path: String) throws -> Operand {
        let q = SQLiteSchema.quoted
        var alias = scope.alias
        var entity = scope.entity
        var walked: [String] = []
        for (position, name) in components.enumerated() {
            // Rows of sub-entities that lack the property have no value there, as the evaluator finds none.
            guard let property = entity.property(inSelfOrDescendantsNamed: name) else {
                throw unsupported("the key path \(path): \(entity.name) has no property \(name)")
            }
            guard property.isStored else {
                throw unsupported("the key path \(path): \(property.qualifiedName) is not stored (transient)")
            }
            let isLast = position == components.count - 1
            switch schema.storage(of: property) {
            case .attribute(let column, let attribute)?:
                guard isLast else { throw unsupported("the key path \(path): it continues after the attribute \(attribute.qualifiedName)") }
                let sql = "\(alias).\(q(column))"
                attributesBySQL[sql] = attribute
                return .value(sql, Self.kind(of: attribute))
            case .foreignKey(let column, let entityColumn, _)?:
                guard let destination = (property as? RelationshipDescription)?.destinationEntity, schema.holds(destination) else {
                    throw unsupported("the key path \(path): \(property.qualifiedName) leads outside the store")
                }
                if isLast {
                    return .object(key: "\(alias).\(q(column))", entity: entityColumn.map { "\(alias).\(q($0))" }, destination: destination)
                }
                walked.append(name)
                let from = alias
                alias = scope.alias(forPath: walked.joined(separator: "."), entity: destination, newAlias: newAlias) { joined in
                    "LEFT JOIN \(q(schema.table(of: destination).name)) \(joined) ON \(joined).Z_PK = \(from).\(q(column))"
                }
                entity = destination
            case .inverseForeignKey?, .joinTable?:
                guard let relationship = property as? RelationshipDescription, let destination = relationship.destinationEntity,
                      schema.holds(destination) else {
                    throw unsupported("the key path \(path): \(property.qualifiedName) leads outside the store")
                }
                let members = ToMany(owner: alias, relationship: relationship, rest: Array(components[(position + 1)...]),
                                     ownerGuard: position == 0 ? nil : "\(alias).Z_PK IS NOT NULL", path: path)
                if let first = members.rest.first, first.hasPrefix("@") { return try collectionOperator(members) }
                return .toMany(members)
            case nil:
                throw unsupported("the key path \(path): \(property.qualifiedName) is not stored")
            }
        }
        return .object(key: "\(alias).Z_PK", entity: "\(alias).Z_ENT", destination: entity)
    }

    /// How values of `attribute` compare.
    static func kind(of attribute: AttributeDescription) -> Kind {
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: return .number
        case .decimal: return .decimal
        case .string: return .string
        case .date: return .date
        default: return .other(attribute)
        }
    }

    /// The rows of a to-many relationship's members: the FROM clause (with its own alias scope)
    /// and the condition tying them to their owner.
    func memberSource(_ members: ToMany) throws -> (source: (from: String, correlation: String, order: String), scope: SQLiteQueryScope) {
        let q = SQLiteSchema.quoted
        guard let destination = members.relationship.destinationEntity else {
            throw unsupported("the key path \(members.path): \(members.relationship.qualifiedName) has no destination")
        }
        let scope = SQLiteQueryScope(alias: newAlias(), entity: destination)
        let table = q(schema.table(of: destination).name)
        switch schema.storage(of: members.relationship) {
        case .inverseForeignKey(let inverse)?:
            guard case .foreignKey(let column, _, let order)? = schema.storage(of: inverse) else { break }
            let ordering = (order.map { "\(scope.alias).\(q($0)), " } ?? "") + "\(scope.alias).Z_PK"
            return (("\(table) \(scope.alias)", "\(scope.alias).\(q(column)) = \(members.owner).Z_PK", ordering), scope)
        case .joinTable(let join, let reversed)?:
            let link = newAlias()
            let owner = reversed ? join.destinationColumn : join.sourceColumn
            let member = reversed ? join.sourceColumn : join.destinationColumn
            let order = reversed ? join.sourceOrderColumn : join.destinationOrderColumn
            let ordering = (order.map { "\(link).\(q($0)), " } ?? "") + "\(scope.alias).Z_PK"
            return (("\(q(join.name)) \(link) JOIN \(table) \(scope.alias) ON \(scope.alias).Z_PK = \(link).\(q(member))",
                     "\(link).\(q(owner)) = \(members.owner).Z_PK", ordering), scope)
        default:
            break
        }
        throw unsupported("the key path \(members.path): \(members.relationship.qualifiedName) is not a stored to-many relationship")
    }

    /// `@count`, `@sum.x`, `@avg.x`, `@min.x`, `@max.x` over a to-many relationship's members:
    /// a correlated scalar subquery, NULL when the owner does not exist (as the evaluator finds nil).
    private func collectionOperator(_ members: ToMany) throws -> Operand {
        let name = members.rest[0]
        let (source, scope) = try memberSource(members)
        let value: String
        let kind: Kind
        if name == "@count" {
            guard members.rest.count == 1 else { throw unsupported("the key path \(members.path): @count followed by a key") }
            value = "COUNT(*)"
            kind = .number
        } else {
            guard members.rest.count > 1, case .value(let argument, let argumentKind) = try resolve(Array(members.rest.dropFirst()), from: scope, path: members.path)
            else { throw unsupported("the key path \(members.path): \(name) needs an attribute after it") }
            switch (name, argumentKind) {
            case ("@sum", .number): value = "COALESCE(\(SQLiteFunctions.sum)(\(argument)), 0)"; kind = .number
            case ("@avg", .number): value = "AVG(\(argument))"; kind = .number
            case ("@min", .number), ("@min", .date): value = "MIN(\(argument))"; kind = argumentKind
            case ("@max", .number), ("@max", .date): value = "MAX(\(argument))"; kind = argumentKind
            case ("@min", .string), ("@max", .string):
                value = "\(name == "@min" ? "MIN" : "MAX")(\(argument) COLLATE \(SQLiteFunctions.collation(for: .default)))"
                kind = .string
            case ("@min", .decimal), ("@max", .decimal):
                value = "\(name == "@min" ? "MIN" : "MAX")(\(argument) COLLATE \(SQLiteFunctions.decimalCollation))"
                kind = .decimal
            default:
                throw unsupported("the key path \(members.path): \(name) over values of that type")
            }
        }
        let subquery = "(SELECT \(value) FROM \(source.from)" + scope.joins.map { " " + $0 }.joined() + " WHERE \(source.correlation))"
        return .value(members.ownerGuard.map { "CASE WHEN \($0) THEN \(subquery) END" } ?? subquery, kind)
    }

    /// Where `[FIRST]`, `[LAST]` and `[n]` (a constant n) pick a member: from the end or the
    /// start, and how many to skip.
    private static func place(_ position: Expression.Subscript) -> (fromEnd: Bool, skipping: Int)? {
        switch position {
        case .first: return (false, 0)
        case .last: return (true, 0)
        case .index(.constant(.integer(let n))) where n >= 0 && n <= Int64(Int32.max): return (false, Int(n))
        default: return nil
        }
    }

    /// `steps[FIRST]`, `steps[LAST].text`, `steps[2].text`: the member of an ordered to-many
    /// relationship at that place in its order (the store's: its order column, then its key),
    /// as an object, or the value `path` reaches from it; nil (no row) where there is none. (The
    /// evaluator throws for an index past the end; SQL finds no member, as for an empty list.)
    /// Unordered relationships have no first member and are refused.
    private func member(at place: (fromEnd: Bool, skipping: Int), of base: Expression, path: [String],
                        in expression: Expression) throws -> Operand {
        guard case .toMany(let members) = try operand(base), members.rest.isEmpty, members.relationship.isOrdered,
              let destination = members.relationship.destinationEntity else {
            throw unsupported("\(expression.expressionFormat): [FIRST], [LAST] and [n] of something other than an ordered to-many relationship")
        }
        let (source, scope) = try memberSource(members)
        let direction = place.fromEnd ? " DESC" : ""
        let ordering = source.order.split(separator: ",").map { $0 + direction }.joined(separator: ",")
        let picked = " WHERE \(source.correlation) ORDER BY \(ordering) LIMIT 1 OFFSET \(place.skipping))"
        func guarded(_ subquery: String) -> String { members.ownerGuard.map { "CASE WHEN \($0) THEN \(subquery) END" } ?? subquery }
        guard !path.isEmpty else {
            return .object(key: guarded("(SELECT \(scope.alias).Z_PK FROM \(source.from)" + picked),
                           entity: guarded("(SELECT \(scope.alias).Z_ENT FROM \(source.from)" + picked), destination: destination)
        }
        guard case .value(let value, let kind) = try resolve(path, from: scope, path: expression.expressionFormat) else {
            throw unsupported("\(expression.expressionFormat): a key after [FIRST], [LAST] or [n] must reach an attribute")
        }
        return .value(guarded("(SELECT \(value) FROM \(source.from)" + scope.joins.map { " " + $0 }.joined() + picked), kind)
    }

    /// `SUBQUERY(collection, $variable, predicate).@count`.
    private func subqueryCount(_ collection: Expression, _ variable: String, _ predicate: Predicate) throws -> Operand {
        guard case .toMany(let members) = try operand(collection), members.rest.isEmpty else {
            throw unsupported("SUBQUERY over \(collection.expressionFormat), which is not a to-many relationship")
        }
        let (source, scope) = try memberSource(members)
        let saved = variables[variable]
        variables[variable] = scope
        defer { variables[variable] = saved }
        let test = try negated(0, { try condition(predicate) })
        return .value("(SELECT COUNT(*) FROM \(source.from)" + scope.joins.map { " " + $0 }.joined()
            + " WHERE \(source.correlation) AND \(test))", .number)
    }
}
