// A fetch answers what Core Data answers, the same on both stores, and the
// same whether the objects it finds are saved, unsaved inserts, or saved objects changed in
// memory (includesPendingChanges re-evaluates them), with sorting, windows, result types,
// batches and dictionary results.
import Foundation
import XCTest
@testable import ObjectGraph

private typealias Sort = ObjectGraph.SortDescriptor

final class FetchAgreementTests: XCTestCase {
    // MARK: A graph built three ways

    /// How the graph is in the context that fetches.
    enum Mode: String, CaseIterable {
        /// Saved, fetched from a fresh context (the store answers).
        case saved
        /// Inserted, not saved (the objects answer, evaluated in memory).
        case pending
        /// Saved with other values and no relationships, then given the graph's values in memory
        /// (the store holds stale rows; the updated objects must be re-evaluated).
        case updated
    }

    static let d1 = Date(timeIntervalSinceReferenceDate: 700_000_000)
    static let d2 = Date(timeIntervalSinceReferenceDate: 710_000_000)
    static let d3 = Date(timeIntervalSinceReferenceDate: 720_000_000)

    /// Person key → values.
    nonisolated(unsafe) static let people: [(String, [String: Any?])] = [
        ("ada", ["firstName": "Ada", "lastName": "Lovelace", "email": "ada@x.org", "birthday": d1]),
        ("bob", ["firstName": "bob", "lastName": nil, "email": nil, "birthday": nil]),
        ("emile", ["firstName": "Émile", "lastName": "Zola", "email": "e@z.fr", "birthday": d3]),
        ("zoe", ["firstName": "Zoë", "lastName": "lovelace", "email": nil, "birthday": d2]),
        ("nobody", ["firstName": "Nobody", "lastName": "", "email": nil, "birthday": nil]),
    ]

    /// Task key → values, owner key, event key.
    nonisolated(unsafe) static let tasks: [(String, [String: Any?], String?, String?)] = [
        ("alpha", ["title": "Alpha", "priority": 1, "done": false, "due": d1, "notes": "first"], "ada", "meeting"),
        ("beta", ["title": "beta", "priority": 3, "done": false, "due": nil, "notes": nil], "ada", nil),
        ("gamma", ["title": "Gamma", "priority": 3, "done": true, "due": d2, "notes": ""], "bob", "meeting"),
        ("delta", ["title": "Délta", "priority": 0, "done": false, "due": d3, "notes": nil], nil, nil),
        ("file2", ["title": "file2", "priority": 2, "done": true, "due": nil, "notes": "x"], "emile", "party"),
        ("file10", ["title": "File10", "priority": 2, "done": false, "due": d1, "notes": nil], "emile", nil),
        ("cafe", ["title": "café", "priority": 1, "done": false, "due": d2, "notes": "100%_off"], "zoe", nil),
        ("cafe2", ["title": "CAFE", "priority": 0, "done": true, "due": nil, "notes": nil], nil, "party"),
        ("wild", ["title": "a*b?", "priority": 2, "done": false, "due": d3, "notes": nil], "zoe", nil),
    ]

    /// Event key → values, attendee keys.
    nonisolated(unsafe) static let events: [(String, [String: Any?], [String])] = [
        ("meeting", ["title": "Meeting", "location": "Room 1", "start": d1, "end": d2], ["ada", "bob"]),
        ("party", ["title": "party", "location": nil, "start": d2, "end": nil], ["zoe"]),
        ("lonely", ["title": "Lonely", "location": "", "start": d3, "end": nil], []),
    ]

    /// A built graph: the context that fetches and the key of every object ID.
    struct Graph {
        let stack: Stack
        let context: ManagedObjectContext
        var keys: [ObjectID: String]
        var objects: [String: ManagedObject]

        func label(_ object: ManagedObject) -> String { keys[object.objectID] ?? "?\(object.objectID)" }
        func label(_ id: ObjectID) -> String { keys[id] ?? "?\(id)" }
    }

    private func set(_ object: ManagedObject, _ values: [String: Any?]) {
        for (key, value) in values { object.setValue(value, forKey: key) }
    }

    /// The graph above in a fresh stack of `type`, as `mode` says.
    func build(_ type: StoreType, _ mode: Mode) throws -> Graph {
        let stack = try Stack(storeType: type)
        let context = stack.context
        var objects: [String: ManagedObject] = [:]
        let final = mode != .updated
        for (index, (key, values)) in Self.people.enumerated() {
            let person = context.insertNewObject(forEntityName: "Person")
            set(person, final ? values : ["firstName": "p\(index)"])
            objects[key] = person
        }
        for (index, (key, values, _, _)) in Self.tasks.enumerated() {
            let task = context.insertNewObject(forEntityName: "Task")
            task.setValue(UUID(), forKey: "uuid")
            set(task, final ? values : ["title": "t\(index)", "priority": 0])
            objects[key] = task
        }
        for (index, (key, values, _)) in Self.events.enumerated() {
            let event = context.insertNewObject(forEntityName: "Event")
            event.setValue(UUID(), forKey: "uuid")
            set(event, final ? values : ["title": "e\(index)", "start": Self.d3])
            objects[key] = event
        }
        func relate() {
            for (key, _, owner, event) in Self.tasks {
                objects[key]!.setValue(owner.map { objects[$0]! }, forKey: "owner")
                objects[key]!.setValue(event.map { objects[$0]! }, forKey: "event")
            }
            for (key, _, attendees) in Self.events {
                objects[key]!.setValue(Set(attendees.map { objects[$0]! }), forKey: "attendees")
            }
        }
        switch mode {
        case .saved:
            relate()
            try context.save()
            var keys: [ObjectID: String] = [:]
            for (key, object) in objects { keys[object.objectID] = key }
            return Graph(stack: stack, context: stack.newContext(), keys: keys, objects: [:])
        case .pending:
            relate()
        case .updated:
            try context.save()
            for (key, values) in Self.people { set(objects[key]!, values) }
            for (key, values, _, _) in Self.tasks { set(objects[key]!, values) }
            for (key, values, _) in Self.events { set(objects[key]!, values) }
            relate()
        }
        var keys: [ObjectID: String] = [:]
        for (key, object) in objects { keys[object.objectID] = key }
        return Graph(stack: stack, context: context, keys: keys, objects: objects)
    }

