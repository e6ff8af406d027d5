// The predicate tree: comparisons of two expressions, and the compounds AND, OR and NOT over
// predicates. Plain enums and structs, Sendable and Hashable, read by the in-memory evaluator
// here and by the SQLite store's translator.

/// A logical condition on an object, the counterpart of `NSPredicate`.
///
/// ```swift
/// let adults = try Predicate(format: "age >= %d AND name BEGINSWITH[c] %@", 18, "a")
/// try adults.evaluate(with: ["age": 30, "name": "Ada"])   // true
/// adults.predicateFormat   // age >= 18 AND name BEGINSWITH[c] "a"
/// ```
public indirect enum Predicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: always true.
    case truePredicate
    /// `FALSEPREDICATE`: always false.
    case falsePredicate
    /// A comparison of two expressions (`NSComparisonPredicate`).
    case comparison(ComparisonPredicate)
    /// All of the subpredicates (`AND`, `&&`); an empty list is true.
    case and([Predicate])
    /// Any of the subpredicates (`OR`, `||`); an empty list is false.
    case or([Predicate])
    /// The negation (`NOT`, `!`).
    case not(Predicate)
}

/// A comparison of two expressions with an operator, a modifier and string options, the
/// counterpart of `NSComparisonPredicate`: `ANY tags.name ==[cd] "café"`.
public struct ComparisonPredicate: Sendable, Hashable {
    /// The comparison operator.
    public enum Operator: Sendable, Hashable {
        /// `<`
        case lessThan
        /// `<=`, `=<`
        case lessThanOrEqualTo
        /// `>`
        case greaterThan
        /// `>=`, `=>`
        case greaterThanOrEqualTo
        /// `==`, `=`
        case equalTo
        /// `!=`, `<>`
        case notEqualTo
        /// `MATCHES`: the whole left string matches the regular expression on the right.
        case matches
        /// `LIKE`: wildcard match, `*` any run of characters, `?` one character.
        case like
        /// `BEGINSWITH`
        case beginsWith
        /// `ENDSWITH`
        case endsWith
        /// `IN`: membership in the right collection, or substring of the right string.
        case `in`
        /// `CONTAINS`: the left collection holds the right value, or the left string contains
        /// the right one.
        case contains
        /// `BETWEEN`: inclusive range given as a two-element collection `{low, high}`.
        case between
        /// A custom selector comparison, `SELF isKindOfClass: %@`.
        case customSelector(String)
    }

    /// How the left-hand side is used when it is a collection.
    public enum Modifier: Sendable, Hashable {
        /// Compare the left value itself.
        case direct
        /// `ANY`/`SOME`: true if the comparison holds for some element.
        case any
        /// `ALL`: true if the comparison holds for every element.
        case all
    }

    /// String comparison options: `[c]`, `[d]`, `[n]`, `[l]`.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits (Foundation's values).
        public let rawValue: Int
        /// Creates options from raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`: Unicode case folding.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritics ignored.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: strings are already normalized; compare their bytes (overrides c and d).
        public static let normalized = Options(rawValue: 4)
        /// `[l]`: locale-aware comparison in the current locale.
        public static let localeSensitive = Options(rawValue: 8)
    }

    /// The left-hand expression.
    public var left: Expression
    /// The operator.
    public var `operator`: Operator
    /// The right-hand expression.
    public var right: Expression
    /// ANY, ALL or direct.
    public var modifier: Modifier
    /// String options.
    public var options: Options
    /// The MATCHES pattern compiled when the comparison was built (a cache; never affects
    /// equality).
    public let compiledPattern: CompiledPattern

    /// Creates a comparison `left OP right`.
    public init(
        _ left: Expression, _ operator: Operator, _ right: Expression,
        modifier: Modifier = .direct, options: Options = []
    ) {
        self.left = left
        self.operator = `operator`
        self.right = right
        self.modifier = modifier
        self.options = options
        compiledPattern = CompiledPattern(`operator`, right, options)
    }
}
