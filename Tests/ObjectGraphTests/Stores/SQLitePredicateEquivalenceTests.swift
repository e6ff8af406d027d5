// The SQLite store answers as the in-memory evaluator does: the same rows saved into an in-memory
// store and a SQLite store (same identifiers, so the same object IDs), then a battery of
// predicates and sort descriptors run through both, comparing the matching IDs (and their order
// when sorted). Constructs SQL cannot express are refused, never evaluated in memory.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLitePredicateEquivalenceTests: XCTestCase {
    /// One predicate of the battery: entity, format and arguments.
    struct Case {
        var entity: String
        var format: String
        var arguments: [Any?]

        init(_ entity: String, _ format: String, _ arguments: Any?...) {
            self.entity = entity
            self.format = format
            self.arguments = arguments
        }
    }

    /// Both stores with the same rows.
    final class Pair {
        let sqlite: SQLiteStoreFixture
        let memory: InMemoryStore
        var ids: [String: ObjectID] = [:]

        init() throws {
            sqlite = try SQLiteStoreFixture(options: ["identifier": "battery"])
            memory = InMemoryStore(options: ["identifier": "battery"])
            try memory.load(model: sqlite.model)
            try fill()
        }

        func entity(_ name: String) -> EntityDescription { sqlite.entity(name) }

        /// A new ID from both stores (they hand out the same keys).
        func newID(_ entity: String, _ name: String) throws -> ObjectID {
            let temporary = ObjectID.temporary(for: self.entity(entity))
            let id = try sqlite.store.obtainPermanentIDs(for: [temporary])[0]
            XCTAssertEqual(try memory.obtainPermanentIDs(for: [temporary])[0], id)
            ids[name] = id
            return id
        }

        func save(_ rows: [Snapshot]) throws {
            _ = try sqlite.store.save(StoreSaveRequest(inserted: rows))
            _ = try memory.save(StoreSaveRequest(inserted: rows))
        }

        /// People of every kind of name, tasks with every kind of title (wildcards, accents, case,
        /// nil), tags, ordered steps, milestones with deadlines and samples of every type.
        func fill() throws {
            let people: [(String, String?, String?, Int64?)] = [
                ("ada", "Ada", "ada@example.org", 36), ("ada2", "ada", "ADA@EXAMPLE.ORG", 17), ("bob", "Bob", "bob@example.com", 25),
                ("emile", "Émile", "emile@example.fr", 52), ("zoe", "Zoë", nil, nil), ("cy", "cy", nil, 25),
                ("nobody", nil, "x@y.z", 3), ("adne", "Ådne", "adne@example.no", 40), ("smith", "bob smith", "smith@example.com", 61),
                ("obrien", "O'Brien", "ob@example.ie", nil),
            ]
            let tasks: [(String, String?, String?, Bool, Int32?, String?, Bool)] = [
                ("write", "Write", "W", false, 3, "ada", false), ("review", "Review", "R", true, 5, "ada", false),
                ("deploy", "deploy", nil, false, 8, "bob", false), ("release", "Release", "REL", false, 13, "bob", true),
                ("ecrire", "Écrire", "E", true, 2, "emile", false), ("star", "a*b", "S", false, nil, nil, false),
                ("question", "what?", nil, true, 0, "zoe", false), ("percent", "100% done_now", "P", false, 100, "cy", true),
                ("backslash", "back\\slash", nil, false, -4, "cy", false), ("untitled", nil, nil, false, nil, nil, false),
                ("file2", "file2", "F2", false, 21, "smith", false), ("file10", "File10", "F10", true, 21, "smith", true),
                ("multi", "line one\nline two", nil, false, 7, "adne", false), ("cafe", "café", "C1", false, 5, "emile", false),
                ("cafe2", "CAFE", "C2", true, 5, "obrien", false), ("empty", "", "EMPTY", false, 1, "nobody", false),
                ("resume", "re\u{301}sume\u{301}", "RES", false, 2, "ada2", false),
            ]
            let tags = ["swift", "linux", "Swift", "urgent", "élan"]
            let tagMembers: [String: [String]] = [
                "swift": ["write", "review", "file2"], "linux": ["review", "deploy", "release"], "Swift": ["cafe"],
                "urgent": ["release", "question", "write", "backslash"], "élan": [],
            ]
            let steps: [(String, String?, String)] = [
                ("s1", "c", "write"), ("s2", "a", "write"), ("s3", "b", "write"), ("s4", "draft", "review"),
                ("s5", nil, "review"), ("s6", "ship it", "release"),
            ]
            for (key, _, _, _) in people { _ = try newID("Person", key) }
            for task in tasks { _ = try newID(task.6 ? "Milestone" : "Task", task.0) }
            for tag in tags { _ = try newID("Tag", "tag:" + tag) }
            for step in steps { _ = try newID("Step", step.0) }
            var rows: [Snapshot] = []
            for (key, name, email, age) in people {
                let owned = tasks.filter { $0.5 == key }.map { ids[$0.0]! }
                rows.append(sqlite.row(ids[key]!, ["name": name.map { .value($0) } ?? .null, "email": email.map { .value($0) } ?? .null,
                                                   "age": age.map { .value($0) } ?? .null, "tasks": .objects(owned)]))
            }
            for (offset, task) in tasks.enumerated() {
                var values: [String: SnapshotValue] = [
                    "title": task.1.map { .value($0) } ?? .null, "code": task.2.map { .value($0) } ?? .null,
                    "done": .value(task.3), "points": task.4.map { .value($0) } ?? .null,
                    "owner": task.5.map { .object(ids[$0]!) } ?? .null,
                    "tags": .objects(tags.filter { tagMembers[$0]!.contains(task.0) }.map { ids["tag:" + $0]! }),
                    "steps": .objects(steps.filter { $0.2 == task.0 }.map { ids[$0.0]! }),
                ]
                if task.6 { values["deadline"] = offset % 2 == 0 ? .value(Date(timeIntervalSinceReferenceDate: Double(offset) * 86_400)) : .null }
                rows.append(sqlite.row(ids[task.0]!, values))
            }
            for tag in tags {
                rows.append(sqlite.row(ids["tag:" + tag]!, ["name": .value(tag), "tasks": .objects(tagMembers[tag]!.map { ids[$0]! })]))
            }
            for (key, text, task) in steps {
                rows.append(sqlite.row(ids[key]!, ["text": text.map { .value($0) } ?? .null, "task": .object(ids[task]!)]))
            }
            for n in 0..<8 {
                let id = try newID("Sample", "sample\(n)")
                var values: [String: SnapshotValue] = [
                    "int16": .value(Int16(n - 3)), "int32": .value(Int32(n * 1000)), "int64": .value(Int64(n) * 1_000_000_000_000),
                    "decimal": .value(Decimal(string: ["1.5", "0.1", "-2", "100.25", "2", "99999999999999999999.5", "0", "1.50"][n])!),
                    "double": .value([0.1, 0.5, -1.5, 3.25, 1e10, 0.1 + 0.2, 0, 2][n]), "float": .value(Float(n) / 2),
                    "string": .value(["abc", "ABC", "123", "a1b2", "Éclair", "eclair", "", "zz top"][n]), "flag": .value(n % 3 == 0),
                    "date": .value(Date(timeIntervalSinceReferenceDate: Double(n) * 3600)),
                    "uuid": .value(UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)")!),
                    "uri": .value(URL(string: "https://example.org/\(n)")!), "data": .value(Data([UInt8(n), 1])),
                ]
                if n == 7 { for key in ["decimal", "double", "string", "date", "uuid", "uri", "data"] { values[key] = .null } }
                rows.append(sqlite.row(id, values))
            }
            try save(rows)
        }

        /// The IDs `request` gives in each store (the SQLite store's error, if it refuses).
        func answers(_ request: StoreFetchRequest) throws -> (memory: [ObjectID], sqlite: [ObjectID]) {
            (try ids(request, from: memory), try ids(request, from: sqlite.store))
        }

        /// The IDs `request` gives in `store`.
        func ids(_ request: StoreFetchRequest, from store: any PersistentStore) throws -> [ObjectID] {
            var request = request
            request.resultType = .objectIDs
            let result = try store.execute(request)
            guard case .objectIDs(let ids) = result else { throw UnexpectedResult(result: result) }
            return ids
        }
    }

    static let day0 = Date(timeIntervalSinceReferenceDate: 0)

    /// The battery: every operator, option, modifier and key-path form the store translates.
    func battery(_ pair: Pair) -> [Case] {
        let id = { (name: String) in pair.ids[name]! }
        // Equality and options on strings
        let group0: [Case] = [
            Case("Task", "title == 'Write'"), Case("Task", "title != 'Write'"), Case("Task", "title == 'write'"),
            Case("Task", "title ==[c] 'write'"), Case("Task", "title ==[c] 'CAFÉ'"), Case("Task", "title ==[d] 'cafe'"),
            Case("Task", "title ==[cd] 'CAFE'"), Case("Task", "title ==[cd] 'ecrire'"), Case("Task", "title !=[c] 'write'"),
            Case("Task", "title ==[n] 'Write'"), Case("Task", "title ==[l] 'Write'"), Case("Task", "title == ''"),
            Case("Task", "title == %@", "r\u{E9}sum\u{E9}"), Case("Task", "title != %@", "r\u{E9}sum\u{E9}"),
            Case("Task", "title IN %@", ["r\u{E9}sum\u{E9}", "caf\u{E9}"]), Case("Task", "title ==[n] %@", "r\u{E9}sum\u{E9}"),
            Case("Task", "title == %@", "cafe\u{301}"),
            Case("Person", "name ==[c] 'ada'"), Case("Person", "name ==[d] 'Emile'"), Case("Person", "name ==[cd] 'EMILE'"),
            Case("Person", "name ==[cd] 'zoe'"), Case("Person", "name ==[cd] 'adne'"),
        ]
        // Ordering of strings
        let group1: [Case] = [
            Case("Task", "title < 'M'"), Case("Task", "title >= 'deploy'"), Case("Task", "title <[c] 'd'"),
            Case("Task", "title > 'File10'"), Case("Task", "title <= ''"), Case("Task", "title >[cd] 'e'"),
            Case("Person", "name < 'b'"), Case("Person", "name <[c] 'b'"), Case("Person", "name >= 'Zoë'"),
            Case("Task", "title BETWEEN {'A', 'M'}"), Case("Task", "title BETWEEN[c] {'a', 'm'}"),
        ]
        // String operators
        let group2: [Case] = [
            Case("Task", "title BEGINSWITH 'W'"), Case("Task", "title BEGINSWITH[c] 'w'"), Case("Task", "title BEGINSWITH[cd] 'e'"),
            Case("Task", "title BEGINSWITH ''"), Case("Task", "title ENDSWITH 'e'"), Case("Task", "title ENDSWITH[cd] 'E'"),
            Case("Task", "title ENDSWITH '?'"), Case("Task", "title CONTAINS 'i'"), Case("Task", "title CONTAINS[c] 'I'"),
            Case("Task", "title CONTAINS '%'"), Case("Task", "title CONTAINS '_'"), Case("Task", "title CONTAINS '\\\\'"),
            Case("Task", "title CONTAINS[d] 'e'"), Case("Task", "title CONTAINS 'line two'"), Case("Task", "title CONTAINS[n] 'é'"),
            Case("Task", "title LIKE 'W*'"), Case("Task", "title LIKE[c] '*e?'"), Case("Task", "title LIKE '*\\\\**'"),
            Case("Task", "title LIKE 'what\\\\?'"), Case("Task", "title LIKE '???'"), Case("Task", "title LIKE '*%*'"),
            Case("Task", "title LIKE '*_*'"), Case("Task", "title LIKE[cd] 'CAFE'"), Case("Task", "title LIKE '*'"),
            Case("Task", "title LIKE 'line*two'"), Case("Task", "title MATCHES '[A-Z].*'"), Case("Task", "title MATCHES[c] 'r.*'"),
            Case("Task", "title MATCHES '.*\\\\d+'"), Case("Task", "title MATCHES 'line one$.*'"), Case("Task", "title MATCHES[cd] 'cafe'"),
            Case("Person", "email ENDSWITH[c] '.ORG'"), Case("Person", "email LIKE '*@*.com'"), Case("Person", "email CONTAINS[c] 'ada'"),
        ]
        // IN
        let group3: [Case] = [
            Case("Task", "title IN {'Write', 'Review', 'nope'}"), Case("Task", "title IN[c] {'write', 'REVIEW'}"),
            Case("Task", "title IN 'Write Review'"), Case("Task", "title IN[c] 'WRITE REVIEW'"), Case("Task", "title IN {}"),
            Case("Task", "title IN {nil, 'Write'}"), Case("Task", "title IN %@", ["deploy", "Release"]), Case("Task", "NOT title IN {'Write'}"),
            Case("Task", "code IN %@", Set(["W", "R", "Z"])),
        ]
        // nil
        let group4: [Case] = [
            Case("Task", "title == nil"), Case("Task", "title != nil"), Case("Task", "code == nil"), Case("Task", "nil == code"),
            Case("Task", "points == nil"), Case("Task", "points != nil"), Case("Task", "points > nil"), Case("Task", "title BEGINSWITH nil"),
            Case("Task", "NOT title == nil"), Case("Task", "NOT (title BEGINSWITH 'W')"), Case("Task", "NOT title < 'M'"),
        ]
        // Numbers
        let group5: [Case] = [
            Case("Task", "points > 5"), Case("Task", "points >= 5"), Case("Task", "points < 5"), Case("Task", "points <= 5"),
            Case("Task", "points == 5"), Case("Task", "points != 5"), Case("Task", "points == 5.0"), Case("Task", "points > 4.5"),
            Case("Task", "points BETWEEN {3, 8}"), Case("Task", "points BETWEEN {8, 3}"), Case("Task", "points IN {3, 8, 13}"),
            Case("Task", "points IN {3.0, 21}"), Case("Task", "NOT points > 5"), Case("Task", "NOT (points == 5)"),
            Case("Task", "points == '5'"), Case("Task", "points != '5'"), Case("Task", "3 < points"), Case("Task", "100 == points"),
            Case("Task", "points < -1"), Case("Task", "points BETWEEN %@", [0, 5]),
            Case("Task", "done == YES"), Case("Task", "done == NO"), Case("Task", "done == 1"), Case("Task", "done != YES"),
            Case("Task", "done == TRUE AND points > 1"),
        ]
        // Objects
        let group6: [Case] = [
            Case("Task", "owner == nil"), Case("Task", "owner != nil"), Case("Task", "owner == %@", id("ada")),
            Case("Task", "owner != %@", id("ada")), Case("Task", "owner IN %@", [id("ada"), id("bob")]),
            Case("Task", "owner == %@", id("write")), Case("Task", "SELF == %@", id("write")), Case("Task", "SELF != %@", id("write")),
            Case("Task", "SELF IN %@", [id("write"), id("release"), id("ada")]), Case("Task", "NOT SELF IN %@", [id("write")]),
            Case("Task", "%@ == owner", id("bob")), Case("Step", "task == %@", id("write")), Case("Step", "task == %@", id("release")),
            Case("Step", "task IN %@", [id("review"), id("release")]),
        ]
        // Key paths through to-one relationships
        let group7: [Case] = [
            Case("Task", "owner.name == 'Ada'"), Case("Task", "owner.name BEGINSWITH[c] 'a'"), Case("Task", "owner.age > 30"),
            Case("Task", "owner.age == nil"), Case("Task", "owner.age != nil"), Case("Task", "owner.email ENDSWITH 'org'"),
            Case("Task", "NOT owner.name == 'Ada'"), Case("Task", "owner.age BETWEEN {20, 40}"), Case("Task", "owner.name == nil"),
            Case("Task", "owner.name == 'Ada' OR owner.age == 25"), Case("Step", "task.owner.name == 'Ada'"),
            Case("Step", "task.points > 4"), Case("Step", "task.owner.age >= 36 AND text != nil"),
        ]
        // To-many: ANY, ALL, NONE, membership
        let group8: [Case] = [
            Case("Task", "ANY tags.name == 'swift'"), Case("Task", "ANY tags.name ==[c] 'SWIFT'"), Case("Task", "ALL tags.name == 'swift'"),
            Case("Task", "NONE tags.name == 'swift'"), Case("Task", "ANY tags == %@", id("tag:linux")), Case("Task", "tags CONTAINS %@", id("tag:urgent")),
            Case("Task", "%@ IN tags", id("tag:swift")), Case("Task", "ANY tags.name IN {'linux', 'x'}"),
            Case("Task", "ALL tags.name BEGINSWITH 's'"), Case("Task", "NOT ANY tags.name == 'linux'"), Case("Task", "ANY tags.name BEGINSWITH[cd] 'E'"),
            Case("Task", "ANY steps.text == nil"), Case("Task", "ANY steps.text LIKE '*i*'"), Case("Task", "ALL steps.text != nil"),
            Case("Tag", "ANY tasks.points > 10"), Case("Tag", "ALL tasks.done == NO"), Case("Tag", "ANY tasks.owner.name == 'Bob'"),
            Case("Tag", "ANY tasks == %@", id("review")), Case("Person", "ANY tasks.done == YES"), Case("Person", "ALL tasks.done == NO"),
            Case("Person", "NONE tasks.points > 5"), Case("Person", "tasks CONTAINS %@", id("deploy")), Case("Task", "tags.name CONTAINS 'linux'"),
            Case("Task", "'urgent' IN tags.name"), Case("Task", "ANY owner.tasks.title == 'deploy'"), Case("Task", "ALL owner.tasks.points > 2"),
        ]
        // Counts and aggregates
        let group9: [Case] = [
            Case("Task", "tags.@count == 0"), Case("Task", "tags.@count > 1"), Case("Task", "steps.@count == 3"), Case("Task", "tags[SIZE] == 2"),
            Case("Task", "steps.@count >= 1 AND done == NO"), Case("Task", "owner.tasks.@count > 1"), Case("Task", "owner.tasks.@count == nil"),
            Case("Person", "tasks.@count == 2"), Case("Person", "tasks.@sum.points > 10"), Case("Person", "tasks.@sum.points == 0"),
            Case("Person", "tasks.@avg.points > 5"), Case("Person", "tasks.@avg.points == nil"), Case("Person", "tasks.@min.points == 3"),
            Case("Person", "tasks.@max.points >= 13"), Case("Person", "tasks.@max.title == 'Write'"), Case("Person", "tasks.@min.title < 'b'"),
            Case("Tag", "tasks.@count >= 3"), Case("Tag", "tasks.@sum.points BETWEEN {10, 30}"),
        ]
        // SUBQUERY
        let group10: [Case] = [
            Case("Task", "SUBQUERY(tags, $t, $t.name BEGINSWITH 's').@count > 0"),
            Case("Task", "SUBQUERY(steps, $s, $s.text IN {'a', 'b'}).@count == 2"),
            Case("Task", "SUBQUERY(tags, $t, $t.name == 'swift' AND title == 'Write').@count == 1"),
            Case("Task", "SUBQUERY(tags, $t, ANY $t.tasks.points > 10).@count > 0"),
            Case("Person", "SUBQUERY(tasks, $t, $t.done == NO).@count == 2"),
            Case("Person", "SUBQUERY(tasks, $t, $t.points > 4 AND $t.tags.@count > 0).@count >= 1"),
            Case("Person", "SUBQUERY(tasks, $t, $t == %@).@count == 1", id("write")),
            Case("Tag", "SUBQUERY(tasks, $t, $t.owner.age > 30)[SIZE] > 0"),
            // Places in an ordered to-many relationship (write's steps are c, a, b; review's
            // draft, nil; release's one; the others' none).
            Case("Task", "steps[FIRST].text == 'c'"), Case("Task", "steps[LAST].text == 'b'"),
            Case("Task", "steps[LAST].text == nil"), Case("Task", "NOT steps[FIRST].text == 'c'"),
            Case("Task", "steps[FIRST].text BEGINSWITH 'd' OR steps[LAST].text == 'ship it'"),
            Case("Task", "steps[FIRST] == %@", id("s1")), Case("Task", "steps[LAST] == nil"),
        ]
        // Compounds and constants
        let group11: [Case] = [
            Case("Task", "(points > 3 AND done == NO) OR title BEGINSWITH 'R'"), Case("Task", "TRUEPREDICATE"), Case("Task", "FALSEPREDICATE"),
            Case("Task", "NOT (points > 3 OR owner == nil)"), Case("Task", "5 IN {1, 5}"), Case("Task", "'a' == 'b'"),
            Case("Task", "done == NO AND NOT (owner.name ==[c] 'ada' OR tags.@count == 0)"),
        ]
        // Sub-entities
        let group12: [Case] = [
            Case("Task", "deadline == nil"), Case("Task", "deadline != nil"), Case("Task", "deadline < %@", Date(timeIntervalSinceReferenceDate: 400_000)),
            Case("Milestone", "deadline > %@", Self.day0), Case("Milestone", "title != nil"),
        ]
        // Every attribute type
        let group13: [Case] = [
            Case("Sample", "decimal > 10"), Case("Sample", "decimal == 1.5"), Case("Sample", "decimal BETWEEN {0, 100}"),
            Case("Sample", "decimal < 0"), Case("Sample", "decimal == nil"), Case("Sample", "decimal IN {1.5, 2}"),
            Case("Sample", "decimal == %@", Decimal(string: "0.1")!), Case("Sample", "decimal == 0.1"), Case("Sample", "decimal >= %@", Decimal(2)),
            Case("Sample", "double > 0.5"), Case("Sample", "double == 0.1"), Case("Sample", "double == 0.3"), Case("Sample", "double < 0"),
            Case("Sample", "float < 2"), Case("Sample", "float == 1.5"), Case("Sample", "int16 == -3"), Case("Sample", "int16 < 0"),
            Case("Sample", "int64 > 1000000000000"), Case("Sample", "int32 BETWEEN {1000, 5000}"),
            Case("Sample", "date > %@", Date(timeIntervalSinceReferenceDate: 7000)), Case("Sample", "date == %@", Date(timeIntervalSinceReferenceDate: 3600)),
            Case("Sample", "date BETWEEN %@", [Date(timeIntervalSinceReferenceDate: 3600), Date(timeIntervalSinceReferenceDate: 10_800)]),
            Case("Sample", "date == nil"), Case("Sample", "date == 3600"),
            Case("Sample", "uuid == %@", UUID(uuidString: "00000000-0000-0000-0000-000000000002")!),
            Case("Sample", "uuid != %@", UUID(uuidString: "00000000-0000-0000-0000-000000000002")!),
            Case("Sample", "uuid IN %@", [UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "00000000-0000-0000-0000-000000000003")!]),
            Case("Sample", "uuid == nil"), Case("Sample", "uri == %@", URL(string: "https://example.org/4")!),
            Case("Sample", "data == %@", Data([3, 1])), Case("Sample", "flag == YES"), Case("Sample", "flag != NO"),
            Case("Sample", "string ==[c] 'abc'"), Case("Sample", "string MATCHES '\\\\d+'"), Case("Sample", "string CONTAINS[d] 'E'"),
            Case("Sample", "string ==[cd] 'eclair'"), Case("Sample", "string BEGINSWITH[c] 'ÉC'"), Case("Sample", "string < 'a'"),
            Case("Sample", "string == ''"), Case("Sample", "noindex:(string) == 'abc'"),
        ]
        // Arithmetic: nil gives nil; integers stay integers, turning to reals on overflow; a
        // quotient is a real; decimals stay exact; a date takes seconds added to it.
        let group14: [Case] = [
            Case("Task", "points + 1 > 5"), Case("Task", "points * 2 == 10"), Case("Task", "points - 3 < 0"),
            Case("Task", "points / 2 > 2.5"), Case("Task", "points / 2 == 2.5"), Case("Task", "modulus:by:(points, 3) == 1"),
            Case("Task", "points ** 2 > 50"), Case("Task", "points * 2 == nil"), Case("Task", "points + nil == nil"),
            Case("Task", "NOT points * 2 > 10"), Case("Task", "owner.age * 2 > 60"), Case("Task", "points + owner.age > 40"),
            Case("Task", "points * %@ < 10", 1.5), Case("Task", "10 - points >= 5"), Case("Task", "(points + 1) * 2 IN {8, 12}"),
            Case("Person", "tasks.@count * 10 > 15"), Case("Person", "tasks.@sum.points / 2 > 5"),
            Case("Sample", "int64 * 2 > 4000000000000"), Case("Sample", "int64 * 10000000 > 0"), Case("Sample", "modulus:by:(int16, 2) == -1"), Case("Sample", "modulus:by:(double, 1) > 0.2"),
            Case("Sample", "decimal + 1 > 2.5"), Case("Sample", "decimal * 2 == 3"), Case("Sample", "decimal / 3 > 0.5"),
            Case("Sample", "decimal + %@ == 2.6", Decimal(string: "1.1")!), Case("Sample", "double + 0.2 > 0.3"),
            Case("Sample", "float * 2 == 3"), Case("Sample", "date + 3600 > %@", Date(timeIntervalSinceReferenceDate: 7200)),
            Case("Sample", "date + 1800 == %@", Date(timeIntervalSinceReferenceDate: 5400)),
            Case("Sample", "date < %@ + 7200", Date(timeIntervalSinceReferenceDate: 3600)),
        ]
        return group0 + group1 + group2 + group3 + group4 + group5 + group6 + group7 + group8 + group9 + group10 + group11 + group12 + group13
            + group14
    }

    func testSQLiteAnswersEveryPredicateOfTheBatteryAsTheEvaluatorDoes() throws {
        let pair = try Pair()
        let cases = battery(pair)
        XCTAssertGreaterThanOrEqual(cases.count, 150)
        var failures: [String] = []
        var selective = 0
        for item in cases {
            var request = StoreFetchRequest(entity: pair.entity(item.entity))
            do {
                request.predicate = try Predicate(format: item.format, argumentArray: item.arguments)
                let (expected, actual) = try pair.answers(request)
                request.predicate = nil
                if !expected.isEmpty, expected.count < (try pair.answers(request)).memory.count { selective += 1 }
                if Set(expected) != Set(actual) {
                    failures.append("\(item.entity) \(item.format): in memory \(names(expected, pair)), SQLite \(names(actual, pair))")
                }
            } catch {
                failures.append("\(item.entity) \(item.format): \(error)")
            }
        }
        XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(cases.count) differ:\n" + failures.joined(separator: "\n"))
        XCTAssertGreaterThan(selective, cases.count * 2 / 3, "most predicates should keep some rows and drop others")
    }

    /// The names of the fixture's rows, for messages.
    private func names(_ ids: [ObjectID], _ pair: Pair) -> String {
        let byID = Dictionary(pair.ids.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return "[" + ids.map { byID[$0] ?? "\($0)" }.joined(separator: ", ") + "]"
    }

    func testSQLiteSortsAsTheInMemorySortDoes() throws {
        let pair = try Pair()
        let sorts: [(String, [ObjectGraph.SortDescriptor])] = [
            ("Task", [ObjectGraph.SortDescriptor(key: "title")]), ("Task", [ObjectGraph.SortDescriptor(key: "title", ascending: false)]),
            ("Task", [ObjectGraph.SortDescriptor(key: "title", comparison: .caseInsensitive)]),
            ("Task", [ObjectGraph.SortDescriptor(key: "title", comparison: .localized)]),
            ("Task", [ObjectGraph.SortDescriptor(key: "title", comparison: .localizedCaseInsensitive)]),
            ("Task", [ObjectGraph.SortDescriptor(key: "title", comparison: .localizedStandard)]),
            ("Task", [ObjectGraph.SortDescriptor(key: "points", ascending: false), ObjectGraph.SortDescriptor(key: "title")]),
            ("Task", [ObjectGraph.SortDescriptor(key: "owner.name"), ObjectGraph.SortDescriptor(key: "title", ascending: false)]),
            ("Task", [ObjectGraph.SortDescriptor(key: "deadline")]), ("Task", [ObjectGraph.SortDescriptor(key: "done"), ObjectGraph.SortDescriptor(key: "points")]),
            ("Task", [ObjectGraph.SortDescriptor(key: "tags.@count", ascending: false)]), ("Task", [ObjectGraph.SortDescriptor(key: "owner")]),
            ("Task", [ObjectGraph.SortDescriptor(key: "owner.age", ascending: false), ObjectGraph.SortDescriptor(key: "code")]),
            ("Person", [ObjectGraph.SortDescriptor(key: "age")]), ("Person", [ObjectGraph.SortDescriptor(key: "email", ascending: false)]),
            ("Person", [ObjectGraph.SortDescriptor(key: "name", comparison: .localizedCaseInsensitive)]),
            ("Person", [ObjectGraph.SortDescriptor(key: "tasks.@sum.points")]),
            ("Sample", [ObjectGraph.SortDescriptor(key: "decimal")]), ("Sample", [ObjectGraph.SortDescriptor(key: "date", ascending: false)]),
            ("Sample", [ObjectGraph.SortDescriptor(key: "uuid")]), ("Sample", [ObjectGraph.SortDescriptor(key: "string", comparison: .caseInsensitive)]),
            ("Sample", [ObjectGraph.SortDescriptor(key: "double")]), ("Step", [ObjectGraph.SortDescriptor(key: "task.title"), ObjectGraph.SortDescriptor(key: "text")]),
        ]
        for (entity, descriptors) in sorts {
            var request = StoreFetchRequest(entity: pair.entity(entity))
            request.sortDescriptors = descriptors
            let (expected, actual) = try pair.answers(request)
            XCTAssertEqual(names(actual, pair), names(expected, pair), "\(entity) \(descriptors)")
            request.fetchOffset = 2
            request.fetchLimit = 3
            let (windowExpected, windowActual) = try pair.answers(request)
            XCTAssertEqual(names(windowActual, pair), names(windowExpected, pair), "\(entity) \(descriptors) offset 2 limit 3")
        }
    }

    func testEntitiesWithoutTheirSubEntitiesAndPartialSnapshotsMatch() throws {
        let pair = try Pair()
        var request = StoreFetchRequest(entity: pair.entity("Task"))
        request.includesSubentities = false
        request.predicate = try Predicate(format: "points > 1")
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "points", ascending: false)]
        let (expected, actual) = try pair.answers(request)
        XCTAssertEqual(names(actual, pair), names(expected, pair))
        XCTAssertFalse(actual.contains { $0.entity.name == "Milestone" })
        request.resultType = .snapshots
        request.propertiesToFetch = [pair.sqlite.property("Task", "title"), pair.sqlite.property("Task", "owner")]
        guard case .snapshots(let memoryRows) = try pair.memory.execute(request),
              case .snapshots(let sqliteRows) = try pair.sqlite.store.execute(request) else { return XCTFail("no snapshots") }
        XCTAssertEqual(sqliteRows.map(\.valuesByName), memoryRows.map(\.valuesByName))
        XCTAssertEqual(sqliteRows.first?.value(forKey: "points"), .unloaded)
    }

    func testCountsMatchTheObjectsFetched() throws {
        let pair = try Pair()
        for format in ["points > 3", "ANY tags.name == 'swift'", "owner == nil", "TRUEPREDICATE"] {
            var request = StoreFetchRequest(entity: pair.entity("Task"))
            request.predicate = try Predicate(format: format)
            let (expected, _) = try pair.answers(request)
            XCTAssertEqual(try pair.sqlite.count(request), expected.count, format)
            request.fetchLimit = 2
            XCTAssertEqual(try pair.sqlite.count(request), min(2, expected.count), format)
        }
    }

    /// A division by zero fails the fetch with the evaluator's error in both stores: SQLite's
    /// own `/` would answer NULL, so the quotient goes through the evaluator's code.
    func testADivisionByZeroFailsTheFetchInBothStoresWithTheEvaluatorsError() throws {
        let pair = try Pair()
        var request = StoreFetchRequest(entity: pair.entity("Task"))
        request.predicate = try Predicate(format: "points / (points - points) > 1")
        for store in [pair.memory, pair.sqlite.store] as [any PersistentStore] {
            XCTAssertThrowsError(try pair.ids(request, from: store), "\(type(of: store))") { error in
                XCTAssertTrue("\(error)".contains("division by zero"), "\(type(of: store)): \(error)")
            }
        }
    }

    /// `[n]` past the end of a list: the evaluator throws (as Core Data raises), SQL finds no
    /// member, as for `[FIRST]` of an empty list (its key reads nil); within the list both agree.
    func testAnIndexIntoAnOrderedRelationshipPicksThatMember() throws {
        let pair = try Pair()
        var request = StoreFetchRequest(entity: pair.entity("Task"))
        request.predicate = try Predicate(format: "steps[1].text == 'a'")
        XCTAssertEqual(names(try pair.sqlite.ids(request), pair), "[write]")
        request.predicate = try Predicate(format: "steps[2].text == 'b' AND steps[0] == %@", argumentArray: [pair.ids["s1"]!])
        XCTAssertEqual(names(try pair.sqlite.ids(request), pair), "[write]")
        request.predicate = try Predicate(format: "steps[5].text != nil")
        XCTAssertEqual(try pair.sqlite.ids(request), [], "no member there: its key reads nil")
    }

    func testWhatSQLCannotExpressIsRefusedNamingTheConstruct() throws {
        let pair = try Pair()
        let refused: [(String, String)] = [
            ("Task", "title + 1 > 5"), ("Task", "1 + deadline > 5"), ("Task", "deadline - 5 > %@"), ("Task", "FUNCTION(title, 'uppercaseString') == 'W'"), ("Task", "TERNARY(done == YES, 1, 0) == 1"),
            ("Task", "nickname == 'x'"), ("Person", "nickname == 'x'"), ("Task", "ANY tags.tasks.title == 'x'"), ("Task", "tags.name == 'x'"),
            ("Task", "title < 5"), ("Task", "SELF isKindOfClass: %@"), ("Task", "SUBQUERY(tags, $t, $t.name == 'x')[FIRST] == nil"),
            ("Task", "$unbound == 1"), ("Task", "owner < %@"), ("Person", "tasks[FIRST].title == 'x'"), ("Task", "tags[LAST] == nil"),
        ]
        for (entity, format) in refused {
            var request = StoreFetchRequest(entity: pair.entity(entity))
            request.predicate = try Predicate(format: format, argumentArray: [TypeName("NSNumber")])
            XCTAssertThrowsError(try pair.sqlite.ids(request), format) { error in
                guard case StoreError.unsupportedRequest(let reason) = error else { return XCTFail("\(format): \(error)") }
                XCTAssertTrue(reason.contains("cannot translate") || reason.contains("cannot evaluate"), "\(format): \(reason)")
            }
        }
    }
}
