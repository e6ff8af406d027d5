// vCard (.vcf) and iCalendar (.ics) files, which are text, not XML: each object in them (a card;
// the components of one UID, with the time zones they name) becomes one element of an XML
// document that FeedImporter streams like any feed, its text the element's payload. Every
// element starts on the line its object starts on in the file (line breaks inside are character
// references), so a refused record is named by its line in the file.
import Foundation

/// The text formats a mapping can read instead of XML (its `content` key).
public enum ContentFileFormat: String, Sendable {
    /// vCard 2.1, 3.0 or 4.0: one record per `BEGIN:VCARD`.
    case vcard
    /// iCalendar: one record per UID (a series with its changed occurrences) of every VCALENDAR.
    case icalendar

    /// The first line of a file of this format.
    var beginLine: String { self == .vcard ? "BEGIN:VCARD" : "BEGIN:VCALENDAR" }
}

/// A vCard or iCalendar file as the XML document a mapping reads:
///
/// ```xml
/// <objects xmlns="urn:x-objectgraph:content">
/// <object key="UID">BEGIN:VCARD&#10;VERSION:3.0&#10;...</object>
/// ```
///
/// A mapping selects `c:objects/c:object`, reads its text as the payload (`"xpath": "."`) and its
/// key from `@key`: the object's UID, or, for one without, its FN, ORG and first EMAIL (a card) or
/// its DTSTART and SUMMARY (an event or to-do).
enum ContentFile {
    static let namespace = "urn:x-objectgraph:content"

    /// One object of the file: its key, the line it starts on, and its unfolded lines.
    private struct Object {
        var key: String
        var line: Int
        var lines: [String]
    }

    /// The XML document of the file `name` holding `data`. Throws, with the line, when the text
    /// is not UTF-8 or its components do not nest.
    static func document(_ data: Data, name: String, format: ContentFileFormat) throws(FeedImportError) -> Data {
        let lines = try logicalLines(data, name: name, format: format)
        let objects = format == .vcard ? try cards(lines, name: name) : try calendarObjects(lines, name: name)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><objects xmlns=\"\(namespace)\">"
        var line = 1
        for object in objects {
            while line < object.line {
                xml += "\n"
                line += 1
            }
            xml += "<object key=\"\(escaped(object.key))\">\(escaped(object.lines.joined(separator: "\n")))</object>"
        }
        xml += "</objects>\n"
        return Data(xml.utf8)
    }

    /// The unfolded lines with the line each starts on: CRLF, LF and CR end lines, a line starting
    /// with a space or tab continues the one before (RFC 5545 3.1, RFC 6350 3.2), and so does the
    /// line after a quoted-printable value's soft break (`=` at its end, vCard 2.1). Lines are
    /// joined as octets, then read as UTF-8, so a fold inside a character restores it; a line
    /// that is still not UTF-8 is refused with its number.
    private static func logicalLines(_ data: Data, name: String, format: ContentFileFormat) throws(FeedImportError) -> [(line: Int, text: String)] {
        var octets = [UInt8](data)
        if octets.starts(with: [0xEF, 0xBB, 0xBF]) { octets.removeFirst(3) }
        var physical: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index < octets.count {
            let octet = octets[index]
            if octet == 0x0A || octet == 0x0D {
                physical.append(octets[start..<index])
                if octet == 0x0D, index + 1 < octets.count, octets[index + 1] == 0x0A { index += 1 }
                start = index + 1
            }
            index += 1
        }
        if start < octets.count { physical.append(octets[start...]) }
        var logical: [(line: Int, octets: [UInt8])] = []
        var softBreak = false
        for (offset, line) in physical.enumerated() {
            if let first = line.first, first == 0x20 || first == 0x09, !logical.isEmpty, !logical[logical.count - 1].octets.isEmpty {
                logical[logical.count - 1].octets += line.dropFirst()
            } else if softBreak, !logical.isEmpty {
                logical[logical.count - 1].octets += line
            } else {
                logical.append((offset + 1, Array(line)))
            }
            let current = logical.last?.octets ?? []
            softBreak = current.last == UInt8(ascii: "=") && isQuotedPrintable(current)
            if softBreak { logical[logical.count - 1].octets.removeLast() }
        }
        return try logical.map { line throws(FeedImportError) in
            // Decoding repairs what is not UTF-8; a line that differs from its octets was not.
            let text = String(decoding: line.octets, as: UTF8.self)
            guard text.utf8.elementsEqual(line.octets) else {
                throw .syntax(feed: name, line: line.line, column: 1, message: "not UTF-8 text: a \(format.rawValue) file pim reads is UTF-8")
            }
            return (line.line, text)
        }
    }

