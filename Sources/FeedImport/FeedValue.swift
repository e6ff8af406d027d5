// Reading a field's text as its type: instants in the three syntaxes feeds use (ISO 8601
// extended and basic, RFC 822), days, booleans, numbers, durations, time zones and HTML. A text
// that is not a value of its type is an error naming the text, unless the field is lenient.
import Foundation

/// A value read from a feed, before it is stored in an attribute of the model's type.
public enum FeedValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case number(Double)
    case boolean(Bool)
    /// An instant; `isDate` when the feed gave a day without a time.
    case instant(Date, isDate: Bool)
    /// A duration in seconds, not yet added to its start.
    case duration(TimeInterval)
    /// Bytes (``FeedValueType/base64``).
    case data(Data)
}

/// Why a field's text could not be read as its type.
struct FeedValueError: Error, Sendable {
    var message: String
}

/// Reads texts as values, with floating times and days in `timeZone`.
struct FeedValueReader {
    var timeZone: TimeZone

    /// The value of `text` read as `type`; floating times in the zone named `zone` (else the
    /// reader's), or in `fixedZone` when the payload itself defines the zone.
    func value(of text: String, as type: FeedValueType, zone: String?, fixedZone: TimeZone? = nil) throws(FeedValueError) -> FeedValue? {
        switch type {
        case .string: return text.isEmpty ? nil : .text(text)
        case .text, .datelist, .triggerlist, .notelist, .exchangeRecurrence:
            let trimmed = text.trimmedBlanks
            return trimmed.isEmpty ? nil : .text(trimmed)
        case .html:
            let plain = Self.plainText(ofHTML: text)
            return plain.isEmpty ? nil : .text(plain)
        case .int:
            let trimmed = text.trimmedBlanks
            if trimmed.isEmpty { return nil }
            if let integer = Int64(trimmed) { return .integer(integer) }
            if let number = Double(trimmed), number.rounded() == number, abs(number) < 9e18 { return .integer(Int64(number)) }
            throw FeedValueError(message: "\"\(trimmed)\" is not a whole number")
        case .number:
            let trimmed = text.trimmedBlanks
            if trimmed.isEmpty { return nil }
            guard let number = Double(trimmed) else { throw FeedValueError(message: "\"\(trimmed)\" is not a number") }
            return .number(number)
        case .bool:
            switch text.trimmedBlanks.lowercased() {
            case "": return nil
            case "true", "1", "yes": return .boolean(true)
            case "false", "0", "no": return .boolean(false)
            default: throw FeedValueError(message: "\"\(text)\" is not true or false")
            }
        case .datetime, .date:
            let trimmed = text.trimmedBlanks
            if trimmed.isEmpty { return nil }
            let resolved: TimeZone
            if let fixedZone { resolved = fixedZone } else { resolved = try self.zone(named: zone) }
            let zone = resolved
            guard let parsed = FeedDateParser.parse(trimmed, floatingIn: zone) else {
                throw FeedValueError(message: "\"\(trimmed)\" is not a date")
            }
            guard type == .date, !parsed.isDate else {
                return .instant(parsed.isDate ? day(parsed.components) : parsed.date, isDate: parsed.isDate)
            }
            // The day the instant falls on where the feed says it happens.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            return .instant(day(calendar.dateComponents([.year, .month, .day], from: parsed.date)), isDate: true)
        case .isdate:
            let trimmed = text.trimmedBlanks
            if trimmed.isEmpty { return nil }
            return .boolean(FeedDateParser.parse(trimmed, floatingIn: timeZone)?.isDate ?? false)
        case .utc:
            let trimmed = text.trimmedBlanks.uppercased()
            return trimmed.count > 8 && trimmed.hasSuffix("Z") ? .text("UTC") : nil
        case .base64:
            var compact = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
            // vCard 4.0 writes a data URI; a link to an image elsewhere is not its bytes.
            if compact.lowercased().hasPrefix("data:"), let comma = compact.firstIndex(of: ",") {
                compact = String(compact[compact.index(after: comma)...])
            } else if compact.contains("://") {
                return nil
            }
            if compact.isEmpty { return nil }
            guard let data = Data(base64Encoded: compact) else {
                throw FeedValueError(message: "\"\(compact.prefix(20))...\" is not base64")
            }
            return .data(data)
        case .duration:
            let trimmed = text.trimmedBlanks
            if trimmed.isEmpty { return nil }
            guard let seconds = Self.duration(trimmed) else { throw FeedValueError(message: "\"\(trimmed)\" is not a duration") }
            return .duration(seconds)
        case .timezone:
            return Self.timeZone(named: text.trimmedBlanks).map { .text($0.identifier) }
        }
    }

