// Core Data's NSFetchedResultsController: the results of a fetch request kept in step with a
// context. The objects are split into sections by a key path, and while a delegate is set each
// change the context makes (at the end of every event: inserts, deletes, changed values, merged
// saves) is reported to it as the rows and sections inserted, deleted, moved or updated, so that
// a list on screen can apply exactly those steps.
import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
/// A table's index paths, as UIKit and AppKit add them to Foundation's `IndexPath` (which has
/// neither on Linux): a section and an item in it.
extension IndexPath {
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    /// The section (the first index).
    public var section: Int { self[0] }
    /// The item in the section (the second index).
    public var item: Int { self[1] }
}
#endif

/// How a fetched object or a section changed.
public enum FetchedResultsChangeType: Sendable, Hashable {
    case insert
    case delete
    /// The object changed and stands elsewhere now (`newIndexPath`).
    case move
    /// The object changed and stands where it stood.
    case update
}

/// One section of a fetched results controller: the objects whose section key path has one value,
/// next to one another in the sort order.
public struct FetchedResultsSection<Object: ManagedObject> {
    /// The section key path's value as text (`""` for nil; the empty name of the one section
    /// when there is no section key path).
    public let name: String
    /// The section's index title (``FetchedResultsController/sectionIndexTitle(forSectionName:)``).
    public let indexTitle: String?
    /// The section's objects, in order.
    public let objects: [Object]
    /// How many objects the section holds.
    public var numberOfObjects: Int { objects.count }
}

/// Why a fetched results controller cannot fetch.
public struct FetchedResultsError: Error, CustomStringConvertible, Equatable {
    public let description: String
}

/// What a fetched results controller tells about the changes it tracks, between
/// ``controllerWillChangeContent(_:)`` and ``controllerDidChangeContent(_:)``: section changes
/// first, then the objects deleted (at their old index paths), inserted (at their new ones), moved
/// and updated. Every method has an empty default.
public protocol FetchedResultsControllerDelegate<Object>: AnyObject {
    associatedtype Object: ManagedObject
    func controllerWillChangeContent(_ controller: FetchedResultsController<Object>)
    func controller(_ controller: FetchedResultsController<Object>, didChange section: FetchedResultsSection<Object>,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    /// `indexPath` is where the object stood (nil for an insert), `newIndexPath` where it stands
    /// (nil for a delete; for an update, where it stands after the other rows' inserts and
    /// deletes, which may differ from `indexPath`).
    func controller(_ controller: FetchedResultsController<Object>, didChange object: Object, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    func controllerDidChangeContent(_ controller: FetchedResultsController<Object>)
    /// The same event as one difference between the object IDs of ``FetchedResultsController/fetchedObjects``
    /// before and after it (Core Data's `didChangeContentWith` a `CollectionDifference`), told
    /// after the changes one by one and before ``controllerDidChangeContent(_:)``, by a
    /// controller without sections only (as Core Data's). Each object
    /// counts under the ID it has when the event is told (a new object's temporary ID, even if
    /// the save that ends the event makes it permanent right after).
    func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith difference: CollectionDifference<ObjectID>)
    /// The index title of the section named `sectionName`; by default the controller's
    /// ``FetchedResultsController/sectionIndexTitle(forSectionName:)``.
    func controller(_ controller: FetchedResultsController<Object>, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Object>) {}
    public func controller(_ controller: FetchedResultsController<Object>, didChange section: FetchedResultsSection<Object>,
                           atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {}
    public func controller(_ controller: FetchedResultsController<Object>, didChange object: Object, at indexPath: IndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {}
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Object>) {}
    public func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith difference: CollectionDifference<ObjectID>) {}
    public func controller(_ controller: FetchedResultsController<Object>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        controller.sectionIndexTitle(forSectionName: sectionName)
    }
}

/// The results of a fetch request, in sections, kept up to date with its context while a
/// delegate is set (Core Data's `NSFetchedResultsController`).
///
/// ```swift
/// var request = FetchRequest<ManagedObject>(entityName: "Task")
/// request.sortDescriptors = [SortDescriptor(key: "project"), SortDescriptor(key: "title")]
/// let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                           sectionNameKeyPath: "project")
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(item: 0, section: 0))
/// ```
///
/// The request needs sort descriptors, and the first must order the objects by their section (the
/// sections are runs of one section name in that order; a fetch that finds them out of order
/// fails, and a change that puts them out of order is told as a reload of every section). Use the controller on its context's
/// queue. As in Core Data, it tracks changes of the fetched entity's objects: a change of a
/// related object that a predicate or sort key reads through a relationship is seen when the
/// fetched object itself changes next. Core Data keeps sections on disk under a `cacheName`; here
/// they are computed from the fetched objects in memory, so the name is accepted (for code
/// written for Core Data) and there is no cache to keep or delete.
open class FetchedResultsController<Object: ManagedObject> {
    /// The request whose results the controller holds. A change (another predicate or sort)
    /// takes effect at the next ``performFetch()``; until then changes are tracked against the
    /// request of the last fetch.
    public var fetchRequest: FetchRequest<Object>
    /// The context it fetches from and whose changes it tracks.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section; nil: one section.
    public let sectionNameKeyPath: String?