    /// Every store type with every mode, built once per test.
    func allGraphs() throws -> [(String, Graph)] {
        var graphs: [(String, Graph)] = []
        for type in Stack.storeTypes {
            for mode in Mode.allCases { graphs.append(("\(type)/\(mode.rawValue)", try build(type, mode))) }
        }
        return graphs
    }

    /// The labels `request` fetches in every graph, with its count and its object IDs checked
    /// against the objects; failures name the graph whose answer differs from the first one's.
    private func assertAllAgree(_ graphs: [(String, Graph)], _ entity: String, _ format: String, _ arguments: [Any?] = [],
                                sortedBy sorts: [Sort] = [], expected: [String]? = nil,
                                file: StaticString = #filePath, line: UInt = #line) {
        var answers: [(String, [String])] = []
        for (name, graph) in graphs {
            do {
                var request = FetchRequest<ManagedObject>(entityName: entity)
                if !format.isEmpty { request.predicate = try Predicate(format: format, argumentArray: arguments) }
                request.sortDescriptors = sorts
                let objects = try graph.context.fetch(request).map(graph.label)
                var idRequest = FetchRequest<ObjectID>(entityName: entity)
                idRequest.predicate = request.predicate
                idRequest.sortDescriptors = sorts
                let ids = try graph.context.fetch(idRequest).map(graph.label)
                let count = try graph.context.count(for: request)
                let answer = sorts.isEmpty ? objects.sorted() : objects
                answers.append((name, answer))
                XCTAssertEqual(sorts.isEmpty ? ids.sorted() : ids, answer, "\(format) in \(name): IDs differ from objects", file: file, line: line)
                XCTAssertEqual(count, objects.count, "\(format) in \(name): count differs", file: file, line: line)
            } catch {
                XCTFail("\(format) in \(name) threw \(error)", file: file, line: line)
            }
        }
        guard let (firstName, first) = answers.first else { return }
        if let expected {
            for (name, answer) in answers where answer != (sorts.isEmpty ? expected.sorted() : expected) {
                XCTFail("\(entity) \(format) \(sorts): \(name) answered \(answer), expected \(expected)", file: file, line: line)
            }
        } else {
            for (name, answer) in answers.dropFirst() where answer != first {
                XCTFail("\(entity) \(format) \(sorts): \(name) answered \(answer), \(firstName) answered \(first)", file: file, line: line)
            }
        }
    }

    // MARK: Predicates: store SQL, stored rows in memory, and objects in memory agree

