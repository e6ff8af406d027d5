// The table keyed by object ID that holds a context's registry and the row cache: whatever the
// pattern of keys (dense runs, sparse keys, runs that slide, several entities, stores and kinds),
// it must answer exactly what a dictionary answers.
import XCTest
@testable import ObjectGraph

final class ObjectIDTableTests: XCTestCase {
    private static let model = NotesAndTags.model

    private static func id(_ entity: String, _ key: Int64, store: String = "S") -> ObjectID {
        NotesAndTags.id(entity, key, store: store)
    }

    /// A context on an in-memory store of the Note and Tag model, and the ID of the note with a
    /// given key in that store.
    private func noteContext() throws -> (stack: Stack, id: (Int64) -> ObjectID) {
        let stack = try Stack(storeType: .inMemory, model: Self.model)
        let store = try XCTUnwrap(stack.coordinator.persistentStores.first).identifier
        return (stack, { NotesAndTags.id("Note", $0, store: store) })
    }

    /// Applies each operation to the table and to a dictionary, comparing after each step.
    private struct Checked {
        var table = ObjectIDTable<Int>()
        var reference: [ObjectID: Int] = [:]

        mutating func set(_ id: ObjectID, _ value: Int?, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(table[id], reference[id], "before setting \(id)", file: file, line: line)
            table[id] = value
            reference[id] = value
            XCTAssertEqual(table[id], value, "\(id)", file: file, line: line)
            XCTAssertEqual(table.count, reference.count, file: file, line: line)
        }

