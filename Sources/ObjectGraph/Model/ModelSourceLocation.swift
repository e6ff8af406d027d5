// Where a part of a model was read from: the file and line of its element, so that every
// validation problem names the place a person has to edit.

/// The file and line of a model element read from a model file.
public struct ModelSourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The path of the file (the `contents` file of an `.xcdatamodel`).
    public var file: String
    /// The 1-based line of the element's start tag.
    public var line: Int
    /// The 1-based column, when known (libxml2 reports it for syntax errors).
    public var column: Int?

    public init(file: String, line: Int, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `path:line` or `path:line:column`.
    public var description: String {
        if let column { return "\(file):\(line):\(column)" }
        return "\(file):\(line)"
    }
}