    func testTaskPredicatesAgreeOnEveryStoreSavedOrPending() throws {
        let graphs = try allGraphs()
        let cases: [(String, [Any?], [String]?)] = [
            ("owner.firstName == 'Ada'", [], ["alpha", "beta"]),
            ("owner.lastName == nil", [], ["gamma", "delta", "cafe2"]),
            ("NOT (owner.firstName == 'Ada')", [], nil),
            ("owner.firstName != 'Ada'", [], nil),
            ("owner == nil", [], ["delta", "cafe2"]),
            ("owner != nil AND event == nil", [], ["beta", "file10", "cafe", "wild"]),
            ("title BEGINSWITH[cd] 'de'", [], ["delta"]),
            ("title BEGINSWITH 'de'", [], []),
            ("title CONTAINS[c] 'A'", [], nil),
            ("title LIKE[c] '*a'", [], ["alpha", "beta", "gamma", "delta"]),
            ("title LIKE 'file?'", [], ["file2"]),
            ("title LIKE[c] 'a\\\\*b\\\\?'", [], nil),
            ("title MATCHES '[Ff]ile[0-9]+'", [], ["file2", "file10"]),
            ("title MATCHES[c] 'file.*'", [], ["file2", "file10"]),
            ("title ENDSWITH[d] 'e'", [], ["cafe"]),
            ("title ==[cd] 'cafe'", [], ["cafe", "cafe2"]),
            ("title ==[c] 'cafe'", [], ["cafe2"]),
            ("title IN {'Alpha', 'beta', 'nothing'}", [], ["alpha", "beta"]),
            ("title IN[c] {'ALPHA', 'Beta'}", [], ["alpha", "beta"]),
            ("title IN %@", [["Gamma", "File10"]], ["gamma", "file10"]),
            ("priority IN %@", [Set([0, 3])], ["beta", "gamma", "delta", "cafe2"]),
            ("priority BETWEEN {1, 2}", [], ["alpha", "file2", "file10", "cafe", "wild"]),
            ("priority == 3.0", [], ["beta", "gamma"]),
            ("priority > 2.5", [], ["beta", "gamma"]),
            ("due < %@", [Self.d2], ["alpha", "file10"]),
            ("due == nil", [], ["beta", "file2", "cafe2"]),
            ("due != nil AND due <= %@", [Self.d2], ["alpha", "gamma", "file10", "cafe"]),
            ("due BETWEEN %@", [[Self.d1, Self.d2]], ["alpha", "gamma", "file10", "cafe"]),
            ("due == %@", [Self.d3], ["delta", "wild"]),
            ("done == YES", [], ["gamma", "file2", "cafe2"]),
            ("done == NO", [], nil),
            ("done == 1", [], ["gamma", "file2", "cafe2"]),
            ("done != YES", [], nil),
            ("notes == nil", [], ["beta", "delta", "file10", "cafe2", "wild"]),
            ("notes == ''", [], ["gamma"]),
            ("notes != nil", [], ["alpha", "gamma", "file2", "cafe"]),
            ("notes LIKE '*%_*'", [], ["cafe"]),
            ("owner.tasks.@count > 1", [], nil),
            ("owner.tasks.@count == 2 AND owner.firstName BEGINSWITH[cd] 'e'", [], ["file2", "file10"]),
            ("event.title == 'Meeting'", [], ["alpha", "gamma"]),
            ("event.location == nil", [], nil),
            ("ANY event.attendees.firstName ==[c] 'BOB'", [], ["alpha", "gamma"]),
            ("event.attendees.@count == 1", [], ["file2", "cafe2"]),
            ("owner.events.@count == 1", [], nil),
            ("priority > 1 AND (owner == nil OR done == YES)", [], ["gamma", "file2"]),
            ("title < 'a'", [], nil),
            ("title >[c] 'c'", [], nil),
            ("title <[cd] 'delta'", [], nil),
            ("SELF.title == 'Alpha'", [], ["alpha"]),
            ("owner.birthday > %@", [Self.d1], ["file2", "file10", "cafe", "wild"]),
            ("owner.lastName ==[c] 'LOVELACE'", [], ["alpha", "beta", "cafe", "wild"]),
            ("NOT (title IN {'Alpha', 'beta'})", [], nil),
            ("owner.lastName != 'Lovelace'", [], nil),
            ("NOT (owner.lastName IN {'Zola'})", [], ["alpha", "beta", "gamma", "delta", "cafe", "cafe2", "wild"]),
            ("NOT (due IN %@)", [[Self.d1]], ["beta", "gamma", "delta", "file2", "cafe", "cafe2", "wild"]),
            ("NOT (owner.firstName BEGINSWITH 'A')", [], ["gamma", "delta", "file2", "file10", "cafe", "cafe2", "wild"]),
            ("NOT (notes CONTAINS 'x')", [], ["alpha", "beta", "gamma", "delta", "file10", "cafe", "cafe2", "wild"]),
            ("NOT (due < %@)", [Self.d2], ["beta", "gamma", "delta", "file2", "cafe", "cafe2", "wild"]),
            ("NOT (owner.birthday > %@)", [Self.d1], ["alpha", "beta", "gamma", "delta", "cafe2"]),
            ("NOT (priority BETWEEN {1, 2})", [], ["beta", "gamma", "delta", "cafe2"]),
            ("NOT (event.title IN %@)", [["Meeting"]], ["beta", "delta", "file2", "file10", "cafe", "cafe2", "wild"]),
        ]
        for (format, arguments, expected) in cases {
            assertAllAgree(graphs, "Task", format, arguments, expected: expected)
        }
    }

