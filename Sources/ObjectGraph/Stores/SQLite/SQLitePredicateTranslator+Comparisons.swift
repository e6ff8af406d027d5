// Comparisons as SQL with the evaluator's semantics: constants bound in the stored form of the
// value they are compared with, nil equal only to nil, ordering false against nil, a value of
// another kind never equal (and unordered: refused, as the evaluator throws), string operators
// through the registered functions. Every condition is 0 or 1.
//
// One deliberate limit: `==`, `!=` and IN on strings without options compare UTF-8 bytes, so
// that indexes serve them, against the constant and its composed (NFC) and decomposed (NFD)
// forms; Swift's == equates every canonically equivalent spelling, so the two differ only for
// stored text that is in neither normal form.
import Foundation

extension SQLitePredicateTranslator {
    /// The condition `left op right`.
    func compare(_ left: Operand, _ op: ComparisonPredicate.Operator, _ right: Operand,
                 _ options: ComparisonPredicate.Options) throws -> String {
        switch (left, right) {
        case (.constant(let a), .constant(let b)):
            do {
                return try ComparisonPredicate(.constant(a), op, .constant(b), options: options).evaluate(with: nil) ? "1" : "0"
            } catch {
                throw StoreError.unsupportedRequest("the SQLite store cannot evaluate \(ComparisonPredicate(.constant(a), op, .constant(b), options: options)): \(error)")
            }
        case (.constant, _):
            guard let flipped = Self.flipped(op) else {
                return try stringOperation(left, op, right, options)
            }
            return try compare(right, flipped, left, options)
        case (.toMany(let members), _):
            guard op == .contains else { throw unsupported("\(members.path) \(op.symbol): a to-many key path needs ANY, ALL, NONE, CONTAINS, @count or an aggregate") }
            return try quantifiedMembership(members, right, options)
        case (_, .toMany(let members)):
            guard op == .in else { throw unsupported("\(op.symbol) \(members.path): a to-many key path needs ANY, ALL, NONE, IN, @count or an aggregate") }
            return try quantifiedMembership(members, left, options)
        case (.object(let key, let entity, let destination), _):
            return try compareObject(key, entity, destination, op, right)
        case (.value(let sql, let kind), .constant(let constant)):
            return try compareValue(sql, kind, op, constant, options)
        case (.value(let a, let kindA), .value(let b, let kindB)):
            return try compareValues(a, kindA, op, b, kindB, options)
        case (.value, .object):
            throw unsupported("\(op.symbol) between a value and an object")
        }
    }

    /// Whether some member (ANY) equals `element`: CONTAINS with a to-many collection.
    private func quantifiedMembership(_ members: ToMany, _ element: Operand, _ options: ComparisonPredicate.Options) throws -> String {
        try quantified(members, all: false) { member in try self.compare(member, .equalTo, element, options) }
    }

    /// The operator with its sides swapped (`5 < x` is `x > 5`); nil when it has no such form.
    static func flipped(_ op: ComparisonPredicate.Operator) -> ComparisonPredicate.Operator? {
        switch op {
        case .equalTo, .notEqualTo: return op
        case .lessThan: return .greaterThan
        case .lessThanOrEqualTo: return .greaterThanOrEqualTo
        case .greaterThan: return .lessThan
        case .greaterThanOrEqualTo: return .lessThanOrEqualTo
        case .in: return .contains
        case .contains: return .in
        default: return nil
        }
    }

    // MARK: Objects

