// The JSON form of `objectgraph model describe --json`: a tree of Encodable documents mirroring
// the model. The keys are a contract with scripts: every key is always present (null when the
// model leaves it unset), keys are sorted, dates are ISO 8601 and decimals are JSON numbers.
import Foundation
import ObjectGraph

/// Encodes an optional as `null` instead of leaving its key out, so every document of a kind
/// has the same keys.
@propertyWrapper
struct Nullable<Value: Encodable>: Encodable {
    /// The value, or nil for `null`.
    var wrappedValue: Value?

    /// Encodes the value, or `null`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// A default value in JSON: numbers as numbers, booleans as booleans, dates as ISO 8601 strings,
/// bytes as base64 strings, UUIDs and URLs as strings.
enum JSONModelValue: Encodable {
    case integer(Int64)
    case decimal(Decimal)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case string(String)
    case date(Date)
    case data(Data)

    /// The JSON form of a model value, or nil when it has no value.
    init?(_ value: ModelValue?) {
        switch value {
        case nil: return nil
        case let value as Int16: self = .integer(Int64(value))
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as Int: self = .integer(Int64(value))
        case let value as Decimal: self = .decimal(value)
        case let value as Double: self = .double(value)
        case let value as Float: self = .float(value)
        case let value as Bool: self = .bool(value)
        case let value as String: self = .string(value)
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as UUID: self = .string(value.uuidString)
        case let value as URL: self = .string(value.absoluteString)
        case let value?: self = .string("\(value)")
        }
    }

    /// Encodes the value as the JSON type it maps to.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let value): try container.encode(value)
        case .decimal(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .float(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .date(let value): try container.encode(value)
        case .data(let value): try container.encode(value)
        }
    }
}

/// The whole model: `{"configurations": [...], "entities": [...], ...}`.
struct ModelDocument: Encodable {
    /// The path given on the command line.
    var path: String
    @Nullable var version: String?
    var versionIdentifiers: [String]
    /// The version's checksum (``ManagedObjectModel/versionChecksum``), which staged migration
    /// stages name versions by.
    var versionChecksum: String
    var entities: [EntityDocument]
    var fetchRequestTemplates: [FetchRequestDocument]
    var configurations: [ConfigurationDocument]
    var compositeTypes: [CompositeTypeDocument]

    /// The document of `model`, read from `path`.
    init(_ model: ManagedObjectModel, path: String) {
        self.path = path
        version = model.versionName
        versionIdentifiers = model.versionIdentifiers.sorted()
        versionChecksum = model.versionChecksum
        entities = model.entities.map(EntityDocument.init)
        fetchRequestTemplates = model.fetchRequestTemplates.map(FetchRequestDocument.init)
        configurations = model.configurations.map(ConfigurationDocument.init)
        compositeTypes = model.compositeTypes.map(CompositeTypeDocument.init)
    }

    /// Pretty-printed JSON with sorted keys.
    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(modelDateText(date))
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        // Every member is a string, a number (infinities and NaN as strings above), a boolean, a
        // date, data or a container of them, so encoding cannot fail.
        let data = try! encoder.encode(self)
        return String(decoding: data, as: UTF8.self)
    }
}

/// An entity and what it declares (inherited properties appear under its parent).
struct EntityDocument: Encodable {
    var name: String
    @Nullable var className: String?
    @Nullable var parent: String?
    var isAbstract: Bool
    var subentities: [String]
    var attributes: [AttributeDocument]
    var relationships: [RelationshipDocument]
    var fetchedProperties: [FetchedPropertyDocument]
    /// The uniqueness constraints the entity declares, each a list of property names.
    var uniquenessConstraints: [[String]]
    var fetchIndexes: [FetchIndexDocument]
    /// Legacy compound indexes, each a list of property names.
    var compoundIndexes: [[String]]
    @Nullable var renamingIdentifier: String?
    @Nullable var versionHashModifier: String?
    /// The entity's version hash, in lowercase hex.
    var versionHash: String
    var userInfo: [String: String]

