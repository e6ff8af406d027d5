// Attribute values in their SQLite forms, as Core Data stores them: integers and booleans as
// INTEGER, doubles and floats as REAL, dates as REAL seconds since 2001-01-01, decimals as TEXT
// (exact), UUIDs as 16-byte BLOBs, URIs as TEXT, binary data as BLOB (tagged 0x01 when it may live
// in a file beside the store), transformables through their value transformer or natively.
import CSQLite
import Foundation

/// Conversions between attribute values and SQLite values.
enum SQLiteValueCoding {
    /// The tag before the bytes of binary data stored inline in a column that allows external
    /// storage (Core Data's layout: 0x01 inline, 0x02 followed by a file name for a file).
    static let inlineDataTag: UInt8 = 0x01

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The decimal written as `text` (``text(of:)``'s "NaN" too), or nil.
    static func decimal(_ text: String) -> Decimal? {
        text == "NaN" ? Decimal.nan : Decimal(string: text, locale: posix)
    }

    /// The text a decimal is stored as (parses back to the same value).
    static func text(of decimal: Decimal) -> String {
        decimal.description
    }

    /// The SQL type a column of `type` is declared with (Core Data's names).
    static func columnType(of type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float: return "FLOAT"
        case .decimal: return "TEXT"
        case .string, .uri, .objectID: return "VARCHAR"
        case .date: return "TIMESTAMP"
        case .binaryData, .uuid, .transformable, .undefined, .composite: return "BLOB"
        }
    }

    /// Whether values of `type` can be stored.
    static func isStorable(_ type: AttributeType) -> Bool {
        type != .undefined && type != .composite
    }

    // MARK: Encoding

    /// `value` of `attribute` as SQLite stores it.
    static func encode(_ value: SnapshotValue, of attribute: AttributeDescription) throws -> SQLiteValue {
        switch value {
        case .null, .unloaded: return .null
        case .object, .objects:
            throw StoreError.unsupportedRequest("\(attribute.qualifiedName) is an attribute but was given an object")
        case .value(let value): return try encode(value, of: attribute)
        }
    }

    /// An attribute value as SQLite stores it; throws naming the attribute when the value does
    /// not fit its type.
    static func encode(_ value: any Hashable & Sendable, of attribute: AttributeDescription) throws -> SQLiteValue {
        try encode(value, of: attribute, as: attribute.attributeType)
    }

    /// An attribute value as SQLite stores it, `type` being the attribute's type (which callers
    /// encoding many rows look up once).
    static func encode(_ value: any Hashable & Sendable, of attribute: AttributeDescription, as type: AttributeType) throws -> SQLiteValue {
        func mismatch() -> StoreError {
            StoreError.unsupportedRequest(
                "\(attribute.qualifiedName) (\(type.xcodeName)) cannot store a value of type \(Swift.type(of: value))")
        }
        // Numbers first try the Swift type `decode` gives their attribute (what contexts hold),
        // one cast, before the casts `Number` tries in turn.
        switch type {
        case .integer16, .integer32, .integer64, .boolean:
            guard let integer = nativeInteger(value, type) ?? Number(value)?.integerValue else { throw mismatch() }
            return .integer(integer)
        case .double, .float:
            guard let double = ExactValue.cast(value, as: Double.self) ?? ExactValue.cast(value, as: Float.self).map(Double.init) ?? Number(value)?.doubleValue else { throw mismatch() }
            return .double(double)
        case .decimal:
            guard let number = Number(value) else { throw mismatch() }
            return .text(text(of: number.decimalValue))
        case .string:
            guard let string = ExactValue.cast(value, as: String.self) else { throw mismatch() }
            return .text(string)
        case .date:
            guard let date = ExactValue.cast(value, as: Date.self) else { throw mismatch() }
            return .double(date.timeIntervalSinceReferenceDate)
        case .binaryData:
            guard let data = ExactValue.cast(value, as: Data.self) else { throw mismatch() }
            return .blob(attribute.allowsExternalBinaryDataStorage ? Data([inlineDataTag]) + data : data)
        case .uuid:
            guard let uuid = ExactValue.cast(value, as: UUID.self) else { throw mismatch() }
            return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        case .uri:
            guard let url = ExactValue.cast(value, as: URL.self) else { throw mismatch() }
            return .text(url.absoluteString)
        case .objectID:
            guard let id = ExactValue.cast(value, as: ObjectID.self), !id.isTemporaryID else { throw mismatch() }
            return .text(id.uriRepresentation.absoluteString)
        case .transformable:
            return try encodeTransformable(value, of: attribute)
        case .undefined, .composite:
            throw StoreError.unsupportedRequest(
                "\(attribute.qualifiedName): \(attribute.attributeType.xcodeName) attributes cannot be stored in a SQLite store")
        }
    }

