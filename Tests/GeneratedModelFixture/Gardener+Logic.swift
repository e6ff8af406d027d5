// Hand-written logic of the fixture's generated Gardener class, in an extension as the generated
// files ask: derived values over the typed accessors.

extension Gardener {
    /// The chores not done yet, in the gardener's order.
    public var openChores: [Chore] { chores.filter { !$0.done } }

    /// The name with the mentor's in parentheses: `Ann (Bob)`.
    public var nameWithMentor: String {
        guard let mentor else { return name ?? "" }
        return "\(name ?? "") (\(mentor.name ?? ""))"
    }
}
