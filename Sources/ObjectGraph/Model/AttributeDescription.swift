// An attribute of an entity: its type, default value and validation rules, as an Xcode model
// declares them. Values use Swift's native types (Int16/32/64, Decimal, Double, Float, String,
// Bool, Date, Data, UUID, URL); the default value is parsed to the attribute's type.
import Foundation

/// A value a model can hold as a default: one of the attribute types' Swift values.
public typealias ModelValue = any Hashable & Sendable

/// A validation rule written as a predicate on the value (`SELF.length > 2`), with the message
/// shown when a value breaks it. The predicate stays a format string in the model; it is parsed
/// when objects are validated.
public struct ValidationPredicate: Sendable, Hashable {
    /// The predicate format the value must satisfy; `SELF` is the value.
    public var predicateFormat: String
    /// What to tell the user when the value does not satisfy it.
    public var warning: String

    public init(_ predicateFormat: String, warning: String) {
        self.predicateFormat = predicateFormat
        self.warning = warning
    }
}

/// An attribute: a typed value of an entity.
///
/// ```swift
/// let age = AttributeDescription(name: "age", type: .integer16)
/// age.defaultValue = Int16(0)
/// age.minimumValue = 0
/// ```
public final class AttributeDescription: PropertyDescription, @unchecked Sendable {
    /// The attribute's type.
    public var attributeType: AttributeType
    /// The value a new object starts with, of the attribute type's Swift type.
    public var defaultValue: ModelValue?
    /// The smallest value (numbers) or length (strings, binary data) a valid value has.
    public var minimumValue: Decimal?
    /// The largest value (numbers) or length (strings, binary data) a valid value has.
    public var maximumValue: Decimal?
    /// The earliest valid date (date attributes).
    public var minimumDate: Date?
    /// The latest valid date (date attributes).
    public var maximumDate: Date?
    /// A regular expression a valid string matches in whole.
    public var regularExpression: String?
    /// Further validation rules, each a predicate on the value with its warning.
    public var validationPredicates: [ValidationPredicate]
    /// The name of the value transformer of a transformable attribute.
    public var valueTransformerName: String?
    /// The class of a transformable attribute's values (Xcode's Custom Class, e.g. `[String]`).
    public var attributeValueClassName: String?
    /// Whether generated code uses a Swift scalar (`Int32`, `Bool`) rather than an optional.
    public var usesScalarValueType: Bool?
    /// Whether large binary values may be stored in files beside the store.
    public var allowsExternalBinaryDataStorage: Bool
    /// Whether the value is kept in the persistent history when its object is deleted.
    public var preservesValueInHistoryOnDeletion: Bool
    /// Whether the value is computed by the store from `derivationExpression`, each time the
    /// rows it depends on are saved.
    public var isDerived: Bool
    /// The expression a derived attribute's value is computed from: an attribute (`name`), an
    /// attribute of a to-one destination (`owner.name`), a to-many relationship's count
    /// (`photos.@count`) or the time of the save (`now()`). A model with another does not load.
    public var derivationExpression: String?
    /// The name of the composite type (`<composite name=...>`) of a composite attribute.
    public var compositeName: String?

    /// An attribute named `name` of type `type`, optional and without rules, as Core Data makes it.
    public init(name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false) {
        self.attributeType = type
        self.validationPredicates = []
        self.allowsExternalBinaryDataStorage = false
        self.preservesValueInHistoryOnDeletion = false
        self.isDerived = false
        super.init(name: name, isOptional: isOptional, isTransient: isTransient)
    }

    /// Whether the attribute has any validation rule beyond optionality.
    public var hasValidationRules: Bool {
        minimumValue != nil || maximumValue != nil || minimumDate != nil || maximumDate != nil
            || regularExpression != nil || !validationPredicates.isEmpty
    }

    public override func isEqual(to other: PropertyDescription) -> Bool {
        guard let other = other as? AttributeDescription, super.isEqual(to: other) else { return false }
        return attributeType == other.attributeType
            && defaultValue.map { AnyHashable($0) } == other.defaultValue.map { AnyHashable($0) }
            && minimumValue == other.minimumValue && maximumValue == other.maximumValue
            && minimumDate == other.minimumDate && maximumDate == other.maximumDate
            && regularExpression == other.regularExpression
            && validationPredicates == other.validationPredicates
            && valueTransformerName == other.valueTransformerName
            && attributeValueClassName == other.attributeValueClassName
            && usesScalarValueType == other.usesScalarValueType
            && allowsExternalBinaryDataStorage == other.allowsExternalBinaryDataStorage
            && preservesValueInHistoryOnDeletion == other.preservesValueInHistoryOnDeletion
            && isDerived == other.isDerived && derivationExpression == other.derivationExpression
            && compositeName == other.compositeName
    }

    public override func copy() -> PropertyDescription {
        let copy = AttributeDescription(name: name, type: attributeType, isOptional: isOptional, isTransient: isTransient)
        copyCommonFields(to: copy)
        copy.defaultValue = defaultValue
        copy.minimumValue = minimumValue
        copy.maximumValue = maximumValue
        copy.minimumDate = minimumDate
        copy.maximumDate = maximumDate
        copy.regularExpression = regularExpression
        copy.validationPredicates = validationPredicates
        copy.valueTransformerName = valueTransformerName
        copy.attributeValueClassName = attributeValueClassName
        copy.usesScalarValueType = usesScalarValueType
        copy.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        copy.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        copy.isDerived = isDerived
        copy.derivationExpression = derivationExpression
        copy.compositeName = compositeName
        return copy
    }
}
