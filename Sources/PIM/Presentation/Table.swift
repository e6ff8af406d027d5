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

    /// The table's lines, colored or not. Columns line up on a terminal: widths count the
    /// columns text takes there (a CJK character or an emoji takes two, an accent typed as a
    /// combining mark none), and line breaks and tabs in a cell show as spaces.
    public func render(colored: Bool) -> String {
        let header = headers.map(\.singleLine)
        let body = rows.map { (cells: $0.cells.map(\.singleLine), emphasis: $0.emphasis) }
        let widths = header.indices.map { column in
            body.reduce(header[column].terminalWidth) { max($0, $1.cells[column].terminalWidth) }
        }
        func line(_ cells: [String]) -> String {
            cells.indices.map { column in
                column == cells.count - 1 ? cells[column] : cells[column].padded(toWidth: widths[column])
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
        var lines = [Emphasis.header.apply(line(header), colored: colored)]
        lines += body.map { $0.emphasis.apply(line($0.cells), colored: colored) }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }

    /// The text with each line break or tab as one space (a table cell stays on its line).
    var singleLine: String {
        guard contains(where: { $0.isNewline || $0 == "\t" }) else { return self }
        return String(map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }

    /// How many columns the text takes on a terminal: two for a wide character (East Asian wide
    /// and fullwidth forms, emoji shown as pictures), none for a character of only combining or
    /// invisible marks, one for any other.
    var terminalWidth: Int {
        reduce(0) { $0 + $1.terminalWidth }
    }

    /// The text followed by spaces up to `width` terminal columns (never cut).
    func padded(toWidth width: Int) -> String {
        let missing = width - terminalWidth
        return missing > 0 ? self + String(repeating: " ", count: missing) : self
    }
}

extension Character {
    /// The terminal columns the character takes (see ``Swift/String/terminalWidth``).
    var terminalWidth: Int {
        let scalars = unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.isASCII { return first.value < 0x20 || first.value == 0x7F ? 0 : 1 }
        if scalars.contains("\u{FE0F}") || first.properties.isEmojiPresentation || first.isWide { return 2 }
        // A cluster of only marks and invisible format characters shows nothing of its own.
        let visible = scalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format, .control: false
            default: true
            }
        }
        return visible ? 1 : 0
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is East Asian wide or fullwidth (Unicode's EastAsianWidth W and F):
    /// Hangul, CJK ideographs, kana, fullwidth forms and the like, as terminals draw them.
    var isWide: Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF, 0x1F200...0x1F2FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}