    func testPersonAndEventPredicatesOverToManyAgreeOnEveryStoreSavedOrPending() throws {
        let graphs = try allGraphs()
        let cases: [(String, String, [Any?], [String]?)] = [
            ("Person", "ANY tasks.priority == 3", [], ["ada", "bob"]),
            ("Person", "ALL tasks.priority >= 2", [], ["bob", "emile", "nobody"]),
            ("Person", "NONE tasks.done == YES", [], ["ada", "zoe", "nobody"]),
            ("Person", "NOT (ANY tasks.done == YES)", [], ["ada", "zoe", "nobody"]),
            ("Person", "tasks.@count == 0", [], ["nobody"]),
            ("Person", "tasks.@count >= 2", [], ["ada", "emile", "zoe"]),
            ("Person", "tasks.@max.priority == 3", [], ["ada", "bob"]),
            ("Person", "tasks.@min.priority == 1", [], ["ada", "zoe"]),
            ("Person", "tasks.@sum.priority >= 4", [], ["ada", "emile"]),
            ("Person", "tasks.@avg.priority > 1.5", [], ["ada", "bob", "emile"]),
            ("Person", "tasks.@max.due == %@", [Self.d3], ["zoe"]),
            ("Person", "SUBQUERY(tasks, $t, $t.done == NO AND $t.priority >= 1).@count == 2", [], ["ada", "zoe"]),
            ("Person", "SUBQUERY(tasks, $t, $t.event != nil).@count > 0", [], ["ada", "bob", "emile"]),
            ("Person", "SUBQUERY(tasks, $t, $t.due == nil).@count == 0", [], ["bob", "zoe", "nobody"]),
            ("Person", "ANY tasks.title LIKE[c] 'file*'", [], ["emile"]),
            ("Person", "ANY tasks.title ==[cd] 'CAFE'", [], ["zoe"]),
            ("Person", "ANY tasks.due == nil", [], ["ada", "emile"]),
            ("Person", "ANY tasks.due < %@", [Self.d2], ["ada", "emile"]),
            ("Person", "ANY tasks.title IN {'beta', 'Gamma'}", [], ["ada", "bob"]),
            ("Person", "ANY events.title == 'Meeting'", [], ["ada", "bob"]),
            ("Person", "events.@count == 0", [], ["emile", "nobody"]),
            ("Person", "ANY tasks.event.title ==[c] 'PARTY'", [], ["emile"]),
            ("Person", "lastName ==[c] 'LOVELACE'", [], ["ada", "zoe"]),
            ("Person", "lastName != 'Lovelace'", [], nil),
            ("Person", "lastName == ''", [], ["nobody"]),
            ("Person", "lastName BEGINSWITH 'L'", [], ["ada"]),
            ("Person", "firstName IN %@", [["Ada", "Zoë"]], ["ada", "zoe"]),
            ("Person", "firstName ==[d] 'Zoe'", [], ["zoe"]),
            ("Person", "firstName ==[cd] 'EMILE'", [], ["emile"]),
            ("Person", "firstName < 'a'", [], nil),
            ("Person", "email MATCHES '.*@x\\\\.org'", [], ["ada"]),
            ("Person", "birthday == nil OR birthday > %@", [Self.d2], ["bob", "emile", "nobody"]),
            ("Person", "tasks.@count > 0 AND ALL tasks.done == NO", [], ["ada", "zoe"]),
            ("Event", "attendees.@count == 2", [], ["meeting"]),
            ("Event", "ANY attendees.lastName == nil", [], ["meeting"]),
            ("Event", "ANY preparation.owner.firstName == 'Ada'", [], ["meeting"]),
            ("Event", "location == nil", [], ["party"]),
            ("Event", "location == ''", [], ["lonely"]),
            ("Event", "end == nil", [], ["party", "lonely"]),
            ("Event", "SUBQUERY(attendees, $p, $p.tasks.@count > 1).@count > 0", [], ["meeting", "party"]),
            ("Event", "preparation.@count == 0", [], ["lonely"]),
            ("Item", "title BEGINSWITH[c] 'm'", [], ["meeting"]),
            ("Item", "title ENDSWITH[c] 'a'", [], ["alpha", "beta", "gamma", "delta"]),
        ]
        for (entity, format, arguments, expected) in cases {
            assertAllAgree(graphs, entity, format, arguments, expected: expected)
        }
    }

    /// `ALL attendees.tasks.@count >= 2`: key-value coding reads the key path as one number
    /// (the count of the members' collections), which no quantifier takes. The SQLite store
    /// answered per attendee, the in-memory store threw, and unsaved objects silently failed to
    /// match: now every store and the pending objects refuse it.
    func testOneToManyCountUnderALLIsRefusedAlike() throws {
        for (name, graph) in try allGraphs() {
            var request = FetchRequest<ManagedObject>(entityName: "Event")
            request.predicate = try Predicate(format: "ALL attendees.tasks.@count >= 2")
            XCTAssertThrowsError(try graph.context.fetch(request), "\(name) answered")
            XCTAssertThrowsError(try graph.context.count(for: request), "\(name) counted")
        }
    }

    /// Predicates with managed objects as constants (IN with arrays and sets, CONTAINS on a
    /// to-many, NOT IN with a nil to-one), the objects taken from the fetching context.
    func testPredicatesWithObjectConstantsAgreeOnEveryStoreSavedOrPending() throws {
        for (name, graph) in try allGraphs() {
            var byKey: [String: ManagedObject] = [:]
            for (id, key) in graph.keys { byKey[key] = graph.context.object(with: id) }
            func o(_ key: String) -> ManagedObject { byKey[key]! }
            let cases: [(String, String, [Any?], [String])] = [
                ("Task", "owner IN %@", [[o("ada"), o("zoe")]], ["alpha", "beta", "cafe", "wild"]),
                ("Task", "owner IN %@", [Set([o("bob")])], ["gamma"]),
                ("Task", "SELF IN %@", [Set([o("alpha"), o("delta")])], ["alpha", "delta"]),
                ("Task", "owner == %@ AND event != %@", [o("ada"), o("meeting")], ["beta"]),
                ("Task", "owner != %@", [o("ada")], ["gamma", "delta", "file2", "file10", "cafe", "cafe2", "wild"]),
                ("Task", "event.attendees CONTAINS %@", [o("bob")], ["alpha", "gamma"]),
                ("Person", "tasks CONTAINS %@", [o("alpha")], ["ada"]),
                ("Person", "ANY tasks == %@", [o("gamma")], ["bob"]),
                ("Person", "NONE tasks IN %@", [[o("alpha"), o("file2")]], ["bob", "zoe", "nobody"]),
                ("Event", "%@ IN attendees", [o("zoe")], ["party"]),
                ("Event", "ANY attendees IN %@", [Set([o("bob"), o("emile")])], ["meeting"]),
            ]
            for (entity, format, arguments, expected) in cases {
                do {
                    var request = FetchRequest<ManagedObject>(entityName: entity)
                    request.predicate = try Predicate(format: format, argumentArray: arguments)
                    XCTAssertEqual(try graph.context.fetch(request).map(graph.label).sorted(), expected.sorted(), "\(entity) \(format) in \(name)")
                    XCTAssertEqual(try graph.context.count(for: request), expected.count, "count of \(entity) \(format) in \(name)")
                } catch {
                    XCTFail("\(entity) \(format) in \(name) threw \(error)")
                }
            }
        }
    }