    /// An object (to-one destination or SELF) against an object ID, nil, a collection of IDs or
    /// another object.
    private func compareObject(_ key: String, _ entity: String?, _ destination: EntityDescription,
                               _ op: ComparisonPredicate.Operator, _ right: Operand) throws -> String {
        func equals(_ constant: ConstantValue) -> String {
            switch constant {
            case .null, .nullObject: return "\(key) IS NULL"
            case .opaque(let opaque):
                guard let id = opaque.value as? ObjectID, id.storeTag == storeTag, let pk = id.primaryKey,
                      id.entity.isKind(of: destination) || destination.isKind(of: id.entity) else { return "0" }
                if let entity { return "(\(key) IS \(bind(.integer(pk))) AND \(entity) IS \(schema.number(of: id.entity)))" }
                return id.entity === destination ? "\(key) IS \(bind(.integer(pk)))" : "0"
            default:
                return "0"
            }
        }
        switch (op, right) {
        case (.equalTo, .constant(let constant)): return equals(constant)
        case (.notEqualTo, .constant(let constant)): return "NOT " + equals(constant)
        case (.in, .constant(let constant)):
            guard let items = Self.elements(of: constant) else { throw unsupported("IN with \(constant), which is not a collection") }
            // Object IDs of this store are grouped by entity and bound as one JSON array of keys
            // per entity, so that any number of objects makes a small statement (an OR of one
            // term per object would hit SQLite's expression depth and variable limits).
            var keysByEntity: [ObjectIdentifier: (entity: EntityDescription, keys: [Int64])] = [:]
            var others: [String] = []
            for item in items {
                if case .opaque(let opaque) = item, let id = opaque.value as? ObjectID, id.storeTag == storeTag,
                   let pk = id.primaryKey, id.entity.isKind(of: destination) || destination.isKind(of: id.entity) {
                    keysByEntity[ObjectIdentifier(id.entity), default: (id.entity, [])].keys.append(pk)
                } else {
                    let test = equals(item)
                    if test != "0" { others.append(test) }
                }
            }
            for (_, group) in keysByEntity.sorted(by: { $0.value.entity.name < $1.value.entity.name }) {
                // A nil destination is in no collection: false, not SQL's NULL, so that a
                // negation matches it (as the evaluator and `!=` answer).
                let membership = "(\(key) IS NOT NULL AND \(key) IN (SELECT value FROM json_each(\(bind(SQLiteStore.jsonArray(group.keys))))))"
                if let entity {
                    others.append("(\(membership) AND \(entity) IS \(schema.number(of: group.entity)))")
                } else if group.entity === destination {
                    others.append(membership)
                }
            }
            return others.isEmpty ? "0" : "(" + others.joined(separator: " OR ") + ")"
        case (.equalTo, .object(let otherKey, let otherEntity, let otherDestination)),
             (.notEqualTo, .object(let otherKey, let otherEntity, let otherDestination)):
            let mine = entity ?? String(schema.number(of: destination))
            let theirs = otherEntity ?? String(schema.number(of: otherDestination))
            let equal = "((\(key) IS NULL AND \(otherKey) IS NULL) OR (\(key) IS \(otherKey) AND \(mine) IS \(theirs)))"
            return op == .equalTo ? equal : "NOT " + equal
        default:
            throw unsupported("\(op.symbol) with an object on the left (objects compare only with ==, != and IN)")
        }
    }

    /// The elements of a constant collection (a dictionary's values), or nil for a non-collection.
    static func elements(of constant: ConstantValue) -> [ConstantValue]? {
        switch constant {
        case .array(let items): return items
        case .set(let items): return Array(items)
        case .orderedSet(let items): return Array(items)
        case .dictionary(let items): return Array(items.values)
        default: return nil
        }
    }

    // MARK: Values

    /// `constant` in the stored form of values of `kind`, or nil when it is not of that kind.
    private func stored(_ constant: ConstantValue, as kind: Kind) -> SQLiteValue? {
        let value = constant.anyValue
        switch kind {
        case .number:
            guard let value, let number = Number(value) else { return nil }
            switch number {
            case .integer(let v): return .integer(v)
            case .double(let v): return .double(v)
            case .decimal: return .double(number.doubleValue)
            }
        case .decimal:
            guard let value, let number = Number(value) else { return nil }
            switch number {
            case .integer(let v): return .integer(v)
            case .double(let v): return .double(v)
            case .decimal(let v): return .text(SQLiteValueCoding.text(of: v))
            }
        case .string:
            guard case .string(let s) = constant else { return nil }
            return .text(s)
        case .date:
            guard case .date(let d) = constant else { return nil }
            return .double(d.timeIntervalSinceReferenceDate)
        case .other(let attribute):
            let scalar: (any Hashable & Sendable)?
            switch constant {
            case .uuid(let v): scalar = v
            case .data(let v): scalar = v
            case .url(let v): scalar = v
            case .string(let v): scalar = v
            case .opaque(let v): scalar = v.value as? ObjectID
            default: scalar = nil
            }
            return scalar.flatMap { try? SQLiteValueCoding.encode($0, of: attribute) }
        }
    }

