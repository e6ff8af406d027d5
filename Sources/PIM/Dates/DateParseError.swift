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

    public init(input: String, offending: String, reason: String) {
        self.input = input
        self.offending = offending
        self.reason = reason
    }

    public var description: String {
        offending == input
            ? "date: cannot read \"\(input)\": \(reason)"
            : "date: cannot read \"\(offending)\" in \"\(input)\": \(reason)"
    }
}
