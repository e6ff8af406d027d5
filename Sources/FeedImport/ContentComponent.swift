// iCalendar (RFC 5545) and vCard (RFC 6350) text as feeds carry it inside XML (CalDAV
// calendar-data, CardDAV address-data, GData gd:recurrence): content lines unfolded, split into
// name, parameters and value, and nested BEGIN/END components. Values stay escaped until read.
import Foundation

/// One content line: `DTSTART;TZID=Europe/Berlin:20240610T093000`.
public struct ContentProperty: Sendable, Equatable {
    /// The upper-case name, without a vCard group (`item1.EMAIL` is `EMAIL`).
    public var name: String
    /// Parameters by upper-case name; a parameter with several values keeps them comma-joined.
    public var parameters: [String: String]
    /// The value as written: escapes (`\,` `\;` `\n`) not yet undone.
    public var rawValue: String

    /// The value with its escapes undone (and its quoted-printable encoding, vCard 2.1's).
    public var value: String { Self.unescaped(decodedRawValue) }

    /// The raw value with a quoted-printable encoding (`ENCODING=QUOTED-PRINTABLE`, vCard 2.1)
    /// undone: `=C3=BC` is `ü` (in the CHARSET given, UTF-8 by default).
    var decodedRawValue: String {
        guard parameters["ENCODING"]?.uppercased() == "QUOTED-PRINTABLE" else { return rawValue }
        var bytes: [UInt8] = []
        let octets = Array(rawValue.utf8)
        var index = 0
        while index < octets.count {
            if octets[index] == UInt8(ascii: "="), index + 2 < octets.count, let high = Self.hexValue(octets[index + 1]), let low = Self.hexValue(octets[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(octets[index])
                index += 1
            }
        }
        let charset = parameters["CHARSET"]?.uppercased() ?? "UTF-8"
        let encoding: String.Encoding = ["ISO-8859-1", "LATIN1", "ISO8859-1"].contains(charset) ? .isoLatin1
            : charset == "WINDOWS-1252" ? .windowsCP1252 : .utf8
        return String(data: Data(bytes), encoding: encoding) ?? String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ octet: UInt8) -> UInt8? {
        switch octet {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): octet - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): octet - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): octet - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The values of a list (`CATEGORIES:Friends\, close,Work`), split at the separators that are
    /// not escaped, each unescaped.
    public func values(separatedBy separator: Character) -> [String] {
        pieces(separatedBy: separator).map(Self.unescaped)
    }

    /// The non-empty parts `indexes` of a structured value, joined by `separator`.
    public func parts(_ indexes: [Int], joinedBy separator: String) -> String {
        indexes.compactMap { part($0) }.filter { !$0.isEmpty }.joined(separator: separator)
    }

    /// The `index`th `;`-separated component of a structured value (`N`, `ADR`, `ORG`), unescaped.
    public func part(_ index: Int) -> String? {
        let parts = pieces(separatedBy: ";")
        return index < parts.count ? Self.unescaped(parts[index]) : nil
    }