    /// The SQL that orders two non-null values of `kind`: an expression compared with 0 for
    /// strings (with options) and decimals, nil when `<` and friends apply directly.
    private func ordering(_ a: String, _ b: String, _ kind: Kind, _ options: ComparisonPredicate.Options) -> String? {
        switch kind {
        case .string: return "og_compare(\(a), \(b), \(options.rawValue))"
        case .decimal: return "og_number_compare(\(a), \(b))"
        default: return nil
        }
    }

    /// The SQL symbol of an ordering operator.
    private static func symbol(_ op: ComparisonPredicate.Operator) -> String {
        switch op {
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        default: return ">="
        }
    }

    /// The stored texts equal to `value` for Swift's `==` that SQL's byte comparison must also
    /// find: the text itself and its composed (NFC) and decomposed (NFD) forms, for strings
    /// compared without options; just `value` otherwise.
    private func spellings(of value: SQLiteValue, _ kind: Kind, _ options: ComparisonPredicate.Options) -> [SQLiteValue] {
        guard case .string = kind, options.isEmpty, case .text(let text) = value else { return [value] }
        var forms = [text]
        for form in [text.precomposedStringWithCanonicalMapping, text.decomposedStringWithCanonicalMapping]
        where !forms.contains(where: { $0.utf8.elementsEqual(form.utf8) }) {
            forms.append(form)
        }
        return forms.map { .text($0) }
    }

    /// Whether two non-null values of `kind` are equal, as SQL.
    private func equality(_ a: String, _ b: String, _ kind: Kind, _ options: ComparisonPredicate.Options) -> String {
        switch kind {
        case .string where !options.isEmpty && options != .normalized: return "og_equal(\(a), \(b), \(options.rawValue))"
        case .decimal: return "og_number_compare(\(a), \(b)) = 0"
        default: return "\(a) = \(b)"
        }
    }

    /// `test`, an SQL comparison of `operands` that is NULL when one of them is NULL, as a
    /// condition false when one is NULL. WHERE takes NULL for false, so the `IS NOT NULL` terms
    /// are needed only under a negation (`NOT NULL` is NULL, not true): `negated`, or enclosing.
    private func nonNull(_ operands: [String], _ test: String, negated: Bool = false) -> String {
        guard negated || enclosingNegations > 0 else { return "(\(test))" }
        return "(" + operands.map { "\($0) IS NOT NULL AND " }.joined() + test + ")"
    }

    /// Whether `equality` of values of `kind` is SQL's `=`, NULL for NULL (not a function).
    private func isPlainEquality(_ kind: Kind, _ options: ComparisonPredicate.Options) -> Bool {
        switch kind {
        case .string where !options.isEmpty && options != .normalized: return false
        case .decimal: return false
        default: return true
        }
    }

