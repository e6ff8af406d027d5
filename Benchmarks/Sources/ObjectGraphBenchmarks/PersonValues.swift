// The values of person `i`, the same in every variant: name, email, age (i % 100, so that one
// age is 1% of the rows), creation date and score. Dates are stored as REAL seconds since 2001
// everywhere, Core Data's storage, so no variant pays for date formatting.
import Foundation

enum PersonValues {
    static func name(_ i: Int) -> String { "name\(i)" }
    static func email(_ i: Int) -> String { "user\(i)@example.com" }
    static func age(_ i: Int) -> Int32 { Int32(i % 100) }
    static func created(_ i: Int) -> Double { 700_000_000 + Double(i) }
    static func score(_ i: Int) -> Double { Double(i % 1_000) / 10 }

    /// The age W4 selects (1% of the rows).
    static let selectedAge: Int32 = 42
    /// W5 counts the rows whose score is above this (unindexed).
    static let countedScore = 50.0
}

/// What a workload read, so that the optimizer cannot drop the reads; checked equal across variants.
struct Checksum {
    private(set) var value = 0

    mutating func add(_ integer: Int) { value &+= integer }
    mutating func add(_ string: String) { value &+= string.utf8.count }
    mutating func add(_ double: Double) { value &+= Int(double) }

    /// Adds a person's five attributes (what "read every attribute" means in every variant).
    mutating func addPerson(age: Int32, created: Double, email: String, name: String, score: Double) {
        add(Int(age))
        add(created)
        add(email)
        add(name)
        add(score)
    }
}
