// Which Swift class represents each entity's objects. Generated classes register themselves
// (each model's generated code has one `register()` call); a class named with its module
// (`PIM.Person`) is also found by the Swift runtime. Entities without a class use ManagedObject.
// Several models may have classes of the same name (two models' `Person`): a generated class is
// used only for an entity whose layout matches the slots it was generated with.
import Synchronization

/// The registry of managed object classes, by entity.
public enum ObjectClasses {
    private static let byName = Mutex<[String: [ManagedObject.Type]]>([:])
    private static let byEntity = Mutex<[ObjectIdentifier: ManagedObject.Type]>([:])
    private static let generatedSlotNames = Mutex<[ObjectIdentifier: [String]]>([:])

    /// A class generated from a model (see ``CodeGenerator``), with the names of its entity's
    /// properties in slot order when it was generated: its accessors use those slot indexes.
    public struct GeneratedClass: Sendable {
        /// The class.
        public let type: ManagedObject.Type
        /// The property names of the entity's layout, in slot order, at generation time.
        public let slotNames: [String]

        /// A generated class and the slot names its accessors were generated for.
        public init(_ type: ManagedObject.Type, slotNames: [String]) {
            self.type = type
            self.slotNames = slotNames
        }
    }

    /// Registers `type` for the entity named by its ``ManagedObject/entityName`` (and for models
    /// whose `representedClassName` is the class's name).
    public static func register(_ types: ManagedObject.Type...) {
        register(types)
    }

    /// Registers every class of `types`. Register classes at startup, before contexts use
    /// their entities: a context resolves each entity's class once.
    public static func register(_ types: [ManagedObject.Type]) {
        byName.withLock { names in
            for type in types {
                for name in Set([type.entityName, String(describing: type)]) {
                    names[name, default: []].removeAll { $0 == type }
                    names[name, default: []].insert(type, at: 0)
                }
            }
        }
        byEntity.withLock { $0.removeAll() }
    }

    /// Registers generated classes (what `<Model>Classes.register()` calls). A generated class
    /// represents an entity only if the entity's layout has the slots it was generated with;
    /// using it explicitly for an entity that does not (`Person(context:)` with a model of
    /// another version) stops the program naming the first mismatching slot.
    public static func register(_ classes: [GeneratedClass]) {
        generatedSlotNames.withLock { names in
            for generated in classes { names[ObjectIdentifier(generated.type)] = generated.slotNames }
        }
        register(classes.map(\.type))
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
        func fitting(_ name: String) -> ManagedObject.Type? {
            registered[name]?.first { mismatch(of: $0, for: entity) == nil }
        }
        if let className = entity.managedObjectClassName, !className.isEmpty {
            let bare = ManagedObjectContext.bareClassName(className)
            if let type = fitting(bare) ?? fitting(className) { return type }
            let qualified = className.hasPrefix(".") ? String(className.dropFirst()) : className
            if let type = _typeByName(qualified) as? ManagedObject.Type, mismatch(of: type, for: entity) == nil { return type }
        }
        return fitting(entity.name) ?? ManagedObject.self
    }

    /// Why the generated class `type` cannot represent `entity` (nil when it can, or when it
    /// was not generated).
    static func mismatch(of type: ManagedObject.Type, for entity: EntityDescription) -> String? {
        guard let generated = generatedSlotNames.withLock({ $0[ObjectIdentifier(type)] }) else { return nil }
        return slotMismatch(of: type, generatedWith: generated, against: entity)
    }

    /// Stops the program when `type`, used explicitly for `entity`, was generated with slot
    /// indexes that the entity's layout does not have.
    static func checkSlots(of type: ManagedObject.Type, against entity: EntityDescription) {
        if let problem = mismatch(of: type, for: entity) { preconditionFailure(problem) }
    }

    /// What is wrong with using `type`, generated with the slot names `generated`, for objects of
    /// `entity`: nil when the generated slots come first in the entity's layout, in order (more
    /// may follow them), else the first slot that differs.
    static func slotMismatch(of type: ManagedObject.Type, generatedWith generated: [String],
                             against entity: EntityDescription) -> String? {
        let actual = entity.layout.properties.map(\.name)
        guard let slot = generated.indices.first(where: { $0 >= actual.count || actual[$0] != generated[$0] }) else { return nil }
        let found = slot < actual.count ? "\"\(actual[slot])\"" : "no property"
        return "class \(type) was generated from another version of entity \(entity.name): slot \(slot) is "
            + "\"\(generated[slot])\" in the generated code but \(found) in the model; regenerate the classes"
    }
}