    /// A value against a constant.
    private func compareValue(_ sql: String, _ kind: Kind, _ op: ComparisonPredicate.Operator,
                              _ constant: ConstantValue, _ options: ComparisonPredicate.Options) throws -> String {
        let isNil: Bool
        switch constant {
        case .null, .nullObject: isNil = true
        default: isNil = false
        }
        var sql = sql
        if case .other(let attribute) = kind, !isNil {
            if attribute.attributeType == .transformable {
                // The column holds the transformer's bytes, which the constant is not in: the
                // evaluator compares the values, and SQL cannot call the transformer back.
                throw unsupported("a comparison of the transformable attribute \(attribute.qualifiedName) with a value (only with nil)")
            }
            // A large value is a file's name in its column: compared as the bytes it names.
            if attribute.allowsExternalBinaryDataStorage { sql = "\(SQLiteFunctions.externalData)(\(sql))" }
        }
        switch op {
        case .equalTo, .notEqualTo:
            let equal: String
            if isNil {
                equal = "\(sql) IS NULL"
            } else if let value = stored(constant, as: kind) {
                let forms = spellings(of: value, kind, options)
                if forms.count > 1 {
                    equal = nonNull([sql], "\(sql) IN (" + forms.map(bind).joined(separator: ", ") + ")", negated: op == .notEqualTo)
                } else if isPlainEquality(kind, options) {
                    equal = nonNull([sql], equality(sql, bind(value), kind, options), negated: op == .notEqualTo)
                } else {
                    equal = "(\(sql) IS NOT NULL AND \(equality(sql, bind(value), kind, options)))"
                }
            } else {
                equal = "0"
            }
            return op == .equalTo ? equal : "NOT \(equal)"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard !isNil else { return "0" }
            guard let value = stored(constant, as: kind), Self.isOrdered(kind) else {
                throw unsupported("\(op.symbol) \(constant): the values compared have no order between them")
            }
            let bound = bind(value)
            if let order = ordering(sql, bound, kind, options) { return "(\(sql) IS NOT NULL AND \(order) \(Self.symbol(op)) 0)" }
            return nonNull([sql], "\(sql) \(Self.symbol(op)) \(bound)")
        case .between:
            guard !isNil else { return "0" }
            guard let bounds = Self.elements(of: constant), bounds.count == 2 else {
                throw unsupported("BETWEEN with \(constant): it needs a two-element collection {low, high}")
            }
            guard Self.isOrdered(kind) else { throw unsupported("BETWEEN over values that have no order") }
            if bounds.contains(where: { $0 == .null || $0 == .nullObject }) { return "0" }
            guard let low = stored(bounds[0], as: kind), let high = stored(bounds[1], as: kind) else {
                throw unsupported("BETWEEN with \(constant): the bounds have no order against the values")
            }
            let lowSQL = bind(low), highSQL = bind(high)
            if let lowOrder = ordering(sql, lowSQL, kind, options), let highOrder = ordering(sql, highSQL, kind, options) {
                return "(\(sql) IS NOT NULL AND \(lowOrder) >= 0 AND \(highOrder) <= 0)"
            }
            return nonNull([sql], "\(sql) >= \(lowSQL) AND \(sql) <= \(highSQL)")
        case .in:
            guard !isNil else { return "0" }
            if case .string(let haystack) = constant {
                guard case .string = kind else { throw unsupported("IN a string with a value that is not a string") }
                return "(\(sql) IS NOT NULL AND og_find(\(bind(.text(haystack))), \(sql), \(SQLiteFunctions.Anchor.anywhere.rawValue), \(options.rawValue)))"
            }
            guard let items = Self.elements(of: constant) else { throw unsupported("IN \(constant), which is not a collection") }
            let includesNil = items.contains { $0 == .null || $0 == .nullObject }
            let values = items.compactMap { stored($0, as: kind) }.flatMap { spellings(of: $0, kind, options) }
            var tests: [String] = []
            if !values.isEmpty {
                switch kind {
                case .string where !options.isEmpty && options != .normalized, .decimal:
                    tests.append("(\(sql) IS NOT NULL AND (" + values.map { equality(sql, bind($0), kind, options) }.joined(separator: " OR ") + "))")
                default:
                    tests.append(nonNull([sql], "\(sql) IN (" + values.map(bind).joined(separator: ", ") + ")"))
                }
            }
            if includesNil { tests.append("\(sql) IS NULL") }
            return tests.isEmpty ? "0" : "(" + tests.joined(separator: " OR ") + ")"
        case .contains:
            guard !isNil else { return "0" }
            guard case .string = kind, case .string(let needle) = constant else {
                throw unsupported("CONTAINS \(constant) on a value that is not a string or a to-many relationship")
            }
            return "(\(sql) IS NOT NULL AND og_find(\(sql), \(bind(.text(needle))), \(SQLiteFunctions.Anchor.anywhere.rawValue), \(options.rawValue)))"
        case .beginsWith, .endsWith, .like, .matches:
            return try stringOperation(.value(sql, kind), op, .constant(constant), options)
        case .customSelector(let selector):
            throw unsupported("the custom selector comparison \(selector)")
        }
    }