    /// UUIDs order by their 16 bytes (as NSUUID's compare(_:) and SQLite's blobs do): `<`, `>=`
    /// and BETWEEN agree on every store with the byte order computed here, which is what lets a
    /// prefix of a UUID be looked up as a range on its index.
    func testUUIDComparisonsOrderByTheBytesOnEveryStore() throws {
        func bytes(_ uuid: UUID) -> [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }
        for (name, graph) in try allGraphs() {
            let uuids = graph.keys.filter { id, _ in id.entity.name == "Task" }
                .map { id, key in (key, graph.context.object(with: id).value(forKey: "uuid") as! UUID) }
                .sorted { bytes($0.1).lexicographicallyPrecedes(bytes($1.1)) }
            let (low, middle, high) = (uuids[2].1, uuids[4].1, uuids[6].1)
            let cases: [(String, [Any?], [String])] = [
                ("uuid < %@", [middle], uuids[..<4].map(\.0)),
                ("uuid >= %@", [middle], uuids[4...].map(\.0)),
                ("uuid BETWEEN %@", [[low, high]], uuids[2...6].map(\.0)),
                ("uuid > %@ AND uuid <= %@", [low, high], uuids[3...6].map(\.0)),
            ]
            for (format, arguments, expected) in cases {
                do {
                    var request = FetchRequest<ManagedObject>(entityName: "Task")
                    request.predicate = try Predicate(format: format, argumentArray: arguments)
                    XCTAssertEqual(try graph.context.fetch(request).map(graph.label).sorted(), expected.sorted(), "\(format) in \(name)")
                    XCTAssertEqual(try graph.context.count(for: request), expected.count, "count of \(format) in \(name)")
                } catch {
                    XCTFail("\(format) in \(name) threw \(error)")
                }
            }
        }
    }

    /// `NOT (owner IN %@)`: a task without an owner is not among the objects, so it matches, as
    /// the evaluator, the in-memory store and `owner != %@` on SQLite all answer. The SQLite
    /// store leaves it out (`NULL IN (...)` is NULL, and so is its negation).
    func testNotInWithObjectsMatchesANilToOneOnEveryStore() throws {
        for (name, graph) in try allGraphs() {
            var byKey: [String: ManagedObject] = [:]
            for (id, key) in graph.keys { byKey[key] = graph.context.object(with: id) }
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.predicate = try Predicate(format: "NOT (owner IN %@)", [byKey["ada"]!])
            XCTAssertEqual(try graph.context.fetch(request).map(graph.label).sorted(),
                           ["cafe", "cafe2", "delta", "file10", "file2", "gamma", "wild"], name)
            XCTAssertEqual(try graph.context.count(for: request), 7, name)
        }
    }

    // MARK: Sorting

    func testSortOrdersAgreeOnEveryStoreSavedOrPending() throws {
        let graphs = try allGraphs()
        var sorts: [([Sort], [String]?)] = []
        sorts.append(([Sort(key: "priority", ascending: false), Sort(key: "title")], nil))
        sorts.append(([Sort(key: "title")], ["alpha", "cafe2", "delta", "file10", "gamma", "wild", "beta", "cafe", "file2"]))
        sorts.append(([Sort(key: "title", comparison: .caseInsensitive)], nil))
        sorts.append(([Sort(key: "title", comparison: .localizedStandard)], nil))
        sorts.append(([Sort(key: "title", ascending: false, comparison: .localizedCaseInsensitive)], nil))
        sorts.append(([Sort(key: "due"), Sort(key: "title")], ["cafe2", "beta", "file2", "alpha", "file10", "gamma", "cafe", "delta", "wild"]))
        sorts.append(([Sort(key: "due", ascending: false), Sort(key: "title")], ["delta", "wild", "gamma", "cafe", "alpha", "file10", "cafe2", "beta", "file2"]))
        sorts.append(([Sort(key: "owner.firstName"), Sort(key: "title", ascending: false)], nil))
        sorts.append(([Sort(key: "owner.lastName", ascending: false), Sort(key: "title")], nil))
        sorts.append(([Sort(key: "event.title"), Sort(key: "owner.firstName"), Sort(key: "title")], nil))
        sorts.append(([Sort(key: "done"), Sort(key: "priority"), Sort(key: "title")], nil))
        sorts.append(([Sort(key: "notes"), Sort(key: "title")], nil))
        sorts.append(([Sort(key: "owner.birthday", ascending: false), Sort(key: "title")], nil))
        for (descriptors, expected) in sorts {
            assertAllAgree(graphs, "Task", "", sortedBy: descriptors, expected: expected)
        }
        assertAllAgree(graphs, "Person", "", sortedBy: [Sort(key: "lastName"), Sort(key: "firstName")],
                       expected: ["bob", "nobody", "ada", "emile", "zoe"])
        assertAllAgree(graphs, "Person", "", sortedBy: [Sort(key: "firstName", comparison: .caseInsensitive)], expected: nil)
        assertAllAgree(graphs, "Item", "", sortedBy: [Sort(key: "title", comparison: .caseInsensitive), Sort(key: "title")],
                       expected: nil)
    }