        func verify(file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(table.count, reference.count, file: file, line: line)
            XCTAssertEqual(Set(table.values), Set(reference.values), file: file, line: line)
            let entries = table.entries
            XCTAssertEqual(entries.count, reference.count, file: file, line: line)
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0.value) }), reference, file: file, line: line)
            for (id, value) in reference { XCTAssertEqual(table[id], value, "\(id)", file: file, line: line) }
        }
    }

    func testDenseKeysInsertedAndRemovedInOrderMatchADictionary() {
        var checked = Checked()
        for key in Int64(1)...5_000 { checked.set(Self.id("Note", key), Int(key)) }
        checked.verify()
        for key in Int64(1)...4_990 { checked.set(Self.id("Note", key), nil) }
        checked.verify()
        XCTAssertEqual(checked.table.count, 10)
        for key in Int64(4_991)...5_000 { checked.set(Self.id("Note", key), nil) }
        XCTAssertTrue(checked.table.isEmpty)
        XCTAssertNil(checked.table[Self.id("Note", 1)])
    }

    func testARunSlidingUpwardKeepsEveryKeyItHolds() {
        // Batches of 100 keys: each batch is added before the one before it goes (W11's pattern).
        var checked = Checked()
        for batch in Int64(0)..<200 {
            for key in batch * 100 ..< batch * 100 + 100 { checked.set(Self.id("Note", key + 1), Int(key)) }
            if batch > 0 {
                for key in (batch - 1) * 100 ..< batch * 100 { checked.set(Self.id("Note", key + 1), nil) }
            }
        }
        checked.verify()
        XCTAssertEqual(checked.table.count, 100)
    }

    func testSparseAndExtremeKeysGoToTheDictionaryAndStayFindable() {
        var checked = Checked()
        for key in [Int64(1), 2, 3, 1_000_000, 5_000_000_000, -7, 0, .max, .min, .max - 1, .min + 1] {
            checked.set(Self.id("Note", key), Int(truncatingIfNeeded: key))
        }
        checked.verify()
        // A run growing down to keys it refused before takes them over from the dictionary.
        for key in Int64(4)...1_000_000 where key % 1_000 == 0 || key < 300 { checked.set(Self.id("Note", key), 1) }
        checked.verify()
        for key in Int64(4)...1_000_000 where key % 3_000 == 0 { checked.set(Self.id("Note", key), nil) }
        checked.verify()
    }

    func testEntitiesStoresAndTemporaryKeysAreSeparateKeys() {
        var checked = Checked()
        let note = Self.model.entitiesByName["Note"]!
        let temporary = (0..<500).map { _ in ObjectID.temporary(for: note) }
        for key in Int64(1)...500 {
            checked.set(Self.id("Note", key), 1)
            checked.set(Self.id("Tag", key), 2)
            checked.set(Self.id("Note", key, store: "T"), 3)
            checked.set(temporary[Int(key) - 1], 4)
        }
        checked.verify()
        XCTAssertEqual(checked.table.count, 2_000)
        for key in Int64(1)...500 where key % 2 == 0 {
            checked.set(Self.id("Tag", key), nil)
            checked.set(temporary[Int(key) - 1], nil)
        }
        checked.verify()
    }

    func testRandomOperationsMatchADictionary() {
        var generator = SplitMix(seed: 0x0bec7)
        var checked = Checked()
        let entities = ["Note", "Tag"]
        for step in 0..<40_000 {
            // Mostly keys near a moving window, sometimes anywhere.
            let window = Int64(step / 20)
            let key = generator.next() % 10 == 0 ? Int64(generator.next() % 1_000_000) : window + Int64(generator.next() % 200)
            let id = Self.id(entities[Int(generator.next() % 2)], key, store: generator.next() % 8 == 0 ? "T" : "S")
            checked.set(id, generator.next() % 3 == 0 ? nil : step)
        }
        checked.verify()
    }

    func testWithValueChangesInPlaceAndCountsInsertionsAndRemovals() {
        var table = ObjectIDTable<Int>()
        let id = Self.id("Note", 9)
        XCTAssertFalse(table.withValue(for: id) { $0 != nil })
        XCTAssertEqual(table.count, 0, "looking leaves no key behind")
        table.withValue(for: id) { $0 = 1 }
        table.withValue(for: id) { $0! += 41 }
        XCTAssertEqual(table[id], 42)
        XCTAssertEqual(table.removeValue(forKey: id), 42)
        XCTAssertNil(table.removeValue(forKey: id))
        XCTAssertTrue(table.isEmpty)
    }

    // MARK: Found in review

    /// Keys kept alive in the compaction tests: too sparse for the run to take key 1151.
    private static let keptKeys = Set((0..<71).map { 575 + 8 * Int64($0) } + [1_150])
    /// Keys added back in the compaction tests: with them the run is dense enough to move over
    /// key 1151 when its count reaches a power of two (128).
    private static let addedKeys = (0..<56).map { 576 + 8 * Int64($0) }

    func testCompactingARunKeepsTheKeysTheDictionaryHolds() {
        var table = ObjectIDTable<Int>()
        for key in Int64(1)...1_150 { table[Self.id("Note", key)] = Int(key) }
        for key in Int64(1)...1_150 where !Self.keptKeys.contains(key) { table[Self.id("Note", key)] = nil }
        XCTAssertEqual(table.runCapacities, [1_150], "the run's range is 1 ..< 1151, kept as its keys went")
        table[Self.id("Note", 1_151)] = 1_151  // refused by the sparse run: the dictionary holds it
        XCTAssertEqual(table.dictionaryCount, 1)
        for key in Self.addedKeys { table[Self.id("Note", key)] = Int(key) }  // the run moves over 1151
        XCTAssertEqual(table.dictionaryCount, 0, "the run took the key its dictionary held")
        XCTAssertEqual(table.count, 129)
        XCTAssertEqual(table[Self.id("Note", 1_151)], 1_151, "a key the table holds stays findable")
        XCTAssertEqual(table[Self.id("Note", 1_150)], 1_150)
        XCTAssertEqual(table.removeValue(forKey: Self.id("Note", 1_151)), 1_151)
        XCTAssertEqual(table.count, 128)
        XCTAssertEqual(table.entries.count, table.count)
    }

    func testARegisteredObjectStaysRegisteredWhenItsRunIsCompacted() throws {
        let (stack, id) = try noteContext()
        let context = stack.context
        var faults: [Int64: ManagedObject] = [:]
        for key in Int64(1)...1_150 { faults[key] = context.object(with: id(key)) }
        for key in Int64(1)...1_150 where !Self.keptKeys.contains(key) { faults[key] = nil }
        let far = context.object(with: id(1_151))
        for key in Self.addedKeys { faults[key] = context.object(with: id(key)) }
        XCTAssertEqual(context.registry.dictionaryCount, 0, "the registry's run moved over the far key")
        XCTAssertTrue(context.registeredObject(for: id(1_151)) === far, "the registered fault is found")
        XCTAssertTrue(context.object(with: id(1_151)) === far, "one object per ID in a context")
        withExtendedLifetime((far, faults)) {}
    }

    func testRemovingTheDictionarysKeysOfAnEmptiedRunDoesNotScanTheDictionaryEachTime() {
        // W4's teardown: the run's keys go first, then a thousand scattered ones its dictionary
        // holds, one by one. Starting the empty run's range at each key moved the dictionary's
        // keys in (a scan of all of them) for every removal.
        var table = ObjectIDTable<Int>()
        for key in Int64(1)...10 { table[Self.id("Note", key)] = 1 }
        let scattered = (1...1_000).map { 1_000_000 + 1_000 * Int64($0) }
        for key in scattered { table[Self.id("Note", key)] = 2 }
        XCTAssertGreaterThan(table.dictionaryCount, 900)
        for key in Int64(1)...10 { table[Self.id("Note", key)] = nil }
        let work = table.work
        for key in scattered { table[Self.id("Note", key)] = nil }
        XCTAssertTrue(table.isEmpty)
        XCTAssertLessThan(table.work - work, 50_000, "the removals scanned the dictionary (\(table.work - work) for 1,000)")
    }

    func testARunKeepsItsStorageWhenItsKeysGo() {
        // A context fetching and releasing many objects over and over: the second round finds
        // the storage the first one left, and does not move.
        var table = ObjectIDTable<Int>()
        table.reserveCapacity(10_000)
        for key in Int64(1)...10_000 { table[Self.id("Note", key)] = 1 }
        table.endReservation()
        let capacities = table.runCapacities
        let moves = table.moves
        for key in Int64(1)...10_000 { table[Self.id("Note", key)] = nil }
        XCTAssertTrue(table.isEmpty)
        XCTAssertEqual(table.runCapacities, capacities, "the emptied run keeps its storage")
        table.reserveCapacity(10_000)
        for key in Int64(20_001)...30_000 { table[Self.id("Note", key)] = 2 }
        table.endReservation()
        XCTAssertEqual(table.moves, moves, "the next keys take the storage where it is")
        XCTAssertEqual(table.count, 10_000)
        XCTAssertEqual(table[Self.id("Note", 25_000)], 2)
        XCTAssertNil(table[Self.id("Note", 5_000)])
    }

    func testDenseKeysGetARunWhateverKeyCameFirst() {
        var table = ObjectIDTable<Int>()
        table[Self.id("Note", 5_000)] = 0
        for key in Int64(1)...5_000 { table[Self.id("Note", key)] = Int(key) }
        XCTAssertEqual(table.count, 5_000)
        XCTAssertEqual(table.dictionaryCount, 0, "the run takes the keys the dictionary held once it may cover them")
        XCTAssertEqual(table[Self.id("Note", 1)], 1)
    }

    func testAReservationEndedDoesNotSizeALaterRun() {
        var table = ObjectIDTable<Int>()
        for key in Int64(1)...100 { table[Self.id("Note", key)] = 1 }
        table.reserveCapacity(100_000)
        for key in Int64(1)...100 { table[Self.id("Note", key)] = 2 }
        table.endReservation()
        table[Self.id("Tag", 1)] = 1
        XCTAssertEqual(table.runCapacities.count, 2)
        XCTAssertLessThanOrEqual(table.runCapacities.last ?? 0, 1_000)
    }

    func testARefetchDoesNotMakeTheNextInsertedObjectsRunHuge() throws {
        let stack = try Stack(storeType: .inMemory, model: Self.model)
        for index in 0..<20_000 { stack.insert("Note", ["text": "\(index)"]) }
        try stack.context.save()
        let reader = stack.newContext()
        let first = try stack.fetch("Note", in: reader)
        let second = try stack.fetch("Note", in: reader)
        XCTAssertEqual(second.count, 20_000)
        let inserted = stack.insert("Tag", ["name": "one"], into: reader)
        XCTAssertLessThanOrEqual(reader.registry.runCapacities.last ?? 0, 1_000, "the run of one new object")
        withExtendedLifetime((first, inserted)) {}
    }

    func testSparseKeysAddedAndRemovedRepeatedlyMoveTheRunRarely() {
        // W4's pattern: a thousand scattered keys of a hundred thousand, fetched and released
        // again and again. Each removal once moved the whole run to a range no smaller.
        var generator = SplitMix(seed: 4)
        let keys = (0..<1_000).map { _ in Int64(generator.next() % 100_000) + 1 }
        var table = ObjectIDTable<Int>()
        for _ in 0..<20 {
            table.reserveCapacity(keys.count)
            for key in keys { table[Self.id("Note", key)] = 1 }
            table.endReservation()
            for key in keys { table[Self.id("Note", key)] = nil }
        }
        XCTAssertTrue(table.isEmpty)
        XCTAssertLessThan(table.moves, 20 * 40, "moves per round stay logarithmic in the keys")
    }

    // Found in the second review: one key added and removed again, next to a large table, must
    // not cost the size of the table each round. `work` counts the slots and keys scans visit.

    /// Adds `key` of `entity` and removes it again, `times` times; the scanning work it took.
    private func toggle(_ key: Int64, of entity: String = "Note", in table: inout ObjectIDTable<Int>, times: Int) -> Int {
        let before = table.work
        let id = Self.id(entity, key)
        for _ in 0..<times {
            table[id] = 1
            table[id] = nil
        }
        return table.work - before
    }

    func testTogglingAKeyNextToALargeSparseRunDoesNotScanTheRun() {
        // A context that fetched 200,000 objects and keeps two of them, 60,000 keys apart: the
        // run keeps its storage, and a key toggled between them must not cost a scan of it.
        var table = ObjectIDTable<Int>()
        for key in Int64(1)...200_000 { table[Self.id("Note", key)] = 1 }
        for key in Int64(2)...200_000 where key != 60_000 { table[Self.id("Note", key)] = nil }
        XCTAssertEqual(table.count, 2)
        let work = toggle(30_000, in: &table, times: 500)
        XCTAssertLessThan(work, 500_000, "each removal back to 2 keys scanned the run's storage (\(work) for 500)")
        XCTAssertEqual(table.count, 2)
    }

    func testTogglingAKeyOfARunWithKeysInItsDictionaryDoesNotScanOtherKeys() {
        var table = ObjectIDTable<Int>()
        for key in Int64(1)...1_023 { table[Self.id("Note", key)] = 1 }
        table[Self.id("Note", 1_000_000_000)] = 1  // far: the run's dictionary holds it
        for index in Int64(1)...30_000 { table[Self.id("Tag", index * 1_000)] = 1 }  // scattered keys of another entity
        // Each addition brings the Note run to 1,024 keys, a power of two.
        let work = toggle(1_024, in: &table, times: 300)
        XCTAssertLessThan(work, 30_000, "the toggles scanned the other entity's keys (\(work) for 300)")
    }

    func testTogglingTheOnlyKeyOfAnEmptiedRunNeitherScansNorMovesEachTime() {
        var table = ObjectIDTable<Int>()
        table[Self.id("Note", 1)] = 1
        table[Self.id("Note", 1_000_000_000)] = 1  // far: the run's dictionary holds it
        table[Self.id("Note", 1)] = nil  // the run is empty, its dictionary not
        for index in Int64(1)...30_000 { table[Self.id("Tag", index * 1_000)] = 1 }
        let moves = table.moves
        let work = toggle(5, in: &table, times: 200)
        XCTAssertLessThan(work, 30_000, "\(work) for 200 toggles")
        XCTAssertLessThanOrEqual(table.moves - moves, 2, "an emptied run keeps its storage for the next key")
        XCTAssertEqual(table[Self.id("Note", 1_000_000_000)], 1)
    }

    func testAContextFetchingAndReleasingOneObjectNextToTwoKeptOnesDoesNotScanItsRegistry() throws {
        let (stack, id) = try noteContext()
        let context = stack.context
        var faults = (Int64(1)...100_000).map { context.object(with: id($0)) }
        let kept = [faults[0], faults[29_999]]
        faults = []
        XCTAssertEqual(context.registeredObjects.count, 2)
        let before = context.registry.work
        for _ in 0..<1_500 { _ = context.object(with: id(50_000)) }
        XCTAssertLessThan(context.registry.work - before, 1_500_000, "each fault made and released scanned the registry")
        withExtendedLifetime(kept) {}
    }

    func testRandomOperationsWithSparseKeysAndReservationsMatchADictionary() {
        // The reviewer's differential check: mixed dense, sparse and extreme keys, temporary
        // IDs and reservations, many seeds.
        let note = Self.model.entitiesByName["Note"]!
        let temporary = (0..<300).map { _ in ObjectID.temporary(for: note) }
        for seed in UInt64(1)...60 {
            var generator = SplitMix(seed: seed)
            var checked = Checked()
            for step in 0..<1_500 {
                let id: ObjectID
                switch generator.next() % 10 {
                case 0: id = Self.id("Note", Int64(bitPattern: generator.next()))
                case 1: id = temporary[Int(generator.next() % 300)]
                case 2, 3: id = Self.id("Tag", Int64(generator.next() % 5_000))
                default: id = Self.id("Note", Int64(step / 3) + Int64(generator.next() % 400))
                }
                if generator.next() % 50 == 0 { checked.table.reserveCapacity(Int(generator.next() % 2_000)) }
                if generator.next() % 60 == 0 { checked.table.endReservation() }
                checked.set(id, generator.next() % 3 == 0 ? nil : step)
            }
            checked.verify()
        }
    }
}

