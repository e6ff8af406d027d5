// Task urgency, Taskwarrior's formula with its default coefficients (from Taskwarrior 2.6's
// `task show urgency`): a weighted sum of terms each between 0 and 1. `pim tasks list` sorts by it.
import Foundation

/// What urgency is computed from: a task's facts at an instant, free of the store.
public struct UrgencyFactors: Sendable, Equatable {
    public var due: Date?
    /// iCalendar priority: 1–4 high, 5 medium, 6–9 low, 0 none.
    public var priority: Int
    public var created: Date
    public var isStarted: Bool
    public var scheduled: Date?
    public var wait: Date?
    public var tags: [String]
    public var hasProject: Bool
    /// Whether a pending task it depends on exists.
    public var isBlocked: Bool
    /// Whether a pending task depends on it.
    public var isBlocking: Bool

    public init(due: Date? = nil, priority: Int = 0, created: Date, isStarted: Bool = false, scheduled: Date? = nil,
                wait: Date? = nil, tags: [String] = [], hasProject: Bool = false, isBlocked: Bool = false, isBlocking: Bool = false) {
        self.due = due
        self.priority = priority
        self.created = created
        self.isStarted = isStarted
        self.scheduled = scheduled
        self.wait = wait
        self.tags = tags
        self.hasProject = hasProject
        self.isBlocked = isBlocked
        self.isBlocking = isBlocking
    }
}

/// Taskwarrior's urgency.
///
/// urgency = 15·next + 12·due + 8·blocking + 6·high / 3.9·medium / 1.8·low + 5·scheduled
///         + 4·active + 2·age + 1·tags + 1·project − 3·waiting − 5·blocked
///
/// - next: 1 if the task has the tag `next`.
/// - due: 1 when 7 or more days overdue; 0.2 when due in 14 days or more; linear between
///   (0.2 + 0.8 · (days overdue + 14) / 21). 0 without a due date.
/// - priority: the coefficient of its class (iCalendar 1–4 high, 5 medium, 6–9 low).
/// - scheduled: 1 once the scheduled date has passed. active: 1 when started.
/// - age: days since creation / 365, at most 1.
/// - tags: 0.8 for one tag, 0.9 for two, 1 for three or more.
/// - waiting: 1 while the wait date is ahead. blocked and blocking: 1 when so.
public enum Urgency {
    public static let next = 15.0, due = 12.0, blocking = 8.0, high = 6.0, medium = 3.9, low = 1.8
    public static let scheduled = 5.0, active = 4.0, age = 2.0, tags = 1.0, project = 1.0
    public static let waiting = -3.0, blocked = -5.0

    /// The urgency of a task with `factors` at `now`.
    public static func score(_ factors: UrgencyFactors, now: Date) -> Double {
        var total = 0.0
        if factors.tags.contains("next") { total += next }
        total += due * dueTerm(factors.due, now: now)
        if factors.isBlocking { total += blocking }
        switch factors.priority {
        case 1...4: total += high
        case 5: total += medium
        case 6...9: total += low
        default: break
        }
        if let date = factors.scheduled, date <= now { total += scheduled }
        if factors.isStarted { total += active }
        total += age * min(max(now.timeIntervalSince(factors.created) / 86_400 / 365, 0), 1)
        switch factors.tags.count {
        case 0: break
        case 1: total += tags * 0.8
        case 2: total += tags * 0.9
        default: total += tags
        }
        if factors.hasProject { total += project }
        if let date = factors.wait, date > now { total += waiting }
        if factors.isBlocked { total += blocked }
        return total
    }

    /// The due term, between 0.2 and 1 for a task with a due date.
    static func dueTerm(_ due: Date?, now: Date) -> Double {
        guard let due else { return 0 }
        let overdue = now.timeIntervalSince(due) / 86_400
        if overdue >= 7 { return 1 }
        if overdue >= -14 { return (overdue + 14) * 0.8 / 21 + 0.2 }
        return 0.2
    }
}
