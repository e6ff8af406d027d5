// What `pim sync` keeps of the server's copy of a resource it replaces: everything pim does not
// hold. pim writes an event, to-do or card from its record, which has no place for an alarm it
// cannot read (one relative to an event's end), an alarm's sound or acknowledgement, an
// attendee's reply, an attendee who is not one of its contacts, a department, a photo link, an
// address book's custom labels, or the properties other programs add (X-MOZ-*, X-APPLE-*, IMPP,
// RELATED...); sent alone, it would delete them on the server and on every device. The merger
// copies them from the server's copy into pim's text, inside the component they belong to
// (matched by UID and the instant of RECURRENCE-ID), as DAVx5 and Thunderbird keep what they do
// not know:
//
// - a property pim does not write is kept; one that restates a property pim writes (an HTML
//   description, a structured location, a formatted address label) only while that property's
//   value is the server's;
// - a line of pim's whose value the server's copy has too (an e-mail address, a phone, an
//   attendee, a to-do's comment) is sent as the server wrote it, with its parameters (TYPE=pref,
//   PARTSTAT, CN, LANGUAGE) and the lines of its group (Apple's item1.X-ABLabel); an attendee
//   or organizer the server names by another address of the same contact is that line too;
// - an attendee pim's text lacks is kept unless pim's record had it at the last sync (removed
//   here); an organizer unless pim writes one;
// - a value pim cannot read (PHOTO by URL) is kept while pim writes none; a birthday or
//   anniversary that says pim's day is sent as the server wrote it (`--0412` for pim's 1604);
//   an ORG whose organization is pim's keeps its units;
// - an alarm (VALARM) of pim's that goes off when one of the server's does is sent as the
//   server wrote it (its text following a title changed here when it was the title); the
//   server's alarms pim's text had at the last sync and has no longer were removed here, and
//   go; the others stay;
// - a to-do's comments (pim's annotations) likewise: those pim's text had at the last sync and
//   has no longer go, the server's others stay.
import FeedImport
import Foundation

struct ResourceMerger {
    /// The attendees (lower-case addresses) pim's record had at the last sync and has no longer:
    /// removed here, so not kept from the server's copy.
    var removedAttendees: Set<String> = []
    /// The alarms (``alarmKeys(of:)``) pim's text had at the last sync and has no longer:
    /// removed here, so not kept from the server's copy. The server's other alarms stay, those
    /// added since by another client too.
    var removedAlarms: Set<String> = []
    /// The comments (``commentKeys(of:)``) of a to-do pim's text had at the last sync and has no
    /// longer: annotations removed here, so not kept from the server's copy. The server's other
    /// COMMENTs stay: those another client added since.
    var removedComments: Set<String> = []
    /// Each address (lower case) of a contact pim names as an attendee or organizer, with every
    /// address of that contact: a server's line naming the contact by another of its addresses
    /// says what pim's says (pim writes the contact's first address).
    var contactAddresses: [String: Set<String>] = [:]
    /// The UIDs (lower case) of the tasks pim has: a parent or dependency the server's copy
    /// names among them is pim's to keep or drop; one naming another task is another client's.
    var taskUIDs: Set<String> = []

    /// The properties pim writes (or reads into its records and writes back) for each component:
    /// the server's lines of these are sent only where they say what pim's text says.
    static let owned: [String: Set<String>] = [
        "VEVENT": ["UID", "DTSTAMP", "CREATED", "LAST-MODIFIED", "SUMMARY", "DTSTART", "DTEND", "DURATION", "LOCATION",
                   "DESCRIPTION", "URL", "STATUS", "RRULE", "EXDATE", "RECURRENCE-ID"],
        "VTODO": ["UID", "DTSTAMP", "CREATED", "LAST-MODIFIED", "SUMMARY", "DESCRIPTION", "DTSTART", "DUE", "DURATION",
                  "COMPLETED", "PERCENT-COMPLETE", "PRIORITY", "STATUS", "RRULE", "EXDATE", "CATEGORIES", "RELATED-TO", "URL"],
        "VCARD": ["VERSION", "PRODID", "UID", "FN", "N", "NICKNAME", "ORG", "TITLE", "BDAY", "ANNIVERSARY", "EMAIL", "TEL",
                  "ADR", "CATEGORIES", "URL", "NOTE", "PHOTO", "REV", "KIND", "X-ABSHOWAS", "MEMBER", "X-ADDRESSBOOKSERVER-KIND",
                  "X-ADDRESSBOOKSERVER-MEMBER"],
    ]

