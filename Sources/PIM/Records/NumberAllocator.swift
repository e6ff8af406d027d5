// Short record numbers: each new record of a kind gets the smallest positive number no other
// record of that kind holds. A number stays with its record until the record is deleted, and only
// then can be given again; a restored record whose number was taken meanwhile gets a new one.
import Foundation
import ObjectGraph

/// Gives the inserted records of a context their short numbers.
struct NumberAllocator {
    let context: ManagedObjectContext

    func assignNumbers() throws {
        let inserted = context.insertedObjects.filter { RecordKind(entity: $0.entity) != nil }
        guard !inserted.isEmpty else { return }
        let deleted = Set(context.deletedObjects.compactMap { $0.value(forKey: "uuid") as? UUID })
        for kind in RecordKind.allCases {
            let records = inserted.filter { RecordKind(entity: $0.entity) == kind }
                .sorted { ($0.value(forKey: "created") as? Date ?? .distantPast) < ($1.value(forKey: "created") as? Date ?? .distantPast) }
            guard !records.isEmpty else { continue }
            var used = try highestWithoutGaps(of: kind, deleting: deleted).map { TakenNumbers(through: $0) }
                ?? TakenNumbers(others: storedNumbers(of: kind, excluding: deleted))
            for record in records {
                let number = (record.value(forKey: "number") as? Int64) ?? 0
                if number > 0, !used.contains(number) {
                    used.insert(number)
                    continue
                }
                let free = used.smallestFree()
                record.setValue(free, forKey: "number")
                used.insert(free)
            }
        }
    }

    /// The highest number saved records of `kind` hold when they hold 1 through it with none
    /// missing and none being deleted (numbers are unique, so n records up to n hold them all):
    /// a count and a maximum, answered from the number index, rather than every record's number.
    /// Nil otherwise: ``storedNumbers(of:excluding:)`` finds the gaps.
    func highestWithoutGaps(of kind: RecordKind, deleting deleted: Set<UUID>) throws -> Int64? {
        guard deleted.isEmpty else { return nil }
        var count = FetchRequest<Int>(entityName: kind.entityName)
        count.includesPendingChanges = false
        let stored = try context.count(for: count)
        guard stored > 0 else { return 0 }
        var highest = FetchRequest<[String: Any]>(entityName: kind.entityName)
        highest.propertiesToFetch = [.expression(ExpressionDescription(name: "highest", expression: .function("max:", [.keyPath("number")]),
                                                                       resultType: .integer64))]
        highest.includesPendingChanges = false
        guard let row = try context.fetch(highest).first,
              let maximum = (row["highest"] as? Int64) ?? (row["highest"] as? Int).map(Int64.init),
              maximum == Int64(stored) else { return nil }
        return maximum
    }

    /// The numbers saved records of `kind` hold, except those being deleted.
    func storedNumbers(of kind: RecordKind, excluding deleted: Set<UUID>) throws -> Set<Int64> {
        var request = FetchRequest<[String: Any]>(entityName: kind.entityName)
        request.propertiesToFetch = [.property("number"), .property("uuid")]
        request.includesPendingChanges = false
        var numbers: Set<Int64> = []
        for row in try context.fetch(request) {
            guard let uuid = row["uuid"] as? UUID, !deleted.contains(uuid) else { continue }
            if let number = row["number"] as? Int64 { numbers.insert(number) } else if let number = row["number"] as? Int { numbers.insert(Int64(number)) }
        }
        return numbers
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