    /// The raw value split at the separators that are not escaped, escapes kept.
    private func pieces(separatedBy separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in decodedRawValue {
            if escaped {
                current.append("\\")
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == separator {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    /// An iCalendar or vCard TEXT value with its escapes undone (`\,` `\;` `\n` `\\`).
    public static func unescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// A component (`VCALENDAR`, `VEVENT`, `VCARD`) with its properties and nested components.
public struct ContentComponent: Sendable {
    public var name: String
    public var properties: [ContentProperty] = []
    public var components: [ContentComponent] = []

    /// The first property named `name`.
    public func property(_ name: String) -> ContentProperty? {
        properties.first { $0.name == name }
    }

    /// Every property named `name`, in order.
    public func properties(named name: String) -> [ContentProperty] {
        properties.filter { $0.name == name }
    }

    /// The component named `name` a record reads: this one, or the first nested one that is not
    /// an overridden instance (no `RECURRENCE-ID`), else the first overridden one.
    public func recordComponent(named name: String) -> ContentComponent? {
        if self.name == name { return self }
        let candidates = components.flatMap { component -> [ContentComponent] in
            component.name == name ? [component] : component.recordComponent(named: name).map { [$0] } ?? []
        }
        return candidates.first { $0.property("RECURRENCE-ID") == nil } ?? candidates.first
    }

    /// Every component named `name` in this one (at any depth) that has the property `property`.
    public func components(named name: String, having property: String?) -> [ContentComponent] {
        components.flatMap { component -> [ContentComponent] in
            let own = component.name == name && (property.map { component.property($0) != nil } ?? true) ? [component] : []
            return own + component.components(named: name, having: property)
        }
    }

    /// Parses iCalendar or vCard text: CRLF, bare LF and bare CR all end lines (XML parsers turn
    /// CRLF into LF); a line starting with a space or tab continues the one before. Lines outside
    /// any component, or that are not `NAME[;PARAM=VALUE]:VALUE`, are left out.
    public static func parse(_ text: String) -> ContentComponent {
        var root = ContentComponent(name: "")
        var stack: [ContentComponent] = []
        for line in unfoldedLines(text) {
            guard let property = contentLine(line) else { continue }
            switch property.name {
            case "BEGIN":
                stack.append(ContentComponent(name: property.rawValue.uppercased()))
            case "END":
                guard let finished = stack.popLast() else { continue }
                if stack.isEmpty { root.components.append(finished) } else { stack[stack.count - 1].components.append(finished) }
            default:
                if stack.isEmpty { root.properties.append(property) } else { stack[stack.count - 1].properties.append(property) }
            }
        }
        // An unclosed component still counts (truncated payloads lose only their END lines).
        while let open = stack.popLast() {
            if stack.isEmpty { root.components.append(open) } else { stack[stack.count - 1].components.append(open) }
        }
        return root
    }

    static func unfoldedLines(_ text: String) -> [String] {
        var lines: [String] = []
        // Only a bare list of properties (GData's gd:recurrence) comes pretty-printed; a whole
        // object (BEGIN:VCALENDAR...) is folded as RFC 5545 says, whatever its continuations hold.
        let prettyPrintable = !text.drop(while: { $0.isWhitespace }).uppercased().hasPrefix("BEGIN:")
        // "\r\n" is one Character: each of the three ends a line.
        for physical in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            // A fold is one blank before the rest of a line. Text indented deeper that starts a
            // content line is a new line of a payload pretty-printed inside XML (GData's
            // gd:recurrence), not the middle of a value.
            let indentation = physical.prefix { $0 == " " || $0 == "\t" }
            if prettyPrintable, indentation.count > 1, startsContentLine(physical.dropFirst(indentation.count)) {
                lines.append(String(physical.dropFirst(indentation.count)))
            } else if let first = physical.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += physical.dropFirst()
            } else {
                lines.append(String(physical))
            }
        }
        return lines
    }

    /// Whether `text` starts as a content line does: a name of upper-case letters, digits and
    /// dashes, then `;` or `:`.
    static func startsContentLine(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isUppercase else { return false }
        for character in text {
            if character == ":" || character == ";" { return true }
            guard character.isASCII, character.isUppercase || character.isNumber || character == "-" else { return false }
        }
        return false
    }

    static func caretDecoded(_ value: String) -> String {
        var result = ""
        var caret = false
        for character in value {
            if caret {
                switch character {
                case "'": result.append("\"")
                case "n", "N": result.append("\n")
                case "^": result.append("^")
                default: result += "^" + String(character)
                }
                caret = false
            } else if character == "^" {
                caret = true
            } else {
                result.append(character)
            }
        }
        if caret { result.append("^") }
        return result
    }

    static func contentLine(_ line: String) -> ContentProperty? {
        var name = ""
        var parameters: [String: String] = [:]
        var index = line.startIndex
        while index < line.endIndex, line[index] != ";", line[index] != ":" {
            name.append(line[index])
            index = line.index(after: index)
        }
        name = name.trimmedBlanks
        guard !name.isEmpty, index < line.endIndex else { return nil }
        if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        while index < line.endIndex, line[index] == ";" {
            index = line.index(after: index)
            var parameterName = ""
            while index < line.endIndex, line[index] != "=", line[index] != ";", line[index] != ":" {
                parameterName.append(line[index])
                index = line.index(after: index)
            }
            var values: [String] = []
            if index < line.endIndex, line[index] == "=" {
                index = line.index(after: index)
                var current = ""
                var quoted = false
                while index < line.endIndex, quoted || (line[index] != ";" && line[index] != ":") {
                    let character = line[index]
                    if character == "\"" {
                        quoted.toggle()
                    } else if character == ",", !quoted {
                        values.append(current)
                        current = ""
                    } else {
                        current.append(character)
                    }
                    index = line.index(after: index)
                }
                values.append(current)
            }
            // RFC 6868: ^' is a double quote, ^n a line break, ^^ a caret.
            values = values.map { $0.contains("^") ? Self.caretDecoded($0) : $0 }
            let key = parameterName.uppercased()
            // vCard 2.1 writes bare types: `TEL;WORK;VOICE:`.
            if values.isEmpty {
                parameters["TYPE", default: ""] += (parameters["TYPE"] == nil ? "" : ",") + parameterName
            } else {
                parameters[key] = ((parameters[key].map { [$0] } ?? []) + values).joined(separator: ",")
            }
        }
        guard index < line.endIndex, line[index] == ":" else { return nil }
        return ContentProperty(name: name.uppercased(), parameters: parameters, rawValue: String(line[line.index(after: index)...]))
    }
}
