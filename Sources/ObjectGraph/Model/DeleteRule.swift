// What happens to a relationship's destination when its source object is deleted: the four
// rules of Core Data, with the names Xcode writes (`deletionRule="No Action"`).

/// What deleting the source object of a relationship does to its destination objects.
///
/// ```swift
/// Relationship("tasks", to: "Task", inverse: "owner", toMany: true, deleteRule: .cascade)
/// ```
public enum DeleteRule: String, CaseIterable, Sendable, Hashable, Codable {
    /// Remove the deleted object from the destinations' inverse relationship (the default).
    case nullify = "Nullify"
    /// Delete the destination objects too.
    case cascade = "Cascade"
    /// Refuse to delete the source while it has destination objects.
    case deny = "Deny"
    /// Do nothing to the destinations; their inverse keeps pointing at the deleted object.
    case noAction = "No Action"

    /// The rule named `name` as Xcode writes it, or nil.
    public init?(xcodeName name: String) {
        self.init(rawValue: name)
    }

    /// The name Xcode writes in a model file.
    public var xcodeName: String { rawValue }
}
