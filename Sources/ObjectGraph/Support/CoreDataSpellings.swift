// Core Data's own spellings of a few things this framework names the Swift way, for code written
// for Core Data: `NSEntityDescription`'s class methods, the `…ConcurrencyType` and `…ResultType`
// case names, a property to fetch written as a string, and `Identifiable` managed objects.

extension EntityDescription {
    /// A new object of the entity named `entityName`, inserted into `context` (Core Data's
    /// spelling of ``ManagedObjectContext/insertNewObject(forEntityName:)``).
    ///
    /// ```swift
    /// let task = EntityDescription.insertNewObject(forEntityName: "Task", into: context)
    /// ```
    @discardableResult
    public static func insertNewObject(forEntityName entityName: String, into context: ManagedObjectContext) -> ManagedObject {
        context.insertNewObject(forEntityName: entityName)
    }

    /// The entity named `entityName` in the model of `context`'s coordinator, nil if there is none.
    public static func entity(forEntityName entityName: String, in context: ManagedObjectContext) -> EntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName]
    }
}

extension ManagedObjectContext.ConcurrencyType {
    /// Core Data's name of ``privateQueue``.
    public static var privateQueueConcurrencyType: Self { .privateQueue }
    /// Core Data's name of ``mainQueue``.
    public static var mainQueueConcurrencyType: Self { .mainQueue }
}

extension FetchResultType {
    /// Core Data's name of ``managedObject``.
    public static var managedObjectResultType: Self { .managedObject }
    /// Core Data's name of ``managedObjectID``.
    public static var managedObjectIDResultType: Self { .managedObjectID }
    /// Core Data's name of ``dictionary``.
    public static var dictionaryResultType: Self { .dictionary }
    /// Core Data's name of ``count``.
    public static var countResultType: Self { .count }
}

/// A property to fetch may be written as its name, as Core Data's `propertiesToFetch` takes names:
/// `request.propertiesToFetch = ["title", "owner.name"]`.
extension PropertyToFetch: ExpressibleByStringLiteral {
    public init(stringLiteral name: String) { self = .property(name) }
}

/// Managed objects are identified by the object itself (as `NSManagedObject`'s `id` is its
/// `ObjectIdentifier`): an object ID changes when a new object is saved, the object does not.
extension ManagedObject: Identifiable {}

/// Core Data's names of the SQLite store's options, for a store description's
/// `setOption(_:forKey:)` or `addPersistentStore(type:at:options:)`.
public let NSReadOnlyPersistentStoreOption = SQLiteStore.readOnlyOption
public let NSSQLitePragmasOption = SQLiteStore.pragmasOption
public let NSSQLiteAnalyzeOption = SQLiteStore.analyzeOption
public let NSSQLiteManualVacuumOption = SQLiteStore.manualVacuumOption
public let NSMigratePersistentStoresAutomaticallyOption = SQLiteStore.migratesAutomaticallyOption
public let NSInferMappingModelAutomaticallyOption = SQLiteStore.infersMappingModelOption