    /// The day `text` names without a year (`--0203`, `--02-03`, RFC 6350 4.3.1), in `year`;
    /// nil for any other text, or a day `year` does not have.
    func yearlessDay(_ text: String, year: Int) -> FeedValue? {
        let characters = Array(text.trimmedBlanks)
        let digits: [Character]
        switch characters.count {
        case 6 where characters[..<2] == ["-", "-"]: digits = Array(characters[2...])
        case 7 where characters[..<2] == ["-", "-"] && characters[4] == "-": digits = Array(characters[2..<4] + characters[5...])
        default: return nil
        }
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let month = Int(String(digits[..<2])), let day = Int(String(digits[2...])),
              (1...12).contains(month), day >= 1, day <= FeedDateParser.daysIn(month: month, year: year) else { return nil }
        return .instant(self.day(DateComponents(year: year, month: month, day: day)), isDate: true)
    }

    /// Midnight of a day in the import's time zone.
    func day(_ components: DateComponents) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: components.year, month: components.month, day: components.day)) ?? Date(timeIntervalSince1970: 0)
    }

    private func zone(named name: String?) throws(FeedValueError) -> TimeZone {
        guard let name, !name.isEmpty else { return timeZone }
        guard let zone = Self.timeZone(named: name) else { throw FeedValueError(message: "\"\(name)\" is not a time zone") }
        return zone
    }

    /// An IANA zone, a Windows zone name, or a name ending in an IANA one (`/mozilla.org/20050126_1/Europe/Berlin`).
    static func timeZone(named name: String) -> TimeZone? {
        if name.isEmpty { return nil }
        if let iana = WindowsTimeZones.ianaName[name] { return TimeZone(identifier: iana) }
        if name.contains("/") || name == "UTC" || name == "GMT", let zone = TimeZone(identifier: name) { return zone }
        let parts = name.split(separator: "/")
        if parts.count > 2 { return TimeZone(identifier: parts.suffix(2).joined(separator: "/")) }
        return nil
    }

    /// An ISO 8601 / RFC 5545 duration in seconds: `P1D`, `PT1H30M`, `-PT15M`, `P2W`.
    static func duration(_ text: String) -> TimeInterval? {
        var rest = Substring(text.uppercased())
        var sign = 1.0
        if rest.first == "-" { sign = -1; rest = rest.dropFirst() } else if rest.first == "+" { rest = rest.dropFirst() }
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var seconds = 0.0
        var inTime = false
        var number = ""
        var sawUnit = false
        for character in rest {
            if character == "T" { inTime = true; continue }
            if character.isNumber || character == "." { number.append(character); continue }
            guard let amount = Double(number) else { return nil }
            number = ""
            sawUnit = true
            switch (character, inTime) {
            case ("W", false): seconds += amount * 604_800
            case ("D", false): seconds += amount * 86_400
            case ("H", true): seconds += amount * 3_600
            case ("M", true): seconds += amount * 60
            case ("S", true): seconds += amount
            default: return nil
            }
        }
        return sawUnit && number.isEmpty ? sign * seconds : nil
    }

    /// The text of an HTML fragment: tags dropped (block ends and `<br>` as line breaks),
    /// character references decoded, runs of blanks collapsed.
    static func plainText(ofHTML html: String) -> String {
        var text = ""
        var tag = ""
        var inTag = false
        var skipping = false
        for character in html {
            if inTag {
                if character == ">" {
                    inTag = false
                    let name = tag.lowercased().split(whereSeparator: { $0 == " " || $0 == "/" || $0 == "\n" }).first.map(String.init) ?? ""
                    if name == "script" || name == "style" || name == "head" { skipping = true }
                    if tag.hasPrefix("/"), ["/script", "/style", "/head"].contains(tag.lowercased().split(separator: " ").first.map(String.init) ?? "") { skipping = false }
                    if ["br", "p", "/p", "div", "/div", "li", "tr", "/tr", "h1", "h2", "h3", "/h1", "/h2", "/h3"].contains(name.isEmpty ? tag.lowercased() : name)
                        || ["/p", "/div", "/tr", "/li"].contains(tag.lowercased()) {
                        text.append("\n")
                    }
                } else {
                    tag.append(character)
                }
            } else if character == "<" {
                inTag = true
                tag = ""
            } else if !skipping {
                text.append(character)
            }
        }
        let decoded = decodeEntities(text)
        let lines = decoded.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\u{00A0}" }).joined(separator: " ")
        }
        var collapsed: [String] = []
        for line in lines where !(line.isEmpty && (collapsed.last?.isEmpty ?? true)) { collapsed.append(line) }
        return collapsed.joined(separator: "\n").trimmedBlanks
    }

    private static let namedEntities: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ",
                                                          "copy": "©", "reg": "®", "euro": "€", "mdash": "—", "ndash": "–", "hellip": "…"]

    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let after = rest[rest.index(after: ampersand)...]
            if let semicolon = after.prefix(10).firstIndex(of: ";") {
                let name = String(after[..<semicolon])
                var replacement: String?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                } else if name.hasPrefix("#") {
                    replacement = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                } else {
                    replacement = namedEntities[name]
                }
                if let replacement {
                    result += replacement
                    rest = after[after.index(after: semicolon)...]
                    continue
                }
            }
            result.append("&")
            rest = after
        }
        return result + rest
    }
}

