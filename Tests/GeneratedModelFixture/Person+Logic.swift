// Hand-written logic of the fixture's generated Person class, in an extension as the generated
// files ask: derived values over the typed accessors.

extension Person {
    /// The todos not done yet, in the person's order.
    public var openTodos: [Todo] { todos.filter { !$0.done } }

    /// The name with the manager's in parentheses: `Ann (Bob)`.
    public var nameWithManager: String {
        guard let manager else { return name ?? "" }
        return "\(name ?? "") (\(manager.name ?? ""))"
    }
}
