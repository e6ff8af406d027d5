// The pieces of Core Data's XML store format: the names objects and properties go by in the file
// (entities in capitals, properties in lower case, each as written when another would collide),
// attribute values as typed text, and the metadata's property list.
import Foundation

enum XMLStoreFormat {
    /// A value the file holds that its attribute cannot take.
    struct ValueError: Error {
        var message: String
    }

    /// The type objects of `entity` carry in the file: Core Data's, the entity's name in
    /// capitals, or its own name when another of `entities` has the same capitals.
    static func typeName(of entity: EntityDescription, among entities: [EntityDescription]) -> String {
        let upper = entity.name.uppercased()
        return entities.contains { $0 !== entity && $0.name.uppercased() == upper } ? entity.name : upper
    }

    /// The names the file gives the properties of `layout`, by slot: Core Data's, the name in
    /// lower case, or the name itself when another property has the same lower case.
    static func fileNames(of layout: EntityLayout) -> [String] {
        let lower = layout.properties.map { $0.name.lowercased() }
        var counts: [String: Int] = [:]
        for name in lower { counts[name, default: 0] += 1 }
        return layout.properties.indices.map { counts[lower[$0]] == 1 ? lower[$0] : layout.properties[$0].name }
    }

    /// The slot of the property the file names `name`: the property of that name, or the one
    /// property whose name is that in any case.
    static func slot(named name: String, in layout: EntityLayout) -> Int? {
        if let index = layout.index(of: name) { return index }
        let lower = name.lowercased()
        let matches = layout.properties.indices.filter { layout.properties[$0].name.lowercased() == lower }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The value type the file writes for attributes of `type`.
    static func typeName(of type: AttributeType) -> String {
        switch type {
        case .integer16: return "int16"
        case .integer32: return "int32"
        case .integer64: return "int64"
        case .decimal: return "decimal"
        case .double: return "double"
        case .float: return "float"
        case .string: return "string"
        case .boolean: return "bool"
        case .date: return "date"
        case .binaryData: return "binary"
        case .transformable: return "transformable"
        case .uuid: return "uuid"
        case .uri: return "uri"
        case .objectID: return "objectid"
        case .undefined, .composite: return "undefined"
        }
    }

    /// `text` without the white space (newlines included) at its ends; the same string when
    /// there is none. (Foundation's `trimmingCharacters(in:)` goes through NSString, and took a
    /// tenth of reading a store.)
    static func trimmedWhitespace(_ text: String) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }), let last = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        if first == text.startIndex, text.index(after: last) == text.endIndex { return text }
        return String(text[first...last])
    }

    /// Whether every character of `text` may appear in an XML document (XML 1.0's Char).
    static func isXMLText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
            default: return false
            }
        }
    }

    /// The file's form of `value` of `attribute`: its value type, its text, and whether the text
    /// is base64 (a string with characters XML cannot hold); nil for no value.
    static func text(of value: SnapshotValue, for attribute: AttributeDescription) throws -> (type: String, text: String, base64: Bool)? {
        guard case .value(let stored) = value else { return nil }
        let type = attribute.attributeType
        func mismatch() -> StoreError {
            StoreError.unsupportedRequest("\(attribute.qualifiedName) (\(type.xcodeName)) cannot store a value of type \(Swift.type(of: stored))")
        }
        func plain(_ name: String, _ text: String) -> (type: String, text: String, base64: Bool) {
            isXMLText(text) ? (name, text, false) : (name, Data(text.utf8).base64EncodedString(), true)
        }
        switch type {
        case .binaryData:
            guard let data = ExactValue.cast(stored, as: Data.self) else { throw mismatch() }
            return ("binary", data.base64EncodedString(), false)
        case .string:
            guard let string = ExactValue.cast(stored, as: String.self) else { throw mismatch() }
            return plain("string", string)
        case .uuid:
            guard let uuid = ExactValue.cast(stored, as: UUID.self) else { throw mismatch() }
            return ("uuid", uuid.uuidString, false)
        case .double:
            guard let double = stored as? Double else { break }
            return ("double", "\(double)", false)
        case .float:
            guard let float = stored as? Float else { break }
            return ("float", "\(Double(float))", false)
        case .undefined, .composite:
            throw StoreError.unsupportedRequest("\(attribute.qualifiedName): \(type.xcodeName) attributes cannot be stored in an XML store")
        default:
            break
        }
        // The other types take the forms the SQLite store gives them (dates as seconds since
        // 2001, decimals as exact text, transformables through their transformer).
        switch try SQLiteValueCoding.encode(stored, of: attribute, as: type) {
        case .null: return nil
        case .integer(let integer): return (typeName(of: type), String(integer), false)
        case .double(let double): return (typeName(of: type), "\(double)", false)
        case .text(let text): return plain(type == .transformable ? "string" : typeName(of: type), text)
        case .blob(let data): return (typeName(of: type), data.base64EncodedString(), false)
        }
    }

    /// The value of `attribute` an `<attribute>` element holds, by the value type it declares
    /// (Core Data's names; `type` missing: the attribute's own).
    static func value(of element: XMLTreeElement, for attribute: AttributeDescription) throws -> SnapshotValue {
        var text = element.text
        if element[attribute: "encoding"] == "base64" {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), let decoded = String(data: data, encoding: .utf8) else {
                throw ValueError(message: "the base64 text is not UTF-8 text in base64")
            }
            text = decoded
        }
        let trimmed = trimmedWhitespace(text)
        let declared = element[attribute: "type"] ?? typeName(of: attribute.attributeType)
        func bytes() throws -> Data {
            guard let data = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else {
                throw ValueError(message: "\"\(trimmed.prefix(40))\" is not base64")
            }
            return data
        }
        switch attribute.attributeType {
        case .binaryData:
            return .value(try bytes())
        case .string where declared == "string":
            return .value(text)
        case .decimal where trimmed.lowercased() == "nan":
            return .value(Decimal.nan)
        case .integer16, .integer32, .integer64:
            guard let integer = Int64(trimmed) else { throw ValueError(message: "\"\(trimmed)\" is not an integer") }
            let fits = switch attribute.attributeType {
            case .integer16: Int16(exactly: integer) != nil
            case .integer32: Int32(exactly: integer) != nil
            default: true
            }
            guard fits else { throw ValueError(message: "\(integer) is out of the range of \(attribute.attributeType.xcodeName)") }
        case .uuid:
            if let uuid = UUID(uuidString: trimmed) { return .value(uuid) }
        default:
            break
        }
        let stored: SQLiteValue
        switch declared {
        case "int16", "int32", "int64", "integer":
            guard let integer = Int64(trimmed) else { throw ValueError(message: "\"\(trimmed)\" is not an integer") }
            stored = .integer(integer)
        case "bool", "boolean":
            switch trimmed.lowercased() {
            case "1", "yes", "true": stored = .integer(1)
            case "0", "no", "false": stored = .integer(0)
            default: throw ValueError(message: "\"\(trimmed)\" is not a boolean (1 or 0)")
            }
        case "double", "float", "date":
            guard let double = Double(trimmed) else { throw ValueError(message: "\"\(trimmed)\" is not a number") }
            stored = .double(double)
        case "decimal", "uri", "objectid":
            stored = .text(trimmed)
        case "string":
            stored = .text(text)
        case "binary", "transformable", "uuid":
            stored = .blob(try bytes())
        default:
            throw ValueError(message: "unknown value type \"\(declared)\"")
        }
        do {
            return try SQLiteValueCoding.decode(stored, of: attribute)
        } catch {
            throw ValueError(message: "a value of type \(declared) it cannot take: \"\(trimmed.prefix(40))\"")
        }
    }
}