    /// Properties that restate one pim writes: kept while that one's values are the server's.
    static let restating: [String: String] = [
        "X-ALT-DESC": "DESCRIPTION", "X-APPLE-STRUCTURED-LOCATION": "LOCATION", "LABEL": "ADR",
    ]

    /// The relations (RELATED-TO's RELTYPE, PARENT when it has none) pim writes for a task.
    static let ownedRelationTypes: Set<String> = ["PARENT", "DEPENDS-ON"]

    /// The value of parameter `name` of `property` (upper case, unquoted), if it has it.
    static func parameter(_ name: String, of property: Property) -> String? {
        for part in property.parameters.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).uppercased() == name else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).uppercased()
        }
        return nil
    }

    /// Properties a line of pim's is matched with a line of the server's by value.
    static let matchedByValue: Set<String> = ["EMAIL", "TEL", "ADR", "URL", "ATTENDEE", "ORGANIZER", "IMPP", "COMMENT"]

    /// `own` (pim's text, CRLF and folded) with what `theirs` (the server's copy) holds that pim
    /// does not.
    func merged(_ own: String, keeping theirs: String) -> String {
        let serverObjects = Self.components(of: Self.logicalLines(theirs))
        guard !serverObjects.isEmpty else { return own }
        let ours = Self.logicalLines(own)
        let ownObjects = Self.components(of: ours)
        var output: [String] = []
        var lineIndex = 0
        for object in ownObjects {
            // Lines before the component (the calendar's own, time zones) as pim wrote them.
            while lineIndex < object.begin { output += ours[lineIndex].physical; lineIndex += 1 }
            let server = serverObjects.first { $0.key == object.key } ?? Self.soleMatch(for: object, ours: ownObjects, theirs: serverObjects)
            guard let server else { continue }
            var used: Set<Int> = []
            let mine = object.properties
            // Alarms: pim's, each sent as the server wrote it when the server's copy has one
            // going off at the same time (its sound, UID, ACKNOWLEDGED stay); the server's other
            // alarms that pim reads were removed here, and those it cannot read stay. They all
            // follow the properties, as RFC 5545's grammar has them.
            let relativeToo = object.takesRelativeAlarms
            let serverAlarms = server.subcomponents.map { Self.alarmKey(of: $0, in: object.key.type, relativeToo: relativeToo) }
            var usedAlarms: Set<Int> = []
            var subcomponents: [String] = []
            let serverSummary = server.properties.first { $0.name == "SUMMARY" }?.value
            var index = object.begin
            while index < object.end {
                if let range = object.subcomponentRanges.first(where: { $0.lowerBound == index }) {
                    let block = range.flatMap { ours[$0].physical }
                    let key = Self.alarmKey(of: block, in: object.key.type, relativeToo: relativeToo)
                    if let key, let match = serverAlarms.indices.first(where: { serverAlarms[$0] == key && !usedAlarms.contains($0) }) {
                        usedAlarms.insert(match)
                        subcomponents += Self.alarm(server.subcomponents[match], describedAs: block, whenItSays: serverSummary)
                    } else {
                        subcomponents += block
                    }
                    index = range.upperBound
                    continue
                }
                defer { index += 1 }
                let line = ours[index]
                if let property = mine.first(where: { $0.line.index == index }), let match = equivalent(of: property, in: server, mine: mine, used: used) {
                    used.insert(match.line.index)
                    output += match.line.physical
                    for sibling in server.properties where sibling.group != nil && sibling.group == match.group && sibling.line.index != match.line.index {
                        used.insert(sibling.line.index)
                        output += sibling.line.physical
                    }
                } else {
                    output += line.physical
                }
            }
            output += keptLines(of: server, mine: mine, used: used)
            output += subcomponents
            for (number, block) in server.subcomponents.enumerated() where !usedAlarms.contains(number) {
                if let key = serverAlarms[number], removedAlarms.contains(Self.scoped(key, in: object.key)) { continue }
                output += block
            }
            lineIndex = object.end
        }
        while lineIndex < ours.count { output += ours[lineIndex].physical; lineIndex += 1 }
        return output.joined(separator: "\r\n") + "\r\n"
    }

    /// The server's line that says what pim's `property` says (the same address, number, or an
    /// ORG whose first part is pim's organization), not yet sent.
    private func equivalent(of property: Property, in server: Component, mine: [Property], used: Set<Int>) -> Property? {
        if property.name == "ORG" {
            return server.properties.first { $0.name == "ORG" && !used.contains($0.line.index)
                && Self.firstPart(of: $0.value) == Self.firstPart(of: property.value) }
        }
        if property.name == "BDAY" || property.name == "ANNIVERSARY" {
            // The same day however written: a server's `--0412` says what pim's 1604 form says.
            guard let day = Self.day(of: property) else { return nil }
            return server.properties.first { $0.name == property.name && !used.contains($0.line.index) && Self.day(of: $0) == day }
        }
        guard Self.matchedByValue.contains(property.name) else { return nil }
        let value = Self.comparable(property)
        if let found = server.properties.first(where: { $0.name == property.name && !used.contains($0.line.index) && Self.comparable($0) == value }) {
            return found
        }
        guard property.name == "ATTENDEE" || property.name == "ORGANIZER", let aliases = contactAddresses[value] else { return nil }
        // The same contact by another of its addresses, unless pim's text names that address too.
        let named = Set(mine.filter { $0.name == property.name }.map(Self.comparable))
        return server.properties.first { $0.name == property.name && !used.contains($0.line.index)
            && aliases.contains(Self.comparable($0)) && !named.contains(Self.comparable($0)) }
    }

    /// The server's lines pim's text does not say and are kept, in the server's order.
    private func keptLines(of server: Component, mine: [Property], used: Set<Int>) -> [String] {
        let names = Set(mine.map(\.name))
        let owned = Self.owned[server.key.type] ?? []
        // Groups of a property pim writes that was not matched: pim's line stands alone.
        let droppedGroups = Set(server.properties.filter { owned.contains($0.name) && !used.contains($0.line.index) }.compactMap(\.group))
        var kept: [String] = []
        for property in server.properties where !used.contains(property.line.index) {
            if let group = property.group, droppedGroups.contains(group) { continue }
            let keep: Bool
            switch property.name {
            case "ATTENDEE":
                keep = !removedAttendees.contains(Self.comparable(property))
            case "ORGANIZER":
                keep = !names.contains("ORGANIZER")
            case "PHOTO":
                keep = !names.contains("PHOTO") && (property.parameters.uppercased().contains("VALUE=URI") || property.value.contains("://"))
            case "RELATED-TO":
                // pim writes a task's parent and what it depends on, when they are tasks it has;
                // other relations (RFC 9253's SIBLING, NEXT, FINISHTOSTART…), and relations to
                // tasks pim does not have, are another client's, and stay.
                keep = !Self.ownedRelationTypes.contains(Self.parameter("RELTYPE", of: property) ?? "PARENT")
                    || !taskUIDs.contains(property.value.trimmingCharacters(in: .whitespaces).lowercased())
            case "BDAY", "ANNIVERSARY":
                keep = !names.contains(property.name) && property.value.hasPrefix("--")
            case "COMMENT":
                keep = server.key.type != "VTODO" || !removedComments.contains(Self.scoped(Self.comparable(property), in: server.key))
            case let name where Self.restating[name] != nil:
                let restated = Self.restating[name] ?? ""
                keep = Set(server.properties.filter { $0.name == restated }.map(\.value)) == Set(mine.filter { $0.name == restated }.map(\.value))
            default:
                keep = !owned.contains(property.name) && !property.name.hasPrefix("X-PIM-")
            }
            if keep { kept += property.line.physical }
        }
        return kept
    }

    // MARK: Reading content lines

    /// One content line: its unfolded text and the physical lines it was written as.
    struct Line {
        var index: Int
        var text: String
        var physical: [String]
    }

    /// A property line of a component.
    struct Property {
        var line: Line
        var name: String
        var group: String?
        var parameters: String
        var value: String
    }

    /// An event, to-do or card, as matched between the two texts.
    struct Key: Hashable {
        var type: String
        var uid: String
        /// The instant (or day) of RECURRENCE-ID: a changed occurrence; empty for a series or a card.
        var recurrence: String
    }

    /// An event, to-do or card: where it begins and ends (the END line), its properties and its
    /// subcomponents (alarms) as physical lines.
    struct Component {
        var key: Key
        var begin: Int
        var end: Int
        var properties: [Property]
        var subcomponents: [[String]]
        /// Where each subcomponent is, BEGIN through END, as indices of logical lines.
        var subcomponentRanges: [Range<Int>] = []

        /// Whether its alarms may be relative: a to-do's are related to its DUE, which pim's
        /// text of a to-do without one lacks.
        var takesRelativeAlarms: Bool { key.type != "VTODO" || properties.contains { $0.name == "DUE" } }
    }

    /// The alarms of pim's `text` (its events' and to-dos', each changed occurrence's apart), as
    /// a sync remembers them: what the next sync's ``removedAlarms`` is told from.
    static func alarmKeys(of text: String) -> [String] {
        let lines = logicalLines(text)
        var keys: [String] = []
        for object in components(of: lines) {
            for range in object.subcomponentRanges {
                guard let key = alarmKey(of: range.flatMap { lines[$0].physical }, in: object.key.type,
                                         relativeToo: object.takesRelativeAlarms) else { continue }
                keys.append(scoped(key, in: object.key))
            }
        }
        return keys
    }

    /// The comments of the to-dos of `text` (a resource's), each as its text in lower case within
    /// its to-do: what ``removedComments`` is made of.
    static func commentKeys(of text: String) -> [String] {
        let lines = logicalLines(text)
        return components(of: lines).filter { $0.key.type == "VTODO" }.flatMap { object in
            object.properties.filter { $0.name == "COMMENT" }.map { scoped(comparable($0), in: object.key) }
        }
    }

    /// The comments of the to-dos of `text`, each with its X-PIM-ENTRY stamp (when it has one)
    /// and its text, escapes undone, in order.
    static func comments(of text: String) -> [(stamp: String?, text: String)] {
        components(of: logicalLines(text)).filter { $0.key.type == "VTODO" }.flatMap { object in
            object.properties.filter { $0.name == "COMMENT" }.map { (parameter("X-PIM-ENTRY", of: $0), ContentProperty.unescaped($0.value)) }
        }
    }

    /// An alarm's key within its component (an event and each changed occurrence apart).
    static func scoped(_ key: String, in component: Key) -> String {
        "\(component.type) \(component.uid.lowercased()) \(component.recurrence) \(key)"
    }

    /// The server's alarm `theirs`, with the DESCRIPTION of pim's `ours` when its own was the
    /// server's SUMMARY (`summary`): an alarm that says the title says a title changed here.
    /// One whose text is its own (`Leave now`) keeps it.
    static func alarm(_ theirs: [String], describedAs ours: [String], whenItSays summary: String?) -> [String] {
        let serverLines = logicalLines(theirs.joined(separator: "\r\n"))
        let ownLines = logicalLines(ours.joined(separator: "\r\n"))
        guard let summary, let own = ownLines.first(where: { property($0).name == "DESCRIPTION" }),
              let index = serverLines.firstIndex(where: { property($0).name == "DESCRIPTION" }),
              property(serverLines[index]).value == summary, property(own).value != summary else { return theirs }
        var lines = serverLines.map(\.physical)
        lines[index] = own.physical
        return lines.flatMap { $0 }
    }

    /// What an alarm subcomponent (physical lines, BEGIN:VALARM to END:VALARM) of a `type`
    /// component goes off at, as pim reads alarms: `A` and the instant of an absolute TRIGGER, `R`
    /// and the duration of one relative to an event's start or a to-do's due date (RELATED=END).
    /// Nil for one pim does not read (relative to an event's end, to a to-do's start, an
    /// absolute time in an unknown zone, ACTION:NONE), for a relative one unless `relativeToo`,
    /// and for other subcomponents.
    static func alarmKey(of block: [String], in type: String, relativeToo: Bool = true) -> String? {
        let lines = logicalLines(block.joined(separator: "\r\n"))
        guard let first = lines.first, property(first).name == "BEGIN", property(first).value.uppercased() == "VALARM" else { return nil }
        // RFC 9074's alarm that never alerts (Apple's placeholder): no alarm pim reads.
        if lines.contains(where: { property($0).name == "ACTION" && property($0).value.uppercased() == "NONE" }) { return nil }
        var depth = 0
        for line in lines {
            let trigger = property(line)
            if trigger.name == "BEGIN" { depth += 1 }
            if trigger.name == "END" { depth -= 1 }
            guard depth == 1, trigger.name == "TRIGGER" else { continue }
            if parameter("VALUE", of: trigger) == "DATE-TIME" {
                let instant = instant(of: trigger)
                return instant.count == 14 || instant.hasPrefix("D") ? nil : "A" + instant
            }
            switch Alarm(trigger: trigger.value) {
            case .absolute(let date)?:
                // A UTC time without VALUE=DATE-TIME: `pim import` reads it on an event only.
                return type == "VTODO" ? nil : "A" + String(Int(date.timeIntervalSince1970))
            case let alarm?:
                let related = parameter("RELATED", of: trigger) ?? "START"
                return relativeToo && related == (type == "VTODO" ? "END" : "START") ? "R" + alarm.triggerText : nil
            case nil:
                return nil
            }
        }
        return nil
    }

    /// `text`'s content lines (CRLF or LF, as XML hands calendar data over), unfolded.
    static func logicalLines(_ text: String) -> [Line] {
        var lines: [Line] = []
        // CRLF is one Character: split at it as at a bare LF.
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            let physical = String(raw)
            if let first = physical.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1].text += physical.dropFirst()
                lines[lines.count - 1].physical.append(physical)
            } else if !physical.isEmpty {
                lines.append(Line(index: lines.count, text: physical, physical: [physical]))
            }
        }
        return lines
    }

    /// A content line split into its name (upper case, without its group), group, parameters
    /// and value (what follows the first colon outside quotes).
    static func property(_ line: Line) -> Property {
        var quoted = false
        var colon = line.text.endIndex
        for index in line.text.indices {
            if line.text[index] == "\"" { quoted.toggle() }
            if line.text[index] == ":", !quoted {
                colon = index
                break
            }
        }
        let head = line.text[..<colon]
        let value = colon < line.text.endIndex ? String(line.text[line.text.index(after: colon)...]) : ""
        let nameEnd = head.firstIndex(of: ";") ?? head.endIndex
        let fullName = head[..<nameEnd].uppercased()
        let dot = fullName.lastIndex(of: ".")
        return Property(line: line, name: dot.map { String(fullName[fullName.index(after: $0)...]) } ?? fullName,
                        group: dot.map { String(fullName[..<$0]) }, parameters: String(head[nameEnd...]), value: value)
    }

    /// The events, to-dos and cards of `lines`.
    static func components(of lines: [Line]) -> [Component] {
        var found: [Component] = []
        var open: Component?
        var inner: (depth: Int, lines: [String], begin: Int)?
        for line in lines {
            let property = property(line)
            if var nested = inner {
                nested.lines += line.physical
                if property.name == "BEGIN" { nested.depth += 1 }
                if property.name == "END" { nested.depth -= 1 }
                if nested.depth == 0 {
                    open?.subcomponents.append(nested.lines)
                    open?.subcomponentRanges.append(nested.begin..<line.index + 1)
                    inner = nil
                } else {
                    inner = nested
                }
                continue
            }
            if property.name == "BEGIN" {
                let type = property.value.uppercased()
                if open == nil, owned[type] != nil {
                    open = Component(key: Key(type: type, uid: "", recurrence: ""), begin: line.index + 1, end: line.index + 1,
                                     properties: [], subcomponents: [])
                } else if open != nil {
                    inner = (1, line.physical, line.index)
                }
            } else if property.name == "END", var component = open, property.value.uppercased() == component.key.type {
                component.end = line.index
                found.append(component)
                open = nil
            } else if open != nil {
                if property.name == "UID" { open?.key.uid = property.value }
                if property.name == "RECURRENCE-ID" { open?.key.recurrence = instant(of: property) }
                open?.properties.append(property)
            }
        }
        return found
    }

    /// A RECURRENCE-ID as the instant it names (seconds since 1970, in its TZID or UTC), or its
    /// day for a date; its digits when the zone is not known here.
    static func instant(of property: Property) -> String {
        let digits = property.value.filter(\.isNumber)
        guard digits.count == 14 else { return "D" + digits }
        let zoneName = property.parameters.split(separator: ";").first { $0.uppercased().hasPrefix("TZID=") }
            .map { String($0.dropFirst(5)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        let zone = property.value.uppercased().hasSuffix("Z") ? TimeZone(identifier: "UTC") : zoneName.flatMap(TimeZoneNames.zone(named:))
        guard let zone else { return digits }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let number = { (from: Int, length: Int) -> Int in Int(digits.dropFirst(from).prefix(length)) ?? 0 }
        let parts = DateComponents(year: number(0, 4), month: number(4, 2), day: number(6, 2), hour: number(8, 2),
                                   minute: number(10, 2), second: number(12, 2))
        return calendar.date(from: parts).map { String(Int($0.timeIntervalSince1970)) } ?? digits
    }

    /// A BDAY's or ANNIVERSARY's day as `yyyyMMdd`, or `--MMdd` for a day without a year (RFC
    /// 6350's `--0412` or `--04-12`, or Apple's 1604 and before); nil for anything else (a time, text).
    static func day(of property: Property) -> String? {
        let value = property.value.trimmingCharacters(in: .whitespaces)
        let digits = value.filter(\.isNumber)
        guard value.allSatisfy({ $0.isNumber || $0 == "-" }), value.allSatisfy(\.isASCII) else { return nil }
        if value.hasPrefix("--") { return digits.count == 4 ? "--" + digits : nil }
        guard digits.count == 8, let year = Int(digits.prefix(4)) else { return nil }
        return year <= 1604 ? "--" + digits.suffix(4) : digits
    }

    /// A value as lines are matched by: an address without `mailto:`, a number's digits, lower case.
    static func comparable(_ property: Property) -> String {
        let value = property.value.lowercased()
        switch property.name {
        case "TEL": return value.filter { $0.isNumber || $0 == "+" }
        case "ATTENDEE", "ORGANIZER", "EMAIL": return value.hasPrefix("mailto:") ? String(value.dropFirst(7)) : value
        // A comment as an annotation holds it: escapes undone, on one line.
        case "COMMENT": return Annotation(entry: nil, text: ContentProperty.unescaped(property.value)).text.lowercased()
        default: return value
        }
    }

    /// The first of a structured value's parts (ORG's organization).
    static func firstPart(of value: String) -> String {
        var escaped = false
        var part = ""
        for character in value {
            if escaped {
                part.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
                part.append(character)
            } else if character == ";" {
                break
            } else {
                part.append(character)
            }
        }
        return part
    }

    /// The server's only component of `object`'s type, when pim's text and the server's each
    /// have one that is not a changed occurrence (a card whose UID another program changed).
    private static func soleMatch(for object: Component, ours: [Component], theirs: [Component]) -> Component? {
        guard object.key.recurrence.isEmpty, ours.filter({ $0.key.type == object.key.type }).count == 1 else { return nil }
        let candidates = theirs.filter { $0.key.type == object.key.type && $0.key.recurrence.isEmpty }
        return candidates.count == 1 ? candidates.first : nil
    }
}