    /// Told of each change while set; with no delegate the results stay as the last fetch left
    /// them (as in Core Data).
    public weak var delegate: (any FetchedResultsControllerDelegate<Object>)?

    /// The objects, in order; nil before ``performFetch()``.
    public private(set) var fetchedObjects: [Object]?
    /// The sections, in order; nil before ``performFetch()``.
    public private(set) var sections: [FetchedResultsSection<Object>]?

    private var entity: EntityDescription?
    /// The request of the last fetch, which tracking follows.
    private var request: FetchRequest<Object>
    /// Each fetched object's sort values as last seen: a change of them is told as a move.
    private var sortKeysByObject: [ObjectIdentifier: [SortDescriptor.SortKey]] = [:]
    private var observation: ObservationToken?
    /// Where each fetched object stands: its section and its place in it.
    private var positions: [ObjectIdentifier: IndexPath] = [:]

    /// A controller of `fetchRequest`'s results in `managedObjectContext`, in sections named by
    /// `sectionNameKeyPath` (nil: one section). `cacheName` names no cache here (see above).
    public init(fetchRequest: FetchRequest<Object>, managedObjectContext: ManagedObjectContext, sectionNameKeyPath: String? = nil,
                cacheName: String? = nil) {
        self.fetchRequest = fetchRequest
        request = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    /// Core Data's removal of a section cache: sections are computed in memory here, so there is
    /// no cache of any name, and nothing to remove.
    public static func deleteCache(withName name: String?) {}

    /// Runs the fetch request and splits its results into sections; from then on, changes are
    /// tracked while a delegate is set. Throws for a request without sort descriptors, for
    /// objects whose section names are not grouped by the sort order (naming the first object
    /// out of order), and for whatever the fetch throws.
    open func performFetch() throws {
        guard !fetchRequest.sortDescriptors.isEmpty else {
            throw FetchedResultsError(description: "a fetched results controller needs a fetch request with sort descriptors (\(fetchRequest.entityName))")
        }
        let request = fetchRequest
        let entity = try managedObjectContext.entity(named: request.entityName)
        let objects = try managedObjectContext.fetch(request)
        self.request = request
        let sections = try makeSections(of: objects)
        self.entity = entity
        install(objects, sections)
        sortKeysByObject = Dictionary(uniqueKeysWithValues: objects.map { (ObjectIdentifier($0), sortKeys(of: $0)) })
        if observation == nil {
            observation = managedObjectContext.observe { [weak self] note in
                guard let self, self.delegate != nil, case .objectsDidChange(let changes) = note else { return }
                self.track(changes)
            }
        }
    }

    // MARK: Reading

    /// The object at `indexPath` (`section`, `item`).
    public func object(at indexPath: IndexPath) -> Object {
        guard let sections, sections.indices.contains(indexPath.section),
              sections[indexPath.section].objects.indices.contains(indexPath.item) else {
            preconditionFailure("no fetched object at \(indexPath) of \(fetchRequest.entityName)")
        }
        return sections[indexPath.section].objects[indexPath.item]
    }

    /// Where `object` stands, nil if it is not among the results.
    public func indexPath(forObject object: Object) -> IndexPath? {
        positions[ObjectIdentifier(object)]
    }

    /// The index title of a section named `sectionName`: its first letter, capitalized (nil for
    /// an empty name). Override it, or implement the delegate's
    /// `controller(_:sectionIndexTitleForSectionName:)`, for other titles.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The sections' index titles, each once, in section order.
    open var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return (sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The index of the first section whose index title is `title` (`sectionIndex` is its place
    /// in ``sectionIndexTitles``, as a table's index passes it). A title no section has traps.
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        guard let index = sections?.firstIndex(where: { $0.indexTitle == title }) else {
            preconditionFailure("no section of \(fetchRequest.entityName) has the index title \"\(title)\"")
        }
        return index
    }

    // MARK: Sections

    private func sectionName(of object: Object) -> String {
        guard let sectionNameKeyPath else { return "" }
        switch object.value(forKeyPath: sectionNameKeyPath) {
        case nil: return ""
        case let text as String: return text
        case let flag as Bool: return flag ? "1" : "0"
        case let value?: return "\(value)"
        }
    }

    /// The runs of one section name in `objects`; a name that comes back after another one is an
    /// error (the sort does not group the sections), or with `strict` false a section of its own.
    private func makeSections(of objects: [Object], strict: Bool = true) throws -> [FetchedResultsSection<Object>] {
        var sections: [FetchedResultsSection<Object>] = []
        var names = Set<String>()
        var run: [Object] = []
        var runName: String?
        func close() {
            guard let runName else { return }
            let title = delegate.map { $0.controller(self, sectionIndexTitleForSectionName: runName) } ?? sectionIndexTitle(forSectionName: runName)
            sections.append(FetchedResultsSection(name: runName, indexTitle: title, objects: run))
        }
        for (index, object) in objects.enumerated() {
            let name = sectionName(of: object)
            if name == runName {
                run.append(object)
                continue
            }
            guard names.insert(name).inserted || !strict else {
                throw FetchedResultsError(description: "the fetched \(request.entityName) at index \(index) has the section name \"\(name)\" "
                    + "out of order: the first sort descriptor must sort by \(sectionNameKeyPath ?? "the section")")
            }
            close()
            runName = name
            run = [object]
        }
        close()
        if sections.isEmpty && sectionNameKeyPath == nil { sections = [FetchedResultsSection(name: "", indexTitle: nil, objects: [])] }
        return sections
    }

    private func install(_ objects: [Object], _ sections: [FetchedResultsSection<Object>]) {
        fetchedObjects = objects
        self.sections = sections
        positions = [:]
        for (sectionIndex, section) in sections.enumerated() {
            for (item, object) in section.objects.enumerated() {
                positions[ObjectIdentifier(object)] = IndexPath(item: item, section: sectionIndex)
            }
        }
    }

    // MARK: Tracking

    /// Brings the results up to date with one event's changes and tells the delegate.
    ///
    /// The objects the event did not touch keep their order; each changed or new object that
    /// matches goes where the sort puts it among them (ties: in the store's key order, as a fetch
    /// orders them). A reset, or a request with a limit or an offset, is fetched again instead.
    private func track(_ changes: ObjectsDidChange) {
        guard let entity, let old = fetchedObjects else { return }
        let new: [Object]
        // The objects whose values changed (told as updates or moves), and those whose place is
        // to be checked against their old one (moves).
        var updated = Set<ObjectIdentifier>()
        var placed = Set<ObjectIdentifier>()
        // The sort values of the objects that arrived or changed.
        var arrivingKeys: [ObjectIdentifier: [SortDescriptor.SortKey]] = [:]
        if changes.invalidatedAll || request.fetchLimit > 0 || request.fetchOffset > 0 {
            guard let fetched = try? managedObjectContext.fetch(request) else { return }
            new = fetched
            for object in changes.updated.union(changes.refreshed) { updated.insert(ObjectIdentifier(object)) }
            placed = Set(new.map(ObjectIdentifier.init))
            for object in new { arrivingKeys[ObjectIdentifier(object)] = sortKeys(of: object) }
        } else {
            func belongs(_ object: ManagedObject) -> Bool {
                request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
            }
            let gone = changes.deleted.union(changes.invalidated).filter(belongs)
            let candidates = changes.inserted.union(changes.updated).union(changes.refreshed).filter(belongs)
            guard !gone.isEmpty || !candidates.isEmpty else { return }
            var kept = old.filter { !gone.contains($0) && !candidates.contains($0) }
            var arriving: [(object: Object, keys: [SortDescriptor.SortKey])] = []
            for candidate in candidates where !candidate.isDeleted && !gone.contains(candidate) {
                guard let object = candidate as? Object, matches(object) else { continue }
                let keys = sortKeys(of: object)
                arriving.append((object, keys))
                arrivingKeys[ObjectIdentifier(object)] = keys
                updated.insert(ObjectIdentifier(object))
            }
            arriving.sort { precedes($0.object, $0.keys, $1.object, $1.keys) }
            placed = updated
            // Each arriving object after the kept ones that sort before it (a binary search; the
            // arriving ones in order, so each search starts where the last one ended).
            var low = 0
            for (object, keys) in arriving {
                var high = kept.count
                while low < high {
                    let middle = (low + high) / 2
                    let other = kept[middle]
                    let otherKeys = sortKeysByObject[ObjectIdentifier(other)] ?? sortKeys(of: other)
                    if precedes(other, otherKeys, object, keys) { low = middle + 1 } else { high = middle }
                }
                kept.insert(object, at: low)
                low += 1
            }
            new = kept
        }
        guard let oldSections = sections else { return }
        // A change that leaves the sections out of the sort's order (the sort does not group by
        // the section key path) still updates the results: each run of one name is a section,
        // and the delegate is told to reload them all (every old section deleted, every new one
        // inserted), as row-by-row steps would name sections ambiguously. So until they are
        // grouped again.
        let grouped = try? makeSections(of: new)
        let newSections = grouped ?? ((try? makeSections(of: new, strict: false)) ?? [])
        let oldPositions = positions
        install(new, newSections)
        // A changed sort value is told as a move even where the object stays (Core Data: "a move
        // is reported when the changed attribute on the object is one of the sort descriptors").
        var resorted = Set<ObjectIdentifier>()
        for (key, keys) in arrivingKeys {
            if updated.contains(key), let before = sortKeysByObject[key], request.sortDescriptors.compareKeys(before, keys) != .orderedSame { resorted.insert(key) }
            sortKeysByObject[key] = keys
        }
        for object in old where positions[ObjectIdentifier(object)] == nil { sortKeysByObject[ObjectIdentifier(object)] = nil }
        if grouped == nil || Set(oldSections.map(\.name)).count < oldSections.count {
            reportReload(of: oldSections)
        } else {
            report(from: old, oldSections, oldPositions, updated: updated, placed: placed, resorted: resorted)
        }
    }

    /// Tells the delegate that every old section and object went and every new one came (as a
    /// section that comes or goes is told with its objects).
    private func reportReload(of oldSections: [FetchedResultsSection<Object>]) {
        guard let delegate, let sections else { return }
        delegate.controllerWillChangeContent(self)
        for (index, section) in oldSections.enumerated() { delegate.controller(self, didChange: section, atSectionIndex: index, for: .delete) }
        for (index, section) in sections.enumerated() { delegate.controller(self, didChange: section, atSectionIndex: index, for: .insert) }
        for (sectionIndex, section) in oldSections.enumerated() {
            for (item, object) in section.objects.enumerated() {
                delegate.controller(self, didChange: object, at: IndexPath(item: item, section: sectionIndex), for: .delete, newIndexPath: nil)
            }
        }
        for (sectionIndex, section) in sections.enumerated() {
            for (item, object) in section.objects.enumerated() {
                delegate.controller(self, didChange: object, at: nil, for: .insert, newIndexPath: IndexPath(item: item, section: sectionIndex))
            }
        }
        tellDifference(to: delegate, from: oldSections.flatMap(\.objects))
        delegate.controllerDidChangeContent(self)
    }

    private func sortKeys(of object: Object) -> [SortDescriptor.SortKey] {
        request.sortDescriptors.map { $0.sortKey(KeyValueAccess.value(of: object, forKeyPath: $0.key, .evaluation)) }
    }

    /// Whether `a` sorts before `b`: by the request's sort descriptors, then in store order.
    private func precedes(_ a: Object, _ aKeys: [SortDescriptor.SortKey], _ b: Object, _ bKeys: [SortDescriptor.SortKey]) -> Bool {
        switch request.sortDescriptors.compareKeys(aKeys, bKeys) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return ManagedObjectContext.inStoreOrder(a.objectID, b.objectID)
        }
    }

    /// Whether `object` matches the request's predicate (a predicate the evaluator refuses
    /// matches nothing).
    private func matches(_ object: Object) -> Bool {
        guard let predicate = request.predicate else { return true }
        return (try? predicate.evaluateChecked(with: object)) ?? false
    }

    /// Tells the delegate how the results went from `old` to the installed ones: `updated` are
    /// the objects whose values changed, `placed` those whose place may have changed (the others
    /// kept their order), `resorted` those whose sort values changed (moves wherever they stand).
    private func report(from old: [Object], _ oldSections: [FetchedResultsSection<Object>], _ oldPositions: [ObjectIdentifier: IndexPath],
                        updated: Set<ObjectIdentifier>, placed: Set<ObjectIdentifier>, resorted: Set<ObjectIdentifier>) {
        guard let delegate, let sections else { return }
        let oldNames = Set(oldSections.map(\.name)), newNames = Set(sections.map(\.name))
        var sectionChanges: [(FetchedResultsSection<Object>, Int, FetchedResultsChangeType)] = []
        for (index, section) in oldSections.enumerated() where !newNames.contains(section.name) { sectionChanges.append((section, index, .delete)) }
        for (index, section) in sections.enumerated() where !oldNames.contains(section.name) { sectionChanges.append((section, index, .insert)) }

        var deletes: [(Object, IndexPath)] = [], inserts: [(Object, IndexPath)] = []
        var moves: [(Object, IndexPath, IndexPath)] = [], updates: [(Object, IndexPath, IndexPath)] = []
        for object in old where positions[ObjectIdentifier(object)] == nil {
            deletes.append((object, oldPositions[ObjectIdentifier(object)]!))
        }
        let inPlace = objectsInPlace(old: oldPositions, placed: placed, oldSectionNames: oldSections.map(\.name))
        for object in fetchedObjects ?? [] {
            let key = ObjectIdentifier(object)
            let now = positions[key]!
            guard let before = oldPositions[key] else {
                inserts.append((object, now))
                continue
            }
            if resorted.contains(key) || placed.contains(key) && !inPlace.contains(key) {
                moves.append((object, before, now))
            } else if updated.contains(key) {
                updates.append((object, before, now))
            }
        }
        guard !sectionChanges.isEmpty || !deletes.isEmpty || !inserts.isEmpty || !moves.isEmpty || !updates.isEmpty else { return }
        delegate.controllerWillChangeContent(self)
        for (section, index, type) in sectionChanges { delegate.controller(self, didChange: section, atSectionIndex: index, for: type) }
        for (object, at) in deletes { delegate.controller(self, didChange: object, at: at, for: .delete, newIndexPath: nil) }
        for (object, at) in inserts { delegate.controller(self, didChange: object, at: nil, for: .insert, newIndexPath: at) }
        for (object, at, to) in moves { delegate.controller(self, didChange: object, at: at, for: .move, newIndexPath: to) }
        for (object, at, to) in updates { delegate.controller(self, didChange: object, at: at, for: .update, newIndexPath: to) }
        tellDifference(to: delegate, from: old)
        delegate.controllerDidChangeContent(self)
    }

    /// Tells `delegate` the difference between the IDs of `old` and of the fetched objects; only
    /// without sections, as Core Data ("only invoked if the controller's sectionNameKeyPath
    /// property is nil").
    private func tellDifference(to delegate: any FetchedResultsControllerDelegate<Object>, from old: [Object]) {
        guard sectionNameKeyPath == nil else { return }
        let now = (fetchedObjects ?? []).map(\.objectID)
        delegate.controller(self, didChangeContentWith: now.difference(from: old.map(\.objectID)))
    }

    /// The `placed` objects that kept their place: in the same section, between the same other
    /// neighbours, and in the same order as the other placed objects there (the longest such
    /// run). The objects not placed keep their order among themselves, so a list that deletes,
    /// inserts and moves the others shows the new results.
    private func objectsInPlace(old oldPositions: [ObjectIdentifier: IndexPath], placed: Set<ObjectIdentifier>,
                                oldSectionNames: [String]) -> Set<ObjectIdentifier> {
        guard let sections else { return [] }
        var inPlace = Set<ObjectIdentifier>()
        for section in sections {
            // The objects that were there before, in their new order, with their old places.
            let common = section.objects.compactMap { object -> (ObjectIdentifier, IndexPath)? in
                let key = ObjectIdentifier(object)
                guard let before = oldPositions[key], oldSectionNames[before.section] == section.name else { return nil }
                return (key, before)
            }
            var group: [(ObjectIdentifier, IndexPath)] = []
            var lowerBound: IndexPath?
            func closeGroup(upperBound: IndexPath?) {
                let candidates = group.filter { _, before in
                    (lowerBound.map { before > $0 } ?? true) && (upperBound.map { before < $0 } ?? true)
                }
                inPlace.formUnion(Self.longestIncreasingRun(candidates))
                group = []
            }
            for (key, before) in common {
                if placed.contains(key) {
                    group.append((key, before))
                } else {
                    closeGroup(upperBound: before)
                    lowerBound = before
                }
            }
            closeGroup(upperBound: nil)
        }
        return inPlace
    }

    /// The keys of the longest run of `items` whose old places increase.
    private static func longestIncreasingRun(_ items: [(ObjectIdentifier, IndexPath)]) -> [ObjectIdentifier] {
        guard items.count > 1 else { return items.map(\.0) }
        // Patience sorting: tails[k] is the index of the smallest last place of a run of k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: items.count)
        for (index, item) in items.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if items[tails[middle]].1 < item.1 { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [ObjectIdentifier] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            run.append(items[cursor].0)
            cursor = previous[cursor]
        }
        return run
    }
}
