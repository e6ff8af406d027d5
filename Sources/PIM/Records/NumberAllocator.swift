// Short record numbers: each new record of a kind gets the smallest positive number no other
// record of that kind holds. A number stays with its record until the record is deleted, and only
// then can be given again; a restored record whose number was taken meanwhile gets a new one.
import Foundation
import ObjectGraph

/// Gives the inserted records of a context their short numbers.
struct NumberAllocator {
    let context: ManagedObjectContext

    /// Up to this many new records of a kind ask the number index for each gap (a few counts
    /// each); more read every saved number once.
    static let recordsAskingTheIndex = 16

    func assignNumbers() throws {
        let inserted = context.insertedObjects.filter { RecordKind(entity: $0.entity) != nil }
        guard !inserted.isEmpty else { return }
        for kind in RecordKind.allCases {
            let records = inserted.filter { RecordKind(entity: $0.entity) == kind }
                .sorted { first, second in
                    // Records made by one command share its instant: they are numbered in the
                    // order they were made (their temporary IDs').
                    let a = first.value(forKey: "created") as? Date ?? .distantPast, b = second.value(forKey: "created") as? Date ?? .distantPast
                    return a != b ? a < b : first.objectID < second.objectID
                }
            guard !records.isEmpty else { continue }
            let deleting = Array(context.deletedObjects.filter { RecordKind(entity: $0.entity) == kind })
            var free = try freeNumbers(of: kind, deleting: deleting, forRecords: records.count)
            for record in records {
                let number = (record.value(forKey: "number") as? Int64) ?? 0
                if number > 0, try free.take(number) { continue }
                record.setValue(try free.takeSmallest(), forKey: "number")
            }
        }
    }

    /// The numbers of `kind` free for `count` new records, asked of the store in the cheapest
    /// way that answers: a count and a maximum when the saved records hold 1 through n with none
    /// being deleted; the number index, gap by gap, for a few records; every saved number otherwise.
    func freeNumbers(of kind: RecordKind, deleting: [ManagedObject], forRecords count: Int) throws -> FreeNumbers {
        let index = try NumberIndex(context: context, kind: kind)
        if deleting.isEmpty, index.gaps == 0 { return FreeNumbers(taken: TakenNumbers(through: index.highest)) }
        if count <= Self.recordsAskingTheIndex {
            let freed = deleting.compactMap { Self.number(of: $0) }
            return FreeNumbers(index: index, freed: freed)
        }
        let deleted = Set(deleting.compactMap { $0.value(forKey: "uuid") as? UUID })
        return FreeNumbers(taken: TakenNumbers(others: try storedNumbers(of: kind, excluding: deleted)))
    }

    /// The number a record was saved with.
    static func number(of record: ManagedObject) -> Int64? {
        int64(record.committedValues(forKeys: ["number"])["number"] ?? record.value(forKey: "number"))
    }

    /// A number as the store hands it back (an Int64 attribute, or an aggregate's Int).
    static func int64(_ value: Any?) -> Int64? {
        (value as? Int64) ?? (value as? Int).map(Int64.init)
    }

    /// The numbers saved records of `kind` hold, except those being deleted.
    func storedNumbers(of kind: RecordKind, excluding deleted: Set<UUID>) throws -> Set<Int64> {
        var request = FetchRequest<[String: Any]>(entityName: kind.entityName)
        request.propertiesToFetch = [.property("number"), .property("uuid")]
        request.includesPendingChanges = false
        var numbers: Set<Int64> = []
        for row in try context.fetch(request) {
            guard let uuid = row["uuid"] as? UUID, !deleted.contains(uuid) else { continue }
            if let number = Self.int64(row["number"]) { numbers.insert(number) }
        }
        return numbers
    }
}

/// The numbers saved records of one kind hold, asked of the store's number index: how many there
/// are and the highest, whether one is held, and the j-th number none holds. Numbers are unique
/// and positive, so the numbers free up to m are m less the records holding 1 through m.
struct NumberIndex {
    let context: ManagedObjectContext
    let kind: RecordKind
    /// The highest number held (0 for none).
    let highest: Int64
    /// How many numbers up to ``highest`` no saved record holds.
    let gaps: Int64

