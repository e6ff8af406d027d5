// Aligned text tables for terminals: a header line, then one line per row, each column as wide
// as its widest cell; the last column is not padded. Emphasis colors whole rows when enabled.

/// A table of text cells.
public struct Table {
    public var headers: [String]
    public var rows: [(cells: [String], emphasis: Emphasis)] = []

    public init(headers: [String]) { self.headers = headers }

    public mutating func append(_ cells: [String], emphasis: Emphasis = .plain) {
        rows.append((cells, emphasis))
    }

    /// The table's lines, colored or not.
    public func render(colored: Bool) -> String {
        let widths = headers.indices.map { column in
            rows.reduce(headers[column].count) { max($0, $1.cells[column].count) }
        }
        func line(_ cells: [String]) -> String {
            cells.indices.map { column in
                column == cells.count - 1 ? cells[column] : cells[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
        var lines = [Emphasis.header.apply(line(headers), colored: colored)]
        lines += rows.map { $0.emphasis.apply(line($0.cells), colored: colored) }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
