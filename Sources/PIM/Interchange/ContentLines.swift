// Writing iCalendar (RFC 5545 3.1) and vCard (RFC 6350 3.2) text: content lines of a name,
// parameters and a value, ended by CRLF and folded at 75 octets, with text values escaped. The
// exporters build their objects with it; FeedImport's ContentComponent reads such text back.
import Foundation

/// iCalendar or vCard text, one content line at a time.
///
/// ```swift
/// var lines = ContentLines()
/// lines.begin("VCARD")
/// lines.add("FN", text: "Ann O'Neil, PhD")              // FN:Ann O'Neil\, PhD
/// lines.add("EMAIL", ["TYPE": "work"], value: "ann@example.org")
/// lines.end("VCARD")
/// ```
struct ContentLines {
    private(set) var text = ""

    /// The most octets a line holds before it is folded, CRLF not counted.
    static let lineLength = 75

    mutating func begin(_ component: String) { add("BEGIN", value: component) }

    mutating func end(_ component: String) { add("END", value: component) }

    /// A property whose value is text: backslashes, commas, semicolons and line breaks escaped.
    mutating func add(_ name: String, _ parameters: KeyValuePairs<String, String> = [:], text value: String) {
        add(name, parameters, value: Self.escaped(value))
    }

    /// A property whose value is written as given (dates, numbers, structured values already escaped
    /// part by part).
    mutating func add(_ name: String, _ parameters: KeyValuePairs<String, String> = [:], value: String) {
        var line = name
        for (parameter, parameterValue) in parameters where !parameterValue.isEmpty {
            // TYPE holds a list (`TYPE=work,voice`): each value on its own.
            let values = parameter == "TYPE" ? parameterValue.split(separator: ",").map { Self.parameterValue(String($0)) }
                                             : [Self.parameterValue(parameterValue)]
            line += ";\(parameter)=\(values.joined(separator: ","))"
        }
        line += ":" + value
        append(folded: line)
    }

    /// Appends text already made of content lines (a time zone's definition).
    mutating func append(_ other: ContentLines) { text += other.text }

    /// `text` as a TEXT value: `\` `,` `;` and line breaks escaped (RFC 5545 3.3.11, RFC 6350 3.4).
    static func escaped(_ text: String) -> String {
        // Most values have nothing to escape: kept as they are, without a copy.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: ";") }) {
            return text
        }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar {
            case "\\": result += "\\\\"
            case ",": result += "\\,"
            case ";": result += "\\;"
            case "\r": result += "\\n"
            case "\n": if !afterCR { result += "\\n" }
            default:
                // Other control characters are not allowed in a value (RFC 5545 3.1's CONTROL).
                if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A structured value (`N`, `ADR`, `ORG`): each part escaped, joined by `;`.
    static func structured(_ parts: [String?]) -> String {
        parts.map { Self.escaped($0 ?? "") }.joined(separator: ";")
    }

    /// A parameter value, quoted when it holds `:` `;` or `,`; a double quote, a line break and a
    /// caret are written as RFC 6868 says (`^'`, `^n`, `^^`), other control characters left out.
    static func parameterValue(_ value: String) -> String {
        var cleaned = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "^": cleaned += "^^"
            case "\"": cleaned += "^'"
            case "\n": cleaned += "^n"
            default:
                if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F { continue }
                cleaned.unicodeScalars.append(scalar)
            }
        }
        return cleaned.contains(where: { $0 == ":" || $0 == ";" || $0 == "," }) ? "\"\(cleaned)\"" : cleaned
    }

    /// Appends `line` folded: a CRLF and a space after each 75 octets (74 after the space of a
    /// continuation), never inside a UTF-8 sequence.
    private mutating func append(folded line: String) {
        if line.utf8.count <= Self.lineLength {
            text += line
            text += "\r\n"
            return
        }
        let octets = Array(line.utf8)
        var start = 0
        var limit = Self.lineLength
        while octets.count - start > limit {
            var cut = start + limit
            // Back up to the first octet of a character (continuation octets are 10xxxxxx).
            while cut > start, octets[cut] & 0xC0 == 0x80 { cut -= 1 }
            text += String(decoding: octets[start..<cut], as: UTF8.self) + "\r\n "
            start = cut
            limit = Self.lineLength - 1
        }
        text += String(decoding: octets[start...], as: UTF8.self) + "\r\n"
    }
}
