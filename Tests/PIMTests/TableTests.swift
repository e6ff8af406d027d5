// Tables line up on a terminal: column widths count terminal columns, not characters or UTF-16
// units, and no cell is ever cut.
import XCTest
@testable import PIM

final class TableTests: XCTestCase {
    /// Where each line's second column (`marker` on the header, an email on the rows) starts,
    /// in terminal columns.
    private func secondColumnStarts(_ text: String) -> [Int] {
        text.split(separator: "\n").map { line in
            let start = line.range(of: "EMAIL")?.lowerBound ?? line.range(of: "x@example.org")!.lowerBound
            return String(line[..<start]).terminalWidth
        }
    }

    func testWideAndCombiningCharactersLineUpAndAreNeverCut() {
        var table = Table(headers: ["NAME", "EMAIL"])
        let names = ["Ann 😀", "Jose\u{301} Ruiz", "👨‍👩‍👧 Family", "王小明", "Ann Lee", "❤️ love"]
        for name in names { table.append([name, "x@example.org"]) }
        let text = table.render(colored: false)
        for name in names { XCTAssertTrue(text.contains(name + " "), "\(name) cut in:\n\(text)") }
        // The widest names ("Jose\u{301} Ruiz", "👨‍👩‍👧 Family") take 9 columns, then 2 of gap.
        XCTAssertEqual(Set(secondColumnStarts(text)), [11], text)
    }

    func testTerminalWidths() {
        XCTAssertEqual("abc".terminalWidth, 3)
        XCTAssertEqual("王小明".terminalWidth, 6)
        XCTAssertEqual("Jose\u{301}".terminalWidth, 4)
        XCTAssertEqual("😀".terminalWidth, 2)
        XCTAssertEqual("👨‍👩‍👧".terminalWidth, 2)
        XCTAssertEqual("❤️".terminalWidth, 2)
        XCTAssertEqual("ｶﾀｶﾅ".terminalWidth, 4)
        XCTAssertEqual("\u{200B}".terminalWidth, 0)
    }

    func testLineBreaksAndTabsInACellStayOnItsLine() {
        var table = Table(headers: ["TITLE", "STATUS"])
        table.append(["two\nlines\tand a tab", "pending"])
        XCTAssertEqual(table.render(colored: false), "TITLE                STATUS\ntwo lines and a tab  pending\n")
    }
}
