// An undo manager: Foundation's NSUndoManager, which Foundation on Linux lacks. It records undo
// actions in groups (one group per event when groupsByEvent is on, as a context's changes between
// two processPendingChanges are), undoes a group by running its actions in reverse, and records
// what those actions register as the group to redo.

/// Records undoable actions in groups and replays them backwards (undo) and forwards (redo).
///
/// ```swift
/// let undo = UndoManager()
/// var title = "Draft"
/// undo.registerUndo(withTarget: box) { box in box.title = "Draft" }
/// undo.closeEventGroup()
/// undo.undo()
/// ```
///
/// Not thread-safe: an undo manager belongs to one context and is used on its queue.
public final class UndoManager: @unchecked Sendable {
    /// One recorded action: what to run, and the object it acts on (for removeAllActions(withTarget:)).
    /// The target is held weakly: a gone target's actions match no other object that comes to
    /// live at its address.
    private struct Action {
        weak var target: AnyObject?
        var run: () -> Void
    }

    /// A group of actions and nested groups, undone together.
    private final class Group {
        var items: [Item] = []
        var actionName = ""
        var isEmpty: Bool { items.allSatisfy { if case .group(let g) = $0 { return g.isEmpty } else { return false } } }
    }

    private enum Item {
        case action(Action)
        case group(Group)
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The open groups, outermost first.
    private var openGroups: [Group] = []
    /// Whether the outermost open group was opened automatically for the current event.
    private var eventGroupIsOpen = false
    private var disableCount = 0
    private enum Phase { case normal, undoing, redoing }
    private var phase = Phase.normal

    /// Whether registering an action with no group open opens one for the current event
    /// (closed by ``closeEventGroup()``). On by default, as in Foundation.
    public var groupsByEvent = true
    /// How many top-level groups are kept; 0 keeps all. Older ones are dropped first.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }

    public init() {}

    // MARK: Groups

    /// How many groups are open.
    public var groupingLevel: Int { openGroups.count }

    /// Opens a group; everything registered until the matching ``endUndoGrouping()`` is undone together.
    public func beginUndoGrouping() {
        openGroups.append(Group())
    }