    /// The JSON form of `entity`.
    init(_ entity: EntityDescription) {
        name = entity.name
        className = entity.managedObjectClassName
        parent = entity.parentEntityName
        isAbstract = entity.isAbstract
        subentities = entity.subentities.map(\.name)
        attributes = entity.declaredProperties.compactMap { $0 as? AttributeDescription }.map(AttributeDocument.init)
        relationships = entity.declaredProperties.compactMap { $0 as? RelationshipDescription }
            .map(RelationshipDocument.init)
        fetchedProperties = entity.declaredProperties.compactMap { $0 as? FetchedPropertyDescription }
            .map(FetchedPropertyDocument.init)
        uniquenessConstraints = entity.declaredUniquenessConstraints
        fetchIndexes = entity.fetchIndexes.map(FetchIndexDocument.init)
        compoundIndexes = entity.compoundIndexes
        renamingIdentifier = entity.renamingIdentifier
        versionHashModifier = entity.versionHashModifier
        versionHash = entity.versionHash.map { String(format: "%02x", $0) }.joined()
        userInfo = entity.userInfo
    }
}

/// An attribute: type, optionality, default value, validation rules and storage options.
struct AttributeDocument: Encodable {
    var name: String
    /// The type as Xcode names it (`Integer 32`, `String`, `Binary`...).
    var type: String
    @Nullable var compositeType: String?
    var isOptional: Bool
    var isTransient: Bool
    @Nullable var defaultValue: JSONModelValue?
    var validation: ValidationDocument
    @Nullable var valueTransformerName: String?
    @Nullable var attributeValueClassName: String?
    var allowsExternalBinaryDataStorage: Bool
    var isDerived: Bool
    @Nullable var derivationExpression: String?
    var isIndexedBySpotlight: Bool
    @Nullable var renamingIdentifier: String?
    @Nullable var versionHashModifier: String?
    var userInfo: [String: String]

    /// The JSON form of `attribute`.
    init(_ attribute: AttributeDescription) {
        name = attribute.name
        type = attribute.attributeType.xcodeName
        compositeType = attribute.compositeName
        isOptional = attribute.isOptional
        isTransient = attribute.isTransient
        defaultValue = JSONModelValue(attribute.defaultValue)
        validation = ValidationDocument(attribute)
        valueTransformerName = attribute.valueTransformerName
        attributeValueClassName = attribute.attributeValueClassName
        allowsExternalBinaryDataStorage = attribute.allowsExternalBinaryDataStorage
        isDerived = attribute.isDerived
        derivationExpression = attribute.derivationExpression
        isIndexedBySpotlight = attribute.isIndexedBySpotlight
        renamingIdentifier = attribute.renamingIdentifier
        versionHashModifier = attribute.versionHashModifier
        userInfo = attribute.userInfo
    }
}

/// An attribute's validation rules; `minimum` and `maximum` bound a number, or the length of a
/// string or binary value.
struct ValidationDocument: Encodable {
    @Nullable var minimum: Decimal?
    @Nullable var maximum: Decimal?
    @Nullable var minimumDate: Date?
    @Nullable var maximumDate: Date?
    @Nullable var regularExpression: String?
    var predicates: [ValidationPredicateDocument]

    /// The validation rules of `attribute`.
    init(_ attribute: AttributeDescription) {
        minimum = attribute.minimumValue
        maximum = attribute.maximumValue
        minimumDate = attribute.minimumDate
        maximumDate = attribute.maximumDate
        regularExpression = attribute.regularExpression
        predicates = attribute.validationPredicates.map(ValidationPredicateDocument.init)
    }
}

/// A validation predicate and the warning shown when a value breaks it.
struct ValidationPredicateDocument: Encodable {
    var predicate: String
    var warning: String

    /// The JSON form of `rule`.
    init(_ rule: ValidationPredicate) {
        predicate = rule.predicateFormat
        warning = rule.warning
    }
}

/// A relationship: destination, inverse, cardinality, order and delete rule.
struct RelationshipDocument: Encodable {
    var name: String
    var destination: String
    @Nullable var inverse: String?
    /// The entity that declares the inverse, when the model names one.
    @Nullable var inverseEntity: String?
    var isToMany: Bool
    var isOrdered: Bool
    var isOptional: Bool
    var isTransient: Bool
    var minCount: Int
    /// The most objects the relationship holds; 0 means unbounded.
    var maxCount: Int
    /// The delete rule as Xcode names it (`Nullify`, `Cascade`, `Deny`, `No Action`).
    var deleteRule: String
    @Nullable var renamingIdentifier: String?
    @Nullable var versionHashModifier: String?
    var userInfo: [String: String]

