// Where pim's store lives: `--store PATH`, else `$PIM_STORE`, else
// `$XDG_DATA_HOME/pim/pim.sqlite`, else `~/.local/share/pim/pim.sqlite`. The folder is made on
// first use, without a prompt. Its record files go in `records` beside it, or `$PIM_RECORDS`.
import Foundation

/// The rules that locate the store file.
public enum StoreLocation {
    /// The store file for an explicit `--store` path and an environment.
    public static func url(option: String?, environment: [String: String], home: URL) -> URL {
        if let option, !option.isEmpty { return URL(fileURLWithPath: expandingTilde(option, home: home)) }
        if let path = environment["PIM_STORE"], !path.isEmpty { return URL(fileURLWithPath: expandingTilde(path, home: home)) }
        let data: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            data = home.appendingPathComponent(".local/share", isDirectory: true)
        }
        return data.appendingPathComponent("pim/pim.sqlite")
    }

    /// The folder of the record files kept for desktop search (`pim records`): `$PIM_RECORDS`
    /// when it is a path, none when it is `off`, else `records` beside the store file
    /// (`$XDG_DATA_HOME/pim/records` for the default store).
    public static func recordsURL(storeURL: URL, environment: [String: String], home: URL) -> URL? {
        if let path = environment["PIM_RECORDS"], !path.isEmpty {
            if path == "off" { return nil }
            let expanded = expandingTilde(path, home: home)
            return URL(fileURLWithPath: expanded, isDirectory: true, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).absoluteURL
        }
        return storeURL.deletingLastPathComponent().appendingPathComponent("records", isDirectory: true)
    }

    /// The user's home folder: `$HOME` when it is set to an absolute path (as the XDG base
    /// directory rules and every shell read it), else the account's home folder.
    public static func home(environment: [String: String]) -> URL {
        if let home = environment["HOME"], home.hasPrefix("/") { return URL(fileURLWithPath: home, isDirectory: true) }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    /// `~/x` as a path in `home`.
    static func expandingTilde(_ path: String, home: URL) -> String {
        path == "~" ? home.path : path.hasPrefix("~/") ? home.appendingPathComponent(String(path.dropFirst(2))).path : path
    }
}
