// What `pim sync` keeps of the server's copy of a resource it replaces: everything pim does not
// hold. pim writes an event, to-do or card from its record, which has no place for an alarm
// (VALARM), for an attendee who is not one of its contacts, or for the properties other programs
// add (X-MOZ-*, X-APPLE-*, IMPP, RELATED...); sent alone, it would delete them on the server and
// on every device. The merger copies them from the server's copy into pim's text, inside the
// component they belong to (matched by UID and RECURRENCE-ID), as DAVx5 and Thunderbird keep the
// properties they do not know.
import Foundation

struct ResourceMerger {
    /// The e-mail addresses of the store's contacts (lower case): an ATTENDEE with one of them is
    /// one pim held, and left out on purpose when pim's text lacks it.
    var knownAddresses: Set<String>

    /// The properties pim writes (or reads into its records and writes back) for each component:
    /// these come from pim's text only.
    static let owned: [String: Set<String>] = [
        "VEVENT": ["UID", "DTSTAMP", "CREATED", "LAST-MODIFIED", "SUMMARY", "DTSTART", "DTEND", "DURATION", "LOCATION",
                   "DESCRIPTION", "URL", "STATUS", "RRULE", "EXDATE", "RECURRENCE-ID"],
        "VTODO": ["UID", "DTSTAMP", "CREATED", "LAST-MODIFIED", "SUMMARY", "DESCRIPTION", "DTSTART", "DUE", "DURATION",
                  "COMPLETED", "PERCENT-COMPLETE", "PRIORITY", "STATUS", "RRULE", "EXDATE", "CATEGORIES", "RELATED-TO", "URL"],
        "VCARD": ["VERSION", "PRODID", "UID", "FN", "N", "NICKNAME", "ORG", "TITLE", "BDAY", "ANNIVERSARY", "EMAIL", "TEL",
                  "ADR", "CATEGORIES", "URL", "NOTE", "PHOTO", "REV", "KIND", "X-ABSHOWAS"],
    ]

    /// `own` (pim's text, CRLF and folded) with what `theirs` (the server's copy) holds that pim
    /// does not, each kept line inserted before the end of its component.
    func merged(_ own: String, keeping theirs: String) -> String {
        let kept = keptLines(of: Self.logicalLines(theirs))
        guard !kept.isEmpty else { return own }
        let ours = Self.logicalLines(own)
        let objects = Self.objects(in: ours)
        var output: [String] = []
        var stack: [String] = []
        var current: (key: ObjectKey, hasOrganizer: Bool)?
        for line in ours {
            let name = Self.name(of: line.text)
            if name == "BEGIN" {
                let type = Self.value(of: line.text).uppercased()
                stack.append(type)
                if stack.count <= 2, Self.owned[type] != nil, let key = objects.first(where: { $0.line == line.index })?.key {
                    current = (key, false)
                }
            } else if name == "END" {
                let type = Self.value(of: line.text).uppercased()
                if let object = current, object.key.type == type, stack.count <= 2 {
                    let match = kept[object.key] ?? Self.soleMatch(for: object.key, in: kept, ours: objects)
                    for item in match ?? [] where !(item.isOrganizer && object.hasOrganizer) {
                        output += item.physical
                    }
                    current = nil
                }
                if !stack.isEmpty { stack.removeLast() }
            } else if name == "ORGANIZER" {
                current?.hasOrganizer = true
            }
            output += line.physical
        }
        return output.joined(separator: "\r\n") + "\r\n"
    }

    // MARK: Reading content lines

    /// One content line: its unfolded text and the physical lines it was written as.
    struct Line {
        var index: Int
        var text: String
        var physical: [String]
    }

    /// An event, to-do or card, as matched between the two texts.
    struct ObjectKey: Hashable {
        var type: String
        var uid: String
        /// The digits of RECURRENCE-ID (a changed occurrence), empty for a series or a card.
        var recurrence: String
    }

    /// A kept property or subcomponent.
    struct Kept {
        var physical: [String]
        var isOrganizer = false
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

    /// A content line's property name, upper case, without its group (`item1.EMAIL` is `EMAIL`).
    static func name(of line: String) -> String {
        let end = line.firstIndex { $0 == ";" || $0 == ":" } ?? line.endIndex
        let full = line[..<end].uppercased()
        return full.split(separator: ".").last.map(String.init) ?? full
    }

