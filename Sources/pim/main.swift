// The `pim` command's entry point: parse, run, and turn every failure into its message on stderr
// and its documented exit code (PIMExitCode; usage errors are 2, not ArgumentParser's 64).
import ArgumentParser
import Foundation
import PIM

do {
    var command = try PIMCommand.parseAsRoot()
    try command.run()
} catch let error as PIMError {
    Console.error("pim: \(error)")
    exit(error.exitCode.rawValue)
} catch {
    let code = PIMCommand.exitCode(for: error)
    let message = PIMCommand.fullMessage(for: error)
    if code == .success {
        Console.print(message)
        exit(0)
    }
    if !message.isEmpty { Console.error(message) }
    exit(code == .validationFailure ? PIMExitCode.usage.rawValue : code.rawValue)
}
