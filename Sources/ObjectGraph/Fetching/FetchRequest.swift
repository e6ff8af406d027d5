// A fetch request: which entity, which objects (a predicate), in what order, how many, and in what
// form (objects, object IDs, a count, dictionaries). Typed by its result, as NSFetchRequest<T> is;
// a context runs it through its coordinator's stores.

/// What a fetch returns.
public enum FetchResultType: Sendable, Hashable {
    /// Managed objects.
    case managedObject
    /// Object IDs.
    case managedObjectID
    /// Dictionaries (`[String: Any]`) of the properties and expressions in `propertiesToFetch`.
    case dictionary
    /// One number: how many objects match.
    case count
}

/// A property or an expression to fetch.
public enum PropertyToFetch: Sendable, Hashable {
    /// A property by name (a key path through to-one relationships for dictionaries).
    case property(String)
    /// A computed expression.
    case expression(ExpressionDescription)
}

/// A request for objects of an entity, typed by what it returns.
///
/// ```swift
/// var request = FetchRequest<ManagedObject>(entityName: "Task")
/// request.predicate = try Predicate(format: "done == NO AND priority >= %d", 2)
/// request.sortDescriptors = [SortDescriptor(key: "due")]
/// let tasks = try context.fetch(request)
/// ```
public struct FetchRequest<Result>: @unchecked Sendable {
    /// The name of the entity to fetch.
    public var entityName: String
    /// Which objects; nil fetches all.
    public var predicate: Predicate?
    /// The order of the results. In a dictionary fetch a key may name an expression: one that
    /// reads a key path sorts the rows by it; a computed one (an aggregate) sorts groups, and
    /// rows that are not grouped cannot be sorted by it (the fetch is refused).
    public var sortDescriptors: [SortDescriptor] = []
    /// The most results to return (0: no limit).
    public var fetchLimit = 0
    /// How many results to skip.
    public var fetchOffset = 0
    /// Load objects in batches of this size while iterating (0: all at once).
    public var fetchBatchSize = 0
    /// Whether objects of sub-entities match too.
    public var includesSubentities = true
    /// Whether unsaved inserts, changes and deletes of the context are taken into account.
    public var includesPendingChanges = true
    /// The stores to fetch from (Core Data's `affectedStores`); nil: every store of the
    /// coordinator that holds the entity. Unsaved new objects count as in the store they will be
    /// saved to (``ManagedObjectContext/assign(_:to:)``).
    public var affectedStores: [any PersistentStore]?
    /// Whether objects come back as faults (values loaded on first access).
    public var returnsObjectsAsFaults = true
    /// Whether property values are fetched with the objects (false: faults, even of changed rows).
    public var includesPropertyValues = true
    /// Whether loaded objects the fetch returns again take the values now stored, their unsaved
    /// changes applied on top (as ``ManagedObjectContext/refresh(_:mergeChanges:)`` with
    /// `mergeChanges` does; their fetched properties are evaluated again), and are reported
    /// refreshed. False: they keep the values they hold, even when another context or process
    /// has saved newer ones since. A partial fetch (``propertiesToFetch``) or one in batches
    /// reads the whole rows of those objects; deleted objects stay as they are. Not applied by
    /// fetches of IDs or with `includesPropertyValues == false`, which read no values.
    public var shouldRefreshRefetchedObjects = false
    /// Which properties (and, for dictionaries, expressions) to fetch; nil: all.
    public var propertiesToFetch: [PropertyToFetch]?
    /// Relationship key paths whose destinations are fetched along (turns N+1 queries into 2).
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// What the fetch returns.
    public var resultType: FetchResultType
    /// Whether duplicate dictionaries are removed.
    public var returnsDistinctResults = false
    /// The properties dictionary results are grouped by.
    public var propertiesToGroupBy: [String] = []
    /// Which groups are kept: a predicate over the keys of the dictionaries (the grouped
    /// properties, by their names or key paths, and the expressions by their names). It needs
    /// the rows grouped (``propertiesToGroupBy``, or aggregates over all rows): a fetch whose
    /// rows are not grouped, or whose predicate reads a key the dictionaries do not hold, is
    /// refused rather than filtered wrongly.
    public var havingPredicate: Predicate?

    /// A request for objects of the entity named `entityName`, returning `resultType`
    /// (managed objects by default; object IDs for `FetchRequest<ObjectID>`, dictionaries for
    /// `FetchRequest<[String: Any]>`, a count for `FetchRequest<Int>`).
    public init(entityName: String, resultType: FetchResultType? = nil) {
        self.entityName = entityName
        if let resultType {
            self.resultType = resultType
        } else if Result.self == ObjectID.self {
            self.resultType = .managedObjectID
        } else if Result.self == [String: Any].self {
            self.resultType = .dictionary
        } else if Result.self == Int.self {
            self.resultType = .count
        } else {
            self.resultType = .managedObject
        }
    }

    /// A request from a model's stored template, with every option it declares; `variables`
    /// give its predicate's `$NAME`s their values (none: they must be substituted already).
    ///
    /// ```swift
    /// let request = try FetchRequest<ManagedObject>(template: template, substitutionVariables: ["DATE": Date()])
    /// ```
    public init(template: FetchRequestTemplate, substitutionVariables variables: [String: Any?] = [:]) throws {
        self.init(entityName: template.entityName)
        predicate = try template.predicate(substitutionVariables: variables)
        sortDescriptors = template.sortDescriptors
        fetchLimit = template.fetchLimit
        fetchBatchSize = template.fetchBatchSize
        includesSubentities = template.includesSubentities
        includesPropertyValues = template.includesPropertyValues
        returnsObjectsAsFaults = template.returnsObjectsAsFaults
        includesPendingChanges = template.includesPendingChanges
        returnsDistinctResults = template.returnsDistinctResults
        switch template.resultType {
        case 1: resultType = .managedObjectID
        case 2: resultType = .dictionary
        default: break
        }
    }
}
