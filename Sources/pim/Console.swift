// Where pim writes: data to stdout, messages to stderr; whether each is a terminal (for colors
// and for asking before deleting).
import Foundation
import PIM

enum Console {
    /// Writes `text` and a line break to stdout. When stdout cannot be written (a full disk, a
    /// closed pipe), says so on stderr and ends the run with exit status 8, as the store's own
    /// write failures do: what a command saved before stays saved.
    static func print(_ text: String) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
        } catch let failure {
            Console.error("pim: cannot write to standard output: \(failure)")
            exit(PIMExitCode.storeFailure.rawValue)
        }
    }

    /// Writes `text` to stdout as it is (CRLF lines of a vCard stay so), ending the run with exit
    /// status 8 when it cannot be written.
    static func write(_ text: String) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch let failure {
            Console.error("pim: cannot write to standard output: \(failure)")
            exit(PIMExitCode.storeFailure.rawValue)
        }
    }

    static func error(_ text: String) {
        writeError(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// Writes `text` to stderr as it is (a question stays on its line).
    private static func writeError(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Asks `question` on stderr and reads a yes or no from stdin.
    static func confirm(_ question: String) -> Bool {
        writeError("\(question) [y/N] ")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
