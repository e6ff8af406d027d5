// Typed fetch requests from a managed object class: `Person.fetchRequest()` is a
// `FetchRequest<Person>` for the class's entity. One generic definition serves every class, so a
// subclass's request is never ambiguous with its parent's (as Xcode's generated ones are).

/// A managed object class that makes fetch requests typed by itself. Every class adopts it
/// through ``ManagedObject``.
///
/// ```swift
/// var request = Person.fetchRequest()            // FetchRequest<Person>, entity "Person"
/// request.predicate = try Predicate(format: "lastName == %@", "Appleseed")
/// let people: [Person] = try context.fetch(request)
/// ```
public protocol FetchableObject: ManagedObject {}

extension ManagedObject: FetchableObject {}

extension FetchableObject {
    /// A request for the objects of the class's entity (``ManagedObject/entityName``), sub-entities
    /// included.
    public static func fetchRequest() -> FetchRequest<Self> {
        FetchRequest<Self>(entityName: entityName)
    }
}
