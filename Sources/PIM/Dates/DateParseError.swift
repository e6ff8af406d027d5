// The error of the date and duration readers: which text could not be read, and why, so that a
// command can say `date: cannot read "fri 25" in "fri 25 9am": ...` and exit with a usage error.

/// Text that is not a date, a time or a duration pim understands.
public struct DateParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The whole text given.
    public let input: String
    /// The part of it that could not be read (the whole text when no part is to blame).
    public let offending: String
    /// Why, in a few words.
    public let reason: String
    /// What the text was read as: `date` or `duration`.
    public let kind: String

    public init(input: String, offending: String, reason: String, kind: String = "date") {
        self.input = input
        self.offending = offending
        self.reason = reason
        self.kind = kind
    }

    public var description: String {
        offending == input
            ? "\(kind): cannot read \"\(input)\": \(reason)"
            : "\(kind): cannot read \"\(offending)\" in \"\(input)\": \(reason)"
    }
}