    // MARK: Pending changes with windows, counts, IDs and batches

    /// Every path a request can take (objects, IDs, count, count result type, batched), before
    /// a save and, for the same request, in a fresh context after the save: the same objects.
    private func assertSameBeforeAndAfterSave(_ stack: Stack, _ request: FetchRequest<ManagedObject>,
                                              file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try stack.context.fetch(request)
        var idRequest = FetchRequest<ObjectID>(entityName: request.entityName)
        idRequest.predicate = request.predicate
        idRequest.sortDescriptors = request.sortDescriptors
        idRequest.fetchLimit = request.fetchLimit
        idRequest.fetchOffset = request.fetchOffset
        idRequest.includesSubentities = request.includesSubentities
        let idsBefore = try stack.context.fetch(idRequest)
        XCTAssertEqual(idsBefore, before.map(\.objectID), "\(stack.storeType): IDs before the save", file: file, line: line)
        XCTAssertEqual(try stack.context.count(for: request), before.count, "\(stack.storeType): count(for:) before the save", file: file, line: line)
        var countRequest = FetchRequest<Int>(entityName: request.entityName)
        countRequest.predicate = request.predicate
        countRequest.fetchLimit = request.fetchLimit
        countRequest.fetchOffset = request.fetchOffset
        countRequest.includesSubentities = request.includesSubentities
        XCTAssertEqual(try stack.context.fetch(countRequest), [before.count], "\(stack.storeType): count result type before the save", file: file, line: line)
        var batchedRequest = request
        batchedRequest.fetchBatchSize = 2
        XCTAssertEqual(try stack.context.fetch(batchedRequest).map(\.objectID), before.map(\.objectID),
                       "\(stack.storeType): fetchBatchSize before the save", file: file, line: line)
        XCTAssertEqual(try stack.context.fetchBatched(request).map(\.objectID), before.map(\.objectID),
                       "\(stack.storeType): fetchBatched before the save", file: file, line: line)
        var loaded = request
        loaded.returnsObjectsAsFaults = false
        XCTAssertEqual(try stack.context.fetch(loaded).map(\.objectID), before.map(\.objectID),
                       "\(stack.storeType): returnsObjectsAsFaults false before the save", file: file, line: line)
        try stack.context.save()
        let after = try stack.newContext().fetch(request)
        XCTAssertEqual(before.map(\.objectID), after.map(\.objectID), "\(stack.storeType): before and after the save", file: file, line: line)
    }

