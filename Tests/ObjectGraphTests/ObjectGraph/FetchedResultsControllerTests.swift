// The fetched results controller (Core Data's NSFetchedResultsController): sections by a key path,
// lookups by index path, index titles, the errors of a request it cannot keep, and change tracking:
// the steps it reports, applied to the old rows as a table view applies a batch of updates, give
// exactly the new rows, for generated editing sessions on both stores.
import Foundation
import XCTest
@testable import ObjectGraph

final class FetchedResultsControllerTests: XCTestCase {
    /// Tasks by priority (the sections), then title.
    private func controller(_ stack: Stack, _ format: String? = nil, sections: Bool = true) throws -> FetchedResultsController<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        if let format { request.predicate = try Predicate(format: format) }
        request.sortDescriptors = [SortDescriptor(key: "priority"), SortDescriptor(key: "title")]
        return FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context,
                                        sectionNameKeyPath: sections ? "priority" : nil)
    }

    private func titles(_ controller: FetchedResultsController<ManagedObject>) -> [[String]] {
        (controller.sections ?? []).map { $0.objects.map { $0.value(forKey: "title") as? String ?? "?" } }
    }

    func testSectionsLookupsAndIndexTitles() throws {
        try forEachStore { stack in
            for (title, priority) in [("b", 2), ("a", 0), ("c", 2), ("d", 3), ("e", 0)] { _ = stack.task(title, priority: priority) }
            try stack.context.save()
            let controller = try controller(stack)
            XCTAssertNil(controller.fetchedObjects)
            try controller.performFetch()
            XCTAssertEqual(controller.sections?.map(\.name), ["0", "2", "3"], "\(stack.storeType)")
            XCTAssertEqual(titles(controller), [["a", "e"], ["b", "c"], ["d"]])
            XCTAssertEqual(controller.sections?.map(\.numberOfObjects), [2, 2, 1])
            XCTAssertEqual(controller.fetchedObjects?.count, 5)
            let c = controller.object(at: IndexPath(item: 1, section: 1))
            XCTAssertEqual(c.value(forKey: "title") as? String, "c")
            XCTAssertEqual(controller.indexPath(forObject: c), IndexPath(item: 1, section: 1))
            let later = stack.task("made after the fetch")
            XCTAssertNil(controller.indexPath(forObject: later))
            stack.context.delete(later)
            XCTAssertEqual(controller.sectionIndexTitles, ["0", "2", "3"])
            XCTAssertEqual(controller.section(forSectionIndexTitle: "3", at: 2), 2)

            let single = try self.controller(stack, "priority == 0", sections: false)
            try single.performFetch()
            XCTAssertEqual(single.sections?.map(\.name), [""])
            XCTAssertEqual(titles(single), [["a", "e"]])
            XCTAssertEqual(single.sectionIndexTitles, [])
        }
    }

    /// The delegate may name the index titles; a changed request takes effect at the next fetch.
    func testIndexTitlesFromTheDelegateAndAChangedRequest() throws {
        let stack = try Stack(storeType: .sqlite)
        for (title, priority) in [("a", 0), ("b", 1), ("c", 1)] { _ = stack.task(title, priority: priority) }
        let controller = try controller(stack)
        let titler = Titler()
        controller.delegate = titler
        try controller.performFetch()
        XCTAssertEqual(controller.sectionIndexTitles, ["P0", "P1"])
        XCTAssertEqual(controller.section(forSectionIndexTitle: "P1", at: 1), 1)
        controller.fetchRequest.predicate = try Predicate(format: "priority == 1")
        XCTAssertEqual(titles(controller), [["a"], ["b", "c"]], "until the next fetch")
        try controller.performFetch()
        XCTAssertEqual(titles(controller), [["b", "c"]])
    }

    func testARequestItCannotKeepIsAnError() throws {
        let stack = try Stack(storeType: .sqlite)
        _ = stack.task("a", priority: 1)
        _ = stack.task("b", priority: 0)
        let unsorted = FetchedResultsController(fetchRequest: FetchRequest<ManagedObject>(entityName: "Task"), managedObjectContext: stack.context)
        XCTAssertThrowsError(try unsorted.performFetch()) { error in
            XCTAssertTrue("\(error)".contains("needs a fetch request with sort descriptors"), "\(error)")
        }
        // Sorted by title, sectioned by priority: b (0) comes after a (1), then nothing; add c (1).
        _ = stack.task("c", priority: 1)
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.sortDescriptors = [SortDescriptor(key: "title")]
        let misgrouped = FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "priority")
        XCTAssertThrowsError(try misgrouped.performFetch()) { error in
            XCTAssertEqual("\(error)", "the fetched Task at index 2 has the section name \"1\" out of order: the first sort descriptor must sort by priority")
        }
    }

    /// Without a delegate the results stay as fetched; with one they follow the context.
    func testOnlyADelegatedControllerTracksChanges() throws {
        let stack = try Stack(storeType: .sqlite)
        _ = stack.task("a")
        let controller = try controller(stack)
        try controller.performFetch()
        _ = stack.task("b")
        stack.context.processPendingChanges()
        XCTAssertEqual(titles(controller), [["a"]])
        // Given a delegate, it tracks from its next fetch (b was missed meanwhile, as in Core Data).
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        XCTAssertEqual(titles(controller), [["a", "b"]])
        _ = stack.task("c")
        stack.context.processPendingChanges()
        XCTAssertEqual(titles(controller), [["a", "b", "c"]])
        XCTAssertEqual(recorder.steps, ["will", "insert 0.2 c", "did"])
        controller.delegate = nil
        _ = stack.task("d")
        stack.context.processPendingChanges()
        XCTAssertEqual(titles(controller), [["a", "b", "c"]])
    }

    func testEachKindOfChangeIsReported() throws {
        try forEachStore { stack in
            let a = stack.task("a"), b = stack.task("b"), c = stack.task("c", priority: 1)
            try stack.context.save()
            let controller = try controller(stack, "done == NO")
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()

            func step(_ change: () -> Void) -> [String] {
                recorder.steps = []
                change()
                stack.context.processPendingChanges()
                return recorder.steps
            }
            // A sort value changed: a move, even in place (Core Data's heuristic).
            XCTAssertEqual(step { a.setValue("a2", forKey: "title") }, ["will", "move 0.0→0.0 a2", "did"], "\(stack.storeType)")
            XCTAssertEqual(step { a.setValue("z", forKey: "title") }, ["will", "move 0.0→0.1 z", "did"])
            XCTAssertEqual(step { b.setValue(1, forKey: "priority") }, ["will", "move 0.0→1.0 b", "did"])
            XCTAssertEqual(titles(controller), [["z"], ["b", "c"]])
            XCTAssertEqual(step { a.setValue(true, forKey: "done") }, ["will", "section 0 delete 0", "delete 0.0 z", "did"])
            XCTAssertEqual(step { stack.context.delete(c) }, ["will", "delete 0.1 c", "did"])
            XCTAssertEqual(step { a.setValue(false, forKey: "done") }, ["will", "section 0 insert 0", "insert 0.0 z", "did"])
            XCTAssertEqual(step { a.setValue("y", forKey: "notes") }, ["will", "update 0.0 z", "did"])
            XCTAssertEqual(step { _ = stack.person("Ada") }, [], "another entity: nothing to tell")
            XCTAssertEqual(titles(controller), [["z"], ["b"]])
            try stack.context.save()
            XCTAssertEqual(titles(controller), [["z"], ["b"]], "\(stack.storeType) after the save")
        }
    }

    /// Sections the sort stops grouping after a change (sorted by title, sectioned by priority)
    /// still follow the objects: each run of one name is a section, and the delegate is told to
    /// reload them all, which turns the old rows into the new ones; once grouped again, changes
    /// are told row by row.
    func testSectionsTheSortStopsGroupingAreReloaded() throws {
        let stack = try Stack(storeType: .sqlite)
        let tasks = ["a", "b", "c"].map { stack.task($0, priority: 0) }
        try stack.context.save()
        var request = FetchRequest<ManagedObject>(entityName: "Task")
        request.sortDescriptors = [SortDescriptor(key: "title")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "priority")
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        func step(_ change: () -> Void) -> [String] {
            recorder.steps = []
            recorder.changes = []
            recorder.sectionChanges = []
            let before = controller.sections?.map { ($0.name, $0.objects) } ?? []
            change()
            stack.context.processPendingChanges()
            let after = controller.sections?.map { ($0.name, $0.objects) } ?? []
            let applied = recorder.apply(to: before)
            XCTAssertEqual(applied.map(\.0), after.map(\.0))
            XCTAssertEqual(applied.map { $0.1.map(ObjectIdentifier.init) }, after.map { $0.1.map(ObjectIdentifier.init) })
            return recorder.steps
        }
        XCTAssertEqual(step { tasks[1].setValue(1, forKey: "priority") },
                       ["will", "section 0 delete 0", "section 0 insert 0", "section 1 insert 1", "section 2 insert 0",
                        "delete 0.0 a", "delete 0.1 b", "delete 0.2 c", "insert 0.0 a", "insert 1.0 b", "insert 2.0 c", "did"])
        XCTAssertEqual(titles(controller), [["a"], ["b"], ["c"]])
        XCTAssertEqual(controller.sections?.map(\.name), ["0", "1", "0"])
        XCTAssertEqual(step { tasks[1].setValue(0, forKey: "priority") }.count, 2 + 3 + 1 + 3 + 3, "three sections out, one in, with their rows")
        XCTAssertEqual(titles(controller), [["a", "b", "c"]])
        XCTAssertEqual(step { tasks[2].setValue("d", forKey: "title") }, ["will", "move 0.2→0.2 d", "did"], "grouped again: row by row")
    }

    /// A save elsewhere merged into the context is reported like a local change.
    func testMergedSavesAreReported() throws {
        try forEachStore { stack in
            let a = stack.task("a")
            try stack.context.save()
            let controller = try controller(stack)
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            let other = stack.newContext()
            let token = other.observe { note in
                if case .didSave(let saved, _) = note { stack.context.mergeChanges(fromContextDidSave: saved) }
            }
            defer { token.cancel() }
            let b = other.insertNewObject(forEntityName: "Task")
            b.setValue("b", forKey: "title")
            b.setValue(UUID(), forKey: "uuid")
            try other.existingObject(with: a.objectID).setValue(2, forKey: "priority")
            recorder.steps = []
            try other.save()
            stack.context.processPendingChanges()
            XCTAssertEqual(titles(controller), [["b"], ["a"]], "\(stack.storeType)")
            XCTAssertTrue(recorder.steps.contains("insert 0.0 b") && recorder.steps.contains("section 1 insert 2"),
                          "\(stack.storeType): \(recorder.steps)")
        }
    }

    /// Generated sessions of inserts, deletes and edits (titles, priorities, done) on both
    /// stores, saved now and then: after every event, the old rows with the reported steps
    /// applied (section and row deletions at old places, then insertions at new places, moves as
    /// both) are the new rows, and every changed object still listed was reported.
    func testReportedStepsTurnTheOldRowsIntoTheNewOnes() throws {
        for seed in 1...25 {
            try forEachStore { stack in
                var random = SeededRandom(seed: UInt64(seed))
                // Every third seed without sections: the controller then tells each event as a difference too.
                let sectioned = seed % 3 != 0
                let controller = try controller(stack, "done == NO", sections: sectioned)
                let recorder = ChangeRecorder()
                controller.delegate = recorder
                try controller.performFetch()
                var tasks: [ManagedObject] = []
                for step in 0..<40 {
                    let before = controller.sections?.map { ($0.name, $0.objects) } ?? []
                    recorder.changes = []
                    recorder.sectionChanges = []
                    recorder.differences = []
                    let beforeIDs = (controller.fetchedObjects ?? []).map(\.objectID)
                    var edited: [ManagedObject] = []
                    for _ in 0...random.next(2) {
                        switch random.next(5) {
                        case 0, 1:
                            tasks.append(stack.task("t\(random.next(6))", priority: random.next(4)))
                        case 2:
                            guard !tasks.isEmpty else { continue }
                            stack.context.delete(tasks.remove(at: random.next(tasks.count)))
                        default:
                            guard !tasks.isEmpty else { continue }
                            let task = tasks[random.next(tasks.count)]
                            let (key, value): (String, Any) = switch random.next(3) {
                            case 0: ("title", "t\(random.next(6))")
                            case 1: ("priority", random.next(4))
                            default: ("done", random.next(3) == 0)
                            }
                            // (Setting the value a task has already changes nothing to report.)
                            if "\(task.value(forKey: key) ?? "nil")" != "\(value)" { edited.append(task) }
                            task.setValue(value, forKey: key)
                        }
                    }
                    if random.next(6) == 0 { try stack.context.save() } else { stack.context.processPendingChanges() }
                    let label = "\(stack.storeType) seed \(seed) step \(step)"
                    let after = controller.sections?.map { ($0.name, $0.objects) } ?? []
                    let applied = recorder.apply(to: before)
                    XCTAssertEqual(applied.map(\.0), after.map(\.0), "\(label): sections")
                    XCTAssertEqual(applied.map { $0.1.map(ObjectIdentifier.init) }, after.map { $0.1.map(ObjectIdentifier.init) }, "\(label): rows")
                    for change in recorder.changes where change.type == .update {
                        XCTAssertEqual(change.to, controller.indexPath(forObject: change.object), "\(label): an update's new index path")
                    }
                    // The difference of IDs, as they were when it was told (a save after it makes
                    // new objects' IDs permanent).
                    let told = sectioned || recorder.changes.isEmpty && recorder.sectionChanges.isEmpty ? 0 : 1
                    XCTAssertEqual(recorder.differences.count, told, "\(label): one difference with each event's changes, without sections")
                    if let (difference, after) = recorder.differences.first {
                        XCTAssertEqual(beforeIDs.applying(difference), after, "\(label): the difference")
                    }
                    let reported = Set(recorder.changes.map { ObjectIdentifier($0.object) })
                    for task in edited where !task.isDeleted && controller.indexPath(forObject: task) != nil {
                        XCTAssertTrue(reported.contains(ObjectIdentifier(task)), "\(label): an edited task was not reported")
                    }
                    let expected = try stack.fetch("Task", "done == NO")
                    XCTAssertEqual(Set((controller.fetchedObjects ?? []).map(ObjectIdentifier.init)), Set(expected.map(ObjectIdentifier.init)), label)
                }
            }
        }
    }
}