/// The instants feeds write.
enum FeedDateParser {
    struct Parsed {
        var date: Date
        var isDate: Bool
        var components: DateComponents
    }

    /// ISO 8601 extended (`2024-06-10T09:30:00+02:00`, fractions allowed) or basic
    /// (`20240610T093000Z`), a date alone (`2024-06-15`, `20240615`, `2024-06-03+02:00`), or
    /// RFC 822 (`Mon, 10 Jun 2024 09:30:00 +0200`, `GMT`); floating times are in `zone`.
    static func parse(_ text: String, floatingIn zone: TimeZone) -> Parsed? {
        iso(text, floatingIn: zone) ?? rfc822(text)
    }

    private static func iso(_ text: String, floatingIn zone: TimeZone) -> Parsed? {
        let characters = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= characters.count else { return nil }
            var value = 0
            for offset in 0..<count {
                let byte = characters[index + offset]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            if index < characters.count, characters[index] == byte { index += 1; return true }
            return false
        }
        guard let year = digits(4) else { return nil }
        let extended = skip(UInt8(ascii: "-"))
        guard let month = digits(2) else { return nil }
        if extended, !skip(UInt8(ascii: "-")) { return nil }
        guard let day = digits(2), (1...12).contains(month), (1...31).contains(day) else { return nil }
        var components = DateComponents(year: year, month: month, day: day)
        var isDate = true
        if skip(UInt8(ascii: "T")) || skip(UInt8(ascii: " ")) {
            isDate = false
            guard let hour = digits(2) else { return nil }
            if extended, !skip(UInt8(ascii: ":")) { return nil }
            guard let minute = digits(2) else { return nil }
            var second = 0
            if !extended || skip(UInt8(ascii: ":")) {
                if let value = digits(2) { second = value } else if extended { return nil }
            }
            var nanosecond = 0
            if skip(UInt8(ascii: ".")) || skip(UInt8(ascii: ",")) {
                var fraction = 0.0
                var scale = 0.1
                while index < characters.count, characters[index] >= 48, characters[index] <= 57 {
                    fraction += Double(characters[index] - 48) * scale
                    scale /= 10
                    index += 1
                }
                nanosecond = Int(fraction * 1e9)
            }
            guard hour <= 24, minute <= 59, second <= 60 else { return nil }
            components.hour = hour
            components.minute = minute
            components.second = second
            components.nanosecond = nanosecond
        }
        var offset: Int?
        if skip(UInt8(ascii: "Z")) || skip(UInt8(ascii: "z")) {
            offset = 0
        } else if index < characters.count, characters[index] == UInt8(ascii: "+") || characters[index] == UInt8(ascii: "-") {
            let sign = characters[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2) else { return nil }
            _ = skip(UInt8(ascii: ":"))
            let minutes = digits(2) ?? 0
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == characters.count, day <= daysIn(month: month, year: year) else { return nil }
        // Seconds from 1970 of the wall-clock time, then the offset: cheaper than a Calendar.
        let wall = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
            + Double((components.hour ?? 0) * 3600 + (components.minute ?? 0) * 60 + (components.second ?? 0))
            + Double(components.nanosecond ?? 0) / 1e9
        // A date's offset says where the day is, not which day: the day stays as written.
        if !isDate, let offset {
            return Parsed(date: Date(timeIntervalSince1970: wall - Double(offset)), isDate: false, components: components)
        }
        return Parsed(date: Date(timeIntervalSince1970: wall - Double(offsetOf(zone, atWallClock: wall))), isDate: isDate, components: components)
    }

    /// The offset of `zone` at the wall-clock time `wall` (seconds from 1970 as if in UTC).
    static func offsetOf(_ zone: TimeZone, atWallClock wall: Double) -> Int {
        let guess = zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall))
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - Double(guess)))
    }

    /// Days from 1970-01-01 of a Gregorian date (Howard Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let zoneOffsets: [String: Int] = ["GMT": 0, "UT": 0, "UTC": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5,
                                                      "MST": -7, "MDT": -6, "PST": -8, "PDT": -7]

    /// RFC 822 / 2822 dates: `[Day,] DD Mon YYYY HH:MM[:SS] zone`.
    private static func rfc822(_ text: String) -> Parsed? {
        var words = text.replacingOccurrences(of: ",", with: " ").split(separator: " ").map(String.init)
        if let first = words.first, first.first?.isLetter == true { words.removeFirst() }
        guard words.count >= 4, let day = Int(words[0]), let month = months.firstIndex(of: words[1].prefix(3).lowercased()),
              var year = Int(words[2]) else { return nil }
        if year < 100 { year += year < 50 ? 2000 : 1900 }
        let clock = words[3].split(separator: ":").compactMap { Int($0) }
        guard clock.count >= 2, clock.count == words[3].split(separator: ":").count else { return nil }
        var offset = 0
        if words.count > 4 {
            let zone = words[4]
            if let known = zoneOffsets[zone.uppercased()] {
                offset = known * 3600
            } else if zone.count == 5, let sign = zone.first, sign == "+" || sign == "-", let value = Int(zone.dropFirst()) {
                offset = (sign == "-" ? -1 : 1) * ((value / 100) * 3600 + (value % 100) * 60)
            } else {
                return nil
            }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset) ?? TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month + 1, day: day, hour: clock[0], minute: clock[1],
                                        second: clock.count > 2 ? clock[2] : 0)
        guard let date = calendar.date(from: components) else { return nil }
        return Parsed(date: date, isDate: false, components: components)
    }
}

extension StringProtocol {
    /// The text without white space at either end (blanks, tabs, line ends, Unicode spaces),
    /// without going through Foundation.
    var trimmedBlanks: String {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x80 ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }), let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        // Scalar indices are indices of the text itself.
        return String(self[first..<scalars.index(after: last)])
    }
}
