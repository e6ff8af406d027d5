// Which Swift class represents each entity's objects. Generated classes register themselves
// (each model's generated code has one `register()` call); a class named with its module
// (`PIM.Person`) is also found by the Swift runtime. Entities without a class use ManagedObject.
import Synchronization

/// The registry of managed object classes, by entity.
public enum ObjectClasses {
    private static let byName = Mutex<[String: ManagedObject.Type]>([:])
    private static let byEntity = Mutex<[ObjectIdentifier: ManagedObject.Type]>([:])

    /// Registers `type` for the entity named by its ``ManagedObject/entityName`` (and for models
    /// whose `representedClassName` is the class's name).
    public static func register(_ types: ManagedObject.Type...) {
        register(types)
    }

    /// Registers every class of `types`.
    public static func register(_ types: [ManagedObject.Type]) {
        byName.withLock { names in
            for type in types {
                names[type.entityName] = type
                names[String(describing: type)] = type
            }
        }
        byEntity.withLock { $0.removeAll() }
    }

    /// The class that represents objects of `entity`.
    public static func managedObjectClass(for entity: EntityDescription) -> ManagedObject.Type {
        if let known = byEntity.withLock({ $0[ObjectIdentifier(entity)] }) { return known }
        let resolved = resolve(entity)
        byEntity.withLock { $0[ObjectIdentifier(entity)] = resolved }
        return resolved
    }

    private static func resolve(_ entity: EntityDescription) -> ManagedObject.Type {
        let registered = byName.withLock { $0 }
        if let className = entity.managedObjectClassName, !className.isEmpty {
            let bare = ManagedObjectContext.bareClassName(className)
            if let type = registered[bare] ?? registered[className] { return type }
            let qualified = className.hasPrefix(".") ? String(className.dropFirst()) : className
            if let type = _typeByName(qualified) as? ManagedObject.Type { return type }
        }
        return registered[entity.name] ?? ManagedObject.self
    }

    /// A new, uninserted object of `entity`'s class.
    static func make(_ entity: EntityDescription) -> ManagedObject {
        managedObjectClass(for: entity).init(entity: entity, insertInto: nil)
    }
}
