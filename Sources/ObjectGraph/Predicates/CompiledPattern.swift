// Compiled MATCHES patterns: compiled once into the comparison when the pattern is a constant,
// and in a small shared cache when it comes from a key path or a variable (the SQLite store keeps
// a table of its own per connection); and the check that a predicate's constant patterns are
// regular expressions, which stores run before fetching.
import Foundation

/// The regular expression of a `MATCHES` comparison whose pattern is a constant, compiled once
/// when the comparison is built so that evaluating it over many objects does not recompile it.
///
/// It is a cache, not part of the tree's value: all instances are equal and hash alike. It
/// remembers the pattern and options it was compiled for, and is ignored when the comparison
/// has since been changed to another pattern.
public struct CompiledPattern: Hashable, @unchecked Sendable {
    private let pattern: String?
    private let options: ComparisonPredicate.Options
    private let regex: NSRegularExpression?

    /// No compiled pattern.
    static let none = CompiledPattern(pattern: nil, options: [], regex: nil)

    private init(pattern: String?, options: ComparisonPredicate.Options, regex: NSRegularExpression?) {
        self.pattern = pattern
        self.options = options
        self.regex = regex
    }

    /// Compiles the right side of a MATCHES comparison when it is a constant string.
    init(_ op: ComparisonPredicate.Operator, _ right: Expression, _ options: ComparisonPredicate.Options) {
        guard op == .matches, case .constant(.string(let pattern)) = right,
            let regex = try? ValueComparison.compileRegex(pattern, options)
        else {
            self = .none
            return
        }
        self.init(pattern: pattern, options: options, regex: regex)
    }

    /// The compiled regex if it was compiled for this pattern and these options.
    func regex(for pattern: String, _ options: ComparisonPredicate.Options) -> NSRegularExpression? {
        self.pattern == pattern && self.options == options ? regex : nil
    }

    /// Caches never make two comparisons differ.
    public static func == (lhs: CompiledPattern, rhs: CompiledPattern) -> Bool { true }
    /// Caches add nothing to a comparison's hash.
    public func hash(into hasher: inout Hasher) {}
}

/// Regular expressions of MATCHES comparisons whose pattern is not a constant (a key path, a
/// variable), by pattern and options, so that evaluating over many objects compiles each
/// distinct pattern once. Bounded: emptied when full.
///
/// It also bounds a leak in swift-corelibs-foundation: `NSRegularExpression(pattern:)` leaks a
/// copy of any pattern longer than 256 UTF-16 units (`_CFRegularExpressionCreate`), once per
/// compilation.
final class RegexCache: @unchecked Sendable {
    static let shared = RegexCache()
    private let lock = NSLock()
    private var table = RegexTable(limit: 64)

    func regex(_ pattern: String, _ options: ComparisonPredicate.Options) throws -> NSRegularExpression {
        lock.lock()
        defer { lock.unlock() }
        return try table.regex(pattern, options)
    }
}

/// MATCHES patterns compiled by ``ValueComparison/compileRegex(_:_:)``, by pattern and options,
/// at most `limit` of them: when full it is emptied, so that rows with ever new patterns cannot
/// grow it without bound. Not thread-safe: ``RegexCache`` guards its table with a lock, an
/// SQLite connection's `og_matches` runs on the connection's one thread at a time.
///
/// ```swift
/// var table = RegexTable(limit: 64)
/// let regex = try table.regex("a.c", [.caseInsensitive])  // compiled
/// _ = try table.regex("a.c", [.caseInsensitive])          // the same object, not recompiled
/// ```
struct RegexTable {
    private struct Key: Hashable {
        let pattern: String
        let options: Int
    }

    private var regexes: [Key: NSRegularExpression] = [:]
    /// How many compiled patterns the table holds at most.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The compiled form of `pattern` with `options`, compiled on first use; throws
    /// ``PredicateError/Kind/invalidRegularExpression(_:)`` naming an invalid pattern (which is
    /// not kept: each use throws again).
    mutating func regex(_ pattern: String, _ options: ComparisonPredicate.Options) throws -> NSRegularExpression {
        let key = Key(pattern: pattern, options: options.rawValue)
        if let regex = regexes[key] { return regex }
        let regex = try ValueComparison.compileRegex(pattern, options)
        if regexes.count >= limit { regexes.removeAll() }
        regexes[key] = regex
        return regex
    }
}

extension Predicate {
    /// Throws ``PredicateError/Kind/invalidRegularExpression(_:)`` for the first MATCHES
    /// comparison (in subqueries and TERNARY conditions too) whose pattern is a constant that is
    /// not a valid regular expression.
    ///
    /// Evaluation throws that error only when a value reaches the comparison; a store checks its
    /// predicate first, so that a bad pattern fails a fetch whatever rows there are, as the
    /// SQLite store fails it while translating, before any SQL runs.
    func checkRegularExpressions() throws {
        switch self {
        case .truePredicate, .falsePredicate:
            return
        case .and(let operands), .or(let operands):
            for operand in operands { try operand.checkRegularExpressions() }
        case .not(let operand):
            try operand.checkRegularExpressions()
        case .comparison(let comparison):
            if comparison.operator == .matches, case .constant(.string(let pattern)) = comparison.right,
               comparison.compiledPattern.regex(for: pattern, comparison.options) == nil {
                _ = try RegexCache.shared.regex(pattern, comparison.options)
            }
            try comparison.left.checkRegularExpressions()
            try comparison.right.checkRegularExpressions()
        }
    }
}

extension Expression {
    /// ``Predicate/checkRegularExpressions()`` for the predicates inside the expression
    /// (SUBQUERY's, TERNARY's).
    func checkRegularExpressions() throws {
        switch self {
        case .constant, .evaluatedObject, .variable, .keyPath:
            return
        case .member(let base, _):
            try base.checkRegularExpressions()
        case .dynamicMember(let a, let b), .setOperation(_, let a, let b):
            try a.checkRegularExpressions()
            try b.checkRegularExpressions()
        case .subscripted(let base, let position):
            try base.checkRegularExpressions()
            if case .index(let index) = position { try index.checkRegularExpressions() }
        case .aggregate(let elements), .function(_, let elements):
            for element in elements { try element.checkRegularExpressions() }
        case .method(let receiver, _, let arguments):
            try receiver.checkRegularExpressions()
            for argument in arguments { try argument.checkRegularExpressions() }
        case .subquery(let collection, _, let predicate):
            try collection.checkRegularExpressions()
            try predicate.checkRegularExpressions()
        case .conditional(let condition, let a, let b):
            try condition.checkRegularExpressions()
            try a.checkRegularExpressions()
            try b.checkRegularExpressions()
        }
    }
}
