// The one error type of the predicate engine: syntax errors found while parsing a format string
// (with the character offset and a caret excerpt), unbound variables, and evaluation errors.

/// An error raised while parsing, substituting or evaluating a predicate or an expression.
///
/// A syntax error names the character where parsing failed and, in `description`, shows the
/// format with a caret under that character:
///
/// ```text
/// predicate: expected an expression after "==" at character 6
///   age == 
///          ^
/// ```
public struct PredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The format string is not valid syntax.
        case syntax
        /// A format argument (`%@`, `%K`, `%d`...) is missing or of the wrong type.
        case argument
        /// A variable (`$NAME`) has no value in the bindings given.
        case unboundVariable(String)
        /// Evaluation failed: a type mismatch, an unknown method, a bad function argument.
        case evaluation
        /// The pattern of a MATCHES comparison is not a valid regular expression. Raised when a
        /// value reaches the comparison, and before a fetch runs: a store checks its predicate's
        /// constant patterns first, so a bad one fails every fetch alike.
        case invalidRegularExpression(String)
    }

    /// What went wrong.
    public let kind: Kind
    /// A one-line message without the `predicate:` prefix or the position.
    public let message: String
    /// The format string being parsed, when the error comes from parsing.
    public let format: String?
    /// The zero-based character offset in `format` of the offending character.
    public let offset: Int?

    /// Creates an error; `format` and `offset` locate syntax errors.
    public init(_ kind: Kind, _ message: String, format: String? = nil, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.format = format
        self.offset = offset
    }

    /// The message, the position and, for parse errors, the format with a caret line under the
    /// offending character.
    public var description: String {
        guard let format, let offset else { return "predicate: \(message)" }
        let lineFormat = format.replacingTabsAndNewlines()
        let caret = String(repeating: " ", count: max(0, min(offset, lineFormat.count))) + "^"
        return "predicate: \(message) at character \(offset)\n  \(lineFormat)\n  \(caret)"
    }
}

extension String {
    /// The string with tabs and line breaks shown as spaces, so a caret line stays aligned.
    fileprivate func replacingTabsAndNewlines() -> String {
        String(map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }
}