    init(context: ManagedObjectContext, kind: RecordKind) throws {
        self.context = context
        self.kind = kind
        var request = FetchRequest<[String: Any]>(entityName: kind.entityName)
        request.propertiesToFetch = [
            .expression(ExpressionDescription(name: "highest", expression: .function("max:", [.keyPath("number")]), resultType: .integer64)),
            .expression(ExpressionDescription(name: "holders", expression: .function("count:", [.keyPath("number")]), resultType: .integer64)),
        ]
        request.includesPendingChanges = false
        let row = try context.fetch(request).first ?? [:]
        highest = NumberAllocator.int64(row["highest"]) ?? 0
        gaps = highest - (NumberAllocator.int64(row["holders"]) ?? 0)
    }

    /// How many saved records of the kind match `format`.
    private func count(_ format: String, _ arguments: Any...) throws -> Int {
        var request = FetchRequest<Int>(entityName: kind.entityName)
        request.predicate = try ObjectGraph.Predicate(format: format, argumentArray: arguments)
        request.includesPendingChanges = false
        return try context.count(for: request)
    }

    func isHeld(_ number: Int64) throws -> Bool {
        guard number >= 1, number <= highest else { return false }
        return try count("number == %@", number) > 0
    }

    /// The `rank`-th smallest positive number no saved record holds (`rank` from 1): past
    /// ``highest`` by arithmetic, below it by a binary search on counts of the index.
    func gap(_ rank: Int64) throws -> Int64 {
        if rank > gaps { return highest + (rank - gaps) }
        var (low, high) = (Int64(1), highest)
        while low < high {
            let middle = low + (high - low) / 2
            let holders = Int64(try count("number >= 1 AND number <= %@", middle))
            if middle - holders >= rank { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// The numbers of one kind still free while a save gives them out: from the taken numbers read
/// at once, or from the number index and the numbers of records being deleted (held in the store,
/// free after the save).
struct FreeNumbers {
    private var taken: TakenNumbers?
    private var index: NumberIndex?
    /// Numbers of records being deleted, ascending.
    private var freed: [Int64] = []
    private var given: Set<Int64> = []
    private var nextGap: Int64 = 1
    /// The gap of rank ``nextGap``, once looked up.
    private var gapAhead: Int64?
    private var nextFreed = 0

    init(taken: TakenNumbers) { self.taken = taken }

    init(index: NumberIndex, freed: [Int64]) {
        self.index = index
        self.freed = Array(Set(freed)).sorted()
    }

    /// Takes `number` for a record that brings it (a restored one) if it is free; false if not.
    mutating func take(_ number: Int64) throws -> Bool {
        if var taken {
            defer { self.taken = taken }
            guard !taken.contains(number) else { return false }
            taken.insert(number)
            return true
        }
        guard !given.contains(number) else { return false }
        if let index, try index.isHeld(number), freed.firstIndex(of: number) == nil { return false }
        given.insert(number)
        return true
    }

    /// Takes the smallest number free.
    mutating func takeSmallest() throws -> Int64 {
        if var taken {
            let number = taken.smallestFree()
            taken.insert(number)
            self.taken = taken
            return number
        }
        guard let index else { preconditionFailure("free numbers from neither taken numbers nor an index") }
        while true {
            let gap = try gapAhead ?? index.gap(nextGap)
            gapAhead = gap
            let number: Int64
            if nextFreed < freed.count, freed[nextFreed] < gap {
                number = freed[nextFreed]
                nextFreed += 1
            } else {
                number = gap
                nextGap += 1
                gapAhead = nil
            }
            if given.insert(number).inserted { return number }
        }
    }
}

/// The numbers of one kind that are taken: 1 through `through`, and `others`.
struct TakenNumbers {
    var through: Int64 = 0
    var others: Set<Int64> = []

    func contains(_ number: Int64) -> Bool {
        (number >= 1 && number <= through) || others.contains(number)
    }

    mutating func insert(_ number: Int64) {
        if number == through + 1 {
            through = number
            while others.remove(through + 1) != nil { through += 1 }
        } else {
            others.insert(number)
        }
    }

    /// The smallest positive number not taken.
    func smallestFree() -> Int64 {
        var candidate = through + 1
        while others.contains(candidate) { candidate += 1 }
        return candidate
    }
}