    /// The JSON form of `relationship`.
    init(_ relationship: RelationshipDescription) {
        name = relationship.name
        destination = relationship.destinationEntityName
        inverse = relationship.inverseName
        inverseEntity = relationship.inverseEntityName
        isToMany = relationship.isToMany
        isOrdered = relationship.isOrdered
        isOptional = relationship.isOptional
        isTransient = relationship.isTransient
        minCount = relationship.minCount
        maxCount = relationship.maxCount
        deleteRule = relationship.deleteRule.xcodeName
        renamingIdentifier = relationship.renamingIdentifier
        versionHashModifier = relationship.versionHashModifier
        userInfo = relationship.userInfo
    }
}

/// A fetched property: the entity its request fetches and the predicate.
struct FetchedPropertyDocument: Encodable {
    var name: String
    var entity: String
    @Nullable var predicate: String?
    var userInfo: [String: String]

    /// The JSON form of `property`.
    init(_ property: FetchedPropertyDescription) {
        name = property.name
        entity = property.fetchRequest.entityName
        predicate = property.fetchRequest.predicateFormat
        userInfo = property.userInfo
    }
}

/// A fetch index and its elements, in order.
struct FetchIndexDocument: Encodable {
    var name: String
    var elements: [FetchIndexElementDocument]

    /// The JSON form of `index`.
    init(_ index: FetchIndexDescription) {
        name = index.name
        elements = index.elements.map(FetchIndexElementDocument.init)
    }
}

/// One element of a fetch index: a property or an expression, its order and index type.
struct FetchIndexElementDocument: Encodable {
    @Nullable var property: String?
    @Nullable var expression: String?
    @Nullable var expressionType: String?
    var isAscending: Bool
    /// `Binary` or `RTree`.
    var type: String

    /// The JSON form of `element`.
    init(_ element: FetchIndexElement) {
        property = element.propertyName
        expression = element.expression
        expressionType = element.expressionType
        isAscending = element.isAscending
        type = element.type.rawValue
    }
}

/// A fetch request template stored in the model.
struct FetchRequestDocument: Encodable {
    var name: String
    var entity: String
    @Nullable var predicate: String?
    var fetchLimit: Int
    var fetchBatchSize: Int
    /// 0 objects, 1 object IDs, 2 dictionaries (Xcode's numbering).
    var resultType: Int
    var includesSubentities: Bool
    var includesPropertyValues: Bool
    var returnsObjectsAsFaults: Bool
    var includesPendingChanges: Bool
    var returnsDistinctResults: Bool

    /// The JSON form of `template`.
    init(_ template: FetchRequestTemplate) {
        name = template.name
        entity = template.entityName
        predicate = template.predicateFormat
        fetchLimit = template.fetchLimit
        fetchBatchSize = template.fetchBatchSize
        resultType = template.resultType
        includesSubentities = template.includesSubentities
        includesPropertyValues = template.includesPropertyValues
        returnsObjectsAsFaults = template.returnsObjectsAsFaults
        includesPendingChanges = template.includesPendingChanges
        returnsDistinctResults = template.returnsDistinctResults
    }
}

/// A configuration: a named group of entities.
struct ConfigurationDocument: Encodable {
    var name: String
    var entities: [String]
    var usedWithCloudKit: Bool

    /// The JSON form of `configuration`.
    init(_ configuration: ModelConfiguration) {
        name = configuration.name
        entities = configuration.entityNames
        usedWithCloudKit = configuration.usedWithCloudKit
    }
}

/// A composite type and its attributes.
struct CompositeTypeDocument: Encodable {
    var name: String
    var attributes: [AttributeDocument]

    /// The JSON form of `composite`.
    init(_ composite: CompositeTypeDescription) {
        name = composite.name
        attributes = composite.attributes.map(AttributeDocument.init)
    }
}
