// How the evaluator compares values: equality and ordering across Swift types with Core Data's
// semantics (numbers by value, nil equal only to nil or a null object, collections element by
// element), and string matching with the [c], [d], [n] and [l] options, LIKE and MATCHES.
import Foundation

/// Equality, ordering and string matching of evaluated values.
enum ValueComparison {
    /// The string held by `value` (String, Substring, NSString), or nil.
    static func string(_ value: Any) -> String? {
        switch value {
        case let s as String: return s
        case let s as Substring: return String(s)
        case let s as NSString where isClassInstance(value): return String(describing: s)
        default: return nil
        }
    }

    /// A short description of a value for error messages: `"abc"`, `42`, `nil`, `an Array`.
    static func describe(_ value: Any?) -> String {
        guard let value = KeyValueAccess.normalized(value) else { return "nil" }
        if let s = string(value) { return ConstantValue.quoted(s) }
        if let n = Number(value) { return ConstantValue(number: n).expressionFormat }
        return "a value of type \(type(of: value))"
    }

    // MARK: Equality

    /// Whether two values are equal in Core Data's sense, with string options.
    static func equal(_ a: Any?, _ b: Any?, options: ComparisonPredicate.Options = []) -> Bool {
        let a = KeyValueAccess.normalized(a), b = KeyValueAccess.normalized(b)
        guard let a, let b else { return a == nil && b == nil }
        if let x = string(a) {
            guard let y = string(b) else { return false }
            return stringsEqual(x, y, options)
        }
        if let x = Number(a) {
            guard let y = Number(b) else { return false }
            return x.compare(y) == .orderedSame
        }
        if let x = a as? Date { return (b as? Date) == x }
        if let x = KeyValueAccess.collectionElements(a) {
            guard let y = KeyValueAccess.collectionElements(b), x.count == y.count else { return false }
            if KeyValueAccess.isUnordered(a) || KeyValueAccess.isUnordered(b) {
                return x.allSatisfy { e in y.contains { equal(e, $0, options: options) } }
            }
            return zip(x, y).allSatisfy { equal($0, $1, options: options) }
        }
        if let x = a as? [String: Any] {
            guard let y = b as? [String: Any], x.count == y.count else { return false }
            return x.allSatisfy { key, value in y[key].map { equal(value, $0, options: options) } ?? false }
        }
        if let x = a as? TypeName { return (b as? TypeName) == x }
        if let x = a as? any EvaluationIdentity { return equal(x.evaluationIdentity, b, options: options) }
        if let y = b as? any EvaluationIdentity { return equal(a, y.evaluationIdentity, options: options) }
        if type(of: a) is AnyClass, type(of: b) is AnyClass { return (a as AnyObject) === (b as AnyObject) }
        if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
        return false
    }

    // MARK: Ordering

    /// The order of two non-nil values: numbers, strings (with options), dates or UUIDs (by their
    /// bytes, as NSUUID's compare(_:) and SQLite's blobs order them); throws for values that have
    /// no order between them.
    static func order(_ a: Any, _ b: Any, options: ComparisonPredicate.Options = []) throws -> ComparisonResult {
        if let x = Number(a), let y = Number(b) { return x.compare(y) }
        if let x = string(a), let y = string(b) { return compareStrings(x, y, options) }
        if let x = a as? Date, let y = b as? Date { return x.compare(y) }
        if let x = a as? UUID, let y = b as? UUID {
            // The uppercase hexadecimal form orders as the bytes do.
            let (p, q) = (x.uuidString, y.uuidString)
            return p == q ? .orderedSame : (p < q ? .orderedAscending : .orderedDescending)
        }
        throw PredicateError(.evaluation, "cannot order \(describe(a)) against \(describe(b))")
    }

    // MARK: Strings

    /// Foundation's compare options for [c] and [d].
    private static func foundationOptions(_ options: ComparisonPredicate.Options) -> String.CompareOptions {
        var result: String.CompareOptions = []
        if options.contains(.caseInsensitive) { result.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { result.insert(.diacriticInsensitive) }
        return result
    }

    /// `s` case-folded ([c]) and stripped of diacritics ([d]); unchanged without options.
    static func fold(_ s: String, _ options: ComparisonPredicate.Options) -> String {
        let foundation = foundationOptions(options)
        guard !foundation.isEmpty else { return s }
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            return foundation.contains(.caseInsensitive) ? s.lowercased() : s
        }
        return s.folding(options: foundation, locale: nil)
    }

