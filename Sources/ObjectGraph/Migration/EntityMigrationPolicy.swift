// How one entity mapping's objects are migrated (Core Data's NSEntityMigrationPolicy): the
// default policy makes one destination object per source object, its attributes from the
// mapping's value expressions, then its relationships; a subclass named by the mapping's
// `entityMigrationPolicyClassName` overrides any stage, for the changes no expression can make
// (talk 001: "if you have truly complex changes in your data model between versions, you'll need
// to write some code to deal with those transformations").
import Foundation

/// The code that migrates the objects of one ``EntityMapping`` (Core Data's
/// `NSEntityMigrationPolicy`). A ``MigrationManager`` calls, for each entity mapping in order:
/// ``begin(_:with:)``, ``createDestinationInstances(forSource:in:manager:)`` for each source
/// object and ``endInstanceCreation(forMapping:manager:)``; then, once every mapping made its
/// objects, ``createRelationships(forDestination:in:manager:)`` for each object the mapping made
/// and ``endRelationshipCreation(forMapping:manager:)``; last
/// ``performCustomValidation(forMapping:manager:)`` and ``end(_:manager:)``. Throwing from any
/// of them stops the migration and leaves the source store as it was.
///
/// ```swift
/// final class Country5ToCountry6Policy: EntityMigrationPolicy {
///     override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping,
///                                              manager: MigrationManager) throws {
///         try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
///         let country = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])[0]
///         country.setValue(continent(for: source, manager), forKey: "continent")
///     }
/// }
/// EntityMigrationPolicy.register(Country5ToCountry6Policy.self, as: "Migrations.Country5ToCountry6Policy")
/// ```
///
/// A mapping model names its policy by class name, as Xcode writes it (`Module.ClassName`):
/// ``register(_:as:)`` gives a class that name; without it, the name is looked up among the
/// program's Swift classes.
open class EntityMigrationPolicy: MethodReceiver {
    public required init() {}

    // MARK: Stage 1: objects

    /// Called before the mapping's first object is made.
    open func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}

    /// Makes the destination object of `source` (a source object of the mapping's source entity):
    /// an object of the destination entity whose attributes take the values of the mapping's
    /// attribute value expressions (those without one keep their default value), associated with
    /// `source` (``MigrationManager/associate(sourceInstance:withDestinationInstance:for:)``).
    open func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping,
                                         manager: MigrationManager) throws {
        guard let entityName = mapping.destinationEntityName else { return }
        let destination = try manager.insertDestinationObject(forEntityName: entityName, mapping: mapping)
        for propertyMapping in mapping.attributeMappings {
            guard let expression = propertyMapping.valueExpression else { continue }
            let value = try manager.evaluate(expression, source: source, mapping: mapping, propertyMapping: propertyMapping, policy: self)
            try manager.setAttribute(value, of: destination, propertyMapping, mapping)
        }
        manager.associate(sourceInstance: source, withDestinationInstance: destination, for: mapping)
    }

    /// Called after the mapping made its objects.
    open func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    // MARK: Stage 2: relationships

    /// Sets the relationships of `destination`, an object the mapping made, from the mapping's
    /// relationship value expressions, with `$source` its source object. An expression's source
    /// objects stand for the objects migrated from them.
    open func createRelationships(forDestination destination: ManagedObject, in mapping: EntityMapping,
                                  manager: MigrationManager) throws {
        let source = manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [destination]).first
        for propertyMapping in mapping.relationshipMappings {
            guard let expression = propertyMapping.valueExpression else { continue }
            let value = try manager.evaluate(expression, source: source, mapping: mapping, propertyMapping: propertyMapping, policy: self)
            try manager.setRelationship(value, of: destination, propertyMapping, mapping)
        }
    }

    /// Called after the relationships of the mapping's objects are set.
    open func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    // MARK: Stage 3: validation

    /// Checks of one's own on the mapping's objects, before they are saved (and validated).
    open func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called last for the mapping.
    open func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    // MARK: Methods for value expressions

    /// The policy's method `selector`, for `FUNCTION($entityPolicy, "selector:", ...)` in the
    /// mapping's value expressions; nil (none) by default.
    ///
    /// ```swift
    /// override func method(forSelector selector: String) -> (([Any?]) throws -> Any?)? {
    ///     guard selector == "initials:" else { return nil }
    ///     return { arguments in (arguments.first as? String).map { String($0.prefix(1)) } }
    /// }
    /// ```
    open func method(forSelector selector: String) -> (([Any?]) throws -> Any?)? { nil }

    // MARK: Policies by name

    private static let lock = NSLock()
    nonisolated(unsafe) private static var registered: [String: EntityMigrationPolicy.Type] = [:]

    /// Makes `type` the policy of mappings naming `name` (by default its Swift name,
    /// `Module.ClassName`, as Xcode writes it in a mapping model).
    public static func register(_ type: EntityMigrationPolicy.Type, as name: String? = nil) {
        lock.withLock { registered[name ?? String(reflecting: type)] = type }
    }

    /// The policy class `name` names (Core Data finds it with `NSClassFromString`): a registered
    /// one, else the program's Swift class of that name (`Module.ClassName`) when it is a
    /// subclass of this one; nil when there is none.
    public static func policyClass(named name: String) -> EntityMigrationPolicy.Type? {
        if let type = lock.withLock({ registered[name] }) { return type }
        return _typeByName(name) as? EntityMigrationPolicy.Type
    }
}
