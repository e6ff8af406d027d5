// What a benchmark workload is: an ID, what it measures, its target, and one runner per variant
// (ObjectGraph, raw SQLite issuing the store's SQL, GRDB's Record class, GRDB's fastest struct
// form). The harness (Harness.swift) times runners; the workloads live in Workloads+*.swift.
import Foundation

/// The ways every workload runs, in the order the table shows them.
enum Variant: String, CaseIterable, Sendable {
    case objectgraph
    case raw
    case grdbRecord = "grdb-record"
    case grdbStruct = "grdb-struct"
}

/// How many rows the workloads use: the full run's, or `--quick`'s tenth.
struct Scale: Sendable {
    /// Rows of W1–W7 (100,000; quick 10,000).
    var rows: Int
    /// Objects W8 reads by ID (10,000; quick 1,000).
    var lookups: Int
    /// Departments of W9, each with `employeesPerDepartment` employees (1,000; quick 100).
    var departments: Int
    var employeesPerDepartment = 100
    /// One-object saves of W10 (1,000; quick 100).
    var saves: Int
    /// Rows W11 iterates (1,000,000; quick 100,000).
    var iteratedRows: Int

    static let full = Scale(rows: 100_000, lookups: 10_000, departments: 1_000, saves: 1_000, iteratedRows: 1_000_000)
    static let quick = Scale(rows: 10_000, lookups: 1_000, departments: 100, saves: 100, iteratedRows: 100_000)

    /// The counts, for the run's header.
    var summary: String {
        "N = \(rows) (W1–W7), W8 \(lookups) lookups, W9 \(departments) × \(employeesPerDepartment), "
            + "W10 \(saves) saves, W11 \(iteratedRows) rows"
    }

    var json: [String: Int] {
        ["rows": rows, "lookups": lookups, "departments": departments, "employees_per_department": employeesPerDepartment,
         "saves": saves, "iterated_rows": iteratedRows]
    }

    /// This scale with W1–W7's row count (and the others in proportion) set to `rows`.
    func withRows(_ rows: Int) -> Scale {
        let factor = Double(rows) / Double(self.rows)
        func scaled(_ value: Int) -> Int { max(1, Int(Double(value) * factor)) }
        return Scale(rows: rows, lookups: min(rows, scaled(lookups)), departments: scaled(departments),
                     saves: min(rows, scaled(saves)), iteratedRows: scaled(iteratedRows))
    }
}

/// One variant of one workload: how its database is made (untimed) and what one repetition runs.
struct Runner {
    /// Creates and fills the database file at the given path.
    var setUp: (URL) throws -> Void
    /// Opens the database and returns the timed body of one repetition (opening is not timed);
    /// the body returns a checksum of what it read or wrote, equal across variants.
    var prepare: (URL) throws -> () throws -> Int
}

/// A benchmark workload.
struct Workload: Sendable {
    /// `W1`...`W11`, `W7b`.
    var id: String
    /// What it does, for the table.
    var summary: String
    /// The highest ratio to raw SQLite the issue accepts (nil: none).
    var target: Double?
    /// The highest peak RSS in MB the issue accepts for the ObjectGraph variant (nil: none).
    var memoryTarget: Double?
    /// Whether each repetition starts from a fresh database (write workloads).
    var writes: Bool
    /// The runner of each variant.
    var runner: @Sendable (Variant, Scale) -> Runner

    init(id: String, summary: String, target: Double?, memoryTarget: Double? = nil, writes: Bool,
         runner: @escaping @Sendable (Variant, Scale) -> Runner) {
        self.id = id
        self.summary = summary
        self.target = target
        self.memoryTarget = memoryTarget
        self.writes = writes
        self.runner = runner
    }
}
