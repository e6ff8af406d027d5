// Terminal styling: whether to color (`--color auto|always|never`, auto meaning a terminal and no
// NO_COLOR, as no-color.org asks) and the few SGR sequences tables use.

/// When to color output.
public enum ColorMode: String, Sendable, CaseIterable {
    case auto, always, never

    /// Whether to color output going to a terminal (or not), with `environment`.
    public func isEnabled(isTerminal: Bool, environment: [String: String]) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
    }
}

/// How a table cell or line is emphasized.
public enum Emphasis: Sendable {
    case plain, header, alert, muted, active

    var code: String {
        switch self {
        case .plain: ""
        case .header: "\u{1B}[1;4m"
        case .alert: "\u{1B}[31m"
        case .muted: "\u{1B}[2m"
        case .active: "\u{1B}[32m"
        }
    }

    /// `text` in this emphasis, when coloring.
    public func apply(_ text: String, colored: Bool) -> String {
        colored && self != .plain ? code + text + "\u{1B}[0m" : text
    }
}
