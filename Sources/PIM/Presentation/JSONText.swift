// JSON text of the values pim prints (NSNull, strings, integers, doubles, booleans, arrays and
// string-keyed objects), written as Foundation's JSONSerialization writes them with
// `.prettyPrinted, .sortedKeys, .withoutEscapingSlashes`, byte for byte, but without its key
// sorting: on Linux that compares every pair of keys through a locale, which was three quarters
// of printing a long list as JSON.
import Foundation

enum JSONText {
    /// `value` as pretty-printed JSON with sorted keys; nil when it holds something JSON cannot.
    static func write(_ value: Any) -> String? {
        var text = ""
        return append(value, to: &text, indent: 0) ? text : nil
    }

    private static func append(_ value: Any, to text: inout String, indent: Int) -> Bool {
        // Swift types first: casting a dictionary or an array to a class (NSNull) bridges it.
        switch value {
        case let string as String:
            appendString(string, to: &text)
        case let integer as Int64:
            text += String(integer)
        case let double as Double:
            guard double.isFinite else { return false }
            var number = double.description
            if number.hasSuffix(".0") { number.removeLast(2) }
            text += number
        case let bool as Bool:
            text += bool ? "true" : "false"
        case let integer as Int:
            text += String(integer)
        case let object as [String: Any]:
            text += "{\n"
            for (index, key) in object.keys.sorted(by: keyPrecedes).enumerated() {
                if index > 0 { text += ",\n" }
                text += String(repeating: "  ", count: indent + 1)
                appendString(key, to: &text)
                text += " : "
                guard append(object[key]!, to: &text, indent: indent + 1) else { return false }
            }
            text += "\n" + String(repeating: "  ", count: indent) + "}"
        case let array as [Any]:
            text += "[\n"
            for (index, element) in array.enumerated() {
                if index > 0 { text += ",\n" }
                text += String(repeating: "  ", count: indent + 1)
                guard append(element, to: &text, indent: indent + 1) else { return false }
            }
            text += "\n" + String(repeating: "  ", count: indent) + "]"
        case is NSNull:
            text += "null"
        default:
            return false
        }
        return true
    }

    /// A string with JSONSerialization's escapes (quote, backslash, control characters; not `/`).
    private static func appendString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\u{8}": text += "\\b"
            case "\u{C}": text += "\\f"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{0}"..."\u{F}": text += "\\u000" + String(scalar.value, radix: 16)
            case "\u{10}"..."\u{1F}": text += "\\u00" + String(scalar.value, radix: 16)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// JSONSerialization's key order (`.numeric, .caseInsensitive, .forcedOrdering`): letters
    /// ignoring case, runs of digits by their value, ties lower case first. Keys of ASCII letters
    /// and digits (the field names pim writes) are compared here; others through Foundation.
    static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        guard let order = asciiOrder(Array(a.utf8), Array(b.utf8)) else {
            return a.compare(b, options: [.numeric, .caseInsensitive, .forcedOrdering], range: a.startIndex..<a.endIndex,
                             locale: Locale(identifier: "")) == .orderedAscending
        }
        return order
    }

    /// Whether `a` comes before `b`, or nil when either has a byte other than an ASCII letter or
    /// digit (punctuation follows the collation's own order, which Foundation knows).
    private static func asciiOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool? {
        func plain(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
        guard a.allSatisfy(plain), b.allSatisfy(plain) else { return nil }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if isDigit(a[i]), isDigit(b[j]) {
                // Runs of digits compare by value: without leading zeros, the longer is larger.
                var endA = i, endB = j
                while endA < a.count, isDigit(a[endA]) { endA += 1 }
                while endB < b.count, isDigit(b[endB]) { endB += 1 }
                var startA = i, startB = j
                while startA < endA - 1, a[startA] == 0x30 { startA += 1 }
                while startB < endB - 1, b[startB] == 0x30 { startB += 1 }
                let lengthA = endA - startA, lengthB = endB - startB
                if lengthA != lengthB { return lengthA < lengthB }
                for offset in 0..<lengthA where a[startA + offset] != b[startB + offset] {
                    return a[startA + offset] < b[startB + offset]
                }
                i = endA
                j = endB
                continue
            }
            let x = lower(a[i]), y = lower(b[j])
            if x != y { return x < y }
            i += 1
            j += 1
        }
        if (a.count - i) != (b.count - j) { return a.count - i < b.count - j }
        // Equal but for case or leading zeros (forced ordering): at the first difference, a
        // lower-case letter before its capital, as the collation orders them.
        for (x, y) in zip(a, b) where x != y {
            let xIsLower = x >= 0x61 && x <= 0x7A, yIsLower = y >= 0x61 && y <= 0x7A
            return xIsLower != yIsLower ? xIsLower : x < y
        }
        return a.count < b.count
    }
}