    /// Whether a content line's parameters say its value is quoted-printable.
    private static func isQuotedPrintable(_ line: [UInt8]) -> Bool {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return false }
        return String(decoding: line[..<colon], as: UTF8.self).uppercased().contains("QUOTED-PRINTABLE")
    }

    /// What a BEGIN or END line names (upper case), or nil for another line.
    private static func boundary(_ line: String) -> (begins: Bool, name: String)? {
        guard let first = line.utf8.first, first == UInt8(ascii: "B") || first == UInt8(ascii: "b") || first == UInt8(ascii: "E")
                || first == UInt8(ascii: "e") || first == UInt8(ascii: " "), let colon = line.firstIndex(of: ":") else { return nil }
        let head = line[..<colon].trimmedBlanks.uppercased()
        guard head == "BEGIN" || head == "END" else { return nil }
        return (head == "BEGIN", line[line.index(after: colon)...].trimmedBlanks.uppercased())
    }

    // MARK: vCard

    private static func cards(_ lines: [(line: Int, text: String)], name: String) throws(FeedImportError) -> [Object] {
        var objects: [Object] = []
        var index = 0
        while let start = try nextComponent(lines, from: index, named: "VCARD", name: name) {
            let number = lines[start].line
            let (body, next) = try component(lines, from: start, name: name)
            // Only the lines the key reads are parsed.
            let properties = body.dropFirst().compactMap { line -> ContentProperty? in
                guard let first = line.utf8.first, [UInt8(ascii: "U"), UInt8(ascii: "F"), UInt8(ascii: "O"), UInt8(ascii: "E"),
                                                    UInt8(ascii: "u"), UInt8(ascii: "f"), UInt8(ascii: "o"), UInt8(ascii: "e")].contains(first)
                else { return nil }
                return ContentComponent.contentLine(line)
            }
            func value(_ property: String) -> String {
                properties.first { $0.name == property }.map { $0.part(0) ?? "" }?.trimmedBlanks ?? ""
            }
            let uid = value("UID")
            objects.append(Object(key: uid.isEmpty ? "\(value("FN"))|\(value("ORG"))|\(value("EMAIL"))" : uid, line: number, lines: body))
            index = next
        }
        return objects
    }

    /// The index of the first line from `index` that is not blank, which must begin a component
    /// `component`; nil when only blank lines are left.
    private static func nextComponent(_ lines: [(line: Int, text: String)], from index: Int, named component: String,
                                      name: String) throws(FeedImportError) -> Int? {
        guard let found = lines[index...].firstIndex(where: { !$0.text.allSatisfy(\.isBlankSpace) }) else { return nil }
        let (number, text) = lines[found]
        guard let begin = boundary(text), begin.begins, begin.name == component else {
            throw .syntax(feed: name, line: number, column: 1, message: "expected BEGIN:\(component), found \"\(text.prefix(40))\"")
        }
        return found
    }

    /// The lines of the component that begins at `start`, through its END, and the index after.
    private static func component(_ lines: [(line: Int, text: String)], from start: Int,
                                  name: String) throws(FeedImportError) -> (lines: [String], next: Int) {
        var open: [(name: String, line: Int)] = []
        var body: [String] = []
        var index = start
        while index < lines.count {
            let (number, text) = lines[index]
            index += 1
            if text.allSatisfy(\.isBlankSpace) { continue }
            body.append(text)
            guard let mark = boundary(text) else { continue }
            if mark.begins {
                open.append((mark.name, number))
                continue
            }
            guard let innermost = open.popLast() else { break }
            guard innermost.name == mark.name else {
                throw .syntax(feed: name, line: number, column: 1,
                              message: "END:\(mark.name) closes BEGIN:\(innermost.name) of line \(innermost.line)")
            }
            if open.isEmpty { return (body, index) }
        }
        let unclosed = open.last ?? (name: "", line: lines[start].line)
        throw .syntax(feed: name, line: unclosed.line, column: 1, message: "BEGIN:\(unclosed.name) is never ended")
    }

    // MARK: iCalendar

    private static func calendarObjects(_ lines: [(line: Int, text: String)], name: String) throws(FeedImportError) -> [Object] {
        var objects: [Object] = []
        var byKey: [String: Int] = [:]
        var index = 0
        while let start = try nextComponent(lines, from: index, named: "VCALENDAR", name: name) {
            index = start
            // Checks the nesting of the whole calendar before its parts are taken apart.
            let (_, next) = try component(lines, from: index, name: name)
            var calendarProperties: [String] = []
            var zones: [(id: String, lines: [String])] = []
            var members: [(key: String, line: Int, lines: [String])] = []
            var inner = index + 1
            while inner < next - 1 {
                let (memberLine, memberText) = lines[inner]
                guard let mark = boundary(memberText), mark.begins else {
                    if !memberText.allSatisfy(\.isBlankSpace) { calendarProperties.append(memberText) }
                    inner += 1
                    continue
                }
                let (body, after) = try component(lines, from: inner, name: name)
                inner = after
                let parsed = ContentComponent.parse(body.joined(separator: "\n")).components.first
                func value(_ property: String) -> String {
                    parsed?.property(property)?.value.trimmedBlanks ?? ""
                }
                if mark.name == "VTIMEZONE" {
                    zones.append((value("TZID"), body))
                    continue
                }
                let uid = value("UID")
                members.append((uid.isEmpty ? "\(value("DTSTART"))|\(value("SUMMARY"))" : uid, memberLine, body))
            }
            for member in members {
                // Only the zones the member names go with it.
                let named = zones.filter { zone in !zone.id.isEmpty && member.lines.contains { $0.contains("TZID=\(zone.id)") || $0.contains("TZID=\"\(zone.id)\"") } }
                if let existing = byKey[member.key] {
                    objects[existing].lines.append(contentsOf: member.lines)
                    for zone in named where !objects[existing].lines.contains("TZID:\(zone.id)") {
                        objects[existing].lines.insert(contentsOf: zone.lines, at: 1)
                    }
                    continue
                }
                byKey[member.key] = objects.count
                objects.append(Object(key: member.key, line: member.line,
                                      lines: ["BEGIN:VCALENDAR"] + calendarProperties + named.flatMap(\.lines) + member.lines))
            }
            index = next
        }
        // Closed once every calendar of the file has given its members.
        for position in objects.indices { objects[position].lines.append("END:VCALENDAR") }
        return objects
    }

    // MARK: XML

    /// `text` as XML character data or attribute value, on one line: markup and line breaks as
    /// references, characters XML 1.0 cannot hold left out.
    private static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case "\t": result += "&#9;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension Character {
    /// A space or a tab: what a blank content line holds.
    var isBlankSpace: Bool { self == " " || self == "\t" }
}