    private func titles(_ objects: [ManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "title") as? String ?? "?" }
    }

    func testPendingChangesWithSortLimitAndOffsetAnswerAsAfterTheSave() throws {
        try forEachStore { stack in
            var saved: [ManagedObject] = []
            for (index, title) in ["A", "B", "C", "D", "E", "F"].enumerated() {
                saved.append(stack.task(title, priority: index % 3))
            }
            try stack.context.save()
            saved[0].setValue(3, forKey: "priority")          // A moves to the top
            saved[4].setValue("Z", forKey: "title")           // E renamed
            stack.context.delete(saved[2])                    // C goes
            _ = stack.task("G", priority: 2)                  // a new one ties with F
            _ = stack.task("H", priority: 1)
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.predicate = try Predicate(format: "priority >= 1")
            request.sortDescriptors = [Sort(key: "priority", ascending: false), Sort(key: "title")]
            request.fetchOffset = 1
            request.fetchLimit = 3
            XCTAssertEqual(titles(try stack.context.fetch(request)), ["F", "G", "B"])
            try assertSameBeforeAndAfterSave(stack, request)
        }
    }

    func testAnUpdatedObjectLeavingThePredicateFreesItsPlaceInTheWindow() throws {
        try forEachStore { stack in
            let tasks = (0..<5).map { stack.task("T\($0)", priority: 2) }
            try stack.context.save()
            tasks[1].setValue(0, forKey: "priority")
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.predicate = try Predicate(format: "priority == 2")
            request.sortDescriptors = [Sort(key: "title")]
            request.fetchLimit = 2
            XCTAssertEqual(titles(try stack.context.fetch(request)), ["T0", "T2"])
            try assertSameBeforeAndAfterSave(stack, request)
        }
    }

    func testPendingChangesOfSubentitiesThroughTheAbstractParent() throws {
        try forEachStore { stack in
            _ = stack.task("Beta")
            _ = stack.event("Delta")
            try stack.context.save()
            _ = stack.event("Alpha")
            _ = stack.task("Charlie")
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortDescriptors = [Sort(key: "title")]
            request.fetchLimit = 3
            XCTAssertEqual(titles(try stack.context.fetch(request)), ["Alpha", "Beta", "Charlie"])
            try assertSameBeforeAndAfterSave(stack, request)
            request.includesSubentities = false
            XCTAssertEqual(try stack.context.fetch(request).count, 0)
            XCTAssertEqual(try stack.context.count(for: request), 0)
        }
    }

    func testPendingRelationshipChangesWithSortThroughToOne() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            let bob = stack.person("Bob")
            let t1 = stack.task("T1", owner: ada)
            _ = stack.task("T2", owner: bob)
            _ = stack.task("T3")
            try stack.context.save()
            t1.setValue(bob, forKey: "owner")
            bob.setValue("Aaron", forKey: "firstName")
            _ = stack.task("T4", owner: ada)
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.sortDescriptors = [Sort(key: "owner.firstName"), Sort(key: "title", ascending: false)]
            XCTAssertEqual(titles(try stack.context.fetch(request)), ["T3", "T2", "T1", "T4"])
            try assertSameBeforeAndAfterSave(stack, request)
        }
    }

    // MARK: Batched results

    func testBatchedResultsOfUnsavedObjectsStillAnswerAfterTheSave() throws {
        try forEachStore { stack in
            let inserted = (0..<5).map { stack.task("T\($0)") }
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.sortDescriptors = [Sort(key: "title")]
            request.fetchBatchSize = 2
            let results = try stack.context.fetchBatched(request)
            XCTAssertEqual(results.count, 5)
            XCTAssertTrue(results[0] === inserted[0])
            try stack.context.save()
            // Core Data's batched array holds the pending objects themselves; the save gives
            // them permanent IDs, and reading on must still find them.
            XCTAssertTrue(results[2] === inserted[2], "\(stack.storeType): the third result is not the inserted object after the save")
            XCTAssertEqual(results[4].value(forKey: "title") as? String, "T4")
        }
    }

    func testBatchedResultsSeeChangesAndDeletionsMadeWhileIterating() throws {
        try forEachStore { stack in
            let tasks = (0..<6).map { stack.task("T\($0)") }
            try stack.context.save()
            let other = stack.newContext()
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.sortDescriptors = [Sort(key: "title")]
            request.fetchBatchSize = 2
            let results = try other.fetchBatched(request)
            XCTAssertEqual(results[0].value(forKey: "title") as? String, "T0")
            // Changed in the iterating context before its batch loads: the change is kept.
            other.object(with: tasks[3].objectID).setValue("changed", forKey: "title")
            // Changed elsewhere and saved before its batch loads: the batch reads the new value.
            tasks[5].setValue("saved elsewhere", forKey: "title")
            try stack.context.save()
            XCTAssertEqual(results.map { $0.value(forKey: "title") as? String }, ["T0", "T1", "T2", "changed", "T4", "saved elsewhere"])
            XCTAssertEqual(results.count, 6)
            XCTAssertEqual(Array(results.indices), Array(0..<6))
        }
    }

    // MARK: Dictionaries

    /// The saved graph in each store type.
    private func savedGraphs() throws -> [(String, Graph)] {
        try Stack.storeTypes.map { ("\($0)", try build($0, .saved)) }
    }

    private func expression(_ name: String, _ format: String, _ type: AttributeType) throws -> PropertyToFetch {
        .expression(ExpressionDescription(name: name, expression: try Expression(format: format), resultType: type))
    }

    func testGroupedAggregatesWithHavingAndSortByAggregate() throws {
        for (name, graph) in try savedGraphs() {
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("priority"), try expression("n", "count:(title)", .integer64),
                                         try expression("dues", "count:(due)", .integer64),
                                         try expression("first", "min:(due)", .date), try expression("last", "max:(title)", .string)]
            request.propertiesToGroupBy = ["priority"]
            request.havingPredicate = try Predicate(format: "n >= 2")
            request.sortDescriptors = [Sort(key: "n", ascending: false), Sort(key: "priority")]
            let rows = try graph.context.fetch(request)
            // priority 2: file2, file10, wild (n 3, dues 2); 0: delta, cafe2; 1: alpha, cafe; 3: beta, gamma.
            XCTAssertEqual(rows.map { doubleValue($0["priority"]) }, [2, 0, 1, 3], name)
            XCTAssertEqual(rows.map { doubleValue($0["n"]) }, [3, 2, 2, 2], name)
            XCTAssertEqual(rows.map { doubleValue($0["dues"]) }, [2, 1, 2, 1], name)
            XCTAssertEqual(rows.map { $0["first"] as? Date }, [Self.d1, Self.d3, Self.d1, Self.d2], name)
            XCTAssertEqual(rows.map { $0["last"] as? String }, ["file2", "Délta", "café", "beta"], name)
        }
    }

    func testGroupByABooleanWithSumAndAverage() throws {
        for (name, graph) in try savedGraphs() {
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("done"), try expression("points", "sum:(priority)", .integer64),
                                         try expression("mean", "average:(priority)", .double)]
            request.propertiesToGroupBy = ["done"]
            request.sortDescriptors = [Sort(key: "done")]
            let rows = try graph.context.fetch(request)
            XCTAssertEqual(rows.map { doubleValue($0["done"]) }, [0, 1], name)
            XCTAssertEqual(rows.map { doubleValue($0["points"]) }, [9, 5], name)
            XCTAssertEqual(rows.map { doubleValue($0["mean"]) }, [1.5, 5.0 / 3.0], name)
        }
    }

    func testDistinctDictionariesOfAKeyPathWithNilOwners() throws {
        for (name, graph) in try savedGraphs() {
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("owner.lastName")]
            request.returnsDistinctResults = true
            request.sortDescriptors = [Sort(key: "owner.lastName")]
            let rows = try graph.context.fetch(request)
            // nil (bob and no owner, one row: Core Data leaves the key out), Lovelace, Zola, lovelace.
            XCTAssertEqual(rows.map { $0["owner.lastName"] as? String }, [nil, "Lovelace", "Zola", "lovelace"], name)
        }
    }

    /// A dictionary fetch sorted by a to-one key path it also fetches: the SQLite store drops
    /// the sort (it takes the key path for the name of an expression), so rows come in primary
    /// key order and the window keeps the wrong ones.
    func testDictionariesSortedByAFetchedKeyPathThroughAToOne() throws {
        for (name, graph) in try savedGraphs() {
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("title"), .property("owner.firstName")]
            request.predicate = try Predicate(format: "owner != nil")
            request.sortDescriptors = [Sort(key: "owner.firstName", ascending: false), Sort(key: "title")]
            let rows = try graph.context.fetch(request)
            XCTAssertEqual(rows.map { $0["title"] as? String }, ["File10", "file2", "Gamma", "a*b?", "café", "Alpha", "beta"], name)
            request.fetchLimit = 2
            XCTAssertEqual(rows.prefix(2).map { $0["owner.firstName"] as? String }, ["Émile", "Émile"], name)
            XCTAssertEqual(try graph.context.fetch(request).map { $0["title"] as? String }, ["File10", "file2"], name)
        }
    }

    func testGroupedAggregatesOverToOneKeyPathsWithHaving() throws {
        for (name, graph) in try savedGraphs() {
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("priority"), try expression("latest", "max:(owner.birthday)", .date),
                                         try expression("dues", "count:(due)", .integer64)]
            request.propertiesToGroupBy = ["priority"]
            request.havingPredicate = try Predicate(format: "priority >= 1")
            request.sortDescriptors = [Sort(key: "priority")]
            let rows = try graph.context.fetch(request)
            XCTAssertEqual(rows.map { doubleValue($0["priority"]) }, [1, 2, 3], name)
            XCTAssertEqual(rows.map { $0["latest"] as? Date }, [Self.d2, Self.d3, Self.d1], name)
            XCTAssertEqual(rows.map { doubleValue($0["dues"]) }, [2, 2, 1], name)
        }
    }

    func testDictionaryWindowAppliesToGroups() throws {
        for (name, graph) in try savedGraphs() {
            var request = FetchRequest<[String: Any]>(entityName: "Task")
            request.propertiesToFetch = [.property("priority"), try expression("n", "count:(title)", .integer64)]
            request.propertiesToGroupBy = ["priority"]
            request.sortDescriptors = [Sort(key: "priority", ascending: false)]
            request.fetchLimit = 2
            request.fetchOffset = 1
            let rows = try graph.context.fetch(request)
            XCTAssertEqual(rows.map { doubleValue($0["priority"]) }, [2, 1], name)
            XCTAssertEqual(rows.map { doubleValue($0["n"]) }, [3, 2], name)
        }
    }

    // MARK: Faults and prefetching

    func testPrefetchingThroughNilToOneAndEmptyToMany() throws {
        for (name, graph) in try savedGraphs() {
            var request = FetchRequest<ManagedObject>(entityName: "Task")
            request.sortDescriptors = [Sort(key: "title")]
            request.relationshipKeyPathsForPrefetching = ["owner.tasks", "event.attendees"]
            request.returnsObjectsAsFaults = false
            let tasks = try graph.context.fetch(request)
            XCTAssertEqual(tasks.count, 9, name)
            XCTAssertTrue(tasks.allSatisfy { !$0.isFault }, name)
            let owners = tasks.compactMap { $0.value(forKey: "owner") as? ManagedObject }
            XCTAssertTrue(owners.allSatisfy { !$0.isFault }, name)
            let counts = Dictionary(tasks.map { (graph.label($0), ($0.value(forKeyPath: "owner.tasks.@count") as? Int) ?? -1) },
                                    uniquingKeysWith: { a, _ in a })
            XCTAssertEqual(counts, ["alpha": 2, "beta": 2, "gamma": 1, "delta": -1, "file2": 2, "file10": 2, "cafe": 2, "cafe2": -1, "wild": 2], name)
            let meeting = try XCTUnwrap(tasks.first { graph.label($0) == "alpha" }?.value(forKey: "event") as? ManagedObject)
            let attendees = try XCTUnwrap(meeting.value(forKey: "attendees") as? Set<ManagedObject>)
            XCTAssertEqual(Set(attendees.map(graph.label)), ["ada", "bob"], name)
        }
    }
}
