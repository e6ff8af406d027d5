// What a derived attribute's value is computed from (Core Data's NSDerivedAttributeDescription):
// its derivation expression parsed and checked against the model once. Model validation refuses
// the expressions the stores do not compute; the stores compute the others when rows are saved.

/// The computation of a derived attribute, from its ``AttributeDescription/derivationExpression``.
///
/// ```swift
/// // <attribute name="bookCount" attributeType="Integer 64" derived="YES" derivationExpression="books.@count"/>
/// try Derivation.of(bookCount, in: shelf)   // .count(relationship: "books")
/// ```
///
/// Supported, as a store can keep them current from the rows alone: an attribute of the object
/// (`name`), an attribute of the destination of a to-one relationship (`owner.name`), the number
/// of destinations of a to-many relationship (`books.@count`), and the time of the save
/// (`now()`). Core Data's functions (`canonical:`, `lowercase:`, `uppercase:`) and `@sum` are not.
enum Derivation: Sendable, Hashable {
    /// A copy of an attribute of the object (`relationship` nil) or of its to-one destination.
    case keyPath(relationship: String?, attribute: String)
    /// How many destinations a to-many relationship has.
    case count(relationship: String)
    /// When the row was last inserted or updated.
    case now

    /// Why a derivation expression is refused: the message a model issue carries.
    struct Unsupported: Error, CustomStringConvertible {
        let description: String
    }

    /// The derivation of `attribute`, a derived attribute of `entity` (inherited or declared),
    /// checked against the model: the properties it names exist, are stored, and give a value
    /// of the attribute's type. `entityNamed` finds a relationship's destination (the model may
    /// not be frozen yet). Throws what is wrong, to be reported with the attribute's file and line.
    static func of(_ attribute: AttributeDescription, in entity: EntityDescription,
                   entityNamed: (String) -> EntityDescription?) throws(Unsupported) -> Derivation {
        let text = attribute.derivationExpression ?? ""
        func refuse(_ why: String) -> Unsupported {
            Unsupported(description: "derivation \"\(text)\": \(why)")
        }
        let parsed: Expression
        do {
            parsed = try Expression(format: text)
        } catch {
            throw refuse("does not parse: \(error)")
        }
        let supported = "a derived attribute copies an attribute (name) or a to-one relationship's attribute "
            + "(owner.name), counts a to-many relationship (items.@count) or takes the time of the save (now())"
        if attribute.isTransient { throw refuse("a derived attribute is computed by the store: it cannot be transient") }
        switch parsed {
        case .function("now", let arguments) where arguments.isEmpty:
            guard attribute.attributeType == .date else { throw refuse("now() is a date, but the attribute is \(attribute.attributeType.xcodeName)") }
            return .now
        case .keyPath(let path):
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            switch keys.count {
            case 1:
                try check(copying: keys[0], of: entity, into: attribute, refuse)
                return .keyPath(relationship: nil, attribute: keys[0])
            case 2 where keys[1] == "@count":
                guard let relationship = entity.propertiesByName[keys[0]] as? RelationshipDescription, relationship.isToMany,
                      relationship.isStored else {
                    throw refuse("\(entity.name) has no stored to-many relationship \"\(keys[0])\" to count")
                }
                guard attribute.attributeType.isInteger else {
                    throw refuse("@count is an integer, but the attribute is \(attribute.attributeType.xcodeName)")
                }
                return .count(relationship: keys[0])
            case 2 where !keys[1].hasPrefix("@") && !(entity.propertiesByName[keys[0]] is AttributeDescription):
                guard let relationship = entity.propertiesByName[keys[0]] as? RelationshipDescription, !relationship.isToMany,
                      relationship.isStored else {
                    throw refuse("\(entity.name) has no stored to-one relationship \"\(keys[0])\"")
                }
                guard let destination = entityNamed(relationship.destinationEntityName) else {
                    throw refuse("the destination \"\(relationship.destinationEntityName)\" of \(keys[0]) does not exist")
                }
                try check(copying: keys[1], of: destination, into: attribute, refuse)
                return .keyPath(relationship: keys[0], attribute: keys[1])
            default:
                throw refuse("not supported: \(supported)")
            }
        default:
            throw refuse("not supported: \(supported)")
        }
    }

    /// Checks that `name` is a stored attribute of `entity`, not derived itself, of the type of
    /// `attribute` (the attribute that copies it).
    private static func check(copying name: String, of entity: EntityDescription, into attribute: AttributeDescription,
                              _ refuse: (String) -> Unsupported) throws(Unsupported) {
        guard let source = entity.propertiesByName[name] as? AttributeDescription, source.isStored else {
            throw refuse("\(entity.name) has no stored attribute \"\(name)\"")
        }
        guard !source.isDerived else { throw refuse("\(entity.name).\(name) is derived itself") }
        guard !source.allowsExternalBinaryDataStorage else {
            throw refuse("\(entity.name).\(name) may be stored outside the store, where a copy cannot follow it")
        }
        guard source.attributeType == attribute.attributeType else {
            throw refuse("\(entity.name).\(name) is \(source.attributeType.xcodeName), but the attribute is \(attribute.attributeType.xcodeName)")
        }
    }
}
