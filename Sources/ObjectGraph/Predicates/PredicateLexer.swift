// Splits a predicate format string into tokens, each with the character offset it starts at,
// so the parser can point a caret at the offending character. Quoted strings are unescaped
// here; format specifiers (`%@`, `%K`, `%d`...) stay tokens for the parser to fill in.

/// One token of a format string.
struct PredicateToken: Sendable, Equatable {
    /// What the token is.
    enum Kind: Sendable, Equatable {
        /// A name: `age`, `BEGINSWITH`, `@count`, or a selector ending in a colon (`sum:`,
        /// `modulus:by:`, `isKindOfClass:`). `escaped` is true for `#word`.
        case identifier(String, escaped: Bool)
        /// `$NAME`.
        case variable(String)
        /// A quoted string, unescaped.
        case string(String)
        /// An integer literal.
        case integer(Int64)
        /// A floating-point literal (or an integer too large for Int64).
        case double(Double)
        /// A format specifier: `@`, `K`, `d`, `f`... (the conversion character).
        case format(Character)
        /// `%%`.
        case percent
        /// Punctuation and operators: `(`, `==`, `&&`, `**`...
        case symbol(String)
        /// The end of the format.
        case end
    }

    let kind: Kind
    /// The character offset where the token starts.
    let offset: Int
    /// The text of the token as written.
    let text: String
}

/// The lexer: the whole format in, tokens out, or a syntax error at a character.
struct PredicateLexer {
    private let characters: [Character]
    private let format: String
    private var position = 0

    init(_ format: String) {
        self.format = format
        characters = Array(format)
    }

    /// Symbols, longest first so `<=` wins over `<`.
    private static let symbols = [
        "**", "==", "!=", "<>", "<=", "=<", ">=", "=>", "<<", ">>", "&&", "||", ":=",
        "(", ")", "{", "}", "[", "]", ",", ".", "+", "-", "*", "/", "<", ">", "=", "!", "&", "|",
        "^", "~",
    ]

    /// Printf length modifiers accepted (and ignored) before a conversion.
    private static let lengthModifiers: Set<Character> = ["h", "l", "q", "L", "z", "j", "t"]
    /// Conversions accepted after `%`.
    private static let conversions: Set<Character> = [
        "@", "K", "d", "D", "i", "u", "U", "f", "F", "e", "E", "g", "G", "x", "X", "o", "O", "c", "C",
    ]

