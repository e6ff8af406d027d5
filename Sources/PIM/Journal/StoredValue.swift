// An attribute value as the undo journal writes it: one JSON-codable case per attribute type pim's
// model uses, so that a journaled record state reads back with the types it had.
import Foundation

/// A journaled attribute value.
enum StoredValue: Codable, Equatable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case uuid(UUID)
    case data(Data)
    case url(URL)

    /// The journal form of an attribute value; nil for nil, NSNull or a type the model lacks.
    init?(_ value: Any?) {
        switch value {
        case let value as String: self = .string(value)
        case let value as Bool: self = .bool(value)
        case let value as Int16: self = .integer(Int64(value))
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as Int: self = .integer(Int64(value))
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as Date: self = .date(value)
        case let value as UUID: self = .uuid(value)
        case let value as Data: self = .data(value)
        case let value as URL: self = .url(value)
        default: return nil
        }
    }

    /// The value as stored (whole numbers as Int64: RecordStateApplier.typed converts them to the
    /// attribute's type before setting them).
    var value: Any {
        switch self {
        case .string(let value): value
        case .integer(let value): value
        case .double(let value): value
        case .bool(let value): value
        case .date(let value): value
        case .uuid(let value): value
        case .data(let value): value
        case .url(let value): value
        }
    }
}
