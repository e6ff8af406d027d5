// JSON in and out of the predicate engine, with the tagged conventions of the predicate corpus
// (`{"$date": 100}`, `{"$set": [...]}`, `{"$null": true}`...), so the CLI and the tests can
// write objects, arguments and expected values as JSON.
import Foundation

/// Converts between JSON text and the Swift values the evaluator works on.
///
/// Tagged objects: `{"$date": secondsSince2001 | "now" | "distantFuture" | "distantPast"}`,
/// `{"$dateISO": "2024-02-01"}`, `{"$null": true}` (a null object), `{"$set": [...]}`,
/// `{"$orderedSet": [...]}`, `{"$data": base64}`, `{"$url": "..."}`, `{"$uuid": "..."}`,
/// `{"$keyPathExpr": "a.b"}` (a key path expression), `{"$class": "NSNumber"}` (a type name).
///
/// ```swift
/// let object = try PredicateJSON.decode(#"{"born": {"$date": 0}, "tags": {"$set": ["a"]}}"#)
/// ```
public enum PredicateJSON {
    /// Decodes JSON text (any JSON value, fragments included) into evaluator values.
    public static func decode(_ text: String) throws -> Any? {
        let data = Data(text.utf8)
        let raw: Any
        do {
            raw = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw PredicateError(.argument, "invalid JSON: \(text)")
        }
        return try convert(raw)
    }

    /// Converts a value from `JSONSerialization` (NSNumber, NSNull, arrays, dictionaries) into
    /// evaluator values, resolving the tags.
    public static func convert(_ raw: Any) throws -> Any? {
        switch raw {
        case is NSNull:
            return nil
        case let n as NSNumber:
            return jsonNumber(n)
        case let s as String:
            return s
        case let array as [Any]:
            return try array.map { try convert($0) ?? NSNull() }
        case let dictionary as [String: Any]:
            if dictionary.count == 1, let (tag, value) = dictionary.first, tag.hasPrefix("$") {
                if let tagged = try taggedValue(tag, value) { return tagged }
            }
            var result: [String: Any] = [:]
            for (key, value) in dictionary { result[key] = try convert(value) ?? NSNull() }
            return result
        default:
            return raw
        }
    }

    private static func jsonNumber(_ n: NSNumber) -> Any {
        let type = String(cString: n.objCType)
        if type == "c" || type == "B" {
            return n.boolValue
        }
        if type == "d" || type == "f" {
            let d = n.doubleValue
            return d
        }
        return Int(n.int64Value)
    }

    private static func taggedValue(_ tag: String, _ value: Any) throws -> Any? {
        switch tag {
        case "$date":
            if let n = value as? NSNumber { return Date(timeIntervalSinceReferenceDate: n.doubleValue) }
            switch value as? String {
            case "now": return Date()
            case "distantFuture": return Date.distantFuture
            case "distantPast": return Date.distantPast
            default: throw PredicateError(.argument, "invalid $date \(value)")
            }
        case "$dateISO":
            guard let s = value as? String, let date = parseISODate(s) else {
                throw PredicateError(.argument, "invalid $dateISO \(value)")
            }
            return date
        case "$null": return NSNull()
        case "$set":
            guard let array = value as? [Any] else { throw PredicateError(.argument, "$set needs an array") }
            return Set(try array.map { try AnyHashableValue(convert($0)) })
        case "$orderedSet":
            guard let array = value as? [Any] else { throw PredicateError(.argument, "$orderedSet needs an array") }
            return OrderedSet(try array.map { try AnyHashableValue(convert($0)) })
        case "$data":
            guard let s = value as? String, let data = Data(base64Encoded: s) else {
                throw PredicateError(.argument, "invalid $data")
            }
            return data
        case "$url":
            guard let s = value as? String, let url = URL(string: s) else { throw PredicateError(.argument, "invalid $url") }
            return url
        case "$uuid":
            guard let s = value as? String, let uuid = UUID(uuidString: s) else {
                throw PredicateError(.argument, "invalid $uuid")
            }
            return uuid
        case "$keyPathExpr":
            guard let s = value as? String else { throw PredicateError(.argument, "$keyPathExpr needs a string") }
            return Expression.keyPath(s)
        case "$class":
            guard let s = value as? String else { throw PredicateError(.argument, "$class needs a string") }
            return TypeName(s)
        default:
            return nil
        }
    }

    /// `2024-02-01`, `2024-02-01T10:00:00Z` and other ISO 8601 forms (dates alone are UTC).
    static func parseISODate(_ s: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: s) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: s) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: s)
    }

    /// Encodes an evaluated value as JSON text, tagging dates, sets and other non-JSON values.
    public static func encode(_ value: Any?) -> String {
        let object = jsonObject(value)
        guard let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
        else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func jsonObject(_ value: Any?) -> Any {
        guard let value = unwrapOptional(value) else { return NSNull() }
        if isNullObject(value) { return ["$null": true] }
        if let h = value as? AnyHashableValue { return jsonObject(h.value) }
        if let s = ValueComparison.string(value) { return s }
        if let b = value as? Bool { return b }
        if let n = Number(value) {
            switch n {
            case .integer(let v): return NSNumber(value: v)
            case .double(let v): return v.isFinite ? NSNumber(value: v) : NSString(string: "\(v)")
            case .decimal(let v): return NSDecimalNumber(decimal: v)
            }
        }
        if let date = value as? Date { return ["$date": date.timeIntervalSinceReferenceDate] }
        if let data = value as? Data { return ["$data": data.base64EncodedString()] }
        if let url = value as? URL { return ["$url": url.absoluteString] }
        if let uuid = value as? UUID { return ["$uuid": uuid.uuidString] }
        if let type = value as? TypeName { return ["$class": type.name] }
        if let expression = value as? Expression { return ["$expression": expression.expressionFormat] }
        if value is any SetProtocol, let items = KeyValueAccess.collectionElements(value) {
            return ["$set": items.map { jsonObject($0) }]
        }
        if value is any OrderedSetProtocol, let items = KeyValueAccess.collectionElements(value) {
            return ["$orderedSet": items.map { jsonObject($0) }]
        }
        if let items = KeyValueAccess.collectionElements(value) { return items.map { jsonObject($0) } }
        if let dictionary = value as? [String: Any] { return dictionary.mapValues { jsonObject($0) } }
        return String(describing: value)
    }
}

/// A JSON-decoded value made hashable so it can live in a `Set` or an `OrderedSet`; compares
/// with the evaluator's equality.
public struct AnyHashableValue: Hashable, @unchecked Sendable {
    /// The wrapped value.
    public let value: Any?

    /// Wraps `value`.
    public init(_ value: Any?) { self.value = value }

    /// Equal when the evaluator finds the values equal.
    public static func == (lhs: AnyHashableValue, rhs: AnyHashableValue) -> Bool {
        ValueComparison.equal(lhs.value, rhs.value)
    }

    /// Hashes strings and numbers by value; other values share a bucket.
    public func hash(into hasher: inout Hasher) {
        guard let value = KeyValueAccess.normalized(value) else { hasher.combine(0); return }
        if let s = ValueComparison.string(value) { hasher.combine(s) }
        else if let n = Number(value) { hasher.combine(n.doubleValue) }
        else if let d = value as? Date { hasher.combine(d) }
        else { hasher.combine(1) }
    }
}