    /// Whether only [c] and [d] are set and both strings are ASCII, where folding is lower-casing
    /// bytes and diacritic removal does nothing: compared without allocating.
    private static func asciiFoldable(_ a: String, _ b: String, _ options: ComparisonPredicate.Options) -> Bool {
        options.isSubset(of: [.caseInsensitive, .diacriticInsensitive])
            && a.utf8.allSatisfy { $0 < 0x80 } && b.utf8.allSatisfy { $0 < 0x80 }
    }

    private static func asciiFolded(_ byte: UInt8, _ options: ComparisonPredicate.Options) -> UInt8 {
        options.contains(.caseInsensitive) && byte >= 65 && byte <= 90 ? byte + 32 : byte
    }

    private static func asciiEqual<A: Sequence, B: Sequence>(_ a: A, _ b: B, _ options: ComparisonPredicate.Options) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        a.elementsEqual(b) { asciiFolded($0, options) == asciiFolded($1, options) }
    }

    static func stringsEqual(_ a: String, _ b: String, _ options: ComparisonPredicate.Options) -> Bool {
        if options.contains(.normalized) { return a.utf8.elementsEqual(b.utf8) }
        if !options.isEmpty, asciiFoldable(a, b, options) { return asciiEqual(a.utf8, b.utf8, options) }
        if options.contains(.localeSensitive) {
            return a.compare(b, options: foundationOptions(options), range: nil, locale: Locale.current) == .orderedSame
        }
        if options.isEmpty { return a == b }
        return fold(a, options) == fold(b, options)
    }

    static func compareStrings(_ a: String, _ b: String, _ options: ComparisonPredicate.Options) -> ComparisonResult {
        if options.contains(.normalized) {
            return a.utf8.lexicographicallyPrecedes(b.utf8)
                ? .orderedAscending : (a.utf8.elementsEqual(b.utf8) ? .orderedSame : .orderedDescending)
        }
        if options.isEmpty { return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending) }
        let locale: Locale? = options.contains(.localeSensitive) ? Locale.current : nil
        return a.compare(b, options: foundationOptions(options), range: nil, locale: locale)
    }

    /// Where a substring must be found.
    enum Anchor { case anywhere, start, end }

    /// Whether `haystack` contains `needle` (at the start, the end or anywhere), with options.
    /// An empty needle is found nowhere, as with NSString's `rangeOfString:` and `hasPrefix:`.
    static func find(_ needle: String, in haystack: String, _ anchor: Anchor, _ options: ComparisonPredicate.Options) -> Bool {
        if needle.isEmpty { return false }
        if options.contains(.normalized) {
            let h = Array(haystack.utf8), n = Array(needle.utf8)
            switch anchor {
            case .start: return h.starts(with: n)
            case .end: return h.count >= n.count && Array(h[(h.count - n.count)...]) == n
            case .anywhere:
                guard h.count >= n.count else { return false }
                return (0...(h.count - n.count)).contains { h[$0..<($0 + n.count)].elementsEqual(n) }
            }
        }
        // Foundation's searches on Linux mishandle NUL characters (String.range(of:) traps), so
        // strings holding one take the pure Swift path below.
        if options.contains(.localeSensitive), !haystack.utf8.contains(0), !needle.utf8.contains(0) {
            var foundation = foundationOptions(options)
            switch anchor {
            case .start: foundation.insert(.anchored)
            case .end: foundation.formUnion([.anchored, .backwards])
            case .anywhere: break
            }
            let ns = haystack as NSString
            let range = NSRange(location: 0, length: ns.length)
            return ns.range(of: needle, options: foundation, range: range, locale: Locale.current).location != NSNotFound
        }
        if asciiFoldable(haystack, needle, options) {
            let h = haystack.utf8, n = needle.utf8
            guard h.count >= n.count else { return false }
            switch anchor {
            case .start: return asciiEqual(h.prefix(n.count), n, options)
            case .end: return asciiEqual(h.suffix(n.count), n, options)
            case .anywhere:
                let bytes = Array(h)
                return (0...(bytes.count - n.count)).contains { asciiEqual(bytes[$0..<($0 + n.count)], n, options) }
            }
        }
        let h = fold(haystack, options), n = fold(needle, options)
        switch anchor {
        case .start: return h.hasPrefix(n)
        case .end: return h.hasSuffix(n)
        case .anywhere: return h.firstRange(of: n) != nil
        }
    }

    /// `LIKE`: `*` matches any run of characters (newlines too), `?` exactly one, and a
    /// backslash makes the next character literal; everything else is literal.
    static func like(_ subject: String, _ pattern: String, _ options: ComparisonPredicate.Options) -> Bool {
        enum Element: Equatable { case any, one, literal(Character) }
        // Folding whole strings (not characters) keeps expansions right: "ﬁ" folds to "fi".
        let foldOptions: ComparisonPredicate.Options = options.contains(.normalized) ? [] : options
        var elements: [Element] = []
        var escaping = false
        for c in fold(pattern, foldOptions) {
            if escaping {
                elements.append(.literal(c))
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else if c == "*" {
                if elements.last != .any { elements.append(.any) }
            } else if c == "?" {
                elements.append(.one)
            } else {
                elements.append(.literal(c))
            }
        }
        if escaping { elements.append(.literal("\\")) }
        let text = Array(fold(subject, foldOptions))
        // Linear-time wildcard matching with one backtrack point (the last `*`).
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < elements.count {
                switch elements[p] {
                case .any:
                    starP = p
                    starT = t
                    p += 1
                    continue
                case .one:
                    t += 1
                    p += 1
                    continue
                case .literal(let c) where text[t] == c:
                    t += 1
                    p += 1
                    continue
                default:
                    break
                }
            }
            guard starP >= 0 else { return false }
            p = starP + 1
            starT += 1
            t = starT
        }
        while p < elements.count, elements[p] == .any { p += 1 }
        return p == elements.count
    }

    /// `MATCHES`: the whole string matches the ICU regular expression. `^` and `$` match at line
    /// breaks and `.` matches a newline, as in Foundation. `compiled` is the pattern compiled
    /// when the comparison was built (a constant pattern); others are compiled here.
    static func matches(
        _ subject: String, _ pattern: String, _ options: ComparisonPredicate.Options, compiled: CompiledPattern
    ) throws -> Bool {
        let regex = try compiled.regex(for: pattern, options) ?? RegexCache.shared.regex(pattern, options)
        return matches(subject, regex, options)
    }

    /// `MATCHES[options]` with its pattern compiled already (by ``compileRegex(_:_:)`` with the
    /// same options): `subject` is folded as the pattern was, then matched whole.
    static func matches(_ subject: String, _ regex: NSRegularExpression, _ options: ComparisonPredicate.Options) -> Bool {
        var subject = subject
        if !options.contains(.normalized), options.contains(.diacriticInsensitive) {
            subject = fold(subject, .diacriticInsensitive)
        }
        return matches(subject, whole: regex)
    }

    /// Whether `regex`, compiled by ``compileRegex(_:_:)``, matches the whole of `subject`: the
    /// match is anchored at the start, and the compiled form ends in `\z`, so that the engine
    /// tries every alternative until one reaches the end (`cat|category` matches "category";
    /// taking the first match and comparing its range would stop at "cat"). `MATCHES` and a
    /// model's regular expression rule (``PropertyRules``) both match this way.
    static func matches(_ subject: String, whole regex: NSRegularExpression) -> Bool {
        let range = NSRange(location: 0, length: (subject as NSString).length)
        return regex.firstMatch(in: subject, options: [.anchored], range: range) != nil
    }

    /// The whole-string form of `pattern` compiled with the options of `MATCHES[options]`; throws
    /// ``PredicateError/Kind/invalidRegularExpression(_:)`` naming the pattern when it is invalid.
    static func compileRegex(_ pattern: String, _ options: ComparisonPredicate.Options) throws -> NSRegularExpression {
        var regexOptions: NSRegularExpression.Options = [.anchorsMatchLines, .dotMatchesLineSeparators]
        var pattern = pattern
        if !options.contains(.normalized) {
            if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
            if options.contains(.diacriticInsensitive) { pattern = fold(pattern, .diacriticInsensitive) }
        }
        do {
            return try NSRegularExpression(pattern: "(?:" + pattern + ")\\z", options: regexOptions)
        } catch {
            throw PredicateError(.invalidRegularExpression(pattern),
                                 "the MATCHES pattern \(ConstantValue.quoted(pattern)) is not a valid regular expression")
        }
    }
}
