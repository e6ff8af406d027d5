// A fetch request stored in a model: a named template (`<fetchRequest>` at the model level) or
// the request of a fetched property. The predicate stays a format string here, with its
// `$VARIABLE`s; fetching substitutes and parses it.

/// A fetch request as a model declares it: an entity, a predicate format and options.
///
/// ```swift
/// let byName = FetchRequestTemplate(name: "byHumanName", entityName: "Human",
///                                   predicateFormat: "humanName == $humanName")
/// ```
public struct FetchRequestTemplate: Sendable, Hashable {
    /// The template's name (`fetchedPropertyFetchRequest` for a fetched property's request).
    public var name: String
    /// The entity the request fetches.
    public var entityName: String
    /// The predicate, as a format string that may use `$VARIABLE`s; nil fetches every object.
    public var predicateFormat: String?
    /// The most objects to return (0: no limit).
    public var fetchLimit: Int
    /// How many objects to materialize at a time (0: all at once).
    public var fetchBatchSize: Int
    /// What the request returns: 0 objects, 1 object IDs, 2 dictionaries (Xcode's numbering).
    public var resultType: Int
    /// Whether objects of sub-entities are fetched too.
    public var includesSubentities: Bool
    /// Whether property values are fetched with the objects.
    public var includesPropertyValues: Bool
    /// Whether objects come back as faults.
    public var returnsObjectsAsFaults: Bool
    /// Whether unsaved changes are taken into account.
    public var includesPendingChanges: Bool
    /// Whether duplicate results (dictionaries) are removed.
    public var returnsDistinctResults: Bool
    /// The order of the results. Xcode's model file has no place for them (as in Core Data, a
    /// fetched property's results are sorted by setting its request's sort descriptors in
    /// code): they are neither read from nor written to model files.
    public var sortDescriptors: [SortDescriptor] = []
    /// Where the template was read from, when it came from a model file.
    public var sourceLocation: ModelSourceLocation?

    public init(name: String, entityName: String, predicateFormat: String? = nil) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
        self.fetchLimit = 0
        self.fetchBatchSize = 0
        self.resultType = 0
        self.includesSubentities = true
        self.includesPropertyValues = true
        self.returnsObjectsAsFaults = true
        self.includesPendingChanges = true
        self.returnsDistinctResults = false
    }

    /// The parsed predicate (nil when the template has none), with `variables` substituted for
    /// its `$NAME`s. Throws a ``PredicateError`` for a malformed format or an unbound variable.
    ///
    /// ```swift
    /// try template.predicate(substitutionVariables: ["DATE": Date()])   // due < CAST(...) AND done == 0
    /// ```
    public func predicate(substitutionVariables variables: [String: Any?] = [:]) throws -> Predicate? {
        guard let format = predicateFormat, !format.isEmpty else { return nil }
        let parsed = try Predicate(format: format)
        return variables.isEmpty && parsed.variableNames.isEmpty ? parsed : try parsed.withSubstitutionVariables(variables)
    }

    /// Equal when they declare the same request; where they were read from does not count.
    public static func == (lhs: FetchRequestTemplate, rhs: FetchRequestTemplate) -> Bool {
        lhs.name == rhs.name && lhs.entityName == rhs.entityName && lhs.predicateFormat == rhs.predicateFormat
            && lhs.fetchLimit == rhs.fetchLimit && lhs.fetchBatchSize == rhs.fetchBatchSize
            && lhs.resultType == rhs.resultType && lhs.includesSubentities == rhs.includesSubentities
            && lhs.includesPropertyValues == rhs.includesPropertyValues
            && lhs.returnsObjectsAsFaults == rhs.returnsObjectsAsFaults
            && lhs.includesPendingChanges == rhs.includesPendingChanges
            && lhs.returnsDistinctResults == rhs.returnsDistinctResults
            && lhs.sortDescriptors == rhs.sortDescriptors
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(entityName)
        hasher.combine(predicateFormat)
    }
}
