// A stored task's urgency: its facts gathered into UrgencyFactors (tags, project, whether it is
// blocked by or blocking open tasks) and scored by Taskwarrior's formula.
import Foundation

extension TaskItem {
    /// Whether the task is still to do (pending or started).
    public var isOpen: Bool { status == "pending" || status == "started" }

    /// The relationships ``urgency(at:)`` reads.
    public static let urgencyRelationships = ["tags", "dependencies", "dependents"]

    /// The task's urgency at `now` (see ``Urgency``).
    public func urgency(at now: Date) -> Double {
        Urgency.score(UrgencyFactors(
            due: due, priority: Int(priority), created: created ?? now, isStarted: status == "started",
            scheduled: scheduled, wait: wait, tags: tags.compactMap(\.name), hasProject: !(project ?? "").isEmpty,
            isBlocked: dependencies.contains { $0.isOpen }, isBlocking: dependents.contains { $0.isOpen }), now: now)
    }
}
