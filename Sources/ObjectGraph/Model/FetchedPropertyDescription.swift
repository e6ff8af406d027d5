// A fetched property: a weak, one-way relationship computed by a fetch request whose predicate
// may use `$FETCH_SOURCE` (the object) and `$FETCHED_PROPERTY` (this description).

/// A property whose value is the result of a fetch request, evaluated lazily: on first access,
/// then kept by the object's context until the object is refreshed or the context reset (as in
/// Core Data, fetched properties are not dynamic).
///
/// ```swift
/// let recent = FetchedPropertyDescription(name: "recentTasks",
///     fetchRequest: FetchRequestTemplate(name: "fetchedPropertyFetchRequest", entityName: "Task",
///                                        predicateFormat: "owner == $FETCH_SOURCE AND done == NO"))
/// ```
public final class FetchedPropertyDescription: PropertyDescription, @unchecked Sendable {
    /// The request whose results are the property's value.
    public var fetchRequest: FetchRequestTemplate

    public init(name: String, fetchRequest: FetchRequestTemplate, isOptional: Bool = true) {
        self.fetchRequest = fetchRequest
        super.init(name: name, isOptional: isOptional, isTransient: true)
    }

    public override func isEqual(to other: PropertyDescription) -> Bool {
        guard let other = other as? FetchedPropertyDescription, super.isEqual(to: other) else { return false }
        return fetchRequest == other.fetchRequest
    }

    public override func copy() -> PropertyDescription {
        let copy = FetchedPropertyDescription(name: name, fetchRequest: fetchRequest, isOptional: isOptional)
        copyCommonFields(to: copy)
        return copy
    }
}