    /// Closes the innermost open group. An empty group is dropped.
    public func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "endUndoGrouping() without a matching beginUndoGrouping()")
        let group = openGroups.removeLast()
        if openGroups.isEmpty { eventGroupIsOpen = false }
        guard !group.isEmpty else { return }
        if let parent = openGroups.last {
            parent.items.append(.group(group))
        } else {
            push(group)
        }
    }

    /// Closes the group opened automatically for the current event, if one is open. A context
    /// calls this at the end of each event (in processPendingChanges).
    public func closeEventGroup() {
        guard eventGroupIsOpen, openGroups.count == 1 else { return }
        endUndoGrouping()
    }

    private func push(_ group: Group) {
        switch phase {
        case .undoing: redoStack.append(group)
        case .redoing: undoStack.append(group)
        case .normal:
            undoStack.append(group)
            redoStack.removeAll()
        }
        trim()
    }

    private func trim() {
        guard levelsOfUndo > 0 else { return }
        if undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
        if redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
    }

    // MARK: Registering

    /// Whether actions are being recorded (registration is not disabled).
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Stops recording actions until a matching ``enableUndoRegistration()``. Calls nest.
    public func disableUndoRegistration() { disableCount += 1 }

    /// Resumes recording after ``disableUndoRegistration()``.
    public func enableUndoRegistration() {
        precondition(disableCount > 0, "enableUndoRegistration() without a matching disableUndoRegistration()")
        disableCount -= 1
    }

    /// Records `handler`, to be run with `target` when the current group is undone.
    ///
    /// As in Foundation, the manager does not retain `target`: its owner (a context, a document)
    /// usually owns the manager too, and a retained target would keep both alive for good. The
    /// action does nothing once `target` is gone (Foundation's unowned reference would trap);
    /// `handler` keeps whatever else it captures.
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        register(Action(target: target, run: { [weak target] in if let target { handler(target) } }))
    }

    /// Records `handler` as ``registerUndo(withTarget:handler:)`` does, but keeps `target` alive
    /// while the action is recorded: a context's changes to an object are undone on that object
    /// even when nothing else holds it any more.
    func registerUndo<Target: AnyObject>(retaining target: Target, handler: @escaping (Target) -> Void) {
        register(Action(target: target, run: { handler(target) }))
    }

    /// Records `handler`, to be run when the current group is undone.
    public func registerUndo(_ handler: @escaping () -> Void) {
        register(Action(target: nil, run: handler))
    }

    private func register(_ action: Action) {
        guard isUndoRegistrationEnabled else { return }
        // A new action makes the undone groups obsolete now, not when its group closes (as in
        // Foundation): redo() called while its group is still open finds nothing to redo.
        if phase == .normal, !redoStack.isEmpty { redoStack.removeAll() }
        if openGroups.isEmpty {
            precondition(groupsByEvent || phase != .normal,
                         "registerUndo with no open group and groupsByEvent off: call beginUndoGrouping() first")
            beginUndoGrouping()
            eventGroupIsOpen = phase == .normal
        }
        openGroups[openGroups.count - 1].items.append(.action(action))
    }

    /// Names the action of the current group (`"Typing"`, `"Delete Task"`), for menus.
    public func setActionName(_ name: String) {
        openGroups.last?.actionName = name
        if openGroups.isEmpty, phase == .normal { undoStack.last?.actionName = name }
    }

    /// The name of the group ``undo()`` would undo.
    public var undoActionName: String { undoStack.last?.actionName ?? "" }
    /// The name of the group ``redo()`` would redo.
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    // MARK: Undoing and redoing

    /// Whether there is a group to undo. Actions recorded in a group still open count, whether
    /// it was opened for the event or by ``beginUndoGrouping()`` (as in Foundation, where
    /// `canUndo` does not mean that ``undo()`` may be called: nested groups must be closed
    /// first). While an undo runs, the group it records is the one to redo and does not count.
    public var canUndo: Bool {
        !undoStack.isEmpty || (phase != .undoing && openGroups.contains { !$0.isEmpty })
    }
    /// Whether there is a group to redo. Registering an action other than an undo's or a
    /// redo's empties the redo stack.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// Whether an undo is running.
    public var isUndoing: Bool { phase == .undoing }
    /// Whether a redo is running.
    public var isRedoing: Bool { phase == .redoing }

    /// Undoes the last group: closes the open group first (the event's, or one opened by hand,
    /// when it is the only one open: Foundation's undo() ends the grouping at nesting level 1),
    /// then runs the group's actions in reverse; what they register becomes the group to redo.
    /// Traps with more than one group open (Foundation raises): which one to undo is unclear.
    public func undo() {
        undo(finishing: {})
    }

    /// ``undo()``, running `finish` after the group's actions and before the group to redo
    /// closes: a context ends the undo's event there (``ManagedObjectContext/processPendingChanges()``),
    /// so that what the event's end does (delete propagation) is recorded with the undo, not as
    /// a new change that would empty the redo stack.
    func undo(finishing finish: () -> Void) {
        precondition(phase == .normal, "undo() while an undo or redo runs")
        if openGroups.count == 1 { endUndoGrouping() }
        precondition(openGroups.isEmpty, "undo() with \(openGroups.count) undo groups open: close the nested ones first")
        guard let group = undoStack.popLast() else { return }
        replay(group, as: .undoing, finishing: finish)
    }

    /// Redoes the last undone group. Does nothing when there is none: an action registered
    /// since the undo emptied the redo stack (see ``canRedo``).
    public func redo() {
        redo(finishing: {})
    }

    /// ``redo()``, running `finish` before the redone group closes (see ``undo(finishing:)``).
    /// A group still open holds no action newer than the undone group (registering one empties
    /// the redo stack): it is set aside while the redo runs and stays open after it, the redone
    /// group going onto the undo stack before it.
    func redo(finishing finish: () -> Void) {
        precondition(phase == .normal, "redo() while an undo or redo runs")
        guard let group = redoStack.popLast() else { return }
        let open = openGroups
        let eventGroupWasOpen = eventGroupIsOpen
        openGroups = []
        replay(group, as: .redoing, finishing: finish)
        openGroups = open
        eventGroupIsOpen = eventGroupWasOpen
    }

    /// Undoes the last group nested in the open group (or the last top-level group when none is open).
    public func undoNestedGroup() {
        guard let open = openGroups.last else { return undo() }
        guard let index = open.items.lastIndex(where: { if case .group = $0 { return true } else { return false } }),
              case .group(let nested) = open.items.remove(at: index) else { return }
        let saved = phase
        phase = .undoing
        beginUndoGrouping()
        run(nested)
        let inverse = openGroups.removeLast()
        phase = saved
        if !inverse.isEmpty { redoStack.append(inverse) }
    }

    private func replay(_ group: Group, as newPhase: Phase, finishing finish: () -> Void) {
        let saved = phase
        phase = newPhase
        beginUndoGrouping()
        openGroups[0].actionName = group.actionName
        run(group)
        finish()
        endUndoGrouping()
        phase = saved
    }

    private func run(_ group: Group) {
        for item in group.items.reversed() {
            switch item {
            case .action(let action): action.run()
            case .group(let nested): run(nested)
            }
        }
    }

    // MARK: Clearing

    /// Forgets every recorded action, to undo and to redo, and enables registration again
    /// (Foundation: "Clears the undo and redo stacks and reenables the manager").
    ///
    /// The actions of groups still open are forgotten too, but the groups stay open, empty:
    /// the code that opened one by hand still closes it with ``endUndoGrouping()``, which would
    /// trap on a group that was removed, and an open event group still closes at the event's
    /// end. A group that holds nothing when it closes is dropped, so nothing from before the
    /// call can be undone.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        for group in openGroups {
            group.items.removeAll()
            group.actionName = ""
        }
        disableCount = 0
    }

    /// Forgets every recorded action on `target`.
    public func removeAllActions(withTarget target: AnyObject) {
        func prune(_ group: Group) {
            group.items.removeAll { if case .action(let a) = $0 { return a.target === target } else { return false } }
            for case .group(let nested) in group.items { prune(nested) }
        }
        (undoStack + redoStack + openGroups).forEach(prune)
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
    }
}
