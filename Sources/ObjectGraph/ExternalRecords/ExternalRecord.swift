// One object's external record: the values of the properties its model marks "Index in
// Spotlight" or "Store in External Record File", as text, and the file bytes of each format.
// The coordinator builds records from stored rows (ExternalRecordsSynchronizer); no managed
// object is involved.
import Foundation

/// The contents of one external record file.
///
/// ```swift
/// let elements = try PersistentStoreCoordinator.elementsDerived(fromExternalRecordAt: fileURL)
/// let id = coordinator.managedObjectID(forURIRepresentation: URL(string: elements[NSObjectURIKey]!)!)
/// ```
public struct ExternalRecord: Sendable, Equatable {
    /// One value of a record: property lists keep numbers, dates and flags as their own types;
    /// XHTML writes them all as text.
    public enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int64)
        case real(Double)
        case flag(Bool)
        case date(Date)

        /// The value as text (dates as `YYYY-MM-DD HH:MM:SS UTC`).
        public var text: String { text(in: nil) }

        /// The value as a record's body shows it, dates readable in `timeZone`'s wall-clock
        /// time (`YYYY-MM-DD HH:MM:SS`), or in UTC without one.
        public func text(in timeZone: TimeZone?) -> String {
            if case .date(let date) = self { return ExternalRecord.dateText(date, in: timeZone, sortable: false) }
            return fieldText(in: timeZone)
        }

        /// The value as a record's `<meta>` field holds it: dates as the fourteen digits
        /// `YYYYMMDDHHMMSS`, which sort as text (indexers' range searches; recoll folds letters
        /// to lowercase, so a `T` or a `Z` in them would sort after every digit of a bound).
        public func fieldText(in timeZone: TimeZone?) -> String {
            switch self {
            case .text(let text): return text
            case .integer(let number): return String(number)
            case .real(let number): return String(number)
            case .flag(let flag): return flag ? "true" : "false"
            case .date(let date): return ExternalRecord.dateText(date, in: timeZone, sortable: true)
            }
        }

        /// The value as a property list holds it.
        func propertyListValue(in format: ExternalRecordFormat) -> Any {
            switch self {
            // XML 1.0 cannot carry most control characters: an XML record leaves them out, as
            // XHTML does, so that it stays well-formed.
            case .text(let text): return format == .xml ? ExternalRecord.xmlSafe(text) : text
            case .integer(let number): return number
            case .real(let number): return number
            case .flag(let flag): return flag
            case .date(let date): return date
            }
        }
    }

    /// One recorded property: its name, the field name indexers see, and its values (a to-many
    /// relationship's destinations, each as its title or recorded attributes).
    public struct Field: Sendable, Equatable {
        public var property: String
        public var name: String
        public var values: [Value]
        /// Whether the property is a to-many relationship: a property list holds an array even
        /// for one destination.
        public var isList: Bool
    }

    /// The object's URI (`x-objectgraph://<store UUID>/<Entity>/p<key>`).
    public var objectURI: String
    /// The object's entity.
    public var entityName: String
    /// The UUID of the store that holds it.
    public var storeUUID: String
    /// The store file's path, when the store has one.
    public var storePath: String?
    /// The path of the model file the coordinator's model was read from, when it was read from one.
    public var modelPath: String?
    /// The field that names the record (a property whose user info says
    /// `externalRecordField = title`, else the first recorded string attribute).
    public var title: String?
    /// The recorded properties, in the entity's order.
    public var fields: [Field]
    /// The zone XHTML writes dates in (its wall-clock time); nil for UTC.
    public var timeZone: TimeZone?

    /// The file's bytes in `format`.
    func contents(in format: ExternalRecordFormat) throws -> Data {
        switch format {
        case .xhtml: return Data(xhtml.utf8)
        case .xml, .binary:
            var list: [String: Any] = [
                NSObjectURIKey: objectURI, NSEntityNameInPathKey: entityName, NSStoreUUIDInPathKey: storeUUID,
            ]
            if let storePath { list[NSStorePathKey] = storePath }
            if let modelPath { list[NSModelPathKey] = modelPath }
            for field in fields where !field.values.isEmpty || field.isList {
                let values = field.values.map { $0.propertyListValue(in: format) }
                list[field.property] = field.isList ? values : values[0]
            }
            return try PropertyListSerialization.data(fromPropertyList: list, format: format == .xml ? .xml : .binary, options: 0)
        }
    }

    /// The XHTML page: what recoll's and Tracker's stock HTML handlers index. Field names are
    /// lowercase ASCII letters (recoll's rule for custom fields); dates are written
    /// `YYYYMMDDHHMMSS` (in the configured zone, else UTC) so that indexers compare them as ranges.
    var xhtml: String {
        var page = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml">
            <head>
            <meta http-equiv="Content-Type" content="text/html; charset=UTF-8"/>

            """
        page += "<title>\(Self.escaped(title ?? entityName))</title>\n"
        page += "<meta name=\"objecturi\" content=\"\(Self.escaped(objectURI))\"/>\n"
        page += "<meta name=\"entity\" content=\"\(Self.escaped(entityName))\"/>\n"
        if let storePath { page += "<meta name=\"storepath\" content=\"\(Self.escaped(storePath))\"/>\n" }
        if let modelPath { page += "<meta name=\"modelpath\" content=\"\(Self.escaped(modelPath))\"/>\n" }
        for field in fields where !field.values.isEmpty && field.name != "title" {
            page += "<meta name=\"\(field.name)\" content=\"\(Self.escaped(field.values.map { $0.fieldText(in: timeZone) }.joined(separator: ", ")))\"/>\n"
        }
        page += "</head>\n<body>\n<h1>\(Self.escaped(title ?? entityName))</h1>\n<dl>\n"
        for field in fields where !field.values.isEmpty {
            page += "<dt>\(Self.escaped(field.property))</dt>"
            for value in field.values { page += "<dd>\(Self.escaped(value.text(in: timeZone)))</dd>" }
            page += "\n"
        }
        page += "</dl>\n</body>\n</html>\n"
        return page
    }

    /// Whether XML 1.0 can carry `scalar` (controls other than tab and line breaks, and
    /// U+FFFE and U+FFFF, it cannot).
    static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x20 ? !(0xFFFE...0xFFFF).contains(scalar.value) : (scalar == "\t" || scalar == "\n" || scalar == "\r")
    }

    /// `text` without the characters XML 1.0 cannot carry.
    static func xmlSafe(_ text: String) -> String {
        guard !text.unicodeScalars.allSatisfy(isXMLCharacter) else { return text }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: text.unicodeScalars.filter(isXMLCharacter))
        return String(result)
    }

    /// `text` with XML's special characters escaped and the characters XML 1.0 cannot carry
    /// (controls other than tab and newlines) left out.
    static func escaped(_ text: String) -> String {
        // Most text needs nothing: no markup character, no control, and no character from
        // U+F000 up (lead byte 0xEF or more: U+FFFE and U+FFFF are among them).
        if text.utf8.allSatisfy({ byte in
            byte < 0xEF && byte != UInt8(ascii: "&") && byte != UInt8(ascii: "<") && byte != UInt8(ascii: ">")
                && byte != UInt8(ascii: "\"") && (byte >= 0x20 || byte == 0x09 || byte == 0x0A)
        }) {
            return text
        }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case "\r": result += "&#13;"
            default:
                if isXMLCharacter(scalar) { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    /// An attribute value as a record holds it (nil for values a record cannot show: binary
    /// data, transformables).
    static func value(of value: Any, type: AttributeType) -> Value? {
        switch value {
        case let string as String: return .text(string)
        case let date as Date: return type == .date ? .date(date) : nil
        case let flag as Bool: return .flag(flag)
        case let uuid as UUID: return .text(uuid.uuidString)
        case let url as URL: return .text(url.absoluteString)
        case let number as Int16: return .integer(Int64(number))
        case let number as Int32: return .integer(Int64(number))
        case let number as Int64: return .integer(number)
        case let number as Int: return .integer(Int64(number))
        case let number as Double: return .real(number)
        case let number as Float: return .real(Double(number))
        // Kept as text: a double would round it.
        case let number as Decimal: return .text("\(number)")
        default: return nil
        }
    }

    /// `date` in `timeZone`'s wall-clock time (UTC without one): `YYYYMMDDHHMMSS` when
    /// `sortable`, else `YYYY-MM-DD HH:MM:SS` (with ` UTC` without a zone).
    static func dateText(_ date: Date, in timeZone: TimeZone? = nil, sortable: Bool = true) -> String {
        let offset = Int64(timeZone?.secondsFromGMT(for: date) ?? 0)
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let yearText = year >= 0 && year < 10_000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        if sortable { return "\(yearText)\(two(month))\(two(day))\(two(rest / 3_600))\(two(rest % 3_600 / 60))\(two(rest % 60))" }
        return "\(yearText)-\(two(month))-\(two(day)) \(two(rest / 3_600)):\(two(rest % 3_600 / 60)):\(two(rest % 60))" + (timeZone == nil ? " UTC" : "")
    }
}
