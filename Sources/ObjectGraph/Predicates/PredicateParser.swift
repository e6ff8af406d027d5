// The recursive-descent parser of the format-string language: predicates (OR < AND < NOT <
// comparison) over expressions (set operations < | < ^ < & < shifts < + - < * / < ** < unary <
// postfix), consuming format arguments in order as their specifiers are met.
import Foundation

/// Parses one format string with its arguments into a `Predicate` or an `Expression`.
///
/// A parenthesis may open a predicate or an expression; the result of each attempt is memoized
/// per position, so nested parentheses never cost more than linear work.
struct PredicateParser {
    private let format: String
    private let tokens: [PredicateToken]
    private let arguments: [Any?]
    private var index = 0
    private var argumentIndex = 0
    private var depth = 0
    /// The furthest error seen, reported when every alternative failed.
    private var furthest: PredicateError?

    private struct Memo<T> {
        let result: Result<T, PredicateError>
        let endIndex: Int
        let endArgument: Int
    }
    private var predicateMemo: [Int: Memo<Predicate>] = [:]
    private var expressionMemo: [Int: Memo<Expression>] = [:]

    /// The deepest nesting of parentheses, brackets and calls accepted.
    static let maximumDepth = 200

    /// Words that cannot be key path components unless escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI",
        "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE",
        "YES", "FALSE", "NO", "ANYKEY", "SUBQUERY", "FETCH", "CAST", "TRUEPREDICATE",
        "FALSEPREDICATE",
    ]

    init(format: String, arguments: [Any?]) throws {
        self.format = format
        self.arguments = arguments
        var lexer = PredicateLexer(format)
        tokens = try lexer.tokenize()
    }

    // MARK: Entry points

    mutating func parsePredicateToEnd() throws -> Predicate {
        let predicate = try withFurthest { try $0.parseOr() }
        try expectEnd()
        return predicate
    }

    mutating func parseExpressionToEnd() throws -> Expression {
        let expression = try withFurthest { try $0.parseExpression() }
        try expectEnd()
        return expression
    }

    private mutating func withFurthest<T>(_ body: (inout PredicateParser) throws -> T) throws -> T {
        do {
            return try body(&self)
        } catch let error as PredicateError {
            throw furthestError(error)
        }
    }

    private func furthestError(_ error: PredicateError) -> PredicateError {
        guard let furthest, let a = furthest.offset, let b = error.offset, a > b else { return error }
        return furthest
    }

    private mutating func expectEnd() throws {
        guard case .end = current.kind else {
            throw furthestError(syntaxError("unexpected \(describe(current))"))
        }
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[index] }
    private var previous: PredicateToken? { index > 0 ? tokens[index - 1] : nil }

    private func syntaxError(_ message: String, at token: PredicateToken? = nil) -> PredicateError {
        PredicateError(.syntax, message, format: format, offset: (token ?? current).offset)
    }

    private func argumentError(_ message: String, at token: PredicateToken) -> PredicateError {
        PredicateError(.argument, message, format: format, offset: token.offset)
    }

    private func describe(_ token: PredicateToken) -> String {
        if case .end = token.kind { return "end of format" }
        return "\"\(token.text)\""
    }

    private func afterPrevious() -> String {
        guard let previous else { return "at the start" }
        return "after \"\(previous.text)\""
    }

    private func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let s) = current.kind { return s == symbol }
        return false
    }

    /// The upper-cased word of an unescaped identifier token, or nil.
    private func keyword(_ token: PredicateToken) -> String? {
        if case .identifier(let name, escaped: false) = token.kind { return name.uppercased() }
        return nil
    }

    private func isKeyword(_ word: String) -> Bool { keyword(current) == word }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private mutating func expectSymbol(_ symbol: String, _ context: String) throws {
        guard isSymbol(symbol) else {
            throw syntaxError("expected \"\(symbol)\" \(context), found \(describe(current))")
        }
        advance()
    }

    private mutating func nested<T>(_ body: (inout PredicateParser) throws -> T) throws -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw syntaxError("nesting too deep") }
        return try body(&self)
    }

    // MARK: Predicates

    private mutating func parseOr() throws -> Predicate {
        var operands = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            try expectPredicateFollows()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    private mutating func parseAnd() throws -> Predicate {
        var operands = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            try expectPredicateFollows()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    private mutating func parseNot() throws -> Predicate {
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            try expectPredicateFollows()
            return .not(try nested { try $0.parseNot() })
        }
        return try parsePrimaryPredicate()
    }

    /// After AND, OR or NOT: the format must go on.
    private func expectPredicateFollows() throws {
        if isEnd { throw syntaxError("expected a predicate \(afterPrevious())") }
    }

    private mutating func parsePrimaryPredicate() throws -> Predicate {
        if isKeyword("TRUEPREDICATE") { advance(); return .truePredicate }
        if isKeyword("FALSEPREDICATE") { advance(); return .falsePredicate }
        if isSymbol("("), let predicate = try parenthesizedPredicate() { return predicate }
        return try parseComparison()
    }

    /// `( predicate )` when the parenthesis holds a whole predicate and is not the start of an
    /// expression (`(a + 1) * 2 > 3`); nil (position unchanged) otherwise.
    private mutating func parenthesizedPredicate() throws -> Predicate? {
        let start = index
        let memo: Memo<Predicate>
        if let cached = predicateMemo[start] {
            memo = cached
        } else {
            let startArgument = argumentIndex
            let result: Result<Predicate, PredicateError>
            do {
                advance()
                let inner = try nested { try $0.parseOr() }
                try expectSymbol(")", "to close the parenthesis")
                result = .success(inner)
            } catch let error as PredicateError {
                result = .failure(error)
            }
            memo = Memo(result: result, endIndex: index, endArgument: argumentIndex)
            predicateMemo[start] = memo
            index = start
            argumentIndex = startArgument
        }
        switch memo.result {
        case .success(let predicate):
            let savedIndex = index, savedArgument = argumentIndex
            index = memo.endIndex
            argumentIndex = memo.endArgument
            if startsExpressionContinuation() {
                index = savedIndex
                argumentIndex = savedArgument
                return nil
            }
            return predicate
        case .failure(let error):
            noteFailure(error)
            return nil
        }
    }

    private mutating func noteFailure(_ error: PredicateError) {
        if let offset = error.offset, offset > (furthest?.offset ?? -1) { furthest = error }
    }

    /// Whether the current token continues an expression or a comparison, so that a
    /// parenthesized predicate before it must have been an expression.
    private func startsExpressionContinuation() -> Bool {
        if case .symbol(let s) = current.kind {
            return ![")", "||", "&&", ",", "}", "]"].contains(s)
        }
        if case .identifier(let name, escaped: false) = current.kind {
            let word = name.uppercased()
            if ["AND", "OR"].contains(word) { return false }
            return true
        }
        if case .end = current.kind { return false }
        return true
    }

    private mutating func parseComparison() throws -> Predicate {
        var modifier = ComparisonPredicate.Modifier.direct
        var negate = false
        if let word = keyword(current) {
            switch word {
            case "ANY", "SOME": modifier = .any; advance()
            case "ALL": modifier = .all; advance()
            case "NONE": modifier = .any; negate = true; advance()
            default: break
            }
        }
        let left = try parseExpression()
        let operatorToken = current
        guard let op = try parseOperator() else {
            if case .end = current.kind {
                throw syntaxError("expected a comparison operator \(afterPrevious())")
            }
            throw syntaxError("expected a comparison operator, found \(describe(current))")
        }
        let options = try parseOptions()
        guard !isEnd else {
            throw syntaxError("expected an expression after \"\(operatorToken.text)\"")
        }
        let right = try parseExpression()
        let comparison = Predicate.comparison(
            ComparisonPredicate(left, op, right, modifier: modifier, options: options))
        return negate ? .not(comparison) : comparison
    }

    private var isEnd: Bool {
        if case .end = current.kind { return true }
        return false
    }

    private mutating func parseOperator() throws -> ComparisonPredicate.Operator? {
        let op: ComparisonPredicate.Operator
        switch current.kind {
        case .symbol(let s):
            switch s {
            case "==", "=": op = .equalTo
            case "!=", "<>": op = .notEqualTo
            case "<": op = .lessThan
            case "<=", "=<": op = .lessThanOrEqualTo
            case ">": op = .greaterThan
            case ">=", "=>": op = .greaterThanOrEqualTo
            default: return nil
            }
        case .identifier(let name, escaped: false):
            if name.hasSuffix(":") { op = .customSelector(name); break }
            switch name.uppercased() {
            case "LIKE": op = .like
            case "MATCHES": op = .matches
            case "BEGINSWITH": op = .beginsWith
            case "ENDSWITH": op = .endsWith
            case "IN": op = .in
            case "CONTAINS": op = .contains
            case "BETWEEN": op = .between
            default: return nil
            }
        default:
            return nil
        }
        advance()
        return op
    }

    private mutating func parseOptions() throws -> ComparisonPredicate.Options {
        guard isSymbol("[") else { return [] }
        let open = current
        advance()
        guard case .identifier(let letters, escaped: false) = current.kind else {
            throw syntaxError("expected comparison options (c, d, n, l) after \"[\"")
        }
        var options: ComparisonPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": options.insert(.localeSensitive)
            default: throw syntaxError("unknown comparison option \"\(letter)\" (expected c, d, n or l)")
            }
        }
        advance()
        try expectSymbol("]", "to close the options opened at character \(open.offset)")
        return options
    }

    // MARK: Expressions

    mutating func parseExpression() throws -> Expression {
        try nested { try $0.parseSetOperation() }
    }

    private mutating func parseSetOperation() throws -> Expression {
        var left = try parseBinary(level: 0)
        while let word = keyword(current), let op = Expression.SetOperation(rawValue: word) {
            advance()
            left = .setOperation(op, left, try parseBinary(level: 0))
        }
        return left
    }

    /// Binary operator levels, loosest first, with the function each operator stands for.
    private static let binaryLevels: [[String: String]] = [
        ["|": "bitwiseOr:with:"],
        ["^": "bitwiseXor:with:"],
        ["&": "bitwiseAnd:with:"],
        ["<<": "leftshift:by:", ">>": "rightshift:by:"],
        ["+": "add:to:", "-": "from:subtract:"],
        ["*": "multiply:by:", "/": "divide:by:"],
        ["**": "raise:toPower:"],
    ]

    private mutating func parseBinary(level: Int) throws -> Expression {
        guard level < Self.binaryLevels.count else { return try parseUnary() }
        var left = try parseBinary(level: level + 1)
        while case .symbol(let s) = current.kind, let function = Self.binaryLevels[level][s] {
            let operatorToken = current
            advance()
            guard !isEnd else { throw syntaxError("expected an expression after \"\(operatorToken.text)\"") }
            let right = try parseBinary(level: level + 1)
            left = .function(function, [left, right])
        }
        return left
    }

    private mutating func parseUnary() throws -> Expression {
        if isSymbol("-") {
            advance()
            switch current.kind {
            case .integer(let v) where v != Int64.min:
                advance()
                return try parsePostfix(.constant(.integer(-v)))
            case .double(let v):
                advance()
                return try parsePostfix(.constant(.double(-v)))
            default:
                let operand = try nested { try $0.parseUnary() }
                return .function("from:subtract:", [.constant(.integer(0)), operand])
            }
        }
        if isSymbol("~") {
            advance()
            return .function("onesComplement:", [try nested { try $0.parseUnary() }])
        }
        return try parsePostfix(try parsePrimary())
    }

    private mutating func parsePostfix(_ base: Expression) throws -> Expression {
        var expression = base
        while true {
            if isSymbol(".") {
                advance()
                expression = try parseMember(of: expression)
            } else if isSymbol("[") {
                advance()
                let sub = try nested { try $0.parseSubscript() }
                try expectSymbol("]", "to close the subscript")
                expression = .subscripted(expression, sub)
            } else {
                return expression
            }
        }
    }

    private mutating func parseMember(of base: Expression) throws -> Expression {
        let token = current
        switch token.kind {
        case .identifier(let name, let escaped):
            guard !name.hasSuffix(":") else {
                throw syntaxError("expected a key after \".\", found \(describe(token))")
            }
            if !escaped, name.uppercased() == "SELF" { advance(); return appendKey("self", to: base) }
            advance()
            return appendKey(name, to: base)
        case .variable(let name):
            advance()
            return .dynamicMember(base, .variable(name))
        case .format("K"):
            advance()
            return appendKey(try keyPathArgument(token), to: base)
        default:
            throw syntaxError("expected a key after \".\", found \(describe(token))")
        }
    }

    private func appendKey(_ key: String, to base: Expression) -> Expression {
        switch base {
        case .evaluatedObject: return .keyPath(key)
        case .keyPath(let path): return .keyPath(path + "." + key)
        case .member(let inner, let path): return .member(inner, path + "." + key)
        default: return .member(base, key)
        }
    }

    private mutating func parseSubscript() throws -> Expression.Subscript {
        switch keyword(current) {
        case "FIRST": advance(); return .first
        case "LAST": advance(); return .last
        case "SIZE": advance(); return .size
        default: return .index(try parseExpression())
        }
    }

    private mutating func parsePrimary() throws -> Expression {
        let token = current
        switch token.kind {
        case .string(let s):
            advance()
            return .constant(.string(s))
        case .integer(let v):
            advance()
            return .constant(.integer(v))
        case .double(let v):
            advance()
            return .constant(.double(v))
        case .variable(let name):
            advance()
            return .variable(name)
        case .percent:
            advance()
            return .constant(.string("%"))
        case .format(let conversion):
            advance()
            return try formatArgument(conversion, token)
        case .identifier(let name, let escaped):
            return try parseIdentifier(name, escaped: escaped, token)
        case .symbol("("):
            return try parenthesizedExpression()
        case .symbol("{"):
            advance()
            return try nested { try $0.parseAggregate() }
        case .symbol("<") where tokens.count > index + 2 && keyword(tokens[index + 1]) == "NULL"
            && tokens[index + 2].kind == .symbol(">"):
            index += 3
            return .constant(.nullObject)
        case .end:
            throw syntaxError("expected an expression \(afterPrevious())")
        default:
            throw syntaxError("expected an expression, found \(describe(token))")
        }
    }

    private mutating func parenthesizedExpression() throws -> Expression {
        let start = index
        if let cached = expressionMemo[start] {
            index = cached.endIndex
            argumentIndex = cached.endArgument
            return try cached.result.get()
        }
        let result: Result<Expression, PredicateError>
        do {
            advance()
            let inner = try nested { try $0.parseExpression() }
            try expectSymbol(")", "to close the parenthesis")
            result = .success(inner)
        } catch let error as PredicateError {
            result = .failure(error)
        }
        expressionMemo[start] = Memo(result: result, endIndex: index, endArgument: argumentIndex)
        return try result.get()
    }

    private mutating func parseAggregate() throws -> Expression {
        var elements: [Expression] = []
        if isSymbol("}") { advance(); return .constant(.array([])) }
        while true {
            elements.append(try parseExpression())
            if isSymbol(",") { advance(); continue }
            try expectSymbol("}", "to close the array")
            return Self.aggregate(elements)
        }
    }

    private mutating func parseArguments() throws -> [Expression] {
        try expectSymbol("(", "to open the arguments")
        var arguments: [Expression] = []
        if isSymbol(")") { advance(); return arguments }
        while true {
            arguments.append(try parseExpression())
            if isSymbol(",") { advance(); continue }
            try expectSymbol(")", "to close the arguments")
            return arguments
        }
    }

    private mutating func parseIdentifier(_ name: String, escaped: Bool, _ token: PredicateToken) throws
        -> Expression
    {
        let word = escaped ? "" : name.uppercased()
        let callFollows = tokens[index + 1].kind == .symbol("(")
        if !escaped {
            switch word {
            case "NULL", "NIL": advance(); return .constant(.null)
            case "TRUE", "YES": advance(); return .constant(.bool(true))
            case "FALSE", "NO": advance(); return .constant(.bool(false))
            case "SELF": advance(); return .evaluatedObject
            case "SUBQUERY" where callFollows: advance(); return try nested { try $0.parseSubquery() }
            case "TERNARY" where callFollows: advance(); return try nested { try $0.parseTernary() }
            case "FUNCTION" where callFollows: advance(); return try nested { try $0.parseMethodCall() }
            case "CAST" where callFollows:
                advance()
                let arguments = try nested { try $0.parseArguments() }
                guard arguments.count == 2 else {
                    throw syntaxError("CAST takes a value and a type name", at: token)
                }
                return Self.cast(arguments[0], arguments[1])
            default:
                break
            }
            if callFollows || name.hasSuffix(":") {
                advance()
                let arguments = try nested { try $0.parseArguments() }
                guard let function = BuiltinFunction.resolve(name, argumentCount: arguments.count) else {
                    throw syntaxError("unknown function \"\(name)\" with \(arguments.count) argument(s)", at: token)
                }
                return .function(function.name, arguments)
            }
            if Self.reservedWords.contains(word) {
                throw syntaxError("expected an expression, found the reserved word \"\(name)\"")
            }
        }
        advance()
        return .keyPath(name)
    }

    /// An array literal; one of constants only is folded into an array constant, so that `{1, 2}`
    /// and `%@` given `[1, 2]` are the same tree (they print the same).
    static func aggregate(_ elements: [Expression]) -> Expression {
        var constants: [ConstantValue] = []
        for element in elements {
            guard case .constant(let value) = element else { return .aggregate(elements) }
            constants.append(value)
        }
        return .constant(.array(constants))
    }

    /// `CAST(number, "NSDate")` of a constant is folded into a date constant (and likewise
    /// `CAST("...", "NSData" | "NSUUID" | "NSURL" | "Class")`), so printed constants parse back
    /// equal.
    static func cast(_ value: Expression, _ type: Expression) -> Expression {
        if case .constant(.string("NSDate")) = type, case .constant(let c) = value, let n = c.number,
            !(c == .null)
        {
            return .constant(.date(Date(timeIntervalSinceReferenceDate: n.doubleValue)))
        }
        if case .constant(.string(let typeName)) = type, case .constant(.string(let text)) = value,
            let folded = try? BuiltinFunction.cast(text, to: typeName), let constant = try? ConstantValue(any: folded),
            ["Class", "NSData", "NSUUID", "NSURL"].contains(typeName)
        {
            return .constant(constant)
        }
        return .function("castObject:toType:", [value, type])
    }

    private mutating func parseSubquery() throws -> Expression {
        try expectSymbol("(", "after SUBQUERY")
        let collection = try parseExpression()
        try expectSymbol(",", "after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw syntaxError("expected a variable ($x) as the second argument of SUBQUERY")
        }
        advance()
        try expectSymbol(",", "after the SUBQUERY variable")
        let predicate = try parseOr()
        try expectSymbol(")", "to close SUBQUERY")
        return .subquery(collection, variable: variable, predicate)
    }

    private mutating func parseTernary() throws -> Expression {
        try expectSymbol("(", "after TERNARY")
        let condition = try parseOr()
        try expectSymbol(",", "after the TERNARY condition")
        let whenTrue = try parseExpression()
        try expectSymbol(",", "after the TERNARY true value")
        let whenFalse = try parseExpression()
        try expectSymbol(")", "to close TERNARY")
        return .conditional(condition, whenTrue, whenFalse)
    }

    private mutating func parseMethodCall() throws -> Expression {
        let open = current
        let arguments = try parseArguments()
        guard arguments.count >= 2, case .constant(.string(let selector)) = arguments[1] else {
            throw syntaxError("FUNCTION takes a receiver, a selector name string and its arguments", at: open)
        }
        return .method(arguments[0], selector, Array(arguments.dropFirst(2)))
    }

    // MARK: Format arguments

    private mutating func nextArgument(_ token: PredicateToken) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw argumentError("missing argument for \(token.text)", at: token)
        }
        defer { argumentIndex += 1 }
        return unwrapOptional(arguments[argumentIndex])
    }

    private mutating func keyPathArgument(_ token: PredicateToken) throws -> String {
        let argument = try nextArgument(token)
        switch argument {
        case let s as String: return s
        case let s as Substring: return String(s)
        case let s as NSString where argument.map(isClassInstance) ?? false: return String(describing: s)
        default:
            throw argumentError("%K needs a key path string, got \(describeArgument(argument))", at: token)
        }
    }

    private func describeArgument(_ argument: Any?) -> String {
        guard let argument else { return "nil" }
        return String(describing: type(of: argument))
    }

    private mutating func formatArgument(_ conversion: Character, _ token: PredicateToken) throws -> Expression {
        switch conversion {
        case "K":
            let argument = try nextArgument(token)
            if let expression = argument as? Expression { return expression }
            argumentIndex -= 1
            return .keyPath(try keyPathArgument(token))
        case "@":
            let argument = try nextArgument(token)
            if let expression = argument as? Expression { return expression }
            if argument is Predicate {
                throw argumentError("%@ stands for an expression, not a predicate", at: token)
            }
            do {
                return .constant(try ConstantValue(any: argument))
            } catch let error as PredicateError {
                throw argumentError(error.message, at: token)
            }
        case "c", "C":
            let argument = try nextArgument(token)
            if let s = argument as? String, let scalar = s.unicodeScalars.first {
                return .constant(.integer(Int64(scalar.value)))
            }
            if let c = argument as? Character, let scalar = c.unicodeScalars.first {
                return .constant(.integer(Int64(scalar.value)))
            }
            return try numericArgument(argument, token, floating: false)
        default:
            let floating = "fFeEgG".contains(conversion)
            return try numericArgument(try nextArgument(token), token, floating: floating)
        }
    }

    private func numericArgument(_ argument: Any?, _ token: PredicateToken, floating: Bool) throws -> Expression {
        guard let argument, let number = Number(argument) else {
            throw argumentError("\(token.text) needs a number, got \(describeArgument(argument))", at: token)
        }
        if floating { return .constant(.double(number.doubleValue)) }
        if case .integer(let v) = number { return .constant(.integer(v)) }
        guard let v = number.integerValue else {
            throw argumentError("\(token.text) needs an integer, got \(number.doubleValue)", at: token)
        }
        return .constant(.integer(v))
    }
}