extension ObjectIDTableTests {
    func testRunsEmptiedAndRefilledAtOtherKeysMatchADictionary() {
        // Runs keep their storage and an emptied one starts its range at the next key: rounds
        // of filling a range (with a reservation or not), removing all or most of it in random
        // order, with scattered keys in the dictionary now and then, then filling elsewhere.
        for seed in UInt64(1)...40 {
            var generator = SplitMix(seed: seed)
            var checked = Checked()
            for _ in 0..<12 {
                let base = Int64(generator.next() % 50_000)
                let count = Int64(generator.next() % 600) + 1
                if generator.next() % 2 == 0 { checked.table.reserveCapacity(Int(count)) }
                for key in base..<(base + count) { checked.set(Self.id("Note", key), Int(key)) }
                checked.table.endReservation()
                if generator.next() % 3 == 0 {
                    for _ in 0..<20 { checked.set(Self.id("Note", Int64(generator.next() % 10_000_000)), 1) }
                }
                var keys = Array(checked.reference.keys)
                keys.shuffle(using: &generator)
                let keep = generator.next() % 2 == 0 ? 0 : Int(generator.next() % 5)
                for id in keys.dropFirst(keep) { checked.set(id, nil) }
                checked.verify()
            }
        }
    }
}

extension SplitMix: RandomNumberGenerator {}

/// A small seeded generator, so that a random test repeats exactly.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