    mutating func tokenize() throws(PredicateError) -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            skipWhitespace()
            guard position < characters.count else {
                tokens.append(PredicateToken(kind: .end, offset: characters.count, text: ""))
                return tokens
            }
            tokens.append(try nextToken())
        }
    }

    private func error(_ message: String, at offset: Int) -> PredicateError {
        PredicateError(.syntax, message, format: format, offset: offset)
    }

    private mutating func skipWhitespace() {
        while position < characters.count, characters[position].isWhitespace { position += 1 }
    }

    private func peek(_ ahead: Int = 0) -> Character? {
        let index = position + ahead
        return index < characters.count ? characters[index] : nil
    }

    private static func isIdentifierStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
    private static func isIdentifierPart(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "_"
    }

    private mutating func nextToken() throws(PredicateError) -> PredicateToken {
        let start = position
        let c = characters[position]
        func token(_ kind: PredicateToken.Kind) -> PredicateToken {
            PredicateToken(kind: kind, offset: start, text: String(characters[start..<position]))
        }
        if c == "\"" || c == "'" { return token(.string(try readString(quote: c))) }
        if c.isASCII, c.isNumber { return token(try readNumber()) }
        if c == "." , let next = peek(1), next.isASCII, next.isNumber { return token(try readNumber()) }
        if c == "$" {
            position += 1
            let name = readName()
            guard !name.isEmpty else { throw error("expected a variable name after \"$\"", at: start) }
            return token(.variable(name))
        }
        if c == "#" {
            position += 1
            let name = readName()
            guard !name.isEmpty else { throw error("expected a name after \"#\"", at: start) }
            return token(.identifier(name, escaped: true))
        }
        if c == "@" {
            position += 1
            let name = readName()
            guard !name.isEmpty else { throw error("expected a collection operator after \"@\"", at: start) }
            return token(.identifier("@" + name, escaped: false))
        }
        if c == "%" { return try readFormatSpecifier() }
        if Self.isIdentifierStart(c) || c == "\\" { return token(.identifier(try readSelectorOrName(), escaped: false)) }
        for symbol in Self.symbols where matches(symbol) {
            position += symbol.count
            return token(.symbol(symbol))
        }
        throw error("unexpected character \"\(c)\"", at: start)
    }

    private func matches(_ symbol: String) -> Bool {
        var index = position
        for s in symbol {
            guard index < characters.count, characters[index] == s else { return false }
            index += 1
        }
        return true
    }

    /// Letters, digits and underscores (and `\uXXXX`-style escapes).
    private mutating func readName() -> String {
        var name = ""
        while let c = peek() {
            if Self.isIdentifierPart(c) {
                name.append(c)
                position += 1
            } else if c == "\\", let escaped = readIdentifierEscape() {
                name.append(escaped)
            } else {
                break
            }
        }
        return name
    }

    /// `\ddd`, `\xHH`, `\uHHHH` inside an identifier; nil (position unchanged) otherwise.
    private mutating func readIdentifierEscape() -> Character? {
        let saved = position
        position += 1
        guard let kind = peek() else { position = saved; return nil }
        var digits = ""
        let radix: Int
        let count: Int
        switch kind {
        case "x", "X": radix = 16; count = 2; position += 1
        case "u", "U": radix = 16; count = 4; position += 1
        case "0"..."7": radix = 8; count = 3
        default: position = saved; return nil
        }
        while digits.count < count, let d = peek(), d.isHexDigit { digits.append(d); position += 1 }
        guard digits.count == count, let value = UInt32(digits, radix: radix),
            let scalar = Unicode.Scalar(value)
        else { position = saved; return nil }
        return Character(scalar)
    }


    /// After a high surrogate escape: a following `\uDCxx`..`\uDFFF` escape (consumed), its value.
    private mutating func trailingSurrogate() -> UInt32? {
        let saved = position
        guard peek() == "\\" else { return nil }
        position += 1
        guard let u = peek(), u == "u" || u == "U" else { position = saved; return nil }
        position += 1
        var digits = ""
        while digits.count < 4, let d = peek(), d.isHexDigit { digits.append(d); position += 1 }
        guard digits.count == 4, let low = UInt32(digits, radix: 16), (0xDC00...0xDFFF).contains(low) else {
            position = saved
            return nil
        }
        return low
    }

    /// A name, extended to a selector when colons follow: `sum:`, `modulus:by:`.
    private mutating func readSelectorOrName() throws(PredicateError) -> String {
        let start = position
        var name = readName()
        guard !name.isEmpty else { throw error("unexpected character \"\\\"", at: start) }
        while peek() == ":", peek(1) != "=" {
            name.append(":")
            position += 1
            let save = position
            let part = readName()
            if !part.isEmpty, peek() == ":" {
                name += part
            } else {
                position = save
                break
            }
        }
        return name
    }

    private mutating func readString(quote: Character) throws(PredicateError) -> String {
        let start = position
        position += 1
        var value = ""
        while let c = peek() {
            position += 1
            if c == quote { return value }
            if c == "\\" {
                guard let e = peek() else { break }
                position += 1
                switch e {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "0"..."7":
                    // Octal, up to three digits (`\101` is A), as in identifiers.
                    var digits = String(e)
                    while digits.count < 3, let d = peek(), ("0"..."7").contains(d) { digits.append(d); position += 1 }
                    if let v = UInt32(digits, radix: 8), let s = Unicode.Scalar(v) {
                        value.append(Character(s))
                    } else {
                        value.append("\\"); value += digits
                    }
                case "\\", "'", "\"": value.append(e)
                case "u", "U", "x", "X":
                    let count = e == "u" || e == "U" ? 4 : 2
                    var digits = ""
                    while digits.count < count, let d = peek(), d.isHexDigit { digits.append(d); position += 1 }
                    var scalarValue = digits.count == count ? UInt32(digits, radix: 16) : nil
                    // A UTF-16 surrogate pair written as two escapes (`\ud83d\ude00`) is one character.
                    if let high = scalarValue, count == 4, (0xD800...0xDBFF).contains(high),
                       let low = trailingSurrogate() {
                        scalarValue = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    }
                    if let v = scalarValue, let s = Unicode.Scalar(v) {
                        value.append(Character(s))
                    } else {
                        value.append("\\"); value.append(e); value += digits
                    }
                default:
                    value.append("\\")
                    value.append(e)
                }
            } else {
                value.append(c)
            }
        }
        throw error("unterminated string starting", at: start)
    }

    private mutating func readNumber() throws(PredicateError) -> PredicateToken.Kind {
        let start = position
        if peek() == "0", let p = peek(1), "xXoObB".contains(p) {
            position += 2
            let radix = p == "x" || p == "X" ? 16 : (p == "o" || p == "O" ? 8 : 2)
            var digits = ""
            while let d = peek(), d.isHexDigit, Int(String(d), radix: radix) != nil {
                digits.append(d)
                position += 1
            }
            guard !digits.isEmpty else { throw error("expected digits after \"0\(p)\"", at: start) }
            if let value = Int64(digits, radix: radix) { return .integer(value) }
            if let value = UInt64(digits, radix: radix) { return .integer(Int64(bitPattern: value)) }
            throw error("number too large", at: start)
        }
        var text = ""
        var isInteger = true
        while let d = peek(), d.isASCII, d.isNumber { text.append(d); position += 1 }
        if peek() == ".", let next = peek(1), next.isASCII, next.isNumber {
            isInteger = false
            text.append(".")
            position += 1
            while let d = peek(), d.isASCII, d.isNumber { text.append(d); position += 1 }
        }
        if let e = peek(), e == "e" || e == "E" {
            var ahead = 1
            if let sign = peek(1), sign == "+" || sign == "-" { ahead = 2 }
            if let d = peek(ahead), d.isASCII, d.isNumber {
                isInteger = false
                text.append("e")
                if ahead == 2, let sign = peek(1) { text.append(sign) }
                position += ahead
                while let d = peek(), d.isASCII, d.isNumber { text.append(d); position += 1 }
            }
        }
        if let c = peek(), Self.isIdentifierStart(c) {
            throw error("unexpected \"\(c)\" after a number", at: position)
        }
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text) else { throw error("invalid number", at: start) }
        return .double(value)
    }

    private mutating func readFormatSpecifier() throws(PredicateError) -> PredicateToken {
        let start = position
        position += 1
        if peek() == "%" {
            position += 1
            return PredicateToken(kind: .percent, offset: start, text: "%%")
        }
        while let c = peek(), Self.lengthModifiers.contains(c) { position += 1 }
        guard let conversion = peek(), Self.conversions.contains(conversion) else {
            throw error("invalid format specifier", at: start)
        }
        position += 1
        return PredicateToken(
            kind: .format(conversion), offset: start, text: String(characters[start..<position]))
    }
}