    /// The value a row holds at `element` as SQLite stores it, read in place
    /// (``ExactValue/storedValue(at:as:)``) when it is of exactly the Swift type of an attribute
    /// of `type` among the plain ones (strings, numbers, dates); nil otherwise (``encode(_:of:as:)``
    /// answers, the same for these). `tag` is ``ExactValue/valueCaseTag`` (an entity layout's copy).
    static func encodeInPlace(_ element: UnsafePointer<SnapshotValue>, as type: AttributeType,
                              tag: (offset: Int, byte: UInt8)? = ExactValue.valueCaseTag) -> SQLiteValue? {
        switch type {
        case .string: return ExactValue.storedValue(at: element, as: String.self, tag: tag).map { .text($0) }
        case .integer16: return ExactValue.storedValue(at: element, as: Int16.self, tag: tag).map { .integer(Int64($0)) }
        case .integer32: return ExactValue.storedValue(at: element, as: Int32.self, tag: tag).map { .integer(Int64($0)) }
        case .integer64: return ExactValue.storedValue(at: element, as: Int64.self, tag: tag).map { .integer($0) }
        case .boolean: return ExactValue.storedValue(at: element, as: Bool.self, tag: tag).map { .integer($0 ? 1 : 0) }
        case .double: return ExactValue.storedValue(at: element, as: Double.self, tag: tag).map { .double($0) }
        case .float: return ExactValue.storedValue(at: element, as: Float.self, tag: tag).map { .double(Double($0)) }
        case .date: return ExactValue.storedValue(at: element, as: Date.self, tag: tag).map { .double($0.timeIntervalSinceReferenceDate) }
        default: return nil
        }
    }

    /// The value of an integer or boolean attribute of `type` held in the Swift type `decode`
    /// gives it; nil when it is held in another type.
    private static func nativeInteger(_ value: any Hashable & Sendable, _ type: AttributeType) -> Int64? {
        switch type {
        case .integer16: return ExactValue.cast(value, as: Int16.self).map(Int64.init)
        case .integer32: return ExactValue.cast(value, as: Int32.self).map(Int64.init)
        case .boolean: return ExactValue.cast(value, as: Bool.self).map { $0 ? 1 : 0 }
        default: return ExactValue.cast(value, as: Int64.self)
        }
    }

    /// A transformable value: through its registered transformer, else Strings as text and Data
    /// as a blob.
    private static func encodeTransformable(_ value: any Hashable & Sendable, of attribute: AttributeDescription) throws -> SQLiteValue {
        if let name = attribute.valueTransformerName, let transformer = AttributeValueTransformer.valueTransformer(forName: name) {
            do {
                return .blob(try transformer.transform(value))
            } catch {
                throw StoreError.unsupportedRequest("\(attribute.qualifiedName): the value transformer \(name) failed: \(error)")
            }
        }
        if let string = value as? String { return .text(string) }
        if let data = value as? Data { return .blob(data) }
        let advice = attribute.valueTransformerName.map { "no value transformer is registered under the name \($0)" }
            ?? "the model names no value transformer for it"
        throw StoreError.unsupportedRequest(
            "\(attribute.qualifiedName): a value of type \(type(of: value)) needs a value transformer, and \(advice) "
                + "(register one with AttributeValueTransformer.setValueTransformer(_:forName:))")
    }

    // MARK: Decoding

    /// Column `index` of the statement's current row as a value of `attribute`, whose type is
    /// `type`; `external` reads a value stored in a file.
    static func decode(_ statement: SQLiteStatement, _ index: Int32, of attribute: AttributeDescription, _ type: AttributeType,
                       external: SQLiteExternalData? = nil) throws -> SnapshotValue {
        // The storage classes a column of each type holds are read directly; the rest through
        // a SQLiteValue, which `decode(_:of:external:)` converts or refuses.
        switch (statement.storageClass(index), type) {
        case (SQLITE_NULL, _): return .null
        case (SQLITE_INTEGER, .integer16): return .value(Int16(truncatingIfNeeded: statement.int64(index)))
        case (SQLITE_INTEGER, .integer32): return .value(Int32(truncatingIfNeeded: statement.int64(index)))
        case (SQLITE_INTEGER, .integer64): return .value(statement.int64(index))
        case (SQLITE_INTEGER, .boolean): return .value(statement.int64(index) != 0)
        case (SQLITE_FLOAT, .double): return .value(statement.double(index))
        case (SQLITE_FLOAT, .float): return .value(Float(statement.double(index)))
        case (SQLITE_FLOAT, .date): return .value(Date(timeIntervalSinceReferenceDate: statement.double(index)))
        // A TIMESTAMP column has numeric affinity: SQLite keeps a whole number of seconds as an
        // integer.
        case (SQLITE_INTEGER, .date): return .value(Date(timeIntervalSinceReferenceDate: Double(statement.int64(index))))
        case (SQLITE_TEXT, .string): return .value(statement.text(index))
        default: return try decode(statement.value(index), of: attribute, external: external)
        }
    }

