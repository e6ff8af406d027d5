// Code generation of one property's accessors: the Swift type Xcode would give it (scalars for
// numbers and booleans, optionals for objects, `Set`/`OrderedSet` for to-many relationships) and
// the computed property, plus the add/remove helpers of a to-many relationship, over slot access.
import Foundation

extension CodeGenerator {
    /// The generated declarations of one property.
    struct Accessor {
        let property: PropertyDescription
        /// The expression naming the property's slot (`PersonSlots.name`).
        let slot: String
        let generator: CodeGenerator

        /// Whether the property gets accessors: attributes and relationships do; fetched
        /// properties are left to `value(forKey:)`, as Xcode leaves them.
        static func hasAccessor(_ property: PropertyDescription) -> Bool {
            property is AttributeDescription || property is RelationshipDescription
        }

        /// The property, and for a to-many relationship its helpers.
        var declarations: [String] {
            switch property {
            case let attribute as AttributeDescription: return [attributeProperty(attribute)]
            case let relationship as RelationshipDescription:
                return relationship.isToMany ? toManyDeclarations(relationship) : [toOneProperty(relationship)]
            default: return []
            }
        }

        var access: String { generator.access }
        var name: String { CodeGenerator.identifier(property.name) }

        /// A computed property over the slot.
        func computedProperty(type: String, getter: String, setter: String) -> String {
            """
            \(access)var \(name): \(type) {
                get { \(getter) }
                set { \(setter) }
            }
            """
        }

        // MARK: Attributes

        func attributeProperty(_ attribute: AttributeDescription) -> String {
            // Attributes of a type with one Swift type take the typed setter (no conversion of a
            // value of that type); transformable and untyped ones the general one.
            let typed = PropertyRules.valueType(of: attribute.attributeType) != nil
            let setter = typed ? "setAttribute(newValue, atSlot: \(slot))" : "setValue(newValue, atSlot: \(slot))"
            if let scalar = Self.scalar(attribute) {
                return computedProperty(type: scalar.type, getter: "attribute(atSlot: \(slot), as: \(scalar.type).self) ?? \(scalar.zero)",
                                        setter: setter)
            }
            guard let type = Self.objectType(attribute) else {
                return computedProperty(type: "Any?", getter: "value(atSlot: \(slot))", setter: setter)
            }
            return computedProperty(type: type + "?", getter: "attribute(atSlot: \(slot), as: \(type).self)", setter: setter)
        }

        /// The non-optional scalar type and its zero, for a number or boolean attribute that uses
        /// scalar types (Xcode's Swift default when the model does not say).
        static func scalar(_ attribute: AttributeDescription) -> (type: String, zero: String)? {
            guard attribute.usesScalarValueType ?? true else { return nil }
            switch attribute.attributeType {
            case .integer16, .integer32, .integer64, .double, .float: return (attribute.attributeType.swiftTypeName, "0")
            case .boolean: return ("Bool", "false")
            default: return nil
            }
        }

        /// The Swift type of an attribute that is not a scalar (made optional by the caller, as
        /// Xcode makes object types optional even for required attributes); nil for `Any?`.
        static func objectType(_ attribute: AttributeDescription) -> String? {
            switch attribute.attributeType {
            case .undefined, .composite: return nil
            case .transformable: return transformableType(attribute.attributeValueClassName)
            default: return attribute.attributeType.swiftTypeName
            }
        }

        /// Foundation classes a transformable attribute may name, and the Swift value types
        /// that slots hold for them.
        static let bridgedClasses = [
            "NSString": "String", "NSDate": "Date", "NSData": "Data", "NSUUID": "UUID", "NSURL": "URL",
            "NSDecimalNumber": "Decimal",
        ]

        /// Prefixes of Apple's Objective-C classes (`NSDictionary`, `CLLocation`, `UIColor`), which
        /// have no counterpart a slot can hold.
        static let appleClassPrefixes = ["NS", "CL", "UI", "MK", "CK", "CG", "CI", "AV", "PH", "CN", "EK", "HK", "AB"]

        /// The type a transformable attribute's value class names, when it is a Swift type
        /// (`[String]`, `Coordinates`): nil for a missing or Objective-C class name.
        static func transformableType(_ className: String?) -> String? {
            guard let name = className?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return nil }
            if let bridged = bridgedClasses[name] { return bridged }
            let isAppleClass = appleClassPrefixes.contains { prefix in
                name.hasPrefix(prefix) && name.dropFirst(prefix.count).first?.isUppercase == true
            }
            let isTypeExpression = name.allSatisfy { $0.isLetter || $0.isNumber || "_.[]:<>, ".contains($0) }
            return isAppleClass || !isTypeExpression ? nil : name
        }

        // MARK: Relationships

        var destination: String {
            generator.objectClassName(of: (property as! RelationshipDescription).destinationEntity)
        }

        func toOneProperty(_ relationship: RelationshipDescription) -> String {
            computedProperty(type: destination + "?", getter: "value(atSlot: \(slot)) as? \(destination)",
                             setter: "setValue(newValue, atSlot: \(slot))")
        }

        /// The objects of the slot, typed: `objects(atSlot: s, as: Task.self)`.
        var typedObjects: String {
            destination == "ManagedObject" ? "objects(atSlot: \(slot))" : "objects(atSlot: \(slot), as: \(destination).self)"
        }

        /// An unordered to-many relationship is an array of its destinations (as SwiftData has
        /// it), in the order they were loaded or added: reading it makes no set, and iterating
        /// it visits the objects in the order they were made. An ordered one is an `OrderedSet`.
        func toManyDeclarations(_ relationship: RelationshipDescription) -> [String] {
            let collection = relationship.isOrdered ? "OrderedSet<\(destination)>" : "[\(destination)]"
            let upcast = destination == "ManagedObject" || !relationship.isOrdered ? "newValue" : "newValue.map { $0 as ManagedObject }"
            let suffix = property.name.prefix(1).uppercased() + property.name.dropFirst()
            var declarations = [
                computedProperty(type: collection, getter: relationship.isOrdered ? "OrderedSet(\(typedObjects))" : typedObjects,
                                 setter: "setValue(\(upcast), atSlot: \(slot))"),
                "\(access)func addTo\(suffix)(_ value: \(destination)) {\n    addObject(value, toSlot: \(slot))\n}",
                "\(access)func removeFrom\(suffix)(_ value: \(destination)) {\n    removeObject(value, fromSlot: \(slot))\n}",
                "\(access)func addTo\(suffix)(_ values: \(collection)) {\n    for value in values { addObject(value, toSlot: \(slot)) }\n}",
                "\(access)func removeFrom\(suffix)(_ values: \(collection)) {\n    for value in values { removeObject(value, fromSlot: \(slot)) }\n}",
            ]
            if relationship.isOrdered {
                declarations += [
                    "\(access)func insertInto\(suffix)(_ value: \(destination), at index: Int) {\n    addObject(value, toSlot: \(slot), at: index)\n}",
                    "\(access)func removeFrom\(suffix)(at index: Int) {\n    removeObject(objects(atSlot: \(slot))[index], fromSlot: \(slot))\n}",
                ]
            }
            return declarations
        }
    }
}