    /// A content line's group (`item1` of `item1.EMAIL`), if any.
    static func group(of line: String) -> String? {
        let end = line.firstIndex { $0 == ";" || $0 == ":" } ?? line.endIndex
        let full = line[..<end]
        guard let dot = full.firstIndex(of: ".") else { return nil }
        return full[..<dot].uppercased()
    }

    /// A content line's value: what follows the first colon outside quotes.
    static func value(of line: String) -> String {
        var quoted = false
        for index in line.indices {
            if line[index] == "\"" { quoted.toggle() }
            if line[index] == ":", !quoted { return String(line[line.index(after: index)...]) }
        }
        return ""
    }

    /// The events, to-dos and cards of `lines` with the line each begins on.
    static func objects(in lines: [Line]) -> [(line: Int, key: ObjectKey)] {
        var found: [(line: Int, key: ObjectKey)] = []
        var open: (line: Int, type: String, uid: String, recurrence: String)?
        for line in lines {
            let name = name(of: line.text)
            if name == "BEGIN" {
                let type = value(of: line.text).uppercased()
                if open == nil, owned[type] != nil { open = (line.index, type, "", "") }
            } else if name == "END" {
                if let object = open, value(of: line.text).uppercased() == object.type {
                    found.append((object.line, ObjectKey(type: object.type, uid: object.uid, recurrence: object.recurrence)))
                    open = nil
                }
            } else if name == "UID", open != nil {
                open?.uid = value(of: line.text)
            } else if name == "RECURRENCE-ID", open != nil {
                open?.recurrence = String(value(of: line.text).filter(\.isNumber))
            }
        }
        return found
    }

    /// What the server's copy holds that pim's text will not, by the component it is in.
    private func keptLines(of lines: [Line]) -> [ObjectKey: [Kept]] {
        let objects = Self.objects(in: lines)
        var kept: [ObjectKey: [Kept]] = [:]
        var current: (key: ObjectKey, items: [Kept], ownedGroups: Set<String>, lines: [Line])?
        var subcomponent: (depth: Int, physical: [String])?
        for line in lines {
            let name = Self.name(of: line.text)
            if var inner = subcomponent {
                inner.physical += line.physical
                if name == "BEGIN" { inner.depth += 1 }
                if name == "END" { inner.depth -= 1 }
                if inner.depth == 0 {
                    current?.items.append(Kept(physical: inner.physical))
                    subcomponent = nil
                } else {
                    subcomponent = inner
                }
                continue
            }
            if name == "BEGIN" {
                if let key = objects.first(where: { $0.line == line.index })?.key, current == nil {
                    current = (key, [], [], [])
                } else if current != nil {
                    // An alarm (or any component inside the event or to-do): kept whole.
                    subcomponent = (1, line.physical)
                }
                continue
            }
            if name == "END" {
                if let object = current, Self.value(of: line.text).uppercased() == object.key.type {
                    // Properties of a group pim writes (item1.EMAIL) take their labels along.
                    let items = object.items + object.lines.filter { Self.group(of: $0.text).map { !object.ownedGroups.contains($0) } ?? true }
                        .map { Kept(physical: $0.physical) }
                    if !items.isEmpty { kept[object.key] = items }
                    current = nil
                }
                continue
            }
            guard var object = current else { continue }
            let owned = Self.owned[object.key.type] ?? []
            if name == "ATTENDEE" {
                // An attendee pim could hold is one of its contacts: then pim's text says it.
                let address = Self.value(of: line.text).lowercased().replacingOccurrences(of: "mailto:", with: "")
                // (pim writes none for a to-do or a card.)
                if object.key.type != "VEVENT" || !knownAddresses.contains(address) { object.items.append(Kept(physical: line.physical)) }
            } else if name == "ORGANIZER" {
                object.items.append(Kept(physical: line.physical, isOrganizer: true))
            } else if owned.contains(name) || name.hasPrefix("X-PIM-") {
                if let group = Self.group(of: line.text) { object.ownedGroups.insert(group) }
            } else {
                object.lines.append(line)
            }
            current = object
        }
        return kept
    }

    /// The kept lines of the server's only component of `key`'s type, when pim's text and the
    /// server's each have one (a card whose UID another program changed).
    private static func soleMatch(for key: ObjectKey, in kept: [ObjectKey: [Kept]],
                                  ours: [(line: Int, key: ObjectKey)]) -> [Kept]? {
        guard key.recurrence.isEmpty, ours.filter({ $0.key.type == key.type }).count == 1 else { return nil }
        let theirs = kept.filter { $0.key.type == key.type && $0.key.recurrence.isEmpty }
        return theirs.count == 1 ? theirs.first?.value : nil
    }
}
