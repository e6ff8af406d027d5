// The options every pim command takes: where the store is, JSON output, and coloring.
import ArgumentParser
import PIM

extension ColorMode: ExpressibleByArgument {}

struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file (default: $PIM_STORE, else $XDG_DATA_HOME/pim/pim.sqlite).", valueName: "path"))
    var store: String?

    @Flag(name: .long, help: "Print JSON: an array for lists, an object for one record; `id` is the UUID.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Color output: auto (a terminal without NO_COLOR), always or never.", valueName: "when"))
    var color: ColorMode = .auto

    /// Refuses an empty `--store` (exit 2): `--store "$UNSET"` would otherwise mean the default
    /// store, the user's own.
    func validate() throws {
        if let store, store.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--store: expected a path to the store file")
        }
    }
}

/// The options of every `list`: a predicate, sort keys, a limit and the columns.
struct ListOptions: ParsableArguments {
    @Option(name: .customLong("where"), help: ArgumentHelp("Only records matching a predicate, e.g. 'priority == 1 AND due < $NOW + 86400' ($NOW, $TODAY, $TOMORROW are bound; arithmetic works on numbers and dates).", valueName: "predicate"))
    var predicate: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Sort keys, comma-separated; -key sorts descending (-priority: H first).", valueName: "keys"))
    var sort: String?

    @Option(name: .long, parsing: .unconditional, help: "Print at most this many records (1 or more).")
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Columns (and JSON keys), comma-separated.", valueName: "fields"))
    var fields: String?

    /// Refuses a limit below one and a field list naming no field (exit 2).
    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit \(limit): expected a number of records, 1 or more") }
        if let fields, Self.list(fields).isEmpty { throw ValidationError("--fields: expected field names, comma-separated") }
    }

    /// The query of these options for `kind`.
    func query(_ kind: RecordKind) -> RecordQuery {
        var query = RecordQuery(kind: kind)
        query.whereClause = predicate
        query.sort = Self.list(sort)
        query.limit = limit
        return query
    }

    /// The chosen fields, or nil for the defaults.
    var fieldNames: [String]? { fields.map { Self.list($0) } }

    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// The options of every `export`: the records (all, or those matching a predicate, when none
/// is named) and where the text goes.
struct ExportOptions: ParsableArguments {
    @Argument(help: "The records: numbers, UUIDs (prefixes) or names (default: all, or those --where selects).")
    var ids: [String] = []

    @Option(name: .customLong("where"), help: ArgumentHelp("Only records matching a predicate (without ids).", valueName: "predicate"))
    var predicate: String?

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file (default: standard output).", valueName: "file"))
    var output: String?

    func validate() throws {
        if predicate != nil, !ids.isEmpty { throw ValidationError("--where selects records: give it or record ids, not both") }
    }
}