    /// A stored value as a value of `attribute`'s Swift type.
    static func decode(_ stored: SQLiteValue, of attribute: AttributeDescription, external: SQLiteExternalData? = nil) throws -> SnapshotValue {
        func corrupt() -> StoreError {
            StoreError.unsupportedRequest("\(attribute.qualifiedName) (\(attribute.attributeType.xcodeName)): cannot read the stored value \(stored)")
        }
        if case .null = stored { return .null }
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64, .boolean:
            let integer: Int64
            switch stored {
            case .integer(let v): integer = v
            case .double(let v):
                // A real too large for an integer (or not a number) is no value of the attribute.
                guard let whole = Int64(exactly: v.rounded(.towardZero)) else { throw corrupt() }
                integer = whole
            default: throw corrupt()
            }
            switch attribute.attributeType {
            case .integer16: return .value(Int16(truncatingIfNeeded: integer))
            case .integer32: return .value(Int32(truncatingIfNeeded: integer))
            case .boolean: return .value(integer != 0)
            default: return .value(integer)
            }
        case .double, .float:
            let double: Double
            switch stored {
            case .double(let v): double = v
            case .integer(let v): double = Double(v)
            default: throw corrupt()
            }
            return attribute.attributeType == .float ? .value(Float(double)) : .value(double)
        case .decimal:
            switch stored {
            case .text(let text): guard let value = decimal(text) else { throw corrupt() }; return .value(value)
            case .integer(let v): return .value(Decimal(v))
            case .double(let v): return .value(Decimal(v))
            default: throw corrupt()
            }
        case .string:
            guard case .text(let text) = stored else { throw corrupt() }
            return .value(text)
        case .date:
            switch stored {
            case .double(let v): return .value(Date(timeIntervalSinceReferenceDate: v))
            case .integer(let v): return .value(Date(timeIntervalSinceReferenceDate: Double(v)))
            default: throw corrupt()
            }
        case .binaryData:
            guard case .blob(let data) = stored else { throw corrupt() }
            guard attribute.allowsExternalBinaryDataStorage else { return .value(data) }
            if let external, let name = external.fileName(in: data) { return .value(try external.read(name)) }
            guard data.first == inlineDataTag else { throw corrupt() }
            return .value(Data(data.dropFirst()))
        case .uuid:
            guard case .blob(let data) = stored, data.count == 16 else { throw corrupt() }
            let bytes = Array(data)
            return .value(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                      bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case .uri:
            guard case .text(let text) = stored, let url = URL(string: text) else { throw corrupt() }
            return .value(url)
        case .objectID:
            guard case .text(let text) = stored, let id = objectID(fromURI: text, model: attribute.entity?.model) else { throw corrupt() }
            return .value(id)
        case .transformable:
            if let name = attribute.valueTransformerName, let transformer = AttributeValueTransformer.valueTransformer(forName: name) {
                // Text stored before the built-in default transformer existed (Strings were kept
                // as text without a transformer) reads back as it was.
                if case .text(let text) = stored, SecureUnarchiveTransformer.names.contains(name) { return .value(text) }
                guard case .blob(let data) = stored else { throw corrupt() }
                do {
                    return .value(try transformer.reverseTransform(data))
                } catch {
                    throw StoreError.unsupportedRequest("\(attribute.qualifiedName): the value transformer \(name) could not decode the stored value: \(error)")
                }
            }
            switch stored {
            case .text(let text): return .value(text)
            case .blob(let data): return .value(data)
            default: throw corrupt()
            }
        case .undefined, .composite:
            throw corrupt()
        }
    }

    /// The object ID a stored URI names, in `model`.
    private static func objectID(fromURI text: String, model: ManagedObjectModel?) -> ObjectID? {
        guard let url = URL(string: text), url.scheme == "x-objectgraph", let host = url.host, let model else { return nil }
        let parts = url.path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        guard parts.count == 2, parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()),
              let entity = model.entitiesByName[parts[0]] else { return nil }
        return ObjectID(entity: entity, storeIdentifier: host, primaryKey: key)
    }
}