/// Property lists as elements of an XML document (the XML store's metadata).
enum PropertyListElement {
    /// An element that is not a property list value, with its line.
    struct ReadError: Error {
        var line: Int
        var message: String
    }

    /// The dictionary `element` (a `<dict>`) holds.
    static func dictionary(from element: XMLTreeElement) throws(ReadError) -> [String: any Sendable] {
        guard element.name == "dict", let dictionary = try value(from: element) as? [String: any Sendable] else {
            throw ReadError(line: element.line, message: "expected a <dict>, found <\(element.name)>")
        }
        return dictionary
    }

    /// The value `element` holds.
    static func value(from element: XMLTreeElement) throws(ReadError) -> any Sendable {
        let trimmed = XMLStoreFormat.trimmedWhitespace(element.text)
        switch element.name {
        case "dict":
            var result: [String: any Sendable] = [:]
            var key: String?
            for child in element.children {
                if child.name == "key" {
                    key = child.text
                } else {
                    guard let name = key else { throw ReadError(line: child.line, message: "a <\(child.name)> without its <key>") }
                    result[name] = try value(from: child)
                    key = nil
                }
            }
            return result
        case "array":
            var result: [any Sendable] = []
            for child in element.children { result.append(try value(from: child)) }
            return result
        case "string":
            // A string with characters XML cannot hold is written in base64 (``write(_:to:)``).
            guard element[attribute: "encoding"] == "base64" else { return element.text }
            guard let data = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters),
                  let text = String(data: data, encoding: .utf8) else {
                throw ReadError(line: element.line, message: "<string> is not UTF-8 text in base64")
            }
            return text
        case "integer":
            guard let integer = Int(trimmed) else { throw ReadError(line: element.line, message: "\"\(trimmed)\" is not an integer") }
            return integer
        case "real":
            guard let real = Double(trimmed) else { throw ReadError(line: element.line, message: "\"\(trimmed)\" is not a number") }
            return real
        case "true":
            return true
        case "false":
            return false
        case "data":
            guard let data = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else {
                throw ReadError(line: element.line, message: "<data> is not base64")
            }
            return data
        case "date":
            guard let date = ISO8601DateFormatter().date(from: trimmed) else {
                throw ReadError(line: element.line, message: "\"\(trimmed)\" is not a date (ISO 8601)")
            }
            return date
        default:
            throw ReadError(line: element.line, message: "<\(element.name)> is not a property list value")
        }
    }

    /// Writes `value` as property list elements; values of other types are left out.
    static func write(_ value: any Sendable, to out: inout XMLOutput) {
        switch value {
        case let flag as Bool:
            out.line(flag ? "<true/>" : "<false/>")
        case let string as String:
            if XMLStoreFormat.isXMLText(string) {
                out.line("<string>\(XMLOutput.escape(string))</string>")
            } else {
                out.line("<string encoding=\"base64\">\(Data(string.utf8).base64EncodedString())</string>")
            }
        case let integer as Int:
            out.line("<integer>\(integer)</integer>")
        case let integer as Int64:
            out.line("<integer>\(integer)</integer>")
        case let integer as Int32:
            out.line("<integer>\(integer)</integer>")
        case let integer as Int16:
            out.line("<integer>\(integer)</integer>")
        case let real as Double:
            out.line("<real>\(real)</real>")
        case let real as Float:
            out.line("<real>\(Double(real))</real>")
        case let data as Data:
            out.line("<data>\(data.base64EncodedString())</data>")
        case let date as Date:
            out.line("<date>\(ISO8601DateFormatter().string(from: date))</date>")
        case let dictionary as [String: any Sendable]:
            out.open("dict", [])
            // A key XML cannot hold is left out with its value, as values of types a property
            // list cannot hold are.
            for key in dictionary.keys.sorted() where XMLStoreFormat.isXMLText(key) {
                out.line("<key>\(XMLOutput.escape(key))</key>")
                write(dictionary[key]!, to: &out)
            }
            out.close("dict")
        case let array as [any Sendable]:
            out.open("array", [])
            for element in array { write(element, to: &out) }
            out.close("array")
        default:
            break
        }
    }
}