/// Names each section's index title "P" and its name.
private final class Titler: FetchedResultsControllerDelegate {
    typealias Object = ManagedObject
    func controller(_ controller: FetchedResultsController<ManagedObject>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        "P" + sectionName
    }
}

/// Records what a controller reports, as "will", "did", "section <index> <type> <name>",
/// "move <from>→<to> <title>", "insert <to> <title>", "<type> <at> <title>" (FRCReviewTests too).
final class ChangeRecorder: FetchedResultsControllerDelegate {
    typealias Object = ManagedObject
    var steps: [String] = []
    var changes: [(object: ManagedObject, type: FetchedResultsChangeType, at: IndexPath?, to: IndexPath?)] = []
    var sectionChanges: [(name: String, index: Int, type: FetchedResultsChangeType)] = []

    private func path(_ indexPath: IndexPath?) -> String { indexPath.map { "\($0.section).\($0.item)" } ?? "-" }

    func controllerWillChangeContent(_ controller: FetchedResultsController<ManagedObject>) { steps.append("will") }
    func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) { steps.append("did") }

    /// Each difference told, with the fetched objects' IDs when it was told.
    var differences: [(difference: CollectionDifference<ObjectID>, after: [ObjectID])] = []

    func controller(_ controller: FetchedResultsController<ManagedObject>, didChangeContentWith difference: CollectionDifference<ObjectID>) {
        differences.append((difference, (controller.fetchedObjects ?? []).map(\.objectID)))
    }

    func controller(_ controller: FetchedResultsController<ManagedObject>, didChange section: FetchedResultsSection<ManagedObject>,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        steps.append("section \(sectionIndex) \(type) \(section.name)")
        sectionChanges.append((section.name, sectionIndex, type))
    }

    func controller(_ controller: FetchedResultsController<ManagedObject>, didChange object: ManagedObject, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        let title = object.value(forKey: "title") as? String ?? "?"
        switch type {
        case .move: steps.append("move \(path(indexPath))→\(path(newIndexPath)) \(title)")
        case .insert: steps.append("insert \(path(newIndexPath)) \(title)")
        default: steps.append("\(type) \(path(indexPath)) \(title)")
        }
        changes.append((object, type, indexPath, newIndexPath))
    }

    /// `rows` with the recorded steps applied as a table view applies a batch: deletions (of
    /// sections and rows, moves' sources) at the old places, then insertions (sections, rows,
    /// moves' destinations) at the new places, in ascending order.
    func apply(to rows: [(String, [ManagedObject])]) -> [(String, [ManagedObject])] {
        let deletedSections = Set(sectionChanges.filter { $0.type == .delete }.map(\.index))
        let removed = Set(changes.filter { $0.type == .delete || $0.type == .move }.compactMap(\.at))
        var result: [(String, [ManagedObject])] = []
        for (sectionIndex, (name, objects)) in rows.enumerated() where !deletedSections.contains(sectionIndex) {
            result.append((name, objects.enumerated().filter { !removed.contains(IndexPath(item: $0.offset, section: sectionIndex)) }.map(\.element)))
        }
        for change in sectionChanges.filter({ $0.type == .insert }).sorted(by: { $0.index < $1.index }) {
            result.insert((change.name, []), at: min(change.index, result.count))
        }
        let added = changes.filter { $0.type == .insert || $0.type == .move }.compactMap { change in change.to.map { ($0, change.object) } }
        for (place, object) in added.sorted(by: { $0.0 < $1.0 }) where place.section < result.count {
            result[place.section].1.insert(object, at: min(place.item, result[place.section].1.count))
        }
        return result
    }
}

/// A small deterministic generator (a linear congruential one) for the generated sessions.
private struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 }
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
}
