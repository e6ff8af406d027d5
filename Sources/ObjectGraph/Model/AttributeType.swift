// The attribute types a model can declare, with the names Xcode writes in model files
// (`attributeType="Integer 32"`). Shared by the model reader, the stores and code generation.
import Foundation

/// The type of an attribute, as Xcode's model editor offers it.
///
/// ```swift
/// let type = AttributeType(xcodeName: "Integer 32")   // .integer32
/// type?.xcodeName                                    // "Integer 32"
/// ```
public enum AttributeType: String, CaseIterable, Sendable, Hashable, Codable {
    /// No type: only transient attributes may be untyped (Xcode omits `attributeType`).
    case undefined = "Undefined"
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    /// An exact decimal number (`Decimal`), stored without loss.
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    /// Bytes (`Data`); may be stored outside the store file.
    case binaryData = "Binary"
    /// Any value, stored as bytes through a value transformer.
    case transformable = "Transformable"
    case uuid = "UUID"
    case uri = "URI"
    /// An object ID (only in models made in code; Xcode does not offer it).
    case objectID = "ObjectID"
    /// A group of attributes declared by a `<composite>` element of the model.
    case composite = "Composite"

    /// The type named `name` as Xcode writes it, or nil for a name Xcode does not have.
    public init?(xcodeName name: String) {
        self.init(rawValue: name)
    }

    /// The name Xcode writes in a model file.
    public var xcodeName: String { rawValue }

    /// Whether values of this type are numbers (integers, decimal or floating point).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: return true
        default: return false
        }
    }

    /// Whether values of this type are integers.
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: return true
        default: return false
        }
    }

    /// The Swift type that holds values of this type in a managed object.
    public var swiftTypeName: String {
        switch self {
        case .undefined, .transformable, .composite: return "Any"
        case .integer16: return "Int16"
        case .integer32: return "Int32"
        case .integer64: return "Int64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Bool"
        case .date: return "Date"
        case .binaryData: return "Data"
        case .uuid: return "UUID"
        case .uri: return "URL"
        case .objectID: return "ObjectID"
        }
    }
}
