// Where pim writes: data to stdout, messages to stderr; whether each is a terminal (for colors
// and for asking before deleting).
import Foundation

enum Console {
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Asks `question` on stderr and reads a yes or no from stdin.
    static func confirm(_ question: String) -> Bool {
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
