// Where a persistent container puts its stores by default: the XDG base directory rules, with
// the home folder taken from $HOME.
import Foundation
import XCTest
@testable import ObjectGraph

final class PersistentContainerTests: XCTestCase {
    /// Sets `name` to `value` (nil: unset) for the duration of `body`, then restores it.
    private func with(_ name: String, _ value: String?, _ body: () throws -> Void) rethrows {
        let saved = ProcessInfo.processInfo.environment[name]
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
        defer { if let saved { setenv(name, saved, 1) } else { unsetenv(name) } }
        try body()
    }

    func testDefaultDirectoryFollowsXDGDataHomeThenHOME() {
        with("HOME", "/tmp/some-home") {
            with("XDG_DATA_HOME", nil) {
                XCTAssertEqual(PersistentContainer.defaultDirectoryURL().path, "/tmp/some-home/.local/share")
            }
            // An empty or relative XDG_DATA_HOME is ignored, as the XDG rules say.
            with("XDG_DATA_HOME", "") {
                XCTAssertEqual(PersistentContainer.defaultDirectoryURL().path, "/tmp/some-home/.local/share")
            }
            with("XDG_DATA_HOME", "relative/data") {
                XCTAssertEqual(PersistentContainer.defaultDirectoryURL().path, "/tmp/some-home/.local/share")
            }
            with("XDG_DATA_HOME", "/tmp/xdg-data") {
                XCTAssertEqual(PersistentContainer.defaultDirectoryURL().path, "/tmp/xdg-data")
            }
        }
    }
}