    /// Two values (columns, aggregates).
    private func compareValues(_ a: String, _ kindA: Kind, _ op: ComparisonPredicate.Operator, _ b: String, _ kindB: Kind,
                               _ options: ComparisonPredicate.Options) throws -> String {
        let kind: Kind?
        switch (kindA, kindB) {
        case (.number, .number), (.string, .string), (.date, .date): kind = kindA
        case (.decimal, .decimal), (.decimal, .number), (.number, .decimal): kind = .decimal
        case (.other(let x), .other(let y)) where x.attributeType == y.attributeType: kind = kindA
        default: kind = nil
        }
        switch op {
        case .equalTo, .notEqualTo:
            let bothNil = "(\(a) IS NULL AND \(b) IS NULL)"
            let equal = kind.map { "(\(bothNil) OR (\(a) IS NOT NULL AND \(b) IS NOT NULL AND \(equality(a, b, $0, options))))" } ?? bothNil
            return op == .equalTo ? equal : "NOT \(equal)"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let kind, Self.isOrdered(kind) else { throw unsupported("\(op.symbol) between values that have no order between them") }
            if let order = ordering(a, b, kind, options) { return "(\(a) IS NOT NULL AND \(b) IS NOT NULL AND \(order) \(Self.symbol(op)) 0)" }
            return nonNull([a, b], "\(a) \(Self.symbol(op)) \(b)")
        case .beginsWith, .endsWith, .like, .matches, .contains, .in:
            guard case .string? = kind else { throw unsupported("\(op.symbol) between values that are not both strings") }
            return try stringOperation(.value(a, .string), op, .value(b, .string), options)
        default:
            throw unsupported("\(op.symbol) between two key paths")
        }
    }

    /// Whether values of `kind` have an order: every kind but the equality-only ones, of which
    /// UUIDs order as their 16-byte blobs do (as the evaluator orders them).
    private static func isOrdered(_ kind: Kind) -> Bool {
        if case .other(let attribute) = kind { return attribute.attributeType == .uuid }
        return true
    }

    /// BEGINSWITH, ENDSWITH, LIKE, MATCHES (and CONTAINS, IN between strings) through the
    /// registered functions; false when either side is nil. A constant MATCHES pattern that is
    /// not a valid regular expression throws ``PredicateError/Kind/invalidRegularExpression(_:)``
    /// here, before any SQL runs, so that the fetch fails whatever rows there are; a pattern read
    /// from a row fails the statement with the same error when `og_matches` reaches it.
    private func stringOperation(_ left: Operand, _ op: ComparisonPredicate.Operator, _ right: Operand,
                                 _ options: ComparisonPredicate.Options) throws -> String {
        if op == .matches, case .constant(.string(let pattern)) = right {
            _ = try RegexCache.shared.regex(pattern, options)
        }
        func string(_ operand: Operand) throws -> String? {
            switch operand {
            case .value(let sql, .string): return sql
            case .constant(.string(let s)): return bind(.text(s))
            case .constant(.null), .constant(.nullObject): return nil
            default: throw unsupported("\(op.symbol) between values that are not strings")
            }
        }
        guard let a = try string(left), let b = try string(right) else { return "0" }
        let call: String
        switch op {
        case .beginsWith: call = "og_find(\(a), \(b), \(SQLiteFunctions.Anchor.start.rawValue), \(options.rawValue))"
        case .endsWith: call = "og_find(\(a), \(b), \(SQLiteFunctions.Anchor.end.rawValue), \(options.rawValue))"
        case .contains: call = "og_find(\(a), \(b), \(SQLiteFunctions.Anchor.anywhere.rawValue), \(options.rawValue))"
        case .in: call = "og_find(\(b), \(a), \(SQLiteFunctions.Anchor.anywhere.rawValue), \(options.rawValue))"
        case .like: call = "og_like(\(a), \(b), \(options.rawValue))"
        case .matches: call = "og_matches(\(a), \(b), \(options.rawValue))"
        default: throw unsupported("\(op.symbol) with a constant on the left")
        }
        return "(\(a) IS NOT NULL AND \(b) IS NOT NULL AND \(call))"
    }
}
